//! The compressed table (`<name>.rtbc`): a table's values only, in independently decodable,
//! checksummed zstd blocks, read a block at a time through a cache (at most 1 GiB of
//! decoded blocks for the whole process).
//!
//! What is stored, and why it is enough:
//!
//! - One byte a slot, the value ([`Value::packed`]); no best move. The best move of the
//!   dense table is the first move, in the game's move order, reaching the value; a probe
//!   finds it again from the successors' values (one ply), so answers are identical.
//! - Of a chess table, one side to move only: the section that compresses larger is
//!   dropped, and a slot of it is worth the best of its moves, which lead into the stored
//!   section or into sub-tables (one ply, as Syzygy's DTZ files do; see
//!   [`super::complete`]). Black's section is most of a table's bytes: KQRvKR's two
//!   thirds. For the server's statistics page, the first slots of a dropped section's
//!   longest value are noted in the header.
//! - Illegal slots hold whatever compresses best ("don't care": the value before them).
//!   The game knows which slots are illegal (its `decode`), so nothing is lost; a
//!   compressed table must not be asked for an illegal slot's value.
//! - The dense table's header, verbatim: statistics, parameters and the dense payload's
//!   checksums, so `retro decompress` can rebuild the dense file and prove it identical.
//!
//! Layout (integers little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `RETROTBZ` |
//! | 8 | 4 | format version (3) |
//! | 12 | 4 | header length `H`, from offset 0 to the end of the header checksum |
//! | 16 | 4 | slots per block `B` |
//! | 20 | 4 | length `D` of the dense header |
//! | 24 | 4 | the sections stored: bit `k` set for section `k` (at least one) |
//! | 28 | D | the dense table's header (see [`super::header`]) |
//! | 28 + D | 8 | number of blocks `n` (of the stored sections) |
//! | 36 + D | 13 × n | per block: compressed length (4), xxh3-64 of the compressed bytes (8), form (1) |
//! | 36 + D + 13n | 4 | number `m` of noted slots |
//! | 40 + D + 13n | 8 × m | noted slots: per dropped section, the first [`NOTED`] (in index order) holding its longest value ([`super::metric::longest`]) |
//! | H - 8 | 8 | xxh3-64 of bytes `0..H-8` |
//! | H | … | the blocks, in order |
//!
//! Each stored section is cut into blocks of `B` slots (its last block shorter); a block
//! never spans two sections. The file is exactly `H` plus the blocks' lengths. A block's form
//! says how its values are ordered before zstd: 0 in index order, 1 with each whole
//! 4,096-slot tile transposed as a 64 x 64 square ([`Form`]). Versions 1 (no form byte)
//! and 2 (both sides always) are refused with the command that makes the file again.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use byteorder::{ByteOrder, LittleEndian as LE, WriteBytesExt};
use rayon::prelude::*;

use super::cache::{BlockCache, CacheBudget};
use super::header::Header;
use super::storage::Storage;
use super::{checksum, Table, TableError};
use crate::game::{Index, Value};
use crate::progress::Progress;

/// The first eight bytes of a compressed table.
pub const MAGIC: [u8; 8] = *b"RETROTBZ";
/// The compressed format's version: 2 added each block's form, 3 the sections stored.
pub const VERSION: u32 = 3;
/// Noted slots per dropped section: as many as the server's statistics page lists.
pub const NOTED: usize = 8;
/// The file name extension of compressed tables.
pub const EXTENSION: &str = "rtbc";
/// Slots per block: 256 KiB of values, decoded in a few hundred microseconds, once (the
/// cache keeps them). Against 65,536 slots, KQRvKR sampled 1.6 % smaller, and KRPvKR's
/// 805 M slots fit the cache's 4,096 places (3,072 blocks) instead of contending for them.
pub const BLOCK_SLOTS: u32 = 1 << 18;
/// zstd level. Measured on the 35 tables of up to 4 pieces: 12 gives 27.9 MB in 5.9 s,
/// 16 gives 24.4 MB in 13.7 s, 19 gives 24.1 MB in 28 s (generating them takes 28 s);
/// decoding speed hardly depends on it.
const LEVEL: i32 = 16;

