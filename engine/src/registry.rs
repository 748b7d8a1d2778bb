//! Game families, and tables found by name through them.
//!
//! A [`Family`] is one game folder's account of itself: its id, which table names are its
//! own and what parameters they mean, how to open one, how to make a missing one, which
//! viewer shows it and which of its tables `retro serve` makes by default. The engine
//! knows no family: the program lists them in one [`Registry`], and everything here works
//! for whatever list it is given (the chess crate, for one, opens its sub-tables through a
//! registry of chess alone).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::generate::set::{Cost, TableSet};
use crate::plugin::Plugin;
use crate::table::compressed::Sides;
use crate::table::{shared, table_path, Load, Table, TableError};

/// A game family: REQUIRED are its id, name pattern, [`Family::claims`] and [`Family::open`]; the
/// rest is OPTIONAL, with the default each one states.
pub trait Family: Sync {
    /// REQUIRED. The game id written in table headers (`chess`, `mnk`).
    fn id(&self) -> &'static str;

    /// REQUIRED. Its table names, for people: `mnk-<width>x<height>-<k>`.
    fn pattern(&self) -> &'static str;

    /// REQUIRED. True for the table names this family owns, well-formed or not
    /// ([`Family::open`] says what is wrong with a bad one).
    fn claims(&self, name: &str) -> bool;

    /// REQUIRED. The plug-in of table `name`; `dir` holds the tables it reads besides its
    /// own (chess sub-tables). [`OpenError::BadName`] says what is wrong with the name.
    fn open(&self, name: &str, dir: &Path) -> Result<Box<dyn Plugin>, OpenError>;

    /// OPTIONAL. What is wrong with table name `name`, if anything, found from the name
    /// alone (no file read): a missing table is then only suggested for a name that could
    /// be made. Default: nothing (every claimed name is taken as well-formed).
    fn check_name(&self, _name: &str) -> Result<(), String> {
        Ok(())
    }

    /// OPTIONAL. The name of the table with these parameters (the inverse of the name's
    /// parsing), for commands that take them as flags. Default: the family has no
    /// parameters, and its id is its only name.
    fn name_of(&self, params: &[(&str, i64)]) -> Result<String, String> {
        match params {
            [] => Ok(self.id().to_string()),
            [(p, _), ..] => Err(format!("{} takes no parameter '{p}'", self.id())),
        }
    }

    /// OPTIONAL. How `retro generate` is told to make table `name`: its arguments after
    /// `generate`. Default: the name alone.
    fn generate_args(&self, name: &str) -> Vec<String> {
        vec![name.to_string()]
    }

    /// OPTIONAL. The web viewer that shows its tables (`/api/tables` reports it). Default:
    /// `"none"`, shown as a table of statistics only.
    fn viewer(&self) -> &'static str {
        "none"
    }

    /// OPTIONAL. The tables `retro serve` makes when they are missing, each after those it
    /// reads, kept dense. Default: none.
    fn default_tables(&self) -> &'static [&'static str] {
        &[]
    }

    /// OPTIONAL. The tables `retro serve` makes when they are missing, as a set planned in
    /// `dir`, for a family whose tables read one another and are kept compressed (chess);
    /// it replaces [`Family::default_tables`]. Default: none.
    fn default_set(
        &self,
        _dir: &Path,
    ) -> Result<Option<DefaultSet>, Box<dyn std::error::Error + Send + Sync>> {
        Ok(None)
    }

    /// OPTIONAL. How its tables sort among themselves, before their names. Default: by name.
    fn sort_key(&self, _name: &str) -> Vec<u64> {
        Vec::new()
    }
}

/// Why a family could not open a table.
#[derive(Debug)]
pub enum OpenError {
    /// The name is the family's but malformed, or names no table: why, in words.
    BadName(String),
    /// The table could not be opened (kept whole, so that the CLI can say how to fix it).
    Failed(Box<dyn std::error::Error + Send + Sync>),
}

impl<E: std::error::Error + Send + Sync + 'static> From<E> for OpenError {
    fn from(e: E) -> OpenError {
        OpenError::Failed(Box::new(e))
    }
}

/// The families a program knows, in the order they are listed to people and their tables
/// are sorted.
#[derive(Clone, Copy)]
pub struct Registry {
    families: &'static [&'static dyn Family],
}

