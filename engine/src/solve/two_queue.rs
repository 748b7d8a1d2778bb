//! The generic two-queue retrograde solver: the seed's black and white queues generalised to
//! "lost for the side to move at depth d" and "won at depth d + 1".
//!
//! 1. Every legal position gets a counter: the number of distinct positions its moves lead
//!    to. Terminal losses form the lost queue at depth 0.
//! 2. From each position lost at depth d, un-moves reach predecessors, which are won at
//!    d + 1 (the first time only).
//! 3. From each position won at d + 1, un-moves reach predecessors whose counter drops by
//!    one; at zero every move leads to a win for the opponent, so the position is lost at
//!    d + 2 (unless it has a move leaving the table to a draw).
//! 4. Whatever is never reached is a draw.
//!
//! A move of kind [`Outcome::Augmented`] (chess: a double step allowing en passant) is not
//! listed among the un-moves of its target; the solver keeps such moves in a side list,
//! sorted by target, and settles them when the target is settled: the move wins for the
//! mover once the target and the extra moves are both lost (at the later of the two
//! depths), and counts as a won move for the opponent once either is won (at the earlier).
//!
//! Each queue is processed in parallel with atomic updates; values do not depend on the
//! order. Best moves are chosen afterwards, as the records are read ([`Solved`]: written
//! to the file a range at a time, or all into memory by [`solve`]), as the first move (in
//! the game's move order) achieving the value, so the bytes are the same whatever the
//! thread count.

use std::sync::atomic::{AtomicU8, Ordering::Relaxed};

use bitvec::prelude::*;
use rayon::prelude::*;

use super::ascending::Ascending;
use super::huge::HugeArray;
use super::SolveError;
use crate::game::{
    Game, Index, Outcome, Records, Solution, SolveOptions, Value, MAX_LOSS_PLIES, MAX_WIN_PLIES,
    NO_MOVE,
};

/// Marks a slot not yet solved. Every byte is a value ([`enc`]), so the draw byte serves:
/// what is never reached ends a draw anyway, and a terminal draw (a stalemate) has no
/// moves, so it is nobody's predecessor and never changes.
const UNKNOWN: u8 = 1;

/// The solver's byte for a value ([`Value::packed`]). Illegal slots hold 0 too: they are
/// nobody's successor, and pass 1 marks them for the output.
fn enc(v: Value) -> u8 {
    v.packed()
}

/// Inverse of [`enc`] for legal slots.
fn dec(b: u8) -> Value {
    Value::from_packed(b)
}

/// Indices per parallel work item.
const CHUNK: usize = 1 << 12;

/// A slot number in the solver's queues: 4 bytes when the table has fewer than 2^32 slots
/// (every chess table up to 5 pieces: KRPvKR has 805 M), else 8. The queues can hold one
/// entry per slot at once, so their width is most of the solver's memory beyond its two
/// bytes a slot.
trait Slot: Copy + Ord + Send + Sync + std::fmt::Debug + 'static {
    fn at(i: usize) -> Self;
    fn get(self) -> usize;
}

impl Slot for u32 {
    fn at(i: usize) -> u32 {
        debug_assert!(i <= u32::MAX as usize);
        i as u32
    }
    fn get(self) -> usize {
        self as usize
    }
}

impl Slot for u64 {
    fn at(i: usize) -> u64 {
        i as u64
    }
    fn get(self) -> usize {
        self as usize
    }
}

struct State {
    value: HugeArray<AtomicU8>,
    /// Moves not yet known to lose: distinct in-table targets plus every move out of the
    /// table. Only in-table wins and known wins for the opponent ever decrement it, so a
    /// position with a move to a draw or a loss outside the table is never lost.
    count: HugeArray<AtomicU8>,
}

