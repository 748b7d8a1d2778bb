//! The `retro` command line: parse, call the library, map errors to exit codes.
//!
//! Exit codes: 0 success; 1 a check that ran and failed (`verify` found mismatches, a batch
//! probe had bad lines, a strategy graph is not valid); 2 an error (bad input, missing or
//! damaged table, I/O).

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::{Args, Parser, Subcommand};
use rayon::prelude::*;

use retro::game::PositionError;
use retro::generate::{generate, with_threads};
use retro::progress::Bar;
use retro::registry::{self, Plugin};
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
    /// Gomoku tools: validate winning strategy graphs.
    #[command(subcommand)]
    Gomoku(GomokuCommand),
    /// Serve the tables over HTTP: JSON API and web viewer (generates missing default tables).
    Serve(retro::serve::ServeArgs),
}

#[derive(Subcommand)]
enum GomokuCommand {
    /// Validate a winning strategy graph for black: every white reply must continue in the
    /// graph or be proven lost for white by the sound threat-sequence search, or else by the
    /// sound proof search (quiet moves), whose finds `--repair` adds to the graph.
    Validate(retro::gomoku::cli::ValidateArgs),
    /// Prove black wins a position (moves "h8 h9 g9" or a board) with the proof search:
    /// threat sequences plus quiet moves, every white reply answered.
    Prove(retro::gomoku::cli_prove::ProveArgs),
}

#[derive(Args)]
struct GenerateArgs {
    /// The game: `kbnk` (king + bishop + knight vs king) or `mnk` (k-in-a-row).
    game: String,
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
    #[arg(long)]
    threads: Option<usize>,
}

#[derive(Args)]
struct ProbeArgs {
    /// The table: `kbnk`, or `mnk-<width>x<height>-<k>` such as `mnk-4x3-3`.
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
    /// A table file (.rtb).
    file: PathBuf,
}

#[derive(Args)]
struct VerifyArgs {
    /// A table file (.rtb).
    file: PathBuf,
    /// How many mismatching positions to name.
    #[arg(long, default_value_t = 10)]
    limit: usize,
    /// Worker threads (default: one per core).
    #[arg(long)]
    threads: Option<usize>,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Generate(a) => cmd_generate(a),
        Command::Probe(a) => cmd_probe(a),
        Command::Info(a) => cmd_info(a),
        Command::Verify(a) => cmd_verify(a),
        Command::Gomoku(GomokuCommand::Validate(a)) => retro::gomoku::cli::run_validate(&a),
        Command::Gomoku(GomokuCommand::Prove(a)) => retro::gomoku::cli_prove::run_prove(&a),
        Command::Serve(a) => retro::serve::run(a).map(|()| true),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
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
    let plugin = registry::plugin(&table_name(&a)?)?;
    eprintln!("generating {} ({})", plugin.name(), plugin.title());
    let bar = Bar::new();
    let done = with_threads(a.threads, || generate(&*plugin, &a.out, &bar))??;
    bar.finish();
    let unit = plugin.distance_unit();
    let stats = summary::stats(&done.header, unit);
    print!("{}", summary::render(&stats, unit));
    let legal: u64 = stats.iter().map(|s| s.legal).sum();
    let table = retro::table::Table::open(&done.path)?;
    for line in plugin.summary_lines(&table) {
        println!("{line}");
    }
    println!(
        "solved {legal} positions in {:.2} s ({:.1} million positions/s); wrote {} ({} bytes) in {:.2} s total",
        done.solve_seconds,
        legal as f64 / done.solve_seconds.max(1e-9) / 1e6,
        done.path.display(),
        table.file_len(),
        done.total_seconds
    );
    Ok(true)
}

/// One probe answer as a JSON line (batch mode): the answer, or an error object.
fn probe_line(plugin: &dyn Plugin, table: &retro::table::Table, line: &str) -> (String, bool) {
    let v = match plugin.probe(table, line) {
        Ok(p) => return (p.json(), true),
        Err(PositionError::Illegal(why)) => {
            serde_json::json!({"input": line, "category": "illegal", "error": why})
        }
        Err(PositionError::Malformed(why)) => serde_json::json!({"input": line, "error": why}),
    };
    (v.to_string(), false)
}

