//! The best moves of a group's slots ([`Passes::group_first_moves`]), once the values are
//! known: the moves of each position walked in the plug-in's move order until the first
//! that achieves its value.
//!
//! The moves of the kings and fixed pieces are worked out once a group, each destination
//! with the group it leads to; a position then only drops what its last piece blocks or
//! occupies, and adds the last piece's own moves at their place in the order. A move is
//! generated pseudo-legally and its legality read from the table: a move inside it is
//! legal exactly when the slot it reaches holds a position (the mover's king not
//! attacked, the opponent to move); a capture or promotion when the slot of its
//! sub-table does, read by the start pass's routes. Only the double steps are played
//! out.
//!
//! [`Passes::group_first_moves`]: retro_engine::solve::one_byte::Passes::group_first_moves

use std::cell::{Cell, RefCell};

use super::group::{Group, Reach, Who};
use super::{piece_targets, ChessPasses};
use crate::board::{bb, rank, squares, Square, KING};
use crate::index::transform;
use crate::material::{Color, Role};
use crate::moves::{self, make, Move};
use crate::Position;
use retro_engine::game::{Index, Value, NO_MOVE};
use retro_engine::solve::one_byte::bits;

thread_local! {
    /// The moves that leave the table, and the double steps, met before the first
    /// ordinary move achieving the value, with their ranks.
    static BEFORE: RefCell<Vec<(usize, Move)>> = RefCell::new(Vec::with_capacity(32));
    /// A group's movers.
    static MOVER_LIST: RefCell<[Mover; MOVERS]> = const {
        RefCell::new(
            [Mover {
                role: Role::King,
                from: 0,
                who: Who::Last,
                dests: 0,
                quiet: 0,
                at: [0; 64],
                reach: [(0, EACH); 28],
            }; MOVERS],
        )
    };
}

/// Where a role comes in the move order: king first, pawn last.
fn order(role: Role) -> u8 {
    5 - role as u8
}

/// A piece of the side to move other than the last piece, its moves on the fixed squares.
#[derive(Clone, Copy)]
struct Mover {
    role: Role,
    from: Square,
    who: Who,
    /// Destinations with the fixed pieces alone on the board, own pieces excluded (not
    /// for a pawn, whose moves are made per position).
    dests: u64,
    /// Those not taking a fixed piece: the quiet moves, each with where the group goes.
    quiet: u64,
    /// Per quiet destination square: its entry in `reach`.
    at: [u8; 64],
    /// Per quiet destination, in square order: the group reached and the symmetry turning
    /// the last piece's square ([`EACH`]: slot by slot).
    reach: [(Index, u8); 28],
}

/// In [`Mover::reach`]: the move's slot depends on where the last piece stands.
const EACH: u8 = u8::MAX;

/// At most: the king and the fixed pieces of one side.
const MOVERS: usize = 5;

