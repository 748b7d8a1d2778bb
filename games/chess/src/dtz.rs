//! Distance to zeroing under the 50-move rule (DTZ50), as Syzygy defines it: for the side
//! to move, the plies to the next capture or pawn move (or mate) on the way to the result,
//! the winner hurrying and the loser delaying, with the halfmove clock at zero.
//!
//! A material's DTZ table (`KQvKR.dtz`) has the DTM table's index and the same rules. Its
//! values are those of the restarting solver ([`retro_engine::solve::restart`], which
//! the tests compare in full), made by the one-byte solver on the DTM table's passes
//! ([`ChessDtz::passes`]), with pawns a tier at a time (the pawns' advance,
//! [`pawn_advance`]):
//! - a capture or promotion leads to a sub-material's DTZ table; a pawn move to a position
//!   of the same table with more pawn advance (a higher tier). Both restart the count, so
//!   what they lead to counts only by its result under the 50-move rule: a win or loss
//!   within 100 plies, a cursed win or blessed loss beyond ([`Value::restarted`]). Zeroing
//!   into a win is a win in 1 ply, into a cursed win a win in 101 plies;
//! - every other move keeps counting, one ply each; mate counts as zeroing (a checkmated
//!   position is a loss in 0 plies, so the mating move is a win in 1).
//!
//! So a win of at most 100 plies survives the 50-move rule (Syzygy's `win`) and a longer
//! one does not (`cursed-win`); losses likewise (`loss`, `blessed-loss`). The distance is
//! exact in plies, never rounded.
//!
//! Pieces against a bare king take the bitboard solver instead ([`super::bareking`]): its
//! DTM values where DTZ is DTM ([`mate_is_the_only_zeroing_win`]), otherwise its DTZ count
//! ([`super::bareking::solve_dtz`]); both write the restarting solver's bytes too.

use super::indexing::subtables;
use super::passes::ChessPasses;
use super::rules::material::{Color, Material, Role};
use super::rules::moves::{first_legal_rank, legal_moves, make, Move};
use super::Position;
// The DTZ plug-in's state, and where its moves lead, are with the DTM plug-in's, which
// the solvers' passes read; its solving and answers are here.
use crate::indexing::outcome::outcome;
pub use crate::indexing::outcome::ChessDtz;
use retro_engine::game::{
    Game, Index, Outcome, PositionError, Records, Section, SolveOptions, Successor, Value,
};
use retro_engine::present::{DistanceUnit, GameText, Presented};
use retro_engine::probe::Probed;
use retro_engine::solve::SolveError;
use retro_engine::table::Metric;

impl ChessDtz {
    /// The one-byte solver's passes for this table: the DTM table's, a capture or pawn
    /// move counting by its result under the 50-move rule (with pawns, tier by tier).
    pub fn passes(&self) -> ChessPasses<'_> {
        ChessPasses::new(&self.chess, Metric::Dtz)
    }

    /// Where a move of `pos` leads, for distance to zeroing.
    fn outcome(&self, m: &Move, after: &Position, swapped: bool) -> Outcome {
        outcome(&self.chess, m, after, swapped)
    }

    /// The DTZ records: the bitboard solver's where it applies (its DTM values where mate
    /// is the only winning zeroing move), else the one-byte solver's, tier by tier.
    fn records(&self, opts: &SolveOptions) -> Result<Box<dyn Records + '_>, SolveError> {
        if self.chess.subs.is_rules_only() {
            return Err(retro_engine::solve::SolveError::Game(format!(
                "{} was opened without its sub-tables and cannot be solved",
                self.name()
            )));
        }
        if mate_is_the_only_zeroing_win(self.material()) {
            if let Some(sol) = super::bareking::solve(&self.chess.layout, &self.chess.subs, opts)? {
                return Ok(Box::new(FromDtm(sol)));
            }
        } else if super::bareking::applies(self.material()) {
            let (layout, subs) = (&self.chess.layout, &self.chess.subs);
            if let Some(codes) = super::bareking::solve_dtz(layout, subs, opts)? {
                return Ok(Box::new(codes));
            }
        }
        // The one-byte solver on the DTM solver's passes, a capture or pawn move counting
        // by its result under the 50-move rule (with pawns, tier by tier).
        Ok(Box::new(retro_engine::solve::one_byte::solve(
            self.passes(),
            opts,
        )?))
    }
}

