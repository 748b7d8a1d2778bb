//! The retrograde solver in one byte a slot: values only, no move counters, no queues.
//!
//! The two-queue solver ([`super::two_queue`]) keeps a counter per slot and lists of slot
//! numbers per depth: several bytes a slot. This one keeps the value byte
//! ([`Value::packed`]) and two bits a slot, and finds its work by scanning the values, as
//! Syzygy's generator does:
//!
//! 1. **Start.** Every slot is classified once ([`Passes::start`]): illegal, final
//!    (terminal, or every move leaves the table), or open. An open slot with a move out of
//!    the table to a loss for the opponent holds that win at once, as a *tentative* value
//!    that a quicker win replaces; one with a move out to a draw is marked *never lost*.
//! 2. **Depth d, lost → won.** Every slot holding a loss at d is found by scanning the
//!    bytes (only the chunks of slots that ever held that byte: each chunk keeps 256 bits
//!    of which bytes it held); its predecessors that are unknown, or hold a slower
//!    tentative win, are won at d + 1.
//! 3. **Won → lost.** Every slot holding a win at d + 1 marks its predecessors as
//!    candidates (a bit a slot). Each candidate still unknown is then checked forward
//!    ([`Passes::targets`]): if every move inside the table leads to a win at most d + 1,
//!    it is lost at one ply more than its slowest move, moves out of the table included
//!    ([`Passes::slowest_exit`]). That may be beyond d + 2 (a slow capture into a won
//!    sub-table): the loss is then stored early, exact already, and scanned at its depth.
//! 4. What is never reached is a draw.
//!
//! **What a slot holds.** Besides its value byte, a *settled* bit: the value can no longer
//! change (illegal, lost, or won no later than the depth solved). Most predecessors of a
//! lost position are settled already; the bit, eight times denser than the values, spares
//! reading theirs. Illegal slots hold the checkmates' byte and are told from them by that
//! bit: a move into an illegal slot is not legal, so the passes need not test legality
//! (chess: a move leaving the mover's king attacked reaches a slot where the side to move
//! could take it). A never-lost slot holds the byte of a win in 253 plies, a value no slot
//! can have until the solve gets that deep ([`Passes::deepest_exit`]); before then these
//! marks move to a bit array of their own.
//!
//! **Groups.** The passes work on groups of slots ([`Passes::group`]; chess: every piece
//! but the last standing still), the solver handing them a mask of the slots concerned:
//! what a group's slots share is worked out once, and their records lie together.
//!
//! Moves of kind [`Outcome::Augmented`] (chess: a double step allowing en passant) are few:
//! they are kept in a side list and settled as the two-queue solver settles them (won for
//! the mover once the target and the extra moves are both lost, at the later depth; won for
//! the opponent once either is won, at the earlier).
//!
//! Every value is the same as the two-queue solver's, so the table written is the same:
//! the best moves are found as the records are written ([`Solved`]).
//! Updates are compare-and-swaps towards the quickest win, so the bytes do not depend on
//! the thread count.
//!
//! A game can give its own [`Passes`] (chess works on squares and index arithmetic, not on
//! positions); [`GamePasses`] gives them for any [`Game`] from its moves and un-moves.

use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::bytes::Bytes;
use super::huge::HugeArray;
use super::SolveError;
use crate::game::{Game, Index, Outcome, Records, SolveOptions, Value, MAX_LOSS_PLIES, NO_MOVE};

/// How a slot starts, before any retrograde pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// No position lives here.
    Illegal,
    /// The value is known already: a terminal position, or one whose every move leaves
    /// the table (no move inside it, none [`Outcome::Augmented`]).
    Final(Value),
    /// Moves inside the table decide.
    Open {
        /// The quickest win through a move out of the table, in plies.
        win: Option<u16>,
        /// A move out of the table holds the draw: the position is never lost.
        keep: bool,
    },
}

/// An [`Outcome::Augmented`] move: from slot `from` to slot `to`, the opponent then also
/// having moves out of the table worth `extra` to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    pub to: Index,
    pub from: Index,
    pub extra: Value,
}

/// The passes a solve needs from a game, on slot numbers.
pub trait Passes: Sync {
    /// Number of slots.
    fn slots(&self) -> u64;
    /// How slot `i` starts; its [`Outcome::Augmented`] moves go to `links`.
    fn start(&self, i: Index, links: &mut Vec<Link>) -> Result<Start, SolveError>;
    /// True if slot `i` holds a position (asked once per slot, after the solve).
    fn legal(&self, i: Index) -> bool;
    /// Every predecessor of legal slot `i` through a move inside the table that is not
    /// [`Outcome::Augmented`] (a predecessor may come more than once). It may also name
    /// slots that [`Passes::start`] calls [`Start::Illegal`]: the solver ignores them, so
    /// a game need not test the legality of the positions it un-moves to.
    fn predecessors(&self, i: Index, f: impl FnMut(Index));
    /// Calls `ok` with the target of every move of slot `i` that stays inside the table
    /// and is not [`Outcome::Augmented`], until it returns false; false then, else true.
    /// It may also name [`Start::Illegal`] slots, for moves that are not legal (chess: a
    /// move leaving the mover's king attacked reaches a slot with the side to move able
    /// to take that king): `ok` accepts them, so a game need not test its moves'
    /// legality.
    fn targets(&self, i: Index, ok: impl FnMut(Index) -> bool) -> bool;
    /// The slowest win for the opponent, in plies, among the moves of slot `i` that leave
    /// the table (0 if none). Asked once per lost position, whose every such move is a win
    /// for the opponent.
    fn slowest_exit(&self, i: Index) -> u16;
    /// The code of the first move of legal slot `i`, in the game's move order, for which
    /// `wanted` holds ([`NO_MOVE`] if none): the best move, once the values are known.
    fn first_move(&self, i: Index, wanted: impl Fn(Outcome) -> bool) -> u8;

