//! The CLI against a hostile user or a careless operator: a table cut or rewritten in place
//! while a batch probe reads it, a named pipe or `/dev/urandom` given as an input file, a
//! full disk under every file a command writes, a resumed search given other options,
//! numbers out of range or not numbers at all, and the exit code of a refused position.
//! Each case is bounded: the whole module runs in seconds.

use std::hash::Hasher as _;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::common::{output_text, retro, stderr, stdout};

fn retro_in(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retro"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("retro runs")
}

/// The output of `child`, which must end within `limit`: killed and failed otherwise.
/// Its output is read as it comes, so a full pipe cannot stall it.
fn finish_within(child: Child, limit: Duration, what: &str) -> Output {
    let pid = child.id().to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.expect("output"),
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", &pid]).status();
            panic!("{what}: still running after {limit:?}");
        }
    }
}

/// Two mnk-5x4-4 boards, one a line, `n` lines.
fn board_lines(n: usize) -> String {
    let boards = ["...../...../...../.....", "x..../...../...../....."];
    (0..n).map(|i| format!("{}\n", boards[i % 2])).collect()
}

/// A valid mnk-5x4-4 table (374 MB, above the 64 MiB a probe copies into memory, so read
/// from the file while it probes) whose every slot says "illegal", written sparse: made in
/// a moment, it holds no disk blocks. Its header, sections and checksums are the real
/// shape's, so `retro probe` opens it as it opens the solved one.
fn large_table(dir: &Path) -> PathBuf {
    use retro::table::{Header, SectionInfo, VALUE_CODES};
    let plugin = retro::GAMES.plugin("mnk-5x4-4").unwrap();
    let (game, params) = plugin.params();
    let zeros = vec![0u8; 1 << 20];
    let sections = plugin
        .sections()
        .into_iter()
        .map(|s| {
            let mut h = twox_hash::XxHash3_64::new();
            let mut left = s.len * 2;
            while left > 0 {
                let n = left.min(zeros.len() as u64);
                h.write(&zeros[..n as usize]);
                left -= n;
            }
            let mut histogram = vec![0; VALUE_CODES];
            histogram[0] = s.len;
            SectionInfo {
                name: s.name,
                records: s.len,
                offset: 0,
                checksum: h.finish(),
                histogram,
            }
        })
        .collect();
    let mut header = Header {
        game: game.into(),
        name: "mnk-5x4-4".into(),
        params,
        sections,
    };
    let path = dir.join("mnk-5x4-4.rtb");
    std::fs::write(&path, header.encode()).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(header.file_len()).unwrap();
    assert!(header.file_len() > retro::table::IN_MEMORY_MAX);
    path
}

/// How a test damages a table in place while a batch probe reads it.
#[derive(Clone, Copy, Debug)]
enum Damage {
    Cut,
    Overwrite,
}

/// `retro probe mnk-5x4-4 -` over [`large_table`], fed two blocks of lines (16,384 each),
/// then, once the first block's answers are out, the table damaged in place, then two more
/// blocks. Returns the table's length, the answers (each parsed: none cut short) and the
/// run's output.
fn batch_probe_while(damage: Damage) -> (u64, Vec<serde_json::Value>, Output) {
    const BLOCK: usize = 1 << 14;
    let dir = tempfile::tempdir().unwrap();
    let table = large_table(dir.path());
    let mut child = super::common::batch_probe("mnk-5x4-4", dir.path());
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let reader = {
        let lines = lines.clone();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for l in std::io::BufReader::new(out).lines() {
                lines.lock().unwrap().push(l.unwrap());
            }
        })
    };
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(board_lines(2 * BLOCK).as_bytes()).unwrap();
    let start = Instant::now();
    // Answers leave through a 1 MiB buffer: a quarter of the first block shows it was
    // answered.
    while lines.lock().unwrap().len() < BLOCK / 4 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no answers within 30 s"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&table)
        .unwrap();
    let len = f.metadata().unwrap().len();
    match damage {
        // Before: SIGBUS, the process killed (exit 135).
        Damage::Cut => f.set_len(len / 2).unwrap(),
        Damage::Overwrite => {
            use std::os::unix::fs::FileExt;
            // Another table's bytes, as `cp other.rtb t.rtb` leaves them: the same
            // length, other records. Before: answered from them.
            for k in 1..16 {
                f.write_all_at(&[0x55; 4096], len / 16 * k).unwrap();
            }
        }
    }
    drop(f);
    // The writer may find the prober gone (killed, before): its answers tell.
    let _ = stdin.write_all(board_lines(2 * BLOCK).as_bytes());
    drop(stdin);
    let out = finish_within(child, Duration::from_secs(60), "batch probe");
    reader.join().unwrap();
    let lines = std::mem::take(&mut *lines.lock().unwrap());
    let parsed = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: a cut line {l:?}")))
        .collect();
    (len, parsed, out)
}

