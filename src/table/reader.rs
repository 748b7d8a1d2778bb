//! Reading a table through a memory map, refusing anything malformed.

use std::fs::File;
use std::path::{Path, PathBuf};

use byteorder::{ByteOrder, LittleEndian as LE};
use memmap2::Mmap;

use super::header::Header;
use super::{checksum, TableError, ALIGN, MAGIC, VERSION};
use crate::game::Index;

/// An open, checked table file.
pub struct Table {
    path: PathBuf,
    header: Header,
    map: Mmap,
    /// `(first index, byte offset)` of each section, for index lookups.
    starts: Vec<(u64, u64)>,
    size: u64,
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Table")
            .field("path", &self.path)
            .field("header", &self.header)
            .finish()
    }
}

/// Whether the payload checksums were checked and what they said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChecksumStatus {
    Ok,
    /// Names of the sections whose checksum does not match.
    Mismatch(Vec<String>),
}

impl Table {
    /// Open and check everything, payload checksums included.
    pub fn open(path: &Path) -> Result<Table, TableError> {
        let t = Table::open_unverified(path)?;
        if let ChecksumStatus::Mismatch(_) = t.checksum_status() {
            let s = t
                .header
                .sections
                .iter()
                .find(|s| checksum(t.section_bytes(s)) != s.checksum)
                .expect("a mismatching section exists");
            return Err(TableError::Checksum {
                path: path.to_path_buf(),
                part: format!("section '{}'", s.name),
                stored: s.checksum,
                computed: checksum(t.section_bytes(s)),
            });
        }
        Ok(t)
    }

    /// Open and check the header and the file's shape, but not the payload checksums (for
    /// `retro verify`, which reports them itself).
    pub fn open_unverified(path: &Path) -> Result<Table, TableError> {
        let p = || path.to_path_buf();
        let file = File::open(path).map_err(|source| TableError::Io { path: p(), source })?;
        // Safety: the map is read-only and private to this process. Table files are written
        // once under a temporary name and renamed into place, never modified in place by
        // retro; if another program truncates the file while it is mapped, reads may fault,
        // which is the documented limit of memory-mapped files.
        let map =
            unsafe { Mmap::map(&file) }.map_err(|source| TableError::Io { path: p(), source })?;
        if map.len() < 16 || map[..8] != MAGIC {
            return Err(if map.len() < 8 || map[..8] != MAGIC {
                TableError::Magic { path: p() }
            } else {
                TableError::Size {
                    path: p(),
                    detail: format!("{} bytes is shorter than any header", map.len()),
                }
            });
        }
        let version = LE::read_u32(&map[8..12]);
        if version != VERSION {
            return Err(TableError::Version {
                path: p(),
                found: version,
                expected: VERSION,
            });
        }
        let hlen = LE::read_u32(&map[12..16]) as usize;
        if hlen < 24 || hlen > map.len() {
            return Err(TableError::Size {
                path: p(),
                detail: format!("header claims {hlen} bytes, file has {} bytes", map.len()),
            });
        }
        let stored = LE::read_u64(&map[hlen - 8..hlen]);
        let computed = checksum(&map[..hlen - 8]);
        if stored != computed {
            return Err(TableError::Checksum {
                path: p(),
                part: "header".into(),
                stored,
                computed,
            });
        }
        let header = Header::decode(&map[..hlen])
            .map_err(|detail| TableError::Header { path: p(), detail })?;
        let mut starts = Vec::new();
        let mut index = 0u64;
        let mut end = hlen as u64;
        for s in &header.sections {
            if s.offset % ALIGN != 0 || s.offset < end {
                return Err(TableError::Header {
                    path: p(),
                    detail: format!("section '{}' has a bad offset {}", s.name, s.offset),
                });
            }
            let hist = s.histogram.iter().try_fold(0u64, |a, &n| a.checked_add(n));
            if hist != Some(s.records) {
                return Err(TableError::Header {
                    path: p(),
                    detail: format!(
                        "section '{}' statistics do not add up to its {} records",
                        s.name, s.records
                    ),
                });
            }
            end = s
                .offset
                .checked_add(s.byte_len())
                .ok_or_else(|| TableError::Header {
                    path: p(),
                    detail: format!("section '{}' is impossibly large", s.name),
                })?;
            starts.push((index, s.offset));
            index = index.saturating_add(s.records);
        }
        if end != map.len() as u64 {
            return Err(TableError::Size {
                path: p(),
                detail: format!("expected {end} bytes, found {}", map.len()),
            });
        }
        Ok(Table {
            path: path.to_path_buf(),
            header,
            map,
            starts,
            size: index,
        })
    }

    fn section_bytes(&self, s: &super::SectionInfo) -> &[u8] {
        &self.map[s.offset as usize..(s.offset + s.byte_len()) as usize]
    }

    /// Recompute the payload checksums.
    pub fn checksum_status(&self) -> ChecksumStatus {
        let bad: Vec<String> = self
            .header
            .sections
            .iter()
            .filter(|s| checksum(self.section_bytes(s)) != s.checksum)
            .map(|s| s.name.clone())
            .collect();
        if bad.is_empty() {
            ChecksumStatus::Ok
        } else {
            ChecksumStatus::Mismatch(bad)
        }
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of records over all sections.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// File size in bytes.
    pub fn file_len(&self) -> u64 {
        self.map.len() as u64
    }

    /// The record `[value byte, move byte]` at `index`; `(0, 0)` (illegal, no move) outside
    /// the table, so a wrong index can never crash a prober.
    #[inline]
    pub fn record(&self, index: Index) -> (u8, u8) {
        let mut k = self.starts.len();
        while k > 0 {
            k -= 1;
            let (first, offset) = self.starts[k];
            if index >= first {
                let at = (offset + (index - first) * 2) as usize;
                return match self.map.get(at..at + 2) {
                    Some(r) if index < self.size => (r[0], r[1]),
                    _ => (0, 0),
                };
            }
        }
        (0, 0)
    }
}
