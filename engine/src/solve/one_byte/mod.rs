//! The retrograde solver in one byte a slot: values only, no move counters, no queues.
//!
//! The two-queue solver ([`super::two_queue`]) keeps a counter per slot and lists of slot
//! numbers per depth: several bytes a slot. This one keeps the value byte
//! ([`Value::packed`]) and a bit a slot, and finds its work by scanning the values, as
//! Syzygy's generator does:
//!
//! 1. **Start.** Every slot is classified once ([`Passes::start`]): illegal, final
//!    (terminal, or every move leaves the table), or open. An open slot with a move out of
//!    the table to a loss for the opponent holds that win at once, as a *tentative* value
//!    that a quicker win replaces; one with a move out to a draw is marked *never lost*.
//! 2. **Depth d, lost → won.** Every slot holding a loss at d is found (see *Scans*
//!    below); its predecessors that are unknown, or hold a slower tentative win, are won
//!    at d + 1.
//! 3. **Won → lost.** Every slot holding a win at d + 1 marks its unknown predecessors as
//!    candidates (in their byte: see below). Each candidate is then checked forward
//!    ([`Passes::targets`]): if every move inside the table leads to a win at most d + 1,
//!    it is lost at one ply more than its slowest move, moves out of the table included
//!    ([`Passes::slowest_exit`]). That may be beyond d + 2 (a slow capture into a won
//!    sub-table): the loss is then stored early, exact already, and scanned at its depth.
//! 4. What is never reached is a draw.
//!
//! **Scans.** The slots holding the value of a depth are found without reading every
//! byte: the pass that stores a depth's values notes their groups (a bit a group: step 2
//! its wins, step 3 the losses one ply after the wins checked), and each chunk of slots
//! notes which bytes it took apart from those passes (a tentative win from the start, a
//! link's win, a loss from the start or stored early: 256 bits a chunk), and each group
//! which bands of depths (eight bits a group). A scan reads the noted groups and, in the
//! chunks that took its byte apart, the groups with its band. The candidates' scan
//! likewise reads only the groups where some slot was proposed.
//!
//! **What a slot holds.** Besides its value byte, a *settled* bit: the value can no longer
//! change (illegal, won no later than the depth solved, or lost and scanned at its
//! depth). Most predecessors of a lost position are settled already, and the forward
//! checks accept exactly the settled targets (no candidate has a move into a loss already
//! scanned); the bit, eight times denser than the values, spares reading theirs. Illegal
//! slots hold the checkmates' byte and are told from them by that bit: a move into an
//! illegal slot is not legal, so the passes need not test legality
//! (chess: a move leaving the mover's king attacked reaches a slot where the side to move
//! could take it). A never-lost slot holds the byte of a win in 253 plies, a value no slot
//! can have until the solve gets that deep ([`Passes::deepest_exit`]); before then these
//! marks move to a bit array of their own. Where the game can tell the slots with no move
//! at all ([`Passes::group_movable`]: chess), a proposal notes only its group, and the
//! check takes every unknown slot of the group, in order: a proposed slot is settled on
//! its own, a slot that was not cannot pass (its slowest move would have proposed it at
//! that move's depth, and it would be lost since), a slot with no move aside. Elsewhere a
//! candidate holds the byte of a loss in 254 plies from its proposal to its check (with
//! plies, a byte of its own), and only a table that deep keeps its candidates in bits, in
//! its last depths: a bit a slot less, an eighth of the solve's memory.
//!
//! **Groups.** The passes work on groups of slots ([`Passes::group`]; chess: every piece
//! but the last standing still), the solver handing them a mask of the slots concerned:
//! what a group's slots share is worked out once, and their records lie together.
//!
//! Moves of kind [`Outcome::Augmented`](crate::game::Outcome::Augmented) (chess: a double
//! step allowing en passant) are few: they are kept in a side list and settled as the
//! two-queue solver settles them (won for the mover once the target and the extra moves are
//! both lost, at the later depth; won for the opponent once either is won, at the earlier).
//!
//! Every value is the same as the two-queue solver's, so the table written is the same:
//! the best moves are found as the records are written ([`Solved`]).
//! Updates are compare-and-swaps towards the quickest win, so the bytes do not depend on
//! the thread count.
//!
//! **Distance to zeroing** ([`Passes::metric`]: [`Metric::Dtz`](crate::table::Metric)): a
//! move out of the table counts 1 or 101 plies whoever makes it, so wins and losses have
//! either parity: the bytes hold plies (`packing.rs`), and the few values past 126 plies
//! (losses past 125) are kept apart (`deep.rs`). Moves that restart the count inside the
//! table (chess: pawn moves) lead to higher tiers ([`Passes::tiers`]), solved first: the
//! solve runs tier by tier, a bit a slot marking the current one, and such a move is a move
//! out of the tier, its value read where its tier left it. The records are DTZ codes with
//! no best move.
//!
//! A game can give its own [`Passes`] (chess works on squares and index arithmetic, not on
//! positions); [`GamePasses`] gives them for any [`Game`](crate::game::Game) from its
//! moves and un-moves.

