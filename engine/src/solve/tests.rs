//! The generic solver against a naive definition of retrograde values, on random game graphs
//! with cycles (draws), terminal positions and moves leaving the table.

use proptest::prelude::*;

use crate::game::*;
use crate::progress::Silent;
use crate::testgame::Graph;

/// The values a graph's positions have before any search: illegal, terminal, or a draw
/// for a position without moves; `None` for the others.
pub(super) fn settled_at_start(g: &Graph) -> Vec<Option<Value>> {
    (0..g.succ.len())
        .map(|i| {
            if g.hole[i] {
                Some(Value::Illegal)
            } else if let Some(t) = g.terminal[i] {
                Some(t)
            } else if g.succ[i].is_empty() {
                Some(Value::Draw)
            } else {
                None
            }
        })
        .collect()
}

/// By definition, the value at depth `d` of a position whose moves lead to `outs` (what
/// is known of each before layer `d`): won if a move reaches a loss at `d - 1`, lost if
/// every move reaches a win before `d`, one of them at `d - 1`; else not yet settled.
pub(super) fn settled_at(outs: &[Option<Value>], d: u16) -> Option<Value> {
    if outs.contains(&Some(Value::Loss(d - 1))) {
        Some(Value::Win(d))
    } else if outs
        .iter()
        .all(|x| matches!(x, Some(Value::Win(e)) if *e < d))
        && outs.contains(&Some(Value::Win(d - 1)))
    {
        Some(Value::Loss(d))
    } else {
        None
    }
}

/// Values by definition, one distance layer at a time.
fn naive(g: &Graph) -> Vec<Value> {
    let n = g.succ.len();
    let mut v = settled_at_start(g);
    for d in 1..=MAX_LOSS_PLIES {
        // What a move is known to lead to before layer d.
        let after = |v: &Vec<Option<Value>>, o: Outcome| match o {
            Outcome::Index(j) => v[j as usize],
            Outcome::Known(x) => Some(x),
            Outcome::Augmented { index, extra } => match (v[index as usize], extra) {
                (Some(q), e) => Some(q.better(e)),
                // The target is not settled below d, so a quicker extra win decides.
                (None, Value::Win(e)) if e < d => Some(extra),
                (None, _) => None,
            },
            Outcome::Restart { .. } => unreachable!("no restarts in these games"),
        };
        let prev = v.clone();
        for i in 0..n {
            if prev[i].is_some() {
                continue;
            }
            let outs: Vec<Option<Value>> = g.succ[i].iter().map(|&o| after(&prev, o)).collect();
            v[i] = settled_at(&outs, d);
        }
    }
    v.into_iter().map(|x| x.unwrap_or(Value::Draw)).collect()
}

/// Random graphs of `n` nodes whose moves are drawn from `outcome`: each node has up to
/// four moves, is terminal (a loss or a draw, then without moves) or not, and one in twenty
/// is an unused slot. Moves into unused slots are then left to the caller.
pub(super) fn random_graphs(
    n: usize,
    outcome: impl Strategy<Value = Outcome>,
) -> impl Strategy<Value = Graph> {
    let node = (
        prop::collection::vec(outcome, 0..5),
        prop_oneof![6 => Just(None), 2 => Just(Some(Value::Loss(0))), 1 => Just(Some(Value::Draw))],
        prop::bool::weighted(0.05),
    );
    prop::collection::vec(node, n).prop_map(|nodes| {
        let mut g = Graph::new(vec![], vec![], vec![]);
        for (s, t, h) in nodes {
            g.succ.push(if t.is_some() { vec![] } else { s });
            g.terminal.push(t);
            g.hole.push(h);
        }
        g
    })
}

