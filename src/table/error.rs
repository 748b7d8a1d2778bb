//! Everything that can be wrong with a table file, each naming the problem.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not a regular file ({kind}); a table must be a plain file")]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error("{path}: table format version {found}, this build reads version {expected}: regenerate it with `{command}`")]
    OldVersion {
        path: PathBuf,
        found: u32,
        expected: u32,
        command: String,
    },
    #[error("{path}: compressed table format version {found}, this build reads version {expected}: make it again from its dense table with `retro compress {dense}`", dense = .dense.display())]
    OldCompressed {
        path: PathBuf,
        found: u32,
        expected: u32,
        /// The dense table it was made from, by its name.
        dense: PathBuf,
    },
    #[error("{path}: not a retro table (wrong magic bytes)")]
    Magic { path: PathBuf },
    #[error("{path}: table format version {found} is newer than this build's version {expected}: use a newer retro, or regenerate it with `retro generate`")]
    Version {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    #[error("{path}: file is truncated or has the wrong size: {detail}")]
    Size { path: PathBuf, detail: String },
    #[error("{path}: corrupt header: {detail}")]
    Header { path: PathBuf, detail: String },
    #[error("{path}: checksum mismatch in {part} (stored {stored:016x}, computed {computed:016x}): the file is damaged or was modified")]
    Checksum {
        path: PathBuf,
        part: String,
        stored: u64,
        computed: u64,
    },
    /// A compressed table's block: `detail` says which and what is wrong.
    #[error("{path}: {detail}")]
    Block { path: PathBuf, detail: String },
    #[error(
        "{path}: padding byte at offset {offset} is not zero: the file is damaged or was modified"
    )]
    Padding { path: PathBuf, offset: u64 },
    /// A table of a metric an operation does not handle (compressing a DTZ table).
    #[error("{path}: a {metric} table cannot be {what} yet (only DTM tables can)")]
    Metric {
        path: PathBuf,
        what: &'static str,
        metric: super::Metric,
    },
    #[error("{path}: table is for {found}, expected {expected}")]
    WrongGame {
        path: PathBuf,
        found: String,
        expected: String,
    },
}
