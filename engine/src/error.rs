//! The engine's errors about table files, at the bottom of the engine: the game contract
//! (`game`) reports damage in the tables a game reads with them, and imports nothing
//! else of the engine.
//!
//! Each variant carries data, never a command to type: the CLI and the server say how to
//! fix it in their own words (a table to make again is named, not spelled as a command).

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
    /// A table written by an older retro: made again from its name.
    #[error("{path}: table format version {found}, this build reads version {expected}")]
    OldVersion {
        path: PathBuf,
        found: u32,
        expected: u32,
        /// The table's name, from its header or else its file name.
        name: String,
    },
    /// A compressed table of an older format: made again from its dense table.
    #[error(
        "{path}: compressed table format version {found}, this build reads version {expected}"
    )]
    OldCompressed {
        path: PathBuf,
        found: u32,
        expected: u32,
        /// The dense table it was made from, by its name.
        dense: PathBuf,
    },
    #[error("{path}: not a retro table (wrong magic bytes)")]
    Magic { path: PathBuf },
    #[error("{path}: table format version {found} is newer than this build's version {expected}")]
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
    /// The file was rewritten, cut or replaced in place after it was opened and checked:
    /// nothing more is read from it, since its bytes are no longer the ones checked.
    #[error("{path}: the file changed on disk after it was opened and checked; it is read again only once reopened (replace a table by renaming a new file over it)")]
    Changed { path: PathBuf },
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
        /// The metric's name (`DTZ`).
        metric: String,
    },
    #[error("{path}: table is for {found}, expected {expected}")]
    WrongGame {
        path: PathBuf,
        found: String,
        expected: String,
    },
}
