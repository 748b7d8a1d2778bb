//! A set of tables made in order, each after the tables it reads (a chess material after
//! the materials its captures and promotions lead to). A table already there is kept; a
//! run killed at any moment resumes from the tables whole on disk; and, compressed, each
//! table is compressed straight from its solve (never written dense, no best move made),
//! storing both sides to move while a table still to be made reads it (the fast form to
//! read), then its final form once none does.
//!
//! The game says which tables, in what order and at what cost ([`TableSet`]); this runs
//! them for `retro generate` and for the tables `retro serve` makes by default, and tells a
//! [`Report`] what happens, in [`Event`]s: the words are the caller's.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{generate, with_threads, GenerateError, Generated};
use crate::plugin::Plugin;
use crate::progress::Bar;
use crate::solve::SolveError;
use crate::table::compressed::{self, Compressed, Sides};
use crate::table::{Table, TableError, EXTENSION};

/// What making one table takes, said before a solve that may run for half an hour.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cost {
    /// Index slots, both sides to move.
    pub positions: u64,
    /// Core seconds the table takes (the wall time on N cores times N), as the game
    /// estimates them from a machine it was measured on: the run's estimate of the time
    /// left weighs the tables by it, scaled by how long the tables made so far took.
    pub core_seconds: f64,
    /// Peak memory of the solve, sub-tables mapped included.
    pub memory_bytes: u64,
    /// Size of the dense file.
    pub file_bytes: u64,
}

/// A game's set of tables, planned before anything is written.
pub trait TableSet {
    /// How many tables the set holds.
    fn len(&self) -> usize;
    /// Whether it holds none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Table `i`'s name (`KQvKR`, `KQvKR.dtz`), in the order to make them: every table
    /// after the tables it reads.
    fn name(&self, i: usize) -> String;
    /// Whether table `i` is still to be made in `dir`. Asked for every table before the
    /// run, and again just before each is made (another run may have made it meanwhile).
    fn to_make(&self, i: usize, dir: &Path) -> bool;
    /// What making table `i` costs, if the game knows.
    fn cost(&self, i: usize) -> Option<Cost>;
    /// Per table, the last table of the set that reads it (`None`: none does).
    fn last_readers(&self) -> Vec<Option<usize>>;
    /// Let go of table `i` if the set holds it open: no table left to make reads it, or its
    /// file is about to be replaced or removed (a file held open keeps its disk space, and
    /// the pages of a mapped one count in the run's resident memory).
    fn release(&mut self, i: usize);
    /// The game that makes table `i`, reading the tables it needs from `dir`.
    fn plugin(&self, i: usize, dir: &Path)
        -> Result<Box<dyn Plugin>, Box<dyn Error + Send + Sync>>;
    /// The sides to move a table's final compressed form keeps (chess: one; a game whose
    /// moves may stay within a section: both).
    fn sides(&self) -> Sides;
}

/// How to make a set.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Worker threads (`None`: one per core).
    pub threads: Option<usize>,
    /// Keep each table compressed (`None`: dense files only).
    pub compress: Option<Compress>,
    /// The bytes of memory this run may use: half of it may hold the blocks decoded from
    /// compressed sub-tables.
    pub memory: Option<u64>,
}

/// How a set's tables are compressed.
#[derive(Clone, Copy, Debug)]
pub struct Compress {
    /// zstd level of the final form (see [`compressed::LEVELS`]); `None`: each table's
    /// metric's ([`compressed::default_level`]).
    pub level: Option<i32>,
    /// Slots a block (see [`compressed::reblock`]); `None`: each table's own
    /// ([`compressed::block_slots`]).
    pub block_slots: Option<u32>,
    /// Keep the dense files beside the compressed ones.
    pub keep_dense: bool,
    /// Compress the dense tables of the set already there too (`retro generate
    /// --compress`); otherwise only the tables made now are, and tables found are kept as
    /// they are (`retro serve`).
    pub found_too: bool,
}

