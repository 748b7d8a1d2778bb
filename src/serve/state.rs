//! What the server shares between requests: the open tables, read-only, behind an `Arc`,
//! and the watch that replaces them when the folder changes.
//!
//! A request takes the current [`Snapshot`] and answers from it alone. Every second the
//! folder is listed again ([`AppState::watch`]): a table added, removed, replaced or
//! changed in place makes a new snapshot (unchanged tables are shared with the old one,
//! not reopened), which then answers the following requests. Until then, a table whose
//! file changed in place answers 503 rather than from bytes no longer checked: see
//! [`Table::changed`].

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use super::api::{Headline, MaterialEntry, MaterialsResponse, TableInfo, TablesResponse};
use crate::chess::lichess::Tablebase;
use crate::plugin::Plugin;
use crate::present::DistanceUnit;
use crate::registry::Loaded;
use crate::table::storage::Stamp;
use crate::table::{Load, Table};

/// One served table.
pub struct Served {
    pub plugin: Box<dyn Plugin>,
    pub table: Arc<Table>,
    /// The name `GET /tables/<file>` serves it under, if its file is inside the folder.
    pub file: Option<String>,
    /// `GET /api/tables/<name>/stats.json`, made on first request (it reads every record).
    pub stats: std::sync::OnceLock<axum::body::Bytes>,
    /// Held while the statistics are made: many requests for them at once make them once.
    pub making_stats: std::sync::Mutex<()>,
}

/// The tables served at one moment, and what is derived from them.
pub struct Snapshot {
    dir: PathBuf,
    tables: HashMap<String, Served>,
    /// File name to table name, for `GET /tables/<file>`. Nothing else is reachable.
    files: HashMap<String, String>,
    /// `GET /api/tables`, serialised once (cloning `Bytes` shares it), and again when the
    /// summaries of the tables read from their files are made ([`Snapshot::summarise`]).
    list_json: RwLock<axum::body::Bytes>,
    /// What `list_json` lists.
    infos: Mutex<Vec<TableInfo>>,
    /// `GET /api/chess/materials`, serialised once.
    materials_json: axum::body::Bytes,
    /// Table names, sorted, for error messages.
    known: String,
    /// What the folder held when this snapshot was made: each candidate table file and its
    /// stamp (`None` if it could not be read). A listing that differs means a new snapshot.
    listing: Vec<(PathBuf, Option<Stamp>)>,
}

/// A snapshot and the Lichess API's answers over it.
pub struct Current {
    pub tables: Arc<Snapshot>,
    pub lichess: Tablebase,
}

/// The shared state: cheap to clone.
#[derive(Clone)]
pub struct AppState {
    dir: PathBuf,
    current: Arc<RwLock<Arc<Current>>>,
}

/// The table files of `dir` and their stamps, in name order.
fn listing(dir: &Path) -> Vec<(PathBuf, Option<Stamp>)> {
    crate::registry::table_files(dir)
        .into_iter()
        .map(|p| {
            let stamp = std::fs::metadata(&p).ok().map(|m| Stamp::of(&m));
            (p, stamp)
        })
        .collect()
}

impl AppState {
    /// Serve every readable table in `dir`. Files that cannot be opened are reported on
    /// stderr and skipped; the server still starts.
    pub fn load(dir: &Path) -> AppState {
        AppState::with(dir, Snapshot::load(dir))
    }

    /// Serve these tables; `dir` is the folder `/tables/` gives access to.
    pub fn from_loaded(dir: &Path, loaded: Vec<Loaded>) -> AppState {
        AppState::with(dir, Snapshot::from_loaded(dir, loaded, listing(dir)))
    }

    fn with(dir: &Path, snapshot: Snapshot) -> AppState {
        AppState {
            dir: dir.to_path_buf(),
            current: Arc::new(RwLock::new(Arc::new(Current::of(snapshot)))),
        }
    }

