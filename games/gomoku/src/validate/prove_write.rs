//! The strategy file of a proof search's result (`retro gomoku prove --out`), in the
//! project format, and the counts printed with it.
//!
//! The proof tree's nodes become strategy nodes as `graft.rs` writes them. With black to
//! move and the root proven by the threat search alone, the threat proof's first move is
//! isolated again (`first_threat_move`) so that the file starts with a black move. With
//! white to move, the file starts one stone earlier: black's last stone is taken back and
//! becomes the strategy's first move.

use crate::rules::board::{Color, Rules};
use crate::rules::limit::MoveLimit;
use crate::rules::position::Position;
use crate::search::first_move::first_threat_move;
use crate::search::pns::{ProofResult, ProveConfig};

use super::graft::{after_black, after_white};
use super::solve_write::WriteError;
use super::strategy::{AfterBlack, AfterWhite, BlackNode, Strategy};

/// Counts of a strategy tree: (black moves, listed white replies, integer leaves).
pub fn counts(n: &BlackNode) -> (u64, u64, u64) {
    let mut t = (1, 0, 0);
    match &n.after {
        AfterBlack::Leaf(_) => t.2 += 1,
        AfterBlack::White(w) => {
            for (_, sub) in &w.replies {
                t.1 += 1;
                match sub {
                    AfterWhite::Leaf(_) => t.2 += 1,
                    AfterWhite::Black(b) => {
                        let c = counts(b);
                        t = (t.0 + c.0, t.1 + c.1, t.2 + c.2);
                    }
                }
            }
        }
    }
    t
}

/// The strategy (project format) of the proven position `pos`: `res` is the proof search's
/// result on it under `cfg`, `rules` and `limit` are written into the file.
pub fn strategy_of_proof(
    pos: &Position,
    res: &ProofResult,
    rules: Rules,
    limit: MoveLimit,
    cfg: &ProveConfig,
) -> Result<Strategy, WriteError> {
    let root = res.root().ok_or(WriteError::NotProven)?;
    let mut start = pos.board.clone();
    let node = if pos.black_to_move() {
        match after_white(root) {
            AfterWhite::Black(b) => *b,
            AfterWhite::Leaf(_) => {
                let budget = cfg.max_moves.saturating_sub(pos.board.count(Color::Black));
                let (mv, m) =
                    first_threat_move(&pos.board, Color::Black, rules, budget, cfg.threat)
                        .ok_or(WriteError::NoFirstMove)?;
                let after = if m == 0 {
                    AfterBlack::Leaf(1)
                } else {
                    AfterBlack::Leaf(2 * m + 1)
                };
                BlackNode { mv, after }
            }
        }
    } else {
        // White to move: the setup is the position before black's last stone.
        let last = match pos.moves.last() {
            Some(&m) => m as usize,
            None => (0..start.cells())
                .rev()
                .find(|&c| start.get(c) == Some(Color::Black))
                .ok_or(WriteError::NoBlackStone)?,
        };
        start.remove(last, Color::Black);
        BlackNode {
            mv: last as u16,
            after: after_black(root),
        }
    };
    Ok(Strategy {
        start,
        rules: Some(rules),
        max_moves: Some(limit.black_moves),
        root: node,
        seed_format: false,
    })
}
