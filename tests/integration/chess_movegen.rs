//! Chess rules for any material cross-checked against shakmaty on random positions:
//! legality, moves (UCI, SAN, captures, promotions, en passant), mate and stalemate, and
//! un-moves in both directions.

use super::common::Rng;
use retro::chess::board::bb;
use retro::chess::fen::{parse_full, to_fen};
use retro::chess::material::{Color, Material, Role};
use retro::chess::moves::{en_passant_after, legal_moves, make, terminal, unmoves};
use retro::chess::notation::{san, uci};
use retro::chess::position::Position;
use retro::game::Value;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _};

/// Materials covering every piece kind, pawns on both sides, twins, 5 and 6 pieces.
const MATERIALS: &[&str] = &[
    "KQvK", "KRvKP", "KPvKP", "KBNvK", "KQRvKR", "KRPvKR", "KPPvKP", "KNNvKB", "KQvKQ", "KBBvKN",
    "KPPvKN", "KQPvKB", "KRRvKRR", "KQBvKRN", "KRPvKBP",
];

/// A random placement of `m` (legal or not), either side to move; pawns off the back ranks.
fn random_position(r: &mut Rng, m: &Material) -> Position {
    loop {
        let mut pos = Position::empty();
        let mut pieces = vec![(Color::White, Role::King), (Color::Black, Role::King)];
        for (c, side) in [Color::White, Color::Black].into_iter().zip(&m.sides) {
            pieces.extend(side.iter().map(|&r| (c, r)));
        }
        let mut ok = true;
        for (c, role) in pieces {
            let sq = if role == Role::Pawn {
                8 + (r.next() % 48) as u8
            } else {
                (r.next() % 64) as u8
            };
            if pos.occupied() & bb(sq) != 0 {
                ok = false;
                break;
            }
            pos.put(sq, c, role);
        }
        if ok {
            pos.turn = if r.next() & 1 == 0 {
                Color::White
            } else {
                Color::Black
            };
            return pos;
        }
    }
}

fn fen(p: &Position) -> String {
    to_fen(p, 0, 1)
}

fn shak(p: &Position) -> Option<Chess> {
    let f = Fen::from_ascii(fen(p).as_bytes()).expect("our FEN parses");
    match f.into_position::<Chess>(CastlingMode::Standard) {
        Ok(c) => Some(c),
        Err(e) => e.ignore_impossible_check().ok(),
    }
}

/// The board and side after a shakmaty move, as our position.
fn from_shak(c: &Chess) -> Position {
    let f = Fen::from_position(c, EnPassantMode::Legal).to_string();
    parse_full(&f).expect("shakmaty positions parse").pos
}

/// Compare every legal move of `p` with shakmaty's.
fn compare_moves(p: &Position, c: &Chess) {
    let mut mine = Vec::new();
    legal_moves(p, &mut mine);
    let mut a: Vec<(String, String, bool)> = mine
        .iter()
        .map(|m| {
            (
                uci(m).to_string(),
                san(p, m, None).to_string(),
                m.capture.is_some(),
            )
        })
        .collect();
    let mut b: Vec<(String, String, bool)> = c
        .legal_moves()
        .iter()
        .map(|m| {
            (
                m.to_uci(CastlingMode::Standard).to_string(),
                SanPlus::from_move(c.clone(), *m).to_string(),
                m.is_capture(),
            )
        })
        .collect();
    a.sort();
    b.sort();
    assert_eq!(a, b, "moves of {}", fen(p));
    let t = terminal(p);
    assert_eq!(t == Some(Value::Loss(0)), c.is_checkmate(), "{}", fen(p));
    assert_eq!(t == Some(Value::Draw), c.is_stalemate(), "{}", fen(p));
    // Every move lands where shakmaty's does.
    for m in &mine {
        let sm = c
            .legal_moves()
            .into_iter()
            .find(|x| x.to_uci(CastlingMode::Standard).to_string() == uci(m).to_string())
            .expect("same moves");
        let mut after = c.clone();
        after.play_unchecked(sm);
        let mut ours = make(p, m);
        let theirs = from_shak(&after);
        ours.ep = theirs.ep; // stored positions carry no en-passant right
        assert_eq!(ours, theirs, "{} after {}", fen(p), uci(m));
    }
}