    /// OPTIONAL. The longest a move out of the table can take, in plies, to the end (a
    /// win or loss in a sub-table); default: as long as a record holds. Below 252, no
    /// position of the table can be won in 253 plies before the solve gets that deep, and
    /// the solver keeps its never-lost mark in that value's byte meanwhile, not in a bit
    /// of its own.
    fn deepest_exit(&self) -> u16 {
        MAX_LOSS_PLIES
    }

    /// OPTIONAL. How many consecutive slots make a group, at most 64 (default 1): the
    /// solver hands the passes below a group's first slot (a multiple of this) and a mask
    /// of its slots (bit `b`: slot `first + b`), so that work shared by a group's slots is
    /// done once. Chess: the squares of the last piece, the other pieces standing still.
    fn group(&self) -> usize {
        1
    }

    /// OPTIONAL. How each slot `first + b` of the group at `first` starts
    /// ([`Passes::start`]), given to `out(b, start)` for every `b` below [`Passes::group`];
    /// their [`Outcome::Augmented`] moves go to `links`. Default: slot by slot.
    fn group_start(
        &self,
        first: Index,
        links: &mut Vec<Link>,
        mut out: impl FnMut(Index, Start),
    ) -> Result<(), SolveError> {
        for b in 0..self.group() as Index {
            out(b, self.start(first + b, links)?);
        }
        Ok(())
    }

    /// OPTIONAL. [`Passes::predecessors`] of every slot of `mask` in the group at
    /// `first`, as sets of slots: `f(q, m)` names the slots `q + b` for each bit `b` of
    /// `m`. Default: slot by slot.
    fn group_predecessors(&self, first: Index, mask: u64, mut f: impl FnMut(Index, u64)) {
        for b in bits(mask) {
            self.predecessors(first + b, |p| f(p, 1));
        }
    }

    /// OPTIONAL. The best move ([`Passes::first_move`]) of every slot `first + b` of
    /// `mask` in the group at `first`, given to `out(b, code)`, the values known:
    /// `value(q)` is slot `q`'s ([`Value::Illegal`] for a slot holding no position, which
    /// no legal move reaches). The best move is the first move, in the game's move order,
    /// into a position whose value, seen from the mover ([`Value::back`]), is the slot's
    /// own. Default: slot by slot.
    fn group_first_moves(
        &self,
        first: Index,
        mask: u64,
        value: impl Fn(Index) -> Value,
        mut out: impl FnMut(Index, u8),
    ) {
        for b in bits(mask) {
            let own = value(first + b);
            out(
                b,
                self.first_move(first + b, |to| to.value(&value).back() == own),
            );
        }
    }

    /// OPTIONAL. The slots of `mask` in the group at `first` that have a move inside the
    /// table (as [`Passes::targets`] gives them) into a slot that `ok` does not accept:
    /// `ok(q, m)` returns the bits of `m` whose slots `q + b` it accepts. Default: slot by
    /// slot, each stopping at its first refusal.
    fn group_refuted(&self, first: Index, mask: u64, mut ok: impl FnMut(Index, u64) -> u64) -> u64 {
        let mut refuted = 0;
        for b in bits(mask) {
            if !self.targets(first + b, |q| ok(q, 1) == 1) {
                refuted |= 1 << b;
            }
        }
        refuted
    }
}

/// The bits set in `m`, lowest first, as slot offsets.
#[inline]
pub fn bits(mut m: u64) -> impl Iterator<Item = Index> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let b = m.trailing_zeros() as Index;
            m &= m - 1;
            b
        })
    })
}

/// Marks a slot not yet solved. Every byte is a value, so the draw byte serves: what is
/// never reached ends a draw, and terminal draws are nobody's predecessor (they have no
/// moves), so no pass ever looks at them.
const UNKNOWN: u8 = 1;

/// Marks an illegal slot: the byte of a checkmate ([`Value::packed`] of `Loss(0)`), told
/// apart by its `keep` bit, which a checkmate never has. An illegal slot is then neither
/// unknown nor a win, so no pass changes it, and a move into it is not legal, which a
/// forward check ignores. A checkmate as the target of a forward check is ignored too,
/// rightly: a slot with a move to a checkmate is won in one ply before any check runs,
/// so it is never a candidate.
const ILLEGAL: u8 = 0;

/// Marks an unknown slot that is never lost (a move out of the table holds the draw),
/// while no slot can hold the value of this byte, a win in 253 plies
/// ([`Passes::deepest_exit`]): such a slot is improved like a slow win, and is never a
/// candidate. Before the solve gets that deep, these marks move to a bit array.
const KEEP: u8 = 128;

/// The depth from which a win may need the [`KEEP`] byte (a win in 253 plies comes from a
/// loss in 252).
const WIDE_DEPTH: u16 = 252;