/// Work found by the initial pass, by depth. At most one entry per position in each list.
struct Seeds<S> {
    /// Positions lost at depth d (terminal losses, depth 0).
    lost: Vec<Vec<S>>,
    /// Positions whose quickest move to a known loss for the opponent is at depth d - 1:
    /// won at d.
    won: Vec<Ascending>,
    /// Positions whose moves to known wins for the opponent are all settled by depth d:
    /// those moves count as one, which becomes a won move when depth d is processed. Only
    /// the slowest matters: the position cannot be lost before every move is known to lose,
    /// so one entry per position does what one per move did (a 5-piece pawn table has
    /// hundreds of millions of captures into sub-tables that win for the opponent).
    dec: Vec<Ascending>,
    /// The [`Outcome::Augmented`] moves.
    links: Vec<Link<S>>,
}

impl<S> Default for Seeds<S> {
    fn default() -> Self {
        Seeds {
            lost: Vec::new(),
            won: Vec::new(),
            dec: Vec::new(),
            links: Vec::new(),
        }
    }
}

/// An [`Outcome::Augmented`] move of position `from`.
#[derive(Clone, Copy, Debug)]
struct Link<S> {
    to: S,
    from: S,
    extra: Value,
}

/// The links into `q` (`links` sorted by target).
fn links_to<S: Slot>(links: &[Link<S>], q: S) -> &[Link<S>] {
    let lo = links.partition_point(|l| l.to < q);
    let hi = links.partition_point(|l| l.to <= q);
    &links[lo..hi]
}

fn push_at<S>(v: &mut Vec<Vec<S>>, d: usize, i: S) {
    if v.len() <= d {
        v.resize_with(d + 1, Vec::new);
    }
    v[d].push(i);
}

/// Add `i` to the list of depth `d`; `i` must not be below any number already there.
fn push_ascending(v: &mut Vec<Ascending>, d: usize, i: usize) {
    if v.len() <= d {
        v.resize_with(d + 1, Ascending::default);
    }
    v[d].push(i as u64);
}

fn take<T: Default>(v: &mut [T], d: usize) -> T {
    v.get_mut(d).map(std::mem::take).unwrap_or_default()
}

fn merge<S: Clone>(a: Seeds<S>, b: Seeds<S>) -> Seeds<S> {
    fn cat<S: Clone>(mut x: Vec<Vec<S>>, y: Vec<Vec<S>>) -> Vec<Vec<S>> {
        for (d, v) in y.into_iter().enumerate() {
            if x.len() <= d {
                x.resize(d + 1, Vec::new());
            }
            x[d].extend(v);
        }
        x
    }
    // `b`'s slots all follow `a`'s: chunks are merged in slot order.
    fn cat_ascending(mut x: Vec<Ascending>, y: Vec<Ascending>) -> Vec<Ascending> {
        for (d, v) in y.into_iter().enumerate() {
            if x.len() <= d {
                x.resize_with(d + 1, Ascending::default);
            }
            x[d].append(v);
        }
        x
    }
    Seeds {
        lost: cat(a.lost, b.lost),
        won: cat_ascending(a.won, b.won),
        dec: cat_ascending(a.dec, b.dec),
        // Extend, not concatenate: merges accumulate, and copying the whole list each
        // time would be quadratic in the number of chunks.
        links: {
            let mut l = a.links;
            l.extend(b.links);
            l
        },
    }
}

/// Solve `game` completely, every record in memory.
pub fn solve<G: Game>(game: &G, opts: &SolveOptions) -> Result<Solution, SolveError> {
    let solved = solve_values(game, opts)?;
    opts.progress.phase("best moves", game.size());
    Ok(solved.to_solution(opts.progress))
}

/// Solve `game`'s values; each record, best move included, is made when it is read
/// ([`Records::fill`]), so writing the table streams it without holding two bytes a slot.
pub fn solve_values<'g, G: Game>(
    game: &'g G,
    opts: &SolveOptions,
) -> Result<Solved<'g, G>, SolveError> {
    if game.size() <= u32::MAX as u64 {
        solve_with::<G, u32>(game, opts)
    } else {
        solve_with::<G, u64>(game, opts)
    }
}

