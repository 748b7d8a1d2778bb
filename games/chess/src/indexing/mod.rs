//! Which table holds a position, and which slot: a material's dense index and the board
//! symmetries ([`index`]); the tables captures and promotions lead into, read from their
//! files ([`subtables`]); the chess family's registry entry ([`registry`], implemented by
//! the crate's `family.rs` on top); and the plug-ins' state, which says where each move of a
//! position leads ([`outcome`]: `Chess`, `ChessDtz`). Uses the rules only.

pub mod index;
pub mod outcome;
pub mod registry;
pub mod subtables;
