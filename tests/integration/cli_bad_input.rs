//! The CLI under hostile conditions: a closed standard output, bad bytes and huge lines on
//! batch input, absurd thread counts, nonsense board sizes.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use super::cli::retro_stdin;
use super::common::{kbnk_file, retro, stderr, stdout, tables_dir};

/// Runs `retro` with its standard output closed before it writes: it must exit 0 without a
/// word (no panic, no "Broken pipe" message), as ripgrep does.
fn with_closed_stdout(args: &[&str], stdin: Option<Vec<u8>>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader goes away at once, like `| head -0`
    let writer = child.stdin.take().map(|mut w| {
        let input = stdin.unwrap_or_default();
        std::thread::spawn(move || {
            let _ = w.write_all(&input);
        })
    });
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    if let Some(w) = writer {
        w.join().unwrap();
    }
    assert_eq!(status.code(), Some(0), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(!err.contains("Broken pipe"), "{args:?}: {err}");
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let kbnk = kbnk_file();
    let k = kbnk.to_str().unwrap();
    let t = tables_dir().to_str().unwrap();
    with_closed_stdout(&["info", k], None);
    let small = tables_dir().join("mnk-3x3-3.rtb");
    with_closed_stdout(&["verify", small.to_str().unwrap()], None);
    with_closed_stdout(
        &[
            "probe",
            "kbnk",
            "8/8/8/8/8/8/5k2/5BNK w - - 0 1",
            "--tables",
            t,
        ],
        None,
    );
    let many = "8/8/8/8/8/8/5k2/5BNK w - - 0 1\n".repeat(50_000);
    with_closed_stdout(
        &["probe", "kbnk", "-", "--tables", t],
        Some(many.into_bytes()),
    );
    let out = tempfile::tempdir().unwrap();
    let o = out.path().to_str().unwrap();
    with_closed_stdout(
        &[
            "generate", "mnk", "--width", "3", "--height", "3", "--k", "3", "--out", o,
        ],
        None,
    );
    assert!(
        out.path().join("mnk-3x3-3.rtb").exists(),
        "the table is written all the same"
    );
    let strategy = out.path().join("s.json");
    std::fs::write(&strategy, include_str!("../data/gomoku/k3_4x4.json")).unwrap();
    with_closed_stdout(
        &["gomoku", "validate", strategy.to_str().unwrap(), "--quiet"],
        None,
    );
}

/// More than one block (16,384 lines) of answers, a line of bad UTF-8 and a 1 MB line in
/// the middle: every line is answered in order, the bad ones with an error naming the line.
#[test]
fn bad_batch_lines_are_answered_and_the_run_goes_on() {
    let mut input = Vec::new();
    let good = b"x../.o./...\n";
    for _ in 0..17_000 {
        input.extend_from_slice(good);
    }
    input.extend_from_slice(b"x..\xff/.o./...\n"); // line 17,001
    input.extend(std::iter::repeat_n(b'.', 1 << 20)); // line 17,002
    input.push(b'\n');
    for _ in 0..3 {
        input.extend_from_slice(good);
    }
    let t = tables_dir().to_str().unwrap();
    let o = retro_stdin(&["probe", "mnk-3x3-3", "-", "--tables", t], &input);
    assert_eq!(
        o.status.code(),
        Some(1),
        "bad lines make the exit code 1: {}",
        stderr(&o)
    );
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 17_005);
    let answered = |l: &serde_json::Value| l.get("error").is_none() && l["turn"] == "x";
    assert!(lines[..17_000].iter().all(answered));
    assert_eq!(lines[17_000]["line"], 17_001);
    let e = lines[17_000]["error"].as_str().unwrap();
    assert!(e.contains("line 17001 is not valid UTF-8"), "{e}");
    assert_eq!(lines[17_001]["line"], 17_002);
    let e = lines[17_001]["error"].as_str().unwrap();
    assert!(e.contains("line 17002 is longer than 4096 bytes"), "{e}");
    assert!(lines[17_002..].iter().all(answered));
}

#[test]
fn thread_counts_are_bounded() {
    for bad in ["100000", "0", "1025", "many"] {
        let o = retro(&[
            "generate",
            "kbnk",
            "--threads",
            bad,
            "--out",
            "/nonexistent",
        ]);
        assert_eq!(o.status.code(), Some(2), "--threads {bad}");
        assert!(
            stderr(&o).contains("number of threads from 1 to 1024"),
            "--threads {bad}: {}",
            stderr(&o)
        );
    }
    let k = kbnk_file();
    let o = retro(&["verify", k.to_str().unwrap(), "--threads", "100000"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn board_size_messages_make_sense() {
    let o = retro(&[
        "generate", "mnk", "--width", "1", "--height", "1", "--k", "1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(!e.contains("2 <= k <= 1"), "{e}");
    assert!(e.contains("1x1 board has no row of 2 cells"), "{e}");
    let o = retro(&[
        "generate", "mnk", "--width", "3", "--height", "3", "--k", "4",
    ]);
    assert!(
        stderr(&o).contains("k must be between 2 and 3"),
        "{}",
        stderr(&o)
    );
}

/// A flag in seconds that is not a number of seconds (NaN, an infinity, negative, beyond
/// 10^9) is refused by the argument parser, naming the flag: exit 2, no panic, nothing
/// written.
#[test]
fn seconds_flags_refuse_what_is_not_a_span_of_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s.json");
    let out = out.to_str().unwrap();
    for bad in ["nan", "NaN", "inf", "-inf", "-1", "1e10", "soon"] {
        for (args, flag) in [
            (
                vec!["gomoku", "solve", "h8 h9 g9", "--out", out],
                "--time-limit",
            ),
            (
                vec!["gomoku", "solve", "h8 h9 g9", "--out", out],
                "--checkpoint-every",
            ),
            (
                vec!["gomoku", "prove", "h8 h9 g9", "--out", out],
                "--time-limit",
            ),
            (vec!["gomoku", "validate", out], "--proof-budget"),
        ] {
            // `--flag=-1`: a value, not another flag.
            let given = format!("{flag}={bad}");
            let args = [&args[..], &[given.as_str()]].concat();
            let o = retro(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            assert!(
                stderr(&o).contains(flag) && stderr(&o).contains("seconds"),
                "{args:?}: {}",
                stderr(&o)
            );
        }
    }
    assert!(!Path::new(out).exists(), "nothing written");
}
