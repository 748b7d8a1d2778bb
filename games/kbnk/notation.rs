//! Move names: UCI (`h1g2`) and SAN (`Kg2`, `Bf3+`, `Nf7#`, `Kxb2`).
//!
//! SAN never needs disambiguation here: each side has at most one piece of each kind.

use super::board::name;
use super::moves::{legal_moves, terminal, Move};
use super::position::Position;
use crate::game::Value;

/// The UCI name: from and to squares.
pub fn uci(m: &Move) -> String {
    format!("{}{}", name(m.from), name(m.to))
}

/// True if the move checkmates.
pub fn gives_mate(m: &Move) -> bool {
    m.after
        .is_some_and(|a| terminal(&a) == Some(Value::Loss(0)))
}

/// The SAN name, with `x` for captures and `+` / `#` for check / mate.
pub fn san(m: &Move) -> String {
    let mut s = String::new();
    s.push(m.piece.letter());
    if m.is_capture() {
        s.push('x');
    }
    s.push_str(&name(m.to));
    if let Some(after) = m.after {
        if after.black_in_check() {
            s.push(if gives_mate(m) { '#' } else { '+' });
        }
    }
    s
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
        v.iter().map(|m| (uci(m), san(m))).collect()
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
