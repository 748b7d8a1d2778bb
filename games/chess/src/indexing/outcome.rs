//! The two plug-ins' state for one material, and where each move of a position leads.
//!
//! [`Chess`] holds a material's layout and sub-tables in its stored colouring, and says
//! where a move leads: a slot of the table, a sub-table's value, or both (en passant);
//! [`ChessDtz`] is the same material counted in distance to zeroing (`outcome`). The
//! solvers' passes read these; the plug-ins' solving and answers are above them
//! (`lib.rs`: `Game` and `GameText` for [`Chess`]; `dtz.rs`: for [`ChessDtz`]).

use std::path::Path;

use super::index::{transform, Layout};
use super::subtables::{SubTableError, SubTables};
use crate::rules::material::{Color, Material, Role};
use crate::rules::moves::{en_passant_after, has_move, make, Move};
use crate::rules::position::{Position, FIFTY_MOVES};
use retro_engine::game::{Index, Outcome, Value};
use retro_engine::table::Metric;

/// The chess plug-in for one material (stored colouring).
pub struct Chess {
    pub(crate) layout: Layout,
    pub(crate) subs: SubTables,
    /// White's role counts in the stored colouring: a position whose white pieces differ
    /// is the other colouring, answered with the colours swapped.
    white_sig: [u32; 5],
    /// The folder of the tables, where the material's DTZ table may lie beside its DTM
    /// table (`None` for rules only, and for the DTZ plug-in itself).
    pub(crate) dir: Option<std::path::PathBuf>,
    /// That DTZ table, opened on the first probe answer that shows it: `None` if absent,
    /// an error text if unusable.
    pub(crate) dtz_twin: std::sync::OnceLock<Option<Result<DtzTwin, String>>>,
}

/// A material's DTZ plug-in and its open table.
pub(crate) struct DtzTwin {
    // Boxed: the DTZ plug-in holds a `Chess` itself.
    pub(crate) game: Box<ChessDtz>,
    pub(crate) table: std::sync::Arc<retro_engine::table::Table>,
}

impl Chess {
    /// The plug-in for `material` (either colouring), its sub-tables opened from `dir`.
    pub fn open(material: &Material, dir: &Path) -> Result<Chess, SubTableError> {
        let (m, _) = material.canonical();
        let subs = SubTables::open(&m, dir)?;
        let mut chess = Chess::with_subtables(&m, subs);
        chess.dir = Some(dir.to_path_buf());
        Ok(chess)
    }

    /// [`Chess::open`], the sub-tables' bytes held as `load` says (a test reading them at
    /// positions, as a large table is read, to change them while they are open).
    pub fn open_reading(
        material: &Material,
        dir: &Path,
        load: retro_engine::table::Load,
    ) -> Result<Chess, SubTableError> {
        let (m, _) = material.canonical();
        let subs = SubTables::open_with(&m, dir, retro_engine::table::Metric::Dtm, load)?;
        let mut chess = Chess::with_subtables(&m, subs);
        chess.dir = Some(dir.to_path_buf());
        Ok(chess)
    }

    /// The rules of `material` without its sub-tables, for structural checks such as the
    /// conformance self-test: moves that leave the table lead to `Known(Value::Illegal)`
    /// ("in no table"), so it cannot solve
    /// ([`Solve::solve`](retro_engine::solve::Solve::solve) refuses).
    pub fn rules_only(material: &Material) -> Chess {
        Chess::with_subtables(&material.canonical().0, SubTables::rules_only())
    }

    fn with_subtables(m: &Material, subs: SubTables) -> Chess {
        let layout = Layout::new(m);
        let mut white_sig = [0; 5];
        for &r in &m.sides[0] {
            white_sig[r as usize] += 1;
        }
        Chess {
            layout,
            subs,
            white_sig,
            dir: None,
            dtz_twin: std::sync::OnceLock::new(),
        }
    }

    pub fn material(&self) -> &Material {
        &self.layout.material
    }

