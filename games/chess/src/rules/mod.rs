//! The rules of chess as the tables count them: squares and attacks ([`board`], [`lines`]),
//! materials ([`material`]), positions and the 50-move rule's clock ([`position`]), moves
//! and un-moves in their fixed order ([`moves`]), FEN ([`fen`]), UCI and SAN
//! ([`notation`]). This room names no other.

pub mod board;
pub mod fen;
pub mod lines;
pub mod material;
pub mod moves;
pub mod notation;
pub mod position;
