//! Probe answers for chess tables: the same JSON as KBNK's (shaped like the Lichess
//! tablebase API) and the same in words.

use serde::Serialize;

use super::fen::to_fen;
use super::material::{Material, Role};
use super::moves::{legal_moves, make, terminal, Move};
use super::notation::{san, uci};
use super::position::Position;
use super::Chess;
use crate::game::{Presented, ProbeAnswer, Value};
use crate::probe::Probed;

/// "king + queen vs king + rook".
pub fn title(m: &Material) -> String {
    let name = |r: &Role| match r {
        Role::Queen => "queen",
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        Role::Pawn => "pawn",
        Role::King => "king",
    };
    let side = |s: &[Role]| -> String {
        std::iter::once("king")
            .chain(s.iter().map(name))
            .collect::<Vec<_>>()
            .join(" + ")
    };
    format!("{} vs {}", side(&m.sides[0]), side(&m.sides[1]))
}

#[derive(Serialize)]
struct Answer {
    fen: String,
    side: &'static str,
    /// The table answering (stored colouring).
    table: String,
    category: &'static str,
    dtm: Option<i32>,
    mate_in: Option<i32>,
    checkmate: bool,
    stalemate: bool,
    best: Option<BestMove>,
    moves: Vec<MoveAnswer>,
}

#[derive(Serialize)]
struct BestMove {
    uci: String,
    san: String,
}

#[derive(Serialize)]
struct MoveAnswer {
    uci: String,
    san: String,
    category: &'static str,
    dtm: Option<i32>,
    capture: bool,
    promotion: Option<char>,
    checkmate: bool,
    stalemate: bool,
}

/// Lichess's category of a value for the side to move.
pub fn category(v: Value) -> &'static str {
    match v {
        Value::Win(_) => "win",
        Value::Loss(_) => "loss",
        Value::Draw => "draw",
        Value::Illegal => "unknown",
    }
}

/// Plies to mate, signed for the side to move; `None` for a draw.
pub fn dtm(v: Value) -> Option<i32> {
    match v {
        Value::Win(p) => Some(p as i32),
        Value::Loss(p) => Some(-(p as i32)),
        _ => None,
    }
}

/// The same in moves, as people count ("mate in 33").
pub fn mate_in(v: Value) -> Option<i32> {
    match v {
        Value::Win(p) => Some(p.div_ceil(2) as i32),
        Value::Loss(p) => Some(-((p / 2) as i32)),
        _ => None,
    }
}

/// A value for the side `side` (to move) in words.
pub fn words(side: &str, v: Value, stalemate: bool) -> String {
    match v {
        Value::Win(p) => format!("{side} mates in {}", p.div_ceil(2)),
        Value::Loss(0) => format!("{side} is checkmated"),
        Value::Loss(p) => format!("{side} is mated in {}", p / 2),
        Value::Draw if stalemate => "draw (stalemate)".to_string(),
        Value::Draw => "draw".to_string(),
        Value::Illegal => "not in the table".to_string(),
    }
}

struct Rendered {
    value: Value,
    after: Vec<Value>,
    answer: Answer,
}

impl ProbeAnswer for Rendered {
    fn json(&self) -> String {
        // Plain structs of strings and numbers: serialising cannot fail.
        serde_json::to_string(&self.answer).expect("answer serialises")
    }

    fn text(&self) -> String {
        use std::fmt::Write;
        let a = &self.answer;
        let them = if a.side == "white" { "black" } else { "white" };
        let mut text = format!(
            "{} ({})\n{}\n",
            a.fen,
            a.table,
            words(a.side, self.value, a.stalemate)
        );
        if let Some(b) = &a.best {
            let _ = writeln!(text, "best move: {} ({})", b.san, b.uci);
        }
        if !a.moves.is_empty() {
            text.push_str("moves:\n");
        }
        for (m, &v) in a.moves.iter().zip(&self.after) {
            let _ = writeln!(
                text,
                "  {:<8} {:<6} {}",
                m.san,
                m.uci,
                words(them, v, m.stalemate)
            );
        }
        text
    }
}

/// Build the answer for `pos`.
pub fn present(chess: &Chess, pos: &Position, probed: &Probed) -> Presented {
    let mut legal: Vec<Move> = Vec::new();
    legal_moves(pos, &mut legal);
    let term = terminal(pos);
    // A FEN may carry an en-passant right that stored positions lack: its captures are in
    // the move list, and the position is worth the best of them if that is better.
    let value = match super::en_passant_value(chess, pos) {
        Some(ep) => probed.value.better(ep),
        None => probed.value,
    };
    let find = |code: u8| legal.get((code as usize).checked_sub(1)?);
    let moves = probed
        .moves
        .iter()
        .filter_map(|&(code, v)| {
            let m = find(code)?;
            let checkmate = v == Value::Loss(0);
            let stalemate = v == Value::Draw && terminal(&make(pos, m)) == Some(Value::Draw);
            Some(MoveAnswer {
                uci: uci(m),
                san: san(pos, m, Some(checkmate)),
                category: category(v),
                dtm: dtm(v),
                capture: m.capture.is_some(),
                promotion: m.promotion.map(|r| r.letter().to_ascii_lowercase()),
                checkmate,
                stalemate,
            })
        })
        .collect();
    let best = if value == probed.value {
        probed.best.and_then(find)
    } else {
        // An en-passant capture is better than anything stored: the first best move.
        probed
            .moves
            .iter()
            .find(|m| m.1.back() == value)
            .and_then(|m| find(m.0))
    };
    let answer = Answer {
        fen: to_fen(pos, pos.clock.halfmove, pos.clock.fullmove),
        side: pos.turn.name(),
        table: chess.material().to_string(),
        category: category(value),
        dtm: dtm(value),
        mate_in: mate_in(value),
        checkmate: term == Some(Value::Loss(0)),
        stalemate: term == Some(Value::Draw),
        best: best.map(|m| BestMove {
            uci: uci(m),
            san: san(pos, m, None),
        }),
        moves,
    };
    Box::new(Rendered {
        value,
        after: probed.moves.iter().map(|m| m.1).collect(),
        answer,
    })
}
