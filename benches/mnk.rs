//! k-in-a-row benchmark: full tables (value, remoteness, best move for every position) with
//! the tier solver on a pool of two threads, then written to a table file.
//!
//! `cargo bench --bench mnk` runs 3x4 k=3, 4x4 k=3, 4x4 k=4 and 4x5 k=4; pass boards to
//! choose, e.g. `cargo bench --bench mnk -- 4x5-4`, and `--threads N` to change the pool.
//! Peak memory is the process's peak resident set (`VmHWM`), so run one board per process
//! for a per-board figure. A board whose empty position contradicts its published result
//! (3x4 k=3: the first player wins in 7 plies; 4x4 and 4x5 k=4: draws) ends the run with
//! exit code 1: the check of the 4x5 draw, which the test command leaves to this bench.

use retro::solve::Solve;
use std::time::Instant;

use retro::game::{Game, SolveOptions, Value};
use retro::mnk::Mnk;
use retro::progress::Silent;

fn peak_rss_mib() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn main() {
    let mut args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut threads = 2usize;
    if let Some(i) = args.iter().position(|a| a == "--threads") {
        threads = args.get(i + 1).and_then(|t| t.parse().ok()).unwrap_or(2);
        args.drain(i..(i + 2).min(args.len()));
    }
    let boards: Vec<(u32, u32, u32)> = if args.is_empty() {
        vec![(3, 4, 3), (4, 4, 3), (4, 4, 4), (4, 5, 4)]
    } else {
        args.iter()
            .filter_map(|a| {
                let (wh, k) = a.split_once('-')?;
                let (w, h) = wh.split_once('x')?;
                Some((w.parse().ok()?, h.parse().ok()?, k.parse().ok()?))
            })
            .collect()
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    let dir = tempfile::tempdir().expect("temporary folder");
    println!(
        "| board | k | slots | setup s | solve s | write s | open + summary s | file MiB | peak RSS MiB | empty board |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (w, h, k) in boards {
        let t0 = Instant::now();
        let g = match Mnk::new(w, h, k) {
            Ok(g) => g,
            Err(e) => {
                println!("{w}x{h} k={k}: {e}");
                continue;
            }
        };
        let setup = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let sol = pool
            .install(|| g.solve(&SolveOptions { progress: &Silent }))
            .expect("solves");
        let solve = t1.elapsed().as_secs_f64();
        let t2 = Instant::now();
        let (path, _) = pool
            .install(|| retro::generate::write_solution(&g, dir.path(), &sol))
            .expect("writes");
        let write = t2.elapsed().as_secs_f64();
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let t3 = Instant::now();
        let table = retro::table::Table::open(&path).expect("opens");
        let lines = pool.install(|| retro::present::GameText::summary_lines(&g, &table));
        let summary = t3.elapsed().as_secs_f64();
        for l in &lines {
            eprintln!("  {}: {l}", g.name());
        }
        let empty = sol.value(g.encode(&Default::default()));
        // The published results of the empty boards this bench solves by default: the
        // test command asserts the smaller ones (`mnk_facts`), this run the 4x5 board,
        // 44 s of CPU that the test command cannot afford.
        let published = match (w.min(h), w.max(h), k) {
            (3, 4, 3) => Some(Value::Win(7)),
            (4, 4, 4) | (4, 5, 4) => Some(Value::Draw),
            _ => None,
        };
        if let Some(want) = published.filter(|&want| want != empty) {
            eprintln!("{w}x{h} k={k}: the empty board is {empty:?}, published {want:?}");
            std::process::exit(1);
        }
        let words = match empty {
            Value::Win(p) => format!("X wins in {p} plies"),
            Value::Loss(p) => format!("O wins in {p} plies"),
            v => format!("{v:?}").to_lowercase(),
        };
        println!(
            "| {w}x{h} | {k} | {} | {setup:.2} | {solve:.2} | {write:.2} | {summary:.2} | {:.1} | {:.0} | {words} |",
            g.size(),
            size as f64 / (1 << 20) as f64,
            peak_rss_mib().unwrap_or(f64::NAN)
        );
        drop(sol);
        drop(table);
        let _ = std::fs::remove_file(&path);
    }
}