/// The time a run has taken so far, and the time it should still take, from the
/// estimated core seconds of the tables made so far and of those left ([`Cost::core_seconds`]).
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub elapsed: f64,
    pub left: Option<f64>,
}

impl std::fmt::Display for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let so_far = crate::progress::duration(self.elapsed);
        match self.left {
            None => write!(f, "{so_far} so far"),
            Some(left) => write!(
                f,
                "{so_far} so far, about {} left",
                crate::progress::duration(left)
            ),
        }
    }
}

/// What happens while a set is made, in the order it happens.
pub enum Event<'a> {
    /// A temporary file left by a run killed while it wrote this table (or compressed or
    /// trimmed it) was removed.
    Removed { path: &'a Path },
    /// Table `i` (of `total`) is there already.
    Present {
        i: usize,
        total: usize,
        name: &'a str,
        clock: Clock,
    },
    /// Table `i` (of `total`) is to be made now.
    Making {
        i: usize,
        total: usize,
        name: &'a str,
        cost: Option<Cost>,
        clock: Clock,
    },
    /// A solve starts.
    Generating { plugin: &'a dyn Plugin },
    /// A temporary file of the table being made, left by an interrupted run, was removed.
    RemovedOwn { path: &'a Path },
    /// A table is written, dense.
    Generated {
        plugin: &'a dyn Plugin,
        done: &'a Generated,
    },
    /// The compressed file of the dense table `from` is written, in `seconds`.
    Compressed {
        from: &'a Path,
        compressed: &'a Compressed,
        seconds: f64,
    },
    /// A compressed table that stored both sides to move now stores one, as nothing left
    /// to make reads it.
    Trimmed { compressed: &'a Compressed },
    /// Table `i` (of `total`) is in its form for now: made (`made`) or found, and
    /// compressed if asked.
    Settled {
        i: usize,
        total: usize,
        name: &'a str,
        made: bool,
        clock: Clock,
    },
}

/// Hears a set's [`Event`]s and shows the work's progress.
pub trait Report {
    /// A progress display for one step (a solve, a compression), or none.
    fn bar(&self) -> Option<Bar>;
    /// Something happened; an error (a closed output) stops the run.
    fn event(&mut self, e: Event<'_>) -> Result<(), Box<dyn Error + Send + Sync>>;
}

/// Reports nothing (tests, library use).
pub struct Quiet;

impl Report for Quiet {
    fn bar(&self) -> Option<Bar> {
        None
    }
    fn event(&mut self, _e: Event<'_>) -> Result<(), Box<dyn Error + Send + Sync>> {
        Ok(())
    }
}

/// Why a set could not be made. The tables written before the error stay, whole.
#[derive(Debug, thiserror::Error)]
pub enum MakeError {
    /// The game of a table could not be made (chess: a sub-table missing or bad).
    #[error(transparent)]
    Open(Box<dyn Error + Send + Sync>),
    #[error(transparent)]
    Generate(#[from] GenerateError),
    #[error(transparent)]
    Table(#[from] TableError),
    #[error(transparent)]
    Threads(#[from] SolveError),
    #[error("removing {}", .path.display())]
    Remove {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The report failed (its output closed): said in the report's own words.
    #[error("{0}")]
    Report(#[source] Box<dyn Error + Send + Sync>),
}

/// What a run did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tally {
    /// Tables made, and tables found there already.
    pub made: usize,
    pub found: usize,
    pub seconds: f64,
}

/// Make the tables of `set` missing from `dir`, in its order, as `opts` says.
pub fn make(
    set: &mut dyn TableSet,
    dir: &Path,
    opts: &Options,
    report: &mut dyn Report,
) -> Result<Tally, MakeError> {
    let compress = opts.compress;
    if compress.is_some_and(|c| !c.keep_dense) {
        // The tables made read their sub-tables' compressed files, every block many times
        // over: each block is decoded once and kept, within half the memory there is
        // (decoded, a block takes half its dense bytes, which the memory estimate counts).
        let half = opts.memory.map_or(0, |n| n / 2) as usize;
        let budget = crate::table::cache::CacheBudget::process();
        budget.set_limit(budget.limit().max(half));
    }
    let total = set.len();
    let readers = set.last_readers();
    let start = Instant::now();
    let work: Vec<f64> = (0..total)
        .map(|i| set.cost(i).map_or(0.0, |c| c.core_seconds))
        .collect();
    let to_make: Vec<bool> = (0..total).map(|i| set.to_make(i, dir)).collect();
    // The estimated work of the tables to make, for the estimate of the time left.
    let mut left: f64 = (0..total).filter(|&i| to_make[i]).map(|i| work[i]).sum();
    let (mut made, mut found, mut done) = (0, 0, 0.0);
    let cores = opts
        .threads
        .unwrap_or_else(rayon::current_num_threads)
        .max(1) as f64;
    for i in 0..total {
        let name = set.name(i);
        // A run killed while it wrote this table, or compressed or trimmed it, left its
        // temporary file (the table under its final name is whole: the last form made).
        for path in crate::table::writer::remove_stale_temps(dir, &name)? {
            say(report, Event::Removed { path: &path })?;
        }
        let now = clock(start, done, left, cores);
        let making = to_make[i] && set.to_make(i, dir);
        if making {
            let cost = set.cost(i);
            say(
                report,
                Event::Making {
                    i: i + 1,
                    total,
                    name: &name,
                    cost,
                    clock: now,
                },
            )?;
            let plugin = set.plugin(i, dir).map_err(MakeError::Open)?;
            // Compressed as it is solved: its dense form, best moves and all, would only be
            // compressed and removed.
            let form = compress.filter(|c| !c.keep_dense).map(|c| {
                let read_later = readers[i].is_some_and(|j| j > i);
                first_form(set.sides(), read_later, &c)
            });
            make_one(&*plugin, dir, opts.threads, form, report)?;
            made += 1;
            done += work[i];
            left = (left - work[i]).max(0.0);
        } else {
            say(
                report,
                Event::Present {
                    i: i + 1,
                    total,
                    name: &name,
                    clock: now,
                },
            )?;
            found += 1;
        }
        if let Some(c) = compress.filter(|c| making || c.found_too) {
            let read_later = readers[i].is_some_and(|j| j > i);
            settle(set, i, dir, read_later, &c, opts.threads, report)?;
        }
        // A table held open since the plan is let go once nothing left reads it: this
        // one if no table reads it, and those this one was the last to read (made or
        // found: KRPvKP's run, its closure present, held the 26 tables only the tables
        // it found read, 7.3 GB of mapped files, to its end). Compressed, those keep one
        // side to move from now on.
        if readers[i].is_none() {
            set.release(i);
        }
        for k in (0..i).filter(|&k| readers[k] == Some(i)) {
            if let Some(c) = compress {
                trim(set, k, dir, &c, opts.threads, report)?;
            }
            set.release(k);
        }
        let e = Event::Settled {
            i: i + 1,
            total,
            name: &name,
            made: making,
            clock: clock(start, done, left, cores),
        };
        say(report, e)?;
    }
    Ok(Tally {
        made,
        found,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// The run's clock: `done` core seconds of estimated work made since `start`, `left` to
/// make, on `cores`.
fn clock(start: Instant, done: f64, left: f64, cores: f64) -> Clock {
    let elapsed = start.elapsed().as_secs_f64();
    Clock {
        elapsed,
        left: time_left(elapsed, done, left, cores),
    }
}

/// Estimated work (core seconds, [`Cost::core_seconds`]) after which the run's own pace
/// counts as much as the estimate's: small tables take longer than their size says, so
/// the pace of the first tables alone would promise hours for a minute's run.
const PACE_AFTER: f64 = 120.0;

/// The wall time `left` estimated core seconds should take, `done` having taken `elapsed`:
/// the estimate's own pace (the work spread over `cores`) at first, the run's as it goes.
/// `None` if the game gave no estimate.
fn time_left(elapsed: f64, done: f64, left: f64, cores: f64) -> Option<f64> {
    if done + left <= 0.0 {
        return None;
    }
    let estimated = 1.0 / cores;
    let pace = (elapsed + PACE_AFTER * estimated) / (done + PACE_AFTER);
    Some(left * pace)
}

/// Tell `report` of `e`.
fn say(report: &mut dyn Report, e: Event<'_>) -> Result<(), MakeError> {
    report.event(e).map_err(MakeError::Report)
}

/// Generate one table into `dir` on `threads` workers, reporting its solve and summary;
/// the table written: dense, or with `compressed` (sides, zstd level, slots a block)
/// compressed as it is solved ([`super::generate_compressed`]).
pub fn make_one(
    plugin: &dyn Plugin,
    dir: &Path,
    threads: Option<usize>,
    compressed: Option<(Sides, Option<i32>, Option<u32>)>,
    report: &mut dyn Report,
) -> Result<Generated, MakeError> {
    say(report, Event::Generating { plugin })?;
    let bar = report.bar();
    let done = with_threads(threads, || match compressed {
        Some((sides, level, slots)) => {
            super::generate_compressed(plugin, dir, sides, level, slots, &bar).map(|(done, _)| done)
        }
        None => generate(plugin, dir, &bar),
    })??;
    bar.iter().for_each(Bar::finish);
    for path in &done.removed_temps {
        say(report, Event::RemovedOwn { path })?;
    }
    say(
        report,
        Event::Generated {
            plugin,
            done: &done,
        },
    )?;
    Ok(done)
}

/// The form a table of a set is first compressed in: while a table still to be made reads
/// it (`read_later`), both sides to move at the fast level that weighs them, until nothing
/// left to make reads it ([`trim`]); otherwise its final form.
fn first_form(
    final_sides: Sides,
    read_later: bool,
    c: &Compress,
) -> (Sides, Option<i32>, Option<u32>) {
    if read_later && !c.keep_dense && final_sides == Sides::One {
        (Sides::Both, Some(compressed::TRIAL_LEVEL), c.block_slots)
    } else {
        (final_sides, c.level, c.block_slots)
    }
}

/// The dense file of table `name` in `dir`, and its compressed one.
fn files(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    (
        dir.join(format!("{name}.{EXTENSION}")),
        dir.join(format!("{name}.{}", compressed::EXTENSION)),
    )
}

/// Compressing, once table `i` is there: its compressed file, storing both sides to move
/// while a table still to be made reads it (`read_later`), and its dense file gone (unless
/// kept). A run killed at any point finds the table in one form or the other, each complete
/// (both are written to a temporary file and renamed), and goes on from there.
fn settle(
    set: &mut dyn TableSet,
    i: usize,
    dir: &Path,
    read_later: bool,
    c: &Compress,
    threads: Option<usize>,
    report: &mut dyn Report,
) -> Result<(), MakeError> {
    let (dense, small) = files(dir, &set.name(i));
    if !dense.exists() {
        return Ok(());
    }
    if !small.exists() {
        // Kept dense, it is read from its dense file: its final form at once (as it is
        // where the final form keeps both sides).
        let (sides, level, slots) = first_form(set.sides(), read_later, c);
        let table = Table::open(&dense)?;
        let bar = report.bar();
        let t = Instant::now();
        let made = with_threads(threads, || match slots {
            Some(n) => compressed::compress_in_blocks(&table, dir, sides, level, n, &bar),
            None => compressed::compress(&table, dir, sides, level, &bar),
        })??;
        bar.iter().for_each(Bar::finish);
        let e = Event::Compressed {
            from: &dense,
            compressed: &made,
            seconds: t.elapsed().as_secs_f64(),
        };
        say(report, e)?;
    }
    if !c.keep_dense {
        set.release(i);
        std::fs::remove_file(&dense).map_err(|source| MakeError::Remove {
            path: dense,
            source,
        })?;
    }
    Ok(())
}

/// Table `k`, compressed, that no table left to make reads: one side to move from now on,
/// at the final level, if it stores both and no dense twin is kept.
fn trim(
    set: &mut dyn TableSet,
    k: usize,
    dir: &Path,
    c: &Compress,
    threads: Option<usize>,
    report: &mut dyn Report,
) -> Result<(), MakeError> {
    let (dense, small) = files(dir, &set.name(k));
    if !small.exists() || dense.exists() || set.sides() == Sides::Both {
        return Ok(());
    }
    set.release(k);
    let table = Table::open_unverified(&small)?;
    let bar = report.bar();
    let trimmed = with_threads(threads, || compressed::trim(&table, dir, c.level, &bar))??;
    bar.iter().for_each(Bar::finish);
    if let Some(compressed) = &trimmed {
        say(report, Event::Trimmed { compressed })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// Tables all present, reading each other as `readers` says; what happens, in order.
    struct Found {
        readers: Vec<Option<usize>>,
        log: Arc<Mutex<Vec<String>>>,
    }

    impl TableSet for Found {
        fn len(&self) -> usize {
            self.readers.len()
        }
        fn name(&self, i: usize) -> String {
            format!("t{i}")
        }
        fn to_make(&self, _i: usize, _dir: &Path) -> bool {
            false
        }
        fn cost(&self, _i: usize) -> Option<Cost> {
            None
        }
        fn last_readers(&self) -> Vec<Option<usize>> {
            self.readers.clone()
        }
        fn release(&mut self, i: usize) {
            self.log.lock().unwrap().push(format!("release t{i}"));
        }
        fn plugin(
            &self,
            _i: usize,
            _dir: &Path,
        ) -> Result<Box<dyn Plugin>, Box<dyn Error + Send + Sync>> {
            Err("nothing is made".into())
        }
        fn sides(&self) -> Sides {
            Sides::One
        }
    }

    impl Report for Found {
        fn bar(&self) -> Option<Bar> {
            None
        }
        fn event(&mut self, e: Event<'_>) -> Result<(), Box<dyn Error + Send + Sync>> {
            if let Event::Present { name, .. } = e {
                self.log.lock().unwrap().push(format!("found {name}"));
            }
            Ok(())
        }
    }

    #[test]
    fn the_time_left_starts_from_the_estimate_and_follows_the_runs_pace() {
        // Nothing made yet: 3,600 core seconds on 2 cores.
        assert_eq!(time_left(0.0, 0.0, 3600.0, 2.0), Some(1800.0));
        // Small tables first, ten times slower than estimated: a run that has done little
        // work hardly moves the estimate...
        let early = time_left(10.0, 2.0, 3598.0, 2.0).unwrap();
        assert!((1800.0..2100.0).contains(&early), "{early}");
        // ...one that has done much follows its own pace (here 1.5 s a core second).
        let late = time_left(15_000.0, 10_000.0, 1000.0, 2.0).unwrap();
        assert!((late - 1500.0).abs() < 20.0, "{late}");
        // No estimate from the game: none given.
        assert_eq!(time_left(5.0, 0.0, 0.0, 2.0), None);
    }

    #[test]
    fn a_table_is_let_go_once_its_last_reader_is_there() {
        let log = Arc::new(Mutex::new(Vec::new()));
        // t0 is read last by t2, t1 by t3; nothing reads t2 or t3.
        let readers = vec![Some(2), Some(3), None, None];
        let mut set = Found {
            readers: readers.clone(),
            log: log.clone(),
        };
        let mut report = Found {
            readers,
            log: log.clone(),
        };
        let dir = tempfile::tempdir().unwrap();
        let tally = make(&mut set, dir.path(), &Options::default(), &mut report).unwrap();
        assert_eq!((tally.made, tally.found), (0, 4));
        let log = log.lock().unwrap().clone();
        assert_eq!(
            log,
            [
                "found t0",
                "found t1",
                "found t2",
                "release t2",
                "release t0",
                "found t3",
                "release t3",
                "release t1"
            ]
        );
    }
}
