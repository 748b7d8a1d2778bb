//! The two queues over placements, depth by depth, then (DTM) the draws: the distance and
//! best move of every black king square of every placement.
//!
//! Depth k takes the positions lost at k - 1 to the wins at k, then those to the losses at
//! k + 1. DTM's wins are odd and its losses even, so every other depth finds nothing and
//! is skipped; DTZ's captures and zeroing moves restart the count at 1 ply (or 101), so
//! its wins and losses come at any depth. DTZ solves a tier at a time (`zeroing.rs`): a
//! pawn move leaves the tier, for one solved before, and is a win known in advance
//! ([`Scope::exits`]).
//!
//! The passes are generic over the placements ([`Geometry`]: how they are numbered, what
//! is fixed for each, white's moves in move order) and over where the records go
//! ([`Store`]): the chess tables' [`Placements`] and [`Records`] (a distance and a
//! [`move_id`] per square, turned into the table by `fill.rs`), and the `kbnk` table's
//! own index and move byte, whose records are written straight into its table.

use rayon::prelude::*;

use super::placements::{
    flip, flip_square, move_id, Capture, Dest, Fixed, Placements, Promotion, MIN_LEN,
};
use crate::rules::board::{bb, king_spread, squares, Square, KING};
use crate::rules::material::{Color, Role};
use retro_engine::game::Value;
use retro_engine::progress::Progress;
use retro_engine::solve::huge::advise_huge;
use retro_engine::solve::{check_layer, SolveError};
use retro_engine::table::metric::{Metric, DTZ_MAX_PLIES};

/// What the passes need of the placements they solve. Every placement is written by the
/// task that handles it only, so an implementation's moves and gates must be the same
/// whatever the thread count (they are: pure functions of the placement).
pub trait Geometry: Sync {
    /// A move as the records hold it (chess: the solve's move id, `placements::move_id`;
    /// kbnk: the seed's move byte).
    type Id: Copy + Send + Sync;
    /// No move.
    const NO_MOVE: Self::Id;
    /// The number of placements.
    fn placements(&self) -> usize;
    /// What does not change during the solve, per placement.
    fn fixed(&self) -> &[Fixed];
    /// The captures of placement `p` that do not draw; a capturable piece not listed
    /// draws when taken.
    fn captures(&self, p: usize) -> &[Capture; 2];
    /// The promotions of placement `p`, in move order.
    fn promotions(&self, p: usize) -> &[Promotion];
    /// What the solve counts.
    fn metric(&self) -> Metric;
    /// The black king's move to `to`.
    fn king_move(&self, to: Square) -> Self::Id;
    /// Calls `f(move, where it leads)` for every white move of placement `p` in move
    /// order, skipping in-table moves of man j (0 the king) to squares outside
    /// `gate(j, key)`, `key` one of the gate's indices ([`Geometry::gates`]). Moves are
    /// pseudo-legal: [`Dest::Table`]'s allow mask and the target's legal black king
    /// squares decide for which black king squares they are legal.
    fn white_moves(
        &self,
        p: usize,
        gate: impl Fn(usize, usize) -> u64,
        f: impl FnMut(Self::Id, Dest),
    );
    /// The number of masks of each man's gate (0 the king).
    fn gates(&self) -> Vec<usize>;
    /// Open the gates for the white moves into placement `p` (it has new losses): in
    /// each man's gate, the bit of its square at the key of the placements it moves from.
    fn mark(&self, p: usize, gates: &mut [Vec<u64>]);
}

/// Where the passes write their records: per placement a row of `64 * WIDTH` cells, one
/// record per black king square, white to move and black to move.
pub trait Store<Id>: Send {
    /// The unit of a row.
    type Cell: Send + Sync;
    /// Cells per black king square.
    const WIDTH: usize;
    /// A record's distance part.
    type Tag: Copy + Send + Sync;
    /// The tag of a draw.
    fn drawn() -> Self::Tag;
    /// The tag of a position, white to move, won in `plies`.
    fn won(plies: u16) -> Self::Tag;
    /// The tag of a position, black to move, lost in `plies`.
    fn lost(plies: u16) -> Self::Tag;
    /// Write the record `(tag, move)` of black king square `s` in a row.
    fn put(row: &mut [Self::Cell], s: Square, tag: Self::Tag, id: Id);
    /// The rows of every placement, white to move and black to move.
    fn sides(&mut self) -> (&mut [Self::Cell], &mut [Self::Cell]);
}

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

    /// Records of `n` placements, none reached yet.
    pub fn new(n: usize) -> Records {
        let side = || {
            let mut s = vec![0; n * 64];
            // Read and written at random.
            advise_huge(&mut s);
            s
        };
        Records {
            white: side(),
            black: side(),
        }
    }
}

