//! The solver's state while it solves: the value bytes (candidates and never-lost marks
//! among them, until the solve gets deep), the settled bits, and the passes over them.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicU8, Ordering::Relaxed};

use super::super::bytes::{prefetch, Bytes};
use super::super::huge::HugeArray;
use rayon::prelude::*;

use super::deep::Deep;
use super::links::Links;
use super::packing::Packing;
use super::{bits, first_slots, mask_span, Passes, SolveError, ILLEGAL, KEEP, UNKNOWN};
use crate::game::{Index, Value};
use crate::table::metric::DTZ_MAX_PLIES;

thread_local! {
    /// A group's predecessors, gathered before any is visited ([`State::predecessors`]).
    static PREDECESSORS: RefCell<Vec<(Index, u64)>> = const { RefCell::new(Vec::new()) };
}

/// How many predecessors ahead of the one visited are asked for ([`State::predecessors`]).
const AHEAD: usize = 8;

/// One bit a slot, set and cleared by many threads.
pub(super) struct Bits(pub(super) HugeArray<AtomicU64>);

impl Bits {
    pub(super) fn new(n: usize) -> Result<Bits, SolveError> {
        let words = n.div_ceil(64);
        Ok(Bits(HugeArray::zeroed(words).map_err(|source| {
            SolveError::Memory {
                bytes: words as u64 * 8,
                source,
            }
        })?))
    }
    pub(super) fn get(&self, i: usize) -> bool {
        self.0[i / 64].load(Relaxed) >> (i % 64) & 1 != 0
    }
    pub(super) fn set(&self, i: usize) {
        self.0[i / 64].fetch_or(1 << (i % 64), Relaxed);
    }
    /// The bits of slots `first..first + 64` (those past the end read 0).
    pub(super) fn mask(&self, first: usize) -> u64 {
        let (w, o) = (first / 64, first % 64);
        let lo = self.0[w].load(Relaxed) >> o;
        if o == 0 || w + 1 >= self.0.len() {
            lo
        } else {
            lo | self.0[w + 1].load(Relaxed) << (64 - o)
        }
    }
    /// Ask for the words of slots `first..first + 64` ahead of [`Bits::mask`].
    fn prefetch(&self, first: usize) {
        // The words of the first and the last slot (one word where `first` is aligned).
        for i in [first, first + 63] {
            if let Some(w) = self.0.get(i / 64) {
                prefetch(w);
            }
        }
    }
    /// Set the bits `m` of slots `first..first + 64`.
    pub(super) fn set_mask(&self, first: usize, m: u64) {
        let (w, o) = (first / 64, first % 64);
        if m << o != 0 {
            self.0[w].fetch_or(m << o, Relaxed);
        }
        if o != 0 && m >> (64 - o) != 0 {
            self.0[w + 1].fetch_or(m >> (64 - o), Relaxed);
        }
    }
    /// Set the bit of every `unit` slots holding a slot `q + b`, `b` a bit of `m`
    /// (`m` not 0), each read before it is written: the words' cache lines stay shared
    /// between threads, most bits being set already.
    pub(super) fn note_units(&self, q: Index, m: u64, unit: usize) {
        let span = mask_span(q, m);
        let unit = unit as Index;
        for k in (span.start() / unit..=span.end() / unit).map(|k| k as usize) {
            if !self.get(k) {
                self.set(k);
            }
        }
    }
    /// Clear the bits `m` of slots `first..first + 64`, returning which of them were set.
    pub(super) fn take_mask(&self, first: usize, m: u64) -> u64 {
        if self.mask(first) & m == 0 {
            // Most words have none: a read spares a write.
            return 0;
        }
        let (w, o) = (first / 64, first % 64);
        let mut got = (self.0[w].fetch_and(!(m << o), Relaxed) >> o) & m;
        if o != 0 && m >> (64 - o) != 0 {
            got |= (self.0[w + 1].fetch_and(!(m >> (64 - o)), Relaxed) << (64 - o)) & m;
        }
        got
    }
}

