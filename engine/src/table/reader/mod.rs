//! Reading a table through a memory map, refusing anything malformed.

// A part of the reader rather than beside it: a table holds its game's completion, and
// the completion reads the table.
pub mod complete;

use std::borrow::Cow;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};

use byteorder::{ByteOrder, LittleEndian as LE};
use rayon::prelude::*;

use super::cache::CacheBudget;
use super::compressed::{self, Blocks};
use super::header::{check_header_sum, Header};
use super::storage::Storage;
use super::{Metric, TableError, ALIGN, IN_MEMORY_MAX, MAGIC, VERSION};
use crate::game::{Index, Value, NO_MOVE};
use complete::{Complete, Completion};

/// Records given at a time by [`Table::scan_section_records`] from a dense table: 2 MiB.
pub const SCAN_SLOTS: u64 = 1 << 20;

/// An open, checked table file: dense (two bytes a slot), or compressed (values in
/// blocks, see [`super::compressed`]).
pub struct Table {
    path: PathBuf,
    header: Header,
    map: Storage,
    /// `(first index, byte offset)` of each section, for index lookups (dense).
    starts: Vec<(u64, u64)>,
    size: u64,
    /// The blocks of a compressed table.
    blocks: Option<Blocks>,
    /// What the records mean (the header says).
    metric: Metric,
    /// A compressed table's game, which finds the values of a dropped section.
    completion: OnceLock<Completion>,
    /// A dropped section's symbols, all found at once (see [`Table::complete_all`]), each
    /// of the table's symbol width, little-endian.
    completed: OnceLock<Vec<u8>>,
    /// The first damaged block a lookup met since the table was opened.
    damage: Mutex<Option<String>>,
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
    /// Names of the sections whose checksum does not match (for a compressed table, each
    /// bad block, with its section and what is wrong).
    Mismatch(Vec<String>),
}

/// How to hold a table's bytes. Files up to [`IN_MEMORY_MAX`] bytes are always copied into
/// memory; the choice is about larger ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Load {
    /// Map larger files: the fastest reads (the solver reading sub-tables), but a file
    /// truncated in place by another program kills the process (SIGBUS).
    Auto,
    /// Read larger files, and compressed ones of any size, at positions: nothing done to
    /// the file afterwards can crash the reader, and memory stays small however many
    /// tables are open (the server, `retro probe`).
    Safe,
    /// Read every file at positions, small ones too: a change to the file after it was
    /// opened is then met as it is in a large one (tests of that).
    Positioned,
}

/// Set by [`never_map`]: the process reads at positions whatever [`Load`] asks.
static NEVER_MAP: AtomicBool = AtomicBool::new(false);

/// From now on, every table this process opens is copied or read at positions, never
/// mapped: for a process that must outlive any change to its files (`retro serve`,
/// `retro probe`). A
/// process-wide switch rather than a parameter because chess plug-ins open their
/// sub-tables deep inside the registry, and a server must not map any of them.
pub fn set_never_map() {
    NEVER_MAP.store(true, Relaxed);
}

pub(crate) fn never_map() -> bool {
    NEVER_MAP.load(Relaxed)
}

/// Set by [`set_map_small`]: [`Load::Auto`] maps small files too.
static MAP_SMALL: AtomicBool = AtomicBool::new(false);

/// From now on, [`Load::Auto`] maps every file, small ones too, unless the process never
/// maps ([`set_never_map`]): for `retro generate`, whose solves read their sub-tables
/// over and over. Their bytes are then held once, in the kernel's page cache (shared, and
/// given back under pressure), not copied into the process's own memory: KRPvKR's
/// 4-piece sub-tables are 85 MB, a tenth of a byte a slot of its solve.
pub fn set_map_small() {
    MAP_SMALL.store(true, Relaxed);
}

