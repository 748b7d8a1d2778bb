//! Line geometry and sliding-window primitives on one line.
//!
//! Every line of the board (rows, columns, both diagonals) is held as two bit planes of
//! 16 bits each: bit `i` of the first plane is a black stone at position `i` of the line,
//! bit `i` of the second a white stone. That is 2 bits per cell, as in the seed; keeping the
//! two planes apart lets one mask and popcount a whole window at once.
//!
//! The functions here are the exact definitions every proof relies on. They are written
//! for any `k` and any line length up to [`MAX_LINE`].

use std::fmt;

/// Which rows win (here, beside the windows that define them).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Rules {
    /// Exactly `k` in a row wins; `k + 1` or more (an overline) does not, for either colour.
    Standard,
    /// `k` or more in a row wins.
    Freestyle,
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rules::Standard => "standard",
            Rules::Freestyle => "freestyle",
        })
    }
}

/// Longest line supported (and so the largest board side).
pub const MAX_LINE: usize = 16;

/// Whether `x` has at least `n` bits set: for the small `n` of the searches' filters, a
/// few instructions where a population count is a long sequence on the baseline x86-64
/// target.
#[inline(always)]
pub fn has_bits(mut x: u32, n: usize) -> bool {
    if n == 0 {
        return true;
    }
    for _ in 1..n {
        x &= x.wrapping_sub(1);
    }
    x != 0
}

/// Mask of the `n` lowest bits.
#[inline]
pub fn low_mask(n: usize) -> u32 {
    if n >= 32 {
        u32::MAX
    } else {
        (1u32 << n) - 1
    }
}

/// Positions `p` (as a bit mask) that are empty and where a stone of `own` makes a winning
/// run: exactly `k` stones in a row under [`Rules::Standard`], `k` or more under
/// [`Rules::Freestyle`].
///
/// A run of exactly `k` through `p` is a window of `k` cells, all `own` once `p` is filled,
/// whose two outside neighbours are not `own`: so a window with `k - 1` own stones, no
/// opponent stone, and (standard) no own stone right next to it.
#[inline(always)]
pub fn win_cells(own: u32, opp: u32, len: usize, k: usize, rules: Rules) -> u32 {
    // The usual `k` get their own compiled copy (constant window length and counts): this
    // runs at every node of the threat search.
    match k {
        5 => cells_k::<5>(own, opp, len, rules, 1),
        4 => cells_k::<4>(own, opp, len, rules, 1),
        3 => cells_k::<3>(own, opp, len, rules, 1),
        6 => cells_k::<6>(own, opp, len, rules, 1),
        _ => windows_with(own, opp, len, k, rules, k - 1),
    }
}

/// [`win_cells`] and [`four_makers`] of one line for both colours at once, as
/// `[black wins, white wins, black four-makers, white four-makers]`: what the threat
/// search's bookkeeping recomputes for every line a stone touches.
///
/// A window with no opponent stone holds `k - 1` own stones exactly when it holds one
/// empty cell, and `k - 2` when it holds two; the count of empty cells is the same for both
/// colours, so one saturating count (0, 1, 2, 3 or more empty cells per window) serves both,
/// and each colour's windows only differ in which stones spoil them.
#[inline(always)]
pub fn line_masks(black: u32, white: u32, len: usize, k: usize, rules: Rules) -> [u32; 4] {
    // The usual `k` get their own compiled copy (constant loop counts).
    match k {
        5 => masks_k(black, white, len, 5, rules),
        4 => masks_k(black, white, len, 4, rules),
        3 => masks_k(black, white, len, 3, rules),
        6 => masks_k(black, white, len, 6, rules),
        _ if k >= 2 => masks_k(black, white, len, k, rules),
        _ => {
            let (bw, ww) = (k.saturating_sub(1), k.saturating_sub(2));
            [
                windows_with(black, white, len, k, rules, bw),
                windows_with(white, black, len, k, rules, bw),
                windows_with(black, white, len, k, rules, ww),
                windows_with(white, black, len, k, rules, ww),
            ]
        }
    }
}

