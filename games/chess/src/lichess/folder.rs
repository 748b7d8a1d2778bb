//! The chess tables of one folder as [`Tables`], for a program that probes a folder rather
//! than serving it (the Python package): the files are listed when the folder is opened and
//! each table is opened on its first probe, so that opening a whole set costs nothing and
//! only what is probed is read.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::Tables;
use crate::indexing::registry::{CHESS, FAMILY};
use retro_engine::registry::Family;
use retro_engine::table::{compressed, Table, EXTENSION};

/// One folder's chess tables, each opened on first use.
pub struct Folder {
    dir: PathBuf,
    /// Every chess table file by name (`KQvKR`, `KQvKR.dtz`): the table once opened, or why
    /// it could not be.
    tables: HashMap<String, OnceLock<Result<Arc<Table>, String>>>,
}

impl Folder {
    /// The chess tables in `dir`, dense (`.rtb`) or compressed (`.rtbc`); other files are
    /// left alone. An error if `dir` cannot be listed.
    pub fn open(dir: &Path) -> std::io::Result<Folder> {
        let mut tables = HashMap::new();
        for entry in std::fs::read_dir(dir)? {
            let path = entry?.path();
            let is_table = path
                .extension()
                .is_some_and(|e| e == EXTENSION || e == compressed::EXTENSION);
            let Some(name) = path.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if is_table && FAMILY.claims(name) {
                tables.insert(name.to_string(), OnceLock::new());
            }
        }
        Ok(Folder {
            dir: dir.to_path_buf(),
            tables,
        })
    }

    /// The names of its tables, in no order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tables.keys().map(String::as_str)
    }

    /// True if the folder has a file of table `name`, readable or not.
    pub fn has(&self, name: &str) -> bool {
        self.tables.contains_key(name)
    }

    /// Why table `name` cannot be used (a sub-table it needs is missing, the file is
    /// damaged), or `None` if it can or the folder has no such file.
    pub fn error(&self, name: &str) -> Option<&str> {
        self.opened(name)?.as_ref().err().map(String::as_str)
    }

    fn opened(&self, name: &str) -> Option<&Result<Arc<Table>, String>> {
        let cell = self.tables.get(name)?;
        Some(cell.get_or_init(|| {
            CHESS
                .open(&self.dir, name)
                .map(|loaded| loaded.table)
                .map_err(|e| format!("{name} in {}: {e}", self.dir.display()))
        }))
    }
}

impl Tables for Folder {
    fn table(&self, name: &str) -> Option<&Table> {
        self.opened(name)?.as_ref().ok().map(|t| &**t)
    }

    fn dir(&self) -> &Path {
        &self.dir
    }
}
