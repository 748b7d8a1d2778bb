//! Measuring compression levers on a dense table (not part of the product):
//!
//! `cargo run --release --example compress_lab -- FILE.rtb EVERY SHIFTS VARIANTS OFFSETS`
//! (a DTM or a DTZ table)
//!
//! - `EVERY`: sample every EVERY-th region of 2^20 slots (the same slots for every block
//!   size), projecting the whole table's size from them;
//! - `SHIFTS`: block sizes as powers of two, comma-separated (`16,18`);
//! - `VARIANTS`: comma-separated `FILL:LEVEL[:EXTRA]`, FILL the don't-care fill of illegal
//!   slots (`prev` the value before, `mode` the block's most frequent value, `match`
//!   continuing the longest running match at one of OFFSETS), LEVEL zstd's, EXTRA any of
//!   `r` (values remapped by frequency), `t` (the block transposed as rows of 64), `p021`
//!   (a 64^3 block's axes reordered), `b` (the smaller of index order and 4,096-slot tiles
//!   transposed: format 2's forms), `d` (the previous block as a zstd dictionary); or
//!   `entropy` alone: conditional entropies of the values given neighbours at OFFSETS;
//! - `OFFSETS`: `/`-separated distances (`1/64/4096`).

use rayon::prelude::*;
use retro::game::Value;
use retro::table::Table;

const ILLEGAL: u16 = 256;

fn values(records: &[u8]) -> Vec<u16> {
    records
        .chunks_exact(2)
        .map(|r| {
            let v = Value::from_record(r[0], r[1]);
            if v == Value::Illegal {
                ILLEGAL
            } else {
                v.packed() as u16
            }
        })
        .collect()
}

/// A DTZ table's records as symbols: each code's place among the codes held (at most
/// 256 of them), code 0 illegal.
fn dtz_values(records: &[u8]) -> Vec<u16> {
    let codes: Vec<u16> = records
        .chunks_exact(2)
        .map(|r| u16::from_le_bytes([r[0], r[1]]))
        .collect();
    let mut held = vec![false; 65536];
    codes.iter().for_each(|&c| held[c as usize] = true);
    let mut rank = vec![0u16; 65536];
    let mut n = 0u16;
    for c in 1..65536 {
        if held[c] {
            rank[c] = n;
            n += 1;
        }
    }
    assert!(n <= 256, "{n} values");
    codes
        .iter()
        .map(|&c| if c == 0 { ILLEGAL } else { rank[c as usize] })
        .collect()
}

/// A section's records as symbols, by the table's metric.
fn symbols(table: &Table, records: &[u8]) -> Vec<u16> {
    if table.metric() == retro::table::Metric::Dtz {
        dtz_values(records)
    } else {
        values(records)
    }
}

fn fill_prev(v: &[u16]) -> Vec<u8> {
    let mut prev = Value::Draw.packed();
    v.iter()
        .map(|&x| {
            if x != ILLEGAL {
                prev = x as u8;
            }
            prev
        })
        .collect()
}

fn fill_mode(v: &[u16]) -> Vec<u8> {
    let mut count = [0usize; 256];
    for &x in v {
        if x != ILLEGAL {
            count[x as usize] += 1;
        }
    }
    let mode = (0..256).max_by_key(|&b| count[b]).unwrap() as u8;
    v.iter()
        .map(|&x| if x == ILLEGAL { mode } else { x as u8 })
        .collect()
}

/// At an illegal slot, continue the longest ongoing match among `offsets`.
fn fill_match(v: &[u16], offsets: &[usize]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::with_capacity(v.len());
    let mut run = vec![0usize; offsets.len()];
    let mut prev = Value::Draw.packed();
    for (i, &x) in v.iter().enumerate() {
        let b = if x != ILLEGAL {
            x as u8
        } else {
            let mut best: Option<(usize, usize)> = None;
            for (k, &o) in offsets.iter().enumerate() {
                if i >= o && best.is_none_or(|(r, _)| run[k] > r) {
                    best = Some((run[k], o));
                }
            }
            match best {
                Some((_, o)) => out[i - o],
                None => prev,
            }
        };
        out.push(b);
        prev = b;
        for (k, &o) in offsets.iter().enumerate() {
            if i >= o && out[i] == out[i - o] {
                run[k] += 1;
            } else {
                run[k] = 0;
            }
        }
    }
    out
}

