//! `retro gomoku prove POSITION`: the proof search on one position, its verdict, and the
//! strategy it found in the project's format.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use retro::gomoku::board::{Board, Color, Rules};
use retro::gomoku::first_move::first_threat_move;
use retro::gomoku::graft::{after_black, after_white};
use retro::gomoku::limit::MoveLimit;
use retro::gomoku::pns::{prove, ProofResult, ProveConfig};
use retro::gomoku::position::Position;
use retro::gomoku::report::format_line;
use retro::gomoku::strategy::{AfterBlack, AfterWhite, BlackNode, Strategy};
use retro::gomoku::threat::SearchConfig;

use super::gomoku_args::{tries_line, PositionArgs};

/// Options of the proof search.
#[derive(Debug, Clone, clap::Args)]
pub struct ProofArgs {
    /// Proof-tree nodes before giving up.
    #[arg(long, default_value_t = ProveConfig::new(Rules::Standard, 0).node_limit)]
    pub tree_nodes: usize,
    /// Seconds before giving up, per position.
    #[arg(long, default_value_t = ProveConfig::new(Rules::Standard, 0).time_limit.as_secs_f64())]
    pub time_limit: f64,
    /// Quiet black moves tried per black node (blocks of white threes come on top).
    #[arg(long, default_value_t = ProveConfig::new(Rules::Standard, 0).width)]
    pub width: usize,
    /// Nodes of each threat search inside the proof search.
    #[arg(long, default_value_t = ProveConfig::new(Rules::Standard, 0).threat.node_limit)]
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
            time_limit: Duration::from_secs_f64(self.time_limit.clamp(0.0, 1e9)),
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

/// Counts of a strategy tree: (black moves, listed white replies, integer leaves).
fn counts(n: &BlackNode) -> (u64, u64, u64) {
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

/// The strategy (project format) for the proven position.
fn strategy_of(
    pos: &Position,
    res: &ProofResult,
    rules: Rules,
    limit: MoveLimit,
    cfg: &ProveConfig,
) -> anyhow::Result<Strategy> {
    let root = res.root().context("no proof to write")?;
    let mut start = pos.board.clone();
    let node = if pos.black_to_move() {
        match after_white(root) {
            AfterWhite::Black(b) => *b,
            AfterWhite::Leaf(_) => {
                let budget = cfg.max_moves.saturating_sub(pos.board.count(Color::Black));
                let (mv, m) =
                    first_threat_move(&pos.board, Color::Black, rules, budget, cfg.threat)
                        .context("the threat proof's first move could not be isolated")?;
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
                .context("no black stone")?,
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
    let rules = args.pos.rules;
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
    let s = strategy_of(&pos, &res, rules, limit, &cfg)?;
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
        std::fs::write(out, text + "\n")
            .with_context(|| format!("cannot write {}", out.display()))?;
        outln!("written to {}", out.display())?;
    }
    Ok(true)
}
