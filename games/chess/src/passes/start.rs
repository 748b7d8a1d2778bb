//! How a group's slots start ([`Passes::group_start`]): illegal, or open or final from the
//! moves that leave the table (captures and promotions, read from the sub-tables) and the
//! double steps.
//!
//! The group is decoded once. Its legal slots are a mask: the last piece off the fixed
//! pieces' squares, and the side not to move not in check, whether a fixed piece gives it
//! (unless the last piece stands between) or the last piece does. So are the squares of
//! the last piece where a slot may have a move out of the table or be in check: the other
//! legal slots start open with nothing known, no move looked at. The captures of each
//! position are generated on bitboards, and each is read from its sub-table by a route
//! worked out once per table ([`Exits`]): which sub-table, in which colouring, and where
//! each remaining piece goes in its index. Nothing is played out first: a capture or
//! promotion leaving the mover's king attacked reaches an illegal slot of the sub-table.
//! The last piece taking a fixed piece reaches the same position from every slot of the
//! group: that value is read once a group ([`LastTakes`]), here, in the slowest exits of
//! the losses and in the best moves. The other captures and promotions by a fixed piece
//! or a king lead, from every slot, to positions differing by one piece's square: read as
//! runs of their sub-table (`runs.rs`); a fixed pawn's four promotions by a push, which
//! every slot of its group has, are read for all the group's slots at once
//! ([`ChessPasses::pushed_promotions`]).
//!
//! [`Passes::group_start`]: retro_engine::solve::one_byte::Passes::group_start

use std::cell::RefCell;

use super::dest::{Dest, GONE};
use super::group::Group;
use super::runs::{kind, KING_TAKES};
use super::{mv, piece_targets, ChessPasses};
use crate::indexing::index::Layout;
use crate::indexing::subtables::SubTables;
use crate::rules::board::{bb, pawn_attacks, rank, squares, Square, KING};
use crate::rules::lines::BETWEEN;
use crate::rules::material::{Color, Role};
use crate::rules::moves::{self, make, Move};
use crate::Position;
use retro_engine::game::{Index, Outcome, Value};
use retro_engine::solve::one_byte::{bits, Link, Own, Start};
use retro_engine::solve::SolveError;

thread_local! {
    /// The values of the last piece's captures of a fixed piece, for one group.
    static LAST_TAKES: RefCell<LastTakes> = const {
        RefCell::new(LastTakes {
            id: 0,
            first: Index::MAX,
            known: 0,
            value: [Value::Draw; 64],
        })
    };
}

/// The values of the positions after the last piece takes a fixed piece (no promotion):
/// the same whichever square of the group it takes from, so each is read from its
/// sub-table once a group, not once a slot.
struct LastTakes {
    /// Whose group: the passes' [`ChessPasses::id`] (a thread goes on to other tables, and
    /// to the same material's other metric, whose values differ) and the group's first
    /// slot (`Index::MAX`: none yet).
    id: u64,
    first: Index,
    /// The squares taken on whose value is known.
    known: u64,
    value: [Value; 64],
}

/// The value of the capture by the last piece on square `y` in the group at `first` of
/// the passes `id`, read by `probe` if not known yet.
fn last_take(id: u64, first: Index, y: Square, probe: impl FnOnce() -> Value) -> Value {
    LAST_TAKES.with(|t| {
        let mut t = t.borrow_mut();
        if (t.id, t.first) != (id, first) {
            (t.id, t.first, t.known) = (id, first, 0);
        }
        if t.known & bb(y) == 0 {
            t.value[y as usize] = probe();
            t.known |= bb(y);
        }
        t.value[y as usize]
    })
}

/// The routes of a table's captures and promotions, worked out when the passes are made.
pub(super) struct Exits {
    /// Per captured piece.
    capture: [Option<Dest>; 4],
    /// Per promoting pawn, promotion (queen to knight) and captured piece (the last
    /// entry: none).
    promote: [[[Option<Dest>; 5]; 4]; 4],
}

