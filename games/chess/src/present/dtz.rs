//! Probe answers for DTZ tables: the distance to zeroing of a position and of each move,
//! with the result under the 50-move rule (Syzygy's five categories).

use serde::Serialize;

use super::lichess_rules::{category_at, signed};
use super::{BestMove, DtzBeside, Source};
use crate::rules::fen::to_fen;
use crate::rules::moves::{legal_moves, make, Move};
use crate::rules::notation::{san, uci, San, Uci};
use crate::rules::position::Position;
use crate::rules::position::FIFTY_MOVES;
use retro_engine::game::Value;
use retro_engine::present::{Presented, ProbeAnswer};
use retro_engine::probe::Probed;

/// The category of a DTZ value for the side to move, with the clock at zero.
pub fn category(v: Value) -> &'static str {
    match v {
        Value::Win(p) if p <= FIFTY_MOVES => "win",
        Value::Win(_) => "cursed-win",
        Value::Loss(p) if p <= FIFTY_MOVES => "loss",
        Value::Loss(_) => "blessed-loss",
        Value::Draw => "draw",
        Value::Illegal => "unknown",
    }
}

#[derive(Serialize)]
struct Answer {
    fen: String,
    side: &'static str,
    table: String,
    category: &'static str,
    /// Plies to the next capture, pawn move or mate, signed for the side to move.
    dtz: Option<i32>,
    best: Option<BestMove>,
    moves: Vec<MoveAnswer>,
}

#[derive(Serialize)]
struct MoveAnswer {
    uci: Uci,
    san: San,
    /// The result of the position reached, for the opponent (as a DTM answer's moves).
    category: &'static str,
    /// The DTZ of the position reached, for the opponent.
    dtz: Option<i32>,
    /// A capture, pawn move or promotion: the count restarts.
    zeroing: bool,
}

struct Rendered(Answer);

impl ProbeAnswer for Rendered {
    fn json(&self) -> String {
        serde_json::to_string(&self.0).expect("answer serialises")
    }

    fn text(&self) -> String {
        use std::fmt::Write;
        let a = &self.0;
        let dtz = a.dtz.map_or("?".into(), |d| d.to_string());
        let mut text = format!("{} ({})\n{}, dtz {dtz}\n", a.fen, a.table, a.category);
        if let Some(b) = &a.best {
            let _ = writeln!(text, "best move: {} ({})", b.san, b.uci);
        }
        if !a.moves.is_empty() {
            text.push_str("moves (the position reached, for the opponent):\n");
        }
        for m in &a.moves {
            let _ = writeln!(
                text,
                "  {:<8} {:<6} {:<12} dtz {}{}",
                m.san.to_string(),
                m.uci.to_string(),
                m.category,
                m.dtz.map_or("?".into(), |d| d.to_string()),
                if m.zeroing { " (zeroing)" } else { "" }
            );
        }
        text
    }
}

/// True for a move that restarts the count: a capture, a pawn move, a promotion.
fn zeroing(m: &Move) -> bool {
    m.converts() || m.role == crate::rules::material::Role::Pawn
}

/// Each legal move `probed` lists: its index in `legal`, the DTZ of the position it reaches
/// (a capture's from its sub-table: the probe gives the class it counts for), and what it
/// is worth to the mover; best first for the mover.
fn evaluate(
    source: &dyn Source,
    pos: &Position,
    probed: &Probed,
    legal: &[Move],
) -> Vec<(Value, usize, Value)> {
    let mut moves: Vec<(Value, usize, Value)> = probed
        .moves
        .iter()
        .filter_map(|&(code, shown)| {
            let m = source.find(legal, code)?;
            let k = legal.iter().position(|x| std::ptr::eq(x, m))?;
            let after = if m.converts() && source.has_subtables() {
                source.converted(&make(pos, m))
            } else {
                shown
            };
            let counted = if zeroing(m) {
                after.restarted(FIFTY_MOVES)
            } else {
                after
            };
            Some((counted.back(), k, after))
        })
        .collect();
    moves.sort_by_key(|e| e.0.back().move_rank());
    moves
}

/// The DTZ of `pos` and of each legal move's position, for a DTM answer
/// ([`crate::present::Source::dtz_beside`]); `probed` from the DTZ table.
pub fn beside(source: &dyn Source, pos: &Position, probed: &Probed, legal: &[Move]) -> DtzBeside {
    let moves = evaluate(source, pos, probed, legal);
    let mut after = vec![Value::Illegal; legal.len()];
    for &(_, k, v) in &moves {
        after[k] = v;
    }
    DtzBeside {
        // The best of the moves: the stored value, or better through an en-passant right.
        value: moves.first().map_or(probed.value, |e| e.0),
        after,
    }
}

/// The answer for `pos`, probed in `source`'s DTZ table.
pub fn present(source: &dyn Source, pos: &Position, probed: &Probed) -> Presented {
    let mut legal: Vec<Move> = Vec::new();
    legal_moves(pos, &mut legal);
    let moves = evaluate(source, pos, probed, &legal);
    let value = moves.first().map_or(probed.value, |e| e.0);
    let best = probed
        .best
        .and_then(|c| source.find(&legal, c))
        .filter(|b| {
            moves
                .iter()
                .any(|e| std::ptr::eq(&legal[e.1], *b) && e.0 == value)
        })
        .or_else(|| moves.first().map(|e| &legal[e.1]))
        .filter(|_| value.is_decisive());
    let answer = Answer {
        fen: to_fen(pos, pos.clock.halfmove, pos.clock.fullmove),
        side: pos.turn.name(),
        table: source.table_name(),
        category: category_at(pos, value, value),
        dtz: signed(value),
        best: best.map(|m| BestMove {
            uci: uci(m),
            san: san(pos, m, None),
        }),
        moves: moves
            .into_iter()
            .map(|(_, k, after)| (&legal[k], after))
            .map(|(m, after)| MoveAnswer {
                uci: uci(m),
                san: san(pos, m, Some(after == Value::Loss(0))),
                category: category(after),
                dtz: signed(after),
                zeroing: zeroing(m),
            })
            .collect(),
    };
    Box::new(Rendered(answer))
}