/// A record holds `plies + 1` (0: a draw) in its low 16 bits and the move's id above.
impl Store<u16> for Records {
    type Cell = u32;
    const WIDTH: usize = 1;
    type Tag = u16;
    /// As a position never reached.
    #[inline]
    fn drawn() -> u16 {
        0
    }
    #[inline]
    fn won(plies: u16) -> u16 {
        plies + 1
    }
    #[inline]
    fn lost(plies: u16) -> u16 {
        plies + 1
    }
    #[inline]
    fn put(row: &mut [u32], s: Square, tag: u16, id: u16) {
        row[s as usize] = tag as u32 | (id as u32) << 16;
    }
    fn sides(&mut self) -> (&mut [u32], &mut [u32]) {
        (&mut self.white, &mut self.black)
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
pub struct Sets<S = Records> {
    pub rec: S,
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
    /// Every placement, nothing known from outside.
    pub const ALL: Scope<'static> = Scope {
        tier: None,
        exits: &[],
    };

    #[inline]
    fn holds(&self, p: usize) -> bool {
        self.tier.is_none_or(|(tiers, t)| tiers[p] == t)
    }
}

/// Placements with new losses, per moving man j, as masks over j's square indexed by
/// keys of the geometry's own ([`Geometry::gates`]; chess: the placement without j,
/// [`Placements::key`]), so a pull visits only moves into them.
struct Active(Vec<Vec<u64>>);

impl Active {
    fn new(pl: &impl Geometry) -> Active {
        Active(pl.gates().into_iter().map(|n| vec![0; n]).collect())
    }

    /// No placement marked: no move is pulled.
    fn clear(&mut self) {
        self.0
            .iter_mut()
            .for_each(|a| a.iter_mut().for_each(|m| *m = 0));
    }

    fn set(&mut self, pl: &impl Geometry, lost_new: &[u64]) {
        self.clear();
        for (p, _) in lost_new.iter().enumerate().filter(|(_, &l)| l != 0) {
            pl.mark(p, &mut self.0);
        }
    }
}

impl Geometry for Placements {
    type Id = u16;
    const NO_MOVE: u16 = 0;

    #[inline]
    fn placements(&self) -> usize {
        self.len
    }

    #[inline]
    fn fixed(&self) -> &[Fixed] {
        &self.fixed
    }

    #[inline]
    fn captures(&self, p: usize) -> &[Capture; 2] {
        &self.captures[p]
    }

    #[inline]
    fn promotions(&self, p: usize) -> &[Promotion] {
        self.promotions.get(p).map_or(&[][..], |v| &v[..])
    }

    #[inline]
    fn metric(&self) -> Metric {
        self.metric
    }

    #[inline]
    fn king_move(&self, to: Square) -> u16 {
        move_id(0, 0, to)
    }

    #[inline]
    fn white_moves(&self, p: usize, gate: impl Fn(usize, usize) -> u64, f: impl FnMut(u16, Dest)) {
        Placements::white_moves(self, p, gate, f)
    }

    fn gates(&self) -> Vec<usize> {
        let mut sizes = vec![self.len / 64; self.roles.len() + 1];
        // The king's: by the pieces' squares alone.
        sizes[0] = 1 << (6 * self.roles.len());
        sizes
    }

