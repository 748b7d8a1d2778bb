//! The `retro` command line: parse, call the library, map errors to exit codes.
//!
//! Exit codes: 0 success; 1 a check that ran and failed (`verify` found mismatches, a batch
//! probe had bad lines, a strategy graph is not valid); 2 an error (bad input, missing or
//! damaged table, I/O).

#[macro_use]
mod cli;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use rayon::prelude::*;

use cli::batch::Line;

use retro::game::PositionError;
use retro::generate::{generate, with_threads};
use retro::progress::Bar;
use retro::registry;
use retro::summary;
use retro::table::reader::ChecksumStatus;

/// A retrograde endgame-tablebase engine: solve games backwards from their ends, store every
/// position's value, distance and best move, and probe them instantly.
#[derive(Parser)]
#[command(name = "retro", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve a game and write its table (tables/<name>.rtb).
    Generate(GenerateArgs),
    /// Look positions up: value, distance, best move and every move's result.
    Probe(ProbeArgs),
    /// Show a table file's header, parameters, statistics and checksum status.
    Info(InfoArgs),
    /// Check a table file: its checksums, then every record against its successors.
    Verify(VerifyArgs),
    /// Write a table's compressed form (.rtbc) beside it: its values in checksummed zstd
    /// blocks, read a block at a time by probe, serve, info and verify.
    Compress(cli::compress::CompressArgs),
    /// Rebuild the dense table (.rtb) from its compressed form, byte for byte.
    Decompress(cli::compress::DecompressArgs),
    /// The task graph of a chess table set as JSON: each table, the sub-tables it reads,
    /// its size and its estimated peak memory, in dependency order (for distributed runners).
    Plan(cli::plan::PlanArgs),
    /// Gomoku tools: validate winning strategy graphs.
    #[command(subcommand)]
    Gomoku(GomokuCommand),
    /// Serve the tables over HTTP: JSON API and web viewer (generates missing default tables).
    #[cfg(feature = "server")]
    Serve(cli::serve::ServeArgs),
}

#[derive(Subcommand)]
enum GomokuCommand {
    /// Validate a winning strategy graph for black: every white reply must continue in the
    /// graph or be proven lost for white by the sound threat-sequence search, or else by the
    /// sound proof search (quiet moves), whose finds `--repair` adds to the graph.
    Validate(cli::gomoku::ValidateArgs),
    /// Prove black wins a position (moves "h8 h9 g9" or a board) with the proof search:
    /// threat sequences plus quiet moves, every white reply answered.
    Prove(cli::gomoku_prove::ProveArgs),
    /// Grow a whole strategy for black from a position with the DAG proof search, with
    /// progress, checkpoints (FILE.checkpoint) and resume; the strategy written is validated.
    Solve(cli::gomoku_solve::SolveArgs),
}

#[derive(Args)]
struct GenerateArgs {
    /// The game: `kbnk` (king + bishop + knight vs king), `mnk` (k-in-a-row) or `chess`
    /// (any endgame of up to 5 pieces: give its material, or `--all N`).
    game: String,
    /// Chess: the material, white's pieces then black's, kings included (`KQvKR`, `KPvK`),
    /// or a DTZ table's name (`KQvKR.dtz`, as `--metric dtz`). Missing sub-tables are
    /// generated first.
    material: Option<String>,
    /// Chess: every table with up to N pieces (3, 4 or 5), pawns included. Tables already
    /// present and intact are skipped, so an interrupted run resumes.
    #[arg(long, value_name = "N")]
    all: Option<usize>,
    /// Board width (mnk).
    #[arg(long)]
    width: Option<u32>,
    /// Board height (mnk).
    #[arg(long)]
    height: Option<u32>,
    /// Stones in a row needed to win (mnk).
    #[arg(long)]
    k: Option<u32>,
    /// Output folder.
    #[arg(long, default_value = "tables")]
    out: PathBuf,
    /// Worker threads (default: one per core). The table is identical whatever the count.
    #[arg(long, value_parser = cli::threads)]
    threads: Option<usize>,
    /// Chess: the memory this run may use (`4G`, `512M`, bytes); a table whose estimated
    /// peak is larger is refused before anything is written. Default: the memory available
    /// now (`MemAvailable` in /proc/meminfo).
    #[arg(long, value_name = "SIZE", value_parser = cli::size)]
    max_memory: Option<u64>,
    /// Also write each table made in compressed form (.rtbc) beside it.
    #[arg(long)]
    compress: bool,
    /// Chess: which metric to make. `dtm`: distance to mate with the best move
    /// (`KQvKR.rtb`); `dtz`: distance to zeroing under the 50-move rule, as Syzygy counts
    /// it (`KQvKR.dtz.rtb`, made from the sub-tables' DTZ tables); `both`.
    #[arg(long, value_enum, default_value = "dtm")]
    metric: cli::plan::MetricArg,
}

