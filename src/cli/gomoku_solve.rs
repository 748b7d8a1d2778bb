//! `retro gomoku solve POSITION --out FILE` and `retro gomoku prove POSITION [--out FILE]`:
//! one search, the DAG proof search (`gomoku::solve`), with progress on stderr and the
//! strategy found checked by the validator before it is written. `solve` is for long runs:
//! it checkpoints to `FILE.checkpoint` and resumes from it. `prove` answers at once and
//! keeps nothing but the strategy, when asked for one.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};

use retro::gomoku::rules::board::{Rules, MAX_CELLS};
use retro::gomoku::search::checkpoint::CheckpointError;
use retro::gomoku::search::solve::{SolveConfig, Solver, Status, Stop};
use retro::gomoku::validate::{validate, Options};
use retro::input::InputError;

use super::gomoku_args::{tries_line, with_threads, PositionArgs, CHECKPOINT_MAX};

/// The validator's threat-search nodes (`validate::Options::new`): a solve's own threat
/// searches may not use more, or the validator would not find their proofs again.
const VALIDATOR_NODES: u64 = 2_000_000;
/// The largest `--depth-cost`: a proof number of cost times depth (up to 128 black
/// moves) stays far from overflowing.
const MAX_DEPTH_COST: u64 = 1_000_000;

/// Arguments of `retro gomoku solve`.
#[derive(Debug, Clone, clap::Args)]
pub struct SolveArgs {
    #[command(flatten)]
    pub search: SearchArgs,
    /// Where to write the strategy (project format). The checkpoint is FILE.checkpoint.
    #[arg(long)]
    pub out: PathBuf,
    /// Seconds between checkpoints (0: none).
    #[arg(long, default_value_t = 60.0, value_parser = super::seconds)]
    pub checkpoint_every: f64,
    /// Ignore (and overwrite) an existing checkpoint instead of resuming from it.
    #[arg(long)]
    pub fresh: bool,
}

/// Arguments of `retro gomoku prove`.
#[derive(Debug, Clone, clap::Args)]
pub struct ProveArgs {
    #[command(flatten)]
    pub search: SearchArgs,
    /// Write the strategy found (project format) to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// The search's question and limits, the same for `solve` and `prove`.
#[derive(Debug, Clone, clap::Args)]
pub struct SearchArgs {
    #[command(flatten)]
    pub pos: PositionArgs,
    /// Seconds before giving up (this run; a resumed run gets its own).
    #[arg(long, default_value_t = SolveConfig::new(Rules::Standard, 0).time_limit.as_secs_f64(), value_parser = super::seconds)]
    pub time_limit: f64,
    /// Graph nodes before giving up.
    #[arg(long, default_value_t = SolveConfig::new(Rules::Standard, 0).node_limit, value_parser = super::whole(1, super::MAX_TREE_NODES))]
    pub tree_nodes: usize,
    /// Quiet black moves tried per black node (blocks of white threes come on top), 0 to
    /// 256 (every cell).
    #[arg(long, default_value_t = SolveConfig::new(Rules::Standard, 0).width, value_parser = super::whole(0, MAX_CELLS))]
    pub width: usize,
    /// Quiet black moves tried at the root (at least --width), 0 to 256.
    #[arg(long, default_value_t = SolveConfig::new(Rules::Standard, 0).root_width, value_parser = super::whole(0, MAX_CELLS))]
    pub root_width: usize,
    /// Nodes of each threat search, 1 to the validator's 2,000,000 (which must find the
    /// same proofs again). A new position's first search stops at 100,000 (or this, if
    /// smaller) and goes on to this limit only when the search chooses the position.
    #[arg(long, default_value_t = SolveConfig::new(Rules::Standard, 0).threat.node_limit, value_parser = super::whole(1, VALIDATOR_NODES))]
    pub leaf_nodes: u64,
    /// Initial proof number added per black move below the root, 0 to 1,000,000: favours
    /// wide shallow proofs over deep forcing lines (ordering only, never soundness).
    #[arg(long, default_value_t = SolveConfig::new(Rules::Standard, 0).depth_cost, value_parser = super::whole(0, MAX_DEPTH_COST))]
    pub depth_cost: u64,
    /// Do not validate the strategy written.
    #[arg(long)]
    pub no_validate: bool,
    /// Number of threads (default: all cores).
    #[arg(long, value_parser = super::threads)]
    pub threads: Option<usize>,
    /// No progress on stderr.
    #[arg(long)]
    pub quiet: bool,
}

/// One progress line.
fn progress_text(s: &Status) -> String {
    let num = |x: u64| {
        if x >= u64::MAX / 8 {
            "inf".to_string()
        } else {
            x.to_string()
        }
    };
    format!(
        "pn {} dn {} | {} nodes, up to {} stones | {} threat searches | {:.0?}",
        num(s.pn),
        num(s.dn),
        s.nodes,
        s.max_stones,
        s.threat_searches,
        s.elapsed
    )
}

/// Progress on stderr: a spinner on a terminal, else a line every 10 s (logs).
struct Ticker {
    bar: Option<indicatif::ProgressBar>,
    last_line: Instant,
    quiet: bool,
}

impl Ticker {
    fn new(quiet: bool) -> Ticker {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        Ticker {
            bar,
            last_line: Instant::now(),
            quiet,
        }
    }