impl Exits {
    /// `None` without sub-tables.
    pub(super) fn new(layout: &Layout, subs: &SubTables) -> Option<Exits> {
        if subs.is_rules_only() {
            return None;
        }
        let pieces = &layout.pieces;
        let n = pieces.len();
        // The pieces left (with pawn `promoted` made a `role`), and where each goes.
        let dest = |gone: Option<usize>, promoted: Option<(usize, Role)>| -> Option<Dest> {
            let left: Vec<(usize, (Color, Role))> = (0..n)
                .filter(|&m| Some(m) != gone)
                .map(|m| match promoted {
                    Some((p, r)) if p == m => (m, (pieces[m].0, r)),
                    _ => (m, pieces[m]),
                })
                .collect();
            if left.is_empty() {
                return Some(Dest {
                    route: None,
                    place: [GONE; 4],
                });
            }
            let kinds: Vec<(Color, Role)> = left.iter().map(|&(_, k)| k).collect();
            let route = subs.route(&kinds)?;
            let sub = &subs.layout_of(route).pieces;
            let mut taken = [false; 4];
            let mut place = [GONE; 4];
            for &(m, (c, r)) in &left {
                let c = if route.flip { c.other() } else { c };
                let at = (0..sub.len()).find(|&k| !taken[k] && sub[k] == (c, r))?;
                taken[at] = true;
                place[m] = at as u8;
            }
            Some(Dest {
                route: Some(route),
                place,
            })
        };
        let mut exits = Exits {
            capture: [None; 4],
            promote: [[[None; 5]; 4]; 4],
        };
        for j in 0..n {
            exits.capture[j] = dest(Some(j), None);
        }
        for p in 0..n {
            if pieces[p].1 != Role::Pawn {
                continue;
            }
            for (k, &r) in Role::PROMOTIONS.iter().enumerate() {
                exits.promote[p][k][4] = dest(None, Some((p, r)));
                for j in 0..n {
                    if pieces[j].0 != pieces[p].0 {
                        exits.promote[p][k][j] = dest(Some(j), Some((p, r)));
                    }
                }
            }
        }
        Some(exits)
    }
}

