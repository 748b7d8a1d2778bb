//! The compressed table (`<name>.rtbc`): a table's values only, in independently decodable,
//! checksummed zstd blocks, read a block at a time through a cache (at most 1 GiB of
//! decoded blocks for the whole process, unless the process says otherwise).
//!
//! What is stored, and why it is enough:
//!
//! - A symbol a slot, the value, and no best move. The best move of a dense DTM table is
//!   the first move, in the game's move order, reaching the value; a probe finds it again
//!   from the successors' values (one ply), so answers are identical. A DTZ table stores
//!   no move at all. A DTM value's symbol is [`Value::packed`] (one byte); a DTZ value's
//!   is its place among the values the table holds, in code order (read from the dense
//!   header's histograms, so the list costs no bytes): one byte while a table holds at
//!   most 256 values, two otherwise ([`Symbols`]).
//! - Of a chess table, one side to move only: the section that compresses larger is
//!   dropped, and a slot of it is worth the best of its moves, which lead into the stored
//!   section or into sub-tables (one ply, as Syzygy's DTZ files do; see
//!   [`super::reader::complete`]). Black's section is most of a table's bytes: KQRvKR's
//!   two thirds. For the server's statistics page, the first slots of each section's
//!   longest value are noted in the header.
//! - Illegal slots hold whatever compresses best ("don't care": the value before them).
//!   The game knows which slots are illegal (its `decode`), so nothing is lost; a
//!   compressed table must not be asked for an illegal slot's value.
//! - The dense table's header: statistics and parameters, and each section's checksum of
//!   its values ([`super::value_sum`]; until version 4, of its dense records), so `retro
//!   decompress` can rebuild the dense file and prove its values identical. A table made
//!   compressed straight from its solve (`retro generate --compress`) has no dense records
//!   and no best moves to hash; its file is the same, byte for byte, as `retro compress`
//!   makes from the dense table.
//!
//! Layout (integers little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `RETROTBZ` |
//! | 8 | 4 | format version (5) |
//! | 12 | 4 | header length `H`, from offset 0 to the end of the header checksum |
//! | 16 | 4 | slots per block `B` |
//! | 20 | 4 | length `D` of the dense header |
//! | 24 | 4 | the sections stored: bit `k` set for section `k` (at least one) |
//! | 28 | D | the dense table's header (see [`super::header`]) |
//! | 28 + D | 8 | number of blocks `n` (of the stored sections) |
//! | 36 + D | 13 × n | per block: compressed length (4), xxh3-64 of the compressed bytes (8), form (1) |
//! | 36 + D + 13n | … | per section of the dense header: a count `m` (4), then `m` noted slots (8 each), the first [`NOTED`] (in index order) holding the section's longest value ([`super::metric::longest`]) |
//! | H - 8 | 8 | xxh3-64 of bytes `0..H-8` |
//! | H | … | the blocks, in order |
//!
//! Each stored section is cut into blocks of `B` slots (its last block shorter); a block
//! never spans two sections. The file is exactly `H` plus the blocks' lengths. A block
//! decodes to its symbols' low bytes, then, where symbols take two bytes, their high bytes
//! (each byte of a symbol a plane of its own: the high bytes are mostly equal). A block's
//! form says how each plane is ordered before zstd: 0 in index order, 1 with each whole
//! 4,096-slot tile transposed as a 64 x 64 square ([`Form`]).
//!
//! Because every section's noted slots are kept, a file storing both sides to move
//! becomes the file storing one by dropping blocks alone ([`trim`]): `retro generate
//! --compress` reads sub-tables stored whole while the tables above them are made, and
//! trims each when nothing left to make reads it.
//!
//! Versions 4 (the dense records' checksums) and 3 (DTM only, noted slots of the dropped
//! section only) are read as well;
//! versions 1 (no form byte) and 2 (both sides always) are refused with the command that
//! makes the file again.

use std::cell::RefCell;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use byteorder::{ByteOrder, LittleEndian as LE, WriteBytesExt};
use rayon::prelude::*;

use super::cache::{BlockCache, CacheBudget};
use super::header::Header;
use super::planes::plane_symbol;
use super::storage::Storage;
use super::{checksum, Metric, SectionInfo, TableError};
use crate::game::{Index, Records, Value, NO_MOVE};
use crate::progress::Progress;

/// The first eight bytes of a compressed table.
pub const MAGIC: [u8; 8] = *b"RETROTBZ";
/// The compressed format's version: 2 added each block's form, 3 the sections stored, 4
/// every section's noted slots and tables of other metrics than DTM, 5 the values'
/// checksums in place of the dense records'.
pub const VERSION: u32 = 5;
/// The first version whose sections' checksums are of their values
/// ([`super::value_sum`]).
const VALUE_SUMS: u32 = 5;
/// The oldest version this build still reads.
const OLDEST_READ: u32 = 3;
/// Noted slots per section: as many as the server's statistics page lists.
pub const NOTED: usize = 8;
/// The file name extension of compressed tables.
pub const EXTENSION: &str = "rtbc";
/// Slots per block: 256 KiB of values, decoded in a few hundred microseconds, once (the
/// cache keeps them). Against 65,536 slots, KQRvKR sampled 1.6 % smaller.
pub const BLOCK_SLOTS: u32 = 1 << 18;
/// Slots per block of a table with a section past [`SMALL_BLOCKS_PAST`] slots (6-piece
/// chess tables): one tile. Such a table's decoded blocks (7.75 GB of KRRvKRR's) are far
/// beyond the cache, so a probe decodes nearly every block it reads, about 20 for a chess
/// position and its moves. KRRvKRR's DTZ table in blocks of one tile: a probe (the value
/// and every move's) takes 62 us of the server's CPU instead of 1,024, for twice the bytes
/// (179 MB against 88 MB, a fifth of it the blocks' index; still 1/173 of the dense file).
pub const SMALL_BLOCK_SLOTS: u32 = TILE as u32;
/// See [`SMALL_BLOCK_SLOTS`]: beyond every 5-piece chess section (805 M slots at most).
pub const SMALL_BLOCKS_PAST: u64 = 1 << 32;

/// The block length of the compressed form of the table with header `header`.
pub fn block_slots(header: &Header) -> u32 {
    if header
        .sections
        .iter()
        .any(|s| s.records > SMALL_BLOCKS_PAST)
    {
        SMALL_BLOCK_SLOTS
    } else {
        BLOCK_SLOTS
    }
}

/// zstd level by default, per metric: where the next level down costs a few per cent of
/// bytes for a third to a half less CPU, a whole set is worth the time. Measured on
/// KQRvKR and KRPvKR (one side to move; user CPU of `retro compress --threads 2`, weighing
/// included): DTM at 16 takes 23.5 s and 91 s, at 14 13.3 s and 48 s for 5.0 % and 3.7 %
/// more bytes (at 9, 18 to 25 % more); DTZ at 16 22.7 s and 108 s, at 15 15.3 s and 67 s
/// for 1.4 % and 2.6 % more (at 14, 8 to 10 % more, which the DTZ set's size cannot take).
/// DTM's default also searches less deep than zstd's own 14 ([`Finish`]).
/// Decoding speed hardly depends on the level, and it is not recorded: zstd's frames
/// decode whatever it was.
pub fn default_level(metric: Metric) -> i32 {
    match metric {
        Metric::Dtm => 14,
        Metric::Dtz => 15,
    }
}

/// How the blocks kept are compressed at the end: at zstd's level `level`, its search
/// shortened where `shallow`. DTM's default is level 14 searching 4 match candidates
/// instead of 16, and stopping at a match of 64 symbols instead of 32: KRPvKR's DTM file
/// 0.26 % smaller than at zstd's level 14 and KQRvKR's 0.17 % larger, their blocks
/// compressed in about 0.8x and 0.74x the time. DTZ's values gain nothing from it (a
/// shorter search at 15 costs 1 to 16 % more bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finish {
    pub level: i32,
    pub shallow: bool,
}

impl Finish {
    /// The level asked for (`None`: the metric's own, [`default_level`]).
    pub fn of(level: Option<i32>, metric: Metric) -> Finish {
        match level {
            Some(level) => Finish {
                level,
                shallow: false,
            },
            None => Finish {
                level: default_level(metric),
                shallow: metric == Metric::Dtm,
            },
        }
    }

