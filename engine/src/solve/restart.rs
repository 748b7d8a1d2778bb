//! The restarting solver: the two queues of [`super::two_queue`] for games whose moves may
//! restart the count ([`Outcome::Restart`]), such as chess's distance to zeroing (DTZ).
//!
//! What differs from the two-queue solver:
//! - **Any parity.** A move into a restart is worth 1 or `limit + 1` plies whichever side
//!   makes it, so a loss can be an odd number of plies and a win an even one. Each depth
//!   has both queues: positions lost at `d` make their predecessors won at `d + 1`, and
//!   positions won at `d` take a move from theirs, which are lost at `d + 1` once none is
//!   left.
//! - **Exact plies.** Values are kept as 16-bit DTZ codes ([`Metric::Dtz`]), and the
//!   records written are those codes: no best move is stored (a one-ply search gives it).
//! - **Tiers.** Positions are solved a tier at a time, highest first, and a restarting
//!   move must lead into a higher tier, whose values are final by then (chess: the pawns'
//!   advance, which every pawn move increases). Only the predecessors in the position's
//!   own tier are followed: one in another tier reaches it by a restarting move, which its
//!   own pass settled from the final value.
//! - `Augmented` moves are refused: in such a game they restart.
//!
//! Values do not depend on the order the queues are worked in, so the table is the same
//! whatever the thread count.

use std::sync::atomic::{AtomicU16, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

use super::SolveError;
use crate::game::{Game, Index, Outcome, Records, Value};
use crate::table::metric::{Metric, DTZ_MAX_PLIES};

/// The code of a slot not yet solved (beyond every DTZ code).
const UNKNOWN: u16 = u16::MAX;
/// The tier byte of an illegal slot.
const NO_TIER: u8 = u8::MAX;
/// Slots per parallel work item.
const CHUNK: usize = 1 << 12;

fn code(v: Value) -> u16 {
    u16::from_le_bytes(Metric::Dtz.record(v, 0))
}

fn value_of(c: u16) -> Value {
    Metric::Dtz.value(c.to_le_bytes())
}

/// A solved game's values, one DTZ code a slot; its records are those codes.
pub struct Restarted {
    codes: Vec<u16>,
}

impl Restarted {
    /// The records of `codes`, one DTZ code a slot, made by another solver of the same
    /// game (chess's bare-king solver).
    pub fn from_codes(codes: Vec<u16>) -> Restarted {
        Restarted { codes }
    }
}

impl Records for Restarted {
    fn slots(&self) -> u64 {
        self.codes.len() as u64
    }

    fn value(&self, i: Index) -> Value {
        value_of(self.codes[i as usize])
    }

    fn fill(&self, first: Index, out: &mut [u8]) {
        let codes = &self.codes[first as usize..first as usize + out.len() / 2];
        for (rec, c) in out.chunks_exact_mut(2).zip(codes) {
            rec.copy_from_slice(&c.to_le_bytes());
        }
    }
}

/// The queues of a tier, by depth: found by its first pass, then by the retrograde.
#[derive(Default)]
struct Seeds {
    /// Positions lost at depth d (terminal losses at 0).
    lost: Vec<Vec<u64>>,
    /// Positions won at depth d.
    won: Vec<Vec<u64>>,
    /// Positions whose best move out of the table (or restarting) wins in d plies.
    exit_win: Vec<Vec<u64>>,
    /// Positions whose moves out of the table all lose, the slowest in d plies: those
    /// moves count as one, which is won for the opponent at depth d - 1.
    dec: Vec<Vec<u64>>,
}

fn push(v: &mut Vec<Vec<u64>>, d: usize, i: u64) {
    if v.len() <= d {
        v.resize_with(d + 1, Vec::new);
    }
    v[d].push(i);
}

fn push_all(v: &mut Vec<Vec<u64>>, d: usize, items: Vec<u64>) {
    if v.len() <= d {
        v.resize_with(d + 1, Vec::new);
    }
    v[d].extend(items);
}

fn take(v: &mut [Vec<u64>], d: usize) -> Vec<u64> {
    v.get_mut(d).map(std::mem::take).unwrap_or_default()
}

impl Seeds {
    fn merge(mut self, other: Seeds) -> Seeds {
        for (mine, theirs) in [
            (&mut self.lost, other.lost),
            (&mut self.won, other.won),
            (&mut self.exit_win, other.exit_win),
            (&mut self.dec, other.dec),
        ] {
            for (d, v) in theirs.into_iter().enumerate() {
                if mine.len() <= d {
                    mine.resize_with(d + 1, Vec::new);
                }
                mine[d].extend(v);
            }
        }
        self
    }

    fn pending(&self) -> usize {
        [&self.lost, &self.won, &self.exit_win, &self.dec]
            .iter()
            .map(|v| v.len())
            .max()
            .unwrap_or(0)
    }
}

struct State<'a, G: Game> {
    game: &'a G,
    value: Vec<AtomicU16>,
    count: Vec<AtomicU8>,
    tier: Vec<u8>,
}

