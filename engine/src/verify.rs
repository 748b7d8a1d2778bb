//! `retro verify`: recompute every record from its successors.
//!
//! A record is consistent when its value is the best over the values its moves lead to
//! (as stored in the same table), terminal positions carry their terminal value, unused
//! slots are marked illegal, and the stored move is a legal move achieving the value. Any
//! single changed byte breaks one of these (or the payload checksum, checked first). The
//! per-distance statistics in the header are recomputed from the records and compared; the
//! header checksum and the zero padding were checked when the file was opened. A
//! compressed table has only values: each legal slot's value is checked (illegal slots
//! hold anything), its blocks' checksums, and its statistics with illegal slots counted
//! from the game.

use rayon::prelude::*;

use crate::game::{Index, Value, NO_MOVE};
use crate::present::GameText;
use crate::probe::outcome_value;
use crate::progress::Progress;
use crate::table::reader::ChecksumStatus;
use crate::table::Table;

/// What `verify` found.
#[derive(Clone, Debug)]
pub struct VerifyReport {
    pub checksum: ChecksumStatus,
    /// Sections whose stored statistics (value-byte histogram) differ from their records.
    pub statistics: Vec<String>,
    /// Records checked.
    pub checked: u64,
    /// Number of inconsistent records.
    pub bad: u64,
    /// The first inconsistent records (lowest indices), described for people.
    pub first: Vec<String>,
}

impl VerifyReport {
    pub fn ok(&self) -> bool {
        self.checksum == ChecksumStatus::Ok && self.statistics.is_empty() && self.bad == 0
    }
}

/// What a record should be, or why it is wrong.
fn check_one<G: GameText>(game: &G, table: &Table, i: Index) -> Result<(), String> {
    // A compressed table stores no move, and nothing for an illegal slot; a DTZ table no
    // move, but its unused slots are marked.
    let Some(mv) = table.stored_move(i) else {
        return match game.decode(i) {
            Some(pos) => check_value(game, table, i, &pos, &mut Vec::new()),
            None if table.is_compressed() || table.value(i) == Value::Illegal => Ok(()),
            None => Err(format!("index {i}: unused slot holds {:?}", table.value(i))),
        };
    };
    let stored = table.value(i);
    let Some(pos) = game.decode(i) else {
        return if stored == Value::Illegal && mv == NO_MOVE {
            Ok(())
        } else {
            Err(format!(
                "index {i}: unused slot holds {stored:?}, move {mv}"
            ))
        };
    };
    let name = || format!("{} (index {i})", game.position_text(&pos));
    let mut succ = Vec::new();
    check_value(game, table, i, &pos, &mut succ)?;
    if game.terminal(&pos).is_some() {
        return if mv == NO_MOVE {
            Ok(())
        } else {
            Err(format!("{}: terminal, but move {mv} stored", name()))
        };
    }
    if mv == NO_MOVE {
        return if stored.is_decisive() {
            Err(format!("{}: {stored:?} but no best move stored", name()))
        } else {
            Ok(())
        };
    }
    match succ.iter().find(|s| s.mv == mv) {
        Some(s) if outcome_value(table, s.to).back() == stored => Ok(()),
        Some(s) => Err(format!(
            "{}: stored move {mv} leads to {:?}, not {stored:?}",
            name(),
            outcome_value(table, s.to)
        )),
        None => Err(format!("{}: stored move {mv} is not a legal move", name())),
    }
}

/// Whether the value stored for the legal position `pos` at `i` is its terminal value, or
/// the best its moves give (listed into `succ`).
fn check_value<G: GameText>(
    game: &G,
    table: &Table,
    i: Index,
    pos: &G::Position,
    succ: &mut Vec<crate::game::Successor>,
) -> Result<(), String> {
    let stored = table.value(i);
    let name = || format!("{} (index {i})", game.position_text(pos));
    if let Some(t) = game.terminal(pos) {
        return if stored == t {
            Ok(())
        } else {
            Err(format!("{}: terminal {t:?}, stored {stored:?}", name()))
        };
    }
    game.successors(pos, succ);
    let best = succ
        .iter()
        .map(|s| outcome_value(table, s.to))
        .min_by_key(|v| v.move_rank())
        .map_or(Value::Draw, Value::back);
    if stored != best {
        return Err(format!(
            "{}: stored {stored:?}, its moves give {best:?}",
            name()
        ));
    }
    Ok(())
}

/// The histogram of section `k`'s values by [`Value::code`], illegal slots known from the
/// game (a compressed table does not mark them); `None` if it cannot be read.
fn value_histogram<G: GameText>(game: &G, table: &Table, k: usize) -> Option<Vec<u64>> {
    let first: u64 = table.header().sections[..k].iter().map(|s| s.records).sum();
    let s = &table.header().sections[k];
    let records = table.section_records(s).ok()?;
    let metric = table.metric();
    let mut h = vec![0u64; metric.codes()];
    for (j, r) in records.chunks_exact(2).enumerate() {
        let v = match game.decode(first + j as u64) {
            Some(_) => metric.value([r[0], r[1]]),
            None => Value::Illegal,
        };
        h[metric.code(v)] += 1;
    }
    Some(h)
}

/// Check the checksums, then every record; report at most `limit` mismatches by name.
pub fn verify<G: GameText>(
    game: &G,
    table: &Table,
    limit: usize,
    progress: &dyn Progress,
) -> VerifyReport {
    let checksum = table.checksum_status();
    // A dropped section's values are each the best of their moves, so checking them
    // against their moves is checking the stored section they lead into: worked out once,
    // in memory, as every slot is read. A damaged block met on the way is in `checksum`.
    let _ = table.complete_all(progress, true);
    let statistics = table
        .header()
        .sections
        .iter()
        .enumerate()
        .filter(|&(k, s)| {
            // An unreadable section (a file read at positions that shrank) does not match.
            let h = if table.is_compressed() {
                value_histogram(game, table, k)
            } else {
                table
                    .section_records(s)
                    .ok()
                    .map(|r| crate::table::writer::histogram(&r, table.metric()))
            };
            h.as_ref() != Some(&s.histogram)
        })
        .map(|(_, s)| s.name.clone())
        .collect();
    let n = table.size();
    progress.phase("verifying", n);
    const CHUNK: u64 = 1 << 14;
    let per_chunk: Vec<(u64, Vec<String>)> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let mut bad = 0;
            let mut first = Vec::new();
            for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                if let Err(e) = check_one(game, table, i) {
                    bad += 1;
                    if first.len() < limit {
                        first.push(e);
                    }
                }
            }
            progress.advance(CHUNK.min(n - c * CHUNK));
            (bad, first)
        })
        .collect();
    let bad = per_chunk.iter().map(|c| c.0).sum();
    let first = per_chunk
        .into_iter()
        .flat_map(|c| c.1)
        .take(limit)
        .collect();
    VerifyReport {
        checksum,
        statistics,
        checked: n,
        bad,
        first,
    }
}
