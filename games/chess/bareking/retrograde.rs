//! The two queues over placements, depth by depth, then the draws: the value and best
//! move (as a [`move_id`]) of every black king square of every placement.

use rayon::prelude::*;

use super::placements::{flip, move_id, Capture, Dest, Placements, MIN_LEN};
use crate::chess::board::{bb, king_spread, squares, KING};
use crate::game::Value;
use crate::progress::Progress;
use crate::solve::{check_layer, SolveError};

/// Per placement and black king square (`p * 64 + square`), white to move and black to
/// move: the record's value byte | the best move's id << 8 (0 for an illegal position).
pub struct Records {
    pub white: Vec<u32>,
    pub black: Vec<u32>,
}

/// Placements with new losses, per moving man j, as masks over j's square indexed by the
/// placement without j ([`Placements::key`]), so a pull visits only moves into them.
struct Active(Vec<Vec<u64>>);

impl Active {
    fn new(pl: &Placements) -> Active {
        // Index 0 (king moves) stays empty: they are not gated.
        Active(vec![vec![0; pl.len / 64]; pl.roles.len() + 1])
    }

    fn set(&mut self, pl: &Placements, lost_new: &[u64]) {
        self.0
            .iter_mut()
            .for_each(|a| a.iter_mut().for_each(|m| *m = 0));
        for (p, _) in lost_new.iter().enumerate().filter(|(_, &l)| l != 0) {
            let c = pl.coords(p);
            for (j, a) in self.0.iter_mut().enumerate().skip(1) {
                a[pl.key(p, j)] |= bb(c[j]);
            }
        }
    }
}

/// Captures (of `caps`) whose value satisfies `f(win plies, 0 a draw)`, as squares.
fn captured(caps: &[Capture; 2], f: impl Fn(u16) -> bool) -> u64 {
    caps.iter()
        .filter(|c| c.sq < 64 && f(c.win))
        .fold(0, |m, c| m | bb(c.sq))
}

/// Write `value | id << 8` for every square of `set` in a row.
#[inline]
fn put(row: &mut [u32], set: u64, value: u8, id: u16) {
    for s in squares(set) {
        row[s as usize] = value as u32 | (id as u32) << 8;
    }
}

/// The black king squares of a promotion's groups whose value satisfies `f`.
fn promoted(groups: &[(Value, u64)], f: impl Fn(Value) -> bool) -> u64 {
    groups.iter().filter(|g| f(g.0)).fold(0, |m, g| m | g.1)
}