fn cmd_probe(a: ProbeArgs) -> Result<bool> {
    let loaded = registry::open(&a.tables, &a.table)?;
    let (plugin, table) = (&*loaded.plugin, &loaded.table);
    if a.position != "-" {
        return match plugin.probe(table, &a.position) {
            Ok(p) => {
                if a.json {
                    println!("{}", p.json());
                } else {
                    println!("{}", p.text().trim_end());
                }
                Ok(true)
            }
            Err(e @ PositionError::Illegal(_)) if a.json => {
                println!(
                    "{}",
                    serde_json::json!({"category": "illegal", "error": e.to_string()})
                );
                Ok(false)
            }
            Err(e) => Err(e.into()),
        };
    }
    // Batch: answer one block of lines in parallel while the next block is read, then
    // write the answers in input order.
    // Not `stdin().lock()`: the reader moves to a worker thread, and the lock cannot.
    let mut input = std::io::BufReader::with_capacity(1 << 20, std::io::stdin());
    let mut out = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let mut all_ok = true;
    let mut block = read_block(&mut input)?;
    while !block.is_empty() {
        let (answers, next) = rayon::join(
            || {
                block
                    .par_iter()
                    .map(|l| probe_line(plugin, table, l))
                    .collect::<Vec<_>>()
            },
            || read_block(&mut input),
        );
        for (json, ok) in answers {
            all_ok &= ok;
            out.write_all(json.as_bytes())?;
            out.write_all(b"\n")?;
        }
        block = next?;
    }
    out.flush()?;
    Ok(all_ok)
}

/// Up to 16,384 non-empty lines of `input` (fewer only at the end).
fn read_block(input: &mut impl BufRead) -> Result<Vec<String>> {
    let mut lines = Vec::with_capacity(1 << 14);
    let mut buf = String::new();
    while lines.len() < 1 << 14 {
        buf.clear();
        if input
            .read_line(&mut buf)
            .context("reading standard input")?
            == 0
        {
            break;
        }
        let l = buf.trim();
        if !l.is_empty() {
            lines.push(l.to_string());
        }
    }
    Ok(lines)
}

fn cmd_info(a: InfoArgs) -> Result<bool> {
    let loaded = registry::open_file(&a.file, false)?;
    let (plugin, table) = (&*loaded.plugin, &loaded.table);
    let h = table.header();
    println!(
        "file:      {} ({} bytes)",
        a.file.display(),
        table.file_len()
    );
    println!("format:    retro table version {}", retro::table::VERSION);
    println!("table:     {} — {}", h.name, plugin.title());
    let params: Vec<String> = h.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    println!("game:      {} {}", h.game, params.join(" "));
    for s in &h.sections {
        println!(
            "section:   {:<8} {:>12} records at offset {:>10}, checksum {:016x}",
            s.name, s.records, s.offset, s.checksum
        );
    }
    let status = table.checksum_status();
    match &status {
        ChecksumStatus::Ok => println!("checksum:  ok"),
        ChecksumStatus::Mismatch(bad) => {
            println!("checksum:  MISMATCH in {}", bad.join(", "))
        }
    }
    let unit = plugin.distance_unit();
    print!("{}", summary::render(&summary::stats(h, unit), unit));
    if status == ChecksumStatus::Ok {
        for line in plugin.summary_lines(table) {
            println!("{line}");
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
        ChecksumStatus::Ok => println!("checksum: ok"),
        ChecksumStatus::Mismatch(bad) => println!("checksum: MISMATCH in {}", bad.join(", ")),
    }
    println!(
        "records:  {} checked, {} inconsistent",
        report.checked, report.bad
    );
    for m in &report.first {
        println!("  {m}");
    }
    println!("{}", if report.ok() { "OK" } else { "FAILED" });
    Ok(report.ok())
}
