#!/usr/bin/env python3
"""Generate a chess table set on a Dask distributed cluster.

`retro plan chess ...` gives the task graph (one task per table, with the sub-tables it
reads and its estimated peak memory); each task runs `retro generate chess MATERIAL` on a
worker, writing into a tables folder every worker sees (a shared filesystem). Dask does the
rest: a task starts once its sub-tables are done, only on a worker whose MEMORY resource
holds its estimate, and the task of a worker that dies is run again elsewhere.
`retro generate` is idempotent (atomic writes, present tables skipped, damaged ones
refused), so a task run twice never leaves a wrong file.

    retro_dask.py run --scheduler tcp://head:8786 --retro /shared/bin/retro \\
        --out /shared/tables --all 5
    retro_dask.py run --local 2 --all 4            # a cluster of 2 workers on this machine
    retro_dask.py overhead --scheduler tcp://head:8786 --tasks 200

See docs/cluster.md for starting the scheduler and the workers.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import uuid

from distributed import Client, LocalCluster, as_completed, get_worker

# Resource name the workers declare (`dask worker ... --resources MEMORY=<bytes>`) and each
# task requests with its estimated peak.
MEMORY = "MEMORY"


def generate_table(retro, out, name, threads, compress, block_slots, *dependencies):
    """One task, on a worker: `retro generate chess NAME`, its sub-tables (`dependencies`,
    the results of their tasks) already in `out`. Returns what happened, for the report."""
    worker = get_worker()
    budget = worker.state.total_resources.get(MEMORY)
    cmd = [retro, "generate", "chess", name, "--out", out]
    if compress is not None:
        # Each table compressed once made, one side to move, at the level asked for (0:
        # retro's default for the table's metric) and in the blocks asked for (None:
        # retro's): the files `retro generate --compress` leaves at the end of a run on
        # one machine.
        cmd += ["--compress"] + (["--level", str(compress)] if compress else [])
        cmd += ["--block-slots", str(block_slots)] if block_slots else []
    if threads:
        cmd += ["--threads", str(threads)]
    if budget:
        # The worker's whole budget: the check refuses a table the worker cannot hold even
        # alone (the scheduler already keeps tasks running at once within the budget).
        cmd += ["--max-memory", str(int(budget))]
    # A worker that dies takes its `retro generate` with it (no orphan solves on in the
    # background): setpriv asks the kernel to kill the child when its parent goes.
    setpriv = shutil.which("setpriv")
    if setpriv:
        cmd = [setpriv, "--pdeathsig", "KILL", "--"] + cmd
    start = time.time()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    end = time.time()
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(
            f"retro generate chess {name} failed on {worker.address} "
            f"(exit {proc.returncode}): {tail}"
        )
    # The last progress line names the target: `[i/n] NAME: present, skipped` when another
    # copy of this task made it first.
    skipped = f"{name}: present, skipped" in proc.stderr
    return {
        "name": name,
        "worker": worker.address,
        "worker_pid": os.getpid(),
        "start": start,
        "end": end,
        "seconds": end - start,
        "skipped": skipped,
    }


def plan(retro, targets):
    """The task graph: `retro plan chess TARGETS` as parsed JSON."""
    proc = subprocess.run(
        [retro, "plan", "chess", *targets], capture_output=True, text=True
    )
    if proc.returncode != 0:
        sys.exit(f"retro_dask: retro plan failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def worker_budgets(client):
    """Each worker's MEMORY resource (None where it declared none)."""
    info = client.scheduler_info()["workers"]
    return {addr: w.get("resources", {}).get(MEMORY) for addr, w in info.items()}


def check_fits(tables, budgets):
    """Refuse up front a table no worker can hold: the scheduler would wait for one forever."""
    if not budgets:
        sys.exit("retro_dask: the scheduler has no workers")
    missing = [a for a, b in budgets.items() if b is None]
    if missing:
        sys.exit(
            f"retro_dask: workers {', '.join(missing)} declare no {MEMORY} resource: "
            f"start them with `dask worker ... --resources {MEMORY}=<bytes>`"
        )
    biggest = max(budgets.values())
    for t in tables:
        if t["memory_bytes"] > biggest:
            sys.exit(
                f"retro_dask: {t['name']} needs about {gib(t['memory_bytes'])} of memory, "
                f"and the largest worker has {gib(biggest)} ({MEMORY}): add a bigger node, "
                f"or see docs/cluster.md on tables larger than one node"
            )


def gib(n):
    return f"{n / 2**30:.2f} GiB"


