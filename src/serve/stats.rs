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
    let mut first = 0u64;
    let mut sections = Vec::new();
    for (info, stats) in header.sections.iter().zip(counts) {
        let records = table.section_records(info);
        let longest_positions = longest(records).map(|(byte, value, plies)| {
            let positions = records
                .chunks_exact(2)
                .enumerate()
                .filter(|(_, r)| r[0] == byte)
                .filter_map(|(i, _)| plugin.position_at(first + i as u64))
                .take(LONGEST_SHOWN)
                .collect();
            Longest {
                category: if matches!(value, Value::Win(_)) {
                    "win"
                } else {
                    "loss"
                },
                plies,
                distance: unit.count(value).unwrap_or(plies),
                count: info.histogram.get(byte as usize).copied().unwrap_or(0),
                positions,
            }
        });
        sections.push(SectionReport {
            checksum: format!("{:016x}", info.checksum),
            checksum_ok: crate::table::checksum(records) == info.checksum,
            longest_positions,
            stats,
        });
        first += info.records;
    }
    TableStats {
        name: name.to_string(),
        title: plugin.title(),
        viewer: plugin.viewer(),
        unit: unit.word(),
        records: header.records(),
        bytes: table.file_len(),
        sections,
    }
}

/// The value byte, value and plies of the longest win or loss among `records` (a win
/// before a loss of the same length: the winner's view is the one people look up).
fn longest(records: &[u8]) -> Option<(u8, Value, u16)> {
    let mut seen = [false; 256];
    for r in records.chunks_exact(2) {
        seen[r[0] as usize] = true;
    }
    (0..=255u8)
        .filter(|&b| seen[b as usize])
        .filter_map(|b| match Value::from_byte(b) {
            v @ Value::Win(p) => Some((b, v, p, 1)),
            v @ Value::Loss(p) => Some((b, v, p, 0)),
            _ => None,
        })
        .max_by_key(|&(_, _, p, win)| (p, win))
        .map(|(b, v, p, _)| (b, v, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_prefers_the_farthest_then_the_win() {
        let rec = |v: Value| [v.to_byte(), 0];
        let records: Vec<u8> = [
            Value::Draw,
            Value::Win(5),
            Value::Loss(7),
            Value::Win(7),
            Value::Illegal,
            Value::Loss(2),
        ]
        .iter()
        .flat_map(|&v| rec(v))
        .collect();
        let (b, v, p) = longest(&records).unwrap();
        assert_eq!((v, p), (Value::Win(7), 7));
        assert_eq!(b, Value::Win(7).to_byte());
        let draws: Vec<u8> = rec(Value::Draw).repeat(3);
        assert_eq!(longest(&draws), None);
    }
}
