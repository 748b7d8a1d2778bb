//! A whole chess set's statistics, per material, from its tables' headers, and the
//! published facts they must hold.
//!
//! `RETRO_SET=DIR cargo bench --bench set` reads every table of up to 5 pieces in DIR
//! (dense or compressed, DTM and DTZ: what `retro generate chess --all 5 --metric both
//! --compress --out DIR` leaves) and prints, per 5-piece material, a Markdown row:
//! positions per side to move, wins / draws / losses for white to move and for black to
//! move (DTM, no 50-move rule), the longest mate (plies), the longest DTZ50 (plies), cursed
//! wins and blessed losses (DTZ beyond 100 plies, both sides), and the two files' sizes;
//! then the totals of each group of tables (3-4 pieces, 5 pieces, by metric). It then
//! checks the published longest mates (213 plies pawnless, KBNvKN; 254 overall, KPPvKP)
//! and exits 1 if one differs or a table is missing. RETRO_SET_PIECES (5) picks the
//! materials listed: `4` lists the 3-4 piece ones instead. RETRO_SET_MATERIALS
//! (`KRRvK,KRRvKRR`) lists only those, of any size, without the set's totals and checks.
//!
//! With `RETRO_RTBGEN=DIR` (a folder holding Syzygy's generator, `rtbgen` and `rtbgenp`,
//! built by the user: it is GPL and not part of retro), every listed material is also
//! solved by `rtbgen -s -g` (`rtbgenp` with pawns), whose statistics (positions per
//! distance to zeroing, per side to move: wins, cursed wins, draws, blessed and plain
//! losses) must equal the DTZ table's histograms, count for count (with like pieces, as
//! rtbgen counts them: once per order of the like pieces, see [`rtbgen_like_counts`]).
//! Syzygy's generator reads its own files of the sub-tables from `RTBPATH`: a material
//! whose sub-tables are not there is listed as not checked (not a failure); a difference is
//! a failure.
//!
//! With `RETRO_SET_MAKE=N` (3, 4 or 5), the set is first made into DIR by `retro generate
//! chess --all N --metric both --compress --out DIR`, and the bench reports the run: wall
//! time, CPU time (every process it started), the peak of DIR's size on disk (sampled five
//! times a second, temporary files included) and the run's peak resident memory. With
//! `RETRO_SET_KILL_AT=S` as well, the run is killed (SIGKILL) after S seconds and started
//! again; before it goes on, every file under a final name must open whole (checksums and
//! all), and the times add up over both runs. DIR should be empty for the run's figures to
//! be the whole set's.

mod util;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use retro::chess::material::Material;
use retro::game::Value;
use retro::table::metric::longest;
use retro::table::{Metric, Table};

/// The table file of `name` in `dir`, either form.
fn file(dir: &Path, name: &str) -> PathBuf {
    retro::table::table_path(dir, name)
}

/// Wins, draws and losses of each section (DTM), legal positions only.
fn wdl(t: &Table) -> Vec<[u64; 3]> {
    let m = t.metric();
    (t.header().sections.iter())
        .map(|s| {
            let mut c = [0u64; 3];
            for (code, &n) in s.histogram.iter().enumerate() {
                match m.from_code(code) {
                    Some(Value::Win(_)) => c[0] += n,
                    Some(Value::Draw) => c[1] += n,
                    Some(Value::Loss(_)) => c[2] += n,
                    _ => {}
                }
            }
            c
        })
        .collect()
}

/// The longest win or loss over every section, in plies.
fn deepest(t: &Table) -> u16 {
    (t.header().sections.iter())
        .filter_map(|s| longest(&s.histogram, t.metric()))
        .map(|(_, p)| p)
        .max()
        .unwrap_or(0)
}

/// DTZ wins and losses beyond the 50-move rule's 100 plies: cursed wins, blessed losses.
fn beyond_fifty(t: &Table) -> (u64, u64) {
    let mut out = (0, 0);
    for s in &t.header().sections {
        for (code, &n) in s.histogram.iter().enumerate() {
            match Metric::Dtz.from_code(code) {
                Some(Value::Win(p)) if p > 100 => out.0 += n,
                Some(Value::Loss(p)) if p > 100 => out.1 += n,
                _ => {}
            }
        }
    }
    out
}

