//! The tables a material's captures and promotions lead into, read from their mapped files.

use std::path::{Path, PathBuf};

use super::index::Layout;
use crate::rules::material::{Color, Material, Role};
use crate::rules::position::Position;
use retro_engine::game::Value;
use std::sync::Arc;

use retro_engine::table::{shared, Load, Metric, Table, TableError};

/// Why the sub-tables of a material could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SubTableError {
    /// A sub-table to make first (the CLI and the server name the command).
    #[error("{material} needs its sub-table {child}, which is not in {dir}", dir = .dir.display())]
    Missing {
        material: String,
        child: String,
        dir: PathBuf,
    },
    #[error("sub-table {child} of {material} is unusable: {source}")]
    Bad {
        material: String,
        child: String,
        source: TableError,
    },
    #[error("sub-table {child} of {material} ({path}) does not hold that material's index: {found}", path = .path.display())]
    Shape {
        material: String,
        child: String,
        path: PathBuf,
        found: String,
    },
}

/// White's and black's role counts (pawn .. queen): a material's key.
type Signature = [[u8; 5]; 2];

fn signature_of_material(m: &Material) -> Signature {
    let mut s = [[0; 5]; 2];
    for (c, side) in m.sides.iter().enumerate() {
        for &r in side {
            s[c][r as usize] += 1;
        }
    }
    s
}

fn signature(pos: &Position) -> Signature {
    std::array::from_fn(|c| {
        let color = [Color::White, Color::Black][c];
        std::array::from_fn(|r| pos.pieces(color, Role::ALL[r]).count_ones() as u8)
    })
}

/// Where the positions of a sub-material go ([`SubTables::route`]).
#[derive(Clone, Copy, Debug)]
pub struct Route {
    sub: usize,
    /// Stored in the other colouring: colours swapped, the board turned over.
    pub flip: bool,
}

struct Sub {
    sig: Signature,
    layout: Layout,
    table: Arc<Table>,
}

/// The open sub-tables of one material.
pub struct SubTables {
    subs: Vec<Sub>,
    /// No tables: every position outside the material is "not in a table" (rules-only
    /// plug-ins, for structural checks).
    rules_only: bool,
}

/// What a DTZ table's name adds to its material's: `KQvKR.dtz`.
pub const DTZ_SUFFIX: &str = ".dtz";

/// The name of the table of `m` holding `metric`: `KQvKR`, `KQvKR.dtz`.
pub fn table_name(m: &Material, metric: Metric) -> String {
    match metric {
        Metric::Dtm => m.to_string(),
        Metric::Dtz => format!("{m}{DTZ_SUFFIX}"),
    }
}

/// The table file of a material in `dir`.
pub fn path_of(dir: &Path, m: &Material) -> PathBuf {
    retro_engine::table::table_path(dir, &m.to_string())
}

impl SubTables {
    /// Open every table one capture or promotion of `m` leads to, checking each file's
    /// checksums and shape.
    pub fn open(m: &Material, dir: &Path) -> Result<SubTables, SubTableError> {
        SubTables::open_metric(m, dir, Metric::Dtm)
    }

    /// [`SubTables::open`], the tables of `metric`.
    pub fn open_metric(
        m: &Material,
        dir: &Path,
        metric: Metric,
    ) -> Result<SubTables, SubTableError> {
        SubTables::open_with(m, dir, metric, Load::Auto)
    }

    /// [`SubTables::open_metric`], their bytes held as `load` says.
    pub fn open_with(
        m: &Material,
        dir: &Path,
        metric: Metric,
        load: Load,
    ) -> Result<SubTables, SubTableError> {
        let mut subs = Vec::new();
        for child in m.children() {
            let name = table_name(&child, metric);
            let path = retro_engine::table::table_path(dir, &name);
            let material = table_name(m, metric);
            if !path.exists() {
                return Err(SubTableError::Missing {
                    material,
                    child: name,
                    dir: dir.to_path_buf(),
                });
            }
            let table = shared::open(&path, load).map_err(|source| SubTableError::Bad {
                material: material.clone(),
                child: name.clone(),
                source,
            })?;
            let layout = Layout::new(&child);
            let h = table.header();
            let shape_ok = h.game == "chess"
                && h.name == name
                && table.metric() == metric
                && h.sections.len() == 2
                && h.sections.iter().all(|s| s.records == layout.section);
            if !shape_ok {
                return Err(SubTableError::Shape {
                    material,
                    child: name,
                    path,
                    found: format!("{} '{}' {:?}", h.game, h.name, h.sections),
                });
            }
            // A sub-table that stores one side to move only finds the other from its
            // own sub-tables, which must be here too.
            super::registry::CHESS
                .complete(&table, dir)
                .map_err(|e| SubTableError::Bad {
                    material: material.clone(),
                    child: name.clone(),
                    source: match e {
                        retro_engine::registry::RegistryError::Table(t) => t,
                        e => TableError::Header {
                            path: path.clone(),
                            detail: format!(
                                "stores one side to move only, and the other cannot be found: {e}"
                            ),
                        },
                    },
                })?;
            subs.push(Sub {
                sig: signature_of_material(&child),
                layout,
                table,
            });
        }
        Ok(SubTables {
            subs,
            rules_only: false,
        })
    }

