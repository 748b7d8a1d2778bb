//! Distributed generation benchmark, the figures of the performance table (README and docs/performance.md):
//!
//! - `retro generate chess --all 4` locally (one process, all cores), wall time;
//! - the same set through Dask on this machine: a scheduler and 2 workers (`--threads 1`
//!   each), wall time, and the ratio of the two;
//! - the engine's own cost per task: a chain of trivial dependent tasks, and as many
//!   independent ones;
//! - on paper: `--all 5` on a 16-node cluster, from `retro plan` (every table's slots and
//!   dependencies), the per-slot times measured here, and a list schedule of the graph on
//!   16 nodes next to its critical path and its total work.
//!
//! Needs the engine: `bash scripts/install-dask.sh`. `cargo bench --bench distributed`

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;

#[path = "../tests/integration/process_group.rs"]
mod process_group;
use process_group::Group;

const RETRO: &str = env!("CARGO_BIN_EXE_retro");

/// KQRvKR, 5 pieces, pawnless: 203 s CPU for 242 M slots (README performance table,
/// `/usr/bin/time -v retro generate chess KQRvKR`): the 5-piece per-slot cost the
/// projection uses.
const FIVE_PAWNLESS_CPU_SECONDS_PER_SLOT: f64 = 203.0 / 241_532_928.0;

fn venv() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/dask-venv");
    assert!(
        dir.join("bin/dask").exists(),
        "Dask is not installed: run `bash scripts/install-dask.sh`"
    );
    dir
}

fn plan(args: &[&str]) -> Vec<Value> {
    let o = Command::new(RETRO)
        .args(["plan", "chess"])
        .args(args)
        .output()
        .expect("retro plan");
    assert!(o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    v["tables"].as_array().expect("tables").clone()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let venv = venv();
    let runner = Path::new(env!("CARGO_MANIFEST_DIR")).join("runners/dask/retro_dask.py");
    let work = tempfile::tempdir()?;
    let w = work.path();

    // Locally: one process, the default pool.
    let t = Instant::now();
    let st = Command::new(RETRO)
        .args(["generate", "chess", "--all", "4", "--out"])
        .arg(w.join("local"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    assert!(st.success());
    let local = t.elapsed().as_secs_f64();
    println!("--all 4 locally: {local:.1} s wall");

    // Through the engine: a scheduler and two one-thread workers.
    let mut group = Group::default();
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let address = format!("tcp://127.0.0.1:{port}");
    let mut scheduler = Command::new(venv.join("bin/dask"));
    scheduler.args([
        "scheduler",
        "--host",
        "127.0.0.1",
        "--no-dashboard",
        "--port",
    ]);
    scheduler.arg(port.to_string());
    group.start(scheduler, &w.join("scheduler.log"));
    for i in 0..2 {
        let mut worker = Command::new(venv.join("bin/dask"));
        worker.args(["worker", &address, "--nthreads", "1", "--no-dashboard"]);
        worker.args(["--memory-limit", "0", "--resources", "MEMORY=4e9"]);
        worker.arg("--local-directory").arg(w.join(format!("w{i}")));
        group.start(worker, &w.join(format!("worker{i}.log")));
    }
    let report = w.join("report.json");
    let t = Instant::now();
    let st = Command::new(venv.join("bin/python"))
        .arg(&runner)
        .args(["run", "--scheduler", &address, "--retro", RETRO, "--out"])
        .arg(w.join("cluster"))
        .args(["--all", "4", "--threads", "1", "--workers", "2", "--report"])
        .arg(&report)
        .stdout(Stdio::null())
        .status()?;
    assert!(st.success());
    let cluster = t.elapsed().as_secs_f64();
    let r: Value = serde_json::from_str(&std::fs::read_to_string(&report)?)?;
    let tasks = r["tasks"].as_array().expect("tasks");
    let task_sum: f64 = tasks.iter().map(|t| t["seconds"].as_f64().unwrap()).sum();
    println!(
        "--all 4 through Dask, 2 workers x 1 thread: {cluster:.1} s wall (runner start to end, \
         {:.1} s from the first task submitted); ratio to local {:.2}; the tasks' \
         `retro generate` took {task_sum:.1} s in all",
        r["wall_seconds"].as_f64().unwrap(),
        cluster / local
    );

    let o = Command::new(venv.join("bin/python"))
        .arg(&runner)
        .args(["overhead", "--scheduler", &address, "--tasks", "300"])
        .output()?;
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ov: Value = serde_json::from_slice(&o.stdout)?;
    println!(
        "engine overhead per task: {:.2} ms in a chain of dependent tasks, {:.2} ms \
         independent ({} trivial tasks each)",
        ov["chain_seconds_per_task"].as_f64().unwrap() * 1e3,
        ov["independent_seconds_per_task"].as_f64().unwrap() * 1e3,
        ov["tasks"]
    );
    drop(group);

    // Per-slot seconds of the 4-piece tables, measured above (one thread each).
    let plan4 = plan(&["--all", "4"]);
    let slots: HashMap<String, f64> = plan4
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["positions"].as_f64().unwrap(),
            )
        })
        .collect();
    let mut rate = [(0.0, 0.0); 2]; // [pawnless, pawns]: (seconds, slots)
    for t in tasks {
        let name = t["name"].as_str().unwrap();
        if name.len() == 5 {
            continue; // 3 pieces: too small to time
        }
        let k = usize::from(name.contains('P'));
        rate[k].0 += t["seconds"].as_f64().unwrap();
        rate[k].1 += slots[name];
    }
    let per_slot = [rate[0].0 / rate[0].1, rate[1].0 / rate[1].1];
    println!(
        "4-piece tables, one thread: {:.2} us per slot pawnless, {:.2} us with pawns \
         (ratio {:.2})",
        per_slot[0] * 1e6,
        per_slot[1] * 1e6,
        per_slot[1] / per_slot[0]
    );

    // On paper: --all 5 on 16 nodes.
    let plan5 = plan(&["--all", "5"]);
    let pawn_factor = per_slot[1] / per_slot[0];
    for cores in [2.0, 16.0] {
        // A table's time on one node: its CPU time spread over the node's cores (the
        // solver's passes are parallel; KQRvKR used 253 s CPU in 189 s wall on 2 cores).
        let secs = |t: &Value| {
            let n = t["name"].as_str().unwrap();
            let f = if n.contains('P') { pawn_factor } else { 1.0 };
            t["positions"].as_f64().unwrap() * FIVE_PAWNLESS_CPU_SECONDS_PER_SLOT * f / cores
        };
        let (work, critical, path, makespan) = schedule(&plan5, &secs, 16);
        println!(
            "--all 5 ({} tables) on 16 nodes of {cores} cores: total work {:.1} node-hours \
             (/16 = {:.2} h), critical path {:.2} h ({}), list schedule {:.2} h",
            plan5.len(),
            work / 3600.0,
            work / 16.0 / 3600.0,
            critical / 3600.0,
            path.join(" -> "),
            makespan / 3600.0
        );
    }
    Ok(())
}

