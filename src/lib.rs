//! `retro`: a generic retrograde endgame-tablebase engine.
//!
//! The engine ([`game`], [`solve`], [`table`], [`probe`]) knows nothing about any game; the
//! plug-ins live in `games/`, one folder each, and are listed in [`registry`].

pub mod error;
pub mod fixes;
pub mod game;
pub mod generate;
pub mod memory;
pub mod plugin;
pub mod present;
pub mod probe;
pub mod progress;
pub mod rebuild;
pub mod registry;
pub mod selftest;
#[cfg(feature = "server")]
pub mod serve;
pub mod solve;
pub mod summary;
pub mod table;

#[path = "../games/chess/mod.rs"]
pub mod chess;
#[path = "../games/gomoku/mod.rs"]
pub mod gomoku;
#[path = "../games/kbnk/mod.rs"]
pub mod kbnk;
#[path = "../games/mnk/mod.rs"]
pub mod mnk;

#[cfg(test)]
mod testgame;

/// Every game family this program knows, in the order they are listed and sorted: adding a
/// game is its folder and one entry here.
pub static GAMES: registry::Registry = registry::Registry::new(&[
    &kbnk::family::FAMILY,
    &chess::family::FAMILY,
    &mnk::family::FAMILY,
]);
