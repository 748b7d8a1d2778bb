//! The solver's side list of [`Outcome::Augmented`](crate::game::Outcome::Augmented) moves
//! (chess: a double step after which the opponent may capture en passant), kept small.
//!
//! A table with pawns on both sides has millions of them (KRPvKP: 1.9 million), and the
//! list is held through the whole retrograde, beside one byte a slot: a [`Link`] as the
//! game gives it takes 24 bytes, 48 with a second list sorted the other way. Here a link
//! takes 12 bytes (slot numbers of 40 bits, the extra moves' value in 16) and the order by
//! origin 4 more, as positions in the order by target. They are gathered into one map that
//! grows without copying ([`GrowingMap`]) and sorted there: the start's chunks hold no list
//! of their own beside it.

use super::passes::Link;
use crate::game::{Index, SolveError, Value};
use crate::huge::GrowingMap;

/// Slot numbers a link can hold: 2^40, seventy times the 15.5 G slots of a 6-piece table
/// such as KRRvKRR.
const INDEX_BITS: u32 = 40;

/// One link in 12 bytes, little-endian: the low 32 bits of its target and of its origin,
/// then their top 8 bits each and the extra moves' value ([`code`]).
pub(super) type Packed = [u8; 12];

/// `l` packed: an error if a slot number or a distance is out of the packed range.
pub(super) fn pack(l: &Link) -> Result<Packed, SolveError> {
    if (l.to | l.from) >> INDEX_BITS != 0 {
        return Err(SolveError::Game(format!(
            "slot {} is past the {INDEX_BITS}-bit slot numbers of the solver's en passant links",
            l.to.max(l.from)
        )));
    }
    let hi = (l.to >> 32) as u32 | ((l.from >> 32) as u32) << 8 | (code(l.extra)? as u32) << 16;
    let mut p = [0; 12];
    p[..4].copy_from_slice(&(l.to as u32).to_le_bytes());
    p[4..8].copy_from_slice(&(l.from as u32).to_le_bytes());
    p[8..].copy_from_slice(&hi.to_le_bytes());
    Ok(p)
}

fn word(p: &Packed, k: usize) -> u32 {
    u32::from_le_bytes([p[4 * k], p[4 * k + 1], p[4 * k + 2], p[4 * k + 3]])
}

fn to(p: &Packed) -> Index {
    word(p, 0) as Index | ((word(p, 2) & 0xff) as Index) << 32
}

fn from(p: &Packed) -> Index {
    word(p, 1) as Index | ((word(p, 2) >> 8 & 0xff) as Index) << 32
}

fn unpack(p: &Packed) -> Link {
    Link {
        to: to(p),
        from: from(p),
        extra: value((word(p, 2) >> 16) as u16),
    }
}

/// A value in 16 bits: 0 illegal, 1 a draw, then wins at even codes and losses at odd ones.
fn code(v: Value) -> Result<u16, SolveError> {
    let of =
        |plies: u16, side: u16| match plies.checked_mul(2).and_then(|c| c.checked_add(2 + side)) {
            Some(c) => Ok(c),
            None => Err(SolveError::TooDeep(plies)),
        };
    match v {
        Value::Illegal => Ok(0),
        Value::Draw => Ok(1),
        Value::Win(p) => of(p, 0),
        Value::Loss(p) => of(p, 1),
    }
}

fn value(c: u16) -> Value {
    match c {
        0 => Value::Illegal,
        1 => Value::Draw,
        c if c % 2 == 0 => Value::Win((c - 2) / 2),
        c => Value::Loss((c - 3) / 2),
    }
}

/// The plies of the win of a link's extra moves, if they win.
fn extra_win(p: &Packed) -> Option<u16> {
    match unpack(p).extra {
        Value::Win(e) => Some(e),
        _ => None,
    }
}

