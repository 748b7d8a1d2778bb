//! Generating the chess tables on a real Dask cluster on this machine (runners/dask): a
//! scheduler and two workers, one of them killed while it runs a task; the tables must come
//! out whole and byte-identical to the local set. Also the pieces that make a retried or
//! duplicated task safe: `retro plan`, the memory refusal, concurrent duplicate runs.
//!
//! The engine comes from scripts/install-dask.sh (run by scripts/test-all.sh) into
//! target/dask-venv; a missing one fails the test, naming the script.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{chess_all4, output_text, retro};
use crate::process_group::Group;

const RETRO: &str = env!("CARGO_BIN_EXE_retro");

/// The virtual environment holding Dask distributed.
fn venv() -> PathBuf {
    let dir = std::env::var_os("RETRO_DASK_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/dask-venv"));
    assert!(
        dir.join("bin/dask").exists(),
        "Dask is not installed in {}: run `bash scripts/install-dask.sh` (scripts/test-all.sh does)",
        dir.display()
    );
    dir
}

fn runner() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("runners/dask/retro_dask.py")
}

/// A process as /proc shows it.
struct Proc {
    pid: u32,
    ppid: u32,
    state: char,
    cmdline: Vec<String>,
}

fn proc_of(pid: u32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
    let rest = &stat[stat.rfind(')')? + 2..];
    let mut f = rest.split_whitespace();
    let state = f.next()?.chars().next()?;
    let ppid = f.next()?.parse().ok()?;
    let mut cmdline = String::new();
    std::fs::File::open(format!("/proc/{pid}/cmdline"))
        .ok()?
        .read_to_string(&mut cmdline)
        .ok()?;
    Some(Proc {
        pid,
        ppid,
        state,
        cmdline: cmdline.split('\0').map(str::to_string).collect(),
    })
}

fn processes() -> Vec<Proc> {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(proc_of)
        .collect()
}

/// Whether `pid` descends from `root`.
fn descends(all: &[Proc], mut pid: u32, root: u32) -> bool {
    for _ in 0..64 {
        if pid == root {
            return true;
        }
        match all.iter().find(|p| p.pid == pid) {
            Some(p) if p.ppid != 0 => pid = p.ppid,
            _ => return false,
        }
    }
    false
}

/// Alive and not a zombie.
fn running(pid: u32) -> bool {
    proc_of(pid).is_some_and(|p| p.state != 'Z')
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("a free port")
        .local_addr()
        .unwrap()
        .port()
}

fn log_tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

/// The materials the cluster test asks for: four 4-piece tables and the four 3-piece tables
/// they capture into, eight tasks. Pawnless, so each solves in a few seconds on one thread:
/// long enough to be caught running and killed, short enough to keep the test command
/// within its budget (the whole `--all 4` set took 161 s here, on two loaded cores).
const CLUSTER_MATERIALS: [&str; 4] = ["KQvKR", "KRvKB", "KBvKN", "KRvKN"];