    /// The trial's compression ([`TRIAL_LEVEL`]), which also writes the files a set reads
    /// its sub-tables from.
    const TRIAL: Finish = Finish {
        level: TRIAL_LEVEL,
        shallow: false,
    };

    /// `data` compressed as one zstd frame, by this thread's context for these settings
    /// (made once a thread: a context made for every block allocates and clears megabytes
    /// each time at the high levels).
    fn compress(self, data: &[u8]) -> std::io::Result<Vec<u8>> {
        use zstd::zstd_safe::CParameter;
        thread_local! {
            static ENCODERS: std::cell::RefCell<Vec<(Finish, zstd::bulk::Compressor<'static>)>> =
                const { std::cell::RefCell::new(Vec::new()) };
        }
        ENCODERS.with_borrow_mut(|encoders| {
            let at = match encoders.iter().position(|(f, _)| *f == self) {
                Some(at) => at,
                None => {
                    let mut c = zstd::bulk::Compressor::new(self.level)?;
                    if self.shallow {
                        c.set_parameter(CParameter::SearchLog(2))?;
                        c.set_parameter(CParameter::TargetLength(64))?;
                    }
                    encoders.push((self, c));
                    encoders.len() - 1
                }
            };
            encoders[at].1.compress(data)
        })
    }
}

/// The levels a caller may ask for (zstd's own range, less its fast negative levels).
pub const LEVELS: std::ops::RangeInclusive<i32> = 1..=19;

/// How a compressed table writes its values as symbols in its blocks.
#[derive(Clone, Debug)]
pub enum Symbols {
    /// DTM values: [`Value::packed`], one byte.
    Packed,
    /// Values of another metric (DTZ's plies of either parity, up to 2,046): a value's
    /// place among every value a section's histogram counts, in code order; two bytes a
    /// symbol where there are more than 256 of them.
    Listed {
        metric: Metric,
        values: Vec<Value>,
        /// Per metric code, its symbol (`u16::MAX`: a value the table does not hold).
        of_code: Vec<u16>,
    },
}

impl Symbols {
    /// The symbols of a table with header `header`, whose values are of `metric`.
    pub fn of(header: &Header, metric: Metric) -> Symbols {
        if metric == Metric::Dtm {
            return Symbols::Packed;
        }
        let codes = metric.codes();
        let held = |c: usize| {
            header
                .sections
                .iter()
                .any(|s| s.histogram.get(c) > Some(&0))
        };
        let mut of_code = vec![u16::MAX; codes];
        let mut values = Vec::new();
        for c in (0..codes).filter(|&c| held(c)) {
            if let Some(v) = metric.from_code(c) {
                of_code[c] = values.len() as u16;
                values.push(v);
            }
        }
        Symbols::Listed {
            metric,
            values,
            of_code,
        }
    }

    /// Bytes a symbol.
    #[inline]
    pub fn width(&self) -> usize {
        match self {
            Symbols::Listed { values, .. } if values.len() > 256 => 2,
            _ => 1,
        }
    }

    /// The symbol of `v`; `None` for a value the table does not hold.
    #[inline]
    pub fn symbol(&self, v: Value) -> Option<u16> {
        match self {
            Symbols::Packed => Some(v.packed() as u16),
            Symbols::Listed {
                metric, of_code, ..
            } => of_code
                .get(metric.code(v))
                .copied()
                .filter(|&s| s != u16::MAX),
        }
    }

    /// The value of symbol `s` (a legal slot's: see [`Value::from_packed`]).
    #[inline]
    pub fn value(&self, s: u16) -> Value {
        match self {
            Symbols::Packed => Value::from_packed(s as u8),
            Symbols::Listed { values, .. } => {
                values.get(s as usize).copied().unwrap_or(Value::Illegal)
            }
        }
    }
}

/// Where the blocks of an open compressed table are, and the ones decoded lately.
pub struct Blocks {
    block_slots: u64,
    /// Per block: offset in the file, length, checksum, form.
    blocks: Vec<(u64, u32, u64, Form)>,
    /// Per section: first index, number of records, first block (`None`: dropped).
    sections: Vec<(u64, u64, Option<usize>)>,
    /// Per section, its noted slots (version 3 files: the dropped section's only).
    noted: Vec<Vec<Index>>,
    /// The noted slots of the dropped sections, in order.
    noted_dropped: Vec<Index>,
    /// Per section: its name, for messages.
    names: Vec<String>,
    /// How the values are written.
    symbols: Symbols,
    cache: BlockCache,
    /// The file's version.
    version: u32,
}

fn header_err(path: &Path, detail: impl Into<String>) -> TableError {
    TableError::Header {
        path: path.to_path_buf(),
        detail: detail.into(),
    }
}

/// Parse and check a compressed table's header and shape (`map` holds the file, whose
/// magic was checked). Block checksums are checked by [`Blocks::check`].
pub fn open(
    path: &Path,
    map: &Storage,
    budget: Arc<CacheBudget>,
) -> Result<(Header, Metric, Blocks), TableError> {
    let p = || path.to_path_buf();
    let io = |source| TableError::Io { path: p(), source };
    let len = map.len();
    if len < 32 {
        return Err(TableError::Size {
            path: p(),
            detail: format!("{len} bytes is shorter than any header"),
        });
    }
    let head = map.bytes(0, 32).map_err(io)?;
    let version = LE::read_u32(&head[8..12]);
    if (1..OLDEST_READ).contains(&version) {
        return Err(TableError::OldCompressed {
            path: p(),
            found: version,
            expected: VERSION,
            dense: path.with_extension(super::EXTENSION),
        });
    }
    if !(OLDEST_READ..=VERSION).contains(&version) {
        return Err(TableError::Version {
            path: p(),
            found: version,
            expected: VERSION,
        });
    }
    let hlen = LE::read_u32(&head[12..16]) as u64;
    let block_slots = LE::read_u32(&head[16..20]) as u64;
    let dlen = LE::read_u32(&head[20..24]) as u64;
    if hlen < 48 || hlen > len || 28 + dlen + 20 > hlen {
        return Err(TableError::Size {
            path: p(),
            detail: format!("header claims {hlen} bytes, file has {len} bytes"),
        });
    }
    let h = map.bytes(0, hlen).map_err(io)?;
    let hlen = hlen as usize;
    super::header::check_header_sum(path, &h)?;
    if block_slots == 0 {
        return Err(header_err(path, "zero slots per block"));
    }
    let mask = LE::read_u32(&h[24..28]);
    let dense = &h[28..28 + dlen as usize];
    let header = Header::decode(dense).map_err(|detail| header_err(path, detail))?;
    let metric = Metric::of_params(&header.params).map_err(|detail| header_err(path, detail))?;
    if version < 4 && metric != Metric::Dtm {
        return Err(header_err(path, "a version 3 file must hold DTM values"));
    }
    let count = header.sections.len();
    if mask == 0 || (count < 32 && mask >> count != 0) {
        return Err(header_err(
            path,
            format!("sections stored {mask:#x}, of {count} sections"),
        ));
    }
    let stored = |k: usize| mask >> k & 1 == 1;
    let at = 28 + dlen as usize;
    let n = LE::read_u64(&h[at..at + 8]) as usize;
    let expected: u64 = (header.sections.iter().enumerate())
        .filter(|&(k, _)| stored(k))
        .map(|(_, s)| s.records.div_ceil(block_slots))
        .sum();
    let noted_at = n.checked_mul(ENTRY).and_then(|b| b.checked_add(at + 8));
    if n as u64 != expected || noted_at.is_none_or(|x| x + 4 + 8 > hlen) {
        return Err(header_err(
            path,
            format!("{n} blocks listed, the sections need {expected}"),
        ));
    }
    let mut blocks = Vec::with_capacity(n);
    let mut offset = hlen as u64;
    for k in 0..n {
        let e = &h[at + 8 + k * ENTRY..at + 8 + (k + 1) * ENTRY];
        let size = LE::read_u32(&e[..4]);
        let form = Form::from_byte(e[12])
            .ok_or_else(|| header_err(path, format!("block {k} has an unknown form {}", e[12])))?;
        blocks.push((offset, size, LE::read_u64(&e[4..12]), form));
        offset += size as u64;
    }
    if offset != len {
        return Err(TableError::Size {
            path: p(),
            detail: format!("expected {offset} bytes, found {len}"),
        });
    }
    let (mut sections, mut names) = (Vec::new(), Vec::new());
    let (mut first, mut block) = (0u64, 0usize);
    for (k, s) in header.sections.iter().enumerate() {
        let hist = s.histogram.iter().try_fold(0u64, |a, &n| a.checked_add(n));
        if hist != Some(s.records) {
            return Err(header_err(
                path,
                format!(
                    "section '{}' statistics do not add up to its {} records",
                    s.name, s.records
                ),
            ));
        }
        sections.push((first, s.records, stored(k).then_some(block)));
        names.push(s.name.clone());
        first += s.records;
        if stored(k) {
            block += s.records.div_ceil(block_slots) as usize;
        }
    }
    // Noted slots: version 3 lists the dropped section's, version 4 every section's.
    let lists = if version == 3 { 1 } else { count };
    let mut noted: Vec<Vec<Index>> = vec![Vec::new(); count];
    let mut at = noted_at.unwrap_or_default();
    for list in 0..lists {
        if at + 4 + 8 > hlen {
            return Err(header_err(path, "the noted slots do not fit the header"));
        }
        let m = LE::read_u32(&h[at..at + 4]) as usize;
        if m > NOTED || at + 4 + m * 8 + 8 > hlen {
            return Err(header_err(
                path,
                format!("{m} noted slots do not fit the header"),
            ));
        }
        for j in 0..m {
            let i = LE::read_u64(&h[at + 4 + 8 * j..at + 12 + 8 * j]);
            let Some(k) =
                (0..count).find(|&k| (sections[k].0..sections[k].0 + sections[k].1).contains(&i))
            else {
                return Err(header_err(
                    path,
                    format!("noted slot {i} is outside the table"),
                ));
            };
            let fits = if version == 3 {
                sections[k].2.is_none()
            } else {
                k == list
            };
            if !fits {
                return Err(header_err(
                    path,
                    format!("noted slot {i} is not in the section it is listed for"),
                ));
            }
            noted[k].push(i);
        }
        at += 4 + m * 8;
    }
    if at + 8 != hlen {
        return Err(header_err(path, "the header is longer than its fields"));
    }
    let noted_dropped = (noted.iter().zip(&sections))
        .filter(|(_, s)| s.2.is_none())
        .flat_map(|(l, _)| l.iter().copied())
        .collect();
    let symbols = Symbols::of(&header, metric);
    let cache = BlockCache::new(n, budget);
    Ok((
        header,
        metric,
        Blocks {
            block_slots,
            blocks,
            sections,
            noted,
            noted_dropped,
            names,
            symbols,
            cache,
            version,
        },
    ))
}

/// A block that cannot be used: its number, its section, and why.
#[derive(Debug)]
pub struct BadBlock {
    pub block: usize,
    pub section: String,
    pub detail: String,
}

/// Where a slot's value is.
pub enum Slot {
    /// Outside the table.
    Outside,
    /// In a dropped section: found one ply on.
    Dropped,
    /// In block `.0`, at place `.1`.
    At(usize, usize),
}

impl Blocks {
    /// Where slot `index` is kept.
    fn locate(&self, index: Index) -> Slot {
        let Some(&(first, records, block)) = self
            .sections
            .iter()
            .rev()
            .find(|&&(first, _, _)| index >= first)
        else {
            return Slot::Outside;
        };
        let k = index - first;
        match block {
            _ if k >= records => Slot::Outside,
            None => Slot::Dropped,
            Some(block) => {
                let b = block + (k / self.block_slots) as usize;
                let at = (k % self.block_slots) as usize;
                // The block's slots: the section's from the block's first on, at most a block.
                let len = (records - (k - at as u64)).min(self.block_slots) as usize;
                Slot::At(b, self.blocks[b].3.stored_at(at, len))
            }
        }
    }

