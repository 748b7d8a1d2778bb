//! `retro probe`: one position, or a batch of them from standard input, answered in words
//! or as JSON lines.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use rayon::prelude::*;

use retro::game::PositionError;

use crate::cli;
use crate::cli::batch::Line;

#[derive(Args)]
pub struct ProbeArgs {
    /// The table: `chess` (the table follows the FEN's material: its chess table, or the
    /// `kbnk` table for KBN against K), a chess material such as `KQvKR`, `kbnk`, or
    /// `mnk-<width>x<height>-<k>` such as `mnk-4x3-3`.
    pub table: String,
    /// The position (a FEN for chess and kbnk, rows like `x.../.o../....` for mnk), or `-`
    /// to read one position per line from standard input and write one JSON object per line.
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

/// One line's answer in batch mode: its JSON line, whether the position got an answer, and
/// the table error that kept it from one (a damaged or changed table: no later line is
/// probed, each gets that error).
struct Answer {
    json: String,
    ok: bool,
    /// The line's number and the table error, shared by the lines it refuses (an
    /// `anyhow::Error` a line would capture a backtrace each under `RUST_BACKTRACE`).
    table_error: Option<(u64, Arc<anyhow::Error>)>,
}

impl Answer {
    fn of(json: String, ok: bool) -> Answer {
        Answer {
            json,
            ok,
            table_error: None,
        }
    }