#[test]
fn legality_and_moves_match_shakmaty() {
    let mut r = Rng(7);
    for name in MATERIALS {
        let m = Material::parse(name).unwrap();
        let mut legal = 0;
        for _ in 0..4_000 {
            let p = random_position(&mut r, &m);
            let theirs = shak(&p);
            assert_eq!(
                p.check().is_ok(),
                theirs.is_some(),
                "legality of {}",
                fen(&p)
            );
            let Some(c) = theirs else { continue };
            legal += 1;
            compare_moves(&p, &c);
        }
        assert!(legal > 1_000, "{name}: {legal} legal positions");
    }
}

#[test]
fn en_passant_matches_shakmaty() {
    // Positions right after a double step beside an enemy pawn, the FEN carrying the square.
    let mut r = Rng(11);
    let mut seen = 0;
    for name in ["KPvKP", "KPPvKP", "KRPvKP"] {
        let m = Material::parse(name).unwrap();
        for _ in 0..20_000 {
            let p = random_position(&mut r, &m);
            if p.check().is_err() {
                continue;
            }
            let mut v = Vec::new();
            legal_moves(&p, &mut v);
            for mv in v.iter().filter(|x| x.is_double_step()) {
                let after = make(&p, mv);
                let ep = en_passant_after(&after, mv);
                let text = fen(&after).replacen(
                    " - - ",
                    &format!(" - {} ", retro::chess::board::name((mv.from + mv.to) / 2)),
                    1,
                );
                let with_ep = parse_full(&text).unwrap().pos;
                // The FEN keeps the square exactly when a capture is legal.
                assert_eq!(with_ep.ep.is_some(), !ep.is_empty(), "{text}");
                let c = Fen::from_ascii(text.as_bytes())
                    .unwrap()
                    .into_position::<Chess>(CastlingMode::Standard)
                    .unwrap();
                compare_moves(&with_ep, &c);
                seen += usize::from(!ep.is_empty());
            }
        }
    }
    assert!(seen > 100, "{seen} en-passant positions");
}

#[test]
fn unmoves_match_moves() {
    let mut r = Rng(13);
    let mut checked = 0;
    for name in MATERIALS {
        let m = Material::parse(name).unwrap();
        for _ in 0..2_000 {
            let q = random_position(&mut r, &m);
            if q.check().is_err() {
                continue;
            }
            // Every un-move is a legal position with an ordinary move to `q`.
            let mut before = Vec::new();
            unmoves(&q, &mut before);
            for p in &before {
                assert_eq!(p.check(), Ok(()), "{}", fen(p));
                let mut v = Vec::new();
                legal_moves(p, &mut v);
                let hit = v.iter().find(|mv| make(p, mv) == q);
                let mv = hit.unwrap_or_else(|| panic!("{} has no move to {}", fen(p), fen(&q)));
                assert!(!mv.converts());
                assert!(en_passant_after(&q, mv).is_empty());
            }
            // Every ordinary move of `q` is an un-move of where it leads.
            let mut v = Vec::new();
            legal_moves(&q, &mut v);
            for mv in v.iter().filter(|mv| !mv.converts()) {
                let after = make(&q, mv);
                if !en_passant_after(&after, mv).is_empty() {
                    continue;
                }
                let mut back = Vec::new();
                unmoves(&after, &mut back);
                assert!(back.contains(&q), "{} -> {}", fen(&q), uci(mv));
                checked += 1;
            }
        }
    }
    assert!(checked > 50_000, "{checked} moves checked");
}
