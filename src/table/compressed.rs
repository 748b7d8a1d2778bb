//! The compressed table (`<name>.rtbc`): a table's values only, in independently decodable,
//! checksummed zstd blocks, read a block at a time through a cache (at most 1 GiB of
//! decoded blocks for the whole process).
//!
//! What is stored, and why it is enough:
//!
//! - One byte a slot, the value ([`Value::packed`]); no best move. The best move of the
//!   dense table is the first move, in the game's move order, reaching the value; a probe
//!   finds it again from the successors' values (one ply), so answers are identical.
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
//! | 8 | 4 | format version (1) |
//! | 12 | 4 | header length `H`, from offset 0 to the end of the header checksum |
//! | 16 | 4 | slots per block `B` |
//! | 20 | 4 | length `D` of the dense header |
//! | 24 | D | the dense table's header (see [`super::header`]) |
//! | 24 + D | 8 | number of blocks `n` |
//! | 32 + D | 12 × n | per block: compressed length (4), xxh3-64 of the compressed bytes (8) |
//! | H - 8 | 8 | xxh3-64 of bytes `0..H-8` |
//! | H | … | the blocks, in order |
//!
//! Each section is cut into blocks of `B` slots (its last block shorter); a block never
//! spans two sections. The file is exactly `H` plus the blocks' lengths.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use byteorder::{ByteOrder, LittleEndian as LE, WriteBytesExt};
use rayon::prelude::*;

use super::header::Header;
use super::storage::Storage;
use super::{checksum, Table, TableError};
use crate::game::{Index, Value};
use crate::progress::Progress;

/// The first eight bytes of a compressed table.
pub const MAGIC: [u8; 8] = *b"RETROTBZ";
/// The compressed format's version.
pub const VERSION: u32 = 1;
/// The file name extension of compressed tables.
pub const EXTENSION: &str = "rtbc";
/// Slots per block: 64 KiB of values, decoded in a few tens of microseconds.
pub const BLOCK_SLOTS: u32 = 1 << 16;
/// zstd level. Measured on the 35 tables of up to 4 pieces: 12 gives 27.9 MB in 5.9 s,
/// 16 gives 24.4 MB in 13.7 s, 19 gives 24.1 MB in 28 s (generating them takes 28 s);
/// decoding speed hardly depends on it.
const LEVEL: i32 = 16;
/// Places for decoded blocks per table (direct-mapped by block number): every block of a
/// 4-piece table or of a pawnless 5-piece one (3,697 blocks), a third of KRPvKR's.
const CACHE_BLOCKS: usize = 4096;
/// Decoded blocks held by all tables of the process at most, in bytes: past it, a block
/// decoded into an empty place is used once and not kept, so memory stays bounded however
/// many tables a server holds.
const CACHE_BUDGET: usize = 1 << 30;
/// Bytes of decoded blocks held now, over all tables.
static CACHED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Where the blocks of an open compressed table are, and the ones decoded lately.
pub struct Blocks {
    block_slots: u64,
    /// Per block: offset in the file, length, checksum.
    blocks: Vec<(u64, u32, u64)>,
    /// Per section: first index, number of records, first block.
    sections: Vec<(u64, u64, usize)>,
    cache: Vec<CacheSlot>,
}

/// One place of the block cache: the number of the block it holds, and its values.
type CacheSlot = Mutex<Option<(usize, Arc<[u8]>)>>;

fn header_err(path: &Path, detail: impl Into<String>) -> TableError {
    TableError::Header {
        path: path.to_path_buf(),
        detail: detail.into(),
    }
}