    /// The first index of the section of `index`.
    pub fn dropped_first(&self, index: Index) -> Index {
        (self.sections.iter().rev())
            .find(|&&(first, _, _)| index >= first)
            .map_or(0, |s| s.0)
    }

    /// Slots per block (the last of a section may hold fewer).
    pub fn block_slots(&self) -> u64 {
        self.block_slots
    }

    /// True if slot `index` is in a dropped section.
    pub fn is_dropped(&self, index: Index) -> bool {
        matches!(self.locate(index), Slot::Dropped)
    }

    /// Per section, whether it is stored.
    pub fn stored(&self) -> Vec<bool> {
        self.sections.iter().map(|s| s.2.is_some()).collect()
    }

    /// The noted slots of the dropped sections (see the layout).
    pub fn noted(&self) -> &[Index] {
        &self.noted_dropped
    }

    /// How the values are written.
    pub fn symbols(&self) -> &Symbols {
        &self.symbols
    }

    /// True where the dense header's checksums are of each section's values
    /// ([`super::value_sum`], version 5), not of its dense records.
    pub fn value_sums(&self) -> bool {
        self.version >= VALUE_SUMS
    }

    /// The section of block `b`, by position.
    fn section_of(&self, b: usize) -> usize {
        self.sections
            .iter()
            .rposition(|&(_, _, first)| first.is_some_and(|f| b >= f))
            .unwrap_or(0)
    }

    /// Slots in block `b`.
    fn slots_in(&self, b: usize) -> usize {
        let s = self.section_of(b);
        let (_, records, first) = self.sections[s];
        let start = (b - first.unwrap_or(0)) as u64 * self.block_slots;
        (records - start).min(self.block_slots) as usize
    }

