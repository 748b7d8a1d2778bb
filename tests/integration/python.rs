//! The Python package (python/): built and installed with `pip install ./python` into the
//! environment of scripts/install-python-package.sh (target/python-venv, with maturin,
//! python-chess and pytest), then its pytest files (python/tests) run against the CLI's
//! answers, python-chess's own Gaviota prober on Debian's Gaviota tables, and the error
//! cases. A missing environment fails the test, naming the script.
//!
//! Tables: the shared folders of the DTZ and compressed tests and of the other games; the
//! pytest files make one more with the `retro` program.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const RETRO: &str = env!("CARGO_BIN_EXE_retro");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The virtual environment of scripts/install-python-package.sh.
fn venv() -> PathBuf {
    let dir = std::env::var_os("RETRO_PYTHON_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/python-venv"));
    assert!(
        dir.join("bin/maturin").exists(),
        "maturin is not installed in {}: run `bash scripts/install-python-package.sh` (scripts/test-all.sh does)",
        dir.display()
    );
    dir
}

/// Debian's Gaviota tables (package gaviotatb), installed by the same script.
const GAVIOTA: &str = "/usr/share/gaviotatb/gtb4";

/// `pip install ./python`, once per run: the wheel built by maturin (from the crates the
/// test build compiled: see python/Cargo.toml) and installed.
fn installed() -> PathBuf {
    static DONE: OnceLock<PathBuf> = OnceLock::new();
    DONE.get_or_init(|| {
        let venv = venv();
        let out = Command::new(venv.join("bin/pip"))
            .args([
                "install",
                "--no-build-isolation",
                "--no-deps",
                "--force-reinstall",
            ])
            .args(["--disable-pip-version-check", "--quiet", "./python"])
            .current_dir(root())
            // maturin is found in the environment, as an activated one would.
            .env("PATH", path_with(&venv.join("bin")))
            .env("VIRTUAL_ENV", &venv)
            .output()
            .expect("pip runs");
        assert!(
            out.status.success(),
            "pip install ./python failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        venv
    })
    .clone()
}

fn path_with(dir: &Path) -> std::ffi::OsString {
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).expect("PATH")
}

/// Run the pytest tests `ids` (files or node ids under python/tests); every one must pass,
/// none be skipped, and there must be `expected` of them.
fn pytest(ids: &[&str], expected: usize) {
    let venv = installed();
    assert!(
        Path::new(GAVIOTA).join("kqk.gtb.cp4").exists(),
        "Debian's Gaviota tables are not in {GAVIOTA}: run `bash scripts/install-python-package.sh`"
    );
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(venv.join("bin/python"))
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp"])
        .arg(tmp.path().join("pytest"))
        .args(ids.iter().map(|id| format!("python/tests/{id}")))
        .current_dir(root())
        .env("PATH", path_with(&venv.join("bin")))
        .env("RETRO", RETRO)
        .env("RETRO_DENSE", super::chess_dtz::dir())
        .env("RETRO_COMPRESSED", super::compressed::compressed_dir())
        .env("RETRO_GAMES", super::common::tables_dir())
        .env("GAVIOTA_TABLES", GAVIOTA)
        .output()
        .expect("pytest runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "pytest failed:\n{text}");
    let summary = text
        .lines()
        .rev()
        .find(|l| l.contains(" passed"))
        .unwrap_or_default();
    assert_eq!(
        summary.split_whitespace().next(),
        Some(expected.to_string().as_str()),
        "expected {expected} tests passed, no other outcome:\n{text}"
    );
    assert!(
        !summary.contains("skipped") && !summary.contains("warning"),
        "{summary}"
    );
}

/// Thousands of random positions of nine materials, dense with DTZ, compressed, and made
/// by the program: every DTM, WDL, DTZ, move and batch answer is the CLI's; the halfmove
/// clock moves WDL as the 50-move rule says; a board's bitboards read as its FEN.
#[test]
fn python_answers_are_the_clis() {
    pytest(&["test_answers.py"], 14);
}

/// DTM and WDL equal python-chess's Gaviota prober's on Debian's Gaviota tables, and a
/// script for chess.gaviota runs on retro's tables with its import line changed only.
#[test]
fn python_answers_are_gaviotas() {
    pytest(&["test_gaviota.py"], 2);
}

/// Missing tables are KeyErrors, impossible positions ValueErrors, with their reasons.
#[test]
fn python_errors_say_what_is_wrong() {
    pytest(&["test_errors.py"], 8);
}

/// `open_table(path).probe(text)` is `retro probe --json` for KBNK, m,n,k and chess, and
/// the extension module is built for Python's stable ABI.
#[test]
fn python_open_table_answers_as_retro_probe() {
    pytest(&["test_tables.py"], 5);
}
