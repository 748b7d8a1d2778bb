//! The stored table, slot by slot, from the records of the placements: each stored
//! position is one placement and black king square (no symmetry is applied), and its move
//! byte is the rank of the recorded move among the position's legal moves, counted with
//! popcounts.

use rayon::prelude::*;

use super::placements::{attacks, Placements};
use super::retrograde::{best, plies, Records};
use crate::indexing::index::Layout;
use crate::rules::board::{bb, rank, Square, KING};
use crate::rules::material::{Color, Role};
use retro_engine::game::{Index, Solution, Value, NO_MOVE};
use retro_engine::progress::Progress;

/// Slots per parallel work item.
const CHUNK: usize = 1 << 12;

pub fn fill(layout: &Layout, pl: &Placements, rec: &Records, progress: &dyn Progress) -> Solution {
    let n = 2 * layout.section;
    progress.phase("best moves", n);
    let mut sol = Solution::new(n);
    sol.records
        .par_chunks_mut(CHUNK * 2)
        .enumerate()
        .for_each(|(k, out)| {
            let lo = (k * CHUNK) as Index;
            for (i, r) in out.chunks_exact_mut(2).enumerate() {
                let [v, m] = slot(layout, pl, rec, lo + i as Index);
                r[0] = v;
                r[1] = m;
            }
            progress.advance(out.len() as u64 / 2);
        });
    sol
}

/// Where slot `i` is in the records: its side to move, the squares of its white men
/// (`[white king, piece 1, piece 2]`), its placement and its black king square; `None`
/// for a slot that holds no position (illegal, or not the canonical image).
pub fn stored(
    layout: &Layout,
    pl: &Placements,
    i: Index,
) -> Option<(Color, [Square; 3], usize, Square)> {
    let (turn, wk, bk, sq) = layout.squares_of(i).expect("a slot");
    let c = [wk, sq[0], sq[1]];
    let p = pl.place(&c);
    let f = &pl.fixed[p];
    let legal = match turn {
        Color::White => f.legal_w,
        Color::Black => f.legal_b,
    };
    if legal & bb(bk) == 0 || (pl.twins && sq[0] > sq[1]) {
        return None;
    }
    // A king pair with a symmetry of its own (both kings on the long diagonal): only the
    // index tells whether the slot holds the canonical image.
    if !layout.kings_fix_orientation(wk, bk) && layout.decode(i).is_none() {
        return None;
    }
    Some((turn, c, p, bk))
}

/// The value of a stored position's record (of side `turn`): white to move wins or
/// draws, black to move loses or draws.
pub fn value(turn: Color, r: u32) -> Value {
    match (turn, plies(r)) {
        (_, None) => Value::Draw,
        (Color::White, Some(d)) => Value::Win(d),
        (Color::Black, Some(d)) => Value::Loss(d),
    }
}

/// The record `[value, move]` of slot `i`.
fn slot(layout: &Layout, pl: &Placements, rec: &Records, i: Index) -> [u8; 2] {
    let Some((turn, c, p, bk)) = stored(layout, pl, i) else {
        return [0, NO_MOVE];
    };
    let f = &pl.fixed[p];
    let r = rec.get(turn, p, bk);
    let v = value(turn, r).to_byte();
    let id = best(r);
    if id == 0 {
        return [v, NO_MOVE];
    }
    let to = (id & 63) as Square;
    let mv = match turn {
        Color::Black => {
            let dests = KING[bk as usize] & (f.legal_w | f.capturable);
            1 + (dests & (bb(to) - 1)).count_ones()
        }
        Color::White => white_rank(pl, &c, bk, id),
    };
    [v, mv as u8]
}

/// The 1-based rank of move `id` among the legal moves of placement `c` with the black
/// king on `bk`, white to move (order: `crate::rules::moves::legal_moves`).
fn white_rank(pl: &Placements, c: &[Square; 3], bk: Square, id: u16) -> u32 {
    let mover = (id >> 9 & 0x3f) as usize;
    let promotion = (id >> 6 & 7) as u32;
    let to = (id & 63) as Square;
    let below = bb(to) - 1;
    let own = pl.occupancy(c);
    let occ = own | bb(bk);
    let kings = KING[c[0] as usize] & !own & !KING[bk as usize];
    if mover == 0 {
        return 1 + (kings & below).count_ones();
    }
    let mut before = kings.count_ones();
    let (order, n) = pl.order(c);
    for &j in &order[..n] {
        let (role, from) = (pl.roles[j - 1], c[j]);
        if role == Role::Pawn {
            let one = from + 8;
            let (pushes, steps) = if occ & bb(one) != 0 {
                (0, 0)
            } else if rank(one) == 7 {
                (4, 0)
            } else {
                (1, (rank(from) == 1 && occ & bb(one + 8) == 0) as u32)
            };
            if j == mover {
                // Promotions count from queen (1); a double step comes after the push.
                return before
                    + 1
                    + if promotion > 0 {
                        promotion - 1
                    } else {
                        (to != one) as u32
                    };
            }
            before += pushes + steps;
            continue;
        }
        // A legal position: no white piece attacks the black king, which only blocks.
        let dests = attacks(role, from, occ) & !own;
        if j == mover {
            return before + 1 + (dests & below).count_ones();
        }
        before += dests.count_ones();
    }
    unreachable!("the recorded move is a move of the placement")
}
