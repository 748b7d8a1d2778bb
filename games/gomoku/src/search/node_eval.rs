//! How a new node of the proof searches is settled when it is created: `pns.rs` (a tree,
//! `retro gomoku prove`) and `solve.rs` (a DAG, `retro gomoku solve`) use the same rules,
//! whose soundness arguments are in `pns.rs`'s module documentation. Only the initial proof
//! numbers of unsettled nodes differ between the two (they order the search, never prove).

use crate::rules::board::{Board, Color, Rules};

use super::quiet::winning_cells;
use super::threat::{bb_cells, prove_with_zone, SearchConfig};

/// Proof and disproof numbers saturate here ("infinite").
pub(crate) const INF: u64 = u64::MAX / 4;

/// How a node was settled (or what is known of it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum How {
    /// Not settled yet.
    Open,
    /// OR node: the threat search proves it within this many attacker stones.
    Threat(u32),
    /// AND node: the attacker has two winning cells.
    Double,
    /// AND node: the zone of a proof (this many attacker stones) after a defender pass
    /// covers the replies that are not children.
    Zone(u32),
    /// AND node: the children are every empty cell.
    AllReplies,
    /// No proof here (defender wins first, budget spent, or no candidate).
    Dead,
    /// The node's threat search (an OR node's own, an AND node's pass proof) gave up at a
    /// first, smaller node limit: open, and searched again with the full limit when the
    /// node, or a sibling just before it, is chosen for expansion (`solve.rs`,
    /// `search_fully`; an AND node's replies are fixed only then).
    Deferred,
}

impl How {
    /// With `stones` on the board: the stone of the attacker's winning stone this settles
    /// (a threat proof, two winning cells) or, for a zone, the bound the pass proof gives
    /// (the defender's reply counted); 0 otherwise.
    pub(crate) fn stone(self, stones: u32) -> u32 {
        match self {
            How::Threat(m) => stones + 2 * m - 1,
            How::Double => stones + 2,
            How::Zone(m) => stones + 2 * m,
            _ => 0,
        }
    }
}

/// What the creation of a node found.
#[derive(Debug, Clone)]
pub(crate) struct Eval {
    pub(crate) how: How,
    /// AND nodes: the defender's replies that need a node of their own.
    pub(crate) replies: Vec<u16>,
    /// Threat searches run (0 or 1) and their nodes.
    pub(crate) searches: u64,
    pub(crate) nodes: u64,
}

impl Eval {
    /// Initial proof and disproof numbers: proven, no proof, or open with proof number
    /// `open` (the caller's estimate: 1, a cost per depth, or one from the reply count).
    pub(crate) fn numbers(&self, open: u64) -> (u64, u64) {
        match self.how {
            How::Threat(_) | How::Double => (0, INF),
            How::Dead => (INF, 0),
            // The proof after a pass covers every reply.
            How::Zone(_) if self.replies.is_empty() => (0, INF),
            // A full board: no reply, no proof.
            How::AllReplies if self.replies.is_empty() => (INF, 0),
            _ => (open, 1),
        }
    }
}

/// An OR node (attacker to move) with `budget` attacker stones left. `leaf` is the threat
/// search within the budget (the caller may cache it): `Some(m)`, proven within `m` stones.
pub(crate) fn eval_or(
    board: &Board,
    attacker: Color,
    rules: Rules,
    budget: u32,
    leaf: impl FnOnce() -> Option<u32>,
) -> How {
    let def = attacker.other();
    if board.has_five(def, rules) || budget == 0 {
        How::Dead
    } else if let Some(m) = leaf() {
        How::Threat(m)
    } else if budget == 1 || winning_cells(board, def, rules).len() >= 2 {
        // One stone left and no winning cell (the threat search plays those first); or two
        // defender winning cells: one attacker stone blocks only one.
        How::Dead
    } else {
        How::Open
    }
}

/// An AND node (defender to move) with `budget` attacker stones left: its replies are
/// fixed here.
pub(crate) fn eval_and(
    board: &Board,
    attacker: Color,
    rules: Rules,
    budget: u32,
    threat: SearchConfig,
) -> Eval {
    let def = attacker.other();
    let mut e = Eval {
        how: How::Dead,
        replies: Vec::new(),
        searches: 0,
        nodes: 0,
    };
    let own = winning_cells(board, attacker, rules);
    if board.has_five(def, rules) || budget == 0 || !winning_cells(board, def, rules).is_empty() {
        // The defender has won or wins with its move; or nothing is left to win with.
    } else if own.len() >= 2 {
        e.how = How::Double;
    } else if own.len() == 1 {
        // Every other reply loses to the attacker's winning cell at once.
        e.replies = vec![own[0] as u16];
        e.how = How::Zone(1);
    } else {
        let (p, zone, _) = prove_with_zone(board, attacker, rules, budget, threat);
        (e.searches, e.nodes) = (1, p.nodes);
        let empty = |c: &usize| *c < board.cells() && board.is_empty(*c);
        match (p.proven, zone) {
            (true, Some(z)) => {
                // Replies outside the zone leave the pass proof valid (threat.rs, "Zones").
                e.replies = bb_cells(&z)
                    .into_iter()
                    .filter(empty)
                    .map(|c| c as u16)
                    .collect();
                e.how = How::Zone(p.attacker_moves);
            }
            _ => {
                e.replies = (0..board.cells()).filter(empty).map(|c| c as u16).collect();
                e.how = How::AllReplies;
            }
        }
    }
    e
}

/// What the root's report says of a child with these numbers.
pub(crate) fn verdict(pn: u64, dn: u64) -> &'static str {
    if pn == 0 {
        "proven"
    } else if dn == 0 {
        "refuted within the candidates"
    } else {
        "open"
    }
}
