//! A chess position answered from whichever table holds its material: the material's own
//! chess table (`KBNvK`), or else a table of another game that holds it (`kbnk`, the KBNK
//! table `retro serve` makes by default). The one rule of `retro probe chess`,
//! `/api/probe/chess` (and so the viewer's chess board) and `/standard`; the answers
//! themselves are the chess crate's, so either table gives the same moves in the same
//! order with the same best move (`retro_chess::present`).

use std::path::Path;

use crate::chess::position::Position;
use crate::chess::router::{RouteError, Router};
use crate::game::Value;
use crate::plugin::Plugin;
use crate::present::{Presented, ProbeError};
use crate::registry::RegistryError;
use crate::table::Table;

/// A table of another game that holds a chess material.
pub struct StandIn {
    /// The material, as its chess table is named (`KBNvK`).
    pub material: &'static str,
    /// The table that holds it (`kbnk`).
    pub table: &'static str,
    /// The answer for a FEN of the material, of either colouring.
    pub answer: fn(&Table, &str) -> Result<Presented, ProbeError>,
    /// The value of a position of the material for its side to move.
    pub value: fn(&Table, &Position) -> Value,
}

/// Every table of another game that holds a chess material.
pub const STAND_INS: &[StandIn] = &[StandIn {
    material: "KBNvK",
    table: "kbnk",
    answer: crate::kbnk::chess_answer,
    value: crate::kbnk::chess_value,
}];

/// The table of another game that holds chess material `material` (a chess table's
/// name, `KBNvK`), if there is one.
pub fn stand_in(material: &str) -> Option<&'static StandIn> {
    STAND_INS.iter().find(|s| s.material == material)
}

/// The table that answers the positions of a chess material, and how.
pub struct Answering {
    /// Its name: the material's chess table (`KBNvK`), or a table of another game (`kbnk`).
    pub table: String,
    /// The other game's table, when it is one.
    pub stand_in: Option<&'static StandIn>,
}

impl Answering {
    /// The answer for `fen` from `table`, this table opened as `plugin`.
    pub fn probe(
        &self,
        plugin: &dyn Plugin,
        table: &Table,
        fen: &str,
    ) -> Result<Presented, ProbeError> {
        probe(self.stand_in, plugin, table, fen)
    }
}

/// The answer for `fen` from `table`, opened as `plugin`: through `stand_in` where it is a
/// table of another game.
fn probe(
    stand_in: Option<&StandIn>,
    plugin: &dyn Plugin,
    table: &Table,
    fen: &str,
) -> Result<Presented, ProbeError> {
    match stand_in {
        Some(s) => (s.answer)(table, fen),
        None => plugin.probe(table, fen),
    }
}

/// The table that answers the positions of chess material `material` (its chess table's
/// name) among the tables `has` says are at hand: its own, else a table of another game
/// that holds it, else its own (missing: the error names the command that makes it).
pub fn answering(material: &str, has: impl Fn(&str) -> bool) -> Answering {
    let own = Answering {
        table: material.to_string(),
        stand_in: None,
    };
    if has(material) {
        return own;
    }
    match stand_in(material) {
        Some(s) if has(s.table) => Answering {
            table: s.table.to_string(),
            stand_in: Some(s),
        },
        _ => own,
    }
}

/// The tables of one folder, opened as positions need them (`retro probe chess`).
pub struct Folder {
    router: Router,
}

impl Folder {
    pub fn new(dir: &Path) -> Folder {
        Folder {
            router: Router::in_registry(dir, &crate::GAMES),
        }
    }

    /// The answer for a FEN of any material.
    pub fn probe(&self, fen: &str) -> Result<Presented, RouteError> {
        let material = Router::table_for(fen)?;
        let (t, how) = match self.router.table(&material) {
            Ok(t) => (t, None),
            // No chess table of the material: a table of another game that holds it.
            Err(missing @ RegistryError::Missing { .. }) => match stand_in(&material) {
                Some(s) => (self.router.table(s.table).map_err(|_| missing)?, Some(s)),
                None => return Err(missing.into()),
            },
            Err(e) => return Err(e.into()),
        };
        probe(how, &*t.plugin, &t.table, fen).map_err(|e| match e {
            ProbeError::Position(p) => RouteError::Position(p),
            ProbeError::Table(t) => RouteError::Damaged(t),
        })
    }
}
