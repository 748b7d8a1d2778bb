//! Probing any chess position: the table is picked from the material on the board and
//! opened on first use (`retro probe chess`, `/api/probe/chess`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use retro_engine::game::PositionError;
use retro_engine::present::{Presented, ProbeError};
use retro_engine::registry::{Loaded, Registry, RegistryError};

/// Why a position could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    #[error(transparent)]
    Position(#[from] PositionError),
    /// A compressed table damaged after it was opened.
    #[error(transparent)]
    Damaged(#[from] retro_engine::table::TableError),
    #[error(transparent)]
    Table(#[from] RegistryError),
}

/// The chess tables of one folder, opened as positions need them.
pub struct Router {
    dir: PathBuf,
    /// The games whose tables [`Router::table`] opens.
    registry: &'static Registry,
    open: Mutex<HashMap<String, Arc<Loaded>>>,
}

impl Router {
    pub fn new(dir: &Path) -> Router {
        Router::in_registry(dir, &super::indexing::registry::CHESS)
    }

    /// A router whose [`Router::table`] opens the tables of every game of `registry`
    /// (a program's, where a table of another game may hold a chess material).
    pub fn in_registry(dir: &Path, registry: &'static Registry) -> Router {
        Router {
            dir: dir.to_path_buf(),
            registry,
            open: Mutex::new(HashMap::new()),
        }
    }

    /// The table name (stored colouring) for a FEN's material.
    pub fn table_for(text: &str) -> Result<String, PositionError> {
        let pos = super::rules::fen::parse(text)?;
        let m = pos.material();
        if m.is_bare_kings() {
            return Err(PositionError::Illegal(
                "two bare kings: a draw, with no table".into(),
            ));
        }
        Ok(m.canonical().0.to_string())
    }

    /// The open table `name`, opening it on first use.
    pub fn table(&self, name: &str) -> Result<Arc<Loaded>, RegistryError> {
        if let Some(t) = self
            .open
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
        {
            return Ok(t.clone());
        }
        let loaded = Arc::new(self.registry.open(&self.dir, name)?);
        self.open
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.to_string(), loaded.clone());
        Ok(loaded)
    }

    /// Probe a FEN of any material (its DTZ beside its DTM when the material's DTZ table is
    /// there too: see `present::Source::dtz_beside`).
    pub fn probe(&self, text: &str) -> Result<Presented, RouteError> {
        let name = Self::table_for(text)?;
        let t = self.table(&name)?;
        t.plugin.probe(&t.table, text).map_err(|e| match e {
            ProbeError::Position(p) => RouteError::Position(p),
            ProbeError::Table(t) => RouteError::Damaged(t),
        })
    }
}
