//! The two queues over placements, depth by depth, then (DTM) the draws: the distance and
//! best move (as a [`move_id`]) of every black king square of every placement.
//!
//! Depth k takes the positions lost at k - 1 to the wins at k, then those to the losses at
//! k + 1. DTM's wins are odd and its losses even, so every other depth finds nothing and
//! is skipped; DTZ's captures and zeroing moves restart the count at 1 ply (or 101), so
//! its wins and losses come at any depth. DTZ solves a tier at a time (`zeroing.rs`): a
//! pawn move leaves the tier, for one solved before, and is a win known in advance
//! ([`Scope::exits`]).

use rayon::prelude::*;

use super::placements::{flip, flip_square, move_id, Capture, Dest, Placements, MIN_LEN};
use crate::board::{bb, king_spread, squares, Square, KING};
use crate::material::{Color, Role};
use retro_engine::game::Value;
use retro_engine::progress::Progress;
use retro_engine::solve::{check_layer, SolveError};
use retro_engine::table::metric::{Metric, DTZ_MAX_PLIES};

/// Per placement and black king square (`p * 64 + square`), white to move and black to
/// move: a record (see [`plies`]; 0 for an illegal position or one never reached).
pub struct Records {
    pub white: Vec<u32>,
    pub black: Vec<u32>,
}

impl Records {
    /// The record of placement `p` with the black king on `bk`, `turn` to move.
    #[inline]
    pub fn get(&self, turn: Color, p: usize, bk: Square) -> u32 {
        let side = match turn {
            Color::White => &self.white,
            Color::Black => &self.black,
        };
        side[p * 64 + bk as usize]
    }
}

/// The distance of a record, in plies: white to move wins, black to move loses; `None`
/// for a position never reached (a draw, once the solve is over). A record holds
/// `plies + 1` in its low 16 bits and its best move's id above.
#[inline]
pub fn plies(r: u32) -> Option<u16> {
    (r as u16).checked_sub(1)
}

/// The best move's id of a record (0: none).
#[inline]
pub fn best(r: u32) -> u16 {
    (r >> 16) as u16
}

/// The solve's state: the records and, per placement, the black king squares won for
/// white to move and lost for black to move so far.
pub struct Sets {
    pub rec: Records,
    pub won_w: Vec<u64>,
    pub lost_b: Vec<u64>,
}

/// What one run of the depth loop solves.
pub struct Scope<'a> {
    /// The tier of every placement and the one to solve (`None`: every placement);
    /// the placements of other tiers are left as they are.
    pub tier: Option<(&'a [u8], u8)>,
    /// White's wins by moves out of the tier whose values are known (DTZ's pawn moves
    /// into tiers solved before): at a depth, per placement, the black king squares.
    pub exits: &'a [(u16, Vec<u64>)],
}

impl Scope<'_> {
    #[inline]
    fn holds(&self, p: usize) -> bool {
        self.tier.is_none_or(|(tiers, t)| tiers[p] == t)
    }
}

/// Placements with new losses, per moving man j, as masks over j's square indexed by the
/// placement without j ([`Placements::key`]), so a pull visits only moves into them.
struct Active(Vec<Vec<u64>>);

impl Active {
    fn new(pl: &Placements) -> Active {
        let mut masks = vec![vec![0; pl.len / 64]; pl.roles.len() + 1];
        // The king's: by the pieces' squares alone.
        masks[0] = vec![0; 1 << (6 * pl.roles.len())];
        Active(masks)
    }

    /// No placement marked: no move is pulled.
    fn clear(&mut self) {
        self.0
            .iter_mut()
            .for_each(|a| a.iter_mut().for_each(|m| *m = 0));
    }

