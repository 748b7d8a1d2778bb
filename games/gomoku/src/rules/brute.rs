//! Exhaustive (depth-limited minimax) answers to "does the attacker win within `d` of its
//! own stones?", for small boards. It uses only [`Board::five_through`], not the threat
//! machinery, so it is an independent referee for the threat search (`validate/export.rs`
//! turns its answers into strategy graphs for tests).

use rustc_hash::FxHashMap;

use super::board::{Board, Color, Key, Rules};

/// Memoised exhaustive search.
pub struct Exhaustive {
    rules: Rules,
    attacker: Color,
    /// Keyed by the board's stones: a hash of its words, not SipHash, which took a sixth of
    /// the cross-checking tests' time.
    memo: FxHashMap<(Key, u32, bool), bool>,
}

impl Exhaustive {
    /// A referee for `attacker` under `rules`.
    pub fn new(attacker: Color, rules: Rules) -> Exhaustive {
        Exhaustive {
            rules,
            attacker,
            memo: FxHashMap::default(),
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
        let empties = empties(b);
        let mut r = false;
        for c in empties.clone() {
            b.place(c, att);
            let five = b.five_through(c, att, self.rules);
            b.remove(c, att);
            if five {
                r = true;
                break;
            }
        }
        if !r && d > 1 {
            for c in empties {
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
        let mut empties = empties(b).peekable();
        let mut r = empties.peek().is_some();
        for c in empties {
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

/// The empty cells of `b`, in order, read from its key's words: no list is made per node
/// (one was, and the allocator took a fifth of the cross-checking tests' time). The key is
/// copied, so the board may change while they are walked.
fn empties(b: &Board) -> impl Iterator<Item = usize> + Clone {
    let (key, cells) = (b.key(), b.cells());
    (0..key[0].len()).flat_map(move |w| {
        let below = cells.saturating_sub(w * 64).min(64);
        let valid = if below == 64 { !0 } else { (1u64 << below) - 1 };
        let mut m = !(key[0][w] | key[1][w]) & valid;
        std::iter::from_fn(move || {
            let c = w * 64 + m.trailing_zeros() as usize;
            (m != 0).then(|| {
                m &= m - 1;
                c
            })
        })
    })
}
