//! The chess passes of the one-byte solver ([`retro_engine::solve::one_byte`]): moves and
//! un-moves of a stored position found on its squares, and the slots they lead to worked
//! out by moving one square in the index ([`Layout::slot_of`]), not by building and
//! encoding positions. A forward check stops at the first move that does not yet lose.
//! The un-moves come from [`moves::each_unmove`], the plug-in's own generator.
//!
//! The rules are those of [`crate::rules::moves`], which the generic plug-in uses: the same
//! un-moves (no captures, no promotions, no double step that allows en passant) and the
//! same legal moves, so the values, and the table, are the same (tested on whole tables
//! against the two-queue solver).

mod best;
mod dest;
mod group;
mod lanes;
mod refute;
mod runs;
mod start;
mod zeroing;

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::{Chess, Position};
use crate::indexing::index::transform;
use crate::indexing::index::Layout;
use crate::rules::board::{attacks, bb, pawn_attacks, rank, Square, KING};
use crate::rules::material::{Color, Role};
use crate::rules::moves::{self, en_passant_after, legal_moves, make, Move};
use retro_engine::game::{Index, Outcome, Value};
use retro_engine::solve::one_byte::{bits, Link, Own, Passes, Start, Values};
use retro_engine::solve::SolveError;
use retro_engine::table::Metric;

/// A stored slot on the board: its squares, without a [`Position`] (built only where a
/// move must be played out, [`ChessPasses::position`]).
struct Slot {
    turn: Color,
    wk: Square,
    bk: Square,
    /// The pieces' squares in [`Layout::pieces`] order.
    sq: [Square; 4],
    /// Every occupied square.
    occ: u64,
    /// The slot's place in its section.
    at: Index,
    /// The king pair's number when the kings fix the orientation ([`Layout::plain_pair`]):
    /// then a move of a piece that has no twin changes its digit of the index and nothing
    /// else, and so does a king move to another such pair.
    pair: Option<Index>,
}

/// A piece's move as a change of slot ([`ChessPasses::step`]).
enum Step {
    /// A piece without a twin, the kings fixing the orientation: its digit changes.
    Digit { base: Index, stride: Index },
    /// A king. From a pair only the identity makes canonical (`base` is then the slot
    /// less its pair's digit), the pair's digit changes when the new pair is such a pair
    /// too; otherwise the slot is worked out anew.
    King { white: bool, base: Option<Index> },
    /// A twin, or any piece when the kings do not fix the orientation: piece `k`'s
    /// square changes and the slot is worked out anew.
    Anew { k: usize },
}

pub struct ChessPasses<'a> {
    chess: &'a Chess,
    /// Per piece: what one square more adds to the index, and whether an identical piece
    /// shares its role (then the order of the two may change, and the index is made anew).
    stride: [Index; 4],
    twin: [bool; 4],
    /// Per piece: an identical piece is the last piece (for the last piece itself: false).
    twin_of_last: [bool; 4],
    /// The last piece has a twin; the last piece is a pawn (its digit counts 48 squares).
    last_twin: bool,
    last_pawn: bool,
    /// Where captures and promotions are read (`None` without sub-tables).
    exits: Option<start::Exits>,
    /// What the values count: with [`Metric::Dtz`] a capture zeroes, so it counts only by
    /// its result under the 50-move rule ([`Value::restarted`]).
    metric: Metric,
    /// Distance to zeroing with pawns: solved by tiers, a pawn move leaving its tier.
    tiered: bool,
    /// Per symmetry `t`, per lane `b` (the last piece on `last_square(b)`): the lane of
    /// the last piece's square turned by `t`, where a move turning the board by `t` finds
    /// it in the group it reaches.
    lane_perm: [[u8; 64]; 8],
    /// A number no other passes of this process have: the best-move pass keeps a group's
    /// movers in a thread-local list, which must not be taken for another table's.
    id: u64,
}

