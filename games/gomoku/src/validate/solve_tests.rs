//! `solve.rs` against exhaustive minimax on small boards (every proof holds, within the
//! stone it claims, and the strategy written validates on its own), and its checkpoints
//! (a resumed search ends where an uninterrupted one does; damaged or foreign files are
//! refused).

use std::time::Duration;

use crate::rules::board::{Board, Color, Rules};
use crate::rules::random::Rng;
use crate::search::checkpoint::CheckpointError;
use crate::search::question_tests::random_question;
use crate::search::solve::{How, SolveConfig, Solver, Stop};

use super::options::Options;
use super::validator::validate;

fn small_cfg(rules: Rules, max_moves: u32) -> SolveConfig {
    SolveConfig {
        width: 64,
        node_limit: 4_000,
        time_limit: Duration::from_secs(10),
        ..SolveConfig::new(rules, max_moves)
    }
}

/// The strategy of a proven solver validates with the threat search alone.
fn assert_validates(s: &Solver, rules: Rules, max_moves: u32, b: &Board) {
    let st = s.strategy(None).expect("a proven root has a strategy");
    let opts = Options {
        proof: None,
        ..Options::new(rules, max_moves)
    };
    let report = validate(&st, &opts);
    assert!(report.valid(), "strategy does not validate:{b:?}\n{report}");
}

/// Random positions (both rules, both sides to move): (proofs, minimax wins, threat
/// searches), with the first threat searches' limit `first` (`None`: the default).
fn cross_check(
    (w, h, k): (usize, usize, usize),
    positions: usize,
    seed: u64,
    first: Option<u64>,
) -> (u32, u32, u64) {
    let mut rng = Rng(seed);
    let (mut proofs, mut wins, mut searches) = (0, 0, 0);
    for i in 0..positions {
        let Some(mut q) = random_question(&mut rng, i, (w, h, k), 4) else {
            continue;
        };
        wins += q.truth as u32;
        let mut cfg = small_cfg(q.rules, q.max_moves);
        cfg.first_leaf_nodes = first.unwrap_or(cfg.first_leaf_nodes);
        let mut s = Solver::new(&q.board, q.black_to_move, cfg);
        let stop = s.run(None);
        searches += s.status().threat_searches;
        if stop != Stop::Proven {
            continue;
        }
        proofs += 1;
        q.check_claim(s.by_stone().expect("proven"));
        assert_validates(&s, q.rules, q.max_moves, &q.board);
    }
    eprintln!("{w}x{h} k={k}: {proofs} proofs, {wins} minimax wins, {searches} searches");
    (proofs, wins, searches)
}

#[test]
fn agrees_with_minimax_on_4x4_k3_and_its_strategies_validate() {
    let (proofs, wins, _) = cross_check((4, 4, 3), 600, 0x5017_0001, None);
    assert!(proofs > 20, "{proofs} proofs");
    assert!(proofs * 10 >= wins * 9, "{proofs} proofs of {wins} wins");
}

/// Also with first threat searches of 2 nodes, where nearly every node is deferred and
/// searched again in full when chosen (more searches in all): every claim still holds
/// against minimax and every strategy validates.
#[test]
fn agrees_with_minimax_on_5x5_k4_and_its_strategies_validate() {
    let (proofs, wins, full) = cross_check((5, 5, 4), 60, 0x5017_0002, None);
    assert!(proofs > 5, "{proofs} proofs");
    assert!(proofs * 10 >= wins * 9, "{proofs} proofs of {wins} wins");
    let (proofs, wins, searches) = cross_check((5, 5, 4), 60, 0x5017_0002, Some(2));
    assert!(proofs > 5, "{proofs} proofs with deferring");
    assert!(
        proofs * 10 >= wins * 9,
        "{proofs} proofs of {wins} wins with deferring"
    );
    assert!(
        searches > full,
        "{searches} searches, {full} without deferring"
    );
}

fn gomoku(moves: &str) -> Board {
    let mut b = Board::gomoku();
    for (i, name) in moves.split_whitespace().enumerate() {
        let c = b.parse_cell(name).expect("cell");
        b.place(
            c,
            if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            },
        );
    }
    b
}

/// A quiet win on 15x15 (the threat search alone fails there: `pns_tests.rs`).
const QUIET: &str = "h8 a1 i9 o15";

/// A node whose win starts with a four and a quiet move after white's block (the threat
/// search alone does not find it): black's fours are graph moves at the first move of the
/// search. Without them the search does not prove it within 16,000 graph nodes (60 s).
#[test]
fn a_win_that_starts_with_a_four_is_found() {
    let b = gomoku("h8 h9 g9 f10 i8 j8 g7 g6 e7 f6 f8 d6 e6 e9 f7 d7");
    let cfg = SolveConfig {
        node_limit: 2_000,
        ..SolveConfig::new(Rules::Standard, 18)
    };
    let mut s = Solver::new(&b, true, cfg);
    assert_eq!(s.run(None), Stop::Proven);
    let (first, _) = s.proven_child(s.root).expect("proven");
    let fours = crate::search::quiet::four_cells(&b, Color::Black, Rules::Standard);
    assert!(
        fours.contains(&(first as usize)),
        "first move {} is not a four",
        b.cell_name(first as usize)
    );
    assert_validates(&s, Rules::Standard, 18, &b);
}

