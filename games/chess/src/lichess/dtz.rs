//! Distance to zeroing from retro's own DTZ tables (`KQvKR.dtz`), where the server has them:
//! exact in plies, so `dtz` and `precise_dtz` agree and no category is a guess.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::Tables;
use crate::dtz::ChessDtz;
use crate::indexing::subtables::table_name;
use crate::rules::material::Material;
use crate::rules::moves::{legal_moves, terminal, Move};
use crate::rules::position::FIFTY_MOVES;
use crate::Position;
use retro_engine::game::{Game, Value};
use retro_engine::table::Metric;

/// The DTZ tables of a server, with their rules made on first use.
pub struct DtzTables {
    tables: Arc<dyn Tables>,
    /// `None`: the table is served but its sub-tables' DTZ tables are not all there.
    games: Mutex<HashMap<String, Option<Arc<ChessDtz>>>>,
}

impl DtzTables {
    pub fn new(tables: Arc<dyn Tables>) -> DtzTables {
        DtzTables {
            tables,
            games: Mutex::new(HashMap::new()),
        }
    }

    /// The DTZ value of `pos` for its side to move with the clock at zero, en-passant
    /// captures counted; `None` where no DTZ table answers.
    pub fn value(&self, pos: &Position) -> Option<Value> {
        if pos.material().is_bare_kings() {
            return Some(Value::Draw);
        }
        if let Some(t) = terminal(pos) {
            return Some(t);
        }
        let (material, _) = pos.material().canonical();
        let name = table_name(&material, Metric::Dtz);
        let table = self.tables.table(&name)?;
        let game = self.game(&name, &material)?;
        if pos.ep.is_none() {
            return Some(table.value(game.encode(pos)));
        }
        // The stored position has no en-passant right: its captures are moves of their own,
        // weighed as a DTZ answer weighs every move.
        let probed = retro_engine::probe::probe(&*game, table, pos);
        let mut legal = Vec::new();
        legal_moves(pos, &mut legal);
        Some(crate::present::dtz::beside(&*game, pos, &probed, &legal).value)
    }

    fn game(&self, name: &str, material: &Material) -> Option<Arc<ChessDtz>> {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        games
            .entry(name.to_string())
            .or_insert_with(|| {
                ChessDtz::open(material, self.tables.dir())
                    .ok()
                    .map(Arc::new)
            })
            .clone()
    }
}

/// Syzygy's signed DTZ of a value for the side to move (-1 for a checkmated side).
pub use crate::present::lichess_rules::signed as syzygy;

/// The result class under the 50-move rule with a fresh clock, ordered best first for the
/// side to move: win, cursed win, draw, blessed loss, loss.
fn class(v: Value) -> u8 {
    match v {
        Value::Win(p) if p <= FIFTY_MOVES => 0,
        Value::Win(_) => 1,
        Value::Draw | Value::Illegal => 2,
        Value::Loss(p) if p > FIFTY_MOVES => 3,
        Value::Loss(_) => 4,
    }
}

/// The DTZ-optimal move, as lila-tablebase's mainline chooses it (shakmaty-syzygy's rule):
/// among the moves whose result is best under the 50-move rule, a mate first; then, when
/// winning, a zeroing move, when losing, a quiet one; then the quickest zeroing for the
/// winner and the slowest for the loser. `after` is each legal move's DTZ value for the
/// opponent (clock at zero). `None` if a value is missing.
pub fn best_move(pos: &Position, after: &[Option<Value>]) -> Option<usize> {
    let mut legal: Vec<Move> = Vec::new();
    legal_moves(pos, &mut legal);
    if legal.len() != after.len() || after.iter().any(Option::is_none) {
        return None;
    }
    let values: Vec<Value> = after.iter().map(|v| v.expect("checked")).collect();
    // The opponent's worst class is the mover's best.
    let best = values.iter().map(|&v| Reverse(class(v))).min()?;
    (0..legal.len())
        .filter(|&k| Reverse(class(values[k])) == best)
        .min_by_key(|&k| {
            let v = values[k];
            let dtz = syzygy(v).unwrap_or(0);
            let zeroing =
                legal[k].capture.is_some() || legal[k].role == crate::rules::material::Role::Pawn;
            (
                Reverse(v == Value::Loss(0)),
                zeroing ^ (dtz < 0),
                Reverse(dtz),
            )
        })
}
