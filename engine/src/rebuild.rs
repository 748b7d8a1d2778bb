//! A dense table's records rebuilt from a compressed table's values: each slot's legality
//! from the game, a DTM table's best move as the solver chose it (the first move, in the stored
//! position's move order, reaching its value), so the rebuilt file is the dense one byte
//! for byte (`plugin::decompress` proves it against the checksums the compressed file keeps).

use crate::game::{Game, Index, Records, Value, NO_MOVE};
use crate::probe::solver_move;
use crate::table::Table;

/// The records of `game`'s table from `table`'s values (a compressed table, or any).
pub struct Rebuilt<'a, G> {
    pub game: &'a G,
    pub table: &'a Table,
}

impl<G: Game> Records for Rebuilt<'_, G> {
    fn slots(&self) -> u64 {
        self.table.size()
    }

    fn value(&self, i: Index) -> Value {
        match self.game.decode(i) {
            Some(_) => self.table.value(i),
            None => Value::Illegal,
        }
    }

    fn fill(&self, first: Index, out: &mut [u8]) {
        for (k, rec) in out.chunks_exact_mut(2).enumerate() {
            let i = first + k as Index;
            let metric = self.table.metric();
            let Some(pos) = self.game.decode(i) else {
                rec.copy_from_slice(&metric.record(Value::Illegal, NO_MOVE));
                continue;
            };
            let value = self.table.value(i);
            // A DTZ record holds no move.
            let mv = match metric.stores_moves() {
                true => solver_move(self.game, self.table, &pos, value),
                false => NO_MOVE,
            };
            rec.copy_from_slice(&metric.record(value, mv));
        }
    }
}