impl ChessPasses<'_> {
    pub(super) fn best_moves_of_group(
        &self,
        first: Index,
        mask: u64,
        value: impl Fn(Index) -> Value,
        mut out: impl FnMut(Index, u8),
    ) {
        let g = self.group_at(first);
        let l = self.layout();
        let n = l.pieces.len();
        let us = g.turn;
        let next = us.other();
        let (own_king, enemy_king) = if us == Color::White {
            (g.wk, g.bk)
        } else {
            (g.bk, g.wk)
        };
        let mut base = Position::empty();
        base.turn = us;
        base.place(g.wk, Color::White, Role::King);
        base.place(g.bk, Color::Black, Role::King);
        let (mut own_fixed, mut enemy_fixed) = (bb(own_king), bb(enemy_king));
        for (&(c, r), &x) in l.pieces[..n - 1].iter().zip(&g.sq) {
            base.place(x, c, r);
            if c == us {
                own_fixed |= bb(x);
            } else {
                enemy_fixed |= bb(x);
            }
        }
        let occ_fixed = own_fixed | enemy_fixed;
        let (last_color, last_role) = l.pieces[n - 1];
        let last_ours = last_color == us;

        // The movers in move order, their quiet destinations' groups worked out (in the
        // thread's array: every entry read is written first, for this group).
        MOVER_LIST.with(|list| {
            let mut movers = list.borrow_mut();
            let mut count = 0;
            let mut add = |role: Role, from: Square, who: Who| {
                let m = &mut movers[count];
                count += 1;
                (m.role, m.from, m.who, m.dests, m.quiet) = (role, from, who, 0, 0);
                if role == Role::Pawn {
                    // Its pushes inside the table (the moves themselves are made per position).
                    let white = us == Color::White;
                    let one = if white { from + 8 } else { from - 8 };
                    if occ_fixed & bb(one) == 0 && rank(one) != 7 && rank(one) != 0 {
                        m.quiet = bb(one);
                        let two = if white { one + 8 } else { one - 8 };
                        if rank(from) == if white { 1 } else { 6 } && occ_fixed & bb(two) == 0 {
                            m.quiet |= bb(two);
                        }
                    }
                } else {
                    m.dests = piece_targets(role, from, occ_fixed) & !own_fixed;
                    if role == Role::King {
                        m.dests &= !KING[enemy_king as usize];
                    }
                    m.quiet = m.dests & !enemy_fixed;
                }
                for (k, t) in squares(m.quiet).enumerate() {
                    m.at[t as usize] = k as u8;
                    m.reach[k] = match self.reach_group(&g, next, who, t) {
                        Reach::Group { first, t } => (first, t),
                        Reach::Each => (0, EACH),
                    };
                }
            };
            add(Role::King, own_king, Who::King(us));
            for k in 0..n - 1 {
                if l.pieces[k].0 == us {
                    add(l.pieces[k].1, g.sq[k], Who::Piece(k));
                }
            }
            let movers = &mut movers[..count];
            movers.sort_unstable_by_key(|m| (order(m.role), m.from));

            BEFORE.with(|before| {
                let mut before = before.borrow_mut();
                for b in bits(mask) {
                    let s = self.last_square(b);
                    let own_value = value(first + b);
                    let (own, enemy) = if last_ours {
                        (own_fixed | bb(s), enemy_fixed)
                    } else {
                        (own_fixed, enemy_fixed | bb(s))
                    };
                    let occ = occ_fixed | bb(s);
                    let mut pos = base;
                    pos.place(s, last_color, last_role);
                    let mut sq = g.sq;
                    sq[n - 1] = s;
                    before.clear();
                    let mut rank_now = 0usize;
                    let found = Cell::new(None);
                    // A move to a value `v` for the opponent: false once it achieves the
                    // value.
                    let counts = |v: Value, rank_now: &mut usize| -> bool {
                        if v == Value::Illegal {
                            return true;
                        }
                        *rank_now += 1;
                        if v.back() == own_value {
                            found.set(Some(*rank_now));
                            return false;
                        }
                        true
                    };
                    // A move that leaves the table: read by its route (an illegal one
                    // reaches an illegal slot of its sub-table). A double step is played
                    // out now, since its legality decides the rank of every later move;
                    // its value is looked up only if no earlier move achieves the value.
                    let mut exit = |m: Move, rank_now: &mut usize| -> bool {
                        if !m.is_double_step() {
                            if let Some(v) = self.exit_value(us, g.wk, g.bk, &sq, &m) {
                                return counts(v, rank_now);
                            }
                        }
                        if !make(&pos, &m).in_check(us) {
                            *rank_now += 1;
                            before.push((*rank_now, m));
                        }
                        true
                    };
                    // A quiet move to slot `q`.
                    let quiet = |q: Index, rank_now: &mut usize| counts(value(q), rank_now);
                    let capture = |t: Square| {
                        if t == s {
                            last_role
                        } else {
                            pos.piece_at(t).expect("a piece to take").1
                        }
                    };
                    let last_key = (order(last_role), s);
                    let mut last_done = !last_ours;
                    let mut go = true;
                    let mut k = 0;
                    while go && (k < movers.len() || !last_done) {
                        let take_last = !last_done
                            && (k == movers.len()
                                || last_key < (order(movers[k].role), movers[k].from));
                        if take_last {
                            last_done = true;
                            if last_role == Role::Pawn {
                                go = moves::pawn_moves(&pos, s, true, &mut |m| {
                                    if m.converts() || m.is_double_step() {
                                        exit(m, &mut rank_now)
                                    } else {
                                        quiet(self.last_moves_to(&g, next, m.to, s), &mut rank_now)
                                    }
                                });
                                continue;
                            }
                            for t in squares(piece_targets(last_role, s, occ) & !own) {
                                let more = if enemy & bb(t) != 0 {
                                    exit(mv(last_role, s, t, Some(capture(t))), &mut rank_now)
                                } else {
                                    quiet(self.last_moves_to(&g, next, t, s), &mut rank_now)
                                };
                                if !more {
                                    go = false;
                                    break;
                                }
                            }
                            continue;
                        }
                        let m = &movers[k];
                        k += 1;
                        if m.role == Role::Pawn {
                            go = moves::pawn_moves(&pos, m.from, true, &mut |mo| {
                                if mo.converts() || mo.is_double_step() {
                                    exit(mo, &mut rank_now)
                                } else {
                                    quiet(self.slot_of_reach(&g, m, mo.to, s), &mut rank_now)
                                }
                            });
                            continue;
                        }
                        let mut dests = m.dests & !own;
                        if m.dests & bb(s) != 0
                            && matches!(m.role, Role::Queen | Role::Rook | Role::Bishop)
                        {
                            // The last piece stands on a line of this slider: nothing beyond it.
                            dests &= piece_targets(m.role, m.from, occ);
                        }
                        for t in squares(dests) {
                            let more = if enemy & bb(t) != 0 {
                                exit(mv(m.role, m.from, t, Some(capture(t))), &mut rank_now)
                            } else {
                                quiet(self.slot_of_reach(&g, m, t, s), &mut rank_now)
                            };
                            if !more {
                                go = false;
                                break;
                            }
                        }
                    }
                    let code = before
                        .iter()
                        .find(|(_, m)| {
                            self.chess
                                .outcome(m, &make(&pos, m), false)
                                .value(&value)
                                .back()
                                == own_value
                        })
                        .map(|&(k, _)| k)
                        .or(found.get())
                        .map_or(NO_MOVE, |k| k as u8);
                    out(b, code);
                }
            });
        });
    }

    /// The slot a quiet move of mover `m` to `t` reaches from the group's slot with the
    /// last piece on `s`.
    #[inline]
    fn slot_of_reach(&self, g: &Group, m: &Mover, t: Square, s: Square) -> Index {
        match m.reach[m.at[t as usize] as usize] {
            (_, EACH) => self.slot_after(g, g.turn.other(), m.who, t, s),
            (first, sym) => first + self.digit_of_last(transform(sym, s)),
        }
    }
}

/// A move without promotion.
fn mv(role: Role, from: Square, to: Square, capture: Option<Role>) -> Move {
    Move {
        role,
        from,
        to,
        promotion: None,
        capture,
        en_passant: false,
    }
}