fn remap(b: &[u8]) -> Vec<u8> {
    let mut count = [0usize; 256];
    for &x in b {
        count[x as usize] += 1;
    }
    let mut order: Vec<usize> = (0..256).collect();
    order.sort_by_key(|&s| std::cmp::Reverse(count[s]));
    let mut map = [0u8; 256];
    for (r, &s) in order.iter().enumerate() {
        map[s] = r as u8;
    }
    b.iter().map(|&x| map[x as usize]).collect()
}

fn transpose(b: &[u8], w: usize) -> Vec<u8> {
    if b.len() % w != 0 {
        return b.to_vec();
    }
    let h = b.len() / w;
    let mut out = vec![0; b.len()];
    for r in 0..h {
        for c in 0..w {
            out[c * h + r] = b[r * w + c];
        }
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let table = Table::open(std::path::Path::new(&args[1])).unwrap();
    let every: usize = args[2].parse().unwrap();
    let shifts: Vec<u32> = args
        .get(3)
        .map_or("16", |s| s)
        .split(',')
        .map(|s| s.parse().unwrap())
        .collect();
    let variants: Vec<String> = args
        .get(4)
        .map_or("prev:16", |s| s)
        .split(',')
        .map(String::from)
        .collect();
    let offsets: Vec<usize> = args
        .get(5)
        .map_or("1,64", |s| s)
        .split('/')
        .map(|s| s.parse().unwrap())
        .collect();
    if variants[0] == "entropy" {
        entropy(&table, &offsets);
        return;
    }
    for shift in shifts {
        let bs = 1usize << shift;
        let mut totals = vec![0usize; variants.len()];
        let mut sampled = 0usize;
        let mut all = 0usize;
        for s in &table.header().sections {
            let records = table.section_records(s).unwrap();
            let v = symbols(&table, &records);
            // The same slots whatever the block size: every `every`-th region of 2^20.
            all += v.len();
            let picked: Vec<&[u16]> = v
                .chunks(1 << 20)
                .step_by(every)
                .flat_map(|r| r.chunks(bs))
                .collect();
            sampled += picked.iter().map(|b| b.len()).sum::<usize>();
            let sizes: Vec<Vec<usize>> = (0..picked.len())
                .into_par_iter()
                .map(|bi| {
                    let blk = picked[bi];
                    let before = (bi > 0 && picked[bi - 1].len() == blk.len())
                        .then(|| fill_prev(picked[bi - 1]));
                    variants
                        .iter()
                        .map(|var| {
                            let mut parts = var.split(':');
                            let fill = parts.next().unwrap();
                            let level: i32 = parts.next().unwrap().parse().unwrap();
                            let extra = parts.next().unwrap_or("");
                            let mut b = match fill {
                                "prev" => fill_prev(blk),
                                "mode" => fill_mode(blk),
                                "match" => fill_match(blk, &offsets),
                                _ => panic!("fill {fill}"),
                            };
                            if extra.contains('r') {
                                b = remap(&b);
                            }
                            if let Some(p) = extra.strip_prefix('p') {
                                b = permute(&b, p);
                            }
                            if extra.contains('t') {
                                b = transpose(&b, 64);
                            }
                            if extra.contains('b') {
                                let t = tile_transpose(&b);
                                let x = zstd::bulk::compress(&b, level).unwrap().len();
                                let y = zstd::bulk::compress(&t, level).unwrap().len();
                                return x.min(y);
                            }
                            if extra.contains('d') {
                                if let Some(d) = &before {
                                    let mut c =
                                        zstd::bulk::Compressor::with_dictionary(level, d).unwrap();
                                    return c.compress(&b).unwrap().len();
                                }
                            }
                            zstd::bulk::compress(&b, level).unwrap().len()
                        })
                        .collect()
                })
                .collect();
            let mut sec = vec![0usize; variants.len()];
            for s in sizes {
                for (k, x) in s.into_iter().enumerate() {
                    totals[k] += x;
                    sec[k] += x;
                }
            }
            println!("  section {}: {:?} (sampled bytes)", s.name, sec);
        }
        for (var, t) in variants.iter().zip(&totals) {
            let projected = *t as f64 * all as f64 / sampled as f64;
            println!(
                "block 2^{shift} {var:>14}: sampled {sampled}/{all} slots, projected {:.2} MB, 1/{:.2} of dense",
                projected / 1e6,
                table.file_len() as f64 / projected
            );
        }
    }
}

/// Empirical conditional entropies of the prev-filled values, in bits a slot.
fn entropy(table: &Table, offsets: &[usize]) {
    use std::collections::HashMap;
    let mut h0: HashMap<u8, usize> = HashMap::new();
    let mut h1: HashMap<(u8, u8), usize> = HashMap::new();
    let mut h2: HashMap<(u8, u8, u8), usize> = HashMap::new();
    let mut h3: HashMap<(u8, u8, u8, u8), usize> = HashMap::new();
    let mut n = 0usize;
    let (o1, o2) = (offsets[0], offsets[1]);
    let o3 = *offsets.get(2).unwrap_or(&4096);
    for s in &table.header().sections {
        let records = table.section_records(s).unwrap();
        let b = fill_prev(&symbols(table, &records));
        for i in o3.max(o2).max(o1)..b.len() {
            let (x, l, u, w) = (b[i], b[i - o1], b[i - o2], b[i - o3]);
            *h0.entry(x).or_default() += 1;
            *h1.entry((l, x)).or_default() += 1;
            *h2.entry((l, u, x)).or_default() += 1;
            *h3.entry((l, u, w, x)).or_default() += 1;
            n += 1;
        }
    }
    fn cond<K: std::hash::Hash + Eq + Clone, C: std::hash::Hash + Eq>(
        h: &HashMap<K, usize>,
        ctx: impl Fn(&K) -> C,
        n: usize,
    ) -> (f64, usize) {
        let mut c: HashMap<C, usize> = HashMap::new();
        for (k, &v) in h {
            *c.entry(ctx(k)).or_default() += v;
        }
        let mut e = 0.0;
        for (k, &v) in h {
            let t = c[&ctx(k)] as f64;
            e -= v as f64 * (v as f64 / t).log2();
        }
        (e / n as f64, c.len())
    }
    println!("slots {n}");
    println!("H0 {:?}", cond(&h0, |_| (), n));
    println!("H(x|left) {:?}", cond(&h1, |k| k.0, n));
    println!("H(x|left,up) {:?}", cond(&h2, |k| (k.0, k.1), n));
    println!("H(x|left,up,far) {:?}", cond(&h3, |k| (k.0, k.1, k.2), n));
}

/// A 64x64x64 block with its axes in the order `p` (digits of the source axes, slowest first).
fn permute(b: &[u8], p: &str) -> Vec<u8> {
    if b.len() != 1 << 18 {
        return b.to_vec();
    }
    let p: Vec<usize> = p.bytes().map(|c| (c - b'0') as usize).collect();
    let mut out = Vec::with_capacity(b.len());
    let mut src = [0usize; 3];
    for i in 0..64 {
        for j in 0..64 {
            for k in 0..64 {
                src[p[0]] = i;
                src[p[1]] = j;
                src[p[2]] = k;
                out.push(b[src[0] * 4096 + src[1] * 64 + src[2]]);
            }
        }
    }
    out
}

/// Each 4096-slot tile as a 64x64 matrix, transposed.
fn tile_transpose(b: &[u8]) -> Vec<u8> {
    let mut out = b.to_vec();
    for (t, tile) in b.chunks_exact(4096).enumerate() {
        for r in 0..64 {
            for c in 0..64 {
                out[t * 4096 + c * 64 + r] = tile[r * 64 + c];
            }
        }
    }
    out
}
