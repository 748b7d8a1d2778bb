//! Reading a table through a memory map, refusing anything malformed.

use std::fs::File;
use std::path::{Path, PathBuf};

use byteorder::{ByteOrder, LittleEndian as LE};

use super::header::Header;
use super::storage::Storage;
use super::{checksum, TableError, ALIGN, IN_MEMORY_MAX, MAGIC, VERSION};
use crate::game::{Index, Value};

/// An open, checked table file.
pub struct Table {
    path: PathBuf,
    header: Header,
    map: Storage,
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

/// Whether to copy the file into memory or map it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    /// Copy files up to [`IN_MEMORY_MAX`] bytes, map larger ones.
    Auto,
    /// Always copy: nothing done to the file afterwards can crash the reader (the server).
    Copy,
}

/// What kind of file `meta` describes, for a message.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a named pipe";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    "a special file"
}

impl Table {
    /// Open and check everything, payload checksums included.
    pub fn open(path: &Path) -> Result<Table, TableError> {
        Table::open_with(path, Load::Auto)
    }

    /// [`Table::open`], choosing how the bytes are held.
    pub fn open_with(path: &Path, load: Load) -> Result<Table, TableError> {
        let t = Table::open_unverified_with(path, load)?;
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
        Table::open_unverified_with(path, Load::Auto)
    }

    fn open_unverified_with(path: &Path, load: Load) -> Result<Table, TableError> {
        let p = || path.to_path_buf();
        let io = |source| TableError::Io { path: p(), source };
        // Look before opening: opening a named pipe for reading blocks until a writer comes.
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(TableError::NotRegular {
                path: p(),
                kind: kind_of(&meta),
            });
        }
        let file = File::open(path).map_err(io)?;
        // And again on what was opened, in case the name was swapped in between.
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(TableError::NotRegular {
                path: p(),
                kind: kind_of(&meta),
            });
        }
        let map = if load == Load::Copy || meta.len() <= IN_MEMORY_MAX {
            Storage::read(&file, meta.len())
        } else {
            Storage::map(&file)
        }
        .map_err(io)?;
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
        if (1..VERSION).contains(&version) {
            // An older table: name the command that regenerates it. Take the table's name
            // from its header if that still reads, else from the file name.
            let hlen = LE::read_u32(&map[12..16]) as usize;
            let name = map
                .get(..hlen)
                .and_then(|h| Header::decode(h).ok())
                .map(|h| h.name)
                .unwrap_or_else(|| {
                    let stem = path.file_stem().unwrap_or_default();
                    stem.to_string_lossy().into_owned()
                });
            let dir = path.parent().map(|d| match d.as_os_str().is_empty() {
                true => Path::new("."),
                false => d,
            });
            let mut command = crate::registry::generate_command(&name);
            if let Some(dir) = dir {
                command = format!("{command} --out {}", dir.display());
            }
            return Err(TableError::OldVersion {
                path: p(),
                found: version,
                expected: VERSION,
                command,
            });
        }
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
            // The padding before each payload is zero, so no byte goes unchecked. (The
            // offset is within the file: the size check below would refuse it otherwise,
            // but it has not run yet.)
            let gap = map.get(end as usize..s.offset as usize).unwrap_or_default();
            if let Some(k) = gap.iter().position(|&b| b != 0) {
                return Err(TableError::Padding {
                    path: p(),
                    offset: end + k as u64,
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

    /// Whether the bytes are a private copy in memory (else a map of the file).
    pub fn is_copy(&self) -> bool {
        self.map.is_copy()
    }

    /// Every record of section `s`, as `[value, move]` pairs.
    pub fn section_records(&self, s: &super::SectionInfo) -> &[u8] {
        self.section_bytes(s)
    }

    /// The value stored at `index` (both bytes of its record: see [`Value::from_record`]).
    #[inline]
    pub fn value(&self, index: Index) -> Value {
        let (v, mv) = self.record(index);
        Value::from_record(v, mv)
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
