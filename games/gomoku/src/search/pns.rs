//! The outer proof search: a proof-number search in Allis's style on top of the threat
//! search, for positions where black's winning start is a quiet move.
//!
//! The tree alternates OR nodes (attacker to move) and AND nodes (defender to move). The
//! budget is absolute: the attacker's winning stone must be on or before its move number
//! `max_moves` (stones of the attacker on the board count as moves played), so a node's
//! budget is `max_moves` minus the attacker's stones on its board.
//!
//! **OR node** (attacker to move). Evaluated when created: a threat-search proof within the
//! budget proves it (a leaf). Otherwise, if the defender has two winning cells, or the
//! budget is spent, no proof exists in this tree. When expanded, the children are the
//! attacker's candidates ([`super::quiet::candidates`], or only the block when the defender
//! has one winning cell). Proven when one child is proven.
//!
//! **AND node** (defender to move). Evaluated when created: a defender winning cell means
//! no proof; two attacker winning cells prove it (one stone cannot fill both, and a defender
//! stone never lengthens an attacker row); one attacker winning cell `c` leaves `c` as the
//! only reply worth a search (every other reply loses to `c` at once). Otherwise the
//! threat search is run as if the defender passed; with a proof `T` and its zone `Z`
//! (`threat.rs`, "Zones"), every reply outside `Z` leaves `T` a proof within the same
//! budget, so the replies are the empty cells of `Z`; without one, every empty cell. An AND
//! node is proven only when **every** one of its replies is a proven OR node: no reply is
//! ever dismissed without the zone argument or a proof of its own.
//!
//! Selection is Allis's most-proving node: at OR nodes the child whose proof number equals
//! the node's, at AND nodes the child whose disproof number equals the node's. A proof
//! number is the number of leaves still to prove; an AND node's initial proof number is
//! its reply count.
//!
//! "Not proven" is never a claim that the attacker does not win: candidates are limited,
//! and so are the threat searches at the leaves.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::rules::board::{Board, Color, Key, Rules};

pub(crate) use super::node_eval::How;
use super::node_eval::{eval_and, eval_or, verdict, Eval, INF};
use super::quiet::{candidates, winning_cells};
use super::threat::{prove_win_with, SearchConfig};

/// [`ProofResult::stopped`] of a search stopped through [`ProofSearch::with_stop`].
pub const STOPPED_FROM_OUTSIDE: &str = "stopped from outside";

/// Limits and options of a proof search.
#[derive(Debug, Clone, Copy)]
pub struct ProveConfig {
    /// Rules.
    pub rules: Rules,
    /// The attacker's winning stone must be on or before its move number `max_moves`
    /// (counting the attacker's stones already on the board).
    pub max_moves: u32,
    /// The threat search run at every leaf and, as if the defender passed, at AND nodes.
    pub threat: SearchConfig,
    /// Quiet candidates tried per attacker node (blocks of defender threes come on top).
    pub width: usize,
    /// Largest number of tree nodes.
    pub node_limit: usize,
    /// Wall-clock limit.
    pub time_limit: Duration,
    /// Largest number of threat-search nodes over the whole search (its work, counted the
    /// same on a busy machine as on an idle one); `u64::MAX`: none.
    pub total_threat_nodes: u64,
}

impl ProveConfig {
    /// Defaults that finish in seconds on 15x15: threat searches of 100,000 nodes, 12
    /// quiet candidates, 20,000 tree nodes, 20 seconds.
    pub fn new(rules: Rules, max_moves: u32) -> ProveConfig {
        ProveConfig {
            rules,
            max_moves,
            threat: SearchConfig {
                node_limit: 100_000,
                ..SearchConfig::default()
            },
            width: 12,
            node_limit: 20_000,
            time_limit: Duration::from_secs(20),
            total_threat_nodes: u64::MAX,
        }
    }
}

#[derive(Debug, Clone)]
struct Node {
    board: Board,
    attacker_to_move: bool,
    /// The move that led here (none at the root).
    mv: u16,
    parent: u32,
    pn: u64,
    dn: u64,
    how: How,
    expanded: bool,
    /// AND nodes: the replies to create on expansion.
    replies: Vec<u16>,
    children: Vec<u32>,
}

