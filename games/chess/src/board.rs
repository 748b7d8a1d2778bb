//! Squares, bitboards and attack tables.
//!
//! Squares are numbered a1 = 0 … h8 = 63 (`rank * 8 + file`); a bitboard has bit `sq` set
//! for square `sq`. Every table here is computed at compile time.

/// A square, `0..64`.
pub type Square = u8;

/// File `0..8` (a..h) of a square.
pub const fn file(sq: Square) -> u8 {
    sq & 7
}

/// Rank `0..8` (1..8) of a square.
pub const fn rank(sq: Square) -> u8 {
    sq >> 3
}

/// The square on `file`, `rank`.
pub const fn square(file: u8, rank: u8) -> Square {
    rank * 8 + file
}

/// True for the light squares (file + rank odd): b1, a2, …, h1 is light too.
pub const fn is_light(sq: Square) -> bool {
    (file(sq) + rank(sq)) % 2 == 1
}

/// The file mirror `x -> 7 - x` (swaps the square colours).
pub const fn mirror(sq: Square) -> Square {
    sq ^ 7
}

/// The light square whose `sq >> 1` is `k` (`k < 32`).
pub const fn light_square(k: u8) -> Square {
    let sq = 2 * k;
    sq | ((rank(sq) & 1) ^ 1)
}

/// The square's name, "a1" … "h8".
pub fn name(sq: Square) -> String {
    let f = (b'a' + file(sq)) as char;
    let r = (b'1' + rank(sq)) as char;
    format!("{f}{r}")
}

/// Parse "a1" … "h8".
pub fn parse_square(s: &str) -> Option<Square> {
    match s.as_bytes() {
        [f @ b'a'..=b'h', r @ b'1'..=b'8'] => Some(square(f - b'a', r - b'1')),
        _ => None,
    }
}

/// The bitboard of one square.
pub const fn bb(sq: Square) -> u64 {
    1u64 << sq
}

const fn step_table(steps: &[(i8, i8)]) -> [u64; 64] {
    let mut t = [0u64; 64];
    let mut sq = 0;
    while sq < 64 {
        let f = (sq % 8) as i8;
        let r = (sq / 8) as i8;
        let mut i = 0;
        while i < steps.len() {
            let (df, dr) = steps[i];
            let (nf, nr) = (f + df, r + dr);
            if nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
                t[sq] |= 1u64 << (nr * 8 + nf);
            }
            i += 1;
        }
        sq += 1;
    }
    t
}

/// King moves from each square.
pub static KING: [u64; 64] = step_table(&[
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
]);

/// Knight moves from each square.
pub static KNIGHT: [u64; 64] = step_table(&[
    (-2, -1),
    (-2, 1),
    (-1, -2),
    (-1, 2),
    (1, -2),
    (1, 2),
    (2, -1),
    (2, 1),
]);

/// The four diagonal directions: north-east, north-west, south-east, south-west.
const DIRS: [(i8, i8); 4] = [(1, 1), (-1, 1), (1, -1), (-1, -1)];
/// The four straight directions: north, east, south, west.
const ORTHO: [(i8, i8); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];

const fn ray_table(dirs: [(i8, i8); 4]) -> [[u64; 64]; 4] {
    let mut t = [[0u64; 64]; 4];
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        let mut sq = 0;
        while sq < 64 {
            let mut f = (sq % 8) as i8 + df;
            let mut r = (sq / 8) as i8 + dr;
            while f >= 0 && f < 8 && r >= 0 && r < 8 {
                t[d][sq] |= 1u64 << (r * 8 + f);
                f += df;
                r += dr;
            }
            sq += 1;
        }
        d += 1;
    }
    t
}

/// Empty-board diagonal rays from each square, by direction (0, 1 go up the board).
static RAYS: [[u64; 64]; 4] = ray_table(DIRS);
/// Empty-board straight rays from each square, by direction (0, 1 go up the board: north
/// and east both increase the square number).
static ORTHO_RAYS: [[u64; 64]; 4] = ray_table(ORTHO);

/// Squares a bishop on `sq` attacks given the occupied squares `occ` (a blocker is
/// attacked; squares behind it are not).
pub fn bishop_attacks(sq: Square, occ: u64) -> u64 {
    slide(&RAYS, sq, occ)
}

/// Squares a rook on `sq` attacks given the occupied squares `occ`.
pub fn rook_attacks(sq: Square, occ: u64) -> u64 {
    slide(&ORTHO_RAYS, sq, occ)
}

/// Squares a queen on `sq` attacks given the occupied squares `occ`.
pub fn queen_attacks(sq: Square, occ: u64) -> u64 {
    bishop_attacks(sq, occ) | rook_attacks(sq, occ)
}

