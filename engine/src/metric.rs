//! What a table's 2-byte records mean, as its header says.
//!
//! - **DTM** (every game's tables, and what a header without a `metric` parameter means):
//!   `[value byte, best move]`, the value counting moves to the end of the game
//!   ([`Value::to_byte`]).
//! - **DTZ** (chess's distance to zeroing, header parameter `metric = 1`): one
//!   little-endian 16-bit code a slot, the distance in plies exactly, with no stored move
//!   (a one-ply search gives it back, as for a compressed table). Plies need a whole 16
//!   bits: a win by a zeroing move the loser is forced into is an even number of plies,
//!   and a cursed win can take hundreds.
//!
//! Code of a DTZ record: 0 illegal, 1 draw, `2p` a win in `p ≥ 1` plies, `2p + 3` a loss in
//! `p ≥ 0` plies, up to [`DTZ_MAX_PLIES`].

use crate::value::{Value, NO_MOVE};

/// Bins of a section's histogram: one per [`Value::code`].
pub const VALUE_CODES: usize = 257;

/// The header parameter that names a table's metric (absent: DTM).
pub const PARAM: &str = "metric";

/// The longest distance a DTZ record holds, in plies; solvers refuse longer ones. The
/// histogram has a bin per code, so this bounds its size too.
pub const DTZ_MAX_PLIES: u16 = 2046;

/// How a table's records encode values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Distance to mate (or to the game's end), with the best move.
    Dtm,
    /// Chess's distance to zeroing under the 50-move rule, in plies, without a move.
    Dtz,
}

impl Metric {
    /// The metric a header's parameters name.
    pub fn of_params(params: &[(String, i64)]) -> Result<Metric, String> {
        match params.iter().find(|(k, _)| k == PARAM).map(|&(_, v)| v) {
            None | Some(0) => Ok(Metric::Dtm),
            Some(1) => Ok(Metric::Dtz),
            Some(v) => Err(format!(
                "unknown metric {v} (this build reads 0 DTM, 1 DTZ)"
            )),
        }
    }

    /// The header parameter saying so (none for DTM, which older files are).
    pub fn param(self) -> Option<(String, i64)> {
        (self == Metric::Dtz).then(|| (PARAM.to_string(), 1))
    }

    /// Bins of a section's histogram: one per value code.
    pub fn codes(self) -> usize {
        match self {
            Metric::Dtm => VALUE_CODES,
            Metric::Dtz => 2 * DTZ_MAX_PLIES as usize + 4,
        }
    }

    /// The histogram bin of `v` (see [`Value::code`] for DTM).
    #[inline]
    pub fn code(self, v: Value) -> usize {
        match self {
            Metric::Dtm => v.code() as usize,
            Metric::Dtz => dtz_code(v) as usize,
        }
    }

    /// Inverse of [`Metric::code`]; `None` beyond the last code.
    #[inline]
    pub fn from_code(self, c: usize) -> Option<Value> {
        match self {
            Metric::Dtm => Value::from_code(u16::try_from(c).ok()?),
            Metric::Dtz => (c < self.codes()).then(|| dtz_value(c as u16)),
        }
    }

    /// The value a record holds.
    #[inline]
    pub fn value(self, rec: [u8; 2]) -> Value {
        match self {
            Metric::Dtm => Value::from_record(rec[0], rec[1]),
            Metric::Dtz => dtz_value(u16::from_le_bytes(rec)),
        }
    }

    /// The record of value `v` with best move `mv` (ignored by DTZ).
    #[inline]
    pub fn record(self, v: Value, mv: u8) -> [u8; 2] {
        match self {
            Metric::Dtm => [v.to_byte(), mv],
            Metric::Dtz => dtz_code(v).to_le_bytes(),
        }
    }

    /// True if a record holds `v` exactly.
    #[inline]
    pub fn fits(self, v: Value) -> bool {
        match self {
            Metric::Dtm => v.fits(),
            Metric::Dtz => match v {
                Value::Win(p) => (1..=DTZ_MAX_PLIES).contains(&p),
                Value::Loss(p) => p <= DTZ_MAX_PLIES,
                _ => true,
            },
        }
    }

    /// The histogram of `records` (whole records), by [`Metric::code`].
    ///
    /// Counted by raw bytes, each bin turned into its code once at the end: the writer
    /// checks every record it writes against the solver's histogram, and decoding each
    /// one took about 2 % of a 5-piece table's CPU. A DTM value is its first byte, but for
    /// byte 129, which holds a loss in one move or, without a move, a checkmate (its own
    /// bin here, 256). A DTZ record is its code.
    pub fn histogram(self, records: &[u8]) -> Vec<u64> {
        let mut h = vec![0u64; self.codes()];
        match self {
            Metric::Dtm => {
                const MATED: usize = 256;
                let n: [u64; 257] = tally(records.chunks_exact(2).map(|r| {
                    let mated = r[0] == 129 && r[1] == NO_MOVE;
                    if mated {
                        MATED
                    } else {
                        r[0] as usize
                    }
                }));
                for (b, &k) in n.iter().enumerate().filter(|&(_, &k)| k > 0) {
                    let v = match b {
                        MATED => Value::Loss(0),
                        b => Value::from_record(b as u8, 1),
                    };
                    h[self.code(v)] += k;
                }
            }
            Metric::Dtz => {
                // The codes below it are their own bins; a win of more plies (4094) and
                // anything past the last code, only in a crafted file, go by their value.
                const DIRECT: usize = 2 * DTZ_MAX_PLIES as usize + 2;
                for r in records.chunks_exact(2) {
                    let c = u16::from_le_bytes([r[0], r[1]]) as usize;
                    if c < DIRECT {
                        h[c] += 1;
                    } else {
                        h[self.code(self.value([r[0], r[1]]))] += 1;
                    }
                }
            }
        }
        h
    }

