//! Probe answers for chess tables (every material, and the `kbnk` table): JSON shaped like
//! the Lichess tablebase API, and the same in words.
//!
//! The room holds every answer's words: the DTM answer here, the DTZ answer ([`dtz`]), and
//! Lichess's fields and categories ([`lichess_rules`], [`lichess_types`]), which both
//! answers and the Lichess API share so that every route says the same. Uses the rules
//! only.

pub mod dtz;
pub mod lichess_rules;
pub mod lichess_types;

use serde::Serialize;

use crate::rules::fen::to_fen;
use crate::rules::material::{Material, Role};
use crate::rules::moves::{legal_moves, make, terminal, Move};
use crate::rules::notation::{san, uci, San, Uci};
use crate::rules::position::Position;
use retro_engine::game::Value;
use retro_engine::present::{Presented, ProbeAnswer};
use retro_engine::probe::Probed;

/// "king + queen vs king + rook".
pub fn title(m: &Material) -> String {
    let name = |r: &Role| role_name(*r);
    let side = |s: &[Role]| -> String {
        std::iter::once("king")
            .chain(s.iter().map(name))
            .collect::<Vec<_>>()
            .join(" + ")
    };
    format!("{} vs {}", side(&m.sides[0]), side(&m.sides[1]))
}

/// What the `stored` legal positions of a table of material `m` stand for: one of each
/// group of positions that the index's symmetries make alike ([`crate::index::transform`]),
/// and every position they hold, both sides to move. With pawns the board is only
/// mirrored left to right, and no square is its own mirror: each stored position stands
/// for two. Without pawns it is also turned and reflected across its diagonals (8
/// images), and a position is its own image only with every piece on one long diagonal
/// (reflected across it): such a group holds 4 positions, two of them on a1-h8; every
/// other group holds 8.
pub fn stored_as(m: &Material, stored: u64) -> retro_engine::present::StoredAs {
    use retro_engine::present::StoredAs;
    if m.has_pawns() {
        return StoredAs {
            positions: Some(2 * stored),
            words: "one of each pair of positions mirrored left to right".into(),
        };
    }
    StoredAs {
        positions: Some((8 * stored).saturating_sub(2 * on_long_diagonal(m))),
        words: "one of each group of up to 8 positions alike by turning or reflecting the board"
            .into(),
    }
}

