//! The forward checks of a whole group ([`Passes::group_refuted`]): which candidates have
//! a move into a slot the solver does not accept. The last piece's moves stay in the
//! group's own line of values: they go first; then the fixed pieces' and the king's, each
//! taking the whole group to another group.
//!
//! [`Passes::group_refuted`]: retro_engine::solve::one_byte::Passes::group_refuted

use super::group::{Group, Reach, Who};
use super::{piece_targets, ChessPasses};
use crate::indexing::index::inverse;
use crate::rules::board::{bb, rank, squares, transform_bb, Square, KING};
use crate::rules::lines::BETWEEN;
use crate::rules::material::{Color, Role};
use retro_engine::game::Index;

impl ChessPasses<'_> {
    /// [`Passes::group_refuted`](retro_engine::solve::one_byte::Passes::group_refuted):
    /// the forward checks of [`Passes::targets`](retro_engine::solve::one_byte::Passes::targets)
    /// for a whole group, stopping once every candidate is refuted.
    pub(super) fn refuted_in_group(
        &self,
        first: Index,
        mask: u64,
        mut ok: impl FnMut(Index, u64) -> u64,
    ) -> u64 {
        let g = self.group_at(first);
        let l = self.layout();
        let n = l.pieces.len();
        let us = g.turn;
        let next = us.other();
        let white = us == Color::White;
        let cand = self.to_squares(mask);
        let empty = !g.occ;
        let mut refuted = 0u64;
        // The last piece's moves stay in the group's cache line: first.
        let (color, role) = l.pieces[n - 1];
        if color == us {
            let side = if white { l.section } else { 0 };
            let dests = |s: Square| {
                if role != Role::Pawn {
                    return piece_targets(role, s, g.occ) & empty;
                }
                if self.tiered {
                    // A pawn's move leaves the tier: its value is in the slowest exit.
                    return 0;
                }
                let one = if white { s + 8 } else { s - 8 };
                // A push to the last rank promotes: it leaves the table.
                if g.occ & bb(one) != 0 || rank(one) == 7 || rank(one) == 0 {
                    return 0;
                }
                let mut to = bb(one);
                let two = if white { one + 8 } else { one - 8 };
                if rank(s) == if white { 1 } else { 6 }
                    && g.occ & bb(two) == 0
                    && !self.allows_en_passant(&self.slot_in(&g, s), us, s, two, true)
                {
                    to |= bb(two);
                }
                to
            };
            // With a twin, or a king pair of two symmetries, the last piece's square
            // decides the order or the orientation: slot by slot.
            if self.last_twin || !self.plain(&g) {
                for s in squares(cand) {
                    if squares(dests(s))
                        .any(|to| ok(self.slot_after(&g, next, Who::Last, to, s), 1) == 0)
                    {
                        refuted |= bb(s);
                    }
                }
            } else {
                let mut all = 0u64;
                for s in squares(cand) {
                    all |= dests(s);
                }
                if all != 0 {
                    let accepted = self.to_squares(ok(side + g.at, self.to_slots(all)));
                    for s in squares(cand) {
                        if dests(s) & !accepted != 0 {
                            refuted |= bb(s);
                        }
                    }
                }
            }
            if refuted == cand {
                return mask;
            }
        }
        // The fixed pieces, those whose digits weigh least first, and the king last: the
        // move that refutes is most often found in memory near the group.
        for k in (0..n - 1).rev() {
            let (color, role) = l.pieces[k];
            if color != us {
                continue;
            }
            let a = g.sq[k];
            if role != Role::Pawn {
                for to in squares(piece_targets(role, a, g.occ) & empty) {
                    let valid = (cand & !refuted) & !(BETWEEN[a as usize][to as usize] | bb(to));
                    refuted |= self.refuting(&g, next, Who::Piece(k), to, valid, &mut ok);
                    if refuted == cand {
                        return mask;
                    }
                }
                continue;
            }
            let one = if white { a + 8 } else { a - 8 };
            if self.tiered || g.occ & bb(one) != 0 || rank(one) == 7 || rank(one) == 0 {
                continue;
            }
            let valid = (cand & !refuted) & !bb(one);
            refuted |= self.refuting(&g, next, Who::Piece(k), one, valid, &mut ok);
            let two = if white { one + 8 } else { one - 8 };
            if rank(a) == if white { 1 } else { 6 } && g.occ & bb(two) == 0 {
                let valid = (cand & !refuted) & !bb(one) & !bb(two);
                // A double step that allows en passant is a link, checked apart.
                let valid = valid & !self.en_passant_allowed(&g, us, a, two, valid, true);
                refuted |= self.refuting(&g, next, Who::Piece(k), two, valid, &mut ok);
            }
            if refuted == cand {
                return mask;
            }
        }
        let (a, other) = if white { (g.wk, g.bk) } else { (g.bk, g.wk) };
        for to in squares(KING[a as usize] & empty & !KING[other as usize]) {
            let valid = (cand & !refuted) & !bb(to);
            refuted |= self.refuting(&g, next, Who::King(us), to, valid, &mut ok);
            if refuted == cand {
                return mask;
            }
        }
        self.to_slots(refuted)
    }

    /// Of the slots `valid` (squares of the last piece) of group `g`, those whose move
    /// (`who` to `to`, `turn` then to move) reaches a slot that `ok` refuses.
    #[inline]
    fn refuting(
        &self,
        g: &Group,
        turn: Color,
        who: Who,
        to: Square,
        valid: u64,
        ok: &mut impl FnMut(Index, u64) -> u64,
    ) -> u64 {
        if valid == 0 {
            return 0;
        }
        match self.reach_group(g, turn, who, to) {
            Reach::Group { first, t } => {
                let m = self.to_slots(transform_bb(t, valid));
                let accepted = transform_bb(inverse(t), self.to_squares(ok(first, m)));
                valid & !accepted
            }
            Reach::Each => {
                let mut r = 0;
                for s in squares(valid) {
                    if ok(self.slot_after(g, turn, who, to, s), 1) == 0 {
                        r |= bb(s);
                    }
                }
                r
            }
        }
    }
}
