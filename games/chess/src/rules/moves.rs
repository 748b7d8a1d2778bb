//! Moves and un-moves for any material.
//!
//! Moves come in a fixed order, which breaks ties between equally good moves and gives
//! the move code stored in tables (the 1-based rank in this order): pieces by role from
//! king down to pawn, each role by origin square (a1 first), each piece by destination,
//! promotions queen, rook, bishop, knight.
//!
//! **En passant.** As in Syzygy and Gaviota, a stored position has no en-passant right.
//! A double step that lets the opponent take en passant leads to the stored position
//! *plus* those captures: its value for the opponent is the better of the stored
//! position's value and the best en-passant capture (the captures alone if the stored
//! position has no move of its own). The engine gets such a move as
//! [`retro_engine::game::Outcome::Augmented`], and un-move generation leaves it out.

use super::board::{
    bb, bishop_attacks, queen_attacks, rank, rook_attacks, squares, Square, KING, KNIGHT,
};
use super::lines::{BETWEEN, LINE};
use super::material::{Color, Role};
use super::position::Position;
use retro_engine::game::Value;

/// One legal move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub role: Role,
    pub from: Square,
    pub to: Square,
    pub promotion: Option<Role>,
    /// The role taken, if any (a pawn for en passant).
    pub capture: Option<Role>,
    pub en_passant: bool,
}

impl Move {
    /// A pawn move of two squares.
    pub fn is_double_step(&self) -> bool {
        self.role == Role::Pawn && self.from.abs_diff(self.to) == 16
    }

    /// True if the move changes the material (capture or promotion): it leaves the table.
    pub fn converts(&self) -> bool {
        self.capture.is_some() || self.promotion.is_some()
    }
}

/// Targets of a piece of `role` on `from` for `color`, before the king-safety test.
pub(super) fn targets(pos: &Position, color: Color, role: Role, from: Square, occ: u64) -> u64 {
    let own = pos.colors[color as usize];
    let t = match role {
        Role::King => KING[from as usize],
        Role::Knight => KNIGHT[from as usize],
        Role::Bishop => bishop_attacks(from, occ),
        Role::Rook => rook_attacks(from, occ),
        Role::Queen => queen_attacks(from, occ),
        Role::Pawn => unreachable!("pawns are generated apart"),
    };
    t & !own
}

/// `f` on every pseudo-legal move in move order, until it returns false (then false).
/// Without `quiet`, only the moves that change the material (captures, promotions) and
/// the double steps: what a solver must look up elsewhere, the rest being index
/// arithmetic.
pub(crate) fn walk_pseudo(pos: &Position, quiet: bool, f: &mut impl FnMut(Move) -> bool) -> bool {
    let us = pos.turn;
    let occ = pos.occupied();
    let them = pos.colors[us.other() as usize];
    let wanted = if quiet { !0 } else { them };
    for role in [
        Role::King,
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
    ] {
        for from in squares(pos.pieces(us, role)) {
            for to in squares(targets(pos, us, role, from, occ) & wanted) {
                let m = Move {
                    role,
                    from,
                    to,
                    promotion: None,
                    capture: pos.piece_at(to).map(|p| p.1),
                    en_passant: false,
                };
                if !f(m) {
                    return false;
                }
            }
        }
    }
    for from in squares(pos.pieces(us, Role::Pawn)) {
        if !pawn_moves(pos, from, quiet, f) {
            return false;
        }
    }
    true
}