/// The legal positions of material `m` (without pawns) with every piece on the a1-h8
/// diagonal, both sides to move.
fn on_long_diagonal(m: &Material) -> u64 {
    use super::material::Color;
    let mut pieces = vec![(Color::White, Role::King), (Color::Black, Role::King)];
    for (side, color) in m.sides.iter().zip([Color::White, Color::Black]) {
        pieces.extend(side.iter().map(|&r| (color, r)));
    }
    // Every placement on the 8 squares, once each (two alike pieces swapped are one).
    fn place(
        pieces: &[(super::material::Color, Role)],
        pos: Position,
        seen: &mut std::collections::HashSet<Position>,
    ) {
        let Some((&(c, r), rest)) = pieces.split_first() else {
            seen.insert(pos);
            return;
        };
        for sq in (0..8u8).map(|i| i * 9) {
            if pos.piece_at(sq).is_none() {
                let mut p = pos;
                p.put(sq, c, r);
                place(rest, p, seen);
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    if pieces.len() <= 8 {
        place(&pieces, Position::empty(), &mut seen);
    }
    seen.iter()
        .flat_map(|p| [Color::White, Color::Black].map(|turn| Position { turn, ..*p }))
        .filter(|p| p.check().is_ok())
        .count() as u64
}

#[derive(Serialize)]
struct Answer {
    fen: String,
    side: &'static str,
    /// The table answering (stored colouring).
    table: String,
    category: &'static str,
    /// The result in words, the same in the CLI and the viewer (see [`position_result`]).
    result: String,
    dtm: Option<i32>,
    mate_in: Option<i32>,
    /// The side to move is in check.
    check: bool,
    checkmate: bool,
    stalemate: bool,
    best: Option<BestMove>,
    moves: Vec<MoveAnswer>,
    /// Distance to zeroing in plies, signed for the side to move, from the material's DTZ
    /// table beside this one (`null` without one); its category under the 50-move rule;
    /// and why it could not be read, if it could not.
    dtz: Option<i32>,
    dtz_category: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    dtz_error: Option<String>,
    /// The position's halfmove clock, which `dtz_category` counts from.
    #[serde(skip)]
    halfmove: u32,
}

#[derive(Serialize)]
pub(super) struct BestMove {
    pub(super) uci: Uci,
    pub(super) san: San,
}

#[derive(Serialize)]
struct MoveAnswer {
    uci: Uci,
    san: San,
    category: &'static str,
    dtm: Option<i32>,
    /// The move's result for the side making it, in words (see [`move_result`]).
    result: String,
    /// Plies to the end of its line, the move included; null for a draw.
    plies: Option<u16>,
    capture: bool,
    promotion: Option<char>,
    checkmate: bool,
    stalemate: bool,
    /// The DTZ of the position reached, for the opponent (as `dtm`); `null` without a DTZ
    /// table.
    dtz: Option<i32>,
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

/// Why a drawn position is a draw, where the table or the rules know it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrawReason {
    /// The side to move has no move and is not in check.
    Stalemate,
    /// Neither side has mating material (bare kings, a lone bishop or knight).
    Insufficient,
    /// The side to move can take a piece into a drawn sub-table.
    Takes {
        side: &'static str,
        role: &'static str,
    },
    /// The side to move can promote into a drawn sub-table.
    Promotes { side: &'static str },
    /// Nothing simpler than "best play draws".
    Unknown,
}

impl DrawReason {
    /// The words for a drawn result: "draw: black takes the bishop", "stalemate".
    pub fn words(self) -> String {
        match self {
            DrawReason::Stalemate => "stalemate".into(),
            DrawReason::Insufficient => "draw: insufficient material".into(),
            DrawReason::Takes { side, role } => format!("draw: {side} takes the {role}"),
            DrawReason::Promotes { side } => format!("draw: {side} promotes"),
            DrawReason::Unknown => "draw".into(),
        }
    }
}

/// A piece's name in words.
pub fn role_name(r: Role) -> &'static str {
    match r {
        Role::Queen => "queen",
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        Role::Pawn => "pawn",
        Role::King => "king",
    }
}

/// The position's result for people, the one wording of the CLI, the JSON and the viewer:
/// "white mates in 33", "black is mated in 12", "checkmate: white wins", "stalemate",
/// "draw: black takes the bishop". Checkmate names the winner: the board's view, not the
/// loser's.
pub fn position_result(side: &str, v: Value, why: DrawReason) -> String {
    let other = if side == "white" { "black" } else { "white" };
    match v {
        Value::Win(p) => format!("{side} mates in {}", p.div_ceil(2)),
        Value::Loss(0) => format!("checkmate: {other} wins"),
        Value::Loss(p) => format!("{side} is mated in {}", p / 2),
        Value::Draw => why.words(),
        Value::Illegal => "not in the table".to_string(),
    }
}

/// A move's result for the side making it, from the value `after` it has for the
/// opponent: "checkmate", "mate in 33", "mated in 12", "draw: black takes the bishop".
pub fn move_result(after: Value, why: DrawReason) -> String {
    match after {
        Value::Loss(0) => "checkmate".to_string(),
        Value::Loss(p) => format!("mate in {}", (p + 1).div_ceil(2)),
        // The mover is mated in p + 1 plies: (p + 1) / 2 of its moves.
        Value::Win(p) => format!("mated in {}", p.div_ceil(2)),
        Value::Draw => why.words(),
        Value::Illegal => "not in the table".to_string(),
    }
}

/// Plies to the end of a decisive move's line, the move itself included; `None` for a draw.
pub fn move_plies(after: Value) -> Option<u16> {
    match after {
        Value::Win(p) | Value::Loss(p) => Some(p + 1),
        _ => None,
    }
}

/// "1 ply", "65 plies": shown beside a move's result.
pub fn plies_words(p: u16) -> String {
    if p == 1 {
        "1 ply".into()
    } else {
        format!("{p} plies")
    }
}

/// Bare kings, or one king with a lone bishop or knight: no mate is possible.
fn insufficient(pos: &Position) -> bool {
    // Counted on the bitboards: answers ask it for every drawing move.
    let pieces = pos.occupied() & !pos.roles[Role::King as usize];
    let minors = pos.roles[Role::Bishop as usize] | pos.roles[Role::Knight as usize];
    pieces.count_ones() == 0 || (pieces.count_ones() == 1 && pieces & minors != 0)
}

/// What an answer needs from the table behind it.
pub trait Source {
    /// The table's name, shown with the answer.
    fn table_name(&self) -> String;
    /// True if captures and promotions can be looked up ([`Source::converted`]).
    fn has_subtables(&self) -> bool;
    /// The value, for the side to move, of a position a capture or a promotion leads to
    /// (from its sub-table); only asked when [`Source::has_subtables`].
    fn converted(&self, pos: &Position) -> Value;
    /// The move with table code `code` among `legal`, a position's legal moves in move
    /// order.
    fn find<'a>(&self, legal: &'a [Move], code: u8) -> Option<&'a Move>;
    /// OPTIONAL. The DTZ of `pos` and of the position each of `legal` reaches, from a DTZ
    /// table beside this one: `None` without one (the default), an error text if it cannot
    /// be read.
    fn dtz_beside(&self, _pos: &Position, _legal: &[Move]) -> Option<Result<DtzBeside, String>> {
        None
    }
}

/// What a DTZ table says beside a DTM answer ([`Source::dtz_beside`]).
pub struct DtzBeside {
    /// The position's DTZ value for its side to move.
    pub value: Value,
    /// For each legal move (in the order given), the DTZ value of the position reached,
    /// for the opponent.
    pub after: Vec<Value>,
}

/// Why the drawn position `pos` is a draw. `subs`: may capture and promotion moves of
/// `pos` be looked up (they must lead into the tables `source` knows).
fn draw_reason(source: &dyn Source, pos: &Position, subs: bool) -> DrawReason {
    if terminal(pos) == Some(Value::Draw) {
        return DrawReason::Stalemate;
    }
    if insufficient(pos) {
        return DrawReason::Insufficient;
    }
    if !subs {
        return DrawReason::Unknown;
    }
    let mut replies = Vec::new();
    legal_moves(pos, &mut replies);
    let side = pos.turn.name();
    replies
        .iter()
        .filter(|x| x.converts() && source.converted(&make(pos, x)) == Value::Draw)
        .map(|x| match x.capture {
            Some(r) => DrawReason::Takes {
                side,
                role: role_name(r),
            },
            None => DrawReason::Promotes { side },
        })
        .next()
        .unwrap_or(DrawReason::Unknown)
}

struct Rendered {
    answer: Answer,
}

impl ProbeAnswer for Rendered {
    fn json(&self) -> String {
        // Plain structs of strings and numbers: serialising cannot fail. An answer with
        // every move is about 2 KB: room for it at once, not grown by doubling.
        let mut out = Vec::with_capacity(4096);
        serde_json::to_writer(&mut out, &self.answer).expect("answer serialises");
        String::from_utf8(out).expect("JSON is UTF-8")
    }

    fn text(&self) -> String {
        use std::fmt::Write;
        let a = &self.answer;
        let mut text = format!("{} ({})\n{}\n", a.fen, a.table, a.result);
        match (&a.dtz, &a.dtz_category, &a.dtz_error) {
            (Some(d), Some(c), _) if a.halfmove > 0 => {
                let h = a.halfmove;
                let _ = writeln!(
                    text,
                    "distance to zeroing: {d} plies ({c}, halfmove clock {h})"
                );
            }
            (Some(d), Some(c), _) => {
                let _ = writeln!(text, "distance to zeroing: {d} plies ({c})");
            }
            (_, _, Some(e)) => {
                let _ = writeln!(text, "distance to zeroing: unavailable ({e})");
            }
            // Only distance to mate is known: a mate within 100 plies of the clock comes
            // before any claim, a later one may be drawn by the 50-move rule first.
            _ if a.dtm.is_some_and(|d| d.unsigned_abs() + a.halfmove > 100) => {
                text.push_str("50-move rule: not taken into account (no DTZ table here)\n");
            }
            _ => {}
        }
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
                "  {:<8} {:<6} {}{plies}",
                m.san.to_string(),
                m.uci.to_string(),
                m.result
            );
        }
        text
    }
}

