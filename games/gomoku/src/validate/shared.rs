//! What the validator's parallel tasks share: proofs (with zones) under exact position
//! keys, counters, the holes closed and not closed, the far white stones behind shared
//! proofs, and what every step of a task reads (`Ctx`).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::rules::board::{share_window, Board, Color, Key};
use crate::rules::symmetry::Symmetries;
use crate::search::threat::{prove_win_with, prove_with_zone, CellSet, Proof, SearchConfig};

use super::options::Options;
use super::report::{Repair, Unclosed};

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

/// What is left of the proof search's total budget ([`Options::proof_budget`]), taken
/// hole by hole.
pub(crate) struct ProofBudget {
    total: Duration,
    left_ns: AtomicU64,
}

impl ProofBudget {
    pub(crate) fn new(total: Duration) -> ProofBudget {
        ProofBudget {
            total,
            left_ns: AtomicU64::new(total.as_nanos().min(u64::MAX as u128) as u64),
        }
    }

    /// The whole budget.
    pub(crate) fn total(&self) -> Duration {
        self.total
    }

    /// Takes up to `want` of what is left; returns what it took (zero once spent).
    pub(crate) fn take(&self, want: Duration) -> Duration {
        let want = want.as_nanos().min(u64::MAX as u128) as u64;
        let mut took = 0;
        let _ = self
            .left_ns
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                took = left.min(want);
                Some(left - took)
            });
        Duration::from_nanos(took)
    }

    /// Gives back the part of a taken share that was not used.
    pub(crate) fn give_back(&self, unused: Duration) {
        let n = unused.as_nanos().min(u64::MAX as u128) as u64;
        let _ = self
            .left_ns
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                Some(left.saturating_add(n))
            });
    }
}

pub(crate) struct Shared {
    /// Raised at the first failure when the options say to stop there: tasks not started
    /// are skipped, running ones stop between replies, a running proof search stops.
    pub(crate) stop: Arc<AtomicBool>,
    pub(crate) budget: ProofBudget,
    pub(crate) cache: ProofCache,
    pub(crate) searches: AtomicU64,
    pub(crate) nodes: AtomicU64,
    pub(crate) proven: AtomicU64,
    pub(crate) in_graph: AtomicU64,
    pub(crate) symmetric: AtomicU64,
    pub(crate) positions: AtomicU64,
    pub(crate) repairs: Repairs,
}

impl Shared {
    pub(crate) fn new(opts: &Options) -> Shared {
        Shared {
            stop: Arc::new(AtomicBool::new(false)),
            budget: ProofBudget::new(opts.proof_budget),
            cache: ProofCache::default(),
            searches: AtomicU64::new(0),
            nodes: AtomicU64::new(0),
            proven: AtomicU64::new(0),
            in_graph: AtomicU64::new(0),
            symmetric: AtomicU64::new(0),
            positions: AtomicU64::new(0),
            repairs: Repairs::default(),
        }
    }

    /// Whether the validation is stopping (a failure was found and the options say to
    /// stop at the first).
    pub(crate) fn stopping(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Holes closed and not closed, collected from parallel tasks.
#[derive(Default)]
pub(crate) struct Repairs {
    pub(crate) closed: Mutex<Vec<Repair>>,
    pub(crate) unclosed: Mutex<Vec<Unclosed>>,
}

/// What every step of a task reads.
pub(crate) struct Ctx<'a> {
    pub(crate) opts: &'a Options,
    pub(crate) sym: &'a Symmetries,
    pub(crate) listed: &'a HashSet<Key>,
    pub(crate) shared: &'a Shared,
}

impl Ctx<'_> {
    pub(crate) fn count_search(&self, p: &Proof) {
        self.shared.searches.fetch_add(1, Ordering::Relaxed);
        self.shared.nodes.fetch_add(p.nodes, Ordering::Relaxed);
    }

    /// Before declaring a hole: one more search, without hints and with five times the
    /// nodes.
    pub(crate) fn retry(&self, board: &Board, budget: u32) -> Proof {
        let cfg = SearchConfig {
            node_limit: self.opts.search.node_limit.saturating_mul(5),
            ..self.opts.search
        };
        let p = prove_win_with(board, Color::Black, self.opts.rules, budget, cfg);
        self.count_search(&p);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_never_overdrawn() {
        let b = ProofBudget::new(Duration::from_secs(10));
        assert_eq!(b.take(Duration::from_secs(4)), Duration::from_secs(4));
        assert_eq!(b.take(Duration::from_secs(4)), Duration::from_secs(4));
        // 2 s left: a share of 4 gets 2, then nothing is left.
        assert_eq!(b.take(Duration::from_secs(4)), Duration::from_secs(2));
        assert_eq!(b.take(Duration::from_secs(4)), Duration::ZERO);
        b.give_back(Duration::from_secs(3));
        assert_eq!(b.take(Duration::from_secs(20)), Duration::from_secs(3));
        assert_eq!(b.total(), Duration::from_secs(10));
    }
}
