//! A value in one byte, as the solver keeps it: moves for distance to mate, plies for a
//! metric whose wins and losses may have either parity (distance to zeroing).

use crate::game::{Value, MAX_LOSS_PLIES, MAX_WIN_PLIES};
use crate::table::Metric;

/// How values are kept in a byte. Both share the bytes the solver gives a meaning of its
/// own: 0 is a terminal loss (and an illegal slot, told apart by its settled bit), 1 the
/// draw (and an unknown slot), 128 the never-lost mark (with moves, a win no slot holds
/// until the solve gets deep: [`Packing::keep_depth`]), and [`Packing::cand_byte`] a
/// candidate for a loss (with moves, a loss no slot holds until the solve gets deep:
/// [`Packing::cand_depth`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Packing {
    /// [`Value::packed`]: wins of an odd number of plies, losses of an even number, up to
    /// 255 and 254 plies (distance to mate).
    Moves,
    /// Any parity: 2 to 127 are wins in 1 to 126 plies, 129 to 253 losses in 1 to 125
    /// (distance to zeroing, where a move into a zeroing move's result counts 1 or 101
    /// plies whoever makes it). A longer one, which only long cursed wins and blessed
    /// losses reach, is kept apart ([`super::deep`]), its slot holding [`DEEP`]; 254 is
    /// the candidates' byte.
    Plies,
}

/// The longest win [`Packing::Plies`] holds in its byte; its longest loss is one ply
/// shorter, the byte after it marking candidates.
const PLIES_MAX: u16 = 126;

/// With [`Packing::Plies`], the byte of a slot whose value is kept apart.
pub(super) const DEEP: u8 = 255;

impl Packing {
    /// The packing of a table of `metric`.
    pub(super) fn of(metric: Metric) -> Packing {
        match metric {
            Metric::Dtm => Packing::Moves,
            Metric::Dtz => Packing::Plies,
        }
    }

    /// True if `v` has a byte.
    #[inline]
    pub(super) fn fits(self, v: Value) -> bool {
        match (self, v) {
            (Packing::Moves, v) => v.fits(),
            (Packing::Plies, Value::Win(p)) => (1..=PLIES_MAX).contains(&p),
            (Packing::Plies, Value::Loss(p)) => p < PLIES_MAX,
            (Packing::Plies, _) => true,
        }
    }

    /// The byte of `v`, which must fit ([`Packing::fits`]).
    #[inline]
    pub(super) fn pack(self, v: Value) -> u8 {
        match (self, v) {
            (Packing::Moves, v) => v.packed(),
            (Packing::Plies, Value::Win(p)) => 1 + p as u8,
            (Packing::Plies, Value::Loss(0)) => 0,
            (Packing::Plies, Value::Loss(p)) => 128 + p as u8,
            (Packing::Plies, Value::Draw) => 1,
            (Packing::Plies, Value::Illegal) => 0,
        }
    }

    /// The value of byte `b` in a legal slot.
    #[inline]
    pub(super) fn unpack(self, b: u8) -> Value {
        match (self, b) {
            (Packing::Moves, b) => Value::from_packed(b),
            (Packing::Plies, 0) => Value::Loss(0),
            (Packing::Plies, 1) => Value::Draw,
            (Packing::Plies, 2..=127) => Value::Win(b as u16 - 1),
            (Packing::Plies, 129..=253) => Value::Loss(b as u16 - 128),
            (Packing::Plies, b) => unreachable!("byte {b} holds no value of its own"),
        }
    }

    /// The depth from which a win may need byte 128, the never-lost mark's while no slot
    /// can hold its value: a win in 253 plies, with moves, comes from a loss in 252.
    /// With plies, no value has that byte.
    pub(super) fn keep_depth(self) -> u16 {
        match self {
            Packing::Moves => MAX_WIN_PLIES - 1,
            Packing::Plies => u16::MAX,
        }
    }

    /// The byte marking a candidate for a loss (an unknown slot) while the candidates are
    /// proposed and checked: with moves, the byte of a loss in 254 plies, which no slot
    /// holds before the solve gets that deep; with plies, a byte of its own.
    pub(super) fn cand_byte(self) -> u8 {
        match self {
            Packing::Moves => Value::Loss(MAX_LOSS_PLIES).packed(),
            Packing::Plies => 128 + PLIES_MAX as u8,
        }
    }

    /// The depth of the loss that needs [`Packing::cand_byte`]: from the step that may
    /// store it on, candidates are bits of their own. With plies, none does.
    pub(super) fn cand_depth(self) -> u16 {
        match self {
            Packing::Moves => MAX_LOSS_PLIES,
            Packing::Plies => u16::MAX,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_that_fits_has_a_byte_of_its_own() {
        for packing in [Packing::Moves, Packing::Plies] {
            let mut seen = std::collections::HashMap::new();
            for p in 0..300 {
                for v in [Value::Win(p), Value::Loss(p)] {
                    if packing.fits(v) {
                        let b = packing.pack(v);
                        assert_eq!(packing.unpack(b), v, "{packing:?}");
                        assert_eq!(seen.insert(b, v), None, "{packing:?} {v:?}");
                    }
                }
            }
            assert_eq!(packing.unpack(packing.pack(Value::Draw)), Value::Draw);
            // Every byte but the draw's is a win or a loss; with plies, but the
            // never-lost mark's, the deep one's and the candidates' too.
            let values = if packing == Packing::Moves { 255 } else { 252 };
            assert_eq!(seen.len(), values, "{packing:?}");
            assert!(!seen.contains_key(&DEEP) || packing == Packing::Moves);
            assert!(!seen.contains_key(&super::super::KEEP) || packing == Packing::Moves);
            // The candidates' byte: with moves, the deepest loss, needed only from
            // `cand_depth`; with plies, no value's.
            let cand = packing.cand_byte();
            assert!(cand != super::super::KEEP && cand > 1);
            assert!(cand != DEEP || packing == Packing::Moves);
            match packing {
                Packing::Moves => assert_eq!(seen[&cand], Value::Loss(packing.cand_depth())),
                Packing::Plies => assert!(!seen.contains_key(&cand)),
            }
        }
        assert_eq!(Packing::Moves.keep_depth(), 252);
        assert_eq!(Packing::Moves.unpack(super::super::KEEP), Value::Win(253));
        assert!(Packing::Plies.fits(Value::Win(2)) && Packing::Plies.fits(Value::Loss(1)));
        assert!(!Packing::Plies.fits(Value::Win(127)) && !Packing::Moves.fits(Value::Win(2)));
        assert!(Packing::Plies.fits(Value::Loss(125)) && !Packing::Plies.fits(Value::Loss(126)));
    }
}