/// Where the blocks of an open compressed table are, and the ones decoded lately.
pub struct Blocks {
    block_slots: u64,
    /// Per block: offset in the file, length, checksum, form.
    blocks: Vec<(u64, u32, u64, Form)>,
    /// Per section: first index, number of records, first block (`None`: dropped).
    sections: Vec<(u64, u64, Option<usize>)>,
    /// Noted slots of the dropped sections (see the layout).
    noted: Vec<Index>,
    /// Per section: its name, for messages.
    names: Vec<String>,
    cache: BlockCache,
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
) -> Result<(Header, Blocks), TableError> {
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
    if (1..VERSION).contains(&version) {
        return Err(TableError::OldCompressed {
            path: p(),
            found: version,
            expected: VERSION,
            dense: path.with_extension(super::EXTENSION),
        });
    }
    if version != VERSION {
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
    super::reader::check_header_sum(path, &h)?;
    if block_slots == 0 {
        return Err(header_err(path, "zero slots per block"));
    }
    let mask = LE::read_u32(&h[24..28]);
    let dense = &h[28..28 + dlen as usize];
    let header = Header::decode(dense).map_err(|detail| header_err(path, detail))?;
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
    let noted_at = noted_at.unwrap_or_default();
    let m = LE::read_u32(&h[noted_at..noted_at + 4]) as usize;
    if noted_at + 4 + m * 8 + 8 != hlen {
        return Err(header_err(
            path,
            format!("{m} noted slots do not fit the header"),
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
    let noted: Vec<Index> = (0..m)
        .map(|j| LE::read_u64(&h[noted_at + 4 + 8 * j..noted_at + 12 + 8 * j]))
        .collect();
    let in_dropped = |i: Index| {
        (sections.iter())
            .any(|&(f, r, b): &(u64, u64, Option<usize>)| b.is_none() && (f..f + r).contains(&i))
    };
    if let Some(bad) = noted.iter().find(|&&i| !in_dropped(i)) {
        return Err(header_err(
            path,
            format!("noted slot {bad} is not in a dropped section"),
        ));
    }
    let cache = BlockCache::new(n, budget);
    Ok((
        header,
        Blocks {
            block_slots,
            blocks,
            sections,
            noted,
            names,
            cache,
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
            Some(block) => Slot::At(
                block + (k / self.block_slots) as usize,
                (k % self.block_slots) as usize,
            ),
        }
    }

    /// The first index of the section of `index`.
    pub fn dropped_first(&self, index: Index) -> Index {
        (self.sections.iter().rev())
            .find(|&&(first, _, _)| index >= first)
            .map_or(0, |s| s.0)
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
        &self.noted
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

    /// Decode block `b`, checking its checksum first (the file may have changed since it
    /// was opened) and its length after.
    fn decode(&self, map: &Storage, b: usize) -> Result<Vec<u8>, String> {
        let data = self.raw(map, b)?;
        let want = self.slots_in(b);
        let out =
            zstd::bulk::decompress(&data, want).map_err(|e| format!("does not decode: {e}"))?;
        if out.len() != want {
            return Err(format!("decodes to {} slots, not {want}", out.len()));
        }
        Ok(self.blocks[b].3.apply(out))
    }

    /// The value byte ([`Value::packed`]) of slot `index`; `None` outside the table, an
    /// error naming the block if it no longer reads (the file changed since it was opened
    /// and checked).
    pub fn packed(&self, map: &Storage, index: Index) -> Option<Result<u8, String>> {
        let Slot::At(b, k) = self.locate(index) else {
            return None;
        };
        if let Some(v) = self.cache.byte(b, k) {
            return Some(Ok(v));
        }
        let data: Vec<u8> = match self.decode(map, b) {
            Ok(d) => d,
            Err(e) => {
                let section = &self.names[self.section_of(b)];
                return Some(Err(format!("block {b} (section '{section}') {e}")));
            }
        };
        let v = data[k];
        self.cache.offer(b, data);
        Some(Ok(v))
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

    /// The packed values of section `s` (index into the header's sections), decoded;
    /// `None` for a dropped section.
    pub fn section_values(&self, map: &Storage, s: usize) -> Option<Result<Vec<u8>, String>> {
        let (_, records, first) = self.sections[s];
        Some(self.stored_values(map, records, first?))
    }

    fn stored_values(&self, map: &Storage, records: u64, first: usize) -> Result<Vec<u8>, String> {
        let n = records.div_ceil(self.block_slots) as usize;
        let parts: Result<Vec<Vec<u8>>, String> = (first..first + n)
            .into_par_iter()
            .map(|b| self.decode(map, b).map_err(|e| format!("block {b} {e}")))
            .collect();
        Ok(parts?.concat())
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
    /// bytes; the other is found one ply on ([`super::complete`]). Only for games whose
    /// every move leads from one section into the other (chess): a slot of the dropped
    /// section must never need another one of it.
    One,
}

/// Compress the dense table `table` into `dir/<name>.rtbc`, written to a temporary file
/// and renamed, as dense tables are.
pub fn compress(
    table: &Table,
    dir: &Path,
    sides: Sides,
    progress: &dyn Progress,
) -> Result<Compressed, TableError> {
    let path = table.path().to_path_buf();
    // The blocks pack DTM value bytes: a DTZ table's plies of either parity do not fit.
    if table.metric() != super::Metric::Dtm {
        return Err(TableError::Metric {
            path,
            what: "compressed",
            metric: table.metric().to_string(),
        });
    }
    let io = |source| TableError::Io {
        path: path.clone(),
        source,
    };
    let header = table.header().clone();
    let mut per_section: Vec<Vec<(Vec<u8>, Form)>> = Vec::new();
    let mut noted_of: Vec<Vec<Index>> = Vec::new();
    progress.phase("compressing", table.size());
    let mut first: Index = 0;
    for s in &header.sections {
        let records = table.section_records(s).map_err(io)?;
        let slots = (records.len() / 2) as u64;
        let n = slots.div_ceil(BLOCK_SLOTS as u64) as usize;
        let part: Result<Vec<(Vec<u8>, Form)>, std::io::Error> = (0..n)
            .into_par_iter()
            .map(|b| {
                let lo = b * BLOCK_SLOTS as usize;
                let hi = (lo + BLOCK_SLOTS as usize).min(slots as usize);
                let values = pack(&records[lo * 2..hi * 2]);
                let out = smaller_form(values);
                progress.advance((hi - lo) as u64);
                out
            })
            .collect();
        per_section.push(part.map_err(io)?);
        let longest = super::metric::longest(&s.histogram, table.metric());
        let noted = longest.map_or(Vec::new(), |(value, _)| {
            (records.chunks_exact(2).enumerate())
                .filter(|(_, r)| Value::from_record(r[0], r[1]) == value)
                .map(|(j, _)| first + j as Index)
                .take(NOTED)
                .collect()
        });
        noted_of.push(noted);
        first += s.records;
    }
    // The section dropped: the larger one (black's in KQRvKR, white's in KRPvKR). Finding
    // either again costs one search per slot asked for, so bytes alone decide.
    let bytes_of = |k: usize| per_section[k].iter().map(|b| b.0.len()).sum::<usize>();
    let dropped = (sides == Sides::One && per_section.len() == 2).then(|| {
        if bytes_of(1) >= bytes_of(0) {
            1
        } else {
            0
        }
    });
    let mask: u32 = (0..per_section.len())
        .filter(|&k| Some(k) != dropped)
        .fold(0, |m, k| m | 1 << k);
    let noted: Vec<Index> = dropped.map_or(Vec::new(), |k| noted_of[k].clone());
    let blocks: Vec<(Vec<u8>, Form)> = (per_section.into_iter().enumerate())
        .filter(|&(k, _)| Some(k) != dropped)
        .flat_map(|(_, b)| b)
        .collect();
    let mut dense = header.clone();
    let dense_head = dense.encode();
    let mut head = Vec::new();
    head.extend_from_slice(&MAGIC);
    head.write_u32::<LE>(VERSION).expect("vec write");
    let hlen = 28 + dense_head.len() + 8 + blocks.len() * ENTRY + 4 + 8 * noted.len() + 8;
    head.write_u32::<LE>(hlen as u32).expect("vec write");
    head.write_u32::<LE>(BLOCK_SLOTS).expect("vec write");
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
    head.write_u32::<LE>(noted.len() as u32).expect("vec write");
    for &i in &noted {
        head.write_u64::<LE>(i).expect("vec write");
    }
    let blocks: Vec<Vec<u8>> = blocks.into_iter().map(|(b, _)| b).collect();
    let sum = checksum(&head);
    head.write_u64::<LE>(sum).expect("vec write");
    debug_assert_eq!(head.len(), hlen);
    let name = &header.name;
    let out = super::writer::write_parts(dir, name, EXTENSION, &head, &blocks)?;
    Ok(Compressed {
        bytes: head.len() as u64 + blocks.iter().map(|b| b.len() as u64).sum::<u64>(),
        dense_bytes: table.file_len(),
        blocks: blocks.len(),
        dropped: dropped.map(|k| header.sections[k].name.clone()),
        path: out,
    })
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

    /// Reorder `values` into this form, or back: a transposition undoes itself.
    fn apply(self, mut values: Vec<u8>) -> Vec<u8> {
        if self == Form::Tiles {
            for tile in values.chunks_exact_mut(TILE) {
                for r in 0..SIDE {
                    for c in r + 1..SIDE {
                        tile.swap(r * SIDE + c, c * SIDE + r);
                    }
                }
            }
        }
        values
    }
}

/// zstd level at which the two forms of a block are weighed: a fast one, so that trying
/// both costs little beside compressing the one kept at [`LEVEL`].
const TRIAL_LEVEL: i32 = 3;

/// A block's values compressed in the form that comes out smaller at [`TRIAL_LEVEL`]
/// (plain on a tie).
fn smaller_form(values: Vec<u8>) -> std::io::Result<(Vec<u8>, Form)> {
    let plain = zstd::bulk::compress(&values, TRIAL_LEVEL)?.len();
    let tiled = Form::Tiles.apply(values.clone());
    let tiles = zstd::bulk::compress(&tiled, TRIAL_LEVEL)?.len();
    Ok(if tiles < plain {
        (zstd::bulk::compress(&tiled, LEVEL)?, Form::Tiles)
    } else {
        (zstd::bulk::compress(&values, LEVEL)?, Form::Plain)
    })
}

/// One byte a slot from dense records: [`Value::packed`], illegal slots taking the value
/// before them (don't care: the game knows they are illegal), which keeps runs long.
fn pack(records: &[u8]) -> Vec<u8> {
    let mut prev = Value::Draw.packed();
    records
        .chunks_exact(2)
        .map(|r| {
            let v = Value::from_record(r[0], r[1]);
            if v != Value::Illegal {
                prev = v.packed();
            }
            prev
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_keeps_values_and_fills_illegal_slots() {
        let rec = |v: Value, mv: u8| [v.to_byte(), mv];
        let records: Vec<u8> = [
            rec(Value::Illegal, 0),
            rec(Value::Loss(0), 0),
            rec(Value::Loss(2), 4),
            rec(Value::Illegal, 0),
            rec(Value::Win(7), 2),
            rec(Value::Draw, 1),
        ]
        .concat();
        let p = pack(&records);
        let back: Vec<Value> = p.iter().map(|&b| Value::from_packed(b)).collect();
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
}