mod check;
mod deep;
mod links;
mod packing;
mod passes;
mod solved;
mod state;

use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use rayon::prelude::*;

use super::bytes::Bytes;
use super::huge::HugeArray;
use super::SolveError;
use crate::game::{Index, SolveOptions, Value, MAX_LOSS_PLIES};
use crate::huge::GrowingMap;
use links::{pack, Links};
use packing::Packing;
use solved::Illegal;
use state::{Bits, State};

pub use super::bytes::{equal_bytes, spread, zero_bytes};
pub use check::{check_group_passes, check_passes};
pub use passes::{bits, first_slots, start_from, GamePasses, Link, Own, Passes, Start, Values};
pub use solved::Solved;

/// The first and the last slot of the mask `m` (not 0) of slots `first + b`.
fn mask_span(first: Index, m: u64) -> std::ops::RangeInclusive<Index> {
    first + m.trailing_zeros() as Index..=first + 63 - m.leading_zeros() as Index
}

/// Marks a slot not yet solved. Every byte is a value, so the draw byte serves: what is
/// never reached ends a draw, and terminal draws are nobody's predecessor (they have no
/// moves), so no pass ever looks at them.
const UNKNOWN: u8 = 1;

/// Marks an illegal slot: the byte of a checkmate ([`Value::packed`] of `Loss(0)`), told
/// apart by its settled bit, which a checkmate never has. An illegal slot is then neither
/// unknown nor a win, so no pass changes it, and a move into it is not legal, which a
/// forward check ignores. A checkmate as the target of a forward check is ignored too,
/// rightly: a slot with a move to a checkmate is won in one ply before any check runs,
/// so it is never a candidate.
const ILLEGAL: u8 = 0;

/// Marks an unknown slot that is never lost (a move out of the table holds the draw),
/// while no slot can hold the value of this byte, a win in 253 plies ([`Packing::keep_depth`],
/// [`Passes::deepest_exit`]; where values are kept in plies, it has none): such a slot is
/// improved like a slow win, and is never a candidate. Before the solve gets that deep,
/// these marks move to a bit array.
const KEEP: u8 = 128;

/// About how many slots make a parallel work item ([`State::chunk`]: whole groups).
const CHUNK: usize = 1 << 14;

