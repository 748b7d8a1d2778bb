//! The games this build knows, behind one object-safe trait, so the CLI and the server can
//! work with any table by name. The list of games is one table, [`GAMES`]: adding a game is
//! a folder under `games/`, a `mod` line in `lib.rs`, and one entry there.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::game::{Game, Records, Section, SolveOptions};
use crate::present::{DistanceUnit, GameText, Presented, ProbeError};
use crate::progress::Progress;
use crate::solve::SolveError;
use crate::table::{shared, Load, Table, TableError};

/// A game with its parameters, type-erased.
pub trait Plugin: Send + Sync {
    /// Table name and file stem: `kbnk`, `mnk-4x3-3`.
    fn name(&self) -> String;
    /// Human description.
    fn title(&self) -> String;
    /// Game id and parameters, as in the table header.
    fn params(&self) -> (&'static str, Vec<(String, i64)>);
    fn sections(&self) -> Vec<Section>;
    fn distance_unit(&self) -> DistanceUnit;
    /// Solve every position; the records may be made as they are read (see
    /// [`Game::solve_records`]).
    fn solve(&self, opts: &SolveOptions) -> Result<Box<dyn Records + '_>, SolveError>;
    /// Probe a position given in the game's notation; an error, never an answer, if a
    /// compressed table it reads turns out damaged.
    fn probe(&self, table: &Table, position: &str) -> Result<Presented, ProbeError>;
    /// Game-specific summary lines (see [`GameText::summary_lines`]).
    fn summary_lines(&self, table: &Table) -> Vec<String>;
    /// The position stored at `index`, in the game's notation (`None` for an unused slot).
    fn position_at(&self, index: crate::game::Index) -> Option<String>;
    /// Which web viewer shows this table (`"chess"`, `"board"`).
    fn viewer(&self) -> &'static str {
        spec_of(&self.name()).map_or("none", |s| s.viewer)
    }
    /// The dense records of `table` (which holds this game's values, compressed or not),
    /// best moves included: see [`crate::rebuild`].
    fn rebuild<'a>(&'a self, table: &'a Table) -> Box<dyn Records + 'a>;
    /// The value of slot `index` of `table` one ply on ([`crate::probe::one_ply`]).
    fn one_ply(&self, table: &Table, index: crate::game::Index) -> crate::game::Value;
    /// The first damaged block met by the tables the game reads ([`Game::damage`]).
    fn damage(&self) -> Option<TableError>;
    /// Recompute every record from its successors; see [`crate::table::verify`].
    fn verify(
        &self,
        table: &Table,
        limit: usize,
        progress: &dyn Progress,
    ) -> crate::table::verify::VerifyReport;
}

impl<G: GameText + 'static> Plugin for G {
    fn name(&self) -> String {
        Game::name(self)
    }
    fn title(&self) -> String {
        GameText::title(self)
    }
    fn params(&self) -> (&'static str, Vec<(String, i64)>) {
        Game::params(self)
    }
    fn sections(&self) -> Vec<Section> {
        Game::sections(self)
    }
    fn distance_unit(&self) -> DistanceUnit {
        GameText::distance_unit(self)
    }
    fn solve(&self, opts: &SolveOptions) -> Result<Box<dyn Records + '_>, SolveError> {
        crate::solve::Solve::solve_records(self, opts)
    }
    fn rebuild<'a>(&'a self, table: &'a Table) -> Box<dyn Records + 'a> {
        Box::new(crate::rebuild::Rebuilt { game: self, table })
    }
    fn probe(&self, table: &Table, position: &str) -> Result<Presented, ProbeError> {
        let pos = self.parse_position(position)?;
        // Presenting reads tables too (a chess move's sub-table): both are watched.
        Ok(crate::table::damage::watch(|| {
            let probed = crate::probe::probe(self, table, &pos);
            self.present(&pos, &probed)
        })?)
    }
    fn summary_lines(&self, table: &Table) -> Vec<String> {
        GameText::summary_lines(self, table)
    }
    fn one_ply(&self, table: &Table, index: crate::game::Index) -> crate::game::Value {
        crate::probe::one_ply(self, table, index)
    }
    fn damage(&self) -> Option<TableError> {
        Game::damage(self)
    }
    fn position_at(&self, index: crate::game::Index) -> Option<String> {
        self.decode(index).map(|p| self.position_text(&p))
    }
    fn verify(
        &self,
        table: &Table,
        limit: usize,
        progress: &dyn Progress,
    ) -> crate::table::verify::VerifyReport {
        crate::table::verify::verify(self, table, limit, progress)
    }
}

/// The plug-in behind a table name the game claims; `dir` holds the tables a plug-in
/// reads besides its own (chess sub-tables).
pub type MakePlugin = fn(&str, &Path) -> Result<Box<dyn Plugin>, RegistryError>;

