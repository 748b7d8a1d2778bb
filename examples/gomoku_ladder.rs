//! The issue-21 ladder: every black-to-move node of a strategy graph at one stone count,
//! with the graph below it thrown away, given to the solver (`retro gomoku solve`'s search,
//! in process) under a time limit each.
//!
//! ```text
//! cargo run --release --example gomoku_ladder -- FILE [--stones 16] [--seconds 60]
//!     [--list] [--only N] [--skip-leaves]
//! ```
//!
//! `--list` prints the nodes (move lists, one a line, with the size of the graph below each)
//! and solves nothing. Otherwise one line per node (verdict, seconds, tree nodes) and a
//! summary. Every proof is written and re-validated by the validator (without its proof
//! search), so a "proven" here is a strategy `retro gomoku validate` accepts.

use std::time::{Duration, Instant};

use retro::gomoku::board::{Board, Color, Rules};
use retro::gomoku::limit::MoveLimit;
use retro::gomoku::solve::{SolveConfig, Solver};
use retro::gomoku::strategy::{AfterBlack, AfterWhite, BlackNode, Strategy};
use retro::gomoku::validate::{validate, Options};

/// A black-to-move node: the moves from the start, and the graph nodes below it.
struct Node {
    moves: Vec<u16>,
    below: u64,
    leaf: bool,
}

fn size_white(a: &AfterWhite) -> u64 {
    match a {
        AfterWhite::Leaf(_) => 0,
        AfterWhite::Black(b) => 1 + size_black(b),
    }
}

fn size_black(b: &BlackNode) -> u64 {
    match &b.after {
        AfterBlack::Leaf(_) => 0,
        AfterBlack::White(w) => w.replies.iter().map(|(_, s)| 1 + size_white(s)).sum(),
    }
}

/// Collects the nodes after a white reply with `stones` stones on the board.
fn collect(b: &BlackNode, path: &mut Vec<u16>, stones: usize, out: &mut Vec<Node>) {
    path.push(b.mv);
    if let AfterBlack::White(w) = &b.after {
        for (c, sub) in &w.replies {
            path.push(*c);
            if path.len() == stones {
                out.push(Node {
                    moves: path.clone(),
                    below: size_white(sub),
                    leaf: matches!(sub, AfterWhite::Leaf(_)),
                });
            } else if path.len() < stones {
                if let AfterWhite::Black(nb) = sub {
                    collect(nb, path, stones, out);
                }
            }
            path.pop();
        }
    }
    path.pop();
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first().filter(|a| !a.starts_with("--")) else {
        eprintln!("usage: gomoku_ladder FILE [--stones 16] [--seconds 60] [--list] [--only N]");
        std::process::exit(2);
    };
    let stones: usize = arg(&args, "--stones", 16);
    let seconds: f64 = arg(&args, "--seconds", 60.0);
    let only: usize = arg(&args, "--only", usize::MAX);
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {file}: {e}");
            std::process::exit(2);
        }
    };
    let s = match Strategy::from_json(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot parse {file}: {e}");
            std::process::exit(2);
        }
    };
    let mut nodes = Vec::new();
    collect(&s.root, &mut Vec::new(), stones, &mut nodes);
    if args.iter().any(|a| a == "--skip-leaves") {
        nodes.retain(|n| !n.leaf);
    }
    let name = |m: &[u16]| {
        m.iter()
            .map(|&c| s.start.cell_name(c as usize))
            .collect::<Vec<_>>()
            .join(" ")
    };
    if args.iter().any(|a| a == "--list") {
        for n in &nodes {
            println!("{}\t{}\t{}", name(&n.moves), n.below, n.leaf);
        }
        return;
    }
    let limit = MoveLimit::default();
    let rules = Rules::Standard;
    let (mut proven, mut total_s, mut worst) = (0, 0.0f64, 0.0f64);
    let mut count = 0;
    let mut seen = std::collections::HashSet::new();
    for (i, n) in nodes.iter().enumerate().take(only) {
        let mut board: Board = s.start.clone();
        for (j, &m) in n.moves.iter().enumerate() {
            board.place(
                m as usize,
                if j % 2 == 0 {
                    Color::Black
                } else {
                    Color::White
                },
            );
        }
        // The same position by another move order is solved once.
        if !seen.insert(board.key()) {
            continue;
        }
        let cfg = SolveConfig {
            time_limit: Duration::from_secs_f64(seconds),
            ..SolveConfig::new(rules, limit.black_moves)
        };
        let t = Instant::now();
        let mut solver = Solver::new(&board, true, cfg);
        let stop = solver.run(None);
        let secs = t.elapsed().as_secs_f64();
        let st = solver.status();
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
            Err(_) => format!(
                "not proven ({stop:?}), pn {} dn {}",
                st.pn.min(99999),
                st.dn.min(99999)
            ),
        };
        count += 1;
        total_s += secs;
        worst = worst.max(secs);
        println!(
            "{i:3} {:6.1}s nodes={:6} below={:4} {}\t{}",
            secs,
            st.nodes,
            n.below,
            name(&n.moves),
            verdict
        );
    }
    println!(
        "stone {stones}: {proven} of {count} distinct positions proven within {seconds} s each; mean {:.1} s, worst {:.1} s",
        total_s / count.max(1) as f64,
        worst
    );
}