/// [`solve`] with 8-byte queue entries whatever the size, for the test that both widths
/// write the same bytes (no table small enough to test has 2^32 slots).
#[cfg(test)]
pub(super) fn solve_wide<G: Game>(game: &G, opts: &SolveOptions) -> Result<Solution, SolveError> {
    Ok(solve_with::<G, u64>(game, opts)?.to_solution(opts.progress))
}

/// The values of a solved game: one byte a slot, and two bits a slot saying which slots
/// are illegal and which records are final without a best move to find.
pub struct Solved<'g, G> {
    game: &'g G,
    value: HugeArray<AtomicU8>,
    settled: BitVec,
    illegal: BitVec,
}

impl<G: Game> Records for Solved<'_, G> {
    fn slots(&self) -> u64 {
        self.value.len() as u64
    }

    fn value(&self, i: Index) -> Value {
        let i = i as usize;
        if self.illegal[i] {
            Value::Illegal
        } else {
            dec(self.value[i].load(Relaxed))
        }
    }

    /// The best move is the first move, in the game's move order, achieving the value: the
    /// same bytes whatever the thread count or the ranges asked for.
    fn fill(&self, first: Index, out: &mut [u8]) {
        let stored = |j: Index| dec(self.value[j as usize].load(Relaxed));
        for (k, rec) in out.chunks_exact_mut(2).enumerate() {
            let i = first as usize + k;
            // Never reached: a draw, which is what `UNKNOWN` already says.
            let value = self.value(i as Index);
            rec[0] = value.to_byte();
            rec[1] = NO_MOVE;
            if self.settled[i] {
                continue;
            }
            let pos = self.game.decode(i as Index).expect("legal slots decode");
            rec[1] = self
                .game
                .first_successor(&pos, &|to| to.value(stored).back() == value);
        }
    }
}