pub(super) fn graphs() -> impl Strategy<Value = Graph> {
    (1usize..40).prop_flat_map(|n| {
        let known = prop_oneof![
            Just(Value::Draw),
            (0u16..4).prop_map(|d| Value::Loss(d * 2)),
            (0u16..4).prop_map(|d| Value::Win(d * 2 + 1)),
        ];
        let outcome = prop_oneof![
            8 => (0..n).prop_map(|j| Outcome::Index(j as Index)),
            2 => (0..n, known).prop_map(|(j, extra)| Outcome::Augmented { index: j as Index, extra }),
            1 => Just(Outcome::Known(Value::Draw)),
            1 => (0u16..4).prop_map(|d| Outcome::Known(Value::Loss(d * 2))),
            1 => (0u16..4).prop_map(|d| Outcome::Known(Value::Win(d * 2 + 1))),
        ];
        random_graphs(n, outcome).prop_map(|mut g| {
            // Moves into unused slots do not exist.
            let hole = g.hole.clone();
            for s in &mut g.succ {
                s.retain(|o| {
                    !matches!(o, Outcome::Index(j) | Outcome::Augmented { index: j, .. } if hole[*j as usize])
                });
            }
            g
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn two_queue_matches_the_definition(g in graphs()) {
        let sol = super::two_queue::solve(&g, &SolveOptions { progress: &Silent }).unwrap();
        let want = naive(&g);
        for i in 0..g.succ.len() {
            prop_assert_eq!(sol.value(i as Index), want[i], "node {}", i);
            // The stored move is the first achieving the value.
            let first = g.succ[i]
                .iter()
                .position(|&o| o.value(|j| want[j as usize]).back() == want[i]);
            let expect = match (g.terminal[i], first) {
                (None, Some(k)) if !g.hole[i] => k as u8 + 1,
                _ => NO_MOVE,
            };
            prop_assert_eq!(sol.mv(i as Index), expect, "move of node {}", i);
        }
    }

    #[test]
    fn thread_count_does_not_change_the_bytes(g in graphs()) {
        let solve = |t| crate::generate::with_threads(Some(t), || {
            super::two_queue::solve(&g, &SolveOptions { progress: &Silent }).unwrap()
        }).unwrap();
        prop_assert_eq!(solve(1), solve(3));
    }

    #[test]
    fn queue_entry_width_does_not_change_the_bytes(g in graphs()) {
        let opts = SolveOptions { progress: &Silent };
        prop_assert_eq!(
            super::two_queue::solve(&g, &opts).unwrap(),
            super::two_queue::solve_wide(&g, &opts).unwrap()
        );
    }
}

proptest! {
    // Each case writes and syncs a file: fewer cases.
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn records_made_as_written_are_the_solution(g in graphs()) {
        let opts = SolveOptions { progress: &Silent };
        let sol = super::two_queue::solve(&g, &opts).unwrap();
        let solved = super::two_queue::solve_values(&g, &opts).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (path, _) = crate::table::write_records(
            dir.path(), "graph", "graph", vec![], &g.sections(), &solved, &Silent,
        ).unwrap();
        let t = crate::table::Table::open(&path).unwrap();
        let info = &t.header().sections[0];
        prop_assert_eq!(&*t.section_records(info).unwrap(), &sol.records[..]);
        for i in 0..g.succ.len() as Index {
            prop_assert_eq!(solved.value(i), sol.value(i));
        }
    }
}

#[test]
fn value_records_round_trip() {
    // Every value a record holds, with the move byte a solver stores beside it: none for
    // illegal slots and terminal losses, some move for a lost position that is not over.
    let mut seen = std::collections::HashSet::new();
    for code in 0..=256u16 {
        let v = Value::from_code(code).unwrap();
        assert!(v.fits(), "{v:?}");
        assert_eq!(v.code(), code);
        let mv = if matches!(v, Value::Illegal | Value::Loss(0)) {
            NO_MOVE
        } else {
            7
        };
        assert_eq!(Value::from_record(v.to_byte(), mv), v, "{v:?}");
        assert!(
            seen.insert((v.to_byte(), mv == NO_MOVE)),
            "{v:?} shares a record"
        );
    }
    assert_eq!(Value::from_code(257), None);
    // Mate in 33 moves is 65 plies; mate in 127 and mated in 127 (the KPPvKP record, 254
    // plies) both fit; one more ply does not.
    assert_eq!(Value::Win(65).to_byte(), 34);
    assert_eq!(Value::Loss(0).to_byte(), 129);
    assert_eq!(Value::Loss(2).to_byte(), 129);
    assert_eq!(Value::from_record(129, NO_MOVE), Value::Loss(0));
    assert_eq!(Value::from_record(129, 1), Value::Loss(2));
    assert_eq!(Value::from_record(128, NO_MOVE), Value::Win(253));
    assert_eq!(Value::from_record(255, 3), Value::Loss(254));
    assert!(Value::Loss(254).fits());
    assert!(!Value::Loss(256).fits());
    assert!(!Value::Win(255).fits());
    assert!(!Value::Win(4).fits());
    assert_eq!(Value::Loss(66).back(), Value::Win(67));
}

/// A line of `n` positions, each with one move to the one before; the first is lost.
pub(super) fn chain(n: usize) -> Graph {
    let succ = (0..n)
        .map(|i| match i {
            0 => vec![],
            _ => vec![Outcome::Index(i as Index - 1)],
        })
        .collect();
    let mut terminal = vec![None; n];
    terminal[0] = Some(Value::Loss(0));
    Graph::new(succ, terminal, vec![false; n])
}

#[test]
fn the_longest_loss_a_record_holds_is_solved_and_one_ply_more_is_refused() {
    let opts = SolveOptions { progress: &Silent };
    let sol = super::two_queue::solve(&chain(255), &opts).unwrap();
    assert_eq!(sol.value(0), Value::Loss(0));
    assert_eq!(sol.value(1), Value::Win(1));
    assert_eq!(sol.value(2), Value::Loss(2));
    assert_eq!(sol.value(253), Value::Win(MAX_WIN_PLIES));
    assert_eq!(sol.value(254), Value::Loss(MAX_LOSS_PLIES));
    assert_eq!((sol.mv(0), sol.mv(2)), (NO_MOVE, 1));
    let err = super::two_queue::solve(&chain(256), &opts).unwrap_err();
    assert!(matches!(err, super::SolveError::TooDeep(255)), "{err}");
}
