//! Closing the validator's holes with the proof search, and the completed strategy: the
//! original graph plus every sub-strategy found.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use crate::rules::board::{Board, Color};
use crate::search::pns::{ProofSearch, STOPPED_FROM_OUTSIDE};

use super::graft::{after_white, graft, GraftError};
use super::report::{Repair, Unclosed};
use super::shared::Ctx;
use super::strategy::{AfterWhite, Strategy};

/// What the proof search made of a hole.
pub(crate) enum Hole {
    /// Closed: black's winning stone (the sub-strategy is recorded as a repair).
    Closed(u32),
    /// Not closed (recorded as unclosed, with what was tried), or no proof search enabled.
    Open,
    /// The validation is stopping at an earlier failure: nothing is recorded.
    Stopped,
}

/// Runs the proof search (when the options enable it) on a hole: `board` with black to
/// move, reached by `path`, within its own time limit and what is left of the total
/// budget.
pub(crate) fn close_hole(board: &Board, path: &[u16], ctx: &Ctx<'_>) -> Hole {
    let Some(mut cfg) = ctx.opts.proof else {
        return Hole::Open;
    };
    let shared = ctx.shared;
    if shared.stopping() {
        return Hole::Stopped;
    }
    if ctx.opts.stop_at_first {
        cfg.total_threat_nodes = cfg.total_threat_nodes.min(ctx.opts.first_hole_nodes);
    }
    let share = shared.budget.take(cfg.time_limit);
    if share.is_zero() && !cfg.time_limit.is_zero() {
        let tried = format!(
            "not searched: the proof search's budget ({:?} over the run) is spent",
            shared.budget.total()
        );
        record_open(ctx, path, tried, true);
        return Hole::Open;
    }
    cfg.time_limit = share;
    let res = ProofSearch::new(Color::Black, cfg)
        .with_stop(Arc::clone(&shared.stop))
        .run(board, true);
    shared.budget.give_back(share.saturating_sub(res.elapsed));
    shared
        .searches
        .fetch_add(res.threat_searches, Ordering::Relaxed);
    shared.nodes.fetch_add(res.threat_nodes, Ordering::Relaxed);
    let Some(root) = res.root() else {
        if res.stopped == STOPPED_FROM_OUTSIDE {
            return Hole::Stopped;
        }
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
        record_open(ctx, path, tried, false);
        return Hole::Open;
    };
    let sub = after_white(root);
    let black_move = match &sub {
        AfterWhite::Black(b) => Some(b.mv),
        AfterWhite::Leaf(_) => None,
    };
    if let Ok(mut v) = shared.repairs.closed.lock() {
        v.push(Repair {
            path: path.to_vec(),
            black_move,
            by_stone: res.by_stone,
            sub,
            elapsed: res.elapsed,
            tree_nodes: res.tree_nodes,
        });
    }
    Hole::Closed(res.by_stone)
}

fn record_open(ctx: &Ctx<'_>, path: &[u16], tried: String, budget_spent: bool) {
    if let Ok(mut v) = ctx.shared.repairs.unclosed.lock() {
        v.push(Unclosed {
            path: path.to_vec(),
            tried,
            budget_spent,
        });
    }
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