/// Why a table name or game could not be resolved. Each variant carries data; the CLI and
/// the server say how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("unknown game or table '{name}' (known: {known})")]
    Unknown {
        name: String,
        /// The families' name patterns, for the message.
        known: String,
    },
    #[error("{0}")]
    BadParams(String),
    /// The family could not open a table it owns (chess: a sub-table is missing or bad).
    #[error(transparent)]
    Open(Box<dyn std::error::Error + Send + Sync>),
    /// No file of the table: made with the family's [`Family::generate_args`].
    #[error("no table '{name}' in {dir}")]
    Missing { name: String, dir: PathBuf },
    /// The tables folder itself is not there.
    #[error("no table '{name}': the folder {dir} does not exist")]
    NoFolder { name: String, dir: PathBuf },
    #[error(transparent)]
    Table(#[from] TableError),
}

/// A table opened and checked against its game.
pub struct Loaded {
    pub plugin: Box<dyn Plugin>,
    /// Shared with every other user of the same file in this process (see
    /// [`crate::table::shared`]).
    pub table: Arc<Table>,
}

impl Registry {
    pub const fn new(families: &'static [&'static dyn Family]) -> Registry {
        Registry { families }
    }

    pub fn families(&self) -> &'static [&'static dyn Family] {
        self.families
    }

    /// The family a table name belongs to.
    pub fn family_of(&self, name: &str) -> Option<&'static dyn Family> {
        self.families.iter().copied().find(|f| f.claims(name))
    }

    /// The family with this id.
    pub fn family(&self, id: &str) -> Option<&'static dyn Family> {
        self.families.iter().copied().find(|f| f.id() == id)
    }

    fn unknown(&self, name: &str) -> RegistryError {
        RegistryError::Unknown {
            name: name.to_string(),
            known: self
                .families
                .iter()
                .map(|f| f.pattern())
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    /// The game behind a table name, with the tables it reads besides its own in `dir`.
    pub fn plugin_in(&self, name: &str, dir: &Path) -> Result<Box<dyn Plugin>, RegistryError> {
        let family = self.family_of(name).ok_or_else(|| self.unknown(name))?;
        family.open(name, dir).map_err(|e| match e {
            OpenError::BadName(why) => RegistryError::BadParams(why),
            OpenError::Failed(e) => RegistryError::Open(e),
        })
    }

    /// The game behind a table name (chess sub-tables are looked for in `tables/`).
    pub fn plugin(&self, name: &str) -> Result<Box<dyn Plugin>, RegistryError> {
        self.plugin_in(name, Path::new("tables"))
    }

    /// The arguments of `retro generate` that make table `name` (see
    /// [`Family::generate_args`]), if a family knows the name.
    pub fn generate_args(&self, name: &str) -> Option<Vec<String>> {
        self.family_of(name).map(|f| f.generate_args(name))
    }

    /// Every family's default tables ([`Family::default_set`], or else
    /// [`Family::default_tables`]), planned in `dir`, in the registry's order; a family
    /// with none is left out.
    pub fn default_sets(
        &self,
        dir: &Path,
    ) -> Result<Vec<DefaultSet>, Box<dyn std::error::Error + Send + Sync>> {
        let mut sets = Vec::new();
        for &family in self.families {
            match family.default_set(dir)? {
                Some(set) => sets.push(set),
                None if family.default_tables().is_empty() => {}
                None => sets.push(DefaultSet {
                    tables: Box::new(Listed {
                        family,
                        names: family.default_tables(),
                    }),
                    compressed: false,
                    what: family.default_tables().join(", "),
                }),
            }
        }
        Ok(sets)
    }

    /// How table `name` sorts in lists: by family, then as the family says, then by name.
    pub fn order_key(&self, name: &str) -> (usize, Vec<u64>, String) {
        match self.families.iter().position(|f| f.claims(name)) {
            Some(rank) => (rank, self.families[rank].sort_key(name), name.to_string()),
            None => (self.families.len(), Vec::new(), name.to_string()),
        }
    }

    /// Give `table` (of the game named in its header, its other tables in `dir`) the game
    /// that finds its dropped section, if it drops one: an error if that game cannot be made.
    pub fn complete(&self, table: &Table, dir: &Path) -> Result<(), RegistryError> {
        if table.is_complete() {
            return Ok(());
        }
        let plugin = self.plugin_in(&table.header().name, dir)?;
        table.complete_with(|| Some(Box::new(ByPlugin(plugin))));
        Ok(())
    }

    /// Open table `name` from `dir`: [`RegistryError::Missing`] if it is not there.
    pub fn open(&self, dir: &Path, name: &str) -> Result<Loaded, RegistryError> {
        let path = table_path(dir, name);
        // Only a name that is not there at all is "missing"; a symbolic link loop, a
        // dangling link or an unreadable folder are reported as what they are, by the open
        // below.
        if std::fs::symlink_metadata(&path).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        {
            // Refuse a bad name before naming a missing file.
            let family = self.family_of(name).ok_or_else(|| self.unknown(name))?;
            family.check_name(name).map_err(RegistryError::BadParams)?;
            if !dir.is_dir() {
                return Err(RegistryError::NoFolder {
                    name: name.to_string(),
                    dir: dir.to_path_buf(),
                });
            }
            return Err(RegistryError::Missing {
                name: name.to_string(),
                dir: dir.to_path_buf(),
            });
        }
        let plugin = self.plugin_in(name, dir)?;
        let table = shared::open(&path, Load::Auto)?;
        check(&*plugin, &table)?;
        self.complete(&table, dir)?;
        Ok(Loaded { plugin, table })
    }

    /// Open a table file by path, finding its game from the header.
    pub fn open_file(&self, path: &Path, verify_checksum: bool) -> Result<Loaded, RegistryError> {
        let table = if verify_checksum {
            shared::open(path, Load::Auto)?
        } else {
            Arc::new(Table::open_unverified(path)?)
        };
        self.with_plugin(path, table)
    }

    /// Open a table file by path, checked in full, its bytes held as `load` says.
    pub fn open_file_with(&self, path: &Path, load: Load) -> Result<Loaded, RegistryError> {
        self.with_plugin(path, shared::open(path, load)?)
    }

    /// The game of an opened table file; the tables it reads besides its own (chess
    /// sub-tables) are looked for beside it.
    fn with_plugin(&self, path: &Path, table: Arc<Table>) -> Result<Loaded, RegistryError> {
        // A bare file name's parent is the empty path: say `.` (messages name the folder).
        let dir = (path.parent())
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let plugin = self.plugin_in(&table.header().name, dir)?;
        check(&*plugin, &table)?;
        self.complete(&table, dir)?;
        Ok(Loaded { plugin, table })
    }

    /// Every readable table in `dir`, sorted by name; unreadable files (special files
    /// included: they are refused, never opened) are returned as errors.
    pub fn scan(&self, dir: &Path, load: Load) -> Vec<Result<Loaded, RegistryError>> {
        table_files(dir)
            .into_iter()
            .map(|p| self.open_file_with(&p, load))
            .collect()
    }
}

/// The table files of `dir` that [`Registry::scan`] opens, sorted: dense ones, and
/// compressed ones without a dense twin.
pub fn table_files(dir: &Path) -> Vec<PathBuf> {
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
}

/// The tables `retro serve` makes by default for one family, planned in a folder.
pub struct DefaultSet {
    pub tables: Box<dyn TableSet>,
    /// Made compressed (at the default level, dense files removed).
    pub compressed: bool,
    /// What they are, for people: `every chess table of up to 4 pieces, DTM and DTZ`.
    pub what: String,
}

/// A family's [`Family::default_tables`]: each made where it is missing (or written by an
/// older retro, which cannot be read), none read by another.
struct Listed {
    family: &'static dyn Family,
    names: &'static [&'static str],
}

