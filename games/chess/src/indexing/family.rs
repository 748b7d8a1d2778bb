//! Chess's account of itself to the registry: a table per material, named as Syzygy names
//! it (`KQvKR`), and its DTZ table beside it (`KQvKR.dtz`).

use std::path::Path;

use retro_engine::plugin::Plugin;
use retro_engine::registry::{Family, OpenError};

use super::outcome::{Chess, ChessDtz};
// The family's entry is declared below the sub-tables, which read through it.
pub use super::registry::{ChessFamily, CHESS, FAMILY};

/// The material of table `name` and whether it is the DTZ table, or what is wrong with the
/// name: not a material, bare kings, or not the canonical name of its material.
fn material_of(name: &str) -> Result<(crate::rules::material::Material, bool), String> {
    let (material, dtz) = match name.strip_suffix(super::subtables::DTZ_SUFFIX) {
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
    fn default_tables(&self) -> &'static [&'static str] {
        &[
            "KQvK", "KRvK", "KBvK", "KNvK", "KPvK",
            // Their DTZ tables, sub-materials first: the viewer shows DTZ beside DTM out
            // of the box.
            "KBvK.dtz", "KNvK.dtz", "KQvK.dtz", "KRvK.dtz", "KPvK.dtz",
        ]
    }
}
