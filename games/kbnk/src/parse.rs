//! Positions typed by users: a FEN (read by the shared chess parser) or a short piece list
//! (`Kh1 Bf1 Ng1 kf2 w`), both held to KBNK's material.

use retro_chess::board::{name, parse_square, squares};
use retro_chess::fen::parse_full_with;
use retro_chess::material::{Color, Role};
use retro_chess::present::role_name;
use retro_chess::Position;
use retro_engine::game::PositionError;

fn malformed(s: impl Into<String>) -> PositionError {
    PositionError::Malformed(s.into())
}

fn illegal(s: impl Into<String>) -> PositionError {
    PositionError::Illegal(s.into())
}

/// "white bishop".
fn piece_name(color: Color, role: Role) -> String {
    format!("{} {}", color.name(), role_name(role))
}

/// Parse a FEN (`board [side [castling [en-passant [halfmove [fullmove]]]]]`) or a piece
/// list (`Kh1 Bf1 Ng1 kf2 w`; upper case white, lower case black, side last, default white).
pub fn parse(text: &str) -> Result<Position, PositionError> {
    // `_` may stand for spaces, as in URLs (no notation uses it).
    let text = text.replace('_', " ");
    let fields: Vec<&str> = text.split_whitespace().collect();
    match fields.first() {
        None => Err(malformed("empty position")),
        Some(board) if board.contains('/') => Ok(parse_full_with(&text, material)?.pos),
        // Say which notation the text was read as, so "not a fen" is not answered with a
        // puzzling piece-list complaint alone.
        Some(_) => parse_list(&fields).map_err(|e| match e {
            PositionError::Malformed(m) => malformed(format!(
                "neither a FEN (ranks separated by '/') nor a piece list like \
                 'Kh1 Bf1 Ng1 kf2 w': {m}"
            )),
            other => other,
        }),
    }
}

/// A piece list: each piece once, no two on one square (a position cannot hold them).
fn parse_list(fields: &[&str]) -> Result<Position, PositionError> {
    let mut pos = Position::empty();
    for (i, tok) in fields.iter().enumerate() {
        if *tok == "w" || *tok == "b" {
            if i + 1 != fields.len() {
                return Err(malformed(format!(
                    "the side to move '{tok}' must come last"
                )));
            }
            pos.turn = if *tok == "w" {
                Color::White
            } else {
                Color::Black
            };
            continue;
        }
        let mut chars = tok.chars();
        let (Some(c), rest) = (chars.next(), chars.as_str()) else {
            continue;
        };
        let Some(role) = Role::from_letter(c) else {
            return Err(malformed(format!(
                "expected a FEN or pieces like 'Kh1 Bf1 Ng1 kf2 w', found '{tok}'"
            )));
        };
        let color = if c.is_ascii_uppercase() {
            Color::White
        } else {
            Color::Black
        };
        let sq = parse_square(rest)
            .ok_or_else(|| malformed(format!("bad square '{rest}' in '{tok}'")))?;
        if let Some((c0, r0)) = pos.piece_at(sq) {
            return Err(illegal(format!(
                "two pieces on one square: {} and {} on {}",
                piece_name(c0, r0),
                piece_name(color, role),
                name(sq)
            )));
        }
        pos.put(sq, color, role);
    }
    material(&pos)?;
    pos.check().map_err(|e| illegal(e.explain(pos.turn)))?;
    Ok(pos)
}

