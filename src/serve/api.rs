//! The wire types of the HTTP API, in one place (as lila-tablebase keeps its own).
//!
//! - `GET /api/tables` → [`TablesResponse`]
//! - `GET /api/probe/<table>?position=<text>` → the plug-in's probe JSON (the same object
//!   `retro probe --json` prints), or [`ErrorBody`] with status 400 / 404. The table
//!   `chess` stands for whichever chess table the FEN's material needs.
//! - `GET /api/chess/materials` → [`MaterialsResponse`]

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::summary::SectionStats;

/// Query of `GET /api/probe/<table>`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct ProbeQuery {
    /// FEN for kbnk (spaces may be written `_`), a board string for k-in-a-row.
    pub position: Option<String>,
    /// Alias of `position` (`fen=` as on Lichess).
    pub fen: Option<String>,
}

/// Body of every API error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    /// `"illegal"` for a well-formed position that cannot occur; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<&'static str>,
    /// The problem in words, e.g. `"illegal: kings are adjacent"`.
    pub error: String,
    /// The bare reason given by the game (`"kings are adjacent"`), when a position was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The table a request needed and this server does not hold (`"KRPvKR"`), when that
    /// is what went wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing: Option<String>,
    /// The command that makes the missing table (`"retro generate chess KRPvKR"`), when
    /// the name is one a game knows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

/// Body of `GET /api/tables`.
#[derive(Clone, Debug, Serialize)]
pub struct TablesResponse {
    pub tables: Vec<TableInfo>,
}

/// One table being served.
#[derive(Clone, Debug, Serialize)]
pub struct TableInfo {
    /// Table name, as used in `/api/probe/<name>`: `kbnk`, `mnk-3x3-3`.
    pub name: String,
    /// Game id: `kbnk`, `mnk`, `chess`.
    pub game: String,
    /// The web viewer for this table: `chess` (a board of pieces) or `board` (k-in-a-row).
    pub viewer: &'static str,
    /// Human description.
    pub title: String,
    /// Game parameters (`width`, `height`, `k`, …).
    pub params: BTreeMap<String, i64>,
    /// Where the raw file can be downloaded (supports Range requests); `null` when the file
    /// resolves outside the tables folder (a symbolic link out of it).
    pub url: Option<String>,
    /// File size in bytes.
    pub bytes: u64,
    /// The file is the compressed form (`.rtbc`: values only, best moves found on probing).
    pub compressed: bool,
    /// Number of records (slots of the index space, legal or not).
    pub records: u64,
    /// Unit of the distances below: `moves` or `plies`.
    pub unit: &'static str,
    /// Totals over all sections; `headline.legal` counts the positions stored.
    pub headline: Headline,
    /// Every legal position the table holds, both sides to move, each stored position
    /// counted with the images it stands for (see `stored_as`); `null` where that is not
    /// known without reading the whole table, or where each stored position is one.
    pub positions: Option<u64>,
    /// What one stored position stands for, in words, for a table that keeps one of each
    /// group of positions the board's symmetries make alike (`"one of each pair of
    /// positions mirrored left to right"`); `null` where each is one position.
    pub stored_as: Option<String>,
    /// Per-section statistics, with per-distance counts.
    pub sections: Vec<SectionStats>,
    /// Game-specific summary lines (e.g. the value of the empty board).
    pub summary: Vec<String>,
}

/// Totals of a table.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Headline {
    pub legal: u64,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// Longest win or loss in the table's unit, if any.
    pub longest: Option<u16>,
}

/// Body of `GET /api/chess/materials`: every chess material a table can be made for, so
/// the viewer can offer a material whose table is not here (and name its command).
#[derive(Clone, Debug, Serialize)]
pub struct MaterialsResponse {
    /// The most pieces a table may hold, kings included.
    pub max_pieces: usize,
    /// In the generator's order: fewer pieces first, then fewer pawns, then by name.
    pub materials: Vec<MaterialEntry>,
}

/// One chess material.
#[derive(Clone, Debug, Serialize)]
pub struct MaterialEntry {
    /// Its table's name, in the stored colouring (`"KRPvKR"`).
    pub name: String,
    /// Pieces, kings included.
    pub pieces: usize,
    /// This server holds its table.
    pub present: bool,
    /// The table of another game that answers for the material where this server holds
    /// no chess table of it (`kbnk` for KBNvK); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<&'static str>,
}