/// A table cut short or rewritten in place during a batch probe: no SIGBUS, every line
/// answered in full or refused, every line after the change refused with an error naming
/// the table and how it changed, and the run exits 2 saying so. (The probe mapped tables
/// over 64 MiB: cut in place, one killed it with SIGBUS, exit 135, its last line cut
/// mid-JSON; rewritten, it answered from the new bytes.)
#[test]
fn a_table_cut_or_rewritten_during_a_batch_probe_is_each_later_lines_error() {
    for damage in [Damage::Cut, Damage::Overwrite] {
        let (len, answers, out) = batch_probe_while(damage);
        let how = "mnk-5x4-4.rtb: the file changed on disk after it was opened and checked";
        assert!(len > retro::table::IN_MEMORY_MAX);
        let text = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{damage:?}: {out:?}");
        assert_eq!(answers.len(), 4 << 14, "{damage:?}: every line answered");
        let refused = |v: &serde_json::Value| v["error"].as_str().is_some_and(|e| e.contains(how));
        // Answers up to the change (the table says every board is illegal), then only
        // refusals, to the last line.
        let first = answers.iter().position(refused).expect("refused lines");
        assert!(
            answers[..first]
                .iter()
                .all(|v| !v.to_string().contains(how)),
            "{damage:?}"
        );
        assert!(answers[first..].iter().all(refused), "{damage:?}");
        // The first block was answered before the change; the blocks fed after it are
        // refused whole.
        assert!(
            (1 << 14..=2 << 14).contains(&first),
            "{damage:?}: first refused {first}"
        );
        assert_eq!(answers[first]["line"], first as u64 + 1);
        assert!(
            text.contains(&format!(
                "lines got no answer for a table error, from line {} on",
                first + 1
            )) && text.contains(how),
            "{damage:?}: {text}"
        );
    }
}

/// A named pipe, a device that never ends and a file over the limit, given where a command
/// reads a file: each refused at once (a pipe no one writes to hung `gomoku validate`;
/// `/dev/urandom` grew it to 5 GB in 20 s), exit 2, the kind or the limit named, nothing
/// written.
#[test]
fn special_and_huge_input_files_are_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.json");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    let huge = dir.path().join("huge.json");
    // Sparse: nothing is written, nothing is read.
    std::fs::File::create(&huge)
        .unwrap()
        .set_len((256 << 20) + 1)
        .unwrap();
    let cases: [(&Path, &str); 3] = [
        (&fifo, "not a regular file (a named pipe)"),
        (Path::new("/dev/urandom"), "not a regular file (a device)"),
        (
            &huge,
            "larger than 256 MiB, the most read as a strategy file",
        ),
    ];
    for (file, said) in cases {
        let start = Instant::now();
        let child = Command::new(env!("CARGO_BIN_EXE_retro"))
            .args(["gomoku", "validate", "--quiet", "--repair"])
            .arg(dir.path().join("out.json"))
            .arg(file)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = finish_within(child, Duration::from_secs(10), &file.display().to_string());
        assert_eq!(out.status.code(), Some(2), "{}", output_text(&out));
        assert!(stderr(&out).contains(said), "{}", stderr(&out));
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
    }
    // The checkpoint `gomoku solve` resumes from is read the same way.
    let cp_fifo = dir.path().join("s.json.checkpoint");
    assert!(Command::new("mkfifo")
        .arg(&cp_fifo)
        .status()
        .unwrap()
        .success());
    let child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .current_dir(dir.path())
        .args([
            "gomoku",
            "solve",
            "h8 a1 i9 o15",
            "--out",
            "s.json",
            "--quiet",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = finish_within(child, Duration::from_secs(10), "solve over a pipe");
    assert_eq!(out.status.code(), Some(2), "{}", output_text(&out));
    assert!(
        stderr(&out).contains("s.json.checkpoint: not a regular file (a named pipe)"),
        "{}",
        stderr(&out)
    );
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["huge.json", "pipe.json", "s.json.checkpoint"]);
}

