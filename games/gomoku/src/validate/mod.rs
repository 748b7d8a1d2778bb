//! Strategy files and what reads or writes them: the validator (`retro gomoku validate`)
//! with its walk, tasks, repairs and report, and the proof searches' results written as
//! strategies. Uses [`super::rules`] and [`super::search`].

#[cfg(test)]
mod export;
pub mod graft;
pub mod ladder;
pub mod options;
pub mod prove_write;
pub mod repair;
pub mod report;
mod shared;
#[cfg(test)]
mod solve_tests;
pub mod solve_write;
pub mod strategy;
mod task;
#[cfg(test)]
mod validate_tests;
pub mod validator;
mod walk;

pub use options::Options;
pub use validator::{validate, validate_with};