/// True if `path` is a retro table of an older format version (its first 16 bytes say so),
/// which this build refuses: a file to generate again, not damage to report.
pub fn written_in_older_format(path: &Path) -> bool {
    // Only regular files are opened: opening a named pipe would block.
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut head = [0u8; 12];
    let read = File::open(path).and_then(|mut f| {
        use std::io::Read;
        f.read_exact(&mut head)
    });
    read.is_ok() && head[..8] == MAGIC && (1..VERSION).contains(&LE::read_u32(&head[8..12]))
}

/// The error of a failed read of the table at `path`: [`TableError::Changed`] if the file
/// changed since it was opened.
fn read_error(path: &Path, source: std::io::Error) -> TableError {
    if super::storage::is_changed(&source) {
        TableError::Changed {
            path: path.to_path_buf(),
        }
    } else {
        TableError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl Table {
    /// Open and check everything, payload checksums included.
    pub fn open(path: &Path) -> Result<Table, TableError> {
        Table::open_with(path, Load::Auto)
    }

    /// [`Table::open`], choosing how the bytes are held.
    pub fn open_with(path: &Path, load: Load) -> Result<Table, TableError> {
        let t = Table::open_unverified_with(path, load)?;
        if t.blocks.is_some() {
            t.check_blocks()?;
            return Ok(t);
        }
        for (s, computed) in t.header.sections.iter().zip(t.section_checksums()) {
            let computed = computed.map_err(|source| read_error(path, source))?;
            if computed != s.checksum {
                return Err(TableError::Checksum {
                    path: path.to_path_buf(),
                    part: format!("section '{}'", s.name),
                    stored: s.checksum,
                    computed,
                });
            }
        }
        Ok(t)
    }

    /// Open and check the header and the file's shape, but not the payload checksums (for
    /// `retro verify`, which reports them itself).
    pub fn open_unverified(path: &Path) -> Result<Table, TableError> {
        Table::open_unverified_with(path, Load::Auto)
    }

    fn open_unverified_with(path: &Path, load: Load) -> Result<Table, TableError> {
        Table::open_in(path, load, CacheBudget::process())
    }

    /// [`Table::open`], a compressed table's decoded blocks counting against `budget`
    /// rather than the process's (a test's small one); a dense table has no such blocks.
    pub fn open_with_cache_budget(
        path: &Path,
        budget: Arc<CacheBudget>,
    ) -> Result<Table, TableError> {
        let t = Table::open_in(path, Load::Auto, budget)?;
        if t.blocks.is_none() {
            // Its payload checksums are checked as any dense table's.
            return Table::open(path);
        }
        t.check_blocks()?;
        Ok(t)
    }

    fn open_in(path: &Path, load: Load, budget: Arc<CacheBudget>) -> Result<Table, TableError> {
        let p = || path.to_path_buf();
        let io = |source| read_error(path, source);
        // Look before opening: opening a named pipe for reading blocks until a writer comes.
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(TableError::NotRegular {
                path: p(),
                kind: crate::input::kind_of(&meta),
            });
        }
        let file = File::open(path).map_err(io)?;
        // And again on what was opened, in case the name was swapped in between.
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(TableError::NotRegular {
                path: p(),
                kind: crate::input::kind_of(&meta),
            });
        }
        // A compressed table is read a block at a time, each block decoded (hundreds of
        // microseconds) and its decoded values cached: a copy of its file would only save a
        // read per block decoded, and a whole 5-piece set held that way takes gigabytes.
        // A process that must survive changes to its files therefore reads them at
        // positions, whatever their size, and holds only what the block cache keeps.
        let compressed = {
            let mut magic = [0u8; 8];
            file.read_exact_at(&mut magic, 0).is_ok() && magic == compressed::MAGIC
        };
        let safe = load == Load::Safe || never_map();
        let map = if load == Load::Positioned || (compressed && safe) {
            Ok(Storage::positioned(file, &meta))
        } else if meta.len() <= IN_MEMORY_MAX
            && !(load == Load::Auto && MAP_SMALL.load(Relaxed) && !safe)
        {
            Storage::read(file, &meta)
        } else if safe {
            Ok(Storage::positioned(file, &meta))
        } else {
            Storage::map(file, &meta)
        }
        .map_err(io)?;
        let len = map.len();
        let read = |at: u64, n: u64| map.bytes(at, n).map_err(io);
        let head = read(0, len.min(16))?;
        let magic = len >= 8 && (head[..8] == MAGIC || head[..8] == compressed::MAGIC);
        if len < 16 || !magic {
            return Err(if !magic {
                TableError::Magic { path: p() }
            } else {
                TableError::Size {
                    path: p(),
                    detail: format!("{len} bytes is shorter than any header"),
                }
            });
        }
        if head[..8] == compressed::MAGIC {
            let (header, metric, blocks) = compressed::open(path, &map, budget)?;
            let size = header.records();
            return Ok(Table {
                path: path.to_path_buf(),
                header,
                map,
                starts: Vec::new(),
                size,
                blocks: Some(blocks),
                metric,
                completion: OnceLock::new(),
                completed: OnceLock::new(),
                damage: Mutex::new(None),
            });
        }
        let version = LE::read_u32(&head[8..12]);
        let hlen = LE::read_u32(&head[12..16]) as u64;
        if (1..VERSION).contains(&version) {
            // An older table, named so that the fix can name it: from its header if that
            // still reads, else from the file name.
            let name = map
                .bytes(0, hlen)
                .ok()
                .and_then(|h| Header::decode(&h).ok())
                .map(|h| h.name)
                .unwrap_or_else(|| {
                    let stem = path.file_stem().unwrap_or_default();
                    stem.to_string_lossy().into_owned()
                });
            return Err(TableError::OldVersion {
                path: p(),
                found: version,
                expected: VERSION,
                name,
            });
        }
        if version != VERSION {
            return Err(TableError::Version {
                path: p(),
                found: version,
                expected: VERSION,
            });
        }
        if hlen < 24 || hlen > len {
            return Err(TableError::Size {
                path: p(),
                detail: format!("header claims {hlen} bytes, file has {len} bytes"),
            });
        }
        let hbytes = read(0, hlen)?;
        check_header_sum(path, &hbytes)?;
        let header =
            Header::decode(&hbytes).map_err(|detail| TableError::Header { path: p(), detail })?;
        let mut starts = Vec::new();
        let mut index = 0u64;
        let mut end = hlen;
        for s in &header.sections {
            // Each payload starts at the first aligned offset after what precedes it.
            if s.offset % ALIGN != 0 || s.offset < end || s.offset - end >= ALIGN {
                return Err(TableError::Header {
                    path: p(),
                    detail: format!("section '{}' has a bad offset {}", s.name, s.offset),
                });
            }
            // The padding before each payload is zero, so no byte goes unchecked. (The
            // offset may lie beyond the file: the size check below refuses that.)
            let gap = map.bytes(end, s.offset - end).unwrap_or_default();
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
        if end != len {
            return Err(TableError::Size {
                path: p(),
                detail: format!("expected {end} bytes, found {len}"),
            });
        }
        // `Header::decode` read the metric already: it sized the histograms by it.
        let metric = Metric::of_params(&header.params)
            .map_err(|detail| TableError::Header { path: p(), detail })?;
        Ok(Table {
            path: path.to_path_buf(),
            header,
            map,
            starts,
            size: index,
            blocks: None,
            metric,
            completion: OnceLock::new(),
            completed: OnceLock::new(),
            damage: Mutex::new(None),
        })
    }

    /// A compressed table's blocks must all hash to their checksums: the first bad one.
    fn check_blocks(&self) -> Result<(), TableError> {
        let Some(blocks) = &self.blocks else {
            return Ok(());
        };
        match blocks
            .check(&self.map, &self.header)
            .into_iter()
            .min_by_key(|b| b.block)
        {
            Some(bad) => Err(TableError::Block {
                path: self.path.clone(),
                detail: format!(
                    "block {} (section '{}') {}",
                    bad.block, bad.section, bad.detail
                ),
            }),
            None => Ok(()),
        }
    }

    /// The payload checksum of each section as the file now reads, in the header's order,
    /// the sections read at once: a table just written past the page cache is read back
    /// from the disk, and two sections read together took about a sixth less time than one
    /// after the other (KRPvKR, 1.6 GB, page cache dropped). An error where a section
    /// cannot be read (a file read at positions that shrank since it was opened).
    fn section_checksums(&self) -> Vec<std::io::Result<u64>> {
        (self.header.sections.par_iter())
            .map(|s| self.map.checksum(s.offset, s.byte_len()))
            .collect()
    }

    /// Recompute the payload checksums (a compressed table's block checksums, and that
    /// each block decodes).
    pub fn checksum_status(&self) -> ChecksumStatus {
        if let Some(blocks) = &self.blocks {
            let mut found = blocks.check(&self.map, &self.header);
            found.sort_by_key(|b| b.block);
            let bad: Vec<String> = found
                .into_iter()
                .map(|b| format!("{} (block {}: {})", b.section, b.block, b.detail))
                .collect();
            return if bad.is_empty() {
                ChecksumStatus::Ok
            } else {
                ChecksumStatus::Mismatch(bad)
            };
        }
        let bad: Vec<String> = (self.header.sections.iter())
            .zip(self.section_checksums())
            .filter(|(s, computed)| computed.as_ref().ok() != Some(&s.checksum))
            .map(|(s, _)| s.name.clone())
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
        self.map.len()
    }

    /// Whether nothing done to the file can crash this reader: its bytes are a private
    /// copy in memory or read at positions (not a map of the file).
    pub fn survives_changes(&self) -> bool {
        self.map.survives_changes()
    }

    /// Whether the table's bytes are a copy in memory (not read from its file).
    pub fn in_memory(&self) -> bool {
        self.map.in_memory()
    }

    /// Every record of section `s`, as `[value, move]` pairs (read into memory if the file
    /// is read at positions). A compressed table has no moves: each record's move byte is
    /// then a placeholder (none for a terminal loss, 1 otherwise, so that
    /// [`Value::from_record`] reads the value), and its illegal slots hold other values.
    pub fn section_records(&self, s: &super::SectionInfo) -> std::io::Result<Cow<'_, [u8]>> {
        let Some(blocks) = &self.blocks else {
            return self.map.bytes(s.offset, s.byte_len());
        };
        let k = self.section_number(s);
        let records = match blocks.section_symbols(&self.map, k) {
            Some(v) => (v.map_err(std::io::Error::other)?.iter())
                .flat_map(|&s| self.placeholder_record(blocks.symbols().value(s)))
                .collect(),
            None => {
                let first = self.section_first(k);
                (first..first + s.records)
                    .flat_map(|i| self.placeholder_record(self.value(i)))
                    .collect()
            }
        };
        Ok(Cow::Owned(records))
    }

    /// The records of section `s` as [`Table::section_records`] gives them, a part at a
    /// time in index order (at most [`SCAN_SLOTS`] records, or one block of a compressed
    /// table), each given to `f` with its first slot's place in the section, until `f`
    /// breaks. What is held at once stays small whatever the table's size: a server
    /// scanning a 5-piece section for its statistics page would otherwise hold 1.6 GB.
    pub fn scan_section_records(
        &self,
        s: &super::SectionInfo,
        mut f: impl FnMut(u64, &[u8]) -> std::ops::ControlFlow<()>,
    ) -> std::io::Result<()> {
        // The section's parts of a dense table, and of a dropped section: (first, length).
        let parts = (0..s.records)
            .step_by(SCAN_SLOTS as usize)
            .map(|done| (done, SCAN_SLOTS.min(s.records - done)));
        let Some(blocks) = &self.blocks else {
            for (done, n) in parts {
                if f(done, &self.map.bytes(s.offset + 2 * done, 2 * n)?).is_break() {
                    break;
                }
            }
            return Ok(());
        };
        let k = self.section_number(s);
        let mut records = Vec::new();
        let scanned = blocks.scan_section(&self.map, k, |at, symbols| {
            records.clear();
            records.extend(
                (symbols.iter()).flat_map(|&x| self.placeholder_record(blocks.symbols().value(x))),
            );
            f(at, &records)
        });
        if let Some(r) = scanned {
            return r.map_err(std::io::Error::other);
        }
        // A dropped section: each value a search one ply on.
        let first = self.section_first(k);
        for (done, n) in parts {
            records.clear();
            records.extend(
                (first + done..first + done + n)
                    .flat_map(|i| self.placeholder_record(self.value(i))),
            );
            if f(done, &records).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// The noted slots of section `s` of a compressed table (the first in index order
    /// holding the section's longest value), where its file keeps them; `None` for a
    /// dense table.
    pub fn section_noted(&self, s: &super::SectionInfo) -> Option<&[Index]> {
        self.blocks.as_ref()?.section_noted(self.section_number(s))
    }

    /// Where section `s` comes in the header (by name: the sections' names differ).
    fn section_number(&self, s: &super::SectionInfo) -> usize {
        (self.header.sections.iter())
            .position(|x| x.name == s.name)
            .unwrap_or(0)
    }

    /// The first slot of section number `k`.
    fn section_first(&self, k: usize) -> Index {
        self.header.sections[..k].iter().map(|x| x.records).sum()
    }

    /// The record a compressed table gives for value `v`: its value byte and a placeholder
    /// move (none for a terminal loss, 1 otherwise, so that [`Value::from_record`] reads
    /// the value).
    fn placeholder_record(&self, v: Value) -> [u8; 2] {
        (self.metric).record(v, if v == Value::Loss(0) { NO_MOVE } else { 1 })
    }

    /// The symbol a compressed table writes `v` as (see [`compressed::Symbols`]).
    pub(super) fn symbol_of(&self, v: Value) -> Option<u16> {
        self.blocks.as_ref()?.symbols().symbol(v)
    }

    /// The value of a compressed table's symbol `s`.
    pub(super) fn value_of_symbol(&self, s: u16) -> Value {
        self.blocks
            .as_ref()
            .map_or(Value::Illegal, |b| b.symbols().value(s))
    }

    /// Whether this is a compressed table (values only: no best moves, and illegal slots
    /// not marked).
    pub fn is_compressed(&self) -> bool {
        self.blocks.is_some()
    }

    /// The block of a compressed table holding slot `index`: its number and the bytes it
    /// takes in the file.
    pub fn compressed_block_of(&self, index: Index) -> Option<(usize, std::ops::Range<u64>)> {
        self.blocks.as_ref()?.block_of(index)
    }

    /// The budget a compressed table's decoded blocks count against.
    pub fn cache_budget(&self) -> Option<&CacheBudget> {
        self.blocks.as_ref().map(Blocks::cache_budget)
    }

    /// The slots of each block of a compressed table (`None` for a dense one).
    pub fn compressed_block_slots(&self) -> Option<u64> {
        self.blocks.as_ref().map(|b| b.block_slots())
    }

    /// The number of blocks of a compressed table.
    pub fn compressed_blocks(&self) -> Option<usize> {
        self.blocks.as_ref().map(Blocks::len)
    }

    /// The value stored at `index` (both bytes of its record: see [`Value::from_record`]).
    /// In a compressed table an illegal slot holds some other value: ask only for slots
    /// the game says are legal. A slot of a section the table drops is found one ply on,
    /// by the game it was given ([`Table::complete_with`]). A compressed block that no longer reads answers
    /// `Value::Illegal` and is reported to the probe watching this thread
    /// ([`super::damage::watch`]).
    #[inline]
    pub fn value(&self, index: Index) -> Value {
        if let Some(blocks) = &self.blocks {
            return match blocks.symbol(&self.map, index) {
                Some(Ok(s)) => blocks.symbols().value(s),
                Some(Err(detail)) => {
                    self.damaged(detail);
                    Value::Illegal
                }
                None if blocks.is_dropped(index) => self.dropped_value(blocks, index),
                None => Value::Illegal,
            };
        }
        let (v, mv) = self.record(index);
        self.metric.value([v, mv])
    }

    /// Record damage met by a lookup: for the probe watching this thread, and for
    /// [`Table::damage`].
    fn damaged(&self, detail: String) {
        // Kept for [`Table::damage`] whatever the cause: a solver reading this table on
        // many threads (which the probe's watch does not follow) asks it before it writes.
        let mut first = self.damage.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert_with(|| detail.clone());
        drop(first);
        // A block of a file changed since it was opened is not damage to the table that
        // was checked: the file must be opened again.
        if let Some(e) = self.changed() {
            super::damage::report(e);
            return;
        }
        super::damage::report(TableError::Block {
            path: self.path.clone(),
            detail,
        });
    }

    /// [`TableError::Changed`] if the file was written, cut or replaced in place since it
    /// was opened (one `fstat`). A copy in memory still answers as the file was; a file
    /// read at positions no longer answers at all.
    pub fn changed(&self) -> Option<TableError> {
        self.map.check().err().map(|_| TableError::Changed {
            path: self.path.clone(),
        })
    }

    /// The open file and what it was when opened: whatever the table's name leads to now,
    /// these are its bytes (`retro serve` sends downloads from it).
    pub fn file(&self) -> (&File, super::storage::Stamp) {
        (self.map.file(), self.map.stamp())
    }

    /// The first damaged block any lookup met in this table, or in the tables its game
    /// reads to find a dropped section's values, since it was opened: a solver reading it
    /// as a sub-table must not write what it made (its lookups run on many threads, which
    /// [`super::damage::watch`] does not follow).
    pub fn damage(&self) -> Option<TableError> {
        let own = self
            .damage
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        match own {
            Some(detail) => Some(TableError::Block {
                path: self.path.clone(),
                detail,
            }),
            None => self.completion.get().and_then(|c| c.by.damage()),
        }
    }

    /// The value of a slot of a dropped section: worked out already, or one ply on.
    fn dropped_value(&self, blocks: &Blocks, index: Index) -> Value {
        if let Some(all) = self.completed.get() {
            let k = (index - blocks.dropped_first(index)) as usize;
            let s = match blocks.symbols().width() {
                1 => all[k] as u16,
                _ => u16::from_le_bytes([all[2 * k], all[2 * k + 1]]),
            };
            return blocks.symbols().value(s);
        }
        match self.completion.get() {
            Some(c) => c.value(self, index),
            None => {
                // Every opener that knows the game installs it; one that does not gets an
                // error, not a guess.
                super::damage::report(TableError::Header {
                    path: self.path.clone(),
                    detail: "stores one side to move only, and was opened without its game to find the other".into(),
                });
                Value::Illegal
            }
        }
    }

    /// True if slot `index`'s value is stored: in a dense table, every slot; in a
    /// compressed one, the slots of the sections it keeps.
    pub fn stores(&self, index: Index) -> bool {
        self.blocks.as_ref().is_none_or(|b| !b.is_dropped(index))
    }

    /// True if this is a compressed table with a section not stored.
    pub fn drops_a_section(&self) -> bool {
        self.blocks
            .as_ref()
            .is_some_and(|b| b.stored().contains(&false))
    }

    /// Per section, whether its values are stored (a dense table stores all).
    pub fn sections_stored(&self) -> Vec<bool> {
        match &self.blocks {
            Some(b) => b.stored(),
            None => vec![true; self.header.sections.len()],
        }
    }

    /// The noted slots of a compressed table's dropped section (the first holding its
    /// longest value, in index order).
    pub fn noted_slots(&self) -> &[Index] {
        self.blocks.as_ref().map_or(&[], |b| b.noted())
    }

    /// Give a table that drops a section the game that finds its values (the first one
    /// given is kept). Tables that drop nothing need none.
    pub fn complete_with(&self, by: impl FnOnce() -> Option<Box<dyn Complete>>) {
        if self.drops_a_section() && self.completion.get().is_none() {
            if let Some(by) = by() {
                let _ = self.completion.set(Completion::new(by));
            }
        }
    }

    /// True if the table can answer every slot: it drops nothing, or has its game.
    pub fn is_complete(&self) -> bool {
        !self.drops_a_section() || self.completion.get().is_some()
    }

    /// Work out the whole dropped section at once, in parallel, and keep it in memory (a
    /// byte a slot): for readers of every slot. A damaged block met on the way is an error,
    /// and nothing is kept unless `keep_damaged` (`verify`, which reports the damage
    /// itself and must not then search slot by slot).
    pub fn complete_all(
        &self,
        progress: &dyn crate::progress::Progress,
        keep_damaged: bool,
    ) -> Result<(), TableError> {
        use rayon::prelude::*;
        let Some(blocks) = &self.blocks else {
            return Ok(());
        };
        let Some(k) = blocks.stored().iter().position(|s| !s) else {
            return Ok(());
        };
        if self.completed.get().is_some() {
            return Ok(());
        }
        let first: u64 = self.header.sections[..k].iter().map(|x| x.records).sum();
        let n = self.header.sections[k].records;
        progress.phase("finding the dropped side", n);
        const CHUNK: u64 = 1 << 14;
        let parts: Vec<(Vec<u8>, Option<TableError>)> = (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let lo = first + c * CHUNK;
                let hi = (lo + CHUNK).min(first + n);
                let mut bad = None;
                let width = blocks.symbols().width();
                let values = (lo..hi)
                    .flat_map(|i| {
                        let v = super::damage::watch(|| self.value(i));
                        let v = v.unwrap_or_else(|e| {
                            bad.get_or_insert(e);
                            Value::Illegal
                        });
                        // A slot holding no position gets any symbol: it is never asked.
                        let s = blocks.symbols().symbol(v).unwrap_or(0);
                        s.to_le_bytes().into_iter().take(width)
                    })
                    .collect();
                progress.advance(hi - lo);
                (values, bad)
            })
            .collect();
        let (parts, bad): (Vec<Vec<u8>>, Vec<Option<TableError>>) = parts.into_iter().unzip();
        let bad = bad.into_iter().flatten().next();
        if bad.is_none() || keep_damaged {
            let _ = self.completed.set(parts.concat());
        }
        bad.map_or(Ok(()), Err)
    }

    /// What the records mean.
    pub fn metric(&self) -> Metric {
        self.metric
    }

    /// The best move stored at `index` (`NO_MOVE` for none); `None` for a compressed
    /// table, which stores none.
    #[inline]
    pub fn stored_move(&self, index: Index) -> Option<u8> {
        (self.blocks.is_none() && self.metric.stores_moves()).then(|| self.record(index).1)
    }

    /// The record `[value byte, move byte]` at `index`; `(0, 0)` (illegal, no move) outside
    /// the table, so a wrong index can never crash a prober.
    /// A compressed table answers with its value byte and a placeholder move, as
    /// [`Table::section_records`] does.
    #[inline]
    pub fn record(&self, index: Index) -> (u8, u8) {
        if self.blocks.is_some() {
            let r = self.placeholder_record(self.value(index));
            return (r[0], r[1]);
        }
        let mut k = self.starts.len();
        while k > 0 {
            k -= 1;
            let (first, offset) = self.starts[k];
            if index >= first {
                let at = offset + (index - first) * 2;
                return match self.map.pair(at) {
                    Ok(r) if index < self.size => (r[0], r[1]),
                    Ok(_) => (0, 0),
                    Err(e) => {
                        // No value from a file that changed under the reader: the probe
                        // watching this thread fails (see `super::damage`).
                        if index < self.size {
                            super::damage::report(read_error(&self.path, e));
                        }
                        (0, 0)
                    }
                };
            }
        }
        (0, 0)
    }
}

/// A table is what a compressed file is made from.
impl compressed::Source for Table {
    fn path(&self) -> &Path {
        Table::path(self)
    }

    fn header(&self) -> &Header {
        Table::header(self)
    }

    fn metric(&self) -> Metric {
        Table::metric(self)
    }

    fn size(&self) -> u64 {
        Table::size(self)
    }

    fn file_len(&self) -> u64 {
        Table::file_len(self)
    }

    fn section_records(&self, s: &super::SectionInfo) -> std::io::Result<Cow<'_, [u8]>> {
        Table::section_records(self, s)
    }

    /// The blocks of a compressed table.
    fn blocks(&self) -> Option<&Blocks> {
        self.blocks.as_ref()
    }

    /// The file's bytes.
    fn storage(&self) -> &Storage {
        &self.map
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{Header, SectionInfo, VALUE_CODES};
    use std::hash::Hasher as _;

    /// A valid table of `records` illegal slots, larger than [`IN_MEMORY_MAX`] (sparse).
    fn big_table(dir: &Path, records: u64) -> PathBuf {
        let zeros = vec![0u8; 1 << 20];
        let mut h = twox_hash::XxHash3_64::new();
        for _ in 0..records * 2 / zeros.len() as u64 {
            h.write(&zeros);
        }
        let mut histogram = vec![0; VALUE_CODES];
        histogram[0] = records;
        let mut header = Header {
            game: "g".into(),
            name: "big".into(),
            params: vec![],
            sections: vec![SectionInfo {
                name: "all".into(),
                records,
                offset: 0,
                checksum: h.finish(),
                histogram,
            }],
        };
        let bytes = header.encode();
        let path = dir.join("big.rtb");
        std::fs::write(&path, &bytes).unwrap();
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(header.file_len()).unwrap();
        path
    }

    #[test]
    fn a_large_table_read_at_positions_survives_being_cut() {
        let dir = tempfile::tempdir().unwrap();
        let records = (IN_MEMORY_MAX / 2) + (1 << 20);
        let path = big_table(dir.path(), records);
        let mapped = Table::open_with(&path, Load::Auto).unwrap();
        assert!(!mapped.survives_changes());
        drop(mapped);
        let t = Table::open_with(&path, Load::Safe).unwrap();
        assert!(t.survives_changes());
        assert_eq!(t.record(records - 1), (0, 0));
        assert_eq!(t.checksum_status(), ChecksumStatus::Ok);
        assert!(t.changed().is_none());
        // A byte of the last record changes in place: no read of it is answered, and a
        // probe reading it fails, naming the change.
        let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        use std::os::unix::fs::FileExt;
        let last = t.file_len() - 1;
        f.write_all_at(&[9], last).unwrap();
        let changed = |e: TableError| matches!(e, TableError::Changed { .. });
        assert!(t.changed().is_some_and(changed));
        let read = super::super::damage::watch(|| t.record(records - 1));
        assert!(read.is_err_and(changed));
        assert_eq!(
            t.checksum_status(),
            ChecksumStatus::Mismatch(vec!["all".into()])
        );
        // Cut in place: reads beyond the new end fail the same way, with no signal.
        f.set_len(t.file_len() / 2).unwrap();
        assert!(super::super::damage::watch(|| t.record(records - 1)).is_err_and(changed));
        assert!(super::super::damage::watch(|| t.record(0)).is_err_and(changed));
        assert!(matches!(t.checksum_status(), ChecksumStatus::Mismatch(_)));
    }
}
