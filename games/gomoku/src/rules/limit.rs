//! The move limit, in both units the seed and users use: black moves and stones.
//!
//! Black plays stones 1, 3, 5, ...: black's move `m` is stone `2m - 1`. The seed's claim
//! ("black needs no more than 35 moves", every leaf of its graph ending by stone 35) counts
//! stones, so the default is stone 35, black's 18th move. Setup stones count as moves played.

use std::fmt;

/// The seed's claim: black's five comes on or before stone 35.
pub const SEED_MAX_STONES: u32 = 35;

/// A move limit: black's winning stone must be on or before black's move `black_moves`
/// (stone `2 * black_moves - 1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveLimit {
    /// Black's last allowed move.
    pub black_moves: u32,
}

impl MoveLimit {
    /// The limit "black's five on or before stone `stones`": black's move `(stones + 1) / 2`.
    pub fn from_stones(stones: u32) -> MoveLimit {
        MoveLimit {
            black_moves: stones.div_ceil(2),
        }
    }

    /// The limit in black moves.
    pub fn from_black_moves(black_moves: u32) -> MoveLimit {
        MoveLimit { black_moves }
    }

    /// The last stone number black may win on.
    pub fn stones(&self) -> u32 {
        (2 * self.black_moves).saturating_sub(1)
    }
}

impl Default for MoveLimit {
    fn default() -> Self {
        MoveLimit::from_stones(SEED_MAX_STONES)
    }
}

impl fmt::Display for MoveLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "black's five by stone {} (black's move {})",
            self.stones(),
            self.black_moves
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stones_and_black_moves() {
        assert_eq!(MoveLimit::default().black_moves, 18);
        assert_eq!(MoveLimit::default().stones(), 35);
        // An even stone is white's: the limit is black's stone before it.
        assert_eq!(MoveLimit::from_stones(36).black_moves, 18);
        assert_eq!(MoveLimit::from_stones(1).black_moves, 1);
        assert_eq!(MoveLimit::from_black_moves(35).stones(), 69);
        assert_eq!(
            MoveLimit::default().to_string(),
            "black's five by stone 35 (black's move 18)"
        );
    }
}