#[inline(always)]
fn masks_k(black: u32, white: u32, len: usize, k: usize, rules: Rules) -> [u32; 4] {
    if len < k {
        return [0; 4];
    }
    let empty = low_mask(len) & !black & !white;
    // Per window start: at least one, two, three empty cells; any black, any white stone.
    let (mut e1, mut e2, mut e3, mut any_b, mut any_w) = (0u32, 0u32, 0u32, 0u32, 0u32);
    for j in 0..k {
        let x = empty >> j;
        e3 |= e2 & x;
        e2 |= e1 & x;
        e1 |= x;
        any_b |= black >> j;
        any_w |= white >> j;
    }
    let starts = low_mask(len - k + 1);
    let (mut ok_b, mut ok_w) = (starts & !any_w, starts & !any_b);
    if rules == Rules::Standard {
        ok_b &= !(black << 1) & !(black >> k);
        ok_w &= !(white << 1) & !(white >> k);
    }
    let one = e1 & !e2;
    let two = e2 & !e3;
    let spread = |s: u32| {
        let mut out = 0u32;
        for j in 0..k {
            out |= s << j;
        }
        out & empty
    };
    [
        spread(ok_b & one),
        spread(ok_w & one),
        spread(ok_b & two),
        spread(ok_w & two),
    ]
}

/// Empty cells of the valid `K`-windows holding `K - less` own stones (`less` a literal at
/// every call, so the count folds to a constant).
#[inline(always)]
fn cells_k<const K: usize>(own: u32, opp: u32, len: usize, rules: Rules, less: usize) -> u32 {
    let w = Windows::new_k::<K>(own, opp, len, rules);
    w.cells_const::<K>(w.starts_with(K - less))
}

/// Empty positions where a stone of `own` creates at least one winning cell (a "four").
/// Windows of `k` cells with `k - 2` own stones, no opponent stone and (standard) no own
/// stone right next to them; both empty cells of such a window are four-makers.
#[inline]
pub fn four_makers(own: u32, opp: u32, len: usize, k: usize, rules: Rules) -> u32 {
    if k < 2 {
        return 0;
    }
    windows_with(own, opp, len, k, rules, k - 2)
}

/// Empty cells of windows of `k` cells with exactly `k - 3` own stones, no opponent stone
/// and (standard) no own stone right next to them: the only cells where a stone can create
/// a new four-maker. Used to list candidate "three" moves.
#[inline]
pub fn three_makers(own: u32, opp: u32, len: usize, k: usize, rules: Rules) -> u32 {
    if k < 3 {
        return 0;
    }
    windows_with(own, opp, len, k, rules, k - 3)
}

/// Union of the empty cells of all `k`-windows holding exactly `count` own stones, no
/// opponent stone, and under standard rules no own stone just outside the window.
#[inline]
pub fn windows_with(own: u32, opp: u32, len: usize, k: usize, rules: Rules, count: usize) -> u32 {
    let w = Windows::new(own, opp, len, k, rules);
    w.cells(w.starts_with(count))
}

/// Bit-parallel window statistics of one line for one colour: for every window start `s`
/// at once, how many own stones the `k` cells `s..s+k` hold, whether they hold an opponent
/// stone, and (standard rules) whether an own stone lies just outside.
pub struct Windows {
    planes: [u32; 5],
    ok: u32,
    empty: u32,
    k: usize,
}

impl Windows {
    /// Computes the statistics (k at most 16).
    #[inline(always)]
    pub fn new(own: u32, opp: u32, len: usize, k: usize, rules: Rules) -> Windows {
        match k {
            5 => Self::new_k::<5>(own, opp, len, rules),
            4 => Self::new_k::<4>(own, opp, len, rules),
            3 => Self::new_k::<3>(own, opp, len, rules),
            6 => Self::new_k::<6>(own, opp, len, rules),
            _ => Self::new_any(own, opp, len, k, rules),
        }
    }

    #[inline(always)]
    pub(crate) fn new_k<const K: usize>(own: u32, opp: u32, len: usize, rules: Rules) -> Windows {
        let mut w = Self::new_any(own, opp, len, K, rules);
        w.k = K;
        w
    }

    #[inline(always)]
    fn new_any(own: u32, opp: u32, len: usize, k: usize, rules: Rules) -> Windows {
        let full = low_mask(len);
        let empty = full & !own & !opp;
        if k == 0 || len < k {
            return Windows {
                planes: [0; 5],
                ok: 0,
                empty,
                k,
            };
        }
        // Bit-sliced counters: planes[i] holds bit i of the count, for every start at once.
        let (mut p0, mut p1, mut p2, mut p3, mut p4) = (0u32, 0u32, 0u32, 0u32, 0u32);
        let mut any_opp = 0u32;
        for j in 0..k {
            let x = own >> j;
            any_opp |= opp >> j;
            let c0 = p0 & x;
            p0 ^= x;
            let c1 = p1 & c0;
            p1 ^= c0;
            // A count below 4 never carries into plane 2, below 8 into plane 3, etc.
            if k > 3 {
                let c2 = p2 & c1;
                p2 ^= c1;
                if k > 7 {
                    let c3 = p3 & c2;
                    p3 ^= c2;
                    if k > 15 {
                        p4 ^= c3;
                    }
                }
            }
        }
        let mut ok = low_mask(len - k + 1) & !any_opp;
        if rules == Rules::Standard {
            ok &= !(own << 1) & !(own >> k);
        }
        Windows {
            planes: [p0, p1, p2, p3, p4],
            ok,
            empty,
            k,
        }
    }

