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
//! The walk goes move by move for all the group's slots at once ([`Lanes`]), not slot by
//! slot: a move of a king or fixed piece takes every slot to the same group, so its
//! targets lie in one cache line, read once. Where the solver gives its bytes
//! ([`Values::codes`]), that line is settled a word of slots at a time: legal where the
//! byte is not the illegal one, achieving where it is the byte the slot wants, with no
//! slot number worked out and no value decoded. A fixed pawn's moves are made once a
//! group too, each for the slots it is a move of. The last piece's own moves stay in one
//! group, read as a line, a slot's moves up to each capture counted at once; captures and
//! promotions are read slot by slot.
//!
//! [`Passes::group_first_moves`]: retro_engine::solve::one_byte::Passes::group_first_moves

use std::cell::RefCell;

use super::group::{Group, Reach, Who};
use super::lanes::Lanes;
use super::{mv, piece_targets, ChessPasses};
use crate::indexing::index::transform;
use crate::rules::board::{bb, pawn_attacks, rank, squares, Square, KING};
use crate::rules::lines::BETWEEN;
use crate::rules::material::{Color, Role};
use crate::rules::moves::{self, make, Move};
use crate::Position;
use retro_engine::game::{Index, Value, NO_MOVE};
use retro_engine::solve::one_byte::{bits, first_slots, Values};

