//! Per-distance statistics of a table, for people (`retro generate`, `retro info`, the
//! server's table list).

use serde::Serialize;

use crate::game::Value;
use crate::present::DistanceUnit;
use crate::table::Header;

/// Counts of one section.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SectionStats {
    pub name: String,
    pub records: u64,
    pub legal: u64,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    /// Longest win or loss, in the game's unit, and how many positions have it.
    pub longest: Option<(u16, u64)>,
    /// `(distance, wins, losses)` per distance in the game's unit, ascending.
    pub by_distance: Vec<(u16, u64, u64)>,
}

/// Statistics of every section, from the header's histograms.
pub fn stats(header: &Header, unit: DistanceUnit) -> Vec<SectionStats> {
    // A header that decoded names a metric this build reads.
    let metric =
        crate::table::Metric::of_params(&header.params).unwrap_or(crate::table::Metric::Dtm);
    header
        .sections
        .iter()
        .map(|s| {
            let mut st = SectionStats {
                name: s.name.clone(),
                records: s.records,
                ..Default::default()
            };
            let mut dist = std::collections::BTreeMap::<u16, (u64, u64)>::new();
            for (code, &n) in s.histogram.iter().enumerate() {
                let Some(v) = metric.from_code(code).filter(|_| n > 0) else {
                    continue;
                };
                match v {
                    Value::Illegal => continue,
                    Value::Draw => st.draws += n,
                    Value::Win(_) => st.wins += n,
                    Value::Loss(_) => st.losses += n,
                }
                st.legal += n;
                if let Some(d) = unit.count(v) {
                    let e = dist.entry(d).or_default();
                    if matches!(v, Value::Win(_)) {
                        e.0 += n
                    } else {
                        e.1 += n
                    }
                }
            }
            st.by_distance = dist.into_iter().map(|(d, (w, l))| (d, w, l)).collect();
            st.longest = st.by_distance.last().map(|&(d, w, l)| (d, w + l));
            st
        })
        .collect()
}

/// A plain-text table of the statistics: one row per distance, a column for each side's
/// wins and losses (columns that would be all zero are left out).
pub fn render(stats: &[SectionStats], unit: DistanceUnit) -> String {
    use std::fmt::Write;
    // (section, wins?) for every column that has a non-zero entry.
    let columns: Vec<(usize, bool)> = stats
        .iter()
        .enumerate()
        .flat_map(|(k, s)| [(k, true, s.wins), (k, false, s.losses)])
        .filter(|c| c.2 > 0)
        .map(|(k, w, _)| (k, w))
        .collect();
    let mut out = String::new();
    let _ = write!(out, "{:>8}", unit.word());
    for &(k, wins) in &columns {
        let what = if wins { "wins" } else { "losses" };
        let _ = write!(out, " {:>14}", format!("{} {what}", stats[k].name));
    }
    out.push('\n');
    let mut all: Vec<u16> = stats
        .iter()
        .flat_map(|s| s.by_distance.iter().map(|d| d.0))
        .collect();
    all.sort_unstable();
    all.dedup();
    for d in all {
        let _ = write!(out, "{d:>8}");
        for &(k, wins) in &columns {
            let n = stats[k]
                .by_distance
                .iter()
                .find(|x| x.0 == d)
                .map_or(0, |x| if wins { x.1 } else { x.2 });
            let _ = write!(out, " {n:>14}");
        }
        out.push('\n');
    }
    for s in stats {
        let _ = writeln!(
            out,
            "{}: {} records, {} legal: {} wins, {} losses, {} draws{}",
            s.name,
            s.records,
            s.legal,
            s.wins,
            s.losses,
            s.draws,
            s.longest
                .map(|(d, n)| format!("; longest {d} {} ({n} positions)", unit.word()))
                .unwrap_or_default()
        );
    }
    out
}

/// A table's statistics in one line: its positions, the results for the side to move, and
/// the longest distance with how many positions reach it, over every section
/// (`46137 positions: 18081 wins, 25160 losses, 2896 draws; longest 10 moves (9 positions)`).
pub fn one_line(stats: &[SectionStats], unit: DistanceUnit) -> String {
    let sum = |f: fn(&SectionStats) -> u64| stats.iter().map(f).sum::<u64>();
    let mut text = format!(
        "{} positions: {} wins, {} losses, {} draws",
        sum(|s| s.legal),
        sum(|s| s.wins),
        sum(|s| s.losses),
        sum(|s| s.draws)
    );
    if let Some(d) = stats.iter().filter_map(|s| s.longest).map(|l| l.0).max() {
        let n: u64 = stats
            .iter()
            .filter_map(|s| s.longest.filter(|l| l.0 == d))
            .map(|l| l.1)
            .sum();
        text.push_str(&format!("; longest {d} {} ({n} positions)", unit.word()));
    }
    text
}

pub use crate::table::metric::longest;

pub use crate::progress::duration;