/// `f` on the pseudo-legal moves of the pawn of the side to move on `from`, in move order
/// (destinations in square order, promotions queen to knight), until it returns false
/// (then false). Without `quiet`, only its captures, promotions and double steps.
pub(crate) fn pawn_moves(
    pos: &Position,
    from: Square,
    quiet: bool,
    f: &mut impl FnMut(Move) -> bool,
) -> bool {
    let white = pos.turn == Color::White;
    let occ = pos.occupied();
    let them = pos.colors[pos.turn.other() as usize];
    let fwd = |s: Square| if white { s + 8 } else { s - 8 };
    let last = |s: Square| rank(s) == if white { 7 } else { 0 };
    // At most four: two captures and two pushes (no allocation per pawn).
    let mut dests = [(0, None, false); 4];
    let mut n = 0;
    let mut push = |d: (Square, Option<Role>, bool)| {
        dests[n] = d;
        n += 1;
    };
    let caps = super::board::pawn_attacks(white, from);
    let one = fwd(from);
    // Destinations in square order: captures and pushes sorted together.
    for to in squares(caps | bb(one)) {
        if to == one {
            if occ & bb(one) == 0 {
                if quiet || last(one) {
                    push((one, None, false));
                }
                let start = rank(from) == if white { 1 } else { 6 };
                let two = fwd(one);
                if start && occ & bb(two) == 0 {
                    push((two, None, false));
                }
            }
        } else if them & bb(to) != 0 {
            push((to, pos.piece_at(to).map(|p| p.1), false));
        } else if pos.ep == Some(to) {
            push((to, Some(Role::Pawn), true));
        }
    }
    let dests = &mut dests[..n];
    dests.sort_by_key(|d| d.0);
    for &(to, capture, en_passant) in dests.iter() {
        let mut m = Move {
            role: Role::Pawn,
            from,
            to,
            promotion: None,
            capture,
            en_passant,
        };
        if last(to) {
            for p in Role::PROMOTIONS {
                m.promotion = Some(p);
                if !f(m) {
                    return false;
                }
            }
        } else if !f(m) {
            return false;
        }
    }
    true
}

/// `f` on every legal move of `pos` in move order, until it returns false (then false):
/// a search that stops at its first find neither lists nor tests the moves after it.
pub fn walk_legal(pos: &Position, mut f: impl FnMut(&Move) -> bool) -> bool {
    let safety = Safety::new(pos);
    walk_pseudo(pos, true, &mut |m| !safety.allows(pos, &m) || f(&m))
}

/// The legal moves of `pos` that leave the table (captures, promotions) and its double
/// steps, in move order, if `pos` also has a legal quiet king move; `false` (and nothing
/// listed) if it has none, which only a full listing can settle. Most positions have one:
/// a solver classifying every slot then needs neither the other quiet moves nor their
/// tests.
pub fn exits_beside_king_step(pos: &Position, out: &mut Vec<Move>) -> bool {
    let danger = danger(pos);
    let us = pos.turn;
    if KING[pos.king(us) as usize] & !pos.occupied() & !danger == 0 {
        return false;
    }
    let safety = Safety::with_danger(pos, danger);
    walk_pseudo(pos, false, &mut |m| {
        if safety.allows(pos, &m) {
            out.push(m);
        }
        true
    });
    true
}

/// The position after `m` (no en-passant right: see the module documentation).
pub fn make(pos: &Position, m: &Move) -> Position {
    let mut p = *pos;
    let us = pos.turn as usize;
    let (from, to) = (bb(m.from), bb(m.to));
    if let Some(c) = m.capture {
        // En passant takes the pawn beside the destination, not on it.
        let victim = if !m.en_passant {
            to
        } else if pos.turn == Color::White {
            to >> 8
        } else {
            to << 8
        };
        p.roles[c as usize] &= !victim;
        p.colors[1 - us] &= !victim;
    }
    p.roles[m.role as usize] &= !from;
    p.roles[m.promotion.unwrap_or(m.role) as usize] |= to;
    p.colors[us] ^= from | to;
    p.turn = pos.turn.other();
    p.ep = None;
    p
}

thread_local! {
    /// A spare move list per thread, for [`with_legal_moves`].
    static SPARE: std::cell::Cell<Vec<Move>> = const { std::cell::Cell::new(Vec::new()) };
}

/// `f` over the legal moves of `pos`, listed into a buffer kept per thread: a probe of a
/// compressed table lists the moves of every dropped slot it reads, and an allocation
/// each was a tenth of its time. Re-entrant: a call made inside `f` (a sub-table's
/// dropped slot) finds the buffer taken and lists into a new one.
pub fn with_legal_moves<R>(pos: &Position, f: impl FnOnce(&[Move]) -> R) -> R {
    let mut v = SPARE.take();
    v.clear();
    legal_moves(pos, &mut v);
    let r = f(&v);
    SPARE.set(v);
    r
}

/// The 1-based rank, in move order, of the first legal move of `pos` for which `wanted`
/// holds ([`NO_MOVE`](retro_engine::game::NO_MOVE) if none): the move byte of a best
/// move. The walk stops there: the moves after it are neither listed nor tested.
pub fn first_legal_rank(pos: &Position, mut wanted: impl FnMut(&Move) -> bool) -> u8 {
    let (mut rank, mut found) = (0u8, retro_engine::game::NO_MOVE);
    walk_legal(pos, |m| {
        rank += 1;
        if wanted(m) {
            found = rank;
            return false;
        }
        true
    });
    found
}

