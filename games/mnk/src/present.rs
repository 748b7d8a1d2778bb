//! Probe answers (serde structs and words) and the summary lines of a finished table.
//!
//! As in the chess plug-in, a move's `category` and `remoteness` describe the position after
//! it, from the view of the player then to move (a move to a `loss` is a winning move);
//! its `result` and `plies` say the same for the player making it, counting the move, as
//! the CLI and the viewer show it ("win in 7 plies").

use rayon::prelude::*;
use serde::Serialize;

use super::board::Board;
use super::notation::{board_picture, board_text};
use crate::game::Mnk;
use retro_engine::game::{Game, Value};
use retro_engine::present::{Presented, ProbeAnswer};
use retro_engine::probe::Probed;
use retro_engine::table::Table;

/// The JSON answer of `retro probe mnk-… BOARD --json`.
#[derive(Clone, Debug, Serialize)]
pub struct Answer {
    /// The board string, normalised (lower case).
    pub board: String,
    /// `"x"` or `"o"`: the side to move.
    pub turn: &'static str,
    /// `"win"`, `"loss"` or `"draw"` for the side to move.
    pub category: &'static str,
    /// Plies to the end under best play (0: the game is over); null for a draw.
    pub remoteness: Option<u16>,
    /// True when the game is over (a line was completed or the board is full).
    pub terminal: bool,
    /// The value in words.
    pub text: String,
    /// The best move, or null (game over, or a draw without a stored move).
    pub best: Option<Cell>,
    /// Every legal move, best first.
    pub moves: Vec<MoveAnswer>,
}

/// A cell, by name.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    pub cell: String,
}

/// One move and the position it leads to, seen by the player then to move.
#[derive(Clone, Debug, Serialize)]
pub struct MoveAnswer {
    pub cell: String,
    pub category: &'static str,
    pub remoteness: Option<u16>,
    /// The move's result for the player making it, in words: "win in 7 plies", "loss in
    /// 4 plies", "draw", "draw: the board is full" (see [`move_words`]).
    pub result: String,
    /// Plies to the end of the game with best play, this move included; null for a draw.
    pub plies: Option<u16>,
}

/// `"win"`, `"loss"`, `"draw"` (`"illegal"` for a slot without a position).
pub fn category(v: Value) -> &'static str {
    match v {
        Value::Win(_) => "win",
        Value::Loss(_) => "loss",
        Value::Draw => "draw",
        Value::Illegal => "illegal",
    }
}

fn remoteness(v: Value) -> Option<u16> {
    match v {
        Value::Win(p) | Value::Loss(p) => Some(p),
        _ => None,
    }
}

fn plies(p: u16) -> String {
    if p == 1 {
        "1 ply".into()
    } else {
        format!("{p} plies")
    }
}

/// A value in words, `mover` being the side to move ("X wins in 5 plies").
pub fn value_words(v: Value, mover: char, full: bool) -> String {
    let other = if mover == 'X' { 'O' } else { 'X' };
    match v {
        Value::Win(p) => format!("{mover} wins in {}", plies(p)),
        Value::Loss(0) => format!("{other} has won"),
        Value::Loss(p) => format!("{other} wins in {}", plies(p)),
        Value::Draw if full => "draw: the board is full".into(),
        Value::Draw => "draw".into(),
        Value::Illegal => "no such position in the table".into(),
    }
}

/// A move's result for the player making it, from the value `after` it has for the
/// opponent, counting the move itself: "win in 7 plies" (the opponent then loses in 6),
/// "loss in 4 plies", "draw". `fills`: the move fills the board.
pub fn move_words(after: Value, fills: bool) -> String {
    match after {
        Value::Loss(p) => format!("win in {}", plies(p + 1)),
        Value::Win(p) => format!("loss in {}", plies(p + 1)),
        Value::Draw if fills => "draw: the board is full".into(),
        Value::Draw => "draw".into(),
        Value::Illegal => "no such position in the table".into(),
    }
}

/// The answer, rendered as JSON or text on demand.
struct Rendered {
    answer: Answer,
    /// The board picture and the letter of the player to move.
    picture: String,
    mover: char,
}

impl ProbeAnswer for Rendered {
    fn json(&self) -> String {
        // Plain structs of strings and numbers: serialising cannot fail.
        serde_json::to_string(&self.answer).expect("answer serialises")
    }

    fn text(&self) -> String {
        use std::fmt::Write;
        let a = &self.answer;
        let mut text = self.picture.clone();
        text.push('\n');
        if a.terminal {
            let _ = writeln!(text, "game over: {}", a.text);
        } else {
            let _ = writeln!(text, "{} to move: {}", self.mover, a.text);
            match &a.best {
                Some(c) => {
                    let _ = writeln!(text, "best move: {}", c.cell);
                }
                None => text.push_str("best move: none stored (every move draws at best)\n"),
            }
            let _ = writeln!(
                text,
                "moves for {}, best first (plies to the end, the move included):",
                self.mover
            );
            for m in &a.moves {
                let _ = writeln!(text, "  {:<4}{}", m.cell, m.result);
            }
        }
        text.trim_end().to_string()
    }
}

