//! `retro gomoku solve`: a proof-number search over a DAG of positions, with the sound
//! threat search at its leaves, that grows a whole strategy and can be paused, saved
//! (`checkpoint.rs`) and resumed.
//!
//! The node rules are those of `pns.rs` (its module documentation has each argument); what
//! differs is the bookkeeping:
//!
//! * **Transpositions.** Every position is one node, found again through a table keyed by
//!   the exact bitboards (never a hash alone). A node can have several parents, and after an
//!   expansion the proof and disproof numbers are recomputed up every parent chain that
//!   changes. Positions never repeat along a path (every move adds a stone), so the graph
//!   has no cycle. A node's budget depends only on its board (black stones on it), so a
//!   transposed node answers the same question for every parent.
//! * **Parallel evaluation.** Creating a node runs its threat search (OR node: black to
//!   move, a threat proof; AND node: the proof after a white pass and its zone). The new
//!   children of one expansion are independent: every worker takes the next one in move
//!   order as soon as it is free (`evaluate_in_order`); an OR node stops at the first proven
//!   child, an AND node at the first refuted one, whatever the number of workers.
//! * **Atomic expansion.** An expansion either completes or (past the deadline) is not
//!   recorded; children evaluated before the deadline stay in the table for the next try.
//!   So a node's children are always every candidate or reply it was given (or stop at a
//!   decided one), and a paused search resumes exactly.
//!
//! Soundness does not rest on the numbers: a node is proven only by the rules of `pns.rs`
//! (an OR node by one proven child or a threat proof; an AND node by a proof for every
//! reply the zone leaves, or for every empty cell), and the strategy written from it
//! (`solve_write.rs`) is checked again by the validator.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::rules::board::{Board, Color, Key, Rules};

use super::node_eval::{eval_and, eval_or, verdict, Eval};
pub(crate) use super::node_eval::{How, INF};
use super::quiet::winning_cells;
use super::solve_moves::solve_candidates;
use super::threat::{prove_win_with, SearchConfig};

/// Limits and options of a solve.
#[derive(Debug, Clone, Copy)]
pub struct SolveConfig {
    /// Rules.
    pub rules: Rules,
    /// Black's winning stone must be on or before black's move number `max_moves`.
    pub max_moves: u32,
    /// The threat search at every node. A written strategy relies on the validator finding
    /// the same pass proofs again, so its node limit must not exceed the validator's.
    pub threat: SearchConfig,
    /// Quiet candidates per black node (blocks of white threes come on top).
    pub width: usize,
    /// Quiet candidates at the root: it is expanded once, and a winning quiet move that
    /// makes a long threat after white's reply often ranks below the first dozen by the
    /// cheap evaluation (the ladder's `h8 i9 g9 i7 g10 i10 i8 g8 h9 f11 h10 h11 i11 f8 k8
    /// l8`, won by k10, 13th or later: not proven in 60 s with 12, proven with 24).
    pub root_width: usize,
    /// Largest number of graph nodes.
    pub node_limit: usize,
    /// Wall-clock limit of one run (a resumed run gets its own).
    pub time_limit: Duration,
    /// Initial proof number added per black move below the root (ordering only).
    pub depth_cost: u64,
    /// Nodes of a new node's first threat search: one that gives up there is searched
    /// again with `threat.node_limit` only when the node is chosen for expansion
    /// ([`How::Deferred`]). At least `threat.node_limit`: every search is full at once.
    pub first_leaf_nodes: u64,
}