    /// The tables to answer a request from.
    pub fn now(&self) -> Arc<Current> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How many tables are served now.
    pub fn len(&self) -> usize {
        self.now().tables.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The names of the tables served now, in order, for messages.
    pub fn known(&self) -> String {
        self.now().tables.known().to_string()
    }

    /// `GET /api/tables` as it is now.
    pub fn list_json(&self) -> axum::body::Bytes {
        self.now().tables.list_json()
    }

    /// If the folder's table files are not what the current snapshot was made from, make
    /// a new one and serve it from now on; true if it did. Blocking: it opens tables.
    pub fn refresh(&self) -> bool {
        let now = self.now();
        let seen = listing(&self.dir);
        if seen == now.tables.listing {
            return false;
        }
        eprintln!(
            "retro serve: the tables in {} changed; opening them again",
            self.dir.display()
        );
        let fresh = Snapshot::load(&self.dir);
        eprintln!(
            "retro serve: {} table(s) from {}: {}",
            fresh.len(),
            self.dir.display(),
            fresh.known()
        );
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(Current::of(fresh));
        true
    }

    /// Look for changes every `every`, for as long as the runtime runs.
    pub async fn watch(self, every: Duration) {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let state = self.clone();
            // Listing and opening tables are file-system work: off the request workers.
            let _ = tokio::task::spawn_blocking(move || state.refresh()).await;
        }
    }
}

impl Current {
    fn of(snapshot: Snapshot) -> Current {
        let tables = Arc::new(snapshot);
        Snapshot::summarise(&tables);
        Current {
            lichess: Tablebase::new(tables.clone()),
            tables,
        }
    }
}

impl Snapshot {
    fn load(dir: &Path) -> Snapshot {
        // The server holds every table, and each chess table opens its sub-tables: none
        // may be mapped, or a table rewritten in place could kill the server (SIGBUS).
        crate::table::set_never_map();
        // Listed first: a file changing while the tables are opened makes the next look
        // see a difference, never miss one.
        let seen = listing(dir);
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
        Snapshot::from_loaded(dir, loaded, seen)
    }

