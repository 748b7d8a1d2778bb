//! KBNK on the shared chess rules (themselves cross-checked against shakmaty on KBNvK and
//! other materials in `chess_movegen`): the seed's move bytes name the shared moves, in
//! order, and survive the bishop-colour mirror; un-moves and moves agree at index level.

use super::common::Rng;
use retro::chess::moves::legal_moves;
use retro::game::{Game, Outcome, Successor};
use retro::kbnk::{code, Kbnk};
use retro::present::GameText;

#[test]
fn move_bytes_name_the_moves_in_order_and_mirror() {
    let g = Kbnk::new();
    let mut r = Rng(1);
    let (mut legal, mut succ, mut mirrored) = (Vec::new(), Vec::new(), Vec::new());
    let mut checked = 0;
    while checked < 5_000 {
        let Some(p) = g.decode(r.next() % g.size()) else {
            continue;
        };
        let fen = g.position_text(&p);
        legal.clear();
        legal_moves(&p, &mut legal);
        let bytes: Vec<u8> = legal.iter().map(code::of).collect();
        // Strictly increasing: the move order is the byte order, each byte one move.
        assert!(bytes.windows(2).all(|w| w[0] < w[1]), "{fen}");
        for (m, &b) in legal.iter().zip(&bytes) {
            assert_eq!(code::find(&legal, b), Some(m), "{fen}");
            assert_eq!(code::move_of(&p, b).as_ref(), Some(m), "{fen}");
        }
        // The dark-bishop image has the mirrored moves, leading to the same slots.
        let image = g.images(&p)[1];
        succ.clear();
        g.successors(&p, &mut succ);
        mirrored.clear();
        g.successors(&image, &mut mirrored);
        let mut back: Vec<Successor> = mirrored
            .iter()
            .map(|s| Successor {
                mv: code::mirror(s.mv),
                to: s.to,
            })
            .collect();
        back.sort_by_key(|s| s.mv);
        assert_eq!(succ, back, "{fen}");
        for s in &mirrored {
            assert_eq!(
                g.move_from_canonical(&image, code::mirror(s.mv)),
                Some(s.mv)
            );
        }
        checked += 1;
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
