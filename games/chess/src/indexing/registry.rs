//! The chess family's entry in a registry. A compressed sub-table that stores one side to
//! move finds the other through it ([`CHESS`]), so the sub-tables read the registry, while
//! the family's `Family` impl (`family.rs`: table names, opening the plug-ins) opens tables
//! and their sub-tables. The entry is declared here, below both, and implemented in
//! `family.rs`: no file names one above it.

use retro_engine::registry::Registry;

/// The chess family: see [`Family`](retro_engine::registry::Family).
pub struct ChessFamily;

/// The family, for the program's registry.
pub static FAMILY: ChessFamily = ChessFamily;

/// Chess alone: how a chess table opens its sub-tables (a compressed one finds its dropped
/// side to move from its own sub-tables) and how the FEN router finds a material's table.
pub static CHESS: Registry = Registry::new(&[&FAMILY]);
