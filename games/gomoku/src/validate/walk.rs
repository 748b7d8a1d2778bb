//! The validator's graph walk: follows every listed move of a strategy graph, checks what
//! needs no search (legal moves, the move limit, white rows made by listed replies), and
//! collects the positions that need one as tasks, each with a suspicion class that only
//! orders them (`Suspect`).

use std::collections::HashSet;

use crate::rules::board::{Board, Color, Key};
use crate::rules::symmetry::Symmetries;
use crate::search::quiet::winning_cells;

use super::options::Options;
use super::report::{Failure, Reason, Report};
use super::strategy::{AfterBlack, AfterWhite, BlackNode};

pub(crate) enum Kind {
    /// White to move after a black move; listed replies (validated as their own tasks).
    WhiteToMove { listed: Vec<u16> },
    /// Black to move at an integer leaf.
    BlackLeaf { claim: u32 },
}

/// How likely a task is to fail, judged without a search: the validator runs the likely
/// ones first so that a broken graph is refused early. It orders tasks and nothing else.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum Suspect {
    /// White has a winning cell after black's move: black neither blocked a white four nor
    /// won, so the reply there is a white five. Never so in a valid graph.
    WhiteWinsNext,
    /// A black move on the way here stands three or more cells (in every direction) from
    /// every stone: as mistyped cells do, and as 2 of the published strategy's 22,912
    /// black moves do.
    FarMove,
    /// Nothing seen.
    No,
}

pub(crate) struct Task {
    pub(crate) board: Board,
    pub(crate) path: Vec<u16>,
    pub(crate) order: usize,
    pub(crate) kind: Kind,
    pub(crate) claim: u32,
    pub(crate) suspect: Suspect,
}

pub(crate) struct Walker<'a> {
    pub(crate) opts: &'a Options,
    pub(crate) sym: &'a Symmetries,
    pub(crate) listed: HashSet<Key>,
    pub(crate) tasks: Vec<Task>,
    pub(crate) failures: Vec<Failure>,
    pub(crate) order: usize,
    pub(crate) report: Report,
    /// Black moves on the current path far from every stone (see [`Suspect::FarMove`]).
    pub(crate) far_moves: u32,
}

/// Whether `cell` is three or more cells away (Chebyshev distance) from every stone; false
/// on an empty board.
fn far_from_stones(board: &Board, cell: usize) -> bool {
    let (x, y) = board.xy(cell);
    let mut any = false;
    for c in 0..board.cells() {
        if board.get(c).is_some() {
            any = true;
            let (cx, cy) = board.xy(c);
            if x.abs_diff(cx).max(y.abs_diff(cy)) < 3 {
                return false;
            }
        }
    }
    any
}

impl Walker<'_> {
    pub(crate) fn fail(&mut self, board: &Board, path: &[u16], reason: Reason, cell: u16) {
        self.failures.push(Failure {
            path: path.to_vec(),
            board: board.clone(),
            reason,
            order: (self.order, cell),
            rules: self.opts.rules,
        });
    }

    pub(crate) fn walk_black(&mut self, node: &BlackNode, board: &mut Board, path: &mut Vec<u16>) {
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
        let far = far_from_stones(board, mv as usize);
        self.far_moves += far as u32;
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
            let suspect = if !winning_cells(board, Color::White, self.opts.rules).is_empty() {
                Suspect::WhiteWinsNext
            } else {
                self.suspect()
            };
            match &node.after {
                AfterBlack::Leaf(n) => {
                    self.report.leaves += 1;
                    self.tasks.push(Task {
                        board: board.clone(),
                        path: path.clone(),
                        order,
                        kind: Kind::WhiteToMove { listed: Vec::new() },
                        claim: *n,
                        suspect,
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
                        suspect,
                    });
                    for (c, sub) in &w.replies {
                        self.walk_white(*c, sub, board, path);
                    }
                }
            }
        }
        board.remove(mv as usize, Color::Black);
        self.far_moves -= far as u32;
        path.pop();
    }

    fn suspect(&self) -> Suspect {
        if self.far_moves > 0 {
            Suspect::FarMove
        } else {
            Suspect::No
        }
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
                        suspect: self.suspect(),
                    });
                }
                AfterWhite::Black(bn) => self.walk_black(bn, board, path),
            }
        }
        board.remove(c as usize, Color::White);
        path.pop();
    }
}
