//! Moves and un-moves.
//!
//! A move is coded in one byte as in the seed: `piece << 6 | destination`, piece 1 king,
//! 2 bishop, 3 knight (black's moves are king moves). Moves are generated in increasing
//! order of that byte: king moves, then bishop moves, then knight moves, each by
//! destination square. The order breaks ties between equally good moves.

use super::position::{Position, Side};
use crate::chess::board::{bb, bishop_attacks, squares, Square, KING, KNIGHT};
use crate::game::Value;

/// The piece that moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    King = 1,
    Bishop = 2,
    Knight = 3,
}

impl Piece {
    /// The SAN letter.
    pub fn letter(self) -> char {
        match self {
            Piece::King => 'K',
            Piece::Bishop => 'B',
            Piece::Knight => 'N',
        }
    }
}

/// The move byte of `piece` going to `to`.
pub fn code(piece: Piece, to: Square) -> u8 {
    (piece as u8) << 6 | to
}

/// The piece and destination of a move byte (`None` for 0, "no move").
pub fn uncode(mv: u8) -> Option<(Piece, Square)> {
    let to = mv & 63;
    match mv >> 6 {
        1 => Some((Piece::King, to)),
        2 => Some((Piece::Bishop, to)),
        3 => Some((Piece::Knight, to)),
        _ => None,
    }
}

/// The same move seen in the file-mirrored board.
pub fn mirror_code(mv: u8) -> u8 {
    if mv == 0 {
        0
    } else {
        mv ^ 7
    }
}

/// One legal move of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// The move byte.
    pub code: u8,
    pub piece: Piece,
    pub from: Square,
    pub to: Square,
    /// The position after the move, `None` when black captures a piece (the game leaves
    /// the table: KBK and KNK are draws).
    pub after: Option<Position>,
}

impl Move {
    pub fn is_capture(&self) -> bool {
        self.after.is_none()
    }
}

/// Every legal move of a legal position, in move-byte order.
pub fn legal_moves(pos: &Position, out: &mut Vec<Move>) {
    let white = pos.white_occupied();
    let bk = pos.black_king;
    match pos.side {
        Side::White => {
            let occ = white | bb(bk);
            let mut push = |piece: Piece, from: Square, targets: u64| {
                for to in squares(targets) {
                    let mut after = Position {
                        side: Side::Black,
                        ..*pos
                    };
                    match piece {
                        Piece::King => after.white_king = to,
                        Piece::Bishop => after.bishop = to,
                        Piece::Knight => after.knight = to,
                    }
                    out.push(Move {
                        code: code(piece, to),
                        piece,
                        from,
                        to,
                        after: Some(after),
                    });
                }
            };
            let free = !occ;
            let wk = pos.white_king;
            push(
                Piece::King,
                wk,
                KING[wk as usize] & free & !KING[bk as usize],
            );
            push(
                Piece::Bishop,
                pos.bishop,
                bishop_attacks(pos.bishop, occ) & free,
            );
            push(
                Piece::Knight,
                pos.knight,
                KNIGHT[pos.knight as usize] & free,
            );
        }
        Side::Black => {
            let attacked = pos.white_attacks();
            let targets = KING[bk as usize] & !attacked & !bb(pos.white_king);
            for to in squares(targets) {
                let capture = to == pos.bishop || to == pos.knight;
                out.push(Move {
                    code: code(Piece::King, to),
                    piece: Piece::King,
                    from: bk,
                    to,
                    after: (!capture).then_some(Position {
                        black_king: to,
                        side: Side::White,
                        ..*pos
                    }),
                });
            }
        }
    }
}

/// Checkmate `Loss(0)`, stalemate `Draw`, or `None` if the side to move has a move.
pub fn terminal(pos: &Position) -> Option<Value> {
    let mut moves = Vec::new();
    legal_moves(pos, &mut moves);
    if !moves.is_empty() {
        None
    } else if pos.side == Side::Black && pos.black_in_check() {
        Some(Value::Loss(0))
    } else {
        Some(Value::Draw)
    }
}

