//! The strategy-graph validator: walks the graph, and after every black move takes every
//! empty cell as white's reply. Each reply must continue in the graph (the same position
//! up to symmetry is listed somewhere) or black's win from there must be proven by the
//! threat search within the move limit. Integer leaves are proven the same way.
//!
//! The walk itself is sequential and cheap; the searches run in parallel (rayon), one task
//! per position after a black move and one per integer leaf after a white reply.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use super::board::{Board, Color, Key, Rules};
use super::report::{Failure, Reason, Report};
use super::strategy::{AfterBlack, AfterWhite, BlackNode, Strategy};
use super::symmetry::Symmetries;
use super::threat::{
    bb_has, prove_win_defender_to_move, prove_win_hinted, prove_win_with, prove_with_zone, CellSet,
    Hint, SearchConfig,
};

/// Validation options.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Rules.
    pub rules: Rules,
    /// Black's winning row must come on or before black's move number `max_moves`.
    pub max_moves: u32,
    /// Search options.
    pub search: SearchConfig,
    /// Show a progress bar (on a terminal).
    pub progress: bool,
}

enum Kind {
    /// White to move after a black move; listed replies (validated as their own tasks).
    WhiteToMove { listed: Vec<u16> },
    /// Black to move at an integer leaf.
    BlackLeaf { claim: u32 },
}

struct Task {
    board: Board,
    path: Vec<u16>,
    order: usize,
    kind: Kind,
    claim: u32,
}

struct Walker<'a> {
    opts: &'a Options,
    sym: &'a Symmetries,
    listed: HashSet<Key>,
    tasks: Vec<Task>,
    failures: Vec<Failure>,
    order: usize,
    report: Report,
}

impl Walker<'_> {
    fn fail(&mut self, board: &Board, path: &[u16], reason: Reason, cell: u16) {
        self.failures.push(Failure {
            path: path.to_vec(),
            board: board.clone(),
            reason,
            order: (self.order, cell),
            rules: self.opts.rules,
        });
    }

    fn walk_black(&mut self, node: &BlackNode, board: &mut Board, path: &mut Vec<u16>) {
        self.order += 1;
        let order = self.order;
        let mv = node.mv;
        path.push(mv);
        if board.count(Color::Black) + 1 > self.opts.max_moves {
            self.fail(
                board,
                path,
                Reason::LimitExceeded {
                    max_moves: self.opts.max_moves,
                },
                u16::MAX,
            );
            path.pop();
            return;
        }
        if !board.is_empty(mv as usize) {
            self.fail(board, path, Reason::Occupied { black: true }, u16::MAX);
            path.pop();
            return;
        }
        self.report.black_moves += 1;
        self.report.positions += 1;
        board.place(mv as usize, Color::Black);
        if board.five_through(mv as usize, Color::Black, self.opts.rules) {
            // Black has won; whatever follows is moot.
            self.report.leaves += 1;
            let blacks = board.count(Color::Black);
            if blacks > self.report.longest {
                self.report.longest = blacks;
                self.report.longest_line = path.clone();
            }
        } else {
            match &node.after {
                AfterBlack::Leaf(n) => {
                    self.report.leaves += 1;
                    self.tasks.push(Task {
                        board: board.clone(),
                        path: path.clone(),
                        order,
                        kind: Kind::WhiteToMove { listed: Vec::new() },
                        claim: *n,
                    });
                }
                AfterBlack::White(w) => {
                    self.tasks.push(Task {
                        board: board.clone(),
                        path: path.clone(),
                        order,
                        kind: Kind::WhiteToMove {
                            listed: w.replies.iter().map(|r| r.0).collect(),
                        },
                        claim: 0,
                    });
                    for (c, sub) in &w.replies {
                        self.walk_white(*c, sub, board, path);
                    }
                }
            }
        }
        board.remove(mv as usize, Color::Black);
        path.pop();
    }

    fn walk_white(&mut self, c: u16, sub: &AfterWhite, board: &mut Board, path: &mut Vec<u16>) {
        self.order += 1;
        path.push(c);
        if !board.is_empty(c as usize) {
            self.fail(board, path, Reason::Occupied { black: false }, u16::MAX);
            path.pop();
            return;
        }
        self.report.listed_replies += 1;
        self.report.positions += 1;
        board.place(c as usize, Color::White);
        self.listed.insert(self.sym.canonical(board));
        if board.five_through(c as usize, Color::White, self.opts.rules) {
            self.fail(board, path, Reason::WhiteWins, u16::MAX);
        } else {
            match sub {
                AfterWhite::Leaf(n) => {
                    self.report.leaves += 1;
                    self.tasks.push(Task {
                        board: board.clone(),
                        path: path.clone(),
                        order: self.order,
                        kind: Kind::BlackLeaf { claim: *n },
                        claim: *n,
                    });
                }
                AfterWhite::Black(bn) => self.walk_black(bn, board, path),
            }
        }
        board.remove(c as usize, Color::White);
        path.pop();
    }
}

