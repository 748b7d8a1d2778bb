//! The dense index, reduced by the board's symmetries.
//!
//! Positions are grouped in tiers by stone count `n` (X to move when `n` is even). In a
//! tier, the side to move has `p = n / 2` stones ("me") and the other side `q = n - p`
//! ("them"). A tier is a run of blocks, one per *canonical* `me` set (the smallest of its
//! images under the symmetries); a block holds one slot per `them` set of `q` cells among
//! the `cells - p` cells `me` leaves free, in colex order of those free cells.
//!
//! The canonical form of a position is its smallest image `(me, them)`: `me` canonical,
//! `them` smallest under the symmetries fixing `me`. Slots holding any other `them` are
//! unused, as are slots of positions that cannot occur.
//!
//! After a move the roles swap: the mover's stones (one more) become "them" and the other
//! side's unchanged stones become "me". So the children of every position with a given
//! `them` set all lie in the block of that set in the next tier, which is what makes the tier
//! solver cache-friendly.
//!
//! Section `x` holds the even tiers (X to move), section `o` the odd ones.

use super::board::{Board, Geometry};

/// A canonical stone set and the symmetries fixing it.
#[derive(Clone, Copy, Debug)]
pub struct CanonSet {
    pub mask: u32,
    /// Bit `i` set: symmetry `i` maps the set onto itself (bit 0, the identity, always).
    pub stab: u8,
}

/// One tier: all positions with `n` stones.
#[derive(Clone, Copy, Debug)]
pub struct Tier {
    /// Index of the first slot.
    pub base: u64,
    /// Stones of the side to move.
    pub p: u32,
    /// Stones of the other side.
    pub q: u32,
    /// Slots per block: C(cells - p, q).
    pub block_len: u64,
    /// Number of blocks (canonical `me` sets).
    pub blocks: u64,
}

/// Index tables of one board.
pub struct DenseIndex {
    pub geo: Geometry,
    /// `binom[n][k]` for n, k up to 32.
    pub binom: Vec<[u64; 33]>,
    /// Canonical sets by popcount, sorted.
    pub canon: Vec<Vec<CanonSet>>,
    /// For each canonical mask, its place in `canon[popcount]`; `u32::MAX` otherwise.
    pub block_of: Vec<u32>,
    /// Tiers by stone count, `0..=cells`.
    pub tiers: Vec<Tier>,
    /// Slots in section `x` (X to move) and `o`.
    pub x_len: u64,
    pub o_len: u64,
}

pub fn binomials() -> Vec<[u64; 33]> {
    let mut b = vec![[0u64; 33]; 33];
    for n in 0..33 {
        b[n][0] = 1;
        for k in 1..=n {
            b[n][k] = b[n - 1][k - 1] + b[n - 1][k];
        }
    }
    b
}

/// Slots a table of `cells` cells with `syms` symmetries needs, estimated without building
/// anything (the plain count divided by the number of symmetries).
pub fn estimated_slots(cells: u32, syms: u32) -> f64 {
    let b = binomials();
    let c = cells as usize;
    let plain: f64 = (0..=c)
        .map(|n| b[c][n / 2] as f64 * b[c - n / 2][n - n / 2] as f64)
        .sum();
    plain / syms as f64
}

impl DenseIndex {
    pub fn new(geo: Geometry) -> DenseIndex {
        let binom = binomials();
        let cells = geo.cells as usize;
        let mut canon: Vec<Vec<CanonSet>> = vec![Vec::new(); cells + 1];
        let mut block_of = vec![u32::MAX; 1usize << cells];
        for m in 0..=geo.full {
            let mut stab = 0u8;
            let mut minimal = true;
            for (i, s) in geo.syms.iter().enumerate() {
                let im = s.apply(m);
                if im < m {
                    minimal = false;
                    break;
                }
                if im == m {
                    stab |= 1 << i;
                }
            }
            if minimal {
                let list = &mut canon[m.count_ones() as usize];
                block_of[m as usize] = list.len() as u32;
                list.push(CanonSet { mask: m, stab });
            }
        }
        let mut tiers = Vec::with_capacity(cells + 1);
        let (mut x_len, mut o_len) = (0u64, 0u64);
        for n in 0..=cells {
            let p = n / 2;
            let q = n - p;
            let block_len = binom[cells - p][q];
            let blocks = canon[p].len() as u64;
            let len = block_len * blocks;
            let base = if n % 2 == 0 { &mut x_len } else { &mut o_len };
            tiers.push(Tier {
                base: *base,
                p: p as u32,
                q: q as u32,
                block_len,
                blocks,
            });
            *base += len;
        }
        for t in tiers.iter_mut().skip(1).step_by(2) {
            t.base += x_len;
        }
        DenseIndex {
            geo,
            binom,
            canon,
            block_of,
            tiers,
            x_len,
            o_len,
        }
    }

    /// Colex rank of `them` among the cells `me` leaves free.
    #[inline]
    pub fn rank(&self, me: u32, them: u32) -> u64 {
        let free = !me;
        let mut r = 0;
        let mut i = 1;
        let mut t = them;
        while t != 0 {
            let b = t & t.wrapping_neg();
            r += self.binom[(free & (b - 1)).count_ones() as usize][i];
            i += 1;
            t ^= b;
        }
        r
    }

