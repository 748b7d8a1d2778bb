//! The seed's move byte, `FFNNNNNN`: `piece << 6 | destination`, piece 1 king, 2 bishop,
//! 3 knight (black's moves are king moves), 0 = no move.
//!
//! Each side has at most one piece of each kind, so piece and destination name a move. The
//! shared move order (king, then bishop, then knight, each by destination) is the order of
//! these bytes, which is what breaks ties between equally good moves in the table.

use retro_chess::board::Square;
use retro_chess::material::Role;
use retro_chess::moves::{legal_moves, Move};
use retro_chess::Position;

/// The piece field of a move byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece {
    King = 1,
    Bishop = 2,
    Knight = 3,
}

/// The move byte of a piece and its destination.
pub const fn code(piece: Piece, to: Square) -> u8 {
    (piece as u8) << 6 | to
}

/// The move byte of a move of a KBNK position.
pub fn of(m: &Move) -> u8 {
    let piece = match m.role {
        Role::Bishop => Piece::Bishop,
        Role::Knight => Piece::Knight,
        // Only kings are left in KBNK.
        _ => Piece::King,
    };
    code(piece, m.to)
}

/// The legal move among `legal` (a position's legal moves, in move order) with move byte
/// `mv`. The bytes increase along the move order, so it is a binary search.
pub fn find(legal: &[Move], mv: u8) -> Option<&Move> {
    let k = legal.binary_search_by_key(&mv, of).ok()?;
    legal.get(k)
}

/// The legal move of `pos` with move byte `mv`.
pub fn move_of(pos: &Position, mv: u8) -> Option<Move> {
    let mut legal = Vec::new();
    legal_moves(pos, &mut legal);
    find(&legal, mv).copied()
}

/// The same move seen in the file-mirrored board.
pub fn mirror(mv: u8) -> u8 {
    if mv == 0 {
        0
    } else {
        mv ^ 7
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_chess::fen::parse;

    #[test]
    fn bytes_follow_the_move_order() {
        let pos = parse("8/8/8/8/8/8/5k2/5BNK w - - 0 1").unwrap();
        let mut legal = Vec::new();
        legal_moves(&pos, &mut legal);
        let bytes: Vec<u8> = legal.iter().map(of).collect();
        assert!(bytes.windows(2).all(|w| w[0] < w[1]), "{bytes:?}");
        // Ng1-h3 (h3 = 23) is the knight's byte 3 << 6 | 23.
        let nh3 = move_of(&pos, code(Piece::Knight, 23)).unwrap();
        assert_eq!((nh3.from, nh3.to, nh3.role), (6, 23, Role::Knight));
        assert_eq!(move_of(&pos, code(Piece::Bishop, 63)), None);
        // Bc1 mirrors Bf1.
        assert_eq!(mirror(code(Piece::Bishop, 2)), code(Piece::Bishop, 5));
        assert_eq!(mirror(0), 0);
    }
}
