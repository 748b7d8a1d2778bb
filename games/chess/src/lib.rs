//! Chess endgames of any material up to 6 pieces: one table per material, distance to mate
//! and best move for every position, both sides to move.
//!
//! Captures and promotions leave the table: their values are read from the sub-tables'
//! mapped files ([`indexing::subtables`]), which must exist first. See `README.md` in this
//! folder for the index, the move code and the en-passant rule.
//!
//! The code is in rooms, each naming only rooms below it (the list is in `README.md`):
//! [`rules`]; [`indexing`]; the solvers, [`bareking`] and [`passes`]; [`planning`];
//! [`present`]; the DTZ plug-in, [`dtz`]; [`lichess`] and [`router`]. This file is the DTM
//! plug-in on top of them.

pub mod bareking;
pub mod dtz;
pub mod family;
pub mod indexing;
pub mod lichess;
pub mod passes;
pub mod planning;
pub mod present;
pub mod router;
pub mod rules;

// The paths the crate's users name (`retro_chess::fen::parse`, `retro_chess::plan`).
pub use indexing::outcome::Chess;
pub use indexing::subtables;
pub use planning::{plan, set};
pub use rules::position::Position;
pub use rules::{board, fen, material, moves, notation, position};

use retro_engine::game::{
    Game, Index, Outcome, PositionError, Records, Section, Solution, SolveOptions, Successor, Value,
};
use retro_engine::present::{DistanceUnit, GameText, Presented};
use retro_engine::probe::Probed;
use retro_engine::solve::SolveError;

use indexing::index::transform;
use indexing::outcome::DtzTwin;
use rules::moves::{legal_moves, make, with_legal_moves, Move};

impl Chess {
    /// The material's DTZ table beside this one, opened once (see [`Chess::dtz_twin`]).
    fn dtz_twin(&self) -> Option<&Result<DtzTwin, String>> {
        self.dtz_twin
            .get_or_init(|| {
                let dir = self.dir.as_ref()?;
                let name = subtables::table_name(self.material(), retro_engine::table::Metric::Dtz);
                let path = retro_engine::table::table_path(dir, &name);
                if std::fs::symlink_metadata(&path).is_err() {
                    return None;
                }
                Some((|| {
                    let game = dtz::ChessDtz::open(self.material(), dir)
                        .map(Box::new)
                        .map_err(|e| e.to_string())?;
                    let table =
                        retro_engine::table::shared::open(&path, retro_engine::table::Load::Auto)
                            .map_err(|e| e.to_string())?;
                    let h = table.header();
                    let (id, params) = game.params();
                    if h.game != id || h.name != name || h.params != params {
                        return Err(format!("{} does not hold {name}", path.display()));
                    }
                    // A compressed DTZ table storing one side to move finds the other
                    // from its own sub-tables.
                    family::CHESS
                        .complete(&table, dir)
                        .map_err(|e| e.to_string())?;
                    Ok(DtzTwin { game, table })
                })())
            })
            .as_ref()
    }
}

impl Chess {
    /// The table solved by the bitboard solver for pieces against a bare king, if it
    /// applies and does not decline; `None` leaves it to the two-queue solver. An error
    /// if the table was opened without its sub-tables.
    fn bare_king(
        &self,
        opts: &retro_engine::game::SolveOptions,
    ) -> Result<Option<retro_engine::game::Solution>, retro_engine::solve::SolveError> {
        if self.subs.is_rules_only() {
            return Err(retro_engine::solve::SolveError::Game(format!(
                "{} was opened without its sub-tables and cannot be solved",
                self.name()
            )));
        }
        if !bareking::applies(&self.layout.material) {
            return Ok(None);
        }
        bareking::solve(&self.layout, &self.subs, opts)
    }
}

impl Chess {
    /// The one-byte solver's passes for this material: moves and un-moves on squares and
    /// index arithmetic.
    pub fn passes(&self) -> passes::ChessPasses<'_> {
        passes::ChessPasses::new(self, retro_engine::table::Metric::Dtm)
    }

    /// The one-byte solver's values over the chess passes, the best moves found as the
    /// records are read.
    fn one_byte(
        &self,
        opts: &retro_engine::game::SolveOptions,
    ) -> Result<
        retro_engine::solve::one_byte::Solved<passes::ChessPasses<'_>>,
        retro_engine::solve::SolveError,
    > {
        retro_engine::solve::one_byte::solve(self.passes(), opts)
    }

    /// Every record in memory: the bare-king solver's, else the one-byte solver's.
    fn solution(&self, opts: &SolveOptions) -> Result<Solution, SolveError> {
        match self.bare_king(opts)? {
            Some(sol) => Ok(sol),
            None => Ok(self.one_byte(opts)?.to_solution(opts.progress)),
        }
    }

    /// The records for writing: as [`Chess::solution`], the one-byte solver's best moves
    /// found as they are written.
    fn records(&self, opts: &SolveOptions) -> Result<Box<dyn Records + '_>, SolveError> {
        Ok(match self.bare_king(opts)? {
            Some(sol) => Box::new(sol),
            None => Box::new(self.one_byte(opts)?),
        })
    }
}

