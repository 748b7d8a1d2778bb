//! Which tables a request needs, in the order to make them: every sub-table before the
//! tables that read it; and what each costs ([`estimate`]): the task graph `retro plan`
//! prints for the distributed runners, and the figures `retro generate` checks against the
//! memory it has.

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use crate::indexing::index::Layout;
use crate::indexing::subtables;
use crate::rules::material::Material;
use retro_engine::memory::Bytes;
use retro_engine::table::header::{Header, SectionInfo};
use retro_engine::table::{shared, Load, Table};

/// `targets` and everything their captures and promotions lead to, recursively, each
/// after all of its children (fewer pieces first, then fewer pawns, then by name).
pub fn closure(targets: &[Material]) -> Vec<Material> {
    let mut all: Vec<Material> = Vec::new();
    let mut stack: Vec<Material> = targets.iter().map(|m| m.canonical().0).collect();
    while let Some(m) = stack.pop() {
        if all.contains(&m) {
            continue;
        }
        stack.extend(m.children());
        all.push(m);
    }
    all.sort_by_key(|m| (m.count(), m.has_pawns(), pawns(m), m.to_string()));
    all
}

fn pawns(m: &Material) -> usize {
    m.sides
        .iter()
        .flatten()
        .filter(|&&r| r == crate::rules::material::Role::Pawn)
        .count()
}

/// Whether the table of `m` in `dir` is there to use: `Ok(true)` present and intact
/// (checksums and shape: a resumed run skips it), `Ok(false)` absent or written by an older
/// retro in a format this build cannot read (generating it again is the only use of such a
/// file), and an error for a file that is there but damaged or of another table, which is
/// never overwritten silently: the user decides what to do with it.
pub fn present(dir: &Path, m: &Material) -> Result<bool, retro_engine::table::TableError> {
    present_metric(dir, m, retro_engine::table::Metric::Dtm)
}

/// [`present`], for the table of `m` holding `metric`.
pub fn present_metric(
    dir: &Path,
    m: &Material,
    metric: retro_engine::table::Metric,
) -> Result<bool, retro_engine::table::TableError> {
    open_present(dir, m, metric).map(|t| t.is_some())
}

/// Whether `m`'s table of `metric` has a file in `dir` in the current format, not opened
/// nor checked ([`open_present`] does both).
pub fn file_present(dir: &Path, m: &Material, metric: retro_engine::table::Metric) -> bool {
    let path = retro_engine::table::table_path(dir, &subtables::table_name(m, metric));
    path.exists() && !retro_engine::table::written_in_older_format(&path)
}

/// [`present_metric`], giving the table when it is there to use, open and shared
/// ([`retro_engine::table::shared`]): while it is held, the tables that read it open it
/// without checking its checksums again (a 5-piece table's sub-tables are 2 GB to read).
pub fn open_present(
    dir: &Path,
    m: &Material,
    metric: retro_engine::table::Metric,
) -> Result<Option<Arc<Table>>, retro_engine::table::TableError> {
    if !file_present(dir, m, metric) {
        return Ok(None);
    }
    let path = retro_engine::table::table_path(dir, &subtables::table_name(m, metric));
    let t = shared::open(&path, Load::Auto)?;
    of_shape(&t, &path, m, metric)?;
    Ok(Some(t))
}

/// [`present_metric`] for a table that nothing left to make reads: its header and shape
/// checked, its records not read. A resumed run only skips it, and reading it through
/// for its checksums cost more than the table being made: every file of KRPvKP's closure
/// present but its own is 21 GB (`retro verify` checks a set through).
pub fn present_unread(
    dir: &Path,
    m: &Material,
    metric: retro_engine::table::Metric,
) -> Result<bool, retro_engine::table::TableError> {
    if !file_present(dir, m, metric) {
        return Ok(false);
    }
    let path = retro_engine::table::table_path(dir, &subtables::table_name(m, metric));
    of_shape(&Table::open_unverified(&path)?, &path, m, metric)?;
    Ok(true)
}