/// The solver's tier of a position: how far its pawns have come (white's ranks up, black's
/// down), which every pawn move increases and no other move of the table changes, and
/// which the colour swap and the mirror that store positions keep.
pub fn pawn_advance(pos: &Position) -> u32 {
    let rank_sum = |bb: u64, up: bool| -> u32 {
        let mut b = bb;
        let mut s = 0;
        while b != 0 {
            let r = b.trailing_zeros() / 8;
            s += if up { r } else { 7 - r };
            b &= b - 1;
        }
        s
    };
    rank_sum(pos.pieces(Color::White, Role::Pawn), true)
        + rank_sum(pos.pieces(Color::Black, Role::Pawn), false)
}

/// True if the only zeroing move on the way to a win is the mate, so that DTZ is DTM in
/// every position: black has a bare king, white no pawn and one piece or two minor
/// pieces. The lone king's captures (its only zeroing moves; white has nothing to take)
/// all lead to a draw (a bare king or a lone minor piece), as in DTM, and no move
/// restarts: the two games are the same graph with the same values.
pub fn mate_is_the_only_zeroing_win(m: &Material) -> bool {
    let minor = |r: &Role| matches!(r, Role::Bishop | Role::Knight);
    m.sides[1].is_empty()
        && match m.sides[0].as_slice() {
            [r] => *r != Role::Pawn,
            [a, b] => minor(a) && minor(b),
            _ => false,
        }
}

/// The DTZ records of a table whose DTZ is its DTM ([`mate_is_the_only_zeroing_win`]),
/// from the bitboard DTM solver's solution.
struct FromDtm(retro_engine::game::Solution);

impl retro_engine::game::Records for FromDtm {
    fn slots(&self) -> u64 {
        self.0.records.len() as u64 / 2
    }

    fn value(&self, i: Index) -> Value {
        self.0.value(i)
    }

    fn fill(&self, first: Index, out: &mut [u8]) {
        for (k, rec) in out.chunks_exact_mut(2).enumerate() {
            rec.copy_from_slice(&Metric::Dtz.record(self.0.value(first + k as u64), 0));
        }
    }
}

impl Game for ChessDtz {
    type Position = Position;

    fn name(&self) -> String {
        subtables::table_name(self.material(), Metric::Dtz)
    }

    fn params(&self) -> (&'static str, Vec<(String, i64)>) {
        let (game, mut params) = self.chess.params();
        params.extend(Metric::Dtz.param());
        (game, params)
    }

    fn sections(&self) -> Vec<Section> {
        self.chess.sections()
    }

    fn decode(&self, i: Index) -> Option<Position> {
        self.chess.decode(i)
    }

    fn encode(&self, pos: &Position) -> Index {
        self.chess.encode(pos)
    }

    fn canonical(&self, pos: &Position) -> Position {
        self.chess.canonical(pos)
    }

    fn terminal(&self, pos: &Position) -> Option<Value> {
        self.chess.terminal(pos)
    }

    fn colour_twin(&self, index: Index) -> Option<Index> {
        self.chess.colour_twin(index)
    }

