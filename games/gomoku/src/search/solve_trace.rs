//! Debugging aid for `retro gomoku solve`: the graph's top levels on stderr when
//! `RETRO_GOMOKU_TRACE` is set (its value: the depth shown, 3 by default), to see where the
//! search spends its nodes and which moves and replies stay open.

use std::collections::HashSet;

use super::solve::{board_of, Solver, INF};

impl Solver {
    /// Prints the graph from the root down `depth` levels on stderr: every node's move,
    /// kind, numbers, how it was settled, reply and child counts, and the graph nodes
    /// reachable from it. Below the root only children holding at least 1 % of the graph
    /// (and 100 nodes) are shown, and the proven child of a proven black node.
    pub fn trace(&self, depth: usize) {
        let min = (self.nodes.len() / 100).max(100);
        self.trace_at(self.root, u16::MAX, 0, depth, min);
    }

    fn trace_at(&self, id: u32, mv: u16, level: usize, max: usize, min: usize) {
        let n = &self.nodes[id as usize];
        let b = board_of(&self.empty, &n.key);
        let name = if mv == u16::MAX {
            "root".to_string()
        } else {
            b.cell_name(mv as usize)
        };
        let num = |x: u64| {
            if x >= INF {
                "inf".to_string()
            } else {
                x.to_string()
            }
        };
        // A transposition met twice is printed twice (no cycle: every move adds a stone).
        eprintln!(
            "{:w$}{name} {} pn={} dn={} {:?} replies={} children={} size={}",
            "",
            if n.or { "OR" } else { "AND" },
            num(n.pn),
            num(n.dn),
            n.how,
            n.replies.len(),
            n.children.len(),
            self.reachable(id),
            w = level * 2
        );
        if level >= max {
            return;
        }
        let proof = if n.or && n.pn == 0 {
            self.proven_child(id).map(|(_, c)| c)
        } else {
            None
        };
        for &(m, c) in &n.children {
            if Some(c) == proof || self.reachable(c) >= min {
                self.trace_at(c, m, level + 1, max, min);
            }
        }
    }

    /// Graph nodes reachable from `id` (itself included).
    fn reachable(&self, id: u32) -> usize {
        let mut seen = HashSet::new();
        let mut stack = vec![id];
        while let Some(x) = stack.pop() {
            if seen.insert(x) {
                stack.extend(self.nodes[x as usize].children.iter().map(|&(_, c)| c));
            }
        }
        seen.len()
    }
}