    /// Inverse of [`DenseIndex::rank`]: the `q` cells of rank `r` among those `me` leaves free.
    pub fn unrank(&self, me: u32, q: u32, mut r: u64) -> u32 {
        let mut free = [0u8; 32];
        let mut nf = 0;
        for c in 0..self.geo.cells {
            if me >> c & 1 == 0 {
                free[nf] = c as u8;
                nf += 1;
            }
        }
        let mut out = 0u32;
        let mut top = nf;
        for i in (1..=q as usize).rev() {
            // The largest p < top with C(p, i) <= r.
            let mut p = top - 1;
            while self.binom[p][i] > r {
                p -= 1;
            }
            r -= self.binom[p][i];
            out |= 1 << free[p];
            top = p;
        }
        out
    }

    /// The canonical image of `(me, them)` and the symmetry reaching it (the first one in
    /// symmetry order, if several do).
    #[inline]
    pub fn canonical_me_them(&self, me: u32, them: u32) -> (u32, u32, usize) {
        let mut best = (me, them, 0usize);
        for (i, s) in self.geo.syms.iter().enumerate().skip(1) {
            let m = s.apply(me);
            if m < best.0 {
                best = (m, s.apply(them), i);
            } else if m == best.0 {
                let t = s.apply(them);
                if t < best.1 {
                    best = (m, t, i);
                }
            }
        }
        best
    }

    /// The slot of `(me, them)` if `me` is canonical and `them` is smallest under the
    /// symmetries fixing `me` (no check is made).
    #[inline]
    pub fn slot_of_canonical(&self, me: u32, them: u32) -> u64 {
        let n = (me | them).count_ones() as usize;
        let t = &self.tiers[n];
        t.base + self.block_of[me as usize] as u64 * t.block_len + self.rank(me, them)
    }

    /// The slot of any position (its canonical form's).
    pub fn slot(&self, b: &Board) -> u64 {
        let (me, them) = b.me_them();
        let (m, t, _) = self.canonical_me_them(me, them);
        self.slot_of_canonical(m, t)
    }

    /// The tier holding `slot`, if any.
    pub fn tier_of(&self, slot: u64) -> Option<usize> {
        let n = if slot < self.x_len {
            (0..self.tiers.len()).step_by(2).rev()
        } else if slot < self.x_len + self.o_len {
            (1..self.tiers.len()).step_by(2).rev()
        } else {
            return None;
        }
        .find(|&n| self.tiers[n].base <= slot)?;
        Some(n)
    }

    /// The canonical `(me, them)` stored in `slot`, if the slot is used (legality aside).
    pub fn slot_me_them(&self, slot: u64) -> Option<(u32, u32)> {
        let n = self.tier_of(slot)?;
        let t = &self.tiers[n];
        let off = slot - t.base;
        let block = off / t.block_len;
        let cs = *self.canon[t.p as usize].get(block as usize)?;
        let them = self.unrank(cs.mask, t.q, off % t.block_len);
        if !self.minimal_under(cs.stab, them) {
            return None;
        }
        Some((cs.mask, them))
    }

    /// True if no symmetry in `stab` maps `m` below itself.
    #[inline]
    pub fn minimal_under(&self, stab: u8, m: u32) -> bool {
        let mut s = stab & !1;
        while s != 0 {
            let i = s.trailing_zeros() as usize;
            if self.geo.syms[i].apply(m) < m {
                return false;
            }
            s &= s - 1;
        }
        true
    }

    /// The smallest image of `m` under the symmetries in `stab`.
    #[inline]
    pub fn min_under(&self, stab: u8, m: u32) -> u32 {
        let mut best = m;
        let mut s = stab & !1;
        while s != 0 {
            let i = s.trailing_zeros() as usize;
            best = best.min(self.geo.syms[i].apply(m));
            s &= s - 1;
        }
        best
    }

    /// Number of symmetries fixing the position `(me, them)`.
    pub fn stabiliser_size(&self, me: u32, them: u32) -> u32 {
        self.geo
            .syms
            .iter()
            .filter(|s| s.apply(me) == me && s.apply(them) == them)
            .count() as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_unrank_roundtrip() {
        let ix = DenseIndex::new(Geometry::new(4, 3, 3));
        let me = 0b0000_1001_0010u32;
        for q in 0..=9u32 {
            let len = ix.binom[9][q as usize];
            for r in 0..len {
                let them = ix.unrank(me, q, r);
                assert_eq!(them & me, 0);
                assert_eq!(them.count_ones(), q);
                assert_eq!(ix.rank(me, them), r);
            }
        }
    }

    #[test]
    fn tic_tac_toe_canonical_sets() {
        let ix = DenseIndex::new(Geometry::new(3, 3, 3));
        // Orbits of cell sets of the 3x3 board under its 8 symmetries, by size.
        let counts: Vec<usize> = ix.canon.iter().map(|c| c.len()).collect();
        assert_eq!(counts, vec![1, 3, 8, 16, 23, 23, 16, 8, 3, 1]);
        assert_eq!(ix.tier_of(0), Some(0));
        assert_eq!(ix.tier_of(ix.x_len), Some(1));
        assert_eq!(ix.tier_of(ix.x_len + ix.o_len), None);
    }
}
