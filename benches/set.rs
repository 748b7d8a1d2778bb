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
//! materials listed: `4` lists the 3-4 piece ones instead.

use std::path::{Path, PathBuf};

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

fn main() {
    let dir = PathBuf::from(std::env::var("RETRO_SET").unwrap_or_else(|_| "tables".into()));
    let listed: usize = std::env::var("RETRO_SET_PIECES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let mut failures = Vec::new();
    // Per group (pieces, metric): files and bytes.
    let mut totals = std::collections::BTreeMap::<(usize, &str), (usize, u64, u64)>::new();
    let mut longest_mate = (0u16, String::new());
    let mut longest_pawnless = (0u16, String::new());
    println!("| material | positions (white, black to move) | white to move: win / draw / loss | black to move: win / draw / loss | longest mate | longest DTZ50 | cursed wins | blessed losses | DTM file | DTZ file |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for m in Material::all(5) {
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
        let shown = if listed <= 4 {
            pieces <= 4
        } else {
            pieces == 5
        };
        if !shown {
            continue;
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
    for ((pieces, metric), (n, bytes, dense)) in &totals {
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
    println!(
        "longest mate: {} plies ({}); pawnless: {} plies ({})",
        longest_mate.0, longest_mate.1, longest_pawnless.0, longest_pawnless.1
    );
    // Published longest mates (distance to mate in plies).
    if longest_pawnless != (213, "KBNvKN".to_string()) {
        failures.push(format!(
            "the longest pawnless mate is 213 plies (KBNvKN), not {longest_pawnless:?}"
        ));
    }
    if longest_mate != (254, "KPPvKP".to_string()) {
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
