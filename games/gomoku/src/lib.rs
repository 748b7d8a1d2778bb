//! Gomoku plug-in: rules on bit lines, a sound threat-sequence search, and a validator
//! for winning strategy graphs (`retro gomoku validate`). See `README.md` in this folder.
//!
//! Three layers, imports going one way only: [`rules`] (the board and its geometry) uses
//! neither of the others; [`search`] (the threat search, the proof searches) uses `rules`;
//! [`validate`] (strategy files, the validator, repairs, proofs written as strategies)
//! uses both.

pub mod rules;
pub mod search;
pub mod validate;

pub use rules::board::{Board, BoardError, Color, Rules};
pub use search::threat::{prove_win, prove_win_with, Proof, SearchConfig};
