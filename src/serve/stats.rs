//! `GET /api/tables/<name>/stats.json`: a table's statistics page, as syzygy-tables.info
//! shows one: the per-distance histogram of each section (from the header), the longest
//! positions (found by scanning the records, decoded by the plug-in), and the checksums
//! (recomputed from the payload, so the page says whether the served bytes are intact).

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
    // A compressed table's records are made from its values here: its blocks' own
    // checksums say whether the served bytes are intact.
    let bad_blocks = match table.is_compressed().then(|| table.checksum_status()) {
        Some(crate::table::reader::ChecksumStatus::Mismatch(bad)) => Some(bad),
        Some(_) => Some(Vec::new()),
        None => None,
    };
    let stored = table.sections_stored();
    for ((info, stats), stored) in header.sections.iter().zip(counts).zip(stored) {
        // `None` if the records cannot be read (a large file cut since it was opened). A
        // section a compressed table drops is not scanned (each of its values is a search):
        // the table notes the first slots of its longest value.
        let records = if stored {
            table.section_records(info).ok()
        } else {
            None
        };
        let in_section = first..first + info.records;
        let noted: Vec<u64> = (table.noted_slots().iter())
            .filter(|i| in_section.contains(i))
            .copied()
            .collect();
        let longest_positions =
            crate::summary::longest(&info.histogram, metric).map(|(value, plies)| {
                let positions = match &records {
                    Some(r) => (r.chunks_exact(2).enumerate())
                        .filter(|(_, r)| metric.value([r[0], r[1]]) == value)
                        .filter_map(|(i, _)| plugin.position_at(first + i as u64))
                        .take(LONGEST_SHOWN)
                        .collect(),
                    None => (noted.iter())
                        .filter_map(|&i| plugin.position_at(i))
                        .take(LONGEST_SHOWN)
                        .collect(),
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
            checksum_ok: match &bad_blocks {
                Some(bad) => {
                    (records.is_some() || !stored)
                        && !bad
                            .iter()
                            .any(|b| b.starts_with(&format!("{} (", info.name)))
                }
                None => records.is_some_and(|r| crate::table::checksum(&r) == info.checksum),
            },
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
