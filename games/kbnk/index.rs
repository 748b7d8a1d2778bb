//! The dense index: `[white king 64][bishop 32 light squares][knight 64][black king 64]`,
//! once for white to move, then once for black to move.

use super::position::{Position, Side};
use crate::chess::board::{is_light, light_square, Square};
use crate::game::Index;

/// Placements of the white king, a light-squared bishop and the knight: `64 * 32 * 64`.
pub const PLACEMENTS: usize = 64 * 32 * 64;

/// Records per section: `64 * 32 * 64 * 64` = 8,388,608.
pub const SECTION: u64 = (PLACEMENTS * 64) as u64;

/// The placement number of the white pieces (the bishop must be on a light square).
pub fn placement(white_king: Square, bishop: Square, knight: Square) -> usize {
    debug_assert!(is_light(bishop));
    (white_king as usize * 32 + (bishop as usize >> 1)) * 64 + knight as usize
}

/// The white pieces of a placement number: `(white king, bishop, knight)`.
pub fn unplace(p: usize) -> (Square, Square, Square) {
    let knight = (p & 63) as Square;
    let bishop = light_square(((p >> 6) & 31) as u8);
    let white_king = (p >> 11) as Square;
    (white_king, bishop, knight)
}

/// The slot of a position already in canonical form (light-squared bishop).
pub fn index_of(pos: &Position) -> Index {
    let p = placement(pos.white_king, pos.bishop, pos.knight) as Index;
    let base = match pos.side {
        Side::White => 0,
        Side::Black => SECTION,
    };
    base + p * 64 + pos.black_king as Index
}

/// The position stored in slot `i`, legal or not (`None` only for `i` out of range).
pub fn slot(i: Index) -> Option<Position> {
    if i >= 2 * SECTION {
        return None;
    }
    let side = if i < SECTION {
        Side::White
    } else {
        Side::Black
    };
    let r = i % SECTION;
    let (white_king, bishop, knight) = unplace((r / 64) as usize);
    Some(Position {
        white_king,
        bishop,
        knight,
        black_king: (r % 64) as Square,
        side,
        clock: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for p in [0usize, 1, 63, 64, 2047, 2048, PLACEMENTS - 1] {
            let (k, b, n) = unplace(p);
            assert!(is_light(b));
            assert_eq!(placement(k, b, n), p);
        }
        for i in [
            0,
            1,
            4095,
            SECTION - 1,
            SECTION,
            SECTION + 12345,
            2 * SECTION - 1,
        ] {
            let pos = slot(i).unwrap();
            assert_eq!(index_of(&pos), i);
        }
        assert_eq!(slot(2 * SECTION), None);
    }
}
