//! `GET /api/tables/<name>/stats.json`: a table's statistics page, as syzygy-tables.info
//! shows one: the per-distance histogram of each section (from the header), the longest
//! positions (decoded by the plug-in: a compressed table notes their slots, a dense one's
//! records are read until they are found), and the checksums (recomputed from the
//! payload, so the page says whether the served bytes are intact). Every file is read a
//! part at a time: a 5-piece section whole would be 1.6 GB of the server's memory.

use serde::Serialize;

use super::state::Served;
use crate::game::Value;
use crate::summary::SectionStats;

/// The most longest positions listed per section.
pub const LONGEST_SHOWN: usize = 8;

/// Body of `GET /api/tables/<name>/stats.json`.
#[derive(Clone, Debug, Serialize)]
pub struct TableStats {
    pub name: String,
    pub title: String,
    /// The web viewer that opens this table's positions (`chess`, `board`).
    pub viewer: &'static str,
    /// Unit of `by_distance` and `longest`: `moves` or `plies`.
    pub unit: &'static str,
    pub records: u64,
    pub bytes: u64,
    pub sections: Vec<SectionReport>,
}

/// One section (one side to move, for chess).
#[derive(Clone, Debug, Serialize)]
pub struct SectionReport {
    /// Counts and the histogram `(distance, wins, losses)` per distance, ascending.
    #[serde(flatten)]
    pub stats: SectionStats,
    /// xxh3-64 of the section's records, as stored in the header (16 hex digits).
    pub checksum: String,
    /// The served records still hash to it.
    pub checksum_ok: bool,
    /// The positions farthest from the end, or `null` if the section has no win or loss.
    pub longest_positions: Option<Longest>,
}

/// The positions of a section with the longest win or loss.
#[derive(Clone, Debug, Serialize)]
pub struct Longest {
    /// `"win"` or `"loss"` for the side to move.
    pub category: &'static str,
    /// Plies to the end with best play.
    pub plies: u16,
    /// The same in the table's unit.
    pub distance: u16,
    /// How many positions have it.
    pub count: u64,
    /// The first [`LONGEST_SHOWN`] of them in index order, in the game's notation (a FEN
    /// for chess, a board string for k-in-a-row).
    pub positions: Vec<String>,
}

/// The statistics of a served table. Scans every record once.
pub fn table_stats(name: &str, served: &Served) -> TableStats {
    let plugin = &served.plugin;
    let table = &served.table;
    let unit = plugin.distance_unit();
    let header = table.header();
    let counts = crate::summary::stats(header, unit);
    let metric = table.metric();
    let mut first = 0u64;
    let mut sections = Vec::new();
    // The sections whose payload no longer hashes as written (a compressed table: by its
    // blocks' checksums), each file read a part at a time.
    let bad = match table.checksum_status() {
        crate::table::reader::ChecksumStatus::Mismatch(bad) => bad,
        _ => Vec::new(),
    };
    for (info, stats) in header.sections.iter().zip(counts) {
        let longest_positions =
            crate::summary::longest(&info.histogram, metric).map(|(value, plies)| {
                let at = |i: u64| plugin.position_at(i);
                let positions = match table.section_noted(info) {
                    // A compressed table notes them: no section is decoded, and none of
                    // a dropped section searched slot by slot.
                    Some(noted) => noted
                        .iter()
                        .filter_map(|&i| at(i))
                        .take(LONGEST_SHOWN)
                        .collect(),
                    None => longest_in(table, info, first, value, &at),
                };
                Longest {
                    category: if matches!(value, Value::Win(_)) {
                        "win"
                    } else {
                        "loss"
                    },
                    plies,
                    distance: unit.count(value).unwrap_or(plies),
                    count: info.histogram[metric.code(value)],
                    positions,
                }
            });
        sections.push(SectionReport {
            checksum: format!("{:016x}", info.checksum),
            checksum_ok: !bad
                .iter()
                .any(|b| b == &info.name || b.starts_with(&format!("{} (", info.name))),
            longest_positions,
            stats,
        });
        first += info.records;
    }
    TableStats {
        name: name.to_string(),
        title: plugin.title(),
        viewer: super::state::viewer_of(&plugin.name()),
        unit: unit.word(),
        records: header.records(),
        bytes: table.file_len(),
        sections,
    }
}

/// The first [`LONGEST_SHOWN`] positions of section `info` (its first slot `first`) whose
/// value is `value`, the records read a part at a time. A part that cannot be read (a
/// file cut since it was opened) ends the list: the checksum says the rest.
fn longest_in(
    table: &crate::table::Table,
    info: &crate::table::SectionInfo,
    first: u64,
    value: Value,
    at: &dyn Fn(u64) -> Option<String>,
) -> Vec<String> {
    let metric = table.metric();
    let mut found = Vec::new();
    let _ = table.scan_section_records(info, |start, records| {
        let hits = (records.chunks_exact(2).enumerate())
            .filter(|(_, r)| metric.value([r[0], r[1]]) == value)
            .filter_map(|(i, _)| at(first + start + i as u64));
        found.extend(hits.take(LONGEST_SHOWN - found.len()));
        if found.len() == LONGEST_SHOWN {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_prefers_the_farthest_then_the_win() {
        let longest_dtm = |h: &[u64]| crate::summary::longest(h, crate::table::Metric::Dtm);
        let histogram = |values: &[Value]| {
            let mut h = vec![0u64; crate::table::VALUE_CODES];
            for v in values {
                h[v.code() as usize] += 1;
            }
            h
        };
        let h = histogram(&[
            Value::Draw,
            Value::Win(5),
            Value::Loss(7 + 1),
            Value::Win(7),
            Value::Illegal,
            Value::Loss(0),
        ]);
        assert_eq!(longest_dtm(&h), Some((Value::Loss(8), 8)));
        let h = histogram(&[Value::Win(7), Value::Loss(6), Value::Loss(0)]);
        assert_eq!(longest_dtm(&h), Some((Value::Win(7), 7)));
        assert_eq!(
            longest_dtm(&histogram(&[Value::Draw, Value::Illegal])),
            None
        );
        // The longest loss a record holds (KPPvKP's 127 moves) has a code of its own.
        let h = histogram(&[Value::Loss(254), Value::Loss(2)]);
        assert_eq!(longest_dtm(&h), Some((Value::Loss(254), 254)));
    }
}
