//! `retro generate`: solve a table and write it, or a chess table set with its
//! sub-tables, in dependency order.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::Args;

use retro::chess::set as chess_set;
use retro::generate::set::{self, Event, Report};
use retro::generate::Generated;
use retro::progress::Bar;
use retro::summary;

use crate::cli;

/// The most cells of a k-in-a-row board: the longest side a flag may give.
const MNK_CELLS: u32 = 20;

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
    /// present are skipped, so an interrupted run resumes (those a table still to make reads
    /// are checked through first).
    #[arg(long, value_name = "N", value_parser = cli::plan::set_pieces)]
    pub all: Option<usize>,
    /// Board width (mnk), 1 to 20 (the board has at most 20 cells).
    #[arg(long, value_parser = cli::whole(1u32, MNK_CELLS))]
    pub width: Option<u32>,
    /// Board height (mnk), 1 to 20.
    #[arg(long, value_parser = cli::whole(1u32, MNK_CELLS))]
    pub height: Option<u32>,
    /// Stones in a row needed to win (mnk), 2 to the board's longer side. (1 passes the
    /// parser, to be refused in the board's own words.)
    #[arg(long, value_parser = cli::whole(1u32, MNK_CELLS))]
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
    /// Keep each table made in compressed form only (.rtbc, DTM and DTZ alike): chess
    /// tables are compressed straight from their solve, never written dense (.rtb), and
    /// keep one side to move once nothing left to make reads them (the tables above them
    /// are made from both). Dense tables of the set already present are compressed too,
    /// and removed.
    #[arg(long)]
    pub compress: bool,
    /// With --compress: write the dense files as well, and keep them.
    #[arg(long, requires = "compress")]
    pub keep_dense: bool,
    /// With --compress: zstd level, 1 (fastest) to 19 (smallest) [default: 14 with a
    /// shorter search for distance to mate, 15 for DTZ tables].
    #[arg(long, requires = "compress", value_parser = cli::compress::level)]
    pub level: Option<i32>,
    /// With --compress: slots a block, a multiple of 4096 [default: 262144; 4096 past
    /// 4 G slots a side]. Smaller blocks take more bytes and answer a probe whose block
    /// is not held sooner (`retro compress --block-slots` writes tables made again).
    #[arg(long, requires = "compress", value_name = "SLOTS", value_parser = cli::compress::block_slots)]
    pub block_slots: Option<u32>,
    /// Chess: which metric to make. `dtm`: distance to mate with the best move
    /// (`KQvKR.rtb`); `dtz`: distance to zeroing under the 50-move rule, as Syzygy counts
    /// it (`KQvKR.dtz.rtb`, made from the sub-tables' DTZ tables); `both`.
    #[arg(long, value_enum, default_value = "dtm")]
    pub metric: cli::plan::MetricArg,
    /// Print errors only: no progress, no summaries.
    #[arg(long, short, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Print each table's statistics in full (positions per distance, each side's counts)
    /// rather than one line a table; `retro info FILE` prints them for a table made.
    #[arg(long, short)]
    pub verbose: bool,
}

/// How much `generate` says.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Talk {
    /// Errors only.
    Quiet,
    /// A progress bar and a line a table.
    Line,
    /// Each table's statistics in full besides.
    Full,
}

impl Talk {
    fn of(a: &GenerateArgs) -> Talk {
        match (a.quiet, a.verbose) {
            (true, _) => Talk::Quiet,
            (_, true) => Talk::Full,
            _ => Talk::Line,
        }
    }
}

/// What `generate` says of a run, as `--quiet` and `--verbose` ask: progress and notes on
/// stderr, each table's summary on stdout.
struct Say {
    talk: Talk,
    /// The tables go straight to their compressed form: no dense file is written, so the
    /// line of a table about to be made names none.
    compressed: bool,
}

impl Report for Say {
    fn bar(&self) -> Option<Bar> {
        (self.talk != Talk::Quiet).then(Bar::new)
    }