/// Eight tables through a scheduler and two workers on localhost, one worker killed
/// (SIGKILL) while its `retro generate` of a 4-piece table runs: the engine runs that task
/// again on a live worker, and every table comes out present, verified and byte-identical
/// to the set generated locally.
#[test]
fn tables_on_a_dask_cluster_survive_a_killed_worker() {
    let venv = venv();
    let work = tempfile::tempdir().unwrap();
    let w = work.path();
    let out = w.join("tables");
    let mut group = Group::default();
    let port = free_port();
    let address = format!("tcp://127.0.0.1:{port}");
    let mut scheduler = Command::new(venv.join("bin/dask"));
    scheduler.args(["scheduler", "--host", "127.0.0.1", "--port"]);
    scheduler.arg(port.to_string()).arg("--no-dashboard");
    group.start(scheduler, &w.join("scheduler.log"));
    let mut nannies = Vec::new();
    for i in 0..2 {
        let mut worker = Command::new(venv.join("bin/dask"));
        worker.args(["worker", &address, "--nthreads", "1", "--no-dashboard"]);
        // Dask's own memory manager watches Python data, which the tasks have none of;
        // the tables' memory is the MEMORY resource each task requests.
        worker.args(["--memory-limit", "0", "--resources", "MEMORY=4e9"]);
        worker.args(["--name", &format!("w{i}"), "--death-timeout", "120"]);
        worker.arg("--local-directory").arg(w.join(format!("w{i}")));
        nannies.push(group.start(worker, &w.join(format!("worker{i}.log"))));
    }
    let report = w.join("report.json");
    let mut run = Command::new(venv.join("bin/python"));
    run.arg(runner())
        .args(["run", "--scheduler", &address, "--retro", RETRO, "--out"])
        .arg(&out)
        .args(CLUSTER_MATERIALS)
        .args(["--threads", "1", "--workers", "2", "--report"])
        .arg(&report);
    let runner_log = w.join("runner.log");
    let runner_pid = group.start(run, &runner_log);
    let logs = || {
        format!(
            "runner:\n{}\nscheduler:\n{}\nworker 0:\n{}\nworker 1:\n{}",
            log_tail(&runner_log),
            log_tail(&w.join("scheduler.log")),
            log_tail(&w.join("worker0.log")),
            log_tail(&w.join("worker1.log"))
        )
    };

    // A 4-piece task running on a worker: its `retro generate` is a child of the worker
    // process (whose parent is the nanny we started).
    let four: Vec<String> = CLUSTER_MATERIALS.map(String::from).to_vec();
    let start = Instant::now();
    let (victim, table, child) = loop {
        let all = processes();
        let found = all.iter().find_map(|p| {
            let at = p.cmdline.iter().position(|a| a == "generate")?;
            if p.cmdline.get(at + 1).map(String::as_str) != Some("chess") {
                return None;
            }
            let table = p.cmdline.get(at + 2)?;
            if !four.contains(table) || p.state == 'Z' {
                return None;
            }
            nannies
                .iter()
                .any(|&n| descends(&all, p.ppid, n) && p.ppid != n)
                .then(|| (p.ppid, table.clone(), p.pid))
        });
        if let Some(f) = found {
            break f;
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "no 4-piece task seen running on a worker\n{}",
            logs()
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let worker_cmd = proc_of(victim).map(|p| p.cmdline.join(" ")).unwrap();
    assert!(worker_cmd.contains("python"), "{worker_cmd}");
    assert!(
        running(child),
        "retro generate chess {table} runs on worker {victim}"
    );
    let killed = Command::new("kill")
        .args(["-KILL", &victim.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    // Its `retro generate` goes with it (no orphan solve left running).
    let gone = Instant::now();
    while running(child) {
        assert!(
            gone.elapsed() < Duration::from_secs(10),
            "retro generate chess {table} (pid {child}) outlived its killed worker"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    // The run finishes anyway.
    let runner_child = group.child(runner_pid).unwrap();
    let status = loop {
        if let Some(s) = runner_child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(900),
            "the run did not finish\n{}",
            logs()
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(status.success(), "the run failed\n{}", logs());

    // The killed task was run again, on a live worker process.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let tasks = report["tasks"].as_array().unwrap();
    // Sorted, as the names are below.
    let expected = [
        "KBvK", "KBvKN", "KNvK", "KQvK", "KQvKR", "KRvK", "KRvKB", "KRvKN",
    ];
    let mut names: Vec<&str> = tasks.iter().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, expected);
    let redone: Vec<&serde_json::Value> = tasks.iter().filter(|t| t["name"] == *table).collect();
    assert_eq!(redone.len(), 1, "{table} reported once");
    assert_ne!(
        redone[0]["worker_pid"].as_u64(),
        Some(victim as u64),
        "{table} finished by another worker process than the killed one"
    );

    // Every table present, verified, and byte-identical to the local set.
    let local = chess_all4();
    for m in expected {
        let name = format!("{m}.rtb");
        let file = out.join(&name);
        let o = retro(&["verify", file.to_str().unwrap()]);
        assert!(o.status.success(), "{name}: {}", output_text(&o));
        assert!(output_text(&o).contains("\nOK"), "{}", output_text(&o));
        let (a, b) = (
            std::fs::read(&file).unwrap(),
            std::fs::read(local.join(&name)),
        );
        assert!(a == b.unwrap(), "{name} differs from the local one");
    }
    // Nothing else: no temporary file left by the killed run.
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.retain(|n| !n.ends_with(".rtb"));
    assert!(names.is_empty(), "left over: {names:?}");
}

/// The plan the runners read: 35 tables for `--all 4`, each after its dependencies, with
/// positions and file sizes matching the files generated.
#[test]
fn plan_lists_every_table_with_its_real_size() {
    let o = retro(&["plan", "chess", "--all", "4"]);
    assert!(o.status.success(), "{}", output_text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tables = v["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 35);
    let local = chess_all4();
    for (i, t) in tables.iter().enumerate() {
        let name = t["name"].as_str().unwrap();
        for d in t["dependencies"].as_array().unwrap() {
            assert!(
                tables[..i].iter().any(|x| x["name"] == *d),
                "{d} before {name}"
            );
        }
        let file = local.join(format!("{name}.rtb"));
        let len = std::fs::metadata(&file).unwrap().len();
        assert_eq!(t["file_bytes"].as_u64(), Some(len), "{name}");
        let h = retro::table::Table::open(&file).unwrap();
        let slots: u64 = h.header().sections.iter().map(|s| s.records).sum();
        assert_eq!(t["positions"].as_u64(), Some(slots), "{name}");
        // At least the one-byte solver's byte a slot.
        assert!(t["memory_bytes"].as_u64().unwrap() > slots, "{name}");
    }
    // The totals are the tables' own: sums, the largest memory, and the core seconds
    // spread over the cores.
    let sum = |k: &str| tables.iter().map(|t| t[k].as_f64().unwrap()).sum::<f64>();
    let total = &v["total"];
    assert_eq!(total["tables"], 35);
    assert_eq!(total["positions"].as_f64(), Some(sum("positions")));
    assert_eq!(total["dense_file_bytes"].as_f64(), Some(sum("file_bytes")));
    let most = tables
        .iter()
        .map(|t| t["memory_bytes"].as_u64().unwrap())
        .max();
    assert_eq!(total["memory_bytes"].as_u64(), most);
    let core = total["core_seconds"].as_f64().unwrap();
    assert!(
        core > 0.0 && (core - sum("core_seconds")).abs() <= 0.5,
        "{total}"
    );
    let cores = total["cores"].as_f64().unwrap();
    assert!(
        (total["wall_seconds"].as_f64().unwrap() - core / cores).abs() <= 1.0,
        "{total}"
    );
    let o = retro(&["plan", "chess", "KQvKR", "--all", "4"]);
    assert_eq!(o.status.code(), Some(2), "{}", output_text(&o));
}

/// The runner on a cluster of one worker it starts itself, one thread, into `out`.
fn local_run(out: &Path, args: &[&str]) -> std::process::Output {
    Command::new(venv().join("bin/python"))
        .arg(runner())
        .args([
            "run",
            "--local",
            "1",
            "--retro",
            RETRO,
            "--threads",
            "1",
            "--out",
        ])
        .arg(out)
        .args(args)
        .output()
        .unwrap()
}

/// DTZ tables in the plan (`KQvKR.dtz` after its sub-materials' DTZ tables, each
/// material's DTM table first) and through the runner (`--metric`), which writes what
/// `retro generate --metric both` writes.
#[test]
fn dtz_tables_in_the_plan_and_through_the_runner() {
    let o = retro(&["plan", "chess", "KQvKR", "--metric", "both"]);
    assert!(o.status.success(), "{}", output_text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tables = v["tables"].as_array().unwrap();
    let names: Vec<&str> = tables.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["KQvK", "KQvK.dtz", "KRvK", "KRvK.dtz", "KQvKR", "KQvKR.dtz"]
    );
    assert_eq!(
        tables[5]["dependencies"],
        serde_json::json!(["KRvK.dtz", "KQvK.dtz"])
    );
    // A task's name is what `retro generate chess` takes; a DTZ name with --metric is not.
    let w = tempfile::tempdir().unwrap();
    let o = retro(&[
        "generate",
        "chess",
        "KQvK.dtz",
        "--metric",
        "both",
        "--out",
        w.path().to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", output_text(&o));
    assert!(
        output_text(&o).contains("KQvK.dtz names a DTZ table"),
        "{}",
        output_text(&o)
    );
    let local = w.path().join("local");
    let o = retro(&[
        "generate",
        "chess",
        "KRvK",
        "--metric",
        "both",
        "--out",
        local.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", output_text(&o));
    let out = w.path().join("dask");
    let o = local_run(&out, &["KRvK", "--metric", "both"]);
    assert!(o.status.success(), "{}", output_text(&o));
    for f in ["KRvK.rtb", "KRvK.dtz.rtb"] {
        let a = std::fs::read(local.join(f)).unwrap();
        assert_eq!(a, std::fs::read(out.join(f)).unwrap(), "{f}");
    }
    // Compressed: the runner leaves the files one machine's `--compress` run leaves, in
    // the blocks asked for (8,192 slots, not the default 262,144).
    let local = w.path().join("local-compressed");
    let o = retro(&[
        "generate",
        "chess",
        "KRvKN",
        "--metric",
        "both",
        "--compress",
        "--level",
        "1",
        "--block-slots",
        "8192",
        "--out",
        local.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", output_text(&o));
    let out = w.path().join("dask-compressed");
    let o = local_run(
        &out,
        &[
            "KRvKN",
            "--metric",
            "both",
            "--compress",
            "1",
            "--block-slots",
            "8192",
        ],
    );
    assert!(o.status.success(), "{}", output_text(&o));
    let files = |d: &Path| {
        let mut f: Vec<String> = (std::fs::read_dir(d).unwrap())
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        f.sort();
        f
    };
    let made = files(&local);
    assert_eq!(made.len(), 6, "{made:?}");
    assert!(made.iter().all(|f| f.ends_with(".rtbc")), "{made:?}");
    assert_eq!(files(&out), made);
    for f in made {
        let a = std::fs::read(local.join(&f)).unwrap();
        assert!(a == std::fs::read(out.join(&f)).unwrap(), "{f}");
        let t = retro::table::Table::open(&out.join(&f)).unwrap();
        assert_eq!(t.compressed_block_slots(), Some(8192), "{f}");
    }
}

/// A table bigger than the memory allowed is refused up front, naming both figures, and
/// nothing is written.
#[test]
fn too_big_for_the_memory_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let o = retro(&[
        "generate",
        "chess",
        "KQvKR",
        "--out",
        out.to_str().unwrap(),
        "--max-memory",
        "20M",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", output_text(&o));
    let text = output_text(&o);
    assert!(
        text.contains("KQvKR needs about 20.61 MiB")
            && text.contains("20.00 MiB is available (--max-memory)"),
        "{text}"
    );
    assert!(!out.exists(), "nothing written, not even the sub-tables");
}

/// Three copies of one task at once (a retried task while the first copy still runs),
/// with a stale temporary file of a killed run in the folder: all succeed, the table is
/// the same bytes, and no temporary file is left.
#[test]
fn duplicated_tasks_write_one_correct_table() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let local = chess_all4();
    std::fs::copy(local.join("KBvK.rtb"), d.join("KBvK.rtb")).unwrap();
    std::fs::write(d.join(".KBBvK.stale1.tmp"), b"half a table").unwrap();
    let runs: Vec<Child> = (0..3)
        .map(|_| {
            Command::new(RETRO)
                .args(["generate", "chess", "KBBvK", "--threads", "1", "--out"])
                .arg(d)
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for r in runs {
        let o = r.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", output_text(&o));
    }
    assert!(
        std::fs::read(d.join("KBBvK.rtb")).unwrap()
            == std::fs::read(local.join("KBBvK.rtb")).unwrap()
    );
    let mut names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["KBBvK.rtb", "KBvK.rtb"]);
}
