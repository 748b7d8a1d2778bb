//! Reading and writing positions: FEN, and a short piece list (`Kh1 Bf1 Ng1 kf2 w`).

use super::position::{Position, Side};
use crate::chess::board::{name, parse_square, square, Square};
use crate::game::PositionError;

fn malformed(s: impl Into<String>) -> PositionError {
    PositionError::Malformed(s.into())
}

fn illegal(s: impl Into<String>) -> PositionError {
    PositionError::Illegal(s.into())
}

/// A piece as written: colour and FEN letter (upper case).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Placed {
    white: bool,
    letter: char,
    square: Square,
}

fn piece_name(white: bool, letter: char) -> String {
    let colour = if white { "white" } else { "black" };
    let kind = match letter {
        'K' => "king",
        'Q' => "queen",
        'R' => "rook",
        'B' => "bishop",
        'N' => "knight",
        _ => "pawn",
    };
    format!("{colour} {kind}")
}

/// Parse a FEN (`board [side [castling [en-passant [halfmove [fullmove]]]]]`) or a piece
/// list (`Kh1 Bf1 Ng1 kf2 w`; upper case white, lower case black, side last, default white).
pub fn parse(text: &str) -> Result<Position, PositionError> {
    // `_` may stand for spaces, as in URLs (no notation uses it).
    let text = text.replace('_', " ");
    let text = text.trim();
    if text.is_empty() {
        return Err(malformed("empty position"));
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    // Say which notation the text was read as, so "not a fen" is not answered with a
    // puzzling piece-list complaint alone.
    if fields[0].contains('/') {
        let mut pos = parse_fen(&fields).map_err(in_form("FEN"))?;
        // Counters were checked by `parse_fen`; they are kept to be echoed.
        let count = |k: usize, default: u32| {
            fields
                .get(k)
                .and_then(|n| n.parse().ok())
                .unwrap_or(default)
        };
        pos.clock.halfmove = count(4, 0);
        pos.clock.fullmove = count(5, 1);
        Ok(pos)
    } else {
        parse_list(&fields).map_err(in_form(
            "neither a FEN (ranks separated by '/') nor a piece list like 'Kh1 Bf1 Ng1 kf2 w'",
        ))
    }
}

/// Prefix a malformed-text error with the notation it was read as.
fn in_form(form: &'static str) -> impl Fn(PositionError) -> PositionError {
    move |e| match e {
        PositionError::Malformed(m) => malformed(format!("{form}: {m}")),
        other => other,
    }
}

fn parse_side(s: &str) -> Result<Side, PositionError> {
    match s {
        "w" => Ok(Side::White),
        "b" => Ok(Side::Black),
        _ => Err(malformed(format!(
            "side to move must be 'w' or 'b', found '{s}'"
        ))),
    }
}

fn parse_fen(fields: &[&str]) -> Result<Position, PositionError> {
    if fields.len() > 6 {
        return Err(malformed(format!(
            "a FEN has at most 6 fields, found {}",
            fields.len()
        )));
    }
    let ranks: Vec<&str> = fields[0].split('/').collect();
    if ranks.len() != 8 {
        return Err(malformed(format!(
            "the board needs 8 ranks separated by '/', found {}",
            ranks.len()
        )));
    }
    let mut pieces = Vec::new();
    for (i, row) in ranks.iter().enumerate() {
        let r = 7 - i as u8;
        let mut f: u8 = 0;
        for c in row.chars() {
            if let Some(d) = c.to_digit(10) {
                if !(1..=8).contains(&d) {
                    return Err(malformed(format!("bad empty-square count '{c}'")));
                }
                f = f.saturating_add(d as u8);
            } else if "KQRBNPkqrbnp".contains(c) {
                if f < 8 {
                    pieces.push(Placed {
                        white: c.is_ascii_uppercase(),
                        letter: c.to_ascii_uppercase(),
                        square: square(f, r),
                    });
                }
                f = f.saturating_add(1);
            } else {
                return Err(malformed(format!("unknown piece letter '{c}'")));
            }
        }
        if f != 8 {
            return Err(malformed(format!(
                "rank {} has {f} squares instead of 8",
                r + 1
            )));
        }
    }
    let side = match fields.get(1) {
        Some(s) => parse_side(s)?,
        None => Side::White,
    };
    if let Some(&c) = fields.get(2) {
        if c != "-" {
            if c.chars().all(|x| "KQkqABCDEFGHabcdefgh".contains(x)) {
                return Err(illegal(format!("castling rights '{c}' without rooks")));
            }
            return Err(malformed(format!("bad castling field '{c}'")));
        }
    }
    if let Some(&e) = fields.get(3) {
        if e != "-" {
            if parse_square(e).is_some() {
                return Err(illegal(format!("en passant square '{e}' without pawns")));
            }
            return Err(malformed(format!("bad en passant field '{e}'")));
        }
    }
    for (k, what) in [(4, "halfmove clock"), (5, "fullmove number")] {
        if let Some(&n) = fields.get(k) {
            if n.parse::<u32>().is_err() {
                return Err(malformed(format!("bad {what} '{n}'")));
            }
        }
    }
    assemble(&pieces, side)
}

fn parse_list(fields: &[&str]) -> Result<Position, PositionError> {
    let mut pieces = Vec::new();
    let mut side = None;
    for (i, tok) in fields.iter().enumerate() {
        if *tok == "w" || *tok == "b" {
            if i + 1 != fields.len() || side.is_some() {
                return Err(malformed(format!(
                    "the side to move '{tok}' must come last"
                )));
            }
            side = Some(parse_side(tok)?);
            continue;
        }
        let mut chars = tok.chars();
        let (Some(c), rest) = (chars.next(), chars.as_str()) else {
            continue;
        };
        if !"KQRBNPkqrbnp".contains(c) {
            return Err(malformed(format!(
                "expected a FEN or pieces like 'Kh1 Bf1 Ng1 kf2 w', found '{tok}'"
            )));
        }
        let square = parse_square(rest)
            .ok_or_else(|| malformed(format!("bad square '{rest}' in '{tok}'")))?;
        pieces.push(Placed {
            white: c.is_ascii_uppercase(),
            letter: c.to_ascii_uppercase(),
            square,
        });
    }
    for (i, a) in pieces.iter().enumerate() {
        if let Some(b) = pieces[..i].iter().find(|b| b.square == a.square) {
            return Err(illegal(format!(
                "two pieces on one square: {} and {} on {}",
                piece_name(b.white, b.letter),
                piece_name(a.white, a.letter),
                name(a.square)
            )));
        }
    }
    assemble(&pieces, side.unwrap_or(Side::White))
}

/// Check the material (exactly K, B, N against k) and the rules, then build the position.
fn assemble(pieces: &[Placed], side: Side) -> Result<Position, PositionError> {
    if let Some(p) = pieces.iter().find(|p| p.letter == 'P') {
        return Err(illegal(format!(
            "pawns are not part of this endgame ({} on {})",
            piece_name(p.white, p.letter),
            name(p.square)
        )));
    }
    let wanted = [(true, 'K'), (true, 'B'), (true, 'N'), (false, 'K')];
    if let Some(p) = pieces
        .iter()
        .find(|p| !wanted.contains(&(p.white, p.letter)))
    {
        return Err(illegal(format!(
            "only a white king, bishop and knight against a black king: found a {} on {}",
            piece_name(p.white, p.letter),
            name(p.square)
        )));
    }
    let mut sq = [0 as Square; 4];
    for (k, &(white, letter)) in wanted.iter().enumerate() {
        let found: Vec<&Placed> = pieces
            .iter()
            .filter(|p| p.white == white && p.letter == letter)
            .collect();
        match found.as_slice() {
            [] => {
                return Err(illegal(format!(
                    "missing the {}",
                    piece_name(white, letter)
                )))
            }
            [p] => sq[k] = p.square,
            _ => {
                return Err(illegal(format!(
                    "more than one {} ({})",
                    piece_name(white, letter),
                    found
                        .iter()
                        .map(|p| name(p.square))
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        }
    }
    Position::new(sq[0], sq[1], sq[2], sq[3], side).map_err(|e| illegal(e.text()))
}

/// The FEN of a position: `board side - - 0 1`.
pub fn to_fen(pos: &Position) -> String {
    let mut board = String::new();
    for r in (0..8u8).rev() {
        let mut empty = 0;
        for f in 0..8u8 {
            let s = square(f, r);
            let c = if s == pos.white_king {
                Some('K')
            } else if s == pos.bishop {
                Some('B')
            } else if s == pos.knight {
                Some('N')
            } else if s == pos.black_king {
                Some('k')
            } else {
                None
            };
            match c {
                Some(c) => {
                    if empty > 0 {
                        board.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    board.push(c);
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            board.push(char::from(b'0' + empty));
        }
        if r > 0 {
            board.push('/');
        }
    }
    let side = match pos.side {
        Side::White => 'w',
        Side::Black => 'b',
    };
    format!(
        "{board} {side} - - {} {}",
        pos.clock.halfmove, pos.clock.fullmove
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> PositionError {
        parse(text).expect_err(text)
    }

    #[test]
    fn round_trip() {
        for fen in [
            "8/8/8/8/8/8/5k2/5BNK w - - 0 1",
            "8/8/8/8/8/8/2k5/KNB5 w - - 0 1",
            "8/8/8/6B1/8/8/4k3/1K5N b - - 0 1",
        ] {
            let p = parse(fen).unwrap();
            assert_eq!(to_fen(&p), fen);
        }
        let p = parse("8/8/8/8/8/8/5k2/5BNK w").unwrap();
        assert_eq!(p, parse("Kh1 Bf1 Ng1 kf2 w").unwrap());
        assert_eq!(p, parse("  Kh1 Bf1 Ng1 kf2 ").unwrap());
        assert_eq!(p, parse("8/8/8/8/8/8/5k2/5BNK_w_-_-_0_1").unwrap());
        // The move counters are echoed.
        assert_eq!(
            to_fen(&parse("8/8/8/8/8/8/5k2/5BNK w - - 12 57").unwrap()),
            "8/8/8/8/8/8/5k2/5BNK w - - 12 57"
        );
    }

    #[test]
    fn errors() {
        use PositionError::{Illegal, Malformed};
        assert!(matches!(err(""), Malformed(_)));
        assert!(matches!(err("8/8/8 w"), Malformed(m) if m.contains("8 ranks")));
        assert!(matches!(err("9/8/8/8/8/8/5k2/5BNK w"), Malformed(_)));
        assert!(matches!(err("8/8/8/8/8/8/5k2/5BNKK w"), Malformed(m) if m.contains("rank 1")));
        assert!(matches!(err("8/8/8/8/8/8/5k2/5BNX w"), Malformed(m) if m.contains("'X'")));
        assert!(matches!(err("8/8/8/8/8/8/5k2/5BNK x"), Malformed(m) if m.contains("side")));
        assert!(matches!(
            err("8/8/8/8/8/8/5k2/5BNK w - - x 1"),
            Malformed(_)
        ));
        assert!(matches!(
            err("8/8/8/8/8/8/5k2/5BNK w - - 0 1 9"),
            Malformed(_)
        ));
        assert!(matches!(err("8/8/8/8/8/8/5k2/5BNK w KQ - 0 1"), Illegal(_)));
        assert!(matches!(err("8/8/8/8/8/P7/5k2/5BNK w"), Illegal(m) if m.contains("pawn")));
        assert!(matches!(err("8/8/8/8/8/q7/5k2/5BNK w"), Illegal(m) if m.contains("black queen")));
        assert!(
            matches!(err("8/8/8/8/8/8/5k2/5B1K w"), Illegal(m) if m.contains("missing the white knight"))
        );
        assert!(
            matches!(err("8/8/8/8/8/8/8/5BNK w"), Illegal(m) if m.contains("missing the black king"))
        );
        assert!(
            matches!(err("8/8/8/8/8/B7/5k2/5BNK w"), Illegal(m) if m.contains("more than one white bishop"))
        );
        assert!(
            matches!(err("8/8/8/8/8/8/6k1/5BNK w"), Illegal(m) if m.contains("kings are adjacent"))
        );
        assert!(matches!(err("8/8/8/8/8/3k4/8/5BNK w"), Illegal(m) if m.contains("in check")));
        assert!(parse("8/8/8/8/8/3k4/8/5BNK b").is_ok());
        assert!(
            matches!(err("Kh1 Bh1 Ng1 kf2"), Illegal(m) if m.contains("two pieces on one square"))
        );
        assert!(matches!(err("Kh1 Bf1 Ng9 kf2"), Malformed(_)));
        assert!(matches!(err("Kh1 w Bf1 Ng1 kf2"), Malformed(_)));
    }

    #[test]
    fn garbage_never_panics() {
        let base = "8/8/8/6B1/8/8/4k3/1K5N b - - 0 1";
        let subs = ['/', ' ', '9', '0', '1', 'k', 'K', 'p', 'x', '-', 'é', '8'];
        for i in 0..base.len() {
            for c in subs {
                let mut s: String = base.chars().take(i).collect();
                s.push(c);
                s.extend(base.chars().skip(i + 1));
                let _ = parse(&s);
                let _ = parse(&s[..i.min(s.len())]);
            }
        }
        for s in [
            "/",
            "k",
            "K",
            "w",
            "Kh1 Kh1",
            "x/x/x/x/x/x/x/x",
            "kh1 Kh2",
            "Ka1 Ba2 Nb1",
        ] {
            assert!(parse(s).is_err(), "{s}");
        }
    }
}
