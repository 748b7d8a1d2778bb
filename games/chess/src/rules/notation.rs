//! Move names: UCI (`e7e8q`) and SAN (`Rxa8+`, `exd6`, `e8=Q#`, `Nbd2`).
//!
//! Both are small `Copy` values shown through `Display` (and serialised as strings)
//! without allocating: batch probing names every move of every position.

use std::fmt::{self, Write};

use super::board::{file, rank, Square};
use super::material::Role;
use super::moves::{legal_moves, make, terminal, Move};
use super::position::Position;
use retro_engine::game::Value;

/// Write a square's name, `a1` … `h8`.
fn square_name(f: &mut fmt::Formatter<'_>, sq: Square) -> fmt::Result {
    f.write_char((b'a' + file(sq)) as char)?;
    f.write_char((b'1' + rank(sq)) as char)
}

/// A move's UCI name: from, to, and the promotion letter in lower case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uci {
    from: Square,
    to: Square,
    promotion: Option<Role>,
}

impl fmt::Display for Uci {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        square_name(f, self.from)?;
        square_name(f, self.to)?;
        match self.promotion {
            Some(p) => f.write_char(p.letter().to_ascii_lowercase()),
            None => Ok(()),
        }
    }
}

/// What a piece move names of its origin, when another piece of its kind can go to the
/// same square.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Nothing,
    File,
    Rank,
    Square,
}

/// A move's SAN name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct San {
    role: Role,
    from: Square,
    origin: Origin,
    capture: bool,
    to: Square,
    promotion: Option<Role>,
    /// `+`, `#` or nothing.
    suffix: Option<char>,
}

impl fmt::Display for San {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.role == Role::Pawn {
            if self.capture {
                f.write_char((b'a' + file(self.from)) as char)?;
            }
        } else {
            f.write_char(self.role.letter())?;
            match self.origin {
                Origin::Nothing => {}
                Origin::File => f.write_char((b'a' + file(self.from)) as char)?,
                Origin::Rank => f.write_char((b'1' + rank(self.from)) as char)?,
                Origin::Square => square_name(f, self.from)?,
            }
        }
        if self.capture {
            f.write_char('x')?;
        }
        square_name(f, self.to)?;
        if let Some(p) = self.promotion {
            f.write_char('=')?;
            f.write_char(p.letter())?;
        }
        match self.suffix {
            Some(c) => f.write_char(c),
            None => Ok(()),
        }
    }
}

macro_rules! serialize_as_display {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    };
}
serialize_as_display!(Uci);
serialize_as_display!(San);

/// The UCI name of a move.
pub fn uci(m: &Move) -> Uci {
    Uci {
        from: m.from,
        to: m.to,
        promotion: m.promotion,
    }
}

/// Which part of the origin SAN needs to tell `m` from the other pieces of its kind that
/// can reach the same square (only worked out when there are such pieces).
fn origin(pos: &Position, m: &Move) -> Origin {
    if m.role == Role::Pawn || pos.pieces(pos.turn, m.role).count_ones() < 2 {
        return Origin::Nothing;
    }
    let mut all = Vec::new();
    legal_moves(pos, &mut all);
    let rivals = all
        .iter()
        .filter(|o| o.role == m.role && o.to == m.to && o.from != m.from);
    let (mut any, mut same_file, mut same_rank) = (false, false, false);
    for o in rivals {
        any = true;
        same_file |= file(o.from) == file(m.from);
        same_rank |= rank(o.from) == rank(m.from);
    }
    match (any, same_file, same_rank) {
        (false, _, _) => Origin::Nothing,
        (true, false, _) => Origin::File,
        (true, true, false) => Origin::Rank,
        (true, true, true) => Origin::Square,
    }
}

/// The SAN name of legal move `m` of `pos`; `mates` says whether it checkmates, if known
/// (from the table), else it is worked out.
pub fn san(pos: &Position, m: &Move, mates: Option<bool>) -> San {
    let after = make(pos, m);
    let suffix = after.in_check(after.turn).then(|| {
        let mate = mates.unwrap_or_else(|| terminal(&after) == Some(Value::Loss(0)));
        if mate {
            '#'
        } else {
            '+'
        }
    });
    San {
        role: m.role,
        from: m.from,
        origin: origin(pos, m),
        capture: m.capture.is_some(),
        to: m.to,
        promotion: m.promotion,
        suffix,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fen::parse;

    fn names(fen: &str) -> Vec<(String, String)> {
        let p = parse(fen).unwrap();
        let mut v = Vec::new();
        legal_moves(&p, &mut v);
        v.iter()
            .map(|m| (uci(m).to_string(), san(&p, m, None).to_string()))
            .collect()
    }

    #[test]
    fn san_forms() {
        let v = names("k7/2P5/1K6/8/8/8/8/8 w - - 0 1");
        assert!(v.contains(&("c7c8b".into(), "c8=B".into())), "{v:?}");
        assert!(v.contains(&("c7c8q".into(), "c8=Q#".into())), "{v:?}");
        assert!(v.contains(&("c7c8r".into(), "c8=R#".into())), "{v:?}");
        // Two rooks on the first rank: file letters.
        let v = names("6k1/8/8/8/8/8/4K3/R6R w - - 0 1");
        assert!(v.contains(&("a1d1".into(), "Rad1".into())), "{v:?}");
        // Two rooks on one file: rank digits.
        let v = names("6k1/R7/8/8/8/8/4K3/R7 w - - 0 1");
        assert!(v.contains(&("a1a4".into(), "R1a4".into())), "{v:?}");
        // Mate by the queen.
        let v = names("k7/7Q/1K6/8/8/8/8/8 w - - 0 1");
        assert!(v.contains(&("h7b7".into(), "Qb7#".into())), "{v:?}");
        // En passant.
        let v = names("8/8/8/8/3pP3/8/8/K6k b - e3 0 1");
        assert!(v.contains(&("d4e3".into(), "dxe3".into())), "{v:?}");
        // A bishop check, a knight check and a king capture.
        let v = names("8/8/8/8/8/8/5k2/5BNK w - - 0 1");
        assert!(v.contains(&("g1h3".into(), "Nh3+".into())), "{v:?}");
        let v = names("8/8/8/8/8/8/3N4/K1k2B2 b - - 0 1");
        assert!(v.contains(&("c1d2".into(), "Kxd2".into())), "{v:?}");
    }
}
