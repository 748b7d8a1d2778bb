//! Gomoku plug-in: rules on bit lines, a sound threat-sequence search, and a validator
//! for winning strategy graphs (`retro gomoku validate`). See `README.md` in this folder.

pub mod board;
pub mod brute;
pub mod cellset;
pub mod checkpoint;
pub mod first_move;
pub mod graft;
pub mod ladder;
pub mod limit;
pub mod lines;
mod node_eval;
pub mod pns;
#[cfg(test)]
mod pns_tests;
mod pos;
pub mod position;
#[cfg(test)]
mod question_tests;
pub mod quiet;
pub mod random;
pub mod repair;
pub mod report;
pub mod shapes;
mod shared;
pub mod solve;
pub mod solve_moves;
#[cfg(test)]
mod solve_tests;
mod solve_trace;
pub mod solve_write;
pub mod strategy;
pub mod symmetry;
mod task;
pub mod threat;
#[cfg(test)]
mod threat_tests;
mod tt;
pub mod validate;
#[cfg(test)]
mod validate_tests;
mod walk;
mod zone;

pub use board::{Board, BoardError, Color, Rules};
pub use threat::{prove_win, prove_win_with, Proof, SearchConfig};
