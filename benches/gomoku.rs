//! Gomoku benchmark: the proof search on hand-built positions whose win starts with a quiet
//! move, then (when given) the validation of strategy files with their repairs.
//!
//! `cargo bench --bench gomoku` runs the positions; `cargo bench --bench gomoku -- FILE...`
//! also runs rung 1 of issue 21's ladder on each FILE (a fixed sample of its black-to-move
//! nodes at stone 16, the graph below each thrown away, `retro gomoku solve`'s search with
//! 60 s each; every proof is validated), then three wrong files made from FILE, each
//! validated as `retro gomoku validate` does by default (stopping at the first failure)
//! and each to be refused within 10 s:
//!
//! - `first move a1`: black's first move replaced by a1, the graph below it kept;
//! - `deep move a15`: along the line that takes the reply with the largest subtree at
//!   every white node, black's 5th move replaced by a15;
//! - `deep move occupied`: on the same line, black's 7th move replaced by white's reply
//!   just before it (an occupied cell, as a mistyped or swapped coordinate gives);
//!
//! then validates each FILE itself at the seed's limit (stone 35 unless the file says
//! otherwise), going on after every hole and closing holes with the proof search (as
//! `--repair` does), and prints wall time, holes closed and the peak resident set (`VmHWM`,
//! so run one file per process for a per-file figure). `--no-rung1` leaves out the
//! ladder, `--no-wrong` the wrong files, `--no-validate` the validation of FILE.

mod util;

use std::time::{Duration, Instant};

use retro::gomoku::rules::limit::MoveLimit;
use retro::gomoku::rules::position::Position;
use retro::gomoku::search::pns::{prove, ProveConfig};
use retro::gomoku::search::solve::{SolveConfig, Solver};
use retro::gomoku::validate::ladder::{black_nodes_at, sample};
use retro::gomoku::validate::strategy::{AfterBlack, AfterWhite, BlackNode, Strategy};
use retro::gomoku::validate::{validate, Options};
use retro::gomoku::{Color, Rules};

/// Hand-built positions (black to move) the threat search alone does not prove at stone 35:
/// two black stones with white's in far corners, and the project's `quiet_hole.json` test
/// position after its listed reply.
const QUIET: &[&str] = &[
    "h8 a1 i9 o15",
    "h8 a1 j8 o15",
    "h8 a3 i9 o15 b3 a15 c3 o1 d3 a13 e3 f3",
];

fn main() {
    let files: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let limit = MoveLimit::default();
    println!("| position | verdict | by stone | tree nodes | seconds |");
    println!("|---|---|---|---|---|");
    for text in QUIET {
        let Ok(pos) = Position::parse(text, 5, Rules::Standard) else {
            println!("| {text} | bad position | | | |");
            continue;
        };
        let cfg = ProveConfig::new(Rules::Standard, limit.black_moves);
        let t = Instant::now();
        let r = prove(&pos.board, Color::Black, pos.black_to_move(), cfg);
        println!(
            "| {text} | {} | {} | {} | {:.2} |",
            if r.proven { "proven" } else { "not proven" },
            r.by_stone,
            r.tree_nodes,
            t.elapsed().as_secs_f64()
        );
    }
    if files.is_empty() {
        println!(
            "rung 1 (stone-16 nodes of a strategy, solved again): skipped, no strategy file given \
             (cargo bench --bench gomoku -- /path/to/rv2-gomoku.json)"
        );
    }
    let flag = |f: &str| std::env::args().any(|a| a == f);
    let (no_validate, no_rung1, no_wrong) = (
        flag("--no-validate"),
        flag("--no-rung1"),
        flag("--no-wrong"),
    );
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            println!("{file}: cannot read");
            continue;
        };
        let Ok(s) = Strategy::from_json(&text) else {
            println!("{file}: cannot parse");
            continue;
        };
        if !no_rung1 {
            rung1(&s);
        }
        if !no_wrong {
            wrong_files(&s);
        }
        if no_validate {
            continue;
        }
        let limit = s.max_moves.map_or(limit, MoveLimit::from_black_moves);
        let opts = Options::new(s.rules.unwrap_or(Rules::Standard), limit.black_moves);
        let t = Instant::now();
        let report = validate(&s, &opts);
        println!(
            "{file}: {} at {limit}; {} holes closed by the proof search, {} failures; {:.1} s wall; peak RSS {:.0} MiB",
            if report.valid() { "VALID" } else { "INVALID" },
            report.repairs.len(),
            report.failures.len(),
            t.elapsed().as_secs_f64(),
            util::peak_mib().unwrap_or(0.0)
        );
    }
}

/// Positions in a black node's subtree (black moves, listed replies and leaves).
fn size(n: &BlackNode) -> usize {
    1 + match &n.after {
        AfterBlack::Leaf(_) => 1,
        AfterBlack::White(w) => w
            .replies
            .iter()
            .map(|(_, sub)| match sub {
                AfterWhite::Leaf(_) => 2,
                AfterWhite::Black(b) => 1 + size(b),
            })
            .sum(),
    }
}

