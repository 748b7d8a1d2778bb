//! Squares, bitboards and attack tables.
//!
//! Squares are numbered a1 = 0 … h8 = 63 (`rank * 8 + file`); a bitboard has bit `sq` set
//! for square `sq`. Every table here is computed at compile time.

use super::material::{Color, Role};

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

/// Empty-board diagonal rays from each square, by direction (0, 1 go up the board). Only
/// the tests' reference (`slide`) uses them.
#[cfg(test)]
static RAYS: [[u64; 64]; 4] = ray_table(DIRS);
/// Empty-board straight rays from each square, by direction (0, 1 go up the board: north
/// and east both increase the square number).
#[cfg(test)]
static ORTHO_RAYS: [[u64; 64]; 4] = ray_table(ORTHO);

// Sliding attacks by magic bitboards. A slider's attacks from a square depend only on the
// occupancy of its "relevant" squares: its empty-board rays less the last square of each (a
// piece on the edge has nothing behind it to hide). One multiplication by the square's magic
// number gathers those up-to-12 bits into the top of the product, which indexes the square's
// own slice of one attack table: an and, a multiply, a shift and a load, with no branch, where
// the ray walk this replaced branched and bit-scanned on each of four rays. Generating KQvKR
// and KQvKP took 7–8 % less time with these, 5–7 % with kindergarten lookups (8.5 KB of
// tables, and faster than hyperbola quintessence in a micro-benchmark).
//
// A magic is good for a square when no two occupancies with different attacks share an
// index. The ones below were found by a seeded random search, which the tests run again
// (`magics_come_from_the_seeded_search`); it takes 0.2 s, too long to run at first use in a
// one-shot `retro probe`, and far too long for compile-time evaluation.

/// The bishop's magic number for each square.
#[rustfmt::skip]
const BISHOP_MAGICS: [u64; 64] = [
    0x8008029802002200, 0x4291040808802804, 0x0008180040800300, 0x00088a0202aa1050,
    0x000410a800000000, 0x0009100804040009, 0x0801140121080011, 0xa040808400824000,
    0x000008a004040048, 0x0600200440808114, 0x2020410401204403, 0x000404106200c001,
    0x0100011040800026, 0x00080088200a0820, 0x0008004804642080, 0x4000004402981800,
    0x0710002220020088, 0x2010808202020402, 0x8010080844002820, 0x800c000124028000,
    0x0002000422010040, 0x6438402200422000, 0x0010a1004c0c2000, 0x000a00e109010190,
    0x08022010400414c0, 0x8428022220240101, 0x0008088004040010, 0x0008080000220020,
    0x0421010000104000, 0x219102082500a000, 0x0018008042120150, 0x02108020a09c0402,
    0x301c202000890208, 0xa004022000080100, 0x100c024100881200, 0x8000080800460a00,
    0x1004010804440040, 0x420c920080041000, 0x05018c0114440100, 0x00040100308a0080,
    0x0020821042801000, 0x0202026120001c02, 0x0002001044000800, 0x20aa844200800801,
    0x0000012011001200, 0x0860209008808042, 0x0008100080a80200, 0x0808020050420201,
    0x00051c0104c00000, 0x0000840108820022, 0x000a461842080004, 0x2400400914880002,
    0x00040040102481b4, 0x2104a14202020060, 0x0004081041020060, 0x00a0840082005100,
    0x0000412210101482, 0x0108504208042210, 0x000020044c040405, 0x4140050206051401,
    0x0122008051820200, 0x0082800428109100, 0x9104042454440401, 0x141e200c00820848,
];

