//! `retro generate chess` and `retro probe chess` through the real executable: sub-tables
//! first, resuming, identical bytes whatever the thread count, answers in words and JSON,
//! and every kind of bad input refused with a message naming the problem.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use super::common::{output_text as text, retro};

fn generate(dir: &Path, args: &[&str]) -> Output {
    let mut a = vec!["generate", "chess"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--out", dir.to_str().unwrap()]);
    retro(&a)
}

fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn sub_tables_first_then_resume() {
    let dir = tempfile::tempdir().unwrap();
    let o = generate(dir.path(), &["KQvKR"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    // Children first, one progress line per table, with what it takes.
    let c = t.find("[3/3] KQvKR: 3784704 positions, about ").expect(&t);
    assert!(t[c..].contains("of memory, a 7.22 MiB file ("), "{t}");
    // With the time so far and, after the first table made, an estimate of the rest.
    assert!(t[c..].contains(" so far, about "), "{t}");
    // Not a terminal: each phase of the solve says when it starts, in plain lines.
    for phase in ["  retrograde (from ", "  best moves and writing (from "] {
        assert!(t[c..].contains(phase), "{phase}: {t}");
    }
    for child in ["] KRvK: ", "] KQvK: "] {
        assert!(t.find(child).expect(&t) < c, "{t}");
    }
    assert!(t.contains("longest 35 moves"), "{t}");
    assert_eq!(files(dir.path()), ["KQvK.rtb", "KQvKR.rtb", "KRvK.rtb"]);
    // A second run has nothing to do.
    let o = generate(dir.path(), &["KQvKR"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert_eq!(t.matches("present, skipped").count(), 3, "{t}");
    // A damaged sub-table is refused, never silently overwritten, and nothing is written.
    let path = dir.path().join("KQvK.rtb");
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 100] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    // While nothing to make reads it, its records are not read through: the run skips
    // every table and leaves them as they are.
    let o = generate(dir.path(), &["KQvKR"]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert_eq!(t.matches("present, skipped").count(), 3, "{t}");
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    std::fs::remove_file(dir.path().join("KQvKR.rtb")).unwrap();
    let o = generate(dir.path(), &["KQvKR"]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("KQvK") && t.contains("checksum"), "{t}");
    assert_eq!(files(dir.path()), ["KQvK.rtb", "KRvK.rtb"]);
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    // Probing a table whose sub-table is damaged names it too.
    let o = retro(&[
        "probe",
        "chess",
        "8/8/8/8/8/2k5/8/KQ6 w - - 0 1",
        "--tables",
        dir.path().to_str().unwrap(),
    ]);
    let t = text(&o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains("checksum"), "{t}");
}

#[test]
fn threads_do_not_change_the_bytes() {
    let one = tempfile::tempdir().unwrap();
    let two = tempfile::tempdir().unwrap();
    for (d, n) in [(&one, "1"), (&two, "2")] {
        let o = generate(d.path(), &["KPvK", "--threads", n]);
        assert!(o.status.success(), "{}", text(&o));
    }
    let names = files(one.path());
    assert_eq!(
        names,
        ["KBvK.rtb", "KNvK.rtb", "KPvK.rtb", "KQvK.rtb", "KRvK.rtb"]
    );
    for f in names {
        let a = std::fs::read(one.path().join(&f)).unwrap();
        let b = std::fs::read(two.path().join(&f)).unwrap();
        assert!(a == b, "{f} differs");
    }
    // Probing: words, JSON, a colour-swapped position, a promotion, a batch.
    let dir = one.path().to_str().unwrap();
    let o = retro(&[
        "probe",
        "chess",
        "8/8/8/8/8/8/4P3/4K2k w - - 0 1",
        "--tables",
        dir,
    ]);
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("(KPvK)\nwhite mates in 12\n"), "{t}");
    assert!(
        t.contains("  e4       e2e4   mate in 12 (23 plies)\n"),
        "{t}"
    );
    // A drawing move says why: the pawn steps next to the black king, unguarded.
    let o = retro(&[
        "probe",
        "chess",
        "8/8/8/8/3k4/8/4P3/7K w - - 0 1",
        "--tables",
        dir,
    ]);
    let t = text(&o);
    assert!(
        t.contains("  e3+      e2e3   draw: black takes the pawn\n"),
        "{t}"
    );
    // Stalemate, from the board's view.
    let o = retro(&[
        "probe",
        "chess",
        "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1",
        "--tables",
        dir,
        "--json",
    ]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["result"], "stalemate");
    assert_eq!(j["stalemate"], true);
    assert_eq!(j["check"], false);
    // The FEN's counters are echoed, `_` stands for spaces.
    let o = retro(&[
        "probe",
        "chess",
        "8/8/8/8/8/8/4P3/4K2k_w_-_-_37_80",
        "--tables",
        dir,
        "--json",
    ]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["fen"], "8/8/8/8/8/8/4P3/4K2k w - - 37 80");
    let o = retro(&[
        "probe",
        "chess",
        "8/8/8/8/8/8/6p1/K6k b - - 0 1",
        "--tables",
        dir,
        "--json",
    ]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["table"], "KPvK");
    assert_eq!(j["side"], "black");
    let promos: Vec<&str> = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["promotion"].as_str())
        .collect();
    assert_eq!(promos.len(), 4, "{j}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["probe", "chess", "-", "--tables", dir])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"8/8/8/8/8/8/4P3/4K2k w - - 0 1\n8/8/8/8/8/8/4P3/4K2k x\n8/8/8/8/8/2k5/8/KQ5r w - - 0 1\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["table"], "KPvK");
    assert!(lines[1]["error"].as_str().unwrap().contains("side to move"));
    // A material with no table: the message names the command that makes it.
    let e = lines[2]["error"].as_str().unwrap();
    assert!(e.contains("retro generate chess KQvKR"), "{e}");
}

#[test]
fn bad_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["generate", "chess", "KQRBvKRN", "--out", d], "7 pieces"),
        // A 6-piece table is refused up front where its memory is not there.
        (
            &[
                "generate",
                "chess",
                "KQRBvKR",
                "--max-memory",
                "4G",
                "--out",
                d,
            ],
            "GiB of memory to generate, and 4.00 GiB is available (--max-memory)",
        ),
        (
            &["generate", "chess", "QvKR", "--out", d],
            "exactly one king",
        ),
        (&["generate", "chess", "KXvK", "--out", d], "not a material"),
        (&["generate", "chess", "KvK", "--out", d], "bare kings"),
        (
            &["generate", "chess", "--all", "6", "--out", d],
            "--all takes 3, 4 or 5",
        ),
        (&["generate", "chess", "--out", d], "give a material"),
        (
            &[
                "probe",
                "chess",
                "P7/8/8/8/8/8/8/K6k w - - 0 1",
                "--tables",
                d,
            ],
            "first or last rank",
        ),
        (
            &[
                "probe",
                "chess",
                "8/8/8/8/8/8/8/K6k w KQ - 0 1",
                "--tables",
                d,
            ],
            "castling",
        ),
        (
            &["probe", "chess", "8/8/8/9/8/8/8/K6k", "--tables", d],
            "FEN",
        ),
        (
            &[
                "probe",
                "chess",
                "8/8/8/8/8/2k5/8/KQ5r w - - 0 1",
                "--tables",
                d,
            ],
            "retro generate chess KQvKR",
        ),
        (
            &[
                "probe",
                "chess",
                "8/8/8/8/8/8/qqq5/KQQ4k w - - 0 1",
                "--tables",
                d,
            ],
            "more than 6 pieces",
        ),
    ];
    for (args, want) in cases {
        let o = retro(args);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {t}");
        assert!(t.contains(want), "{args:?}: {t}");
        assert!(!t.contains("panicked"), "{args:?}: {t}");
    }
    assert!(files(dir.path()).is_empty());
}
