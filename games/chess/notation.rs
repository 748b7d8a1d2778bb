//! Move names: UCI (`e7e8q`) and SAN (`Rxa8+`, `exd6`, `e8=Q#`, `Nbd2`).

use super::board::name;
use super::material::Role;
use super::moves::{legal_moves, make, terminal, Move};
use super::position::Position;
use crate::game::Value;

/// The UCI name: from, to, and the promotion letter in lower case.
pub fn uci(m: &Move) -> String {
    let mut s = format!("{}{}", name(m.from), name(m.to));
    if let Some(p) = m.promotion {
        s.push(p.letter().to_ascii_lowercase());
    }
    s
}

/// The SAN name of legal move `m` of `pos`; `mates` says whether it checkmates, if known
/// (from the table), else it is worked out.
pub fn san(pos: &Position, m: &Move, mates: Option<bool>) -> String {
    let mut s = String::new();
    if m.role == Role::Pawn {
        if m.capture.is_some() {
            s.push((b'a' + (m.from & 7)) as char);
        }
    } else {
        s.push(m.role.letter());
        // Disambiguate between pieces of the same kind that can reach the same square.
        let mut all = Vec::new();
        legal_moves(pos, &mut all);
        let rivals: Vec<&Move> = all
            .iter()
            .filter(|o| o.role == m.role && o.to == m.to && o.from != m.from)
            .collect();
        if !rivals.is_empty() {
            let same_file = rivals.iter().any(|o| o.from & 7 == m.from & 7);
            let same_rank = rivals.iter().any(|o| o.from >> 3 == m.from >> 3);
            let n = name(m.from);
            if !same_file {
                s.push_str(&n[..1]);
            } else if !same_rank {
                s.push_str(&n[1..]);
            } else {
                s.push_str(&n);
            }
        }
    }
    if m.capture.is_some() {
        s.push('x');
    }
    s.push_str(&name(m.to));
    if let Some(p) = m.promotion {
        s.push('=');
        s.push(p.letter());
    }
    let after = make(pos, m);
    if after.in_check(after.turn) {
        let mate = mates.unwrap_or_else(|| terminal(&after) == Some(Value::Loss(0)));
        s.push(if mate { '#' } else { '+' });
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::parse;

    fn names(fen: &str) -> Vec<(String, String)> {
        let p = parse(fen).unwrap();
        let mut v = Vec::new();
        legal_moves(&p, &mut v);
        v.iter().map(|m| (uci(m), san(&p, m, None))).collect()
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
        // Mate by the queen.
        let v = names("k7/7Q/1K6/8/8/8/8/8 w - - 0 1");
        assert!(v.contains(&("h7b7".into(), "Qb7#".into())), "{v:?}");
        // En passant.
        let v = names("8/8/8/8/3pP3/8/8/K6k b - e3 0 1");
        assert!(v.contains(&("d4e3".into(), "dxe3".into())), "{v:?}");
    }
}
