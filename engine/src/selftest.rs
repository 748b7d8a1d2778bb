//! The conformance self-test every plug-in runs (GamesmanOne style): one generic check of
//! the contract in [`crate::game`], for one slot of the index space at a time, so a property
//! test can sample slots of any game.

use crate::game::{Game, Index, Outcome, Successor};

/// Check slot `i`: index round-trip, canonical form, and that successors and predecessors
/// agree both ways. Returns a description of the first violation.
pub fn check_slot<G: Game>(game: &G, i: Index) -> Result<(), String> {
    let Some(pos) = game.decode(i) else {
        return Ok(());
    };
    let canon = game.canonical(&pos);
    if canon != pos {
        return Err(format!(
            "slot {i}: decodes to {pos:?}, which is not canonical"
        ));
    }
    if game.encode(&pos) != i {
        return Err(format!(
            "slot {i}: {pos:?} encodes to {}",
            game.encode(&pos)
        ));
    }
    for img in game.images(&pos) {
        let c = game.canonical(&img);
        if c != pos || game.canonical(&c) != c {
            return Err(format!(
                "slot {i}: image {img:?} has canonical form {c:?}, not {pos:?}"
            ));
        }
        if game.encode(&img) != i {
            return Err(format!("slot {i}: image {img:?} encodes elsewhere"));
        }
    }
    let mut succ: Vec<Successor> = Vec::new();
    let terminal = game.terminal(&pos);
    if terminal.is_none() {
        game.successors(&pos, &mut succ);
    }
    if terminal.is_none() {
        // The solver's first pass counts through `count_successors`: it must agree with
        // the successor list.
        let (mut mine, mut want) = (Vec::new(), Vec::new());
        let n = game.count_successors(&pos, &mut mine);
        let m = crate::game::count_from_successors(game, &pos, &mut want);
        if (n, &mine) != (m, &want) {
            return Err(format!(
                "slot {i}: count_successors gives {n} targets and {mine:?}, the successors {m} and {want:?}"
            ));
        }
    }
    let mut seen = std::collections::HashSet::new();
    for s in &succ {
        if s.mv == crate::game::NO_MOVE || !seen.insert(s.mv) {
            return Err(format!("slot {i}: move code {} is zero or repeated", s.mv));
        }
        if let Outcome::Index(j) = s.to {
            let Some(q) = game.decode(j) else {
                return Err(format!("slot {i}: move {} leads to unused slot {j}", s.mv));
            };
            let mut preds = Vec::new();
            game.predecessors(&q, &mut preds);
            if !preds.contains(&i) {
                return Err(format!(
                    "slot {i}: move {} leads to slot {j}, whose predecessors omit {i}",
                    s.mv
                ));
            }
        }
    }
    let mut preds = Vec::new();
    game.predecessors(&pos, &mut preds);
    for p in preds {
        let Some(q) = game.decode(p) else {
            return Err(format!("slot {i}: predecessor {p} is an unused slot"));
        };
        if game.terminal(&q).is_some() {
            return Err(format!("slot {i}: predecessor {p} is terminal"));
        }
        let mut qs = Vec::new();
        game.successors(&q, &mut qs);
        if !qs.iter().any(|s| s.to == Outcome::Index(i)) {
            return Err(format!(
                "slot {i}: predecessor {p} has no move leading here"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_slot;
    use crate::game::{Game, Outcome, Value};
    use crate::testgame::Graph;

    /// 0 -> 1 -> 2 (terminal loss), 1 -> 0.
    fn graph() -> Graph {
        Graph::new(
            vec![
                vec![Outcome::Index(1)],
                vec![Outcome::Index(2), Outcome::Index(0)],
                vec![],
            ],
            vec![None, None, Some(Value::Loss(0))],
            vec![false; 3],
        )
    }

    #[test]
    fn a_consistent_game_passes() {
        let g = graph();
        for i in 0..g.size() {
            check_slot(&g, i).unwrap();
        }
    }

    #[test]
    fn a_missing_unmove_is_caught() {
        let mut g = graph();
        g.forget_preds_of = Some(2);
        let e = check_slot(&g, 1).unwrap_err();
        assert!(e.contains("predecessors omit 1"), "{e}");
    }

    #[test]
    fn an_unmove_without_a_move_is_caught() {
        let mut g = graph();
        g.fake_pred = Some((2, 0));
        let e = check_slot(&g, 2).unwrap_err();
        assert!(e.contains("no move leading here"), "{e}");
    }
}
