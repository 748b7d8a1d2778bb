//! The dense index of a material, and the board symmetries behind it.
//!
//! A section (white to move, then black to move) is indexed
//! `[king pair][piece 1][piece 2]…`, pieces in material order (white's strongest first,
//! then black's), each a square `0..64`, or `0..48` for a pawn (ranks 2 to 7).
//!
//! - **Pawnless**: the 8 symmetries of the board. The king pair is one of the 462 canonical
//!   pairs: the white king in the triangle a1-d1-d4, and the black king on or below the
//!   a1-h8 diagonal when the white king is on it. Among the symmetries that give the
//!   canonical pair (two when both kings are on the diagonal), the one giving the smallest
//!   index wins.
//! - **With pawns**: only the left-right mirror; the white king stands on files a-d, so the
//!   pair is `white king (32) x black king (64)`.
//!
//! Identical pieces (two white rooks) are stored with their squares increasing; a slot
//! holding them the other way round, like a slot whose position is not the canonical one
//! of its symmetry class, is unused.

use std::sync::OnceLock;

use crate::rules::board::{attacks, bb, squares, Square, KING};
use crate::rules::material::{Color, Material, Role};
use crate::rules::position::Position;
use retro_engine::game::Index;

/// A board symmetry, as a square map: bit 0 mirrors files, bit 1 mirrors ranks, bit 2
/// swaps files and ranks (applied first).
pub fn transform(t: u8, sq: Square) -> Square {
    TRANSFORMS[t as usize][sq as usize]
}

const fn transform_slow(t: u8, sq: Square) -> Square {
    let mut s = sq;
    if t & 4 != 0 {
        s = ((s & 7) << 3) | (s >> 3);
    }
    if t & 1 != 0 {
        s ^= 7;
    }
    if t & 2 != 0 {
        s ^= 56;
    }
    s
}

static TRANSFORMS: [[Square; 64]; 8] = {
    let mut t = [[0; 64]; 8];
    let mut k = 0;
    while k < 8 {
        let mut s = 0;
        while s < 64 {
            t[k][s] = transform_slow(k as u8, s as u8);
            s += 1;
        }
        k += 1;
    }
    t
};

/// The inverse of [`transform`] `t`: each symmetry is its own, but a quarter turn's (the
/// swap of files and ranks followed by one mirror), which is the other quarter turn.
#[inline]
pub fn inverse(t: u8) -> u8 {
    [0, 1, 2, 3, 4, 6, 5, 7][t as usize]
}

const NONE: u16 = u16::MAX;

/// The 462 canonical king pairs and, for any pair, its canonical number and the
/// symmetries that produce it.
struct KingPairs {
    /// `[white king * 64 + black king]`: canonical pair number, or `NONE`.
    number: Vec<u16>,
    /// `[white king * 64 + black king]`: bit t set if symmetry t maps the pair to its
    /// canonical form (0 for adjacent or equal squares).
    symmetries: Vec<u8>,
    /// The squares of each canonical pair.
    pairs: Vec<(Square, Square)>,
}

fn in_triangle(sq: Square) -> bool {
    let (f, r) = (sq & 7, sq >> 3);
    f <= 3 && r <= f
}

fn canonical_pair(wk: Square, bk: Square) -> bool {
    let on_diag = |s: Square| s & 7 == s >> 3;
    let below = |s: Square| s >> 3 <= (s & 7);
    in_triangle(wk) && (!on_diag(wk) || below(bk))
}

fn king_pairs() -> &'static KingPairs {
    static KP: OnceLock<KingPairs> = OnceLock::new();
    KP.get_or_init(|| {
        let mut number = vec![NONE; 64 * 64];
        let mut pairs = Vec::new();
        for wk in 0..64u8 {
            for bk in 0..64u8 {
                let apart = wk != bk && crate::rules::board::KING[wk as usize] & bb(bk) == 0;
                if apart && canonical_pair(wk, bk) {
                    number[wk as usize * 64 + bk as usize] = pairs.len() as u16;
                    pairs.push((wk, bk));
                }
            }
        }
        let mut symmetries = vec![0u8; 64 * 64];
        for wk in 0..64u8 {
            for bk in 0..64u8 {
                for t in 0..8 {
                    let (a, b) = (transform(t, wk), transform(t, bk));
                    if number[a as usize * 64 + b as usize] != NONE {
                        symmetries[wk as usize * 64 + bk as usize] |= 1 << t;
                    }
                }
            }
        }
        KingPairs {
            number,
            symmetries,
            pairs,
        }
    })
}