/// The links of a tier, by target and by origin.
pub(super) struct Links {
    /// The links, sorted by target, then origin.
    by_to: GrowingMap,
    /// Positions in `by_to`, sorted by origin (then target).
    by_from: Vec<u32>,
    /// Positions in `by_to` of the links whose extra moves win for the opponent, sorted by
    /// that win's plies: their origin is a candidate loss then, whatever its target does.
    by_extra_win: Vec<u32>,
    /// A bit per 64 slots holding the target of a link, and likewise for origins: most
    /// slots a pass looks at have none, and learn it without a search.
    targets: Vec<u64>,
    origins: Vec<u64>,
}

/// A bit per 64 slots, for the slots `at` gives.
fn marks(at: impl Iterator<Item = Index> + Clone) -> Vec<u64> {
    let words = at.clone().max().map_or(0, |q| (q >> 12) as usize + 1);
    let mut m = vec![0u64; words];
    for q in at {
        m[(q >> 12) as usize] |= 1 << (q >> 6 & 63);
    }
    m
}

/// True if `marks` has the bit of slot `q`'s 64.
fn marked(marks: &[u64], q: Index) -> bool {
    marks
        .get((q >> 12) as usize)
        .is_some_and(|m| m >> (q >> 6 & 63) & 1 != 0)
}

impl Links {
    /// No links.
    pub(super) fn none() -> Result<Links, SolveError> {
        Links::new(GrowingMap::new().map_err(memory)?)
    }

    /// The links packed in `gathered` (in any order), of a table of any size.
    pub(super) fn new(mut gathered: GrowingMap) -> Result<Links, SolveError> {
        let all = gathered.bytes_mut().as_chunks_mut::<12>().0;
        let Ok(count) = u32::try_from(all.len()) else {
            return Err(SolveError::Game(format!(
                "{} en passant links: the solver holds at most {}",
                all.len(),
                u32::MAX
            )));
        };
        // The whole link as the key: the same order whichever thread gathered which link.
        all.sort_unstable_by_key(|p| (to(p), from(p), word(p, 2)));
        let all = &*all;
        let mut by_from: Vec<u32> = (0..count).collect();
        by_from.sort_unstable_by_key(|&k| (from(&all[k as usize]), to(&all[k as usize])));
        let wins = all.iter().filter(|p| extra_win(p).is_some()).count();
        let mut by_extra_win = Vec::with_capacity(wins);
        by_extra_win.extend((0..count).filter(|&k| extra_win(&all[k as usize]).is_some()));
        by_extra_win.sort_by_key(|&k| extra_win(&all[k as usize]));
        let (targets, origins) = (marks(all.iter().map(to)), marks(all.iter().map(from)));
        Ok(Links {
            by_to: gathered,
            by_from,
            by_extra_win,
            targets,
            origins,
        })
    }

    fn all(&self) -> &[Packed] {
        self.by_to.bytes().as_chunks::<12>().0
    }

    pub(super) fn is_empty(&self) -> bool {
        self.by_from.is_empty()
    }

    /// The links into slot `q`.
    pub(super) fn to(&self, q: Index) -> impl Iterator<Item = Link> + '_ {
        let all = self.all();
        let (lo, hi) = if marked(&self.targets, q) {
            let lo = all.partition_point(|p| to(p) < q);
            (lo, lo + all[lo..].partition_point(|p| to(p) <= q))
        } else {
            (0, 0)
        };
        all[lo..hi].iter().map(unpack)
    }

    /// The links out of slot `p`.
    pub(super) fn from(&self, p: Index) -> impl Iterator<Item = Link> + '_ {
        let all = self.all();
        let at = |k: &u32| from(&all[*k as usize]);
        let (lo, hi) = if marked(&self.origins, p) {
            let lo = self.by_from.partition_point(|k| at(k) < p);
            (lo, lo + self.by_from[lo..].partition_point(|k| at(k) <= p))
        } else {
            (0, 0)
        };
        self.by_from[lo..hi]
            .iter()
            .map(|&k| unpack(&all[k as usize]))
    }

    /// The origins of the links whose extra moves win for the opponent in `w` plies.
    pub(super) fn extra_wins(&self, w: u16) -> impl Iterator<Item = Index> + '_ {
        let all = self.all();
        let at = |k: &u32| extra_win(&all[*k as usize]);
        let lo = self.by_extra_win.partition_point(|k| at(k) < Some(w));
        let hi = lo + self.by_extra_win[lo..].partition_point(|k| at(k) <= Some(w));
        self.by_extra_win[lo..hi]
            .iter()
            .map(|&k| from(&all[k as usize]))
    }

    /// The slowest win of a link's extra moves, if any.
    pub(super) fn deepest_extra_win(&self) -> Option<u16> {
        self.by_extra_win
            .last()
            .and_then(|&k| extra_win(&self.all()[k as usize]))
    }
}

