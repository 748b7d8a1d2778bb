//! Runs the real `retro gomoku validate` binary on strategy files the project made itself.

use std::path::Path;
use std::process::{Command, Output};

/// The project's own strategy files (embedded, so the test does not depend on paths).
fn data(name: &str) -> &'static str {
    match name {
        "four_then_fork.json" => include_str!("../data/gomoku/four_then_fork.json"),
        "four_then_fork_changed.json" => include_str!("../data/gomoku/four_then_fork_changed.json"),
        "four_then_fork_illegal.json" => include_str!("../data/gomoku/four_then_fork_illegal.json"),
        "overline.json" => include_str!("../data/gomoku/overline.json"),
        "k3_4x4.json" => include_str!("../data/gomoku/k3_4x4.json"),
        "quiet_hole.json" => include_str!("../data/gomoku/quiet_hole.json"),
        "three_holes.json" => include_str!("../data/gomoku/three_holes.json"),
        "far_first_move.json" => include_str!("../data/gomoku/far_first_move.json"),
        _ => panic!("unknown test file {name}"),
    }
}

/// Writes a data file into a fresh temporary folder and validates it there.
fn validate(name: &str, extra: &[&str]) -> (Output, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join(name);
    std::fs::write(&file, data(name)).expect("write test data");
    validate_path(&file, dir.path(), extra)
}

fn validate_path(file: &Path, cwd: &Path, extra: &[&str]) -> (Output, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retro"))
        .current_dir(cwd)
        .args(["gomoku", "validate"])
        .arg(file)
        .args(["--quiet"])
        .args(extra)
        .output()
        .expect("run retro");
    let text = super::common::output_text(&out);
    (out, text)
}

#[test]
fn valid_hand_built_strategy_exits_0() {
    let (out, text) = validate("four_then_fork.json", &[]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("VALID"), "{text}");
    assert!(text.contains("longest forced game"), "{text}");
}

#[test]
fn changed_black_move_exits_1_with_the_line_and_a_diagram() {
    let (out, text) = validate("four_then_fork_changed.json", &[]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("INVALID"), "{text}");
    assert!(text.contains("moves: 1. e2 f2 2. a8 "), "{text}");
    assert!(
        text.contains("a b c d e f g h i j k l m n o"),
        "board diagram expected:\n{text}"
    );
    assert!(text.contains("why:"), "{text}");
}

#[test]
fn illegal_move_is_reported() {
    let (out, text) = validate("four_then_fork_illegal.json", &[]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("illegal black move"), "{text}");
    assert!(text.contains("moves: 1. e2 f2 2. e8"), "{text}");
}

