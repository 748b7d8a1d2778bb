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
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
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
