//! k-in-a-row's account of itself to the registry: tables `mnk-<width>x<height>-<k>`. The
//! name's format is built and read here only; everything else asks this family, or reads
//! the parameters a table's header (and `/api/tables`) gives.

use std::path::Path;

use retro_engine::plugin::Plugin;
use retro_engine::registry::{Family, OpenError};

/// The k-in-a-row family: see [`Family`].
pub struct MnkFamily;

/// The family, for the program's registry.
pub static FAMILY: MnkFamily = MnkFamily;

/// The board of a table name: `(width, height, k)`.
pub fn parse_name(name: &str) -> Result<(u32, u32, u32), String> {
    let bad = || {
        format!(
            "'{name}' is not a k-in-a-row table name: expected mnk-<width>x<height>-<k>, e.g. mnk-4x3-3"
        )
    };
    let rest = name.strip_prefix("mnk-").ok_or_else(bad)?;
    let (wh, k) = rest.split_once('-').ok_or_else(bad)?;
    let (w, h) = wh.split_once('x').ok_or_else(bad)?;
    let num = |s: &str| s.parse::<u32>().map_err(|_| bad());
    Ok((num(w)?, num(h)?, num(k)?))
}

/// The table name of a board.
pub fn table_name(width: u32, height: u32, k: u32) -> String {
    format!("mnk-{width}x{height}-{k}")
}

impl Family for MnkFamily {
    fn id(&self) -> &'static str {
        "mnk"
    }
    fn pattern(&self) -> &'static str {
        "mnk-<width>x<height>-<k>"
    }
    fn claims(&self, name: &str) -> bool {
        name.starts_with("mnk-")
    }
    fn open(&self, name: &str, _dir: &Path) -> Result<Box<dyn Plugin>, OpenError> {
        let (w, h, k) = parse_name(name).map_err(OpenError::BadName)?;
        let game = crate::game::Mnk::new(w, h, k).map_err(|e| OpenError::BadName(e.to_string()))?;
        Ok(Box::new(game))
    }
    fn name_of(&self, params: &[(&str, i64)]) -> Result<String, String> {
        let get = |key: &str| {
            let v = params.iter().find(|(p, _)| *p == key).map(|&(_, v)| v);
            v.and_then(|v| u32::try_from(v).ok())
        };
        if let Some((p, _)) = params
            .iter()
            .find(|(p, _)| !["width", "height", "k"].contains(p))
        {
            return Err(format!("mnk takes --width, --height and --k, not '{p}'"));
        }
        match (get("width"), get("height"), get("k")) {
            (Some(w), Some(h), Some(k)) => Ok(table_name(w, h, k)),
            _ => Err("mnk needs --width, --height and --k, e.g. --width 4 --height 3 --k 3".into()),
        }
    }
    fn generate_args(&self, name: &str) -> Vec<String> {
        match parse_name(name) {
            Ok((w, h, k)) => ["mnk", "--width", &w.to_string(), "--height", &h.to_string()]
                .into_iter()
                .map(String::from)
                .chain(["--k".to_string(), k.to_string()])
                .collect(),
            Err(_) => vec![name.to_string()],
        }
    }
    fn viewer(&self) -> &'static str {
        "board"
    }
    fn default_tables(&self) -> &'static [&'static str] {
        &["mnk-3x3-3", "mnk-3x4-3", "mnk-4x4-3"]
    }
    /// By board area, then width, height and k.
    fn sort_key(&self, name: &str) -> Vec<u64> {
        match parse_name(name) {
            Ok((w, h, k)) => vec![w as u64 * h as u64, w as u64, h as u64, k as u64],
            Err(_) => Vec::new(),
        }
    }
}
