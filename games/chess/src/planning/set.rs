//! A chess table set, worked out before anything is written: the tables a request means,
//! each after the tables it reads, which of them are missing, and whether each fits in the
//! memory there is. The engine makes the result ([`retro_engine::generate::set::make`], for
//! `retro generate chess` and the tables `retro serve` makes by default); the distributed
//! runners get the same order from `retro plan` ([`super::plan::tasks`]).

use std::path::Path;
use std::sync::Arc;

use super::plan::{
    check_disk, check_memory, closure, estimate, file_present, open_present, present_metric,
    present_unread, NoRoom, TooBig,
};
use crate::indexing::subtables::table_name;
use crate::rules::material::Material;
use retro_engine::generate::set::{Cost, TableSet};
use retro_engine::plugin::Plugin;
use retro_engine::table::compressed::Sides;
use retro_engine::table::{Metric, Table, TableError};

/// One table of the set: a material and the metric it holds.
pub type Entry = (Material, Metric);

/// The set's tables in the order to make them, and the ones missing when it was planned.
#[derive(Debug)]
pub struct Set {
    pub order: Vec<Entry>,
    missing: Vec<Entry>,
    /// The large tables present when it was planned, checked then and held open (mapped):
    /// the tables made after them read them without checking them again. Only held, never
    /// read, and let go by [`Set::release`].
    present: Vec<(Entry, Arc<Table>)>,
}