/// Build the answer for `pos`, probed in `source`'s table.
pub fn present(source: &dyn Source, pos: &Position, probed: &Probed) -> Presented {
    let mut legal: Vec<Move> = Vec::new();
    legal_moves(pos, &mut legal);
    let term = terminal(pos);
    // A FEN may carry an en-passant right that stored positions lack: its captures are in
    // the move list, and the position is worth the best of them if that is better.
    // Sub-tables answer for captures and promotions only when the source has them.
    let subs = source.has_subtables();
    let en_passant = legal
        .iter()
        .filter(|m| subs && m.en_passant)
        .map(|m| source.converted(&make(pos, m)).back())
        .reduce(Value::better);
    let value = match en_passant {
        Some(ep) => probed.value.better(ep),
        None => probed.value,
    };
    let find = |code: u8| source.find(&legal, code);
    let beside = source.dtz_beside(pos, &legal);
    let beside_ok = beside.as_ref().and_then(|b| b.as_ref().ok());
    // The DTZ of the position a legal move reaches, found by the move's place in `legal`.
    let dtz_after = |m: &Move| -> Option<i32> {
        let b = beside_ok?;
        let k = legal.iter().position(|x| std::ptr::eq(x, m))?;
        self::lichess_rules::signed(*b.after.get(k)?)
    };
    // Each legal move's value for the opponent and DTZ, by its place in `legal`.
    let mut values = vec![Value::Illegal; legal.len()];
    for &(code, v) in &probed.moves {
        if let Some(k) = find(code).and_then(|m| legal.iter().position(|x| std::ptr::eq(x, m))) {
            values[k] = v;
        }
    }
    let dtz_values: Vec<Option<Value>> = match beside_ok {
        Some(b) => b.after.iter().copied().map(Some).collect(),
        None => Vec::new(),
    };
    // One order on every route, `/standard`'s (the result under the 50-move rule from the
    // clock, then the quickest mate or the longest defence, then Lichess's tie-breaks, then
    // the order moves are generated in), whichever table answers; the best move is its
    // first.
    let order: Vec<usize> = self::lichess_rules::move_order(pos, &legal, &values, &dtz_values)
        .into_iter()
        .filter(|&k| values[k] != Value::Illegal)
        .collect();
    let moves = order
        .iter()
        .map(|&k| {
            let (m, v) = (&legal[k], values[k]);
            let checkmate = v == Value::Loss(0);
            let why = if v == Value::Draw {
                // After a capture or promotion, the opponent's own captures would lead
                // beyond the sub-tables at hand.
                draw_reason(source, &make(pos, m), subs && !m.converts())
            } else {
                DrawReason::Unknown
            };
            MoveAnswer {
                uci: uci(m),
                san: san(pos, m, Some(checkmate)),
                category: category(v),
                dtm: dtm(v),
                result: move_result(v, why),
                plies: move_plies(v),
                capture: m.capture.is_some(),
                promotion: m.promotion.map(|r| r.letter().to_ascii_lowercase()),
                checkmate,
                stalemate: why == DrawReason::Stalemate,
                dtz: dtz_after(m),
            }
        })
        .collect();
    let best = order
        .first()
        .map(|&k| &legal[k])
        .filter(|_| value != Value::Illegal);
    let why = if value == Value::Draw {
        draw_reason(source, pos, subs)
    } else {
        DrawReason::Unknown
    };
    let answer = Answer {
        fen: to_fen(pos, pos.clock.halfmove, pos.clock.fullmove),
        side: pos.turn.name(),
        table: source.table_name(),
        category: category(value),
        result: position_result(pos.turn.name(), value, why),
        dtm: dtm(value),
        mate_in: mate_in(value),
        check: pos.in_check(pos.turn),
        checkmate: term == Some(Value::Loss(0)),
        stalemate: term == Some(Value::Draw),
        best: best.map(|m| BestMove {
            uci: uci(m),
            san: san(pos, m, None),
        }),
        moves,
        dtz: beside_ok.and_then(|b| self::lichess_rules::signed(b.value)),
        // Under the 50-move rule from the position's own halfmove clock, as `/standard`.
        dtz_category: beside_ok.map(|b| self::lichess_rules::category_at(pos, value, b.value)),
        halfmove: pos.clock.halfmove,
        dtz_error: beside.and_then(Result::err),
    };
    Box::new(Rendered { answer })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_in_words() {
        let none = DrawReason::Unknown;
        assert_eq!(
            position_result("white", Value::Win(65), none),
            "white mates in 33"
        );
        assert_eq!(
            position_result("black", Value::Loss(24), none),
            "black is mated in 12"
        );
        assert_eq!(
            position_result("black", Value::Loss(0), none),
            "checkmate: white wins"
        );
        assert_eq!(
            position_result("white", Value::Draw, DrawReason::Stalemate),
            "stalemate"
        );
        // A move to a position lost in 64 plies for the opponent mates in 65 plies: 33 moves.
        assert_eq!(move_result(Value::Loss(64), none), "mate in 33");
        assert_eq!(move_plies(Value::Loss(64)), Some(65));
        assert_eq!(move_result(Value::Loss(0), none), "checkmate");
        // A move to a position the opponent wins in 23 plies: mated in 12 moves.
        assert_eq!(move_result(Value::Win(23), none), "mated in 12");
        assert_eq!(
            move_result(
                Value::Draw,
                DrawReason::Takes {
                    side: "black",
                    role: "bishop"
                }
            ),
            "draw: black takes the bishop"
        );
        assert_eq!(move_plies(Value::Draw), None);
    }

    #[test]
    fn insufficient_material() {
        let pos = |s: &str| crate::rules::fen::parse(s).unwrap();
        assert!(insufficient(&pos("8/8/8/8/8/2k5/8/K7 w")));
        assert!(insufficient(&pos("8/8/8/8/8/2k5/8/KB6 w")));
        assert!(insufficient(&pos("8/8/8/8/8/2k5/8/K6n w")));
        assert!(!insufficient(&pos("8/8/8/8/8/2k5/P7/K7 w")));
        assert!(!insufficient(&pos("8/8/8/8/8/2k5/8/KB5n w")));
        assert!(!insufficient(&pos("8/8/8/8/8/2k5/8/KR6 w")));
    }
}