/// Solve: the value of every slot, its record made when it is read.
pub fn solve<P: Passes>(passes: P, opts: &SolveOptions) -> Result<Solved<P>, SolveError> {
    let n = passes.slots() as usize;
    let progress = opts.progress;
    let group = passes.group();
    assert!((1..=64).contains(&group), "a group holds 1 to 64 slots");
    let chunk = (CHUNK / group).max(1) * group;
    // Candidates are taken a group at a time, single slots 64 at a time (a chunk is a
    // multiple of 64 then).
    let cand_step = if group == 1 { 64 } else { group };
    // Groups a byte of `apart_groups` covers: as many as fit in 64 slots, a power of two.
    let band_shift = (64 / group).max(1).ilog2();
    // A byte per 2^band_shift groups ([`State::apart_groups`], [`State::exit_bound`]).
    let group_bytes = || {
        let len = n.div_ceil(group << band_shift);
        HugeArray::zeroed(len).map_err(|source| SolveError::Memory {
            bytes: len as u64,
            source,
        })
    };
    let packing = Packing::of(passes.metric());
    // Candidates by whole groups ([`State::whole_groups`]) where the game tells the slots
    // with no move.
    let whole_groups = group > 1 && passes.group_movable(0, 0).is_some();
    let mut st = State {
        passes: &passes,
        packing,
        deep: deep::Deep::new(),
        value: Bytes::filled(n, UNKNOWN).map_err(|source| SolveError::Memory {
            bytes: n as u64,
            source,
        })?,
        keep: if passes.deepest_exit() < packing.keep_depth() {
            None
        } else {
            Some(Bits::new(n)?)
        },
        // Candidates in bits from the start where a move out of the table may already
        // lose in the candidates' byte's plies.
        cand: if whole_groups || passes.deepest_exit().saturating_add(1) < packing.cand_depth() {
            None
        } else {
            Some(Bits::new(n)?)
        },
        cand_byte: packing.cand_byte(),
        proposed: Bits::new(n.div_ceil(cand_step))?,
        cand_step,
        whole_groups,
        won_groups: Bits::new(n.div_ceil(group))?,
        lost_groups: [Bits::new(n.div_ceil(group))?, Bits::new(n.div_ceil(group))?],
        fin: Bits::new(n)?,
        tier: None,
        group,
        chunk,
        apart: (0..n.div_ceil(chunk))
            .map(|_| std::array::from_fn(|_| AtomicU64::new(0)))
            .collect(),
        apart_groups: group_bytes()?,
        exit_bound: group_bytes()?,
        band_shift,
        // Eight bands up to the deepest move out (past a record's range: all in one).
        band_plies: (passes.deepest_exit().min(MAX_LOSS_PLIES) + 2).div_ceil(8),
        ahead: AtomicU16::new(0),
        too_deep: AtomicU16::new(u16::MAX),
        deepest_exit: passes.deepest_exit(),
        links: Links::none()?,
    };
    let tiers = passes.tiers();
    if tiers <= 1 {
        solve_tier(&mut st, n, "", opts)?;
    } else {
        for t in (0..tiers).rev() {
            // This tier's slots, as bits; the earlier tiers' values are final. (The last
            // tier's bits go first: two at once were the solve's peak.)
            st.tier = None;
            let cur = Bits::new(n)?;
            let any = (0..n.div_ceil(chunk))
                .into_par_iter()
                .map(|c| {
                    let (lo, hi) = (c * chunk, ((c + 1) * chunk).min(n));
                    let mut any = false;
                    for first in (lo..hi).step_by(group) {
                        let len = group.min(n - first);
                        let m = passes.group_tier(first as Index, len, t);
                        if m != 0 {
                            cur.set_mask(first, m);
                            any = true;
                        }
                    }
                    any
                })
                .reduce(|| false, |a, b| a || b);
            if !any {
                continue;
            }
            st.tier = Some(cur);
            st.clear_apart();
            st.ahead.store(0, Relaxed);
            solve_tier(&mut st, n, &format!("tier {t}: "), opts)?;
            if st.keep.is_none() {
                // The never-lost marks become draws, which the lower tiers read.
                let cur = st.tier.as_ref().expect("a tier");
                (0..n.div_ceil(64)).into_par_iter().for_each(|k| {
                    let first = k * 64;
                    let m = st.value.holding(first, 64.min(n - first), KEEP) & cur.mask(first);
                    for b in bits(m) {
                        st.value.set(first + b as usize, UNKNOWN);
                    }
                });
            }
        }
        st.tier = None;
    }

    // Illegal slots hold the checkmates' byte, settled: once the solver's candidates are
    // freed, they take the never-lost byte, free once those marks are draws again, or
    // else the settled bits of the slots holding that byte become the illegal ones.
    let wide = st.keep.is_some();
    let State {
        value,
        deep,
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
        value.set_where(first, value.holding(first, len, KEEP), UNKNOWN);
        value.set_where(first, illegal, KEEP);
    });
    let illegal = if wide {
        Illegal::Bits(fin)
    } else {
        Illegal::Byte
    };
    Ok(Solved {
        passes,
        value,
        deep,
        packing,
        illegal,
    })
}