pub(super) struct State<'a, P> {
    pub(super) passes: &'a P,
    pub(super) value: Bytes,
    /// How the bytes hold values ([`Passes::metric`]).
    pub(super) packing: Packing,
    /// The values beyond a byte ([`Packing::Plies`] only).
    pub(super) deep: Deep,
    /// Never lost: a move out of the table holds the draw. While `None`, such a slot holds
    /// [`KEEP`] instead.
    pub(super) keep: Option<Bits>,
    /// Candidates for a loss at the current depth, where their byte cannot mark them: from
    /// the depth that may store a loss of that byte on ([`Packing::cand_depth`]: only in
    /// tables 254 plies deep). While `None`, a candidate holds [`State::cand_byte`]
    /// instead of [`UNKNOWN`] from its proposal until its check: a bit a slot less at the
    /// peak (an eighth of the memory the solve takes). By whole groups
    /// ([`State::whole_groups`]), neither: always `None`, and no byte marks a candidate.
    pub(super) cand: Option<Bits>,
    /// [`Packing::cand_byte`].
    pub(super) cand_byte: u8,
    /// A bit per [`State::cand_step`] slots: some slot of them was proposed since their
    /// candidates were last taken. The candidates' scan reads these slots' bytes alone:
    /// every other depth, with moves, proposes nothing, and the others propose in a
    /// sixth of the groups (KRPvKP), most at the start of a long table.
    pub(super) proposed: Bits,
    /// Slots a bit of [`State::proposed`] covers: a group, or 64 slots where a group is
    /// one slot.
    pub(super) cand_step: usize,
    /// Candidates taken by whole groups: a proposal sets its group's bit in
    /// [`State::proposed`] and nothing else, and the check takes every unknown slot of a
    /// proposed group, [`Passes::group_movable`] keeping out those with no move at all
    /// (the slots the start left open that no move refutes). Marking each candidate in
    /// its byte reads and writes its value line at random, a cache miss a proposal in a
    /// large table; the checks read the proposed groups' lines in order. KRPvKR's
    /// generation takes 7 % less CPU time (805 MB of values), KQRvKR's (242 MB) the same.
    pub(super) whole_groups: bool,
    /// A bit a group: some slot of it was won by the lost → won pass of the depth being
    /// solved. The won → lost pass reads these groups, and the chunks holding a win
    /// stored apart ([`State::apart`]), rather than every byte of the table.
    pub(super) won_groups: Bits,
    /// The same for the losses the candidates' checks store one ply after the wins they
    /// were checked after (two depths on), by the parity of that loss.
    pub(super) lost_groups: [Bits; 2],
    /// Settled: illegal, won no later than the depth being solved, or lost no later than
    /// the last depth scanned for losses (a loss stored ahead of its depth waits until
    /// then; a checkmate never is, which tells it from an illegal slot). Most un-moves from
    /// a lost position reach such slots, and a forward check accepts them
    /// ([`State::accepted`]): this bit, eight times denser than the values, spares reading
    /// theirs.
    pub(super) fin: Bits,
    /// With tiers ([`Passes::tiers`]): the slots of the tier being solved. The passes
    /// run on these alone; the other slots are of higher tiers, final, or of lower ones,
    /// not yet started.
    pub(super) tier: Option<Bits>,
    /// Slots per group ([`Passes::group`]) and per parallel work item (whole groups).
    pub(super) group: usize,
    pub(super) chunk: usize,
    /// Per chunk of slots, which value bytes (256 bits) some slot of it took apart from
    /// the pass that notes its group ([`State::won_groups`], [`State::lost_groups`]): a
    /// win stored ahead (through a move out of the table) or through a link, a loss from
    /// the start or beyond the next depth. A scan for a byte reads the noted groups and,
    /// in the chunks that took it apart, the groups of its band ([`State::apart_groups`]);
    /// the other chunks' band bytes are not read. The deep layers of a long table hold a
    /// few thousand positions in a few groups; scanning every byte for them cost more than
    /// solving them.
    pub(super) apart: Vec<[AtomicU64; 4]>,
    /// Per group (or per 2^[`State::band_shift`] groups), which depths its slots took apart,
    /// eight bits for eight bands of [`State::band_plies`] plies (the last open-ended): in
    /// the chunks that took a byte apart, the scan reads only the groups with that byte's
    /// band (and the noted ones). A pawn table's start stores wins ahead in every chunk
    /// (promotions, captures of a piece), of many depths, but each group holds few of them.
    pub(super) apart_groups: HugeArray<AtomicU8>,
    /// The groups sharing a byte of [`State::apart_groups`], as a power of two's exponent:
    /// 0 (one group), unless groups are smaller than 64 slots (a byte then covers up to 64
    /// slots, not one slot).
    pub(super) band_shift: u32,
    /// Per byte of [`State::apart_groups`] (as many groups, at most 64 slots): the
    /// slowest win for the opponent through a move out of the table among its slots that
    /// may yet be lost ([`Start::Open`](super::Start::Open)'s `slowest`; 255 for that
    /// many plies or more, which bounds nothing). A loss found at a depth past it is lost
    /// one ply later, and its slowest move out ([`Passes::slowest_exit`]), reading
    /// sub-tables at random, is not asked.
    pub(super) exit_bound: HugeArray<AtomicU8>,
    /// Plies a band of [`State::apart_groups`] covers: the values stored apart are mostly
    /// those of moves out of the table, up to [`Passes::deepest_exit`] plies.
    pub(super) band_plies: u16,
    /// The largest depth of a value stored ahead of its turn (tentative wins, early
    /// losses): the solve goes on at least that far.
    pub(super) ahead: AtomicU16,
    /// The smallest distance found that a record cannot hold (`u16::MAX`: none).
    pub(super) too_deep: AtomicU16,
    /// [`Passes::deepest_exit`]: a loss checked after the wins at this many plies or more
    /// is lost one ply later, whatever its moves out of the table.
    pub(super) deepest_exit: u16,
    /// [`Outcome::Augmented`](crate::game::Outcome::Augmented) moves, by target and by
    /// origin.
    pub(super) links: Links,
}