impl ChessPasses<'_> {
    /// The value, for `turn` to move, of the position after a capture or promotion:
    /// kings on `wk`, `bk`, the table's pieces on `sq` (those gone ignored); for distance
    /// to zeroing, as a zeroing move counts it ([`ChessPasses::exit`]).
    pub(super) fn probe(
        &self,
        d: &Dest,
        turn: Color,
        wk: Square,
        bk: Square,
        sq: &[Square; 4],
    ) -> Value {
        let Some(route) = d.route else {
            return Value::Draw;
        };
        let subs = &self.chess.subs;
        let l = subs.layout_of(route);
        let (turn, wk, bk, out) = d.in_sub(route, turn, wk, bk, sq);
        self.exit(subs.value_at(route, l.slot_of(turn, wk, bk, &out[..l.pieces.len()])))
    }

    /// [`Passes::group_start`](retro_engine::solve::one_byte::Passes::group_start).
    pub(super) fn start_group(
        &self,
        first: Index,
        mask: u64,
        own: Own,
        links: &mut Vec<Link>,
        mut out: impl FnMut(Index, Start),
    ) -> Result<(), SolveError> {
        let l = self.layout();
        let Some(exits) = &self.exits else {
            for b in bits(mask) {
                out(b, super::Passes::start(self, first + b, own, links)?);
            }
            return Ok(());
        };
        let tiered = self.tiered;
        let g = self.group_at(first);
        let n = l.pieces.len();
        let us = g.turn;
        let them = us.other();
        let enemy_king = if us == Color::White { g.bk } else { g.wk };
        let legal = self.legal_in_group(&g);
        let (last_color, last_role) = l.pieces[n - 1];
        let mut base = Position::empty();
        base.turn = us;
        base.place(g.wk, Color::White, Role::King);
        base.place(g.bk, Color::Black, Role::King);
        for (&(c, r), &x) in l.pieces[..n - 1].iter().zip(&g.sq) {
            base.place(x, c, r);
        }
        // Elsewhere a legal slot has no move out of the table and no check: it starts
        // open with nothing known, as the work below would find.
        let eventful = self.eventful_in_group(&g, &base);
        let pushed = if tiered {
            None
        } else {
            self.pushed_promotions(exits, &g, first, mask & self.to_slots(legal & eventful))
        };
        for b in bits(mask) {
            let s = self.last_square(b);
            if legal & bb(s) == 0 {
                out(b, Start::Illegal);
                continue;
            }
            if eventful & bb(s) == 0 {
                out(
                    b,
                    Start::Open {
                        win: None,
                        keep: false,
                        slowest: 0,
                    },
                );
                continue;
            }
            let i = first + b;
            let mut pos = base;
            pos.place(s, last_color, last_role);
            let mut sq = g.sq;
            sq[n - 1] = s;
            let occ = g.occ | bb(s);
            // The pieces to take: the other side's, its king aside.
            let enemy = pos.colors[them as usize] & !bb(enemy_king);
            let mut tally = ExitTally::default();
            let skip = pushed.as_ref().map(|p| p.pawn);
            let double = self.exit_values(
                exits,
                first,
                us,
                (g.wk, g.bk),
                &sq,
                (occ, enemy),
                skip,
                &mut |v| tally.value(v),
            );
            if let Some(p) = pushed.as_ref().filter(|p| s != p.to) {
                for v in &p.values {
                    tally.value(v[b as usize]);
                }
            }
            if tiered {
                // Every pawn move leaves the tier, played out.
                self.each_push(&pos, own, &mut |v| tally.value(v));
            } else if double {
                // Double steps: few, played out as the slot passes do.
                self.each_double_step(&pos, |to| tally.outcome(i, to, links));
            }
            out(b, tally.settle(&pos, !tiered));
        }
        Ok(())
    }

    /// The value, read from its sub-table, of every capture and promotion of a position
    /// (`us` to move, the kings, the table's pieces on `sq`, `occ` occupied, `enemy` the
    /// pieces `us` may take) to `note`, an illegal one as [`Value::Illegal`]; true if a
    /// pawn may step twice (those moves stay inside, or allow en passant: not read here).
    /// `first` is the position's group's first slot. The push to promotion of the pawn
    /// `skip` (read for the whole group: [`ChessPasses::pushed_promotions`]) is left out.
    #[allow(clippy::too_many_arguments)]
    fn exit_values(
        &self,
        exits: &Exits,
        first: Index,
        us: Color,
        (wk, bk): (Square, Square),
        sq: &[Square; 4],
        (occ, enemy): (u64, u64),
        skip: Option<usize>,
        note: &mut impl FnMut(Value),
    ) -> bool {
        let l = self.layout();
        let n = l.pieces.len();
        let them = us.other();
        let (own_king, enemy_king) = if us == Color::White {
            (wk, bk)
        } else {
            (bk, wk)
        };
        // The piece of the table on square `x` (not a king).
        let piece_on = |x: Square| (0..n).find(|&m| sq[m] == x).expect("a piece");
        // Captures by the king, then by each piece; then pawns' promotions.
        for y in squares(KING[own_king as usize] & enemy & !KING[enemy_king as usize]) {
            let (wk, bk) = if us == Color::White { (y, bk) } else { (wk, y) };
            let j = piece_on(y);
            if let Some(d) = &exits.capture[j] {
                note(if j < n - 1 {
                    // The king's square is the group's: the last piece's alone differs.
                    self.run_probe(first, kind(KING_TAKES, j, 4), d, n - 1, them, wk, bk, sq)
                } else {
                    self.probe(d, them, wk, bk, sq)
                });
            }
        }
        let mut double = false;
        for m in 0..n {
            let (c, role) = l.pieces[m];
            if c != us {
                continue;
            }
            let x = sq[m];
            if role != Role::Pawn {
                for y in squares(piece_targets(role, x, occ) & enemy) {
                    let mut after = *sq;
                    after[m] = y;
                    let j = piece_on(y);
                    if let Some(d) = &exits.capture[j] {
                        note(if m == n - 1 {
                            last_take(self.id, first, y, || self.probe(d, them, wk, bk, &after))
                        } else {
                            // The last piece's square differs, or the taker's, on it.
                            let varying = if j == n - 1 { m } else { n - 1 };
                            self.run_probe(first, kind(m, j, 4), d, varying, them, wk, bk, &after)
                        });
                    }
                }
                continue;
            }
            let white = us == Color::White;
            let one = if white { x + 8 } else { x - 8 };
            let promotes = rank(one) == if white { 7 } else { 0 };
            let mut to = pawn_attacks(white, x) & enemy;
            if occ & bb(one) == 0 {
                if promotes {
                    if skip != Some(m) {
                        to |= bb(one);
                    }
                } else {
                    let two = if white { one + 8 } else { one - 8 };
                    double |= rank(x) == if white { 1 } else { 6 } && occ & bb(two) == 0;
                }
            }
            for y in squares(to) {
                let j = (enemy & bb(y) != 0).then(|| piece_on(y));
                let mut after = *sq;
                after[m] = y;
                // A fixed pawn's move: the last piece's square differs, or the pawn's, on
                // the last piece it took.
                let varying = if j == Some(n - 1) { m } else { n - 1 };
                if promotes {
                    for k in 0..4 {
                        if let Some(d) = &exits.promote[m][k][j.unwrap_or(4)] {
                            note(if m < n - 1 {
                                let k = kind(m, j.unwrap_or(4), k);
                                self.run_probe(first, k, d, varying, them, wk, bk, &after)
                            } else {
                                self.probe(d, them, wk, bk, &after)
                            });
                        }
                    }
                } else if let Some(d) = &exits.capture[j.expect("a capture")] {
                    note(if m < n - 1 {
                        let k = kind(m, j.expect("a capture"), 4);
                        self.run_probe(first, k, d, varying, them, wk, bk, &after)
                    } else {
                        self.probe(d, them, wk, bk, &after)
                    });
                }
            }
        }
        double
    }

    /// The promotions by a fixed pawn's push from the slots `lanes` of group `g` (at
    /// `first`), read for all of them at once: from every slot where the last piece does
    /// not stand on the promotion square, the same four kinds of move, whose positions
    /// differ by the last piece's square alone (`runs.rs`). `None` where no fixed pawn of
    /// the side to move promotes by a push, or a kind is no run.
    fn pushed_promotions(
        &self,
        exits: &Exits,
        g: &Group,
        first: Index,
        lanes: u64,
    ) -> Option<Pushed> {
        let l = self.layout();
        let n = l.pieces.len();
        let us = g.turn;
        let white = us == Color::White;
        let m = (0..n - 1).find(|&m| {
            let x = g.sq[m];
            l.pieces[m] == (us, Role::Pawn) && rank(x) == if white { 6 } else { 1 }
        })?;
        let to = if white { g.sq[m] + 8 } else { g.sq[m] - 8 };
        let lanes = lanes & !self.to_slots(bb(to));
        if g.occ & bb(to) != 0 || lanes == 0 {
            return None;
        }
        let mut after = g.sq;
        after[m] = to;
        after[n - 1] = self.last_square(lanes.trailing_zeros() as Index);
        let mut values = [[Value::Illegal; 64]; 4];
        for (k, out) in values.iter_mut().enumerate() {
            let d = exits.promote[m][k][4].as_ref()?;
            let kind = kind(m, 4, k);
            if !self.run_lanes(first, kind, d, us.other(), g.wk, g.bk, &after, lanes, out) {
                return None;
            }
        }
        Some(Pushed {
            pawn: m,
            to,
            values,
        })
    }

    /// The value, for the opponent, of capture or promotion `m` by `us` (kings on `wk`,
    /// `bk`, the table's pieces on `sq`), read by its route: [`Value::Illegal`] if it
    /// leaves `us` in check. `None` without sub-tables or a route. `first` is the
    /// position's group's first slot.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exit_value(
        &self,
        first: Index,
        us: Color,
        wk: Square,
        bk: Square,
        sq: &[Square; 4],
        m: &Move,
    ) -> Option<Value> {
        let exits = self.exits.as_ref()?;
        let pieces = &self.layout().pieces;
        let n = pieces.len();
        let taken = match m.capture {
            Some(_) => (0..n).find(|&j| sq[j] == m.to && pieces[j].0 != us)?,
            None => 4,
        };
        let (mut wk, mut bk, mut after) = (wk, bk, *sq);
        // The promotion's place in [`Role::PROMOTIONS`] (4: none), as [`kind`] counts it.
        let mut promotion = 4;
        let (dest, taker) = if m.role == Role::King {
            if us == Color::White {
                wk = m.to;
            } else {
                bk = m.to;
            }
            (exits.capture.get(taken)?, KING_TAKES)
        } else {
            let p = (0..n).find(|&j| sq[j] == m.from && pieces[j].0 == us)?;
            after[p] = m.to;
            let dest = match m.promotion {
                Some(r) => {
                    promotion = Role::PROMOTIONS.iter().position(|&x| x == r)?;
                    &exits.promote[p][promotion][taken]
                }
                None => exits.capture.get(taken)?,
            };
            (dest, p)
        };
        let dest = dest.as_ref()?;
        let them = us.other();
        let probe = || self.probe(dest, them, wk, bk, &after);
        // As the start reads them ([`ChessPasses::exit_values`]): the last piece taking a
        // fixed piece once a group; a move whose position differs from slot to slot by one
        // piece's square, by the group's run.
        Some(
            if taker == n - 1 && m.capture.is_some() && m.promotion.is_none() {
                last_take(self.id, first, m.to, probe)
            } else if taker == KING_TAKES && taken < n - 1 {
                self.run_probe(
                    first,
                    kind(taker, taken, 4),
                    dest,
                    n - 1,
                    them,
                    wk,
                    bk,
                    &after,
                )
            } else if taker < n - 1 {
                let varying = if taken == n - 1 { taker } else { n - 1 };
                let k = kind(taker, taken, promotion);
                self.run_probe(first, k, dest, varying, them, wk, bk, &after)
            } else {
                probe()
            },
        )
    }

    /// [`Passes::slowest_exit`](retro_engine::solve::one_byte::Passes::slowest_exit):
    /// the slowest win for the opponent among the moves of slot `i` out of the table,
    /// each read by its route; `None` without sub-tables.
    pub(super) fn slowest_exit_fast(&self, i: Index, own: Own) -> Option<u16> {
        let exits = self.exits.as_ref()?;
        let l = self.layout();
        let (us, wk, bk, sq) = l.squares_of(i).expect("a slot of the table");
        let mut occ = bb(wk) | bb(bk);
        let mut enemy = 0;
        for (&(c, _), &x) in l.pieces.iter().zip(&sq) {
            occ |= bb(x);
            if c != us {
                enemy |= bb(x);
            }
        }
        let mut slowest = 0;
        let first = i / l.group_len() as Index * l.group_len() as Index;
        let double = self.exit_values(
            exits,
            first,
            us,
            (wk, bk),
            &sq,
            (occ, enemy),
            None,
            &mut |v| {
                if let Value::Win(w) = v {
                    slowest = slowest.max(w);
                }
            },
        );
        if self.tiered {
            // Every pawn move leaves the tier.
            let s = self.slot(i);
            self.each_push(&self.position(&s), own, &mut |v| {
                if let Value::Win(w) = v {
                    slowest = slowest.max(w);
                }
            });
        } else if double {
            // A double step into a position with no move, en passant aside: a known value.
            let s = self.slot(i);
            self.each_double_step(&self.position(&s), |to| {
                if let Outcome::Known(Value::Win(w)) = to {
                    slowest = slowest.max(w);
                }
            });
        }
        Some(slowest)
    }

    /// The slots of group `g` that hold a legal position in its stored form, as squares
    /// of the last piece.
    fn legal_in_group(&self, g: &Group) -> u64 {
        let l = self.layout();
        let n = l.pieces.len();
        let us = g.turn;
        let enemy_king = if us == Color::White { g.bk } else { g.wk };
        // The fixed squares: one piece each, kings apart.
        if g.wk == g.bk
            || KING[g.wk as usize] & bb(g.bk) != 0
            || (g.occ.count_ones() as usize) < n + 1
        {
            return 0;
        }
        if g.orient.is_some_and(|t| t != 0) {
            // Two symmetries give the kings, and the fixed pieces choose the other: every
            // position here is stored in another group.
            return 0;
        }
        let mut legal = if self.last_pawn {
            0x00ff_ffff_ffff_ff00
        } else {
            !0
        } & !g.occ;
        // The side not to move in check: by a fixed piece unless the last piece stands
        // between, or by the last piece.
        for m in 0..n - 1 {
            let (c, role) = l.pieces[m];
            if c != us {
                continue;
            }
            let x = g.sq[m];
            let hits = match role {
                Role::Pawn => pawn_attacks(us == Color::White, x),
                r => piece_targets(r, x, g.occ),
            };
            if hits & bb(enemy_king) != 0 {
                legal &= BETWEEN[x as usize][enemy_king as usize];
            }
        }
        let (c, role) = l.pieces[n - 1];
        if c == us {
            legal &= !match role {
                Role::Pawn => pawn_attacks(us != Color::White, enemy_king),
                r => piece_targets(r, enemy_king, g.occ),
            };
        }
        if legal != 0 && (self.layout().twins() || !self.plain(g)) {
            // Identical pieces out of order, or the image of a smaller slot: not stored.
            let first = g.first(l);
            let mut keep = 0;
            for s in squares(legal) {
                let mut sq = g.sq;
                sq[n - 1] = s;
                if l.slot_of(us, g.wk, g.bk, &sq[..n]) == first + self.digit_of_last(s) {
                    keep |= bb(s);
                }
            }
            legal = keep;
        }
        legal
    }

    /// The squares of the last piece where a slot of group `g` (`base`: its kings and
    /// fixed pieces) may have a move out of the table (a capture, a promotion), a double
    /// step allowing en passant (only where the opponent has a pawn) or a pawn move leaving
    /// the tier, or its side to move in check: a superset,
    /// every square where a fixed piece may do one of these (whether the last piece stands
    /// in its way is not worked out here) or where the side to move has a pawn in a tiered
    /// solve.
    fn eventful_in_group(&self, g: &Group, base: &Position) -> u64 {
        let l = self.layout();
        let n = l.pieces.len();
        let us = g.turn;
        let them = us.other();
        let white = us == Color::White;
        let (own_king, enemy_king) = if white { (g.wk, g.bk) } else { (g.bk, g.wk) };
        if base.attacked_by(them, own_king) {
            return !0;
        }
        let enemy = base.colors[them as usize] & !bb(enemy_king);
        let (last_color, last_role) = l.pieces[n - 1];
        let last_theirs = last_color == them;
        // A double step matters to the start only where the opponent may take en passant
        // (a link): elsewhere it is a move inside the table like any other.
        let en_passant = l.pieces.contains(&(them, Role::Pawn));
        // The squares the side to move attacks: a fixed piece there is taken; the last
        // piece, where it stands on one.
        let mut busy = 0;
        let king = KING[own_king as usize] & !KING[enemy_king as usize];
        if king & enemy != 0 {
            return !0;
        }
        if last_theirs {
            busy |= king;
        }
        for m in 0..n - 1 {
            let (c, role) = l.pieces[m];
            if c != us {
                continue;
            }
            let x = g.sq[m];
            let hits = if role == Role::Pawn {
                let one = if white { x + 8 } else { x - 8 };
                let promotes = rank(one) == 7 || rank(one) == 0;
                let double = en_passant && rank(x) == if white { 1 } else { 6 };
                if self.tiered || promotes || double {
                    return !0;
                }
                pawn_attacks(white, x)
            } else {
                piece_targets(role, x, g.occ)
            };
            if hits & enemy != 0 {
                return !0;
            }
            if last_theirs {
                busy |= hits;
            }
        }
        if last_theirs {
            // Where the last piece checks (its attacks seen from the king).
            return busy
                | match last_role {
                    Role::Pawn => pawn_attacks(white, own_king),
                    r => piece_targets(r, own_king, g.occ),
                };
        }
        // Where the last piece takes a fixed piece (seen from that piece), promotes or
        // steps twice (allowing en passant).
        if last_role == Role::Pawn {
            if self.tiered {
                return !0;
            }
            // Its promotions, and its double steps if they may allow en passant.
            busy |= match (white, en_passant) {
                (_, true) => 0x00ff_0000_0000_ff00,
                (true, false) => 0x00ff_0000_0000_0000,
                (false, false) => 0xff00,
            };
        }
        for y in squares(enemy) {
            busy |= match last_role {
                Role::Pawn => pawn_attacks(!white, y),
                r => piece_targets(r, y, g.occ),
            };
        }
        busy
    }

    /// The legal double steps of `pos`, with where each leads.
    fn each_double_step(&self, pos: &Position, mut f: impl FnMut(Outcome)) {
        let us = pos.turn;
        let white = us == Color::White;
        let occ = pos.occupied();
        // In move order: pawns by origin square (each has one double step at most).
        let start = if white { 0xff00 } else { 0x00ff_0000_0000_0000 };
        for from in squares(pos.pieces(us, Role::Pawn) & start) {
            let (one, two) = if white {
                (from + 8, from + 16)
            } else {
                (from - 8, from - 16)
            };
            if occ & (bb(one) | bb(two)) != 0 {
                continue;
            }
            let m = mv(Role::Pawn, from, two, None);
            let after = make(pos, &m);
            if !after.in_check(us) {
                f(self.chess.outcome(&m, &after, false));
            }
        }
    }
}