    fn set(&mut self, pl: &Placements, lost_new: &[u64]) {
        self.clear();
        // With DTZ a pawn's moves leave the tier: its mask stays empty, so the pulls
        // never list them.
        let moves_within = |j: usize| pl.metric == Metric::Dtm || pl.roles[j - 1] != Role::Pawn;
        let n = pl.roles.len();
        for (p, _) in lost_new.iter().enumerate().filter(|(_, &l)| l != 0) {
            let c = pl.coords(p);
            for (j, a) in self.0.iter_mut().enumerate().skip(1) {
                if moves_within(j) {
                    a[pl.key(p, j)] |= bb(c[j]);
                }
            }
            // A king move out of the region reaches the image of a placement: mark every
            // image, by its pieces' squares, at its king's square.
            for t in 0..pl.symmetries() {
                let d = c.map(|s| flip_square(t, s));
                let key = d[1..=n].iter().fold(0, |k, &s| k * 64 + s as usize);
                self.0[0][key] |= bb(d[0]);
            }
        }
    }
}

/// Captures (of `caps`) whose loss for the taker satisfies `f(plies, 0 a draw)`, as
/// squares.
fn captured(caps: &[Capture; 2], f: impl Fn(u16) -> bool) -> u64 {
    caps.iter()
        .filter(|c| c.sq < 64 && f(c.loses))
        .fold(0, |m, c| m | bb(c.sq))
}

/// Write the record of a distance of `tag - 1` plies (0: a draw) and move `id` for every
/// square of `set` in a row.
#[inline]
fn put(row: &mut [u32], set: u64, tag: u16, id: u16) {
    for s in squares(set) {
        row[s as usize] = tag as u32 | (id as u32) << 16;
    }
}

/// The black king squares of a promotion's groups whose value satisfies `f`.
fn promoted(groups: &[(Value, u64)], f: impl Fn(Value) -> bool) -> u64 {
    groups.iter().filter(|g| f(g.0)).fold(0, |m, g| m | g.1)
}

/// The records with the checkmates (black in check without a move; a capture is a move)
/// as losses in 0 plies: the start of every run.
pub fn start(pl: &Placements) -> Sets {
    let n = pl.len;
    let mut rec = Records {
        white: vec![0; n * 64],
        black: vec![0; n * 64],
    };
    let lost_b: Vec<u64> = pl
        .fixed
        .par_iter()
        .map(|f| f.legal_b & f.attacked & !king_spread(f.legal_w | f.capturable))
        .collect();
    rec.black
        .par_chunks_mut(64)
        .zip(lost_b.par_iter())
        .with_min_len(MIN_LEN)
        .for_each(|(row, &m)| put(row, m, 1, 0));
    Sets {
        rec,
        won_w: vec![0; n],
        lost_b,
    }
}

/// The depths where a value from outside the solve acts (a capture, a promotion, an
/// exit), marked in a vector as long as the last of them.
fn outside_depths(pl: &Placements, scope: &Scope) -> Vec<bool> {
    let mut at = Vec::new();
    let mut mark = |k: usize| {
        if at.len() <= k {
            at.resize(k + 1, false);
        }
        at[k] = true;
    };
    // A capture into a loss at l plies acts at depth l - 1; a promotion to a loss at l
    // wins at l + 1.
    for (_, caps) in pl
        .captures
        .iter()
        .enumerate()
        .filter(|(p, _)| scope.holds(*p))
    {
        for c in caps.iter().filter(|c| c.sq < 64 && c.loses != 0) {
            mark(c.loses as usize - 1);
        }
    }
    for (_, promos) in pl
        .promotions
        .iter()
        .enumerate()
        .filter(|(p, _)| scope.holds(*p))
    {
        for pr in promos {
            for g in &pr.groups {
                if let Value::Loss(l) = g.0 {
                    mark(l as usize + 1);
                }
            }
        }
    }
    for (k, masks) in scope.exits {
        if masks.iter().any(|&m| m != 0) {
            mark(*k as usize);
        }
    }
    at
}