#[derive(Args)]
struct ProbeArgs {
    /// The table: `chess` (the table follows the FEN's material), a chess material such as
    /// `KQvKR`, `kbnk`, or `mnk-<width>x<height>-<k>` such as `mnk-4x3-3`.
    table: String,
    /// The position (FEN for kbnk, rows like `x.../.o../....` for mnk), or `-` to read one
    /// position per line from standard input and write one JSON object per line.
    position: String,
    /// Folder holding the tables.
    #[arg(long, default_value = "tables")]
    tables: PathBuf,
    /// Answer in JSON instead of words.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
struct InfoArgs {
    /// A table file (.rtb, or compressed .rtbc).
    file: PathBuf,
}

#[derive(Args)]
struct VerifyArgs {
    /// A table file (.rtb, or compressed .rtbc).
    file: PathBuf,
    /// How many mismatching positions to name.
    #[arg(long, default_value_t = 10)]
    limit: usize,
    /// Worker threads (default: one per core).
    #[arg(long, value_parser = cli::threads)]
    threads: Option<usize>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Generate(a) => cmd_generate(a),
        Command::Probe(a) => cmd_probe(a),
        Command::Info(a) => cmd_info(a),
        Command::Verify(a) => cmd_verify(a),
        Command::Compress(a) => cli::compress::run_compress(&a),
        Command::Decompress(a) => cli::compress::run_decompress(&a),
        Command::Plan(a) => cli::plan::run(&a),
        Command::Gomoku(GomokuCommand::Validate(a)) => cli::gomoku::run_validate(&a),
        Command::Gomoku(GomokuCommand::Prove(a)) => cli::gomoku_prove::run_prove(&a),
        Command::Gomoku(GomokuCommand::Solve(a)) => cli::gomoku_solve::run_solve(&a),
        #[cfg(feature = "server")]
        Command::Serve(a) => retro::serve::run(&a.options())
            .map(|()| true)
            .map_err(Into::into),
    };
    cli::output::report(result)
}

/// The table name a `generate` invocation means.
fn table_name(a: &GenerateArgs) -> Result<String> {
    match a.game.as_str() {
        "mnk" => match (a.width, a.height, a.k) {
            (Some(w), Some(h), Some(k)) => Ok(format!("mnk-{w}x{h}-{k}")),
            _ => bail!("mnk needs --width, --height and --k, e.g. --width 4 --height 3 --k 3"),
        },
        other => {
            if a.width.is_some() || a.height.is_some() || a.k.is_some() {
                bail!("--width, --height and --k are for mnk, not '{other}'");
            }
            Ok(other.to_string())
        }
    }
}