/// The tier of a position (see the module documentation).
pub type Tier<'a, P> = &'a (dyn Fn(&P) -> u32 + Sync);

/// Solve `game`, whose positions fall into the tiers `tier` gives (below 255), highest
/// first; `None`: one tier (a game without restarting moves in its index space, such as
/// chess without pawns), which spares a pass over every slot.
pub fn solve_values<G: Game>(
    game: &G,
    tier: Option<Tier<'_, G::Position>>,
    opts: &crate::game::SolveOptions,
) -> Result<Restarted, SolveError> {
    let n = game.size() as usize;
    let progress = opts.progress;
    let Some(tier) = tier else {
        // Illegal slots are found by the tier's first pass (see `init_chunk`).
        let st = State {
            game,
            value: (0..n).map(|_| AtomicU16::new(UNKNOWN)).collect(),
            count: (0..n).map(|_| AtomicU8::new(0)).collect(),
            tier: vec![0; n],
        };
        progress.phase("retrograde", n as u64);
        solve_tier(&st, 0, opts)?;
        return Ok(Restarted {
            codes: st.value.into_iter().map(AtomicU16::into_inner).collect(),
        });
    };
    progress.phase("tiers", n as u64);
    let tiers: Vec<Result<Vec<u8>, SolveError>> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (lo, hi) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
            let out = (lo..hi)
                .map(|i| match game.decode(i as Index) {
                    None => Ok(NO_TIER),
                    Some(pos) => match tier(&pos) {
                        t if t < NO_TIER as u32 => Ok(t as u8),
                        t => Err(SolveError::Game(format!(
                            "position {i} is in tier {t}; the limit is 254"
                        ))),
                    },
                })
                .collect();
            progress.advance((hi - lo) as u64);
            out
        })
        .collect();
    let mut tier_of = Vec::with_capacity(n);
    for t in tiers {
        tier_of.extend(t?);
    }
    let mut present = [false; 256];
    for &t in &tier_of {
        present[t as usize] = true;
    }
    let st = State {
        game,
        value: tier_of
            .iter()
            .map(|&t| {
                AtomicU16::new(if t == NO_TIER {
                    code(Value::Illegal)
                } else {
                    UNKNOWN
                })
            })
            .collect(),
        count: (0..n).map(|_| AtomicU8::new(0)).collect(),
        tier: tier_of,
    };
    let legal = st.tier.iter().filter(|&&t| t != NO_TIER).count();
    progress.phase("retrograde by tier", legal as u64);
    for t in (0..NO_TIER).rev().filter(|&t| present[t as usize]) {
        solve_tier(&st, t, opts)?;
    }
    Ok(Restarted {
        codes: st.value.into_iter().map(AtomicU16::into_inner).collect(),
    })
}

/// Solve every position of tier `t`; positions of higher tiers are final.
fn solve_tier<G: Game>(
    st: &State<G>,
    t: u8,
    opts: &crate::game::SolveOptions,
) -> Result<(), SolveError> {
    let n = st.value.len();
    let chunks: Vec<Result<Seeds, SolveError>> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| init_chunk(st, t, c * CHUNK, ((c + 1) * CHUNK).min(n)))
        .collect();
    let mut seeds = Seeds::default();
    for s in chunks {
        seeds = seeds.merge(s?);
    }
    let mut d = 1usize;
    while d <= seeds.pending() {
        if d > DTZ_MAX_PLIES as usize {
            return Err(SolveError::Game(format!(
                "a distance of {d} plies exceeds the DTZ record's {DTZ_MAX_PLIES}"
            )));
        }
        // Lost at d - 1: every predecessor in the tier is won at d (the first time).
        let win = code(Value::Win(d as u16));
        let try_win = |p: u64, out: &mut Vec<u64>| {
            if st.value[p as usize]
                .compare_exchange(UNKNOWN, win, Relaxed, Relaxed)
                .is_ok()
            {
                out.push(p);
            }
        };
        let lost = take(&mut seeds.lost, d - 1);
        opts.progress.advance(lost.len() as u64);
        let mut won: Vec<u64> = lost
            .par_iter()
            .fold(
                || (Vec::new(), Vec::new()),
                |(mut out, mut preds), &q| {
                    unmoves(st, t, q, &mut preds);
                    for &p in &preds {
                        try_win(p, &mut out);
                    }
                    (out, preds)
                },
            )
            .flat_map(|(out, _)| out)
            .collect();
        for p in take(&mut seeds.exit_win, d) {
            try_win(p, &mut won);
        }
        // Won at d - 1: each distinct predecessor in the tier loses a move; with none
        // left it is lost at d.
        let lose = code(Value::Loss(d as u16));
        let try_lose = |p: u64, out: &mut Vec<u64>| {
            let i = p as usize;
            if st.value[i].load(Relaxed) == UNKNOWN
                && st.count[i].fetch_sub(1, Relaxed) == 1
                && st.value[i]
                    .compare_exchange(UNKNOWN, lose, Relaxed, Relaxed)
                    .is_ok()
            {
                out.push(p);
            }
        };
        let was_won = take(&mut seeds.won, d - 1);
        opts.progress.advance(was_won.len() as u64);
        let mut next: Vec<u64> = was_won
            .par_iter()
            .fold(
                || (Vec::new(), Vec::new()),
                |(mut out, mut preds), &q| {
                    unmoves(st, t, q, &mut preds);
                    preds.sort_unstable();
                    preds.dedup();
                    for &p in &preds {
                        try_lose(p, &mut out);
                    }
                    (out, preds)
                },
            )
            .flat_map(|(out, _)| out)
            .collect();
        for p in take(&mut seeds.dec, d) {
            try_lose(p, &mut next);
        }
        if !won.is_empty() {
            push_all(&mut seeds.won, d, won);
        }
        if !next.is_empty() {
            push_all(&mut seeds.lost, d, next);
        }
        d += 1;
    }
    // What was never reached is a draw.
    let draw = code(Value::Draw);
    st.value
        .par_iter()
        .zip(st.tier.par_iter())
        .filter(|(_, &tt)| tt == t)
        .for_each(|(v, _)| {
            let _ = v.compare_exchange(UNKNOWN, draw, Relaxed, Relaxed);
        });
    Ok(())
}

