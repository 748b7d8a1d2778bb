//! Random positions: the searches' tests against exhaustive search, and the quiet-move hunt
//! (`examples/gomoku_quiet_hunt.rs`).

use super::board::{Board, Color, Rules};

/// xorshift64: a small deterministic generator.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// A random position with `stones` stones, black first (so the attacker, black, is to
/// move after an even count), nobody with a winning row yet; `None` if one appeared.
pub fn random_position(
    rng: &mut Rng,
    w: usize,
    h: usize,
    k: usize,
    stones: usize,
    rules: Rules,
) -> Option<Board> {
    add_stones(rng, &Board::new(w, h, k).ok()?, stones, rules)
}

/// `board` plus `n` random stones on empty cells, black first; `None` if a row appeared.
pub fn add_stones(rng: &mut Rng, board: &Board, n: usize, rules: Rules) -> Option<Board> {
    let mut b = board.clone();
    for i in 0..n {
        let c = loop {
            let c = rng.below(b.cells());
            if b.is_empty(c) {
                break c;
            }
        };
        let color = if i % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        b.place(c, color);
        if b.five_through(c, color, rules) {
            return None;
        }
    }
    Some(b)
}

/// `n` tries at a random square board of side `side`, with `min_stones` plus up to
/// `spread - 1` more stones, the rules alternating (standard first); the tries where a row
/// appeared are skipped.
pub fn random_boards(
    seed: u64,
    n: usize,
    side: usize,
    k: usize,
    min_stones: usize,
    spread: usize,
) -> impl Iterator<Item = (Board, Rules)> {
    let mut rng = Rng(seed);
    (0..n).filter_map(move |i| {
        let rules = if i % 2 == 0 {
            Rules::Standard
        } else {
            Rules::Freestyle
        };
        let stones = min_stones + rng.below(spread);
        random_position(&mut rng, side, side, k, stones, rules).map(|b| (b, rules))
    })
}
