//! Distance to zeroing with pawns: a pawn move zeroes, so it leaves the table's count as a
//! capture does. The one-byte solver solves such a table a tier at a time
//! ([`Passes::tiers`]: the pawns' advance, which every pawn move raises), and a pawn move
//! is a move out of its tier, into a higher one solved before, its value read there
//! (`own`) and counted by its result under the 50-move rule, as the restarting solver
//! counts it ([`crate::dtz::outcome`]).
//!
//! [`Passes::tiers`]: retro_engine::solve::one_byte::Passes::tiers

use super::ChessPasses;
use crate::board::Square;
use crate::material::{Color, Role};
use crate::moves::{self, make};
use crate::Position;
use retro_engine::game::{Index, Value};
use retro_engine::solve::one_byte::Own;

/// The most one pawn adds to the tier, the pawns' advance ([`crate::dtz::pawn_advance`]
/// less a constant): 0 on its second rank, 5 on its seventh.
const PAWN_TIERS: u8 = 5;

impl ChessPasses<'_> {
    /// How many tiers there are: every pawn's advance from 0 to 5, summed.
    pub(super) fn tier_count(&self) -> u8 {
        if !self.tiered {
            return 1;
        }
        let pawns = self.layout().pieces.iter().filter(|p| p.1 == Role::Pawn);
        pawns.count() as u8 * PAWN_TIERS + 1
    }

    /// The tier of slot `i`: its pawns' advance (0 for an index that holds no squares).
    pub(super) fn tier_of(&self, i: Index) -> u8 {
        let l = self.layout();
        let Some((_, _, _, sq)) = l.squares_of(i) else {
            return 0;
        };
        let mut t = 0;
        for (&(c, r), &x) in l.pieces.iter().zip(&sq) {
            if r == Role::Pawn {
                t += advance(c, x);
            }
        }
        t
    }

    /// Every legal pawn move of `pos` (stored form) that neither captures nor promotes,
    /// to `note` with the value of where it leads for the opponent, as distance to
    /// zeroing counts it ([`Value::Illegal`] for none that is not legal).
    pub(super) fn each_push(&self, pos: &Position, own: Own, note: &mut impl FnMut(Value)) {
        let us = pos.turn;
        for from in crate::board::squares(pos.pieces(us, Role::Pawn)) {
            moves::pawn_moves(pos, from, true, &mut |m| {
                if !m.converts() {
                    let after = make(pos, &m);
                    if !after.in_check(us) {
                        note(crate::dtz::outcome(self.chess, &m, &after, false).value(own));
                    }
                }
                true
            });
        }
    }
}

/// How far a pawn of `color` on `x` has come from its second rank.
fn advance(color: Color, x: Square) -> u8 {
    let r = x / 8;
    if color == Color::White {
        r - 1
    } else {
        6 - r
    }
}