    /// Start bits of the valid windows holding exactly `count` own stones.
    #[inline(always)]
    pub fn starts_with(&self, count: usize) -> u32 {
        let mut m = self.ok;
        for (i, p) in self.planes.iter().enumerate() {
            // Bit i of count set: keep p; clear: keep !p (p ^ all ones). Branch-free.
            m &= p ^ ((count >> i & 1) as u32).wrapping_sub(1);
        }
        m
    }

    /// [`Self::cells`] for windows of a known length `K` (the same as `self.k`).
    #[inline(always)]
    fn cells_const<const K: usize>(&self, starts: u32) -> u32 {
        let mut out = 0u32;
        for j in 0..K {
            out |= starts << j;
        }
        out & self.empty
    }

    /// Empty cells covered by the windows starting at `starts`.
    #[inline(always)]
    pub fn cells(&self, starts: u32) -> u32 {
        let mut out = 0u32;
        for j in 0..self.k {
            out |= starts << j;
        }
        out & self.empty
    }

    /// All cells (empty or not) covered by the windows starting at `starts`.
    #[inline]
    pub fn span(&self, starts: u32) -> u32 {
        let mut out = 0u32;
        for j in 0..self.k {
            out |= starts << j;
        }
        out
    }
}

/// Reference version of [`windows_with`], one window at a time (used to test it).
pub fn windows_with_slow(
    own: u32,
    opp: u32,
    len: usize,
    k: usize,
    rules: Rules,
    count: usize,
) -> u32 {
    if k == 0 || len < k {
        return 0;
    }
    let wmask = low_mask(k);
    let full = low_mask(len);
    let empty = full & !own & !opp;
    let mut out = 0u32;
    for s in 0..=(len - k) {
        let wm = wmask << s;
        if opp & wm != 0 || (own & wm).count_ones() as usize != count {
            continue;
        }
        if rules == Rules::Standard {
            if s > 0 && own & (1 << (s - 1)) != 0 {
                continue;
            }
            if s + k < len && own & (1 << (s + k)) != 0 {
                continue;
            }
        }
        out |= wm & empty;
    }
    out
}

/// Whether the line holds a winning run of `own` (exactly `k` under standard rules, `k` or
/// more under freestyle).
#[inline]
pub fn has_five(own: u32, len: usize, k: usize, rules: Rules) -> bool {
    let mut bits = own & low_mask(len);
    while bits != 0 {
        let start = bits.trailing_zeros();
        let run = (bits >> start).trailing_ones();
        let ok = match rules {
            Rules::Standard => run as usize == k,
            Rules::Freestyle => run as usize >= k,
        };
        if ok {
            return true;
        }
        bits &= !(low_mask(run as usize) << start);
    }
    false
}