#[test]
fn overline_wins_only_under_freestyle() {
    let (out, text) = validate("overline.json", &["--rules", "freestyle"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let (out, text) = validate("overline.json", &["--rules", "standard"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
}

#[test]
fn move_limit_is_enforced() {
    // The fork needs black's 11th move; a limit of 10 must fail.
    let (out, text) = validate("four_then_fork.json", &["--max-moves", "10"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
}

#[test]
fn strategy_exported_from_k_in_a_row_search_is_valid() {
    let (out, text) = validate("k3_4x4.json", &[]);
    assert_eq!(out.status.code(), Some(0), "{text}");
}

#[test]
fn unreadable_files_exit_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (out, text) = validate_path(&dir.path().join("missing.json"), dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("cannot read"), "{text}");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"h8": {"h9": {"zz": 1}}}"#).expect("write");
    let (out, text) = validate_path(&bad, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("h8 h9"), "the error names where: {text}");
    std::fs::write(&bad, "not json").expect("write");
    let (out, _) = validate_path(&bad, dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
}

/// The number after `label` on the report line that starts with it.
fn count_after(text: &str, label: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.trim_start().starts_with(label))?;
    line.trim_start()[label.len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// A first move in the corner with 40 listed white replies, each an integer leaf the
/// proof search cannot close (it gives up on each after 20,000 tree nodes, about a second
/// each on 2 cores): 41 holes at 31 positions (a1 lies on the diagonal, so 10 pairs of
/// replies mirror each other, and each position is checked once). By default the run
/// stops at the first one, prints it with what the proof search tried, and exits 1 long
/// before every hole could be searched.
#[test]
fn a_wrong_file_is_refused_at_its_first_hole() {
    let (out, text) = validate("far_first_move.json", &[]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("gomoku strategy: INVALID"), "{text}");
    // The hole: its line, why, the board, and what the proof search tried there.
    assert!(text.contains("moves: 1. a1 "), "{text}");
    assert!(text.contains("why:   "), "{text}");
    assert!(text.contains("a b c d e f g h i j k l m n o"), "{text}");
    assert!(text.contains("  not closed: 1. a1 "), "{text}");
    assert!(text.contains("black moves tried: "), "{text}");
    assert_eq!(text.matches("  not closed: ").count(), 1, "{text}");
    assert_eq!(count_after(&text, "failures"), Some(1), "{text}");
    assert!(text.contains("--all-holes goes on"), "{text}");
    // Stopped early: only a few of the 31 tasks ran (one per thread, and the tasks in
    // hand when the first hole was found).
    let line = text
        .lines()
        .find(|l| l.contains("stopped at the first failure   "))
        .unwrap_or_else(|| panic!("no 'stopped' line:\n{text}"));
    let ran: u64 = line
        .split_whitespace()
        .find_map(|w| w.parse().ok())
        .expect("tasks run");
    assert!(ran <= 8 && line.ends_with("of 31 tasks run"), "{line}");
    assert_eq!(count_after(&text, "repeated positions"), Some(10), "{text}");
}

/// Three holes the proof search refutes at once: by default the first one found stops
/// the run; --all-holes (and --repair) go on and list all three, each with what was
/// tried, and the first in the walk's order.
#[test]
fn all_holes_lists_every_hole() {
    let (out, text) = validate("three_holes.json", &[]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(text.matches("  not closed: ").count(), 1, "{text}");
    assert_eq!(count_after(&text, "failures"), Some(1), "{text}");
    assert!(text.contains("stopped at the first failure"), "{text}");
    for extra in [&["--all-holes"][..], &["--repair", "out.json"]] {
        let (out, text) = validate("three_holes.json", extra);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {text}");
        assert_eq!(count_after(&text, "failures"), Some(3), "{extra:?}: {text}");
        assert_eq!(
            text.matches("  not closed: ").count(),
            3,
            "{extra:?}: {text}"
        );
        for line in [
            "  not closed: 1. e2 f2 2. a8 a1 3. b8 ",
            "  not closed: 1. e2 f2 2. a8 b1 3. c8 ",
            "  not closed: 1. e2 f2 2. a8 c1: ",
        ] {
            assert!(text.contains(line), "{extra:?}: {line}\n{text}");
        }
        // The first failure in the walk's order: a8's first unlisted reply.
        assert!(
            text.contains("moves: 1. e2 f2 2. a8 c1\n"),
            "{extra:?}: {text}"
        );
        assert!(
            !text.contains("stopped at the first failure"),
            "{extra:?}: {text}"
        );
    }
}

/// A valid file whose one hole the proof search closes: the default run does not stop
/// there, and exits 0.
#[test]
fn a_valid_file_with_a_hole_the_proof_search_closes_exits_0() {
    let (out, text) = validate("quiet_hole.json", &[]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("gomoku strategy: VALID"), "{text}");
    assert!(
        text.contains("closed by the proof search     1 white replies"),
        "{text}"
    );
    assert!(!text.contains("stopped at the first failure"), "{text}");
    assert!(!text.contains("not closed"), "{text}");
}

/// The proof search's total budget: spent (0 s), the hole is left open without a
/// search, and the report says so.
#[test]
fn a_spent_proof_budget_leaves_holes_open_and_says_so() {
    let (out, text) = validate("quiet_hole.json", &["--proof-budget", "0"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("  not closed: 1. e3 f3: not searched: the proof search's budget"),
        "{text}"
    );
    assert!(text.contains("--proof-budget gives it more"), "{text}");
}

/// Runs `retro gomoku prove` in `cwd`.
fn prove(cwd: &Path, args: &[&str]) -> (Output, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retro"))
        .current_dir(cwd)
        .args(["gomoku", "prove"])
        .args(args)
        .output()
        .expect("run retro");
    let text = super::common::output_text(&out);
    (out, text)
}

/// `prove` and `solve` are one search: a stone-16 node of the published strategy that the
/// solver proves in a fraction of a second is proven by `prove` too, with the same first
/// move, and `prove` leaves no checkpoint behind.
#[test]
fn prove_and_solve_agree() {
    let dir = tempfile::tempdir().expect("temp dir");
    let node = "h8 i9 g9 i7 g10 h7 i10 g7 j7 h10 g11 g12 f10 h11 f11 h9";
    let (out, proved) = prove(dir.path(), &[node, "--time-limit", "60", "--out", "p.json"]);
    assert_eq!(out.status.code(), Some(0), "{proved}");
    let out = Command::new(env!("CARGO_BIN_EXE_retro"))
        .current_dir(dir.path())
        .args([
            "gomoku",
            "solve",
            node,
            "--time-limit",
            "60",
            "--out",
            "s.json",
        ])
        .output()
        .expect("run retro");
    let solved = super::common::output_text(&out);
    assert_eq!(out.status.code(), Some(0), "{solved}");
    let first = |t: &str| {
        t.lines()
            .find_map(|l| l.strip_prefix("strategy: black plays "))
            .and_then(|l| l.split_whitespace().next())
            .map(str::to_string)
    };
    assert!(first(&proved).is_some(), "{proved}");
    assert_eq!(first(&proved), first(&solved), "{proved}\n{solved}");
    assert_eq!(
        std::fs::read(dir.path().join("p.json")).unwrap(),
        std::fs::read(dir.path().join("s.json")).unwrap()
    );
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["p.json", "s.json"]);
}

#[test]
fn prove_finds_a_quiet_win_and_its_strategy_validates() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (out, text) = prove(dir.path(), &["h8 a1 i9 o15", "--out", "s.json"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("black wins by stone"), "{text}");
    assert!(text.contains("limit: black's five by stone 35"), "{text}");
    let (out, text) = validate_path(
        &dir.path().join("s.json"),
        dir.path(),
        &["--no-proof-search"],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    // White to move: the strategy starts with black's last stone.
    let (out, text) = prove(dir.path(), &["h8 a1 i9 o15 j8", "--out", "w.json"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let (out, text) = validate_path(
        &dir.path().join("w.json"),
        dir.path(),
        &["--no-proof-search"],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
}

/// A root proven by the threat search alone, whose first black move is the block of
/// white's four (f12 g12 h12 i12, blocked at j12): proven, exit 0, and the strategy
/// written validates. It once said "the first move could not be isolated" and exited 2,
/// looking for the first move among black's own threats only.
#[test]
fn prove_writes_a_threat_proof_that_starts_with_a_forced_block() {
    let dir = tempfile::tempdir().expect("temp dir");
    let moves =
        "h8 i9 g9 i7 g10 h7 i10 h10 g11 g12 f10 g7 j7 h11 f11 h9 f13 h12 h13 f12 e11 d12 e12 i12";
    let (out, text) = prove(dir.path(), &[moves, "--out", "s.json"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("black wins by stone 33"), "{text}");
    assert!(text.contains("strategy: black plays j12 first"), "{text}");
    let (out, text) = validate_path(
        &dir.path().join("s.json"),
        dir.path(),
        &["--no-proof-search"],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("VALID"), "{text}");
}

#[test]
fn prove_says_not_proven_with_what_it_tried() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Black's 2nd move by stone 3 cannot make five.
    let (out, text) = prove(dir.path(), &["h8 h9", "--max-stones", "3"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("not proven within limits"), "{text}");
    assert!(
        text.contains("limit: black's five by stone 3 (black's move 2)"),
        "{text}"
    );
    let (out, text) = prove(
        dir.path(),
        &["h8 h9", "--time-limit", "1", "--tree-nodes", "50"],
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("root moves tried"), "{text}");
}

#[test]
fn prove_rejects_bad_positions_with_exit_2() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (pos, needle) in [
        ("h8 h8", "twice"),
        ("h8 z99", "bad cell"),
        ("", "empty position"),
        ("a1 a2 b1 b2 c1 c2 d1 d2 e1", "game is over"),
        ("xx.../...../...../...../.....", "black must have"),
        ("x../.../...", "unsupported board"),
    ] {
        let (out, text) = prove(dir.path(), &[pos]);
        assert_eq!(out.status.code(), Some(2), "{pos}: {text}");
        assert!(text.contains(needle), "{pos}: {text}");
    }
}

#[test]
fn repair_closes_a_quiet_hole_and_the_completed_file_validates() {
    // The threat search alone leaves the leaf after e3 f3 open.
    let (out, text) = validate("quiet_hole.json", &["--no-proof-search"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("quiet_hole.json");
    std::fs::write(&file, data("quiet_hole.json")).expect("write");
    let (out, text) = validate_path(&file, dir.path(), &["--repair", "done.json"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("closed by the proof search     1 white replies"),
        "{text}"
    );
    assert!(text.contains("1. e3 f3: black "), "{text}");
    // The completed file holds the sub-strategy: valid without any proof search.
    let (out, text) = validate_path(
        &dir.path().join("done.json"),
        dir.path(),
        &["--no-proof-search"],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("listed white replies"), "{text}");
}

#[test]
fn limit_is_given_in_stones_or_black_moves() {
    // The fork needs black's 11th move, stone 21.
    let (out, text) = validate("four_then_fork.json", &["--max-stones", "21"]);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("black's five by stone 21 (black's move 11)"),
        "{text}"
    );
    let (out, text) = validate(
        "four_then_fork.json",
        &["--max-stones", "19", "--no-proof-search"],
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    let (out, text) = validate(
        "four_then_fork.json",
        &["--max-stones", "19", "--max-black-moves", "10"],
    );
    assert_eq!(out.status.code(), Some(2), "conflicting limits: {text}");
}

/// Runs `retro gomoku solve` in `cwd`.
fn solve(cwd: &Path, args: &[&str]) -> (Output, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_retro"))
        .current_dir(cwd)
        .args(["gomoku", "solve"])
        .args(args)
        .output()
        .expect("run retro");
    let text = super::common::output_text(&out);
    (out, text)
}

#[test]
fn solve_writes_a_strategy_that_validates() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (moves, file) in [("h8 a1 i9 o15", "s.json"), ("h8 a1 i9 o15 j8", "w.json")] {
        let (out, text) = solve(dir.path(), &[moves, "--out", file]);
        assert_eq!(out.status.code(), Some(0), "{moves}: {text}");
        assert!(text.contains("black wins by stone"), "{text}");
        assert!(text.contains("validated: VALID"), "{text}");
        assert!(!dir.path().join(format!("{file}.checkpoint")).exists());
        // The file stands on its own: valid without the validator's proof search.
        let (out, text) = validate_path(&dir.path().join(file), dir.path(), &["--no-proof-search"]);
        assert_eq!(out.status.code(), Some(0), "{moves}: {text}");
    }
}

/// A run stopped by its node limit leaves a checkpoint; the next run resumes from it and
/// finishes the proof, which validates.
#[test]
fn solve_resumes_from_its_checkpoint() {
    let dir = tempfile::tempdir().expect("temp dir");
    let args = ["h8 a1 i9 o15", "--out", "s.json"];
    let (out, text) = solve(dir.path(), &[&args[..], &["--tree-nodes", "10"]].concat());
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("graph node limit reached"), "{text}");
    assert!(dir.path().join("s.json.checkpoint").exists(), "{text}");
    let (out, text) = solve(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("resuming from s.json.checkpoint"), "{text}");
    assert!(text.contains("validated: VALID"), "{text}");
    let (out, text) = validate_path(
        &dir.path().join("s.json"),
        dir.path(),
        &["--no-proof-search"],
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
}

/// Killed while it runs (after its first checkpoint), the next run resumes.
#[test]
fn solve_resumes_after_a_kill() {
    let dir = tempfile::tempdir().expect("temp dir");
    // A 16-stone node of a published line that takes the search more than a minute.
    let moves = "h8 i9 g9 i7 g10 i10 i8 g8 h9 f11 h10 h11 i11 f8 k8 f9";
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .current_dir(dir.path())
        .args([
            "gomoku",
            "solve",
            moves,
            "--out",
            "s.json",
            "--checkpoint-every",
            "0.2",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run retro");
    let cp = dir.path().join("s.json.checkpoint");
    let t = std::time::Instant::now();
    while !cp.exists() && t.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().expect("kill");
    let _ = child.wait();
    assert!(cp.exists(), "no checkpoint within 20 s");
    let (out, text) = solve(dir.path(), &[moves, "--out", "s.json", "--tree-nodes", "1"]);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("resuming from s.json.checkpoint"), "{text}");
}

#[test]
fn solve_rejects_bad_input_and_says_what_it_tried() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (pos, needle) in [
        ("h8 h8", "twice"),
        ("a1 a2 b1 b2 c1 c2 d1 d2 e1", "game is over"),
    ] {
        let (out, text) = solve(dir.path(), &[pos, "--out", "s.json"]);
        assert_eq!(out.status.code(), Some(2), "{pos}: {text}");
        assert!(text.contains(needle), "{pos}: {text}");
    }
    // A damaged checkpoint is refused, not overwritten.
    std::fs::write(dir.path().join("d.json.checkpoint"), "junk").expect("write");
    let (out, text) = solve(dir.path(), &["h8 a1 i9 o15", "--out", "d.json"]);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("not a valid checkpoint"), "{text}");
    // Black's 2nd move by stone 3 cannot make five.
    let (out, text) = solve(
        dir.path(),
        &["h8 h9", "--max-stones", "3", "--out", "l.json"],
    );
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("not proven within limits"), "{text}");
    assert!(text.contains("stopped: "), "{text}");
    assert!(!dir.path().join("l.json").exists());
}
