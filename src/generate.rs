//! Generating a table: solve, write atomically, report.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::game::SolveOptions;
use crate::progress::Progress;
use crate::registry::Plugin;
use crate::solve::SolveError;
use crate::table::{write_table, Header, TableError};

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
    /// Wall time of the solve alone, and of solve + write.
    pub solve_seconds: f64,
    pub total_seconds: f64,
}

/// Solve `plugin` and write its table into `dir` (created if needed). Runs on the current
/// rayon pool; see [`with_threads`].
pub fn generate(
    plugin: &dyn Plugin,
    dir: &Path,
    progress: &dyn Progress,
) -> Result<Generated, GenerateError> {
    let start = Instant::now();
    let solution = plugin.solve(&SolveOptions { progress })?;
    let solve_seconds = start.elapsed().as_secs_f64();
    progress.phase("writing", 0);
    let (game, params) = plugin.params();
    let (path, header) = write_table(
        dir,
        game,
        &plugin.name(),
        params,
        &plugin.sections(),
        &solution.records,
    )?;
    Ok(Generated {
        path,
        header,
        solve_seconds,
        total_seconds: start.elapsed().as_secs_f64(),
    })
}

/// Run `f` on a rayon pool of `threads` workers (`None`: one per core).
pub fn with_threads<R: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> R + Send,
) -> Result<R, SolveError> {
    let n = threads.unwrap_or(0);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|source| SolveError::Threads { threads: n, source })?;
    Ok(pool.install(f))
}
