//! Probe answers for people and programs: JSON shaped like the Lichess tablebase API, and
//! the same in words.

use serde::Serialize;

use super::fen::to_fen;
use super::moves::{legal_moves, terminal, Move};
use super::notation::{san, san_known, uci, San, Uci};
use super::position::{Position, Side};
use crate::chess::present::{category, dtm, mate_in};
use crate::game::{Presented, ProbeAnswer, Value};
use crate::probe::Probed;

/// The whole answer (`retro probe kbnk --json`, the server).
#[derive(Serialize)]
pub struct Answer {
    /// The position, normalised.
    pub fen: String,
    /// Side to move: "white" or "black".
    pub side: &'static str,
    /// "win", "loss" or "draw", for the side to move.
    pub category: &'static str,
    /// Plies to mate, signed for the side to move: positive it mates, negative it is mated,
    /// 0 it is checkmated; null for a draw.
    pub dtm: Option<i32>,
    /// The same in moves, as people count ("mate in 33"), with the same sign; null for a draw.
    pub mate_in: Option<i32>,
    pub checkmate: bool,
    pub stalemate: bool,
    /// The best move, null if there is none (mate, stalemate).
    pub best: Option<BestMove>,
    /// Every legal move, best first.
    pub moves: Vec<MoveAnswer>,
}

#[derive(Serialize)]
pub struct BestMove {
    pub uci: Uci,
    pub san: San,
}

/// One move; `category` and `dtm` describe the position after it for the opponent (as
/// Lichess does: "loss" is a good move).
#[derive(Serialize)]
pub struct MoveAnswer {
    pub uci: Uci,
    pub san: San,
    pub category: &'static str,
    pub dtm: Option<i32>,
    /// Black takes a piece: the game leaves the table as a draw.
    pub capture: bool,
    pub checkmate: bool,
    pub stalemate: bool,
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::White => "white",
        Side::Black => "black",
    }
}

fn other(s: Side) -> Side {
    match s {
        Side::White => Side::Black,
        Side::Black => Side::White,
    }
}

/// A value for `side` (to move) in words.
fn words(side: Side, v: Value, stalemate: bool) -> String {
    crate::chess::present::words(side_name(side), v, stalemate)
}

/// Build the answer for `pos` from the generic probe result.
pub fn answer(pos: &Position, probed: &Probed) -> Answer {
    let mut legal = Vec::new();
    legal_moves(pos, &mut legal);
    let find = |code: u8| legal.iter().find(|m| m.code == code);
    let term = terminal(pos);
    let moves = probed
        .moves
        .iter()
        .filter_map(|&(code, v)| {
            let m = find(code)?;
            // The table already says which moves mate (the opponent is lost in 0); only a
            // drawing move can stalemate, so only those need a look at the position after.
            let checkmate = v == Value::Loss(0);
            let stalemate =
                v == Value::Draw && m.after.is_some_and(|a| terminal(&a) == Some(Value::Draw));
            Some(MoveAnswer {
                uci: uci(m),
                san: san_known(m, checkmate),
                category: category(v),
                dtm: dtm(v),
                capture: m.is_capture(),
                checkmate,
                stalemate,
            })
        })
        .collect();
    Answer {
        fen: to_fen(pos),
        side: side_name(pos.side),
        category: category(probed.value),
        dtm: dtm(probed.value),
        mate_in: mate_in(probed.value),
        checkmate: term == Some(Value::Loss(0)),
        stalemate: term == Some(Value::Draw),
        best: probed.best.and_then(find).map(|m: &Move| BestMove {
            uci: uci(m),
            san: san(m),
        }),
        moves,
    }
}

/// The answer, rendered as JSON or text on demand.
struct Rendered {
    side: Side,
    value: Value,
    /// The value after each move, in the order of `answer.moves`.
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
        let mut text = format!("{}\n{}\n", a.fen, words(self.side, self.value, a.stalemate));
        if let Some(b) = &a.best {
            let _ = writeln!(text, "best move: {} ({})", b.san, b.uci);
        }
        if !a.moves.is_empty() {
            text.push_str("moves:\n");
        }
        for (m, &v) in a.moves.iter().zip(&self.after) {
            let after = if m.capture {
                "draw (capture)".to_string()
            } else {
                words(other(self.side), v, m.stalemate)
            };
            let _ = writeln!(
                text,
                "  {:<7} {:<5} {after}",
                m.san.to_string(),
                m.uci.to_string()
            );
        }
        text
    }
}

/// The answer as JSON and as text.
pub fn present(pos: &Position, probed: &Probed) -> Presented {
    Box::new(Rendered {
        side: pos.side,
        value: probed.value,
        after: probed.moves.iter().map(|m| m.1).collect(),
        answer: answer(pos, probed),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kbnk::fen::parse;

    #[test]
    fn words_and_numbers() {
        assert_eq!(
            words(Side::White, Value::Win(65), false),
            "white mates in 33"
        );
        assert_eq!(
            words(Side::Black, Value::Loss(24), false),
            "black is mated in 12"
        );
        assert_eq!(
            words(Side::Black, Value::Loss(0), false),
            "black is checkmated"
        );
        assert_eq!(words(Side::White, Value::Draw, false), "draw");
        assert_eq!(mate_in(Value::Win(65)), Some(33));
        assert_eq!(mate_in(Value::Loss(66)), Some(-33));
        assert_eq!(dtm(Value::Loss(0)), Some(0));
        assert_eq!(dtm(Value::Draw), None);
    }

    #[test]
    fn mate_answer() {
        let pos = parse("7k/4N3/5BK1/8/8/8/8/8 b - - 0 1").unwrap();
        let probed = Probed {
            value: Value::Loss(0),
            best: None,
            moves: vec![],
        };
        let p = present(&pos, &probed);
        let p_json: serde_json::Value = serde_json::from_str(&p.json()).unwrap();
        let p_text = p.text();
        assert_eq!(p_json["category"], "loss");
        assert_eq!(p_json["dtm"], 0);
        assert_eq!(p_json["checkmate"], true);
        assert!(p_json["best"].is_null());
        assert!(p_text.contains("black is checkmated"), "{}", p_text);
    }
}
