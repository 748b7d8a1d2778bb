//! A chess position of any material: bitboards per colour and per role, and the side to move.
//!
//! No castling rights (endgame tables have none). The en-passant square and the move
//! counters of a FEN are kept for echoing and probing, but a *stored* position never has
//! an en-passant right (see `moves.rs` for the rule).

use super::board::{
    bb, bishop_attacks, pawn_attacks, queen_attacks, rook_attacks, squares, Square, KING, KNIGHT,
};
use super::material::{Color, Material, Role};

/// Pieces and side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Squares of each role, both colours, indexed by `Role as usize`.
    pub roles: [u64; 6],
    /// Squares of each colour.
    pub colors: [u64; 2],
    pub turn: Color,
    /// A square a pawn may take en passant (FEN input only; stored positions have none).
    pub ep: Option<Square>,
    /// The FEN's move counters, echoed in answers; not part of the position's identity.
    pub clock: Clock,
}

/// FEN move counters. Two positions that differ only in their counters are the same
/// position (equal, same hash): tables know nothing of clocks.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub halfmove: u32,
    pub fullmove: u32,
}

impl Default for Clock {
    fn default() -> Clock {
        Clock {
            halfmove: 0,
            fullmove: 1,
        }
    }
}

impl PartialEq for Clock {
    fn eq(&self, _: &Clock) -> bool {
        true
    }
}

impl Eq for Clock {}

impl std::hash::Hash for Clock {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

/// Plies without a capture or pawn move after which a draw can be claimed.
pub const FIFTY_MOVES: u16 = 100;

/// Why a placement of pieces is not a legal position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegality {
    Kings,
    PawnOnBackRank,
    AdjacentKings,
    CheckNotToMove,
    TooManyPieces,
}

impl Illegality {
    pub fn text(self) -> &'static str {
        match self {
            Illegality::Kings => "each side needs exactly one king",
            Illegality::PawnOnBackRank => "a pawn is on the first or last rank",
            Illegality::AdjacentKings => "kings are adjacent",
            Illegality::CheckNotToMove => "the side not to move is in check",
            Illegality::TooManyPieces => "more than 6 pieces",
        }
    }

    /// The reason in words for a position with `turn` to move, naming the side in check.
    pub fn explain(self, turn: Color) -> String {
        match self {
            Illegality::CheckNotToMove => format!(
                "{} ({} is in check with {} to move)",
                self.text(),
                turn.other().name(),
                turn.name()
            ),
            _ => self.text().to_string(),
        }
    }
}

impl Position {
    /// An empty board, white to move.
    pub fn empty() -> Position {
        Position {
            roles: [0; 6],
            colors: [0; 2],
            turn: Color::White,
            ep: None,
            clock: Clock::default(),
        }
    }

    pub fn occupied(&self) -> u64 {
        self.colors[0] | self.colors[1]
    }

    /// The piece on `sq`.
    pub fn piece_at(&self, sq: Square) -> Option<(Color, Role)> {
        let b = bb(sq);
        if self.occupied() & b == 0 {
            return None;
        }
        let color = if self.colors[0] & b != 0 {
            Color::White
        } else {
            Color::Black
        };
        let role = Role::ALL
            .into_iter()
            .find(|&r| self.roles[r as usize] & b != 0)?;
        Some((color, role))
    }

    pub fn put(&mut self, sq: Square, color: Color, role: Role) {
        self.remove(sq);
        self.place(sq, color, role);
    }

    /// [`Position::put`] on a square known to be empty: nothing to clear (decoding every
    /// slot of a solve places its pieces this way).
    #[inline]
    pub fn place(&mut self, sq: Square, color: Color, role: Role) {
        self.roles[role as usize] |= bb(sq);
        self.colors[color as usize] |= bb(sq);
    }

    pub fn remove(&mut self, sq: Square) {
        let m = !bb(sq);
        self.roles.iter_mut().for_each(|r| *r &= m);
        self.colors.iter_mut().for_each(|c| *c &= m);
    }

    /// Squares of `color`'s pieces of `role`.
    pub fn pieces(&self, color: Color, role: Role) -> u64 {
        self.roles[role as usize] & self.colors[color as usize]
    }

    pub fn king(&self, color: Color) -> Square {
        self.pieces(color, Role::King).trailing_zeros() as Square
    }

    /// Squares attacked by `color` with the given occupancy.
    pub fn attacks(&self, color: Color, occ: u64) -> u64 {
        let mut att = KING[self.king(color) as usize];
        for s in squares(self.pieces(color, Role::Knight)) {
            att |= KNIGHT[s as usize];
        }
        for s in squares(self.pieces(color, Role::Bishop)) {
            att |= bishop_attacks(s, occ);
        }
        for s in squares(self.pieces(color, Role::Rook)) {
            att |= rook_attacks(s, occ);
        }
        for s in squares(self.pieces(color, Role::Queen)) {
            att |= queen_attacks(s, occ);
        }
        for s in squares(self.pieces(color, Role::Pawn)) {
            att |= pawn_attacks(color == Color::White, s);
        }
        att
    }