def run(args):
    retro = os.path.abspath(shutil.which(args.retro) or args.retro)
    out = os.path.abspath(args.out)
    targets = [f"--all={args.all}"] if args.all else args.materials
    if not targets:
        sys.exit("retro_dask: give materials (KQvKR ...) or --all N")
    # DTZ tasks are named `KQvKR.dtz`, which `retro generate chess` takes as they are.
    targets = [*targets, f"--metric={args.metric}"]
    graph = plan(retro, targets)
    tables = graph["tables"]
    os.makedirs(out, exist_ok=True)
    if args.local:
        cluster = LocalCluster(
            n_workers=args.local,
            threads_per_worker=1,
            processes=True,
            resources={MEMORY: args.local_memory // args.local},
            dashboard_address=None,
        )
        client = Client(cluster)
    else:
        cluster = None
        client = Client(args.scheduler)
    try:
        client.wait_for_workers(args.workers, timeout=args.wait)
        check_fits(tables, worker_budgets(client))
        started = time.time()
        # One key per table and run: a run never reuses the results of an earlier one.
        run_id = uuid.uuid4().hex[:8]
        futures = {}
        for t in tables:
            futures[t["name"]] = client.submit(
                generate_table,
                retro,
                out,
                t["name"],
                args.threads,
                args.compress,
                args.block_slots,
                *[futures[d] for d in t["dependencies"]],
                key=f"retro-generate-{t['name']}-{run_id}",
                resources={MEMORY: t["memory_bytes"]},
                retries=args.retries,
            )
        done = []
        for i, fut in enumerate(as_completed(futures.values()), 1):
            try:
                r = fut.result()
            except Exception as e:
                print(f"retro_dask: {e}", file=sys.stderr)
                client.cancel(list(futures.values()))
                return 2
            done.append(r)
            what = "present, skipped" if r["skipped"] else f"{r['seconds']:.1f} s"
            print(f"[{i}/{len(tables)}] {r['name']} on {r['worker']}: {what}", flush=True)
        wall = time.time() - started
        print(
            f"retro_dask: {len(done)} tables in {wall:.1f} s on "
            f"{len(worker_budgets(client))} workers",
            flush=True,
        )
        if args.report:
            with open(args.report, "w") as f:
                json.dump({"wall_seconds": wall, "tasks": done}, f, indent=1)
        return 0
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def noop(*_):
    return None


def overhead(args):
    """The engine's own cost per task: a chain of trivial tasks, each waiting on the one
    before (what a dependency costs), and as many independent ones (throughput)."""
    client = Client(args.scheduler)
    try:
        client.wait_for_workers(1)
        n = args.tasks
        run_id = uuid.uuid4().hex[:8]
        start = time.time()
        prev = None
        for i in range(n):
            prev = client.submit(noop, prev, key=f"chain-{i}-{run_id}")
        prev.result()
        chain = (time.time() - start) / n
        start = time.time()
        futs = [client.submit(noop, i, key=f"free-{i}-{run_id}") for i in range(n)]
        client.gather(futs)
        free = (time.time() - start) / n
        print(json.dumps({"tasks": n, "chain_seconds_per_task": chain,
                          "independent_seconds_per_task": free}))
        return 0
    finally:
        client.close()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="generate a table set on the cluster")
    where = r.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", help="the scheduler's address, tcp://HOST:8786")
    where.add_argument("--local", type=int, metavar="N",
                       help="start a cluster of N workers on this machine instead")
    r.add_argument("--local-memory", type=float, default=None,
                   help="with --local: the bytes the workers share (default: MemAvailable)")
    r.add_argument("--retro", default="retro",
                   help="the retro executable, at the same path on every worker")
    r.add_argument("--out", default="tables",
                   help="the tables folder, on a filesystem every worker shares")
    r.add_argument("--all", type=int, metavar="N", help="every table of up to N pieces")
    r.add_argument("materials", nargs="*", help="materials (KQvKR ...) and their sub-tables")
    r.add_argument("--metric", choices=["dtm", "dtz", "both"], default="dtm",
                   help="which tables of each material, as `retro generate --metric`")
    r.add_argument("--compress", type=int, nargs="?", const=0, default=None, metavar="LEVEL",
                   help="leave each table compressed only, as `retro generate --compress` "
                        "(zstd level; default: retro's, 14 for DTM and 15 for DTZ tables)")
    r.add_argument("--block-slots", type=int, default=None, metavar="SLOTS",
                   help="with --compress: slots a block, as `retro generate --block-slots`")
    r.add_argument("--threads", type=int, default=None,
                   help="threads of each retro generate (default: all the worker's cores)")
    r.add_argument("--retries", type=int, default=2,
                   help="times a failing task is run again (lost workers are always rerun)")
    r.add_argument("--workers", type=int, default=1,
                   help="wait until this many workers have joined before starting")
    r.add_argument("--wait", type=float, default=120,
                   help="seconds to wait for them")
    r.add_argument("--report", help="write each task's worker and times here (JSON)")
    o = sub.add_parser("overhead", help="measure the engine's cost per task")
    o.add_argument("--scheduler", required=True)
    o.add_argument("--tasks", type=int, default=200)
    args = p.parse_args()
    if args.command == "run":
        if args.block_slots is not None and args.compress is None:
            p.error("--block-slots needs --compress")
        if args.local and args.local_memory is None:
            args.local_memory = mem_available()
        if args.local_memory is not None:
            args.local_memory = int(args.local_memory)
        return run(args)
    return overhead(args)


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    sys.exit("retro_dask: no MemAvailable in /proc/meminfo: give --local-memory")


if __name__ == "__main__":
    sys.exit(main())