/// The rook's magic number for each square.
#[rustfmt::skip]
const ROOK_MAGICS: [u64; 64] = [
    0x0280038860400010, 0x098020004000b080, 0x2100110008402002, 0x0880080081041000,
    0x0200020020041008, 0x2300040008010012, 0x0c00283004008201, 0x0180010000407a80,
    0x0168800080400020, 0x0010400040201000, 0x1001002001001048, 0x1001002408100100,
    0x0801000408010012, 0x4001000209000400, 0x08a20004c8020001, 0x2002801145002280,
    0x0080860021004200, 0x001000c009402002, 0x00b0002004002800, 0x100a808010020800,
    0x8101010008000410, 0x0244008002000480, 0x0000040010810208, 0x2000020000448534,
    0x4104400480008033, 0x0000810100204000, 0x0440430900200010, 0x4600240900100100,
    0x0060080080040080, 0x0001000300080400, 0x0004084400011002, 0x0023040200008041,
    0x0580050043002080, 0x0400804002802008, 0x0001002001004010, 0x1000200901001000,
    0x4410800801800c00, 0xa012003806001004, 0x0020100104008802, 0x0004808402000041,
    0x0010400170898000, 0x0080500020004004, 0x1040408012020020, 0x8010040008004040,
    0x2001080100110004, 0x0000020004008080, 0x0021010810040002, 0x0800008c43020024,
    0x0000800021005100, 0x0070201040008080, 0x0000d04282006a00, 0x0010014400080240,
    0x0001080110050100, 0x0012000810240600, 0x0402000801040200, 0x028100108a004100,
    0x0050800300102045, 0x8208210040120882, 0x8010600101183441, 0x020b000910006045,
    0x0241001002480005, 0x0081000400880241, 0x0000009008024124, 0x0048122980410402,
];

/// One slider on one square.
#[derive(Clone, Copy)]
struct Magic {
    /// The relevant squares.
    mask: u64,
    /// Times an occupancy of the relevant squares, puts them in the top bits.
    magic: u64,
    /// 64 minus the number of relevant squares: the product's top bits are the index.
    shift: u32,
    /// Where this square's slice of [`Sliders::attacks`] begins.
    offset: u32,
}

impl Magic {
    /// Where the attacks for occupancy `occ` are in [`Sliders::attacks`].
    #[inline(always)]
    fn index(&self, occ: u64) -> usize {
        self.offset as usize + ((occ & self.mask).wrapping_mul(self.magic) >> self.shift) as usize
    }
}

/// The size of [`Sliders::attacks`]: 2 to the number of relevant squares, summed over the
/// squares of both sliders (5 248 for the bishop, 102 400 for the rook).
const ATTACKS_LEN: usize = 107_648;

/// The magic lookups of both sliders.
struct Sliders {
    bishop: [Magic; 64],
    rook: [Magic; 64],
    /// Every square's attacks for every occupancy of its relevant squares.
    attacks: [u64; ATTACKS_LEN],
}

/// The 841 KB table, made at compile time (about 0.6 s of constant evaluation). Filled at
/// first use behind a `OnceLock` instead, it made KQvKR and KQvKP 1.5–2 % slower to
/// generate: every call then checks the lock and loads the table's address.
static SLIDERS: Sliders = sliders();

/// One slider on one square, direction by direction: every occupancy of the ray's relevant
/// squares (`occ[d][..len[d]]`) with the squares the slider then attacks along it (`att`).
struct RayCases {
    occ: [[u64; 64]; 4],
    att: [[u64; 64]; 4],
    len: [usize; 4],
}

