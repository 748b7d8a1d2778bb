//! Measuring a code that reads one slot without decoding a block (not part of the
//! product): a pair grammar (Re-Pair) over a table's values, its symbols Huffman-coded
//! into small blocks with a sparse index, beside zstd's blocks of 4,096 and 262,144 slots
//! over the same values.
//!
//! `cargo run --release --example random_access_lab -- FILE.rtb [RULES] [BLOCK_BYTES] [LEVEL]`
//! (a dense DTM or DTZ table; RULES the grammar's symbols at most, 4096 by default;
//! BLOCK_BYTES the Huffman blocks' length, 64; LEVEL zstd's, 14 for DTM and 15 for DTZ)
//!
//! For each section: the bytes each code takes, and the time to read one slot at random
//! (one million slots; zstd decodes the slot's whole block, the grammar one block's
//! symbols). Every slot read is checked against the values.

use rayon::prelude::*;
use retro::game::Value;
use retro::table::compressed::Symbols;
use retro::table::{Metric, Table};
use std::time::Instant;

/// A section's values as the compressed tables store them (`Symbols`: a DTM value's
/// byte, a DTZ value's place among the values held), an illegal slot holding the symbol
/// before it.
fn section_bytes(table: &Table, records: &[u8]) -> Vec<u8> {
    let metric = table.metric();
    let symbols = Symbols::of(table.header(), metric);
    assert_eq!(
        symbols.width(),
        1,
        "more than 256 values: two bytes a symbol"
    );
    let mut prev = symbols.symbol(Value::Draw).unwrap_or(0) as u8;
    records
        .chunks_exact(2)
        .map(|r| {
            let v = metric.value([r[0], r[1]]);
            if v != Value::Illegal {
                prev = symbols.symbol(v).expect("a value the table holds") as u8;
            }
            prev
        })
        .collect()
}

/// The grammar: rule k makes symbol 256 + k of two symbols.
struct Grammar {
    rules: Vec<(u16, u16)>,
    /// Slots each symbol stands for.
    len: Vec<u32>,
}

impl Grammar {
    /// The value at `off` inside symbol `s`.
    fn at(&self, mut s: u16, mut off: u32) -> u8 {
        while s >= 256 {
            let (l, r) = self.rules[s as usize - 256];
            let n = self.len[l as usize];
            if off < n {
                s = l;
            } else {
                off -= n;
                s = r;
            }
        }
        s as u8
    }
}

/// Replace the most frequent pairs, many a round (pairs that cannot overlap: no symbol
/// is the right of one chosen pair and the left of another), until `max_symbols` or no
/// pair occurs `min_count` times.
fn repair(bytes: &[u8], max_symbols: usize, min_count: u32) -> (Vec<u16>, Grammar) {
    let mut seq: Vec<u16> = bytes.iter().map(|&b| b as u16).collect();
    let mut g = Grammar {
        rules: Vec::new(),
        len: vec![1; 256],
    };
    let m = max_symbols;
    loop {
        let nsym = 256 + g.rules.len();
        if nsym >= m {
            break;
        }
        // Pair counts, a run of one symbol counted as its non-overlapping pairs.
        let counts = seq
            .par_chunks(1 << 22)
            .fold(
                || vec![0u32; nsym * nsym],
                |mut t, c| {
                    let mut i = 0;
                    while i + 1 < c.len() {
                        let (a, b) = (c[i] as usize, c[i + 1] as usize);
                        t[a * nsym + b] += 1;
                        i += if a == b { 2 } else { 1 };
                    }
                    t
                },
            )
            .reduce(
                || vec![0u32; nsym * nsym],
                |mut x, y| {
                    x.iter_mut().zip(y).for_each(|(p, q)| *p += q);
                    x
                },
            );
        let mut pairs: Vec<(u32, usize)> = counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c >= min_count)
            .map(|(k, &c)| (c, k))
            .collect();
        if pairs.is_empty() {
            break;
        }
        pairs.sort_unstable_by(|x, y| y.cmp(x));
        let top = pairs[0].0;
        let mut left = vec![false; nsym];
        let mut right = vec![false; nsym];
        let mut chosen: Vec<Vec<(u16, u16)>> = vec![Vec::new(); nsym];
        let mut made = 0;
        for &(c, k) in &pairs {
            if 256 + g.rules.len() >= m || c < top / DIV || made >= PER_ROUND {
                break;
            }
            let (a, b) = (k / nsym, k % nsym);
            if right[a] || left[b] || (a == b && left[a]) {
                continue;
            }
            left[a] = true;
            right[b] = true;
            let s = (256 + g.rules.len()) as u16;
            g.rules.push((a as u16, b as u16));
            g.len.push(g.len[a] + g.len[b]);
            chosen[a].push((b as u16, s));
            made += 1;
        }
        let mut out = Vec::with_capacity(seq.len());
        let mut i = 0;
        while i < seq.len() {
            let a = seq[i];
            if i + 1 < seq.len() {
                if let Some(&(_, s)) = chosen[a as usize].iter().find(|p| p.0 == seq[i + 1]) {
                    out.push(s);
                    i += 2;
                    continue;
                }
            }
            out.push(a);
            i += 1;
        }
        seq = out;
    }
    (seq, g)
}