/// The error of a list the system would not map.
pub(super) fn memory(source: std::io::Error) -> SolveError {
    SolveError::Game(format!(
        "cannot get memory for the solver's en passant links: {source}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(to: Index, from: Index, extra: Value) -> Link {
        Link { to, from, extra }
    }

    #[test]
    fn a_link_packs_and_unpacks_whole() {
        let top = (1 << INDEX_BITS) - 1;
        for l in [
            link(0, 0, Value::Illegal),
            link(top, 5, Value::Draw),
            link(7, top, Value::Win(0)),
            link(1 << 32, (1 << 32) + 1, Value::Loss(0)),
            link(123_456_789_012, 98_765_432_109, Value::Win(32_766)),
            link(3, 4, Value::Loss(32_766)),
        ] {
            assert_eq!(unpack(&pack(&l).unwrap()), l);
        }
    }

    #[test]
    fn what_does_not_fit_is_refused() {
        assert!(pack(&link(1 << INDEX_BITS, 0, Value::Draw)).is_err());
        assert!(pack(&link(0, 1 << INDEX_BITS, Value::Draw)).is_err());
        assert!(matches!(
            pack(&link(0, 0, Value::Win(32_767))),
            Err(SolveError::TooDeep(32_767))
        ));
    }

    #[test]
    fn links_are_found_by_target_and_by_origin() {
        let all = [
            link(9, 2, Value::Win(3)),
            link(1 << 33, 2, Value::Loss(1)),
            link(9, 1 << 35, Value::Draw),
            link(4, 7, Value::Illegal),
        ];
        let gather = |order: &[usize]| {
            let mut g = GrowingMap::new().unwrap();
            for &k in order {
                g.extend(&pack(&all[k]).unwrap()).unwrap();
            }
            Links::new(g).unwrap()
        };
        let links = gather(&[3, 1, 0, 2]);
        // Whichever order the start's threads gathered them in, the same list.
        assert_eq!(links.by_to.bytes(), gather(&[0, 1, 2, 3]).by_to.bytes());
        assert!(!links.is_empty());
        // Slots beside a target, in its 64 slots and in the next 64, hold none.
        for q in [8, 10, 63, 64, 5, 3, (1 << 33) - 1, (1 << 33) + 1, 1 << 40] {
            assert_eq!(links.to(q).count(), 0, "slot {q}");
        }
        for p in [1, 3, 6, 8, 64, (1 << 35) - 1, (1 << 35) + 1, 1 << 36] {
            assert_eq!(links.from(p).count(), 0, "slot {p}");
        }
        assert_eq!(links.to(9).collect::<Vec<_>>(), [all[0], all[2]]);
        assert_eq!(links.to(2).count(), 0);
        assert_eq!(links.from(2).collect::<Vec<_>>(), [all[0], all[1]]);
        assert_eq!(links.from(1 << 35).collect::<Vec<_>>(), [all[2]]);
        assert_eq!(links.from(9).count(), 0);
        assert_eq!(links.to(1 << 33).collect::<Vec<_>>(), [all[1]]);
        assert_eq!(links.to(4).collect::<Vec<_>>(), [all[3]]);
        assert_eq!(links.deepest_extra_win(), Some(3));
        assert_eq!(links.extra_wins(3).collect::<Vec<_>>(), [2]);
        assert_eq!(links.extra_wins(1).count(), 0);
        let none = Links::none().unwrap();
        assert!(none.is_empty());
        assert_eq!(none.deepest_extra_win(), None);
    }
}
