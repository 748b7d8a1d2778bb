//! Chess benchmark, the figures of the README's performance table:
//!
//! - every 3- and 4-piece table, pawns included (`retro generate chess --all 4`), wall and
//!   CPU time on the default pool;
//! - KBNvK through the chess plug-in (its bitboard solver for pieces against a bare king)
//!   next to the dedicated `kbnk` solver, in one run, and their ratio; and through the
//!   generic two-queue solver;
//! - with `-- --five`: the 5-piece tables KQRvKR, KRBvKR, KBNvKN and KRPvKR, each in its
//!   own `retro generate` process (its sub-tables made first, not timed), with the peak
//!   memory of that process.
//!
//! `cargo bench --bench chess [-- --five]`

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use retro::chess::material::Material;
use retro::chess::plan;
use retro::game::{Game, SolveOptions};
use retro::generate::generate;
use retro::progress::Silent;
use retro::registry;

mod util;
use util::cpu_seconds;

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Generate `materials` and their sub-tables into `dir`, in dependency order.
fn generate_all(dir: &Path, materials: &[Material]) -> Result<usize, Box<dyn std::error::Error>> {
    let order = plan::closure(materials);
    for m in &order {
        if plan::present(dir, m)? {
            continue;
        }
        let p = registry::plugin_in(&m.to_string(), dir)?;
        generate(&*p, dir, &Silent)?;
    }
    Ok(order.len())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("load average before: {}", load());
    let dir = tempfile::tempdir()?;

    let (c, t) = (cpu_seconds(), Instant::now());
    let n = generate_all(dir.path(), &Material::all(4))?;
    println!(
        "--all 4: {n} tables in {:.1} s wall, {:.1} s CPU (load average after: {})",
        t.elapsed().as_secs_f64(),
        cpu_seconds() - c,
        load()
    );

    // KBNvK, generic path (its sub-tables are already there) against the kbnk solver.
    let opts = SolveOptions { progress: &Silent };
    let kbnvk = registry::plugin_in("KBNvK", dir.path())?;
    let kbnk = retro::kbnk::Kbnk::new();
    // The same table through the generic two-queue solver, which the chess path replaces
    // for pieces against a bare king.
    let chess = retro::chess::Chess::open(&Material::parse("KBNvK")?, dir.path())?;
    let mut generic = f64::MAX;
    let mut fast = f64::MAX;
    let mut queues = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        kbnvk.solve(&opts)?;
        generic = generic.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        kbnk.solve(&opts)?;
        fast = fast.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        retro::solve::two_queue::solve(&chess, &opts)?;
        queues = queues.min(t.elapsed().as_secs_f64());
    }
    println!(
        "KBNvK solve, best of 3: chess plug-in {generic:.3} s, dedicated kbnk solver {fast:.3} s, ratio {:.1}; generic two-queue solver {queues:.3} s (load average after: {})",
        generic / fast,
        load()
    );

    if std::env::args().any(|a| a == "--five") {
        let exe = env!("CARGO_BIN_EXE_retro");
        for name in ["KQRvKR", "KRBvKR", "KBNvKN", "KRPvKR"] {
            let m = Material::parse(name)?;
            let children: Vec<Material> = m.children();
            generate_all(dir.path(), &children)?;
            let t = Instant::now();
            let out = Command::new("/usr/bin/time")
                .args(["-f", "%M %U %S", exe, "generate", "chess", name, "--out"])
                .arg(dir.path())
                .output()?;
            let wall = t.elapsed().as_secs_f64();
            let err = String::from_utf8_lossy(&out.stderr);
            let last = err.lines().last().unwrap_or("");
            let f: Vec<f64> = last
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            if !out.status.success() || f.len() != 3 {
                return Err(format!("{name}: {err}").into());
            }
            println!(
                "{name}: {wall:.1} s wall, {:.1} s CPU, peak {:.2} GiB (load average after: {})",
                f[1] + f[2],
                f[0] / 1024.0 / 1024.0,
                load()
            );
            std::fs::remove_file(registry::table_path(dir.path(), name))?;
        }
    }
    Ok(())
}