    /// True if `pos` is in the other colouring than the stored one.
    pub(crate) fn swapped(&self, pos: &Position) -> bool {
        let sig: [u32; 5] =
            std::array::from_fn(|r| pos.pieces(Color::White, Role::ALL[r]).count_ones());
        sig != self.white_sig
    }

    /// The stored colouring of `pos`, and whether it was swapped.
    pub(crate) fn stored(&self, pos: &Position) -> (Position, bool) {
        if self.swapped(pos) {
            (pos.color_flipped(), true)
        } else {
            (*pos, false)
        }
    }

    /// The square map from `pos`'s frame to its canonical position's frame.
    pub(crate) fn frame(&self, pos: &Position) -> impl Fn(u8) -> u8 {
        let (p, flip) = self.stored(pos);
        let t = self.layout.encode(&p).1;
        move |s: u8| transform(t, if flip { s ^ 56 } else { s })
    }

    /// The slot of `pos`, its colouring already known.
    pub(crate) fn encode_as(&self, pos: &Position, swapped: bool) -> Index {
        if swapped {
            self.layout.encode(&pos.color_flipped()).0
        } else {
            self.layout.encode(pos).0
        }
    }

    /// Where a move of `pos` leads (`after` = the position after it; `swapped`: the
    /// colouring of both, which a move inside the table keeps).
    pub(crate) fn outcome(&self, m: &Move, after: &Position, swapped: bool) -> Outcome {
        if m.converts() {
            return Outcome::Known(self.subs.value(after));
        }
        let ep = en_passant_after(after, m);
        if ep.is_empty() {
            return Outcome::Index(self.encode_as(after, swapped));
        }
        // The opponent may also take en passant: those captures leave the table.
        let extra = ep
            .iter()
            .map(|x| self.subs.value(&make(after, x)).back())
            .reduce(Value::better)
            .expect("one capture at least");
        if has_move(after) {
            Outcome::Augmented {
                index: self.encode_as(after, swapped),
                extra,
            }
        } else {
            Outcome::Known(extra)
        }
    }
}

/// The DTZ plug-in of one material (stored colouring).
pub struct ChessDtz {
    pub(crate) chess: Chess,
}

impl ChessDtz {
    /// The plug-in for `material`, its sub-materials' DTZ tables opened from `dir`.
    pub fn open(material: &Material, dir: &Path) -> Result<ChessDtz, SubTableError> {
        let (m, _) = material.canonical();
        let subs = SubTables::open_metric(&m, dir, Metric::Dtz)?;
        Ok(ChessDtz {
            chess: Chess::with_subtables(&m, subs),
        })
    }

    /// The rules of `material` without its sub-tables, for structural checks (the
    /// conformance self-test); it cannot solve.
    pub fn rules_only(material: &Material) -> ChessDtz {
        ChessDtz {
            chess: Chess::rules_only(material),
        }
    }

    pub fn material(&self) -> &Material {
        self.chess.material()
    }
}

/// Where legal move `m` leads (to `after`, `swapped` if the position's colours are the
/// reverse of the stored material's), for distance to zeroing: a capture or promotion to
/// its sub-table's result, restarted; a pawn move to a restart into a higher tier, beside
/// the opponent's en-passant captures; any other move to a slot of the table.
pub(crate) fn outcome(chess: &Chess, m: &Move, after: &Position, swapped: bool) -> Outcome {
    let subs = &chess.subs;
    if m.converts() {
        return Outcome::Known(subs.value(after).restarted(FIFTY_MOVES));
    }
    if m.role != Role::Pawn {
        return Outcome::Index(chess.encode_as(after, swapped));
    }
    // A pawn move: the opponent may take en passant, which zeroes too.
    let extra = en_passant_after(after, m)
        .iter()
        .map(|x| subs.value(&make(after, x)).restarted(FIFTY_MOVES).back())
        .reduce(Value::better);
    match extra {
        Some(e) if !has_move(after) => Outcome::Known(e.restarted(FIFTY_MOVES)),
        _ => Outcome::Restart {
            index: chess.encode_as(after, swapped),
            limit: FIFTY_MOVES,
            extra,
        },
    }
}