pub fn solve(pl: &Placements, progress: &dyn Progress) -> Result<Records, SolveError> {
    let n = pl.len;
    let fix = &pl.fixed;
    let mut rec = Records {
        white: vec![0; n * 64],
        black: vec![0; n * 64],
    };
    // Checkmates: black in check without a move (a capture is a move).
    let mut lost_b: Vec<u64> = fix
        .par_iter()
        .map(|f| f.legal_b & f.attacked & !king_spread(f.legal_w | f.capturable))
        .collect();
    rec.black
        .par_chunks_mut(64)
        .zip(lost_b.par_iter())
        .with_min_len(MIN_LEN)
        .for_each(|(row, &m)| put(row, m, Value::Loss(0).to_byte(), 0));
    // The last depth at which a value from outside the table still acts: a promotion to a
    // loss at d wins at d + 1, a capture into a win in w plies loses at w + 1.
    let mut last = 0usize;
    for caps in &pl.captures {
        for c in caps.iter().filter(|c| c.sq < 64) {
            last = last.max(c.win as usize);
        }
    }
    for promos in &pl.promotions {
        for pr in promos {
            for g in &pr.groups {
                if let Value::Loss(l) = g.0 {
                    last = last.max(l as usize + 1);
                }
            }
        }
    }

    progress.phase("retrograde", 0);
    let mut lost_cur = lost_b.clone();
    let mut lost_next = vec![0u64; n];
    let mut won_w = vec![0u64; n];
    let mut act = Active::new(pl);
    let mut d: u16 = 0;
    loop {
        act.set(pl, &lost_cur);
        let win = Value::Win(d + 1).to_byte();
        let lose = Value::Loss(d + 2).to_byte();
        let dd = d;
        // One pass per depth; each placement is written by its own task only.
        let (any_won, any_lost) = won_w
            .par_iter_mut()
            .zip(lost_b.par_iter_mut())
            .zip(lost_next.par_iter_mut())
            .zip(
                rec.white
                    .par_chunks_mut(64)
                    .zip(rec.black.par_chunks_mut(64)),
            )
            .enumerate()
            .with_min_len(MIN_LEN)
            .map(|(p, (((won, lost), next), (wrow, brow)))| {
                *next = 0;
                let f = &fix[p];
                if f.legal_b == 0 {
                    return (false, false);
                }
                // Lost at d → won at d + 1: pull over this placement's white moves; the
                // first move reaching a square is its best move.
                let open = f.legal_w & !*won;
                let mut acc = 0u64;
                if open != 0 {
                    let gate = |j: usize, key: usize| act.0[j][key];
                    pl.white_moves(p, gate, |id, dest| {
                        let to = match dest {
                            Dest::Table(q, t, allow) => flip(t, lost_cur[q]) & allow,
                            Dest::Promotion(pr) => promoted(&pr.groups, |v| v == Value::Loss(dd)),
                        };
                        let hit = to & open & !acc;
                        if hit != 0 {
                            put(wrow, hit, win, id);
                            acc |= hit;
                        }
                    });
                    *won |= acc;
                }
                let caps = &pl.captures[p];
                let cap_new = captured(caps, |w| w == dd + 1);
                if acc == 0 && cap_new == 0 {
                    return (false, false);
                }
                // Won at d + 1 → lost at d + 2: black's moves stay in this placement or
                // take a piece.
                let cap_won = captured(caps, |w| w != 0 && w <= dd + 1);
                let bad = (f.legal_w & !*won) | (f.capturable & !cap_won);
                let fresh =
                    f.legal_b & king_spread(f.legal_w | f.capturable) & !king_spread(bad) & !*lost;
                for s in squares(fresh) {
                    // The first move to a square won at exactly d + 1.
                    let to = (KING[s as usize] & (acc | cap_new)).trailing_zeros() as u8;
                    put(brow, bb(s), lose, move_id(0, 0, to));
                }
                *lost |= fresh;
                *next = fresh;
                (acc != 0, fresh != 0)
            })
            .reduce(|| (false, false), |a, b| (a.0 || b.0, a.1 || b.1));
        progress.advance(1);
        check_layer(d, any_won, any_lost)?;
        if !any_lost && d as usize + 2 > last {
            break;
        }
        std::mem::swap(&mut lost_cur, &mut lost_next);
        d += 2;
    }
    drop((lost_cur, lost_next, act));
    draws(pl, &won_w, &lost_b, &mut rec);
    Ok(rec)
}

/// Whatever was never reached is a draw. Best move: the first move to a draw (for black,
/// a capture into a drawn sub-table counts); a stalemate has none.
fn draws(pl: &Placements, won_w: &[u64], lost_b: &[u64], rec: &mut Records) {
    let fix = &pl.fixed;
    let draw = Value::Draw.to_byte();
    rec.white
        .par_chunks_mut(64)
        .zip(rec.black.par_chunks_mut(64))
        .enumerate()
        .with_min_len(MIN_LEN)
        .for_each(|(p, (wrow, brow))| {
            let f = &fix[p];
            let open = f.legal_w & !won_w[p];
            if open != 0 {
                let mut acc = 0u64;
                pl.white_moves(
                    p,
                    |_, _| !0,
                    |id, dest| {
                        let to = match dest {
                            Dest::Table(q, t, allow) => {
                                flip(t, fix[q].legal_b & !lost_b[q]) & allow
                            }
                            Dest::Promotion(pr) => promoted(&pr.groups, |v| v == Value::Draw),
                        };
                        let hit = to & open & !acc;
                        if hit != 0 {
                            put(wrow, hit, draw, id);
                            acc |= hit;
                        }
                    },
                );
                put(wrow, open & !acc, draw, 0);
            }
            let open = f.legal_b & !lost_b[p];
            let drawn_to = (f.legal_w & !won_w[p]) | captured(&pl.captures[p], |w| w == 0);
            for s in squares(open) {
                let t = KING[s as usize] & drawn_to;
                let id = if t == 0 {
                    0
                } else {
                    move_id(0, 0, t.trailing_zeros() as u8)
                };
                put(brow, bb(s), draw, id);
            }
        });
}