/// About how many slots make a parallel work item ([`State::chunk`]: whole groups).
const CHUNK: usize = 1 << 14;

/// One bit a slot, set and cleared by many threads.
struct Bits(HugeArray<AtomicU64>);

impl Bits {
    fn new(n: usize) -> Result<Bits, SolveError> {
        let words = n.div_ceil(64);
        Ok(Bits(HugeArray::zeroed(words).map_err(|source| {
            SolveError::Memory {
                bytes: words as u64 * 8,
                source,
            }
        })?))
    }
    fn get(&self, i: usize) -> bool {
        self.0[i / 64].load(Relaxed) >> (i % 64) & 1 != 0
    }
    fn set(&self, i: usize) {
        self.0[i / 64].fetch_or(1 << (i % 64), Relaxed);
    }
    /// The bits of slots `first..first + 64` (those past the end read 0).
    fn mask(&self, first: usize) -> u64 {
        let (w, o) = (first / 64, first % 64);
        let lo = self.0[w].load(Relaxed) >> o;
        if o == 0 || w + 1 >= self.0.len() {
            lo
        } else {
            lo | self.0[w + 1].load(Relaxed) << (64 - o)
        }
    }
    /// Set the bits `m` of slots `first..first + 64`.
    fn set_mask(&self, first: usize, m: u64) {
        let (w, o) = (first / 64, first % 64);
        if m << o != 0 {
            self.0[w].fetch_or(m << o, Relaxed);
        }
        if o != 0 && m >> (64 - o) != 0 {
            self.0[w + 1].fetch_or(m >> (64 - o), Relaxed);
        }
    }
    /// Clear the bits `m` of slots `first..first + 64`, returning which of them were set.
    fn take_mask(&self, first: usize, m: u64) -> u64 {
        let (w, o) = (first / 64, first % 64);
        let mut got = (self.0[w].fetch_and(!(m << o), Relaxed) >> o) & m;
        if o != 0 && m >> (64 - o) != 0 {
            got |= (self.0[w + 1].fetch_and(!(m >> (64 - o)), Relaxed) << (64 - o)) & m;
        }
        got
    }
}

struct State<'a, P> {
    passes: &'a P,
    value: Bytes,
    /// Never lost: a move out of the table holds the draw. While `None`, such a slot holds
    /// [`KEEP`] instead.
    keep: Option<Bits>,
    /// Candidates for a loss at the current depth.
    cand: Bits,
    /// Settled: the value cannot change any more (illegal, lost, or won no later than
    /// the depth being solved; a checkmate aside, which tells it from an illegal slot). Most un-moves from a lost position reach such slots; this
    /// bit, eight times denser than the values, spares reading theirs.
    fin: Bits,
    /// Slots per group ([`Passes::group`]) and per parallel work item (whole groups).
    group: usize,
    chunk: usize,
    /// Per chunk of slots, which value bytes some slot of it has held (256 bits):
    /// a scan for a byte passes over the chunks that never held it. The deep layers of a
    /// long table hold a few thousand positions in a few chunks; scanning every byte for
    /// them cost more than solving them.
    present: Vec<[AtomicU64; 4]>,
    /// The largest depth of a value stored ahead of its turn (tentative wins, early
    /// losses): the solve goes on at least that far.
    ahead: AtomicU16,
    /// The smallest distance found that a record cannot hold (`u16::MAX`: none).
    too_deep: AtomicU16,
    /// [`Outcome::Augmented`] moves, sorted by target, and the same by origin.
    by_to: Vec<Link>,
    by_from: Vec<Link>,
}

