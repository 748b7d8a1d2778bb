//! The table file: a self-describing header, then 4096-aligned arrays of 2-byte records.
//!
//! Layout (all integers little-endian):
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `RETROTB\0` |
//! | 8 | 4 | format version (3: see `crate::game::Value::to_byte`) |
//! | 12 | 4 | header length `H` in bytes, from offset 0 to the end of the header checksum |
//! | 16 | … | game id, table name, parameters, sections (see [`header`]) |
//! | H - 8 | 8 | xxh3-64 of bytes `0..H-8` (the header checksum) |
//! | aligned | 2 × n | each section's records (`[value, move]`, or a DTZ code: [`metric`]), at a multiple of 4096 |
//!
//! Each section's header entry holds its record count, payload offset, the xxh3-64 checksum
//! of its payload and a histogram of its values by `crate::game::Value::code` (the
//! per-distance statistics).
//!
//! Every byte is covered: the header by its checksum, each payload by its own, and the
//! padding before each payload must be zero (the reader checks it). `retro verify` also
//! recomputes the statistics from the records.
//!
//! Versions differ in what the record bytes mean: version 1 stored distances in plies,
//! version 2 in moves, and version 3 frees a byte for a 127-move loss (a terminal loss and
//! a loss in one move share a value byte; the move byte tells them apart) and keys the
//! histograms by value code. An older file is refused with the command that regenerates it.

pub mod cache;
pub mod compressed;
pub mod damage;
mod direct;
pub mod header;
pub use crate::metric;
mod planes;
pub mod reader;
pub mod shared;
pub mod storage;
pub mod value_sum;
pub mod writer;

pub use crate::error::TableError;
pub use header::{Header, SectionInfo};
pub use metric::Metric;
pub use reader::{set_map_small, set_never_map, written_in_older_format, Load, Table};
pub use writer::{header_of, write_records, write_records_as, write_table, Expect};

/// The first eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"RETROTB\0";
/// The format version this build reads and writes.
pub const VERSION: u32 = 3;
pub use crate::metric::VALUE_CODES;
/// Payload alignment: a page, so each section can be mapped and read on its own.
pub const ALIGN: u64 = 4096;
/// The file name extension of table files.
pub const EXTENSION: &str = "rtb";
/// Files up to this size are read into memory rather than mapped, so a file overwritten in
/// place while open cannot crash the reader (see [`reader::Table::open`]).
pub const IN_MEMORY_MAX: u64 = 64 << 20;

/// The checksum used for headers and payloads.
pub fn checksum(bytes: &[u8]) -> u64 {
    twox_hash::XxHash3_64::oneshot(bytes)
}

/// The file of table `name` in `dir`: the dense one (`.rtb`, what `generate` writes and
/// the fastest to read) if it is there, else the compressed one (`.rtbc`) if that is.
pub fn table_path(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let dense = dir.join(format!("{name}.{EXTENSION}"));
    let small = dir.join(format!("{name}.{}", compressed::EXTENSION));
    if std::fs::symlink_metadata(&dense).is_err() && std::fs::symlink_metadata(&small).is_ok() {
        small
    } else {
        dense
    }
}