/// How a material's positions map to slots.
#[derive(Clone, Debug)]
pub struct Layout {
    pub material: Material,
    /// The non-king pieces in index order.
    pub pieces: Vec<(Color, Role)>,
    pawns: bool,
    /// Two or more identical pieces (their order in the slot matters).
    twins: bool,
    /// Records per section.
    pub section: u64,
    /// Per piece in [`Layout::pieces`] order: a pawn (its digit counts 48 squares, not 64).
    pawn: [bool; 4],
    /// What one step of the king pair adds to the index: the slots of one king pair.
    pub pair_stride: u64,
}

impl Layout {
    /// The layout of a material in its stored colouring.
    pub fn new(material: &Material) -> Layout {
        let mut pieces = Vec::new();
        for (c, side) in [Color::White, Color::Black]
            .into_iter()
            .zip(&material.sides)
        {
            pieces.extend(side.iter().map(|&r| (c, r)));
        }
        let pawns = material.has_pawns();
        let kings: u64 = if pawns { 32 * 64 } else { 462 };
        let section = pieces.iter().fold(kings, |acc, &(_, r)| {
            acc * if r == Role::Pawn { 48 } else { 64 }
        });
        let twins = pieces.windows(2).any(|w| w[0] == w[1]);
        let mut pawn = [false; 4];
        for (p, &(_, r)) in pawn.iter_mut().zip(&pieces) {
            *p = r == Role::Pawn;
        }
        Layout {
            material: material.clone(),
            pieces,
            pawns,
            twins,
            section,
            pawn,
            pair_stride: section / kings,
        }
    }

    /// The slot of `pos` (stored colouring, any orientation), and the symmetry that
    /// turns `pos` into the stored position.
    pub fn encode(&self, pos: &Position) -> (Index, u8) {
        let wk = pos.king(Color::White);
        let bk = pos.king(Color::Black);
        let side = match pos.turn {
            Color::White => 0,
            Color::Black => self.section,
        };
        if self.pawns {
            let t = if wk & 7 >= 4 { 1 } else { 0 };
            (side + self.index_with(pos, t), t)
        } else {
            let syms = king_pairs().symmetries[wk as usize * 64 + bk as usize];
            let mut best = (Index::MAX, 0);
            for t in squares(syms as u64) {
                let i = self.index_with(pos, t);
                if i < best.0 {
                    best = (i, t);
                }
            }
            (side + best.0, best.1)
        }
    }

    /// The index within a section of `pos` seen through symmetry `t`.
    fn index_with(&self, pos: &Position, t: u8) -> Index {
        let wk = transform(t, pos.king(Color::White));
        let bk = transform(t, pos.king(Color::Black));
        let mut i: Index = if self.pawns {
            ((wk >> 3) * 4 + (wk & 7)) as Index * 64 + bk as Index
        } else {
            let n = king_pairs().number[wk as usize * 64 + bk as usize];
            debug_assert!(n != NONE, "not a canonical pair");
            n as Index
        };
        if !self.twins {
            for &(c, r) in &self.pieces {
                let s = transform(t, pos.pieces(c, r).trailing_zeros() as Square);
                i = if r == Role::Pawn {
                    i * 48 + (s - 8) as Index
                } else {
                    i * 64 + s as Index
                };
            }
            return i;
        }
        let mut k = 0;
        while k < self.pieces.len() {
            let (c, r) = self.pieces[k];
            // All pieces of this colour and role, squares increasing.
            let mut sq = [0u8; 4];
            let mut n = 0;
            for s in squares(pos.pieces(c, r)) {
                sq[n] = transform(t, s);
                n += 1;
            }
            sq[..n].sort_unstable();
            for &s in &sq[..n] {
                i = if r == Role::Pawn {
                    i * 48 + (s - 8) as Index
                } else {
                    i * 64 + s as Index
                };
            }
            k += n.max(1);
        }
        i
    }

