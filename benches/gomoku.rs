//! Gomoku benchmark: the proof search on hand-built positions whose win starts with a quiet
//! move, then (when given) the validation of strategy files with their repairs, and the
//! ladder of re-proofs.
//!
//! `cargo bench --bench gomoku` runs the positions; `cargo bench --bench gomoku -- FILE...`
//! also runs a sample of rung 1 of the ladder on each FILE (8 of its black-to-move nodes at
//! stone 16, the graph below each thrown away, `retro gomoku solve`'s search with 60 s
//! each; every proof is validated), then three wrong files made from FILE, each validated
//! as `retro gomoku validate` does by default (stopping at the first failure) and each to
//! be refused within 10 s:
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
//!
//! `-- FILE --rung N` runs one whole rung of the ladder instead, and nothing else:
//!
//! | rung | nodes | time each |
//! |---|---|---|
//! | 1 | every distinct black-to-move node at stone 16 | 60 s |
//! | 2 | every distinct black-to-move node at stone 12 | 600 s |
//! | 3 | the 10 with the largest graphs below them at stone 8 | 3,600 s |
//!
//! one line a node (wall and CPU seconds, graph nodes, the graph below it in FILE, the
//! moves, the verdict), then how many were proven, the median, 90th percentile and slowest
//! wall time, and the CPU / wall ratio over the rung (how busy the cores were). Options:
//! `--seconds S` (another time each), `--cpu-seconds S` (also stop a node after S seconds
//! of CPU: on a shared machine wall time measures the load more than the search),
//! `--largest N` (the N nodes with the largest graphs below them), `--from I` and `--only
//! N` (a slice of the rung, by index), `--list` (the nodes, nothing solved).

mod util;

use std::time::{Duration, Instant};

