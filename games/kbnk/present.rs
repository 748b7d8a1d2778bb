//! Probe answers for people and programs: JSON shaped like the Lichess tablebase API, and
//! the same in words.

use serde::Serialize;

use super::fen::to_fen;
use super::moves::{legal_moves, terminal, Move};
use super::notation::{san, san_known, uci, San, Uci};
use super::position::{Position, Side};
use crate::chess::present::{
    category, dtm, mate_in, move_plies, move_result, plies_words, position_result, DrawReason,
};
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
    /// The result in words, as the CLI and the viewer say it ("white mates in 33").
    pub result: String,
    /// Plies to mate, signed for the side to move: positive it mates, negative it is mated,
    /// 0 it is checkmated; null for a draw.
    pub dtm: Option<i32>,
    /// The same in moves, as people count ("mate in 33"), with the same sign; null for a draw.
    pub mate_in: Option<i32>,
    /// The side to move is in check.
    pub check: bool,
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
    /// The move's result for the side making it, in words ("mate in 33", "draw: black
    /// takes the bishop").
    pub result: String,
    /// Plies to the end of its line, the move included; null for a draw.
    pub plies: Option<u16>,
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

fn piece_name(pos: &Position, sq: u8) -> &'static str {
    if sq == pos.bishop {
        "bishop"
    } else {
        "knight"
    }
}

/// Why the drawn position `pos` (after a move, or `None` once black has taken a piece) is
/// a draw.
fn draw_reason(pos: Option<&Position>) -> DrawReason {
    let Some(pos) = pos else {
        return DrawReason::Insufficient;
    };
    if terminal(pos) == Some(Value::Draw) {
        return DrawReason::Stalemate;
    }
    let mut replies = Vec::new();
    legal_moves(pos, &mut replies);
    // Every capture leads to KBK or KNK, a draw.
    match replies.iter().find(|x| x.is_capture()) {
        Some(x) => DrawReason::Takes {
            side: "black",
            role: piece_name(pos, x.to),
        },
        None => DrawReason::Unknown,
    }
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
            let why = if v == Value::Draw {
                draw_reason(m.after.as_ref())
            } else {
                DrawReason::Unknown
            };
            Some(MoveAnswer {
                uci: uci(m),
                san: san_known(m, checkmate),
                category: category(v),
                dtm: dtm(v),
                result: move_result(v, why),
                plies: move_plies(v),
                capture: m.is_capture(),
                checkmate,
                stalemate: why == DrawReason::Stalemate,
            })
        })
        .collect();
    let why = if probed.value == Value::Draw {
        draw_reason(Some(pos))
    } else {
        DrawReason::Unknown
    };
    Answer {
        fen: to_fen(pos),
        side: side_name(pos.side),
        category: category(probed.value),
        result: position_result(side_name(pos.side), probed.value, why),
        check: pos.side == Side::Black && pos.black_in_check(),
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
        let mut text = format!("{}\n{}\n", a.fen, a.result);
        if let Some(b) = &a.best {
            let _ = writeln!(text, "best move: {} ({})", b.san, b.uci);
        }
        if !a.moves.is_empty() {
            text.push_str("moves:\n");
        }
        for m in &a.moves {
            let plies = m
                .plies
                .map(|p| format!(" ({})", plies_words(p)))
                .unwrap_or_default();
            let _ = writeln!(
                text,
                "  {:<7} {:<5} {}{plies}",
                m.san.to_string(),
                m.uci.to_string(),
                m.result
            );
        }
        text
    }
}

/// The answer as JSON and as text.
pub fn present(pos: &Position, probed: &Probed) -> Presented {
    Box::new(Rendered {
        answer: answer(pos, probed),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kbnk::fen::parse;

    #[test]
    fn numbers() {
        assert_eq!(mate_in(Value::Win(65)), Some(33));
        assert_eq!(mate_in(Value::Loss(66)), Some(-33));
        assert_eq!(dtm(Value::Loss(0)), Some(0));
        assert_eq!(dtm(Value::Draw), None);
    }

    #[test]
    fn draw_reasons() {
        // White to move, the bishop on b1 next to the black king on a1... after Kc3 the
        // black king on a2 can take the bishop on b1.
        let pos = parse("8/8/8/8/8/2K5/k7/1BN5 b - - 0 1").unwrap();
        assert_eq!(
            draw_reason(Some(&pos)),
            DrawReason::Takes {
                side: "black",
                role: "bishop"
            }
        );
        assert_eq!(draw_reason(None), DrawReason::Insufficient);
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
        assert_eq!(p_json["result"], "checkmate: white wins");
        assert_eq!(p_json["check"], true);
        assert!(p_text.contains("checkmate: white wins"), "{}", p_text);
    }
}
