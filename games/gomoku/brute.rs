//! Exhaustive (depth-limited minimax) answers to "does the attacker win within `d` of its
//! own stones?", for small boards. It uses only [`Board::five_through`], not the threat
//! machinery, so it is an independent referee for [`super::threat`]; it also exports
//! strategy graphs for tests.

use std::collections::HashMap;

use super::board::{Board, Color, Key, Rules};
use super::strategy::{AfterBlack, AfterWhite, BlackNode, WhiteNode};
use super::threat::{prove_win_with, SearchConfig};

/// Memoised exhaustive search.
pub struct Exhaustive {
    rules: Rules,
    attacker: Color,
    memo: HashMap<(Key, u32, bool), bool>,
}

impl Exhaustive {
    /// A referee for `attacker` under `rules`.
    pub fn new(attacker: Color, rules: Rules) -> Exhaustive {
        Exhaustive {
            rules,
            attacker,
            memo: HashMap::new(),
        }
    }

    /// Attacker to move: a winning row within `d` attacker stones against every defence?
    pub fn wins(&mut self, b: &mut Board, d: u32) -> bool {
        if d == 0 {
            return false;
        }
        let key = (b.key(), d, true);
        if let Some(&r) = self.memo.get(&key) {
            return r;
        }
        let att = self.attacker;
        let empties: Vec<usize> = (0..b.cells()).filter(|&c| b.is_empty(c)).collect();
        let mut r = false;
        for &c in &empties {
            b.place(c, att);
            let five = b.five_through(c, att, self.rules);
            b.remove(c, att);
            if five {
                r = true;
                break;
            }
        }
        if !r && d > 1 {
            for &c in &empties {
                b.place(c, att);
                let ok = self.wins_defender_to_move(b, d - 1);
                b.remove(c, att);
                if ok {
                    r = true;
                    break;
                }
            }
        }
        self.memo.insert(key, r);
        r
    }

    /// Defender to move: the attacker wins within `d` attacker stones whatever it does?
    pub fn wins_defender_to_move(&mut self, b: &mut Board, d: u32) -> bool {
        if d == 0 {
            return false;
        }
        let key = (b.key(), d, false);
        if let Some(&r) = self.memo.get(&key) {
            return r;
        }
        let def = self.attacker.other();
        let empties: Vec<usize> = (0..b.cells()).filter(|&c| b.is_empty(c)).collect();
        let mut r = !empties.is_empty();
        for &c in &empties {
            b.place(c, def);
            let ok = !b.five_through(c, def, self.rules) && self.wins(b, d);
            b.remove(c, def);
            if !ok {
                r = false;
                break;
            }
        }
        self.memo.insert(key, r);
        r
    }

    /// A winning strategy for black (the attacker must be black) from `b`, black to move,
    /// within `d` black stones: black nodes pick the first move that wins soonest; white
    /// replies are listed only when the threat search (with `cfg`) cannot prove them, and
    /// positions the search proves become integer leaves. `None` if black does not win.
    pub fn export(&mut self, b: &mut Board, d: u32, cfg: SearchConfig) -> Option<BlackNode> {
        let mut best = None;
        for dd in 1..=d {
            if self.wins(b, dd) {
                best = Some(dd);
                break;
            }
        }
        let dd = best?;
        let att = self.attacker;
        let empties: Vec<usize> = (0..b.cells()).filter(|&c| b.is_empty(c)).collect();
        for &c in &empties {
            b.place(c, att);
            let five = b.five_through(c, att, self.rules);
            let ok = five || (dd > 1 && self.wins_defender_to_move(b, dd - 1));
            if !ok {
                b.remove(c, att);
                continue;
            }
            let after = if five {
                AfterBlack::Leaf(1)
            } else {
                let mut replies = Vec::new();
                for &w in &empties {
                    if w == c {
                        continue;
                    }
                    b.place(w, att.other());
                    if !prove_win_with(b, att, self.rules, dd - 1, cfg).proven {
                        let sub = self
                            .export(b, dd - 1, cfg)
                            .map(|n| AfterWhite::Black(Box::new(n)));
                        if let Some(s) = sub {
                            replies.push((w as u16, s));
                        }
                    }
                    b.remove(w, att.other());
                }
                AfterBlack::White(WhiteNode { replies })
            };
            b.remove(c, att);
            return Some(BlackNode {
                mv: c as u16,
                after,
            });
        }
        None
    }
}