    /// The compressed bytes of block `b`, if they still hash to its checksum.
    fn raw<'m>(&self, map: &'m Storage, b: usize) -> Result<std::borrow::Cow<'m, [u8]>, String> {
        let (offset, size, sum, _) = self.blocks[b];
        let data = map
            .bytes(offset, size as u64)
            .map_err(|e| format!("cannot be read: {e}"))?;
        if checksum(&data) != sum {
            return Err("checksum mismatch: the file is damaged or was modified".into());
        }
        Ok(data)
    }

    /// Decode block `b` into its planes, in its form's order (a slot's place there comes
    /// from [`Form::stored_at`]), checking its checksum first (the file may have changed
    /// since it was opened) and its length after.
    fn decode(&self, map: &Storage, b: usize) -> Result<Arc<[u8]>, String> {
        let data = self.raw(map, b)?;
        let want = self.slots_in(b) * self.symbols.width();
        DECODER.with_borrow_mut(|decoder| {
            let context = match decoder {
                Some(d) => d,
                None => decoder.insert(
                    zstd::bulk::Decompressor::new()
                        .map_err(|e| format!("cannot start decoding: {e}"))?,
                ),
            };
            // Decoded straight into the block's own buffer, left in the form's order: a
            // copy into index order (transposing the tiles) took a sixth of a server's CPU
            // answering `/standard` on positions whose blocks were not held.
            let mut out = Arc::<[u8]>::new_uninit_slice(want);
            let mut to = Unwritten {
                buf: Arc::get_mut(&mut out).expect("a new Arc has no other owner"),
                written: 0,
            };
            let n = context
                .decompress_to_buffer(&data, &mut to)
                .map_err(|e| format!("does not decode: {e}"))?;
            // A frame that decodes to more bytes than the block holds fails above (no room);
            // one that decodes to fewer is refused here.
            if n != want {
                return Err(format!("decodes to {n} bytes, not {want}"));
            }
            // Safety: zstd wrote `n` bytes from the start, and `n` is the whole length.
            Ok(unsafe { out.assume_init() })
        })
    }

    /// Block `b`'s planes in index order: [`Self::decode`] with its tiles transposed back,
    /// for the readers of whole blocks.
    fn decode_in_index_order(&self, map: &Storage, b: usize) -> Result<Vec<u8>, String> {
        let d = self.decode(map, b)?;
        Ok(self.blocks[b].3.apply(d.to_vec(), self.symbols.width()))
    }

    /// The symbol ([`Symbols`]) of slot `index`; `None` outside the table or in a dropped
    /// section, an error naming the block if it no longer reads (the file changed since
    /// it was opened and checked).
    #[inline]
    pub fn symbol(&self, map: &Storage, index: Index) -> Option<Result<u16, String>> {
        let Slot::At(b, k) = self.locate(index) else {
            return None;
        };
        let width = self.symbols.width();
        if let Some(s) = self.cache.read(b, k, width) {
            return Some(Ok(s));
        }
        let data = match self.decode(map, b) {
            Ok(d) => d,
            Err(e) => {
                let section = &self.names[self.section_of(b)];
                return Some(Err(format!("block {b} (section '{section}') {e}")));
            }
        };
        let s = plane_symbol(&data, width, k);
        self.cache.offer(b, data);
        Some(Ok(s))
    }

    /// The block holding slot `index`: its number and where its compressed bytes lie in
    /// the file.
    pub fn block_of(&self, index: Index) -> Option<(usize, std::ops::Range<u64>)> {
        let Slot::At(b, _) = self.locate(index) else {
            return None;
        };
        let (offset, size, _, _) = self.blocks[b];
        Some((b, offset..offset + size as u64))
    }

    /// The budget this table's decoded blocks count against.
    pub fn cache_budget(&self) -> &CacheBudget {
        self.cache.budget()
    }

    /// Every block's checksum, in parallel; the bad ones. (Decoding is checked as each
    /// block is read: a block whose checksum matches is the one the writer made.)
    pub fn check(&self, map: &Storage, header: &Header) -> Vec<BadBlock> {
        (0..self.blocks.len())
            .into_par_iter()
            .filter_map(|b| {
                self.raw(map, b).err().map(|detail| BadBlock {
                    block: b,
                    section: header.sections[self.section_of(b)].name.clone(),
                    detail,
                })
            })
            .collect()
    }

    /// The symbols of section `s` (index into the header's sections), decoded, one per
    /// slot in index order (`u16` whatever their width); `None` for a dropped section.
    pub fn section_symbols(&self, map: &Storage, s: usize) -> Option<Result<Vec<u16>, String>> {
        let parts: Result<Vec<Vec<u16>>, String> = (self.section_blocks(s)?)
            .into_par_iter()
            .map(|b| self.block_symbols(map, b))
            .collect();
        Some(parts.map(|p| p.concat()))
    }

    /// The symbols of section `s`, a block at a time in index order, each given to `f`
    /// with its first slot's place in the section, until `f` breaks: one decoded block
    /// held at a time, where [`Self::section_symbols`] holds the section. `None` for a
    /// dropped section.
    pub fn scan_section(
        &self,
        map: &Storage,
        s: usize,
        mut f: impl FnMut(u64, &[u16]) -> std::ops::ControlFlow<()>,
    ) -> Option<Result<(), String>> {
        for (k, b) in self.section_blocks(s)?.enumerate() {
            let symbols = match self.block_symbols(map, b) {
                Ok(symbols) => symbols,
                Err(e) => return Some(Err(e)),
            };
            if f(k as u64 * self.block_slots, &symbols).is_break() {
                break;
            }
        }
        Some(Ok(()))
    }

    /// The blocks of section `s`, in order; `None` for a dropped section.
    fn section_blocks(&self, s: usize) -> Option<std::ops::Range<usize>> {
        let (_, records, first) = self.sections[s];
        let first = first?;
        Some(first..first + records.div_ceil(self.block_slots) as usize)
    }

    /// Block `b`'s symbols in index order, one a slot; an error naming the block if it no
    /// longer reads.
    fn block_symbols(&self, map: &Storage, b: usize) -> Result<Vec<u16>, String> {
        let width = self.symbols.width();
        let d = (self.decode_in_index_order(map, b)).map_err(|e| format!("block {b} {e}"))?;
        Ok((0..d.len() / width)
            .map(|k| plane_symbol(&d, width, k))
            .collect())
    }

    /// The noted slots of section `s` (the first [`NOTED`] in index order holding its
    /// longest value), where the file keeps them: every section's from version 4 on, the
    /// dropped section's in version 3.
    pub fn section_noted(&self, s: usize) -> Option<&[Index]> {
        (self.version >= 4 || self.sections[s].2.is_none()).then(|| &self.noted[s][..])
    }

    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

/// What compressing a table gave.
#[derive(Clone, Debug)]
pub struct Compressed {
    pub path: PathBuf,
    /// Bytes of the dense file and of the compressed one.
    pub dense_bytes: u64,
    pub bytes: u64,
    pub blocks: usize,
    /// The section dropped, if one was.
    pub dropped: Option<String>,
}

/// Which sections of a table to store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sides {
    /// Every section.
    Both,
    /// Of a table of two sections (a side to move each), the one whose blocks take fewer
    /// bytes at [`TRIAL_LEVEL`]; the other is found one ply on
    /// ([`super::reader::complete`]). Only for games whose every move leads from one section
    /// into the other (chess): a slot of the dropped section must never need another one of
    /// it.
    One,
}

/// A block's bytes and its form.
type Block = (Vec<u8>, Form);
/// A section's blocks, each compressed at [`TRIAL_LEVEL`] in the form it takes.
type Weighed = Vec<Block>;

/// A table's blocks, made: per section, each block's bytes at [`TRIAL_LEVEL`] and the
/// form it takes; and per section its noted slots.
struct Made {
    per_section: Vec<Weighed>,
    noted: Vec<Vec<Index>>,
    block_slots: u32,
}

impl Made {
    /// The section `sides` drops, if any: of two, the one whose blocks take more bytes
    /// at [`TRIAL_LEVEL`] (black's in KQRvKR, white's in KRPvKR). Finding either again
    /// costs one search per slot asked for, so bytes alone decide; weighed at the trial
    /// level, the dropped section is never compressed at the final one.
    fn dropped(&self, sides: Sides) -> Option<usize> {
        let bytes_of = |k: usize| self.per_section[k].iter().map(|b| b.0.len()).sum::<usize>();
        (sides == Sides::One && self.per_section.len() == 2).then(|| {
            if bytes_of(1) >= bytes_of(0) {
                1
            } else {
                0
            }
        })
    }

    /// Each block of the sections kept compressed at `level` (the trial's bytes are
    /// final at [`TRIAL_LEVEL`]), from its planes (`planes(section, block)`).
    fn finish(
        &mut self,
        dropped: Option<usize>,
        finish: Finish,
        width: usize,
        planes: impl Fn(usize, usize) -> std::io::Result<Vec<u8>> + Sync,
        progress: &dyn Progress,
    ) -> std::io::Result<()> {
        if finish == Finish::TRIAL {
            return Ok(());
        }
        for (k, blocks) in self.per_section.iter_mut().enumerate() {
            if Some(k) == dropped {
                continue;
            }
            blocks
                .par_iter_mut()
                .enumerate()
                .try_for_each(|(b, (bytes, form))| {
                    let p = planes(k, b)?;
                    progress.advance((p.len() / width) as u64);
                    *bytes = finish.compress(&form.apply(p, width))?;
                    Ok::<(), std::io::Error>(())
                })?;
        }
        Ok(())
    }

    /// Write the compressed file of the table with header `header` into `dir`, dropping
    /// section `dropped`.
    fn write(
        self,
        header: &Header,
        dropped: Option<usize>,
        dir: &Path,
        dense_bytes: u64,
        version: u32,
    ) -> Result<Compressed, TableError> {
        let mask: u32 = (0..self.per_section.len())
            .filter(|&k| Some(k) != dropped)
            .fold(0, |m, k| m | 1 << k);
        let blocks: Vec<(Vec<u8>, Form)> = (self.per_section.into_iter().enumerate())
            .filter(|&(k, _)| Some(k) != dropped)
            .flat_map(|(_, b)| b)
            .collect();
        let mut dense = header.clone();
        let dense_head = dense.encode();
        let noted_len: usize = self.noted.iter().map(|l| 4 + 8 * l.len()).sum();
        let hlen = 28 + dense_head.len() + 8 + blocks.len() * ENTRY + noted_len + 8;
        let mut head = Vec::with_capacity(hlen);
        head.extend_from_slice(&MAGIC);
        head.write_u32::<LE>(version).expect("vec write");
        head.write_u32::<LE>(hlen as u32).expect("vec write");
        head.write_u32::<LE>(self.block_slots).expect("vec write");
        head.write_u32::<LE>(dense_head.len() as u32)
            .expect("vec write");
        head.write_u32::<LE>(mask).expect("vec write");
        head.extend_from_slice(&dense_head);
        head.write_u64::<LE>(blocks.len() as u64)
            .expect("vec write");
        for (b, form) in &blocks {
            head.write_u32::<LE>(b.len() as u32).expect("vec write");
            head.write_u64::<LE>(checksum(b)).expect("vec write");
            head.push(*form as u8);
        }
        for list in &self.noted {
            head.write_u32::<LE>(list.len() as u32).expect("vec write");
            for &i in list {
                head.write_u64::<LE>(i).expect("vec write");
            }
        }
        let blocks: Vec<Vec<u8>> = blocks.into_iter().map(|(b, _)| b).collect();
        let sum = checksum(&head);
        head.write_u64::<LE>(sum).expect("vec write");
        debug_assert_eq!(head.len(), hlen);
        let out = super::writer::write_parts(dir, &header.name, EXTENSION, &head, &blocks)?;
        Ok(Compressed {
            bytes: head.len() as u64 + blocks.iter().map(|b| b.len() as u64).sum::<u64>(),
            dense_bytes,
            blocks: blocks.len(),
            dropped: dropped.map(|k| header.sections[k].name.clone()),
            path: out,
        })
    }
}

