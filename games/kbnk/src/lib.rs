//! Chess: king + bishop + knight against king (KBNK), the seed's table.
//!
//! Every placement of the white king, bishop and knight and the black king, white to move
//! and black to move. Only light-squared bishops are stored; a position with a dark-squared
//! bishop is mirrored `x -> 7 - x`, probed, and its best move mirrored back. The rules,
//! FEN, move names and answers are the shared chess code's (`games/chess/`), and so are the
//! solver's passes (`games/chess/bareking/`); this folder holds the index, the seed's move
//! byte, the material check, and the index and move byte as those passes take them
//! (`solver.rs`). See `README.md` in this folder for the index and record layout.

pub mod code;
pub mod family;
pub mod index;
pub mod parse;
pub mod solver;

use retro_chess::moves::{legal_moves, make, terminal, unmoves, Move};
use retro_chess::present::Source;
pub use retro_chess::Position;
use retro_engine::game::{
    Game, Index, Outcome, PositionError, Section, Solution, SolveOptions, Successor, Value,
};
use retro_engine::present::{DistanceUnit, GameText, Presented};
use retro_engine::probe::Probed;
use retro_engine::solve::SolveError;

/// The KBNK plug-in. It has no parameters.
#[derive(Clone, Copy, Debug, Default)]
pub struct Kbnk;

impl Kbnk {
    pub fn new() -> Kbnk {
        Kbnk
    }
}

impl Game for Kbnk {
    type Position = Position;

    fn name(&self) -> String {
        "kbnk".to_string()
    }

    fn params(&self) -> (&'static str, Vec<(String, i64)>) {
        ("kbnk", Vec::new())
    }

    fn sections(&self) -> Vec<Section> {
        ["white", "black"]
            .iter()
            .map(|n| Section {
                name: n.to_string(),
                len: index::SECTION,
            })
            .collect()
    }

    fn decode(&self, i: Index) -> Option<Position> {
        index::slot(i).filter(|p| p.check().is_ok())
    }

    fn encode(&self, pos: &Position) -> Index {
        index::index_of(pos)
    }

    fn canonical(&self, pos: &Position) -> Position {
        index::canonical(pos)
    }

    fn terminal(&self, pos: &Position) -> Option<Value> {
        terminal(pos)
    }

    fn successors(&self, pos: &Position, out: &mut Vec<Successor>) {
        let mut v = Vec::with_capacity(32);
        legal_moves(pos, &mut v);
        out.extend(v.iter().map(|m| Successor {
            mv: code::of(m),
            // Black taking a piece leaves KBK or KNK: a draw.
            to: if m.capture.is_some() {
                Outcome::Known(Value::Draw)
            } else {
                Outcome::Index(self.encode(&make(pos, m)))
            },
        }));
    }

    fn predecessors(&self, pos: &Position, out: &mut Vec<Index>) {
        let mut v = Vec::with_capacity(32);
        unmoves(pos, &mut v);
        out.extend(v.iter().map(|p| self.encode(p)));
    }

    fn own_solution(&self, opts: &SolveOptions) -> Option<Result<Solution, SolveError>> {
        Some(solver::solve(opts))
    }

    fn images(&self, pos: &Position) -> Vec<Position> {
        vec![*pos, index::mirrored(pos)]
    }

    fn move_from_canonical(&self, pos: &Position, mv: u8) -> Option<u8> {
        Some(if index::light_bishop(pos) {
            mv
        } else {
            code::mirror(mv)
        })
    }
}

/// Answers are the shared chess answers, with the seed's move bytes.
impl Source for Kbnk {
    fn table_name(&self) -> String {
        "kbnk".to_string()
    }

    fn has_subtables(&self) -> bool {
        true
    }

    fn converted(&self, _: &Position) -> Value {
        // A capture leaves a lone bishop or knight: no mate is possible.
        Value::Draw
    }

    fn find<'a>(&self, legal: &'a [Move], mv: u8) -> Option<&'a Move> {
        code::find(legal, mv)
    }
}

impl GameText for Kbnk {
    fn title(&self) -> String {
        "king + bishop + knight vs king".to_string()
    }

    fn parse_position(&self, text: &str) -> Result<Position, PositionError> {
        parse::parse(text)
    }

    fn position_text(&self, pos: &Position) -> String {
        retro_chess::fen::to_fen(pos, pos.clock.halfmove, pos.clock.fullmove)
    }

    fn present(&self, pos: &Position, probed: &Probed) -> Presented {
        retro_chess::present::present(self, pos, probed)
    }

    fn distance_unit(&self) -> DistanceUnit {
        DistanceUnit::Moves
    }

    /// Each stored position (its bishop on a light square) stands for itself and its
    /// mirror left to right (the bishop on a dark one), never the same position.
    fn stored_as(&self, stored: u64) -> Option<retro_engine::present::StoredAs> {
        Some(retro_engine::present::StoredAs {
            positions: Some(2 * stored),
            words: "one of each pair of positions mirrored left to right (the bishop on a light square)"
                .into(),
        })
    }
}

