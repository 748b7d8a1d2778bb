//! Closing the validator's holes with the proof search, and the completed strategy: the
//! original graph plus every sub-strategy found.

use super::graft::{after_white, graft, GraftError};
use super::report::{Repair, Unclosed};
use super::shared::Ctx;
use super::strategy::{AfterWhite, Strategy};
use crate::gomoku::rules::board::{Board, Color};
use crate::gomoku::search::pns::prove;

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