/// What [`compress`] and [`trim`] read of the table they make a file from: the reader's
/// [`super::Table`]. A trait defined here, not that type, because the reader opens
/// compressed tables through this module and so sits above it.
pub trait Source: Sync {
    fn path(&self) -> &Path;
    fn header(&self) -> &Header;
    fn metric(&self) -> Metric;
    /// Number of records over all sections.
    fn size(&self) -> u64;
    /// File size in bytes.
    fn file_len(&self) -> u64;
    /// Every record of section `s`, as `[value, move]` pairs (see
    /// [`super::Table::section_records`]).
    fn section_records(&self, s: &SectionInfo) -> std::io::Result<std::borrow::Cow<'_, [u8]>>;
    /// The blocks of a compressed table.
    fn blocks(&self) -> Option<&Blocks>;
    /// The file's bytes.
    fn storage(&self) -> &Storage;
}

/// Compress the dense table `table` into `dir/<name>.rtbc` at zstd level `level` (see
/// [`LEVELS`]; `None`: its metric's, [`default_level`]), written to a temporary file and
/// renamed, as dense tables are. Every block is first compressed at [`TRIAL_LEVEL`] in both
/// forms, which chooses its form and, with [`Sides::One`], the section dropped; then the
/// blocks kept are compressed at `level`.
pub fn compress(
    table: &impl Source,
    dir: &Path,
    sides: Sides,
    level: Option<i32>,
    progress: &dyn Progress,
) -> Result<Compressed, TableError> {
    let slots = block_slots(table.header());
    compress_in_blocks(table, dir, sides, level, slots, progress)
}

/// [`compress`] in blocks of `block_slots` slots rather than the table's own length.
///
/// # Panics
///
/// If `block_slots` is not a positive multiple of 4,096, the tiles' size.
pub fn compress_in_blocks(
    table: &impl Source,
    dir: &Path,
    sides: Sides,
    level: Option<i32>,
    block_slots: u32,
    progress: &dyn Progress,
) -> Result<Compressed, TableError> {
    let path = table.path().to_path_buf();
    let io = |source| TableError::Io {
        path: path.clone(),
        source,
    };
    let mut header = table.header().clone();
    let metric = table.metric();
    let records: Vec<std::borrow::Cow<'_, [u8]>> = (header.sections.iter())
        .map(|s| table.section_records(s))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    let fill = |k: usize, first: Index, out: &mut [u8]| {
        let at = first as usize * 2;
        out.copy_from_slice(&records[k][at..at + out.len()]);
    };
    sum_values(&mut header, metric, &fill, &path, progress)?;
    let dense_bytes = table.file_len();
    compress_from(&header, metric, fill, block_slots, dense_bytes, progress)
        .map_err(io)?
        .write(dir, sides, level, progress, || None)
}

/// Compress the table `records` a solve made, with header `header` (its histograms; see
/// [`super::writer::header_of`]), into `dir/<name>.rtbc`, never writing it dense: the same
/// file, byte for byte, as [`compress`] makes from the dense table of these records.
/// The records' best moves are not read ([`Records::fill_values`]). In blocks of
/// `block_slots` slots (`None`: the table's own, [`block_slots`]).
pub fn compress_records(
    records: &dyn Records,
    mut header: Header,
    dir: &Path,
    sides: Sides,
    level: Option<i32>,
    block_slots: Option<u32>,
    progress: &dyn Progress,
) -> Result<Compressed, TableError> {
    let path = dir.join(format!("{}.{EXTENSION}", header.name));
    let io = |source| TableError::Io {
        path: path.clone(),
        source,
    };
    let metric = Metric::of_params(&header.params).map_err(|detail| header_err(&path, detail))?;
    let starts: Vec<Index> = (header.sections.iter())
        .scan(0, |at, s| {
            *at += s.records;
            Some(*at - s.records)
        })
        .collect();
    let fill = |k: usize, first: Index, out: &mut [u8]| records.fill_values(starts[k] + first, out);
    sum_values(&mut header, metric, &fill, &path, progress)?;
    let slots = block_slots.unwrap_or_else(|| self::block_slots(&header));
    let dense_bytes = header.file_len();
    compress_from(&header, metric, fill, slots, dense_bytes, progress)
        .map_err(io)?
        .write(dir, sides, level, progress, || records.damage())
}

/// Each section's checksum of its values ([`super::value_sum`]) into `header`, from its
/// records (`fill(section, first, out)`), whose values must be the ones its histograms
/// count.
fn sum_values(
    header: &mut Header,
    metric: Metric,
    fill: &(impl Fn(usize, Index, &mut [u8]) + Sync),
    path: &Path,
    progress: &dyn Progress,
) -> Result<(), TableError> {
    progress.phase("checking the values", header.records());
    for (k, s) in header.sections.iter_mut().enumerate() {
        let (sum, histogram) = super::value_sum::of_records(s.records, metric, |first, out| {
            fill(k, first, out);
        });
        if histogram != s.histogram {
            return Err(header_err(
                path,
                format!(
                    "section '{}': the records do not have the values its statistics count",
                    s.name
                ),
            ));
        }
        s.checksum = sum;
        progress.advance(s.records);
    }
    Ok(())
}

/// A table's blocks as planes: the header, and each block's records made by `fill`
/// (section, first slot in it, records).
struct Packer<'a, F> {
    header: &'a Header,
    metric: Metric,
    symbols: Symbols,
    fill: F,
    block_slots: u64,
}

impl<F: Fn(usize, Index, &mut [u8]) + Sync> Packer<'_, F> {
    /// Block `b` of section `k`, packed ([`pack`]): its planes, and its first slots
    /// (counted from the block's first) holding `note`'s symbol.
    fn block(&self, k: usize, b: usize, note: Option<u16>) -> std::io::Result<(Vec<u8>, Vec<u32>)> {
        let lo = b as u64 * self.block_slots;
        let len = self.block_slots.min(self.header.sections[k].records - lo);
        let mut records = vec![0u8; len as usize * 2];
        (self.fill)(k, lo, &mut records);
        pack(&records, self.metric, &self.symbols, note)
    }
}

/// A table's blocks weighed, ready to be compressed at the final level and written.
struct Weighing<'a, F> {
    packer: Packer<'a, F>,
    made: Made,
    dense_bytes: u64,
}

/// Weigh every block of the table with header `header`, its records made by `fill`
/// (section, first slot in it, records), in blocks of `block_slots`; note each section's
/// first slots holding its longest value.
fn compress_from<'h, F: Fn(usize, Index, &mut [u8]) + Sync>(
    header: &'h Header,
    metric: Metric,
    fill: F,
    block_slots: u32,
    dense_bytes: u64,
    progress: &dyn Progress,
) -> std::io::Result<Weighing<'h, F>> {
    assert!(
        block_slots > 0 && block_slots as usize % TILE == 0,
        "blocks of whole tiles, not {block_slots} slots"
    );
    let packer = Packer {
        header,
        metric,
        symbols: Symbols::of(header, metric),
        fill,
        block_slots: block_slots as u64,
    };
    let width = packer.symbols.width();
    let mut made = Made {
        per_section: Vec::new(),
        noted: Vec::new(),
        block_slots,
    };
    progress.phase("weighing the blocks", header.records());
    let mut first: Index = 0;
    for (k, s) in header.sections.iter().enumerate() {
        let n = s.records.div_ceil(block_slots as u64) as usize;
        let longest = super::metric::longest(&s.histogram, metric);
        let note = longest.and_then(|(value, _)| packer.symbols.symbol(value));
        let (weighed, noted) = weigh(
            n,
            width,
            |b| {
                let (planes, noted) = packer.block(k, b, note)?;
                let lo = first + b as Index * block_slots as Index;
                Ok((planes, noted.into_iter().map(|j| lo + j as Index).collect()))
            },
            progress,
        )?;
        made.per_section.push(weighed);
        made.noted.push(noted);
        first += s.records;
    }
    Ok(Weighing {
        packer,
        made,
        dense_bytes,
    })
}

