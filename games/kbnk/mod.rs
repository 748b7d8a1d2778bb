//! Chess: king + bishop + knight against king (KBNK).
//!
//! Every placement of the white king, bishop and knight and the black king, white to move
//! and black to move. Only light-squared bishops are stored; a position with a dark-squared
//! bishop is mirrored `x -> 7 - x`, probed, and its best move mirrored back. See
//! `README.md` in this folder for the index and record layout.

pub use crate::chess::board;
pub mod fen;
pub mod index;
pub mod moves;
pub mod notation;
pub mod position;
pub mod present;
pub mod solver;

use crate::game::{
    DistanceUnit, Game, GameText, Index, Outcome, PositionError, Presented, Section, Solution,
    SolveOptions, Successor, Value,
};
use crate::probe::Probed;
use crate::solve::SolveError;

pub use position::{Position, Side};

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
        index::index_of(&pos.canonical())
    }

    fn canonical(&self, pos: &Position) -> Position {
        pos.canonical()
    }

    fn terminal(&self, pos: &Position) -> Option<Value> {
        moves::terminal(pos)
    }

    fn successors(&self, pos: &Position, out: &mut Vec<Successor>) {
        let mut v = Vec::new();
        moves::legal_moves(pos, &mut v);
        out.extend(v.iter().map(|m| Successor {
            mv: m.code,
            to: match m.after {
                Some(a) => Outcome::Index(self.encode(&a)),
                None => Outcome::Known(Value::Draw),
            },
        }));
    }

    fn predecessors(&self, pos: &Position, out: &mut Vec<Index>) {
        let mut v = Vec::new();
        moves::predecessors(pos, &mut v);
        out.extend(v.iter().map(|p| self.encode(p)));
    }

    fn solve(&self, opts: &SolveOptions) -> Result<Solution, SolveError> {
        solver::solve(opts)
    }

    fn images(&self, pos: &Position) -> Vec<Position> {
        vec![*pos, pos.mirrored()]
    }

    fn move_from_canonical(&self, pos: &Position, mv: u8) -> Option<u8> {
        Some(if pos.light_bishop() {
            mv
        } else {
            moves::mirror_code(mv)
        })
    }
}

impl GameText for Kbnk {
    fn title(&self) -> String {
        "king + bishop + knight vs king".to_string()
    }

    fn parse_position(&self, text: &str) -> Result<Position, PositionError> {
        fen::parse(text)
    }

    fn position_text(&self, pos: &Position) -> String {
        fen::to_fen(pos)
    }

    fn present(&self, pos: &Position, probed: &Probed) -> Presented {
        present::present(pos, probed)
    }

    fn distance_unit(&self) -> DistanceUnit {
        DistanceUnit::Moves
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
                let m = p.mirrored();
                assert_eq!(g.encode(&m), i);
                assert_eq!(g.decode(g.encode(&m)), Some(g.canonical(&m)));
            }
        }
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