    fn show(&mut self, s: &Status) {
        if self.quiet {
            return;
        }
        match &self.bar {
            Some(b) => b.set_message(progress_text(s)),
            None if self.last_line.elapsed() >= Duration::from_secs(10) => {
                eprintln!("solve: {}", progress_text(s));
                self.last_line = Instant::now();
            }
            None => {}
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

fn checkpoint_path(out: &std::path::Path) -> PathBuf {
    let mut p = out.as_os_str().to_owned();
    p.push(".checkpoint");
    PathBuf::from(p)
}

/// Runs `retro gomoku solve`. `Ok(true)`: proven, written and validated; `Ok(false)`: not
/// proven within the limits; `Err`: bad input, or a file could not be read or written.
pub fn run_solve(a: &SolveArgs) -> anyhow::Result<bool> {
    let checkpoint = Checkpoints {
        path: checkpoint_path(&a.out),
        every: Duration::from_secs_f64(a.checkpoint_every),
        fresh: a.fresh,
    };
    with_threads(a.search.threads, || {
        search(&a.search, Some(&a.out), Some(&checkpoint))
    })?
}

/// Runs `retro gomoku prove`: the same search as `solve`, without checkpoints.
pub fn run_prove(a: &ProveArgs) -> anyhow::Result<bool> {
    with_threads(a.search.threads, || {
        search(&a.search, a.out.as_deref(), None)
    })?
}

/// Where and how often a long search saves itself.
struct Checkpoints {
    path: PathBuf,
    every: Duration,
    fresh: bool,
}

fn search(
    args: &SearchArgs,
    out: Option<&Path>,
    checkpoints: Option<&Checkpoints>,
) -> anyhow::Result<bool> {
    let (pos, limit) = args.pos.read()?;
    let rules = Rules::from(args.pos.rules);
    let mut cfg = SolveConfig::new(rules, limit.black_moves);
    cfg.threat.node_limit = args
        .leaf_nodes
        .min(Options::new(rules, 0).search.node_limit);
    cfg.width = args.width;
    cfg.root_width = args.root_width;
    cfg.depth_cost = args.depth_cost;
    cfg.node_limit = args.tree_nodes;
    cfg.time_limit = Duration::from_secs_f64(args.time_limit);
    let b = &pos.board;
    let black_to_move = pos.black_to_move();

    // Only a checkpoint that is not there at all means a new search; one that cannot be
    // read is an error, not something to overwrite.
    let saved = match checkpoints {
        None => None,
        Some(c) if c.fresh => None,
        Some(c) => match retro::input::read(&c.path, "a checkpoint", CHECKPOINT_MAX) {
            Ok(bytes) => Some((bytes, c.path.as_path())),
            Err(InputError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                None
            }
            Err(e) => return Err(anyhow::Error::from(e).context("cannot read the checkpoint")),
        },
    };
    let mut solver = match saved {
        // Checked before any work: a graph grown with other options does not resume.
        Some((bytes, cp)) => match Solver::from_checkpoint(&bytes, b, black_to_move, cfg) {
            Ok(s) => {
                outln!(
                    "resuming from {} ({} nodes, {:.0?} spent before)",
                    cp.display(),
                    s.status().nodes,
                    s.status().elapsed
                )?;
                s
            }
            Err(CheckpointError::Mismatch {
                what,
                checkpoint,
                asked,
            }) => bail!(
                "{}: made with {what} {checkpoint}, but this run asks {asked}{}: run with \
                 the checkpoint's options to resume, or pass --fresh to start over",
                cp.display(),
                flag_of(&what)
                    .map(|f| format!(" ({f})"))
                    .unwrap_or_default()
            ),
            Err(e) => bail!("{}: {e}; remove it or pass --fresh", cp.display()),
        },
        None => Solver::new(b, black_to_move, cfg),
    };
    // The checkpoints written as the search goes (none for `prove`, nor with an interval of 0).
    let saving = checkpoints.filter(|c| !c.every.is_zero());
    let mut ticker = Ticker::new(args.quiet);
    let mut last_save = Instant::now();
    let stop = loop {
        let pause = Instant::now() + Duration::from_millis(500);
        let stop = solver.run(Some(pause));
        ticker.show(&solver.status());
        let due = |c: &&Checkpoints| stop != Stop::Paused || last_save.elapsed() >= c.every;
        if let Some(c) = saving.filter(due).filter(|_| stop != Stop::Proven) {
            retro::atomic::write(&c.path, &solver.to_checkpoint())
                .with_context(|| format!("cannot write checkpoint {}", c.path.display()))?;
            last_save = Instant::now();
        }
        if stop != Stop::Paused {
            break stop;
        }
    };
    ticker.finish();
    if let Some(v) = std::env::var_os("RETRO_GOMOKU_TRACE") {
        // The value is the depth shown (3 when not a number).
        solver.trace(v.to_str().and_then(|s| s.parse().ok()).unwrap_or(3));
    }
    let st = solver.status();
    let stats = format!(
        "{} graph nodes, {} threat searches ({} nodes), {:.2?}",
        st.nodes, st.threat_searches, st.threat_nodes, st.elapsed
    );
    if stop != Stop::Proven {
        let why = match stop {
            Stop::Refuted => "every candidate line failed (no proof within the candidates)",
            Stop::NodeLimit => "graph node limit reached",
            _ => "time limit reached",
        };
        outln!("not proven within limits ({stats})")?;
        outln!(
            "stopped: {why} (root pn {}, dn {}; width {}, threat searches of {} nodes)\n{}",
            st.pn.min(u64::MAX / 4),
            st.dn.min(u64::MAX / 4),
            cfg.width,
            cfg.threat.node_limit,
            tries_line(b, &solver.root_tries())
        )?;
        if let Some(c) = saving.filter(|_| stop != Stop::Refuted) {
            outln!("checkpoint: {} (run again to resume)", c.path.display())?;
        }
        return Ok(false);
    }
    outln!(
        "black wins by stone {} ({stats})",
        solver.by_stone().unwrap_or(0)
    )?;
    let s = solver.strategy(pos.moves.last().copied())?;
    // The strategy must stand on its own (validated without the proof search) before it
    // is written: one that does not is never written.
    if !args.no_validate {
        let opts = Options {
            proof: None,
            ..Options::new(rules, limit.black_moves)
        };
        let report = validate(&s, &opts);
        if !report.valid() {
            outln!("{report}")?;
            bail!(
                "the strategy found does not validate, so it was not written (a bug: please \
                 report it){}",
                checkpoints
                    .map(|c| format!("; the checkpoint {} is kept", c.path.display()))
                    .unwrap_or_default()
            );
        }
        outln!(
            "validated: VALID ({} positions, {} black moves, {} listed white replies)",
            report.positions,
            report.black_moves,
            report.listed_replies
        )?;
    }
    let first = s.start.cell_name(s.root.mv as usize);
    let Some(out) = out else {
        outln!("strategy: black plays {first} first (--out FILE writes it)")?;
        return Ok(true);
    };
    let text = serde_json::to_string_pretty(&s.to_project_json())?;
    retro::atomic::write(out, (text + "\n").as_bytes())
        .with_context(|| format!("cannot write {}", out.display()))?;
    outln!(
        "strategy: black plays {first} first; written to {}",
        out.display()
    )?;
    if let Some(c) = checkpoints.filter(|c| c.path.exists()) {
        let _ = std::fs::remove_file(&c.path);
    }
    Ok(true)
}

/// The flag that sets a part of a search's question (see `CheckpointError::Mismatch`).
fn flag_of(what: &str) -> Option<&'static str> {
    Some(match what {
        "width" => "--width",
        "root width" => "--root-width",
        "depth cost" => "--depth-cost",
        "threat-search nodes" => "--leaf-nodes",
        "black moves limit" => "--max-black-moves or --max-stones",
        "rules" => "--rules",
        "k" => "--k",
        _ => return None,
    })
}