/// The graph's total work, its critical path (time and tables), and the makespan of a
/// list schedule on `nodes` nodes, one table at a time each, the ready table on the
/// longest remaining path first.
fn schedule(
    tables: &[Value],
    secs: &dyn Fn(&Value) -> f64,
    nodes: usize,
) -> (f64, f64, Vec<String>, f64) {
    let names: Vec<String> = tables
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let deps: Vec<Vec<usize>> = tables
        .iter()
        .map(|t| {
            t["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| index[d.as_str().unwrap()])
                .collect()
        })
        .collect();
    let cost: Vec<f64> = tables.iter().map(secs).collect();
    let work: f64 = cost.iter().sum();
    // Earliest finish along dependencies (plan order puts dependencies first).
    let mut finish = vec![0.0f64; cost.len()];
    let mut via = vec![None; cost.len()];
    for i in 0..cost.len() {
        let (best, from) = deps[i]
            .iter()
            .map(|&d| (finish[d], Some(d)))
            .fold((0.0, None), |a, b| if b.0 > a.0 { b } else { a });
        finish[i] = best + cost[i];
        via[i] = from;
    }
    let (mut end, critical) =
        finish
            .iter()
            .enumerate()
            .fold((0, 0.0), |a, (i, &f)| if f > a.1 { (i, f) } else { a });
    let mut path = vec![names[end].clone()];
    while let Some(p) = via[end] {
        path.push(names[p].clone());
        end = p;
    }
    path.reverse();
    // Longest path from each table to the end (its priority).
    let mut tail = cost.clone();
    for i in (0..cost.len()).rev() {
        for &d in &deps[i] {
            tail[d] = tail[d].max(cost[d] + tail[i]);
        }
    }
    let mut done_at: Vec<Option<f64>> = vec![None; cost.len()];
    let mut started = vec![false; cost.len()];
    let mut free_at = vec![0.0f64; nodes];
    let mut left = cost.len();
    while left > 0 {
        // The next free node takes the ready table (every dependency done by then, or
        // the earliest to become so) with the longest tail.
        let (node, &now) = free_at
            .iter()
            .enumerate()
            .min_by(|a, b| a.1.total_cmp(b.1))
            .unwrap();
        let ready_at = |i: usize| {
            deps[i]
                .iter()
                .map(|&d| done_at[d])
                .try_fold(0.0f64, |a, t| t.map(|t| a.max(t)))
        };
        let pick = (0..cost.len())
            .filter(|&i| !started[i])
            .filter_map(|i| ready_at(i).map(|r| (i, r.max(now))))
            .min_by(|a, b| a.1.total_cmp(&b.1).then(tail[b.0].total_cmp(&tail[a.0])));
        // The first unstarted table in plan order has every dependency started.
        let (i, start) = pick.expect("a ready table");
        started[i] = true;
        done_at[i] = Some(start + cost[i]);
        free_at[node] = start + cost[i];
        left -= 1;
    }
    let makespan = done_at.iter().flatten().copied().fold(0.0, f64::max);
    (work, critical, path, makespan)
}