/// Why a set cannot be made: nothing has been written.
#[derive(Debug, thiserror::Error)]
pub enum SetError {
    /// A damaged table, or one of another material, where a table of the set goes: it is
    /// never overwritten silently.
    #[error("{name} is in the way (delete it to make it anew): {source}")]
    InTheWay { name: String, source: TableError },
    #[error(transparent)]
    TooBig(#[from] TooBig),
    #[error(transparent)]
    NoRoom(#[from] NoRoom),
}

/// The name of an entry's table (`KQvKR`, `KQvKR.dtz`).
pub fn name(entry: &Entry) -> String {
    table_name(&entry.0, entry.1)
}

/// The set of `targets` and every table they read, each material's tables in the order of
/// `metrics` (DTM before DTZ: a DTZ table reads its sub-materials' DTZ tables, which come
/// first). `memory`, the bytes this run may use and where that figure came from, refuses a
/// missing table whose estimated peak is larger; `disk`, the bytes free where `dir` is,
/// refuses missing tables whose files take more together (`compressed`: as they take when
/// compressed as they are made, [`super::plan::check_disk`]).
pub fn plan(
    targets: &[Material],
    metrics: &[Metric],
    dir: &Path,
    memory: Option<(u64, &str)>,
    disk: Option<u64>,
    compressed: bool,
) -> Result<Set, SetError> {
    let order: Vec<Entry> = closure(targets)
        .into_iter()
        .flat_map(|m| metrics.iter().map(move |&k| (m.clone(), k)))
        .collect();
    let read = read_by_missing(&order, |(m, k)| file_present(dir, m, *k));
    let (mut missing, mut present) = (Vec::new(), Vec::new());
    for entry in &order {
        let (m, metric) = (&entry.0, entry.1);
        // Only what a table to make reads is read through to check it.
        let found = if read.contains(entry) {
            open_present(dir, m, metric).map(|t| t.map(Some))
        } else {
            present_unread(dir, m, metric).map(|p| p.then_some(None))
        };
        let found = found.map_err(|source| SetError::InTheWay {
            name: name(entry),
            source,
        })?;
        match found {
            // Only mapped tables are held: their pages are the file's, which the system
            // takes back as it needs, where a small table read into memory would stay in
            // this process's memory for the whole run (and is quick to check again).
            Some(Some(t)) if !t.survives_changes() => present.push((entry.clone(), t)),
            Some(_) => {}
            None => missing.push(entry.clone()),
        }
    }
    if let Some((available, source_of)) = memory {
        check_memory(&missing, available, source_of)?;
    }
    if let Some(free) = disk {
        check_disk(&missing, free, dir, compressed)?;
    }
    Ok(Set {
        order,
        missing,
        present,
    })
}

/// The tables of `order` that a table not `present` reads: only these are worth holding
/// open while the set is made.
fn read_by_missing(order: &[Entry], present: impl Fn(&Entry) -> bool) -> Vec<Entry> {
    order
        .iter()
        .filter(|e| !present(e))
        .flat_map(|(m, k)| m.children().into_iter().map(|c| (c.canonical().0, *k)))
        .collect()
}

impl TableSet for Set {
    fn len(&self) -> usize {
        self.order.len()
    }

    fn name(&self, i: usize) -> String {
        name(&self.order[i])
    }

    /// Whether table `i` is still to be made: it was missing when planned and still is (a
    /// copy of this run elsewhere, a retried task of a distributed run, may have made it
    /// meanwhile).
    fn to_make(&self, i: usize, dir: &Path) -> bool {
        let (m, metric) = &self.order[i];
        self.missing.contains(&self.order[i]) && !present_metric(dir, m, *metric).unwrap_or(false)
    }

    fn cost(&self, i: usize) -> Option<Cost> {
        let e = estimate(&self.order[i].0, self.order[i].1);
        Some(Cost {
            positions: e.positions,
            memory_bytes: e.memory_bytes,
            file_bytes: e.file_bytes,
            core_seconds: e.core_seconds,
        })
    }

    fn last_readers(&self) -> Vec<Option<usize>> {
        let mut last = vec![None; self.order.len()];
        for (j, (m, metric)) in self.order.iter().enumerate() {
            for child in m.children() {
                let child = (child.canonical().0, *metric);
                if let Some(k) = self.order.iter().position(|e| *e == child) {
                    last[k] = Some(j);
                }
            }
        }
        last
    }

    /// Stop holding table `i` open.
    fn release(&mut self, i: usize) {
        let entry = &self.order[i];
        self.present.retain(|(e, _)| e != entry);
    }

    fn plugin(
        &self,
        i: usize,
        dir: &Path,
    ) -> Result<Box<dyn Plugin>, Box<dyn std::error::Error + Send + Sync>> {
        Ok(crate::indexing::registry::CHESS.plugin_in(&name(&self.order[i]), dir)?)
    }

    /// Chess moves always pass the turn: either side's slots follow from the other's.
    fn sides(&self) -> Sides {
        Sides::One
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_tables_a_missing_table_reads_are_held() {
        let m = |s: &str| Material::parse(s).unwrap();
        let order: Vec<Entry> = closure(&[m("KQvKR"), m("KQRvK"), m("KRRvK")])
            .into_iter()
            .map(|x| (x, Metric::Dtm))
            .collect();
        let names = |v: &[Entry]| {
            let mut n: Vec<String> = v.iter().map(name).collect();
            n.sort();
            n.dedup();
            n
        };
        // KQvKR missing, KQRvK and the 3-piece tables present: KQvKR reads KQvK and KRvK;
        // KQRvK, which nothing left to make reads, is not held, nor what only it reads.
        let read = read_by_missing(&order, |e| name(e) != "KQvKR");
        assert_eq!(names(&read), ["KQvK", "KRvK"]);
        // KRRvK alone missing: it reads KRvK, not KQvK.
        let read = read_by_missing(&order, |e| name(e) != "KRRvK");
        assert_eq!(names(&read), ["KRvK"]);
        // Nothing missing: nothing held.
        assert!(read_by_missing(&order, |_| true).is_empty());
        // KQvKR's DTZ table reads the DTZ tables.
        let dtz: Vec<Entry> = order
            .iter()
            .map(|(x, _)| (x.clone(), Metric::Dtz))
            .collect();
        let read = read_by_missing(&dtz, |e| name(e) != "KQvKR.dtz");
        assert_eq!(names(&read), ["KQvK.dtz", "KRvK.dtz"]);
    }
}
