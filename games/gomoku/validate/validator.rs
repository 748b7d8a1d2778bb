//! The strategy-graph validator: walks the graph, and after every black move takes every
//! empty cell as white's reply. Each reply must continue in the graph (the same position
//! up to symmetry is listed somewhere) or black's win from there must be proven within the
//! move limit: by the threat search, or, where that fails, by the proof search (`pns.rs`),
//! whose sub-strategies are reported as repairs. Integer leaves are proven the same way.
//!
//! The walk (`walk.rs`) is sequential and cheap; the searches run in parallel (rayon), one
//! task (`task.rs`) per position after a black move and one per integer leaf after a white
//! reply.

use std::collections::HashSet;
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use super::options::Options;
use super::report::{Reason, Report};
use super::shared::{Ctx, Shared};
use super::strategy::Strategy;
use super::task::run_task;
use super::walk::Walker;
use crate::gomoku::rules::board::Color;
use crate::gomoku::rules::symmetry::Symmetries;
use crate::progress::{Progress, Silent};

/// Validates a strategy. Never panics on a bad graph: every problem is a [`Failure`].
pub fn validate(strategy: &Strategy, opts: &Options) -> Report {
    validate_with(strategy, opts, &Silent)
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
    let failures = Mutex::new(failures);
    let longest = Mutex::new((report.longest, report.longest_line.clone()));
    let shared = Shared::default();
    let ctx = Ctx {
        opts,
        sym: &sym,
        listed: &listed,
        shared: &shared,
    };

    progress.phase("gomoku positions", tasks.len() as u64);
    // Debugging aid: one line per task on stderr (time, nodes).
    let trace = std::env::var_os("RETRO_GOMOKU_TRACE").is_some();
    tasks.par_iter().for_each(|task| {
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
            Ok(None) => {}
            Err(f) => {
                if let Ok(mut v) = failures.lock() {
                    v.push(*f);
                }
            }
        }
        progress.advance(1);
    });

    let mut failures = failures.into_inner().unwrap_or_default();
    failures.sort_by_key(|f| f.order);
    let (len, line) = longest.into_inner().unwrap_or_default();
    report.longest = len;
    report.longest_line = line;
    report.failures = failures;
    report.searches = shared.searches.load(Ordering::Relaxed);
    report.nodes = shared.nodes.load(Ordering::Relaxed);
    report.replies_proven = shared.proven.load(Ordering::Relaxed);
    report.replies_in_graph = shared.in_graph.load(Ordering::Relaxed);
    report.replies_symmetric = shared.symmetric.load(Ordering::Relaxed);
    report.positions += shared.positions.load(Ordering::Relaxed);
    let mut closed = shared.repairs.closed.into_inner().unwrap_or_default();
    closed.sort_by(|a, b| a.path.cmp(&b.path));
    report.repairs = closed;
    let mut unclosed = shared.repairs.unclosed.into_inner().unwrap_or_default();
    unclosed.sort_by(|a, b| a.path.cmp(&b.path));
    report.unclosed = unclosed;
    report.board = Some(start.clone());
    report.elapsed = t0.elapsed();
    report
}
