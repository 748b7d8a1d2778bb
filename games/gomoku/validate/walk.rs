//! The validator's graph walk: follows every listed move of a strategy graph, checks what
//! needs no search (legal moves, the move limit, white rows made by listed replies), and
//! collects the positions that need one as tasks.

use std::collections::HashSet;

use super::options::Options;
use super::report::{Failure, Reason, Report};
use super::strategy::{AfterBlack, AfterWhite, BlackNode};
use crate::gomoku::rules::board::{Board, Color, Key};
use crate::gomoku::rules::symmetry::Symmetries;

pub(crate) enum Kind {
    /// White to move after a black move; listed replies (validated as their own tasks).
    WhiteToMove { listed: Vec<u16> },
    /// Black to move at an integer leaf.
    BlackLeaf { claim: u32 },
}

pub(crate) struct Task {
    pub(crate) board: Board,
    pub(crate) path: Vec<u16>,
    pub(crate) order: usize,
    pub(crate) kind: Kind,
    pub(crate) claim: u32,
}

pub(crate) struct Walker<'a> {
    pub(crate) opts: &'a Options,
    pub(crate) sym: &'a Symmetries,
    pub(crate) listed: HashSet<Key>,
    pub(crate) tasks: Vec<Task>,
    pub(crate) failures: Vec<Failure>,
    pub(crate) order: usize,
    pub(crate) report: Report,
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