/// An error unless `t`, opened from `path`, is `m`'s chess table of `metric`.
fn of_shape(
    t: &Table,
    path: &Path,
    m: &Material,
    metric: retro_engine::table::Metric,
) -> Result<(), retro_engine::table::TableError> {
    let name = subtables::table_name(m, metric);
    let l = crate::indexing::index::Layout::new(m);
    let h = t.header();
    let shape = h.game == "chess"
        && h.name == name
        && t.metric() == metric
        && h.sections.len() == 2
        && h.sections.iter().all(|s| s.records == l.section);
    if !shape {
        return Err(retro_engine::table::TableError::WrongGame {
            path: path.to_path_buf(),
            found: format!("{} '{}'", h.game, h.name),
            expected: format!("chess '{name}'"),
        });
    }
    Ok(())
}

/// Solver bytes per index slot at the peak, measured (anonymous memory, `RssAnon` in
/// `/proc/PID/status`: the resident set less the mapped files).
///
/// DTM, the one-byte solver ([`retro_engine::solve::one_byte`]): a value byte and a bit
/// while solving (the candidates for a loss held in a byte no value needs yet; a bit more,
/// and another for the never-lost marks, in the last depths of a table 253 plies deep),
/// then the value byte while the records are written. Anonymous memory at the peak, with
/// the process and the writer's buffers, the sub-tables mapped: KQRvKR 281,228 KiB for
/// its 242 M slots (1.19 bytes a slot), KRPvKR 908,464 KiB for 805 M (1.16); a byte per
/// group more since (the bound on a group's slowest move out of the table): KRPvKP
/// 728,736 KiB for 604 M (1.24).
const ONE_BYTE_BYTES_PER_SLOT: f64 = 1.21;
/// DTZ, the one-byte solver too, its records written without best moves: the same arrays
/// as DTM without pawns; with pawns, solved by tiers, the current tier's bit a slot besides
/// (0.125 bytes more: KRPvKR 1,003,856 KiB, 1.28 bytes a slot). The values beyond a byte
/// (distances past 126 plies, losses past 125) are kept apart, and few: 2,841 slots of
/// KBBvKN's 242 M.
const DTZ_BYTES_PER_SLOT: [f64; 2] = [ONE_BYTE_BYTES_PER_SLOT, ONE_BYTE_BYTES_PER_SLOT + 0.125];
/// The bare-king solver ([`crate::bareking`]) keeps records for every placement of its
/// king quadrant and both orders of twin pieces, then fills the table: KBNvK 11.5, KPPvK
/// 10.3 bytes a stored slot (tables of at most 4 pieces: 200 MB at most).
const BARE_KING_BYTES_PER_SLOT: f64 = 12.0;
/// The process itself (code, thread stacks, small tables): 5 MiB measured, with margin.
const BASE_BYTES: u64 = 16 << 20;

/// Core nanoseconds a slot of a table made the way `retro generate chess --all 5 --metric
/// both --compress` makes it (solved, compressed straight from the solve, and later given
/// its final form): the wall time on the 2-core machine of `docs/five-piece-set.md` times
/// its 2 cores, the moments a core waits included; by kind of table and metric (DTM, DTZ).
/// Measured over the whole 5-piece set's run (2026-12-01, 6,228 s): the tables of each
/// kind, by the wall time between the starts of consecutive tables (which includes the
/// final forms of older tables made meanwhile). Single tables of a kind differ from it by
/// up to five times either way: KBPvKB's DTM took 24 s for its 805 M slots (0.48x), KRPvKP's
/// about 3 minutes for 604 M (4.7x).
const CORE_NS_PER_SLOT: [[f64; 2]; 3] = [
    // Up to 4 pieces: small tables, where the fixed costs of a table count.
    [82.0, 82.0],
    // Without pawns.
    [75.0, 67.0],
    // With pawns.
    [126.0, 146.0],
];

/// What generating one table takes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// Index slots, both sides to move (unused and illegal slots included: the solver
    /// and the file hold them all).
    pub positions: u64,
    /// Size of the table file, exact while the header fits its first 4 KiB page (up to
    /// about 190 distinct values a side); a table with more takes one page more.
    pub file_bytes: u64,
    /// Peak memory of `retro generate chess` for this table alone, its sub-tables
    /// already present: the solver's arrays plus the sub-table files it maps, all of
    /// which a solve reads.
    pub memory_bytes: u64,
    /// Core seconds (the wall time on N cores times N), estimated from like tables made
    /// on a 2-core machine (`CORE_NS_PER_SLOT`): right for a whole set, a guide to the
    /// order of the time for one table (up to five times off either way).
    pub core_seconds: f64,
}

