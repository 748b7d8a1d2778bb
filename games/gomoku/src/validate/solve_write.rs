//! The strategy file of a solved graph (project format), as `retro gomoku validate` reads
//! it.
//!
//! The graph is a DAG; the file is a tree. A position reached again by another move order
//! is written once: the second time its white reply is left out, and the validator accepts
//! it because a reply leading to a position listed anywhere in the graph (up to symmetry)
//! is checked there (`task.rs`). Both have the same black stones, so the same budget. White
//! replies outside an AND node's zone are not written either: the validator computes the
//! same pass proof and zone again (the search is deterministic and its node limit is at
//! least ours). Threat-proven positions are integer leaves in the seed's convention (`2m`
//! with black to move and `m` black stones to go), which the validator proves itself.

use std::collections::HashSet;

use crate::rules::board::Color;
use crate::search::first_move::first_threat_move;
use crate::search::solve::{How, Solver};

use super::strategy::{AfterBlack, AfterWhite, BlackNode, Strategy, WhiteNode};

/// Why no strategy could be written.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WriteError {
    /// The root is not proven.
    #[error("the position is not proven")]
    NotProven,
    /// White moves first and no black stone can be taken back to start the strategy.
    #[error("white to move and no black stone to start the strategy with")]
    NoBlackStone,
    /// The threat search proved the root but its first move was not found again.
    #[error("the threat proof's first move could not be isolated")]
    NoFirstMove,
}

struct Writer<'a> {
    s: &'a Solver,
    /// OR nodes already written with a black move (not leaves).
    written: HashSet<u32>,
}

impl Writer<'_> {
    /// A proven OR node (black to move).
    fn after_white(&mut self, id: u32) -> AfterWhite {
        let n = &self.s.nodes[id as usize];
        match n.how {
            How::Threat(m) => AfterWhite::Leaf(2 * m),
            _ => match self.s.proven_child(id) {
                Some((mv, c)) => {
                    self.written.insert(id);
                    AfterWhite::Black(Box::new(BlackNode {
                        mv,
                        after: self.after_black(c),
                    }))
                }
                // Not reachable for a proven node; a short leaf is still checked in full.
                None => AfterWhite::Leaf(2),
            },
        }
    }

    /// A proven AND node (white to move).
    fn after_black(&mut self, id: u32) -> AfterBlack {
        let n = &self.s.nodes[id as usize];
        if n.how == How::Double {
            return AfterBlack::Leaf(3);
        }
        let mut replies = Vec::new();
        for &(w, c) in &n.children {
            // A transposition already written: the validator finds it in the graph.
            if self.written.contains(&c) {
                continue;
            }
            replies.push((w, self.after_white(c)));
        }
        AfterBlack::White(WhiteNode { replies })
    }
}

impl Solver {
    /// The strategy of the proven root. With white to move at the root, the file starts
    /// one stone earlier: `last_black` (or, when none is given, the last black stone in
    /// cell order) is taken back and becomes the strategy's first move.
    pub fn strategy(&self, last_black: Option<u16>) -> Result<Strategy, WriteError> {
        if !self.proven() {
            return Err(WriteError::NotProven);
        }
        let cfg = self.config();
        let mut start = self.root_board();
        let mut w = Writer {
            s: self,
            written: HashSet::new(),
        };
        let root = if self.black_to_move() {
            match w.after_white(self.root) {
                AfterWhite::Black(b) => *b,
                AfterWhite::Leaf(_) => {
                    let budget = cfg.max_moves.saturating_sub(start.count(Color::Black));
                    let (mv, m) =
                        first_threat_move(&start, Color::Black, cfg.rules, budget, cfg.threat)
                            .ok_or(WriteError::NoFirstMove)?;
                    BlackNode {
                        mv,
                        after: AfterBlack::Leaf(if m == 0 { 1 } else { 2 * m + 1 }),
                    }
                }
            }
        } else {
            let last = match last_black {
                Some(m) if start.get(m as usize) == Some(Color::Black) => m as usize,
                _ => (0..start.cells())
                    .rev()
                    .find(|&c| start.get(c) == Some(Color::Black))
                    .ok_or(WriteError::NoBlackStone)?,
            };
            start.remove(last, Color::Black);
            BlackNode {
                mv: last as u16,
                after: w.after_black(self.root),
            }
        };
        Ok(Strategy {
            start,
            rules: Some(cfg.rules),
            max_moves: Some(cfg.max_moves),
            root,
            seed_format: false,
        })
    }
}
