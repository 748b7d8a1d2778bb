//! Reading a FEN as lila-tablebase does: castling rights that cannot be used (no king and
//! rook on their squares) and en-passant squares no pawn can have passed are ignored, not
//! refused; a usable castling right is a position no table holds (404); more than 5
//! pieces is "too many pieces" (404). Everything else goes to the chess FEN parser, which
//! keeps the halfmove clock and move number.

use super::LichessError;
use crate::rules::board::{bb, parse_square, square};
use crate::rules::fen::parse_full;
use crate::rules::material::{Color, Role};
use crate::rules::position::Illegality;
use crate::Position;
use retro_engine::game::PositionError;

/// The position of a FEN given to `/standard`, with its clocks in `pos.clock`.
pub fn read(raw: Option<&str>) -> Result<Position, LichessError> {
    let raw = raw.unwrap_or_default();
    // `_` stands for a space, so a FEN fits in a URL unescaped.
    let text = if raw.contains('_') {
        std::borrow::Cow::Owned(raw.replace('_', " "))
    } else {
        std::borrow::Cow::Borrowed(raw)
    };
    let (fields, n) = crate::rules::fen::first_n::<7>(text.split_whitespace());
    let fields = &fields[..n];
    if fields.is_empty() {
        return Err(LichessError::Query(
            "missing query parameter 'fen' (a FEN; '_' may stand for spaces)".into(),
        ));
    }
    if raw.len() > super::MAX_FEN_LEN {
        return Err(LichessError::InvalidFen("longer than any FEN".into()));
    }
    if fields.len() > 6 {
        return Err(LichessError::InvalidFen("more than 6 fields".into()));
    }
    let castling = fields.get(2).copied().unwrap_or("-");
    if castling != "-" && !castling.chars().all(|c| "KQkqABCDEFGHabcdefgh".contains(c)) {
        return Err(LichessError::InvalidFen(format!(
            "bad castling field '{castling}'"
        )));
    }
    let ep = fields.get(3).copied().unwrap_or("-");
    if ep != "-" && parse_square(ep).is_none() {
        return Err(LichessError::InvalidFen(format!(
            "bad en-passant square '{ep}'"
        )));
    }
    // The position without either field first: every other error is reported as it is.
    let with = |ep: &str| {
        let mut f: Vec<&str> = vec![fields[0], fields.get(1).copied().unwrap_or("w"), "-", ep];
        f.extend(fields.iter().skip(4));
        parse_full(&f.join(" "))
    };
    // Most FENs have neither field (and no `_`): read as they are, with no copy.
    let plain = if castling == "-" && ep == "-" && !raw.contains('_') {
        parse_full(raw)
    } else {
        with("-")
    };
    let plain = plain.map_err(refused)?.pos;
    if castling
        .chars()
        .any(|c| castling_usable(&plain, c).unwrap_or(false))
    {
        return Err(LichessError::NotInTablebase(format!(
            "castling rights '{castling}': retro's tables hold no positions with castling rights"
        )));
    }
    if ep == "-" {
        return Ok(plain);
    }
    // An en-passant square no pawn passed is ignored, as Lichess does.
    Ok(with(ep).map_or(plain, |f| f.pos))
}

/// A position given by its bitboards (see [`crate::rules::fen::from_bitboards`]), read as [`read`]
/// reads the same position's FEN: the same errors, and an en-passant square no pawn can
/// have passed is ignored. It has no castling rights: a board with some is read from its
/// FEN.
pub fn from_bitboards(
    colors: [u64; 2],
    roles: [u64; 6],
    turn: Color,
    ep: Option<u8>,
    clock: crate::rules::position::Clock,
) -> Result<Position, LichessError> {
    let read = |ep| crate::rules::fen::from_bitboards(colors, roles, turn, ep, clock);
    let plain = read(None).map_err(refused)?;
    match ep {
        None => Ok(plain),
        ep => Ok(read(ep).unwrap_or(plain)),
    }
}

/// The error of a FEN the chess parser refused, in Lichess's words and status.
fn refused(e: PositionError) -> LichessError {
    match e {
        PositionError::Illegal(r) if r == Illegality::TooManyPieces.text() => {
            LichessError::NotInTablebase("too many pieces (retro's tables have up to 6)".into())
        }
        PositionError::Illegal(r) => LichessError::IllegalPosition(r),
        PositionError::Malformed(r) => {
            LichessError::InvalidFen(r.strip_prefix("FEN: ").unwrap_or(&r).to_string())
        }
    }
}