const fn ray_cases(dirs: [(i8, i8); 4], sq: usize) -> RayCases {
    let mut c = RayCases {
        occ: [[0; 64]; 4],
        att: [[0; 64]; 4],
        len: [0; 4],
    };
    let mut d = 0;
    while d < 4 {
        let (df, dr) = dirs[d];
        // The ray's squares, nearest first.
        let mut ray = [0u64; 7];
        let mut n = 0;
        let mut f = (sq % 8) as i8 + df;
        let mut r = (sq / 8) as i8 + dr;
        while f >= 0 && f < 8 && r >= 0 && r < 8 {
            ray[n] = 1 << (r * 8 + f);
            n += 1;
            f += df;
            r += dr;
        }
        // All but the last square are relevant; bit `j` of `case` occupies square `j`.
        let relevant = if n == 0 { 0 } else { n - 1 };
        let mut case = 0;
        while case < 1 << relevant {
            let mut j = 0;
            let mut blocked = false;
            while j < n {
                if j < relevant && case & (1 << j) != 0 {
                    c.occ[d][case] |= ray[j];
                }
                if !blocked {
                    c.att[d][case] |= ray[j];
                    blocked = c.occ[d][case] & ray[j] != 0;
                }
                j += 1;
            }
            case += 1;
        }
        c.len[d] = 1 << relevant;
        d += 1;
    }
    c
}

/// Fills the slice of `attacks` at `*offset` for a slider moving in `dirs` on `sq` and
/// moves `*offset` past it.
const fn fill(
    attacks: &mut [u64; ATTACKS_LEN],
    offset: &mut usize,
    dirs: [(i8, i8); 4],
    sq: usize,
    magic: u64,
) -> Magic {
    let c = ray_cases(dirs, sq);
    let mut mask = 0;
    let mut d = 0;
    while d < 4 {
        // The last case has every relevant square of the ray occupied.
        mask |= c.occ[d][c.len[d] - 1];
        d += 1;
    }
    let m = Magic {
        mask,
        magic,
        shift: 64 - mask.count_ones(),
        offset: *offset as u32,
    };
    // An occupancy of the relevant squares is one case of each ray, and its attacks the
    // union of theirs: four nested loops reach every occupancy while working out each ray's
    // attacks only once. Compile-time evaluation is slow and the innermost loop is most of
    // it, so that loop has its operands at hand and inlines `Magic::index` (whose `& mask`
    // it does not need).
    let (occ3, att3, n3) = (&c.occ[3], &c.att[3], c.len[3]);
    let (base, shift) = (*offset, m.shift);
    let mut i0 = 0;
    while i0 < c.len[0] {
        let (o0, a0) = (c.occ[0][i0], c.att[0][i0]);
        let mut i1 = 0;
        while i1 < c.len[1] {
            let (o1, a1) = (o0 | c.occ[1][i1], a0 | c.att[1][i1]);
            let mut i2 = 0;
            while i2 < c.len[2] {
                let (o2, a2) = (o1 | c.occ[2][i2], a1 | c.att[2][i2]);
                let mut i3 = 0;
                while i3 < n3 {
                    let att = a2 | att3[i3];
                    let slot = &mut attacks
                        [base + ((o2 | occ3[i3]).wrapping_mul(magic) >> shift) as usize];
                    // A slider always attacks some square, so 0 marks a slot not yet
                    // filled; a filled one may be shared only by occupancies with the same
                    // attacks. A bad magic fails the build here.
                    assert!(
                        *slot == 0 || *slot == att,
                        "a magic maps two attacks to one slot"
                    );
                    *slot = att;
                    i3 += 1;
                }
                i2 += 1;
            }
            i1 += 1;
        }
        i0 += 1;
    }
    *offset += 1 << mask.count_ones();
    m
}

const fn sliders() -> Sliders {
    let empty = Magic {
        mask: 0,
        magic: 0,
        shift: 0,
        offset: 0,
    };
    let mut s = Sliders {
        bishop: [empty; 64],
        rook: [empty; 64],
        attacks: [0; ATTACKS_LEN],
    };
    let mut offset = 0;
    let mut sq = 0;
    while sq < 64 {
        s.bishop[sq] = fill(&mut s.attacks, &mut offset, DIRS, sq, BISHOP_MAGICS[sq]);
        sq += 1;
    }
    let mut sq = 0;
    while sq < 64 {
        s.rook[sq] = fill(&mut s.attacks, &mut offset, ORTHO, sq, ROOK_MAGICS[sq]);
        sq += 1;
    }
    assert!(offset == ATTACKS_LEN);
    s
}