    fn mark(&self, p: usize, gates: &mut [Vec<u64>]) {
        // With DTZ a pawn's moves leave the tier: its mask stays empty, so the pulls
        // never list them.
        let moves_within = |j: usize| self.metric == Metric::Dtm || self.roles[j - 1] != Role::Pawn;
        let n = self.roles.len();
        let c = self.coords(p);
        for (j, a) in gates.iter_mut().enumerate().skip(1) {
            if moves_within(j) {
                a[self.key(p, j)] |= bb(c[j]);
            }
        }
        // A king move out of the region reaches the image of a placement: mark every
        // image, by its pieces' squares, at its king's square.
        for t in 0..self.symmetries() {
            let d = c.map(|s| flip_square(t, s));
            let key = d[1..=n].iter().fold(0, |k, &s| k * 64 + s as usize);
            gates[0][key] |= bb(d[0]);
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

/// Write the record `(tag, id)` for every square of `set` in a row.
#[inline]
fn put<Id, S: Store<Id>>(row: &mut [S::Cell], set: u64, tag: S::Tag, id: Id)
where
    Id: Copy,
{
    for s in squares(set) {
        S::put(row, s, tag, id);
    }
}

/// The black king squares of a promotion's groups whose value satisfies `f`.
fn promoted(groups: &[(Value, u64)], f: impl Fn(Value) -> bool) -> u64 {
    groups.iter().filter(|g| f(g.0)).fold(0, |m, g| m | g.1)
}

/// The records (`rec`, every record a position never reached) with the checkmates (black
/// in check without a move; a capture is a move) as losses in 0 plies: the start of every
/// run.
pub fn start<G: Geometry, S: Store<G::Id>>(pl: &G, mut rec: S) -> Sets<S> {
    let n = pl.placements();
    let lost_b: Vec<u64> = pl
        .fixed()
        .par_iter()
        .map(|f| f.legal_b & f.attacked & !king_spread(f.legal_w | f.capturable))
        .collect();
    let mate = S::lost(0);
    rec.sides()
        .1
        .par_chunks_mut(64 * S::WIDTH)
        .zip(lost_b.par_iter())
        .with_min_len(MIN_LEN)
        .for_each(|(row, &m)| put::<G::Id, S>(row, m, mate, G::NO_MOVE));
    Sets {
        rec,
        won_w: vec![0; n],
        lost_b,
    }
}

/// The depths where a value from outside the solve acts (a capture, a promotion, an
/// exit), marked in a vector as long as the last of them.
fn outside_depths(pl: &impl Geometry, scope: &Scope) -> Vec<bool> {
    let mut at = Vec::new();
    let mut mark = |k: usize| {
        if at.len() <= k {
            at.resize(k + 1, false);
        }
        at[k] = true;
    };
    // A capture into a loss at l plies acts at depth l - 1; a promotion to a loss at l
    // wins at l + 1.
    for p in (0..pl.placements()).filter(|&p| scope.holds(p)) {
        for c in pl.captures(p).iter().filter(|c| c.sq < 64 && c.loses != 0) {
            mark(c.loses as usize - 1);
        }
        for pr in pl.promotions(p) {
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
pub fn run<G: Geometry, S: Store<G::Id>>(
    pl: &G,
    sets: &mut Sets<S>,
    scope: &Scope,
    progress: &dyn Progress,
) -> Result<u16, SolveError> {
    let n = pl.placements();
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
                // Perhaps older losses, left by a depth that had nothing to do.
                lost[prev].fill(0);
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
            // Nothing to do (every other depth with DTM): lost[next] keeps the losses at
            // k - 2, read by no one (`any[next]` is false below; the depth that reads it
            // next clears it first).
            (false, false)
        };
        any[next] = any_lost;
        if any_lost {
            deepest = k + 1;
        }
        progress.advance(1);
        check_depth(pl.metric(), k, any_won, any_lost)?;
        if k >= last && !any[k as usize % 3] && !any[next] {
            return Ok(deepest);
        }
        k += 1;
    }
}

/// Depth k: the wins at k from the losses at k - 1 (`lost_cur`) and the values from
/// outside, then the losses at k + 1 (into `lost_next`). Returns whether it found any of
/// each.
fn depth<G: Geometry, S: Store<G::Id>>(
    pl: &G,
    sets: &mut Sets<S>,
    scope: &Scope,
    act: &Active,
    k: u16,
    lost_cur: &[u64],
    lost_next: &mut [u64],
) -> (bool, bool) {
    let fix = pl.fixed();
    let win = S::won(k);
    let lose = S::lost(k + 1);
    let width = 64 * S::WIDTH;
    let (white, black) = sets.rec.sides();
    // One pass; each placement is written by its own task only. The tasks take
    // MIN_LEN placements at a time, each in a plain loop: a call per placement (a
    // closure over the zipped items that the compiler did not inline) cost kbnk a
    // sixth of its solve.
    sets.won_w
        .par_chunks_mut(MIN_LEN)
        .zip(sets.lost_b.par_chunks_mut(MIN_LEN))
        .zip(lost_next.par_chunks_mut(MIN_LEN))
        .zip(
            white
                .par_chunks_mut(MIN_LEN * width)
                .zip(black.par_chunks_mut(MIN_LEN * width)),
        )
        .enumerate()
        .map(|(c, (((won, lost), next), (wrows, brows)))| {
            let mut found = (false, false);
            let rows = wrows.chunks_mut(width).zip(brows.chunks_mut(width));
            let items = won.iter_mut().zip(lost.iter_mut()).zip(next.iter_mut());
            for (i, (((won, lost), next), (wrow, brow))) in items.zip(rows).enumerate() {
                let p = c * MIN_LEN + i;
                *next = 0;
                let f = &fix[p];
                if f.legal_b == 0 || !scope.holds(p) {
                    continue;
                }
                // Lost at k - 1 → won at k: pull over this placement's white moves; the
                // first move reaching a square is its best move.
                let open = f.legal_w & !*won;
                let mut acc = 0u64;
                if open != 0 {
                    let gate = |j: usize, key: usize| act.0[j][key];
                    // Inlined into each of the geometry's move loops (kbnk: a call per
                    // move cost a quarter of its solve).
                    pl.white_moves(
                        p,
                        gate,
                        #[inline(always)]
                        |id, dest| {
                            let to = match dest {
                                Dest::Table(q, t, allow) => flip(t, lost_cur[q]) & allow,
                                Dest::Promotion(pr) => promoted(
                                    &pr.groups,
                                    |v| matches!(v, Value::Loss(l) if l + 1 == k),
                                ),
                                // Known in advance: the exits below.
                                Dest::Zeroing(..) => 0,
                            };
                            let hit = to & open & !acc;
                            if hit != 0 {
                                put::<G::Id, S>(wrow, hit, win, id);
                                acc |= hit;
                            }
                        },
                    );
                    for (_, masks) in scope.exits.iter().filter(|e| e.0 == k) {
                        // DTZ stores no move: none is recorded.
                        let hit = masks[p] & open & !acc;
                        put::<G::Id, S>(wrow, hit, win, G::NO_MOVE);
                        acc |= hit;
                    }
                    *won |= acc;
                }
                let caps = pl.captures(p);
                let cap_new = captured(caps, |l| l == k + 1);
                if acc == 0 && cap_new == 0 {
                    continue;
                }
                found.0 |= acc != 0;
                // Won at k → lost at k + 1: black's moves stay in this placement or take
                // a piece.
                let cap_won = captured(caps, |l| l != 0 && l <= k + 1);
                let bad = (f.legal_w & !*won) | (f.capturable & !cap_won);
                let fresh =
                    f.legal_b & king_spread(f.legal_w | f.capturable) & !king_spread(bad) & !*lost;
                for s in squares(fresh) {
                    // The first move to a square won at exactly k (or a capture losing at
                    // exactly k + 1).
                    let to = (KING[s as usize] & (acc | cap_new)).trailing_zeros() as u8;
                    S::put(brow, s, lose, pl.king_move(to));
                }
                *lost |= fresh;
                *next = fresh;
                found.1 |= fresh != 0;
            }
            found
        })
        .reduce(|| (false, false), |a, b| (a.0 || b.0, a.1 || b.1))
}

/// The DTM solve: one run over every placement, then the draws' best moves.
pub fn solve(pl: &Placements, progress: &dyn Progress) -> Result<Records, SolveError> {
    let mut sets = start(pl, Records::new(pl.len));
    progress.phase("retrograde", 0);
    run(pl, &mut sets, &Scope::ALL, progress)?;
    draws(pl, &mut sets);
    Ok(sets.rec)
}

/// Whatever was never reached is a draw. Best move: the first move to a draw (for black,
/// a capture into a drawn sub-table counts); a stalemate has none.
pub fn draws<G: Geometry, S: Store<G::Id>>(pl: &G, sets: &mut Sets<S>) {
    let fix = pl.fixed();
    let (won_w, lost_b) = (&sets.won_w, &sets.lost_b);
    let width = 64 * S::WIDTH;
    let (white, black) = sets.rec.sides();
    white
        .par_chunks_mut(width)
        .zip(black.par_chunks_mut(width))
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
                    #[inline(always)]
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
                            put::<G::Id, S>(wrow, hit, S::drawn(), id);
                            acc |= hit;
                        }
                    },
                );
                put::<G::Id, S>(wrow, open & !acc, S::drawn(), G::NO_MOVE);
            }
            let open = f.legal_b & !lost_b[p];
            // Captures not listed draw.
            let drawn_to =
                (f.legal_w & !won_w[p]) | (f.capturable & !captured(pl.captures(p), |l| l != 0));
            for s in squares(open) {
                let t = KING[s as usize] & drawn_to;
                let id = if t == 0 {
                    G::NO_MOVE
                } else {
                    pl.king_move(t.trailing_zeros() as u8)
                };
                S::put(brow, s, S::drawn(), id);
            }
        });
}