/// Counts per (white to move, outcome, plies) from a DTZ table's histograms.
type Counts = std::collections::BTreeMap<(bool, Outcome, u16), u64>;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Loss,
    Draw,
    Win,
}

/// `v` as a key: draws at 0 plies.
fn key(white: bool, v: Value) -> Option<(bool, Outcome, u16)> {
    match v {
        Value::Win(p) => Some((white, Outcome::Win, p)),
        Value::Draw => Some((white, Outcome::Draw, 0)),
        Value::Loss(p) => Some((white, Outcome::Loss, p)),
        _ => None,
    }
}

fn dtz_counts(t: &Table) -> Counts {
    let mut out = Counts::new();
    for (k, s) in t.header().sections.iter().enumerate() {
        for (code, &n) in s.histogram.iter().enumerate() {
            if let Some(k) = Metric::Dtz.from_code(code).and_then(|v| key(k == 0, v)) {
                if n > 0 {
                    *out.entry(k).or_default() += n;
                }
            }
        }
    }
    out
}

/// The statistics `rtbgen -s` writes to `NAME.txt`: "White to move:" / "Black to move:"
/// sections of "N positions win in P ply." and "N positions lose in P ply." lines, and
/// "N positions are draws.".
fn rtbgen_counts(text: &str) -> Counts {
    let mut out = Counts::new();
    let mut white = true;
    for line in text.lines() {
        if line.starts_with("White to move") {
            white = true;
        } else if line.starts_with("Black to move") {
            white = false;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let number = |i: usize| words.get(i).and_then(|w| w.parse::<u64>().ok());
        let value = match words.as_slice() {
            [_, "positions", "win", "in", _, "ply."] => number(4).map(|p| Value::Win(p as u16)),
            [_, "positions", "lose", "in", _, "ply."] => number(4).map(|p| Value::Loss(p as u16)),
            [_, "positions", "are", "draws."] => Some(Value::Draw),
            _ => None,
        };
        if let (Some(k), Some(n)) = (value.and_then(|v| key(white, v)), number(0)) {
            if n > 0 {
                *out.entry(k).or_default() += n;
            }
        }
    }
    out
}

/// `Some(Ok(counts compared))`, `Some(Err(difference))`, or `None` with why it was not run.
fn rtbgen_check(
    bin: &Path,
    m: &Material,
    dtz: &Table,
    dir: &Path,
) -> Result<Result<usize, String>, String> {
    let name = m.to_string();
    let program = bin.join(if m.has_pawns() { "rtbgenp" } else { "rtbgen" });
    let tmp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let out = std::process::Command::new(&program)
        .args(["-t", &threads.to_string(), "-s", "-g", &name])
        .current_dir(tmp.path())
        .output()
        .map_err(|e| format!("{}: {e}", program.display()))?;
    let text = std::fs::read_to_string(tmp.path().join(format!("{name}.txt")));
    let text = match (out.status.success(), text) {
        (true, Ok(t)) => t,
        _ => {
            let why = String::from_utf8_lossy(&out.stdout)
                .lines()
                .chain(String::from_utf8_lossy(&out.stderr).lines())
                .last()
                .unwrap_or("")
                .to_string();
            return Err(format!("rtbgen did not run ({why})"));
        }
    };
    let ours = if retro::chess::indexing::index::Layout::new(m).twins() {
        rtbgen_like_counts(m, dtz, dir)?
    } else {
        dtz_counts(dtz)
    };
    let theirs = rtbgen_counts(&text);
    if ours == theirs {
        return Ok(Ok(ours.len()));
    }
    let keys: std::collections::BTreeSet<_> = ours.keys().chain(theirs.keys()).collect();
    let first = keys
        .into_iter()
        .find(|k| ours.get(k) != theirs.get(k))
        .map(|k| {
            format!(
                "{} to move, {:?} in {} plies: retro {}, rtbgen {}",
                if k.0 { "white" } else { "black" },
                k.1,
                k.2,
                ours.get(k).copied().unwrap_or(0),
                theirs.get(k).copied().unwrap_or(0)
            )
        });
    Ok(Err(first.unwrap_or_default()))
}

/// What `rtbgen -s` counts for a material with like pieces (two white rooks), from its DTZ
/// table `dtz`, whose other tables are in `dir`. rtbgen numbers like pieces, so it counts a
/// position once per order of them (`orders`: 2 for a pair, 6 for three, 4 for two pairs),
/// up to the board's symmetries: the orders of a position are that many classes, but for a
/// position that is its own mirror image with like pieces changing places, which pairs its
/// orders up, half as many. A symmetry that keeps a position must keep both kings' squares:
/// the a1-h8 diagonal's mirror, with both kings on it, in the canonical orientation of a
/// pawnless table (a table with pawns has no such position). Those slots are few (a
/// twentieth of a section) and are read one by one.
fn rtbgen_like_counts(m: &Material, dtz: &Table, dir: &Path) -> Result<Counts, String> {
    use rayon::prelude::*;
    use retro::chess::indexing::index::{transform, Layout};
    let layout = Layout::new(m);
    let mut orders = 1u64;
    let mut k = 0;
    while k < layout.pieces.len() {
        let run = (layout.pieces[k..].iter())
            .take_while(|&&p| p == layout.pieces[k])
            .count();
        orders *= (1..=run as u64).product::<u64>();
        k += run;
    }
    let mut counts = dtz_counts(dtz);
    if m.has_pawns() {
        return Ok(counts.into_iter().map(|(k, n)| (k, n * orders)).collect());
    }
    retro::GAMES.complete(dtz, dir).map_err(|e| e.to_string())?;
    let on_diagonal = |s: u8| s & 7 == s >> 3;
    // Squares the diagonal's mirror turns into squares of the same pieces, and some piece
    // off the diagonal: a position it keeps, with like pieces changing places.
    let swapped = |sq: &[u8]| {
        let same = |a: usize, b: usize| layout.pieces[a] == layout.pieces[b];
        sq.iter().enumerate().all(|(a, &x)| {
            let y = transform(4, x);
            sq.iter().enumerate().any(|(b, &z)| z == y && same(a, b))
        }) && !sq.iter().all(|&x| on_diagonal(x))
    };
    let pairs: Vec<u64> = (0..layout.section / layout.pair_stride)
        .filter(|&n| {
            let (_, wk, bk, _) = layout.squares_of(n * layout.pair_stride).unwrap();
            on_diagonal(wk) && on_diagonal(bk)
        })
        .collect();
    let found: Vec<Result<Counts, String>> = (pairs.iter())
        .flat_map(|&n| [0, layout.section].map(|side| side + n * layout.pair_stride))
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|first| {
            let mut c = Counts::new();
            for i in first..first + layout.pair_stride {
                let (turn, _, _, sq) = layout.squares_of(i).unwrap();
                if !swapped(&sq[..layout.pieces.len()]) || layout.decode(i).is_none() {
                    continue;
                }
                let v = retro::table::damage::watch(|| dtz.value(i)).map_err(|e| e.to_string())?;
                let white = turn == retro::chess::material::Color::White;
                let k = key(white, v).ok_or_else(|| format!("slot {i} holds {v:?}"))?;
                *c.entry(k).or_default() += 1;
            }
            Ok(c)
        })
        .collect();
    let mut symmetric = Counts::new();
    for c in found {
        for (k, n) in c? {
            *symmetric.entry(k).or_default() += n;
        }
    }
    for (k, n) in counts.iter_mut() {
        let s = symmetric.get(k).copied().unwrap_or(0);
        *n = *n * orders - s * orders / 2;
    }
    Ok(counts)
}

