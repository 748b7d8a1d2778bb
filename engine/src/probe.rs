//! Probing: a position's value, its best move and every move with the value it leads to.

use crate::game::{Game, Outcome, Successor, Value, NO_MOVE};
use crate::table::Table;

/// The generic probe result, before a game puts it into words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probed {
    /// Value for the side to move.
    pub value: Value,
    /// The best move in the probed position's own frame, if the position has one.
    pub best: Option<u8>,
    /// Every legal move with the value of the position it leads to (for the opponent), best
    /// first for the side to move; ties keep the game's move order.
    pub moves: Vec<(u8, Value)>,
}

/// Look a position up in `table` (which must hold `game`'s solution).
pub fn probe<G: Game>(game: &G, table: &Table, pos: &G::Position) -> Probed {
    let index = game.encode(pos);
    let value = table.value(index);
    // A compressed table stores no move: the solver's choice, the first move of the
    // stored (canonical) position reaching the value, is found again from the values.
    let stored = table.stored_move(index).unwrap_or_else(|| {
        game.decode(index).map_or(NO_MOVE, |canonical| {
            solver_move(game, table, &canonical, value)
        })
    });
    let mut succ = Vec::new();
    if game.terminal(pos).is_none() {
        game.successors(pos, &mut succ);
    }
    let mut moves: Vec<(u8, Value)> = succ
        .iter()
        .map(|s: &Successor| (s.mv, shown_value(table, s.to)))
        .collect();
    moves.sort_by_key(|&(_, v)| v.move_rank());
    let best = if stored != NO_MOVE {
        game.move_from_canonical(pos, stored)
            .or_else(|| moves.first().map(|m| m.0))
    } else if value.is_decisive() {
        moves.first().map(|m| m.0)
    } else {
        None
    };
    // The best move heads the list, even where another move is just as good and comes
    // earlier in the game's move order (a stored move mirrored back, say).
    if let Some(k) = best.and_then(|b| moves.iter().position(|m| m.0 == b)) {
        moves[..=k].rotate_right(1);
    }
    Probed { value, best, moves }
}

/// The move byte the solver stores for the stored position `pos` of value `value`: none
/// for a terminal position, else the first move, in the game's move order, reaching the
/// value (by `table`'s values).
pub fn solver_move<G: Game>(game: &G, table: &Table, pos: &G::Position, value: Value) -> u8 {
    if game.terminal(pos).is_some() {
        return NO_MOVE;
    }
    game.first_successor(pos, &|to| outcome_value(table, to).back() == value)
}

/// The value of the position at `index`, for its side to move, from its moves' values in
/// `table` (one ply), or read from its colour twin ([`Game::colour_twin`]) where the table
/// stores that: what a compressed table that drops a section answers for its slots.
/// `Value::Illegal` for a slot holding no position.
pub fn one_ply<G: Game>(game: &G, table: &Table, index: crate::game::Index) -> Value {
    // A twin in a dropped section too would lead back here: searched instead.
    if let Some(twin) = game.colour_twin(index).filter(|&j| table.stores(j)) {
        return table.value(twin);
    }
    let Some(pos) = game.decode(index) else {
        return Value::Illegal;
    };
    if let Some(t) = game.terminal(&pos) {
        return t;
    }
    // A buffer kept per thread: this runs for every dropped slot a probe reads (see
    // `with_legal_moves` in the chess plug-in). A nested call finds it taken and makes
    // its own.
    let mut succ = SUCCESSORS.take();
    succ.clear();
    game.successors(&pos, &mut succ);
    let v = succ
        .iter()
        .map(|s| outcome_value(table, s.to))
        .min_by_key(|v| v.move_rank())
        .map_or(Value::Draw, Value::back);
    SUCCESSORS.set(succ);
    v
}

thread_local! {
    /// A spare successor list per thread, for [`one_ply`].
    static SUCCESSORS: std::cell::Cell<Vec<crate::game::Successor>> =
        const { std::cell::Cell::new(Vec::new()) };
}

/// The value (for the side then to move) of where a move leads, as it counts for the mover.
pub fn outcome_value(table: &Table, to: Outcome) -> Value {
    to.value(|i| table.value(i))
}

/// The value of the position a move leads to, as [`Probed::moves`] shows it: for a move
/// that restarts the count, the position's own value (with the opponent's extra moves),
/// not the class it counts for ([`outcome_value`]).
pub fn shown_value(table: &Table, to: Outcome) -> Value {
    match to {
        Outcome::Restart { index, extra, .. } => {
            let own = table.value(index);
            extra.map_or(own, |e| own.better(e))
        }
        to => outcome_value(table, to),
    }
}