    /// The answer of `line` refused for a table error `e`: an error object naming it.
    fn table_error(line: &Line, e: Arc<anyhow::Error>) -> Answer {
        let (number, input) = match line {
            Line::Text { number, text } => (*number, text.as_str()),
            Line::Bad { number, input, .. } => (*number, input.as_str()),
        };
        let json =
            serde_json::json!({"line": number, "input": input, "error": cli::output::message(&e)});
        Answer {
            json: json.to_string(),
            ok: false,
            table_error: Some((number, e)),
        }
    }
}

/// One probe answer as a JSON line (batch mode): the answer, or an error object naming the
/// line.
fn probe_line(probe: &ProbeFn, line: &Line) -> Answer {
    match line {
        Line::Text { number, text } => match probe(text) {
            Ok(p) => Answer::of(p.json(), true),
            Err(Refused::Other(e)) if is_damage(&e) => Answer::table_error(line, Arc::new(e)),
            Err(e) => Answer::of(refusal(*number, text, &e).to_string(), false),
        },
        Line::Bad {
            number,
            error,
            input,
        } => {
            let v = serde_json::json!({"line": number, "input": input, "error": error});
            Answer::of(v.to_string(), false)
        }
    }
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
    // Tables are read at positions (or copied), never mapped: a table cut or rewritten by
    // another program while a batch runs then fails the reads that follow (each checks the
    // file unchanged since it was opened), instead of killing the process with SIGBUS or
    // answering from the new bytes. A copy answers as it was checked.
    retro::table::set_never_map();
    if a.table == "chess" {
        // The table follows each position's material, opened on first use: its chess
        // table, or a table of another game that holds it.
        let folder = retro::chess_answers::Folder::new(&a.tables);
        return probe_with(&a, &|text: &str| {
            folder.probe(text).map_err(|e| match e {
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
            // A refused position is an error (exit 2) in words and in JSON alike; JSON
            // also gets it as an object on standard output.
            Err(e) => {
                if let (true, Refused::Position(p)) = (a.json, &e) {
                    let mut v = serde_json::json!({"error": p.to_string()});
                    if matches!(p, PositionError::Illegal(_)) {
                        v["category"] = "illegal".into();
                    }
                    outln!("{v}")?;
                }
                Err(e.into())
            }
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
    let mut written = Written::default();
    let mut block = input.block().context("reading standard input")?;
    // Answers computed and not yet written.
    let mut done: Vec<Answer> = Vec::new();
    while !block.is_empty() {
        // After a table error no line is probed: each gets that error.
        let failed = (written.first_table_error.as_ref().map(|(_, e)| e))
            .or_else(|| {
                done.iter()
                    .find_map(|a| a.table_error.as_ref().map(|(_, e)| e))
            })
            .cloned();
        let (answers, (wrote, next)) = rayon::join(
            || answer_block(probe, &block, failed),
            || {
                (
                    write_answers(&mut out, std::mem::take(&mut done), &mut written),
                    input.block(),
                )
            },
        );
        wrote?;
        done = answers;
        // Answers already computed are written before a read error is reported.
        block = match next {
            Ok(b) => b,
            Err(e) => {
                write_answers(&mut out, std::mem::take(&mut done), &mut written)?;
                out.flush()?;
                return Err(anyhow::Error::from(e).context("reading standard input"));
            }
        };
    }
    write_answers(&mut out, done, &mut written)?;
    out.flush()?;
    match written.first_table_error {
        Some((line, e)) => Err(anyhow::anyhow!(
            "{} of {} lines got no answer for a table error, from line {line} on: {}",
            written.table_errors,
            written.lines,
            cli::output::message(&e)
        )),
        None => Ok(written.all_ok),
    }
}

/// The answers of one block of lines. A line refused for a table error (a damaged block,
/// or a file changed since it was opened: every read checks) refuses every line after it
/// in the block too, so that answers stop at one line, whatever order the lines were
/// probed in. With `failed` (a table error met before), no line is probed: each gets that
/// error.
fn answer_block(
    probe: &ProbeFn,
    block: &[Line],
    failed: Option<Arc<anyhow::Error>>,
) -> Vec<Answer> {
    let (mut answers, from) = match failed {
        Some(e) => (Vec::new(), Some((0, e))),
        None => {
            let answers: Vec<Answer> = block.par_iter().map(|l| probe_line(probe, l)).collect();
            let first = answers
                .iter()
                .enumerate()
                .find_map(|(k, a)| a.table_error.as_ref().map(|(_, e)| (k, e.clone())));
            (answers, first)
        }
    };
    if let Some((k, e)) = from {
        answers.truncate(k);
        answers.extend(block[k..].iter().map(|l| Answer::table_error(l, e.clone())));
    }
    answers
}

/// What has been written of a batch.
struct Written {
    lines: u64,
    all_ok: bool,
    table_errors: u64,
    /// The first table error, with its line's number.
    first_table_error: Option<(u64, Arc<anyhow::Error>)>,
}

impl Default for Written {
    fn default() -> Written {
        Written {
            lines: 0,
            all_ok: true,
            table_errors: 0,
            first_table_error: None,
        }
    }
}

/// Write a block's answers in input order, one line each.
fn write_answers(out: &mut impl Write, answers: Vec<Answer>, w: &mut Written) -> Result<()> {
    for answer in answers {
        w.lines += 1;
        w.all_ok &= answer.ok;
        if let Some(e) = answer.table_error {
            w.table_errors += 1;
            w.first_table_error.get_or_insert(e);
        }
        out.write_all(answer.json.as_bytes())?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cli::batch::Line;

    /// A refused position is that line's answer; a damaged table is the error of its line
    /// and of every line after it, which are not probed, and the run's error (exit 2)
    /// names the file and the block.
    #[test]
    fn a_damaged_table_is_the_error_of_every_line_after_it_and_a_refused_position_not() {
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
        let said = "KQvKR.rtbc: block 3 (section 'white') checksum mismatch";
        for probe in [direct, routed] {
            let a = probe_line(probe, &line);
            assert!(!a.ok);
            let (number, e) = a.table_error.expect("a table error");
            assert_eq!((number, format!("{e:#}").as_str()), (1, said));
            let v: serde_json::Value = serde_json::from_str(&a.json).unwrap();
            assert_eq!(
                v,
                serde_json::json!({"line": 1, "input": "a position", "error": said})
            );
        }
        // After it, lines are answered with the error without a probe.
        let never: &ProbeFn = &|_| panic!("probed after a table error");
        let block = [
            Line::Text {
                number: 7,
                text: "x".into(),
            },
            Line::Bad {
                number: 8,
                error: "not UTF-8".into(),
                input: "y".into(),
            },
        ];
        let answers = answer_block(never, &block, Some(Arc::new(anyhow::anyhow!("{said}"))));
        assert_eq!(answers.len(), 2);
        for (a, n) in answers.iter().zip([7, 8]) {
            assert_eq!(a.table_error.as_ref().map(|(k, _)| *k), Some(n));
            assert!(a.json.contains(said), "{}", a.json);
        }
        let mut w = Written::default();
        write_answers(&mut Vec::new(), answers, &mut w).unwrap();
        assert_eq!((w.lines, w.table_errors, w.all_ok), (2, 2, false));
        assert_eq!(w.first_table_error.map(|(k, _)| k), Some(7));
        let refused: &ProbeFn = &|_| {
            Err(Refused::Position(PositionError::Illegal(
                "kings are adjacent".into(),
            )))
        };
        let a = probe_line(refused, &line);
        assert!(!a.ok && a.table_error.is_none());
        assert!(a.json.contains(r#""category":"illegal""#), "{}", a.json);
    }
}
