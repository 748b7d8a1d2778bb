//! Chess benchmark, the figures of the performance table (README and docs/performance.md):
//!
//! - every 3- and 4-piece table, pawns included (`retro generate chess --all 4`), wall and
//!   CPU time on the default pool, and beside it Syzygy's generator solving the same 35
//!   materials (`rtbgen -t 2 -g`, when `RTBGEN` is set as below) with the ratios;
//! - KBNvK through the chess plug-in (its bitboard solver for pieces against a bare king)
//!   next to the dedicated `kbnk` solver, in one run, and their ratio; and through the
//!   generic two-queue solver;
//! - the DTZ50 tables of the same 35 materials (`--metric dtz`), wall and CPU time against
//!   the DTM set's, and per material, best of 3 in one run, a DTZ table's generation time
//!   against its DTM table's (the target: at most 1.5 times): the 15 tables with
//!   pieces on both sides (the one-byte solver, by tiers with pawns), KBNvK (DTZ is DTM)
//!   and the 13 tables of pieces against a bare king whose DTZ is not their DTM (the
//!   bitboard solver counting DTZ);
//! - the one-byte solver against the two-queue solver it replaced, on KQvKR, KRvKP and
//!   KPvKP (solve and best moves, best of 3 each, in one run);
//! - with `-- --five [MATERIALS]`: the 5-piece tables KQRvKR, KRBvKR, KBNvKN and KRPvKR
//!   (or those named), each in its
//!   own `retro generate` process (its sub-tables made first, not timed), with the peak
//!   memory of that process and its peak anonymous memory (resident less the mapped
//!   sub-table files), and beside each, in the same run, Syzygy's generator solving the
//!   same table (`rtbgen -t 2 -g`, `rtbgenp` with pawns: solve only, no files) with the
//!   ratios (the peer's own 5-piece sub-tables made first by full runs, not timed: with
//!   `RETRO_SYZYGY5=<folder>` they are kept there for the next run). The generator is GPL and not part of retro: build it outside the project (see
//!   [`RTBGEN_HELP`]) and point `RTBGEN` at its folder and `RTBPATH` at Syzygy's files of
//!   up to 4 pieces; without them that comparison alone is skipped, saying how to build it.
//!   Each table and its peer run three times (`--rounds N`), alternating, and the ratio
//!   given is the median of the three pairs'. Each is also compressed (`retro compress`),
//!   its size and time printed.
//!
//! `cargo bench --bench chess [-- --five [KQRvKR ...] [--rounds N]]`

use retro::solve::Solve;
use std::path::Path;
use std::time::Instant;

use retro::chess::material::Material;
use retro::chess::plan;
use retro::game::SolveOptions;
use retro::generate::generate;
use retro::progress::Silent;

mod util;
use util::{cpu_seconds, measure};

/// How to get the peer generator for the side-by-side figures.
const RTBGEN_HELP: &str =
    "Syzygy's generator (github.com/syzygy1/tb, GPL, built outside this project):
    git clone https://github.com/syzygy1/tb && cd tb/src
    sed -i 's/^FLAGS += -DUSE_ZSTD/#&/; s/^LDFLAGS += -lzstd/#&/' Makefile && make rtbgen rtbgenp
then run with RTBGEN=<that src folder> RTBPATH=<folder of the Syzygy files of 3 and 4 pieces>";

/// The peer generator, if `RTBGEN` names a folder with `rtbgen` and `rtbgenp` and
/// `RTBPATH` is set: (folder, Syzygy path).
fn rtbgen() -> Option<(std::path::PathBuf, String)> {
    let dir = std::path::PathBuf::from(std::env::var_os("RTBGEN")?);
    let path = std::env::var("RTBPATH").ok().filter(|p| !p.is_empty())?;
    (dir.join("rtbgen").is_file() && dir.join("rtbgenp").is_file()).then_some((dir, path))
}