/// A fixed pawn's promotions by a push, read for a whole group
/// ([`ChessPasses::pushed_promotions`]).
struct Pushed {
    /// The pawn (its place among the table's pieces) and the promotion square.
    pawn: usize,
    to: Square,
    /// Per promotion (queen to knight), per slot of the group: the value for the opponent.
    values: [[Value; 64]; 4],
}

/// What a position's moves out of the table (and its double steps) give the side to
/// move, as they are met.
#[derive(Default)]
pub(super) struct ExitTally {
    /// The quickest win through one, in plies.
    win: Option<u16>,
    /// One holds the draw.
    keep: bool,
    /// The slowest of the opponent's wins through one, in plies.
    slowest: u16,
    /// Some legal move leaves the table.
    any: bool,
    /// A double step stays inside, or is a link.
    inside: bool,
}

impl ExitTally {
    /// A move out of the table to `v` for the opponent ([`Value::Illegal`]: not legal).
    pub(super) fn value(&mut self, v: Value) {
        match v {
            Value::Illegal => return,
            Value::Loss(l) => self.win = Some(self.win.map_or(l + 1, |w| w.min(l + 1))),
            Value::Win(w) => self.slowest = self.slowest.max(w),
            _ => self.keep = true,
        }
        self.any = true;
    }