/// Every legal position with a move leading to `pos` (a legal position). No un-captures:
/// captures leave the table.
pub fn predecessors(pos: &Position, out: &mut Vec<Position>) {
    let white = pos.white_occupied();
    let bk = pos.black_king;
    let occ = white | bb(bk);
    match pos.side {
        Side::White => {
            // Black's king came from a neighbouring empty square not next to the white king.
            // Its move was legal: the square it stands on now is not attacked.
            let from = KING[bk as usize] & !occ & !KING[pos.white_king as usize];
            for s in squares(from) {
                out.push(Position {
                    black_king: s,
                    side: Side::Black,
                    ..*pos
                });
            }
        }
        Side::Black => {
            let mut push = |piece: Piece, from: u64| {
                for s in squares(from) {
                    let mut before = Position {
                        side: Side::White,
                        ..*pos
                    };
                    match piece {
                        Piece::King => before.white_king = s,
                        Piece::Bishop => before.bishop = s,
                        Piece::Knight => before.knight = s,
                    }
                    if before.check().is_ok() {
                        out.push(before);
                    }
                }
            };
            push(Piece::King, KING[pos.white_king as usize] & !occ);
            push(Piece::Bishop, bishop_attacks(pos.bishop, occ) & !occ);
            push(Piece::Knight, KNIGHT[pos.knight as usize] & !occ);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::board::parse_square;

    fn sq(s: &str) -> Square {
        parse_square(s).unwrap()
    }

    #[test]
    fn codes() {
        for piece in [Piece::King, Piece::Bishop, Piece::Knight] {
            for to in 0..64 {
                assert_eq!(uncode(code(piece, to)), Some((piece, to)));
            }
        }
        assert_eq!(uncode(0), None);
        assert_eq!(uncode(5), None);
        assert_eq!(
            mirror_code(code(Piece::Bishop, sq("c1"))),
            code(Piece::Bishop, sq("f1"))
        );
    }

    #[test]
    fn mate_and_stalemate() {
        // Kg6, Bf6+ (through g7) with the knight on e7 covering g8.
        let m = Position::new(sq("g6"), sq("f6"), sq("e7"), sq("h8"), Side::Black).unwrap();
        assert_eq!(terminal(&m), Some(Value::Loss(0)));
        let s = Position::new(sq("g6"), sq("f5"), sq("e7"), sq("h8"), Side::Black).unwrap();
        // Not check; g8 covered by the knight, g7 and h7 by the king: stalemate.
        assert_eq!(terminal(&s), Some(Value::Draw));
        let w = Position::new(sq("g6"), sq("f5"), sq("e7"), sq("h8"), Side::White).unwrap();
        assert_eq!(terminal(&w), None);
    }

    #[test]
    fn captures() {
        // Black king next to an undefended knight.
        let p = Position::new(sq("a1"), sq("b1"), sq("e5"), sq("e6"), Side::Black).unwrap();
        let mut v = Vec::new();
        legal_moves(&p, &mut v);
        assert!(v.iter().any(|m| m.to == sq("e5") && m.is_capture()));
        // Defended by the king: no capture.
        let p = Position::new(sq("d4"), sq("b1"), sq("e5"), sq("e7"), Side::Black).unwrap();
        v.clear();
        legal_moves(&p, &mut v);
        assert!(!v.iter().any(|m| m.is_capture()));
    }

    #[test]
    fn unmoves_match_moves() {
        let p = Position::new(sq("c3"), sq("f1"), sq("e4"), sq("e7"), Side::Black).unwrap();
        let mut preds = Vec::new();
        predecessors(&p, &mut preds);
        assert!(!preds.is_empty());
        for q in preds {
            let mut v = Vec::new();
            legal_moves(&q, &mut v);
            assert!(v.iter().any(|m| m.after == Some(p)), "{q:?}");
        }
    }
}