    fn from_loaded(
        dir: &Path,
        loaded: Vec<Loaded>,
        listing: Vec<(PathBuf, Option<Stamp>)>,
    ) -> Snapshot {
        let mut infos = Vec::new();
        let mut tables = HashMap::new();
        let mut files = HashMap::new();
        let root = dir.canonicalize().ok();
        for Loaded { plugin, table } in one_per_name(loaded) {
            let mut info = table_info(&*plugin, &table);
            // A game's summary may read the whole table (k-in-a-row counts the positions
            // reachable from the empty board): at once for a table held in memory, later
            // for one read from its file, so that the server answers from the start.
            if table.in_memory() {
                info.summary = plugin.summary_lines(&table);
            }
            let file = downloadable(root.as_deref(), table.path());
            match &file {
                Some(f) => {
                    files.insert(f.clone(), info.name.clone());
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
                    file,
                    stats: std::sync::OnceLock::new(),
                    making_stats: std::sync::Mutex::new(()),
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
        let list_json = list_of(&infos);
        Snapshot {
            dir: dir.to_path_buf(),
            tables,
            files,
            list_json: RwLock::new(list_json),
            infos: Mutex::new(infos),
            materials_json,
            known: if known.is_empty() {
                "none".into()
            } else {
                known
            },
            listing,
        }
    }

    /// The served table a raw file name `GET /tables/<name>` may send.
    pub fn file(&self, name: &str) -> Option<&Served> {
        self.tables.get(self.files.get(name)?)
    }

    pub fn table(&self, name: &str) -> Option<&Served> {
        self.tables.get(name)
    }

    pub fn known(&self) -> &str {
        &self.known
    }

    pub fn list_json(&self) -> axum::body::Bytes {
        self.list_json
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Make the summaries of the tables read from their files, on a thread of their own,
    /// adding each to `GET /api/tables` as it is made.
    fn summarise(this: &Arc<Snapshot>) {
        let pending: Vec<String> = (this.tables.iter())
            .filter(|(_, s)| !s.table.in_memory())
            .map(|(name, _)| name.clone())
            .collect();
        if pending.is_empty() {
            return;
        }
        let this = this.clone();
        std::thread::spawn(move || {
            for name in pending {
                let served = &this.tables[&name];
                let lines = crate::serve::error::guarded(|| {
                    crate::table::damage::watch(|| served.plugin.summary_lines(&served.table))
                });
                let Ok(Ok(lines)) = lines else { continue };
                let mut infos = this.infos.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(info) = infos.iter_mut().find(|i| i.name == name) {
                    info.summary = lines;
                }
                let list = list_of(&infos);
                *this.list_json.write().unwrap_or_else(|e| e.into_inner()) = list;
            }
        });
    }

    pub fn materials_json(&self) -> axum::body::Bytes {
        self.materials_json.clone()
    }

    pub fn len(&self) -> usize {
        self.tables.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }
}

/// The served tables, as the Lichess answers read them.
impl crate::chess::lichess::Tables for Snapshot {
    fn table(&self, name: &str) -> Option<&Table> {
        Snapshot::table(self, name).map(|s| &*s.table)
    }
    fn dir(&self) -> &Path {
        &self.dir
    }
    /// A table of another game that holds the material (the KBNK table, made by
    /// default, holds KBNvK): see [`crate::chess_answers`].
    fn stand_in(&self, material: &str) -> Option<crate::chess::lichess::StandIn<'_>> {
        let s = crate::chess_answers::stand_in(material)?;
        let served = Snapshot::table(self, s.table)?;
        Some((&*served.table, s.value))
    }
}

/// One table for each name, when several files hold the same table (a copy under another
/// name, a compressed twin, a link): the file named after the table first, a dense file
/// before a compressed one, then the first file name in order. The others are reported.
fn one_per_name(loaded: Vec<Loaded>) -> Vec<Loaded> {
    let rank = |l: &Loaded| {
        let file = l.table.path().file_name().unwrap_or_default();
        let file = file.to_string_lossy().into_owned();
        let own = file.strip_suffix(&format!(".{}", crate::table::EXTENSION))
            == Some(&l.plugin.name())
            || file.strip_suffix(&format!(".{}", crate::table::compressed::EXTENSION))
                == Some(&l.plugin.name());
        (!own, l.table.is_compressed(), file)
    };
    let mut by_name: BTreeMap<String, Vec<Loaded>> = BTreeMap::new();
    for l in loaded {
        by_name.entry(l.plugin.name()).or_default().push(l);
    }
    let mut out = Vec::new();
    for (name, mut all) in by_name {
        all.sort_by_cached_key(|l| rank(l));
        let mut all = all.into_iter();
        let Some(first) = all.next() else { continue };
        for other in all {
            // A link to the file served is opened as that very table: nothing to report.
            if Arc::ptr_eq(&other.table, &first.table) {
                continue;
            }
            eprintln!(
                "retro serve: {} also holds table {name}: serving {} (a file named after its table first, dense before compressed, then by file name)",
                other.table.path().display(),
                first.table.path().display()
            );
        }
        out.push(first);
    }
    out
}

/// `GET /api/tables`'s body.
fn list_of(infos: &[TableInfo]) -> axum::body::Bytes {
    serde_json::to_vec(&TablesResponse {
        tables: infos.to_vec(),
    })
    .expect("plain data serialises")
    .into()
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
            let present = tables.contains_key(&name);
            let answered_by = crate::chess_answers::stand_in(&name)
                .filter(|s| !present && tables.contains_key(s.table))
                .map(|s| s.table);
            MaterialEntry {
                pieces: m.count(),
                present,
                answered_by,
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

/// The file name of a table file, if it is a regular file directly inside the folder
/// `root` (already resolved) once symbolic links are followed. (What is sent is the file
/// opened, whatever the name leads to later: see `super::files`.)
fn downloadable(root: Option<&Path>, path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?.to_string();
    let real = path.canonicalize().ok()?;
    (real.parent() == root && real.is_file()).then_some(name)
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
    let stored = plugin.stored_as(headline.legal);
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
        positions: stored.as_ref().and_then(|s| s.positions),
        stored_as: stored.map(|s| s.words),
        headline,
        sections,
        summary: Vec::new(),
        name,
    }
}

/// The web viewer of a table, as its family says.
pub fn viewer_of(name: &str) -> &'static str {
    crate::GAMES.family_of(name).map_or("none", |f| f.viewer())
}

/// 503 for a table whose file changed since it was opened (until the folder's next look
/// opens it again): answers from it would no longer be from the bytes that were checked.
pub(super) fn unchanged(served: &Served) -> Result<(), super::error::ApiError> {
    match served.table.changed() {
        Some(e) => Err(super::error::ApiError::Changed(e)),
        None => Ok(()),
    }
}
