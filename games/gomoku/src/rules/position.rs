//! Positions given on the command line: a move list, black first (`"h8 h9 g9"`), or a
//! board of rows, top row first, separated by `/` or new lines (`x` black, `o` white, `.`
//! empty), 15x15 unless the rows say otherwise.

use super::board::{Board, BoardError, Color, Rules};

/// A parsed position: the board and, for move lists, the moves in order.
#[derive(Debug, Clone)]
pub struct Position {
    /// The stones.
    pub board: Board,
    /// The moves, black first (empty for a board).
    pub moves: Vec<u16>,
}

/// Why a position is rejected.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PositionError {
    /// A cell name or size problem.
    #[error(transparent)]
    Board(#[from] BoardError),
    /// The same cell twice.
    #[error("{0} is played twice")]
    Twice(String),
    /// Rows of different lengths, or an unknown character.
    #[error("bad board: {0}")]
    Rows(String),
    /// Not black's or white's turn by the stone counts.
    #[error("{black} black and {white} white stones: black moves first, so black must have as many stones as white or one more")]
    Counts {
        /// Black stones.
        black: u32,
        /// White stones.
        white: u32,
    },
    /// The game is already over.
    #[error("{0} already has a winning row: the game is over")]
    Over(&'static str),
    /// Nothing given.
    #[error("empty position: give moves like \"h8 h9 g9\" or a board")]
    Empty,
}

impl Position {
    /// Parses a move list or a board, and checks it is a position of a game in progress.
    pub fn parse(text: &str, k: usize, rules: Rules) -> Result<Position, PositionError> {
        let t = text.trim();
        if t.is_empty() {
            return Err(PositionError::Empty);
        }
        let is_board = t.contains('/') || t.contains('\n');
        let p = if is_board {
            Self::board(t, k)?
        } else {
            Self::moves(t, k)?
        };
        let (b, w) = (p.board.count(Color::Black), p.board.count(Color::White));
        if b != w && b != w + 1 {
            return Err(PositionError::Counts { black: b, white: w });
        }
        if p.board.has_five(Color::Black, rules) {
            return Err(PositionError::Over("black"));
        }
        if p.board.has_five(Color::White, rules) {
            return Err(PositionError::Over("white"));
        }
        Ok(p)
    }

    fn moves(t: &str, k: usize) -> Result<Position, PositionError> {
        let mut board = Board::new(15, 15, k)?;
        let mut moves = Vec::new();
        for (i, name) in t
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|s| !s.is_empty())
            .enumerate()
        {
            let c = board.parse_cell(name)?;
            if !board.is_empty(c) {
                return Err(PositionError::Twice(name.to_string()));
            }
            let color = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            board.place(c, color);
            moves.push(c as u16);
        }
        Ok(Position { board, moves })
    }

    fn board(t: &str, k: usize) -> Result<Position, PositionError> {
        let rows: Vec<String> = t
            .split(['/', '\n'])
            .map(|r| r.chars().filter(|c| !c.is_whitespace()).collect::<String>())
            .filter(|r| !r.is_empty())
            .collect();
        let width = rows.first().map_or(0, |r| r.chars().count());
        if let Some(r) = rows
            .iter()
            .find(|r| r.chars().count() != width || !r.chars().all(|c| "xXoO.".contains(c)))
        {
            return Err(PositionError::Rows(format!(
                "row {r:?}: every row needs {width} cells of x, o or ."
            )));
        }
        let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
        let board = Board::from_rows(&refs, k)?;
        Ok(Position {
            board,
            moves: Vec::new(),
        })
    }

    /// Whether black is to move (as many black stones as white).
    pub fn black_to_move(&self) -> bool {
        self.board.count(Color::Black) == self.board.count(Color::White)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_lists_and_boards() {
        let p = Position::parse("h8 h9 g9", 5, Rules::Standard).expect("parse");
        assert_eq!(p.moves.len(), 3);
        assert!(!p.black_to_move());
        let b = "...../...../..x../..o../.....";
        let p = Position::parse(b, 3, Rules::Standard).expect("parse");
        assert_eq!(p.board.width(), 5);
        assert!(p.black_to_move());
        assert_eq!(p.board.get(p.board.cell(2, 2)), Some(Color::Black));
    }

    #[test]
    fn bad_positions_are_named() {
        for (t, needle) in [
            ("", "empty"),
            ("h8 h8", "twice"),
            ("h8 z9", "bad cell"),
            ("..x/..", "row"),
            ("...../xx.../.....", "black must have"),
            ("a1 a2 b1 b2 c1 c2 d1 d2 e1", "game is over"),
        ] {
            let e = Position::parse(t, 5, Rules::Standard)
                .expect_err(t)
                .to_string();
            assert!(e.contains(needle), "{t}: {e}");
        }
    }
}