thread_local! {
    /// The moves that leave the table, and the double steps, met before the first
    /// ordinary move achieving the value: the lane, the rank, the move.
    static BEFORE: RefCell<Vec<(u8, u8, Move)>> = RefCell::new(Vec::with_capacity(64));
    /// A group's movers, and those of the group asked for ahead ([`Movers::first`]).
    static MOVER_LIST: RefCell<[Movers; 2]> = const { RefCell::new([Movers::NONE; 2]) };
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

/// The movers of a group, in move order.
#[derive(Clone, Copy)]
struct Movers {
    /// Whose they are: the passes' [`ChessPasses::id`] and the group's first slot
    /// (`Index::MAX`: none yet).
    id: u64,
    first: Index,
    count: usize,
    list: [Mover; MOVERS],
}

impl Movers {
    const NONE: Movers = Movers {
        id: 0,
        first: Index::MAX,
        count: 0,
        list: [Mover {
            role: Role::King,
            from: 0,
            who: Who::Last,
            dests: 0,
            quiet: 0,
            at: [0; 64],
            reach: [(0, EACH); 28],
        }; MOVERS],
    };
}

/// The squares of a group's fixed pieces: the side to move's (with its king), the
/// opponent's (with theirs).
struct Fixed {
    own: u64,
    enemy: u64,
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
        values: &impl Values,
        mut out: impl FnMut(Index, u8),
    ) {
        let value = |q: Index| values.value(q);
        let g = self.group_at(first);
        let l = self.layout();
        let n = l.pieces.len();
        let us = g.turn;
        let next = us.other();
        let mut base = Position::empty();
        base.turn = us;
        base.place(g.wk, Color::White, Role::King);
        base.place(g.bk, Color::Black, Role::King);
        for (&(c, r), &x) in l.pieces[..n - 1].iter().zip(&g.sq) {
            base.place(x, c, r);
        }
        let Fixed {
            own: own_fixed,
            enemy: enemy_fixed,
        } = self.fixed(&g);
        let occ_fixed = own_fixed | enemy_fixed;
        let (last_color, last_role) = l.pieces[n - 1];
        let last_ours = last_color == us;
        // Lane `b` of the masks below is the group's slot `first + b`, the last piece on
        // `last_square(b)`.
        let lanes_of = |squares: u64| -> u64 {
            if self.last_pawn {
                (squares >> 8) & first_slots(48)
            } else {
                squares
            }
        };
        let pos_of = |s: Square| {
            let mut pos = base;
            pos.place(s, last_color, last_role);
            pos
        };
        let sq_of = |s: Square| {
            let mut sq = g.sq;
            sq[n - 1] = s;
            sq
        };

        MOVER_LIST.with(|list| {
            let mut lists = list.borrow_mut();
            let k = self.ahead_slot(first);
            if (lists[k].id, lists[k].first) != (self.id, first) {
                self.movers_of(&g, first, &mut lists[k]);
            }
            let movers = &lists[k].list[..lists[k].count];

            BEFORE.with(|before| {
                let mut before = before.borrow_mut();
                before.clear();
                let len = l.group_len();
                // Where the values come as codes, a move of the whole group is settled
                // on its target's line, a word of lanes at a time.
                let mut line = [0u8; 64];
                let by_line = values.codes(first, &mut line[..len]);
                let mut lanes = Lanes::new(mask, values.code(Value::Illegal));
                for b in bits(mask).map(|b| b as usize) {
                    if by_line {
                        // `line` holds the group's own codes.
                        let c = line[b];
                        lanes.look_for(b, values.code_value(c), values.ahead_code(c));
                    } else {
                        // No code is looked for.
                        lanes.look_for(b, value(first + b as Index), 0);
                    }
                }
                // A move of lane `b` that leaves the table: read by its route (an illegal
                // one reaches an illegal slot of its sub-table). A double step is played
                // out now, since its legality decides the rank of every later move; its
                // value is looked up only if no earlier move achieves the value.
                let exit =
                    |lanes: &mut Lanes, before: &mut Vec<(u8, u8, Move)>, b: usize, m: Move| {
                        let s = self.last_square(b as Index);
                        if !m.is_double_step() {
                            if let Some(v) = self.exit_value(first, us, g.wk, g.bk, &sq_of(s), &m) {
                                lanes.count(b, v);
                                return;
                            }
                        }
                        if !make(&pos_of(s), &m).in_check(us) {
                            let k = lanes.step(b);
                            before.push((b as u8, k, m));
                        }
                    };
                let capture = |t: Square| base.piece_at(t).expect("a piece to take").1;
                // The last piece's own moves, lane by lane, until each lane's value is met.
                // The last piece's moves stay in the group of the other side to move
                // (unless the board turns, or its twin changes places with it): their
                // codes are read once, as a line.
                let mut home = [0u8; 64];
                let home_line = by_line && last_ours && !self.last_twin && self.plain(&g) && {
                    let at = self.last_moves_to(&g, next, self.last_square(0), 0);
                    values.codes(at, &mut home[..len])
                };
                let home_legal = lanes.legal_in(&home);
                let last_to = |lanes: &mut Lanes, b: usize, to: Square, s: Square| {
                    if home_line {
                        lanes.count_code(b, home[self.digit_of_last(to) as usize]);
                    } else {
                        lanes.count(b, value(self.last_moves_to(&g, next, to, s)));
                    }
                };
                let last_moves = |lanes: &mut Lanes, before: &mut Vec<(u8, u8, Move)>, due: u64| {
                    for b in bits(due & lanes.active()).map(|b| b as usize) {
                        let s = self.last_square(b as Index);
                        if last_role == Role::Pawn {
                            moves::pawn_moves(&pos_of(s), s, true, &mut |m| {
                                if m.converts() || m.is_double_step() {
                                    exit(lanes, before, b, m);
                                } else {
                                    last_to(lanes, b, m.to, s);
                                }
                                lanes.is_active(b)
                            });
                            continue;
                        }
                        let occ = occ_fixed | bb(s);
                        let targets = piece_targets(last_role, s, occ) & !own_fixed & !bb(s);
                        if home_line {
                            // Lane `t` of the line is the last piece on `t`. In square
                            // order: the moves up to each capture counted at once.
                            let (mut quiet, mut takes) =
                                (targets & !enemy_fixed, targets & enemy_fixed);
                            loop {
                                let upto = if takes != 0 {
                                    (takes & takes.wrapping_neg()) - 1
                                } else {
                                    !0
                                };
                                lanes.count_lanes(b, quiet & upto, home_legal, &home);
                                quiet &= !upto;
                                if takes == 0 || !lanes.is_active(b) {
                                    break;
                                }
                                let t = takes.trailing_zeros() as Square;
                                exit(lanes, before, b, mv(last_role, s, t, Some(capture(t))));
                                takes &= takes - 1;
                                if !lanes.is_active(b) {
                                    break;
                                }
                            }
                            continue;
                        }
                        for t in squares(targets) {
                            if enemy_fixed & bb(t) != 0 {
                                exit(lanes, before, b, mv(last_role, s, t, Some(capture(t))));
                            } else {
                                last_to(lanes, b, t, s);
                            }
                            if !lanes.is_active(b) {
                                break;
                            }
                        }
                    }
                };
                // The lanes whose last piece comes before a mover with this key.
                let last_before = |key: (u8, Square)| -> u64 {
                    let last_order = order(last_role);
                    if last_order < key.0 {
                        !0
                    } else if last_order == key.0 {
                        lanes_of(bb(key.1) - 1)
                    } else {
                        0
                    }
                };
                // A quiet move of mover `m` to `t` from the lanes `go`: the slots reached
                // lie together, so their cache line is read once.
                let quiet_move =
                    |lanes: &mut Lanes, line: &mut [u8; 64], go: u64, m: &Mover, t: Square| match m
                        .reach[m.at[t as usize] as usize]
                    {
                        (q, sym) if by_line && sym != EACH => {
                            values.codes(q, &mut line[..len]);
                            if sym != 0 {
                                let p = &self.lane_perm[sym as usize];
                                let got = *line;
                                for b in 0..len {
                                    line[b] = got[p[b] as usize];
                                }
                            }
                            lanes.count_line(go, line);
                        }
                        _ => {
                            for b in bits(go).map(|b| b as usize) {
                                let s = self.last_square(b as Index);
                                lanes.count(b, value(self.slot_of_reach(&g, m, t, s)));
                            }
                        }
                    };
                let mut last_pending = if last_ours { mask } else { 0 };
                for m in movers {
                    if lanes.active() == 0 {
                        break;
                    }
                    let due = last_pending & last_before((order(m.role), m.from));
                    if due != 0 {
                        last_pending &= !due;
                        last_moves(&mut lanes, &mut before, due);
                    }
                    if m.role == Role::Pawn {
                        // Its moves as `moves::pawn_moves` makes them (destinations in
                        // square order, promotions queen to knight), for every lane at
                        // once: lane by lane, only the last piece differs, in the way
                        // or to be taken.
                        let white = us == Color::White;
                        let one = if white { m.from + 8 } else { m.from - 8 };
                        let two = if white { one + 8 } else { one - 8 };
                        let promotes = rank(one) == 7 || rank(one) == 0;
                        let caps = pawn_attacks(white, m.from);
                        let mut dests = caps;
                        if occ_fixed & bb(one) == 0 {
                            dests |= bb(one);
                            let start = rank(m.from) == if white { 1 } else { 6 };
                            if start && occ_fixed & bb(two) == 0 {
                                dests |= bb(two);
                            }
                        }
                        let pawn_move = |to: Square, capture: Option<Role>| Move {
                            role: Role::Pawn,
                            from: m.from,
                            to,
                            promotion: None,
                            capture,
                            en_passant: false,
                        };
                        // Move `mo` from the lanes `go` still looking, each promotion in turn.
                        let each = |lanes: &mut Lanes,
                                    before: &mut Vec<(u8, u8, Move)>,
                                    go: u64,
                                    mo: Move| {
                            let mut from_lanes = |mo: Move| {
                                for b in bits(go & lanes.active()).map(|b| b as usize) {
                                    exit(lanes, before, b, mo);
                                }
                            };
                            if !promotes {
                                return from_lanes(mo);
                            }
                            for p in Role::PROMOTIONS {
                                from_lanes(Move {
                                    promotion: Some(p),
                                    ..mo
                                });
                            }
                        };
                        for to in squares(dests) {
                            let go = lanes.active();
                            if go == 0 {
                                break;
                            }
                            let at_to = lanes_of(bb(to));
                            if to == one && !promotes {
                                let go = go & !at_to;
                                if go != 0 {
                                    quiet_move(&mut lanes, &mut line, go, m, to);
                                }
                            } else if to == one {
                                each(&mut lanes, &mut before, go & !at_to, pawn_move(to, None));
                            } else if to == two {
                                let go = go & !at_to & !lanes_of(bb(one));
                                each(&mut lanes, &mut before, go, pawn_move(to, None));
                            } else if enemy_fixed & bb(to) != 0 {
                                let mo = pawn_move(to, Some(capture(to)));
                                each(&mut lanes, &mut before, go, mo);
                            } else if !last_ours {
                                let mo = pawn_move(to, Some(last_role));
                                each(&mut lanes, &mut before, go & at_to, mo);
                            }
                        }
                        continue;
                    }
                    let slider = matches!(m.role, Role::Queen | Role::Rook | Role::Bishop);
                    // Destination by destination, every lane still looking: the slots
                    // reached lie together, so their cache line is read once.
                    for t in squares(m.dests) {
                        let mut go = lanes.active();
                        if slider {
                            // The last piece standing between: no move there.
                            go &= !lanes_of(BETWEEN[m.from as usize][t as usize]);
                        }
                        let at_t = lanes_of(bb(t));
                        if last_ours {
                            go &= !at_t;
                        } else if go & at_t != 0 {
                            // It takes the last piece.
                            go &= !at_t;
                            let b = at_t.trailing_zeros() as usize;
                            exit(
                                &mut lanes,
                                &mut before,
                                b,
                                mv(m.role, m.from, t, Some(last_role)),
                            );
                        }
                        if enemy_fixed & bb(t) != 0 {
                            let taken = capture(t);
                            for b in bits(go).map(|b| b as usize) {
                                exit(
                                    &mut lanes,
                                    &mut before,
                                    b,
                                    mv(m.role, m.from, t, Some(taken)),
                                );
                            }
                        } else if go != 0 {
                            quiet_move(&mut lanes, &mut line, go, m, t);
                        }
                    }
                }
                last_moves(&mut lanes, &mut before, last_pending);
                // The deferred moves, each lane's in its order, before its first achieving
                // move read from the table.
                let mut decided = 0u64;
                for &(b, k, m) in before.iter() {
                    if decided & 1 << b != 0 {
                        continue;
                    }
                    let pos = pos_of(self.last_square(b as Index));
                    let own = lanes.own(b as usize);
                    if self
                        .chess
                        .outcome(&m, &make(&pos, &m), false)
                        .value(value)
                        .back()
                        == own
                    {
                        decided |= 1 << b;
                        out(b as Index, k);
                    }
                }
                for b in bits(mask & !decided) {
                    out(b, lanes.found(b as usize).unwrap_or(NO_MOVE));
                }
            });
        });
    }

    /// [`Passes::group_reads`](retro_engine::solve::one_byte::Passes::group_reads): the
    /// groups that the quiet moves of the kings and fixed pieces reach, worked out now
    /// and kept for [`ChessPasses::best_moves_of_group`].
    pub(super) fn best_reads(&self, first: Index, mut out: impl FnMut(Index)) {
        let g = self.group_at(first);
        MOVER_LIST.with(|list| {
            let movers = &mut list.borrow_mut()[self.ahead_slot(first)];
            self.movers_of(&g, first, movers);
            for m in &movers.list[..movers.count] {
                for &(q, t) in &m.reach[..m.quiet.count_ones() as usize] {
                    if t != EACH {
                        out(q);
                    }
                }
            }
        });
    }

    /// Which of the two kept mover lists is the group's: consecutive groups alternate, so
    /// the group asked for ahead does not replace the one being worked on.
    fn ahead_slot(&self, first: Index) -> usize {
        (first / self.layout().group_len() as Index % 2) as usize
    }

    /// The squares of group `g`'s kings and fixed pieces, by side.
    fn fixed(&self, g: &Group) -> Fixed {
        let l = self.layout();
        let (mut own, mut enemy) = if g.turn == Color::White {
            (bb(g.wk), bb(g.bk))
        } else {
            (bb(g.bk), bb(g.wk))
        };
        for (&(c, _), &x) in l.pieces[..l.pieces.len() - 1].iter().zip(&g.sq) {
            if c == g.turn {
                own |= bb(x);
            } else {
                enemy |= bb(x);
            }
        }
        Fixed { own, enemy }
    }

    /// The movers of group `g` (at `first`) in move order, their quiet destinations'
    /// groups worked out.
    fn movers_of(&self, g: &Group, first: Index, movers: &mut Movers) {
        let l = self.layout();
        let n = l.pieces.len();
        let us = g.turn;
        let next = us.other();
        let (own_king, enemy_king) = if us == Color::White {
            (g.wk, g.bk)
        } else {
            (g.bk, g.wk)
        };
        let Fixed {
            own: own_fixed,
            enemy: enemy_fixed,
        } = self.fixed(g);
        let occ_fixed = own_fixed | enemy_fixed;
        let mut count = 0;
        let mut add = |role: Role, from: Square, who: Who| {
            let m = &mut movers.list[count];
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
                m.reach[k] = match self.reach_group(g, next, who, t) {
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
        movers.list[..count].sort_unstable_by_key(|m| (order(m.role), m.from));
        (movers.id, movers.first, movers.count) = (self.id, first, count);
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
