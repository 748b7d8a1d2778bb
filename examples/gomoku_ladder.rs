//! The issue-21 ladder: every black-to-move node of a strategy graph at one stone count,
//! with the graph below it thrown away, given to `retro gomoku solve`'s search (in
//! process) under a time limit each.
//!
//! ```text
//! cargo run --release --example gomoku_ladder -- FILE [--stones 16] [--seconds 60]
//!     [--cpu-seconds S] [--largest N] [--list] [--only N] [--from I] [--depth-cost 4]
//!     [--width 12] [--root-width 24] [--leaf-nodes 100000]
//! ```
//!
//! `--cpu-seconds S` also stops a node after S seconds of this process's CPU time (Linux:
//! `/proc/self/stat`), and each line shows the CPU seconds: on a machine shared with other
//! work, wall-clock limits measure the load more than the search, while CPU time divided by
//! the cores is what the node would take alone. `--largest N` keeps the N nodes with the
//! largest graphs below them (the hard ones), in file order.
//!
//! `--list` prints the nodes (move list, graph nodes below) and solves nothing. Otherwise
//! one line per node (index, seconds, graph nodes, verdict) and a summary. A position
//! reached by two move orders is solved once. Every proof is written and validated (the
//! threat search only, no proof search), so "proven" here is a strategy `retro gomoku
//! validate` accepts.

use std::time::{Duration, Instant};

use retro::gomoku::rules::board::Rules;
use retro::gomoku::rules::limit::MoveLimit;
use retro::gomoku::search::solve::{SolveConfig, Solver, Stop};
use retro::gomoku::validate::ladder::black_nodes_at;
use retro::gomoku::validate::strategy::Strategy;
use retro::gomoku::validate::{validate, Options};

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// This process's CPU time (user + system), from `/proc/self/stat` (0 where unreadable).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces) end with ')'; utime and stime
    // are fields 14 and 15, in clock ticks (100 a second on Linux).
    let rest = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(file) = args.first().filter(|a| !a.starts_with("--")) else {
        eprintln!(
            "usage: gomoku_ladder FILE [--stones 16] [--seconds 60] [--list] [--only N] [--from I]"
        );
        std::process::exit(2);
    };
    let stones: u32 = arg(&args, "--stones", 16);
    let seconds: f64 = arg(&args, "--seconds", 60.0);
    let only: usize = arg(&args, "--only", usize::MAX);
    let cpu_limit: f64 = arg(&args, "--cpu-seconds", f64::INFINITY);
    let largest: usize = arg(&args, "--largest", usize::MAX);
    let from: usize = arg(&args, "--from", 0);
    let defaults = SolveConfig::new(Rules::Standard, 0);
    let depth_cost: u64 = arg(&args, "--depth-cost", defaults.depth_cost);
    let width: usize = arg(&args, "--width", defaults.width);
    let root_width: usize = arg(&args, "--root-width", defaults.root_width);
    let leaf_nodes: u64 = arg(&args, "--leaf-nodes", defaults.threat.node_limit);
    let s = match std::fs::read_to_string(file)
        .map_err(|e| e.to_string())
        .and_then(|t| Strategy::from_json(&t).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot read {file}: {e}");
            std::process::exit(2);
        }
    };
    let mut nodes = black_nodes_at(&s, stones);
    if largest < nodes.len() {
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
    let name = |m: &[u16]| {
        m.iter()
            .map(|&c| s.start.cell_name(c as usize))
            .collect::<Vec<_>>()
            .join(" ")
    };
    if args.iter().any(|a| a == "--list") {
        for n in &nodes {
            println!("{}\t{}", name(&n.moves), n.below);
        }
        return;
    }
    let limit = s
        .max_moves
        .map_or(MoveLimit::default(), MoveLimit::from_black_moves);
    let rules = s.rules.unwrap_or(Rules::Standard);
    let (mut proven, mut count, mut total_s, mut worst) = (0, 0, 0.0f64, 0.0f64);
    let (mut total_cpu, mut worst_cpu) = (0.0f64, 0.0f64);
    for (i, n) in nodes.iter().enumerate().skip(from).take(only) {
        let mut cfg = SolveConfig {
            time_limit: Duration::from_secs_f64(seconds),
            depth_cost,
            width,
            root_width,
            ..SolveConfig::new(rules, limit.black_moves)
        };
        cfg.threat.node_limit = leaf_nodes;
        let t = Instant::now();
        let cpu0 = cpu_seconds();
        let mut solver = Solver::new(&n.board, true, cfg);
        // Short runs, so the CPU limit is checked every half second.
        let stop = loop {
            let stop = solver.run(Some(Instant::now() + Duration::from_millis(500)));
            if stop != Stop::Paused || cpu_seconds() - cpu0 >= cpu_limit {
                break stop;
            }
        };
        let secs = t.elapsed().as_secs_f64();
        let cpu = cpu_seconds() - cpu0;
        let st = solver.status();
        let verdict = match solver.strategy(None) {
            Ok(strategy) => {
                let opts = Options {
                    proof: None,
                    ..Options::new(rules, limit.black_moves)
                };
                if validate(&strategy, &opts).valid() {
                    proven += 1;
                    format!("proven by stone {}", solver.by_stone().unwrap_or(0))
                } else {
                    "PROOF DOES NOT VALIDATE".to_string()
                }
            }
            Err(_) => format!(
                "not proven ({stop:?}), pn {} dn {}",
                st.pn.min(99_999),
                st.dn.min(99_999)
            ),
        };
        count += 1;
        total_s += secs;
        worst = worst.max(secs);
        total_cpu += cpu;
        worst_cpu = worst_cpu.max(cpu);
        println!(
            "{i:3} {secs:6.1}s cpu={cpu:6.1}s nodes={:6} below={:4} {}\t{verdict}",
            st.nodes,
            n.below,
            name(&n.moves)
        );
    }
    println!(
        "stone {stones}: {proven} of {count} distinct positions proven within {seconds} s each; mean {:.1} s, worst {:.1} s; CPU mean {:.1} s, worst {:.1} s",
        total_s / count.max(1) as f64,
        worst,
        total_cpu / count.max(1) as f64,
        worst_cpu
    );
}