    /// Whether records store a best move.
    #[inline]
    pub fn stores_moves(self) -> bool {
        self == Metric::Dtm
    }
}

impl std::fmt::Display for Metric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Metric::Dtm => "DTM",
            Metric::Dtz => "DTZ",
        })
    }
}

fn dtz_code(v: Value) -> u16 {
    match v {
        Value::Illegal => 0,
        Value::Draw => 1,
        Value::Win(p) => 2 * p.clamp(1, DTZ_MAX_PLIES),
        Value::Loss(p) => 2 * p.min(DTZ_MAX_PLIES) + 3,
    }
}

/// Every code means a value: a crafted file can hold any bits, and a reader never fails.
fn dtz_value(c: u16) -> Value {
    match c {
        0 => Value::Illegal,
        1 => Value::Draw,
        c if c % 2 == 0 => Value::Win(c / 2),
        c => Value::Loss((c - 3) / 2),
    }
}

/// How many of `keys` (each below `N`) are each number. The counts are kept in four
/// tables in turn: in a table long runs of one value are common (the draws), and a count
/// bumped again at once waits for its last store; four apart, the bumps overlap.
pub(crate) fn tally<const N: usize>(keys: impl Iterator<Item = usize>) -> [u64; N] {
    let mut t = [[0u64; N]; 4];
    for (k, key) in keys.enumerate() {
        t[k % 4][key] += 1;
    }
    std::array::from_fn(|b| t[0][b] + t[1][b] + t[2][b] + t[3][b])
}

/// The value and plies of the longest win or loss in a section's histogram (by value
/// code; a win before a loss of the same length: the winner's view is the one people look
/// up).
pub fn longest(histogram: &[u64], metric: Metric) -> Option<(Value, u16)> {
    (0..histogram.len())
        .filter(|&c| histogram[c] > 0)
        .filter_map(|c| match metric.from_code(c)? {
            v @ Value::Win(p) => Some((v, p, 1)),
            v @ Value::Loss(p) => Some((v, p, 0)),
            _ => None,
        })
        .max_by_key(|&(_, p, win)| (p, win))
        .map(|(v, p, _)| (v, p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The histogram record by record, each decoded: what [`Metric::histogram`] counts.
    fn decoded(m: Metric, records: &[u8]) -> Vec<u64> {
        let mut h = vec![0u64; m.codes()];
        for r in records.chunks_exact(2) {
            h[m.code(m.value([r[0], r[1]]))] += 1;
        }
        h
    }

    proptest! {
        /// Any bytes, as a crafted file may hold: the byte counts give each value's bin.
        #[test]
        fn the_histogram_counts_every_record_in_its_values_bin(
            bytes in proptest::collection::vec(any::<u8>(), 0..600),
            edge in proptest::collection::vec(
                prop_oneof![Just([129u8, NO_MOVE]), Just([129, 3]), Just([0xfe, 0x0f]),
                    Just([0xfd, 0x0f]), Just([0xff, 0x0f]), Just([0x00, 0x10])],
                0..20,
            ),
        ) {
            let mut records = bytes;
            records.extend(edge.concat());
            for m in [Metric::Dtm, Metric::Dtz] {
                prop_assert_eq!(m.histogram(&records), decoded(m, &records));
            }
        }
    }

    #[test]
    fn every_dtz_value_round_trips_through_its_record_and_code() {
        let m = Metric::Dtz;
        let mut values = vec![Value::Illegal, Value::Draw];
        for p in 0..=DTZ_MAX_PLIES {
            values.push(Value::Loss(p));
            if p > 0 {
                values.push(Value::Win(p));
            }
        }
        let mut codes = std::collections::HashSet::new();
        for v in values {
            assert!(m.fits(v), "{v:?}");
            assert_eq!(m.value(m.record(v, 7)), v);
            let c = m.code(v);
            assert!(c < m.codes() && codes.insert(c), "{v:?} code {c}");
            assert_eq!(m.from_code(c), Some(v));
        }
        // Every bin but one: code 4094 would be a win one ply beyond the limit.
        assert_eq!(codes.len() + 1, m.codes());
        assert!(!m.fits(Value::Win(DTZ_MAX_PLIES + 1)));
        // Odd and even distances alike: a loss in one ply is a DTZ, not a DTM, value.
        assert_eq!(m.record(Value::Loss(1), 0), [5, 0]);
        assert_eq!(m.record(Value::Win(2), 0), [4, 0]);
    }

    #[test]
    fn the_metric_is_read_from_the_parameters() {
        let p = |v| vec![("pieces".to_string(), 4), (PARAM.to_string(), v)];
        assert_eq!(Metric::of_params(&[]), Ok(Metric::Dtm));
        assert_eq!(Metric::of_params(&p(1)), Ok(Metric::Dtz));
        assert!(Metric::of_params(&p(9))
            .unwrap_err()
            .contains("unknown metric 9"));
        assert_eq!(Metric::Dtz.param(), Some((PARAM.to_string(), 1)));
        assert_eq!(Metric::Dtm.param(), None);
    }
}