impl<P: Passes> State<'_, P> {
    fn get(&self, i: Index) -> u8 {
        self.value.get(i as usize)
    }

    /// Store `v` in slot `i` if it still holds `old`; a value beyond the records' range is
    /// noted, not stored.
    fn store(&self, i: Index, old: u8, v: Value) -> bool {
        if !v.fits() {
            let (Value::Win(d) | Value::Loss(d)) = v else {
                unreachable!("only wins and losses are stored")
            };
            self.too_deep.fetch_min(d, Relaxed);
            return false;
        }
        let b = v.packed();
        let ok = self.value.swap(i as usize, old, b);
        if ok {
            let word = &self.present[i as usize / self.chunk][b as usize / 64];
            let bit = 1u64 << (b % 64);
            // Read before writing: the word's cache line stays shared between threads.
            if word.load(Relaxed) & bit == 0 {
                word.fetch_or(bit, Relaxed);
            }
        }
        ok
    }

    /// Slot `i` is won in `w` plies unless it is won sooner: unknown slots and slower
    /// tentative wins take it. Returns true if it changed; `ahead` says that `w` is
    /// beyond the depth being solved.
    fn try_win(&self, i: Index, w: u16, ahead: bool) -> bool {
        if !Value::Win(w).fits() {
            // Too deep for a record, and an error only if the slot would take it: one
            // won sooner keeps its value (no slower tentative win can be this deep).
            return self.get(i) == UNKNOWN && self.store(i, UNKNOWN, Value::Win(w));
        }
        loop {
            let old = self.get(i);
            let better =
                old == UNKNOWN || matches!(Value::from_packed(old), Value::Win(x) if x > w);
            if !better {
                return false;
            }
            if self.store(i, old, Value::Win(w)) {
                if ahead {
                    self.note_ahead(w);
                }
                return true;
            }
        }
    }

    /// Mark slot `i` (unknown) never lost.
    fn set_keep(&self, i: usize) {
        match &self.keep {
            Some(k) => k.set(i),
            None => self.value.set(i, KEEP),
        }
    }

    /// Move the never-lost marks from the [`KEEP`] byte to a bit array of their own, before
    /// the solve gets deep enough for a win of that byte.
    fn widen(&mut self) -> Result<(), SolveError> {
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
    fn note_ahead(&self, d: u16) {
        if self.ahead.load(Relaxed) < d {
            self.ahead.fetch_max(d, Relaxed);
        }
    }

    fn links_to(&self, q: Index) -> &[Link] {
        let lo = self.by_to.partition_point(|l| l.to < q);
        let hi = self.by_to.partition_point(|l| l.to <= q);
        &self.by_to[lo..hi]
    }

    fn links_from(&self, p: Index) -> &[Link] {
        let lo = self.by_from.partition_point(|l| l.from < p);
        let hi = self.by_from.partition_point(|l| l.from <= p);
        &self.by_from[lo..hi]
    }

    /// Mark `p` a candidate for a loss if it may still lose.
    fn propose(&self, p: Index) {
        if self.get(p) == UNKNOWN && !self.keep.as_ref().is_some_and(|k| k.get(p as usize)) {
            self.cand.set(p as usize);
        }
    }

    /// Check candidate `p` after the wins at `w` plies (= d + 1) are known: lost if every
    /// move leads to a win for the opponent, the slowest deciding the depth. A move into
    /// an [`ILLEGAL`] slot is not legal and does not count.
    fn check(&self, p: Index, w: u16) -> bool {
        let mut slowest = 0u16;
        let all = self.passes.targets(p, |q| match self.get(q) {
            ILLEGAL => true,
            b => match Value::from_packed(b) {
                Value::Win(a) if a <= w => {
                    slowest = slowest.max(a);
                    true
                }
                _ => false,
            },
        });
        if !all {
            return false;
        }
        for l in self.links_from(p) {
            let own = match Value::from_packed(self.get(l.to)) {
                Value::Win(a) if a <= w => Some(a),
                _ => None,
            };
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
        slowest = slowest.max(self.passes.slowest_exit(p));
        let d = slowest + 1;
        let stored = self.store(p, UNKNOWN, Value::Loss(d));
        if stored {
            self.fin.set(p as usize);
        }
        if stored && d > w + 1 {
            self.note_ahead(d);
        }
        stored
    }

    /// Run `f(first, mask)` on every group with slots holding byte `b` (the mask says
    /// which), chunk by chunk in parallel; true if `f` returned true for any.
    fn each_holding(&self, b: u8, f: impl Fn(Index, u64) -> bool + Sync) -> bool {
        let bit = 1u64 << (b % 64);
        let g = self.group;
        let n = self.value.len();
        (0..n.div_ceil(self.chunk))
            .into_par_iter()
            .map(|c| {
                let mut any = false;
                if self.present[c][b as usize / 64].load(Relaxed) & bit == 0 {
                    return false;
                }
                let end = ((c + 1) * self.chunk).min(n);
                for first in (c * self.chunk..end).step_by(g) {
                    let mask = self.value.holding(first, g.min(end - first), b);
                    if mask != 0 {
                        any |= f(first as Index, mask);
                    }
                }
                any
            })
            .reduce(|| false, |a, b| a || b)
    }

    /// The bits of `m` whose slots (`first + b`) hold `UNKNOWN`.
    fn unknown(&self, first: Index, m: u64) -> u64 {
        let mut u = 0;
        for b in bits(m) {
            u |= ((self.get(first + b) == UNKNOWN) as u64) << b;
        }
        u
    }

    /// Propose the slots of `m` (`first + b`) as candidates: those not settled and not
    /// kept. Their values are not read here, at random: a proposed slot that is not
    /// unknown (a win stored ahead, or never lost) is dropped when the candidates are
    /// checked, group by group in order.
    fn propose_mask(&self, first: Index, m: u64) {
        let mut m = m & !self.fin.mask(first as usize);
        if let Some(k) = &self.keep {
            m &= !k.mask(first as usize);
        }
        if m != 0 {
            self.cand.set_mask(first as usize, m);
        }
    }

    /// The bits of `m` whose slots (`first + b`) a forward check at `w` plies accepts:
    /// illegal, or won for the opponent in at most `w` plies.
    fn accepted(&self, first: Index, m: u64, w: u16) -> u64 {
        let mut a = 0;
        for b in bits(m) {
            let ok = match self.get(first + b) {
                ILLEGAL => true,
                v => matches!(Value::from_packed(v), Value::Win(x) if x <= w),
            };
            a |= (ok as u64) << b;
        }
        a
    }

    /// Check the candidates `m` of the group at `first` after the wins at `w` plies are
    /// known: the group's forward checks refute most; each one left is lost one ply after
    /// its slowest move. Without [`Outcome::Augmented`] moves, that is a move inside the
    /// table, into a win in exactly `w` plies (the win that proposed it), or a move out.
    fn check_group(&self, first: Index, m: u64, w: u16) -> bool {
        let m = self.unknown(first, m);
        if m == 0 {
            return false;
        }
        let left = m & !self
            .passes
            .group_refuted(first, m, |q, k| self.accepted(q, k, w));
        let mut any = false;
        for b in bits(left) {
            let p = first + b;
            if !self.by_from.is_empty() && !self.links_from(p).is_empty() {
                any |= self.check(p, w);
                continue;
            }
            let d = w.max(self.passes.slowest_exit(p)) + 1;
            let stored = self.store(p, UNKNOWN, Value::Loss(d));
            if stored {
                self.fin.set(p as usize);
            }
            if stored && d > w + 1 {
                self.note_ahead(d);
            }
            any |= stored;
        }
        any
    }
}

/// A solved table: one byte a slot, which tells the illegal slots ([`Illegal`]). Each
/// record, best move included, is made when it is read ([`Records::fill`]), so writing the
/// table streams it.
pub struct Solved<P> {
    passes: P,
    value: Bytes,
    illegal: Illegal,
}

/// How a solved table tells its illegal slots.
enum Illegal {
    /// By the byte of a win in 253 plies ([`KEEP`]), which no slot holds unless the
    /// solve got that deep: the best moves then read one byte a move, no bit.
    Byte,
    /// By the checkmates' byte with a bit set: a table that deep.
    Bits(Bits),
}

impl<P> Solved<P> {
    #[inline]
    fn value_of(&self, i: usize) -> Value {
        match (self.value.get(i), &self.illegal) {
            (KEEP, Illegal::Byte) => Value::Illegal,
            (ILLEGAL, Illegal::Bits(b)) if b.get(i) => Value::Illegal,
            (b, _) => Value::from_packed(b),
        }
    }
}

impl<P: Passes> Records for Solved<P> {
    fn slots(&self) -> u64 {
        self.value.len() as u64
    }

    fn value(&self, i: Index) -> Value {
        self.value_of(i as usize)
    }

    /// The best move is the first move, in the game's move order, achieving the value:
    /// the same bytes whatever the thread count or the ranges asked for, and the same as
    /// the two-queue solver's.
    fn fill(&self, first: Index, out: &mut [u8]) {
        let value = |j: Index| self.value_of(j as usize);
        let n = (out.len() / 2) as Index;
        let g = self.passes.group() as Index;
        // The groups overlapping the range, each with the mask of its slots in it that
        // have a move to find (terminal losses have none, illegal slots no record).
        let mut start = first / g * g;
        while start < first + n {
            let mut mask = 0u64;
            for b in 0..g {
                let i = start + b;
                if i < first || i >= first + n {
                    continue;
                }
                let v = value(i);
                let k = (i - first) as usize;
                out[2 * k] = v.to_byte();
                out[2 * k + 1] = NO_MOVE;
                if !matches!(v, Value::Illegal | Value::Loss(0)) {
                    mask |= 1 << b;
                }
            }
            if mask != 0 {
                self.passes.group_first_moves(start, mask, value, |b, mv| {
                    out[2 * (start + b - first) as usize + 1] = mv;
                });
            }
            start += g;
        }
    }
}

/// Solve: the value of every slot, its record made when it is read.
pub fn solve<P: Passes>(passes: P, opts: &SolveOptions) -> Result<Solved<P>, SolveError> {
    let n = passes.slots() as usize;
    let progress = opts.progress;
    let group = passes.group();
    assert!((1..=64).contains(&group), "a group holds 1 to 64 slots");
    let chunk = (CHUNK / group).max(1) * group;
    let mut st = State {
        passes: &passes,
        value: Bytes::filled(n, UNKNOWN).map_err(|source| SolveError::Memory {
            bytes: n as u64,
            source,
        })?,
        keep: if passes.deepest_exit() < WIDE_DEPTH {
            None
        } else {
            Some(Bits::new(n)?)
        },
        cand: Bits::new(n)?,
        fin: Bits::new(n)?,
        group,
        chunk,
        present: (0..n.div_ceil(chunk))
            .map(|_| std::array::from_fn(|_| AtomicU64::new(0)))
            .collect(),
        ahead: AtomicU16::new(0),
        too_deep: AtomicU16::new(u16::MAX),
        by_to: Vec::new(),
        by_from: Vec::new(),
    };

    progress.phase("initial positions", n as u64);
    let links: Vec<Result<Vec<Link>, SolveError>> = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let (lo, hi) = (c * chunk, ((c + 1) * chunk).min(n));
            let mut links = Vec::new();
            // The chunk is whole groups (its end aside, where `slots` may end a group).
            for first in (lo..hi).step_by(group) {
                st.passes
                    .group_start(first as Index, &mut links, |b, start| {
                        let i = first + b as usize;
                        match start {
                            Start::Illegal => {
                                st.fin.set(i);
                                st.value.set(i, ILLEGAL);
                            }
                            Start::Final(v @ (Value::Win(d) | Value::Loss(d))) => {
                                st.store(i as Index, UNKNOWN, v);
                                st.note_ahead(d);
                            }
                            Start::Final(_) => st.set_keep(i),
                            Start::Open { win, keep } => match win {
                                Some(w) => {
                                    st.try_win(i as Index, w, true);
                                }
                                None if keep => st.set_keep(i),
                                None => {}
                            },
                        }
                    })?;
            }
            progress.advance((hi - lo) as u64);
            Ok(links)
        })
        .collect();
    for l in links {
        st.by_to.extend(l?);
    }
    st.by_to.sort_unstable_by_key(|l| (l.to, l.from));
    st.by_from = st.by_to.clone();
    st.by_from.sort_unstable_by_key(|l| (l.from, l.to));
    // Links whose extra moves win for the opponent, by that depth: their origin is a
    // candidate then, whatever its target does.
    let mut extra_wins: Vec<(u16, Index)> = st
        .by_to
        .iter()
        .filter_map(|l| match l.extra {
            Value::Win(e) => Some((e, l.from)),
            _ => None,
        })
        .collect();
    extra_wins.sort_unstable();
    if let Some(&(e, _)) = extra_wins.last() {
        st.ahead.fetch_max(e, Relaxed);
    }

    progress.phase("retrograde", 0);
    // The largest depth any slot holds: each step d looks for losses at d and wins at
    // d + 1, and stores wins at d + 1 and losses from d + 2 on.
    let mut deepest = 0u16;
    let mut d: u16 = 0;
    loop {
        if d + 1 >= WIDE_DEPTH && st.keep.is_none() {
            st.widen()?;
        }
        let st = &st;
        // Lost at d → won at d + 1. (Bytes count moves: an odd loss, which no record
        // holds, would read as the even one.)
        let won_new = Value::Loss(d).fits()
            && st.each_holding(Value::Loss(d).packed(), |first, mut mask| {
                if d == 0 {
                    // Not checkmates: illegal slots.
                    mask &= !st.fin.mask(first as usize);
                }
                let mut any = false;
                if mask != 0 {
                    st.passes.group_predecessors(first, mask, |q, m| {
                        let mut won = 0;
                        for b in bits(m & !st.fin.mask(q as usize)) {
                            if st.try_win(q + b, d + 1, false) {
                                won |= 1 << b;
                            }
                        }
                        // Nothing is won sooner than d + 1 from now on.
                        if won != 0 {
                            any = true;
                            st.fin.set_mask(q as usize, won);
                        }
                    });
                }
                for q in bits(mask).map(|b| first + b) {
                    for l in st.links_to(q) {
                        // Won once the extra moves lose too, at the later depth.
                        if let Value::Loss(e) = l.extra {
                            let w = d.max(e) + 1;
                            any |= st.try_win(l.from, w, w > d + 1);
                        }
                    }
                }
                any
            });
        // Won at d + 1 → candidates → lost.
        let w = d + 1;
        let won = Value::Win(w).packed();
        if Value::Win(w).fits() {
            st.each_holding(won, |first, mask| {
                // Wins stored ahead (through moves out of the table) are settled now.
                st.fin.set_mask(first as usize, mask);
                st.passes
                    .group_predecessors(first, mask, |q, m| st.propose_mask(q, m));
                for q in bits(mask).map(|b| first + b) {
                    for l in st.links_to(q) {
                        st.propose(l.from);
                    }
                }
                true
            });
        }
        let lo = extra_wins.partition_point(|x| x.0 < w);
        let hi = extra_wins.partition_point(|x| x.0 <= w);
        for &(_, p) in &extra_wins[lo..hi] {
            st.propose(p);
        }
        let g = st.group;
        let any_lost = (0..n.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut any = false;
                let (lo, hi) = (c * chunk, ((c + 1) * chunk).min(n));
                // Single slots are taken 64 at a time (the chunk is a multiple of 64).
                let step = if g == 1 { 64 } else { g };
                let all = if step == 64 { !0 } else { (1u64 << step) - 1 };
                for first in (lo..hi).step_by(step) {
                    let m = st.cand.take_mask(first, all);
                    if m == 0 {
                        continue;
                    }
                    if g == 1 {
                        for b in bits(m) {
                            any |= st.check_group(first as Index + b, 1, w);
                        }
                    } else {
                        any |= st.check_group(first as Index, m, w);
                    }
                }
                any
            })
            .reduce(|| false, |a, b| a || b);
        progress.advance(1);
        let deep = st.too_deep.load(Relaxed);
        if deep != u16::MAX {
            return Err(SolveError::TooDeep(deep));
        }
        if won_new {
            deepest = deepest.max(d + 1);
        }
        if any_lost {
            deepest = deepest.max(d + 2);
        }
        deepest = deepest.max(st.ahead.load(Relaxed));
        if d >= deepest {
            break;
        }
        d += 1;
    }

    // Illegal slots hold the checkmates' byte, settled: once the solver's candidates are
    // freed, they take the never-lost byte, free once those marks are draws again, or
    // else the settled bits of the slots holding that byte become the illegal ones.
    let wide = st.keep.is_some();
    let State {
        value,
        keep,
        cand,
        fin,
        ..
    } = st;
    drop((cand, keep));
    progress.phase("illegal positions", n as u64);
    (0..n.div_ceil(64)).into_par_iter().for_each(|k| {
        let first = k * 64;
        let len = 64.min(n - first);
        let illegal = value.holding(first, len, ILLEGAL) & fin.mask(first);
        if wide {
            fin.0[k].store(illegal, Relaxed);
            return;
        }
        for b in bits(value.holding(first, len, KEEP)) {
            value.set(first + b as usize, UNKNOWN);
        }
        for b in bits(illegal) {
            value.set(first + b as usize, KEEP);
        }
    });
    let illegal = if wide {
        Illegal::Bits(fin)
    } else {
        Illegal::Byte
    };
    Ok(Solved {
        passes,
        value,
        illegal,
    })
}

