//! Drives the real `retro` executable in temporary folders: generate, probe (words, JSON,
//! batch), info, verify, and every kind of bad input.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use retro::game::Game;
use retro::present::GameText;

use super::common::{kbnk_file, retro, stderr, stdout, tables_dir};

pub fn retro_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("retro runs");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // A writer thread, so a large input cannot deadlock against a full stdout pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn tables_arg() -> String {
    tables_dir().to_str().unwrap().to_string()
}

fn probe_json(fen: &str) -> serde_json::Value {
    let o = retro(&["probe", "kbnk", fen, "--tables", &tables_arg(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

/// The help speaks to users: it leads with chess, every command's help names the games it
/// is for, and no help text uses the project's own history ("stop", "review", "seed").
#[test]
fn help_leads_with_chess_and_speaks_to_users() {
    let top = stdout(&retro(&["--help"]));
    let first = top.lines().next().unwrap_or_default();
    assert!(first.contains("chess"), "{first}");
    let commands = [
        vec!["generate"],
        vec!["probe"],
        vec!["info"],
        vec!["verify"],
        vec!["compress"],
        vec!["decompress"],
        vec!["plan"],
        vec!["serve"],
        vec!["gomoku"],
        vec!["gomoku", "validate"],
        vec!["gomoku", "prove"],
        vec!["gomoku", "solve"],
    ];
    for c in commands {
        let o = retro(&c.iter().copied().chain(["--help"]).collect::<Vec<_>>());
        assert!(o.status.success(), "{c:?}");
        let text = stdout(&o).to_lowercase();
        for word in [" stop ", "review", "seed"] {
            assert!(!text.contains(word), "{c:?} says '{word}':\n{text}");
        }
        let about = text.lines().next().unwrap_or_default();
        assert!(
            ["chess", "gomoku", "k-in-a-row", "any game", "every game"]
                .iter()
                .any(|g| about.contains(g)),
            "{c:?} names no game: {about}"
        );
    }
}

/// Every command a message suggests works as printed, and a bad name or a folder that is not
/// there is said to be so (exit 2), not answered with a command that would fail.
#[test]
fn suggestions_work_as_printed_and_bad_names_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("made");
    let fen = "8/8/8/8/8/2k5/8/KQ5r w - - 0 1";
    let o = retro(&["probe", "chess", fen, "--tables", d.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("does not exist"), "{e}");
    // The suggested command, run as printed, makes what the probe needs.
    let command = e.split('`').nth(1).expect(&e);
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(words[..2], ["retro", "generate"], "{command}");
    let made = retro(&words[1..].iter().copied().chain(["-q"]).collect::<Vec<_>>());
    assert!(made.status.success(), "{command}: {}", stderr(&made));
    let o = retro(&["probe", "chess", fen, "--tables", d.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("white mates in 9"), "{}", stdout(&o));
    // Names that are no table: said so, and no command suggested.
    for (name, says) in [
        ("kqvk", "is not a material"),
        ("KRvKQ", "the table of KRvKQ is KQvKR"),
    ] {
        let o = retro(&["probe", name, fen, "--tables", d.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains(says) && !stderr(&o).contains("generate"),
            "{}",
            stderr(&o)
        );
    }
    let o = retro(&["generate", "chess", "--out", d.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("give a material"), "{}", stderr(&o));
}

/// `generate --quiet` says nothing, on either stream, and makes the table; `--quiet` with
/// `--verbose` is refused before anything is written.
#[test]
fn quiet_generation_prints_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = retro(&[
        "generate", "chess", "KRvK", "--metric", "both", "--out", d, "-q",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!((stdout(&o), stderr(&o)), (String::new(), String::new()));
    assert!(dir.path().join("KRvK.dtz.rtb").exists());
    let o = retro(&["generate", "kbnk", "--out", d, "--quiet", "--verbose"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--verbose"), "{}", stderr(&o));
    assert!(!dir.path().join("kbnk.rtb").exists());
}

/// `retro generate kbnk` with 1 and 2 threads: the summary, identical bytes (also identical
/// to the shared fixture, written by the library), only the finished file left, mode 0644.
#[test]
fn generate_writes_identical_bytes_and_only_the_finished_file() {
    let mut files = Vec::new();
    for threads in ["1", "2"] {
        let dir = tempfile::tempdir().unwrap();
        // With 2 threads, the statistics in full too (`--verbose`).
        let verbose = threads == "2";
        let mut args = vec![
            "generate",
            "kbnk",
            "--out",
            dir.path().to_str().unwrap(),
            "--threads",
            threads,
        ];
        args.extend(verbose.then_some("--verbose"));
        let o = retro(&args);
        assert!(o.status.success(), "generate failed: {}", stderr(&o));
        let out = stdout(&o);
        // By default one line: KBNK's published counts (both sides to move, light-squared
        // bishops), the longest mates of either side together; with `--verbose`, each
        // side's and the positions per distance before it.
        if verbose {
            assert!(out.contains("longest 33 moves (552 positions)"), "{out}");
            assert!(out.contains("longest 33 moves (1480 positions)"), "{out}");
            assert!(out.lines().count() > 30, "{out}");
        } else {
            assert_eq!(out.lines().count(), 1, "{out}");
        }
        let last = out.lines().last().unwrap_or_default();
        assert!(
            last.starts_with(
                "kbnk: 12268044 positions: 5411092 wins, 5594084 losses, 1262868 draws; \
                 longest 33 moves (2032 positions); solved 12268044 positions in "
            ),
            "{last}"
        );
        assert!(out.contains("positions/s"), "{out}");
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["kbnk.rtb".to_string()]);
        let path = dir.path().join("kbnk.rtb");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(
                mode & 0o777,
                0o644,
                "readable by all, writable by the owner"
            );
        }
        files.push(std::fs::read(&path).unwrap());
    }
    // Two 16 MiB arrays plus one aligned header page.
    assert_eq!(files[0].len(), 4096 + 2 * 16 * 1024 * 1024);
    assert!(
        files[0] == files[1],
        "tables differ between 1 and 2 threads"
    );
    assert!(
        files[0] == std::fs::read(kbnk_file()).unwrap(),
        "the CLI and the library write the same bytes"
    );
}

#[test]
fn probe_in_words() {
    let o = retro(&[
        "probe",
        "kbnk",
        "8/8/8/8/8/8/5k2/5BNK w - - 0 1",
        "--tables",
        &tables_arg(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\nwhite mates in 33\n"),
        "{}",
        stdout(&o)
    );
    // Each move's result for white, who makes it: the best ones mate in 33 (65 plies).
    assert!(
        stdout(&o).contains(" mate in 33 (65 plies)\n"),
        "{}",
        stdout(&o)
    );
    let o = retro(&[
        "probe",
        "kbnk",
        "8/8/8/6B1/8/8/4k3/1K5N b - - 0 1",
        "--tables",
        &tables_arg(),
    ]);
    assert!(
        stdout(&o).contains("black is mated in 33"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn probe_json_follows_lichess() {
    for fen in [
        "8/8/8/8/8/8/5k2/5BNK w - - 0 1",
        "8/8/8/8/8/8/2k5/KNB5 w - - 0 1",
    ] {
        let v = probe_json(fen);
        assert_eq!(v["category"], "win", "{fen}");
        assert_eq!(v["dtm"], 65, "{fen}");
        assert_eq!(v["mate_in"], 33, "{fen}");
        let best = v["best"]["uci"].as_str().unwrap();
        let moves = v["moves"].as_array().unwrap();
        // Best first; the best move leads to a loss for black in 32 moves (64 plies).
        assert_eq!(moves[0]["uci"], best);
        assert_eq!(moves[0]["category"], "loss");
        assert_eq!(moves[0]["dtm"], -64);
        assert!(moves.iter().all(|m| m["san"].is_string()));
    }
    let v = probe_json("8/8/8/6B1/8/8/4k3/1K5N b - - 0 1");
    assert_eq!(v["category"], "loss");
    assert_eq!(v["dtm"], -66);
    assert_eq!(v["mate_in"], -33, "signed like dtm");
    let moves = v["moves"].as_array().unwrap();
    assert_eq!(moves[0]["category"], "win");
    assert_eq!(moves[0]["dtm"], 65);
}

#[test]
fn batch_probe_answers_every_line() {
    let input = "8/8/8/8/8/8/5k2/5BNK w - - 0 1\nnot a fen\n8/8/8/8/8/8/4Kk2/5BN1 w - - 0 1\n";
    let o = retro_stdin(
        &["probe", "kbnk", "-", "--tables", &tables_arg()],
        input.as_bytes(),
    );
    assert_eq!(o.status.code(), Some(1), "a bad line makes the exit code 1");
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["dtm"], 65);
    assert!(
        lines[1]["error"].as_str().unwrap().contains("FEN"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2]["category"], "illegal");
    assert!(lines[2]["error"].as_str().unwrap().contains("adjacent"));
}

#[test]
fn probe_errors_name_the_problem() {
    let t = tables_arg();
    for (fen, needle) in [
        ("8/8/8/8/8/8/5k2/5BNK x - - 0 1", "side"),
        ("8/8/8/8/8/8/5k2/5BN w - - 0 1", "fen"),
        ("8/8/8/8/8/8/P4k2/5BNK w - - 0 1", "pawn"),
        ("8/8/8/8/8/8/5k2/5BQK w - - 0 1", "queen"),
        ("8/8/8/8/8/8/4Kk2/5BN1 w - - 0 1", "adjacent"),
        ("7k/5N2/8/8/8/8/8/KB6 w - - 0 1", "check"),
    ] {
        let o = retro(&["probe", "kbnk", fen, "--tables", &t]);
        assert_eq!(o.status.code(), Some(2), "{fen}: {}", stdout(&o));
        assert!(
            stderr(&o).to_lowercase().contains(needle),
            "{fen}: expected '{needle}' in: {}",
            stderr(&o)
        );
    }
    let o = retro(&[
        "probe",
        "checkers",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "--tables",
        &t,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown game"), "{}", stderr(&o));
    let o = retro(&[
        "probe",
        "chess",
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "--tables",
        &t,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("exactly one king"), "{}", stderr(&o));
    let empty = tempfile::tempdir().unwrap();
    let o = retro(&[
        "probe",
        "kbnk",
        "8/8/8/8/8/8/5k2/5BNK w - - 0 1",
        "--tables",
        empty.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("retro generate kbnk"), "{}", stderr(&o));
}

#[test]
fn info_describes_the_table() {
    let o = retro(&["info", kbnk_file().to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for needle in [
        "kbnk",
        "checksum:  ok",
        "8388608 records",
        "5437752 legal",
        "6830292 legal",
    ] {
        assert!(out.contains(needle), "'{needle}' missing in:\n{out}");
    }
}

/// A copy of the KBNK table in its own folder, with `edit` applied to its bytes.
fn damaged(edit: impl FnOnce(&mut Vec<u8>)) -> (tempfile::TempDir, PathBuf) {
    super::common::edited_copy(&kbnk_file(), edit)
}

#[test]
fn verify_names_a_flipped_record() {
    // The sound table is verified once, in process (`kbnk_facts::written_table_verifies`),
    // and through the CLI by `table_format::verify_recomputes_the_statistics`.
    let game = retro::kbnk::Kbnk::new();
    let fen = "8/8/8/8/8/8/5k2/5BNK w - - 0 1";
    let index = game.encode(&game.parse_position(fen).unwrap());
    // Mate in 33 (Win(65), byte 1 + 33) becomes mate in 32 (Win(63)).
    let (_dir, path) = damaged(|b| {
        let at = 4096 + 2 * index as usize;
        assert_eq!(b[at], 34);
        b[at] = 33;
    });
    let o = retro(&["verify", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("checksum: MISMATCH"), "{out}");
    assert!(out.contains("5BNK w"), "the position is named: {out}");
    // The damaged table is refused for probing.
    let o = retro(&[
        "probe",
        "kbnk",
        fen,
        "--tables",
        path.parent().unwrap().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("checksum"), "{}", stderr(&o));
}

#[test]
fn damaged_files_are_refused_with_the_reason() {
    type Edit = Box<dyn FnOnce(&mut Vec<u8>)>;
    let cases: Vec<(Edit, &str)> = vec![
        (Box::new(|b| b[0] = b'X'), "magic"),
        (Box::new(|b| b[8] = 9), "version"),
        (Box::new(|b| b[8] = 1), "regenerate it"),
        (Box::new(|b| b.truncate(b.len() - 100)), "size"),
        (Box::new(|b| b.truncate(10)), "truncated"),
        (Box::new(|b| b[40] ^= 1), "checksum"),
        (Box::new(|b| b[4096 + 1000] ^= 0x80), "checksum"),
    ];
    for (edit, needle) in cases {
        let (_dir, path) = damaged(edit);
        let o = retro(&["info", path.to_str().unwrap()]);
        let all = format!("{}{}", stdout(&o), stderr(&o));
        assert_ne!(o.status.code(), Some(0), "{needle}: {all}");
        assert!(all.to_lowercase().contains(needle), "{needle}: {all}");
    }
    let o = retro(&["info", "/nonexistent/kbnk.rtb"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn mnk_generate_and_probe() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = retro(&[
        "generate", "mnk", "--width", "3", "--height", "3", "--k", "3", "--out", d,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("5478") || out.contains("5,478"), "{out}");
    let o = retro(&["probe", "mnk-3x3-3", ".../.../...", "--tables", d, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["category"], "draw");
    assert_eq!(v["moves"].as_array().unwrap().len(), 9);
    // O must block the top row at c3; anything else lets X complete it next move.
    let o = retro(&["probe", "mnk-3x3-3", "xx./.o./...", "--tables", d, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["turn"], "o");
    assert_eq!(v["best"]["cell"], "c3");
    let a1 = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["cell"] == "a1")
        .unwrap();
    assert_eq!(a1["category"], "win");
    assert_eq!(a1["remoteness"], 1);
    let o = retro(&["probe", "mnk-3x3-3", "xxx/.o./...", "--tables", d]);
    assert_ne!(o.status.code(), Some(0), "wrong stone count is refused");
    let o = retro(&[
        "generate", "mnk", "--width", "5", "--height", "5", "--k", "4",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("GiB"), "{}", stderr(&o));
    let o = retro(&["generate", "mnk", "--width", "3"]);
    assert_eq!(o.status.code(), Some(2));
}

/// `retro generate NAME` works for any family's table name, and makes the bytes its older
/// spellings (`mnk --width …`, `chess MATERIAL`) make; a game's flags on another game, or on
/// a table name, are refused.
#[test]
fn generate_takes_any_table_name() {
    let by_name = tempfile::tempdir().unwrap();
    let by_flags = tempfile::tempdir().unwrap();
    let (n, f) = (
        by_name.path().to_str().unwrap(),
        by_flags.path().to_str().unwrap(),
    );
    for args in [
        vec!["generate", "mnk-3x4-3", "--out", n],
        vec!["generate", "KNvK", "--out", n],
        vec![
            "generate", "mnk", "--width", "3", "--height", "4", "--k", "3", "--out", f,
        ],
        vec!["generate", "chess", "KNvK", "--out", f],
    ] {
        let o = retro(&args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    }
    for table in ["mnk-3x4-3.rtb", "KNvK.rtb"] {
        let a = std::fs::read(by_name.path().join(table)).unwrap();
        let b = std::fs::read(by_flags.path().join(table)).unwrap();
        assert!(a == b, "{table} differs by name and by flags");
    }
    for (args, says) in [
        (
            vec!["generate", "kbnk", "--k", "3", "--out", n],
            "no parameter 'k'",
        ),
        (
            vec!["generate", "mnk-3x4-3", "--k", "3", "--out", n],
            "--k is a parameter",
        ),
        (
            vec!["generate", "mnk-3x4", "--out", n],
            "not a k-in-a-row table name",
        ),
        (
            vec!["generate", "nosuch", "--out", n],
            "unknown game or table 'nosuch'",
        ),
    ] {
        let o = retro(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
}