impl<'a> ChessPasses<'a> {
    /// The passes of `chess`'s table of `metric`, its sub-tables of that metric. With
    /// [`Metric::Dtz`] and pawns, a pawn move zeroes and leads to a higher tier
    /// ([`Passes::tiers`]): it is a move out of the tier, and no pass names it.
    pub(super) fn new(chess: &'a Chess, metric: Metric) -> Self {
        let pieces = &chess.layout.pieces;
        let mut stride = [0; 4];
        let mut twin = [false; 4];
        let mut acc: Index = 1;
        for k in (0..pieces.len()).rev() {
            stride[k] = acc;
            acc *= if pieces[k].1 == Role::Pawn { 48 } else { 64 };
            twin[k] = pieces
                .iter()
                .enumerate()
                .any(|(j, p)| j != k && *p == pieces[k]);
        }
        let n = pieces.len();
        let mut twin_of_last = [false; 4];
        for k in 0..n.saturating_sub(1) {
            twin_of_last[k] = pieces[k] == pieces[n - 1];
        }
        let last_pawn = pieces.last().is_some_and(|p| p.1 == Role::Pawn);
        ChessPasses {
            chess,
            stride,
            twin,
            twin_of_last,
            last_twin: twin_of_last.iter().any(|&t| t),
            last_pawn,
            exits: start::Exits::new(&chess.layout, &chess.subs),
            metric,
            tiered: metric == Metric::Dtz && chess.layout.material.has_pawns(),
            id: NEXT_ID.fetch_add(1, Relaxed),
            lane_perm: std::array::from_fn(|t| {
                std::array::from_fn(|b| match (last_pawn, b) {
                    // A pawn's 48 lanes, its squares less 8 (tables with pawns turn only
                    // by the file mirror, which keeps a pawn's rank).
                    (true, 48..) => 0,
                    (true, b) => match transform(t as u8, b as Square + 8) {
                        x @ 8..56 => x - 8,
                        _ => 0,
                    },
                    (false, b) => transform(t as u8, b as Square),
                })
            }),
        }
    }
}

/// The next [`ChessPasses::id`].
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// A move list per worker thread: the start and slowest-exit passes list moves of
    /// every slot they see, and an allocation each would cost as much as the listing.
    static MOVES: RefCell<Vec<Move>> = RefCell::new(Vec::with_capacity(128));
    /// The best-move pass's moves that leave the table, with their rank, met before the
    /// first ordinary move achieving the value.
    static BEFORE: RefCell<Vec<(usize, Move)>> = RefCell::new(Vec::with_capacity(32));
}

