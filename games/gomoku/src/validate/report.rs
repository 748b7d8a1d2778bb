//! The validator's report: counts, the longest forced line, timing, and failures with the
//! exact move sequence, a board diagram and the reason.

use std::fmt;
use std::time::Duration;

use crate::rules::board::{Board, Rules};
use crate::rules::limit::MoveLimit;
use crate::rules::shapes::board_shapes;

use super::strategy::AfterWhite;

/// Why a node fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// A move on an occupied cell.
    Occupied {
        /// True for a black move, false for a listed white reply.
        black: bool,
    },
    /// A listed white reply makes a winning row: black has lost.
    WhiteWins,
    /// Black's move would be later than the move limit.
    LimitExceeded {
        /// The move limit.
        max_moves: u32,
    },
    /// A white reply that is neither in the graph nor proven by the threat search.
    ReplyNotProven {
        /// Black stones left within the limit.
        budget: u32,
    },
    /// An integer leaf whose win the threat search could not prove.
    LeafNotProven {
        /// Black stones left within the limit.
        budget: u32,
        /// The leaf's own claim.
        claim: u32,
        /// True when black is to move at the leaf, false when white is.
        black_to_move: bool,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Occupied { black: true } => write!(f, "illegal black move: the cell is occupied"),
            Reason::Occupied { black: false } => write!(f, "illegal white reply listed: the cell is occupied"),
            Reason::WhiteWins => write!(f, "white has a winning row (made by a listed white reply, or in the setup)"),
            Reason::LimitExceeded { max_moves } => {
                write!(f, "move limit exceeded: black's move would be number {} or later (limit {max_moves})", max_moves + 1)
            }
            Reason::ReplyNotProven { budget } => write!(
                f,
                "white's reply (last move) is not in the strategy graph and the threat search does not prove \
                 a black win within {budget} more black moves"
            ),
            Reason::LeafNotProven { budget, claim, black_to_move } => write!(
                f,
                "integer leaf {claim} ({} to move): the threat search does not prove a black win within {budget} \
                 more black moves{}",
                if *black_to_move { "black" } else { "white" },
                if *black_to_move { "" } else { " against every white reply" }
            ),
        }
    }
}

/// One failing node.
#[derive(Debug, Clone)]
pub struct Failure {
    /// Moves from the start position, alternating black, white.
    pub path: Vec<u16>,
    /// The position reached (after the last move of `path` when it was legal).
    pub board: Board,
    /// Why.
    pub reason: Reason,
    /// Walk order, to report the first failure deterministically.
    pub order: (usize, u16),
    /// Rules (for the shapes shown).
    pub rules: Rules,
}

/// A hole the proof search closed.
#[derive(Debug, Clone)]
pub struct Repair {
    /// Moves from the start, black first, ending with white's reply (or the listed reply
    /// before an integer leaf that the threat search could not prove).
    pub path: Vec<u16>,
    /// Black's move found (none when the proof search's threat leaf proved the root).
    pub black_move: Option<u16>,
    /// Black's winning stone in the worst case (stone numbers count from the first move).
    pub by_stone: u32,
    /// The sub-strategy found.
    pub sub: AfterWhite,
    /// Time the proof search took.
    pub elapsed: Duration,
    /// Proof-tree nodes it built.
    pub tree_nodes: usize,
}

/// A hole the proof search tried and could not close.
#[derive(Debug, Clone)]
pub struct Unclosed {
    /// Moves from the start to the hole.
    pub path: Vec<u16>,
    /// What was tried and why it stopped.
    pub tried: String,
    /// Not searched: the proof search's total budget was spent.
    pub budget_spent: bool,
}

/// Counts and results of one validation.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Rules used.
    pub rules: Option<Rules>,
    /// Move limit (black moves).
    pub max_moves: u32,
    /// Black moves in the graph that were walked.
    pub black_moves: u64,
    /// Listed white replies walked.
    pub listed_replies: u64,
    /// Integer leaves.
    pub leaves: u64,
    /// Positions visited: after each black move and after each white reply considered.
    pub positions: u64,
    /// Unlisted white replies found in the graph (symmetric images or transpositions).
    pub replies_in_graph: u64,
    /// Unlisted white replies proven by the threat search.
    pub replies_proven: u64,
    /// Unlisted white replies left out as symmetric images of a sibling (same canonical key).
    pub replies_symmetric: u64,
    /// Positions after a black move (or integer leaves) that an earlier one of the walk
    /// already has, up to symmetry: checked once.
    pub repeated: u64,
    /// Threat searches run.
    pub searches: u64,
    /// Search nodes.
    pub nodes: u64,
    /// Longest forced game in black moves (graph moves plus proven threat sequences).
    pub longest: u32,
    /// A line reaching `longest`: the graph moves, then the position searched.
    pub longest_line: Vec<u16>,
    /// Failures, first one first.
    pub failures: Vec<Failure>,
    /// Holes of the threat search that the proof search closed.
    pub repairs: Vec<Repair>,
    /// Holes the proof search tried and could not close.
    pub unclosed: Vec<Unclosed>,
    /// Wall time.
    pub elapsed: Duration,
    /// Stopped at the first failure ([`super::Options::stop_at_first`]): tasks run, of
    /// all. The counts above cover only what ran.
    pub stopped_early: Option<(u64, u64)>,
    /// Board used for names.
    pub board: Option<Board>,
}