/// Squares a bishop on `sq` attacks given the occupied squares `occ` (a blocker is
/// attacked; squares behind it are not).
#[inline]
pub fn bishop_attacks(sq: Square, occ: u64) -> u64 {
    SLIDERS.attacks[SLIDERS.bishop[sq as usize].index(occ)]
}

/// Squares a rook on `sq` attacks given the occupied squares `occ`.
#[inline]
pub fn rook_attacks(sq: Square, occ: u64) -> u64 {
    SLIDERS.attacks[SLIDERS.rook[sq as usize].index(occ)]
}

/// Squares a queen on `sq` attacks given the occupied squares `occ`.
#[inline]
pub fn queen_attacks(sq: Square, occ: u64) -> u64 {
    bishop_attacks(sq, occ) | rook_attacks(sq, occ)
}

/// Squares a piece of `color` and `role` on `sq` attacks given the occupied squares `occ`.
#[inline]
pub fn attacks(color: Color, role: Role, sq: Square, occ: u64) -> u64 {
    match role {
        Role::King => KING[sq as usize],
        Role::Knight => KNIGHT[sq as usize],
        Role::Bishop => bishop_attacks(sq, occ),
        Role::Rook => rook_attacks(sq, occ),
        Role::Queen => queen_attacks(sq, occ),
        Role::Pawn => pawn_attacks(color == Color::White, sq),
    }
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

/// Sliding attacks along four rays; rays 0 and 1 run towards higher square numbers: the
/// method the magic lookups replaced, kept as the tests' reference.
#[cfg(test)]
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

/// A bitboard seen through board symmetry `t` (as [`crate::indexing::index::transform`] maps each
/// square: bit 2 swaps files and ranks first, bit 0 mirrors the files, bit 1 the ranks).
#[inline]
pub fn transform_bb(t: u8, mut b: u64) -> u64 {
    if t & 4 != 0 {
        b = flip_diagonal(b);
    }
    if t & 1 != 0 {
        b = mirror_files(b);
    }
    if t & 2 != 0 {
        b = b.swap_bytes();
    }
    b
}

/// Files mirrored (a <-> h): each byte's bits reversed.
#[inline]
fn mirror_files(b: u64) -> u64 {
    b.reverse_bits().swap_bytes()
}

/// Squares mirrored in the a1-h8 diagonal (file and rank swapped): the 8x8 bit matrix
/// transposed by three exchanges of blocks.
#[inline]
fn flip_diagonal(mut b: u64) -> u64 {
    const K1: u64 = 0x5500_5500_5500_5500;
    const K2: u64 = 0x3333_0000_3333_0000;
    const K4: u64 = 0x0f0f_0f0f_0000_0000;
    let mut t = K4 & (b ^ (b << 28));
    b ^= t ^ (t >> 28);
    t = K2 & (b ^ (b << 14));
    b ^= t ^ (t >> 14);
    t = K1 & (b ^ (b << 7));
    b ^= t ^ (t >> 7);
    b
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

    /// A seeded xorshift generator: the same draws on every run.
    fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// The lookups against the ray walk they replaced, on every square: every occupancy of
    /// the squares a bishop or rook there sees on an empty board (with random pieces
    /// elsewhere, the slider's own square included), then random boards of four densities.
    #[test]
    fn sliders_match_the_ray_walk() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1du64);
        let mut cases = 0u32;
        let mut check = |sq: Square, occ: u64| {
            let b = slide(&RAYS, sq, occ);
            let r = slide(&ORTHO_RAYS, sq, occ);
            assert_eq!(
                bishop_attacks(sq, occ),
                b,
                "bishop on {sq}, occupancy {occ:#x}"
            );
            assert_eq!(rook_attacks(sq, occ), r, "rook on {sq}, occupancy {occ:#x}");
            assert_eq!(
                queen_attacks(sq, occ),
                b | r,
                "queen on {sq}, occupancy {occ:#x}"
            );
            cases += 1;
        };
        for sq in 0..64 {
            for seen in [slide(&RAYS, sq, 0), slide(&ORTHO_RAYS, sq, 0)] {
                // Every subset of `seen`, in the carry-rippler order.
                let mut sub = 0u64;
                loop {
                    check(sq, sub | (next() & next() & !seen));
                    sub = sub.wrapping_sub(seen) & seen;
                    if sub == 0 {
                        break;
                    }
                }
            }
            for _ in 0..1024 {
                let (a, b, c) = (next(), next(), next());
                for occ in [a & b & c, a & b, a, a | b] {
                    check(sq, occ);
                }
            }
        }
        assert!(cases > 1_000_000, "{cases} cases");
    }

    /// The empty-board rays from `sq` less the farthest square of each.
    fn relevant(rays: &[[u64; 64]; 4], sq: Square) -> u64 {
        let mut mask = 0;
        for (d, ray) in rays.iter().map(|r| r[sq as usize]).enumerate() {
            if ray != 0 {
                let last = if d < 2 {
                    63 - ray.leading_zeros()
                } else {
                    ray.trailing_zeros()
                };
                mask |= ray & !bb(last as Square);
            }
        }
        mask
    }

    #[test]
    fn relevant_squares() {
        for sq in 0..64 {
            assert_eq!(SLIDERS.bishop[sq as usize].mask, relevant(&RAYS, sq));
            assert_eq!(SLIDERS.rook[sq as usize].mask, relevant(&ORTHO_RAYS, sq));
        }
        // a1: b2…g7 and a2…a7, b1…g1; d4: everything but the rim.
        assert_eq!(relevant(&RAYS, 0).count_ones(), 6);
        assert_eq!(relevant(&ORTHO_RAYS, 0).count_ones(), 12);
        assert_eq!(relevant(&RAYS, 27).count_ones(), 9);
        assert_eq!(relevant(&ORTHO_RAYS, 27).count_ones(), 10);
    }

    /// The magic numbers are the first of a seeded xorshift's sparse candidates (the and of
    /// three draws) that work for each square, bishops a1…h8 then rooks, one generator
    /// throughout. Candidates whose product puts fewer than 6 bits in the top byte are
    /// skipped untried: they rarely spread the relevant squares enough.
    #[test]
    fn magics_come_from_the_seeded_search() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15u64);
        // `tried[i] == attempt` marks `slot[i]` as filled during the current attempt, which
        // saves clearing the slots for each of the million and a half candidates.
        let mut slot = vec![0u64; 4096];
        let mut tried = vec![0u32; 4096];
        let mut attempt = 0u32;
        for (rays, magics) in [(&RAYS, &BISHOP_MAGICS), (&ORTHO_RAYS, &ROOK_MAGICS)] {
            for sq in 0..64 {
                let mask = relevant(rays, sq);
                let shift = 64 - mask.count_ones();
                let mut cases = vec![];
                let mut sub = 0u64;
                loop {
                    cases.push((sub, slide(rays, sq, sub)));
                    sub = sub.wrapping_sub(mask) & mask;
                    if sub == 0 {
                        break;
                    }
                }
                let found = loop {
                    let magic = next() & next() & next();
                    if (mask.wrapping_mul(magic) >> 56).count_ones() < 6 {
                        continue;
                    }
                    attempt += 1;
                    let good = cases.iter().all(|&(occ, att)| {
                        let i = (occ.wrapping_mul(magic) >> shift) as usize;
                        if tried[i] != attempt {
                            tried[i] = attempt;
                            slot[i] = att;
                        }
                        slot[i] == att
                    });
                    if good {
                        break magic;
                    }
                };
                assert_eq!(found, magics[sq as usize], "square {sq}");
            }
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
