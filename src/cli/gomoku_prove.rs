//! The options of the proof search that `retro gomoku validate` runs on the white replies a
//! strategy leaves open (`retro gomoku prove` and `solve` run the DAG search instead: see
//! `gomoku_solve`).

use std::time::Duration;

use retro::gomoku::rules::board::{Rules, MAX_CELLS};
use retro::gomoku::rules::limit::MoveLimit;
use retro::gomoku::search::pns::ProveConfig;
use retro::gomoku::search::threat::SearchConfig;

/// Options of the proof search.
#[derive(Debug, Clone, clap::Args)]
pub struct ProofArgs {
    /// Proof-tree nodes before giving up.
    #[arg(long, default_value_t = ProveConfig::new(Rules::Standard, 0).node_limit, value_parser = super::whole(1, super::MAX_TREE_NODES))]
    pub tree_nodes: usize,
    /// Seconds before giving up, per position.
    #[arg(long, default_value_t = ProveConfig::new(Rules::Standard, 0).time_limit.as_secs_f64(), value_parser = super::seconds)]
    pub time_limit: f64,
    /// Quiet black moves tried per black node (blocks of white threes come on top), 0 to
    /// 256 (every cell).
    #[arg(long, default_value_t = ProveConfig::new(Rules::Standard, 0).width, value_parser = super::whole(0, MAX_CELLS))]
    pub width: usize,
    /// Nodes of each threat search inside the proof search.
    #[arg(long, default_value_t = ProveConfig::new(Rules::Standard, 0).threat.node_limit, value_parser = super::whole(1, super::MAX_NODES))]
    pub leaf_nodes: u64,
}

impl ProofArgs {
    /// The proof-search options for `rules` and `limit`, with `threat` for its leaves.
    pub fn config(&self, rules: Rules, limit: MoveLimit, threat: SearchConfig) -> ProveConfig {
        ProveConfig {
            threat: SearchConfig {
                node_limit: self.leaf_nodes.min(threat.node_limit),
                ..threat
            },
            width: self.width,
            node_limit: self.tree_nodes,
            time_limit: Duration::from_secs_f64(self.time_limit),
            ..ProveConfig::new(rules, limit.black_moves)
        }
    }
}