    /// The slot of a position of the stored colouring given by its squares: the side to
    /// move, the kings, and the pieces in [`Layout::pieces`] order (identical pieces in any
    /// order). The same as [`Layout::encode`], without building a position: solvers that
    /// move one piece of a stored position call it for the position reached.
    pub fn slot_of(&self, turn: Color, wk: Square, bk: Square, sq: &[Square]) -> Index {
        let side = match turn {
            Color::White => 0,
            Color::Black => self.section,
        };
        if self.pawns {
            let t = if wk & 7 >= 4 { 1 } else { 0 };
            return side + self.index_of_squares(t, wk, bk, sq);
        }
        let syms = king_pairs().symmetries[wk as usize * 64 + bk as usize];
        if syms & (syms - 1) == 0 {
            // One symmetry gives the canonical pair: no choice to make.
            return side + self.index_of_squares(syms.trailing_zeros() as u8, wk, bk, sq);
        }
        side + squares(syms as u64)
            .map(|t| self.index_of_squares(t, wk, bk, sq))
            .min()
            .expect("a symmetry")
    }

    /// How the stored positions with these kings are oriented: `Some(t)` if exactly one
    /// symmetry `t` turns the pair into its canonical form (with pawns: the file mirror
    /// when the white king stands on files e-h, else the identity), `None` if two do (both
    /// kings on the a1-h8 diagonal or its image: each position then takes the one giving
    /// the smaller index). The kings must not be adjacent.
    #[inline]
    pub fn orientation(&self, wk: Square, bk: Square) -> Option<u8> {
        if self.pawns {
            return Some(if wk & 7 >= 4 { 1 } else { 0 });
        }
        let syms = king_pairs().symmetries[wk as usize * 64 + bk as usize];
        debug_assert!(syms != 0, "adjacent kings");
        (syms & (syms - 1) == 0).then(|| syms.trailing_zeros() as u8)
    }

