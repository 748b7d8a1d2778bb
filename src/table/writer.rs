//! Writing a table: to a temporary file in the target folder, synced, then renamed, so a
//! crash never leaves a half-written file under the real name.

use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::header::{Header, SectionInfo};
use super::{checksum, TableError, EXTENSION};
use crate::game::Section;

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
    move |source| TableError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Histogram of the value bytes of `payload` (pairs of `[value, move]`).
pub fn histogram(payload: &[u8]) -> Vec<u64> {
    payload
        .par_chunks(1 << 20)
        .map(|chunk| {
            let mut h = vec![0u64; 256];
            for r in chunk.chunks_exact(2) {
                h[r[0] as usize] += 1;
            }
            h
        })
        .reduce(
            || vec![0u64; 256],
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