impl<F: Fn(usize, Index, &mut [u8]) + Sync> Weighing<'_, F> {
    /// The section `sides` drops gone, the blocks kept compressed at `level`, and the
    /// file written, unless `damage` says the records met a damaged block meanwhile.
    fn write(
        self,
        dir: &Path,
        sides: Sides,
        level: Option<i32>,
        progress: &dyn Progress,
        damage: impl Fn() -> Option<TableError>,
    ) -> Result<Compressed, TableError> {
        let Weighing {
            packer,
            mut made,
            dense_bytes,
        } = self;
        let header = packer.header;
        let path = dir.join(format!("{}.{EXTENSION}", header.name));
        let io = |source| TableError::Io {
            path: path.clone(),
            source,
        };
        let width = packer.symbols.width();
        let planes = |k: usize, b: usize| packer.block(k, b, None).map(|p| p.0);
        let dropped = made.dropped(sides);
        progress.phase("compressing", kept(header, dropped));
        let finish = Finish::of(level, packer.metric);
        made.finish(dropped, finish, width, planes, progress)
            .map_err(io)?;
        if let Some(e) = damage() {
            return Err(e);
        }
        made.write(header, dropped, dir, dense_bytes, VERSION)
    }
}

/// The file storing one side to move, at zstd level `level` (`None`: its metric's), made
/// from `table`, a compressed table storing both: the same bytes as [`compress`] with
/// [`Sides::One`] writes from the dense table (the blocks are weighed, or taken as weighed
/// where the file was written at [`TRIAL_LEVEL`], and the kept ones decoded and compressed
/// again, as from the dense values; the noted slots are the file's). `None` if `table` does
/// not store two sections of which one may go.
pub fn trim(
    table: &impl Source,
    dir: &Path,
    level: Option<i32>,
    progress: &dyn Progress,
) -> Result<Option<Compressed>, TableError> {
    let finish = Finish::of(level, table.metric());
    let Some(blocks) = table.blocks() else {
        return Ok(None);
    };
    if blocks.sections.len() != 2 || blocks.stored().contains(&false) {
        return Ok(None);
    }
    let path = table.path().to_path_buf();
    let width = blocks.symbols.width();
    // Block `b` of section `k`, as planes in index order.
    let planes = |k: usize, b: usize| {
        let global = blocks.sections[k].2.unwrap_or(0) + b;
        (blocks.decode_in_index_order(table.storage(), global))
            .map_err(|e| std::io::Error::other(format!("block {global} {e}")))
    };
    let block_err = |e: std::io::Error| TableError::Block {
        path: path.clone(),
        detail: e.to_string(),
    };
    progress.phase("weighing the blocks", table.size());
    let mut made = Made {
        per_section: Vec::new(),
        noted: blocks.noted.clone(),
        block_slots: blocks.block_slots as u32,
    };
    for (k, &(_, records, _)) in blocks.sections.iter().enumerate() {
        let n = records.div_ceil(blocks.block_slots) as usize;
        let weighed = as_weighed(table, blocks, k, n, |b| planes(k, b), progress);
        let part = match weighed.map_err(block_err)? {
            Some(part) => Ok(part),
            None => weigh(n, width, |b| Ok((planes(k, b)?, Vec::new())), progress).map(|w| w.0),
        };
        made.per_section.push(part.map_err(block_err)?);
    }
    let dropped = made.dropped(Sides::One);
    progress.phase("compressing", kept(table.header(), dropped));
    made.finish(dropped, finish, width, planes, progress)
        .map_err(block_err)?;
    let dense_bytes = table.header().clone().file_len();
    // The file keeps its checksums, and with them its version.
    made.write(table.header(), dropped, dir, dense_bytes, blocks.version)
        .map(Some)
}

/// A block [`reblock`] decoded: the call's number ([`REBLOCKS`]), the block's, its planes
/// in index order.
type OldBlock = (u64, usize, Arc<Vec<u8>>);

/// Numbers of [`reblock`]'s calls so far: a thread's block of an earlier call is never
/// taken for one of a table opened since, wherever that lies in memory.
static REBLOCKS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

thread_local! {
    /// The block [`reblock`] decoded last on this thread (a worker keeps it until its
    /// next call: one block a worker). A new block shorter than the old ones reads an old
    /// one many times over, on the same thread (the new blocks go to the threads in runs).
    static LAST_OLD: RefCell<Option<OldBlock>> = const { RefCell::new(None) };
}

/// The compressed table `table` again in blocks of `block_slots` slots, written into
/// `dir` under its own name: the sections it stores, the same values, the same header
/// and noted slots; each new block weighed in both forms and compressed at `level`
/// (`None`: its metric's). Smaller blocks answer a probe of a block not held sooner
/// (less to decode) and take more bytes. `None` if `table` is not compressed.
///
/// # Panics
///
/// If `block_slots` is not a positive multiple of 4,096, the tiles' size.
pub fn reblock(
    table: &impl Source,
    dir: &Path,
    block_slots: u32,
    level: Option<i32>,
    progress: &dyn Progress,
) -> Result<Option<Compressed>, TableError> {
    assert!(
        block_slots > 0 && block_slots as usize % TILE == 0,
        "blocks of whole tiles, not {block_slots} slots"
    );
    let Some(blocks) = table.blocks() else {
        return Ok(None);
    };
    let path = table.path().to_path_buf();
    let block_err = |e: std::io::Error| TableError::Block {
        path: path.clone(),
        detail: e.to_string(),
    };
    let width = blocks.symbols.width();
    let (old, new) = (blocks.block_slots, block_slots as u64);
    let id = REBLOCKS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // Old block `global`'s planes in index order, decoded once for the new blocks it
    // feeds on this thread.
    let old_planes = |global: usize| -> std::io::Result<Arc<Vec<u8>>> {
        let held = LAST_OLD.with_borrow(|l| {
            (l.as_ref())
                .filter(|(i, b, _)| (*i, *b) == (id, global))
                .map(|l| l.2.clone())
        });
        if let Some(p) = held {
            return Ok(p);
        }
        let p = Arc::new(
            (blocks.decode_in_index_order(table.storage(), global))
                .map_err(|e| std::io::Error::other(format!("block {global} {e}")))?,
        );
        LAST_OLD.set(Some((id, global, p.clone())));
        Ok(p)
    };
    // New block `b` of section `k`, as planes in index order.
    let planes = |k: usize, b: usize| -> std::io::Result<Vec<u8>> {
        let (_, records, first) = blocks.sections[k];
        let first = first.expect("a stored section");
        let (lo, hi) = (b as u64 * new, ((b as u64 + 1) * new).min(records));
        let len = (hi - lo) as usize;
        let mut out = vec![0u8; len * width];
        let mut at = lo;
        while at < hi {
            let ob = (at / old) as usize;
            let p = old_planes(first + ob)?;
            let olen = p.len() / width;
            let (from, to) = (
                (at - ob as u64 * old) as usize,
                ((ob as u64 + 1) * old).min(hi),
            );
            let n = (to - at) as usize;
            for j in 0..width {
                let dst = j * len + (at - lo) as usize;
                out[dst..dst + n].copy_from_slice(&p[j * olen + from..j * olen + from + n]);
            }
            at = to;
        }
        Ok(out)
    };
    // The section the file dropped stays dropped (a file drops one at most).
    let dropped = blocks.sections.iter().position(|s| s.2.is_none());
    progress.phase("weighing the blocks", kept(table.header(), dropped));
    let mut made = Made {
        per_section: Vec::new(),
        noted: blocks.noted.clone(),
        block_slots,
    };
    for (k, &(_, records, _)) in blocks.sections.iter().enumerate() {
        if Some(k) == dropped {
            made.per_section.push(Vec::new());
            continue;
        }
        let n = records.div_ceil(new) as usize;
        let weighed = weigh(n, width, |b| Ok((planes(k, b)?, Vec::new())), progress);
        made.per_section.push(weighed.map_err(block_err)?.0);
    }
    progress.phase("compressing", kept(table.header(), dropped));
    let finish = Finish::of(level, table.metric());
    made.finish(dropped, finish, width, planes, progress)
        .map_err(block_err)?;
    let dense_bytes = table.header().clone().file_len();
    // The file keeps its checksums, and with them its version.
    made.write(table.header(), dropped, dir, dense_bytes, blocks.version)
        .map(Some)
}