impl Report {
    /// Whether the strategy graph was proven valid.
    pub fn valid(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Formats a move sequence: `1. h8 h10 2. g7 ...` (black first).
pub fn format_line(board: &Board, path: &[u16]) -> String {
    let mut s = String::new();
    for (i, &c) in path.iter().enumerate() {
        if i % 2 == 0 {
            if i > 0 {
                s.push(' ');
            }
            s.push_str(&format!("{}. ", i / 2 + 1));
        } else {
            s.push(' ');
        }
        s.push_str(&board.cell_name(c as usize));
    }
    s
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rules = self.rules;
        writeln!(f, "moves: {}", format_line(&self.board, &self.path))?;
        writeln!(f, "why:   {}", self.reason)?;
        let marks: Vec<usize> = self
            .path
            .last()
            .map(|&c| vec![c as usize])
            .unwrap_or_default();
        writeln!(
            f,
            "position (X black, O white, last move in lower case or *):"
        )?;
        write!(f, "{}", self.board.diagram(&marks))?;
        let b = board_shapes(&self.board, crate::rules::board::Color::Black, rules);
        let w = board_shapes(&self.board, crate::rules::board::Color::White, rules);
        writeln!(f, "black shapes: {b}")?;
        write!(f, "white shapes: {w}")
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = if self.valid() { "VALID" } else { "INVALID" };
        writeln!(f, "gomoku strategy: {verdict}")?;
        if let Some(r) = self.rules {
            writeln!(f, "  rules                          {r}")?;
        }
        writeln!(
            f,
            "  limit checked                  {}",
            MoveLimit::from_black_moves(self.max_moves)
        )?;
        writeln!(f, "  positions visited              {}", self.positions)?;
        writeln!(f, "  black moves in the graph       {}", self.black_moves)?;
        writeln!(
            f,
            "  listed white replies           {}",
            self.listed_replies
        )?;
        writeln!(f, "  integer leaves                 {}", self.leaves)?;
        writeln!(
            f,
            "  white replies proven by search {}",
            self.replies_proven
        )?;
        writeln!(
            f,
            "  white replies found in graph   {} (symmetry/transposition)",
            self.replies_in_graph
        )?;
        writeln!(
            f,
            "  white replies symmetric        {} (same position as a sibling)",
            self.replies_symmetric
        )?;
        writeln!(
            f,
            "  repeated positions             {} (checked once: the same position, up to symmetry, on another path)",
            self.repeated
        )?;
        writeln!(
            f,
            "  threat searches / nodes        {} / {}",
            self.searches, self.nodes
        )?;
        if let Some(b) = &self.board {
            writeln!(
                f,
                "  longest forced game            {} black moves (line: {} + threat sequence)",
                self.longest,
                format_line(b, &self.longest_line)
            )?;
        }
        writeln!(f, "  time                           {:.2?}", self.elapsed)?;
        if let Some(b) = &self.board {
            writeln!(
                f,
                "  closed by the proof search     {} white replies",
                self.repairs.len()
            )?;
            for r in &self.repairs {
                let mv = r
                    .black_move
                    .map_or("a threat sequence".to_string(), |m| b.cell_name(m as usize));
                writeln!(
                    f,
                    "    {}: black {mv}, wins by stone {} ({} tree nodes, {:.2?})",
                    format_line(b, &r.path),
                    r.by_stone,
                    r.tree_nodes,
                    r.elapsed
                )?;
            }
            for u in &self.unclosed {
                writeln!(f, "  not closed: {}: {}", format_line(b, &u.path), u.tried)?;
            }
        }
        if let Some((ran, all)) = self.stopped_early {
            writeln!(
                f,
                "  stopped at the first failure   {ran} of {all} tasks run"
            )?;
        }
        if let Some(first) = self.failures.first() {
            writeln!(
                f,
                "  failures                       {}",
                self.failures.len()
            )?;
            writeln!(f, "first failure:")?;
            write!(f, "{first}")?;
        }
        Ok(())
    }
}