use retro::gomoku::rules::limit::MoveLimit;
use retro::gomoku::rules::position::Position;
use retro::gomoku::search::pns::{prove, ProveConfig};
use retro::gomoku::search::solve::{SolveConfig, Solver, Stop};
use retro::gomoku::validate::ladder::{black_nodes_at, sample, LadderNode};
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Options that take a value, and their values, are not files.
    let valued = [
        "--rung",
        "--seconds",
        "--cpu-seconds",
        "--largest",
        "--from",
        "--only",
    ];
    let files: Vec<String> = (args.iter().enumerate())
        .filter(|&(i, a)| {
            !a.starts_with("--") && (i == 0 || !valued.contains(&args[i - 1].as_str()))
        })
        .map(|(_, a)| a.clone())
        .collect();
    let limit = MoveLimit::default();
    let rung: Option<u32> = option("--rung");
    if rung.is_none() {
        quiet_positions(limit);
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
        if let Some(r) = rung {
            whole_rung(&s, r);
            continue;
        }
        if !no_rung1 {
            let nodes = sample(&black_nodes_at(&s, 16), 8);
            ladder(
                &s,
                "rung 1 sample (stone 16)",
                &nodes,
                0,
                60.0,
                f64::INFINITY,
            );
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

/// The proof search on each of [`QUIET`]: a line each.
fn quiet_positions(limit: MoveLimit) {
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

/// The value of option `name` (`--seconds 60`), if given and well formed; a malformed one
/// stops the bench.
fn option<T: std::str::FromStr>(name: &str) -> Option<T> {
    let args: Vec<String> = std::env::args().collect();
    let i = args.iter().position(|a| a == name)?;
    match args.get(i + 1).map(|v| v.parse()) {
        Some(Ok(v)) => Some(v),
        _ => {
            eprintln!("{name} needs a number");
            std::process::exit(2);
        }
    }
}

/// Rung `rung` of the ladder on `s`, as the module documentation says.
fn whole_rung(s: &Strategy, rung: u32) {
    let (stones, seconds, largest) = match rung {
        1 => (16, 60.0, usize::MAX),
        2 => (12, 600.0, usize::MAX),
        3 => (8, 3600.0, 10),
        _ => {
            eprintln!("--rung is 1, 2 or 3");
            std::process::exit(2);
        }
    };
    let mut nodes = black_nodes_at(s, stones);
    let largest = option("--largest").unwrap_or(largest);
    if largest == 0 {
        eprintln!("--largest needs at least 1 node");
        std::process::exit(2);
    }
    if largest < nodes.len() {
        // The largest graphs below, kept in file order.
        let mut sizes: Vec<u64> = nodes.iter().map(|n| n.below).collect();
        sizes.sort_unstable_by(|a, b| b.cmp(a));
        let cut = sizes[largest - 1];
        let mut kept = 0;
        nodes.retain(|n| {
            let keep = n.below >= cut && kept < largest;
            kept += keep as usize;
            keep
        });
    }
    let from = option("--from").unwrap_or(0);
    let only = option("--only").unwrap_or(usize::MAX);
    let nodes: Vec<LadderNode> = nodes.into_iter().skip(from).take(only).collect();
    if std::env::args().any(|a| a == "--list") {
        for (i, n) in nodes.iter().enumerate() {
            println!("{:3} {}\t{}", from + i, moves_of(s, n), n.below);
        }
        return;
    }
    let seconds = option("--seconds").unwrap_or(seconds);
    let cpu_limit = option("--cpu-seconds").unwrap_or(f64::INFINITY);
    let title = format!("rung {rung} (stone {stones})");
    ladder(s, &title, &nodes, from, seconds, cpu_limit);
}

/// A node's moves from the strategy's start.
fn moves_of(s: &Strategy, n: &LadderNode) -> String {
    let names: Vec<String> = (n.moves.iter())
        .map(|&c| s.start.cell_name(c as usize))
        .collect();
    names.join(" ")
}

/// Each of `nodes` (numbered from `first`) solved again by `retro gomoku solve`'s search
/// with `seconds` each (and at most `cpu_limit` seconds of CPU), its strategy validated
/// (threat search only): a line each and the figures over them all.
fn ladder(
    s: &Strategy,
    title: &str,
    nodes: &[LadderNode],
    first: usize,
    seconds: f64,
    cpu_limit: f64,
) {
    let limit = s
        .max_moves
        .map_or(MoveLimit::default(), MoveLimit::from_black_moves);
    let rules = s.rules.unwrap_or(Rules::Standard);
    println!("| {title} node | wall s | CPU s | graph nodes | graph below | moves | verdict |");
    println!("|---|---|---|---|---|---|---|");
    let (mut proven, mut walls, mut cpu_total) = (0, Vec::new(), 0.0);
    for (i, n) in nodes.iter().enumerate() {
        let cfg = SolveConfig {
            time_limit: Duration::from_secs_f64(seconds),
            ..SolveConfig::new(rules, limit.black_moves)
        };
        let t = Instant::now();
        let cpu0 = util::cpu_seconds();
        let mut solver = Solver::new(&n.board, true, cfg);
        // Short runs, so that the CPU limit is checked every half second.
        let stop = loop {
            let stop = solver.run(Some(Instant::now() + Duration::from_millis(500)));
            if stop != Stop::Paused || util::cpu_seconds() - cpu0 >= cpu_limit {
                break stop;
            }
        };
        let (wall, cpu) = (t.elapsed().as_secs_f64(), util::cpu_seconds() - cpu0);
        walls.push(wall);
        cpu_total += cpu;
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
            Err(_) => {
                let st = solver.status();
                // Where the search stands at the root: how many of black's moves tried are
                // refuted and how many still open.
                let tries = solver.root_tries();
                let open = tries.iter().filter(|t| t.1 == "open").count();
                format!(
                    "not proven ({stop:?}; root pn {} dn {}; of {} root moves tried {open} open, {} refuted)",
                    st.pn,
                    st.dn,
                    tries.len(),
                    tries.len() - open
                )
            }
        };
        println!(
            "| {} | {wall:.1} | {cpu:.1} | {} | {} | {} | {verdict} |",
            first + i,
            solver.status().nodes,
            n.below,
            moves_of(s, n)
        );
    }
    let wall_total: f64 = walls.iter().sum();
    walls.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let k = ((walls.len() as f64 * q).ceil() as usize).clamp(1, walls.len().max(1));
        walls.get(k - 1).copied().unwrap_or(0.0)
    };
    println!(
        "{title}: {proven} of {} proven within {seconds} s each; wall median {:.1} s, 90th percentile {:.1} s, slowest {:.1} s; {:.0} s in all, CPU / wall {:.2}",
        nodes.len(),
        at(0.5),
        at(0.9),
        walls.last().copied().unwrap_or(0.0),
        wall_total,
        cpu_total / wall_total.max(1e-9)
    );
}
