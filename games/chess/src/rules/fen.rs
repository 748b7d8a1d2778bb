//! FEN for any material: `board [side [castling [en-passant [halfmove [fullmove]]]]]`.
//!
//! `_` may stand for spaces (as in URLs). Castling rights must be `-`: endgame tables have
//! none. An en-passant square is kept when a pawn really just made a double step there;
//! the halfmove clock and move number are read and written back unchanged.

use super::board::{name, parse_square, square, Square};
use super::material::{Color, Role};
use super::position::Position;
use retro_engine::game::PositionError;

fn malformed(s: impl Into<String>) -> PositionError {
    PositionError::Malformed(format!("FEN: {}", s.into()))
}

/// A parsed FEN: the position and its move counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fen {
    pub pos: Position,
    pub halfmove: u32,
    pub fullmove: u32,
}

/// Parse a FEN. Structure errors are `Malformed`; rule violations (`check`) are `Illegal`.
pub fn parse(text: &str) -> Result<Position, PositionError> {
    parse_full(text).map(|f| f.pos)
}

/// Parse a FEN with its counters.
pub fn parse_full(text: &str) -> Result<Fen, PositionError> {
    parse_full_with(text, |_| Ok(()))
}

/// Parse a FEN with its counters, checking a plug-in's own `rules` (the material it
/// accepts, say) before the general rules of [`Position::check`], so that their more
/// precise messages come first.
pub fn parse_full_with(
    text: &str,
    rules: impl Fn(&Position) -> Result<(), PositionError>,
) -> Result<Fen, PositionError> {
    let text = text.trim();
    // `_` for spaces: a copy only where there is one.
    let text = if text.contains('_') {
        std::borrow::Cow::Owned(text.replace('_', " "))
    } else {
        std::borrow::Cow::Borrowed(text)
    };
    let (fields, n) = first_n::<7>(text.split_whitespace());
    let fields = &fields[..n];
    let Some(board) = fields.first() else {
        return Err(malformed("empty position"));
    };
    let mut pos = Position::empty();
    let (ranks, n) = first_n::<9>(board.split('/'));
    if n != 8 {
        let found = if n > 8 {
            "more".to_string()
        } else {
            n.to_string()
        };
        return Err(malformed(format!(
            "the board needs 8 ranks separated by '/', found {found}"
        )));
    }
    let ranks = &ranks[..8];
    for (i, row) in ranks.iter().enumerate() {
        let r = 7 - i as u8;
        let mut f = 0u8;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                if !(1..=8).contains(&d) {
                    return Err(malformed(format!("bad empty-square count '{c}'")));
                }
                f += d as u8;
            } else {
                let role = Role::from_letter(c)
                    .ok_or_else(|| malformed(format!("unknown piece letter '{c}'")))?;
                if f >= 8 {
                    return Err(malformed(format!("rank {} has more than 8 squares", r + 1)));
                }
                let color = if c.is_ascii_uppercase() {
                    Color::White
                } else {
                    Color::Black
                };
                pos.put(square(f, r), color, role);
                f += 1;
            }
            if f > 8 {
                return Err(malformed(format!("rank {} has more than 8 squares", r + 1)));
            }
        }
        if f != 8 {
            return Err(malformed(format!("rank {} has {f} squares, not 8", r + 1)));
        }
    }
    pos.turn = match fields.get(1).copied().unwrap_or("w") {
        "w" => Color::White,
        "b" => Color::Black,
        s => {
            return Err(malformed(format!(
                "side to move must be 'w' or 'b', not '{s}'"
            )))
        }
    };
    match fields.get(2).copied().unwrap_or("-") {
        "-" => {}
        s if s.chars().all(|c| "KQkq".contains(c)) => {
            return Err(PositionError::Illegal(format!(
                "castling rights '{s}': endgame tables have none (write '-')"
            )))
        }
        s => return Err(malformed(format!("bad castling field '{s}'"))),
    }
    let count = |i: usize, default: u32, what: &str| -> Result<u32, PositionError> {
        fields.get(i).map_or(Ok(default), |s| {
            s.parse()
                .map_err(|_| malformed(format!("{what} '{s}' is not a number")))
        })
    };
    let halfmove = count(4, 0, "halfmove clock")?;
    let fullmove = count(5, 1, "move number")?;
    if fields.len() > 6 {
        return Err(malformed("more than 6 fields"));
    }
    rules(&pos)?;
    pos.check()
        .map_err(|e| PositionError::Illegal(e.explain(pos.turn)))?;
    match fields.get(3).copied().unwrap_or("-") {
        "-" => {}
        s => {
            let sq =
                parse_square(s).ok_or_else(|| malformed(format!("bad en-passant square '{s}'")))?;
            pos.ep = ep_square(&pos, sq)?;
        }
    }
    pos.clock = super::position::Clock { halfmove, fullmove };
    Ok(Fen {
        pos,
        halfmove,
        fullmove,
    })
}

