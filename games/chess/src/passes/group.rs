//! The chess passes on groups of slots ([`Passes::group`](retro_engine::solve::one_byte::Passes::group)):
//! the slots that share the kings and every piece but the last, the last piece on each of
//! its squares (the index's last digit: 64 squares, 48 for a pawn).
//!
//! A move of a king or of a fixed piece takes the whole group to one other group: the
//! pieces are decoded, the move generated and its target group worked out once for up to
//! 64 positions, whose records then lie in one cache line. The last piece only changes
//! which of its squares are concerned: one it stands on cannot be moved to or through
//! (a mask of squares), and a king move to another king pair may turn the board, which
//! turns the mask the same way ([`transform_bb`]). Where the orientation depends on the
//! last piece (a king pair with two symmetries, or the last piece's twin changing places
//! with it) the slots are worked out one by one, as [`super::ChessPasses`] does for a
//! single slot.

use super::{piece_targets, ChessPasses, Slot};
use crate::rules::board::{bb, pawn_attacks, rank, squares, transform_bb, Square, KING};
use crate::rules::lines::BETWEEN;
use crate::rules::material::{Color, Role};
use retro_engine::game::Index;

/// A group: the kings and the fixed pieces (all but the last), the side to move.
pub(super) struct Group {
    pub(super) turn: Color,
    pub(super) wk: Square,
    pub(super) bk: Square,
    /// The fixed pieces' squares in [`crate::indexing::index::Layout::pieces`] order; the last
    /// entry (the last piece) unused.
    pub(super) sq: [Square; 4],
    /// The kings and the fixed pieces.
    pub(super) occ: u64,
    /// The group's first slot's place in its section.
    pub(super) at: Index,
    /// How its positions are oriented ([`crate::indexing::index::Layout::group_orientation`]):
    /// `Some(0)` if every slot holds its position as it stands (`None`: slot by slot).
    pub(super) orient: Option<u8>,
}

/// What moves: piece `k` (a fixed one), the king of a colour, or the last piece.
#[derive(Clone, Copy)]
pub(super) enum Who {
    Piece(usize),
    King(Color),
    Last,
}

/// Where a move takes a group.
pub(super) enum Reach {
    /// To the group whose first slot is `first`, the last piece's squares turned by `t`.
    Group { first: Index, t: u8 },
    /// Slot by slot: the orientation depends on where the last piece stands.
    Each,
}

impl Group {
    /// The group's first slot.
    pub(super) fn first(&self, l: &crate::indexing::index::Layout) -> Index {
        self.at
            + if self.turn == Color::White {
                0
            } else {
                l.section
            }
    }
}

