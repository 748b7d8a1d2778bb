//! A dense table's records rebuilt from a compressed table's values: each slot's legality
//! from the game, its best move as the solver chose it (the first move, in the stored
//! position's move order, reaching its value), so the rebuilt file is the dense one byte
//! for byte (`retro decompress` proves it against the checksums the compressed file keeps).

use std::path::{Path, PathBuf};

use crate::game::{Game, Index, Records, Value, NO_MOVE};
use crate::plugin::Plugin;
use crate::probe::solver_move;
use crate::progress::Progress;
use crate::table::{write_records_as, Header, Table, TableError};

/// Write the dense table of `plugin` rebuilt from `table` (its compressed form) into
/// `dir`, refused with nothing written unless every section's checksum is the one the
/// compressed table keeps of the original.
pub fn decompress(
    plugin: &dyn Plugin,
    table: &Table,
    dir: &Path,
    progress: &dyn Progress,
) -> Result<(PathBuf, Header), TableError> {
    // Every slot is read, most several times (each best move from its moves' values): a
    // dropped section is worked out once, in memory, rather than one search a lookup.
    table.complete_all(progress, false)?;
    let (game, params) = plugin.params();
    let expect: Vec<u64> = table.header().sections.iter().map(|s| s.checksum).collect();
    write_records_as(
        dir,
        game,
        &plugin.name(),
        params,
        &plugin.sections(),
        &*plugin.rebuild(table),
        Some(&expect),
        progress,
    )
}

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
