//! Gomoku benchmark: the proof search on hand-built positions whose win starts with a quiet
//! move, then (when given) the validation of strategy files with their repairs.
//!
//! `cargo bench --bench gomoku` runs the positions; `cargo bench --bench gomoku -- FILE...`
//! also validates each FILE at the seed's limit (stone 35 unless the file says otherwise),
//! closing holes with the proof search, and prints wall time, holes closed and the peak
//! resident set (`VmHWM`, so run one file per process for a per-file figure).

use std::time::Instant;

use retro::gomoku::limit::MoveLimit;
use retro::gomoku::pns::{prove, ProveConfig};
use retro::gomoku::position::Position;
use retro::gomoku::strategy::Strategy;
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

fn peak_rss_mib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

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
    for file in files {
        let Ok(text) = std::fs::read_to_string(&file) else {
            println!("{file}: cannot read");
            continue;
        };
        let Ok(s) = Strategy::from_json(&text) else {
            println!("{file}: cannot parse");
            continue;
        };
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
            peak_rss_mib().unwrap_or(0.0)
        );
    }
}