/// Solve the slots of the current tier ([`State::tier`]; all slots without tiers): their
/// start, then depth by depth until no value changes. `tier` names it in the phases.
fn solve_tier<P: Passes>(
    st: &mut State<'_, P>,
    n: usize,
    tier: &str,
    opts: &SolveOptions,
) -> Result<(), SolveError> {
    let progress = opts.progress;
    let (chunk, packing, group) = (st.chunk, st.packing, st.group);
    progress.phase(&format!("{tier}initial positions"), n as u64);
    // The last tier's links go first: they are no use to this one.
    st.links = Links::none()?;
    let gathered = Mutex::new(GrowingMap::new().map_err(links::memory)?);
    (0..n.div_ceil(chunk))
        .into_par_iter()
        // A job a chunk: chunks differ widely in cost (the captures of some read
        // compressed sub-tables' blocks not yet decoded), and a worker that took a run of
        // costly chunks as one job was left to finish it alone, the other core idle for
        // seconds (KRPvKR over compressed sub-tables: 7 s of a 16 s start).
        .with_max_len(1)
        .try_for_each(|c| {
            let (lo, hi) = (c * chunk, ((c + 1) * chunk).min(n));
            // A group's links as the game gives them, then packed (most chunks have none).
            let (mut links, mut packed) = (Vec::new(), Vec::new());
            let own = &|q: Index| st.own(q);
            // The chunk is whole groups (its end aside, where `slots` may end a group).
            for first in (lo..hi).step_by(group) {
                let len = group.min(n - first);
                let mask = st.in_tier(first as Index, first_slots(len));
                if mask == 0 {
                    continue;
                }
                // The group's illegal slots, marked together once it is done, and the
                // slowest move out of those that may yet be lost.
                let (mut illegal, mut slowest_exit) = (0u64, 0u16);
                st.passes
                    .group_start(first as Index, mask, own, &mut links, |b, start| {
                        let i = first + b as usize;
                        match start {
                            Start::Illegal => illegal |= 1 << b,
                            Start::Final(v @ (Value::Win(d) | Value::Loss(d))) => {
                                if st.store(i as Index, UNKNOWN, v) {
                                    st.note_apart(i as Index, v);
                                }
                                st.note_ahead(d);
                            }
                            Start::Final(_) => st.set_keep(i),
                            Start::Open { win, keep, slowest } => match win {
                                Some(w) => {
                                    st.try_win(i as Index, w, true);
                                }
                                None if keep => st.set_keep(i),
                                None => slowest_exit = slowest_exit.max(slowest),
                            },
                        }
                    })?;
                if slowest_exit > 0 {
                    st.note_exit_bound(first as Index, slowest_exit);
                }
                if illegal != 0 {
                    st.fin.set_mask(first, illegal);
                    // A word at a time (the chunk next door may share the last word).
                    st.value.set_where_shared(first, illegal, ILLEGAL);
                }
                for l in links.drain(..) {
                    packed.push(pack(&l)?);
                }
            }
            if !packed.is_empty() {
                let mut g = gathered.lock().unwrap_or_else(|e| e.into_inner());
                g.extend(packed.as_flattened()).map_err(links::memory)?;
            }
            progress.advance((hi - lo) as u64);
            Ok(())
        })?;
    st.links = Links::new(gathered.into_inner().unwrap_or_else(|e| e.into_inner()))?;
    if let Some(e) = st.links.deepest_extra_win() {
        st.ahead.fetch_max(e, Relaxed);
    }

    progress.phase(&format!("{tier}retrograde"), 0);
    // The largest depth any slot holds: each step d looks for losses at d and wins at
    // d + 1, and stores wins at d + 1 and losses from d + 2 on.
    let mut deepest = 0u16;
    let mut d: u16 = 0;
    loop {
        if d + 1 >= packing.keep_depth() && st.keep.is_none() {
            st.widen()?;
        }
        // This step stores losses from d + 2 plies on.
        if d + 2 >= packing.cand_depth() {
            st.widen_cand()?;
        }
        let st = &*st;
        // The wins at d + 1 have a byte: the groups this depth wins are noted, and the
        // scan for those wins reads them alone, with the chunks holding such a win stored
        // apart (the slots kept apart are all read).
        let noted = packing.fits(Value::Win(d + 1));
        // Lost at d → won at d + 1. (Where bytes count moves, an odd loss, which no record
        // holds, would read as the even one.)
        let won_new = st.each_at(
            Value::Loss(d),
            &st.lost_groups[d as usize % 2],
            |first, mut mask| {
                if d == 0 {
                    // Not checkmates: illegal slots.
                    mask &= !st.fin.mask(first as usize);
                } else {
                    // Settled from now on ([`State::fin`]; a checkmate never is).
                    st.fin.set_mask(first as usize, mask);
                }
                let mut any = false;
                if mask != 0 {
                    st.predecessors(first, mask, true, |q, m| {
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
                            if noted {
                                st.note_groups(&st.won_groups, q, won);
                            }
                        }
                    });
                }
                for l in st.links.to_slots(first, mask) {
                    // Won once the extra moves lose too, at the later depth.
                    if let Value::Loss(e) = l.extra {
                        let w = d.max(e) + 1;
                        if st.try_win(l.from, w, w > d + 1) {
                            any = true;
                            st.note_apart(l.from, Value::Win(w));
                        }
                    }
                }
                any
            },
        );
        // Won at d + 1 → candidates → lost: the slots holding that win are read in the
        // groups won above and in the chunks holding one stored apart, not everywhere.
        let w = d + 1;
        {
            st.each_at(Value::Win(w), &st.won_groups, |first, mask| {
                // Wins stored ahead (through moves out of the table) are settled now.
                st.fin.set_mask(first as usize, mask);
                // A proposal reads value bytes only where candidates are marked in them.
                let reads = !st.whole_groups && st.cand.is_none();
                st.predecessors(first, mask, reads, |q, m| st.propose_mask(q, m));
                for l in st.links.to_slots(first, mask) {
                    st.propose(l.from);
                }
                true
            });
        }
        for p in st.links.extra_wins(w) {
            st.propose(p);
        }
        let g = st.group;
        let any_lost = (0..n.div_ceil(chunk))
            .into_par_iter()
            .map(|c| {
                let mut any = false;
                let (lo, hi) = (c * chunk, ((c + 1) * chunk).min(n));
                st.take_proposed(lo, hi, |first| {
                    let m = st.take_candidates(first, st.cand_step.min(n - first));
                    if g == 1 {
                        for b in bits(m) {
                            any |= st.check_group(first as Index + b, 1, w);
                        }
                    } else if m != 0 {
                        any |= st.check_group(first as Index, m, w);
                    }
                });
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
    Ok(())
}
