//! `retro gomoku validate`: arguments and the command body (the binary's side; the rules,
//! search and validator are in the library's `gomoku` module).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

use retro::gomoku::board::Rules;
use retro::gomoku::strategy::Strategy;
use retro::gomoku::threat::SearchConfig;
use retro::gomoku::validate::{validate, Options};

/// Arguments of `retro gomoku validate`.
#[derive(Debug, Clone, clap::Args)]
pub struct ValidateArgs {
    /// Strategy graph: the project's JSON format or the seed's published nested format.
    pub file: PathBuf,
    /// Rules: standard (exactly five wins) or freestyle (five or more). Default: the
    /// file's, else standard.
    #[arg(long, value_enum)]
    pub rules: Option<Rules>,
    /// Black's winning row must come on or before this black move. Default: the file's,
    /// else 35.
    #[arg(long)]
    pub max_moves: Option<u32>,
    /// Largest number of black moves the continuous-threat (VCT) search tries.
    #[arg(long, default_value_t = SearchConfig::default().vct_depth)]
    pub vct_depth: u32,
    /// Search nodes per position before giving up ("not proven").
    #[arg(long, default_value_t = SearchConfig::default().node_limit)]
    pub node_limit: u64,
    /// Do not use threats of a VCF (only fours and threes).
    #[arg(long)]
    pub no_extended: bool,
    /// Number of threads (default: all cores).
    #[arg(long, value_parser = super::threads)]
    pub threads: Option<usize>,
    /// Print every failure, not only the first.
    #[arg(long)]
    pub all_failures: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// Runs the validation and prints the report. `Ok(true)`: valid; `Ok(false)`: the graph
/// has a hole (details printed); `Err`: the file could not be read or parsed.
pub fn run_validate(args: &ValidateArgs) -> anyhow::Result<bool> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read strategy file {}", args.file.display()))?;
    let strategy = Strategy::from_json(&text)
        .with_context(|| format!("cannot parse strategy file {}", args.file.display()))?;
    let opts = Options {
        rules: args.rules.or(strategy.rules).unwrap_or(Rules::Standard),
        max_moves: args.max_moves.or(strategy.max_moves).unwrap_or(35),
        search: SearchConfig {
            vct: true,
            node_limit: args.node_limit,
            vct_depth: args.vct_depth,
            start_depth: 1,
            jump_depth: 0,
            extended: !args.no_extended,
        },
        progress: !args.quiet,
    };
    let run = || validate(&strategy, &opts);
    let report = match args.threads {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .context("cannot start threads")?
            .install(run),
        None => run(),
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{report}")?;
    if args.all_failures {
        for (i, f) in report.failures.iter().enumerate().skip(1) {
            writeln!(out, "failure {}:\n{f}", i + 1)?;
        }
    }
    out.flush()?;
    Ok(report.valid())
}
