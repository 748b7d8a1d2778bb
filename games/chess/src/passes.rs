//! The chess passes of the one-byte solver ([`retro_engine::solve::one_byte`]): moves and
//! un-moves of a stored position found on its squares, and the slots they lead to worked
//! out by moving one square in the index ([`Layout::slot_of`]), not by building and
//! encoding positions. A forward check stops at the first move that does not yet lose.
//! The un-moves come from [`moves::each_unmove`], the plug-in's own generator.
//!
//! The rules are those of [`super::moves`], which the generic plug-in uses: the same
//! un-moves (no captures, no promotions, no double step that allows en passant) and the
//! same legal moves, so the values, and the table, are the same (tested on whole tables
//! against the two-queue solver).

use std::cell::RefCell;

use super::board::{bb, rank, Square, KING};
use super::index::Layout;
use super::material::{Color, Role};
use super::moves::{self, en_passant_after, legal_moves, make, Move};
use super::{Chess, Position};
use retro_engine::game::{Index, Outcome};
use retro_engine::solve::one_byte::{Link, Passes, Start};
use retro_engine::solve::SolveError;

/// A stored slot on the board: its position and squares.
struct Slot {
    pos: Position,
    wk: Square,
    bk: Square,
    /// The pieces' squares in [`Layout::pieces`] order.
    sq: [Square; 4],
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
}

impl<'a> ChessPasses<'a> {
    pub(super) fn new(chess: &'a Chess) -> Self {
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
        ChessPasses {
            chess,
            stride,
            twin,
        }
    }
}

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

    /// Slot `i`, which must hold a legal position.
    fn slot(&self, i: Index) -> Slot {
        let l = self.layout();
        let (turn, wk, bk, sq) = l.squares_of(i).expect("a slot of the table");
        let pair = l.plain_pair(wk, bk);
        let mut pos = Position::empty();
        pos.turn = turn;
        // A legal slot's squares are distinct: nothing to clear first.
        pos.place(wk, Color::White, Role::King);
        pos.place(bk, Color::Black, Role::King);
        for (&(c, r), &s) in l.pieces.iter().zip(&sq) {
            pos.place(s, c, r);
        }
        Slot {
            pos,
            wk,
            bk,
            sq,
            at: if i < l.section { i } else { i - l.section },
            pair,
        }
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

    /// The legal moves of `pos`, in the thread's list.
    fn with_moves<T>(pos: &Position, f: impl FnOnce(&[Move]) -> T) -> T {
        MOVES.with(|m| {
            let mut m = m.borrow_mut();
            m.clear();
            legal_moves(pos, &mut m);
            f(&m)
        })
    }
}

impl Passes for ChessPasses<'_> {
    fn slots(&self) -> u64 {
        2 * self.layout().section
    }

    fn start(&self, i: Index, links: &mut Vec<Link>) -> Result<Start, SolveError> {
        let Some(pos) = self.layout().decode(i) else {
            return Ok(Start::Illegal);
        };
        MOVES.with(|m| {
            let mut ms = m.borrow_mut();
            ms.clear();
            // With a quiet king step, a move stays inside the table: only the moves
            // that may leave it need listing.
            let mut inside = moves::exits_beside_king_step(&pos, &mut ms);
            if !inside {
                legal_moves(&pos, &mut ms);
                if ms.is_empty() {
                    return Ok(Start::Final(moves::terminal(&pos).expect("no legal move")));
                }
            }
            let mut exits = Vec::new();
            for m in ms.iter() {
                if m.converts() || m.is_double_step() {
                    match self.chess.outcome(m, &make(&pos, m), false) {
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

    fn legal(&self, i: Index) -> bool {
        self.layout().decode(i).is_some()
    }

    fn predecessors(&self, i: Index, mut f: impl FnMut(Index)) {
        let s = self.slot(i);
        let mover = s.pos.turn.other();
        let mut last = None;
        moves::each_unmove(&s.pos, |_, now, before| {
            let step = self.step_from(&mut last, &s, mover, now);
            f(self.reach(&s, mover, step, before))
        });
    }

    /// Pseudo-legal moves first, legality only where it matters: a move whose target is
    /// accepted needs no test, and only a move that would refute the check (its target
    /// not accepted, illegal slots included) is played out to see if it is legal. Most
    /// candidates are refuted by one of their first moves.
    fn targets(&self, i: Index, mut ok: impl FnMut(Index) -> bool) -> bool {
        let s = self.slot(i);
        let pos = &s.pos;
        let us = pos.turn;
        let next = us.other();
        let occ = pos.occupied();
        let empty = !occ;
        let enemy_king = pos.king(next);
        // A legal move refutes; an illegal one (own king left in check) does not count.
        let refutes = |from: Square, to: Square, role: Role| {
            let mut b = *pos;
            let both = bb(from) | bb(to);
            b.roles[role as usize] ^= both;
            b.colors[us as usize] ^= both;
            !b.in_check(us)
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
                let mut to_set = moves::targets(pos, us, role, from, occ) & empty;
                while to_set != 0 {
                    let to = to_set.trailing_zeros() as Square;
                    to_set &= to_set - 1;
                    if !ok(self.reach(&s, next, &step, to)) && refutes(from, to, role) {
                        return false;
                    }
                }
                continue;
            }
            let one = if white { from + 8 } else { from - 8 };
            // A push to the last rank promotes: it leaves the table.
            if empty & bb(one) == 0 || rank(one) == 7 || rank(one) == 0 {
                continue;
            }
            if !ok(self.reach(&s, next, &step, one)) && refutes(from, one, Role::Pawn) {
                return false;
            }
            let start = rank(from) == if white { 1 } else { 6 };
            let two = if white { one + 8 } else { one - 8 };
            if start && empty & bb(two) != 0 {
                let m = Move {
                    role: Role::Pawn,
                    from,
                    to: two,
                    promotion: None,
                    capture: None,
                    en_passant: false,
                };
                // A double step that allows en passant is a link, checked apart.
                if en_passant_after(&make(pos, &m), &m).is_empty()
                    && !ok(self.reach(&s, next, &step, two))
                    && refutes(from, two, Role::Pawn)
                {
                    return false;
                }
            }
        }
        let from = pos.king(us);
        let step = self.step(&s, next, from);
        // Next to the other king is no slot at all.
        let mut to_set =
            moves::targets(pos, us, Role::King, from, occ) & empty & !KING[enemy_king as usize];
        while to_set != 0 {
            let to = to_set.trailing_zeros() as Square;
            to_set &= to_set - 1;
            if !ok(self.reach(&s, next, &step, to)) && refutes(from, to, Role::King) {
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
        let next = s.pos.turn.other();
        BEFORE.with(|b| {
            let mut before = b.borrow_mut();
            before.clear();
            let mut rank = 0usize;
            let mut found = None;
            let mut last = None;
            moves::walk_legal(&s.pos, |m| {
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
                .find(|(_, m)| wanted(self.chess.outcome(m, &make(&s.pos, m), false)))
                .map(|&(k, _)| k)
                .or(found)
                .map_or(retro_engine::game::NO_MOVE, |k| k as u8)
        })
    }

    fn slowest_exit(&self, i: Index) -> u16 {
        let pos = self.slot(i).pos;
        Self::with_moves(&pos, |ms| {
            ms.iter()
                .filter(|m| m.converts() || m.is_double_step())
                .filter_map(|m| match self.chess.outcome(m, &make(&pos, m), false) {
                    Outcome::Known(retro_engine::game::Value::Win(w)) => Some(w),
                    _ => None,
                })
                .max()
                .unwrap_or(0)
        })
    }
}
