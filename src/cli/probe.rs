//! `retro probe`: one position, or a batch of them from standard input, answered in words
//! or as JSON lines.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use rayon::prelude::*;

use retro::game::PositionError;

use crate::cli;
use crate::cli::batch::Line;

#[derive(Args)]
pub struct ProbeArgs {
    /// The table: `chess` (the table follows the FEN's material), a chess material such as
    /// `KQvKR`, `kbnk`, or `mnk-<width>x<height>-<k>` such as `mnk-4x3-3`.
    pub table: String,
    /// The position (FEN for kbnk, rows like `x.../.o../....` for mnk), or `-` to read one
    /// position per line from standard input and write one JSON object per line.
    pub position: String,
    /// Folder holding the tables.
    #[arg(long, default_value = "tables")]
    pub tables: PathBuf,
    /// Answer in JSON instead of words.
    #[arg(long)]
    pub json: bool,
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
        Refused::Other(e) => serde_json::json!({"input": input, "error": cli::output::message(e)}),
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

pub fn run(a: ProbeArgs) -> Result<bool> {
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
    let loaded = retro::GAMES.open(&a.tables, &a.table)?;
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