/// How a legal, non-terminal slot `i` starts, from whether it has a move inside the table
/// and where its other moves lead (`exits`: [`Outcome::Known`] and
/// [`Outcome::Augmented`], which go to `links`).
pub fn start_from(
    i: Index,
    inside: bool,
    exits: &[Outcome],
    links: &mut Vec<Link>,
) -> Result<Start, SolveError> {
    let (mut win, mut keep, mut slowest) = (None::<u16>, false, None::<u16>);
    let before = links.len();
    for &to in exits {
        match to {
            Outcome::Index(_) => {}
            Outcome::Augmented { index, extra } => links.push(Link {
                to: index,
                from: i,
                extra,
            }),
            Outcome::Known(Value::Loss(l)) => win = Some(win.map_or(l + 1, |w| w.min(l + 1))),
            Outcome::Known(Value::Win(w)) => slowest = slowest.max(Some(w)),
            Outcome::Known(_) => keep = true,
            Outcome::Restart { .. } => {
                return Err(SolveError::Game(format!(
                "position {i} has a move that restarts the count: that needs the restarting solver"
            )))
            }
        }
    }
    if !inside && links.len() == before {
        // Every move leaves the table (or there is none: a draw).
        return Ok(Start::Final(match (win, keep, slowest) {
            (Some(w), _, _) => Value::Win(w),
            (None, false, Some(s)) => Value::Loss(s + 1),
            _ => Value::Draw,
        }));
    }
    Ok(Start::Open { win, keep })
}