fn solve_with<'g, G: Game, S: Slot>(
    game: &'g G,
    opts: &SolveOptions,
) -> Result<Solved<'g, G>, SolveError> {
    let n = game.size() as usize;
    let progress = opts.progress;
    // Read and written at random: in huge pages where the system gives them.
    let memory = |source| SolveError::Memory {
        bytes: n as u64,
        source,
    };
    let value = HugeArray::filled(n, UNKNOWN).map_err(memory)?;
    let count = HugeArray::zeroed(n).map_err(memory)?;

    // Pass 1: decode everything, find terminal positions, count moves.
    progress.phase("initial positions", n as u64);
    let chunks: Vec<Result<Initial<S>, SolveError>> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let lo = c * CHUNK;
            let hi = (lo + CHUNK).min(n);
            let r = init_chunk(game, lo, hi, &value, &count);
            progress.advance((hi - lo) as u64);
            r
        })
        .collect();
    let mut seeds = Seeds::default();
    // Slots whose record pass 1 settled for good (illegal, terminal, no move): pass 3 skips
    // them without decoding. One bit per slot, in slot order (chunks are collected in order).
    let mut settled = BitVec::<usize, Lsb0>::with_capacity(n);
    // Illegal slots among them (their solver byte is the terminal loss's, see `enc`).
    let mut illegal = BitVec::<usize, Lsb0>::with_capacity(n);
    for r in chunks {
        let (s, bits, ill) = r?;
        seeds = merge(seeds, s);
        settled.extend_from_bitslice(&bits);
        illegal.extend_from_bitslice(&ill);
    }
    debug_assert_eq!(settled.len(), n);
    debug_assert_eq!(illegal.len(), n);
    let st = State { value, count };
    let mut links = std::mem::take(&mut seeds.links);
    links.sort_unstable_by_key(|l| (l.to, l.from));
    // Links whose extra moves win for the opponent count as a won move at that depth,
    // unless the target was won sooner (then its un-move already counted it).
    let mut link_dec: Vec<Vec<Link<S>>> = Vec::new();
    for l in &links {
        if let Value::Win(w) = l.extra {
            if link_dec.len() <= w as usize {
                link_dec.resize(w as usize + 1, Vec::new());
            }
            link_dec[w as usize].push(*l);
        }
    }

    // Pass 2: the two queues, depth by depth.
    let legal = n - illegal.count_ones();
    progress.phase("retrograde", legal as u64);
    let mut lost: Vec<Vec<S>> = std::mem::take(&mut seeds.lost);
    // Won positions found through en-passant links, out of slot order, by depth.
    let mut won_later: Vec<Vec<S>> = Vec::new();
    let mut d = 0usize;
    loop {
        let pending = lost
            .len()
            .max(seeds.won.len())
            .max(won_later.len())
            .max(seeds.dec.len())
            .max(link_dec.len());
        if d >= pending {
            break;
        }
        let l = take(&mut lost, d);
        progress.advance(l.len() as u64);
        // Lost at d: every predecessor is won at d + 1 (the first time it is reached).
        let win = enc(Value::Win(d as u16 + 1));
        let try_win = |p: S, out: &mut Vec<S>| {
            if st.value[p.get()]
                .compare_exchange(UNKNOWN, win, Relaxed, Relaxed)
                .is_ok()
            {
                out.push(p);
            }
        };
        let (mut won, later): (Vec<S>, Vec<(usize, S)>) = l
            .par_iter()
            .fold(
                || (Vec::new(), Vec::new()),
                |(mut out, mut later), &q| {
                    for p in unmoves(game, q) {
                        try_win(S::at(p as usize), &mut out);
                    }
                    // A linked move wins once its extra moves lose too, at the later depth.
                    for link in links_to(&links, q) {
                        match link.extra {
                            Value::Loss(e) if e as usize <= d => try_win(link.from, &mut out),
                            Value::Loss(e) => later.push((e as usize + 1, link.from)),
                            _ => {}
                        }
                    }
                    (out, later)
                },
            )
            .reduce(
                || (Vec::new(), Vec::new()),
                |mut a, b| {
                    a.0.extend(b.0);
                    a.1.extend(b.1);
                    a
                },
            );
        for (e, p) in later {
            push_at(&mut won_later, e, p);
        }
        for p in take(&mut seeds.won, d + 1).iter() {
            try_win(S::at(p as usize), &mut won);
        }
        for p in take(&mut won_later, d + 1) {
            try_win(p, &mut won);
        }
        if !won.is_empty() && d + 1 > MAX_WIN_PLIES as usize {
            return Err(SolveError::TooDeep(d as u16 + 1));
        }
        progress.advance(won.len() as u64);
        // Won at d + 1: a predecessor whose moves all lead to such wins is lost at d + 2.
        let lose = enc(Value::Loss(d as u16 + 2));
        let try_lose = |p: S, out: &mut Vec<S>| {
            let i = p.get();
            if st.value[i].load(Relaxed) == UNKNOWN
                && st.count[i].fetch_sub(1, Relaxed) == 1
                && st.value[i]
                    .compare_exchange(UNKNOWN, lose, Relaxed, Relaxed)
                    .is_ok()
            {
                out.push(p);
            }
        };
        let mut next: Vec<S> = won
            .par_iter()
            .fold(Vec::new, |mut out, &q| {
                // Each distinct predecessor loses one move, however many reach `q`.
                let mut preds = unmoves(game, q);
                preds.sort_unstable();
                preds.dedup();
                for p in preds {
                    try_lose(S::at(p as usize), &mut out);
                }
                // A linked move is won for the opponent now, unless its extra moves won
                // as soon (then `link_dec` counts it).
                for link in links_to(&links, q) {
                    if !matches!(link.extra, Value::Win(e) if e as usize <= d + 1) {
                        try_lose(link.from, &mut out);
                    }
                }
                out
            })
            .flatten()
            .collect();
        for p in take(&mut seeds.dec, d + 1).iter() {
            try_lose(S::at(p as usize), &mut next);
        }
        for link in take(&mut link_dec, d + 1) {
            let target = dec(st.value[link.to.get()].load(Relaxed));
            if !matches!(target, Value::Win(w) if (w as usize) < d + 1) {
                try_lose(link.from, &mut next);
            }
        }
        if !next.is_empty() {
            if d + 2 > MAX_LOSS_PLIES as usize {
                return Err(SolveError::TooDeep(d as u16 + 2));
            }
            if lost.len() <= d + 2 {
                lost.resize(d + 3, Vec::new());
            }
            lost[d + 2].extend(next);
        }
        d += 1;
    }

    // What was never reached is a draw. The best moves are found as the records are read
    // (`Solved::fill`); the counters and queues are done with and freed.
    drop((st.count, lost, links, link_dec, seeds, won_later));
    Ok(Solved {
        game,
        value: st.value,
        settled,
        illegal,
    })
}