/// Every legal move of `pos`, in move order.
pub fn legal_moves(pos: &Position, out: &mut Vec<Move>) {
    walk_legal(pos, |m| {
        out.push(*m);
        true
    });
}

/// What decides whether a pseudo-legal move leaves the mover's king safe, computed once
/// per position rather than by playing every move and testing for check.
struct Safety {
    /// Squares the opponent attacks with the mover's king off the board (so a king
    /// stepping back along a checking line is seen as attacked): a king move is legal
    /// exactly when its destination is not among them.
    danger: u64,
    /// Where another move must land: anywhere out of check; in check by one piece, on it
    /// or between it and the king; in double check, nowhere.
    answers: u64,
    /// The mover's pieces pinned to its king: each stays on its line through the king.
    pinned: u64,
    king: Square,
}

/// Squares the opponent of the side to move attacks with that side's king off the board.
fn danger(pos: &Position) -> u64 {
    let king = pos.king(pos.turn);
    pos.attacks(pos.turn.other(), pos.occupied() & !bb(king))
}

impl Safety {
    fn new(pos: &Position) -> Safety {
        Safety::with_danger(pos, danger(pos))
    }

    fn with_danger(pos: &Position, danger: u64) -> Safety {
        let us = pos.turn;
        let king = pos.king(us);
        let answers = if danger & bb(king) == 0 {
            !0
        } else {
            let checkers = checkers(pos, us, king);
            if checkers & (checkers - 1) != 0 {
                0
            } else {
                let c = checkers.trailing_zeros() as usize;
                checkers | BETWEEN[king as usize][c]
            }
        };
        Safety {
            danger,
            answers,
            pinned: pinned(pos, us),
            king,
        }
    }

    fn allows(&self, pos: &Position, m: &Move) -> bool {
        if m.role == Role::King {
            return self.danger & bb(m.to) == 0;
        }
        // En passant removes two pieces from a line: always played out.
        if m.en_passant {
            return !make(pos, m).in_check(pos.turn);
        }
        self.answers & bb(m.to) != 0
            && (self.pinned & bb(m.from) == 0
                || LINE[self.king as usize][m.from as usize] & bb(m.to) != 0)
    }
}

/// The opponent's pieces giving check to `us`'s king on `king`.
fn checkers(pos: &Position, us: Color, king: Square) -> u64 {
    let them = pos.colors[us.other() as usize];
    let occ = pos.occupied();
    let r = &pos.roles;
    let queens = r[Role::Queen as usize];
    (KNIGHT[king as usize] & r[Role::Knight as usize]
        | super::board::pawn_attacks(us == Color::White, king) & r[Role::Pawn as usize]
        | rook_attacks(king, occ) & (r[Role::Rook as usize] | queens)
        | bishop_attacks(king, occ) & (r[Role::Bishop as usize] | queens))
        & them
}

/// The pieces of `us` that stand alone between their king and an enemy slider.
fn pinned(pos: &Position, us: Color) -> u64 {
    let king = pos.king(us);
    let occ = pos.occupied();
    let ours = pos.colors[us as usize];
    let theirs = pos.colors[us.other() as usize];
    let queens = pos.roles[Role::Queen as usize];
    let straight = (pos.roles[Role::Rook as usize] | queens) & theirs;
    let diagonal = (pos.roles[Role::Bishop as usize] | queens) & theirs;
    let mut pinned = 0;
    for (sliders, attacks) in [
        (straight, rook_attacks as fn(Square, u64) -> u64),
        (diagonal, bishop_attacks),
    ] {
        if sliders == 0 {
            continue;
        }
        let seen = attacks(king, occ);
        for b in squares(seen & ours) {
            // Lifting `b` uncovers only the line it stood on.
            if attacks(king, occ ^ bb(b)) & !seen & sliders != 0 {
                pinned |= bb(b);
            }
        }
    }
    pinned
}

/// True if the side to move has a legal move that is neither a capture nor a promotion,
/// nor a double step that lets the opponent take en passant: a move that stays in the
/// table as an ordinary move. Without `pawns`, no pawn move either (distance to zeroing
/// with tiers: it leaves the tier).
pub fn has_quiet_move(pos: &Position, pawns: bool) -> bool {
    let us = pos.turn;
    let k = pos.king(us);
    let danger = danger(pos);
    if KING[k as usize] & !pos.occupied() & !danger != 0 {
        return true;
    }
    let safety = Safety::with_danger(pos, danger);
    !walk_pseudo(pos, true, &mut |m| {
        let inside = !m.converts()
            && (pawns || m.role != Role::Pawn)
            && (!m.is_double_step() || en_passant_after(&make(pos, &m), &m).is_empty());
        !(inside && safety.allows(pos, &m))
    })
}

