//! The Lichess tablebase API's answers over retro's chess tables: what `/standard` and
//! `/standard/mainline` say of a FEN, as lila-tablebase says it, so that existing Lichess
//! clients work with only their base URL changed. The server's handlers call
//! [`Tablebase`] with the tables they serve ([`Tables`]) and turn a [`LichessError`] into
//! its status.
//!
//! | route | answer |
//! |---|---|
//! | `GET /standard?fen=<FEN>` | [`types::TablebaseResponse`]: lila-tablebase's fields, every legal move best first |
//! | `GET /standard/mainline?fen=<FEN>` | [`types::MainlineResponse`]: the line of best moves to mate (DTZ-optimal where DTZ tables answer) |
//!
//! Errors are plain text, as lila-tablebase sends them: 400 for a malformed FEN or an
//! illegal position, 404 for a material with no table (or more than 6 pieces, or usable
//! castling rights). DTZ comes from the DTZ tables served beside the DTM tables
//! (`KQvKR.dtz`, `dtz.rs`), exact; without them, what retro cannot know exactly (DTZ outside
//! the materials where it is DTM, DTC) is `null`, never a guess: the rules are in [`rules`].

mod answer;
mod dtz;
pub mod fen;
pub mod folder;
// Lichess's fields and categories, which retro's own answers share (`present/`).
pub use crate::present::{lichess_rules as rules, lichess_types as types};

use std::path::Path;

use retro_engine::game::Value;
use retro_engine::table::{Table, TableError};

use crate::indexing::subtables::SubTableError;
use crate::Position;
pub use answer::Tablebase;
pub use folder::Folder;

/// The longest FEN read: longer than any real one.
pub const MAX_FEN_LEN: usize = 1024;

/// A table of another game that holds a chess material, with how to read a position's
/// value from it.
pub type StandIn<'a> = (&'a Table, fn(&Table, &Position) -> Value);

/// The tables the answers read, as a server holds them.
pub trait Tables: Send + Sync {
    /// REQUIRED. The served table of this name (`KQvKR`, `KQvKR.dtz`), if there is one.
    fn table(&self, name: &str) -> Option<&Table>;

    /// REQUIRED. The folder of the tables, where a chess table's sub-tables are.
    fn dir(&self) -> &Path;

    /// OPTIONAL. For a material with no chess table served: a table of another game that
    /// holds it (`retro serve`'s `kbnk` for KBNvK). Default: none, and the material has no
    /// answer.
    fn stand_in(&self, _material: &str) -> Option<StandIn<'_>> {
        None
    }
}

/// Why a FEN has no answer, in lila-tablebase's terms.
#[derive(Debug, thiserror::Error)]
pub enum LichessError {
    /// No `fen`, or a query that cannot be read.
    #[error("{0}")]
    Query(String),
    /// Text that is not a FEN.
    #[error("invalid fen: {0}")]
    InvalidFen(String),
    /// A FEN of a position that cannot occur.
    #[error("illegal position: {0}")]
    IllegalPosition(String),
    /// No table can hold the position (more than 6 pieces, castling rights).
    #[error("{0}")]
    NotInTablebase(String),
    /// The material's table is not served (the server names the command that makes it).
    #[error("required table not found: {name}")]
    Missing { name: String },
    /// The material's table is served but its sub-tables cannot be opened.
    #[error(transparent)]
    SubTables(SubTableError),
    /// A table read while answering is damaged.
    #[error("{0}")]
    Damaged(TableError),
}
