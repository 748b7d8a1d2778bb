//! The values of a compressed table's dropped section (one side to move not stored, see
//! [`crate::table::compressed`]): each is the best its moves give, one ply on, into the
//! stored section or into other tables. The table cannot work them out itself (it knows
//! no moves): the game's plug-in is installed into it when it is opened with its game
//! ([`super::Table::complete_with`]).
//!
//! A probe asks for the same dropped slots several times (its best move, then every
//! move's value), so the last values found are kept in a small direct-mapped memo; and a
//! whole dropped section can be worked out once, when every slot will be read
//! (`retro decompress`, `verify`), into memory ([`super::Table::complete_all`]).

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::Table;
use crate::game::{Index, Value};
use crate::table::{damage, TableError};

/// What finds a dropped slot's value: the table's game.
pub trait Complete: Send + Sync {
    /// The value of slot `index` of `table`, for its side to move, from its moves' values
    /// (`Value::Illegal` for a slot that holds no position).
    fn one_ply(&self, table: &Table, index: Index) -> Value;
    /// The first damage met by the tables it reads besides `table` (its sub-tables).
    fn damage(&self) -> Option<TableError>;
}

/// Places of the memo: 64 Ki values, 512 KiB a table with a dropped section.
const MEMO: usize = 1 << 16;

/// A table's game, and the dropped values found lately.
pub(super) struct Completion {
    pub(super) by: Box<dyn Complete>,
    /// Per place: `(index + 1) << 16 | symbol` ([`crate::table::compressed::Symbols`]),
    /// 0 for empty.
    memo: Box<[AtomicU64]>,
}

impl Completion {
    pub(super) fn new(by: Box<dyn Complete>) -> Completion {
        Completion {
            by,
            memo: (0..MEMO).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The value of dropped slot `index` of `table`.
    pub(super) fn value(&self, table: &Table, index: Index) -> Value {
        let place = &self.memo[(index as usize).wrapping_mul(0x9E37_79B9) % MEMO];
        let held = place.load(Relaxed);
        if held >> 16 == index + 1 {
            return table.value_of_symbol(held as u16);
        }
        // A value found over a damaged block is no value: the damage goes on to the probe
        // watching, and nothing is kept for the next one.
        let v = match damage::watch(|| self.by.one_ply(table, index)) {
            Ok(v) => v,
            Err(e) => {
                damage::report(e);
                return Value::Illegal;
            }
        };
        // An illegal slot is not kept: a DTM table's symbol for it means a terminal loss.
        if let Some(s) = table.symbol_of(v).filter(|_| v != Value::Illegal) {
            place.store((index + 1) << 16 | s as u64, Relaxed);
        }
        v
    }
}
