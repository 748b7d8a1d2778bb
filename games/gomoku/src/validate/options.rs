//! The validator's options: rules, the move limit, the threat search, the proof search
//! that closes the threat search's holes and its total budget, and whether to stop at the
//! first hole (with a smaller proof search per hole).

use std::time::Duration;

use crate::rules::board::Rules;
use crate::search::pns::ProveConfig;
use crate::search::threat::SearchConfig;

/// The proof search's default total budget over one validation: [`Options::proof_budget`].
pub const DEFAULT_PROOF_BUDGET: Duration = Duration::from_secs(300);

/// The proof search's threat-search nodes per hole when stopping at the first failure, by
/// default: [`Options::first_hole_nodes`]. The published strategy's hardest hole takes 7.9
/// million (1.4 s on an idle core); a hole it cannot close runs to this (about 3.5 s).
pub const DEFAULT_FIRST_HOLE_NODES: u64 = 20_000_000;

/// Validation options.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Rules.
    pub rules: Rules,
    /// Black's winning row must come on or before black's move number `max_moves`.
    pub max_moves: u32,
    /// Search options.
    pub search: SearchConfig,
    /// The proof search for holes the threat search leaves (none: holes stay holes).
    pub proof: Option<ProveConfig>,
    /// The proof search's total time over the whole validation, all holes and threads
    /// together: each hole gets at most its own time limit and at most what is left (taken
    /// before it starts, the unused part given back), so the proof search never spends
    /// more. Once it is spent, a hole is left open without a proof search.
    pub proof_budget: Duration,
    /// Stop at the first failure: a hole the proof search does not close, or any failure
    /// of the walk (an illegal move, a white row, the move limit). The report then lists
    /// that one failure, and its counts cover only what was checked before. Off: every
    /// task runs and every failure is listed.
    pub stop_at_first: bool,
    /// With `stop_at_first`: the threat-search nodes the proof search may spend on one
    /// hole, on top of its own limits. A hole it leaves open is the failure that stops the
    /// run, so this bounds the time to refuse a broken graph; a count of nodes, not a
    /// time, so that the verdict does not depend on how busy the machine is.
    pub first_hole_nodes: u64,
}

impl Options {
    /// Default searches, the proof search included, with its default budget; every
    /// failure listed (`stop_at_first` off).
    pub fn new(rules: Rules, max_moves: u32) -> Options {
        let search = SearchConfig::default();
        let mut proof = ProveConfig::new(rules, max_moves);
        proof.threat = SearchConfig {
            node_limit: proof.threat.node_limit.min(search.node_limit),
            ..search
        };
        Options {
            rules,
            max_moves,
            search,
            proof: Some(proof),
            proof_budget: DEFAULT_PROOF_BUDGET,
            stop_at_first: false,
            first_hole_nodes: DEFAULT_FIRST_HOLE_NODES,
        }
    }
}