/// Black's `k`-th move (1-based) along the line that takes the reply with the largest
/// subtree at every white node, and white's reply just before it (none for the first
/// move); `None` when the line is shorter.
fn heavy_line_move(
    n: &mut BlackNode,
    k: usize,
    before: Option<u16>,
) -> Option<(&mut BlackNode, Option<u16>)> {
    if k <= 1 {
        return Some((n, before));
    }
    let AfterBlack::White(w) = &mut n.after else {
        return None;
    };
    let (reply, sub) = w
        .replies
        .iter_mut()
        .filter_map(|(c, sub)| match sub {
            AfterWhite::Black(b) => Some((*c, b)),
            AfterWhite::Leaf(_) => None,
        })
        .max_by_key(|(_, b)| size(b))?;
    heavy_line_move(sub, k - 1, Some(reply))
}

/// The three wrong files of the module documentation, each validated as the CLI does by
/// default; every one must be refused within 10 s.
fn wrong_files(s: &Strategy) {
    let limit = s
        .max_moves
        .map_or(MoveLimit::default(), MoveLimit::from_black_moves);
    let rules = s.rules.unwrap_or(Rules::Standard);
    let cell = |name: &str| s.start.parse_cell(name).expect("a cell of 15x15") as u16;
    let mut cases: Vec<(&str, Strategy)> = Vec::new();
    let mut a1 = s.clone();
    a1.root.mv = cell("a1");
    cases.push(("first move a1", a1));
    let mut a15 = s.clone();
    if let Some((n, _)) = heavy_line_move(&mut a15.root, 5, None) {
        n.mv = cell("a15");
        cases.push(("deep move a15 (black's 5th)", a15));
    }
    let mut occupied = s.clone();
    if let Some((n, Some(white))) = heavy_line_move(&mut occupied.root, 7, None) {
        n.mv = white;
        cases.push(("deep move occupied (black's 7th)", occupied));
    }
    println!("| wrong file | verdict | first failure | seconds |");
    println!("|---|---|---|---|");
    for (name, wrong) in &cases {
        let opts = Options {
            stop_at_first: true,
            ..Options::new(rules, limit.black_moves)
        };
        let t = Instant::now();
        let report = validate(wrong, &opts);
        let secs = t.elapsed().as_secs_f64();
        let first = report.failures.first().map_or(String::new(), |f| {
            retro::gomoku::validate::report::format_line(&wrong.start, &f.path)
        });
        println!(
            "| {name} | {} | {first} | {secs:.1}{} |",
            if report.valid() {
                "VALID (not refused!)"
            } else {
                "refused"
            },
            if secs > 10.0 {
                " (over the 10 s target)"
            } else {
                ""
            }
        );
    }
}

/// Rung 1 of the ladder on a fixed sample of 8 stone-16 nodes of `s`: each solved with
/// 60 s, its strategy validated (threat search only).
fn rung1(s: &Strategy) {
    let limit = s
        .max_moves
        .map_or(MoveLimit::default(), MoveLimit::from_black_moves);
    let rules = s.rules.unwrap_or(Rules::Standard);
    let nodes = sample(&black_nodes_at(s, 16), 8);
    println!("| rung 1 node (stone 16) | graph below | verdict | graph nodes | seconds |");
    println!("|---|---|---|---|---|");
    let (mut proven, mut total) = (0, 0.0);
    for n in &nodes {
        let cfg = SolveConfig {
            time_limit: Duration::from_secs(60),
            ..SolveConfig::new(rules, limit.black_moves)
        };
        let t = Instant::now();
        let mut solver = Solver::new(&n.board, true, cfg);
        solver.run(None);
        let secs = t.elapsed().as_secs_f64();
        total += secs;
        let verdict = match solver.strategy(None) {
            Ok(st) => {
                let opts = Options {
                    proof: None,
                    ..Options::new(rules, limit.black_moves)
                };
                if validate(&st, &opts).valid() {
                    proven += 1;
                    format!("proven by stone {}", solver.by_stone().unwrap_or(0))
                } else {
                    "PROOF DOES NOT VALIDATE".to_string()
                }
            }
            Err(_) => "not proven in 60 s".to_string(),
        };
        let line: Vec<String> = n
            .moves
            .iter()
            .map(|&c| s.start.cell_name(c as usize))
            .collect();
        println!(
            "| {} | {} | {verdict} | {} | {secs:.1} |",
            line.join(" "),
            n.below,
            solver.status().nodes
        );
    }
    println!(
        "rung 1 sample: {proven} of {} proven, {:.1} s per node on average",
        nodes.len(),
        total / nodes.len().max(1) as f64
    );
}