fn cmd_generate(a: GenerateArgs) -> Result<bool> {
    if a.game == "chess" {
        return cmd_generate_chess(&a);
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
fn cmd_generate_chess(a: &GenerateArgs) -> Result<bool> {
    use retro::chess::plan;
    if a.width.is_some() || a.height.is_some() || a.k.is_some() {
        bail!("--width, --height and --k are for mnk, not chess");
    }
    // A DTZ table's name (`KQvKR.dtz`, as `retro plan` lists it) says its metric.
    let mut metric = a.metric;
    let materials: Vec<String> = a
        .material
        .iter()
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
    // Each material's tables, its DTM before its DTZ, in dependency order: a DTZ table
    // reads its sub-materials' DTZ tables, which come first.
    let order: Vec<(retro::chess::material::Material, retro::table::Metric)> =
        plan::closure(&targets)
            .into_iter()
            .flat_map(|m| metric.metrics().iter().map(move |&k| (m.clone(), k)))
            .collect();
    let total = order.len();
    let name_of = |(m, k): &(retro::chess::material::Material, retro::table::Metric)| {
        retro::chess::subtables::table_name(m, *k)
    };
    // Which tables are missing, and whether they fit, before anything is written: a
    // damaged table in the way, or one too big for this machine, stops the run at once.
    let mut missing = Vec::new();
    for t in &order {
        let name = name_of(t);
        if !plan::present_metric(&a.out, &t.0, t.1)
            .with_context(|| format!("{name} is in the way (delete it to make it anew)"))?
        {
            missing.push(t.clone());
        }
    }
    let (available, source_of) = match a.max_memory {
        Some(n) => (Some(n), "--max-memory"),
        None => (retro::memory::available(), "MemAvailable"),
    };
    if let Some(available) = available {
        plan::check_memory(&missing, available, source_of)?;
    }
    let start = std::time::Instant::now();
    let (mut made, mut skipped) = (0, 0);
    for (i, t) in order.iter().enumerate() {
        let name = name_of(t);
        // Looked at again: a copy of this run elsewhere (a retried task of a distributed
        // run) may have made it meanwhile.
        if !missing.contains(t) || plan::present_metric(&a.out, &t.0, t.1).unwrap_or(false) {
            eprintln!("[{}/{total}] {name}: present, skipped", i + 1);
            skipped += 1;
            continue;
        }
        eprintln!("[{}/{total}] {name}", i + 1);
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
    let plugin = registry::plugin_in(name, out)?;
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
    let table = retro::table::Table::open(&done.path)?;
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

/// Probe one position given as text: the answer, or why there is none.
type ProbeFn<'a> = dyn Fn(&str) -> Result<retro::present::Presented, Refused> + Sync + 'a;

/// Why a probe gave no answer: the game refused the position, or something else failed
/// (a missing or damaged table). A refused position is common in a batch of random
/// positions, so it stays a plain value: as an `anyhow::Error` it would capture a
/// backtrace each time under `RUST_BACKTRACE`.
enum Refused {
    Position(PositionError),
    Other(anyhow::Error),
}

impl From<Refused> for anyhow::Error {
    fn from(r: Refused) -> anyhow::Error {
        match r {
            Refused::Position(p) => p.into(),
            Refused::Other(e) => e,
        }
    }
}

/// The error object of a position that got no answer, with `"category": "illegal"` for a
/// well-formed position that cannot occur.
fn refusal(number: u64, input: &str, e: &Refused) -> serde_json::Value {
    let mut v = match e {
        Refused::Position(PositionError::Illegal(why)) => {
            serde_json::json!({"input": input, "category": "illegal", "error": why})
        }
        Refused::Position(PositionError::Malformed(why)) => {
            serde_json::json!({"input": input, "error": why})
        }
        Refused::Other(e) => serde_json::json!({"input": input, "error": format!("{e:#}")}),
    };
    v["line"] = number.into();
    v
}

/// One probe answer as a JSON line (batch mode): the answer, or an error object naming the
/// line; an error for a damaged table, which stops the batch (no line can be trusted).
fn probe_line(probe: &ProbeFn, line: &Line) -> Result<(String, bool)> {
    Ok(match line {
        Line::Text { number, text } => match probe(text) {
            Ok(p) => (p.json(), true),
            Err(Refused::Other(e)) if is_damage(&e) => return Err(e),
            Err(e) => (refusal(*number, text, &e).to_string(), false),
        },
        Line::Bad {
            number,
            error,
            input,
        } => {
            let v = serde_json::json!({"line": number, "input": input, "error": error});
            (v.to_string(), false)
        }
    })
}

/// Whether a probe failed on a table rather than on its position.
fn is_damage(e: &anyhow::Error) -> bool {
    e.downcast_ref::<retro::table::TableError>().is_some()
        || matches!(
            e.downcast_ref(),
            Some(retro::chess::router::RouteError::Damaged(_))
        )
}

fn cmd_probe(a: ProbeArgs) -> Result<bool> {
    if a.table == "chess" {
        // The table follows each position's material, opened on first use.
        let router = retro::chess::router::Router::new(&a.tables);
        return probe_with(&a, &|text: &str| {
            router.probe(text).map_err(|e| match e {
                retro::chess::router::RouteError::Position(p) => Refused::Position(p),
                other => Refused::Other(other.into()),
            })
        });
    }
    let loaded = registry::open(&a.tables, &a.table)?;
    let (plugin, table) = (&*loaded.plugin, &loaded.table);
    probe_with(&a, &|text: &str| {
        plugin.probe(table, text).map_err(|e| match e {
            retro::present::ProbeError::Position(p) => Refused::Position(p),
            retro::present::ProbeError::Table(t) => Refused::Other(t.into()),
        })
    })
}

/// `retro probe`: one position in words or JSON, or `-`, a batch from standard input.
fn probe_with(a: &ProbeArgs, probe: &ProbeFn) -> Result<bool> {
    if a.position != "-" {
        return match probe(&a.position) {
            Ok(p) => {
                if a.json {
                    outln!("{}", p.json())?;
                } else {
                    outln!("{}", p.text().trim_end())?;
                }
                Ok(true)
            }
            Err(Refused::Position(p @ PositionError::Illegal(_))) if a.json => {
                outln!(
                    "{}",
                    serde_json::json!({"category": "illegal", "error": p.to_string()})
                )?;
                Ok(false)
            }
            Err(e) => Err(e.into()),
        };
    }
    // Batch: answer one block of lines in parallel while the previous block's answers are
    // written and the next block is read, so that writing (a chess answer with every move
    // is about 2 KB) overlaps the probing instead of following it.
    // Not `stdin().lock()` nor `stdout().lock()`: the reader and the writer move to worker
    // threads, and the locks cannot.
    let mut input =
        cli::batch::Reader::new(std::io::BufReader::with_capacity(1 << 20, std::io::stdin()));
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout());
    let mut all_ok = true;
    let mut block = input.block().context("reading standard input")?;
    // Answers computed and not yet written.
    let mut done: Vec<Result<(String, bool)>> = Vec::new();
    while !block.is_empty() {
        let (answers, (written, next)) = rayon::join(
            || {
                block
                    .par_iter()
                    .map(|l| probe_line(probe, l))
                    .collect::<Vec<_>>()
            },
            || {
                (
                    write_answers(&mut out, std::mem::take(&mut done)),
                    input.block(),
                )
            },
        );
        all_ok &= written?;
        done = answers;
        // Answers already computed are written before a read error is reported.
        block = match next {
            Ok(b) => b,
            Err(e) => {
                write_answers(&mut out, std::mem::take(&mut done))?;
                out.flush()?;
                return Err(anyhow::Error::from(e).context("reading standard input"));
            }
        };
    }
    all_ok &= write_answers(&mut out, done)?;
    out.flush()?;
    Ok(all_ok)
}

/// Write a block's answers in input order, one line each, up to the first error (a damaged
/// table, which stops the batch); whether every position got an answer.
fn write_answers(out: &mut impl Write, answers: Vec<Result<(String, bool)>>) -> Result<bool> {
    let mut all_ok = true;
    for answer in answers {
        let (json, ok) = answer?;
        all_ok &= ok;
        out.write_all(json.as_bytes())?;
        out.write_all(b"\n")?;
    }
    Ok(all_ok)
}

fn cmd_info(a: InfoArgs) -> Result<bool> {
    let loaded = registry::open_file(&a.file, false)?;
    let (plugin, table) = (&*loaded.plugin, &loaded.table);
    let h = table.header();
    outln!(
        "file:      {} ({} bytes)",
        a.file.display(),
        table.file_len()
    )?;
    match table.compressed_blocks() {
        Some(n) => {
            outln!(
                "format:    retro compressed table version {} ({n} blocks of {} values; the dense table's header follows)",
                retro::table::compressed::VERSION,
                retro::table::compressed::BLOCK_SLOTS
            )?;
            let stored = table.sections_stored();
            for (s, kept) in h.sections.iter().zip(stored) {
                if !kept {
                    outln!(
                        "dropped:   section '{}' (its values found one ply on, from its moves)",
                        s.name
                    )?;
                }
            }
        }
        None => outln!("format:    retro table version {}", retro::table::VERSION)?,
    }
    outln!("table:     {} — {}", h.name, plugin.title())?;
    let params: Vec<String> = h.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    outln!("game:      {} {}", h.game, params.join(" "))?;
    for s in &h.sections {
        outln!(
            "section:   {:<8} {:>12} records at offset {:>10}, checksum {:016x}",
            s.name,
            s.records,
            s.offset,
            s.checksum
        )?;
    }
    let status = table.checksum_status();
    match &status {
        ChecksumStatus::Ok => outln!("checksum:  ok")?,
        ChecksumStatus::Mismatch(bad) => outln!("checksum:  MISMATCH in {}", bad.join(", "))?,
    }
    let unit = plugin.distance_unit();
    out!("{}", summary::render(&summary::stats(h, unit), unit))?;
    if status == ChecksumStatus::Ok {
        for line in plugin.summary_lines(table) {
            outln!("{line}")?;
        }
    }
    Ok(status == ChecksumStatus::Ok)
}

fn cmd_verify(a: VerifyArgs) -> Result<bool> {
    let loaded = registry::open_file(&a.file, false)?;
    let (plugin, table) = (&*loaded.plugin, &loaded.table);
    let bar = Bar::new();
    let report = with_threads(a.threads, || plugin.verify(table, a.limit, &bar))?;
    bar.finish();
    match &report.checksum {
        ChecksumStatus::Ok => outln!("checksum: ok")?,
        ChecksumStatus::Mismatch(bad) => outln!("checksum: MISMATCH in {}", bad.join(", "))?,
    }
    if report.statistics.is_empty() {
        outln!("statistics: ok (recomputed from the records)")?;
    } else {
        outln!(
            "statistics: MISMATCH in {} (the header's counts differ from the records)",
            report.statistics.join(", ")
        )?;
    }
    outln!(
        "records:  {} checked, {} inconsistent",
        report.checked,
        report.bad
    )?;
    for m in &report.first {
        outln!("  {m}")?;
    }
    outln!("{}", if report.ok() { "OK" } else { "FAILED" })?;
    Ok(report.ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cli::batch::Line;

    /// A batch goes on past a refused position (its line says why) but stops at a damaged
    /// table, whose error (exit 2) names the file and the block.
    #[test]
    fn a_damaged_table_stops_a_batch_and_a_refused_position_does_not() {
        let line = Line::Text {
            number: 1,
            text: "a position".into(),
        };
        let damage = || retro::table::TableError::Block {
            path: "KQvKR.rtbc".into(),
            detail: "block 3 (section 'white') checksum mismatch".into(),
        };
        let direct: &ProbeFn = &|_| Err(Refused::Other(damage().into()));
        let routed: &ProbeFn = &|_| {
            Err(Refused::Other(
                retro::chess::router::RouteError::Damaged(damage()).into(),
            ))
        };
        for probe in [direct, routed] {
            let e = probe_line(probe, &line).unwrap_err();
            assert_eq!(
                format!("{e:#}"),
                "KQvKR.rtbc: block 3 (section 'white') checksum mismatch"
            );
        }
        let refused: &ProbeFn = &|_| {
            Err(Refused::Position(PositionError::Illegal(
                "kings are adjacent".into(),
            )))
        };
        let (json, ok) = probe_line(refused, &line).unwrap();
        assert!(!ok);
        assert!(json.contains(r#""category":"illegal""#), "{json}");
    }
}