    /// A legal move of slot `from` that leaves the table or steps a pawn twice, leading
    /// to `to` (a link goes to `links`).
    pub(super) fn outcome(&mut self, from: Index, to: Outcome, links: &mut Vec<Link>) {
        match to {
            Outcome::Index(_) => self.inside = true,
            Outcome::Augmented { index, extra } => {
                self.inside = true;
                links.push(Link {
                    to: index,
                    from,
                    extra,
                });
            }
            Outcome::Known(v) => self.value(v),
            Outcome::Restart { .. } => unreachable!("no restarts in a DTM table"),
        }
    }

    /// How the legal slot of `pos` starts: a win or a draw through a move out makes it
    /// open (with nothing inside, nothing changes that value); every one losing, or a
    /// check, asks whether a legal move stays inside (else a loss after the slowest move
    /// out, or checkmate). A stalemate starts open: it is nobody's predecessor.
    pub(super) fn settle(&self, pos: &Position, pawns_inside: bool) -> Start {
        let open = Start::Open {
            win: self.win,
            keep: self.keep,
            slowest: self.slowest,
        };
        if self.win.is_some() || self.keep || self.inside {
            return open;
        }
        if !self.any && !pos.in_check(pos.turn) {
            return open;
        }
        if moves::has_quiet_move(pos, pawns_inside) {
            open
        } else if self.any {
            Start::Final(Value::Loss(self.slowest + 1))
        } else {
            Start::Final(Value::Loss(0))
        }
    }
}