/// Syzygy's generator on the same 35 materials as `--all 4` (`rtbgen -t 2 -g`, `rtbgenp`
/// with pawns, one process each, its sub-tables read from `RTBPATH`), beside retro's
/// figures for the set measured just before: the ratio the 15 s target is about.
fn all_four_beside_rtbgen(wall: f64, cpu: f64) -> Result<(), Box<dyn std::error::Error>> {
    let Some((bin, path)) = rtbgen() else {
        println!("rtbgen not found: the --all 4 comparison is skipped.\n{RTBGEN_HELP}");
        return Ok(());
    };
    let scratch = tempfile::tempdir()?;
    let (mut p_wall, mut p_cpu) = (0.0, 0.0);
    for m in plan::closure(&Material::all(4)) {
        let program = bin.join(if m.has_pawns() { "rtbgenp" } else { "rtbgen" });
        let name = m.to_string();
        let r = measure(
            &program,
            &["-t", "2", "-g", &name],
            scratch.path(),
            &[("RTBPATH", &path)],
        )?;
        p_wall += r.wall;
        p_cpu += r.cpu;
    }
    println!(
        "--all 4 beside rtbgen -t 2 -g on the same materials: rtbgen {p_wall:.1} s wall, {p_cpu:.1} s CPU; retro/rtbgen: wall {:.1}x, CPU {:.1}x (load average after: {})",
        wall / p_wall,
        cpu / p_cpu,
        load()
    );
    Ok(())
}

/// The 5-piece tables, each in its own process, beside Syzygy's generator when present:
/// `rounds` times each, alternating (ours, then the peer's, and again), so that each pair
/// meets the host in the same state. The host is shared and its speed moves by a tenth
/// within minutes, our memory-bound solve more than the peer's: the ratio given is the
/// median of the pairs', each pair printed too.
fn five(dir: &Path, names: &[String], rounds: usize) -> Result<(), Box<dyn std::error::Error>> {
    let exe = Path::new(env!("CARGO_BIN_EXE_retro"));
    let peer = rtbgen();
    if peer.is_none() {
        println!("rtbgen not found: the side-by-side comparison is skipped.\n{RTBGEN_HELP}");
    }
    // The peer reads a table's 5-piece sub-tables from Syzygy files: every 5-piece table
    // its captures and promotions lead to, recursively (KRPvKR's are pawnless; KRPvKP's
    // include KRPvKQ and the others with a pawn), made here by full `rtbgen` and `rtbgenp`
    // runs (not timed), into a folder put first on its path: `RETRO_SYZYGY5` if set (kept,
    // so a later run finds them made), a temporary one otherwise.
    let kept = std::env::var_os("RETRO_SYZYGY5").map(std::path::PathBuf::from);
    let scratch = tempfile::tempdir()?;
    let syzygy5 = kept.as_deref().unwrap_or(scratch.path());
    std::fs::create_dir_all(syzygy5)?;
    for name in names.iter().map(String::as_str) {
        let m = Material::parse(name)?;
        let children: Vec<Material> = m.children();
        generate_all(dir, &children)?;
        let pawns = m.has_pawns();
        let peer_name = if pawns { "rtbgenp" } else { "rtbgen" };
        // The peer's program and path, its sub-tables made first (not timed).
        let peer_run = match &peer {
            Some((bin, path)) => {
                let path = format!("{}:{path}", syzygy5.display());
                for sub in plan::closure(&children).iter().filter(|c| c.count() == 5) {
                    let s = sub.to_string();
                    // Both files there (a run killed between them left one).
                    let made = ["rtbw", "rtbz"].map(|e| syzygy5.join(format!("{s}.{e}")).exists());
                    if made != [true, true] {
                        let program = if sub.has_pawns() { "rtbgenp" } else { "rtbgen" };
                        let t = Instant::now();
                        measure(
                            &bin.join(program),
                            &["-t", "2", &s],
                            syzygy5,
                            &[("RTBPATH", &path)],
                        )?;
                        println!(
                            "{program} {s}: its files made in {:.1} s",
                            t.elapsed().as_secs_f64()
                        );
                    }
                }
                Some((bin.join(peer_name), path))
            }
            None => None,
        };
        let dir_s = dir.to_string_lossy().into_owned();
        let file = retro::table::table_path(dir, name);
        let mut ratios = Vec::new();
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for round in 1..=rounds {
            // The table of the round before is removed: `generate` skips a table present.
            if file.exists() {
                std::fs::remove_file(&file)?;
            }
            let r = measure(exe, &["generate", "chess", name, "--out", &dir_s], dir, &[])?;
            let slots = retro::GAMES.open(dir, name)?.table.header().records() as f64;
            println!(
                "{name} round {round}/{rounds}: retro {:.1} s wall, {:.1} s CPU, peak {:.2} GiB, anonymous {:.0} MiB = {:.2} bytes a slot (load average after: {})",
                r.wall,
                r.cpu,
                r.peak_mib / 1024.0,
                r.peak_anon_mib,
                r.peak_anon_mib * 1048576.0 / slots,
                load()
            );
            ours.push(r);
            let Some((program, full_path)) = &peer_run else {
                continue;
            };
            let p = measure(
                program,
                &["-t", "2", "-g", name],
                syzygy5,
                &[("RTBPATH", full_path)],
            )?;
            let r = ours.last().expect("pushed above");
            println!(
                "{name} round {round}/{rounds}: {peer_name} -t 2 -g {:.1} s wall, {:.1} s CPU, peak {:.0} MiB; retro/{peer_name}: CPU {:.2}x, wall {:.2}x, peak {:.1}x, anonymous peak {:.1}x (load average after: {})",
                p.wall,
                p.cpu,
                p.peak_mib,
                r.cpu / p.cpu,
                r.wall / p.wall,
                r.peak_mib / p.peak_mib,
                r.peak_anon_mib / p.peak_anon_mib,
                load()
            );
            ratios.push(r.cpu / p.cpu);
            theirs.push(p);
        }
        let cpu = |v: &[util::Measured]| v.iter().map(|m| m.cpu).collect::<Vec<f64>>();
        let peak = ours.iter().map(|m| m.peak_anon_mib).fold(0.0, f64::max);
        println!(
            "{name}: retro {} s CPU (median {:.1}), anonymous peak {peak:.0} MiB at most",
            list(&cpu(&ours)),
            median(&cpu(&ours))
        );
        if !ratios.is_empty() {
            println!(
                "{name}: {peer_name} {} s CPU (median {:.1}); retro/{peer_name} CPU by round {}: median {:.2}x",
                list(&cpu(&theirs)),
                median(&cpu(&theirs)),
                list(&ratios),
                median(&ratios)
            );
        }
        // Its compressed form (`retro compress`): size and time beside generation's.
        let c = measure(exe, &["compress", &file.to_string_lossy()], dir, &[])?;
        let small = file.with_extension(retro::table::compressed::EXTENSION);
        let (dense_bytes, bytes) = (
            std::fs::metadata(&file)?.len(),
            std::fs::metadata(&small)?.len(),
        );
        println!(
            "{name}: compressed {dense_bytes} -> {bytes} bytes (1/{:.1}) in {:.1} s wall, {:.1} s CPU ({:.2} of generation's median CPU)",
            dense_bytes as f64 / bytes as f64,
            c.wall,
            c.cpu,
            c.cpu / median(&cpu(&ours))
        );
        std::fs::remove_file(&small)?;
        std::fs::remove_file(&file)?;
    }
    Ok(())
}