/// True if the side to move has a legal move.
pub fn has_move(pos: &Position) -> bool {
    // Most positions have a king move: try those before looking for pins and generating
    // everything.
    let us = pos.turn;
    let k = pos.king(us);
    let danger = danger(pos);
    if KING[k as usize] & !pos.colors[us as usize] & !danger != 0 {
        return true;
    }
    let safety = Safety::with_danger(pos, danger);
    // The walk stops (returns false) at the first legal move.
    !walk_pseudo(pos, true, &mut |m| !safety.allows(pos, &m))
}

/// Checkmate `Loss(0)`, stalemate `Draw`, or `None` if the side to move has a move.
pub fn terminal(pos: &Position) -> Option<Value> {
    if has_move(pos) {
        None
    } else if pos.in_check(pos.turn) {
        Some(Value::Loss(0))
    } else {
        Some(Value::Draw)
    }
}

/// The legal en-passant captures the side to move would have in `after`, reached by the
/// double step `m` (empty if none).
pub fn en_passant_after(after: &Position, m: &Move) -> Vec<Move> {
    if !m.is_double_step() {
        return Vec::new();
    }
    let mover = after.turn.other();
    let behind = (m.from + m.to) / 2;
    // Only pawns beside the destination can take.
    let takers = after.pieces(after.turn, Role::Pawn)
        & super::board::pawn_attacks(mover == Color::White, behind);
    if takers == 0 {
        return Vec::new();
    }
    let mut with_ep = *after;
    with_ep.ep = Some(behind);
    let mut v = Vec::new();
    legal_moves(&with_ep, &mut v);
    v.retain(|x| x.en_passant);
    v
}

/// Every legal position with a move to `pos` that stays in the same material (no captures,
/// no promotions) and is an ordinary move (a double step allowing en passant is not: see
/// the module documentation). Duplicates are possible only through symmetry.
pub fn unmoves(pos: &Position, out: &mut Vec<Position>) {
    each_unmove(pos, |role, now, before| {
        out.push(unmade(pos, role, now, before))
    });
}

/// The position before the un-move [`each_unmove`] gives as `(role, now, before)`.
pub fn unmade(pos: &Position, role: Role, now: Square, before: Square) -> Position {
    let mover = pos.turn.other();
    let mut b = *pos;
    let both = bb(now) | bb(before);
    b.roles[role as usize] ^= both;
    b.colors[mover as usize] ^= both;
    b.turn = mover;
    b.ep = None;
    debug_assert!(b.check().is_ok());
    b
}

