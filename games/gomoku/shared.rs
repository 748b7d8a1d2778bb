//! What the validator's parallel tasks share: proofs (with zones) under exact position
//! keys, counters, and the far-stone test behind shared proofs.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::board::{Board, Color, Key};
use super::repair::Repairs;
use super::threat::{prove_with_zone, CellSet, SearchConfig};
use super::validate::Options;

/// Proofs (with zones) shared between tasks, under exact position keys.
pub(crate) struct ProofCache {
    shards: Vec<Mutex<HashMap<Key, Cached>>>,
}

#[derive(Clone, Copy)]
pub(crate) struct Cached {
    pub(crate) proven: bool,
    pub(crate) moves: u32,
    pub(crate) zone: Option<CellSet>,
}

impl Default for ProofCache {
    fn default() -> Self {
        ProofCache {
            shards: (0..64).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }
}

impl ProofCache {
    fn shard(&self, key: &Key) -> &Mutex<HashMap<Key, Cached>> {
        let h = key
            .iter()
            .flatten()
            .fold(0u64, |a, &w| (a ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        &self.shards[(h >> 58) as usize % self.shards.len()]
    }

    /// The proof (attacker black to move) of `board` within `budget`, searched once.
    pub(crate) fn get_or_prove(
        &self,
        board: &Board,
        opts: &Options,
        budget: u32,
        cfg: SearchConfig,
        shared: &Shared,
    ) -> Cached {
        let key = board.key();
        if let Some(c) = self
            .shard(&key)
            .lock()
            .ok()
            .and_then(|m| m.get(&key).copied())
        {
            return c;
        }
        shared.searches.fetch_add(1, Ordering::Relaxed);
        let (p, zone, _) = prove_with_zone(board, Color::Black, opts.rules, budget, cfg);
        shared.nodes.fetch_add(p.nodes, Ordering::Relaxed);
        let c = Cached {
            proven: p.proven,
            moves: p.attacker_moves,
            zone: zone.filter(|_| p.proven),
        };
        if let Ok(mut m) = self.shard(&key).lock() {
            m.insert(key, c);
        }
        c
    }
}

/// Whether cells `a` and `b` lie in a common `k`-window (same line, distance below `k`).
pub(crate) fn share_window(board: &Board, a: usize, b: usize) -> bool {
    let (ax, ay) = board.xy(a);
    let (bx, by) = board.xy(b);
    let (dx, dy) = (ax.abs_diff(bx), ay.abs_diff(by));
    (dx == 0 || dy == 0 || dx == dy) && dx.max(dy) < board.k()
}

/// White stones far from every black stone, no two in a common window: candidates to be
/// irrelevant, to be checked against proof zones (never assumed irrelevant).
pub(crate) fn far_white_stones(board: &Board) -> Vec<usize> {
    let blacks: Vec<(usize, usize)> = (0..board.cells())
        .filter(|&c| board.get(c) == Some(Color::Black))
        .map(|c| board.xy(c))
        .collect();
    let mut out: Vec<usize> = Vec::new();
    for c in 0..board.cells() {
        if board.get(c) != Some(Color::White) {
            continue;
        }
        let (x, y) = board.xy(c);
        let near = blacks
            .iter()
            .any(|&(bx, by)| x.abs_diff(bx).max(y.abs_diff(by)) < 4);
        if !near && out.iter().all(|&o| !share_window(board, o, c)) {
            out.push(c);
        }
    }
    out
}

#[derive(Default)]
pub(crate) struct Shared {
    pub(crate) cache: ProofCache,
    pub(crate) searches: AtomicU64,
    pub(crate) nodes: AtomicU64,
    pub(crate) proven: AtomicU64,
    pub(crate) in_graph: AtomicU64,
    pub(crate) symmetric: AtomicU64,
    pub(crate) positions: AtomicU64,
    pub(crate) repairs: Repairs,
}