    /// True if `color`'s king is attacked.
    pub fn in_check(&self, color: Color) -> bool {
        self.attacked_by(color.other(), self.king(color))
    }

    /// True if `sq` is attacked by `by` (occupancy as on the board).
    pub fn attacked_by(&self, by: Color, sq: Square) -> bool {
        self.attacked_with(by, sq, self.occupied(), 0)
    }

    /// True if `sq` is attacked by the pieces of `by` outside `without`, with occupancy
    /// `occ`.
    pub fn attacked_with(&self, by: Color, sq: Square, occ: u64, without: u64) -> bool {
        let them = self.colors[by as usize] & !without;
        let rq = (self.roles[Role::Rook as usize] | self.roles[Role::Queen as usize]) & them;
        let bq = (self.roles[Role::Bishop as usize] | self.roles[Role::Queen as usize]) & them;
        KING[sq as usize] & self.roles[Role::King as usize] & them != 0
            || KNIGHT[sq as usize] & self.roles[Role::Knight as usize] & them != 0
            || pawn_attacks(by == Color::Black, sq) & self.roles[Role::Pawn as usize] & them != 0
            || (rq != 0 && rook_attacks(sq, occ) & rq != 0)
            || (bq != 0 && bishop_attacks(sq, occ) & bq != 0)
    }

    /// The material on the board (kings excluded).
    pub fn material(&self) -> Material {
        let side = |c: Color| -> Vec<Role> {
            Role::ALL[..5]
                .iter()
                .flat_map(|&r| std::iter::repeat_n(r, self.pieces(c, r).count_ones() as usize))
                .collect()
        };
        Material::from_roles(side(Color::White), side(Color::Black))
    }

    /// The legality rules: one king each, at most 6 pieces, no pawn on the first or last
    /// rank, kings apart, the side not to move not in check.
    pub fn check(&self) -> Result<(), Illegality> {
        for c in [Color::White, Color::Black] {
            if self.pieces(c, Role::King).count_ones() != 1 {
                return Err(Illegality::Kings);
            }
        }
        if self.occupied().count_ones() as usize > super::material::MAX_PIECES {
            return Err(Illegality::TooManyPieces);
        }
        if self.roles[Role::Pawn as usize] & 0xff00_0000_0000_00ff != 0 {
            return Err(Illegality::PawnOnBackRank);
        }
        if KING[self.king(Color::White) as usize] & bb(self.king(Color::Black)) != 0 {
            return Err(Illegality::AdjacentKings);
        }
        if self.in_check(self.turn.other()) {
            return Err(Illegality::CheckNotToMove);
        }
        Ok(())
    }

    /// Every square mapped by `f` (a board symmetry).
    pub fn map(&self, f: impl Fn(Square) -> Square) -> Position {
        let mut p = Position {
            ep: self.ep.map(&f),
            ..Position::empty()
        };
        p.turn = self.turn;
        for (i, &r) in self.roles.iter().enumerate() {
            for s in squares(r) {
                p.roles[i] |= bb(f(s));
            }
        }
        for (i, &c) in self.colors.iter().enumerate() {
            for s in squares(c) {
                p.colors[i] |= bb(f(s));
            }
        }
        p
    }

    /// The colours swapped and the board turned over (ranks reversed), side to move too:
    /// the same game seen from the other side.
    pub fn color_flipped(&self) -> Position {
        let mut p = self.map(|s| s ^ 56);
        p.colors.swap(0, 1);
        p.turn = self.turn.other();
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::parse_square;

    fn sq(s: &str) -> Square {
        parse_square(s).unwrap()
    }

    #[test]
    fn rules_and_flip() {
        let mut p = Position::empty();
        p.put(sq("e1"), Color::White, Role::King);
        p.put(sq("e8"), Color::Black, Role::King);
        p.put(sq("a2"), Color::White, Role::Rook);
        assert_eq!(p.check(), Ok(()));
        assert_eq!(p.material().to_string(), "KRvK");
        p.turn = Color::Black;
        assert_eq!(p.check(), Ok(()));
        p.turn = Color::White;
        p.put(sq("e7"), Color::Black, Role::Pawn);
        p.remove(sq("e7"));
        p.put(sq("e5"), Color::White, Role::Queen);
        p.remove(sq("a2"));
        // The queen on e5 checks e8 with white to move: illegal.
        assert_eq!(p.check(), Err(Illegality::CheckNotToMove));
        let f = p.color_flipped();
        assert_eq!(f.king(Color::Black), sq("e8"));
        assert_eq!(f.king(Color::White), sq("e1"));
        assert_eq!(f.pieces(Color::Black, Role::Queen), bb(sq("e4")));
        assert_eq!(f.turn, Color::Black);
        assert_eq!(f.color_flipped(), p);
        p.put(sq("a8"), Color::White, Role::Pawn);
        assert_eq!(p.check(), Err(Illegality::PawnOnBackRank));
    }
}