impl<P: Passes> State<'_, P> {
    pub(super) fn get(&self, i: Index) -> u8 {
        self.value.get(i as usize)
    }

    /// The value that byte `b` of slot `i` stands for ([`Deep::read`]).
    #[inline]
    pub(super) fn read(&self, b: u8, i: Index) -> Value {
        self.deep.read(self.packing, b, i)
    }

    /// The plies of slot `q`'s win if it is won for its side to move in at most `w`.
    #[inline]
    pub(super) fn won_within(&self, q: Index, w: u16) -> Option<u16> {
        match self.get(q) {
            // The never-lost mark: no win yet.
            KEEP if self.keep.is_none() => None,
            // A candidate, unknown.
            b if b == self.cand_byte && self.cand_in_byte() => None,
            b => match self.read(b, q) {
                Value::Win(x) if x <= w => Some(x),
                _ => None,
            },
        }
    }

    /// Store `v` in slot `i` if it still holds `old`; a value beyond the records' range is
    /// noted, not stored.
    pub(super) fn store(&self, i: Index, old: u8, v: Value) -> bool {
        if !self.packing.fits(v) {
            let (Value::Win(d) | Value::Loss(d)) = v else {
                unreachable!("only wins and losses are stored")
            };
            if self.packing == Packing::Plies && d <= DTZ_MAX_PLIES {
                return self.deep.store(&self.value, i, old, v);
            }
            self.too_deep.fetch_min(d, Relaxed);
            return false;
        }
        self.value.swap(i as usize, old, self.packing.pack(v))
    }

    /// Note the groups of the slots `q + b`, `b` a bit of `m`, in `groups`
    /// ([`State::won_groups`], [`State::lost_groups`]). `q` may be any slot (a move that
    /// turns the board names its slots one by one).
    pub(super) fn note_groups(&self, groups: &Bits, q: Index, m: u64) {
        groups.note_units(q, m, self.group);
    }

    /// The byte of slot `i`'s group in [`State::apart_groups`] and [`State::exit_bound`].
    fn group_byte(&self, i: Index) -> usize {
        (i as usize / self.group) >> self.band_shift
    }

    /// Slot `i` just took `v` apart from the passes that note their groups: it is to be
    /// found by the scan for `v` ([`State::apart`]).
    pub(super) fn note_apart(&self, i: Index, v: Value) {
        if self.packing.fits(v) {
            note_byte(&self.apart[i as usize / self.chunk], self.packing.pack(v));
            let (band, k) = (self.band(v), self.group_byte(i));
            // Read before writing: the start notes most slots' groups again and again.
            if self.apart_groups[k].load(Relaxed) & band == 0 {
                self.apart_groups[k].fetch_or(band, Relaxed);
            }
        }
    }

    /// The bit of `v`'s band of depths in [`State::apart_groups`].
    fn band(&self, v: Value) -> u8 {
        let (Value::Win(d) | Value::Loss(d)) = v else {
            return 0;
        };
        1 << (d / self.band_plies).min(7)
    }

    /// Clear the values noted apart and the bounds of the moves out, for a new tier.
    pub(super) fn clear_apart(&self) {
        self.apart
            .par_iter()
            .for_each(|words| words.iter().for_each(|w| w.store(0, Relaxed)));
        for bytes in [&self.apart_groups, &self.exit_bound] {
            bytes
                .par_chunks(1 << 16)
                .for_each(|c| c.iter().for_each(|b| b.store(0, Relaxed)));
        }
    }

    /// The slots of the group at `first` that may yet be lost have no move out of the
    /// table slower than `slowest` plies ([`State::exit_bound`]).
    pub(super) fn note_exit_bound(&self, first: Index, slowest: u16) {
        let k = self.group_byte(first);
        let b = slowest.min(255) as u8;
        if self.exit_bound[k].load(Relaxed) < b {
            self.exit_bound[k].fetch_max(b, Relaxed);
        }
    }

    /// The slowest move out of the table of lost slot `p` ([`Passes::slowest_exit`]) where
    /// it may be slower than its moves inside, the slowest of which the opponent wins in
    /// `inside` plies; else 0.
    fn exit_past(&self, p: Index, inside: u16) -> u16 {
        let bound = self.exit_bound[self.group_byte(p)].load(Relaxed);
        // 255: that slow or slower, the exact figure not kept.
        if inside >= self.deepest_exit || bound < u8::MAX && inside >= u16::from(bound) {
            0
        } else {
            self.passes.slowest_exit(p, &|q| self.own(q))
        }
    }

    /// Slot `i` is won in `w` plies unless it is won sooner: unknown slots and slower
    /// tentative wins take it. Returns true if it changed; `ahead` says that `w` is
    /// beyond the depth being solved.
    pub(super) fn try_win(&self, i: Index, w: u16, ahead: bool) -> bool {
        let mark = |old: u8| old == UNKNOWN || (old == KEEP && self.keep.is_none());
        if !self.packing.fits(Value::Win(w)) {
            // Beyond a byte (kept apart, or too deep for a record: an error only if the
            // slot would take it): one won sooner keeps its value (no slower tentative
            // win can be this deep).
            let old = self.get(i);
            return mark(old) && self.store(i, old, Value::Win(w));
        }
        loop {
            let old = self.get(i);
            let better = mark(old) || matches!(self.read(old, i), Value::Win(x) if x > w);
            if !better {
                return false;
            }
            if self.store(i, old, Value::Win(w)) {
                if ahead {
                    self.note_ahead(w);
                    self.note_apart(i, Value::Win(w));
                }
                return true;
            }
        }
    }

    /// Mark slot `i` (unknown) never lost.
    pub(super) fn set_keep(&self, i: usize) {
        match &self.keep {
            Some(k) => k.set(i),
            None => self.value.set(i, KEEP),
        }
    }

    /// Move the never-lost marks from the [`KEEP`] byte to a bit array of their own, before
    /// the solve gets deep enough for a win of that byte.
    pub(super) fn widen(&mut self) -> Result<(), SolveError> {
        let n = self.value.len();
        let keep = Bits::new(n)?;
        (0..n.div_ceil(64)).into_par_iter().for_each(|c| {
            let first = c * 64;
            for b in bits(self.value.holding(first, 64.min(n - first), KEEP)) {
                let i = first + b as usize;
                self.value.set(i, UNKNOWN);
                keep.set(i);
            }
        });
        self.keep = Some(keep);
        Ok(())
    }

    /// Note a value stored ahead of its depth. The start pass stores one in most slots of
    /// some tables: a read first keeps the shared word's cache line from bouncing between
    /// threads when it would not change (a fetch_max writes even then).
    pub(super) fn note_ahead(&self, d: u16) {
        if self.ahead.load(Relaxed) < d {
            self.ahead.fetch_max(d, Relaxed);
        }
    }

    /// True while a candidate holds [`State::cand_byte`].
    #[inline]
    fn cand_in_byte(&self) -> bool {
        self.cand.is_none() && !self.whole_groups
    }

    /// The bits of `m` whose slots (`first + b`) are of the tier being solved.
    #[inline]
    pub(super) fn in_tier(&self, first: Index, m: u64) -> u64 {
        match &self.tier {
            Some(t) if m != 0 => m & t.mask(first as usize),
            _ => m,
        }
    }

    /// The value of slot `q` of a tier solved before, final ([`Passes::tiers`]): for a
    /// move into it. [`Value::Illegal`] if it holds no position.
    pub(super) fn own(&self, q: Index) -> Value {
        match self.get(q) {
            ILLEGAL if self.fin.get(q as usize) => Value::Illegal,
            b => self.read(b, q),
        }
    }

    /// Mark `p` a candidate for a loss if it may still lose.
    pub(super) fn propose(&self, p: Index) {
        if self.whole_groups {
            return self.proposed.note_units(p, 1, self.cand_step);
        }
        if self.keep.as_ref().is_some_and(|k| k.get(p as usize)) {
            return;
        }
        let marked = match &self.cand {
            Some(c) => {
                let unknown = self.get(p) == UNKNOWN;
                if unknown {
                    c.set(p as usize);
                }
                unknown
            }
            None => self.value.swap(p as usize, UNKNOWN, self.cand_byte),
        };
        if marked {
            self.proposed.note_units(p, 1, self.cand_step);
        }
    }

    /// Move the candidates from their byte to a bit array of their own, before the solve
    /// may store a loss of that byte. Called between steps, when no slot is a candidate.
    pub(super) fn widen_cand(&mut self) -> Result<(), SolveError> {
        if self.cand.is_none() && !self.whole_groups {
            self.cand = Some(Bits::new(self.value.len())?);
        }
        Ok(())
    }

    /// Take the candidates among the `len` slots from `first`, to be checked: they are
    /// unknown again. (A word may hold slots of the next chunk, which its worker changes
    /// meanwhile.)
    pub(super) fn take_candidates(&self, first: usize, len: usize) -> u64 {
        if self.whole_groups {
            // Every slot: the check keeps the unknown ones.
            let mut m = first_slots(len);
            if let Some(k) = &self.keep {
                m &= !k.mask(first);
            }
            return self.in_tier(first as Index, m);
        }
        match &self.cand {
            Some(c) => c.take_mask(first, first_slots(len)),
            None => {
                let m = self.value.holding(first, len, self.cand_byte);
                if m != 0 {
                    self.value.set_where_shared(first, m, UNKNOWN);
                }
                m
            }
        }
    }

    /// `f(first)` for the first slot of each [`State::cand_step`] slots in `lo..hi` (a
    /// chunk) with a slot proposed since the last call, their bits cleared.
    pub(super) fn take_proposed(&self, lo: usize, hi: usize, mut f: impl FnMut(usize)) {
        let step = self.cand_step;
        let (first, end) = (lo / step, hi.div_ceil(step));
        for u in (first..end).step_by(64) {
            let m = self.proposed.take_mask(u, first_slots(64.min(end - u)));
            for b in bits(m) {
                f((u + b as usize) * step);
            }
        }
    }

    /// Check candidate `p` after the wins at `w` plies (= d + 1) are known: lost if every
    /// move leads to a win for the opponent, the slowest deciding the depth. A move into
    /// an [`ILLEGAL`] slot is not legal and does not count.
    pub(super) fn check(&self, p: Index, w: u16) -> bool {
        let mut slowest = 0u16;
        let all = self.passes.targets(p, |q| match self.get(q) {
            ILLEGAL => true,
            _ => match self.won_within(q, w) {
                Some(a) => {
                    slowest = slowest.max(a);
                    true
                }
                None => false,
            },
        });
        if !all {
            return false;
        }
        for l in self.links.from(p) {
            let own = self.won_within(l.to, w);
            let extra = match l.extra {
                Value::Win(e) if e <= w => Some(e),
                _ => None,
            };
            // The opponent wins by the quicker of the two: a target won later than `w`
            // cannot beat an extra win known by `w`.
            let Some(a) = (match (own, extra) {
                (Some(a), Some(e)) => Some(a.min(e)),
                (a, e) => a.or(e),
            }) else {
                return false;
            };
            slowest = slowest.max(a);
        }
        let exit = self.exit_past(p, slowest);
        self.lose(p, slowest.max(exit) + 1, w)
    }

    /// Store candidate `p`, checked after the wins at `w` plies, lost in `d` plies, and
    /// note it for the scan at depth `d` (which settles it). True if it was still unknown.
    fn lose(&self, p: Index, d: u16, w: u16) -> bool {
        let stored = self.store(p, UNKNOWN, Value::Loss(d));
        if stored {
            if d == w + 1 {
                self.note_groups(&self.lost_groups[d as usize % 2], p, 1);
            } else {
                self.note_apart(p, Value::Loss(d));
            }
        }
        if stored && d > w + 1 {
            self.note_ahead(d);
        }
        stored
    }

    /// Run `f(first, mask)` on every group with slots holding `v` (the mask says which):
    /// [`State::each_holding`] its byte, in the groups of `groups` and the chunks that took
    /// it apart, or the slots kept apart ([`Deep`]), whose groups are few; true if `f`
    /// returned true for any.
    pub(super) fn each_at(
        &self,
        v: Value,
        groups: &Bits,
        f: impl Fn(Index, u64) -> bool + Sync,
    ) -> bool {
        if self.packing.fits(v) {
            return self.each_holding(self.packing.pack(v), self.band(v), groups, f);
        }
        if self.packing != Packing::Plies {
            return false;
        }
        let g = self.group as Index;
        let mut any = false;
        let mut slots = self.deep.holding(v).into_iter().peekable();
        while let Some(i) = slots.next() {
            let first = i / g * g;
            let mut mask = 1u64 << (i - first);
            while let Some(&j) = slots.peek().filter(|&&j| j < first + g) {
                mask |= 1 << (j - first);
                slots.next();
            }
            let mask = self.in_tier(first, mask);
            if mask != 0 {
                any |= f(first, mask);
            }
        }
        any
    }

    /// Run `f(first, mask)` on every group with slots holding byte `b` (the mask says
    /// which), chunk by chunk in parallel: the groups whose bit `groups` has (taken: all
    /// of them are cleared), and in the chunks that took `b` apart ([`State::apart`]) the
    /// groups with its `band` ([`State::apart_groups`]); true if `f` returned true for
    /// any.
    fn each_holding(
        &self,
        b: u8,
        band: u8,
        groups: &Bits,
        f: impl Fn(Index, u64) -> bool + Sync,
    ) -> bool {
        let bit = 1u64 << (b % 64);
        let g = self.group;
        let n = self.value.len();
        let holding = |first: usize, len: usize| match &self.tier {
            // Only the words holding slots of the tier are read.
            Some(t) => match t.mask(first) {
                0 => 0,
                m => self.value.holding_within(first, len, b, m),
            },
            None => self.value.holding(first, len, b),
        };
        (0..n.div_ceil(self.chunk))
            .into_par_iter()
            .map(|c| {
                let mut any = false;
                let (lo, end) = (c * self.chunk, ((c + 1) * self.chunk).min(n));
                let apart = self.apart[c][b as usize / 64].load(Relaxed) & bit != 0;
                // The chunk's groups, 64 at a time (the chunk is whole groups).
                let (mut k, last) = (lo / g, end.div_ceil(g));
                while k < last {
                    let take = (last - k).min(64);
                    let mut m = groups.take_mask(k, u64::MAX >> (64 - take));
                    if apart {
                        for j in 0..take {
                            let bands = self.apart_groups[(k + j) >> self.band_shift].load(Relaxed);
                            m |= ((bands & band != 0) as u64) << j;
                        }
                    }
                    // Their lines lie apart: asked for at once, they arrive together.
                    for first in bits(m).map(|j| (k + j as usize) * g) {
                        self.value.prefetch(first);
                    }
                    for first in bits(m).map(|j| (k + j as usize) * g) {
                        let mask = holding(first, g.min(end - first));
                        if mask != 0 {
                            any |= f(first as Index, mask);
                        }
                    }
                    k += take;
                }
                any
            })
            .reduce(|| false, |a, b| a || b)
    }

    /// The bits of `m` whose slots (`first + b`) hold `UNKNOWN`.
    pub(super) fn unknown(&self, first: Index, m: u64) -> u64 {
        if m == 0 {
            return 0;
        }
        // Up to the highest slot of `m`, which is inside the table; a whole group's words
        // where the table goes on that far (the words without a slot of `m` are not read).
        let len = if first as usize + 64 <= self.value.len() {
            64
        } else {
            64 - m.leading_zeros() as usize
        };
        self.value.holding_within(first as usize, len, UNKNOWN, m)
    }

    /// `f(q, m)` on the predecessors of the slots `mask` of the group at `first`
    /// ([`Passes::group_predecessors`]), all of them gathered first, then visited in order
    /// while the settled bits (and where `values`, the bytes) of the one [`AHEAD`] places on
    /// are asked for: they lie far apart, at random, and each read one after the other
    /// waited for memory (KQRvKR, on a host with 32 MiB of cache: the retrograde's settled
    /// bits alone a seventh of its time).
    pub(super) fn predecessors(
        &self,
        first: Index,
        mask: u64,
        values: bool,
        mut f: impl FnMut(Index, u64),
    ) {
        PREDECESSORS.with(|p| {
            // `f` never asks for predecessors itself, so the list is not borrowed twice.
            let mut p = p.borrow_mut();
            p.clear();
            self.passes
                .group_predecessors(first, mask, |q, m| p.push((q, m)));
            let ask = |q: Index| {
                self.fin.prefetch(q as usize);
                if values {
                    self.value.prefetch(q as usize);
                }
            };
            for &(q, _) in p.iter().take(AHEAD) {
                ask(q);
            }
            for (k, &(q, m)) in p.iter().enumerate() {
                if let Some(&(ahead, _)) = p.get(k + AHEAD) {
                    ask(ahead);
                }
                f(q, m);
            }
        });
    }

    /// Propose the slots of `m` (`first + b`) as candidates: those not settled, not kept,
    /// and unknown. By whole groups ([`State::whole_groups`]), the group of those not
    /// settled is noted and nothing else. With candidates in bits, the values are not read
    /// here, at random: a proposed slot that is not unknown (a win stored ahead, or never
    /// lost) is dropped
    /// when the candidates are checked, group by group in order. With candidates in their
    /// byte, the slots' line is read, and written where a slot is unknown: while
    /// candidates are proposed no other byte is written, so an unknown slot read here is
    /// still unknown (or proposed by another thread) when its candidate byte is stored.
    /// That read, at random, is the price of the bit a slot saved: KQRvKR's retrograde
    /// takes a tenth longer.
    pub(super) fn propose_mask(&self, first: Index, m: u64) {
        let mut m = m & !self.fin.mask(first as usize);
        if self.whole_groups {
            if m != 0 {
                self.proposed.note_units(first, m, self.cand_step);
            }
            return;
        }
        if let Some(k) = &self.keep {
            m &= !k.mask(first as usize);
        }
        match &self.cand {
            Some(c) if m != 0 => c.set_mask(first as usize, m),
            Some(_) => {}
            None => {
                m = self.unknown(first, m);
                if m != 0 {
                    self.value
                        .set_where_shared(first as usize, m, self.cand_byte);
                }
            }
        }
        if m != 0 {
            self.proposed.note_units(first, m, self.cand_step);
        }
    }

    /// The bits of `m` whose slots (`first + b`) a forward check at `w` plies accepts:
    /// illegal, or won for the opponent in at most `w` plies. Those are the settled slots
    /// ([`State::fin`]) but the losses scanned already, at most `w - 1` plies, which no
    /// candidate reaches: a slot with a move into one was won at once. So the check reads a
    /// bit a target, eight targets a byte, not the targets' values.
    #[inline]
    pub(super) fn accepted(&self, first: Index, m: u64, w: u16) -> u64 {
        let a = self.fin.mask(first as usize) & m;
        debug_assert!(bits(m).all(|b| {
            let q = first + b;
            let (byte, marked) = (self.get(q), self.keep.is_none());
            let by_value = match byte {
                ILLEGAL => self.fin.get(q as usize),
                _ => self.won_within(q, w).is_some(),
            };
            // A never-lost mark or a candidate holds no value of its own.
            let mark = (byte == KEEP && marked) || (byte == self.cand_byte && self.cand_in_byte());
            let lost = !mark && matches!(self.read(byte, q), Value::Loss(l) if l < w);
            a >> b & 1 == by_value as u64 || lost
        }));
        a
    }

    /// Check the candidates `m` of the group at `first` after the wins at `w` plies are
    /// known: the group's forward checks refute most; each one left is lost one ply after
    /// its slowest move. Without [`Outcome::Augmented`](crate::game::Outcome::Augmented)
    /// moves, that is a move inside the table, into a win in exactly `w` plies (the win
    /// that proposed it), or a move out.
    pub(super) fn check_group(&self, first: Index, m: u64, w: u16) -> bool {
        let m = self.unknown(first, m);
        if m == 0 {
            return false;
        }
        let left = m & !self
            .passes
            .group_refuted(first, m, |q, k| self.accepted(q, k, w));
        let mut any = false;
        let linked = self.links.may_leave(first, left);
        let mut plain = 0u64;
        for b in bits(left) {
            let p = first + b;
            if linked && self.links.from(p).next().is_some() {
                any |= self.check(p, w);
            } else {
                plain |= 1 << b;
            }
        }
        if self.whole_groups && plain != 0 {
            // Not each of these was proposed: one with no move at all passed with nothing
            // to refute it, and is not lost.
            plain = self
                .passes
                .group_movable(first, plain)
                .expect("the slots with a move, where candidates go by groups");
        }
        for b in bits(plain) {
            let p = first + b;
            any |= self.lose(p, w.max(self.exit_past(p, w)) + 1, w);
        }
        any
    }
}

/// Note byte `b` in a chunk's 256 bits of bytes held.
fn note_byte(words: &[AtomicU64; 4], b: u8) {
    let (word, bit) = (&words[b as usize / 64], 1u64 << (b % 64));
    // Read before writing: the word's cache line stays shared between threads.
    if word.load(Relaxed) & bit == 0 {
        word.fetch_or(bit, Relaxed);
    }
}