/// Squares attacked by a pawn of `white` (or black) on `sq`.
pub fn pawn_attacks(white: bool, sq: Square) -> u64 {
    let b = bb(sq);
    let side = ((b << 1) & NOT_A) | ((b >> 1) & NOT_H);
    if white {
        side << 8
    } else {
        side >> 8
    }
}

/// Sliding attacks along four rays; rays 0 and 1 run towards higher square numbers.
fn slide(table: &[[u64; 64]; 4], sq: Square, occ: u64) -> u64 {
    let mut att = 0;
    for (d, rays) in table.iter().enumerate() {
        let ray = rays[sq as usize];
        let blockers = ray & occ;
        if blockers == 0 {
            att |= ray;
        } else {
            let first = if d < 2 {
                blockers.trailing_zeros()
            } else {
                63 - blockers.leading_zeros()
            };
            att |= ray ^ rays[first as usize];
        }
    }
    att
}

const fn between_table() -> [[u64; 64]; 64] {
    let rays = ray_table(DIRS);
    let mut t = [[0u64; 64]; 64];
    let mut d = 0;
    while d < 4 {
        let mut a = 0;
        while a < 64 {
            let mut b = 0;
            while b < 64 {
                if rays[d][a] & (1u64 << b) != 0 {
                    // The squares of the ray from `a` before `b`.
                    t[a][b] = rays[d][a] & !rays[d][b] & !(1u64 << b);
                }
                b += 1;
            }
            a += 1;
        }
        d += 1;
    }
    t
}

/// Squares strictly between two squares on a common diagonal (0 otherwise).
pub static BETWEEN: [[u64; 64]; 64] = between_table();

const NOT_A: u64 = !0x0101_0101_0101_0101;
const NOT_H: u64 = !0x8080_8080_8080_8080;

/// Every square a king on some square of `b` reaches in one step (the union of [`KING`]
/// over `b`; since king steps are symmetric, also the squares from which a king steps into `b`).
pub const fn king_spread(b: u64) -> u64 {
    let east = (b << 1) & NOT_A;
    let west = (b >> 1) & NOT_H;
    let row = b | east | west;
    (row << 8) | (row >> 8) | east | west
}

/// Iterate the squares of a bitboard, lowest first.
pub fn squares(mut b: u64) -> impl Iterator<Item = Square> {
    std::iter::from_fn(move || {
        if b == 0 {
            None
        } else {
            let sq = b.trailing_zeros() as Square;
            b &= b - 1;
            Some(sq)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn light_squares() {
        assert!(is_light(square(1, 0))); // b1
        assert!(!is_light(square(0, 0))); // a1
        assert!(is_light(square(7, 0))); // h1
        for k in 0..32 {
            let sq = light_square(k);
            assert!(is_light(sq));
            assert_eq!(sq >> 1, k);
        }
        assert_eq!((0..64).filter(|&s| is_light(s)).count(), 32);
        for sq in 0..64 {
            assert_ne!(is_light(sq), is_light(mirror(sq)));
        }
    }

    #[test]
    fn tables() {
        assert_eq!(KING[0].count_ones(), 3);
        assert_eq!(KING[27].count_ones(), 8);
        assert_eq!(KNIGHT[0], bb(10) | bb(17));
        assert_eq!(bishop_attacks(0, 0).count_ones(), 7);
        assert_eq!(bishop_attacks(27, 0).count_ones(), 13);
        // d4 with a blocker on f6: e5 and f6 but not g7.
        let a = bishop_attacks(27, bb(45));
        assert!(a & bb(36) != 0 && a & bb(45) != 0 && a & bb(54) == 0);
        assert_eq!(BETWEEN[0][63].count_ones(), 6);
        assert_eq!(BETWEEN[63][0], BETWEEN[0][63]);
        assert_eq!(BETWEEN[0][9], 0);
        assert_eq!(BETWEEN[0][1], 0);
        for sq in 0..64u8 {
            assert_eq!(king_spread(bb(sq)), KING[sq as usize]);
        }
        assert_eq!(parse_square("e4"), Some(28));
        assert_eq!(name(28), "e4");
        assert_eq!(parse_square("i1"), None);
        assert_eq!(rook_attacks(0, 0).count_ones(), 14);
        // a1 rook, blocker on a4: a2, a3, a4 and the first rank.
        assert_eq!(rook_attacks(0, bb(24)), bb(8) | bb(16) | bb(24) | 0xfe);
        assert_eq!(queen_attacks(27, 0).count_ones(), 27);
        assert_eq!(pawn_attacks(true, 8), bb(17)); // a2 takes b3
        assert_eq!(pawn_attacks(false, 52), bb(43) | bb(45)); // e7 takes d6, f6
        assert_eq!(pawn_attacks(true, 63), 0);
    }
}
