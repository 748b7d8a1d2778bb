//! The best-move pass's search over a group's slots ([`super::best`]), one lane a slot:
//! each lane counts the legal moves it meets, in move order, and stops at the first that
//! achieves its value. A move of the whole group is counted for all its lanes at once
//! from the codes of the slots it reaches ([`Lanes::count_line`]), eight lanes a word;
//! the last piece's moves inside its group, all of one lane's at once
//! ([`Lanes::count_lanes`]).

use retro_engine::game::Value;
use retro_engine::solve::one_byte::{bits, equal_bytes, spread, zero_bytes};

/// The best-move search of a group's slots, lane `b` for slot `first + b`; bytes by lane
/// are kept eight to a word (byte `b % 8` of word `b / 8`).
#[derive(Clone)]
pub(super) struct Lanes {
    /// The legal moves met so far.
    rank: [u64; 8],
    /// The rank of the first move achieving the value (0: none yet).
    found: [u8; 64],
    /// Each slot's value.
    own: [Value; 64],
    /// The code of the value a move must reach to achieve the slot's
    /// ([`Values::code`](retro_engine::solve::one_byte::Values::code)).
    want: [u64; 8],
    /// The code of the illegal slots.
    illegal: u8,
    /// The lanes still looking.
    active: u64,
}

impl Lanes {
    /// The lanes of `mask` looking, `illegal` the code of the slots holding no position.
    pub(super) fn new(mask: u64, illegal: u8) -> Lanes {
        Lanes {
            rank: [0; 8],
            found: [0; 64],
            own: [Value::Draw; 64],
            want: [0; 8],
            illegal,
            active: mask,
        }
    }

    /// Lane `b`'s value, and the code of the value its best move reaches
    /// ([`Value::ahead`]).
    pub(super) fn look_for(&mut self, b: usize, own: Value, want: u8) {
        self.own[b] = own;
        self.want[b / 8] |= (want as u64) << (b % 8 * 8);
    }

    pub(super) fn own(&self, b: usize) -> Value {
        self.own[b]
    }

    /// The lanes still looking.
    pub(super) fn active(&self) -> u64 {
        self.active
    }

    /// The rank of lane `b`'s first move achieving its value, if any.
    pub(super) fn found(&self, b: usize) -> Option<u8> {
        (self.found[b] != 0).then_some(self.found[b])
    }

    fn rank(&self, b: usize) -> u8 {
        (self.rank[b / 8] >> (b % 8 * 8)) as u8
    }

    /// Lane `b` meets one more legal move.
    pub(super) fn step(&mut self, b: usize) -> u8 {
        // A position has fewer than 256 moves: no carry into the next lane.
        self.rank[b / 8] += 1 << (b % 8 * 8);
        self.rank(b)
    }

    /// Lane `b`'s next move, to a position of value `v` for the opponent: counted if legal,
    /// and the lane is done once it achieves the lane's value.
    #[inline]
    pub(super) fn count(&mut self, b: usize, v: Value) {
        if v == Value::Illegal {
            return;
        }
        let k = self.step(b);
        if v.back() == self.own[b] {
            self.found[b] = k;
            self.active &= !(1 << b);
        }
    }

    /// [`Lanes::count`] of a move to a position whose code is `c`.
    #[inline]
    pub(super) fn count_code(&mut self, b: usize, c: u8) {
        if c == self.illegal {
            return;
        }
        let k = self.step(b);
        if c == (self.want[b / 8] >> (b % 8 * 8)) as u8 {
            self.found[b] = k;
            self.active &= !(1 << b);
        }
    }

    /// Lane `b`'s next moves, to the lanes `to` of `line` (the codes of a group, by lane)
    /// in lane order: [`Lanes::count_code`] of each in turn, done at once. `legal` is
    /// [`Lanes::legal_in`] of `line`.
    #[inline]
    pub(super) fn count_lanes(&mut self, b: usize, to: u64, legal: u64, line: &[u8; 64]) {
        let want = (self.want[b / 8] >> (b % 8 * 8)) as u8;
        let to = to & legal;
        let hit = to & holding(line, want);
        // The legal moves up to the first achieving the value, or all of them.
        let met = if hit != 0 { to & (hit ^ (hit - 1)) } else { to };
        self.rank[b / 8] += (met.count_ones() as u64) << (b % 8 * 8);
        if hit != 0 {
            self.found[b] = self.rank(b);
            self.active &= !(1 << b);
        }
    }

    /// The lanes of `line` (codes by lane) holding a position.
    pub(super) fn legal_in(&self, line: &[u8; 64]) -> u64 {
        !holding(line, self.illegal)
    }

    /// The next move of the lanes `go`, to the positions whose codes are `line` (by lane).
    #[inline]
    pub(super) fn count_line(&mut self, go: u64, line: &[u8; 64]) {
        let illegal = 0x0101_0101_0101_0101 * self.illegal as u64;
        let mut hit = 0u64;
        for w in 0..8 {
            let g = (go >> (8 * w)) as u8;
            if g == 0 {
                continue;
            }
            let codes = u64::from_le_bytes(line[8 * w..8 * w + 8].try_into().expect("8 bytes"));
            let legal = g & !zero_bytes(codes ^ illegal);
            self.rank[w] += spread(legal);
            hit |= ((legal & zero_bytes(codes ^ self.want[w])) as u64) << (8 * w);
        }
        for b in bits(hit).map(|b| b as usize) {
            self.found[b] = self.rank(b);
        }
        self.active &= !hit;
    }

    pub(super) fn is_active(&self, b: usize) -> bool {
        self.active & 1 << b != 0
    }
}

/// The lanes of `line` holding code `c`.
fn holding(line: &[u8; 64], c: u8) -> u64 {
    let words = std::array::from_fn(|w| {
        u64::from_le_bytes(line[8 * w..8 * w + 8].try_into().expect("8 bytes"))
    });
    equal_bytes(&words, c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A lane's moves counted at once agree with [`Lanes::count_code`] of each in
        /// lane order, up to the first achieving the value: the same rank, the same move
        /// found. Codes from a small set, so that moves both are illegal (0) and achieve.
        #[test]
        fn counting_moves_at_once_is_counting_them_in_turn(
            codes in proptest::collection::vec(0u8..4, 64),
            to: u64,
            b in 0usize..64,
            want in 1u8..4,
            met in 0u8..3,
        ) {
            let line: [u8; 64] = codes.try_into().expect("64 codes");
            let mut at_once = Lanes::new(!0, 0);
            at_once.look_for(b, Value::Draw, want);
            for _ in 0..met {
                at_once.step(b);
            }
            let mut in_turn = at_once.clone();
            at_once.count_lanes(b, to, at_once.legal_in(&line), &line);
            for t in bits(to) {
                if in_turn.is_active(b) {
                    in_turn.count_code(b, line[t as usize]);
                }
            }
            prop_assert_eq!(at_once.rank(b), in_turn.rank(b));
            prop_assert_eq!(at_once.found(b), in_turn.found(b));
            prop_assert_eq!(at_once.active(), in_turn.active());
        }
    }
}