/// [`Passes`] for any [`Game`], from its positions, moves and un-moves.
pub struct GamePasses<'g, G>(pub &'g G);

impl<G: Game> Passes for GamePasses<'_, G> {
    fn slots(&self) -> u64 {
        self.0.size()
    }

    fn start(&self, i: Index, links: &mut Vec<Link>) -> Result<Start, SolveError> {
        let Some(pos) = self.0.decode(i) else {
            return Ok(Start::Illegal);
        };
        if let Some(v) = self.0.terminal(&pos) {
            return Ok(Start::Final(v));
        }
        let mut succ = Vec::new();
        let inside = self.0.count_successors(&pos, &mut succ);
        let exits: Vec<Outcome> = succ.iter().map(|s| s.to).collect();
        start_from(i, inside > 0, &exits, links)
    }

    fn legal(&self, i: Index) -> bool {
        self.0.decode(i).is_some()
    }

    fn predecessors(&self, i: Index, mut f: impl FnMut(Index)) {
        let pos = self.0.decode(i).expect("solved slots decode");
        let mut preds = Vec::new();
        self.0.predecessors(&pos, &mut preds);
        preds.into_iter().for_each(&mut f);
    }

    fn targets(&self, i: Index, mut ok: impl FnMut(Index) -> bool) -> bool {
        let pos = self.0.decode(i).expect("candidates decode");
        let mut succ = Vec::new();
        self.0.successors(&pos, &mut succ);
        succ.iter().all(|s| match s.to {
            Outcome::Index(q) => ok(q),
            _ => true,
        })
    }

    fn first_move(&self, i: Index, wanted: impl Fn(Outcome) -> bool) -> u8 {
        let pos = self.0.decode(i).expect("legal slots decode");
        self.0.first_successor(&pos, &wanted)
    }

    fn slowest_exit(&self, i: Index) -> u16 {
        let pos = self.0.decode(i).expect("lost slots decode");
        let mut succ = Vec::new();
        self.0.successors(&pos, &mut succ);
        succ.iter()
            .filter_map(|s| match s.to {
                Outcome::Known(Value::Win(w)) => Some(w),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }
}

/// Check a game's own [`Passes`] against [`GamePasses`] of the same game on slot `i`: the
/// same start, un-moves, moves (the check accepts exactly what the moves allow), slowest
/// exit and first moves. Returns a description of the first difference. The engine's
/// self-test for a game's fast passes, as `selftest` is for its moves.
pub fn check_passes<R: Passes, P: Passes>(reference: &R, fast: &P, i: Index) -> Result<(), String> {
    let legal = reference.legal(i);
    if fast.legal(i) != legal {
        return Err(format!(
            "slot {i}: legal is {legal} by the moves, not by the passes"
        ));
    }
    if !legal {
        return Ok(());
    }
    let (mut la, mut lb) = (Vec::new(), Vec::new());
    let (sa, sb) = (reference.start(i, &mut la), fast.start(i, &mut lb));
    // A slot whose moves all leave the table may start open rather than final with the
    // same win through a move out, or with its draw kept: nothing inside the table then
    // changes it. A stalemate may start open: no move, so nobody's predecessor.
    let inside = !reference.targets(i, |_| false);
    let agree = match (&sa, &sb) {
        (Ok(Start::Final(Value::Win(w))), Ok(Start::Open { win, .. })) => *win == Some(*w),
        (Ok(Start::Final(Value::Draw)), Ok(Start::Open { win: None, keep })) => {
            *keep || (!inside && la.is_empty())
        }
        (a, b) => format!("{a:?}") == format!("{b:?}"),
    };
    let (sa, sb) = (format!("{sa:?} {la:?}"), format!("{sb:?} {lb:?}"));
    if !agree || la != lb {
        return Err(format!(
            "slot {i}: starts as {sa} by the moves, {sb} by the passes"
        ));
    }
    let set = |f: &dyn Fn(&mut Vec<Index>)| {
        let mut v = Vec::new();
        f(&mut v);
        v.sort_unstable();
        v.dedup();
        v
    };
    // The fast passes may name illegal slots besides (see [`Passes::predecessors`]).
    let pa = set(&|v| reference.predecessors(i, |p| v.push(p)));
    let pb = set(&|v| {
        fast.predecessors(i, |p| {
            if reference.legal(p) {
                v.push(p)
            }
        })
    });
    if pa != pb {
        return Err(format!(
            "slot {i}: predecessors {pa:?} by the moves, {pb:?} by the passes"
        ));
    }
    let ta = set(&|v| {
        reference.targets(i, |q| {
            v.push(q);
            true
        });
    });
    // Illegal slots the fast passes may name besides are accepted, as the solver does.
    let known = |x: Index| ta.binary_search(&x).is_ok() || !reference.legal(x);
    if !fast.targets(i, known) {
        return Err(format!("slot {i}: the passes refuse the targets {ta:?}"));
    }
    if fast.targets(i, |x| !reference.legal(x)) != ta.is_empty() {
        return Err(format!(
            "slot {i}: the passes' check ignores the targets {ta:?}"
        ));
    }
    for &q in &ta {
        if fast.targets(i, |x| x != q && known(x)) {
            return Err(format!(
                "slot {i}: the passes' check passes without target {q}"
            ));
        }
    }
    let (ea, eb) = (reference.slowest_exit(i), fast.slowest_exit(i));
    if ea != eb {
        return Err(format!(
            "slot {i}: slowest exit {ea} by the moves, {eb} by the passes"
        ));
    }
    let wanted: [&dyn Fn(Outcome) -> bool; 4] = [
        &|_| true,
        &|o| matches!(o, Outcome::Index(q) if q % 3 == 0),
        &|o| matches!(o, Outcome::Index(q) if ta.last() == Some(&q)),
        &|o| !matches!(o, Outcome::Index(_)),
    ];
    for (k, w) in wanted.iter().enumerate() {
        let (ma, mb) = (reference.first_move(i, w), fast.first_move(i, w));
        if ma != mb {
            return Err(format!(
                "slot {i}: first move {k} is {ma} by the moves, {mb} by the passes"
            ));
        }
    }
    Ok(())
}

/// Check a game's group passes ([`Passes::group_predecessors`], [`Passes::group_refuted`])
/// against its slot passes on the slots `mask` of the group at `first`: the same
/// predecessors among the legal slots (as `legal` says), and the same slots refuted
/// whatever `ok` accepts (here: the legal targets `accept` holds, and every illegal slot).
/// Returns a description of the first difference.
pub fn check_group_passes<P: Passes>(
    p: &P,
    first: Index,
    mask: u64,
    legal: impl Fn(Index) -> bool,
    accept: impl Fn(Index) -> bool,
) -> Result<(), String> {
    // Every slot of the group starts as it does alone.
    let mut group_links = Vec::new();
    let mut starts = Vec::new();
    p.group_start(first, &mut group_links, |b, s| starts.push((b, s)))
        .map_err(|e| format!("group {first}: {e}"))?;
    let mut slot_links = Vec::new();
    for (b, got) in starts {
        let want = p
            .start(first + b, &mut slot_links)
            .map_err(|e| format!("slot {}: {e}", first + b))?;
        if got != want {
            return Err(format!(
                "slot {}: starts {got:?} in its group, {want:?} alone",
                first + b
            ));
        }
    }
    if group_links != slot_links {
        return Err(format!(
            "group {first}: links {group_links:?} in the group, {slot_links:?} slot by slot"
        ));
    }
    let mut want = Vec::new();
    for b in bits(mask) {
        p.predecessors(first + b, |q| {
            if legal(q) {
                want.push(q)
            }
        });
    }
    want.sort_unstable();
    want.dedup();
    let mut got = Vec::new();
    p.group_predecessors(first, mask, |q, m| {
        got.extend(bits(m).map(|b| q + b).filter(|&x| legal(x)))
    });
    got.sort_unstable();
    got.dedup();
    if want != got {
        let missing: Vec<_> = want.iter().filter(|x| !got.contains(x)).collect();
        let extra: Vec<_> = got.iter().filter(|x| !want.contains(x)).collect();
        return Err(format!(
            "group {first} mask {mask:#x}: predecessors missing {missing:?}, extra {extra:?}"
        ));
    }
    let ok = |x: Index| !legal(x) || accept(x);
    let mut want = 0u64;
    for b in bits(mask) {
        if !p.targets(first + b, ok) {
            want |= 1 << b;
        }
    }
    let got = p.group_refuted(first, mask, |q, m| {
        bits(m).filter(|&b| ok(q + b)).fold(0, |a, b| a | 1 << b)
    });
    if want != got {
        return Err(format!(
            "group {first} mask {mask:#x}: refuted {got:#x} by the group, {want:#x} slot by slot"
        ));
    }
    Ok(())
}