    /// How the stored positions with these kings and these fixed pieces (every piece but
    /// the last, in [`Layout::pieces`] order) are oriented, wherever the last piece stands:
    /// [`Layout::orientation`] where the kings decide it. Where two symmetries give the
    /// kings, the fixed pieces' digits come before the last piece's in the index, so
    /// wherever their images differ they decide which image is smaller, for every square
    /// of the last piece: `None` only where they do not (every fixed piece on the axis),
    /// or where the last piece has an identical piece (sorting may put it among them).
    pub fn group_orientation(&self, wk: Square, bk: Square, fixed: &[Square]) -> Option<u8> {
        if let Some(t) = self.orientation(wk, bk) {
            return Some(t);
        }
        let n = self.pieces.len();
        if n == 0 || self.pieces[..n - 1].contains(&self.pieces[n - 1]) {
            return None;
        }
        let syms = king_pairs().symmetries[wk as usize * 64 + bk as usize];
        debug_assert_eq!(
            syms.count_ones(),
            2,
            "two symmetries give a king pair at most"
        );
        let (a, b) = (syms.trailing_zeros() as u8, 7 - syms.leading_zeros() as u8);
        match self
            .index_of_squares(a, wk, bk, fixed)
            .cmp(&self.index_of_squares(b, wk, bk, fixed))
        {
            std::cmp::Ordering::Less => Some(a),
            std::cmp::Ordering::Greater => Some(b),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// The first slot of a group ([`Layout::group_len`] slots, the last piece on each of
    /// its squares): `turn` to move, the kings and every piece but the last (`fixed`, in
    /// [`Layout::pieces`] order) seen through symmetry `t`, identical pieces among them
    /// sorted. The last piece has no identical piece, or `t` keeps their order.
    pub fn group_first(
        &self,
        turn: Color,
        t: u8,
        wk: Square,
        bk: Square,
        fixed: &[Square],
    ) -> Index {
        let side = match turn {
            Color::White => 0,
            Color::Black => self.section,
        };
        side + self.index_of_squares(t, wk, bk, fixed) * self.group_len() as Index
    }

    /// True if two or more pieces are identical (their order in a slot matters).
    pub fn twins(&self) -> bool {
        self.twins
    }

    /// The slots of a group: the squares the last piece may stand on (64, or 48 for a
    /// pawn); 1 without pieces.
    pub fn group_len(&self) -> usize {
        match self.pieces.last() {
            Some((_, Role::Pawn)) => 48,
            Some(_) => 64,
            None => 1,
        }
    }

    /// [`Layout::index_with`] on squares.
    fn index_of_squares(&self, t: u8, wk: Square, bk: Square, sq: &[Square]) -> Index {
        let (wk, bk) = (transform(t, wk), transform(t, bk));
        let mut i: Index = if self.pawns {
            ((wk >> 3) * 4 + (wk & 7)) as Index * 64 + bk as Index
        } else {
            king_pairs().number[wk as usize * 64 + bk as usize] as Index
        };
        let mut s = [0u8; 4];
        for (k, &x) in sq.iter().enumerate() {
            s[k] = transform(t, x);
        }
        let s = &mut s[..sq.len()];
        if self.twins {
            // Identical pieces stand next to each other in `pieces`: each run in
            // increasing order.
            let mut k = 0;
            while k < s.len() {
                let mut e = k + 1;
                while e < s.len() && self.pieces[e] == self.pieces[k] {
                    e += 1;
                }
                s[k..e].sort_unstable();
                k = e;
            }
        }
        for (&x, &(_, r)) in s.iter().zip(&self.pieces) {
            i = if r == Role::Pawn {
                i * 48 + (x - 8) as Index
            } else {
                i * 64 + x as Index
            };
        }
        i
    }

    /// True if no symmetry of this table but the identity keeps square `sq` in place.
    /// Then two different moves of a position whose side not to move has its king on `sq`
    /// never lead to the same slot: that king stands on `sq` after both moves, so a
    /// symmetry mapping one result onto the other would keep `sq` in place. Only the two
    /// diagonal reflections keep squares in place (those of their diagonal); with pawns
    /// the only symmetry, the file mirror, keeps none.
    pub fn fixes_orientation(&self, sq: Square) -> bool {
        let (file, rank) = (sq & 7, sq >> 3);
        self.pawns || (file != rank && file + rank != 7)
    }

    /// The squares slot `i` names, before any test of legality or canonical form: the side
    /// to move, the white and black kings, and the pieces in [`Layout::pieces`] order (the
    /// rest 0). For solvers that fill a table slot by slot without building positions;
    /// [`Layout::decode`] builds and checks them. `None` beyond the last slot.
    #[inline]
    pub fn squares_of(&self, i: Index) -> Option<(Color, Square, Square, [Square; 4])> {
        // Every slot of every pass decodes: subtractions and constant divisors, no
        // division by the section's size.
        let (turn, mut r) = if i < self.section {
            (Color::White, i)
        } else if i < 2 * self.section {
            (Color::Black, i - self.section)
        } else {
            return None;
        };
        // The squares gathered in one word, not stored byte by byte: reading the bytes
        // back as a whole stalled on the stores.
        let mut packed = 0u32;
        for k in (0..self.pieces.len()).rev() {
            let s = if self.pawn[k] {
                let s = (r % 48) as u32 + 8;
                r /= 48;
                s
            } else {
                let s = (r % 64) as u32;
                r /= 64;
                s
            };
            packed |= s << (8 * k);
        }
        let sq = packed.to_le_bytes();
        let (wk, bk) = if self.pawns {
            let w = (r / 64) as u8;
            (((w / 4) << 3) | (w % 4), (r % 64) as Square)
        } else {
            king_pairs().pairs[r as usize]
        };
        Some((turn, wk, bk, sq))
    }

    /// The number of the king pair (`wk`, `bk`) if the identity is the only symmetry that
    /// makes it canonical ([`Layout::kings_fix_orientation`]): a position with these kings
    /// is then stored as it stands, so a king move between two such pairs changes the
    /// pair's digit of the index and nothing else.
    pub fn plain_pair(&self, wk: Square, bk: Square) -> Option<Index> {
        if self.pawns {
            (wk & 7 < 4).then(|| ((wk >> 3) * 4 + (wk & 7)) as Index * 64 + bk as Index)
        } else {
            let kp = king_pairs();
            let k = wk as usize * 64 + bk as usize;
            (kp.symmetries[k] == 1).then(|| kp.number[k] as Index)
        }
    }

    /// True if a slot with these kings holds its canonical position whenever it holds a
    /// legal one with identical pieces in increasing order: no symmetry but the identity
    /// gives this king pair (the pair is then not both kings on the a1-h8 diagonal), or
    /// the table has pawns. Otherwise only [`Layout::decode`] tells.
    pub fn kings_fix_orientation(&self, wk: Square, bk: Square) -> bool {
        self.pawns || king_pairs().symmetries[wk as usize * 64 + bk as usize] == 1
    }

    /// True if slot `i`, one that [`Layout::encode`] or [`Layout::slot_of`] gave, holds a
    /// legal position: [`Layout::decode`]'s tests without building the position and
    /// encoding it again (such a slot is canonical whenever it is legal). A position
    /// reached by a capture or promotion tried without testing that it leaves the mover's
    /// king safe is read from its sub-table's slot this way, millions of times a table;
    /// a compressed sub-table must not be asked for an illegal slot's value.
    pub fn encoded_is_legal(&self, i: Index) -> bool {
        self.legal_squares(i).is_some()
    }

    /// The squares of slot `i` ([`Layout::squares_of`]) if they make a legal position,
    /// canonical or not.
    fn legal_squares(&self, i: Index) -> Option<(Color, Square, Square, [Square; 4])> {
        let (turn, wk, bk, sq) = self.squares_of(i)?;
        // The squares give one king each and pawns on ranks 2 to 7: only distinct squares,
        // the kings' distance and the check on the side not to move are left to test.
        if KING[wk as usize] & bb(bk) != 0 || wk == bk {
            return None;
        }
        let mut occ = bb(wk) | bb(bk);
        for &s in &sq[..self.pieces.len()] {
            if occ & bb(s) != 0 {
                return None;
            }
            occ |= bb(s);
        }
        // The side not to move's king is not next to the other (tested above).
        let target = bb(if turn == Color::White { bk } else { wk });
        let check = (self.pieces.iter().zip(&sq))
            .any(|(&(c, role), &s)| c == turn && attacks(c, role, s, occ) & target != 0);
        (!check).then_some((turn, wk, bk, sq))
    }

    /// The position with `turn` to move, the kings on `wk` and `bk` and the other pieces on
    /// `sq` (in the layout's piece order), legal or not.
    fn position_on(&self, turn: Color, wk: Square, bk: Square, sq: &[Square; 4]) -> Position {
        let mut pos = Position::empty();
        pos.turn = turn;
        pos.place(wk, Color::White, Role::King);
        pos.place(bk, Color::Black, Role::King);
        for (&(c, role), &s) in self.pieces.iter().zip(sq) {
            pos.place(s, c, role);
        }
        pos
    }

    /// The slot of slot `i`'s position with the colours exchanged (each piece to the other
    /// side, the board turned over, the other side to move), for a material with the same
    /// pieces on both sides: the same game, so the same value. `None` for other
    /// materials, or a slot holding no position.
    pub fn colour_twin(&self, i: Index) -> Option<Index> {
        let [white, black] = &self.material.sides;
        if white != black {
            return None;
        }
        Some(self.encode(&self.decode(i)?.color_flipped()).0)
    }

    /// The position in slot `i`, if the slot holds a legal position in canonical form.
    pub fn decode(&self, i: Index) -> Option<Position> {
        let (turn, wk, bk, sq) = self.legal_squares(i)?;
        let pos = self.position_on(turn, wk, bk, &sq);
        debug_assert!(pos.check().is_ok());
        // Only identical pieces or a symmetric king pair can make a slot hold a
        // non-canonical position; skip the re-encoding otherwise.
        if (!self.kings_fix_orientation(wk, bk) || self.twins) && self.encode(&pos).0 != i {
            return None;
        }
        Some(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries() {
        assert_eq!(king_pairs().pairs.len(), 462);
        for t in 0..8 {
            let u = inverse(t);
            for s in 0..64 {
                assert_eq!(transform(u, transform(t, s)), s);
            }
        }
        let kqvk = Layout::new(&Material::parse("KQvK").unwrap());
        assert_eq!(kqvk.section, 462 * 64);
        let kpvk = Layout::new(&Material::parse("KPvK").unwrap());
        assert_eq!(kpvk.section, 32 * 64 * 48);
    }

    /// A material with the same pieces on both sides holds each position in both sections:
    /// the twin of a white-to-move slot is a black-to-move slot whose twin is the first,
    /// and which holds the same pieces with the colours exchanged, the board turned over.
    /// Other materials have none.
    #[test]
    fn colour_twins_pair_the_sections_of_a_material_alike_on_both_sides() {
        for name in ["KRvKR", "KPvKP", "KRNvKRN"] {
            let l = Layout::new(&Material::parse(name).unwrap());
            let mut twins = 0;
            // About 30,000 slots a material (an odd step, to meet every square's digit).
            let step = (l.section / 30_000) | 1;
            for i in (0..l.section).step_by(step as usize) {
                let Some(p) = l.decode(i) else {
                    assert_eq!(l.colour_twin(i), None, "{name} {i}");
                    continue;
                };
                let j = l.colour_twin(i).unwrap();
                assert!((l.section..2 * l.section).contains(&j), "{name} {i}: {j}");
                assert_eq!(l.colour_twin(j), Some(i), "{name} {i}");
                let q = l.decode(j).unwrap();
                assert_eq!(q.turn, Color::Black);
                // The same pieces, colours exchanged, up to the table's symmetries.
                assert_eq!(l.encode(&q.color_flipped()).0, i, "{name} {i}");
                assert_eq!(q.occupied().count_ones(), p.occupied().count_ones());
                twins += 1;
            }
            assert!(twins > 2000, "{name}: {twins} positions");
        }
        let kqvkr = Layout::new(&Material::parse("KQvKR").unwrap());
        assert!((0..kqvkr.section).all(|i| kqvkr.colour_twin(i).is_none()));
    }

    #[test]
    fn round_trips() {
        for name in [
            "KQvK", "KRvKB", "KBBvK", "KPvKP", "KRPvK", "KRRvK", "KPPvKP",
        ] {
            let l = Layout::new(&Material::parse(name).unwrap());
            let mut legal = 0;
            for i in (0..2 * l.section).step_by(97) {
                if let Some(p) = l.decode(i) {
                    legal += 1;
                    assert_eq!(l.encode(&p).0, i, "{name} {i}");
                    let (turn, wk, bk, sq) = l.squares_of(i).unwrap();
                    assert_eq!(l.slot_of(turn, wk, bk, &sq[..l.pieces.len()]), i);
                    // The raw squares name the same position.
                    let (turn, wk, bk, sq) = l.squares_of(i).unwrap();
                    assert_eq!(
                        (turn, wk, bk),
                        (p.turn, p.king(Color::White), p.king(Color::Black))
                    );
                    for (k, &(c, r)) in l.pieces.iter().enumerate() {
                        assert_ne!(p.pieces(c, r) & bb(sq[k]), 0, "{name} {i} piece {k}");
                    }
                    // Every image of the position encodes alike.
                    let images: &[u8] = if name.contains('P') {
                        &[0, 1]
                    } else {
                        &[0, 1, 2, 3, 4, 5, 6, 7]
                    };
                    for &t in images {
                        let q = p.map(|s| transform(t, s));
                        assert_eq!(l.encode(&q).0, i, "{name} {i} t{t}");
                        // The same from squares, identical pieces in either order.
                        let mut m: Vec<Square> = sq[..l.pieces.len()]
                            .iter()
                            .map(|&s| transform(t, s))
                            .collect();
                        m.reverse();
                        let mut back = l.pieces.clone();
                        back.reverse();
                        if back == l.pieces {
                            let (wk, bk) = (
                                transform(t, p.king(Color::White)),
                                transform(t, p.king(Color::Black)),
                            );
                            assert_eq!(l.slot_of(p.turn, wk, bk, &m), i, "{name} {i} t{t}");
                        }
                    }
                }
            }
            assert!(legal > 0, "{name}");
        }
    }

    /// The cheap legality test agrees with decoding on every slot it may be asked about:
    /// a slot it calls illegal decodes to nothing, and a slot it calls legal holds a legal
    /// position, which decodes unless the slot is not its canonical one (which `encode`
    /// and `slot_of` never give).
    #[test]
    fn encoded_is_legal_is_decodes_test_on_encoded_slots() {
        for name in [
            "KQvK", "KRvKB", "KBBvK", "KPvKP", "KRPvK", "KNNvKP", "KQvKR",
        ] {
            let l = Layout::new(&Material::parse(name).unwrap());
            let (mut legal, mut illegal) = (0, 0);
            for i in (0..2 * l.section).step_by(89) {
                let decoded = l.decode(i);
                if !l.encoded_is_legal(i) {
                    assert!(decoded.is_none(), "{name} {i}");
                    illegal += 1;
                    continue;
                }
                legal += 1;
                let (turn, wk, bk, sq) = l.squares_of(i).unwrap();
                let p = l.position_on(turn, wk, bk, &sq);
                assert!(p.check().is_ok(), "{name} {i}");
                if decoded.is_none() {
                    assert_ne!(
                        l.slot_of(turn, wk, bk, &sq[..l.pieces.len()]),
                        i,
                        "{name} {i}"
                    );
                }
            }
            assert!(
                legal > 100 && illegal > 10,
                "{name}: {legal} legal, {illegal} not"
            );
        }
    }
}

#[cfg(test)]
mod transform_tests {
    use super::*;
    use crate::rules::board::transform_bb;

    #[test]
    fn bitboards_transform_as_their_squares() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for t in 0..8u8 {
            for _ in 0..200 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let want = squares(x).fold(0, |acc, s| acc | bb(transform(t, s)));
                assert_eq!(transform_bb(t, x), want, "t {t} {x:#x}");
            }
        }
    }
}
