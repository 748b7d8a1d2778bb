//! `retro`: a generic retrograde endgame-tablebase engine.
pub mod game;
