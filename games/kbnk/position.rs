//! A KBNK position: four squares and the side to move, with its legality rules.

use crate::chess::board::{bb, bishop_attacks, is_light, mirror, Square, KING, KNIGHT};

/// The side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    White,
    Black,
}

/// White king, bishop and knight against the black king, in any orientation (a bishop of
/// either colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub white_king: Square,
    pub bishop: Square,
    pub knight: Square,
    pub black_king: Square,
    pub side: Side,
    /// A FEN's move counters, echoed in answers; never part of the position's identity.
    pub clock: crate::chess::position::Clock,
}

/// Why four squares and a side do not make a legal position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Illegality {
    /// A square outside `0..64`.
    OffBoard,
    /// Two pieces share a square.
    SameSquare,
    /// The kings touch.
    AdjacentKings,
    /// White is to move while the black king is attacked.
    CheckNotToMove,
}

impl Illegality {
    /// The reason in words.
    pub fn text(self) -> &'static str {
        match self {
            Illegality::OffBoard => "a square is off the board",
            Illegality::SameSquare => "two pieces are on one square",
            Illegality::AdjacentKings => "kings are adjacent",
            Illegality::CheckNotToMove => {
                "the side not to move is in check (black is in check with white to move)"
            }
        }
    }
}

impl Position {
    /// A position after checking the rules (see [`Position::check`]).
    pub fn new(
        white_king: Square,
        bishop: Square,
        knight: Square,
        black_king: Square,
        side: Side,
    ) -> Result<Position, Illegality> {
        let p = Position {
            white_king,
            bishop,
            knight,
            black_king,
            side,
            clock: Default::default(),
        };
        p.check().map(|()| p)
    }

    /// The bitboard of the white pieces.
    pub fn white_occupied(&self) -> u64 {
        bb(self.white_king) | bb(self.bishop) | bb(self.knight)
    }

    /// Squares attacked by white (the black king does not block the bishop: a king cannot
    /// step back along the line of a check). Includes the white pieces that are defended.
    pub fn white_attacks(&self) -> u64 {
        white_attacks(self.white_king, self.bishop, self.knight)
    }

    /// True if the black king is attacked.
    pub fn black_in_check(&self) -> bool {
        self.white_attacks() & bb(self.black_king) != 0
    }

    /// The legality rules: four distinct squares on the board, kings not adjacent, and with
    /// white to move the black king not in check.
    pub fn check(&self) -> Result<(), Illegality> {
        let sq = [self.white_king, self.bishop, self.knight, self.black_king];
        if sq.iter().any(|&s| s >= 64) {
            return Err(Illegality::OffBoard);
        }
        let occ = sq.iter().fold(0u64, |acc, &s| acc | bb(s));
        if occ.count_ones() != 4 {
            return Err(Illegality::SameSquare);
        }
        if KING[self.white_king as usize] & bb(self.black_king) != 0 {
            return Err(Illegality::AdjacentKings);
        }
        if self.side == Side::White && self.black_in_check() {
            return Err(Illegality::CheckNotToMove);
        }
        Ok(())
    }

    /// True if the bishop stands on a light square (the stored orientation).
    pub fn light_bishop(&self) -> bool {
        is_light(self.bishop)
    }

    /// The file mirror `x -> 7 - x` of every piece (swaps the bishop's colour).
    pub fn mirrored(&self) -> Position {
        Position {
            white_king: mirror(self.white_king),
            bishop: mirror(self.bishop),
            knight: mirror(self.knight),
            black_king: mirror(self.black_king),
            side: self.side,
            clock: self.clock,
        }
    }

    /// The stored orientation: light-squared bishop.
    pub fn canonical(&self) -> Position {
        if self.light_bishop() {
            *self
        } else {
            self.mirrored()
        }
    }
}

/// Squares attacked by a white king, bishop and knight (occupancy: the white pieces only).
pub fn white_attacks(wk: Square, b: Square, n: Square) -> u64 {
    let occ = bb(wk) | bb(n);
    KING[wk as usize] | KNIGHT[n as usize] | bishop_attacks(b, occ)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::board::parse_square;

    fn sq(s: &str) -> Square {
        parse_square(s).unwrap()
    }

    #[test]
    fn rules() {
        let ok = Position::new(sq("h1"), sq("f1"), sq("g1"), sq("f2"), Side::White);
        assert!(ok.is_ok());
        let adj = Position::new(sq("h1"), sq("f1"), sq("g1"), sq("g2"), Side::White);
        assert_eq!(adj, Err(Illegality::AdjacentKings));
        let same = Position::new(sq("h1"), sq("h1"), sq("g1"), sq("e5"), Side::White);
        assert_eq!(same, Err(Illegality::SameSquare));
        // Bishop f1 checks the king on d3 through e2.
        let chk = Position::new(sq("h1"), sq("f1"), sq("g1"), sq("d3"), Side::White);
        assert_eq!(chk, Err(Illegality::CheckNotToMove));
        let chk_b = Position::new(sq("h1"), sq("f1"), sq("g1"), sq("d3"), Side::Black);
        assert!(chk_b.is_ok());
    }

    #[test]
    fn mirroring() {
        let p = Position::new(sq("a1"), sq("c1"), sq("b1"), sq("c2"), Side::Black).unwrap();
        assert!(!p.light_bishop());
        let c = p.canonical();
        assert!(c.light_bishop());
        assert_eq!(c.white_king, sq("h1"));
        assert_eq!(c.bishop, sq("f1"));
        assert_eq!(c.canonical(), c);
        assert_eq!(c.mirrored(), p);
    }
}
