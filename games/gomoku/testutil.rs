//! Random small-board positions for the searches' tests.

use super::board::{Board, Color, Rules};

/// xorshift64: a small deterministic generator.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
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
    let mut b = Board::new(w, h, k).ok()?;
    for i in 0..stones {
        let c = loop {
            let c = rng.below(w * h);
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