/// The median of `v` (not empty): the middle value, or the mean of the two middle ones.
fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let k = s.len() / 2;
    if s.len() % 2 == 1 {
        s[k]
    } else {
        (s[k - 1] + s[k]) / 2.0
    }
}

/// `v` as "a, b and c", to two decimals below 10, one above.
fn list(v: &[f64]) -> String {
    let f: Vec<String> = v
        .iter()
        .map(|x| {
            if *x < 10.0 {
                format!("{x:.2}")
            } else {
                format!("{x:.1}")
            }
        })
        .collect();
    match f.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => f.join(""),
    }
}

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
        let p = retro::GAMES.plugin_in(&m.to_string(), dir)?;
        generate(&*p, dir, &Silent)?;
    }
    Ok(order.len())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let five_args = five_args()?;
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

    let dtm_wall = t.elapsed().as_secs_f64();
    let dtm_cpu = cpu_seconds() - c;
    all_four_beside_rtbgen(dtm_wall, dtm_cpu)?;
    let (c, t) = (cpu_seconds(), Instant::now());
    for m in plan::closure(&Material::all(4)) {
        let p = retro::GAMES.plugin_in(&format!("{m}.dtz"), dir.path())?;
        generate(&*p, dir.path(), &Silent)?;
    }
    println!(
        "--all 4 --metric dtz: {n} DTZ tables in {:.1} s wall, {:.1} s CPU, {:.2} times the DTM set's wall time",
        t.elapsed().as_secs_f64(),
        cpu_seconds() - c,
        t.elapsed().as_secs_f64() / dtm_wall
    );
    for m in [
        "KQvKQ", "KQvKR", "KQvKB", "KQvKN", "KQvKP", "KRvKR", "KRvKB", "KRvKN", "KRvKP", "KBvKB",
        "KBvKN", "KBvKP", "KNvKN", "KNvKP", "KPvKP", "KBNvK", "KPvK", "KQQvK", "KQRvK", "KQBvK",
        "KQNvK", "KQPvK", "KRRvK", "KRBvK", "KRNvK", "KRPvK", "KBPvK", "KNPvK", "KPPvK",
    ] {
        let best = |name: &str| -> Result<f64, Box<dyn std::error::Error>> {
            let p = retro::GAMES.plugin_in(name, dir.path())?;
            let mut best = f64::MAX;
            for _ in 0..3 {
                let t = Instant::now();
                generate(&*p, dir.path(), &Silent)?;
                best = best.min(t.elapsed().as_secs_f64());
            }
            Ok(best)
        };
        let (dtm, dtz) = (best(m)?, best(&format!("{m}.dtz"))?);
        println!(
            "{m}: DTM {dtm:.3} s, DTZ {dtz:.3} s (solve and write, best of 3): DTZ/DTM {:.2}{} (load average after: {})",
            dtz / dtm,
            if dtz / dtm <= 1.5 {
                ""
            } else {
                " (over the 1.5 target)"
            },
            load()
        );
    }

    // KBNvK, generic path (its sub-tables are already there) against the kbnk solver.
    let opts = SolveOptions { progress: &Silent };
    let kbnvk = retro::GAMES.plugin_in("KBNvK", dir.path())?;
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

    // The one-byte solver (what `generate` runs) against the two-queue solver it replaced
    // for these tables, solving only, in this run.
    for name in ["KQvKR", "KRvKP", "KPvKP"] {
        let chess = retro::chess::Chess::open(&Material::parse(name)?, dir.path())?;
        let (mut one, mut two) = (f64::MAX, f64::MAX);
        for _ in 0..3 {
            let t = Instant::now();
            chess.solve(&opts)?;
            one = one.min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            retro::solve::two_queue::solve(&chess, &opts)?;
            two = two.min(t.elapsed().as_secs_f64());
        }
        println!(
            "{name} solve and best moves, best of 3: one-byte solver {one:.3} s, two-queue solver {two:.3} s, ratio {:.2} (load average after: {})",
            one / two,
            load()
        );
    }

    if let Some(f) = five_args {
        five(dir.path(), &f.names, f.rounds)?;
    }
    Ok(())
}

/// What `-- --five [MATERIALS...] [--rounds N]` asks for.
struct FiveArgs {
    /// The 5-piece tables named (default: all four).
    names: Vec<String>,
    /// Each table with its peer this many times, alternating (default 3).
    rounds: usize,
}

/// The `--five` arguments, if given: read before anything runs, so that a mistyped one is
/// said at once, not after the other tables.
fn five_args() -> Result<Option<FiveArgs>, Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let Some(k) = args.iter().position(|a| a == "--five") else {
        return Ok(None);
    };
    let mut names: Vec<String> = args[k + 1..]
        .iter()
        .take_while(|a| !a.starts_with('-'))
        .cloned()
        .collect();
    if names.is_empty() {
        names = ["KQRvKR", "KRBvKR", "KBNvKN", "KRPvKR"]
            .map(String::from)
            .to_vec();
    }
    for name in &names {
        Material::parse(name)?;
    }
    let rounds = match args.iter().position(|a| a == "--rounds") {
        Some(r) => args
            .get(r + 1)
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n >= 1)
            .ok_or("--rounds takes a count of at least 1")?,
        None => 3,
    };
    Ok(Some(FiveArgs { names, rounds }))
}
