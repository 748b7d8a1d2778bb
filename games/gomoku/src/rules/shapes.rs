//! Threat shapes found by sliding windows over bit lines, as in the seed: five, open four,
//! four, open three (the (k+1)- and (k+2)-cell forms), three and open two. Under standard
//! rules a stone of the same colour right next to a window spoils it.
//!
//! The shapes are descriptive (failure reports, move ordering). Proofs never rely on them:
//! they rely only on the exact definitions in [`super::lines`].

use super::board::{Board, Color, Rules};
use super::lines::{has_five, low_mask};

/// Number of windows of each shape for one colour.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ShapeCounts {
    /// Winning rows on the board.
    pub five: u32,
    /// `k - 1` stones in a row with both ends empty.
    pub open_four: u32,
    /// `k`-cell windows with `k - 1` stones and one empty cell.
    pub four: u32,
    /// `k - 2` stones in a (k+1)-window with empty ends, or solid in a (k+2)-window with
    /// two empty cells each side.
    pub open_three: u32,
    /// `k`-cell windows with `k - 2` stones, the rest empty.
    pub three: u32,
    /// `k - 3` stones in a (k+1)-window with empty ends.
    pub open_two: u32,
}

impl std::ops::AddAssign for ShapeCounts {
    fn add_assign(&mut self, o: ShapeCounts) {
        self.five += o.five;
        self.open_four += o.open_four;
        self.four += o.four;
        self.open_three += o.open_three;
        self.three += o.three;
        self.open_two += o.open_two;
    }
}

fn spoiled(own: u32, s: usize, width: usize, len: usize, rules: Rules) -> bool {
    rules == Rules::Standard
        && ((s > 0 && own & (1 << (s - 1)) != 0)
            || (s + width < len && own & (1 << (s + width)) != 0))
}

/// Shapes of `own` on one line.
pub fn line_shapes(own: u32, opp: u32, len: usize, k: usize, rules: Rules) -> ShapeCounts {
    let mut out = ShapeCounts::default();
    if len < k || k < 3 {
        return out;
    }
    if has_five(own, len, k, rules) {
        out.five = 1;
    }
    let count = |m: u32| (own & m).count_ones() as usize;
    // k-windows.
    for s in 0..=(len - k) {
        let wm = low_mask(k) << s;
        if opp & wm != 0 || spoiled(own, s, k, len, rules) {
            continue;
        }
        match count(wm) {
            c if c == k - 1 => out.four += 1,
            c if c == k - 2 => out.three += 1,
            _ => {}
        }
    }
    // (k+1)-windows with empty ends.
    if len > k {
        for s in 0..=(len - k - 1) {
            let wm = low_mask(k + 1) << s;
            let ends = 1u32 << s | 1u32 << (s + k);
            if opp & wm != 0 || own & ends != 0 || spoiled(own, s, k + 1, len, rules) {
                continue;
            }
            let mid = wm & !ends;
            match count(mid) {
                c if c == k - 1 => out.open_four += 1,
                c if c == k - 2 => out.open_three += 1,
                c if c + 3 == k => out.open_two += 1,
                _ => {}
            }
        }
    }
    // (k+2)-windows: two empty cells each side, k-2 stones solid in the middle.
    if len > k + 1 {
        for s in 0..=(len - k - 2) {
            let wm = low_mask(k + 2) << s;
            let mid = low_mask(k - 2) << (s + 2);
            if opp & wm != 0 || own & wm != mid || spoiled(own, s, k + 2, len, rules) {
                continue;
            }
            out.open_three += 1;
        }
    }
    out
}

/// Shapes of colour `c` over the whole board.
pub fn board_shapes(board: &Board, c: Color, rules: Rules) -> ShapeCounts {
    let mut out = ShapeCounts::default();
    let geo = board.geometry();
    for (l, info) in geo.lines.iter().enumerate() {
        let [b, w] = board.plane(l);
        let (own, opp) = if c == Color::Black { (b, w) } else { (w, b) };
        out += line_shapes(own, opp, info.cells.len(), board.k(), rules);
    }
    out
}

impl std::fmt::Display for ShapeCounts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} five, {} open four, {} four, {} open three, {} three, {} open two",
            self.five, self.open_four, self.four, self.open_three, self.three, self.open_two
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::super::lines::parse_line as line;

    #[test]
    fn open_three_and_spoiler() {
        let (b, w, n) = line("...xxx....");
        let s = line_shapes(b, w, n, 5, Rules::Standard);
        assert!(s.open_three >= 1);
        assert_eq!(s.four, 0);
        // A black stone next to the open four window spoils it under standard rules.
        let (b, w, n) = line("x.xxxx.");
        let s = line_shapes(b, w, n, 5, Rules::Standard);
        assert_eq!(s.open_four, 0);
        let s = line_shapes(b, w, n, 5, Rules::Freestyle);
        assert_eq!(s.open_four, 1);
    }

    #[test]
    fn blocked_four() {
        let (b, w, n) = line("oxxxx.....");
        let s = line_shapes(b, w, n, 5, Rules::Standard);
        assert_eq!(s.open_four, 0);
        assert_eq!(s.four, 1);
    }
}