impl Game for Chess {
    type Position = Position;

    fn name(&self) -> String {
        self.layout.material.to_string()
    }

    fn params(&self) -> (&'static str, Vec<(String, i64)>) {
        (
            "chess",
            vec![("pieces".to_string(), self.layout.material.count() as i64)],
        )
    }

    fn sections(&self) -> Vec<Section> {
        ["white", "black"]
            .iter()
            .map(|n| Section {
                name: n.to_string(),
                len: self.layout.section,
            })
            .collect()
    }

    fn decode(&self, i: Index) -> Option<Position> {
        self.layout.decode(i)
    }

    fn encode(&self, pos: &Position) -> Index {
        self.layout.encode(&self.stored(pos).0).0
    }

    fn canonical(&self, pos: &Position) -> Position {
        let (p, _) = self.stored(pos);
        let t = self.layout.encode(&p).1;
        let mut c = p.map(|s| transform(t, s));
        c.ep = None;
        c
    }

    fn terminal(&self, pos: &Position) -> Option<Value> {
        moves::terminal(pos)
    }

    fn colour_twin(&self, index: Index) -> Option<Index> {
        self.layout.colour_twin(index)
    }

    fn own_solution(&self, opts: &SolveOptions) -> Option<Result<Solution, SolveError>> {
        Some(self.solution(opts))
    }

    /// As [`Chess::own_solution`], but the records are made as they are written from the
    /// one-byte solver's values: a byte a slot instead of three at the end.
    fn own_records(
        &self,
        opts: &SolveOptions,
    ) -> Option<Result<Box<dyn Records + '_>, SolveError>> {
        Some(self.records(opts))
    }

    fn successors(&self, pos: &Position, out: &mut Vec<Successor>) {
        let swapped = self.swapped(pos);
        with_legal_moves(pos, |v| {
            for (k, m) in v.iter().enumerate() {
                let after = make(pos, m);
                out.push(Successor {
                    mv: k as u8 + 1,
                    to: self.outcome(m, &after, swapped),
                });
            }
        })
    }

    fn first_successor(&self, pos: &Position, wanted: &dyn Fn(Outcome) -> bool) -> u8 {
        let swapped = self.swapped(pos);
        moves::first_legal_rank(pos, |m| wanted(self.outcome(m, &make(pos, m), swapped)))
    }

    fn count_successors(&self, pos: &Position, out: &mut Vec<Successor>) -> usize {
        // The king that does not move (the colour swap of the stored colouring moves no
        // square off or onto a long diagonal).
        if !self.layout.fixes_orientation(pos.king(pos.turn.other())) {
            return retro_engine::game::count_from_successors(self, pos, out);
        }
        // Every in-table move leads to a slot of its own (see `fixes_orientation`), so it
        // is counted without working out which: only captures, promotions and double
        // steps may lead elsewhere.
        let mut v = Vec::with_capacity(64);
        legal_moves(pos, &mut v);
        let swapped = self.swapped(pos);
        let mut n = 0;
        for (k, m) in v.iter().enumerate() {
            if m.converts() || m.is_double_step() {
                match self.outcome(m, &make(pos, m), swapped) {
                    Outcome::Index(_) => n += 1,
                    to => out.push(Successor {
                        mv: k as u8 + 1,
                        to,
                    }),
                }
            } else {
                n += 1;
            }
        }
        n
    }

    fn predecessors(&self, pos: &Position, out: &mut Vec<Index>) {
        let mut v = Vec::with_capacity(64);
        moves::unmoves(pos, &mut v);
        let swapped = self.swapped(pos);
        out.extend(v.iter().map(|p| self.encode_as(p, swapped)));
    }

    fn images(&self, pos: &Position) -> Vec<Position> {
        let n = if self.layout.material.has_pawns() {
            2
        } else {
            8
        };
        (0..n).map(|t| pos.map(|s| transform(t, s))).collect()
    }

    fn damage(&self) -> Option<retro_engine::table::TableError> {
        self.subs.damage()
    }

    fn move_from_canonical(&self, pos: &Position, mv: u8) -> Option<u8> {
        let canon = self.canonical(pos);
        let mut cm = Vec::new();
        legal_moves(&canon, &mut cm);
        let target = cm.get((mv as usize).checked_sub(1)?)?;
        let f = self.frame(pos);
        let mut own = Vec::new();
        let mut plain = *pos;
        plain.ep = None;
        legal_moves(&plain, &mut own);
        own.iter()
            .position(|m| {
                f(m.from) == target.from && f(m.to) == target.to && m.promotion == target.promotion
            })
            .map(|k| {
                // The code in `pos`'s own move list, which may have en-passant moves too.
                let mut all = Vec::new();
                legal_moves(pos, &mut all);
                let m = own[k];
                all.iter().position(|x| *x == m).map_or(0, |j| j as u8 + 1)
            })
            .filter(|&c| c != 0)
    }
}