/// The first `N` items of `items` and how many there were (`N` meaning `N` or more): a
/// FEN's fields and ranks without a heap allocation, which a batch of probes would make
/// for every position.
pub(crate) fn first_n<'a, const N: usize>(
    mut items: impl Iterator<Item = &'a str>,
) -> ([&'a str; N], usize) {
    let mut out = [""; N];
    let mut n = 0;
    while n < N {
        match items.next() {
            Some(s) => out[n] = s,
            None => break,
        }
        n += 1;
    }
    (out, n)
}

/// A position from its bitboards (square a1 is bit 0, h8 bit 63; `roles` indexed by
/// `Role as usize`), checked as a FEN's is: the pieces must not overlap and each must have
/// one colour, then the rules of [`Position::check`] and the en-passant square's (see
/// [`parse_full`]). For programs that hold a board as bitboards (python-chess), where
/// writing and reading a FEN would cost more than the probe.
pub fn from_bitboards(
    colors: [u64; 2],
    roles: [u64; 6],
    turn: Color,
    ep: Option<Square>,
    clock: super::position::Clock,
) -> Result<Position, PositionError> {
    if colors[0] & colors[1] != 0 {
        return Err(malformed("a square holds a white and a black piece"));
    }
    let mut seen = 0u64;
    for r in roles {
        if r & seen != 0 {
            return Err(malformed("a square holds two pieces"));
        }
        seen |= r;
    }
    if seen != colors[0] | colors[1] {
        return Err(malformed("a piece has no colour, or a colour no piece"));
    }
    let mut pos = Position {
        roles,
        colors,
        turn,
        ep: None,
        clock,
    };
    pos.check()
        .map_err(|e| PositionError::Illegal(e.explain(pos.turn)))?;
    if let Some(sq) = ep {
        if sq > 63 {
            return Err(malformed(format!(
                "en-passant square {sq} is off the board"
            )));
        }
        pos.ep = ep_square(&pos, sq)?;
    }
    Ok(pos)
}

/// Check an en-passant square: behind a pawn of the side that just moved, on the 3rd or
/// 6th rank, with the two squares it came through empty. Kept only if a capture is legal
/// (otherwise it changes nothing, as Lichess treats it).
fn ep_square(pos: &Position, sq: Square) -> Result<Option<Square>, PositionError> {
    let mover = pos.turn.other();
    let (ep_rank, dir): (u8, i8) = if mover == Color::White {
        (2, 8)
    } else {
        (5, -8)
    };
    let pawn = (sq as i8 + dir) as Square;
    let origin = (sq as i8 - dir) as Square;
    if sq >> 3 != ep_rank
        || pos.pieces(mover, Role::Pawn) & super::board::bb(pawn) == 0
        || pos.occupied() & (super::board::bb(sq) | super::board::bb(origin)) != 0
    {
        return Err(PositionError::Illegal(format!(
            "en-passant square {}: no pawn of the side that just moved passed it",
            name(sq)
        )));
    }
    let mut p = *pos;
    p.ep = Some(sq);
    let mut v = Vec::new();
    super::moves::legal_moves(&p, &mut v);
    Ok(v.iter().any(|m| m.en_passant).then_some(sq))
}

/// The FEN of a position with its counters.
pub fn to_fen(pos: &Position, halfmove: u32, fullmove: u32) -> String {
    let mut s = String::new();
    for r in (0..8).rev() {
        let mut empty = 0;
        for f in 0..8 {
            match pos.piece_at(square(f, r)) {
                None => empty += 1,
                Some((c, role)) => {
                    if empty > 0 {
                        s.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    let l = role.letter();
                    s.push(if c == Color::White {
                        l
                    } else {
                        l.to_ascii_lowercase()
                    });
                }
            }
        }
        if empty > 0 {
            s.push((b'0' + empty) as char);
        }
        if r > 0 {
            s.push('/');
        }
    }
    let side = if pos.turn == Color::White { "w" } else { "b" };
    let ep = pos.ep.map_or("-".to_string(), name);
    format!("{s} {side} - {ep} {halfmove} {fullmove}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_errors() {
        let f = parse_full("8/8/8/8/8/2k5/8/KQ5r w - - 7 42").unwrap();
        assert_eq!(
            to_fen(&f.pos, f.halfmove, f.fullmove),
            "8/8/8/8/8/2k5/8/KQ5r w - - 7 42"
        );
        let f = parse_full("8/8/8/8/8/2k5/8/KQ5r_b").unwrap();
        assert_eq!(
            to_fen(&f.pos, f.halfmove, f.fullmove),
            "8/8/8/8/8/2k5/8/KQ5r b - - 0 1"
        );
        let bad = |s: &str| parse(s).unwrap_err().to_string();
        assert!(bad("8/8/8").contains("8 ranks"), "{}", bad("8/8/8"));
        assert!(bad("8/8/8/8/8/8/8/KX5k w").contains("unknown piece letter 'X'"));
        assert!(bad("8/8/8/8/8/8/8/Kk6 w").contains("kings are adjacent"));
        assert!(bad("8/8/8/8/8/8/8/K6k w KQ").contains("castling"));
        assert!(bad("8/8/8/8/8/8/8/KQ5k w")
            .contains("the side not to move is in check (black is in check with white to move)"));
        assert!(bad("P7/8/8/8/8/8/8/K6k w").contains("first or last rank"));
        assert!(bad("8/8/8/8/8/8/8/K7 w").contains("exactly one king"));
        assert!(bad("8/8/8/8/8/8/8/K6k x").contains("side to move"));
    }

    /// The bitboards of a position give what its FEN gives, errors included.
    #[test]
    fn bitboards_read_as_the_fen() {
        let clock = crate::rules::position::Clock {
            halfmove: 3,
            fullmove: 9,
        };
        let from = |fen: &str| {
            let f = parse_full(fen).unwrap();
            let ep = f.pos.ep;
            from_bitboards(f.pos.colors, f.pos.roles, f.pos.turn, ep, clock)
        };
        let p = from("8/8/8/8/3pP3/8/8/K6k b - e3 0 1").unwrap();
        assert_eq!(p, parse("8/8/8/8/3pP3/8/8/K6k b - e3").unwrap());
        assert_eq!(p.ep, Some(parse_square("e3").unwrap()));
        assert_eq!((p.clock.halfmove, p.clock.fullmove), (3, 9));
        let k = parse("8/8/8/8/8/8/8/K6k w").unwrap();
        let bad = |colors: [u64; 2], roles: [u64; 6], ep: Option<Square>| {
            from_bitboards(colors, roles, Color::White, ep, clock)
                .unwrap_err()
                .to_string()
        };
        // A white rook on b1 that is also black.
        let (mut colors, mut roles) = (k.colors, k.roles);
        colors[0] |= 2;
        colors[1] |= 2;
        roles[Role::Rook as usize] |= 2;
        assert!(bad(colors, roles, None).contains("white and a black"));
        // A piece of two roles, a piece of no colour, a colour of no piece.
        let mut two = k.roles;
        two[Role::Queen as usize] |= k.roles[Role::King as usize];
        assert!(bad(k.colors, two, None).contains("two pieces"));
        let mut loose = k.roles;
        loose[Role::Queen as usize] |= 2;
        assert!(bad(k.colors, loose, None).contains("no colour"));
        // The rules and the en-passant square, as in a FEN.
        let (mut colors, mut roles) = (k.colors, k.roles);
        colors[0] |= 2;
        roles[Role::Queen as usize] |= 2;
        assert!(bad(colors, roles, None).contains("side not to move is in check"));
        assert!(bad(k.colors, k.roles, Some(44)).contains("en-passant square e6"));
        assert!(bad(k.colors, k.roles, Some(64)).contains("off the board"));
    }

    #[test]
    fn en_passant_field() {
        // White just played e2-e4; the d4 pawn may take: kept.
        let f = parse_full("8/8/8/8/3pP3/8/8/K6k b - e3 0 1").unwrap();
        assert_eq!(f.pos.ep, Some(parse_square("e3").unwrap()));
        // No black pawn beside: dropped, as it changes nothing.
        let f = parse_full("8/8/8/8/4P3/8/8/K6k b - e3 0 1").unwrap();
        assert_eq!(f.pos.ep, None);
        // No pawn passed e3.
        assert!(parse("8/8/8/8/3p4/8/8/K6k b - e3 0 1").is_err());
    }
}