/// Section `k`'s `n` blocks as `table` holds them, each with its form, if they are what
/// weighing them gives ([`weigh`]): the file was written at [`TRIAL_LEVEL`], as the files
/// `retro generate --compress` reads sub-tables from are. Checked on the section's largest
/// block (its planes: `planes(block)`), weighed again and compared byte for byte; `None`
/// otherwise. Weighing every block again would only repeat the trial compressions that
/// made the file.
fn as_weighed(
    table: &impl Source,
    blocks: &Blocks,
    k: usize,
    n: usize,
    planes: impl Fn(usize) -> std::io::Result<Vec<u8>>,
    progress: &dyn Progress,
) -> std::io::Result<Option<Weighed>> {
    let Some(first) = blocks.sections[k].2 else {
        return Ok(None);
    };
    let map = table.storage();
    let held = |b: usize| {
        let raw = (blocks.raw(map, first + b))
            .map_err(|e| std::io::Error::other(format!("block {} {e}", first + b)))?;
        Ok::<_, std::io::Error>((raw.into_owned(), blocks.blocks[first + b].3))
    };
    // The largest block: a block of one repeated value may come out the same at every level.
    if let Some(b) = (0..n).max_by_key(|&b| blocks.blocks[first + b].1) {
        if trial(planes(b)?, blocks.symbols.width())? != held(b)? {
            return Ok(None);
        }
    }
    (0..n)
        .into_par_iter()
        .map(|b| {
            progress.advance(blocks.slots_in(first + b) as u64);
            held(b)
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

/// Bytes of a block's entry in the header: length, checksum, form.
const ENTRY: usize = 13;

/// How a block's values are ordered before zstd. Each block takes the form that compresses
/// it smaller: tiles transposed put next to each other the slots that differ in the
/// next-to-last piece instead of the last, and which of the two repeats more depends on the
/// block (KQRvKR sampled: 5 % smaller over both, black's section 7 %, white's none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Form {
    /// Slots in index order.
    Plain = 0,
    /// Each whole 4,096-slot tile transposed as a 64 x 64 square (a shorter last tile kept
    /// as it is).
    Tiles = 1,
}

thread_local! {
    /// Each thread's zstd context for decoding blocks, made once: a context made for every
    /// block took a sixteenth of a busy server's CPU.
    static DECODER: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// A new block's buffer as zstd fills it: not yet written, then written up to `written`.
struct Unwritten<'a> {
    buf: &'a mut [MaybeUninit<u8>],
    written: usize,
}

// Safety: `as_mut_ptr` points at `capacity()` bytes this buffer owns; zstd writes only there
// and calls `filled_until(n)` once it has written the first `n`, and `as_slice` shows only
// those.
unsafe impl zstd::zstd_safe::WriteBuf for Unwritten<'_> {
    fn as_slice(&self) -> &[u8] {
        // Safety: the first `written` bytes were written (`filled_until`).
        unsafe { std::slice::from_raw_parts(self.buf.as_ptr().cast(), self.written) }
    }

    fn capacity(&self) -> usize {
        self.buf.len()
    }

    fn as_mut_ptr(&mut self) -> *mut u8 {
        self.buf.as_mut_ptr().cast()
    }

    unsafe fn filled_until(&mut self, n: usize) {
        self.written = n;
    }
}

/// Slots in a tile of [`Form::Tiles`], and its side.
const TILE: usize = 4096;
const SIDE: usize = 64;

impl Form {
    fn from_byte(b: u8) -> Option<Form> {
        match b {
            0 => Some(Form::Plain),
            1 => Some(Form::Tiles),
            _ => None,
        }
    }

    /// Where slot `k` of a block of `len` slots (index order, in each plane) lies in this
    /// form's order: a whole tile's transposition moves it, a shorter last tile keeps it.
    #[inline]
    pub(crate) fn stored_at(self, k: usize, len: usize) -> usize {
        if self == Form::Tiles && k < len / TILE * TILE {
            (k & !(TILE - 1)) | ((k % SIDE) * SIDE) | ((k % TILE) / SIDE)
        } else {
            k
        }
    }

    /// Reorder each of the `width` planes of `values` into this form, or back: a
    /// transposition undoes itself. (Readers leave decoded blocks in the form's order and
    /// find a slot by [`Self::stored_at`]; only the writer and [`trim`] reorder.)
    fn apply(self, values: Vec<u8>, width: usize) -> Vec<u8> {
        if self == Form::Plain {
            return values;
        }
        let mut out = vec![0; values.len()];
        let n = (values.len() / width).max(1);
        for (src, dst) in values.chunks(n).zip(out.chunks_mut(n)) {
            let whole = src.len() / TILE * TILE;
            for (s, d) in src[..whole]
                .chunks_exact(TILE)
                .zip(dst[..whole].chunks_exact_mut(TILE))
            {
                transpose_tile(s, d);
            }
            // A shorter last tile stays as it is.
            dst[whole..].copy_from_slice(&src[whole..]);
        }
        out
    }
}

/// `to` = `from` transposed, both a [`SIDE`] x [`SIDE`] square of bytes, by squares of 8 x 8 bytes, each transposed in eight words: a byte at a time,
/// this took a seventh of a busy server's CPU (a quarter of zstd's decoding of the same
/// blocks).
fn transpose_tile(from: &[u8], to: &mut [u8]) {
    for br in (0..SIDE).step_by(8) {
        for bc in (0..SIDE).step_by(8) {
            let mut rows = [0u64; 8];
            for (i, row) in rows.iter_mut().enumerate() {
                let at = (br + i) * SIDE + bc;
                *row = u64::from_le_bytes(from[at..at + 8].try_into().expect("8 bytes"));
            }
            transpose_8x8(&mut rows);
            for (i, row) in rows.iter().enumerate() {
                let at = (bc + i) * SIDE + br;
                to[at..at + 8].copy_from_slice(&row.to_le_bytes());
            }
        }
    }
}

/// Transpose the 8 x 8 bytes of `rows` (byte `j` of row `i` becomes byte `i` of row `j`,
/// bytes little-endian): the 4 x 4 quarters, then the 2 x 2 squares within them, then the
/// bytes within those, each step swapping the two off-diagonal parts.
fn transpose_8x8(rows: &mut [u64; 8]) {
    for (shift, mask, step) in [
        (32, 0x0000_0000_FFFF_FFFF_u64, 4),
        (16, 0x0000_FFFF_0000_FFFF, 2),
        (8, 0x00FF_00FF_00FF_00FF, 1),
    ] {
        for i in 0..8 {
            if i & step == 0 {
                let (a, b) = (rows[i], rows[i + step]);
                // a's high part and b's low part trade places.
                let t = ((a >> shift) ^ b) & mask;
                rows[i] = a ^ (t << shift);
                rows[i + step] = b ^ t;
            }
        }
    }
}

/// Slots of the sections kept.
fn kept(header: &Header, dropped: Option<usize>) -> u64 {
    (header.sections.iter().enumerate())
        .filter(|&(k, _)| Some(k) != dropped)
        .map(|(_, s)| s.records)
        .sum()
}

/// zstd level at which the two forms of a block, and the two sections of a table, are
/// weighed: a fast one, so that trying both costs little beside compressing what is kept
/// at the final level. Also the level of the files `retro generate --compress` reads its
/// sub-tables from while it makes a set (both sides to move, soon trimmed to one).
pub const TRIAL_LEVEL: i32 = 3;

/// A section's `n` blocks, each weighed ([`trial`]) from its planes (`planes(block)`, with
/// the slots of the block it notes), and the first [`NOTED`] slots noted, in order.
fn weigh(
    n: usize,
    width: usize,
    planes: impl Fn(usize) -> std::io::Result<(Vec<u8>, Vec<Index>)> + Sync,
    progress: &dyn Progress,
) -> std::io::Result<(Weighed, Vec<Index>)> {
    let blocks: Vec<(Block, Vec<Index>)> = (0..n)
        .into_par_iter()
        .map(|b| {
            let (p, noted) = planes(b)?;
            progress.advance((p.len() / width) as u64);
            Ok((trial(p, width)?, noted))
        })
        .collect::<std::io::Result<_>>()?;
    let noted = blocks
        .iter()
        .flat_map(|b| b.1.iter().copied())
        .take(NOTED)
        .collect();
    Ok((blocks.into_iter().map(|b| b.0).collect(), noted))
}

/// A block's planes in the form that comes out smaller at [`TRIAL_LEVEL`] (plain on a
/// tie): that form and those bytes.
fn trial(values: Vec<u8>, width: usize) -> std::io::Result<(Vec<u8>, Form)> {
    let plain = Finish::TRIAL.compress(&values)?;
    let tiles = Finish::TRIAL.compress(&Form::Tiles.apply(values, width))?;
    Ok(if tiles.len() < plain.len() {
        (tiles, Form::Tiles)
    } else {
        (plain, Form::Plain)
    })
}

/// A block's planes from dense records: each slot's symbol, illegal slots taking the
/// symbol before them (don't care: the game knows they are illegal), which keeps runs
/// long; and the first [`NOTED`] legal slots of the block whose symbol is `note`. A value
/// the header's histograms do not count is an error: the records are not the ones the
/// header describes.
fn pack(
    records: &[u8],
    metric: Metric,
    symbols: &Symbols,
    note: Option<u16>,
) -> std::io::Result<(Vec<u8>, Vec<u32>)> {
    let width = symbols.width();
    let n = records.len() / 2;
    let mut out = vec![0u8; n * width];
    let mut noted = Vec::new();
    let mut prev = symbols
        .symbol(Value::Draw)
        .or_else(|| symbols.symbol(Value::Illegal))
        .unwrap_or(0);
    for (k, r) in records.chunks_exact(2).enumerate() {
        let symbol = match direct_symbol(r, symbols) {
            Some(s) => s,
            None => {
                let v = metric.value([r[0], r[1]]);
                let s = (v != Value::Illegal).then(|| symbols.symbol(v));
                s.map(|s| {
                    s.ok_or_else(|| {
                        std::io::Error::other(format!(
                            "a record holds {v:?}, which the table's statistics do not count"
                        ))
                    })
                })
                .transpose()?
            }
        };
        if let Some(s) = symbol {
            prev = s;
            if symbol == note && noted.len() < NOTED {
                noted.push(k as u32);
            }
        }
        out[k] = prev as u8;
        if width == 2 {
            out[n + k] = (prev >> 8) as u8;
        }
    }
    Ok((out, noted))
}

/// The symbol of record `r` (`None` inside: an illegal slot) where its bytes say it
/// without the value worked out, as packing most records does: DTM's value byte is its
/// symbol but for a terminal loss (byte 129 and no move, symbol 0); a DTZ record is its
/// value's code. `None` where they do not (a value the table does not hold).
#[inline]
fn direct_symbol(r: &[u8], symbols: &Symbols) -> Option<Option<u16>> {
    match symbols {
        Symbols::Packed => Some(match (r[0], r[1]) {
            (0, _) => None,
            (129, NO_MOVE) => Some(0),
            (b, _) => Some(b as u16),
        }),
        Symbols::Listed {
            metric: Metric::Dtz,
            of_code,
            ..
        } => match u16::from_le_bytes([r[0], r[1]]) {
            0 => Some(None),
            c => (of_code.get(c as usize).copied())
                .filter(|&s| s != u16::MAX)
                .map(Some),
        },
        Symbols::Listed { .. } => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::SectionInfo;

    fn header_of(metric: Metric, values: &[Value]) -> Header {
        let mut histogram = vec![0; metric.codes()];
        for &v in values {
            histogram[metric.code(v)] += 1;
        }
        Header {
            game: "g".into(),
            name: "t".into(),
            params: metric.param().into_iter().collect(),
            sections: vec![SectionInfo {
                name: "all".into(),
                records: values.len() as u64,
                offset: 0,
                checksum: 0,
                histogram,
            }],
        }
    }

    #[test]
    fn packing_keeps_values_and_fills_illegal_slots() {
        let values = [
            Value::Illegal,
            Value::Loss(0),
            Value::Loss(2),
            Value::Illegal,
            Value::Win(7),
            Value::Draw,
        ];
        let records: Vec<u8> = values
            .iter()
            .flat_map(|&v| {
                [
                    v.to_byte(),
                    if v == Value::Loss(0) {
                        crate::game::NO_MOVE
                    } else {
                        2
                    },
                ]
            })
            .collect();
        let symbols = Symbols::of(&header_of(Metric::Dtm, &values), Metric::Dtm);
        let (p, noted) = pack(&records, Metric::Dtm, &symbols, None).unwrap();
        assert!(noted.is_empty());
        // The slots noted hold the value asked for, illegal ones never (slot 3 is packed
        // as a loss in two plies too); the terminal loss is told from that loss.
        let note = |v: Value| pack(&records, Metric::Dtm, &symbols, symbols.symbol(v));
        assert_eq!(note(Value::Loss(2)).unwrap().1, [2]);
        assert_eq!(note(Value::Loss(0)).unwrap().1, [1]);
        assert_eq!(note(Value::Win(7)).unwrap().1, [4]);
        let back: Vec<Value> = p.iter().map(|&b| symbols.value(b as u16)).collect();
        assert_eq!(
            back,
            [
                Value::Draw,
                Value::Loss(0),
                Value::Loss(2),
                Value::Loss(2),
                Value::Win(7),
                Value::Draw
            ]
        );
    }

    #[test]
    fn dtz_values_take_two_byte_symbols_past_256_values_in_planes() {
        let m = Metric::Dtz;
        // 300 values: wins of 1..=150 plies, losses of 0..=149.
        let mut values: Vec<Value> = (1..=150).map(Value::Win).collect();
        values.extend((0..150).map(Value::Loss));
        values.push(Value::Illegal);
        let symbols = Symbols::of(&header_of(m, &values), m);
        assert_eq!(symbols.width(), 2);
        let records: Vec<u8> = values.iter().flat_map(|&v| m.record(v, 0)).collect();
        let (planes, noted) =
            pack(&records, m, &symbols, symbols.symbol(Value::Loss(149))).unwrap();
        assert_eq!(noted, [299]);
        assert_eq!(planes.len(), 2 * values.len());
        for (k, &v) in values.iter().enumerate().take(300) {
            assert_eq!(symbols.value(plane_symbol(&planes, 2, k)), v);
        }
        // The illegal slot holds the value before it.
        assert_eq!(
            symbols.value(plane_symbol(&planes, 2, 300)),
            Value::Loss(149)
        );
        // A form undoes itself plane by plane.
        let tiled = Form::Tiles.apply(planes.clone(), 2);
        assert_eq!(Form::Tiles.apply(tiled, 2), planes);
        // The tiles' transposition, by squares of 8 x 8, against its definition: in each
        // whole tile of each plane, slot `64 r + c` goes to `64 c + r`; a shorter last
        // tile stays as it is.
        let n = 2 * TILE + 100;
        for width in [1, 2] {
            let mut x = 0x2545_F491_4F6C_DD1D_u64;
            let from: Vec<u8> = (0..n * width)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            let to = Form::Tiles.apply(from.clone(), width);
            for p in 0..width {
                for i in 0..n {
                    let (t, k) = (i / TILE, i % TILE);
                    let j = if (t + 1) * TILE <= n {
                        t * TILE + k % SIDE * SIDE + k / SIDE
                    } else {
                        i
                    };
                    assert_eq!(to[p * n + j], from[p * n + i], "width {width} slot {i}");
                    // A reader finds the slot there without reordering the block.
                    assert_eq!(Form::Tiles.stored_at(i, n), j, "slot {i}");
                    assert_eq!(Form::Plain.stored_at(i, n), i);
                }
            }
            for k in 0..n {
                assert_eq!(
                    plane_symbol(&to, width, Form::Tiles.stored_at(k, n)),
                    plane_symbol(&from, width, k)
                );
            }
            assert_ne!(to, from);
            assert_eq!(Form::Tiles.apply(to, width), from);
        }
        // Fewer values: a byte each.
        let few = Symbols::of(&header_of(m, &values[..200]), m);
        assert_eq!(few.width(), 1);
        assert_eq!(few.symbol(Value::Win(151)), None);
    }
}
