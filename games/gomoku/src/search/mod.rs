//! The searches: the threat search (fours, threes, threats of a VCF) with its zones, the
//! proof-number search on top of it (`prove`), and the DAG proof search of `solve` with its
//! checkpoints. Uses [`super::rules`] only.

pub mod checkpoint;
pub mod first_move;
mod node_eval;
pub mod pns;
#[cfg(test)]
mod pns_tests;
mod pos;
#[cfg(test)]
pub(crate) mod question_tests;
pub mod quiet;
pub mod solve;
pub mod solve_moves;
mod solve_trace;
pub mod threat;
#[cfg(test)]
mod threat_tests;
mod tt;
mod zone;