    fn event(&mut self, e: Event<'_>) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        if self.talk == Talk::Quiet {
            return Ok(());
        }
        match e {
            Event::Removed { path } => {
                eprintln!("removed {}, left by an interrupted run", path.display())
            }
            Event::Present {
                i,
                total,
                name,
                clock,
            } => eprintln!("[{i}/{total}] {name}: present, skipped ({clock})"),
            Event::Making {
                i,
                total,
                name,
                cost,
                clock,
            } => match cost {
                Some(c) => {
                    let file = if self.compressed {
                        "written compressed".to_string()
                    } else {
                        format!("a {} file", retro::memory::Bytes(c.file_bytes))
                    };
                    eprintln!(
                        "[{i}/{total}] {name}: {} positions, about {} of memory, {file} ({clock})",
                        c.positions,
                        retro::memory::Bytes(c.memory_bytes),
                    )
                }
                None => eprintln!("[{i}/{total}] {name} ({clock})"),
            },
            Event::Generating { plugin } => {
                eprintln!("generating {} ({})", plugin.name(), plugin.title())
            }
            Event::RemovedOwn { path } => eprintln!(
                "removed {}, left by an interrupted run of this table",
                path.display()
            ),
            Event::Generated { plugin, done } => summarize(plugin, done, self.talk)?,
            Event::Compressed {
                from,
                compressed,
                seconds,
            } => outln!("{}", cli::compress::wrote(from, compressed, seconds))?,
            Event::Trimmed { compressed: c } => outln!(
                "wrote {} ({} bytes): section '{}' now found one ply on, as nothing left to make reads it",
                c.path.display(),
                c.bytes,
                c.dropped.as_deref().unwrap_or_default()
            )?,
            Event::Settled { .. } => {}
        }
        Ok(())
    }
}

/// A table's summary on stdout: one line, or with `--verbose` its statistics in full.
fn summarize(
    plugin: &dyn retro::plugin::Plugin,
    done: &Generated,
    talk: Talk,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let unit = plugin.distance_unit();
    let stats = summary::stats(&done.header, unit);
    if talk == Talk::Full {
        out!("{}", summary::render(&stats, unit))?;
    }
    // Its checksums were computed from the very bytes written: reading the whole file back
    // to check them again would double the writing's cost (the records went past the
    // page cache, so every byte would come back from the disk).
    let table = retro::table::Table::open_unverified(&done.path)?;
    for line in plugin.summary_lines(&table) {
        outln!("{line}")?;
    }
    let legal: u64 = stats.iter().map(|s| s.legal).sum();
    outln!(
        "{}: {}; solved {legal} positions in {:.2} s ({:.1} million positions/s); wrote {} ({} bytes) in {:.2} s total",
        plugin.name(),
        summary::one_line(&stats, unit),
        done.solve_seconds,
        legal as f64 / done.solve_seconds.max(1e-9) / 1e6,
        done.path.display(),
        table.file_len(),
        done.total_seconds
    )?;
    Ok(())
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
    // A solve reads its sub-tables over and over: mapped, their bytes are not a second
    // time in the solver's own memory.
    retro::table::set_map_small();
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
    let name = table_name(&a)?;
    let talk = Talk::of(&a);
    let plugin = retro::GAMES.plugin_in(&name, &a.out)?;
    let dense = set::make_one(
        &*plugin,
        &a.out,
        a.threads,
        None,
        &mut Say {
            talk,
            compressed: false,
        },
    )?
    .path;
    if a.compress {
        cli::compress::compress_one(
            &dense,
            a.threads,
            None,
            a.level,
            a.block_slots,
            talk != Talk::Quiet,
        )?;
        if !a.keep_dense {
            remove(&dense)?;
        }
    }
    Ok(true)
}

/// Remove a dense table whose compressed form is written.
fn remove(dense: &std::path::Path) -> Result<()> {
    std::fs::remove_file(dense).with_context(|| format!("removing {}", dense.display()))
}

/// Chess: the requested tables and every missing sub-table, in dependency order.
fn run_chess(a: &GenerateArgs) -> Result<bool> {
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
    let memory = match a.max_memory {
        Some(n) => Some((n, "--max-memory")),
        None => retro::memory::available().map(|n| (n, "MemAvailable")),
    };
    // Which tables are missing, and whether they fit, before anything is written: a
    // damaged table in the way, or tables too big for this machine's memory or disk, stop
    // the run at once.
    let disk = retro::disk::available(&a.out);
    let compressed = a.compress && !a.keep_dense;
    let mut set = chess_set::plan(&targets, metric.metrics(), &a.out, memory, disk, compressed)?;
    let opts = set::Options {
        threads: a.threads,
        compress: a.compress.then_some(set::Compress {
            level: a.level,
            block_slots: a.block_slots,
            keep_dense: a.keep_dense,
            found_too: true,
        }),
        memory: memory.map(|(n, _)| n),
    };
    let talk = Talk::of(a);
    let done = set::make(&mut set, &a.out, &opts, &mut Say { talk, compressed })?;
    if talk != Talk::Quiet {
        eprintln!(
            "chess: {} tables generated, {} already present, in {:.1} s",
            done.made, done.found, done.seconds
        );
    }
    Ok(true)
}
