//! The strategy-graph validator: walks the graph, and after every black move takes every
//! empty cell as white's reply. Each reply must continue in the graph (the same position
//! up to symmetry is listed somewhere) or black's win from there must be proven within the
//! move limit: by the threat search, or, where that fails, by the proof search (`pns.rs`),
//! whose sub-strategies are reported as repairs. Integer leaves are proven the same way.
//!
//! The walk (`walk.rs`) is sequential and cheap; the searches run in parallel (rayon), one
//! task (`task.rs`) per position after a black move and one per integer leaf after a white
//! reply, each position once up to symmetry (`first_of_each`), likely failures first
//! (`run_order`). With [`Options::stop_at_first`] the first
//! failure stops the run: no new task starts, running ones stop between replies, and a
//! running proof search stops.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use crate::rules::board::{Color, Key};
use crate::rules::symmetry::Symmetries;
use retro_engine::progress::{Progress, Silent};

use super::options::Options;
use super::report::{Reason, Report};
use super::shared::{Ctx, Shared};
use super::strategy::Strategy;
use super::task::{run_task, TaskEnd};
use super::walk::{Kind, Suspect, Task, Walker};

/// Validates a strategy. Never panics on a bad graph: every problem is a [`Failure`].
///
/// [`Failure`]: super::report::Failure
pub fn validate(strategy: &Strategy, opts: &Options) -> Report {
    validate_with(strategy, opts, &Silent)
}

/// The order in which tasks run: the suspects of the walk first (`walk.rs`, `Suspect`), in
/// walk order; then the others in the bit-reversed order of their walk index (0, n/2, n/4,
/// 3n/4, ...), so that every stretch of the walk, which is a subtree of the graph, is
/// reached early: a stretch of `m` tasks within the first `2n/m` or so. The order changes
/// how soon a failure is found, never what is reported: results are sorted afterwards.
fn run_order(tasks: &[Task]) -> Vec<usize> {
    let bits = usize::BITS - tasks.len().max(1).leading_zeros();
    let reversed = |i: usize| {
        if bits == 0 {
            0
        } else {
            i.reverse_bits() >> (usize::BITS - bits)
        }
    };
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by_key(|&i| match tasks[i].suspect {
        Suspect::No => (Suspect::No, reversed(i)),
        s => (s, i),
    });
    order
}

/// The tasks to run: the first task of the walk for each position up to symmetry (and
/// claim). A later task on the same position needs the same proofs: the budget is the
/// same (as many black stones), the replies left out are the same (a reply is left out
/// when its position is listed anywhere in the graph, by canonical key, which covers the
/// task's own listed replies), and so is the claim, which only orders budgets and names a
/// failure. So each is checked once: in the published strategy 9,037 tasks repeat an
/// earlier one (7,383 of its 22,912 positions after a black move: a subtree reached by two
/// move orders, or its mirror image), and the validation takes 28 % less time. The first
/// task of a group takes the group's most suspect class, so [`run_order`] still runs
/// likely failures first.
fn first_of_each(tasks: Vec<Task>, sym: &Symmetries) -> Vec<Task> {
    let mut first: HashMap<(Key, bool, u32), usize> = HashMap::new();
    let mut run: Vec<Task> = Vec::new();
    for task in tasks {
        let leaf = matches!(task.kind, Kind::BlackLeaf { .. });
        let key = (sym.canonical(&task.board), leaf, task.claim);
        match first.get(&key) {
            Some(&f) => run[f].suspect = run[f].suspect.min(task.suspect),
            None => {
                first.insert(key, run.len());
                run.push(task);
            }
        }
    }
    run
}

