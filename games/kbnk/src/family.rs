//! KBNK's account of itself to the registry: one table, `kbnk`, without parameters.

use std::path::Path;

use retro_engine::plugin::Plugin;
use retro_engine::registry::{Family, OpenError};

/// The KBNK family: see [`Family`].
pub struct Kbnk;

/// The family, for the program's registry.
pub static FAMILY: Kbnk = Kbnk;

impl Family for Kbnk {
    fn id(&self) -> &'static str {
        "kbnk"
    }
    fn pattern(&self) -> &'static str {
        "kbnk"
    }
    fn claims(&self, name: &str) -> bool {
        name == "kbnk"
    }
    fn open(&self, _name: &str, _dir: &Path) -> Result<Box<dyn Plugin>, OpenError> {
        Ok(Box::new(super::Kbnk::new()))
    }
    fn viewer(&self) -> &'static str {
        "chess"
    }
    fn default_tables(&self) -> &'static [&'static str] {
        &["kbnk"]
    }
}
