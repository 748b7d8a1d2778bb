//! k-in-a-row on an m x n board (m,n,k games, tic-tac-toe is 3,3,3): every position of a
//! board of at most 20 cells, solved with value, remoteness in plies and best move.
//!
//! - [`game`]: the [`Mnk`] game: a board's geometry, its k and its index, set up and
//!   checked (this file gives the engine its view of it, on top of the rooms below).
//! - [`board`]: the [`Board`] type (two bit masks), winning lines, symmetries.
//! - [`index`]: the dense index, reduced by the symmetries, tiered by stone count.
//! - [`tiers`]: the fast tier-by-tier solver (byte-identical to the generic one).
//! - [`notation`]: board strings `x.../.o../....` and cell names `a1`.
//! - [`present`]: probe answers as JSON and words.
//!
//! Rules: X moves first; k or more in a row wins; a full board without a line is a draw.
//! A position is legal iff X has as many stones as O or one more, the side to move has no
//! line, and every line of the player who just moved runs through one common stone of
//! theirs (the game ended with that stone). Move code = cell index + 1.

pub mod board;
pub mod family;
pub mod game;
pub mod index;
pub mod notation;
pub mod present;
pub mod tiers;

use retro_engine::game::{
    Game, Index, PositionError, Section, Solution, SolveOptions, Successor, Value,
};
use retro_engine::present::{DistanceUnit, GameText, Presented};
use retro_engine::solve::SolveError;
use retro_engine::table::Table;

pub use board::{Board, Geometry};
pub use game::{Mnk, MnkError, MAX_CELLS};

impl Game for Mnk {
    type Position = Board;

    fn name(&self) -> String {
        let g = &self.ix.geo;
        family::table_name(g.width, g.height, g.k)
    }

    fn params(&self) -> (&'static str, Vec<(String, i64)>) {
        let g = &self.ix.geo;
        (
            "mnk",
            vec![
                ("width".into(), g.width as i64),
                ("height".into(), g.height as i64),
                ("k".into(), g.k as i64),
            ],
        )
    }

    fn sections(&self) -> Vec<Section> {
        vec![
            Section {
                name: "x".into(),
                len: self.ix.x_len,
            },
            Section {
                name: "o".into(),
                len: self.ix.o_len,
            },
        ]
    }

    fn decode(&self, index: Index) -> Option<Board> {
        let (me, them) = self.ix.slot_me_them(index)?;
        self.legal_me_them(me, them)
            .then(|| Board::from_me_them(me, them))
    }

    fn encode(&self, pos: &Board) -> Index {
        self.ix.slot(pos)
    }

    fn canonical(&self, pos: &Board) -> Board {
        let (me, them) = pos.me_them();
        let (m, t, _) = self.ix.canonical_me_them(me, them);
        Board::from_me_them(m, t)
    }

    fn terminal(&self, pos: &Board) -> Option<Value> {
        let (_, them) = pos.me_them();
        if self.ix.geo.has_line(them) {
            Some(Value::Loss(0))
        } else if (pos.x | pos.o) == self.ix.geo.full {
            Some(Value::Draw)
        } else {
            None
        }
    }

    fn successors(&self, pos: &Board, out: &mut Vec<Successor>) {
        let x_moves = pos.x_to_move();
        let empty = self.ix.geo.full & !(pos.x | pos.o);
        for c in 0..self.ix.geo.cells {
            if empty >> c & 1 == 0 {
                continue;
            }
            let mut child = *pos;
            if x_moves {
                child.x |= 1 << c;
            } else {
                child.o |= 1 << c;
            }
            out.push(Successor {
                mv: (c + 1) as u8,
                to: retro_engine::game::Outcome::Index(self.ix.slot(&child)),
            });
        }
    }

    fn predecessors(&self, pos: &Board, out: &mut Vec<Index>) {
        let (me, them) = pos.me_them();
        let mut t = them;
        while t != 0 {
            let b = t & t.wrapping_neg();
            t ^= b;
            let before = them ^ b;
            if !self.ix.geo.has_line(before) {
                out.push(self.ix.slot(&Board::from_me_them(before, me)));
            }
        }
    }

    fn own_solution(&self, opts: &SolveOptions) -> Option<Result<Solution, SolveError>> {
        Some(tiers::solve(self, opts))
    }

    fn images(&self, pos: &Board) -> Vec<Board> {
        self.orbit(pos)
    }

    fn move_from_canonical(&self, pos: &Board, mv: u8) -> Option<u8> {
        if mv == 0 || mv as u32 > self.ix.geo.cells {
            return None;
        }
        let (me, them) = pos.me_them();
        let (_, _, g) = self.ix.canonical_me_them(me, them);
        Some(self.ix.geo.syms[g].inv[mv as usize - 1] + 1)
    }
}

impl GameText for Mnk {
    fn title(&self) -> String {
        let g = &self.ix.geo;
        format!("{} in a row on a {}x{} board", g.k, g.width, g.height)
    }

    fn parse_position(&self, text: &str) -> Result<Board, PositionError> {
        let b = notation::parse_board(&self.ix.geo, text)?;
        self.check_legal(&b).map_err(PositionError::Illegal)?;
        Ok(b)
    }

    fn position_text(&self, pos: &Board) -> String {
        notation::board_text(&self.ix.geo, pos)
    }

    fn present(&self, pos: &Board, probed: &retro_engine::probe::Probed) -> Presented {
        present::present(self, pos, probed)
    }

    fn distance_unit(&self) -> DistanceUnit {
        DistanceUnit::Plies
    }

    fn summary_lines(&self, table: &Table) -> Vec<String> {
        present::summary_lines(self, table)
    }

    /// Boards alike by the board's symmetries share a slot; how many each stands for
    /// varies (a symmetric board is its own image), so the total is not given here.
    fn stored_as(&self, _stored: u64) -> Option<retro_engine::present::StoredAs> {
        Some(retro_engine::present::StoredAs {
            positions: None,
            words: "one of each group of boards alike by turning or reflecting the board".into(),
        })
    }
}

#[cfg(test)]
mod tests;
