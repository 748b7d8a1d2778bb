//! What the server shares between requests: the open tables, read-only, behind an `Arc`.
//! No lock anywhere: every table is a private copy in memory, so nothing done to the files
//! afterwards (even overwriting one in place) changes or crashes what is served.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::api::{Headline, MaterialEntry, MaterialsResponse, TableInfo, TablesResponse};
use crate::plugin::Plugin;
use crate::present::DistanceUnit;
use crate::registry::Loaded;
use crate::table::{Load, Table};

/// One served table.
pub struct Served {
    pub plugin: Box<dyn Plugin>,
    pub table: Arc<Table>,
    /// `GET /api/tables/<name>/stats.json`, made on first request (it scans every record).
    pub stats: std::sync::OnceLock<axum::body::Bytes>,
}

/// The shared state: cheap to clone.
#[derive(Clone)]
pub struct AppState {
    inner: Arc<Inner>,
}

struct Inner {
    dir: PathBuf,
    tables: HashMap<String, Served>,
    /// The raw files `GET /tables/<file>` serves: file name to its resolved path inside
    /// the folder. Nothing else is reachable.
    files: HashMap<String, PathBuf>,
    /// `GET /api/tables`, serialised once (cloning `Bytes` shares it).
    list_json: axum::body::Bytes,
    /// `GET /api/chess/materials`, serialised once.
    materials_json: axum::body::Bytes,
    /// Table names, sorted, for error messages.
    known: String,
}

impl AppState {
    /// Serve every readable table in `dir`. Files that cannot be opened are reported on
    /// stderr and skipped; the server still starts.
    pub fn load(dir: &Path) -> AppState {
        // The server holds every table, and each chess table opens its sub-tables: none
        // may be mapped, or a table rewritten in place could kill the server (SIGBUS).
        crate::table::set_never_map();
        let mut loaded = Vec::new();
        for r in crate::GAMES.scan(dir, Load::Safe) {
            match r {
                Ok(l) => loaded.push(l),
                Err(e) => eprintln!(
                    "retro serve: skipping a table: {}",
                    crate::fixes::explained(&e)
                ),
            }
        }
        AppState::from_loaded(dir, loaded)
    }

    /// Serve these tables; `dir` is the folder `/tables/` gives access to.
    pub fn from_loaded(dir: &Path, loaded: Vec<Loaded>) -> AppState {
        let mut infos = Vec::new();
        let mut tables = HashMap::new();
        let mut files = HashMap::new();
        let root = dir.canonicalize().ok();
        for Loaded { plugin, table } in loaded {
            let mut info = table_info(&*plugin, &table);
            match downloadable(root.as_deref(), table.path()) {
                Some((name, path)) => {
                    files.insert(name, path);
                }
                None => {
                    eprintln!(
                        "retro serve: {} resolves outside {}: served for probing, not for download",
                        table.path().display(),
                        dir.display()
                    );
                    info.url = None;
                }
            }
            tables.insert(
                info.name.clone(),
                Served {
                    plugin,
                    table,
                    stats: std::sync::OnceLock::new(),
                },
            );
            infos.push(info);
        }
        infos.sort_by_key(|a| crate::GAMES.order_key(&a.name));
        let known = infos
            .iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let materials_json = materials_json(&tables);
        let list_json =
            serde_json::to_vec(&TablesResponse { tables: infos }).expect("plain data serialises");
        AppState {
            inner: Arc::new(Inner {
                dir: dir.to_path_buf(),
                tables,
                files,
                list_json: list_json.into(),
                materials_json,
                known: if known.is_empty() {
                    "none".into()
                } else {
                    known
                },
            }),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.inner.dir
    }

    /// The resolved path of a raw table file `GET /tables/<name>` may serve.
    pub fn file(&self, name: &str) -> Option<&Path> {
        self.inner.files.get(name).map(PathBuf::as_path)
    }

    pub fn table(&self, name: &str) -> Option<&Served> {
        self.inner.tables.get(name)
    }

    pub fn known(&self) -> &str {
        &self.inner.known
    }

    pub fn list_json(&self) -> axum::body::Bytes {
        self.inner.list_json.clone()
    }

    pub fn materials_json(&self) -> axum::body::Bytes {
        self.inner.materials_json.clone()
    }

    pub fn len(&self) -> usize {
        self.inner.tables.len()
    }

    pub fn is_empty(&self) -> bool {
        self.inner.tables.is_empty()
    }
}

/// `GET /api/chess/materials`: every chess material of a whole set (up to 5 pieces), then
/// the larger ones `tables` holds, each marked present when `tables` holds its table.
fn materials_json(tables: &HashMap<String, Served>) -> axum::body::Bytes {
    use crate::chess::material::{Material, MAX_PIECES, SET_PIECES};
    let mut larger: Vec<Material> = tables
        .keys()
        .filter_map(|name| Material::parse(name).ok())
        .filter(|m| m.count() > SET_PIECES && m.is_canonical())
        .collect();
    larger.sort_by_key(|m| m.to_string());
    let materials = Material::all(SET_PIECES)
        .into_iter()
        .chain(larger)
        .map(|m| {
            let name = m.to_string();
            MaterialEntry {
                pieces: m.count(),
                present: tables.contains_key(&name),
                name,
            }
        })
        .collect();
    let body = MaterialsResponse {
        max_pieces: MAX_PIECES,
        materials,
    };
    serde_json::to_vec(&body)
        .expect("plain data serialises")
        .into()
}

/// The file name and resolved path of a table file, if it is a regular file directly inside
/// the folder `root` (already resolved) once symbolic links are followed.
fn downloadable(root: Option<&Path>, path: &Path) -> Option<(String, PathBuf)> {
    let name = path.file_name()?.to_str()?.to_string();
    let real = path.canonicalize().ok()?;
    (real.parent() == root && real.is_file()).then_some((name, real))
}

fn table_info(plugin: &dyn Plugin, table: &Table) -> TableInfo {
    let h = table.header();
    let unit = plugin.distance_unit();
    let sections = crate::summary::stats(h, unit);
    let mut headline = Headline::default();
    for s in &sections {
        headline.legal += s.legal;
        headline.wins += s.wins;
        headline.losses += s.losses;
        headline.draws += s.draws;
        if let Some((d, _)) = s.longest {
            headline.longest = Some(headline.longest.map_or(d, |x: u16| x.max(d)));
        }
    }
    let name = plugin.name();
    let file = table
        .path()
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| format!("{name}.{}", crate::table::EXTENSION));
    TableInfo {
        url: Some(format!("/tables/{file}")),
        game: h.game.clone(),
        viewer: viewer_of(&plugin.name()),
        title: plugin.title(),
        params: h.params.iter().cloned().collect::<BTreeMap<_, _>>(),
        bytes: table.file_len(),
        compressed: table.is_compressed(),
        records: h.records(),
        unit: match unit {
            DistanceUnit::Moves => "moves",
            DistanceUnit::Plies => "plies",
        },
        headline,
        sections,
        summary: plugin.summary_lines(table),
        name,
    }
}

/// The web viewer of a table, as its family says.
pub fn viewer_of(name: &str) -> &'static str {
    crate::GAMES.family_of(name).map_or("none", |f| f.viewer())
}
