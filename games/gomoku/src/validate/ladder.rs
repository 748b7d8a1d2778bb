//! The issue-21 ladder's positions: the black-to-move nodes of a strategy graph at one
//! stone count, to be solved again with the graph below them thrown away
//! (`cargo bench --bench gomoku -- FILE [--rung N]`).

use std::collections::HashSet;

use crate::rules::board::{Board, Color};

use super::strategy::{AfterBlack, AfterWhite, BlackNode, Strategy};

/// A black-to-move node of a graph.
#[derive(Debug, Clone)]
pub struct LadderNode {
    /// Moves from the strategy's start, black first, ending with white's reply.
    pub moves: Vec<u16>,
    /// The position.
    pub board: Board,
    /// Graph nodes below it (black moves and listed white replies; 0 for an integer leaf).
    pub below: u64,
}

fn size_white(a: &AfterWhite) -> u64 {
    match a {
        AfterWhite::Leaf(_) => 0,
        AfterWhite::Black(b) => 1 + size_black(b),
    }
}

fn size_black(b: &BlackNode) -> u64 {
    match &b.after {
        AfterBlack::Leaf(_) => 0,
        AfterBlack::White(w) => w.replies.iter().map(|(_, s)| 1 + size_white(s)).sum(),
    }
}

fn collect(b: &BlackNode, path: &mut Vec<u16>, stones: usize, out: &mut Vec<(Vec<u16>, u64)>) {
    path.push(b.mv);
    if let AfterBlack::White(w) = &b.after {
        for (c, sub) in &w.replies {
            path.push(*c);
            if path.len() == stones {
                out.push((path.clone(), size_white(sub)));
            } else if let (true, AfterWhite::Black(nb)) = (path.len() < stones, sub) {
                collect(nb, path, stones, out);
            }
            path.pop();
        }
    }
    path.pop();
}

/// Every distinct position after a listed white reply with `stones` stones on the board
/// (counting the setup's), in file order; a position reached again by another move order
/// is kept once, with the larger graph below it.
pub fn black_nodes_at(strategy: &Strategy, stones: u32) -> Vec<LadderNode> {
    let setup = strategy.start.stones() as usize;
    let Some(plies) = (stones as usize)
        .checked_sub(setup)
        .filter(|p| p % 2 == 0 && *p > 0)
    else {
        return Vec::new();
    };
    let mut raw = Vec::new();
    collect(&strategy.root, &mut Vec::new(), plies, &mut raw);
    let mut out: Vec<LadderNode> = Vec::new();
    let mut seen = HashSet::new();
    for (moves, below) in raw {
        let mut board = strategy.start.clone();
        let mut legal = true;
        for (i, &m) in moves.iter().enumerate() {
            let c = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            legal &= (m as usize) < board.cells() && board.is_empty(m as usize);
            if !legal {
                break;
            }
            board.place(m as usize, c);
        }
        if !legal {
            continue;
        }
        if !seen.insert(board.key()) {
            if let Some(n) = out.iter_mut().find(|n| n.board.key() == board.key()) {
                n.below = n.below.max(below);
            }
            continue;
        }
        out.push(LadderNode {
            moves,
            board,
            below,
        });
    }
    out
}

/// A fixed sample of `n` nodes for a benchmark: the half with the largest graphs below
/// them (the hard ones), then evenly spaced others, in a deterministic order.
pub fn sample(nodes: &[LadderNode], n: usize) -> Vec<LadderNode> {
    let mut by_size: Vec<&LadderNode> = nodes.iter().collect();
    by_size.sort_by(|a, b| b.below.cmp(&a.below).then(a.moves.cmp(&b.moves)));
    let big = (n / 2).min(by_size.len());
    let mut out: Vec<LadderNode> = by_size[..big].iter().map(|&x| x.clone()).collect();
    let rest = &by_size[big..];
    let k = n - big;
    if k > 0 && !rest.is_empty() {
        for i in 0..k.min(rest.len()) {
            out.push(rest[i * rest.len() / k.min(rest.len())].clone());
        }
    }
    out
}