    fn own_records(
        &self,
        opts: &SolveOptions,
    ) -> Option<Result<Box<dyn Records + '_>, SolveError>> {
        Some(self.records(opts))
    }

    fn successors(&self, pos: &Position, out: &mut Vec<Successor>) {
        let mut v = Vec::with_capacity(64);
        legal_moves(pos, &mut v);
        let swapped = self.chess.swapped(pos);
        for (k, m) in v.iter().enumerate() {
            out.push(Successor {
                mv: k as u8 + 1,
                to: self.outcome(m, &make(pos, m), swapped),
            });
        }
    }

    fn first_successor(&self, pos: &Position, wanted: &dyn Fn(Outcome) -> bool) -> u8 {
        let swapped = self.chess.swapped(pos);
        first_legal_rank(pos, |m| wanted(self.outcome(m, &make(pos, m), swapped)))
    }

    /// As the DTM plug-in counts (see `Chess::count_successors`): where the king not to
    /// move fixes the orientation, every quiet move leads to a slot of its own, counted
    /// without working out which; zeroing moves are listed.
    fn count_successors(&self, pos: &Position, out: &mut Vec<Successor>) -> usize {
        if !self
            .chess
            .layout
            .fixes_orientation(pos.king(pos.turn.other()))
        {
            return retro_engine::game::count_from_successors(self, pos, out);
        }
        let mut v = Vec::with_capacity(64);
        legal_moves(pos, &mut v);
        let swapped = self.chess.swapped(pos);
        let mut n = 0;
        for (k, m) in v.iter().enumerate() {
            if m.converts() || m.role == Role::Pawn {
                out.push(Successor {
                    mv: k as u8 + 1,
                    to: self.outcome(m, &make(pos, m), swapped),
                });
            } else {
                n += 1;
            }
        }
        n
    }

    /// The un-moves of every piece but a pawn: a pawn move zeroes, so it is a restart,
    /// which the solver follows from the mover's side. Each position before is encoded as
    /// it is made, not listed first.
    fn predecessors(&self, pos: &Position, out: &mut Vec<Index>) {
        let swapped = self.chess.swapped(pos);
        super::rules::moves::each_unmove(pos, |role, now, before| {
            if role != Role::Pawn {
                let b = super::rules::moves::unmade(pos, role, now, before);
                out.push(self.chess.encode_as(&b, swapped));
            }
        });
    }

    fn images(&self, pos: &Position) -> Vec<Position> {
        self.chess.images(pos)
    }

    fn move_from_canonical(&self, pos: &Position, mv: u8) -> Option<u8> {
        self.chess.move_from_canonical(pos, mv)
    }
}

impl GameText for ChessDtz {
    fn title(&self) -> String {
        format!(
            "{}, distance to zeroing",
            super::present::title(self.material())
        )
    }

    fn parse_position(&self, text: &str) -> Result<Position, PositionError> {
        self.chess.parse_position(text)
    }

    fn position_text(&self, pos: &Position) -> String {
        self.chess.position_text(pos)
    }

    fn present(&self, pos: &Position, probed: &Probed) -> Presented {
        super::present::dtz::present(self, pos, probed)
    }

    fn distance_unit(&self) -> DistanceUnit {
        DistanceUnit::Plies
    }

    fn stored_as(&self, stored: u64) -> Option<retro_engine::present::StoredAs> {
        Some(super::present::stored_as(self.material(), stored))
    }
}

impl super::present::Source for ChessDtz {
    fn table_name(&self) -> String {
        self.name()
    }

    fn has_subtables(&self) -> bool {
        !self.chess.subs.is_rules_only()
    }

    fn converted(&self, pos: &Position) -> Value {
        self.chess.subs.value(pos)
    }

    fn find<'a>(&self, legal: &'a [Move], code: u8) -> Option<&'a Move> {
        legal.get((code as usize).checked_sub(1)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::indexing::index::transform;

    #[test]
    fn pawn_advance_is_kept_by_the_stored_forms_and_raised_by_pawn_moves() {
        let pos = crate::rules::fen::parse("8/8/3k4/8/1p6/8/4P3/K7 w - - 0 1").unwrap();
        // White's pawn on rank 2 (index 1), black's on rank 4 (index 3: 7 - 3 = 4).
        assert_eq!(pawn_advance(&pos), 1 + 4);
        assert_eq!(pawn_advance(&pos.color_flipped()), 5);
        assert_eq!(pawn_advance(&pos.map(|s| transform(1, s))), 5);
        let mut moves = Vec::new();
        legal_moves(&pos, &mut moves);
        for m in moves.iter().filter(|m| m.role == Role::Pawn) {
            assert!(pawn_advance(&make(&pos, m)) > 5, "{m:?}");
        }
    }
}
