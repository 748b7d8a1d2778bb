//! Closing the validator's holes with the proof search, and the completed strategy: the
//! original graph plus every sub-strategy found.

use std::sync::Mutex;
use std::time::Duration;

use super::board::{Board, Color};
use super::graft::{after_white, graft, GraftError};
use super::pns::prove;
use super::strategy::{AfterWhite, Strategy};
use super::task::Ctx;

/// A hole the proof search closed.
#[derive(Debug, Clone)]
pub struct Repair {
    /// Moves from the start, black first, ending with white's reply (or the listed reply
    /// before an integer leaf that the threat search could not prove).
    pub path: Vec<u16>,
    /// Black's move found (none when the proof search's threat leaf proved the root).
    pub black_move: Option<u16>,
    /// Black's winning stone in the worst case (stone numbers count from the first move).
    pub by_stone: u32,
    /// The sub-strategy found.
    pub sub: AfterWhite,
    /// Time the proof search took.
    pub elapsed: Duration,
    /// Proof-tree nodes it built.
    pub tree_nodes: usize,
}

/// A hole the proof search tried and could not close.
#[derive(Debug, Clone)]
pub struct Unclosed {
    /// Moves from the start to the hole.
    pub path: Vec<u16>,
    /// What was tried and why it stopped.
    pub tried: String,
}

/// Holes closed and not closed, collected from parallel tasks.
#[derive(Default)]
pub(crate) struct Repairs {
    pub(crate) closed: Mutex<Vec<Repair>>,
    pub(crate) unclosed: Mutex<Vec<Unclosed>>,
}

/// Runs the proof search (when the options enable it) on a hole: `board` with black to
/// move, reached by `path`. Returns black's winning stone when it is proven.
pub(crate) fn close_hole(board: &Board, path: &[u16], ctx: &Ctx<'_>) -> Option<u32> {
    let cfg = ctx.opts.proof?;
    let res = prove(board, Color::Black, true, cfg);
    ctx.shared
        .searches
        .fetch_add(res.threat_searches, std::sync::atomic::Ordering::Relaxed);
    ctx.shared
        .nodes
        .fetch_add(res.threat_nodes, std::sync::atomic::Ordering::Relaxed);
    let Some(root) = res.root() else {
        let tries: Vec<String> = res
            .root_tries
            .iter()
            .map(|&(m, what)| format!("{} {what}", board.cell_name(m as usize)))
            .collect();
        let tried = format!(
            "{} ({} tree nodes, {:.2?}); black moves tried: {}",
            res.stopped,
            res.tree_nodes,
            res.elapsed,
            if tries.is_empty() {
                "none".to_string()
            } else {
                tries.join(", ")
            }
        );
        if let Ok(mut v) = ctx.shared.repairs.unclosed.lock() {
            v.push(Unclosed {
                path: path.to_vec(),
                tried,
            });
        }
        return None;
    };
    let sub = after_white(root);
    let black_move = match &sub {
        AfterWhite::Black(b) => Some(b.mv),
        AfterWhite::Leaf(_) => None,
    };
    if let Ok(mut v) = ctx.shared.repairs.closed.lock() {
        v.push(Repair {
            path: path.to_vec(),
            black_move,
            by_stone: res.by_stone,
            sub,
            elapsed: res.elapsed,
            tree_nodes: res.tree_nodes,
        });
    }
    Some(res.by_stone)
}

/// The strategy with every repair grafted in, its limit set to `max_moves` black moves.
pub fn completed(
    strategy: &Strategy,
    repairs: &[Repair],
    max_moves: u32,
) -> Result<Strategy, GraftError> {
    let mut s = strategy.clone();
    for r in repairs {
        graft(&mut s, &r.path, r.sub.clone())?;
    }
    s.max_moves = Some(max_moves);
    s.seed_format = false;
    Ok(s)
}