/// Refuse depth k if it found a distance a record cannot hold (DTM: wins at k, losses at
/// k + 1; DTZ: either beyond [`DTZ_MAX_PLIES`], as the restarting solver says).
fn check_depth(metric: Metric, k: u16, any_won: bool, any_lost: bool) -> Result<(), SolveError> {
    match metric {
        Metric::Dtm if k > 0 => check_layer(k - 1, any_won, any_lost),
        Metric::Dtm => Ok(()),
        Metric::Dtz if (any_won || any_lost) && k + 1 > DTZ_MAX_PLIES => {
            Err(SolveError::Game(format!(
                "a distance of {} plies exceeds the DTZ record's {DTZ_MAX_PLIES}",
                k + 1
            )))
        }
        Metric::Dtz => Ok(()),
    }
}

/// Solve the placements of `scope`, depth by depth, from the checkmates among them and the
/// values from outside; returns the longest loss found, in plies.
pub fn run(
    pl: &Placements,
    sets: &mut Sets,
    scope: &Scope,
    progress: &dyn Progress,
) -> Result<u16, SolveError> {
    let n = pl.len;
    let outside = outside_depths(pl, scope);
    let acts = |k: u16| outside.get(k as usize).copied().unwrap_or(false);
    let last = outside.len().saturating_sub(1) as u16;
    // The losses at k - 1, k and k + 1 (by depth mod 3), and whether there are any.
    let mut lost: [Vec<u64>; 3] = std::array::from_fn(|_| vec![0u64; n]);
    lost[0]
        .par_iter_mut()
        .zip(sets.lost_b.par_iter())
        .enumerate()
        .with_min_len(MIN_LEN)
        .for_each(|(p, (l, &mates))| *l = if scope.holds(p) { mates } else { 0 });
    let mut any = [lost[0].iter().any(|&l| l != 0), false, false];
    let mut deepest = 0;
    let mut act = Active::new(pl);
    let mut k: u16 = 0;
    loop {
        let (prev, next) = ((k as usize + 2) % 3, (k as usize + 1) % 3);
        let (any_won, any_lost) = if any[prev] || acts(k) {
            if any[prev] {
                act.set(pl, &lost[prev]);
            } else {
                act.clear();
            }
            let [l0, l1, l2] = &mut lost;
            let (lost_cur, lost_next) = match k % 3 {
                0 => (&*l2, l1),
                1 => (&*l0, l2),
                _ => (&*l1, l0),
            };
            depth(pl, sets, scope, &act, k, lost_cur, lost_next)
        } else {
            lost[next].iter_mut().for_each(|l| *l = 0);
            (false, false)
        };
        any[next] = any_lost;
        if any_lost {
            deepest = k + 1;
        }
        progress.advance(1);
        check_depth(pl.metric, k, any_won, any_lost)?;
        if k >= last && !any[k as usize % 3] && !any[next] {
            return Ok(deepest);
        }
        k += 1;
    }
}

