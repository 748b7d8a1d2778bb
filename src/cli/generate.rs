//! `retro generate`: solve a table and write it, or a chess table set with its
//! sub-tables, in dependency order.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::Args;

use retro::generate::{generate, with_threads};
use retro::progress::Bar;
use retro::summary;

use crate::cli;

#[derive(Args)]
pub struct GenerateArgs {
    /// A table's name (`kbnk`, `mnk-4x3-3`, `KQvKR`, `KQvKR.dtz`), or a game: `mnk` with
    /// its parameters as flags (`--width 4 --height 3 --k 3`), or `chess` with a material or
    /// `--all N`.
    pub game: String,
    /// Chess: the material, white's pieces then black's, kings included (`KQvKR`, `KPvK`),
    /// or a DTZ table's name (`KQvKR.dtz`, as `--metric dtz`). Missing sub-tables are
    /// generated first.
    pub material: Option<String>,
    /// Chess: every table with up to N pieces (3, 4 or 5), pawns included. Tables already
    /// present and intact are skipped, so an interrupted run resumes.
    #[arg(long, value_name = "N")]
    pub all: Option<usize>,
    /// Board width (mnk).
    #[arg(long)]
    pub width: Option<u32>,
    /// Board height (mnk).
    #[arg(long)]
    pub height: Option<u32>,
    /// Stones in a row needed to win (mnk).
    #[arg(long)]
    pub k: Option<u32>,
    /// Output folder.
    #[arg(long, default_value = "tables")]
    pub out: PathBuf,
    /// Worker threads (default: one per core). The table is identical whatever the count.
    #[arg(long, value_parser = cli::threads)]
    pub threads: Option<usize>,
    /// Chess: the memory this run may use (`4G`, `512M`, bytes); a table whose estimated
    /// peak is larger is refused before anything is written. Default: the memory available
    /// now (`MemAvailable` in /proc/meminfo).
    #[arg(long, value_name = "SIZE", value_parser = cli::size)]
    pub max_memory: Option<u64>,
    /// Also write each table made in compressed form (.rtbc) beside it.
    #[arg(long)]
    pub compress: bool,
    /// Chess: which metric to make. `dtm`: distance to mate with the best move
    /// (`KQvKR.rtb`); `dtz`: distance to zeroing under the 50-move rule, as Syzygy counts
    /// it (`KQvKR.dtz.rtb`, made from the sub-tables' DTZ tables); `both`.
    #[arg(long, value_enum, default_value = "dtm")]
    pub metric: cli::plan::MetricArg,
}

/// The table a `generate` invocation means: a table's name, or a family's id with its
/// parameters as flags (`mnk --width 4 --height 3 --k 3`).
fn table_name(a: &GenerateArgs) -> Result<String> {
    let flags: Vec<(&str, i64)> = [("width", a.width), ("height", a.height), ("k", a.k)]
        .into_iter()
        .filter_map(|(p, v)| v.map(|v| (p, v as i64)))
        .collect();
    if let Some(family) = retro::GAMES.family(&a.game) {
        return family.name_of(&flags).map_err(anyhow::Error::msg);
    }
    if let Some((p, _)) = flags.first() {
        bail!(
            "--{p} is a parameter of a game, not of the table '{}'",
            a.game
        );
    }
    Ok(a.game.clone())
}

pub fn run(a: GenerateArgs) -> Result<bool> {
    // Chess: a material set, by `chess MATERIAL`, `chess --all N`, or a material's name.
    let chess = retro::GAMES
        .family_of(&a.game)
        .is_some_and(|f| f.id() == "chess");
    if a.game == "chess" || (chess && a.material.is_none()) {
        return run_chess(&a);
    }
    if a.material.is_some() || a.all.is_some() || a.max_memory.is_some() {
        bail!(
            "a material, --all and --max-memory are for chess, not '{}'",
            a.game
        );
    }
    if a.metric != cli::plan::MetricArg::Dtm {
        bail!(
            "--metric is for chess; '{}' has distance to the end only",
            a.game
        );
    }
    generate_one(&table_name(&a)?, &a.out, a.threads, a.compress)
}