/// The probe answer for `pos`.
pub fn present(game: &Mnk, pos: &Board, probed: &Probed) -> Presented {
    let g = game.geometry();
    let mover = if pos.x_to_move() { 'X' } else { 'O' };
    let fills = (pos.x | pos.o).count_ones() + 1 == g.cells;
    let full = (pos.x | pos.o) == g.full;
    let terminal = game.terminal(pos).is_some();
    let name = |mv: u8| g.cell_name(mv as u32 - 1);
    let answer = Answer {
        board: board_text(g, pos),
        turn: if mover == 'X' { "x" } else { "o" },
        category: category(probed.value),
        remoteness: remoteness(probed.value),
        terminal,
        text: value_words(probed.value, mover, full),
        best: probed.best.map(|m| Cell { cell: name(m) }),
        moves: probed
            .moves
            .iter()
            .map(|&(m, v)| MoveAnswer {
                cell: name(m),
                category: category(v),
                remoteness: remoteness(v),
                result: move_words(v, fills),
                plies: remoteness(v).map(|p| p + 1),
            })
            .collect(),
    };
    Box::new(Rendered {
        answer,
        picture: board_picture(g, pos),
        mover,
    })
}

/// `1234567` as `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Positions reachable from the empty board: `(all, up to symmetry)`. Every legal position
/// is reachable (remove the stone completing the lines, then any stone of the player who
/// moved last, and so on), so this counts the legal slots and their images.
pub fn reachable(game: &Mnk, table: &Table) -> (u64, u64) {
    let ix = game.index();
    let group = ix.geo.syms.len() as u64;
    ix.tiers
        .iter()
        .map(|t| {
            (0..t.blocks)
                .into_par_iter()
                .map(|blk| {
                    let cs = ix.canon[t.p as usize][blk as usize];
                    let lo = t.base + blk * t.block_len;
                    let (mut all, mut classes) = (0u64, 0u64);
                    for i in lo..lo + t.block_len {
                        // A compressed table does not mark illegal slots: the game knows.
                        let illegal = if table.is_compressed() {
                            game.decode(i).is_none()
                        } else {
                            table.record(i).0 == Value::Illegal.to_byte()
                        };
                        if illegal {
                            continue;
                        }
                        classes += 1;
                        all += if cs.stab == 1 {
                            group
                        } else {
                            let them = ix.unrank(cs.mask, t.q, i - t.base - blk * t.block_len);
                            group / ix.stabiliser_size(cs.mask, them) as u64
                        };
                    }
                    (all, classes)
                })
                .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
        })
        .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// Summary lines for `retro generate` and `retro info`.
pub fn summary_lines(game: &Mnk, table: &Table) -> Vec<String> {
    let empty = Board::default();
    let v = game.value(table, &empty);
    let (all, classes) = reachable(game, table);
    let mut first = String::new();
    let g = game.geometry();
    if g.cells > 1 {
        let probed = retro_engine::probe::probe(game, table, &empty);
        let best: Vec<String> = probed
            .moves
            .iter()
            .filter(|&&(_, after)| after.back() == v)
            .map(|&(m, _)| g.cell_name(m as u32 - 1))
            .collect();
        first = if best.len() == probed.moves.len() {
            format!(" (all {} first moves are equally good)", best.len())
        } else {
            format!(" (best first moves: {})", best.join(" "))
        };
    }
    vec![
        format!("empty board: {}{first}", value_words(v, 'X', false)),
        format!(
            "positions reachable from the empty board: {} ({} up to symmetry)",
            thousands(all),
            thousands(classes)
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(thousands(5478), "5,478");
        assert_eq!(thousands(741365049), "741,365,049");
        assert_eq!(thousands(12), "12");
        assert_eq!(value_words(Value::Win(5), 'X', false), "X wins in 5 plies");
        assert_eq!(value_words(Value::Loss(0), 'O', false), "X has won");
        assert_eq!(value_words(Value::Loss(1), 'X', false), "O wins in 1 ply");
        assert_eq!(
            value_words(Value::Draw, 'X', true),
            "draw: the board is full"
        );
        // A move is counted for its player, itself included: to a position the opponent
        // loses in 6 plies, it wins in 7.
        assert_eq!(move_words(Value::Loss(6), false), "win in 7 plies");
        assert_eq!(move_words(Value::Loss(0), true), "win in 1 ply");
        assert_eq!(move_words(Value::Win(3), false), "loss in 4 plies");
        assert_eq!(move_words(Value::Draw, true), "draw: the board is full");
        assert_eq!(move_words(Value::Draw, false), "draw");
    }
}