/// [`unmoves`] as the squares of the piece that moved back: `f(role, now, before)` for each
/// piece of the side not to move in `pos` that stands on `now` and may have come from the
/// empty square `before`, the position before being legal. Solvers that work on squares
/// rather than positions take them from here.
// Inlined into the solver's passes, where it runs once per solved slot: 1-2 % of KQvKP.
#[inline]
pub fn each_unmove(pos: &Position, mut f: impl FnMut(Role, Square, Square)) {
    let mover = pos.turn.other();
    let occ = pos.occupied();
    let empty = !occ;
    // The position before is the legal `pos` with one piece moved back to an empty square:
    // piece counts and pawn ranks hold by construction, so only the kings' distance (when
    // the king moved) and the check on the side to move in `pos` can make it illegal.
    let them = pos.turn;
    let before = |from: Square, to: Square, role: Role| {
        let mut b = *pos;
        let both = bb(from) | bb(to);
        b.roles[role as usize] ^= both;
        b.colors[mover as usize] ^= both;
        b
    };
    let legal = |b: &Position| {
        let wk = b.king(Color::White);
        KING[wk as usize] & bb(b.king(Color::Black)) == 0 && !b.in_check(them)
    };
    let their_king = pos.king(them);
    for role in [
        Role::King,
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
    ] {
        for to in squares(pos.pieces(mover, role)) {
            let from = match role {
                Role::King => KING[to as usize],
                Role::Knight => KNIGHT[to as usize],
                Role::Bishop => bishop_attacks(to, occ),
                Role::Rook => rook_attacks(to, occ),
                _ => queen_attacks(to, occ),
            } & empty;
            // `before` has this piece on `f` instead of `to`. Putting it there only blocks
            // lines, so if no other piece of the mover attacks the opponent's king with
            // `to` empty, the only possible attacker is the piece itself, from the squares
            // a piece of its kind attacks the king from (for the king: next to it, which
            // is also the kings' distance rule). Otherwise test each position in full.
            let base = occ & !bb(to);
            if pos.attacked_with(mover, their_king, base, bb(to)) {
                for fr in squares(from) {
                    if legal(&before(fr, to, role)) {
                        f(role, to, fr);
                    }
                }
                continue;
            }
            let k = their_king as usize;
            let hits = match role {
                Role::King => KING[k],
                Role::Knight => KNIGHT[k],
                Role::Bishop => bishop_attacks(their_king, base),
                Role::Rook => rook_attacks(their_king, base),
                _ => queen_attacks(their_king, base),
            };
            for fr in squares(from & !hits) {
                f(role, to, fr);
            }
        }
    }
    let white = mover == Color::White;
    for to in squares(pos.pieces(mover, Role::Pawn)) {
        let back = |s: Square| if white { s - 8 } else { s + 8 };
        let r = rank(to);
        let (min_rank, double_rank) = if white { (2, 3) } else { (5, 4) };
        let ok_one = if white { r >= min_rank } else { r <= min_rank };
        if !ok_one {
            continue;
        }
        let one = back(to);
        if empty & bb(one) == 0 {
            continue;
        }
        if legal(&before(one, to, Role::Pawn)) {
            f(Role::Pawn, to, one);
        }
        if r == double_rank {
            let two = back(one);
            if empty & bb(two) != 0 && legal(&before(two, to, Role::Pawn)) {
                let m = Move {
                    role: Role::Pawn,
                    from: two,
                    to,
                    promotion: None,
                    capture: None,
                    en_passant: false,
                };
                if en_passant_after(pos, &m).is_empty() {
                    f(Role::Pawn, to, two);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fen::parse;

    fn moves(fen: &str) -> Vec<Move> {
        let mut v = Vec::new();
        legal_moves(&parse(fen).unwrap(), &mut v);
        v
    }

    #[test]
    fn counts_and_order() {
        // Lone kings: 3 moves from a1.
        assert_eq!(moves("8/8/8/8/8/8/8/K6k w - - 0 1").len(), 3);
        // A pawn on the 7th: 4 promotions, queen first.
        let v = moves("8/P7/8/8/8/8/8/K6k w - - 0 1");
        let promos: Vec<Role> = v.iter().filter_map(|m| m.promotion).collect();
        assert_eq!(promos, Role::PROMOTIONS);
        // King moves come first.
        assert_eq!(v[0].role, Role::King);
        // Double step from the 2nd rank.
        let v = moves("8/8/8/8/8/8/4P3/K6k w - - 0 1");
        assert_eq!(v.iter().filter(|m| m.is_double_step()).count(), 1);
    }

    #[test]
    fn mate_and_stalemate() {
        let mate = parse("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(terminal(&mate), Some(Value::Loss(0)));
        let stale = parse("k7/2Q5/1K6/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(terminal(&stale), Some(Value::Draw));
    }

    #[test]
    fn en_passant_rule() {
        // Black pawn d4; white plays e2-e4, and dxe3 e.p. becomes possible.
        let pos = parse("8/8/8/8/3p4/8/4P3/K6k w - - 0 1").unwrap();
        let mut v = Vec::new();
        legal_moves(&pos, &mut v);
        let m = v.iter().find(|m| m.is_double_step()).unwrap();
        let after = make(&pos, m);
        let ep = en_passant_after(&after, m);
        assert_eq!(ep.len(), 1);
        assert!(ep[0].en_passant);
        // The un-moves of the position after the double step leave that move out.
        let mut un = Vec::new();
        unmoves(&after, &mut un);
        assert!(!un.contains(&pos));
        // Without the black pawn the double step is an ordinary move.
        let pos = parse("8/8/8/8/8/8/4P3/K6k w - - 0 1").unwrap();
        let mut v = Vec::new();
        legal_moves(&pos, &mut v);
        let m = v.iter().find(|m| m.is_double_step()).unwrap();
        let after = make(&pos, m);
        let mut un = Vec::new();
        unmoves(&after, &mut un);
        assert!(un.contains(&pos));
    }
}