/// What a proof search found.
#[derive(Debug, Clone)]
pub struct ProofResult {
    /// The root is proven: the attacker wins within the limit against every reply.
    pub proven: bool,
    /// When proven: the worst-case stone number (counting stones on the board) of the
    /// attacker's winning stone.
    pub by_stone: u32,
    /// Tree nodes created.
    pub tree_nodes: usize,
    /// Threat searches run and their nodes.
    pub threat_searches: u64,
    /// Nodes of those threat searches.
    pub threat_nodes: u64,
    /// Why the search stopped without a proof (empty when proven).
    pub stopped: String,
    /// Time spent.
    pub elapsed: Duration,
    /// The attacker moves tried at the root, with the outcome of each (for reports).
    pub root_tries: Vec<(u16, &'static str)>,
    tree: Vec<Node>,
}

/// The proof search.
pub struct ProofSearch {
    cfg: ProveConfig,
    attacker: Color,
    nodes: Vec<Node>,
    leaf_cache: HashMap<Key, Option<u32>>,
    searches: u64,
    threat_nodes: u64,
    /// Raised by someone else to stop the search early (it then reports "not proven").
    stop: Option<Arc<AtomicBool>>,
}

impl ProofSearch {
    /// A search for `attacker`.
    pub fn new(attacker: Color, cfg: ProveConfig) -> ProofSearch {
        ProofSearch {
            cfg,
            attacker,
            nodes: Vec::new(),
            leaf_cache: HashMap::new(),
            searches: 0,
            threat_nodes: 0,
            stop: None,
        }
    }

    /// The same search, stopped (not proven, "stopped from outside") as soon as `stop` is
    /// raised: checked between expansions and between the children of one expansion.
    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> ProofSearch {
        self.stop = Some(stop);
        self
    }