/// Also with first threat searches of 20 nodes, so that the checkpoint holds deferred
/// nodes.
#[test]
fn a_resumed_search_ends_where_an_uninterrupted_one_does() {
    let b = gomoku(QUIET);
    let default = SolveConfig::new(Rules::Standard, 18);
    for cfg in [
        default,
        SolveConfig {
            first_leaf_nodes: 20,
            ..default
        },
    ] {
        let mut whole = Solver::new(&b, true, cfg);
        assert_eq!(whole.run(None), Stop::Proven);
        let expected = whole.strategy(None).expect("proven").to_project_json();

        // Stopped after a few nodes, saved, restored, and run on with a larger limit.
        let mut part = Solver::new(
            &b,
            true,
            SolveConfig {
                node_limit: 10,
                ..cfg
            },
        );
        assert_eq!(part.run(None), Stop::NodeLimit);
        let deferred = part.nodes.iter().any(|n| n.how == How::Deferred);
        assert_eq!(deferred, cfg.first_leaf_nodes == 20);
        let bytes = part.to_checkpoint();
        let mut resumed = Solver::from_checkpoint(&bytes, &b, true, cfg).expect("restored");
        assert_eq!(resumed.status().nodes, part.status().nodes);
        assert_eq!(resumed.run(None), Stop::Proven);
        assert_eq!(resumed.by_stone(), whole.by_stone());
        assert_eq!(resumed.status().nodes, whole.status().nodes);
        assert_eq!(
            resumed.status().threat_searches,
            whole.status().threat_searches
        );
        assert_eq!(
            resumed.strategy(None).expect("proven").to_project_json(),
            expected
        );
        assert_validates(&resumed, Rules::Standard, 18, &b);
    }
}

/// The graph, its counts and the strategy written are the same on one worker as on three:
/// the children of an expansion come back in move order up to the first deciding one,
/// whichever worker finished first (random 5x5 k = 4 positions, where children decided the
/// moment they are made, and so workers still busy past them, are common).
#[test]
fn the_search_is_the_same_whatever_the_number_of_workers() {
    let mut rng = Rng(0x5017_0003);
    let questions: Vec<_> = (0..40)
        .filter_map(|i| random_question(&mut rng, i, (5, 5, 4), 4))
        .collect();
    let on = |threads: usize, first: Option<u64>| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool");
        pool.install(|| {
            (questions.iter())
                .map(|q| {
                    let mut cfg = small_cfg(q.rules, q.max_moves);
                    cfg.first_leaf_nodes = first.unwrap_or(cfg.first_leaf_nodes);
                    let mut s = Solver::new(&q.board, q.black_to_move, cfg);
                    let stop = s.run(None);
                    let st = s.status();
                    let json = s.strategy(None).ok().map(|s| s.to_project_json());
                    (stop, st.nodes, st.threat_searches, st.threat_nodes, json)
                })
                .collect::<Vec<_>>()
        })
    };
    // Also with nearly every node deferred: the deferred replies searched again together
    // are the same batch on any number of workers.
    for first in [None, Some(2)] {
        let one = on(1, first);
        assert!(
            one.iter().any(|r| r.0 == Stop::Proven),
            "no proof among them"
        );
        assert_eq!(one, on(3, first), "first threat searches {first:?}");
    }
}

#[test]
fn damaged_or_foreign_checkpoints_are_refused() {
    let b = gomoku(QUIET);
    let cfg = SolveConfig {
        node_limit: 10,
        ..SolveConfig::new(Rules::Standard, 18)
    };
    let mut s = Solver::new(&b, true, cfg);
    s.run(None);
    let bytes = s.to_checkpoint();
    assert!(Solver::from_checkpoint(&bytes, &b, true, cfg).is_ok());
    let mut flipped = bytes.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 1;
    assert!(matches!(
        Solver::from_checkpoint(&flipped, &b, true, cfg),
        Err(CheckpointError::Corrupt(_))
    ));
    assert!(matches!(
        Solver::from_checkpoint(&bytes[..bytes.len() - 9], &b, true, cfg),
        Err(CheckpointError::Corrupt(_))
    ));
    assert!(matches!(
        Solver::from_checkpoint(b"not a checkpoint", &b, true, cfg),
        Err(CheckpointError::Corrupt(_))
    ));
    let other = gomoku("h8 a1 j8 o15");
    assert!(matches!(
        Solver::from_checkpoint(&bytes, &other, true, cfg),
        Err(CheckpointError::Mismatch { what, .. }) if what == "position"
    ));
    let other_limit = SolveConfig {
        max_moves: 17,
        ..cfg
    };
    assert!(matches!(
        Solver::from_checkpoint(&bytes, &b, true, other_limit),
        Err(CheckpointError::Mismatch { what, .. }) if what == "black moves limit"
    ));
    // The search's options too, each named; a run's limits may differ.
    for (other, named) in [
        (SolveConfig { width: 3, ..cfg }, "width 12, not 3"),
        (
            SolveConfig {
                root_width: 0,
                ..cfg
            },
            "root width 24, not 0",
        ),
        (
            SolveConfig {
                depth_cost: u64::MAX,
                ..cfg
            },
            "depth cost 4, not 18446744073709551615",
        ),
        (
            SolveConfig {
                first_leaf_nodes: 7,
                ..cfg
            },
            "first threat-search nodes 100000, not 7",
        ),
    ] {
        let e = Solver::from_checkpoint(&bytes, &b, true, other)
            .err()
            .expect(named);
        assert_eq!(
            e.to_string(),
            format!("the checkpoint was made with {named}")
        );
    }
    let longer = SolveConfig {
        node_limit: 1000,
        time_limit: std::time::Duration::from_secs(1),
        ..cfg
    };
    assert!(Solver::from_checkpoint(&bytes, &b, true, longer).is_ok());
    // Earlier formats, which did not keep them, are refused.
    for magic in [b"RGSOLVE1", b"RGSOLVE2"] {
        let mut old = bytes.clone();
        old[..8].copy_from_slice(magic);
        assert!(matches!(
            Solver::from_checkpoint(&old, &b, true, cfg),
            Err(CheckpointError::Corrupt(w)) if w.contains("older retro")
        ));
    }
}