/// A folder whose disk is full: a small tmpfs mounted by the test (it runs as root, here
/// and in CI), filled to the last byte. Where mounting is not allowed, the file-size limit
/// (`ulimit -f 0`, its signal ignored so that writes fail with EFBIG) makes every write of
/// the command fail instead; the test says which it used.
struct FullDisk {
    dir: tempfile::TempDir,
    mounted: bool,
}

impl FullDisk {
    fn new() -> FullDisk {
        let dir = tempfile::tempdir().unwrap();
        let mount = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(dir.path())
            .output();
        let mounted = mount.as_ref().is_ok_and(|o| o.status.success());
        if mounted {
            // Filled until the disk refuses a byte.
            let mut f = std::fs::File::create(dir.path().join("filler")).unwrap();
            let full = (0..1024).any(|_| f.write_all(&[7; 4096]).is_err());
            assert!(full, "a 64 KiB tmpfs took 4 MiB");
            assert!(f.write_all(&[7]).and_then(|()| f.sync_all()).is_err());
        } else {
            eprintln!(
                "full disk: mounting a tmpfs was refused ({}); the file-size limit stands in",
                mount.map_or_else(|e| e.to_string(), |o| stderr(&o))
            );
        }
        FullDisk { dir, mounted }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `retro args` in `cwd`, writing to this disk.
    fn retro(&self, cwd: &Path, args: &[&str]) -> Output {
        let mut c = if self.mounted {
            Command::new(env!("CARGO_BIN_EXE_retro"))
        } else {
            let mut c = Command::new("sh");
            c.args(["-c", "trap '' XFSZ; ulimit -f 0; exec \"$0\" \"$@\""])
                .arg(env!("CARGO_BIN_EXE_retro"));
            c
        };
        c.current_dir(cwd).args(args).output().expect("runs")
    }

    /// The names in the folder besides the filler.
    fn files(&self) -> Vec<String> {
        let mut v: Vec<String> = walk(self.path())
            .into_iter()
            .map(|p| {
                p.strip_prefix(self.path())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|n| n != "filler")
            .collect();
        v.sort();
        v
    }
}

impl Drop for FullDisk {
    fn drop(&mut self) {
        if self.mounted {
            let _ = Command::new("umount").arg(self.dir.path()).status();
        }
    }
}

/// Every file under `dir`, folders included.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

/// On a full disk every command that writes fails with the reason (exit 2) and leaves
/// nothing: no file under its final name, no temporary file. (`gomoku prove --out`,
/// `validate --repair` and `solve --out` left 0-byte files under their final names.)
#[test]
fn a_full_disk_leaves_nothing_under_the_final_names() {
    let disk = FullDisk::new();
    let d = disk.path().to_str().unwrap().to_string();
    let work = tempfile::tempdir().unwrap();
    let strategy = work.path().join("quiet_hole.json");
    std::fs::write(&strategy, include_str!("../data/gomoku/quiet_hole.json")).unwrap();
    let s = |name: &str| format!("{d}/{name}");
    let runs: Vec<Vec<String>> = vec![
        vec![
            "gomoku".into(),
            "prove".into(),
            "h8 a1 i9 o15".into(),
            "--out".into(),
            s("p.json"),
        ],
        vec![
            "gomoku".into(),
            "validate".into(),
            strategy.to_str().unwrap().into(),
            "--quiet".into(),
            "--repair".into(),
            s("done.json"),
        ],
        vec![
            "gomoku".into(),
            "solve".into(),
            "h8 a1 i9 o15".into(),
            "--quiet".into(),
            "--out".into(),
            s("s.json"),
        ],
        vec![
            "generate".into(),
            "mnk-3x3-3".into(),
            "--out".into(),
            d.clone(),
        ],
    ];
    for args in runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = disk.retro(work.path(), &args);
        let text = output_text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {text}");
        assert!(
            [
                "No space left on device",
                "File too large",
                "too large for the disk",
                "available on"
            ]
            .iter()
            .any(|w| text.contains(w)),
            "{args:?}: {text}"
        );
        assert!(!text.contains("panicked"), "{args:?}: {text}");
        assert_eq!(disk.files(), Vec::<String>::new(), "{args:?}: {text}");
    }
}

/// A resumed `gomoku solve` whose search options differ from its checkpoint's is refused
/// before any work, naming the option; the checkpoint is left as it was and no strategy
/// is written. (It resumed, wrote the strategy, and only then found it did not validate.)
#[test]
fn a_resumed_solve_with_other_options_is_refused_naming_the_option() {
    let dir = tempfile::tempdir().unwrap();
    let pos = "h8 a1 i9 o15";
    let o = retro_in(
        dir.path(),
        &[
            "gomoku",
            "solve",
            pos,
            "--out",
            "s.json",
            "--tree-nodes",
            "10",
            "--root-width",
            "0",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", output_text(&o));
    let cp = dir.path().join("s.json.checkpoint");
    let saved = std::fs::read(&cp).expect("a checkpoint");
    for (extra, said) in [
        (
            vec!["--depth-cost", "1000000"],
            "made with root width 0, but this run asks 24 (--root-width)",
        ),
        (
            vec!["--root-width", "0", "--depth-cost", "9"],
            "made with depth cost 4, but this run asks 9 (--depth-cost)",
        ),
        (
            vec!["--root-width", "0", "--width", "3"],
            "made with width 12, but this run asks 3 (--width)",
        ),
    ] {
        let args = [&["gomoku", "solve", pos, "--out", "s.json"][..], &extra].concat();
        let start = Instant::now();
        let o = retro_in(dir.path(), &args);
        let text = output_text(&o);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {text}");
        assert!(text.contains(said), "{extra:?}: {text}");
        assert!(text.contains("--fresh"), "{text}");
        // Refused before the search: no verdict, at once.
        assert!(
            !text.contains("black wins") && !text.contains("not proven"),
            "{text}"
        );
        assert!(start.elapsed() < Duration::from_secs(5));
        assert_eq!(std::fs::read(&cp).unwrap(), saved, "{extra:?}");
        assert!(!dir.path().join("s.json").exists(), "{extra:?}");
    }
    // The same options resume, and the strategy written validates.
    let o = retro_in(
        dir.path(),
        &[
            "gomoku",
            "solve",
            pos,
            "--out",
            "s.json",
            "--root-width",
            "0",
        ],
    );
    let text = output_text(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(
        text.contains("resuming from") && text.contains("validated: VALID"),
        "{text}"
    );
}

/// Every numeric flag refuses what is not a number in its range (NaN, negative, zero where
/// a count must be positive, beyond the range) in the argument parser: exit 2, the flag
/// and its range named, no panic, nothing written.
#[test]
fn numeric_flags_refuse_what_is_out_of_range_naming_flag_and_range() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.json");
    let out = out.to_str().unwrap();
    let solve = ["gomoku", "solve", "h8 a1 i9 o15", "--out", out];
    let prove = ["gomoku", "prove", "h8 a1 i9 o15", "--out", out];
    let validate = ["gomoku", "validate", out];
    let mnk = ["generate", "mnk", "--out", out];
    let chess = ["generate", "chess", "--out", out];
    let plan = ["plan", "chess"];
    let compress = ["compress", out];
    let make = ["generate", "chess", "KQvK", "--compress", "--out", out];
    let cases: Vec<(&[&str], &str, &[&str], &str)> = vec![
        (
            &solve,
            "--depth-cost",
            &["18446744073709551615", "-1", "nan"],
            "from 0 to 1000000",
        ),
        (
            &solve,
            "--root-width",
            &["257", "-3", "nan"],
            "from 0 to 256",
        ),
        (&solve, "--width", &["1e3", "-1"], "from 0 to 256"),
        (
            &solve,
            "--leaf-nodes",
            &["0", "2000001", "nan"],
            "from 1 to 2000000",
        ),
        (
            &solve,
            "--tree-nodes",
            &["0", "-5", "inf"],
            "from 1 to 1000000000",
        ),
        (&solve, "--k", &["0", "1", "17", "nan"], "from 2 to 16"),
        (
            &solve,
            "--max-stones",
            &["0", "257", "nan"],
            "from 1 to 256",
        ),
        (
            &prove,
            "--max-black-moves",
            &["0", "129", "-1"],
            "from 1 to 128",
        ),
        (
            &prove,
            "--tree-nodes",
            &["0", "1.5"],
            "from 1 to 1000000000",
        ),
        (
            &prove,
            "--leaf-nodes",
            &["0", "nan", "2000001"],
            "from 1 to 2000000",
        ),
        (
            &validate,
            "--node-limit",
            &["0", "-1", "nan"],
            "from 1 to 1000000000000",
        ),
        (
            &validate,
            "--first-hole-nodes",
            &["0"],
            "from 1 to 1000000000000",
        ),
        (
            &validate,
            "--vct-depth",
            &["0", "129", "nan"],
            "from 1 to 128",
        ),
        (&validate, "--threads", &["0", "nan"], "from 1 to 1024"),
        (&mnk, "--width", &["0", "21", "-1", "nan"], "from 1 to 20"),
        (&mnk, "--height", &["0", "99"], "from 1 to 20"),
        (&mnk, "--k", &["0", "21"], "from 1 to 20"),
        (&chess, "--all", &["0", "6", "nan"], "--all takes 3, 4 or 5"),
        (&plan, "--all", &["2", "-1"], "--all takes 3, 4 or 5"),
        (
            &compress,
            "--block-slots",
            &["0", "1000", "nan", "33554432"],
            "a multiple of 4096 from 4096 to 16777216",
        ),
        (
            &make,
            "--block-slots",
            &["-4096", "4097"],
            "a multiple of 4096 from 4096 to 16777216",
        ),
    ];
    for (args, flag, bads, range) in cases {
        for bad in bads {
            let given = format!("{flag}={bad}");
            let args = [args, &[given.as_str()]].concat();
            let o = retro(&args);
            let e = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
            assert!(
                e.contains(&format!("for '{flag} <")) && e.contains(range),
                "{args:?}: {e}"
            );
        }
    }
    assert!(!Path::new(out).exists(), "nothing written");
}

/// A position refused on a single probe exits 2 in words and in JSON alike (JSON gets the
/// error as an object too): an illegal position exited 2 in words but 1 with --json.
#[test]
fn a_refused_position_exits_2_in_words_and_in_json() {
    let t = super::common::tables_dir().to_str().unwrap().to_string();
    for (fen, category) in [
        // The kings touch.
        ("8/8/8/8/8/8/6k1/5BNK w - - 0 1", Some("illegal")),
        ("not a position", None),
    ] {
        let words = retro(&["probe", "kbnk", fen, "--tables", &t]);
        let json = retro(&["probe", "kbnk", fen, "--tables", &t, "--json"]);
        assert_eq!(
            words.status.code(),
            Some(2),
            "{fen}: {}",
            output_text(&words)
        );
        assert_eq!(json.status.code(), Some(2), "{fen}: {}", output_text(&json));
        let v: serde_json::Value = serde_json::from_str(stdout(&json).trim()).unwrap();
        assert_eq!(v["category"].as_str(), category, "{v}");
        let e = v["error"].as_str().unwrap();
        assert!(
            stderr(&words).contains(e),
            "{fen}: {e} vs {}",
            stderr(&words)
        );
    }
}