impl SolveConfig {
    /// The proof search's defaults (`pns::ProveConfig::new`), larger threat searches, and
    /// room for long runs:
    /// 2 million graph nodes (about 1.3 GB: a node takes some 630 bytes, mostly the reply
    /// lists of white nodes), one hour.
    pub fn new(rules: Rules, max_moves: u32) -> SolveConfig {
        SolveConfig {
            rules,
            max_moves,
            // Four times `prove`'s leaves: a pass proof that needs more nodes than 100,000
            // cuts a white node from every empty cell to its zone, and over the ladder's 426
            // stone-16 nodes this proved one more in 60 s and took the mean from 1.0 s to
            // 0.7 s (README "The ladder"). At most the validator's 2 million, which must find
            // the same pass proofs again.
            threat: SearchConfig {
                node_limit: 400_000,
                ..SearchConfig::default()
            },
            width: 12,
            root_width: 24,
            node_limit: 2_000_000,
            time_limit: Duration::from_secs(3600),
            // Measured on the ladder's hardest stone-16 nodes: 0 (Allis's numbers) leaves
            // 8 of 426 unproven in 60 s; 4 proves 3 of the 4 tried of those, and the
            // slowest proven one 5x faster (README "Gomoku: solve").
            depth_cost: 4,
            // Measured (2 cores) on the ladder's `h8 i9 g9 i7 g10 i10 i8 g8 h9 f11 h10 h11
            // i11 f8 k8`, where 1,756 of 23,000 OR nodes' searches and most failing pass
            // proofs ran to the full limit (a third of the CPU) for nodes the search never
            // chose again: every search full at once 213 s wall (357 s CPU); first 100,000
            // 145 s (230 s); first 50,000 157 s (225 s), but rung 1's slowest node took 50 s
            // instead of 31 s; first 20,000 278 s.
            first_leaf_nodes: 100_000,
        }
    }
}

/// A position of the graph.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) key: Key,
    /// Black to move.
    pub(crate) or: bool,
    pub(crate) pn: u64,
    pub(crate) dn: u64,
    pub(crate) how: How,
    pub(crate) expanded: bool,
    /// AND nodes: white's replies that need a proof of their own (fixed when created).
    pub(crate) replies: Vec<u16>,
    /// (move, child), in the order they were tried.
    pub(crate) children: Vec<(u16, u32)>,
    pub(crate) parents: Vec<u32>,
}

/// Why a run returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// The root is proven.
    Proven,
    /// The root cannot be proven with these candidates and limits.
    Refuted,
    /// The graph node limit is reached.
    NodeLimit,
    /// The run's time limit is reached.
    TimeLimit,
    /// The caller's pause time came (call [`Solver::run`] again to go on).
    Paused,
}

/// A snapshot for progress reports.
#[derive(Debug, Clone, Copy)]
pub struct Status {
    /// Root proof number (0: proven).
    pub pn: u64,
    /// Root disproof number (0: refuted).
    pub dn: u64,
    /// Graph nodes.
    pub nodes: usize,
    /// Most stones on the board at any node.
    pub max_stones: u32,
    /// Threat searches run, over all runs.
    pub threat_searches: u64,
    /// Their nodes.
    pub threat_nodes: u64,
    /// Time spent, over all runs.
    pub elapsed: Duration,
}

/// The search: the graph and its table.
pub struct Solver {
    pub(crate) cfg: SolveConfig,
    /// The empty board of the game's size (boards are rebuilt from keys).
    pub(crate) empty: Board,
    pub(crate) root: u32,
    pub(crate) nodes: Vec<Node>,
    pub(crate) table: HashMap<Key, u32>,
    pub(crate) threat_searches: u64,
    pub(crate) threat_nodes: u64,
    pub(crate) max_stones: u32,
    /// Time of earlier runs (restored from a checkpoint).
    pub(crate) elapsed_before: Duration,
    /// Time of this process's runs.
    pub(crate) elapsed_here: Duration,
}

/// The board of `key` on an empty board like `empty`.
pub(crate) fn board_of(empty: &Board, key: &Key) -> Board {
    let mut b = empty.clone();
    for (ci, color) in [(0, Color::Black), (1, Color::White)] {
        for (w, &word) in key[ci].iter().enumerate() {
            let mut m = word;
            while m != 0 {
                let c = w * 64 + m.trailing_zeros() as usize;
                m &= m - 1;
                if c < b.cells() {
                    b.place(c, color);
                }
            }
        }
    }
    b
}

