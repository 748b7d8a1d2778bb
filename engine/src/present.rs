//! Text forms of a game, for the CLI, the JSON answers and the server: what people see of
//! a position and a probe's answer. The solver needs none of it, so it lives above the
//! contract ([`crate::game`]), beside the prober whose results it shows.

use crate::error::TableError;
use crate::game::{Game, PositionError, Value};
use crate::probe::Probed;
use crate::table::Table;

/// Why a probe gave no answer: the position, or a table that no longer reads (a
/// compressed block damaged after the table was opened: see [`crate::table::damage`]).
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error(transparent)]
    Position(#[from] PositionError),
    #[error(transparent)]
    Table(#[from] TableError),
}

/// Text forms of positions and moves, for the CLI, the JSON answers and the server.
pub trait GameText: Game {
    /// REQUIRED. One-line description: "king + bishop + knight vs king".
    fn title(&self) -> String;

    /// REQUIRED. Parse the user's notation (FEN, board string).
    fn parse_position(&self, text: &str) -> Result<Self::Position, PositionError>;

    /// REQUIRED. The notation `parse_position` reads.
    fn position_text(&self, pos: &Self::Position) -> String;

    /// REQUIRED. The probe answer as JSON and as words, built from the generic probe result.
    fn present(&self, pos: &Self::Position, probed: &Probed) -> Presented;

    /// REQUIRED. How distances are counted for people: per-distance statistics and summaries
    /// use this (KBNK: moves; m,n,k: plies).
    fn distance_unit(&self) -> DistanceUnit;

    /// OPTIONAL. Extra lines for the summary after `retro generate` and in `retro info`
    /// (m,n,k: the value of the empty board, positions reachable from it), computed from the
    /// finished table. Default: none.
    fn summary_lines(&self, _table: &Table) -> Vec<String> {
        Vec::new()
    }

    /// OPTIONAL. How a table keeps positions when it keeps one of each group that the
    /// game's symmetries make alike (see [`Game::images`]), for people: what a stored
    /// position stands for, and how many positions a table of `stored` legal stored
    /// positions holds in all, where that follows without reading the table. Default:
    /// `None` (each stored position is one position).
    fn stored_as(&self, _stored: u64) -> Option<StoredAs> {
        None
    }
}

/// What a table's stored positions stand for ([`GameText::stored_as`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAs {
    /// Every legal position the table holds, both sides to move, each image counted: the
    /// positions the stored ones stand for. `None` where it cannot be known without
    /// reading every record.
    pub positions: Option<u64>,
    /// What one stored position stands for, in words: "one of each pair of positions
    /// mirrored left to right".
    pub words: String,
}

/// A probe answer, rendered on demand: JSON for programs, words for people. Rendering only
/// the form asked for keeps batch probing fast (no JSON tree, no text nobody reads).
pub trait ProbeAnswer: Send {
    /// One JSON object, on one line.
    fn json(&self) -> String;
    /// The answer in words, one or more lines.
    fn text(&self) -> String;
}

/// What [`GameText::present`] returns.
pub type Presented = Box<dyn ProbeAnswer>;

/// How a game counts distances for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DistanceUnit {
    /// Chess style: "mate in n moves"; win in p plies = (p + 1) / 2 moves, loss in p plies =
    /// p / 2 moves.
    Moves,
    /// Plies, as stored.
    Plies,
}

impl DistanceUnit {
    /// A stored distance in plies in this unit.
    pub fn count(self, v: Value) -> Option<u16> {
        match (self, v) {
            (DistanceUnit::Plies, Value::Win(p) | Value::Loss(p)) => Some(p),
            (DistanceUnit::Moves, Value::Win(p)) => Some(p.div_ceil(2)),
            (DistanceUnit::Moves, Value::Loss(p)) => Some(p / 2),
            _ => None,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            DistanceUnit::Moves => "moves",
            DistanceUnit::Plies => "plies",
        }
    }
}