impl ChessPasses<'_> {
    fn layout(&self) -> &Layout {
        &self.chess.layout
    }

    /// The value, for the side then to move, of a move out of the table into `v`.
    #[inline]
    fn exit(&self, v: Value) -> Value {
        match self.metric {
            Metric::Dtm => v,
            Metric::Dtz => v.restarted(crate::rules::position::FIFTY_MOVES),
        }
    }

    /// Slot `i`, which must hold a legal position.
    #[inline]
    fn slot(&self, i: Index) -> Slot {
        let l = self.layout();
        let (turn, wk, bk, sq) = l.squares_of(i).expect("a slot of the table");
        let mut occ = bb(wk) | bb(bk);
        for &x in &sq[..l.pieces.len()] {
            occ |= bb(x);
        }
        Slot {
            turn,
            wk,
            bk,
            sq,
            occ,
            at: if i < l.section { i } else { i - l.section },
            pair: l.plain_pair(wk, bk),
        }
    }

    /// The position of slot `s`.
    fn position(&self, s: &Slot) -> Position {
        let mut pos = Position::empty();
        pos.turn = s.turn;
        // A legal slot's squares are distinct: nothing to clear first.
        pos.place(s.wk, Color::White, Role::King);
        pos.place(s.bk, Color::Black, Role::King);
        for (&(c, r), &x) in self.layout().pieces.iter().zip(&s.sq) {
            pos.place(x, c, r);
        }
        pos
    }

    /// The pawns of `color` in slot `s`.
    fn pawns(&self, s: &Slot, color: Color) -> u64 {
        let mut b = 0;
        for (&(c, r), &x) in self.layout().pieces.iter().zip(&s.sq) {
            if c == color && r == Role::Pawn {
                b |= bb(x);
            }
        }
        b
    }

    /// True if the double step of `mover`'s pawn from `from` to `to` lets the opponent
    /// take en passant: `s` is the slot before the step (`before`) or after it. Only
    /// when an enemy pawn stands beside `to` is the capture played out (pins).
    fn allows_en_passant(
        &self,
        s: &Slot,
        mover: Color,
        from: Square,
        to: Square,
        before: bool,
    ) -> bool {
        let behind = (from + to) / 2;
        let takers = self.pawns(s, mover.other()) & pawn_attacks(mover == Color::White, behind);
        if takers == 0 {
            return false;
        }
        let m = mv(Role::Pawn, from, to, None);
        let pos = self.position(s);
        let after = if before { make(&pos, &m) } else { pos };
        !en_passant_after(&after, &m).is_empty()
    }

    /// How the slot changes when the piece on `from` moves, worked out once for all the
    /// squares it may go to ([`ChessPasses::reach`]).
    #[inline]
    fn step(&self, s: &Slot, turn: Color, from: Square) -> Step {
        let l = self.layout();
        let side = if turn == Color::White { 0 } else { l.section };
        let king = if from == s.wk {
            Some(true)
        } else if from == s.bk {
            Some(false)
        } else {
            None
        };
        match (king, s.pair) {
            (Some(white), pair) => Step::King {
                white,
                base: pair.map(|old| side + s.at - old * l.pair_stride),
            },
            (None, pair) => {
                let n = l.pieces.len();
                let k = s.sq[..n].iter().position(|&x| x == from).expect("a piece");
                if pair.is_some() && !self.twin[k] {
                    // A pawn's digit is its square less 8 either way: the difference holds.
                    Step::Digit {
                        base: side + s.at - from as Index * self.stride[k],
                        stride: self.stride[k],
                    }
                } else {
                    Step::Anew { k }
                }
            }
        }
    }

    /// The step of the piece on `from`, kept in `last` while the moves or un-moves come
    /// from the same square (they come piece by piece).
    #[inline]
    fn step_from<'c>(
        &self,
        last: &'c mut Option<(Square, Step)>,
        s: &Slot,
        turn: Color,
        from: Square,
    ) -> &'c Step {
        if !matches!(last, Some((at, _)) if *at == from) {
            *last = Some((from, self.step(s, turn, from)));
        }
        &last.as_ref().expect("set above").1
    }

    /// The slot reached by `step` (of a piece of `s`, `turn` then to move) to `to`.
    #[inline]
    fn reach(&self, s: &Slot, turn: Color, step: &Step, to: Square) -> Index {
        let l = self.layout();
        let n = l.pieces.len();
        match *step {
            Step::Digit { base, stride } => base + to as Index * stride,
            Step::King { white, base } => {
                let (wk, bk) = if white { (to, s.bk) } else { (s.wk, to) };
                base.and_then(|b| Some(b + l.plain_pair(wk, bk)? * l.pair_stride))
                    .unwrap_or_else(|| l.slot_of(turn, wk, bk, &s.sq[..n]))
            }
            Step::Anew { k } => {
                let mut sq = s.sq;
                sq[k] = to;
                l.slot_of(turn, s.wk, s.bk, &sq[..n])
            }
        }
    }

    /// Every legal move of `pos` that leaves the table (capture, promotion) or is a double
    /// step, with where it leads. The captures and promotions are read from the
    /// sub-tables unplayed-out: an illegal one reaches an illegal slot there (a king
    /// next to the other king has no slot: such a capture is left out first). A double
    /// step is played out.
    fn each_exit(&self, pos: &Position, mut f: impl FnMut(Outcome)) {
        let us = pos.turn;
        let enemy_king = pos.king(us.other());
        moves::walk_pseudo(pos, false, &mut |m| {
            if m.role == Role::King && KING[enemy_king as usize] & bb(m.to) != 0 {
                return true;
            }
            let after = make(pos, &m);
            if m.converts() {
                match self.chess.subs.value(&after) {
                    Value::Illegal => {}
                    v => f(Outcome::Known(self.exit(v))),
                }
            } else if !self.tiered && !after.in_check(us) {
                // A double step (tiered, a pawn move leaves the tier: [`Self::each_push`]).
                f(self.chess.outcome(&m, &after, false));
            }
            true
        });
    }

    /// How slot `i` starts, its moves listed legal and played out: for a table opened
    /// without sub-tables (the self-test's), whose every capture reads "in no table".
    fn start_by_legal_moves(
        &self,
        i: Index,
        pos: &Position,
        links: &mut Vec<Link>,
    ) -> Result<Start, SolveError> {
        MOVES.with(|m| {
            let mut ms = m.borrow_mut();
            ms.clear();
            legal_moves(pos, &mut ms);
            if ms.is_empty() {
                return Ok(Start::Final(moves::terminal(pos).expect("no legal move")));
            }
            let mut inside = false;
            let mut exits = Vec::new();
            for m in ms.iter() {
                if m.converts() || m.is_double_step() {
                    match self.chess.outcome(m, &make(pos, m), false) {
                        Outcome::Index(_) => inside = true,
                        to => exits.push(to),
                    }
                } else {
                    inside = true;
                }
            }
            retro_engine::solve::one_byte::start_from(i, inside, &exits, links)
        })
    }
}

