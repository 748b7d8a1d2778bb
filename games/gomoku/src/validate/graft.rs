//! Turning a proof tree into strategy-graph nodes, and grafting them into a strategy.
//!
//! Integer leaves follow the seed's convention: a leaf `n` says the attacker's five lands on
//! stone number (stones on the board) + `n` - 1. With the attacker to move and a win within
//! `m` attacker stones that is `n = 2m`; with the defender to move, `n = 2m + 1`.
//!
//! Every defender reply the proof search had to search itself is listed; the others are
//! covered by the zone of a threat proof after a pass, which the validator computes again
//! with the same search, so it proves them too.

use crate::search::pns::{Proven, ProvenNode};

use super::strategy::{AfterBlack, AfterWhite, BlackNode, Strategy, WhiteNode};

/// The strategy from a proven attacker-to-move node.
pub fn after_white(n: ProvenNode<'_>) -> AfterWhite {
    match n.get() {
        Proven::Threat(m) => AfterWhite::Leaf(2 * m),
        Proven::Move(mv, child) => AfterWhite::Black(Box::new(BlackNode {
            mv,
            after: after_black(child),
        })),
        // Not produced for attacker nodes; an empty graph is still checked in full.
        Proven::Double | Proven::Replies(_) => AfterWhite::Leaf(2),
    }
}

/// The strategy from a proven defender-to-move node.
pub fn after_black(n: ProvenNode<'_>) -> AfterBlack {
    match n.get() {
        Proven::Double => AfterBlack::Leaf(3),
        Proven::Replies(list) => AfterBlack::White(WhiteNode {
            replies: list.into_iter().map(|(w, c)| (w, after_white(c))).collect(),
        }),
        Proven::Threat(m) => AfterBlack::Leaf(2 * m + 1),
        Proven::Move(..) => AfterBlack::White(WhiteNode::default()),
    }
}

/// Error grafting a sub-strategy: the path does not lead through the graph.
#[derive(Debug, thiserror::Error)]
#[error("the path {0} does not follow the strategy graph")]
pub struct GraftError(pub String);

/// Adds (or replaces) the sub-strategy after white's reply: `path` is the move sequence
/// from the start, black first, ending with white's reply.
pub fn graft(strategy: &mut Strategy, path: &[u16], sub: AfterWhite) -> Result<(), GraftError> {
    let err = || {
        GraftError(
            path.iter()
                .map(|&c| strategy.start.cell_name(c as usize))
                .collect::<Vec<_>>()
                .join(" "),
        )
    };
    if path.len() < 2 || path.len() % 2 != 0 {
        return Err(err());
    }
    let mut node: &mut BlackNode = &mut strategy.root;
    let mut i = 0;
    loop {
        if node.mv != path[i] {
            return Err(err());
        }
        let reply = path[i + 1];
        if let AfterBlack::Leaf(_) = node.after {
            node.after = AfterBlack::White(WhiteNode::default());
        }
        let AfterBlack::White(w) = &mut node.after else {
            return Err(err());
        };
        let pos = w.replies.iter().position(|r| r.0 == reply);
        if i + 2 == path.len() {
            match pos {
                Some(p) => w.replies[p].1 = sub,
                None => w.replies.push((reply, sub)),
            }
            return Ok(());
        }
        let Some(p) = pos else {
            return Err(err());
        };
        match &mut w.replies[p].1 {
            AfterWhite::Black(b) => node = b,
            AfterWhite::Leaf(_) => return Err(err()),
        }
        i += 2;
    }
}