/// Bytes of the files in `dir` now (temporary ones included), 0 if it is not there.
fn folder_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    (entries.filter_map(Result::ok))
        .filter_map(|e| e.metadata().ok())
        .filter(|m| m.is_file())
        .map(|m| m.len())
        .sum()
}

/// Make the set of up to `pieces` pieces into `dir` (see the module's notes), killing the
/// run once after `kill_at` if given; returns what to report, or why it failed.
fn make(dir: &Path, pieces: usize, kill_at: Option<Duration>) -> Result<String, String> {
    let args = [
        "generate",
        "chess",
        "--all",
        &pieces.to_string(),
        "--metric",
        "both",
        "--compress",
        "--out",
        dir.to_str().ok_or("the folder's name is not UTF-8")?,
    ];
    let start = Instant::now();
    let cpu_before = util::children_cpu_seconds();
    let (mut peak_disk, mut peak_mem) = (folder_bytes(dir), 0f64);
    let mut killed = None;
    loop {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
            .args(args)
            .stdout(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("retro generate: {e}"))?;
        let run = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
                break Some(status);
            }
            peak_disk = peak_disk.max(folder_bytes(dir));
            peak_mem = peak_mem.max(util::peak_mib_of(&child.id().to_string()).unwrap_or(0.0));
            if killed.is_none() && kill_at.is_some_and(|k| run.elapsed() >= k) {
                child.kill().map_err(|e| e.to_string())?;
                child.wait().map_err(|e| e.to_string())?;
                break None;
            }
            std::thread::sleep(Duration::from_millis(200));
        };
        match status {
            Some(s) if s.success() => break,
            Some(s) => return Err(format!("retro generate failed: {s}")),
            None => {
                // Killed: every file under a final name must open whole before going on.
                let files: Vec<PathBuf> = (std::fs::read_dir(dir).map_err(|e| e.to_string())?)
                    .filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| {
                        !p.file_name()
                            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
                    })
                    .collect();
                for f in &files {
                    Table::open(f)
                        .map_err(|e| format!("killed: {} is damaged: {e}", f.display()))?;
                }
                killed = Some((run.elapsed(), files.len()));
            }
        }
    }
    let killed = match killed {
        Some((at, n)) => format!(
            "; killed (SIGKILL) at {:.0} s and run again: the {n} files then under a final name all whole",
            at.as_secs_f64()
        ),
        None => String::new(),
    };
    Ok(format!(
        "made `--all {pieces} --metric both --compress` in {:.0} s wall, {:.0} s of CPU; peak on disk {:.2} GB; peak resident memory {:.2} GiB{killed}",
        start.elapsed().as_secs_f64(),
        util::children_cpu_seconds() - cpu_before,
        peak_disk as f64 / 1e9,
        peak_mem / 1024.0,
    ))
}