/// The predecessors of `q` in tier `t` (duplicates possible), into `preds` (cleared
/// first: one list per worker, not an allocation per position).
fn unmoves<G: Game>(st: &State<G>, t: u8, q: u64, preds: &mut Vec<u64>) {
    let pos = st.game.decode(q).expect("queued positions decode");
    preds.clear();
    st.game.predecessors(&pos, preds);
    preds.retain(|&p| st.tier.get(p as usize) == Some(&t));
}

/// The first pass over the tier-`t` slots of `lo..hi`: terminal values, move counters,
/// and the seeds of moves out of the table.
fn init_chunk<G: Game>(st: &State<G>, t: u8, lo: usize, hi: usize) -> Result<Seeds, SolveError> {
    let mut seeds = Seeds::default();
    let mut succ = Vec::new();
    for i in (lo..hi).filter(|&i| st.tier[i] == t) {
        // Only with one tier for all: illegal slots are found here.
        let Some(pos) = st.game.decode(i as Index) else {
            st.value[i].store(code(Value::Illegal), Relaxed);
            continue;
        };
        if let Some(v) = st.game.terminal(&pos) {
            st.value[i].store(code(v), Relaxed);
            if v == Value::Loss(0) {
                push(&mut seeds.lost, 0, i as u64);
            }
            continue;
        }
        succ.clear();
        let distinct = st.game.count_successors(&pos, &mut succ);
        // The best and the worst of the moves out of the table, for the mover.
        let mut quickest_win: Option<u16> = None;
        let mut holds = false;
        let mut slowest_loss: Option<u16> = None;
        for s in &succ {
            let outside = match s.to {
                Outcome::Index(_) => unreachable!("counted, not listed"),
                Outcome::Augmented { .. } => {
                    return Err(SolveError::Game(format!(
                        "position {i} has an augmented move, which the restarting solver does not follow"
                    )))
                }
                Outcome::Known(v) => v,
                Outcome::Restart { index, .. } => {
                    let done = st.value.get(index as usize).map(|v| v.load(Relaxed));
                    if done.is_none_or(|c| c == UNKNOWN)
                        || st.tier[index as usize] <= t
                    {
                        return Err(SolveError::Game(format!(
                            "position {i} restarts into {index}, which is not in a higher tier"
                        )));
                    }
                    s.to.value(|j| value_of(st.value[j as usize].load(Relaxed)))
                }
            };
            match outside.back() {
                Value::Win(p) => quickest_win = Some(quickest_win.map_or(p, |q| q.min(p))),
                Value::Loss(p) => slowest_loss = slowest_loss.max(Some(p)),
                Value::Draw => holds = true,
                Value::Illegal => {
                    return Err(SolveError::Game(format!(
                        "position {i} has a move into no table"
                    )))
                }
            }
        }
        let mut c = distinct;
        if let Some(w) = quickest_win {
            push(&mut seeds.exit_win, w as usize, i as u64);
        }
        if quickest_win.is_some() || holds {
            // Never lost: a move that never counts as lost.
            c += 1;
        } else if let Some(l) = slowest_loss {
            c += 1;
            push(&mut seeds.dec, l as usize, i as u64);
        }
        if c == 0 {
            // No move at all, yet not terminal: a draw, as the two-queue solver says.
            st.value[i].store(code(Value::Draw), Relaxed);
            continue;
        }
        if c > u8::MAX as usize {
            return Err(SolveError::Game(format!(
                "position {i} has {c} distinct moves; the solver counts at most 255"
            )));
        }
        st.count[i].store(c as u8, Relaxed);
    }
    Ok(seeds)
}