/// The value of a KBNvK position of either colouring in the KBNK table (which holds
/// white's bishop and knight: black's are seen from the other side). The Lichess answers
/// read KBNvK from it when no chess table of that material is served.
pub fn chess_value(table: &retro_engine::table::Table, pos: &Position) -> Value {
    let p = if pos.pieces(
        retro_chess::material::Color::White,
        retro_chess::material::Role::Bishop,
    ) != 0
    {
        *pos
    } else {
        pos.color_flipped()
    };
    table.value(Kbnk.encode(&p))
}

/// The answer for a KBNvK position of either colouring (`8/8/8/3k4/8/8/8/KBN5 w`, or
/// black's bishop and knight) from the KBNK table, for a program that answers any chess
/// position from whichever table holds its material (`retro probe chess`, `/api/probe/chess`
/// where no chess KBNvK table is at hand). Every legal move is weighed by the value of
/// the position it reaches, in the shared chess answer: the same answer, move for move,
/// as the chess plug-in's KBNvK table gives.
pub fn chess_answer(
    table: &retro_engine::table::Table,
    text: &str,
) -> Result<Presented, retro_engine::present::ProbeError> {
    let pos = retro_chess::fen::parse(text)?;
    let material = pos.material();
    if material.canonical().0.to_string() != "KBNvK" {
        return Err(PositionError::Illegal(format!(
            "the material on the board is {material}, not KBNvK"
        ))
        .into());
    }
    Ok(retro_engine::table::damage::watch(|| {
        let mut legal = Vec::new();
        legal_moves(&pos, &mut legal);
        // Codes are places in `legal`, from 1 (as `AnyColouring::find` reads them).
        let moves = legal
            .iter()
            .enumerate()
            .map(|(k, m)| {
                let after = match m.capture {
                    Some(_) => AnyColouring.converted(&pos),
                    None => chess_value(table, &make(&pos, m)),
                };
                (k as u8 + 1, after)
            })
            .collect();
        let probed = Probed {
            value: chess_value(table, &pos),
            best: None,
            moves,
        };
        retro_chess::present::present(&AnyColouring, &pos, &probed)
    })?)
}

/// The KBNK table read for a chess position of either colouring ([`chess_answer`]):
/// the table's own answers ([`Kbnk`]'s), but moves are found by their place in the
/// position's move list.
struct AnyColouring;

impl Source for AnyColouring {
    fn table_name(&self) -> String {
        Kbnk.table_name()
    }

    fn has_subtables(&self) -> bool {
        Kbnk.has_subtables()
    }

    fn converted(&self, pos: &Position) -> Value {
        Kbnk.converted(pos)
    }

    fn find<'a>(&self, legal: &'a [Move], code: u8) -> Option<&'a Move> {
        legal.get((code as usize).checked_sub(1)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_encode() {
        let g = Kbnk::new();
        assert_eq!(g.size(), 2 * 8_388_608);
        for i in (0..g.size()).step_by(9973) {
            if let Some(p) = g.decode(i) {
                assert_eq!(g.encode(&p), i);
                assert_eq!(g.canonical(&p), p);
                let m = index::mirrored(&p);
                assert_eq!(g.encode(&m), i);
                assert_eq!(g.decode(g.encode(&m)), Some(g.canonical(&m)));
            }
        }
    }

    #[test]
    fn captures_are_draws_and_moves_carry_the_seed_bytes() {
        let g = Kbnk::new();
        // The black king next to an undefended knight.
        let p = parse::parse("8/8/4k3/4N3/8/8/8/KB6 b - - 0 1").unwrap();
        let mut succ = Vec::new();
        g.successors(&p, &mut succ);
        let take = code::code(code::Piece::King, 36);
        assert!(succ
            .iter()
            .any(|s| s.mv == take && s.to == Outcome::Known(Value::Draw)));
        // Bf6# from h4: the bishop's byte, to a checkmate.
        let p = parse::parse("7k/4N3/6K1/8/7B/8/8/8 w - - 0 1").unwrap();
        succ.clear();
        g.successors(&p, &mut succ);
        let mate = succ
            .iter()
            .find(|s| s.mv == code::code(code::Piece::Bishop, 45))
            .unwrap();
        let Outcome::Index(i) = mate.to else {
            panic!("stays in the table")
        };
        assert_eq!(g.terminal(&g.decode(i).unwrap()), Some(Value::Loss(0)));
    }

    #[test]
    fn conformance_sample() {
        let g = Kbnk::new();
        let mut succ = Vec::new();
        let mut preds = Vec::new();
        for i in (0..g.size()).step_by(7919) {
            let Some(p) = g.decode(i) else { continue };
            preds.clear();
            g.predecessors(&p, &mut preds);
            for &q in &preds {
                let qp = g.decode(q).expect("predecessors are legal");
                assert!(g.terminal(&qp).is_none());
                succ.clear();
                g.successors(&qp, &mut succ);
                assert!(succ.iter().any(|s| s.to == Outcome::Index(i)));
            }
            if g.terminal(&p).is_none() {
                succ.clear();
                g.successors(&p, &mut succ);
                for s in &succ {
                    if let Outcome::Index(j) = s.to {
                        preds.clear();
                        let jp = g.decode(j).expect("successors are legal");
                        g.predecessors(&jp, &mut preds);
                        assert!(preds.contains(&i));
                    }
                }
            }
        }
    }
}