/// KBNK's material: exactly a white king, bishop and knight against a black king.
fn material(pos: &Position) -> Result<(), PositionError> {
    let of = |c: Color, r: Role| pos.pieces(c, r);
    // The first piece on a square of `mask`.
    let first = |mask: u64| squares(mask).find_map(|s| pos.piece_at(s).map(|(c, r)| (s, c, r)));
    if let Some((sq, c, r)) = first(pos.roles[Role::Pawn as usize]) {
        return Err(illegal(format!(
            "pawns are not part of this endgame ({} on {})",
            piece_name(c, r),
            name(sq)
        )));
    }
    let wanted = [
        (Color::White, Role::King),
        (Color::White, Role::Bishop),
        (Color::White, Role::Knight),
        (Color::Black, Role::King),
    ];
    let expected = wanted.iter().fold(0, |acc, &(c, r)| acc | of(c, r));
    if let Some((sq, c, r)) = first(pos.occupied() & !expected) {
        return Err(illegal(format!(
            "only a white king, bishop and knight against a black king: found a {} on {}",
            piece_name(c, r),
            name(sq)
        )));
    }
    for (c, r) in wanted {
        let found = of(c, r);
        match found.count_ones() {
            0 => return Err(illegal(format!("missing the {}", piece_name(c, r)))),
            1 => {}
            _ => {
                let at: Vec<String> = squares(found).map(name).collect();
                return Err(illegal(format!(
                    "more than one {} ({})",
                    piece_name(c, r),
                    at.join(", ")
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_chess::fen::to_fen;

    fn err(text: &str) -> PositionError {
        parse(text).expect_err(text)
    }

    fn fen(text: &str) -> String {
        let p = parse(text).unwrap();
        to_fen(&p, p.clock.halfmove, p.clock.fullmove)
    }

    #[test]
    fn forms() {
        for f in [
            "8/8/8/8/8/8/5k2/5BNK w - - 0 1",
            "8/8/8/8/8/8/2k5/KNB5 w - - 0 1",
            "8/8/8/6B1/8/8/4k3/1K5N b - - 0 1",
            "8/8/8/8/8/8/5k2/5BNK w - - 12 57",
        ] {
            assert_eq!(fen(f), f);
        }
        let p = parse("8/8/8/8/8/8/5k2/5BNK w").unwrap();
        assert_eq!(p, parse("Kh1 Bf1 Ng1 kf2 w").unwrap());
        assert_eq!(p, parse("  Kh1 Bf1 Ng1 kf2 ").unwrap());
        assert_eq!(p, parse("8/8/8/8/8/8/5k2/5BNK_w_-_-_0_1").unwrap());
        assert_eq!(fen("kf2 Ng1 Bf1 Kh1 b"), "8/8/8/8/8/8/5k2/5BNK b - - 0 1");
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
        assert!(matches!(err("8/8/8/8/8/8/5k2/5BNK w - e3 0 1"), Illegal(_)));
        assert!(matches!(err("8/8/8/8/8/P7/5k2/5BNK w"), Illegal(m) if m.contains("pawn")));
        assert!(matches!(err("8/8/8/8/8/q7/5k2/5BNK w"), Illegal(m) if m.contains("black queen")));
        assert!(
            matches!(err("8/8/8/8/8/8/5k2/5B1K w"), Illegal(m) if m.contains("missing the white knight"))
        );
        assert!(
            matches!(err("8/8/8/8/8/8/8/5BNK w"), Illegal(m) if m.contains("missing the black king"))
        );
        assert!(
            matches!(err("8/8/8/8/8/B7/5k2/5BNK w"), Illegal(m) if m == "more than one white bishop (f1, a3)")
        );
        // Black holding the pieces is another table's colouring, not this one's.
        assert!(
            matches!(err("8/8/8/8/8/8/5K2/5bnk w"), Illegal(m) if m.contains("found a black bishop on f1"))
        );
        assert!(
            matches!(err("8/8/8/8/8/8/6k1/5BNK w"), Illegal(m) if m.contains("kings are adjacent"))
        );
        assert!(
            matches!(err("8/8/8/8/8/3k4/8/5BNK w"), Illegal(m) if m.contains("black is in check with white to move"))
        );
        assert!(
            matches!(err("Kh1 Bf1 Ng1 kd3"), Illegal(m) if m.contains("black is in check with white to move"))
        );
        assert!(parse("8/8/8/8/8/3k4/8/5BNK b").is_ok());
        assert!(
            matches!(err("Kh1 Bh1 Ng1 kf2"), Illegal(m) if m == "two pieces on one square: white king and white bishop on h1")
        );
        assert!(matches!(err("Kh1 Bf1 Ng9 kf2"), Malformed(_)));
        assert!(matches!(err("Kh1 w Bf1 Ng1 kf2"), Malformed(_)));
        assert!(matches!(err("Kh1 Bf1 Ng1 kf2 w b"), Malformed(_)));
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
