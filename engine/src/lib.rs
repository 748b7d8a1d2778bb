//! `retro-engine`: the generic retrograde engine. The contract a game implements
//! ([`game`]), the solvers ([`solve`]), the table format ([`table`]), probing ([`probe`]),
//! and the registry through which a program finds a game family by table name
//! ([`registry`]). It depends on no game: each family is its own crate under `games/`,
//! on this one, and the program (`retro`) lists them.
//!
//! Layers, each importing only those before it: [`error`], [`progress`], [`memory`],
//! [`disk`], [`input`] and [`atomic`]; [`game`]; [`table`] and [`solve`]; [`probe`], [`present`], [`generate`],
//! [`rebuild`], [`summary`], [`selftest`], [`verify`]; [`plugin`] and [`registry`].

pub mod atomic;
pub mod disk;
pub mod error;
pub mod game;
pub mod generate;
pub mod huge;
pub mod input;
pub mod memory;
pub mod metric;
pub mod plugin;
pub mod present;
pub mod probe;
pub mod progress;
pub mod rebuild;
pub mod registry;
pub mod selftest;
pub mod solve;
pub mod summary;
pub mod table;
pub mod value;
pub mod verify;

#[cfg(test)]
mod testgame;