/// Depth k: the wins at k from the losses at k - 1 (`lost_cur`) and the values from
/// outside, then the losses at k + 1 (into `lost_next`). Returns whether it found any of
/// each.
fn depth(
    pl: &Placements,
    sets: &mut Sets,
    scope: &Scope,
    act: &Active,
    k: u16,
    lost_cur: &[u64],
    lost_next: &mut [u64],
) -> (bool, bool) {
    let fix = &pl.fixed;
    let win = k + 1;
    let lose = k + 2;
    // One pass; each placement is written by its own task only.
    sets.won_w
        .par_iter_mut()
        .zip(sets.lost_b.par_iter_mut())
        .zip(lost_next.par_iter_mut())
        .zip(
            sets.rec
                .white
                .par_chunks_mut(64)
                .zip(sets.rec.black.par_chunks_mut(64)),
        )
        .enumerate()
        .with_min_len(MIN_LEN)
        .map(|(p, (((won, lost), next), (wrow, brow)))| {
            *next = 0;
            let f = &fix[p];
            if f.legal_b == 0 || !scope.holds(p) {
                return (false, false);
            }
            // Lost at k - 1 → won at k: pull over this placement's white moves; the
            // first move reaching a square is its best move.
            let open = f.legal_w & !*won;
            let mut acc = 0u64;
            if open != 0 {
                let gate = |j: usize, key: usize| act.0[j][key];
                pl.white_moves(p, gate, |id, dest| {
                    let to = match dest {
                        Dest::Table(q, t, allow) => flip(t, lost_cur[q]) & allow,
                        Dest::Promotion(pr) => {
                            promoted(&pr.groups, |v| matches!(v, Value::Loss(l) if l + 1 == k))
                        }
                        // Known in advance: the exits below.
                        Dest::Zeroing(..) => 0,
                    };
                    let hit = to & open & !acc;
                    if hit != 0 {
                        put(wrow, hit, win, id);
                        acc |= hit;
                    }
                });
                for (_, masks) in scope.exits.iter().filter(|e| e.0 == k) {
                    // DTZ stores no move: none is recorded.
                    let hit = masks[p] & open & !acc;
                    put(wrow, hit, win, 0);
                    acc |= hit;
                }
                *won |= acc;
            }
            let caps = &pl.captures[p];
            let cap_new = captured(caps, |l| l == k + 1);
            if acc == 0 && cap_new == 0 {
                return (false, false);
            }
            // Won at k → lost at k + 1: black's moves stay in this placement or take a
            // piece.
            let cap_won = captured(caps, |l| l != 0 && l <= k + 1);
            let bad = (f.legal_w & !*won) | (f.capturable & !cap_won);
            let fresh =
                f.legal_b & king_spread(f.legal_w | f.capturable) & !king_spread(bad) & !*lost;
            for s in squares(fresh) {
                // The first move to a square won at exactly k (or a capture losing at
                // exactly k + 1).
                let to = (KING[s as usize] & (acc | cap_new)).trailing_zeros() as u8;
                put(brow, bb(s), lose, move_id(0, 0, to));
            }
            *lost |= fresh;
            *next = fresh;
            (acc != 0, fresh != 0)
        })
        .reduce(|| (false, false), |a, b| (a.0 || b.0, a.1 || b.1))
}

/// The DTM solve: one run over every placement, then the draws' best moves.
pub fn solve(pl: &Placements, progress: &dyn Progress) -> Result<Records, SolveError> {
    let mut sets = start(pl);
    progress.phase("retrograde", 0);
    run(
        pl,
        &mut sets,
        &Scope {
            tier: None,
            exits: &[],
        },
        progress,
    )?;
    draws(pl, &sets.won_w, &sets.lost_b, &mut sets.rec);
    Ok(sets.rec)
}

/// The distance part of a draw's record: that of a position never reached.
const DRAWN: u16 = 0;

/// Whatever was never reached is a draw. Best move: the first move to a draw (for black,
/// a capture into a drawn sub-table counts); a stalemate has none.
fn draws(pl: &Placements, won_w: &[u64], lost_b: &[u64], rec: &mut Records) {
    let fix = &pl.fixed;
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
                            Dest::Zeroing(..) => unreachable!("DTM: pawn moves stay in the table"),
                        };
                        let hit = to & open & !acc;
                        if hit != 0 {
                            put(wrow, hit, DRAWN, id);
                            acc |= hit;
                        }
                    },
                );
                put(wrow, open & !acc, DRAWN, 0);
            }
            let open = f.legal_b & !lost_b[p];
            let drawn_to = (f.legal_w & !won_w[p]) | captured(&pl.captures[p], |l| l == 0);
            for s in squares(open) {
                let t = KING[s as usize] & drawn_to;
                let id = if t == 0 {
                    0
                } else {
                    move_id(0, 0, t.trailing_zeros() as u8)
                };
                put(brow, bb(s), DRAWN, id);
            }
        });
}
