//! Generating a table: solve, write atomically, report; and a set of tables, each after
//! those it reads ([`set`]).

pub mod set;

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::game::{Records, Solution, SolveOptions};
use crate::plugin::Plugin;
use crate::progress::Progress;
use crate::solve::SolveError;
use crate::table::{compressed, header_of, write_records, Header, TableError};

/// Why generation failed.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    #[error(transparent)]
    Solve(#[from] SolveError),
    #[error(transparent)]
    Table(#[from] TableError),
}

/// A finished table.
#[derive(Clone, Debug)]
pub struct Generated {
    pub path: PathBuf,
    pub header: Header,
    /// Wall time of the solve alone (the values: the best moves of the generic solver are
    /// found as the records are written), and of solve + write.
    pub solve_seconds: f64,
    pub total_seconds: f64,
    /// Temporary files of this table left by an earlier, interrupted run, removed first.
    pub removed_temps: Vec<PathBuf>,
}

/// Solve `plugin` and write its table into `dir` (created if needed). Runs on the current
/// rayon pool; see [`with_threads`].
pub fn generate(
    plugin: &dyn Plugin,
    dir: &Path,
    progress: &dyn Progress,
) -> Result<Generated, GenerateError> {
    let start = Instant::now();
    // Before solving: a killed run's temporary file can be hundreds of megabytes.
    let removed_temps = crate::table::writer::remove_stale_temps(dir, &plugin.name())?;
    let records = plugin.solve(&SolveOptions { progress })?;
    let solve_seconds = start.elapsed().as_secs_f64();
    let (game, params) = plugin.params();
    let (path, header) = write_records(
        dir,
        game,
        &plugin.name(),
        params,
        &plugin.sections(),
        &Watched {
            records: &*records,
            plugin,
        },
        progress,
    )?;
    Ok(Generated {
        path,
        header,
        solve_seconds,
        total_seconds: start.elapsed().as_secs_f64(),
        removed_temps,
    })
}

/// Solve `plugin` and write its table into `dir` compressed ([`compressed::compress_records`]:
/// `sides`, zstd `level`, `block_slots` a block or the table's own), never dense: no best
/// move is made, no dense file written. The table made ([`Generated::path`] is the
/// compressed file; [`Generated::header`] holds its statistics, the checksums being the
/// file's) and what compressing it gave.
pub fn generate_compressed(
    plugin: &dyn Plugin,
    dir: &Path,
    sides: compressed::Sides,
    level: Option<i32>,
    block_slots: Option<u32>,
    progress: &dyn Progress,
) -> Result<(Generated, compressed::Compressed), GenerateError> {
    let start = Instant::now();
    let removed_temps = crate::table::writer::remove_stale_temps(dir, &plugin.name())?;
    let records = plugin.solve(&SolveOptions { progress })?;
    let solve_seconds = start.elapsed().as_secs_f64();
    let (game, params) = plugin.params();
    let watched = Watched {
        records: &*records,
        plugin,
    };
    let header = header_of(
        dir,
        game,
        &plugin.name(),
        params,
        &plugin.sections(),
        &watched,
    )?;
    let made = compressed::compress_records(
        &watched,
        header.clone(),
        dir,
        sides,
        level,
        block_slots,
        progress,
    )?;
    let done = Generated {
        path: made.path.clone(),
        header,
        solve_seconds,
        total_seconds: start.elapsed().as_secs_f64(),
        removed_temps,
    };
    Ok((done, made))
}

/// A solver's records, with the damage its sub-tables met: a lookup that meets a damaged
/// block answers "illegal" on whatever thread it runs, so the writer asks here before it
/// keeps the file.
struct Watched<'a> {
    records: &'a dyn Records,
    plugin: &'a dyn Plugin,
}

impl Records for Watched<'_> {
    fn slots(&self) -> u64 {
        self.records.slots()
    }
    fn value(&self, i: crate::game::Index) -> crate::game::Value {
        self.records.value(i)
    }
    fn fill(&self, first: crate::game::Index, out: &mut [u8]) {
        self.records.fill(first, out)
    }
    fn fill_values(&self, first: crate::game::Index, out: &mut [u8]) {
        self.records.fill_values(first, out)
    }
    fn damage(&self) -> Option<TableError> {
        self.plugin.damage()
    }
    fn histogram(
        &self,
        lo: crate::game::Index,
        hi: crate::game::Index,
        metric: crate::table::Metric,
    ) -> Option<Vec<u64>> {
        self.records.histogram(lo, hi, metric)
    }
}

/// Write a solution of `plugin` as its table in `dir`.
pub fn write_solution(
    plugin: &dyn Plugin,
    dir: &Path,
    solution: &Solution,
) -> Result<(PathBuf, Header), TableError> {
    let (game, params) = plugin.params();
    write_records(
        dir,
        game,
        &plugin.name(),
        params,
        &plugin.sections(),
        solution,
        &crate::progress::Silent,
    )
}

/// The most worker threads a pool may have: far more than any machine's cores, far fewer
/// than would exhaust memory or the thread limit (100,000 threads hung the machine).
pub const MAX_THREADS: usize = 1024;

/// Run `f` on a rayon pool of `threads` workers (`None`: one per core; at most
/// [`MAX_THREADS`]).
pub fn with_threads<R: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> R + Send,
) -> Result<R, SolveError> {
    let n = threads.unwrap_or(0);
    if n > MAX_THREADS {
        return Err(SolveError::TooManyThreads {
            threads: n,
            max: MAX_THREADS,
        });
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|source| SolveError::Threads { threads: n, source })?;
    Ok(pool.install(f))
}