/// The initial proof number of an unsettled black-to-move position: 1 plus
/// `cfg.depth_cost` per black stone played since the root. Deep forcing lines (a four, one
/// reply, another four...) keep a proof number of 1 in Allis's scheme and draw the search
/// down them forever; a cost per black move makes wide shallow proofs (a quiet move whose
/// replies the threat search settles) compete. Numbers only order the search.
fn leaf_cost(cfg: &SolveConfig, root_blacks: u32, b: &Board) -> u64 {
    let depth = b.count(Color::Black).saturating_sub(root_blacks) as u64;
    // A black-to-move position after a white reply to black's move: that move counts.
    1 + cfg.depth_cost * depth
}

/// An unsettled white-to-move position's initial proof number, in units of its leaf
/// cost. With a pass proof, 1 + log2 of the zone's reply count, where Allis's numbers count
/// every reply: most of a zone's replies are settled by their own threat search the moment
/// they are created (after f10 in the ladder's `h8 i9 g9 i7 g10 i10 i8 g8 h9 f11 h10 h11
/// i11 f8 k8 f9`, 38 of 39), so a count overstates the work by an order of magnitude, and a
/// quiet move whose zone holds 20 replies then waits until every chain of fours (one reply
/// each) is searched to the end. There the count left the node unproven after 1.2 million
/// graph nodes (207 s CPU); the logarithm proves it with 88,554 (59 s CPU), the square root
/// with 88,739 (62 s), a flat 1 not in 117 s. Without a pass proof every empty cell is a
/// reply and few are settled at once (each costs a failing threat search), so the count
/// stays: with the logarithm there too, the ladder's `h8 h9 g9 f10 i8 g8 i7 i10 f7 h10 g10
/// h7 j6 k5 i6 i5` took 70 s CPU instead of 10 s. Numbers only order the search.
fn reply_weight(how: How, replies: usize) -> u64 {
    if how == How::AllReplies {
        return replies as u64;
    }
    if how == How::Deferred {
        // Between a zone's weight (5 to 8 for 20 to 200 replies) and every empty cell's
        // (about 200): most pass proofs that give up at the first limit fail at the full
        // one too, and a node is only searched again once its weight is the lowest.
        return DEFERRED_WEIGHT;
    }
    u64::from(usize::BITS - replies.leading_zeros()).max(1)
}

/// Deferred nodes searched again together (see [`Solver::search_fully`]).
const FULL_BATCH: usize = 4;

/// A deferred AND node's weight (see [`reply_weight`]).
const DEFERRED_WEIGHT: u64 = 16;

/// Black stones still allowed on `board`.
fn budget(cfg: &SolveConfig, board: &Board) -> u32 {
    cfg.max_moves.saturating_sub(board.count(Color::Black))
}

/// A new node, evaluated by the rules of `node_eval.rs` (black to move when `or`) with
/// threat searches of `limit` nodes, and its initial numbers: an open OR node costs `cost`,
/// an AND node `cost` times its [`reply_weight`]. Below the full limit, a search that gives
/// up leaves the node [`How::Deferred`].
fn evaluate(board: &Board, or: bool, cfg: &SolveConfig, cost: u64, limit: u64) -> Evaluated {
    let budget = budget(cfg, board);
    let threat = SearchConfig {
        node_limit: limit.min(cfg.threat.node_limit),
        ..cfg.threat
    };
    let partial = threat.node_limit < cfg.threat.node_limit;
    let mut e = if or {
        let (mut searches, mut nodes) = (0, 0);
        let how = eval_or(board, Color::Black, cfg.rules, budget, || {
            let p = prove_win_with(board, Color::Black, cfg.rules, budget, threat);
            (searches, nodes) = (1, p.nodes);
            p.proven.then_some(p.attacker_moves)
        });
        Eval {
            how,
            replies: Vec::new(),
            searches,
            nodes,
        }
    } else {
        eval_and(board, Color::Black, cfg.rules, budget, threat)
    };
    // A search that gave up (it counts one node past its limit) may succeed with more.
    let gave_up = e.nodes > threat.node_limit;
    if partial && gave_up && matches!(e.how, How::Open | How::AllReplies) {
        e.how = How::Deferred;
        e.replies.clear();
    }
    let open = if or {
        cost
    } else {
        reply_weight(e.how, e.replies.len()) * cost
    };
    let numbers = e.numbers(open);
    (e, numbers)
}

