//! KBNK move generation cross-checked against shakmaty on random positions: legality,
//! moves (UCI and SAN), mate and stalemate, and un-moves in both directions.

use super::common::Rng;
use retro::game::{Game, GameText, Outcome};
use retro::kbnk::moves::{legal_moves, predecessors, terminal};
use retro::kbnk::notation::{san, uci};
use retro::kbnk::{Kbnk, Position, Side};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _};

/// Random placements with four distinct squares (legal or not), both sides to move, both
/// bishop colours.
fn random_positions(seed: u64, n: usize) -> Vec<Position> {
    let mut r = Rng(seed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let sq = [r.square(), r.square(), r.square(), r.square()];
        if (1..4).any(|i| sq[..i].contains(&sq[i])) {
            continue;
        }
        let side = if r.next() & 1 == 0 {
            Side::White
        } else {
            Side::Black
        };
        out.push(Position {
            white_king: sq[0],
            bishop: sq[1],
            knight: sq[2],
            black_king: sq[3],
            side,
            clock: Default::default(),
        });
    }
    out
}

fn fen(p: &Position) -> String {
    Kbnk::new().position_text(p)
}

fn shak(p: &Position) -> Option<Chess> {
    let f = Fen::from_ascii(fen(p).as_bytes()).expect("our FEN parses");
    match f.into_position::<Chess>(CastlingMode::Standard) {
        Ok(c) => Some(c),
        Err(e) => e.ignore_impossible_check().ok(),
    }
}

fn from_shak(c: &Chess) -> Position {
    let f = Fen::from_position(c, EnPassantMode::Legal).to_string();
    Kbnk::new()
        .parse_position(&f)
        .expect("shakmaty position is legal for us")
}

#[test]
fn legality_and_moves_match_shakmaty() {
    let mut legal = 0;
    for p in random_positions(1, 60_000) {
        let ours = p.check().is_ok();
        let theirs = shak(&p);
        assert_eq!(ours, theirs.is_some(), "legality of {}", fen(&p));
        let Some(c) = theirs else { continue };
        legal += 1;
        let mut mine = Vec::new();
        legal_moves(&p, &mut mine);
        let mut a: Vec<(String, String, bool)> = mine
            .iter()
            .map(|m| (uci(m).to_string(), san(m).to_string(), m.is_capture()))
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
        assert_eq!(a, b, "moves of {}", fen(&p));
        // Our moves come in move-byte order.
        assert!(mine.windows(2).all(|w| w[0].code < w[1].code));
        let t = terminal(&p);
        assert_eq!(
            t == Some(retro::game::Value::Loss(0)),
            c.is_checkmate(),
            "{}",
            fen(&p)
        );
        assert_eq!(
            t == Some(retro::game::Value::Draw),
            c.is_stalemate(),
            "{}",
            fen(&p)
        );
        // Every non-capture lands on the position shakmaty reaches.
        for m in c.legal_moves() {
            if m.is_capture() {
                continue;
            }
            let mut after = c.clone();
            after.play_unchecked(m);
            let q = from_shak(&after);
            assert!(mine.iter().any(|x| x.after == Some(q)), "{}", fen(&p));
        }
    }
    assert!(legal > 20_000, "{legal} legal positions");
}

#[test]
fn unmoves_from_random_positions() {
    let g = Kbnk::new();
    let mut preds = Vec::new();
    let mut idx = Vec::new();
    let mut succ = Vec::new();
    let mut checked = 0;
    for p in random_positions(2, 40_000) {
        if p.check().is_err() {
            continue;
        }
        // Position level, any orientation: each predecessor has a move to p.
        preds.clear();
        predecessors(&p, &mut preds);
        for q in &preds {
            assert!(q.check().is_ok(), "{} from {}", fen(q), fen(&p));
            let c = shak(q).expect("legal for shakmaty");
            let reached = c.legal_moves().iter().any(|m| {
                let mut a = c.clone();
                a.play_unchecked(*m);
                !m.is_capture() && from_shak(&a) == p
            });
            assert!(reached, "{} does not lead to {}", fen(q), fen(&p));
        }
        // Index level: every predecessor index lists p among its successors.
        let i = g.encode(&p);
        idx.clear();
        g.predecessors(&p, &mut idx);
        for &q in &idx {
            let qp = g.decode(q).expect("predecessors decode");
            assert!(g.terminal(&qp).is_none());
            succ.clear();
            g.successors(&qp, &mut succ);
            assert!(
                succ.iter().any(|s| s.to == Outcome::Index(i)),
                "{}",
                fen(&qp)
            );
        }
        checked += 1;
    }
    assert!(checked > 10_000);
}

#[test]
fn moves_are_undone_by_unmoves() {
    let g = Kbnk::new();
    let mut preds = Vec::new();
    let mut idx = Vec::new();
    for p in random_positions(3, 40_000) {
        let Some(c) = shak(&p) else { continue };
        let i = g.encode(&p);
        for m in c.legal_moves() {
            if m.is_capture() {
                continue;
            }
            let mut after = c.clone();
            after.play_unchecked(m);
            let q = from_shak(&after);
            preds.clear();
            predecessors(&q, &mut preds);
            assert!(preds.contains(&p), "{} -> {}", fen(&p), fen(&q));
            idx.clear();
            g.predecessors(&g.decode(g.encode(&q)).unwrap(), &mut idx);
            assert!(idx.contains(&i), "{} -> {}", fen(&p), fen(&q));
        }
    }
}

#[test]
fn whole_table_conformance() {
    // Every 31st slot: predecessors and successors agree in both directions.
    let g = Kbnk::new();
    use rayon::prelude::*;
    const STRIDE: u64 = 31;
    let bad: usize = (0..g.size() / STRIDE)
        .into_par_iter()
        .map(|k| {
            let i = k * STRIDE;
            let Some(p) = g.decode(i) else { return 0 };
            let mut bad = 0;
            let mut preds = Vec::new();
            g.predecessors(&p, &mut preds);
            let mut succ = Vec::new();
            for &q in &preds {
                succ.clear();
                let qp = g.decode(q).unwrap();
                g.successors(&qp, &mut succ);
                bad += usize::from(!succ.iter().any(|s| s.to == Outcome::Index(i)));
            }
            succ.clear();
            if g.terminal(&p).is_none() {
                g.successors(&p, &mut succ);
            }
            for s in &succ {
                if let Outcome::Index(j) = s.to {
                    preds.clear();
                    g.predecessors(&g.decode(j).unwrap(), &mut preds);
                    bad += usize::from(!preds.contains(&i));
                }
            }
            bad
        })
        .sum();
    assert_eq!(bad, 0);
}