/// Parse and check a compressed table's header and shape (`map` holds the file, whose
/// magic was checked). Block checksums are checked by [`Blocks::check`].
pub fn open(path: &Path, map: &Storage) -> Result<(Header, Blocks), TableError> {
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
    if hlen < 40 || hlen > len || 24 + dlen + 16 > hlen {
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
    let dense = &h[24..24 + dlen as usize];
    let header = Header::decode(dense).map_err(|detail| header_err(path, detail))?;
    let at = 24 + dlen as usize;
    let n = LE::read_u64(&h[at..at + 8]) as usize;
    let expected: u64 = header
        .sections
        .iter()
        .map(|s| s.records.div_ceil(block_slots))
        .sum();
    if n as u64 != expected || at + 8 + n * 12 + 8 != hlen {
        return Err(header_err(
            path,
            format!("{n} blocks listed, the sections need {expected}"),
        ));
    }
    let mut blocks = Vec::with_capacity(n);
    let mut offset = hlen as u64;
    for k in 0..n {
        let e = &h[at + 8 + k * 12..at + 8 + (k + 1) * 12];
        let size = LE::read_u32(&e[..4]);
        blocks.push((offset, size, LE::read_u64(&e[4..])));
        offset += size as u64;
    }
    if offset != len {
        return Err(TableError::Size {
            path: p(),
            detail: format!("expected {offset} bytes, found {len}"),
        });
    }
    let mut sections = Vec::new();
    let (mut first, mut block) = (0u64, 0usize);
    for s in &header.sections {
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
        sections.push((first, s.records, block));
        first += s.records;
        block += s.records.div_ceil(block_slots) as usize;
    }
    let cache = (0..CACHE_BLOCKS.min(n)).map(|_| Mutex::new(None)).collect();
    Ok((
        header,
        Blocks {
            block_slots,
            blocks,
            sections,
            cache,
        },
    ))
}

impl Drop for Blocks {
    /// The blocks this table held no longer count against [`CACHE_BUDGET`].
    fn drop(&mut self) {
        let held: usize = self
            .cache
            .iter_mut()
            .filter_map(|c| c.get_mut().ok()?.as_ref().map(|(_, d)| d.len()))
            .sum();
        CACHED.fetch_sub(held, std::sync::atomic::Ordering::Relaxed);
    }
}

/// A block that cannot be used: its number, its section, and why.
#[derive(Debug)]
pub struct BadBlock {
    pub block: usize,
    pub section: String,
    pub detail: String,
}

impl Blocks {
    /// The block holding `index` and the index's place in it.
    fn locate(&self, index: Index) -> Option<(usize, usize)> {
        let &(first, records, block) = self
            .sections
            .iter()
            .rev()
            .find(|&&(first, _, _)| index >= first)?;
        let k = index - first;
        (k < records).then(|| {
            (
                block + (k / self.block_slots) as usize,
                (k % self.block_slots) as usize,
            )
        })
    }

    /// The section of block `b`, by position.
    fn section_of(&self, b: usize) -> usize {
        self.sections
            .iter()
            .rposition(|&(_, _, first)| b >= first)
            .unwrap_or(0)
    }

    /// Slots in block `b`.
    fn slots_in(&self, b: usize) -> usize {
        let s = self.section_of(b);
        let (_, records, first) = self.sections[s];
        let start = (b - first) as u64 * self.block_slots;
        (records - start).min(self.block_slots) as usize
    }

    /// The compressed bytes of block `b`, if they still hash to its checksum.
    fn raw<'m>(&self, map: &'m Storage, b: usize) -> Result<std::borrow::Cow<'m, [u8]>, String> {
        let (offset, size, sum) = self.blocks[b];
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
        Ok(out)
    }

    /// The value byte ([`Value::packed`]) of slot `index`; `None` outside the table or if
    /// its block is damaged (the file changed since it was opened and checked).
    pub fn packed(&self, map: &Storage, index: Index) -> Option<u8> {
        use std::sync::atomic::Ordering::Relaxed;
        let (b, k) = self.locate(index)?;
        let slot = &self.cache[b % self.cache.len()];
        if let Some((cached, data)) = &*slot.lock().unwrap_or_else(|e| e.into_inner()) {
            if *cached == b {
                return Some(data[k]);
            }
        }
        // Decoded outside the lock: other threads keep reading their blocks.
        let data: Arc<[u8]> = self.decode(map, b).ok()?.into();
        let v = data[k];
        let mut held = slot.lock().unwrap_or_else(|e| e.into_inner());
        let freed = held.as_ref().map_or(0, |(_, d)| d.len());
        if freed > 0 || CACHED.load(Relaxed) + data.len() <= CACHE_BUDGET {
            CACHED.fetch_add(data.len(), Relaxed);
            CACHED.fetch_sub(freed, Relaxed);
            *held = Some((b, data));
        }
        Some(v)
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

    /// The packed values of section `s` (index into the header's sections), decoded.
    pub fn section_values(&self, map: &Storage, s: usize) -> Result<Vec<u8>, String> {
        let (_, records, first) = self.sections[s];
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
}

/// Compress the dense table `table` into `dir/<name>.rtbc`, written to a temporary file
/// and renamed, as dense tables are.
pub fn compress(
    table: &Table,
    dir: &Path,
    progress: &dyn Progress,
) -> Result<Compressed, TableError> {
    let path = table.path().to_path_buf();
    // The blocks pack DTM value bytes: a DTZ table's plies of either parity do not fit.
    if table.metric() != super::Metric::Dtm {
        return Err(TableError::Metric {
            path,
            what: "compressed",
            metric: table.metric(),
        });
    }
    let io = |source| TableError::Io {
        path: path.clone(),
        source,
    };
    let header = table.header().clone();
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    progress.phase("compressing", table.size());
    for s in &header.sections {
        let records = table.section_records(s).map_err(io)?;
        let slots = (records.len() / 2) as u64;
        let n = slots.div_ceil(BLOCK_SLOTS as u64) as usize;
        let part: Result<Vec<Vec<u8>>, std::io::Error> = (0..n)
            .into_par_iter()
            .map(|b| {
                let lo = b * BLOCK_SLOTS as usize;
                let hi = (lo + BLOCK_SLOTS as usize).min(slots as usize);
                let values = pack(&records[lo * 2..hi * 2]);
                let out = zstd::bulk::compress(&values, LEVEL);
                progress.advance((hi - lo) as u64);
                out
            })
            .collect();
        blocks.extend(part.map_err(io)?);
    }
    let mut dense = header.clone();
    let dense_head = dense.encode();
    let mut head = Vec::new();
    head.extend_from_slice(&MAGIC);
    head.write_u32::<LE>(VERSION).expect("vec write");
    let hlen = 24 + dense_head.len() + 8 + blocks.len() * 12 + 8;
    head.write_u32::<LE>(hlen as u32).expect("vec write");
    head.write_u32::<LE>(BLOCK_SLOTS).expect("vec write");
    head.write_u32::<LE>(dense_head.len() as u32)
        .expect("vec write");
    head.extend_from_slice(&dense_head);
    head.write_u64::<LE>(blocks.len() as u64)
        .expect("vec write");
    for b in &blocks {
        head.write_u32::<LE>(b.len() as u32).expect("vec write");
        head.write_u64::<LE>(checksum(b)).expect("vec write");
    }
    let sum = checksum(&head);
    head.write_u64::<LE>(sum).expect("vec write");
    debug_assert_eq!(head.len(), hlen);
    let name = &header.name;
    let out = super::writer::write_parts(dir, name, EXTENSION, &head, &blocks)?;
    Ok(Compressed {
        bytes: head.len() as u64 + blocks.iter().map(|b| b.len() as u64).sum::<u64>(),
        dense_bytes: table.file_len(),
        blocks: blocks.len(),
        path: out,
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