    fn stopped_from_outside(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Whether an expansion must stop adding children: past `deadline`, past the
    /// threat-node limit, or stopped from outside.
    fn must_stop(&self, deadline: Instant) -> bool {
        Instant::now() >= deadline
            || self.threat_nodes >= self.cfg.total_threat_nodes
            || self.stopped_from_outside()
    }

    /// Attacker stones still allowed on `board`.
    fn budget(&self, board: &Board) -> u32 {
        self.cfg
            .max_moves
            .saturating_sub(board.count(self.attacker))
    }

    /// Proves that the side to move on `board` ... : with `attacker_to_move` the attacker
    /// moves first, otherwise the defender does.
    pub fn run(mut self, board: &Board, attacker_to_move: bool) -> ProofResult {
        let t0 = Instant::now();
        self.nodes.clear();
        let root = if attacker_to_move {
            self.new_or(board.clone(), u16::MAX, u32::MAX)
        } else {
            self.new_and(board.clone(), u16::MAX, u32::MAX)
        };
        let mut stopped = String::new();
        while self.nodes[root as usize].pn != 0 && self.nodes[root as usize].dn != 0 {
            if self.nodes.len() >= self.cfg.node_limit {
                stopped = format!("tree node limit ({}) reached", self.cfg.node_limit);
                break;
            }
            if t0.elapsed() >= self.cfg.time_limit {
                stopped = format!("time limit ({:?}) reached", self.cfg.time_limit);
                break;
            }
            if self.threat_nodes >= self.cfg.total_threat_nodes {
                stopped = format!(
                    "threat-search node limit ({}) reached",
                    self.cfg.total_threat_nodes
                );
                break;
            }
            if self.stopped_from_outside() {
                stopped = STOPPED_FROM_OUTSIDE.to_string();
                break;
            }
            let leaf = self.most_proving(root);
            self.expand(leaf, t0 + self.cfg.time_limit);
            self.update(leaf);
        }
        if std::env::var_os("RETRO_GOMOKU_TRACE").is_some() {
            self.trace(root, 0, 3);
        }
        let r = &self.nodes[root as usize];
        let proven = r.pn == 0;
        if !proven && stopped.is_empty() {
            stopped = "every candidate line failed (no proof within the candidates and limits)"
                .to_string();
        }
        let root_tries = self.nodes[root as usize]
            .children
            .iter()
            .map(|&c| {
                let n = &self.nodes[c as usize];
                (n.mv, verdict(n.pn, n.dn))
            })
            .collect();
        let mut res = ProofResult {
            proven,
            by_stone: 0,
            tree_nodes: self.nodes.len(),
            threat_searches: self.searches,
            threat_nodes: self.threat_nodes,
            stopped: if proven { String::new() } else { stopped },
            elapsed: t0.elapsed(),
            root_tries,
            tree: std::mem::take(&mut self.nodes),
        };
        if proven {
            res.by_stone = res.stone(root as usize);
        }
        res
    }

    /// Debugging aid: the tree's top levels on stderr.
    fn trace(&self, id: u32, depth: usize, max: usize) {
        let n = &self.nodes[id as usize];
        let name = if n.mv == u16::MAX {
            "root".to_string()
        } else {
            n.board.cell_name(n.mv as usize)
        };
        eprintln!(
            "{:w$}{name} {} pn={} dn={} {:?} replies={} children={}",
            "",
            if n.attacker_to_move { "OR" } else { "AND" },
            n.pn.min(99999),
            n.dn.min(99999),
            n.how,
            n.replies.len(),
            n.children.len(),
            w = depth * 2
        );
        if depth < max {
            for &c in &n.children {
                self.trace(c, depth + 1, max);
            }
        }
    }

    fn push(&mut self, n: Node) -> u32 {
        self.nodes.push(n);
        (self.nodes.len() - 1) as u32
    }

    fn threat_leaf(&mut self, board: &Board, budget: u32) -> Option<u32> {
        if let Some(&r) = self.leaf_cache.get(&board.key()) {
            return r;
        }
        self.searches += 1;
        let p = prove_win_with(
            board,
            self.attacker,
            self.cfg.rules,
            budget,
            self.cfg.threat,
        );
        self.threat_nodes += p.nodes;
        let r = p.proven.then_some(p.attacker_moves);
        self.leaf_cache.insert(board.key(), r);
        r
    }

    /// An OR node (attacker to move), evaluated (`node_eval.rs`).
    fn new_or(&mut self, board: Board, mv: u16, parent: u32) -> u32 {
        let budget = self.budget(&board);
        let how = eval_or(&board, self.attacker, self.cfg.rules, budget, || {
            self.threat_leaf(&board, budget)
        });
        let e = Eval {
            how,
            replies: Vec::new(),
            searches: 0,
            nodes: 0,
        };
        self.push_eval(board, true, mv, parent, e)
    }

    /// An AND node (defender to move), evaluated (`node_eval.rs`): its replies are fixed
    /// here.
    fn new_and(&mut self, board: Board, mv: u16, parent: u32) -> u32 {
        let budget = self.budget(&board);
        let e = eval_and(
            &board,
            self.attacker,
            self.cfg.rules,
            budget,
            self.cfg.threat,
        );
        self.push_eval(board, false, mv, parent, e)
    }

    /// Stores an evaluated node. Allis's numbers: an open OR node is one leaf to prove, an
    /// AND node one per reply.
    fn push_eval(&mut self, board: Board, or: bool, mv: u16, parent: u32, e: Eval) -> u32 {
        self.searches += e.searches;
        self.threat_nodes += e.nodes;
        let open = if or { 1 } else { e.replies.len() as u64 };
        let (pn, dn) = e.numbers(open);
        self.push(Node {
            board,
            attacker_to_move: or,
            mv,
            parent,
            pn,
            dn,
            how: e.how,
            expanded: false,
            replies: e.replies,
            children: Vec::new(),
        })
    }

    fn most_proving(&self, root: u32) -> u32 {
        let mut id = root;
        loop {
            let n = &self.nodes[id as usize];
            if !n.expanded {
                return id;
            }
            let pick = n.children.iter().copied().find(|&c| {
                let ch = &self.nodes[c as usize];
                if n.attacker_to_move {
                    ch.pn == n.pn
                } else {
                    ch.dn == n.dn
                }
            });
            match pick {
                Some(c) => id = c,
                // Numbers not yet consistent (cannot happen after update): stop here.
                None => return id,
            }
        }
    }

    /// Expands a node. Past `deadline` or the threat-node limit, or once stopped from
    /// outside, it stops adding children: fewer black candidates only lose proofs, and a white node with a reply
    /// left out is never proven (`set_numbers`).
    fn expand(&mut self, id: u32, deadline: Instant) {
        let i = id as usize;
        self.nodes[i].expanded = true;
        let mut board = self.nodes[i].board.clone();
        let (att, def) = (self.attacker, self.attacker.other());
        if self.nodes[i].attacker_to_move {
            let rules = self.cfg.rules;
            let dw = winning_cells(&board, def, rules);
            let moves = if dw.len() == 1 {
                dw
            } else {
                candidates(&mut board, att, rules, self.cfg.width)
            };
            for m in moves {
                board.place(m, att);
                let c = self.new_and(board.clone(), m as u16, id);
                board.remove(m, att);
                self.nodes[i].children.push(c);
                if self.nodes[c as usize].pn == 0 || self.must_stop(deadline) {
                    break;
                }
            }
        } else {
            let replies = std::mem::take(&mut self.nodes[i].replies);
            for &w in &replies {
                board.place(w as usize, def);
                let c = self.new_or(board.clone(), w, id);
                board.remove(w as usize, def);
                self.nodes[i].children.push(c);
                if self.nodes[c as usize].dn == 0 || self.must_stop(deadline) {
                    break;
                }
            }
            self.nodes[i].replies = replies;
        }
        self.set_numbers(id);
    }

    fn set_numbers(&mut self, id: u32) {
        let n = &self.nodes[id as usize];
        if !n.expanded {
            return;
        }
        let (mut pn, mut dn);
        if n.attacker_to_move {
            pn = INF;
            dn = 0u64;
            for &c in &n.children {
                let ch = &self.nodes[c as usize];
                pn = pn.min(ch.pn);
                dn = (dn + ch.dn).min(INF);
            }
        } else {
            pn = 0u64;
            dn = INF;
            for &c in &n.children {
                let ch = &self.nodes[c as usize];
                pn = (pn + ch.pn).min(INF);
                dn = dn.min(ch.dn);
            }
            // Expanded with no reply to search: the pass proof's zone covers every reply.
            if n.children.is_empty() && n.replies.is_empty() {
                pn = 0;
            }
            // Every reply must be a child: one missing (the expansion stopped at a refuted
            // reply, or at the deadline) leaves the node unproven.
            if n.children.len() < n.replies.len() && dn != 0 {
                pn = pn.max(1);
            }
        }
        if n.attacker_to_move && n.children.is_empty() {
            // No candidate: no proof here.
            pn = INF;
            dn = 0;
        }
        let n = &mut self.nodes[id as usize];
        n.pn = pn;
        n.dn = dn;
    }

    fn update(&mut self, mut id: u32) {
        loop {
            self.set_numbers(id);
            let p = self.nodes[id as usize].parent;
            if p == u32::MAX {
                return;
            }
            id = p;
        }
    }
}

impl ProofResult {
    /// The proven tree's worst-case stone number of the attacker's winning stone, from
    /// node `id` (which must be proven).
    fn stone(&self, id: usize) -> u32 {
        let n = &self.tree[id];
        let s = n.board.stones();
        match n.how {
            How::Threat(_) | How::Double => n.how.stone(s),
            _ if n.attacker_to_move => n
                .children
                .iter()
                .map(|&c| c as usize)
                .find(|&c| self.tree[c].pn == 0)
                .map_or(0, |c| self.stone(c)),
            how => n
                .children
                .iter()
                .map(|&c| self.stone(c as usize))
                .fold(how.stone(s), u32::max),
        }
    }