/// One game: how its table names look and how to make its plug-in.
pub struct GameSpec {
    /// The game id written in table headers.
    pub id: &'static str,
    /// Table names, for people: `mnk-<width>x<height>-<k>`.
    pub pattern: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// The web viewer that shows its tables (`/api/tables` reports it).
    pub viewer: &'static str,
    /// True for the table names this game owns (well-formed or not: `make` says what is
    /// wrong with a bad one).
    pub claims: fn(&str) -> bool,
    pub make: MakePlugin,
}

/// Every game, in the order names are tried.
pub static GAMES: &[GameSpec] = &[
    GameSpec {
        id: "kbnk",
        pattern: "kbnk",
        help: "king + bishop + knight vs king, the seed's 16 MiB table",
        viewer: "chess",
        claims: |name| name == "kbnk",
        make: |_, _| Ok(Box::new(crate::kbnk::Kbnk::new())),
    },
    GameSpec {
        id: "mnk",
        pattern: "mnk-<width>x<height>-<k>",
        help: "k-in-a-row on a board of up to 20 cells, e.g. mnk-4x3-3",
        viewer: "board",
        claims: |name| name.starts_with("mnk-"),
        make: make_mnk,
    },
    GameSpec {
        id: "chess",
        pattern: "<material>",
        help: "a chess endgame of up to 5 pieces, named as Syzygy does, e.g. KQvKR, KRPvKR",
        viewer: "chess",
        // Names shaped like a material: `K…vK…`.
        claims: |name| name.starts_with(['K', 'k']) && name.contains(['v', 'V']),
        make: make_chess,
    },
];

fn make_mnk(name: &str, _: &Path) -> Result<Box<dyn Plugin>, RegistryError> {
    let bad = || {
        RegistryError::BadParams(format!(
            "'{name}' is not a k-in-a-row table name: expected mnk-<width>x<height>-<k>, e.g. mnk-4x3-3"
        ))
    };
    let rest = name.strip_prefix("mnk-").ok_or_else(bad)?;
    let (wh, k) = rest.split_once('-').ok_or_else(bad)?;
    let (w, h) = wh.split_once('x').ok_or_else(bad)?;
    let num = |s: &str| s.parse::<u32>().map_err(|_| bad());
    let game = crate::mnk::Mnk::new(num(w)?, num(h)?, num(k)?)
        .map_err(|e| RegistryError::BadParams(e.to_string()))?;
    Ok(Box::new(game))
}

fn make_chess(name: &str, dir: &Path) -> Result<Box<dyn Plugin>, RegistryError> {
    let bad = |e: String| RegistryError::BadParams(e);
    let (material, dtz) = match name.strip_suffix(crate::chess::subtables::DTZ_SUFFIX) {
        Some(m) => (m, true),
        None => (name, false),
    };
    let m = crate::chess::material::Material::parse(material).map_err(|e| bad(e.to_string()))?;
    if m.is_bare_kings() {
        return Err(bad("KvK has no table: two bare kings are a draw".into()));
    }
    let (c, _) = m.canonical();
    if c.to_string() != material {
        return Err(bad(format!(
            "the table of {m} is {c} (Syzygy's colouring and piece order)"
        )));
    }
    if dtz {
        let game = crate::chess::dtz::ChessDtz::open(&c, dir).map_err(|e| bad(e.to_string()))?;
        return Ok(Box::new(game));
    }
    let game = crate::chess::Chess::open(&c, dir).map_err(|e| bad(e.to_string()))?;
    Ok(Box::new(game))
}

/// The spec of the game a table name belongs to.
pub fn spec_of(name: &str) -> Option<&'static GameSpec> {
    GAMES.iter().find(|g| (g.claims)(name))
}

/// Why a table name or game could not be resolved.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("unknown game or table '{0}' (known: {known})", known = GAMES.iter().map(|g| g.pattern).collect::<Vec<_>>().join(", "))]
    Unknown(String),
    #[error("{0}")]
    BadParams(String),
    #[error("no table '{name}' in {dir}: create it with `{command}`")]
    Missing {
        name: String,
        dir: PathBuf,
        command: String,
    },
    #[error(transparent)]
    Table(#[from] TableError),
}

/// The game behind a table name (chess sub-tables are looked for in `tables/`).
pub fn plugin(name: &str) -> Result<Box<dyn Plugin>, RegistryError> {
    plugin_in(name, Path::new("tables"))
}

/// The game behind a table name, with the tables it reads besides its own in `dir`.
pub fn plugin_in(name: &str, dir: &Path) -> Result<Box<dyn Plugin>, RegistryError> {
    let spec = spec_of(name).ok_or_else(|| RegistryError::Unknown(name.to_string()))?;
    (spec.make)(name, dir)
}

/// The command that generates table `name`.
pub fn generate_command(name: &str) -> String {
    match name.strip_prefix("mnk-").and_then(|r| {
        let (wh, k) = r.split_once('-')?;
        let (w, h) = wh.split_once('x')?;
        Some(format!(
            "retro generate mnk --width {w} --height {h} --k {k}"
        ))
    }) {
        Some(c) => c,
        None if spec_of(name).is_some_and(|s| s.id == "chess") => {
            format!("retro generate chess {name}")
        }
        None => format!("retro generate {name}"),
    }
}