impl GameText for Chess {
    fn title(&self) -> String {
        present::title(&self.layout.material)
    }

    fn parse_position(&self, text: &str) -> Result<Position, PositionError> {
        let pos = fen::parse(text)?;
        let (m, _) = pos.material().canonical();
        if m != self.layout.material {
            return Err(PositionError::Illegal(format!(
                "the material on the board is {}, not {}",
                pos.material(),
                self.layout.material
            )));
        }
        Ok(pos)
    }

    fn position_text(&self, pos: &Position) -> String {
        fen::to_fen(pos, pos.clock.halfmove, pos.clock.fullmove)
    }

    fn present(&self, pos: &Position, probed: &Probed) -> Presented {
        present::present(self, pos, probed)
    }

    fn distance_unit(&self) -> DistanceUnit {
        DistanceUnit::Moves
    }

    fn stored_as(&self, stored: u64) -> Option<retro_engine::present::StoredAs> {
        Some(present::stored_as(self.material(), stored))
    }
}

impl present::Source for Chess {
    fn dtz_beside(
        &self,
        pos: &Position,
        legal: &[Move],
    ) -> Option<Result<present::DtzBeside, String>> {
        Some(match self.dtz_twin()? {
            Ok(twin) => {
                let probed = retro_engine::probe::probe(&*twin.game, &twin.table, pos);
                Ok(present::dtz::beside(&*twin.game, pos, &probed, legal))
            }
            Err(e) => Err(e.clone()),
        })
    }

    fn table_name(&self) -> String {
        self.material().to_string()
    }

    fn has_subtables(&self) -> bool {
        !self.subs.is_rules_only()
    }

    fn converted(&self, pos: &Position) -> Value {
        self.subs.value(pos)
    }

    fn find<'a>(&self, legal: &'a [Move], code: u8) -> Option<&'a Move> {
        legal.get((code as usize).checked_sub(1)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::material::Material;
    use retro_engine::game::count_from_successors;

    /// `count_successors` against the successor list, on every slot of `material` whose
    /// index is a multiple of `step`.
    fn agrees(material: &str, step: u64) -> usize {
        let chess = Chess::rules_only(&Material::parse(material).unwrap());
        let mut checked = 0;
        for i in (0..chess.size()).step_by(step as usize) {
            let Some(pos) = chess.decode(i) else { continue };
            if chess.terminal(&pos).is_some() {
                continue;
            }
            let (mut a, mut b) = (Vec::new(), Vec::new());
            let n = chess.count_successors(&pos, &mut a);
            let m = count_from_successors(&chess, &pos, &mut b);
            assert_eq!((n, a), (m, b), "{material} slot {i}");
            checked += 1;
        }
        checked
    }

    #[test]
    fn counting_without_encoding_agrees_with_the_successor_list() {
        // Kb1-a2 and Qc1-a3 lead to mirror images (across a1-h8, which keeps h8): the
        // king not to move on a long diagonal takes the careful path.
        let chess = Chess::rules_only(&Material::parse("KQvK").unwrap());
        let pos = crate::fen::parse("7k/8/8/8/8/8/8/1KQ5 w - - 0 1").unwrap();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let n = chess.count_successors(&pos, &mut a);
        let mut all = Vec::new();
        chess.successors(&pos, &mut all);
        assert_eq!(n, count_from_successors(&chess, &pos, &mut b));
        assert!(n < all.len(), "two moves share a slot");
        assert!(agrees("KQvK", 7) > 1_000);
        assert!(agrees("KRvKB", 97) > 1_000);
        assert!(agrees("KPvKP", 193) > 1_000);
    }
}