/// The cost of generating `m`'s table (stored colouring) holding `metric`.
pub fn estimate(m: &Material, metric: retro_engine::table::Metric) -> Estimate {
    let m = m.canonical().0;
    let section = Layout::new(&m).section;
    let positions = 2 * section;
    let subs: u64 = m.children().iter().map(|c| file_bytes(c, 0)).sum();
    let per_slot = if crate::bareking::applies(&m) {
        BARE_KING_BYTES_PER_SLOT
    } else if metric == retro_engine::table::Metric::Dtm {
        ONE_BYTE_BYTES_PER_SLOT
    } else {
        DTZ_BYTES_PER_SLOT[m.has_pawns() as usize]
    };
    let kind = if m.count() <= 4 {
        0
    } else {
        1 + m.has_pawns() as usize
    };
    let ns = CORE_NS_PER_SLOT[kind][(metric != retro_engine::table::Metric::Dtm) as usize];
    Estimate {
        positions,
        file_bytes: file_bytes(&m, 0),
        memory_bytes: BASE_BYTES + (positions as f64 * per_slot) as u64 + subs,
        core_seconds: positions as f64 * ns * 1e-9,
    }
}

/// The file size of `m`'s table whose header lists `histogram` values per section.
fn file_bytes(m: &Material, histogram: usize) -> u64 {
    let records = Layout::new(m).section;
    let info = |name: &str| SectionInfo {
        name: name.to_string(),
        records,
        offset: 0,
        checksum: 0,
        histogram: vec![1; histogram],
    };
    let mut h = Header {
        game: "chess".to_string(),
        name: m.to_string(),
        params: vec![("pieces".to_string(), m.count() as i64)],
        sections: vec![info("white"), info("black")],
    };
    h.encode();
    h.file_len()
}

/// One table of a plan: what it reads and what it costs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Task {
    /// The material, stored colouring (`KQvKR`): the argument of `retro generate chess`.
    pub name: String,
    pub pieces: usize,
    /// The sub-tables its captures and promotions lead into: they must be present first.
    pub dependencies: Vec<String>,
    #[serde(flatten)]
    pub estimate: Estimate,
}

/// The task graph of `targets`: every table of their [`closure`] holding each of
/// `metrics`, in that order (a material's DTM table before its DTZ table). A DTZ table reads
/// its sub-materials' DTZ tables; its file is the DTM table's size (16-bit records), its
/// solver takes more memory ([`estimate`]).
pub fn tasks(targets: &[Material], metrics: &[retro_engine::table::Metric]) -> Vec<Task> {
    let name = subtables::table_name;
    closure(targets)
        .iter()
        .flat_map(|m| {
            metrics.iter().map(move |&k| Task {
                name: name(m, k),
                pieces: m.count(),
                dependencies: m.children().iter().map(|c| name(c, k)).collect(),
                estimate: estimate(m, k),
            })
        })
        .collect()
}

/// A table too big for the memory there is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{table} needs about {needed} of memory to generate, and {available} is available ({source_of}): run it on a machine with more memory", needed = Bytes(*.needed), available = Bytes(*.available))]
pub struct TooBig {
    pub table: String,
    pub needed: u64,
    pub available: u64,
    /// Where the available figure came from: `--max-memory`, `MemAvailable`.
    pub source_of: String,
}

/// Refuse, before anything is written, the first of `to_make` (tables of a material and
/// a metric) whose estimate exceeds `available` bytes.
pub fn check_memory(
    to_make: &[(Material, retro_engine::table::Metric)],
    available: u64,
    source_of: &str,
) -> Result<(), TooBig> {
    for (m, metric) in to_make {
        let needed = estimate(m, *metric).memory_bytes;
        if needed > available {
            return Err(TooBig {
                table: subtables::table_name(&m.canonical().0, *metric),
                needed,
                available,
                source_of: source_of.to_string(),
            });
        }
    }
    Ok(())
}

/// A set of tables too big for the disk their files go to.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the {count} table file(s) to make take {needed} of disk{how} ({largest}: {largest_bytes}), and {available} is free in {dir}: free some, or give --out a folder on a larger disk", needed = Bytes(*.needed), largest_bytes = Bytes(*.largest_bytes), available = Bytes(*.available), dir = .dir.display(), how = if *.compressed { " made compressed" } else { "" })]
pub struct NoRoom {
    pub count: usize,
    /// Whether the tables are compressed as they are made.
    pub compressed: bool,
    pub needed: u64,
    /// The largest of them, and its size.
    pub largest: String,
    pub largest_bytes: u64,
    pub available: u64,
    pub dir: std::path::PathBuf,
}