/// Whether castling right `c` (`K`, `Q`, `k`, `q`, or a rook's file as in Shredder-FEN)
/// could be used: the king on its starting square and a rook of its colour on that side's
/// corner (or the named file) of its first rank. `None` for a letter that names nothing.
fn castling_usable(pos: &Position, c: char) -> Option<bool> {
    let color = if c.is_ascii_uppercase() {
        Color::White
    } else {
        Color::Black
    };
    let rank = if color == Color::White { 0 } else { 7 };
    let file = match c.to_ascii_lowercase() {
        'k' => 7,
        'q' => 0,
        f @ 'a'..='h' => f as u8 - b'a',
        _ => return None,
    };
    let king_home = pos.pieces(color, Role::King) & bb(square(4, rank)) != 0;
    let rook_home = pos.pieces(color, Role::Rook) & bb(square(file, rank)) != 0;
    Some(king_home && rook_home)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The status the server gives each answer (see its `ApiError`).
    fn status(fen: &str) -> u16 {
        match read(Some(fen)) {
            Ok(_) => 200,
            Err(LichessError::NotInTablebase(_)) => 404,
            Err(_) => 400,
        }
    }

    /// Bitboards are read as the FEN of the same position.
    #[test]
    fn bitboards_as_their_fen() {
        let clock = crate::rules::position::Clock::default();
        let via = |fen: &str, ep: Option<u8>| {
            let p = read(Some(fen)).unwrap();
            from_bitboards(p.colors, p.roles, p.turn, ep, clock)
        };
        let fen = "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1";
        assert_eq!(via(fen, Some(20)).unwrap(), read(Some(fen)).unwrap());
        assert_eq!(via(fen, Some(20)).unwrap().ep, Some(20));
        // e6: no pawn passed it, ignored as in a FEN.
        assert_eq!(via(fen, Some(44)).unwrap().ep, None);
        let p = read(Some("4k3/8/8/8/8/8/8/KQRBNN2 w - - 0 1"));
        assert!(matches!(p, Err(LichessError::NotInTablebase(_))));
        let kings = read(Some("4k3/8/8/8/8/8/8/4K3 w - - 0 1")).unwrap();
        let mut colors = kings.colors;
        let mut roles = kings.roles;
        for sq in 8..13 {
            colors[0] |= 1 << sq;
            roles[Role::Pawn as usize] |= 1 << sq;
        }
        let seven = from_bitboards(colors, roles, Color::White, None, clock);
        assert!(
            matches!(seven, Err(LichessError::NotInTablebase(_))),
            "{seven:?}"
        );
        let adjacent = read(Some("8/8/8/8/8/8/8/Kk6 w - - 0 1"));
        assert!(matches!(adjacent, Err(LichessError::IllegalPosition(_))));
        let mut roles = kings.roles;
        roles[Role::Queen as usize] |= roles[Role::King as usize];
        let overlap = from_bitboards(kings.colors, roles, Color::White, None, clock);
        assert!(
            matches!(overlap, Err(LichessError::InvalidFen(_))),
            "{overlap:?}"
        );
    }

    #[test]
    fn tolerant_like_lichess() {
        // Castling rights nobody can use, and an en-passant square no pawn passed: ignored.
        assert_eq!(status("4k3/8/8/8/8/8/8/KQ6_w_KQkq_-_0_1"), 200);
        assert_eq!(status("4k3/8/8/8/8/8/8/KQ6 w - e6 0 1"), 200);
        // The clocks are kept.
        let p = read(Some("4k3/8/8/8/8/8/8/KQ6 b - - 37 80")).unwrap();
        assert_eq!((p.clock.halfmove, p.clock.fullmove), (37, 80));
        // A king and rook at home with the right: no table holds it.
        assert_eq!(status("4k3/8/8/8/8/8/8/4K2R w K - 0 1"), 404);
        assert_eq!(status("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1"), 404);
        assert_eq!(status("4k3/8/8/8/8/8/8/R3K3 w K - 0 1"), 200);
        // Seven pieces: too many, as Lichess says of 8.
        assert_eq!(status("4k3/8/8/8/8/8/8/KQRBNN2 w - - 0 1"), 404);
        // Malformed and illegal: 400.
        for bad in [
            "",
            "8/8/8",
            "4k3/8/8/8/8/8/8/KX6 w - - 0 1",
            "4k3/8/8/8/8/8/8/KQ6 w KX - 0 1",
            "4k3/8/8/8/8/8/8/KQ6 w - z9 0 1",
            "4k3/8/8/8/8/8/8/KQ6 w - - x 1",
            "4k3/8/8/8/8/8/8/KQ6 w - - 0 1 7",
            "4k3/8/8/8/8/8/8/Kk6 w - - 0 1",
            "4k3/8/8/8/8/8/8/KQ6 x - - 0 1",
        ] {
            assert_eq!(status(bad), 400, "{bad:?}");
        }
    }
}