/// Proofs (with zones) shared between tasks, under exact position keys.
struct ProofCache {
    shards: Vec<Mutex<HashMap<Key, Cached>>>,
}

#[derive(Clone, Copy)]
struct Cached {
    proven: bool,
    moves: u32,
    zone: Option<CellSet>,
}

impl Default for ProofCache {
    fn default() -> Self {
        ProofCache {
            shards: (0..64).map(|_| Mutex::new(HashMap::new())).collect(),
        }
    }
}

impl ProofCache {
    fn shard(&self, key: &Key) -> &Mutex<HashMap<Key, Cached>> {
        let h = key
            .iter()
            .flatten()
            .fold(0u64, |a, &w| (a ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        &self.shards[(h >> 58) as usize % self.shards.len()]
    }

    /// The proof (attacker black to move) of `board` within `budget`, searched once.
    fn get_or_prove(
        &self,
        board: &Board,
        opts: &Options,
        budget: u32,
        cfg: SearchConfig,
        shared: &Shared,
    ) -> Cached {
        let key = board.key();
        if let Some(c) = self
            .shard(&key)
            .lock()
            .ok()
            .and_then(|m| m.get(&key).copied())
        {
            return c;
        }
        shared.searches.fetch_add(1, Ordering::Relaxed);
        let (p, zone, _) = prove_with_zone(board, Color::Black, opts.rules, budget, cfg);
        shared.nodes.fetch_add(p.nodes, Ordering::Relaxed);
        let c = Cached {
            proven: p.proven,
            moves: p.attacker_moves,
            zone: zone.filter(|_| p.proven),
        };
        if let Ok(mut m) = self.shard(&key).lock() {
            m.insert(key, c);
        }
        c
    }
}

/// Whether cells `a` and `b` lie in a common `k`-window (same line, distance below `k`).
pub(crate) fn share_window(board: &Board, a: usize, b: usize) -> bool {
    let (ax, ay) = board.xy(a);
    let (bx, by) = board.xy(b);
    let (dx, dy) = (ax.abs_diff(bx), ay.abs_diff(by));
    (dx == 0 || dy == 0 || dx == dy) && dx.max(dy) < board.k()
}

/// White stones far from every black stone, no two in a common window: candidates to be
/// irrelevant, to be checked against proof zones (never assumed irrelevant).
fn far_white_stones(board: &Board) -> Vec<usize> {
    let blacks: Vec<(usize, usize)> = (0..board.cells())
        .filter(|&c| board.get(c) == Some(Color::Black))
        .map(|c| board.xy(c))
        .collect();
    let mut out: Vec<usize> = Vec::new();
    for c in 0..board.cells() {
        if board.get(c) != Some(Color::White) {
            continue;
        }
        let (x, y) = board.xy(c);
        let near = blacks
            .iter()
            .any(|&(bx, by)| x.abs_diff(bx).max(y.abs_diff(by)) < 4);
        if !near && out.iter().all(|&o| !share_window(board, o, c)) {
            out.push(c);
        }
    }
    out
}

#[derive(Default)]
struct Shared {
    cache: ProofCache,
    searches: AtomicU64,
    nodes: AtomicU64,
    proven: AtomicU64,
    in_graph: AtomicU64,
    symmetric: AtomicU64,
    all_at_once: AtomicU64,
    positions: AtomicU64,
}

/// Validates a strategy. Never panics on a bad graph: every problem is a [`Failure`].
pub fn validate(strategy: &Strategy, opts: &Options) -> Report {
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

    let bar = if opts.progress {
        ProgressBar::new(tasks.len() as u64)
    } else {
        ProgressBar::hidden()
    };
    if let Ok(style) = ProgressStyle::with_template(
        "{elapsed_precise} [{bar:40}] {pos}/{len} positions ({per_sec}, eta {eta})",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }

    // Debugging aid: one line per task on stderr (time, nodes).
    let trace = std::env::var_os("RETRO_GOMOKU_TRACE").is_some();
    tasks.par_iter().for_each(|task| {
        let t = Instant::now();
        let n0 = shared.nodes.load(Ordering::Relaxed);
        let result = run_task(task, opts, &sym, &listed, &shared);
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
        bar.inc(1);
    });
    bar.finish_and_clear();

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
    report.all_replies_proven = shared.all_at_once.load(Ordering::Relaxed);
    report.positions += shared.positions.load(Ordering::Relaxed);
    report.board = Some(start.clone());
    report.elapsed = t0.elapsed();
    report
}

/// Before declaring a hole: one more search, without hints and with five times the nodes.
fn retry(board: &Board, opts: &Options, budget: u32, shared: &Shared) -> super::threat::Proof {
    let cfg = SearchConfig {
        node_limit: opts.search.node_limit.saturating_mul(5),
        ..opts.search
    };
    shared.searches.fetch_add(1, Ordering::Relaxed);
    let p = prove_win_with(board, Color::Black, opts.rules, budget, cfg);
    shared.nodes.fetch_add(p.nodes, Ordering::Relaxed);
    p
}

type TaskResult = Result<Option<(u32, Vec<u16>)>, Box<Failure>>;

fn run_task(
    task: &Task,
    opts: &Options,
    sym: &Symmetries,
    listed: &HashSet<Key>,
    shared: &Shared,
) -> TaskResult {
    let board = &task.board;
    let blacks = board.count(Color::Black);
    let budget = opts.max_moves.saturating_sub(blacks);
    let fail = |board: &Board, path: Vec<u16>, reason: Reason, cell: u16| {
        Err(Box::new(Failure {
            path,
            board: board.clone(),
            reason,
            order: (task.order, cell),
            rules: opts.rules,
        }))
    };
    match &task.kind {
        Kind::BlackLeaf { claim } => {
            shared.searches.fetch_add(1, Ordering::Relaxed);
            let cfg = SearchConfig {
                jump_depth: (claim / 2).min(budget),
                ..opts.search
            };
            let p = prove_win_with(board, Color::Black, opts.rules, budget, cfg);
            shared.nodes.fetch_add(p.nodes, Ordering::Relaxed);
            let p = if p.proven {
                p
            } else {
                retry(board, opts, budget, shared)
            };
            if p.proven {
                Ok(Some((blacks + p.attacker_moves, task.path.clone())))
            } else {
                fail(
                    board,
                    task.path.clone(),
                    Reason::LeafNotProven {
                        budget,
                        claim: *claim,
                        black_to_move: true,
                    },
                    0,
                )
            }
        }
        Kind::WhiteToMove { listed: own } => {
            let empties: Vec<usize> = (0..board.cells()).filter(|&c| board.is_empty(c)).collect();
            let unlisted = empties
                .iter()
                .filter(|&&c| !own.contains(&(c as u16)))
                .count() as u64;
            shared.positions.fetch_add(unlisted, Ordering::Relaxed);
            // One proof with white to move covers every reply at once (see threat.rs, AND node).
            shared.searches.fetch_add(1, Ordering::Relaxed);
            // Only a shortcut: a small node budget (failure just means replies one by one).
            let quick = SearchConfig {
                node_limit: opts.search.node_limit.min(20_000),
                ..opts.search
            };
            let p = prove_win_defender_to_move(board, Color::Black, opts.rules, budget, quick);
            shared.nodes.fetch_add(p.nodes, Ordering::Relaxed);
            if p.proven {
                shared.all_at_once.fetch_add(1, Ordering::Relaxed);
                shared.proven.fetch_add(unlisted, Ordering::Relaxed);
                return Ok(Some((blacks + p.attacker_moves, task.path.clone())));
            }
            // One proof with black to move (white "passes") covers every reply outside its
            // zone (see threat.rs, "Zones").
            shared.searches.fetch_add(1, Ordering::Relaxed);
            let (np, zone, hints) =
                prove_with_zone(board, Color::Black, opts.rules, budget, opts.search);
            shared.nodes.fetch_add(np.nodes, Ordering::Relaxed);
            let zone = zone.filter(|_| np.proven);
            let in_zone = |w: usize| match &zone {
                Some(z) => bb_has(z, w),
                None => true,
            };
            let mut history = hints.history.clone();
            // A base position without far white stones `far`, shared with other tasks. A
            // proof `T` of the base extends to the base plus the stones of a set `W` when
            // every stone of `W` is outside the zone of `T` and no k-window holds two of them
            // (threat.rs, "Zones": the induction there only needs, for each window, at most
            // one new stone).
            let far = far_white_stones(board);
            let base = if far.is_empty() || budget == 0 {
                None
            } else {
                let mut b = board.clone();
                for &x in &far {
                    b.remove(x, Color::White);
                }
                let null = shared
                    .cache
                    .get_or_prove(&b, opts, budget, opts.search, shared);
                Some((b, null))
            };
            let outside = |zone: &Option<CellSet>, cells: &[usize]| match zone {
                Some(z) => cells.iter().all(|&c| !bb_has(z, c)),
                None => false,
            };
            let keys = sym.keys(board);
            let stab = sym.stabilizer(&keys);
            let mut best: Option<(u32, Vec<u16>)> = None;
            let mut b2 = board.clone();
            // The leaf's own claim (n: black's five on stone S + n - 1, S counting black's
            // last move) leaves (n - 1) / 2 black moves after a reply: a budget worth trying
            // early. Never a limit: the budget stays the move limit.
            let jump = if task.claim > 0 {
                ((task.claim - 1) / 2).min(budget)
            } else {
                0
            };
            for &w in &empties {
                if own.contains(&(w as u16)) {
                    continue;
                }
                // A symmetric image of a smaller sibling reply: same position up to symmetry.
                if stab.iter().any(|&t| (sym.perms[t][w] as usize) < w) {
                    shared.symmetric.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                if listed.contains(&sym.canonical_with(&keys, w, Color::White)) {
                    shared.in_graph.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                // A reply that makes white's winning row ends the game: a hole, whatever any
                // proof says.
                b2.place(w, Color::White);
                let white_wins = b2.five_through(w, Color::White, opts.rules);
                b2.remove(w, Color::White);
                if white_wins {
                    b2.place(w, Color::White);
                    let mut path = task.path.clone();
                    path.push(w as u16);
                    return fail(&b2, path, Reason::ReplyNotProven { budget }, w as u16);
                }
                if !in_zone(w) {
                    shared.proven.fetch_add(1, Ordering::Relaxed);
                    let len = blacks + np.attacker_moves;
                    if best.as_ref().map_or(true, |b| len > b.0) {
                        let mut path = task.path.clone();
                        path.push(w as u16);
                        best = Some((len, path));
                    }
                    continue;
                }
                if let Some((base, null)) = &base {
                    let free = far.iter().all(|&x| !share_window(board, x, w));
                    let mut with_w = far.clone();
                    with_w.push(w);
                    let via = if null.proven && free && outside(&null.zone, &with_w) {
                        Some(null.moves)
                    } else {
                        let mut bw = base.clone();
                        bw.place(w, Color::White);
                        let cfg = SearchConfig {
                            start_depth: null.moves.max(1),
                            jump_depth: jump,
                            ..opts.search
                        };
                        let c = if bw.five_through(w, Color::White, opts.rules) {
                            Cached {
                                proven: false,
                                moves: 0,
                                zone: None,
                            }
                        } else {
                            shared.cache.get_or_prove(&bw, opts, budget, cfg, shared)
                        };
                        (c.proven && outside(&c.zone, &far)).then_some(c.moves)
                    };
                    if let Some(moves) = via {
                        shared.proven.fetch_add(1, Ordering::Relaxed);
                        let len = blacks + moves;
                        if best.as_ref().map_or(true, |b| len > b.0) {
                            let mut path = task.path.clone();
                            path.push(w as u16);
                            best = Some((len, path));
                        }
                        continue;
                    }
                }
                b2.place(w, Color::White);
                let mut path = task.path.clone();
                path.push(w as u16);
                if b2.five_through(w, Color::White, opts.rules) {
                    return fail(&b2, path, Reason::ReplyNotProven { budget }, w as u16);
                }
                shared.searches.fetch_add(1, Ordering::Relaxed);
                let cfg = SearchConfig {
                    start_depth: np.attacker_moves.max(1),
                    jump_depth: jump,
                    ..opts.search
                };
                let p = prove_win_hinted(
                    &b2,
                    Color::Black,
                    opts.rules,
                    budget,
                    cfg,
                    Hint {
                        hints: &hints,
                        extra: w,
                        history: &mut history,
                    },
                );
                shared.nodes.fetch_add(p.nodes, Ordering::Relaxed);
                let p = if p.proven {
                    p
                } else {
                    retry(&b2, opts, budget, shared)
                };
                if !p.proven {
                    let reason = if own.is_empty() && task.claim > 0 {
                        Reason::LeafNotProven {
                            budget,
                            claim: task.claim,
                            black_to_move: false,
                        }
                    } else {
                        Reason::ReplyNotProven { budget }
                    };
                    return fail(&b2, path, reason, w as u16);
                }
                shared.proven.fetch_add(1, Ordering::Relaxed);
                let len = blacks + p.attacker_moves;
                if best.as_ref().map_or(true, |b| len > b.0) {
                    best = Some((len, path));
                }
                b2.remove(w, Color::White);
            }
            Ok(best)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::brute::Exhaustive;
    use super::*;

    fn opts(rules: Rules, max_moves: u32) -> Options {
        Options {
            rules,
            max_moves,
            search: SearchConfig::default(),
            progress: false,
        }
    }

    /// Fours only: on 4x4 the full search proves every reply, so tests that need listed
    /// replies use this weaker search both to export and to validate.
    fn vcf() -> SearchConfig {
        SearchConfig {
            vct: false,
            ..SearchConfig::default()
        }
    }

    fn vcf_opts(max_moves: u32) -> Options {
        Options {
            search: vcf(),
            ..opts(Rules::Standard, max_moves)
        }
    }

    const FORK_SETUP: &str =
        r#""setup": {"black": ["e8", "f8", "g9", "g10"], "white": ["a1", "a3", "o1", "o15"]}"#;

    fn fork(strategy: &str, max_moves: u32) -> Strategy {
        let text = format!(
            r#"{{"format": "retro-gomoku-strategy/1", "width": 15, "height": 15, "k": 5, "rules": "standard",
                "max_moves": {max_moves}, {FORK_SETUP}, "strategy": {strategy}}}"#
        );
        Strategy::from_json(&text).expect("test strategy parses")
    }

    fn names(s: &Strategy, path: &[u16]) -> String {
        path.iter()
            .map(|&c| s.start.cell_name(c as usize))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn hand_built_fork_is_valid() {
        let s = fork(r#"{"g8": 3}"#, 10);
        let r = validate(&s, &opts(Rules::Standard, 10));
        assert!(r.valid(), "{r}");
        // 4 setup stones + g8 + open four + five.
        assert_eq!(r.longest, 7);
        assert_eq!(r.black_moves, 1);
        assert_eq!(r.leaves, 1);
        assert!(r.replies_proven >= 200);
    }

    #[test]
    fn changed_black_move_fails_at_that_node() {
        // With g8, 7 black moves suffice; a15 wastes the tempo.
        let s = fork(r#"{"g8": 3}"#, 7);
        assert!(validate(&s, &opts(Rules::Standard, 7)).valid());
        let s = fork(r#"{"a15": 3}"#, 7);
        let r = validate(&s, &opts(Rules::Standard, 7));
        assert!(!r.valid());
        let f = &r.failures[0];
        assert_eq!(f.path.len(), 2, "{r}");
        assert_eq!(names(&s, &f.path[..1]), "a15");
        assert!(
            matches!(
                f.reason,
                Reason::ReplyNotProven { .. } | Reason::LeafNotProven { .. }
            ),
            "{r}"
        );
    }

    #[test]
    fn illegal_move_and_limit_are_reported() {
        let s = fork(r#"{"e8": 3}"#, 10);
        let r = validate(&s, &opts(Rules::Standard, 10));
        assert_eq!(r.failures[0].reason, Reason::Occupied { black: true });
        assert_eq!(names(&s, &r.failures[0].path), "e8");
        let s = fork(r#"{"g8": {"e8": 3}}"#, 10);
        let r = validate(&s, &opts(Rules::Standard, 10));
        assert_eq!(r.failures[0].reason, Reason::Occupied { black: false });
        assert_eq!(names(&s, &r.failures[0].path), "g8 e8");
        let s = fork(r#"{"g8": 3}"#, 4);
        let r = validate(&s, &opts(Rules::Standard, 4));
        assert_eq!(r.failures[0].reason, Reason::LimitExceeded { max_moves: 4 });
        // Enough moves for g8 but not for the win: 5 black stones after g8, limit 6.
        let r = validate(&s, &opts(Rules::Standard, 6));
        assert!(!r.valid());
    }

    #[test]
    fn white_five_after_an_ignored_four_is_a_hole() {
        // Black has an open four but plays a1; white completes its own five at c10 or h10.
        let text = r#"{"format": "retro-gomoku-strategy/1", "max_moves": 10,
            "setup": {"black": ["d8", "e8", "f8", "g8"], "white": ["d10", "e10", "f10", "g10"]},
            "strategy": {"a1": 1}}"#;
        let s = Strategy::from_json(text).expect("parse");
        let r = validate(&s, &opts(Rules::Standard, 10));
        assert!(!r.valid());
        assert_eq!(names(&s, &r.failures[0].path), "a1 c10", "{r}");
        // Black's own five instead: valid.
        let s = Strategy::from_json(&text.replace("a1", "c8")).expect("parse");
        assert!(validate(&s, &opts(Rules::Standard, 10)).valid());
    }

    #[test]
    fn unprovable_leaf_is_reported() {
        let text = r#"{"format": "retro-gomoku-strategy/1", "strategy": {"h8": {"h9": 5}}}"#;
        let s = Strategy::from_json(text).expect("parse");
        let r = validate(&s, &opts(Rules::Standard, 35));
        assert!(!r.valid());
        // The first failure is at the first black move (white's replies to h8 alone).
        assert_eq!(names(&s, &r.failures[0].path[..1]), "h8");
        assert!(r
            .failures
            .iter()
            .any(|f| matches!(f.reason, Reason::LeafNotProven { claim: 5, .. })));
    }

    /// Strategy exported from exhaustive search on 4x4, k = 3 (from the empty board).
    fn exported_4x4() -> (Strategy, u32) {
        let mut b = Board::new(4, 4, 3).expect("size");
        let mut ex = Exhaustive::new(Color::Black, Rules::Standard);
        let d = (1..=6)
            .find(|&d| ex.wins(&mut b, d))
            .expect("black wins 4x4 k=3");
        let root = ex
            .export(&mut b, d, SearchConfig::default())
            .expect("export");
        (
            Strategy {
                start: b,
                rules: Some(Rules::Standard),
                max_moves: Some(d),
                root,
                seed_format: false,
            },
            d,
        )
    }

    #[test]
    fn exported_4x4_k3_strategy_is_valid() {
        let (s, d) = exported_4x4();
        let r = validate(&s, &opts(Rules::Standard, d));
        assert!(r.valid(), "{r}");
        assert!(r.longest <= d);
        // The same strategy round-trips through the project format.
        let again = Strategy::from_json(&s.to_project_json().to_string()).expect("reparse");
        assert!(validate(&again, &opts(Rules::Standard, d)).valid());
    }

    #[test]
    fn exported_4x4_k3_with_a_losing_first_move_fails_there() {
        let (s, d) = exported_4x4();
        let mut b = s.start.clone();
        let mut ex = Exhaustive::new(Color::Black, Rules::Standard);
        let bad = (0..b.cells()).find(|&c| {
            b.place(c, Color::Black);
            let wins = ex.wins_defender_to_move(&mut b, d - 1);
            b.remove(c, Color::Black);
            !wins
        });
        let bad = bad.expect("4x4 k=3 has a first move that does not win in time");
        let mut changed = s.clone();
        changed.root.mv = bad as u16;
        let r = validate(&changed, &opts(Rules::Standard, d));
        assert!(!r.valid(), "a losing first move must not validate");
        assert_eq!(r.failures[0].path[0] as usize, bad);
    }

    /// 15x15: black's row-2 three is closed at a2, so e2 is a four that white must block at
    /// f2; then g8 makes two open threes (e8 f8 g8, g8 g9 g10).
    fn four_then_fork(tree: &str) -> Strategy {
        let text = format!(
            r#"{{"format": "retro-gomoku-strategy/1", "rules": "standard", "max_moves": 11,
                "setup": {{"black": ["e8", "f8", "g9", "g10", "b2", "c2", "d2"],
                           "white": ["a2", "o15", "o10", "o5", "k15", "e15", "a15"]}},
                "strategy": {tree}}}"#
        );
        Strategy::from_json(&text).expect("test strategy parses")
    }

    #[test]
    fn listed_branch_needed_by_a_fours_only_search() {
        let s = four_then_fork(r#"{"e2": {"f2": {"g8": 3}}}"#);
        let r = validate(&s, &vcf_opts(11));
        assert!(r.valid(), "{r}");
        assert_eq!(r.listed_replies, 1);
        // Branch removed: the fours-only search cannot prove f2 on its own.
        let cut = four_then_fork(r#"{"e2": 4}"#);
        let r = validate(&cut, &vcf_opts(11));
        assert!(!r.valid());
        assert_eq!(names(&cut, &r.failures[0].path), "e2 f2", "{r}");
        assert!(
            matches!(
                r.failures[0].reason,
                Reason::LeafNotProven {
                    black_to_move: false,
                    ..
                }
            ),
            "{r}"
        );
        // The full search (threes too) proves it without the branch.
        assert!(validate(&cut, &opts(Rules::Standard, 11)).valid());
    }

    #[test]
    fn changed_black_move_in_a_listed_line_fails_there() {
        // Black's g8 replaced by a quiet a8: the fork is gone.
        let s = four_then_fork(r#"{"e2": {"f2": {"a8": 3}}}"#);
        let r = validate(&s, &vcf_opts(11));
        assert!(!r.valid());
        let p = names(&s, &r.failures[0].path);
        assert!(p.starts_with("e2 f2 a8 "), "{p}\n{r}");
        assert_eq!(r.failures[0].path.len(), 4);
    }
}

#[cfg(test)]
mod test_data {
    use super::super::brute::Exhaustive;
    use super::*;

    /// `tests/data/gomoku/k3_4x4.json`, the exhaustive 4x4 k=3 strategy the CLI tests
    /// validate, is exactly what the exporter produces (a golden file). To rewrite it after a
    /// deliberate change: `RETRO_BLESS=1 cargo test --release gomoku_test_data`.
    #[test]
    fn gomoku_test_data_is_current() {
        let mut b = Board::new(4, 4, 3).expect("size");
        let mut ex = Exhaustive::new(Color::Black, Rules::Standard);
        let d = (1..=6).find(|&d| ex.wins(&mut b, d)).expect("black wins");
        let root = ex
            .export(&mut b, d, SearchConfig::default())
            .expect("export");
        let s = Strategy {
            start: b,
            rules: Some(Rules::Standard),
            max_moves: Some(d),
            root,
            seed_format: false,
        };
        let text = serde_json::to_string_pretty(&s.to_project_json()).expect("json");
        // This file lives in games/gomoku/; the data in tests/data/gomoku/.
        let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file!());
        let path = here
            .parent()
            .expect("dir")
            .join("../../tests/data/gomoku/k3_4x4.json");
        if std::env::var_os("RETRO_BLESS").is_some() {
            std::fs::write(&path, text + "\n").expect("write");
        } else {
            let committed = std::fs::read_to_string(&path).expect("golden file");
            assert_eq!(
                committed,
                text + "\n",
                "exporter output changed: {}",
                path.display()
            );
        }
    }
}
