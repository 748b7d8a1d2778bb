//! Distance to zeroing with pawns: a pawn move zeroes, so it leaves the table's count as a
//! capture does. The one-byte solver solves such a table a tier at a time
//! ([`Passes::tiers`]: the pawns' advance, which every pawn move raises), and a pawn move
//! is a move out of its tier, into a higher one solved before, its value read there
//! (`own`) and counted by its result under the 50-move rule, as the restarting solver
//! counts it ([`crate::indexing::outcome::outcome`]).
//!
//! [`Passes::tiers`]: retro_engine::solve::one_byte::Passes::tiers

use super::ChessPasses;
use crate::indexing::outcome;
use crate::rules::board::Square;
use crate::rules::material::{Color, Role};
use crate::rules::moves::{self, make};
use crate::Position;
use retro_engine::game::{Index, Value};
use retro_engine::solve::one_byte::{first_slots, Own};

/// How many values one pawn adds to the tier, the pawns' advance
/// ([`crate::dtz::pawn_advance`] less a constant): 0 on its second rank to 5 on its
/// seventh.
const PAWN_TIERS: u8 = 6;

impl ChessPasses<'_> {
    /// How many tiers there are: every pawn's advance from 0 to 5, summed.
    pub(super) fn tier_count(&self) -> u8 {
        if !self.tiered {
            return 1;
        }
        let pawns = self.layout().pieces.iter().filter(|p| p.1 == Role::Pawn);
        pawns.count() as u8 * (PAWN_TIERS - 1) + 1
    }

    /// The tier of slot `i`: its pawns' advance (0 for an index that holds no squares).
    pub(super) fn tier_of(&self, i: Index) -> u8 {
        let l = self.layout();
        l.squares_of(i)
            .map_or(0, |(_, _, _, sq)| advance_of(&l.pieces, &sq))
    }

    /// The slots of tier `t` in the group at `first` ([`Passes::group_tier`]): all or
    /// none when the last piece is not a pawn; else the eight whose last pawn stands on the
    /// rank that brings the fixed pieces' advance to `t`.
    ///
    /// [`Passes::group_tier`]: retro_engine::solve::one_byte::Passes::group_tier
    pub(super) fn tier_in_group(&self, first: Index, len: usize, t: u8) -> u64 {
        let l = self.layout();
        let n = l.pieces.len();
        let fixed = advance_of(&l.pieces[..n - 1], &self.group_at(first).sq);
        let all = first_slots(len);
        if !self.last_pawn {
            return if fixed == t { all } else { 0 };
        }
        let Some(more) = t.checked_sub(fixed).filter(|&m| m < PAWN_TIERS) else {
            return 0;
        };
        // The last pawn's digit counts its squares from a2 (`last_square`): a rank a row
        // of eight slots.
        let rank = if l.pieces[n - 1].0 == Color::White {
            more + 1
        } else {
            6 - more
        };
        (0xffu64 << ((rank - 1) * 8)) & all
    }

    /// Every legal pawn move of `pos` (stored form) that neither captures nor promotes,
    /// to `note` with the value of where it leads for the opponent, as distance to
    /// zeroing counts it ([`Value::Illegal`] for none that is not legal).
    pub(super) fn each_push(&self, pos: &Position, own: Own, note: &mut impl FnMut(Value)) {
        let us = pos.turn;
        for from in crate::rules::board::squares(pos.pieces(us, Role::Pawn)) {
            moves::pawn_moves(pos, from, true, &mut |m| {
                if !m.converts() {
                    let after = make(pos, &m);
                    if !after.in_check(us) {
                        note(outcome::outcome(self.chess, &m, &after, false).value(own));
                    }
                }
                true
            });
        }
    }
}

/// The advance of the pawns among `pieces`, standing on `sq` (in the same order).
fn advance_of(pieces: &[(Color, Role)], sq: &[Square]) -> u8 {
    pieces
        .iter()
        .zip(sq)
        .filter(|(p, _)| p.1 == Role::Pawn)
        .map(|(&(c, _), &x)| advance(c, x))
        .sum()
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

#[cfg(test)]
mod tests {
    use super::super::ChessPasses;
    use crate::rules::material::Material;
    use crate::Chess;
    use retro_engine::game::Index;
    use retro_engine::solve::one_byte::Passes;
    use retro_engine::table::Metric;

    /// The DTZ passes' tiers: one without pawns; with pawns, a group's slots of a tier are
    /// those whose pawns' advance it is, whichever piece is last, twins included; every
    /// pawn move raises the tier (checked on the positions by `dtz::pawn_advance`'s test).
    #[test]
    fn groups_hold_the_tiers_of_their_slots() {
        for (name, tiers) in [
            ("KQvKR", 1),
            ("KPvKP", 11),
            ("KQvKP", 6),
            ("KPvKQ", 6),
            ("KPPvKP", 16),
            ("KQvKPP", 11),
            ("KRPvKBP", 11),
        ] {
            let chess = Chess::rules_only(&Material::parse(name).unwrap());
            let passes = ChessPasses::new(&chess, Metric::Dtz);
            assert_eq!(passes.tiers(), tiers, "{name}");
            let g = passes.group() as Index;
            let groups = 2 * chess.layout.section / g;
            let mut seen = vec![false; tiers as usize];
            for k in (0..groups).step_by(997) {
                let first = k * g;
                for t in 0..tiers {
                    let want = (0..g)
                        .filter(|&b| passes.tier(first + b) == t)
                        .fold(0u64, |m, b| m | 1 << b);
                    assert_eq!(
                        passes.group_tier(first, g as usize, t),
                        want,
                        "{name} group {first} tier {t}"
                    );
                    seen[t as usize] |= want != 0;
                }
            }
            assert!(seen.iter().all(|&s| s), "{name}: every tier met");
        }
    }
}