/// Chess: the requested tables and every missing sub-table, in dependency order.
fn run_chess(a: &GenerateArgs) -> Result<bool> {
    use retro::chess::set;
    if a.width.is_some() || a.height.is_some() || a.k.is_some() {
        bail!("--width, --height and --k are for mnk, not chess");
    }
    // The material is the second word after `chess`, or the table name itself.
    let named = (a.game != "chess").then(|| a.game.clone());
    // A DTZ table's name (`KQvKR.dtz`, as `retro plan` lists it) says its metric.
    let mut metric = a.metric;
    let materials: Vec<String> = a
        .material
        .iter()
        .chain(&named)
        .map(
            |m| match m.strip_suffix(retro::chess::subtables::DTZ_SUFFIX) {
                Some(base) if metric == cli::plan::MetricArg::Dtm => {
                    metric = cli::plan::MetricArg::Dtz;
                    Ok(base.to_string())
                }
                Some(_) => bail!("{m} names a DTZ table: leave out --metric"),
                None => Ok(m.clone()),
            },
        )
        .collect::<Result<_>>()?;
    let targets = cli::plan::targets(&materials, a.all)?;
    if a.compress && metric != cli::plan::MetricArg::Dtm {
        bail!("--compress is for DTM tables: DTZ tables are not compressed yet");
    }
    let memory = match a.max_memory {
        Some(n) => Some((n, "--max-memory")),
        None => retro::memory::available().map(|n| (n, "MemAvailable")),
    };
    // Which tables are missing, and whether they fit, before anything is written: a
    // damaged table in the way, or tables too big for this machine's memory or disk, stop
    // the run at once.
    let disk = retro::disk::available(&a.out);
    let set = set::plan(&targets, metric.metrics(), &a.out, memory, disk)?;
    let total = set.order.len();
    let start = std::time::Instant::now();
    let (mut made, mut skipped) = (0, 0);
    for (i, entry) in set.order.iter().enumerate() {
        let name = set::name(entry);
        if !set.to_make(entry, &a.out) {
            eprintln!("[{}/{total}] {name}: present, skipped", i + 1);
            skipped += 1;
            continue;
        }
        // What it will take, said before a solve that may run for half an hour.
        let cost = retro::chess::plan::estimate(&entry.0, entry.1);
        eprintln!(
            "[{}/{total}] {name}: {} positions, about {} of memory, a {} file",
            i + 1,
            cost.positions,
            retro::memory::Bytes(cost.memory_bytes),
            retro::memory::Bytes(cost.file_bytes)
        );
        generate_one(&name, &a.out, a.threads, a.compress)?;
        made += 1;
    }
    eprintln!(
        "chess: {made} tables generated, {skipped} already present, in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    Ok(true)
}

/// Generate one table and print its summary; with `compress`, its compressed form too.
fn generate_one(
    name: &str,
    out: &std::path::Path,
    threads: Option<usize>,
    compress: bool,
) -> Result<bool> {
    let plugin = retro::GAMES.plugin_in(name, out)?;
    eprintln!("generating {} ({})", plugin.name(), plugin.title());
    let bar = Bar::new();
    let done = with_threads(threads, || generate(&*plugin, out, &bar))??;
    bar.finish();
    for t in &done.removed_temps {
        eprintln!(
            "removed {}, left by an interrupted run of this table",
            t.display()
        );
    }
    let unit = plugin.distance_unit();
    let stats = summary::stats(&done.header, unit);
    out!("{}", summary::render(&stats, unit))?;
    let legal: u64 = stats.iter().map(|s| s.legal).sum();
    // Its checksums were computed from the very bytes written: reading the whole file back
    // to check them again would double the writing's cost (the records went past the
    // page cache, so every byte would come back from the disk).
    let table = retro::table::Table::open_unverified(&done.path)?;
    for line in plugin.summary_lines(&table) {
        outln!("{line}")?;
    }
    outln!(
        "solved {legal} positions in {:.2} s ({:.1} million positions/s); wrote {} ({} bytes) in {:.2} s total",
        done.solve_seconds,
        legal as f64 / done.solve_seconds.max(1e-9) / 1e6,
        done.path.display(),
        table.file_len(),
        done.total_seconds
    )?;
    if compress {
        cli::compress::compress_one(&done.path, threads, None)?;
    }
    Ok(true)
}
