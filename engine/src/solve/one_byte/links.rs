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
use super::{bits, mask_span};
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
    /// A bit per 64 slots holding the target of a link, and likewise for origins: most
    /// slots a pass looks at have none, and learn it without a search.
    targets: Vec<u64>,
    origins: Vec<u64>,
    /// Per 4,096 slots (a word of `targets`), where its links start in `by_to`, and where
    /// those out of it start in `by_from`, with the ends after the last: a slot's links
    /// are searched for among its 4,096 slots' few, not the whole list.
    to_starts: Vec<u32>,
    from_starts: Vec<u32>,
    /// How many links' extra moves win for the opponent, by that win's plies: the passes
    /// that find none skip the list.
    extra_wins: Vec<u32>,
}

/// Slots a word of marks covers: 64 bits of 64 slots.
const WORD_SHIFT: u32 = 12;

/// A bit per 64 slots, for the slots `at` gives, in `words` words.
fn marks(at: impl Iterator<Item = Index>, words: usize) -> Vec<u64> {
    let mut m = vec![0u64; words];
    for q in at {
        m[(q >> WORD_SHIFT) as usize] |= 1 << (q >> 6 & 63);
    }
    m
}

/// Where each of `words` words of slots starts in `sorted` (slot numbers in order), and
/// the end after the last.
fn starts(sorted: impl Iterator<Item = Index>, words: usize) -> Vec<u32> {
    let mut s = Vec::with_capacity(words + 1);
    let mut k = 0u32;
    for q in sorted {
        while s.len() <= (q >> WORD_SHIFT) as usize {
            s.push(k);
        }
        k += 1;
    }
    s.resize(words + 1, k);
    s
}

/// True if `marks` has the bit of slot `q`'s 64.
fn marked(marks: &[u64], q: Index) -> bool {
    marks
        .get((q >> WORD_SHIFT) as usize)
        .is_some_and(|m| m >> (q >> 6 & 63) & 1 != 0)
}

/// True if `marks` has the bit of any 64 slots holding a slot `first + b`, `b` a bit of
/// `m`.
fn marked_among(marks: &[u64], first: Index, m: u64) -> bool {
    if m == 0 {
        return false;
    }
    let span = mask_span(first, m);
    (span.start() >> 6..=span.end() >> 6).any(|k| marked(marks, k << 6))
}