/// The predecessors of queued position `q` (duplicates possible).
fn unmoves<G: Game, S: Slot>(game: &G, q: S) -> Vec<Index> {
    let pos = game
        .decode(q.get() as Index)
        .expect("queued positions decode");
    let mut preds = Vec::new();
    game.predecessors(&pos, &mut preds);
    preds
}

/// What pass 1 finds in a chunk: its seeds, and the bits of its slots settled and illegal.
type Initial<S> = (Seeds<S>, BitVec, BitVec);

/// Pass 1 over `lo..hi`: values of illegal and terminal slots, move counters, seeds, and
/// the bits of `lo..hi` whose record is already final and of those illegal (see `settled`
/// and `illegal` in [`solve`]).
fn init_chunk<G: Game, S: Slot>(
    game: &G,
    lo: usize,
    hi: usize,
    value: &[AtomicU8],
    count: &[AtomicU8],
) -> Result<Initial<S>, SolveError> {
    let mut seeds = Seeds::default();
    let mut settled = bitvec![0; hi - lo];
    let mut illegal = bitvec![0; hi - lo];
    let mut succ = Vec::new();
    for i in lo..hi {
        let Some(pos) = game.decode(i as Index) else {
            value[i].store(enc(Value::Loss(0)), Relaxed);
            settled.set(i - lo, true);
            illegal.set(i - lo, true);
            continue;
        };
        if let Some(v) = game.terminal(&pos) {
            value[i].store(enc(v), Relaxed);
            settled.set(i - lo, true);
            if let Value::Loss(d) = v {
                push_at(&mut seeds.lost, d as usize, S::at(i));
            }
            continue;
        }
        succ.clear();
        let distinct = game.count_successors(&pos, &mut succ);
        if distinct == 0 && succ.is_empty() {
            // A game that forgot to call this terminal: no move at all is a draw.
            value[i].store(enc(Value::Draw), Relaxed);
            settled.set(i - lo, true);
            continue;
        }
        // Moves out of the table other than known wins for the opponent (those count as one
        // move, settled at the slowest of them: see `Seeds::dec`).
        let mut known = 0usize;
        let mut quickest_loss: Option<u16> = None;
        let mut slowest_win: Option<u16> = None;
        for s in &succ {
            match s.to {
                // Counted in `distinct`.
                Outcome::Index(_) => {}
                Outcome::Augmented { index, extra } => {
                    known += 1;
                    seeds.links.push(Link {
                        to: S::at(index as usize),
                        from: S::at(i),
                        extra,
                    });
                }
                Outcome::Known(Value::Win(d)) => {
                    slowest_win = slowest_win.max(Some(d));
                }
                Outcome::Restart { .. } => {
                    return Err(SolveError::Game(format!(
                        "position {i} has a move that restarts the count: that needs the restarting solver"
                    )));
                }
                Outcome::Known(v) => {
                    known += 1;
                    if let Value::Loss(d) = v {
                        quickest_loss = Some(quickest_loss.map_or(d, |q| q.min(d)));
                    }
                }
            }
        }
        if let Some(d) = quickest_loss {
            push_ascending(&mut seeds.won, d as usize + 1, i);
        }
        if let Some(d) = slowest_win {
            known += 1;
            push_ascending(&mut seeds.dec, d as usize, i);
        }
        let c = distinct + known;
        if c > u8::MAX as usize {
            return Err(SolveError::Game(format!(
                "position {i} has {c} distinct moves; the solver counts at most 255"
            )));
        }
        count[i].store(c as u8, Relaxed);
    }
    Ok((seeds, settled, illegal))
}