/// [`validate`], reporting progress (one unit per task).
pub fn validate_with(strategy: &Strategy, opts: &Options, progress: &dyn Progress) -> Report {
    let t0 = Instant::now();
    let start = &strategy.start;
    let sym = Symmetries::new(start.width(), start.height());
    let mut w = Walker {
        opts,
        sym: &sym,
        listed: HashSet::new(),
        tasks: Vec::new(),
        failures: Vec::new(),
        order: 0,
        report: Report {
            rules: Some(opts.rules),
            max_moves: opts.max_moves,
            ..Report::default()
        },
        far_moves: 0,
    };
    let mut board = start.clone();
    let mut path = Vec::new();
    if start.has_five(Color::White, opts.rules) {
        w.fail(start, &[], Reason::WhiteWins, 0);
    } else if !start.has_five(Color::Black, opts.rules) {
        w.walk_black(&strategy.root, &mut board, &mut path);
    }
    let Walker {
        listed,
        tasks,
        failures,
        report,
        ..
    } = w;
    let mut report = report;
    let shared = Shared::new(opts);
    if opts.stop_at_first && !failures.is_empty() {
        // A failure the walk found needs no search: no task runs.
        shared.stop.store(true, Ordering::Relaxed);
    }
    let failures = Mutex::new(failures);
    let longest = Mutex::new((report.longest, report.longest_line.clone()));
    let ctx = Ctx {
        opts,
        sym: &sym,
        listed: &listed,
        shared: &shared,
    };

    let walked = tasks.len();
    let tasks = first_of_each(tasks, &sym);
    report.repeated = (walked - tasks.len()) as u64;
    let order = run_order(&tasks);
    let next = AtomicUsize::new(0);
    let done = AtomicU64::new(0);
    progress.phase("gomoku positions", tasks.len() as u64);
    // Debugging aid: one line per task on stderr (time, nodes).
    let trace = std::env::var_os("RETRO_GOMOKU_TRACE").is_some();
    let run_one = |task: &Task| {
        let t = Instant::now();
        let n0 = shared.nodes.load(Ordering::Relaxed);
        let result = run_task(task, &ctx);
        if trace {
            eprintln!(
                "task {} {:?} {:.3}ms nodes~{} ok={}",
                task.order,
                super::report::format_line(start, &task.path),
                t.elapsed().as_secs_f64() * 1e3,
                shared.nodes.load(Ordering::Relaxed) - n0,
                result.is_ok()
            );
        }
        match result {
            Ok(Some((len, line))) => {
                if let Ok(mut l) = longest.lock() {
                    if len > l.0 || (len == l.0 && line < l.1) {
                        *l = (len, line);
                    }
                }
            }
            Ok(None) | Err(TaskEnd::Stopped) => {}
            Err(TaskEnd::Failed(f)) => {
                if let Ok(mut v) = failures.lock() {
                    v.push(*f);
                }
                if opts.stop_at_first {
                    shared.stop.store(true, Ordering::Relaxed);
                }
            }
        }
        done.fetch_add(1, Ordering::Relaxed);
        progress.advance(1);
    };
    // One worker per thread of the pool, each taking the next task in `order`, so that the
    // tasks start in that order.
    rayon::scope(|s| {
        for _ in 0..rayon::current_num_threads() {
            s.spawn(|_| loop {
                if shared.stopping() {
                    break;
                }
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&t) = order.get(i) else { break };
                run_one(&tasks[t]);
            });
        }
    });

    let stopped = shared.stopping();
    let mut failures = failures.into_inner().unwrap_or_default();
    let mut unclosed = shared.repairs.unclosed.into_inner().unwrap_or_default();
    if opts.stop_at_first {
        // The failure found first (another task may have found one while it stopped),
        // and what the proof search tried on it.
        failures.truncate(1);
        unclosed.retain(|u| failures.iter().any(|f| f.path == u.path));
    }
    failures.sort_by_key(|f| f.order);
    let (len, line) = longest.into_inner().unwrap_or_default();
    report.longest = len;
    report.longest_line = line;
    report.failures = failures;
    if stopped {
        report.stopped_early = Some((done.load(Ordering::Relaxed), tasks.len() as u64));
    }
    report.searches = shared.searches.load(Ordering::Relaxed);
    report.nodes = shared.nodes.load(Ordering::Relaxed);
    report.replies_proven = shared.proven.load(Ordering::Relaxed);
    report.replies_in_graph = shared.in_graph.load(Ordering::Relaxed);
    report.replies_symmetric = shared.symmetric.load(Ordering::Relaxed);
    report.positions += shared.positions.load(Ordering::Relaxed);
    let mut closed = shared.repairs.closed.into_inner().unwrap_or_default();
    closed.sort_by(|a, b| a.path.cmp(&b.path));
    report.repairs = closed;
    unclosed.sort_by(|a, b| a.path.cmp(&b.path));
    report.unclosed = unclosed;
    report.board = Some(start.clone());
    report.elapsed = t0.elapsed();
    report
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::Board;
    use crate::validate::walk::Kind;

    fn task(suspect: Suspect) -> Task {
        Task {
            board: Board::gomoku(),
            path: Vec::new(),
            order: 0,
            kind: Kind::BlackLeaf { claim: 0 },
            claim: 0,
            suspect,
        }
    }

    #[test]
    fn suspects_first_then_bit_reversed_walk_order() {
        let mut tasks: Vec<Task> = (0..8).map(|_| task(Suspect::No)).collect();
        tasks[6].suspect = Suspect::FarMove;
        tasks[3].suspect = Suspect::FarMove;
        tasks[5].suspect = Suspect::WhiteWinsNext;
        // 5 (white wins next), 3 and 6 (far moves, walk order), then 0 4 2 1 7 (the bit
        // reversals of 0..8 are 0 4 2 6 1 5 3 7; 6, 5 and 3 came already).
        assert_eq!(run_order(&tasks), vec![5, 3, 6, 0, 4, 2, 1, 7]);
        // Not a power of two: every task once, the first ones spread out.
        let tasks: Vec<Task> = (0..11).map(|_| task(Suspect::No)).collect();
        let order = run_order(&tasks);
        assert_eq!(&order[..4], &[0, 8, 4, 2]);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..11).collect::<Vec<_>>());
        assert!(run_order(&[]).is_empty());
        assert_eq!(run_order(&[task(Suspect::No)]), vec![0]);
    }
}
