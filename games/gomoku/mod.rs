//! Gomoku plug-in: rules on bit lines, a sound threat-sequence search, and a validator
//! for winning strategy graphs (`retro gomoku validate`). See `README.md` in this folder.

pub mod board;
pub mod brute;
pub mod cli;
pub mod cli_prove;
pub mod graft;
pub mod limit;
pub mod lines;
pub mod pns;
pub mod position;
pub mod quiet;
pub mod report;
pub mod shapes;
pub mod strategy;
pub mod symmetry;
pub mod threat;
pub mod validate;

pub use board::{Board, BoardError, Color, Rules};
pub use threat::{prove_win, prove_win_with, Proof, SearchConfig};
