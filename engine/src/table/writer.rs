//! Writing a table: through [`crate::atomic`], as every file retro writes, so that an
//! error or a crash never leaves a half-written file under the real name.
//!
//! A run killed before the rename leaves its temporary file (`.<name>.XXXXXX.tmp`)
//! behind, unlocked: the next generation of the same table removes such files first
//! ([`remove_stale_temps`]); a file still locked belongs to a run in progress and is left
//! alone.

use std::hash::Hasher as _;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::direct::{Aligned, DirectFile};
use super::header::{Header, SectionInfo};
use super::{Metric, TableError, ALIGN, EXTENSION};
use crate::atomic::AtomicFile;
use crate::game::{Records, Section};
use crate::progress::{Progress, Silent};

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
    move |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Histogram of the values of `payload` (records of `metric`), by [`Metric::code`].
pub fn histogram(payload: &[u8], metric: Metric) -> Vec<u64> {
    let bins = metric.codes();
    payload
        .par_chunks(1 << 20)
        .map(|chunk| metric.histogram(chunk))
        .reduce(
            || vec![0u64; bins],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

/// The histogram of the values of `records`' slots `lo..hi`, by [`Metric::code`].
fn value_histogram(records: &dyn Records, lo: u64, hi: u64, metric: Metric) -> Vec<u64> {
    if let Some(h) = records.histogram(lo, hi, metric) {
        return h;
    }
    const STEP: u64 = 1 << 16;
    let bins = metric.codes();
    (0..(hi - lo).div_ceil(STEP))
        .into_par_iter()
        .map(|c| {
            let mut h = vec![0u64; bins];
            for i in lo + c * STEP..(lo + (c + 1) * STEP).min(hi) {
                h[metric.code(records.value(i))] += 1;
            }
            h
        })
        .reduce(
            || vec![0u64; bins],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
}
/// Remove the temporary files of table `name` in `dir` that no running writer holds (left
/// by a killed run). Returns the files removed; a folder that does not exist has none.
pub fn remove_stale_temps(dir: &Path, name: &str) -> Result<Vec<PathBuf>, TableError> {
    crate::atomic::remove_stale_temps(dir, name).map_err(io_err(dir))
}

/// A new temporary file for the table file `path` (see [`crate::atomic`]).
fn temp_for(path: &Path) -> Result<AtomicFile, TableError> {
    AtomicFile::create(path).map_err(io_err(path))
}

/// Write `records` (all sections concatenated) as `dir/<name>.rtb`. Returns the path and
/// the header written.
pub fn write_table(
    dir: &Path,
    game: &str,
    name: &str,
    params: Vec<(String, i64)>,
    sections: &[Section],
    records: &[u8],
) -> Result<(PathBuf, Header), TableError> {
    write_records(dir, game, name, params, sections, &records, &Silent)
}

/// Slots made, hashed and written at a time: 2 MiB of records (while the next 2 MiB are
/// made). A page of records in unit tests, so that ranges straddle sections. A whole
/// number of pages ([`ALIGN`]): a section's ranges but its last start on a page.
const WRITE_SLOTS: u64 = if cfg!(test) { ALIGN / 2 } else { 1 << 20 };
/// Slots one worker makes at a time.
const FILL_SLOTS: usize = 1 << 12;

/// Write `records` as `dir/<name>.rtb`, making them a range at a time: the histograms
/// (which fix the header's length, hence where the records start) from the values first,
/// then the records, hashed as they are written; the header with the checksums last.
/// Returns the path and the header written.
pub fn write_records(
    dir: &Path,
    game: &str,
    name: &str,
    params: Vec<(String, i64)>,
    sections: &[Section],
    records: &dyn Records,
    progress: &dyn Progress,
) -> Result<(PathBuf, Header), TableError> {
    write_records_as(dir, game, name, params, sections, records, None, progress)
}

/// The header of the table `records` (`dir/<name>`, for messages): its sections' histograms
/// counted from the values, the offsets their records take in the dense file; no checksum.
pub fn header_of(
    dir: &Path,
    game: &str,
    name: &str,
    params: Vec<(String, i64)>,
    sections: &[Section],
    records: &dyn Records,
) -> Result<Header, TableError> {
    let expected: u64 = sections.iter().map(|s| s.len).sum();
    assert_eq!(expected, records.slots(), "records match the sections");
    let metric = Metric::of_params(&params).map_err(|e| TableError::Io {
        path: dir.join(name),
        source: std::io::Error::other(e),
    })?;
    let mut first = 0u64;
    let infos = sections
        .iter()
        .map(|s| {
            let info = SectionInfo {
                name: s.name.clone(),
                records: s.len,
                offset: 0,
                checksum: 0,
                histogram: value_histogram(records, first, first + s.len, metric),
            };
            first += s.len;
            info
        })
        .collect();
    let mut header = Header {
        game: game.to_string(),
        name: name.to_string(),
        params,
        sections: infos,
    };
    // Where each section's records go in the dense file.
    header.encode();
    Ok(header)
}

/// The checksums a table rebuilt from its compressed form must have: of each section's
/// records (compressed files up to version 4) or of its values ([`super::value_sum`]).
#[derive(Clone, Copy, Debug)]
pub enum Expect<'a> {
    Records(&'a [u64]),
    Values(&'a [u64]),
}

/// [`write_records`], refusing (nothing written) unless each section's checksum is the
/// one `expect` says (a table rebuilt from its compressed form must be the dense original).
#[allow(clippy::too_many_arguments)]
pub fn write_records_as(
    dir: &Path,
    game: &str,
    name: &str,
    params: Vec<(String, i64)>,
    sections: &[Section],
    records: &dyn Records,
    expect: Option<Expect<'_>>,
    progress: &dyn Progress,
) -> Result<(PathBuf, Header), TableError> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let mut header = header_of(dir, game, name, params, sections, records)?;
    let metric = Metric::of_params(&header.params).expect("checked by header_of");
    let expected = records.slots();
    let head = header.encode();
    let path = dir.join(format!("{name}.{EXTENSION}"));
    let tmp = temp_for(&path)?;
    progress.phase("best moves and writing", expected);
    {
        // The records go to the file directly, past the page cache (see `direct`), in whole
        // pages; the header, once its checksums are known, through the cache.
        let mut out = DirectFile::new(tmp.file());
        let mut first = 0u64;
        // Records `first..first + n` into `buf` (its aligned pages), made in parallel.
        let fill = |buf: &mut Aligned, first: u64, n: u64| {
            buf.pages(n as usize * 2)[..n as usize * 2]
                .par_chunks_mut(FILL_SLOTS * 2)
                .enumerate()
                .for_each(|(c, out)| records.fill(first + (c * FILL_SLOTS) as u64, out));
        };
        let (mut buf, mut next) = (Aligned::default(), Aligned::default());
        for (k, s) in header.sections.iter_mut().enumerate() {
            let mut at = s.offset;
            let mut hash = twox_hash::XxHash3_64::new();
            let mut value_hash = twox_hash::XxHash3_64::new();
            let mut codes = Vec::new();
            let mut made = vec![0u64; metric.codes()];
            let end = first + s.records;
            let mut n = WRITE_SLOTS.min(end - first);
            fill(&mut buf, first, n);
            while n > 0 {
                // The next range is made while this one is hashed, counted and written, on
                // one thread: the pool is not left waiting for that thread.
                let after = first + n;
                let n_after = WRITE_SLOTS.min(end - after);
                let ((), written) = rayon::join(
                    || fill(&mut next, after, n_after),
                    || {
                        // The pages `fill` made (the same length: nothing moves).
                        let pages = buf.pages(n as usize * 2);
                        let made_now = &pages[..n as usize * 2];
                        hash.write(made_now);
                        if let Some(Expect::Values(_)) = expect {
                            codes.resize(made_now.len(), 0);
                            super::value_sum::codes(made_now, metric, &mut codes);
                            value_hash.write(&codes);
                        }
                        histogram(made_now, metric)
                            .iter()
                            .zip(&mut made)
                            .for_each(|(a, b)| *b += a);
                        // Zeros pad the last page: the gap before the next section, or
                        // past the end, cut off below.
                        out.write_at(pages, at)
                    },
                );
                written.map_err(io_err(tmp.temp_path()))?;
                progress.advance(n);
                std::mem::swap(&mut buf, &mut next);
                at += n * 2;
                (first, n) = (after, n_after);
            }
            // The header's length was fixed by the values' histogram: the records made
            // must agree with it, or the solver's values and records disagree.
            if made != s.histogram {
                return Err(TableError::Io {
                    path: tmp.temp_path().to_path_buf(),
                    source: std::io::Error::other(format!(
                        "section {}: the records written do not have the values solved (a solver bug)",
                        s.name
                    )),
                });
            }
            s.checksum = hash.finish();
            let (want, computed, part) = match expect {
                None => (None, 0, ""),
                Some(Expect::Records(e)) => (e.get(k), s.checksum, ""),
                Some(Expect::Values(e)) => (e.get(k), value_hash.finish(), "'s values"),
            };
            if let Some(&want) = want.filter(|&&w| w != computed) {
                return Err(TableError::Checksum {
                    path: path.clone(),
                    part: format!("section '{}'{part} as rebuilt", s.name),
                    stored: want,
                    computed,
                });
            }
        }
        // The checksums are fixed-size fields: the header keeps its length.
        let head_final = header.encode();
        debug_assert_eq!(head_final.len(), head.len());
        out.write_any_at(&head_final, 0)
            .map_err(io_err(tmp.temp_path()))?;
    }
    // A sub-table damaged while it was read gave "illegal" for some positions: the table
    // made from them is not kept (the temporary file goes with `tmp`).
    if let Some(e) = records.damage() {
        return Err(e);
    }
    tmp.file()
        .set_len(header.file_len())
        .map_err(io_err(tmp.temp_path()))?;
    tmp.commit().map_err(io_err(&path))?;
    Ok((path, header))
}

/// Write `head` then `parts` as `dir/<name>.<extension>`, atomically as a dense table is
/// (a compressed table). Returns the path.
pub fn write_parts(
    dir: &Path,
    name: &str,
    extension: &str,
    head: &[u8],
    parts: &[Vec<u8>],
) -> Result<PathBuf, TableError> {
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let path = dir.join(format!("{name}.{extension}"));
    let tmp = temp_for(&path)?;
    {
        let mut w = BufWriter::with_capacity(1 << 20, tmp.file());
        w.write_all(head).map_err(io_err(tmp.temp_path()))?;
        for p in parts {
            w.write_all(p).map_err(io_err(tmp.temp_path()))?;
        }
        w.flush().map_err(io_err(tmp.temp_path()))?;
    }
    tmp.commit().map_err(io_err(&path))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Value;

    #[test]
    fn only_unlocked_temps_of_the_same_table_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in [
            ".kbnk.a1B2c3.tmp",
            ".kbnk.zz.tmp",
            ".kbnk2.x.tmp",
            "kbnk.rtb",
            ".kbnk.a.b.tmp",
        ] {
            std::fs::write(d.join(f), b"x").unwrap();
        }
        // A writer at work: its file is locked.
        let busy = d.join(".kbnk.busy.tmp");
        let held = std::fs::File::create(&busy).unwrap();
        held.try_lock().unwrap();
        let mut removed: Vec<String> = remove_stale_temps(d, "kbnk")
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        removed.sort();
        assert_eq!(removed, [".kbnk.a1B2c3.tmp", ".kbnk.zz.tmp"]);
        for kept in [
            ".kbnk2.x.tmp",
            "kbnk.rtb",
            ".kbnk.a.b.tmp",
            ".kbnk.busy.tmp",
        ] {
            assert!(d.join(kept).exists(), "{kept} kept");
        }
        drop(held);
        assert_eq!(remove_stale_temps(d, "kbnk").unwrap().len(), 1);
        assert!(remove_stale_temps(&d.join("absent"), "kbnk")
            .unwrap()
            .is_empty());
    }

    /// Records made on demand from a formula; `lie` makes slot 5's value disagree with its
    /// record.
    struct Formula {
        slots: u64,
        lie: bool,
    }

    impl Formula {
        fn record(i: u64) -> [u8; 2] {
            // Wins, losses, draws and illegal slots, some with a move and some without.
            let v = match i % 11 {
                0 => Value::Illegal,
                1 | 2 => Value::Draw,
                3..=6 => Value::Win((i % 40) as u16 * 2 + 1),
                _ => Value::Loss((i % 37) as u16 * 2),
            };
            let mv = if matches!(v, Value::Illegal | Value::Loss(0)) {
                crate::game::NO_MOVE
            } else {
                (i % 7) as u8 + 1
            };
            [v.to_byte(), mv]
        }
    }

    impl Records for Formula {
        fn slots(&self) -> u64 {
            self.slots
        }
        fn value(&self, i: crate::game::Index) -> Value {
            if self.lie && i == 5 {
                return Value::Draw;
            }
            let [v, m] = Formula::record(i);
            Value::from_record(v, m)
        }
        fn fill(&self, first: crate::game::Index, out: &mut [u8]) {
            for (k, r) in out.chunks_exact_mut(2).enumerate() {
                r.copy_from_slice(&Formula::record(first + k as u64));
            }
        }
    }

    /// Records made a range at a time, across sections and ranges, give the file the
    /// records made all at once give: the same checksums, histograms and bytes.
    #[test]
    fn records_made_as_written_are_the_records_in_memory() {
        let dir = tempfile::tempdir().unwrap();
        let sections: Vec<Section> = [("a", 2500u64), ("b", 1), ("c", 3001)]
            .iter()
            .map(|&(name, len)| Section {
                name: name.into(),
                len,
            })
            .collect();
        let slots = sections.iter().map(|s| s.len).sum();
        let lazy = Formula { slots, lie: false };
        let bytes: Vec<u8> = (0..slots).flat_map(Formula::record).collect();
        let (path, header) =
            write_records(dir.path(), "g", "lazy", vec![], &sections, &lazy, &Silent).unwrap();
        let t = crate::table::Table::open(&path).unwrap();
        assert_eq!(
            t.checksum_status(),
            crate::table::reader::ChecksumStatus::Ok
        );
        let mut at = 0;
        for (s, info) in sections.iter().zip(&header.sections) {
            let want = &bytes[at..at + s.len as usize * 2];
            at += want.len();
            assert_eq!(info.checksum, crate::table::checksum(want), "{}", s.name);
            assert_eq!(info.histogram, histogram(want, Metric::Dtm), "{}", s.name);
            assert_eq!(&*t.section_records(info).unwrap(), want, "{}", s.name);
        }
        // The same table from the bytes in memory: the same file.
        let other = tempfile::tempdir().unwrap();
        let (p2, _) = write_table(other.path(), "g", "lazy", vec![], &sections, &bytes).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), std::fs::read(p2).unwrap());
        // Values that disagree with the records: refused, and nothing left behind.
        let liar = Formula { slots, lie: true };
        let bad = tempfile::tempdir().unwrap();
        let err =
            write_records(bad.path(), "g", "lazy", vec![], &sections, &liar, &Silent).unwrap_err();
        assert!(err.to_string().contains("section a"), "{err}");
        assert_eq!(std::fs::read_dir(bad.path()).unwrap().count(), 0);
    }

    /// Duplicated runs of one table (a retried task while the first copy is alive) write
    /// while each clears stale temporary files: every write succeeds, the table is whole,
    /// and nothing is left behind.
    #[test]
    fn concurrent_writers_and_cleaners_of_one_table() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let sections = [Section {
            name: "all".to_string(),
            len: 1 << 16,
        }];
        let records: Vec<u8> = (0..1u32 << 17).map(|i| (i * 7 % 251) as u8).collect();
        let done = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    // Counted even when a write fails, so the cleaners stop.
                    struct Done<'a>(&'a std::sync::atomic::AtomicUsize);
                    impl Drop for Done<'_> {
                        fn drop(&mut self) {
                            self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        }
                    }
                    let _done = Done(&done);
                    for _ in 0..25 {
                        write_table(d, "dup", "dup", vec![], &sections, &records)
                            .expect("every duplicate write succeeds");
                    }
                });
            }
            for _ in 0..2 {
                s.spawn(|| {
                    while done.load(std::sync::atomic::Ordering::SeqCst) < 4 {
                        remove_stale_temps(d, "dup").expect("cleaning never fails");
                    }
                });
            }
        });
        let t = crate::table::Table::open(&d.join("dup.rtb")).expect("a whole table");
        assert_eq!(
            t.checksum_status(),
            crate::table::reader::ChecksumStatus::Ok
        );
        let names: Vec<_> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["dup.rtb"]);
    }
}
