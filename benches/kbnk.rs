//! KBNK benchmark: table generation (both sides, distances and best moves) on 1 and 2
//! threads, best of 3; peak memory of generation; median time to probe one position from a
//! written, memory-mapped table.
//!
//! `cargo bench --bench kbnk`

use retro::solve::Solve;
use std::time::{Duration, Instant};

use retro::game::{Game, SolveOptions};
use retro::generate::write_solution;
use retro::kbnk::Kbnk;
use retro::present::GameText;
use retro::probe::probe;
use retro::progress::Silent;
use retro::table::Table;

mod util;
use util::{cpu_seconds, peak_mib};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let g = Kbnk::new();
    let opts = SolveOptions { progress: &Silent };
    println!("kbnk: {} records", g.size());
    println!(
        "peak memory before generation: {:.1} MiB",
        peak_mib().unwrap_or(0.0)
    );

    let mut solution = None;
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()?;
        let mut best = Duration::MAX;
        let mut cpu = f64::MAX;
        for _ in 0..3 {
            let c = cpu_seconds();
            let t = Instant::now();
            let sol = pool.install(|| g.solve(&opts))?;
            best = best.min(t.elapsed());
            cpu = cpu.min(cpu_seconds() - c);
            solution = Some(sol);
        }
        println!(
            "generate (fast solver), {threads} thread(s): best of 3 {:.3} s wall, {cpu:.2} s CPU",
            best.as_secs_f64()
        );
    }
    println!(
        "peak memory after generation (VmHWM): {:.1} MiB",
        peak_mib().unwrap_or(0.0)
    );
    let sol = solution.ok_or("no solution")?;
    if let Ok(l) = std::fs::read_to_string("/proc/loadavg") {
        println!("load average during the run: {}", l.trim());
    }

    if std::env::args().any(|a| a == "--generic") {
        let t = Instant::now();
        let generic = retro::solve::two_queue::solve(&g, &opts)?;
        println!(
            "generate (generic two-queue solver), default pool: {:.3} s, identical: {}",
            t.elapsed().as_secs_f64(),
            generic == sol
        );
    }

    let dir = tempfile::tempdir()?;
    let (path, _) = write_solution(&g, dir.path(), &sol)?;
    drop(sol);
    let table = Table::open(&path)?;

    // Random legal positions, both sides, both bishop colours.
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut positions = Vec::new();
    while positions.len() < 100_000 {
        let r = next();
        // A random slot of either section, mirrored half of the time (dark bishops).
        let i = r % g.size();
        if let Some(p) = g.decode(i) {
            positions.push(if (r >> 40) & 1 == 0 {
                p
            } else {
                g.images(&p)[1]
            });
        }
    }
    let mut times = Vec::with_capacity(positions.len());
    let mut sink = 0usize;
    for p in &positions {
        let t = Instant::now();
        let probed = probe(&g, &table, p);
        times.push(t.elapsed());
        sink += probed.moves.len();
    }
    times.sort();
    let median = times[times.len() / 2];
    println!(
        "probe (value, best move, every move), {} random positions: median {:.2} µs, p99 {:.2} µs ({sink} moves)",
        times.len(),
        median.as_secs_f64() * 1e6,
        times[times.len() * 99 / 100].as_secs_f64() * 1e6
    );
    let mut ptimes = Vec::with_capacity(10_000);
    for p in positions.iter().take(10_000) {
        let t = Instant::now();
        let probed = probe(&g, &table, p);
        let json = g.present(p, &probed).json();
        ptimes.push(t.elapsed());
        sink += json.len();
    }
    ptimes.sort();
    println!(
        "probe + JSON answer, 10000 positions: median {:.2} µs (sink {sink})",
        ptimes[ptimes.len() / 2].as_secs_f64() * 1e6
    );
    println!(
        "peak memory at the end (VmHWM, includes the mapped table): {:.1} MiB",
        peak_mib().unwrap_or(0.0)
    );
    Ok(())
}