/// The file of table `name` in `dir`: the dense one (`.rtb`, what `generate` writes and
/// the fastest to read) if it is there, else the compressed one (`.rtbc`) if that is.
pub fn table_path(dir: &Path, name: &str) -> PathBuf {
    let dense = dir.join(format!("{name}.{}", crate::table::EXTENSION));
    let small = dir.join(format!("{name}.{}", crate::table::compressed::EXTENSION));
    if std::fs::symlink_metadata(&dense).is_err() && std::fs::symlink_metadata(&small).is_ok() {
        small
    } else {
        dense
    }
}

/// A game finding the values of its table's dropped section.
struct ByPlugin(Box<dyn Plugin>);

impl crate::table::complete::Complete for ByPlugin {
    fn one_ply(&self, table: &Table, index: crate::game::Index) -> crate::game::Value {
        self.0.one_ply(table, index)
    }
    fn damage(&self) -> Option<TableError> {
        self.0.damage()
    }
}

/// Give `table` (of the game named in its header, its other tables in `dir`) the game
/// that finds its dropped section, if it drops one: an error if that game cannot be made.
pub fn complete(table: &Table, dir: &Path) -> Result<(), RegistryError> {
    if table.is_complete() {
        return Ok(());
    }
    let plugin = plugin_in(&table.header().name, dir)?;
    table.complete_with(|| Some(Box::new(ByPlugin(plugin))));
    Ok(())
}

/// A table opened and checked against its game.
pub struct Loaded {
    pub plugin: Box<dyn Plugin>,
    /// Shared with every other user of the same file in this process (see
    /// [`crate::table::shared`]).
    pub table: Arc<Table>,
}

/// Open table `name` from `dir`, with an error naming the command that makes it if missing.
pub fn open(dir: &Path, name: &str) -> Result<Loaded, RegistryError> {
    let path = table_path(dir, name);
    // Only a name that is not there at all is "missing"; a symbolic link loop, a dangling
    // link or an unreadable folder are reported as what they are, by the open below.
    if std::fs::symlink_metadata(&path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound) {
        // Refuse a bad name before naming a missing file.
        spec_of(name).ok_or_else(|| RegistryError::Unknown(name.to_string()))?;
        return Err(RegistryError::Missing {
            name: name.to_string(),
            dir: dir.to_path_buf(),
            command: format!("{} --out {}", generate_command(name), dir.display()),
        });
    }
    let plugin = plugin_in(name, dir)?;
    let table = shared::open(&path, Load::Auto)?;
    check(&*plugin, &table)?;
    complete(&table, dir)?;
    Ok(Loaded { plugin, table })
}

/// Open a table file by path, finding its game from the header.
pub fn open_file(path: &Path, verify_checksum: bool) -> Result<Loaded, RegistryError> {
    let table = if verify_checksum {
        shared::open(path, Load::Auto)?
    } else {
        Arc::new(Table::open_unverified(path)?)
    };
    with_plugin(path, table)
}

/// The game of an opened table file; the tables it reads besides its own (chess
/// sub-tables) are looked for beside it.
fn with_plugin(path: &Path, table: Arc<Table>) -> Result<Loaded, RegistryError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let plugin = plugin_in(&table.header().name, dir)?;
    check(&*plugin, &table)?;
    complete(&table, dir)?;
    Ok(Loaded { plugin, table })
}

/// The table's header must describe exactly this game's index space.
fn check(plugin: &dyn Plugin, table: &Table) -> Result<(), TableError> {
    let h = table.header();
    let (game, params) = plugin.params();
    let shape: Vec<(String, u64)> = plugin
        .sections()
        .into_iter()
        .map(|s| (s.name, s.len))
        .collect();
    let found: Vec<(String, u64)> = h
        .sections
        .iter()
        .map(|s| (s.name.clone(), s.records))
        .collect();
    if h.name != plugin.name() || h.game != game || h.params != params || shape != found {
        return Err(TableError::WrongGame {
            path: table.path().to_path_buf(),
            found: format!("'{}': {} {:?} {:?}", h.name, h.game, h.params, found),
            expected: format!("'{}': {game} {params:?} {shape:?}", plugin.name()),
        });
    }
    Ok(())
}

/// Open a table file by path, checked in full, its bytes held as `load` says.
pub fn open_file_with(path: &Path, load: Load) -> Result<Loaded, RegistryError> {
    with_plugin(path, shared::open(path, load)?)
}

/// Every readable table in `dir`, sorted by name; unreadable files (special files included:
/// they are refused, never opened) are returned as errors.
pub fn scan(dir: &Path, load: Load) -> Vec<Result<Loaded, RegistryError>> {
    use crate::table::{compressed, EXTENSION};
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    // A compressed table beside its dense twin is left to the dense one.
                    p.extension().is_some_and(|e| e == EXTENSION)
                        || (p.extension().is_some_and(|e| e == compressed::EXTENSION)
                            && !p.with_extension(EXTENSION).exists())
                })
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths
        .into_iter()
        .map(|p| open_file_with(&p, load))
        .collect()
}