impl ChessPasses<'_> {
    /// The square of the last piece in the group's slot `first + b`.
    pub(super) fn last_square(&self, b: Index) -> Square {
        if self.last_pawn {
            b as Square + 8
        } else {
            b as Square
        }
    }

    /// The slot, `turn` to move, reached when the last piece of group `g` moves from `s`
    /// to `to`.
    pub(super) fn last_moves_to(&self, g: &Group, turn: Color, to: Square, s: Square) -> Index {
        if self.last_twin || !self.plain(g) {
            return self.slot_after(g, turn, Who::Last, to, s);
        }
        let side = if turn == Color::White {
            0
        } else {
            self.layout().section
        };
        side + g.at + self.digit_of_last(to)
    }

    /// The group whose first slot is `first`.
    pub(super) fn group_at(&self, first: Index) -> Group {
        let l = self.layout();
        let (turn, wk, bk, sq) = l.squares_of(first).expect("a slot of the table");
        let n = l.pieces.len();
        let mut occ = bb(wk) | bb(bk);
        for &x in &sq[..n.saturating_sub(1)] {
            occ |= bb(x);
        }
        Group {
            turn,
            wk,
            bk,
            sq,
            occ,
            // Kings together: no position, and no orientation to ask for.
            orient: (wk != bk && KING[wk as usize] & bb(bk) == 0)
                .then(|| l.group_orientation(wk, bk, &sq[..n.saturating_sub(1)]))
                .flatten(),
            at: if first < l.section {
                first
            } else {
                first - l.section
            },
        }
    }

    /// A mask of a group's slots as the squares of the last piece, and back.
    pub(super) fn to_squares(&self, m: u64) -> u64 {
        if self.last_pawn {
            m << 8
        } else {
            m
        }
    }

    pub(super) fn to_slots(&self, b: u64) -> u64 {
        if self.last_pawn {
            b >> 8
        } else {
            b
        }
    }

    /// The squares after `who` moves to `to` in group `g`, the last piece on `last`.
    fn squares_after(
        &self,
        g: &Group,
        who: Who,
        to: Square,
        last: Square,
    ) -> (Square, Square, [Square; 4]) {
        let n = self.layout().pieces.len();
        let (mut wk, mut bk, mut sq) = (g.wk, g.bk, g.sq);
        sq[n - 1] = last;
        match who {
            Who::King(Color::White) => wk = to,
            Who::King(Color::Black) => bk = to,
            Who::Piece(k) => sq[k] = to,
            Who::Last => sq[n - 1] = to,
        }
        (wk, bk, sq)
    }

    /// The slot, `turn` to move, after `who` moves to `to` in group `g`, the last piece
    /// on `last` (before the move, if it is the one moving).
    pub(super) fn slot_after(
        &self,
        g: &Group,
        turn: Color,
        who: Who,
        to: Square,
        last: Square,
    ) -> Index {
        let (wk, bk, sq) = self.squares_after(g, who, to, last);
        let n = self.layout().pieces.len();
        self.layout().slot_of(turn, wk, bk, &sq[..n])
    }

    /// The single slot of group `g` with the last piece on `last`.
    pub(super) fn slot_in(&self, g: &Group, last: Square) -> Slot {
        let l = self.layout();
        let mut sq = g.sq;
        sq[l.pieces.len() - 1] = last;
        let pair = l.plain_pair(g.wk, g.bk);
        Slot {
            turn: g.turn,
            wk: g.wk,
            bk: g.bk,
            sq,
            occ: g.occ | bb(last),
            at: g.at + self.digit_of_last(last),
            pair,
        }
    }

    pub(super) fn digit_of_last(&self, s: Square) -> Index {
        if self.last_pawn {
            s as Index - 8
        } else {
            s as Index
        }
    }

    /// Where the whole group `g` goes, `turn` then to move, when `who` (not the last
    /// piece) moves to `to`.
    #[inline]
    pub(super) fn reach_group(&self, g: &Group, turn: Color, who: Who, to: Square) -> Reach {
        let l = self.layout();
        let side = if turn == Color::White { 0 } else { l.section };
        let n = l.pieces.len();
        match who {
            Who::Piece(k) => {
                if self.twin_of_last[k] {
                    return Reach::Each;
                }
                let from = g.sq[k];
                if !self.twin[k] && l.orientation(g.wk, g.bk) == Some(0) {
                    // The kings fix the orientation: its digit changes, nothing else (a
                    // pawn's digit is its square less 8 either way).
                    let first =
                        side + g.at + to as Index * self.stride[k] - from as Index * self.stride[k];
                    return Reach::Group { first, t: 0 };
                }
                let mut sq = g.sq;
                sq[k] = to;
                let Some(t) = l.group_orientation(g.wk, g.bk, &sq[..n - 1]) else {
                    return Reach::Each;
                };
                Reach::Group {
                    first: l.group_first(turn, t, g.wk, g.bk, &sq[..n - 1]),
                    t,
                }
            }
            Who::King(c) => {
                // The fixed squares as they are: a byte stored into a copy and the copy
                // read back whole stalled on every king move.
                let sq = &g.sq;
                let (wk, bk) = if c == Color::White {
                    (to, g.bk)
                } else {
                    (g.wk, to)
                };
                let Some(t) = l.group_orientation(wk, bk, &sq[..n - 1]) else {
                    return Reach::Each;
                };
                if t != 0 && self.last_twin {
                    // Turning the board may change the order of the last piece and its twin.
                    return Reach::Each;
                }
                if t == 0 && self.plain(g) {
                    if let (Some(old), Some(new)) = (l.plain_pair(g.wk, g.bk), l.plain_pair(wk, bk))
                    {
                        let first = side + g.at + new * l.pair_stride - old * l.pair_stride;
                        return Reach::Group { first, t: 0 };
                    }
                }
                Reach::Group {
                    first: l.group_first(turn, t, wk, bk, &sq[..n - 1]),
                    t,
                }
            }
            Who::Last => unreachable!("the last piece moves within its group"),
        }
    }

    /// True if group `g` is stored as it stands, wherever the last piece is: its king pair
    /// has only the identity to make it canonical, or two symmetries do and the fixed
    /// pieces choose the identity ([`Group::orient`]).
    pub(super) fn plain(&self, g: &Group) -> bool {
        g.orient == Some(0)
    }

    /// `f(first, mask)` on the slots, `turn` to move, that the slots `valid` (squares of
    /// the last piece) of group `g` reach when `who` moves to `to`.
    #[inline]
    fn emit(
        &self,
        g: &Group,
        turn: Color,
        who: Who,
        to: Square,
        valid: u64,
        f: &mut impl FnMut(Index, u64),
    ) {
        if valid == 0 {
            return;
        }
        match self.reach_group(g, turn, who, to) {
            Reach::Group { first, t } => f(first, self.to_slots(transform_bb(t, valid))),
            Reach::Each => {
                for s in squares(valid) {
                    f(self.slot_after(g, turn, who, to, s), 1);
                }
            }
        }
    }

    /// The opponent's pawns able to take en passant after a double step of `mover`'s pawn
    /// over `over`: `(fixed, last)`, the fixed ones, and the last piece's squares from
    /// which it could (if it is such a pawn).
    fn en_passant_takers(&self, g: &Group, mover: Color, over: Square) -> (u64, u64) {
        let l = self.layout();
        let n = l.pieces.len();
        let from = pawn_attacks(mover == Color::White, over);
        let mut fixed = 0;
        for k in 0..n - 1 {
            if l.pieces[k] == (mover.other(), Role::Pawn) {
                fixed |= bb(g.sq[k]);
            }
        }
        let last = if l.pieces[n - 1] == (mover.other(), Role::Pawn) {
            from
        } else {
            0
        };
        (fixed & from, last)
    }

    /// Of the slots `valid` of group `g`, those where the double step of `mover`'s pawn
    /// from `from` to `to` lets the opponent take en passant (`before`: the group is the
    /// position before the step, else after it).
    pub(super) fn en_passant_allowed(
        &self,
        g: &Group,
        mover: Color,
        from: Square,
        to: Square,
        valid: u64,
        before: bool,
    ) -> u64 {
        let (fixed, last) = self.en_passant_takers(g, mover, (from + to) / 2);
        let maybe = if fixed != 0 { valid } else { valid & last };
        let mut allowed = 0;
        for s in squares(maybe) {
            if self.allows_en_passant(&self.slot_in(g, s), mover, from, to, before) {
                allowed |= bb(s);
            }
        }
        allowed
    }

    /// [`Passes::group_predecessors`](retro_engine::solve::one_byte::Passes::group_predecessors):
    /// the un-moves of [`Passes::predecessors`](retro_engine::solve::one_byte::Passes::predecessors)
    /// for a whole group.
    pub(super) fn predecessors_of_group(
        &self,
        first: Index,
        mask: u64,
        mut f: impl FnMut(Index, u64),
    ) {
        let g = self.group_at(first);
        let l = self.layout();
        let n = l.pieces.len();
        let mover = g.turn.other();
        let white = mover == Color::White;
        let cand = self.to_squares(mask);
        let empty = !g.occ;
        for k in 0..n - 1 {
            let (color, role) = l.pieces[k];
            if color != mover {
                continue;
            }
            let a = g.sq[k];
            if role != Role::Pawn {
                for fr in squares(piece_targets(role, a, g.occ) & empty) {
                    let valid = cand & !(BETWEEN[a as usize][fr as usize] | bb(fr));
                    self.emit(&g, mover, Who::Piece(k), fr, valid, &mut f);
                }
                continue;
            }
            if self.tiered {
                // A pawn's un-move comes from a lower tier.
                continue;
            }
            let r = rank(a);
            if (white && r < 2) || (!white && r > 5) {
                continue;
            }
            let one = if white { a - 8 } else { a + 8 };
            if g.occ & bb(one) != 0 {
                continue;
            }
            self.emit(&g, mover, Who::Piece(k), one, cand & !bb(one), &mut f);
            if r == if white { 3 } else { 4 } {
                let two = if white { one - 8 } else { one + 8 };
                if g.occ & bb(two) == 0 {
                    let valid = cand & !bb(one) & !bb(two);
                    // A double step that allows en passant is a link, not an un-move.
                    let valid = valid & !self.en_passant_allowed(&g, mover, two, a, valid, false);
                    self.emit(&g, mover, Who::Piece(k), two, valid, &mut f);
                }
            }
        }
        let (a, other) = if white { (g.wk, g.bk) } else { (g.bk, g.wk) };
        for fr in squares(KING[a as usize] & empty & !KING[other as usize]) {
            self.emit(&g, mover, Who::King(mover), fr, cand & !bb(fr), &mut f);
        }
        let (color, role) = l.pieces[n - 1];
        if color != mover || (role == Role::Pawn && self.tiered) {
            return;
        }
        // The last piece's un-moves: the same fixed pieces, the other side to move.
        let side = if white { 0 } else { l.section };
        let each = self.last_twin || !self.plain(&g);
        let mut all = 0u64;
        for s in squares(cand) {
            let from = if role != Role::Pawn {
                piece_targets(role, s, g.occ) & empty
            } else {
                self.pawn_sources(&g, mover, s)
            };
            if each {
                for fr in squares(from) {
                    f(self.slot_after(&g, mover, Who::Last, fr, s), 1);
                }
            } else {
                all |= from;
            }
        }
        if all != 0 {
            f(side + g.at, self.to_slots(all));
        }
    }

    /// The squares the last piece, a pawn of `mover` on `s`, may have come from.
    fn pawn_sources(&self, g: &Group, mover: Color, s: Square) -> u64 {
        let white = mover == Color::White;
        let r = rank(s);
        if (white && r < 2) || (!white && r > 5) {
            return 0;
        }
        let one = if white { s - 8 } else { s + 8 };
        if g.occ & bb(one) != 0 {
            return 0;
        }
        let mut from = bb(one);
        if r == if white { 3 } else { 4 } {
            let two = if white { one - 8 } else { one + 8 };
            if g.occ & bb(two) == 0
                && !self.allows_en_passant(&self.slot_in(g, s), mover, two, s, false)
            {
                from |= bb(two);
            }
        }
        from
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::material::Material;
    use crate::Chess;
    use retro_engine::game::Index;
    use retro_engine::solve::one_byte::{check_group_passes, Passes};

    /// The group passes against the slot passes, on groups spread over the table and
    /// masks of their legal slots, for materials with pawns on either side (en passant),
    /// twins (the last piece's too), symmetric king pairs and 6 pieces.
    #[test]
    fn groups_move_as_their_slots() {
        for name in [
            "KQvKR", "KBvKP", "KRvKP", "KQvKP", "KPvKP", "KRRvKR", "KPPvKP", "KQvKBB", "KQvKPP",
            "KNNvKB", "KBPvKN", "KRPvKR", "KRRvKRR", "KQBvKRN", "KRPvKBP",
        ] {
            let chess = Chess::rules_only(&Material::parse(name).unwrap());
            let l = &chess.layout;
            let passes = chess.passes();
            let g = passes.group() as Index;
            let groups = 2 * l.section / g;
            let legal = |i: Index| l.decode(i).is_some();
            let mut x: u64 = 0x2545_f491_4f6c_dd1d;
            let mut checked = 0;
            let mut k = 12_345 % groups;
            for round in 0..4_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let first = k * g;
                k = (k + 2_654_435_761) % groups;
                // Every other group of a pawnless table on a king pair of two symmetries.
                let first = match (round % 2, l.squares_of(first)) {
                    (0, Some((_, wk, bk, _))) if l.orientation(wk, bk) == Some(0) => {
                        let pairs = l.section / l.pair_stride;
                        let diagonal = (0..pairs).find(|&p| {
                            let (_, wk, bk, _) = l
                                .squares_of((p + x % pairs) % pairs * l.pair_stride)
                                .unwrap();
                            l.orientation(wk, bk).is_none()
                        });
                        match diagonal {
                            Some(p) => {
                                first % l.pair_stride
                                    + (p + x % pairs) % pairs * l.pair_stride
                                    + first / l.section * l.section
                            }
                            None => first,
                        }
                    }
                    _ => first,
                };
                let mut mask = 0;
                for b in 0..g {
                    if legal(first + b) {
                        mask |= 1 << b;
                    }
                }
                // Every legal slot, or a random part of them.
                if x & 1 == 0 {
                    mask &= x >> 1;
                }
                if mask == 0 {
                    continue;
                }
                checked += 1;
                let accept = |i: Index| (i.wrapping_mul(0x9e37_79b9) ^ x) % 7 != 0;
                let no_tiers: retro_engine::solve::one_byte::Own =
                    &|q| unreachable!("slot {q} read: no tiers");
                check_group_passes(&passes, no_tiers, first, mask, legal, accept)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            assert!(checked > 500, "{name}: {checked} groups");
        }
    }
}