/// A new node's evaluation and its initial (proof, disproof) numbers.
type Evaluated = (Eval, (u64, u64));

/// The new children `fresh` of a node (`or`: black to move there), evaluated on every
/// worker, each worker taking the next child in move order as it finishes one: no worker
/// waits for another until the last child is taken. A child that decides its parent (a
/// proven one under an OR node, a refuted one under an AND node) ends the taking; the
/// children taken after it are evaluated and dropped, so what comes back, and so the graph,
/// does not depend on the number of workers or on which finished first: every child up to
/// the first deciding one in move order, or every child. `false` with the children
/// evaluated before `deadline` passed (a prefix in move order: a child taken is always
/// finished) when it stopped the taking first. (The threat searches of the children dropped
/// are not counted in the solver's figures, which so stay the same from run to run.)
fn evaluate_in_order(
    fresh: &[(u16, Board)],
    or: bool,
    cfg: &SolveConfig,
    root_blacks: u32,
    deadline: Instant,
) -> (Vec<Evaluated>, bool) {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    use std::sync::OnceLock;
    let next = AtomicUsize::new(0);
    let first_decided = AtomicUsize::new(usize::MAX);
    let done: Vec<OnceLock<Evaluated>> = fresh.iter().map(|_| OnceLock::new()).collect();
    let workers = rayon::current_num_threads().clamp(1, fresh.len().max(1));
    (0..workers).into_par_iter().for_each(|_| loop {
        if Instant::now() >= deadline {
            return;
        }
        let i = next.fetch_add(1, Relaxed);
        if i >= fresh.len() || i > first_decided.load(Relaxed) {
            return;
        }
        let b = &fresh[i].1;
        let r = evaluate(
            b,
            !or,
            cfg,
            leaf_cost(cfg, root_blacks, b),
            cfg.first_leaf_nodes,
        );
        let (pn, dn) = r.1;
        if (or && pn == 0) || (!or && dn == 0) {
            first_decided.fetch_min(i, Relaxed);
        }
        let _ = done[i].set(r);
    });
    let cut = first_decided.into_inner();
    let mut evals: Vec<_> = done.into_iter().map_while(OnceLock::into_inner).collect();
    let complete = cut < evals.len() || evals.len() == fresh.len();
    evals.truncate(cut.saturating_add(1));
    (evals, complete)
}

impl Solver {
    /// A new search from `board`: black to move when `black_to_move`, else white.
    pub fn new(board: &Board, black_to_move: bool, cfg: SolveConfig) -> Solver {
        let t0 = Instant::now();
        let mut s = Solver::new_empty(board, cfg);
        let (e, numbers) = evaluate(board, black_to_move, &cfg, 1, cfg.threat.node_limit);
        s.root = s.push(board.key(), black_to_move, e, numbers);
        // The root's threat search is part of the work reported.
        s.elapsed_here = t0.elapsed();
        s
    }

    /// A search with no node yet, on `board`'s size.
    pub(crate) fn new_empty(board: &Board, cfg: SolveConfig) -> Solver {
        let mut empty = board.clone();
        for c in 0..board.cells() {
            if let Some(color) = board.get(c) {
                empty.remove(c, color);
            }
        }
        Solver {
            cfg,
            empty,
            root: 0,
            nodes: Vec::new(),
            table: HashMap::new(),
            threat_searches: 0,
            threat_nodes: 0,
            max_stones: board.stones(),
            elapsed_before: Duration::ZERO,
            elapsed_here: Duration::ZERO,
        }
    }

    /// Black stones at the root.
    fn root_blacks(&self) -> u32 {
        self.nodes[self.root as usize].key[0]
            .iter()
            .map(|w| w.count_ones())
            .sum()
    }

