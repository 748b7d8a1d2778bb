//! The fast solver: tier by tier, full boards first, each tier in parallel. Stones only
//! grow, so a position's value is simply the best over its children, all solved already; no
//! retrograde queues are needed.
//!
//! For tier `n`, the work is split by the canonical set `T` of the side *not* to move: the
//! children `(T, me + c)` of every position `(me, T)` all lie in the block of `T` in tier
//! `n + 1` (at most C(20, 10) records, cache-resident). Each position class is visited once,
//! as `(me, T)` with `me` smallest under the symmetries fixing `T`, and its record is written
//! to the slot of its canonical form, with the best move chosen exactly as the generic
//! solver does (the first move, in the canonical frame's cell order, reaching the value), so
//! the output is byte-identical to [`retro_engine::solve::two_queue::solve`].

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

use crate::game::Mnk;
use retro_engine::game::{Solution, SolveOptions, Value, NO_MOVE};
use retro_engine::solve::{prefetch, SolveError};

/// Solve every position of `game`.
pub fn solve(game: &Mnk, opts: &SolveOptions) -> Result<Solution, SolveError> {
    let ix = game.index();
    let g = &ix.geo;
    let cells = g.cells as usize;
    let mut sol = Solution::new(ix.x_len + ix.o_len);
    let work: u64 = (0..=cells)
        .map(|n| {
            let (p, q) = (n / 2, n - n / 2);
            ix.canon[q].len() as u64 * ix.binom[cells - q][p]
        })
        .sum();
    opts.progress.phase("tiers", work);
    let (xs, os) = sol.records.split_at_mut(ix.x_len as usize * 2);
    for n in (0..=cells).rev() {
        let t = ix.tiers[n];
        let (cur, next) = if n % 2 == 0 {
            (&mut *xs, &*os)
        } else {
            (&mut *os, &*xs)
        };
        let cur_start = (t.base - if n % 2 == 0 { 0 } else { ix.x_len }) as usize;
        let cur = &mut cur[cur_start * 2..(cur_start + (t.blocks * t.block_len) as usize) * 2];
        // SAFETY: AtomicU8 has the size and alignment of u8, and `cur` is borrowed mutably
        // for as long as this view lives, so nothing else accesses these bytes.
        let cur: &[AtomicU8] = unsafe { &*(cur as *mut [u8] as *const [AtomicU8]) };
        let child: &[u8] = if n < cells {
            let ct = ix.tiers[n + 1];
            let s = (ct.base - if n % 2 == 1 { 0 } else { ix.x_len }) as usize;
            &next[s * 2..(s + (ct.blocks * ct.block_len) as usize) * 2]
        } else {
            &[]
        };
        let q = t.q as usize;
        ix.canon[q].par_iter().enumerate().for_each(|(blk, cs)| {
            solve_block(game, n, blk, cs.mask, cs.stab, cur, child);
            opts.progress.advance(ix.binom[cells - q][t.p as usize]);
        });
    }
    Ok(sol)
}

/// All positions `(me, them)` of tier `n` with `them` = the canonical set `them` (number
/// `blk` in its list).
fn solve_block(
    game: &Mnk,
    n: usize,
    blk: usize,
    them: u32,
    stab: u8,
    cur: &[AtomicU8],
    child: &[u8],
) {
    let ix = game.index();
    let g = &ix.geo;
    let t = ix.tiers[n];
    let core = g.line_core(them);
    if core == Some(0) {
        return; // them's lines share no stone: no position here can occur
    }
    let over = core.is_some() || n == g.cells as usize;
    let free = g.full & !them;
    let mut fc = [0u8; 32];
    let mut nf = 0usize;
    for c in 0..g.cells {
        if free >> c & 1 == 1 {
            fc[nf] = c as u8;
            nf += 1;
        }
    }
    let p = t.p as usize;
    let child_base = if over {
        0
    } else {
        blk * ix.tiers[n + 1].block_len as usize
    };
    let binom = &ix.binom;
    let trivial = stab == 1;
    // Compressed subsets of size p of the nf free cells, in increasing order (Gosper).
    let count = binom[nf][p];
    let mut cm: u32 = if p == 0 { 0 } else { (1u32 << p) - 1 };
    let mut pos = [0usize; 32];
    let mut pre = [0u64; 33];
    let mut suf = [0u64; 33];
    for _ in 0..count {
        let this = cm;
        if p > 0 {
            // Next subset with the same popcount.
            let c = cm & cm.wrapping_neg();
            let r = cm.wrapping_add(c);
            cm = (((r ^ cm) >> 2) / c) | r;
        }
        let mut me = 0u32;
        let mut k = 0;
        let mut b = this;
        while b != 0 {
            let i = b.trailing_zeros() as usize;
            me |= 1 << fc[i];
            pos[k] = i;
            k += 1;
            b &= b - 1;
        }
        if !trivial && !ix.minimal_under(stab, me) {
            continue;
        }
        if g.has_line(me) {
            continue;
        }
        let (cme, cthem, gi) = ix.canonical_me_them(me, them);
        let slot = (ix.slot_of_canonical(cme, cthem) - t.base) as usize;
        // The record about to be written: its miss overlaps the work on the children.
        prefetch(&cur[slot * 2]);
        let (value, mv) = if core.is_some() {
            (Value::Loss(0), NO_MOVE)
        } else if over {
            (Value::Draw, NO_MOVE)
        } else {
            // Colex rank of `this` plus one more bit: prefix and suffix sums.
            if trivial {
                for j in 0..p {
                    pre[j + 1] = pre[j] + binom[pos[j]][j + 1];
                }
                suf[p] = 0;
                for j in (0..p).rev() {
                    suf[j] = suf[j + 1] + binom[pos[j]][j + 2];
                }
            }
            let perm = &g.syms[gi].perm;
            let mut best_key = (u8::MAX, u16::MAX);
            let mut best_val = Value::Illegal;
            let mut best_cell = u8::MAX;
            let mut below = 0usize;
            for (c, &cell) in fc.iter().enumerate().take(nf) {
                if this >> c & 1 == 1 {
                    below += 1;
                    continue;
                }
                let rank = if trivial {
                    pre[below] + binom[c][below + 1] + suf[below]
                } else {
                    ix.rank(them, ix.min_under(stab, me | 1 << cell))
                } as usize;
                let at = (child_base + rank) * 2;
                let v = Value::from_record(child[at], child[at + 1]);
                let key = v.move_rank();
                let mapped = perm[cell as usize];
                if key < best_key || (key == best_key && mapped < best_cell) {
                    best_key = key;
                    best_val = v;
                    best_cell = mapped;
                }
            }
            (best_val.back(), best_cell + 1)
        };
        // Bounds check once, then both bytes.
        let rec = &cur[slot * 2..slot * 2 + 2];
        rec[0].store(value.to_byte(), Relaxed);
        rec[1].store(mv, Relaxed);
    }
}