fn main() {
    let rtbgen = std::env::var_os("RETRO_RTBGEN").map(PathBuf::from);
    let mut unchecked = Vec::new();
    let mut checked = 0;
    let dir = PathBuf::from(std::env::var("RETRO_SET").unwrap_or_else(|_| "tables".into()));
    let listed: usize = std::env::var("RETRO_SET_PIECES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let mut failures = Vec::new();
    let made = match std::env::var("RETRO_SET_MAKE")
        .ok()
        .map(|v| v.parse::<usize>())
    {
        None => None,
        Some(Ok(n @ 3..=5)) => {
            let kill_at = (std::env::var("RETRO_SET_KILL_AT").ok())
                .map(|v| v.parse::<f64>().map(Duration::from_secs_f64))
                .transpose()
                .unwrap_or_else(|e| {
                    eprintln!("set: RETRO_SET_KILL_AT takes seconds: {e}");
                    std::process::exit(2)
                });
            match make(&dir, n, kill_at) {
                Ok(report) => Some(report),
                Err(why) => {
                    eprintln!("set: {why}");
                    std::process::exit(1);
                }
            }
        }
        Some(_) => {
            eprintln!("set: RETRO_SET_MAKE takes 3, 4 or 5");
            std::process::exit(2)
        }
    };
    // Per group (pieces, metric): files and bytes.
    let mut totals = std::collections::BTreeMap::<(usize, &str), (usize, u64, u64)>::new();
    let mut longest_mate = (0u16, String::new());
    let mut longest_pawnless = (0u16, String::new());
    println!("| material | positions (white, black to move) | white to move: win / draw / loss | black to move: win / draw / loss | longest mate | longest DTZ50 | cursed wins | blessed losses | DTM file | DTZ file |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    // RETRO_SET_MATERIALS: only these materials (any number of pieces), no set totals.
    let chosen: Option<Vec<Material>> = std::env::var("RETRO_SET_MATERIALS").ok().map(|v| {
        (v.split([',', ' ']).filter(|n| !n.is_empty()))
            .map(|n| {
                Material::parse(n).unwrap_or_else(|e| {
                    eprintln!("set: RETRO_SET_MATERIALS: {n}: {e}");
                    std::process::exit(2)
                })
            })
            .collect()
    });
    for m in chosen.clone().unwrap_or_else(|| Material::all(5)) {
        let pieces = m.count();
        let name = m.to_string();
        let open = |n: &str| {
            let path = file(&dir, n);
            Table::open_unverified(&path).map_err(|e| format!("{n}: {e}"))
        };
        let (dtm, dtz) = match (open(&name), open(&format!("{name}.dtz"))) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                failures.extend(a.err().into_iter().chain(b.err()));
                continue;
            }
        };
        for (t, metric) in [(&dtm, "DTM"), (&dtz, "DTZ")] {
            let e = totals.entry((pieces.clamp(4, 5), metric)).or_default();
            e.0 += 1;
            e.1 += t.file_len();
            e.2 += t.header().clone().file_len();
        }
        let mate = deepest(&dtm);
        if mate > longest_mate.0 {
            longest_mate = (mate, name.clone());
        }
        if !m.has_pawns() && mate > longest_pawnless.0 {
            longest_pawnless = (mate, name.clone());
        }
        let shown = if chosen.is_some() {
            true
        } else if listed <= 4 {
            pieces <= 4
        } else {
            pieces == 5
        };
        if !shown {
            continue;
        }
        if let Some(bin) = &rtbgen {
            match rtbgen_check(bin, &m, &dtz, &dir) {
                Ok(Ok(n)) => {
                    checked += 1;
                    eprintln!("{name}: rtbgen -s gives the same {n} counts");
                }
                Ok(Err(d)) => failures.push(format!("{name}: rtbgen -s differs: {d}")),
                Err(why) => unchecked.push(format!("{name}: {why}")),
            }
        }
        let c = wdl(&dtm);
        let (cursed, blessed) = beyond_fifty(&dtz);
        let side = |k: usize| format!("{} / {} / {}", c[k][0], c[k][1], c[k][2]);
        let legal = |k: usize| c[k].iter().sum::<u64>();
        println!(
            "| {name} | {}, {} | {} | {} | {mate} | {} | {cursed} | {blessed} | {} | {} |",
            legal(0),
            legal(1),
            side(0),
            side(1),
            deepest(&dtz),
            dtm.file_len(),
            dtz.file_len()
        );
    }
    println!();
    for ((pieces, metric), (n, bytes, dense)) in totals.iter().filter(|_| chosen.is_none()) {
        let group = if *pieces == 4 {
            "3-4 pieces"
        } else {
            "5 pieces"
        };
        println!(
            "{group}, {metric}: {n} tables, {bytes} bytes ({:.2} GB; dense {:.2} GB, 1/{:.1})",
            *bytes as f64 / 1e9,
            *dense as f64 / 1e9,
            *dense as f64 / (*bytes).max(1) as f64
        );
    }
    if let Some(report) = &made {
        println!("{report}");
    }
    println!(
        "longest mate: {} plies ({}); pawnless: {} plies ({})",
        longest_mate.0, longest_mate.1, longest_pawnless.0, longest_pawnless.1
    );
    if rtbgen.is_some() {
        println!(
            "rtbgen -s: {checked} materials with the same counts, {} not checked",
            unchecked.len()
        );
        for u in &unchecked {
            println!("  not checked: {u}");
        }
    }
    // Published longest mates (distance to mate in plies), over the whole set.
    if chosen.is_none() && longest_pawnless != (213, "KBNvKN".to_string()) {
        failures.push(format!(
            "the longest pawnless mate is 213 plies (KBNvKN), not {longest_pawnless:?}"
        ));
    }
    if chosen.is_none() && longest_mate != (254, "KPPvKP".to_string()) {
        failures.push(format!(
            "the longest mate is 254 plies (KPPvKP), not {longest_mate:?}"
        ));
    }
    if !failures.is_empty() {
        for f in &failures {
            eprintln!("set: {f}");
        }
        std::process::exit(1);
    }
}