/// Of a table's dense file, the share its compressed file is assumed to take at most while
/// a set is made compressed (both sides to move at zstd level 3): 1/12. Measured: the 35
/// tables of up to 4 pieces take 1/23 so, KRPvKR 1/14 (its final file, one side: 1/35).
pub const COMPRESSED_SHARE: u64 = 12;

/// Refuse, before anything is written, a set of tables (`to_make`) whose files together
/// take more than the `available` bytes of `dir`'s disk. Each file is written whole
/// beside the others (a temporary file renamed), so the sum is what the run needs; made
/// `compressed` (straight from each solve: no dense file), each file at
/// [`COMPRESSED_SHARE`] of its dense size.
pub fn check_disk(
    to_make: &[(Material, retro_engine::table::Metric)],
    available: u64,
    dir: &Path,
    compressed: bool,
) -> Result<(), NoRoom> {
    let sizes: Vec<(String, u64)> = to_make
        .iter()
        .map(|(m, k)| {
            let m = m.canonical().0;
            let dense = file_bytes(&m, 0);
            let bytes = if compressed {
                dense.div_ceil(COMPRESSED_SHARE)
            } else {
                dense
            };
            (subtables::table_name(&m, *k), bytes)
        })
        .collect();
    let needed: u64 = sizes.iter().map(|s| s.1).sum();
    if needed <= available {
        return Ok(());
    }
    let (largest, largest_bytes) = sizes
        .into_iter()
        .max_by_key(|s| s.1)
        .expect("a positive sum has a term");
    Err(NoRoom {
        count: to_make.len(),
        compressed,
        needed,
        largest,
        largest_bytes,
        available,
        dir: dir.to_path_buf(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_engine::table::header::align_up;

    #[test]
    fn order() {
        let v = closure(&[Material::parse("KRvKP").unwrap()]);
        let names: Vec<String> = v.iter().map(|m| m.to_string()).collect();
        // Every child comes before its parent.
        for (i, m) in v.iter().enumerate() {
            for c in m.children() {
                assert!(v[..i].contains(&c), "{c} before {m} in {names:?}");
            }
        }
        assert_eq!(names.last().unwrap(), "KRvKP");
        assert!(names.contains(&"KQvKR".to_string()));
    }

    #[test]
    fn a_table_of_an_older_format_is_made_again_a_damaged_one_refused() {
        let dir = tempfile::tempdir().unwrap();
        let m = Material::parse("KQvK").unwrap();
        assert!(!present(dir.path(), &m).unwrap());
        let p = crate::indexing::registry::CHESS
            .plugin_in("KQvK", dir.path())
            .unwrap();
        retro_engine::generate::generate(&*p, dir.path(), &retro_engine::progress::Silent).unwrap();
        assert!(present(dir.path(), &m).unwrap());
        let path = crate::indexing::subtables::path_of(dir.path(), &m);
        let good = std::fs::read(&path).unwrap();
        let mut old = good.clone();
        old[8..12].copy_from_slice(&2u32.to_le_bytes());
        std::fs::write(&path, &old).unwrap();
        assert!(
            !present(dir.path(), &m).unwrap(),
            "format 2: generate again"
        );
        let mut bad = good;
        bad[5000] ^= 1;
        std::fs::write(&path, &bad).unwrap();
        assert!(present(dir.path(), &m).is_err(), "damaged: refused");
    }

    #[test]
    fn estimates() {
        let dtm = retro_engine::table::Metric::Dtm;
        let kqvkr = estimate(&Material::parse("KRvKQ").unwrap(), dtm);
        // 2 sides x 462 king pairs x 64 x 64 squares, 2 bytes each after a 4 KiB header.
        assert_eq!(kqvkr.positions, 2 * 462 * 64 * 64);
        let section = 462 * 64 * 64 * 2;
        assert_eq!(kqvkr.file_bytes, 4096 + align_up(section) + section);
        // Measured (`retro generate`, RssAnon): the one-byte solve of KQRvKR peaked at
        // 281,228 KiB of anonymous memory for its 2 x 462 x 64^3 slots, KRPvKR's at
        // 908,464 KiB, their sub-tables mapped besides.
        for (m, kib) in [("KQRvKR", 281_228.0), ("KRPvKR", 908_464.0)] {
            let m = Material::parse(m).unwrap();
            let big = estimate(&m, dtm).memory_bytes as f64;
            let subs: u64 = m.children().iter().map(|c| file_bytes(c, 0)).sum();
            let measured = kib * 1024.0 + subs as f64;
            assert!(
                big > measured && big < 1.1 * measured,
                "{m}: {big} vs {measured}"
            );
        }
        // DTZ: the same solver, the same arrays without pawns; with pawns, a tier bit a
        // slot more.
        let dtz = |m: &str| {
            let m = Material::parse(m).unwrap();
            let e = |metric| estimate(&m, metric).memory_bytes;
            (e(dtm), e(retro_engine::table::Metric::Dtz))
        };
        let (a, b) = dtz("KQRvKR");
        assert_eq!(a, b);
        let (a, b) = dtz("KRPvKR");
        let slots = 2 * Layout::new(&Material::parse("KRPvKR").unwrap()).section;
        let more = (b - a) as f64 / slots as f64;
        assert!((0.124..0.126).contains(&more), "{a} {b}");
        // The header fits its first page up to 190 values a side, and takes one more
        // page with all 257.
        let m = Material::parse("KQRvKR").unwrap();
        assert_eq!(file_bytes(&m, 190), file_bytes(&m, 0));
        assert_eq!(file_bytes(&m, 257), file_bytes(&m, 0) + 4096);
    }

    #[test]
    fn a_set_too_big_for_the_disk_is_refused_naming_its_largest_table() {
        let dtm = retro_engine::table::Metric::Dtm;
        let six = Material::parse("KRRvKRR").unwrap();
        // 462 king pairs x 64^4 squares a side, 2 bytes a slot: a 31 GB file.
        let file = estimate(&six, dtm).file_bytes;
        let section = 462 * 64u64.pow(4) * 2;
        assert_eq!(file, 4096 + align_up(section) + section);
        let set = [(Material::parse("KRRvKR").unwrap(), dtm), (six, dtm)];
        let dir = Path::new("tables");
        let need = file + estimate(&set[0].0, dtm).file_bytes;
        assert!(check_disk(&set, need, dir, false).is_ok());
        let e = check_disk(&set, need - 1, dir, false).unwrap_err();
        assert_eq!((e.count, e.needed, e.largest_bytes), (2, need, file));
        assert_eq!(e.largest, "KRRvKRR");
        let text = e.to_string();
        assert!(text.contains("KRRvKRR") && text.contains("GiB"), "{text}");
        // Made compressed: a twelfth of each dense file, no dense file.
        let small = file.div_ceil(COMPRESSED_SHARE)
            + estimate(&set[0].0, dtm)
                .file_bytes
                .div_ceil(COMPRESSED_SHARE);
        assert!(check_disk(&set, small, dir, true).is_ok());
        let e = check_disk(&set, small - 1, dir, true).unwrap_err();
        assert_eq!(
            (e.needed, e.largest_bytes),
            (small, file.div_ceil(COMPRESSED_SHARE))
        );
        assert!(e.to_string().contains("of disk made compressed ("), "{e}");
    }

    #[test]
    fn graph() {
        let t = tasks(&Material::all(4), &[retro_engine::table::Metric::Dtm]);
        assert_eq!(t.len(), 35);
        let kqvkr = t.iter().find(|t| t.name == "KQvKR").unwrap();
        assert_eq!(kqvkr.dependencies, ["KRvK", "KQvK"]);
        for (i, task) in t.iter().enumerate() {
            for d in &task.dependencies {
                assert!(
                    t[..i].iter().any(|x| &x.name == d),
                    "{d} before {}",
                    task.name
                );
            }
        }
    }

    #[test]
    fn too_big_is_refused_naming_the_figures() {
        let m = Material::parse("KQvKR").unwrap();
        let dtm = retro_engine::table::Metric::Dtm;
        let need = estimate(&m, dtm).memory_bytes;
        let t = [(m, dtm)];
        assert!(check_memory(&t, need, "--max-memory").is_ok());
        let e = check_memory(&t, need - 1, "MemAvailable").unwrap_err();
        assert_eq!(e.needed, need);
        let text = e.to_string();
        assert!(text.starts_with("KQvKR needs about "), "{text}");
        assert!(text.contains("(MemAvailable)"), "{text}");
    }
}