    pub fn is_rules_only(&self) -> bool {
        self.rules_only
    }

    /// No tables at all: see [`SubTables::value`].
    pub fn rules_only() -> SubTables {
        SubTables {
            subs: Vec::new(),
            rules_only: true,
        }
    }

    /// The first damaged block met by a sub-table (or the tables it reads) since opened.
    pub fn damage(&self) -> Option<TableError> {
        self.subs.iter().find_map(|s| s.table.damage())
    }

    /// Where the positions with `pieces` besides the kings go: which sub-table, and
    /// whether its colouring is the other one. `None` without tables, or for bare kings.
    pub fn route(&self, pieces: &[(Color, Role)]) -> Option<Route> {
        let mut sig = [[0u8; 5]; 2];
        for &(c, r) in pieces {
            sig[c as usize][r as usize] += 1;
        }
        self.route_of(sig)
    }

    /// The sub-table of the material `sig`, in either colouring.
    fn route_of(&self, sig: Signature) -> Option<Route> {
        let flipped = [sig[1], sig[0]];
        self.subs.iter().enumerate().find_map(|(k, s)| {
            if s.sig == sig {
                Some(Route {
                    sub: k,
                    flip: false,
                })
            } else if s.sig == flipped {
                Some(Route { sub: k, flip: true })
            } else {
                None
            }
        })
    }

    /// The longest win or loss, in plies, that any sub-table holds (from their headers'
    /// histograms); 0 without tables.
    pub fn deepest(&self) -> u16 {
        self.subs
            .iter()
            .flat_map(|s| &s.table.header().sections)
            .flat_map(|sec| sec.histogram.iter().enumerate())
            .filter(|&(_, &count)| count > 0)
            .filter_map(|(code, _)| match Value::from_code(code as u16) {
                Some(Value::Win(p) | Value::Loss(p)) => Some(p),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// The layout of a route's sub-table.
    pub fn layout_of(&self, r: Route) -> &Layout {
        &self.subs[r.sub].layout
    }

    /// The value in slot `i` of a route's sub-table, a slot as [`Layout::slot_of`] gives it
    /// ([`Value::Illegal`] for a slot that holds no legal position: the solvers' passes
    /// read the legality of a capture from it).
    #[inline]
    pub fn value_at(&self, r: Route, i: retro_engine::game::Index) -> Value {
        let s = &self.subs[r.sub];
        // A compressed table's illegal slots hold whatever compressed best: its layout
        // tells which they are.
        if s.table.is_compressed() && !s.layout.encoded_is_legal(i) {
            return Value::Illegal;
        }
        s.table.value(i)
    }

    /// The value, for its side to move, of a position of a sub-material (either
    /// colouring); bare kings are a draw. Without tables ([`SubTables::rules_only`]):
    /// `Value::Illegal`, "in no table".
    pub fn value(&self, pos: &Position) -> Value {
        let sig = signature(pos);
        if sig == [[0; 5]; 2] {
            return Value::Draw;
        }
        if self.rules_only {
            return Value::Illegal;
        }
        // Opening checked every child material is present.
        let Some(r) = self.route_of(sig) else {
            unreachable!("no sub-table for {}", pos.material())
        };
        let p = if r.flip { pos.color_flipped() } else { *pos };
        let (i, _) = self.subs[r.sub].layout.encode(&p);
        // A position that leaves the side not to move in check has an illegal slot.
        self.value_at(r, i)
    }
}
