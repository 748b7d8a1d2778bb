//! The dense index: `[white king 64][bishop 32 light squares][knight 64][black king 64]`,
//! once for white to move, then once for black to move.
//!
//! Positions are the shared chess [`Position`]s holding exactly a white king, bishop and
//! knight and a black king (the plug-in's parser makes sure of that).

use retro_chess::board::{bb, is_light, light_square, mirror, Square};
use retro_chess::material::{Color, Role};
use retro_chess::Position;
use retro_engine::game::Index;

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

/// The square of the (only) piece of `color` and `role`.
fn square_of(pos: &Position, color: Color, role: Role) -> Square {
    pos.pieces(color, role).trailing_zeros() as Square
}

/// True if the bishop stands on a light square (the stored orientation).
pub fn light_bishop(pos: &Position) -> bool {
    pos.pieces(Color::White, Role::Bishop) & LIGHT != 0
}

/// The light squares.
const LIGHT: u64 = 0x55aa_55aa_55aa_55aa;

/// The file mirror `x -> 7 - x` of every piece (swaps the bishop's colour).
pub fn mirrored(pos: &Position) -> Position {
    pos.map(mirror)
}

/// The stored orientation: light-squared bishop.
pub fn canonical(pos: &Position) -> Position {
    if light_bishop(pos) {
        *pos
    } else {
        mirrored(pos)
    }
}

/// The slot of a position in either orientation (a dark-squared bishop is mirrored).
pub fn index_of(pos: &Position) -> Index {
    // Squares straight from the bitboards: no mirrored position is built.
    let flip = if light_bishop(pos) { 0 } else { 7 };
    let sq = |c: Color, r: Role| square_of(pos, c, r) ^ flip;
    let p = placement(
        sq(Color::White, Role::King),
        sq(Color::White, Role::Bishop),
        sq(Color::White, Role::Knight),
    ) as Index;
    let base = match pos.turn {
        Color::White => 0,
        Color::Black => SECTION,
    };
    base + p * 64 + sq(Color::Black, Role::King) as Index
}

/// The position stored in slot `i`, legal or not; `None` for `i` out of range and for the
/// slots that put two pieces on one square (a position cannot hold them).
pub fn slot(i: Index) -> Option<Position> {
    if i >= 2 * SECTION {
        return None;
    }
    let r = i % SECTION;
    let (white_king, bishop, knight) = unplace((r / 64) as usize);
    let black_king = (r % 64) as Square;
    let all = bb(white_king) | bb(bishop) | bb(knight) | bb(black_king);
    if all.count_ones() != 4 {
        return None;
    }
    let mut pos = Position::empty();
    pos.put(white_king, Color::White, Role::King);
    pos.put(bishop, Color::White, Role::Bishop);
    pos.put(knight, Color::White, Role::Knight);
    pos.put(black_king, Color::Black, Role::King);
    pos.turn = if i < SECTION {
        Color::White
    } else {
        Color::Black
    };
    Some(pos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn light_squares() {
        assert!((0..64).all(|s| (LIGHT & bb(s) != 0) == is_light(s)));
    }

    #[test]
    fn round_trip() {
        for p in [0usize, 1, 63, 64, 2047, 2048, PLACEMENTS - 1] {
            let (k, b, n) = unplace(p);
            assert!(is_light(b));
            assert_eq!(placement(k, b, n), p);
        }
        for i in (0..2 * SECTION).step_by(997) {
            if let Some(pos) = slot(i) {
                assert_eq!(index_of(&pos), i);
                assert_eq!(index_of(&mirrored(&pos)), i);
            }
        }
        // One placement (Kh1, Bf1, Ng1): 61 black king squares are free, 3 are not.
        let row = placement(7, 5, 6) as Index * 64;
        let free = (row..row + 64).filter(|&i| slot(i).is_some()).count();
        assert_eq!(free, 61);
        assert_eq!(slot(0), None, "the king and the knight on a1");
        assert_eq!(slot(2 * SECTION), None);
    }

    #[test]
    fn mirroring() {
        let pos = retro_chess::fen::parse("8/8/8/8/8/8/2k5/KNB5 b - - 0 1").unwrap();
        assert!(!light_bishop(&pos));
        let c = canonical(&pos);
        assert!(light_bishop(&c));
        let fen = retro_chess::fen::to_fen(&c, 0, 1);
        assert_eq!(fen, "8/8/8/8/8/8/5k2/5BNK b - - 0 1");
        assert_eq!(canonical(&c), c);
        assert_eq!(mirrored(&c), pos);
    }
}
