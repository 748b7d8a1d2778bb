//! `retro gomoku prove POSITION`: arguments, the proof search on one position, its verdict,
//! and the strategy it found written in the project's format (built by the library's
//! `validate::prove_write`).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use retro::gomoku::rules::board::{Board, Color, Rules, MAX_CELLS};
use retro::gomoku::rules::limit::MoveLimit;
use retro::gomoku::search::pns::{prove, ProofResult, ProveConfig};
use retro::gomoku::search::threat::SearchConfig;
use retro::gomoku::validate::prove_write::{counts, strategy_of_proof};
use retro::gomoku::validate::report::format_line;

use super::gomoku_args::{tries_line, PositionArgs};

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

/// Arguments of `retro gomoku prove`.
#[derive(Debug, Clone, clap::Args)]
pub struct ProveArgs {
    #[command(flatten)]
    pub pos: PositionArgs,
    #[command(flatten)]
    pub proof: ProofArgs,
    /// Write the strategy found (project format) to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// What was tried, for "not proven".
fn describe_failure(board: &Board, res: &ProofResult) -> String {
    format!(
        "stopped: {}\n{}",
        res.stopped,
        tries_line(board, &res.root_tries)
    )
}

/// Runs `retro gomoku prove`. `Ok(true)`: proven; `Ok(false)`: not proven; `Err`: bad input
/// or the strategy could not be written.
pub fn run_prove(args: &ProveArgs) -> anyhow::Result<bool> {
    let (pos, limit) = args.pos.read()?;
    let rules = Rules::from(args.pos.rules);
    let cfg = args.proof.config(rules, limit, SearchConfig::default());
    let b = &pos.board;
    let res = prove(b, Color::Black, pos.black_to_move(), cfg);
    let stats = format!(
        "tree nodes {}, threat searches {} ({} nodes), {:.2?}",
        res.tree_nodes, res.threat_searches, res.threat_nodes, res.elapsed
    );
    if !res.proven {
        outln!("not proven within limits ({stats})")?;
        outln!("{}", describe_failure(b, &res))?;
        return Ok(false);
    }
    outln!("black wins by stone {} ({stats})", res.by_stone)?;
    let s = strategy_of_proof(&pos, &res, rules, limit, &cfg)?;
    let (bm, wr, lv) = counts(&s.root);
    let mut line = pos.moves.clone();
    if !pos.black_to_move() {
        line.pop();
    }
    line.push(s.root.mv);
    let first = if pos.moves.is_empty() {
        format!("black plays {}", b.cell_name(s.root.mv as usize))
    } else {
        format_line(b, &line)
    };
    outln!("strategy: {first}; {bm} black moves, {wr} listed white replies, {lv} integer leaves")?;
    if let Some(out) = &args.out {
        let text = serde_json::to_string_pretty(&s.to_project_json())?;
        retro::atomic::write(out, (text + "\n").as_bytes())
            .with_context(|| format!("cannot write {}", out.display()))?;
        outln!("written to {}", out.display())?;
    }
    Ok(true)
}
