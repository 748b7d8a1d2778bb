//! The rules: the board on bit lines, `k`-windows, named shapes, symmetries, positions
//! and move limits, and an exhaustive minimax referee for small boards. Uses nothing of
//! [`super::search`] or [`super::validate`].

pub mod board;
pub mod brute;
pub mod cellset;
pub mod limit;
pub mod lines;
pub mod position;
pub mod random;
pub mod shapes;
pub mod symmetry;
