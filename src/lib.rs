//! `retro`: a generic retrograde endgame-tablebase engine, as a program. This crate is the
//! top of the workspace: the list of game families ([`GAMES`]), the HTTP server
//! ([`serve`]), the words the CLI and the server use to say how to fix an error
//! ([`fixes`]), and the `retro` binary.
//!
//! Below it, the engine (`retro-engine`: [`game`], [`solve`], [`table`], [`probe`], …)
//! knows no game, and each game family is its own crate under `games/`. Their modules are
//! re-exported here under their usual names, for library users and the tests.

pub use retro_chess as chess;
pub use retro_engine::{
    atomic, disk, error, game, generate, input, memory, plugin, present, probe, progress, rebuild,
    registry, selftest, solve, summary, table, verify,
};
pub use retro_gomoku as gomoku;
pub use retro_kbnk as kbnk;
pub use retro_mnk as mnk;

pub mod chess_answers;
pub mod fixes;
#[cfg(feature = "server")]
pub mod serve;

/// Every game family this program knows, in the order they are listed and sorted: adding a
/// game is its folder (a crate under `games/`) and one entry here.
pub static GAMES: registry::Registry = registry::Registry::new(&[
    &kbnk::family::FAMILY,
    &chess::family::FAMILY,
    &mnk::family::FAMILY,
]);
