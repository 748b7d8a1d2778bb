//! `retro verify`: recompute every record from its successors.
//!
//! A record is consistent when its value is the best over the values its moves lead to
//! (as stored in the same table), terminal positions carry their terminal value, unused
//! slots are marked illegal, and the stored move is a legal move achieving the value. Any
//! single changed byte breaks one of these (or the payload checksum, checked first). The
//! per-distance statistics in the header are recomputed from the records and compared; the
//! header checksum and the zero padding were checked when the file was opened.

use rayon::prelude::*;

use super::reader::ChecksumStatus;
use super::Table;
use crate::game::{GameText, Index, Value, NO_MOVE};
use crate::probe::outcome_value;
use crate::progress::Progress;

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
    let (vb, mv) = table.record(i);
    let stored = Value::from_record(vb, mv);
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
    if let Some(t) = game.terminal(&pos) {
        return if stored == t && mv == NO_MOVE {
            Ok(())
        } else {
            Err(format!(
                "{}: terminal {t:?}, stored {stored:?} move {mv}",
                name()
            ))
        };
    }
    let mut succ = Vec::new();
    game.successors(&pos, &mut succ);
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

/// Check the checksums, then every record; report at most `limit` mismatches by name.
pub fn verify<G: GameText>(
    game: &G,
    table: &Table,
    limit: usize,
    progress: &dyn Progress,
) -> VerifyReport {
    let checksum = table.checksum_status();
    let statistics = table
        .header()
        .sections
        .iter()
        .filter(|s| {
            // An unreadable section (a file read at positions that shrank) does not match.
            table
                .section_records(s)
                .map_or(true, |r| super::writer::histogram(&r) != s.histogram)
        })
        .map(|s| s.name.clone())
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