    /// The root of the proven tree as a node id (0), for the strategy writer.
    pub fn root(&self) -> Option<ProvenNode<'_>> {
        self.proven.then_some(ProvenNode { res: self, id: 0 })
    }
}

/// A proven node of a proof tree, read by the strategy writer.
#[derive(Clone, Copy)]
pub struct ProvenNode<'a> {
    res: &'a ProofResult,
    id: usize,
}

/// What a proven node holds, as the strategy writer needs it.
pub(crate) enum Proven<'a> {
    /// Attacker to move, the threat search wins within this many attacker stones.
    Threat(u32),
    /// Attacker to move, this move, then the defender node.
    Move(u16, ProvenNode<'a>),
    /// Defender to move, the attacker has two winning cells.
    Double,
    /// Defender to move: these replies need their own nodes (all others are covered by the
    /// zone of the threat proof after a pass, which the validator finds again).
    Replies(Vec<(u16, ProvenNode<'a>)>),
}

impl<'a> ProvenNode<'a> {
    /// The node's content.
    pub(crate) fn get(&self) -> Proven<'a> {
        let t = &self.res.tree;
        let n = &t[self.id];
        let at = |c: u32| ProvenNode {
            res: self.res,
            id: c as usize,
        };
        match n.how {
            How::Threat(m) => Proven::Threat(m),
            How::Double => Proven::Double,
            _ if n.attacker_to_move => {
                match n.children.iter().find(|&&c| t[c as usize].pn == 0) {
                    Some(&c) => Proven::Move(t[c as usize].mv, at(c)),
                    // Not reachable for a proven node; an empty reply list is still sound
                    // for a writer (the validator re-proves everything).
                    None => Proven::Replies(Vec::new()),
                }
            }
            _ => Proven::Replies(
                n.children
                    .iter()
                    .map(|&c| (t[c as usize].mv, at(c)))
                    .collect(),
            ),
        }
    }
}

/// Runs a proof search from `board`: `attacker_to_move` says who moves first.
pub fn prove(
    board: &Board,
    attacker: Color,
    attacker_to_move: bool,
    cfg: ProveConfig,
) -> ProofResult {
    ProofSearch::new(attacker, cfg).run(board, attacker_to_move)
}
