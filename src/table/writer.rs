//! Writing a table: to a temporary file in the target folder, synced, then renamed, so a
//! crash never leaves a half-written file under the real name.
//!
//! The temporary file (`.<name>.XXXXXX.tmp`) is locked (`flock`) while it is written. A
//! run killed before the rename leaves it behind, unlocked: the next generation of the same
//! table removes such files first ([`remove_stale_temps`]); a file still locked belongs to
//! a run in progress and is left alone.

use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::header::{Header, SectionInfo};
use super::{checksum, TableError, EXTENSION, VALUE_CODES};
use crate::game::{Section, Value};

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
    move |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Histogram of the values of `payload` (pairs of `[value, move]`), by [`Value::code`].
pub fn histogram(payload: &[u8]) -> Vec<u64> {
    payload
        .par_chunks(1 << 20)
        .map(|chunk| {
            let mut h = vec![0u64; VALUE_CODES];
            for r in chunk.chunks_exact(2) {
                h[Value::from_record(r[0], r[1]).code() as usize] += 1;
            }
            h
        })
        .reduce(
            || vec![0u64; VALUE_CODES],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

/// The header a table of these sections and records gets.
pub fn build_header(
    game: &str,
    name: &str,
    params: Vec<(String, i64)>,
    sections: &[Section],
    records: &[u8],
) -> Header {
    let mut start = 0usize;
    let infos = sections
        .iter()
        .map(|s| {
            let bytes = &records[start..start + s.len as usize * 2];
            start += bytes.len();
            SectionInfo {
                name: s.name.clone(),
                records: s.len,
                offset: 0,
                checksum: checksum(bytes),
                histogram: histogram(bytes),
            }
        })
        .collect();
    Header {
        game: game.to_string(),
        name: name.to_string(),
        params,
        sections: infos,
    }
}

/// Whether `file_name` is a temporary file of table `name`.
fn is_temp_of(file_name: &str, name: &str) -> bool {
    file_name
        .strip_prefix(&format!(".{name}."))
        .and_then(|rest| rest.strip_suffix(".tmp"))
        .is_some_and(|mid| !mid.is_empty() && !mid.contains('.'))
}

/// Remove the temporary files of table `name` in `dir` that no running writer holds (left
/// by a killed run). Returns the files removed; a folder that does not exist has none.
pub fn remove_stale_temps(dir: &Path, name: &str) -> Result<Vec<PathBuf>, TableError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err(dir)(e)),
    };
    let mut removed = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_err(dir))?;
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        if !is_temp_of(file_name, name) || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let Ok(file) = std::fs::File::open(&path) else {
            continue;
        };
        // Locked: a writer is still at work on it.
        if file.try_lock().is_err() {
            continue;
        }
        std::fs::remove_file(&path).map_err(io_err(&path))?;
        removed.push(path);
    }
    Ok(removed)
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
    let expected: u64 = sections.iter().map(|s| s.len * 2).sum();
    assert_eq!(expected, records.len() as u64, "records match the sections");
    std::fs::create_dir_all(dir).map_err(io_err(dir))?;
    let mut header = build_header(game, name, params, sections, records);
    let head = header.encode();
    let path = dir.join(format!("{name}.{EXTENSION}"));
    let tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(io_err(dir))?;
    // Held until the file is renamed and closed: tells `remove_stale_temps` it is in use.
    tmp.as_file().try_lock().map_err(|e| TableError::Io {
        path: tmp.path().to_path_buf(),
        source: match e {
            std::fs::TryLockError::Error(e) => e,
            std::fs::TryLockError::WouldBlock => std::io::ErrorKind::WouldBlock.into(),
        },
    })?;
    {
        let mut w = BufWriter::with_capacity(1 << 20, tmp.as_file());
        w.write_all(&head).map_err(io_err(tmp.path()))?;
        let mut start = 0usize;
        for s in &header.sections {
            w.seek(SeekFrom::Start(s.offset))
                .map_err(io_err(tmp.path()))?;
            let len = s.byte_len() as usize;
            w.write_all(&records[start..start + len])
                .map_err(io_err(tmp.path()))?;
            start += len;
        }
        w.flush().map_err(io_err(tmp.path()))?;
    }
    tmp.as_file()
        .set_len(header.file_len())
        .map_err(io_err(tmp.path()))?;
    // Temporary files are created private (0600); a finished table is ordinary data that
    // other users and the server may read.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))
            .map_err(io_err(tmp.path()))?;
    }
    tmp.as_file().sync_all().map_err(io_err(tmp.path()))?;
    tmp.persist(&path).map_err(|e| TableError::Io {
        path: path.clone(),
        source: e.error,
    })?;
    Ok((path, header))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
