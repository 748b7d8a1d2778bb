//! The table file format, version 3: every byte checked (header checksum, payload
//! checksums, zero padding, statistics recomputed by `verify`), the table name compared,
//! older versions refused with the command that regenerates it, special files refused.

use std::path::{Path, PathBuf};

use retro::table::Header;

use super::common::{edited_copy, kbnk_file, retro, stderr, stdout};

/// A copy of the shared KBNK table in its own folder, with `edit` applied to its bytes.
fn edited(edit: impl FnOnce(&mut Vec<u8>)) -> (tempfile::TempDir, PathBuf) {
    edited_copy(&kbnk_file(), edit)
}

/// The header of `bytes`, changed by `f` and written back with a valid checksum.
fn rewrite_header(bytes: &mut [u8], f: impl FnOnce(&mut Header)) {
    let hlen = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut h = Header::decode(&bytes[..hlen]).unwrap();
    f(&mut h);
    let new = h.encode();
    assert_eq!(new.len(), hlen, "same header length, same offsets");
    bytes[..hlen].copy_from_slice(&new);
}

fn all(o: &std::process::Output) -> String {
    format!("{}{}", stdout(o), stderr(o))
}

#[test]
fn older_versions_are_refused_with_the_command_that_regenerates_them() {
    for version in [1u32, 2] {
        let (dir, path) = edited(|b| b[8..12].copy_from_slice(&version.to_le_bytes()));
        let o = retro(&["info", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", all(&o));
        let e = stderr(&o);
        assert!(
            e.contains(&format!(
                "format version {version}, this build reads version 3"
            )),
            "{e}"
        );
        assert!(
            e.contains("regenerate it with `retro generate kbnk --out"),
            "{e}"
        );
        let o = retro(&[
            "probe",
            "kbnk",
            "8/8/8/8/8/8/5k2/5BNK w - - 0 1",
            "--tables",
            dir.path().to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            stderr(&o).contains(&format!("format version {version}")),
            "{}",
            stderr(&o)
        );
    }
    // A version from a newer build is not called old.
    let (_dir, path) = edited(|b| b[8..12].copy_from_slice(&4u32.to_le_bytes()));
    let e = stderr(&retro(&["info", path.to_str().unwrap()]));
    assert!(
        e.contains("version 4 is newer than this build's version 3"),
        "{e}"
    );
}

#[test]
fn a_changed_padding_byte_is_refused() {
    // The first payload starts at 4096; the two sections are 16 MiB each, so the only
    // padding is the rest of the header's page.
    let bytes = std::fs::read(kbnk_file()).unwrap();
    let hlen = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    assert!(hlen < 4000, "the header fits well within its page");
    for at in [hlen, hlen + 100, 4095] {
        let (_d, path) = edited(|b| b[at] = 0x5a);
        let o = retro(&["info", path.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", all(&o));
        assert!(
            stderr(&o).contains(&format!("padding byte at offset {at}")),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn verify_recomputes_the_statistics() {
    // One count moved from draws to illegal slots: the header still adds up and its checksum is
    // valid, so only recomputing the statistics can notice. KQvK, whose records are checked in
    // a fraction of a second (KBNK's 16.7 million took 6 s).
    let kqvk = super::common::chess_all4().join("KQvK.rtb");
    let (_d, path) = edited_copy(&kqvk, |b| {
        rewrite_header(b, |h| {
            h.sections[1].histogram[1] -= 1;
            h.sections[1].histogram[0] += 1;
        })
    });
    let o = retro(&["info", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "opens: {}", all(&o));
    let o = retro(&["verify", path.to_str().unwrap(), "--threads", "2"]);
    assert_eq!(o.status.code(), Some(1), "{}", all(&o));
    let out = stdout(&o);
    assert!(out.contains("statistics: MISMATCH in black"), "{out}");
    assert!(out.contains("checksum: ok"), "{out}");
    assert!(out.contains("59136 checked, 0 inconsistent"), "{out}");
    assert!(out.contains("FAILED"), "{out}");
}

#[test]
fn probe_compares_the_table_name() {
    let (dir, _path) = edited(|b| rewrite_header(b, |h| h.name = "kbnx".into()));
    let o = retro(&[
        "probe",
        "kbnk",
        "8/8/8/8/8/8/5k2/5BNK w - - 0 1",
        "--tables",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", all(&o));
    assert!(stderr(&o).contains("table is for 'kbnx'"), "{}", stderr(&o));
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap()
        .success();
    assert!(ok, "mkfifo works");
}

/// `info`, `verify` and `probe` on a named pipe: refused at once, not hung.
#[cfg(unix)]
#[test]
fn special_files_are_refused_not_opened() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("kbnk.rtb");
    mkfifo(&fifo);
    let d = dir.path().to_str().unwrap();
    let f = fifo.to_str().unwrap();
    let runs: [&[&str]; 3] = [
        &["info", f],
        &["verify", f],
        &[
            "probe",
            "kbnk",
            "8/8/8/8/8/8/5k2/5BNK w - - 0 1",
            "--tables",
            d,
        ],
    ];
    for args in runs {
        let start = std::time::Instant::now();
        let o = retro_with_timeout(args, std::time::Duration::from_secs(20));
        assert!(start.elapsed().as_secs() < 10, "{args:?} took too long");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", all(&o));
        assert!(
            stderr(&o).contains("not a regular file (a named pipe)"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    let o = retro(&["info", dir.path().to_str().unwrap()]);
    assert!(
        stderr(&o).contains("not a regular file (a directory)"),
        "{}",
        stderr(&o)
    );
}

/// Runs `retro`, killing it if it outlives `limit` (a hang must fail the test, not stall it).
fn retro_with_timeout(args: &[&str], limit: std::time::Duration) -> std::process::Output {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        if rx.recv_timeout(limit).is_err() {
            let _ = std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status();
        }
    });
    let out = child.wait_with_output().unwrap();
    let _ = tx.send(());
    out
}

#[cfg(unix)]
#[test]
fn a_symlink_loop_is_named_not_called_missing() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("b.rtb", dir.path().join("kbnk.rtb")).unwrap();
    std::os::unix::fs::symlink("kbnk.rtb", dir.path().join("b.rtb")).unwrap();
    let o = retro(&[
        "probe",
        "kbnk",
        "8/8/8/8/8/8/5k2/5BNK w - - 0 1",
        "--tables",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("symbolic links"), "{e}");
    assert!(!e.contains("no table"), "{e}");
}

#[test]
fn io_errors_name_their_cause_once() {
    let o = retro(&["info", "/nonexistent/kbnk.rtb"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("/nonexistent/kbnk.rtb"), "{e}");
    assert_eq!(e.matches("No such file or directory").count(), 1, "{e}");
}

#[test]
fn a_killed_runs_temporary_file_is_removed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let stale = dir.path().join(".mnk-3x3-3.Ab12Cd.tmp");
    let other = dir.path().join(".mnk-3x4-3.Ab12Cd.tmp");
    std::fs::write(&stale, vec![7u8; 10_000]).unwrap();
    std::fs::write(&other, b"another table's").unwrap();
    let o = retro(&[
        "generate",
        "mnk",
        "--width",
        "3",
        "--height",
        "3",
        "--k",
        "3",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", all(&o));
    assert!(!stale.exists(), "the stale temporary file is gone");
    assert!(other.exists(), "another table's temporary file is kept");
    assert!(dir.path().join("mnk-3x3-3.rtb").exists());
    assert!(
        stderr(&o).contains("left by an interrupted run"),
        "{}",
        stderr(&o)
    );
}
