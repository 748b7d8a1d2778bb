//! Move names: UCI (`h1g2`) and SAN (`Kg2`, `Bf3+`, `Nf7#`, `Kxb2`).
//!
//! SAN never needs disambiguation here: each side has at most one piece of each kind.

use super::moves::{legal_moves, terminal, Move};
use super::position::Position;
use crate::chess::board::{file, rank, Square};
use crate::game::Value;

/// A square's name, `a1` … `h8`, without allocating.
fn square_name(f: &mut std::fmt::Formatter<'_>, sq: Square) -> std::fmt::Result {
    use std::fmt::Write;
    f.write_char((b'a' + file(sq)) as char)?;
    f.write_char((b'1' + rank(sq)) as char)
}

/// A move's UCI name (`h1g2`). Displayed and serialised without allocating: batch probing
/// names every move of every position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uci {
    from: Square,
    to: Square,
}

impl std::fmt::Display for Uci {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        square_name(f, self.from)?;
        square_name(f, self.to)
    }
}

/// A move's SAN name (`Kg2`, `Bf3+`, `Nf7#`, `Kxb2`), like [`Uci`] free of allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct San {
    letter: char,
    capture: bool,
    to: Square,
    /// `+`, `#` or nothing.
    suffix: Option<char>,
}

impl std::fmt::Display for San {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::fmt::Write;
        f.write_char(self.letter)?;
        if self.capture {
            f.write_char('x')?;
        }
        square_name(f, self.to)?;
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

/// The UCI name: from and to squares.
pub fn uci(m: &Move) -> Uci {
    Uci {
        from: m.from,
        to: m.to,
    }
}

/// True if the move checkmates.
pub fn gives_mate(m: &Move) -> bool {
    m.after
        .is_some_and(|a| terminal(&a) == Some(Value::Loss(0)))
}

/// The SAN name, with `x` for captures and `+` / `#` for check / mate.
pub fn san(m: &Move) -> San {
    san_known(m, gives_mate(m))
}

/// The SAN name when whether the move mates is already known (from the table).
pub fn san_known(m: &Move, mates: bool) -> San {
    let check = m.after.is_some_and(|a| a.black_in_check());
    San {
        letter: m.piece.letter(),
        capture: m.is_capture(),
        to: m.to,
        suffix: check.then_some(if mates { '#' } else { '+' }),
    }
}

/// The legal move of `pos` with move byte `code`.
pub fn find(pos: &Position, code: u8) -> Option<Move> {
    let mut v = Vec::new();
    legal_moves(pos, &mut v);
    v.into_iter().find(|m| m.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kbnk::fen::parse;

    fn names(fen: &str) -> Vec<(String, String)> {
        let p = parse(fen).unwrap();
        let mut v = Vec::new();
        legal_moves(&p, &mut v);
        v.iter()
            .map(|m| (uci(m).to_string(), san(m).to_string()))
            .collect()
    }

    #[test]
    fn san_suffixes() {
        // Kg6, Ne7, Bh4: Bf6 mates the king on h8.
        let v = names("7k/4N3/6K1/8/7B/8/8/8 w - - 0 1");
        assert!(v.contains(&("h4f6".into(), "Bf6#".into())), "{v:?}");
        assert!(v.contains(&("g6f6".into(), "Kf6".into())), "{v:?}");
        let v = names("8/8/8/8/8/8/5k2/5BNK w - - 0 1");
        assert!(v.contains(&("g1h3".into(), "Nh3+".into())), "{v:?}");
        // Black captures an undefended knight.
        let v = names("8/8/8/8/8/8/3N4/K1k2B2 b - - 0 1");
        assert!(v.contains(&("c1d2".into(), "Kxd2".into())), "{v:?}");
    }
}
