//! Probe answers for DTZ tables: the distance to zeroing of a position and of each move,
//! with the result under the 50-move rule (Syzygy's five categories).

use serde::Serialize;

use super::dtz::FIFTY_MOVES;
use super::fen::to_fen;
use super::moves::{legal_moves, make, Move};
use super::notation::{san, uci, San, Uci};
use super::position::Position;
use super::present::{BestMove, Source};
use crate::game::{Presented, ProbeAnswer, Value};
use crate::probe::Probed;

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

/// DTZ in plies, signed for the side to move (0 for a draw), as Syzygy gives it: a
/// checkmated side has -1.
pub fn signed(v: Value) -> Option<i32> {
    match v {
        Value::Loss(0) => Some(-1),
        Value::Win(p) => Some(p as i32),
        Value::Loss(p) => Some(-(p as i32)),
        Value::Draw => Some(0),
        Value::Illegal => None,
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
    m.converts() || m.role == super::material::Role::Pawn
}

/// The answer for `pos`, probed in `source`'s DTZ table.
pub fn present(source: &dyn Source, pos: &Position, probed: &Probed) -> Presented {
    let mut legal: Vec<Move> = Vec::new();
    legal_moves(pos, &mut legal);
    let find = |code: u8| source.find(&legal, code);
    // Each move: the DTZ of the position reached (a capture's from its sub-table: the
    // probe gives the class it counts for), and what it is worth to the mover.
    let mut moves: Vec<(Value, &Move, Value)> = probed
        .moves
        .iter()
        .filter_map(|&(code, shown)| {
            let m = find(code)?;
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
            Some((counted.back(), m, after))
        })
        .collect();
    moves.sort_by_key(|e| e.0.back().move_rank());
    // The best of the moves: the stored value, or better through a FEN's en-passant right.
    let value = moves.first().map_or(probed.value, |e| e.0);
    let best = probed
        .best
        .and_then(find)
        .filter(|b| moves.iter().any(|e| std::ptr::eq(e.1, *b) && e.0 == value))
        .or_else(|| moves.first().map(|e| e.1))
        .filter(|_| value.is_decisive());
    let answer = Answer {
        fen: to_fen(pos, pos.clock.halfmove, pos.clock.fullmove),
        side: pos.turn.name(),
        table: source.table_name(),
        category: category(value),
        dtz: signed(value),
        best: best.map(|m| BestMove {
            uci: uci(m),
            san: san(pos, m, None),
        }),
        moves: moves
            .into_iter()
            .map(|(_, m, after)| MoveAnswer {
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

/// A DTM answer with the DTZ of the same position beside it (`retro probe chess` when both
/// tables are there): `dtz` and `dtz_category` on the position, `dtz` on each move (the
/// mover's, as in a DTZ answer), and a line of words. `dtz: None`: no DTZ table, and the
/// fields are `null`.
pub fn beside(dtm: Presented, dtz: Option<Presented>) -> Presented {
    Box::new(Beside { dtm, dtz })
}

struct Beside {
    dtm: Presented,
    dtz: Option<Presented>,
}

impl Beside {
    fn dtz_json(&self) -> serde_json::Value {
        self.dtz
            .as_ref()
            .and_then(|z| serde_json::from_str(&z.json()).ok())
            .unwrap_or(serde_json::Value::Null)
    }
}

impl ProbeAnswer for Beside {
    fn json(&self) -> String {
        use serde_json::Value as J;
        let mut a: J = serde_json::from_str(&self.dtm.json()).expect("answers are JSON");
        let z = self.dtz_json();
        a["dtz"] = z["dtz"].clone();
        a["dtz_category"] = z["category"].clone();
        let dtz_of = |uci: &J| -> J {
            z["moves"]
                .as_array()
                .and_then(|ms| ms.iter().find(|m| m["uci"] == *uci))
                .map_or(J::Null, |m| m["dtz"].clone())
        };
        if let Some(moves) = a["moves"].as_array_mut() {
            for m in moves {
                m["dtz"] = dtz_of(&m["uci"]);
            }
        }
        a.to_string()
    }

    fn text(&self) -> String {
        let mut text = self.dtm.text();
        let z = self.dtz_json();
        let line = match (z["dtz"].as_i64(), z["category"].as_str()) {
            (Some(d), Some(c)) => format!("distance to zeroing: {d} plies ({c})\n"),
            _ => "distance to zeroing: no DTZ table\n".to_string(),
        };
        // After the result line (the second).
        let at = text
            .match_indices('\n')
            .nth(1)
            .map_or(text.len(), |(i, _)| i + 1);
        text.insert_str(at, &line);
        text
    }
}