/// A line written as text (`x` black, `o` white, anything else empty) as (black bits,
/// white bits, length), for tests.
#[cfg(test)]
pub(crate) fn parse_line(s: &str) -> (u32, u32, usize) {
    let mut b = 0;
    let mut w = 0;
    for (i, c) in s.chars().enumerate() {
        match c {
            'x' => b |= 1 << i,
            'o' => w |= 1 << i,
            _ => {}
        }
    }
    (b, w, s.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> (u32, u32, usize) {
        parse_line(s)
    }

    #[test]
    fn win_cells_exact_and_overline() {
        let (b, w, n) = parse("xxxx.x.....");
        // Filling position 4 makes six: not a win under standard rules.
        assert_eq!(win_cells(b, w, n, 5, Rules::Standard), 0);
        assert_eq!(win_cells(b, w, n, 5, Rules::Freestyle), 1 << 4);
        let (b, w, n) = parse(".xxxx.....");
        assert_eq!(win_cells(b, w, n, 5, Rules::Standard), 1 | 1 << 5);
        let (b, w, n) = parse("oxxxx.x");
        assert_eq!(win_cells(b, w, n, 5, Rules::Standard), 0);
        assert_eq!(win_cells(b, w, n, 5, Rules::Freestyle), 1 << 5);
    }

    #[test]
    fn has_five_rules() {
        let (b, _, n) = parse("xxxxxx");
        assert!(!has_five(b, n, 5, Rules::Standard));
        assert!(has_five(b, n, 5, Rules::Freestyle));
        let (b, _, n) = parse("x.xxxxx.");
        assert!(has_five(b, n, 5, Rules::Standard));
    }

    #[test]
    fn fast_windows_match_reference() {
        // Every line of length up to 9 (3^9 fillings), every k and count, both rules.
        every_line(|len, own, opp| {
            for k in 2..=len.min(6) {
                for count in 0..k {
                    for rules in [Rules::Standard, Rules::Freestyle] {
                        assert_eq!(
                            windows_with(own, opp, len, k, rules, count),
                            windows_with_slow(own, opp, len, k, rules, count),
                            "len {len} own {own:b} opp {opp:b} k {k} count {count} {rules}"
                        );
                    }
                }
            }
        });
    }

    /// `f(len, own, opp)` for every filling of every line of length 1 to 9.
    fn every_line(mut f: impl FnMut(usize, u32, u32)) {
        for len in 1..=9usize {
            for code in 0..3u32.pow(len as u32) {
                let (mut own, mut opp, mut c) = (0u32, 0u32, code);
                for i in 0..len {
                    match c % 3 {
                        1 => own |= 1 << i,
                        2 => opp |= 1 << i,
                        _ => {}
                    }
                    c /= 3;
                }
                f(len, own, opp);
            }
        }
    }

    #[test]
    fn specialised_k_match_reference() {
        // win_cells and line_masks (compiled per k) against the one-window-at-a-time
        // reference, every line of length up to 9, k from 2 to 8, both rules.
        every_line(|len, own, opp| {
            for k in 2..=8 {
                for rules in [Rules::Standard, Rules::Freestyle] {
                    let win = windows_with_slow(own, opp, len, k, rules, k - 1);
                    let four = windows_with_slow(own, opp, len, k, rules, k - 2);
                    assert_eq!(
                        win_cells(own, opp, len, k, rules),
                        win,
                        "{own:b} {opp:b} {k}"
                    );
                    let [wb, ww, fb, fw] = line_masks(own, opp, len, k, rules);
                    assert_eq!((wb, fb), (win, four), "{own:b} {opp:b} {k}");
                    let win_opp = windows_with_slow(opp, own, len, k, rules, k - 1);
                    let four_opp = windows_with_slow(opp, own, len, k, rules, k - 2);
                    assert_eq!((ww, fw), (win_opp, four_opp), "{own:b} {opp:b} {k}");
                }
            }
        });
    }

    #[test]
    fn line_masks_on_long_lines() {
        // Lines longer than the exhaustive test's (up to the 16 cells supported), random
        // fillings of every density.
        // A xorshift64 generator (as `random.rs`, which sits above this file).
        let mut state = 0x11_4E5u64;
        let mut below = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..20_000 {
            let len = 10 + below(MAX_LINE - 9);
            let density = 1 + below(9);
            let (mut own, mut opp) = (0u32, 0u32);
            for i in 0..len {
                match below(10) {
                    r if r < density / 2 + 1 => own |= 1 << i,
                    r if r < density + 1 => opp |= 1 << i,
                    _ => {}
                }
            }
            for k in 3..=7 {
                for rules in [Rules::Standard, Rules::Freestyle] {
                    let slow = |a, b, n| windows_with_slow(a, b, len, k, rules, n);
                    let want = [
                        slow(own, opp, k - 1),
                        slow(opp, own, k - 1),
                        slow(own, opp, k - 2),
                        slow(opp, own, k - 2),
                    ];
                    let got = line_masks(own, opp, len, k, rules);
                    assert_eq!(got, want, "{own:b} {opp:b} len {len} k {k} {rules}");
                }
            }
        }
    }

    #[test]
    fn has_bits_is_a_popcount_threshold() {
        for x in [0u32, 1, 0b1010, 0b111, 0x8000_0001, u32::MAX, 0b1011_0000] {
            for n in 0..=33 {
                assert_eq!(has_bits(x, n), x.count_ones() as usize >= n, "{x:b} {n}");
            }
        }
    }

    #[test]
    fn four_makers_basic() {
        let (b, w, n) = parse("..xxx..");
        let f = four_makers(b, w, n, 5, Rules::Standard);
        assert_eq!(f, 0b1100011);
    }
}