/// The range of `in_word` (the entries of slot `q`'s word of slots) whose slot `at` gives
/// is `q`.
fn within<T>(in_word: &[T], q: Index, at: impl Fn(&T) -> Index) -> std::ops::Range<usize> {
    let lo = in_word.partition_point(|e| at(e) < q);
    lo..lo + in_word[lo..].partition_point(|e| at(e) <= q)
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
        let last = all.iter().map(|p| to(p).max(from(p))).max();
        let words = last.map_or(0, |q| (q >> WORD_SHIFT) as usize + 1);
        let mut extra_wins = Vec::new();
        for w in all.iter().filter_map(extra_win) {
            if extra_wins.len() <= w as usize {
                extra_wins.resize(w as usize + 1, 0);
            }
            extra_wins[w as usize] += 1;
        }
        let origin = |k: &u32| from(&all[*k as usize]);
        Ok(Links {
            targets: marks(all.iter().map(to), words),
            origins: marks(all.iter().map(from), words),
            to_starts: starts(all.iter().map(to), words),
            from_starts: starts(by_from.iter().map(origin), words),
            by_from,
            extra_wins,
            by_to: gathered,
        })
    }

    fn all(&self) -> &[Packed] {
        self.by_to.bytes().as_chunks::<12>().0
    }

    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.by_from.is_empty()
    }

    /// The entries of `starts` for slot `q`'s word of slots.
    fn word_of(starts: &[u32], q: Index) -> std::ops::Range<usize> {
        let w = (q >> WORD_SHIFT) as usize;
        starts[w] as usize..starts[w + 1] as usize
    }

    /// The links into slot `q`.
    pub(super) fn to(&self, q: Index) -> impl Iterator<Item = Link> + '_ {
        let all = self.all();
        let found = if marked(&self.targets, q) {
            let word = &all[Self::word_of(&self.to_starts, q)];
            &word[within(word, q, to)]
        } else {
            &[]
        };
        found.iter().map(unpack)
    }

    /// False if no slot `first + b` (`b` a bit of `m`) is a link's target: a group's slots
    /// need not be asked one by one ([`Links::to`]).
    pub(super) fn may_reach(&self, first: Index, m: u64) -> bool {
        marked_among(&self.targets, first, m)
    }

    /// The links into the slots `first + b`, `b` a bit of `m`, slot by slot where
    /// [`Links::may_reach`] says there may be any.
    pub(super) fn to_slots(&self, first: Index, m: u64) -> impl Iterator<Item = Link> + '_ {
        let m = if self.may_reach(first, m) { m } else { 0 };
        bits(m).flat_map(move |b| self.to(first + b))
    }

    /// False if no link leaves a slot `first + b` (`b` a bit of `m`) ([`Links::from`]).
    pub(super) fn may_leave(&self, first: Index, m: u64) -> bool {
        marked_among(&self.origins, first, m)
    }

    /// The links out of slot `p`.
    pub(super) fn from(&self, p: Index) -> impl Iterator<Item = Link> + '_ {
        let all = self.all();
        let found = if marked(&self.origins, p) {
            let word = &self.by_from[Self::word_of(&self.from_starts, p)];
            &word[within(word, p, |k| from(&all[*k as usize]))]
        } else {
            &[]
        };
        found.iter().map(|&k| unpack(&all[k as usize]))
    }

    /// The origins of the links whose extra moves win for the opponent in `w` plies (a
    /// pass over the list where some do: a list of their own would hold 4 bytes a link).
    pub(super) fn extra_wins(&self, w: u16) -> impl Iterator<Item = Index> + '_ {
        let any = self.extra_wins.get(w as usize).is_some_and(|&c| c != 0);
        let all = if any { self.all() } else { &[] };
        all.iter()
            .filter(move |p| extra_win(p) == Some(w))
            .map(from)
    }

    /// The slowest win of a link's extra moves, if any.
    pub(super) fn deepest_extra_win(&self) -> Option<u16> {
        self.extra_wins.len().checked_sub(1).map(|w| w as u16)
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
        // Slots past 32 bits, and links on both sides of a 4,096-slot word's edge.
        let far = (1 << 33) + 3 * 4096 + 7;
        let all = [
            link(9, 2, Value::Win(3)),
            link(1 << 33, 2, Value::Loss(1)),
            link(9, far, Value::Draw),
            link(4, 7, Value::Illegal),
            link(4095, 4096, Value::Win(1)),
            link(4096, 4095, Value::Win(3)),
        ];
        let gather = |order: &[usize]| {
            let mut g = GrowingMap::new().unwrap();
            for &k in order {
                g.extend(&pack(&all[k]).unwrap()).unwrap();
            }
            Links::new(g).unwrap()
        };
        let links = gather(&[3, 5, 1, 0, 4, 2]);
        // Whichever order the start's threads gathered them in, the same list.
        assert_eq!(
            links.by_to.bytes(),
            gather(&[0, 1, 2, 3, 4, 5]).by_to.bytes()
        );
        assert!(!links.is_empty());
        // Slots beside a target, in its 64 slots and in the next 64, hold none.
        for q in [
            8,
            10,
            63,
            64,
            5,
            3,
            4094,
            4097,
            (1 << 33) - 1,
            (1 << 33) + 1,
            1 << 40,
        ] {
            assert_eq!(links.to(q).count(), 0, "slot {q}");
        }
        for p in [1, 3, 6, 8, 64, 4094, 4097, far - 1, far + 1, 1 << 36] {
            assert_eq!(links.from(p).count(), 0, "slot {p}");
        }
        assert_eq!(links.to(9).collect::<Vec<_>>(), [all[0], all[2]]);
        assert_eq!(links.to(2).count(), 0);
        assert_eq!(links.from(2).collect::<Vec<_>>(), [all[0], all[1]]);
        assert_eq!(links.from(far).collect::<Vec<_>>(), [all[2]]);
        assert_eq!(links.from(9).count(), 0);
        assert_eq!(links.to(1 << 33).collect::<Vec<_>>(), [all[1]]);
        assert_eq!(links.to(4).collect::<Vec<_>>(), [all[3]]);
        assert_eq!(links.to(4095).collect::<Vec<_>>(), [all[4]]);
        assert_eq!(links.to(4096).collect::<Vec<_>>(), [all[5]]);
        assert_eq!(links.from(4095).collect::<Vec<_>>(), [all[5]]);
        assert_eq!(links.from(4096).collect::<Vec<_>>(), [all[4]]);
        // A group's slots are asked one by one only where their 64 are marked: the
        // marks of both 64s a mask starting mid-way reaches are read.
        assert!(links.may_reach(0, 1 << 9) && links.may_reach(4032, 1 << 63));
        assert!(links.may_reach(4090, 1 << 6) && links.may_reach(4090, 1 << 5));
        assert!(!links.may_reach(64, !0) && !links.may_reach(4090, 0));
        assert!(!links.may_reach(1 << 33, 0) && !links.may_reach(4160, !0));
        assert!(links.may_leave(0, 1 << 2) && links.may_leave(far - 63, 1 << 63));
        assert!(links.may_leave(4090, 1 << 6) && links.may_leave(4090, 1 << 5));
        assert!(!links.may_leave(128, !0) && !links.may_leave(far + 57, !0));
        let into = |first, m| links.to_slots(first, m).collect::<Vec<_>>();
        assert_eq!(into(0, 1 << 9 | 1 << 4 | 1 << 2), [all[3], all[0], all[2]]);
        assert_eq!(into(4090, 1 << 5 | 1 << 6), [all[4], all[5]]);
        assert_eq!(into(64, !0), []);
        assert_eq!(links.deepest_extra_win(), Some(3));
        assert_eq!(links.extra_wins(3).collect::<Vec<_>>(), [2, 4095]);
        assert_eq!(links.extra_wins(1).collect::<Vec<_>>(), [4096]);
        assert_eq!(links.extra_wins(2).count(), 0);
        assert_eq!(links.extra_wins(4).count(), 0);
        let none = Links::none().unwrap();
        assert!(none.is_empty() && !none.may_reach(0, !0) && !none.may_leave(0, !0));
        assert_eq!(none.deepest_extra_win(), None);
        assert_eq!(none.to(0).count() + none.from(0).count(), 0);
    }
}
