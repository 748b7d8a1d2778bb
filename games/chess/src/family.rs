//! Chess's account of itself to the registry: a table per material, named as Syzygy names
//! it (`KQvKR`), and its DTZ table beside it (`KQvKR.dtz`).

use std::path::Path;

use retro_engine::plugin::Plugin;
use retro_engine::registry::{DefaultSet, Family, OpenError};

use crate::indexing::outcome::{Chess, ChessDtz};
// The family's entry is declared below the sub-tables, which read through it.
pub use crate::indexing::registry::{ChessFamily, CHESS, FAMILY};

/// The most pieces of the tables `retro serve` makes by default: the 70 tables of up to 4
/// pieces take about a minute on 2 cores, where those of 5 take hours.
pub const DEFAULT_PIECES: usize = 4;

/// The material of table `name` and whether it is the DTZ table, or what is wrong with the
/// name: not a material, bare kings, or not the canonical name of its material.
fn material_of(name: &str) -> Result<(crate::rules::material::Material, bool), String> {
    let (material, dtz) = match name.strip_suffix(crate::indexing::subtables::DTZ_SUFFIX) {
        Some(m) => (m, true),
        None => (name, false),
    };
    let m = crate::rules::material::Material::parse(material).map_err(|e| e.to_string())?;
    if m.is_bare_kings() {
        return Err("KvK has no table: two bare kings are a draw".into());
    }
    let (c, _) = m.canonical();
    if c.to_string() != material {
        return Err(format!(
            "the table of {m} is {c} (Syzygy's colouring and piece order)"
        ));
    }
    Ok((c, dtz))
}

impl Family for ChessFamily {
    fn id(&self) -> &'static str {
        "chess"
    }
    fn pattern(&self) -> &'static str {
        "<material>"
    }
    /// Names shaped like a material: `K…vK…`.
    fn claims(&self, name: &str) -> bool {
        name.starts_with(['K', 'k']) && name.contains(['v', 'V'])
    }
    fn check_name(&self, name: &str) -> Result<(), String> {
        material_of(name).map(|_| ())
    }
    fn open(&self, name: &str, dir: &Path) -> Result<Box<dyn Plugin>, OpenError> {
        let (c, dtz) = material_of(name).map_err(OpenError::BadName)?;
        if dtz {
            let game = ChessDtz::open(&c, dir)?;
            return Ok(Box::new(game));
        }
        let game = Chess::open(&c, dir)?;
        Ok(Box::new(game))
    }
    fn generate_args(&self, name: &str) -> Vec<String> {
        vec!["chess".into(), name.into()]
    }
    fn viewer(&self) -> &'static str {
        "chess"
    }
    /// Every table of up to [`DEFAULT_PIECES`] pieces, DTM and DTZ (the viewer shows both
    /// out of the box), compressed: `retro generate chess --all 4 --metric both
    /// --compress`.
    fn default_set(
        &self,
        dir: &Path,
    ) -> Result<Option<DefaultSet>, Box<dyn std::error::Error + Send + Sync>> {
        use retro_engine::table::Metric;
        let memory = retro_engine::memory::available().map(|n| (n, "MemAvailable"));
        let set = crate::planning::set::plan(
            &crate::rules::material::Material::all(DEFAULT_PIECES),
            &[Metric::Dtm, Metric::Dtz],
            dir,
            memory,
            retro_engine::disk::available(dir),
            true,
        )?;
        Ok(Some(DefaultSet {
            tables: Box::new(set),
            compressed: true,
            what: format!(
                "every chess table of up to {DEFAULT_PIECES} pieces, DTM and DTZ, compressed"
            ),
        }))
    }
}