impl Passes for ChessPasses<'_> {
    fn slots(&self) -> u64 {
        2 * self.layout().section
    }

    /// The moves leaving the table are read from the sub-tables without a legality test
    /// first: a capture or promotion that leaves the mover's king attacked reaches an
    /// illegal slot of its sub-table. Legality is worked out only where it decides: for a
    /// position whose moves out of the table neither win nor hold the draw (in check, or
    /// every one losing), whether a legal move stays inside. Where one of them wins or
    /// draws, the slot is open whether or not it has a move inside: with none, nothing
    /// ever changes the value it starts with ([`check_passes`] accepts this).
    ///
    /// [`check_passes`]: retro_engine::solve::one_byte::check_passes
    fn start(&self, i: Index, own: Own, links: &mut Vec<Link>) -> Result<Start, SolveError> {
        let Some(pos) = self.layout().decode(i) else {
            return Ok(Start::Illegal);
        };
        if self.chess.subs.is_rules_only() {
            // No sub-table to tell a move's legality: every move played out.
            return self.start_by_legal_moves(i, &pos, links);
        }
        let mut tally = start::ExitTally::default();
        self.each_exit(&pos, |to| tally.outcome(i, to, links));
        if self.tiered {
            self.each_push(&pos, own, &mut |v| tally.value(v));
        }
        Ok(tally.settle(&pos, !self.tiered))
    }

    fn legal(&self, i: Index) -> bool {
        self.layout().decode(i).is_some()
    }

    /// The un-moves of [`moves::each_unmove`] without its legality test: a position before
    /// that is not legal (the side to move in `i` in check there) is an illegal slot,
    /// which the solver ignores. Only the kings' distance is kept, since adjacent kings
    /// have no slot. With tiers, no pawn's un-move: it comes from another tier.
    fn predecessors(&self, i: Index, mut f: impl FnMut(Index)) {
        let s = self.slot(i);
        let mover = s.turn.other();
        let occ = s.occ;
        let empty = !occ;
        let pieces = &self.layout().pieces;
        for (&(color, role), &to) in pieces.iter().zip(&s.sq) {
            if color != mover {
                continue;
            }
            let step = self.step(&s, mover, to);
            if role != Role::Pawn {
                let mut from = piece_targets(role, to, occ) & empty;
                while from != 0 {
                    let fr = from.trailing_zeros() as Square;
                    from &= from - 1;
                    f(self.reach(&s, mover, &step, fr));
                }
                continue;
            }
            if self.tiered {
                // A pawn's un-move comes from a lower tier.
                continue;
            }
            let white = mover == Color::White;
            let r = rank(to);
            if (white && r < 2) || (!white && r > 5) {
                continue;
            }
            let one = if white { to - 8 } else { to + 8 };
            if empty & bb(one) == 0 {
                continue;
            }
            f(self.reach(&s, mover, &step, one));
            if r == if white { 3 } else { 4 } {
                let two = if white { one - 8 } else { one + 8 };
                // A double step that allows en passant is a link, not an un-move.
                if empty & bb(two) != 0 && !self.allows_en_passant(&s, mover, two, to, false) {
                    f(self.reach(&s, mover, &step, two));
                }
            }
        }
        let (to, other) = if mover == Color::White {
            (s.wk, s.bk)
        } else {
            (s.bk, s.wk)
        };
        let step = self.step(&s, mover, to);
        let mut from = KING[to as usize] & empty & !KING[other as usize];
        while from != 0 {
            let fr = from.trailing_zeros() as Square;
            from &= from - 1;
            f(self.reach(&s, mover, &step, fr));
        }
    }

    /// Pseudo-legal moves, no legality test: a move leaving the mover's king attacked
    /// reaches an illegal slot, which the solver accepts. Most candidates are refuted by
    /// one of their first moves.
    fn targets(&self, i: Index, mut ok: impl FnMut(Index) -> bool) -> bool {
        let s = self.slot(i);
        let us = s.turn;
        let next = us.other();
        let occ = s.occ;
        let empty = !occ;
        let (own_king, enemy_king) = if us == Color::White {
            (s.wk, s.bk)
        } else {
            (s.bk, s.wk)
        };
        // The pieces whose digits of the index weigh least come first and the king last:
        // their targets lie near this slot in memory, so the move that refutes is most
        // often found without a cache miss (the order of the checks does not matter).
        let white = us == Color::White;
        let pieces = &self.layout().pieces;
        for k in (0..pieces.len()).rev() {
            let (color, role) = pieces[k];
            if color != us {
                continue;
            }
            let from = s.sq[k];
            let step = self.step(&s, next, from);
            if role != Role::Pawn {
                let mut to_set = piece_targets(role, from, occ) & empty;
                while to_set != 0 {
                    let to = to_set.trailing_zeros() as Square;
                    to_set &= to_set - 1;
                    if !ok(self.reach(&s, next, &step, to)) {
                        return false;
                    }
                }
                continue;
            }
            let one = if white { from + 8 } else { from - 8 };
            // A push to the last rank promotes: it leaves the table. With tiers, every
            // pawn move leaves the tier.
            if self.tiered || empty & bb(one) == 0 || rank(one) == 7 || rank(one) == 0 {
                continue;
            }
            if !ok(self.reach(&s, next, &step, one)) {
                return false;
            }
            let start = rank(from) == if white { 1 } else { 6 };
            let two = if white { one + 8 } else { one - 8 };
            if start && empty & bb(two) != 0 {
                // A double step that allows en passant is a link, checked apart.
                if !self.allows_en_passant(&s, us, from, two, true)
                    && !ok(self.reach(&s, next, &step, two))
                {
                    return false;
                }
            }
        }
        let from = own_king;
        let step = self.step(&s, next, from);
        // Next to the other king is no slot at all.
        let mut to_set = KING[from as usize] & empty & !KING[enemy_king as usize];
        while to_set != 0 {
            let to = to_set.trailing_zeros() as Square;
            to_set &= to_set - 1;
            if !ok(self.reach(&s, next, &step, to)) {
                return false;
            }
        }
        true
    }

    /// The moves are walked in order until the first ordinary move achieving the value,
    /// from the values alone; only the captures, promotions and double steps before it
    /// are then worked out, each a probe of a sub-table.
    fn first_move(&self, i: Index, wanted: impl Fn(Outcome) -> bool) -> u8 {
        let s = self.slot(i);
        let pos = self.position(&s);
        let next = s.turn.other();
        BEFORE.with(|b| {
            let mut before = b.borrow_mut();
            before.clear();
            let mut rank = 0usize;
            let mut found = None;
            let mut last = None;
            moves::walk_legal(&pos, |m| {
                rank += 1;
                if m.converts() || m.is_double_step() {
                    before.push((rank, *m));
                    return true;
                }
                let step = self.step_from(&mut last, &s, next, m.from);
                if wanted(Outcome::Index(self.reach(&s, next, step, m.to))) {
                    found = Some(rank);
                    return false;
                }
                true
            });
            before
                .iter()
                .find(|(_, m)| wanted(self.chess.outcome(m, &make(&pos, m), false)))
                .map(|&(k, _)| k)
                .or(found)
                .map_or(retro_engine::game::NO_MOVE, |k| k as u8)
        })
    }

    fn group(&self) -> usize {
        self.layout().group_len()
    }

    fn metric(&self) -> Metric {
        self.metric
    }

    fn deepest_exit(&self) -> u16 {
        if self.metric == Metric::Dtz {
            // A zeroing move counts 1 or 101 plies.
            crate::rules::position::FIFTY_MOVES + 1
        } else if self.chess.subs.is_rules_only() {
            retro_engine::game::MAX_LOSS_PLIES
        } else {
            self.chess.subs.deepest()
        }
    }

    fn tiers(&self) -> u8 {
        self.tier_count()
    }

    fn tier(&self, i: Index) -> u8 {
        self.tier_of(i)
    }

    fn group_tier(&self, first: Index, len: usize, t: u8) -> u64 {
        self.tier_in_group(first, len, t)
    }

    fn group_start(
        &self,
        first: Index,
        mask: u64,
        own: Own,
        links: &mut Vec<Link>,
        out: impl FnMut(Index, Start),
    ) -> Result<(), SolveError> {
        self.start_group(first, mask, own, links, out)
    }

    fn group_predecessors(&self, first: Index, mask: u64, f: impl FnMut(Index, u64)) {
        self.predecessors_of_group(first, mask, f)
    }

    /// Asked of the slots about to be lost, each played out: most have a king move, found
    /// first.
    fn group_movable(&self, first: Index, mask: u64) -> Option<u64> {
        let mut movable = 0;
        for b in bits(mask) {
            let s = self.slot(first + b);
            if moves::has_quiet_move(&self.position(&s), !self.tiered) {
                movable |= 1 << b;
            }
        }
        Some(movable)
    }

    fn group_refuted(&self, first: Index, mask: u64, ok: impl FnMut(Index, u64) -> u64) -> u64 {
        self.refuted_in_group(first, mask, ok)
    }

    fn group_first_moves(
        &self,
        first: Index,
        mask: u64,
        values: &impl Values,
        out: impl FnMut(Index, u8),
    ) {
        self.best_moves_of_group(first, mask, values, out)
    }

    fn group_reads(&self, first: Index, out: impl FnMut(Index)) {
        self.best_reads(first, out)
    }

    fn slowest_exit(&self, i: Index, own: Own) -> u16 {
        if let Some(w) = self.slowest_exit_fast(i, own) {
            return w;
        }
        let pos = self.position(&self.slot(i));
        let mut slowest = 0;
        self.each_exit(&pos, |to| {
            if let Outcome::Known(Value::Win(w)) = to {
                slowest = slowest.max(w);
            }
        });
        slowest
    }
}

/// A move without promotion (nor en passant).
pub(super) fn mv(role: Role, from: Square, to: Square, capture: Option<Role>) -> Move {
    Move {
        role,
        from,
        to,
        promotion: None,
        capture,
        en_passant: false,
    }
}

/// The squares a piece of `role` (not a pawn) on `from` attacks, with `occ` occupied.
#[inline]
fn piece_targets(role: Role, from: Square, occ: u64) -> u64 {
    if role == Role::Pawn {
        unreachable!("pawns move apart");
    }
    // Every other piece attacks alike for either colour.
    attacks(Color::White, role, from, occ)
}
