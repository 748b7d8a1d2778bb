//! `retro gomoku validate`: arguments and the command body (the binary's side; the rules,
//! search and validator are in the library's `gomoku` module).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;

use retro::gomoku::rules::board::Rules;
use retro::gomoku::search::threat::SearchConfig;
use retro::gomoku::validate::options::{DEFAULT_FIRST_HOLE_NODES, DEFAULT_PROOF_BUDGET};
use retro::gomoku::validate::repair::completed;
use retro::gomoku::validate::strategy::Strategy;
use retro::gomoku::validate::{validate_with, Options};
use retro::progress::Bar;

use super::gomoku_args::{with_threads, LimitArgs, MAX_BLACK_MOVES, STRATEGY_MAX};
use super::gomoku_prove::ProofArgs;

/// Arguments of `retro gomoku validate`.
#[derive(Debug, Clone, clap::Args)]
pub struct ValidateArgs {
    /// Strategy graph: retro's JSON format, or the nested format of the published strategy.
    pub file: PathBuf,
    /// Rules: standard (exactly five wins) or freestyle (five or more). Default: the
    /// file's, else standard.
    #[arg(long, value_enum)]
    pub rules: Option<super::gomoku_args::RulesArg>,
    #[command(flatten)]
    pub limit: LimitArgs,
    /// Largest number of black moves the continuous-threat (VCT) search tries, 1 to 128
    /// (every black move of the largest board).
    #[arg(long, default_value_t = SearchConfig::default().vct_depth, value_parser = super::whole(1u32, MAX_BLACK_MOVES))]
    pub vct_depth: u32,
    /// Search nodes per position before giving up ("not proven").
    #[arg(long, default_value_t = SearchConfig::default().node_limit, value_parser = super::whole(1, super::MAX_NODES))]
    pub node_limit: u64,
    /// Do not use threats of a VCF (only fours and threes).
    #[arg(long)]
    pub no_extended: bool,
    /// Leave holes of the threat search as holes (no proof search).
    #[arg(long)]
    pub no_proof_search: bool,
    #[command(flatten)]
    pub proof: ProofArgs,
    /// Write the completed strategy (the graph plus every sub-strategy the proof search
    /// found) to this file, in the project format.
    #[arg(long, value_name = "OUT.json")]
    pub repair: Option<PathBuf>,
    /// Number of threads (default: all cores).
    #[arg(long, value_parser = super::threads)]
    pub threads: Option<usize>,
    /// Go on after the first hole the proof search cannot close (or any other failure),
    /// giving every hole the proof search's full limits (no --first-hole-nodes), and list
    /// every hole. By default the run stops at the first failure, prints it and exits 1.
    /// --repair and --all-failures go on too.
    #[arg(long)]
    pub all_holes: bool,
    /// Without --all-holes: the threat-search nodes the proof search may spend on one hole
    /// (on top of its other limits). A hole it leaves open stops the run, so this bounds
    /// the time to refuse a broken graph (about 3.5 s a hole on an idle core); a count, so
    /// the verdict does not depend on the machine's load. The published strategy's
    /// hardest hole takes 7.9 million.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_FIRST_HOLE_NODES, value_parser = super::whole(1, super::MAX_NODES))]
    pub first_hole_nodes: u64,
    /// Total seconds the proof search may spend over the whole run, all holes and threads
    /// together (each hole gets at most --time-limit of it). Once it is spent, holes are
    /// left open without a proof search.
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_PROOF_BUDGET.as_secs_f64(), value_parser = super::seconds)]
    pub proof_budget: f64,
    /// Print every failure, not only the first (goes on after the first, as --all-holes).
    #[arg(long)]
    pub all_failures: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Runs the validation and prints the report. `Ok(true)`: valid; `Ok(false)`: the graph
/// has a hole (details printed); `Err`: the file could not be read or parsed, or the
/// repaired strategy could not be written.
pub fn run_validate(args: &ValidateArgs) -> anyhow::Result<bool> {
    let text = retro::input::read_text(&args.file, "a strategy file", STRATEGY_MAX)
        .context("cannot read the strategy file")?;
    let strategy = Strategy::from_json(&text)
        .with_context(|| format!("cannot parse strategy file {}", args.file.display()))?;
    let rules = (args.rules.map(Rules::from))
        .or(strategy.rules)
        .unwrap_or(Rules::Standard);
    let limit = args.limit.limit(strategy.max_moves);
    let search = SearchConfig {
        vct: true,
        node_limit: args.node_limit,
        vct_depth: args.vct_depth,
        start_depth: 1,
        jump_depth: 0,
        extended: !args.no_extended,
    };
    let opts = Options {
        rules,
        max_moves: limit.black_moves,
        search,
        // The proof search's threat searches never use more nodes than the validator's:
        // the validator then finds each of its proofs again when it checks the repairs.
        proof: (!args.no_proof_search).then(|| args.proof.config(rules, limit, search)),
        proof_budget: Duration::from_secs_f64(args.proof_budget),
        stop_at_first: !(args.all_holes || args.all_failures || args.repair.is_some()),
        first_hole_nodes: args.first_hole_nodes,
    };
    outln!("checking: {limit}, {rules} rules")?;
    let bar = (!args.quiet).then(Bar::new);
    let run = || validate_with(&strategy, &opts, &bar);
    let report = with_threads(args.threads, run)?;
    bar.iter().for_each(Bar::finish);
    outln!("{report}")?;
    if report.stopped_early.is_some() {
        outln!(
            "stopped at the first failure (--all-holes goes on, gives every hole the proof \
             search's full limits, and lists every hole)"
        )?;
    }
    if report.unclosed.iter().any(|u| u.budget_spent) {
        outln!("the proof search's budget was spent: --proof-budget gives it more")?;
    }
    if args.all_failures {
        for (i, f) in report.failures.iter().enumerate().skip(1) {
            outln!("failure {}:\n{f}", i + 1)?;
        }
    }
    if let Some(out) = &args.repair {
        let s = completed(&strategy, &report.repairs, limit.black_moves)?;
        let text = serde_json::to_string_pretty(&s.to_project_json())?;
        retro::atomic::write(out, (text + "\n").as_bytes())
            .with_context(|| format!("cannot write {}", out.display()))?;
        outln!(
            "completed strategy ({} sub-strategies added) written to {}",
            report.repairs.len(),
            out.display()
        )?;
    }
    Ok(report.valid())
}