/// Huffman code lengths, at most `limit` bits (frequencies halved until they fit).
fn code_lengths(freq: &[u64], limit: u32) -> Vec<u32> {
    let mut f: Vec<u64> = freq.to_vec();
    loop {
        let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u64, usize)>> = f
            .iter()
            .enumerate()
            .filter(|(_, &x)| x > 0)
            .map(|(i, &x)| std::cmp::Reverse((x, i)))
            .collect();
        let n = f.len();
        let mut parent = vec![usize::MAX; 2 * n];
        let mut next = n;
        if heap.len() == 1 {
            let mut l = vec![0; n];
            l[heap.pop().unwrap().0 .1] = 1;
            return l;
        }
        while heap.len() > 1 {
            let std::cmp::Reverse((x, i)) = heap.pop().unwrap();
            let std::cmp::Reverse((y, j)) = heap.pop().unwrap();
            parent[i] = next;
            parent[j] = next;
            heap.push(std::cmp::Reverse((x + y, next)));
            next += 1;
        }
        let mut l = vec![0u32; n];
        for (i, li) in l.iter_mut().enumerate() {
            if f[i] == 0 {
                continue;
            }
            let mut p = i;
            while parent[p] != usize::MAX {
                *li += 1;
                p = parent[p];
            }
        }
        if l.iter().all(|&x| x <= limit) {
            return l;
        }
        f.iter_mut()
            .filter(|x| **x > 0)
            .for_each(|x| *x = (*x).div_ceil(2));
    }
}

/// Canonical Huffman codes over the grammar's final sequence, packed into blocks of
/// `block_bytes` bytes holding whole symbols, each block's slot count, and every
/// 2^IDX-th slot's block and place in it.
struct Coded {
    /// Per length 1..=limit: the first code (left-aligned in 64 bits) past this length.
    limit: Vec<u128>,
    first: Vec<u64>,
    offset: Vec<u32>,
    /// Symbols in canonical order.
    sorted: Vec<u16>,
    block_bytes: usize,
    data: Vec<u8>,
    /// Slots each block covers.
    block_slots: Vec<u32>,
    /// Per 2^IDX slots: the block holding its first slot, and that slot's place in it.
    index: Vec<(u32, u32)>,
}

const IDX: u32 = 10;
const DIV: u32 = 8;
const PER_ROUND: usize = 256;
const LIMIT: u32 = 24;

impl Coded {
    fn new(seq: &[u16], g: &Grammar, block_bytes: usize) -> Coded {
        let nsym = g.len.len();
        let mut freq = vec![0u64; nsym];
        seq.iter().for_each(|&s| freq[s as usize] += 1);
        let len = code_lengths(&freq, LIMIT);
        let mut sorted: Vec<u16> = (0..nsym as u16).filter(|&s| len[s as usize] > 0).collect();
        sorted.sort_by_key(|&s| (len[s as usize], s));
        let mut code = vec![0u64; nsym];
        let mut limit = vec![0u128; LIMIT as usize + 2];
        let mut first = vec![0u64; LIMIT as usize + 2];
        let mut offset = vec![0u32; LIMIT as usize + 2];
        let mut c = 0u64;
        let mut k = 0usize;
        for l in 1..=LIMIT {
            first[l as usize] = c;
            offset[l as usize] = k as u32;
            while k < sorted.len() && len[sorted[k] as usize] == l {
                code[sorted[k] as usize] = c;
                c += 1;
                k += 1;
            }
            limit[l as usize] = (c as u128) << (64 - l);
            c <<= 1;
        }
        // Pack whole symbols into blocks.
        let mut data = Vec::new();
        let mut block_slots = Vec::new();
        let mut index = Vec::new();
        let bits = block_bytes * 8;
        let mut blk = vec![0u8; block_bytes];
        let (mut used, mut slots, mut pos) = (0usize, 0u32, 0u64);
        for &s in seq {
            let l = len[s as usize] as usize;
            if used + l > bits {
                data.extend_from_slice(&blk);
                blk.iter_mut().for_each(|b| *b = 0);
                block_slots.push(slots);
                used = 0;
                slots = 0;
            }
            for b in 0..l {
                if code[s as usize] >> (l - 1 - b) & 1 == 1 {
                    blk[(used + b) / 8] |= 0x80 >> ((used + b) % 8);
                }
            }
            used += l;
            let n = g.len[s as usize] as u64;
            // Every index point this symbol covers.
            while (index.len() as u64) << IDX < pos + n {
                let at = (index.len() as u64) << IDX;
                index.push((block_slots.len() as u32, slots + (at - pos) as u32));
            }
            slots += n as u32;
            pos += n;
        }
        data.extend_from_slice(&blk);
        block_slots.push(slots);
        Coded {
            limit,
            first,
            offset,
            sorted,
            block_bytes,
            data,
            block_slots,
            index,
        }
    }