    /// The options (a resumed search keeps the limits given when it resumed).
    pub fn config(&self) -> &SolveConfig {
        &self.cfg
    }

    /// Sets the limits of the next runs (rules and the move limit are part of the
    /// question and stay).
    pub fn set_limits(&mut self, node_limit: usize, time_limit: Duration) {
        self.cfg.node_limit = node_limit;
        self.cfg.time_limit = time_limit;
    }

    /// The root position.
    pub fn root_board(&self) -> Board {
        board_of(&self.empty, &self.nodes[self.root as usize].key)
    }

    /// Whether black moves first at the root.
    pub fn black_to_move(&self) -> bool {
        self.nodes[self.root as usize].or
    }

    /// Counts an evaluation's threat searches in the solver's figures.
    fn count(&mut self, e: &Eval) {
        self.threat_searches += e.searches;
        self.threat_nodes += e.nodes;
    }

    fn push(&mut self, key: Key, or: bool, e: Eval, (pn, dn): (u64, u64)) -> u32 {
        self.count(&e);
        let stones = key.iter().flatten().map(|w| w.count_ones()).sum::<u32>();
        self.max_stones = self.max_stones.max(stones);
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            key,
            or,
            pn,
            dn,
            how: e.how,
            expanded: false,
            replies: e.replies,
            children: Vec::new(),
            parents: Vec::new(),
        });
        self.table.insert(key, id);
        id
    }

    /// Progress figures.
    pub fn status(&self) -> Status {
        let r = &self.nodes[self.root as usize];
        Status {
            pn: r.pn,
            dn: r.dn,
            nodes: self.nodes.len(),
            max_stones: self.max_stones,
            threat_searches: self.threat_searches,
            threat_nodes: self.threat_nodes,
            elapsed: self.elapsed_before + self.elapsed_here,
        }
    }

    /// Whether the root is proven.
    pub fn proven(&self) -> bool {
        self.nodes[self.root as usize].pn == 0
    }

    /// Searches until the root is decided, a limit is reached, or `pause` (whichever
    /// first). The time limit counts this process's runs only, so a resumed search gets a
    /// full one.
    pub fn run(&mut self, pause: Option<Instant>) -> Stop {
        let t0 = Instant::now();
        let before = self.elapsed_here;
        let end = t0 + self.cfg.time_limit.saturating_sub(before);
        let deadline = pause.map_or(end, |p| p.min(end));
        let stop = loop {
            let r = &self.nodes[self.root as usize];
            if r.pn == 0 {
                break Stop::Proven;
            }
            if r.dn == 0 {
                break Stop::Refuted;
            }
            if self.nodes.len() >= self.cfg.node_limit {
                break Stop::NodeLimit;
            }
            let now = Instant::now();
            if now >= end {
                break Stop::TimeLimit;
            }
            if now >= deadline {
                break Stop::Paused;
            }
            let Some(leaf) = self.most_proving() else {
                // Inconsistent numbers cannot happen after `update`; recompute and go on.
                self.update(self.root);
                continue;
            };
            if self.expand(leaf, deadline) {
                self.update(leaf);
            }
        };
        self.elapsed_here = before + t0.elapsed();
        stop
    }

    /// Allis's most-proving node: at OR nodes the child whose proof number is the node's,
    /// at AND nodes the child whose disproof number is the node's.
    fn most_proving(&self) -> Option<u32> {
        let mut id = self.root;
        loop {
            let n = &self.nodes[id as usize];
            if !n.expanded {
                return Some(id);
            }
            let pick = n.children.iter().map(|&(_, c)| c).find(|&c| {
                let ch = &self.nodes[c as usize];
                if n.or {
                    ch.pn == n.pn
                } else {
                    ch.dn == n.dn
                }
            });
            id = pick?;
        }
    }

    /// Expands a node; `false` (nothing recorded but the children evaluated so far, kept
    /// in the table) when `deadline` passes first.
    fn expand(&mut self, id: u32, deadline: Instant) -> bool {
        if self.nodes[id as usize].how == How::Deferred && !self.search_fully(id) {
            return true;
        }
        let node = &self.nodes[id as usize];
        let mut board = board_of(&self.empty, &node.key);
        let or = node.or;
        let mover = if or { Color::Black } else { Color::White };
        let cfg = self.cfg;
        let root_blacks = self.root_blacks();
        let moves: Vec<u16> = if or {
            let dw = winning_cells(&board, Color::White, cfg.rules);
            if dw.len() == 1 {
                vec![dw[0] as u16]
            } else {
                let width = if id == self.root {
                    cfg.root_width.max(cfg.width)
                } else {
                    cfg.width
                };
                // Fours as graph moves only for black's first move of the search (see
                // `solve_candidates`): no black stone played since the root.
                let first = board.count(Color::Black) == root_blacks;
                solve_candidates(&mut board, cfg.rules, width, first)
                    .into_iter()
                    .map(|c| c as u16)
                    .collect()
            }
        } else {
            node.replies.clone()
        };
        let child_board = |m: u16| {
            let mut b = board.clone();
            b.place(m as usize, mover);
            b
        };
        // Children already in the table, and the positions still to evaluate.
        let mut known: HashMap<u16, u32> = HashMap::new();
        let mut fresh: Vec<(u16, Board)> = Vec::new();
        for &m in &moves {
            let b = child_board(m);
            match self.table.get(&b.key()) {
                Some(&c) => {
                    known.insert(m, c);
                }
                None => fresh.push((m, b)),
            }
        }
        let decided = |s: &Solver, c: u32| {
            let ch = &s.nodes[c as usize];
            if or {
                ch.pn == 0
            } else {
                ch.dn == 0
            }
        };
        if !known.values().any(|&c| decided(self, c)) {
            let (evals, complete) = evaluate_in_order(&fresh, or, &cfg, root_blacks, deadline);
            for ((m, b), (e, numbers)) in fresh.iter().zip(evals) {
                let c = self.push(b.key(), !or, e, numbers);
                known.insert(*m, c);
            }
            if !complete {
                return false;
            }
        }
        // Children in move order; after a decided child the rest are not needed (an OR
        // node is proven by it, an AND node refuted).
        let mut children = Vec::new();
        for &m in &moves {
            let Some(&c) = known.get(&m) else { continue };
            children.push((m, c));
            if decided(self, c) {
                break;
            }
        }
        for &(_, c) in &children {
            self.nodes[c as usize].parents.push(id);
        }
        let n = &mut self.nodes[id as usize];
        n.children = children;
        n.expanded = true;
        true
    }

    /// A deferred node's threat search again, with the full limit, and with it (on the
    /// other workers) those of the deferred children after it under its parent (when it
    /// has one), at most [`FULL_BATCH`] in all: under a white node, replies that node needs
    /// every one of, which the search would choose next; under a black node, the next
    /// candidates, whose numbers it compares next. The batch does not depend on the number
    /// of workers, so neither does the graph. `true` when `id` is still open and an OR node
    /// (to be expanded now); `false` when it is settled, or an AND node whose replies (and
    /// so its proof number) are only now known, for the search to choose again.
    fn search_fully(&mut self, id: u32) -> bool {
        let mut batch = vec![id];
        let n = &self.nodes[id as usize];
        if let [p] = n.parents[..] {
            let siblings = &self.nodes[p as usize].children;
            let after = siblings.iter().skip_while(|&&(_, c)| c != id).skip(1);
            batch.extend(
                after
                    .map(|&(_, c)| c)
                    .filter(|&c| self.nodes[c as usize].how == How::Deferred)
                    .take(FULL_BATCH - 1),
            );
        }
        let root_blacks = self.root_blacks();
        let cfg = self.cfg;
        let boards: Vec<(u32, bool, Board)> = batch
            .iter()
            .map(|&c| {
                let n = &self.nodes[c as usize];
                (c, n.or, board_of(&self.empty, &n.key))
            })
            .collect();
        let results: Vec<Evaluated> = boards
            .par_iter()
            .map(|(_, or, b)| {
                let cost = leaf_cost(&cfg, root_blacks, b);
                evaluate(b, *or, &cfg, cost, cfg.threat.node_limit)
            })
            .collect();
        for (&(c, _, _), (e, (pn, dn))) in boards.iter().zip(results) {
            self.count(&e);
            let n = &mut self.nodes[c as usize];
            n.how = e.how;
            n.replies = e.replies;
            (n.pn, n.dn) = (pn, dn);
            if c != id {
                self.update(c);
            }
        }
        let n = &self.nodes[id as usize];
        n.or && n.pn != 0 && n.dn != 0
    }

    /// The numbers of node `id` from its children.
    fn numbers(&self, id: u32) -> (u64, u64) {
        let n = &self.nodes[id as usize];
        if !n.expanded {
            return (n.pn, n.dn);
        }
        if n.or {
            if n.children.is_empty() {
                // No candidate: no proof here.
                return (INF, 0);
            }
            n.children.iter().fold((INF, 0), |(pn, dn), &(_, c)| {
                let ch = &self.nodes[c as usize];
                (pn.min(ch.pn), (dn + ch.dn).min(INF))
            })
        } else {
            let (mut pn, dn) = n.children.iter().fold((0, INF), |(pn, dn), &(_, c)| {
                let ch = &self.nodes[c as usize];
                ((pn + ch.pn).min(INF), dn.min(ch.dn))
            });
            // Every reply must be a child: one missing (the expansion stopped at a refuted
            // reply) leaves the node unproven.
            if n.children.len() < n.replies.len() && dn != 0 {
                pn = pn.max(1);
            }
            (pn, dn)
        }
    }

    /// Recomputes `id` and every ancestor whose numbers change.
    fn update(&mut self, id: u32) {
        let mut stack = vec![id];
        let mut first = true;
        while let Some(x) = stack.pop() {
            let (pn, dn) = self.numbers(x);
            let n = &mut self.nodes[x as usize];
            if first || (pn, dn) != (n.pn, n.dn) {
                n.pn = pn;
                n.dn = dn;
                stack.extend(n.parents.iter().copied());
            }
            first = false;
        }
    }

    /// The black moves tried at the root with what is known of each (for reports). With
    /// white to move at the root, white's replies.
    pub fn root_tries(&self) -> Vec<(u16, &'static str)> {
        self.nodes[self.root as usize]
            .children
            .iter()
            .map(|&(m, c)| {
                let n = &self.nodes[c as usize];
                (m, verdict(n.pn, n.dn))
            })
            .collect()
    }

    /// When proven: the worst-case stone number of black's winning stone.
    pub fn by_stone(&self) -> Option<u32> {
        if !self.proven() {
            return None;
        }
        let mut memo = HashMap::new();
        Some(self.stone(self.root, &mut memo))
    }

    /// The proven subgraph's worst-case winning stone from node `id`.
    fn stone(&self, id: u32, memo: &mut HashMap<u32, u32>) -> u32 {
        if let Some(&s) = memo.get(&id) {
            return s;
        }
        let n = &self.nodes[id as usize];
        let s = n.key.iter().flatten().map(|w| w.count_ones()).sum::<u32>();
        let r = match n.how {
            How::Threat(_) | How::Double => n.how.stone(s),
            _ if n.or => match self.proven_child(id) {
                Some((_, c)) => self.stone(c, memo),
                None => 0,
            },
            how => n
                .children
                .iter()
                .map(|&(_, c)| self.stone(c, memo))
                .fold(how.stone(s), u32::max),
        };
        memo.insert(id, r);
        r
    }

    /// An OR node's proven child (the first in move order).
    pub(crate) fn proven_child(&self, id: u32) -> Option<(u16, u32)> {
        self.nodes[id as usize]
            .children
            .iter()
            .copied()
            .find(|&(_, c)| self.nodes[c as usize].pn == 0)
    }
}