impl TableSet for Listed {
    fn len(&self) -> usize {
        self.names.len()
    }
    fn name(&self, i: usize) -> String {
        self.names[i].to_string()
    }
    fn to_make(&self, i: usize, dir: &Path) -> bool {
        let path = table_path(dir, self.names[i]);
        !path.exists() || crate::table::written_in_older_format(&path)
    }
    fn cost(&self, _i: usize) -> Option<Cost> {
        None
    }
    fn last_readers(&self) -> Vec<Option<usize>> {
        vec![None; self.names.len()]
    }
    fn release(&mut self, _i: usize) {}
    fn plugin(
        &self,
        i: usize,
        dir: &Path,
    ) -> Result<Box<dyn Plugin>, Box<dyn std::error::Error + Send + Sync>> {
        self.family.open(self.names[i], dir).map_err(|e| match e {
            OpenError::BadName(why) => RegistryError::BadParams(why).into(),
            OpenError::Failed(e) => e,
        })
    }
    fn sides(&self) -> Sides {
        Sides::Both
    }
}

/// A game finding the values of its table's dropped section.
struct ByPlugin(Box<dyn Plugin>);

impl crate::table::reader::complete::Complete for ByPlugin {
    fn one_ply(&self, table: &Table, index: crate::game::Index) -> crate::game::Value {
        self.0.one_ply(table, index)
    }
    fn damage(&self) -> Option<TableError> {
        self.0.damage()
    }
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