    /// Bytes stored: the blocks, 2 bytes of slot count a block, 6 an index point, 3 a
    /// rule, and a byte a symbol's code length.
    fn bytes(&self, g: &Grammar) -> usize {
        self.data.len()
            + 2 * self.block_slots.len()
            + 6 * self.index.len()
            + 3 * g.rules.len()
            + g.len.len()
    }

    fn at(&self, g: &Grammar, slot: u64) -> u8 {
        let (mut b, mut off) = self.index[(slot >> IDX) as usize];
        off += (slot & ((1 << IDX) - 1)) as u32;
        while off >= self.block_slots[b as usize] {
            off -= self.block_slots[b as usize];
            b += 1;
        }
        let d = &self.data[b as usize * self.block_bytes..][..self.block_bytes];
        let mut bit = 0usize;
        loop {
            // 64 bits from `bit` on, left-aligned (zero past the block).
            let byte = bit / 8;
            let mut w = [0u8; 16];
            let n = (d.len() - byte).min(16);
            w[..n].copy_from_slice(&d[byte..byte + n]);
            let win = u128::from_be_bytes(w) << (bit % 8);
            let win = (win >> 64) as u64;
            let mut l = 1;
            while win as u128 >= self.limit[l] {
                l += 1;
            }
            let c = win >> (64 - l);
            let s = self.sorted[(self.offset[l] as u64 + c - self.first[l]) as usize];
            let n = g.len[s as usize];
            if off < n {
                return g.at(s, off);
            }
            off -= n;
            bit += l;
        }
    }
}

fn rng(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let table = Table::open(std::path::Path::new(&args[1])).unwrap();
    let rules: usize = args.get(2).map_or(4096, |s| s.parse().unwrap());
    let block_bytes: usize = args.get(3).map_or(64, |s| s.parse().unwrap());
    let dtz = table.metric() == Metric::Dtz;
    let level: i32 = args
        .get(4)
        .map_or(if dtz { 15 } else { 14 }, |s| s.parse().unwrap());
    let probes = 1_000_000usize;
    for s in &table.header().sections {
        let records = table.section_records(s).unwrap();
        let v = section_bytes(&table, &records);
        drop(records);
        let n = v.len() as u64;
        println!("section {} ({} slots)", s.name, n);
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let slots: Vec<u64> = (0..probes).map(|_| rng(&mut seed) % n).collect();
        for shift in [12u32, 18] {
            let bs = 1usize << shift;
            let blocks: Vec<Vec<u8>> = v
                .par_chunks(bs)
                .map(|b| zstd::bulk::compress(b, level).unwrap())
                .collect();
            let bytes: usize = blocks.iter().map(|b| b.len() + 13).sum();
            let mut d = zstd::bulk::Decompressor::new().unwrap();
            let mut out = vec![0u8; bs];
            let take = if shift == 18 { probes / 20 } else { probes };
            let t = Instant::now();
            for &slot in &slots[..take] {
                let bi = (slot / bs as u64) as usize;
                d.decompress_to_buffer(&blocks[bi], &mut out).unwrap();
                assert_eq!(out[(slot % bs as u64) as usize], v[slot as usize]);
            }
            let ns = t.elapsed().as_nanos() as f64 / take as f64;
            println!(
                "  zstd {level}, blocks of 2^{shift}: {bytes} bytes ({:.3} bits a slot), {:.0} ns a slot read",
                bytes as f64 * 8.0 / n as f64,
                ns
            );
        }
        let t = Instant::now();
        let (seq, g) = repair(&v, rules, 8);
        let built = t.elapsed();
        let c = Coded::new(&seq, &g, block_bytes);
        let t = Instant::now();
        for &slot in &slots {
            assert_eq!(c.at(&g, slot), v[slot as usize], "slot {slot}");
        }
        let ns = t.elapsed().as_nanos() as f64 / probes as f64;
        let bytes = c.bytes(&g);
        println!(
            "  grammar of {} symbols ({} left, built in {:.1} s), Huffman blocks of {block_bytes} bytes: {bytes} bytes ({:.3} bits a slot), {:.0} ns a slot read",
            g.len.len(),
            seq.len(),
            built.as_secs_f64(),
            bytes as f64 * 8.0 / n as f64,
            ns
        );
    }
}
