//! The validator's options: rules, the move limit, the threat search, and the proof search
//! that closes the threat search's holes.

use crate::gomoku::rules::board::Rules;
use crate::gomoku::search::pns::ProveConfig;
use crate::gomoku::search::threat::SearchConfig;

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
}

impl Options {
    /// Default searches, the proof search included.
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
        }
    }
}
