//! Distance to zeroing (DTZ50) over the placements: the DTM solve's depth loop with the
//! values of DTZ ([`crate::dtz`]), its records written as the restarting solver's
//! DTZ codes.
//!
//! The bare king's captures and white's promotions lead to sub-materials' DTZ tables,
//! their values restarted (`placements.rs`); mate counts as the checkmates do in DTM. A
//! pawn move restarts into a position of the same table with the pawn further up, so the
//! placements are solved a tier at a time, by the sum of the pawns' ranks, highest first:
//! no other move changes it, and a pawn move always raises it. A tier's pawn moves lead to
//! placements solved before, their values known: a win in 1 ply into a loss within
//! [`FIFTY_MOVES`], in 101 beyond (the exits of [`Scope`]).

use rayon::prelude::*;

use super::fill::{stored, value};
use super::placements::{Dest, Placements, MIN_LEN};
use super::retrograde::{self, plies, Records, Scope, Sets};
use crate::indexing::index::Layout;
use crate::rules::board::{rank, squares};
use crate::rules::material::Role;
use crate::rules::position::FIFTY_MOVES;
use retro_engine::game::{Index, Value};
use retro_engine::progress::Progress;
use retro_engine::solve::restart::Restarted;
use retro_engine::solve::SolveError;
use retro_engine::table::Metric;

/// Slots per parallel work item of the fill.
const CHUNK: usize = 1 << 12;

pub fn solve(
    layout: &Layout,
    pl: &Placements,
    progress: &dyn Progress,
) -> Result<Restarted, SolveError> {
    let mut sets = retrograde::start(pl, Records::new(pl.len));
    progress.phase("retrograde by tier", 0);
    if !pl.roles.contains(&Role::Pawn) {
        // No move of the table zeroes but the king's captures: one tier.
        retrograde::run(pl, &mut sets, &Scope::ALL, progress)?;
    } else {
        let tiers: Vec<u8> = (0..pl.len)
            .into_par_iter()
            .with_min_len(MIN_LEN)
            .map(|p| tier(pl, p))
            .collect();
        let top = tiers.iter().copied().max().unwrap_or(0);
        // Per placement, the black king squares lost in more than FIFTY_MOVES plies, in
        // the tiers solved so far.
        let mut late = vec![0u64; pl.len];
        for t in (0..=top).rev() {
            let exits = exits(pl, &sets, &late, &tiers, t);
            let scope = Scope {
                tier: Some((&tiers, t)),
                exits: &exits,
            };
            if retrograde::run(pl, &mut sets, &scope, progress)? > FIFTY_MOVES {
                mark_late(&sets, &tiers, t, &mut late);
            }
        }
    }
    Ok(Restarted::from_codes(codes(
        layout, pl, &sets.rec, progress,
    )))
}

/// The tier of placement `p`: the sum of its pawns' ranks.
fn tier(pl: &Placements, p: usize) -> u8 {
    let c = pl.coords(p);
    (1..=pl.roles.len())
        .filter(|&j| pl.role(j) == Role::Pawn)
        .map(|j| rank(c[j]))
        .sum()
}

/// White's pawn moves out of tier `t`, into tiers solved before: the black king squares
/// where one wins in 1 ply (into a loss within [`FIFTY_MOVES`]) and in `FIFTY_MOVES + 1`
/// (into a longer loss), per placement.
fn exits(pl: &Placements, sets: &Sets, late: &[u64], tiers: &[u8], t: u8) -> Vec<(u16, Vec<u64>)> {
    // Pawns' moves only.
    let pawns = |j: usize, _| if pl.role(j) == Role::Pawn { !0 } else { 0 };
    let (in_time, beyond): (Vec<u64>, Vec<u64>) = (0..pl.len)
        .into_par_iter()
        .with_min_len(MIN_LEN)
        .map(|p| {
            let f = &pl.fixed[p];
            if f.legal_w == 0 || tiers[p] != t {
                return (0, 0);
            }
            let (mut a, mut b) = (0, 0);
            pl.white_moves(p, pawns, |_, dest| {
                if let Dest::Zeroing(q, allow) = dest {
                    a |= sets.lost_b[q] & !late[q] & allow;
                    b |= late[q] & allow;
                }
            });
            (a & f.legal_w, b & f.legal_w)
        })
        .unzip();
    vec![(1, in_time), (FIFTY_MOVES + 1, beyond)]
}

/// Mark tier `t`'s black king squares lost in more than [`FIFTY_MOVES`] plies.
fn mark_late(sets: &Sets, tiers: &[u8], t: u8, late: &mut [u64]) {
    late.par_iter_mut()
        .enumerate()
        .with_min_len(MIN_LEN)
        .filter(|(p, _)| tiers[*p] == t)
        .for_each(|(p, l)| {
            let row = &sets.rec.black[p * 64..][..64];
            *l = squares(sets.lost_b[p])
                .filter(|&s| plies(row[s as usize]).is_some_and(|d| d > FIFTY_MOVES))
                .fold(0, |m, s| m | 1 << s);
        });
}

/// The DTZ code of every slot of the table.
fn codes(layout: &Layout, pl: &Placements, rec: &Records, progress: &dyn Progress) -> Vec<u16> {
    let n = 2 * layout.section as usize;
    progress.phase("records", n as u64);
    let code = |v: Value| u16::from_le_bytes(Metric::Dtz.record(v, 0));
    let mut out = vec![0u16; n];
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(k, chunk)| {
            for (i, c) in chunk.iter_mut().enumerate() {
                *c = match stored(layout, pl, (k * CHUNK + i) as Index) {
                    None => code(Value::Illegal),
                    Some((turn, _, p, bk)) => code(value(turn, rec.get(turn, p, bk))),
                };
            }
            progress.advance(chunk.len() as u64);
        });
    out
}
