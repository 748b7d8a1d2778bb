//! A dense table's records rebuilt from a compressed table's values: each slot's legality
//! from the game, its best move as the solver chose it (the first move, in the stored
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
            let Some(pos) = self.game.decode(i) else {
                rec.copy_from_slice(&[Value::Illegal.to_byte(), NO_MOVE]);
                continue;
            };
            let value = self.table.value(i);
            rec[0] = value.to_byte();
            rec[1] = solver_move(self.game, self.table, &pos, value);
        }
    }
}
