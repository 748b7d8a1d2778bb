//! Exhaustive (depth-limited minimax) answers to "does the attacker win within `d` of its
//! own stones?", for small boards. It uses only [`Board::five_through`], not the threat
//! machinery, so it is an independent referee for the threat search (`validate/export.rs`
//! turns its answers into strategy graphs for tests).

use std::collections::HashMap;

use super::board::{Board, Color, Key, Rules};

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

    /// The attacker.
    pub fn attacker(&self) -> Color {
        self.attacker
    }

    /// The rules.
    pub fn rules(&self) -> Rules {
        self.rules
    }
}
