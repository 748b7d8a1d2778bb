//! The gomoku threat search and validator are generic in board size and k, so the exact
//! k-in-a-row tables can referee them (freestyle rules: k or more wins):
//! - over every position of each small table and a fixed sample of each large one, the
//!   threat search never proves a win the table denies, nor a faster one than the table
//!   allows; over every position of the k = 3 tables up to 4x4, neither do the proof
//!   searches of `prove` and `solve`;
//! - strategies exported from the tables validate, and one changed black move fails there.

use retro::game::{Game, SolveOptions, Value};
use retro::generate::write_solution;
use retro::gomoku::search::pns::{prove as proof_search, ProveConfig};
use retro::gomoku::search::solve::{SolveConfig, Solver};
use retro::gomoku::search::threat::prove_win_defender_to_move;
use retro::gomoku::validate::strategy::{AfterBlack, AfterWhite, BlackNode, Strategy, WhiteNode};
use retro::gomoku::validate::{validate, Options};
use retro::gomoku::{prove_win, Board, Color, Rules, SearchConfig};
use retro::mnk::Mnk;
use retro::progress::Silent;
use retro::solve::Solve;
use retro::table::Table;

use rayon::prelude::*;

/// Checks every `every`-th position of the `w` x `h`, k table (in the table's order);
/// returns (positions checked, proofs checked).
fn referee(w: u32, h: u32, k: u32, every: usize) -> (u64, u64) {
    let game = Mnk::new(w, h, k).unwrap();
    let sol = game.solve(&SolveOptions { progress: &Silent }).unwrap();
    let budget = w * h; // more stones than the board holds: no artificial limit
                        // Every position, then checked in parallel: the check is exhaustive and the slowest
                        // test of the suite, so it uses every core.
    let mut all = Vec::new();
    let mut i = 0;
    game.for_each_solved(&sol, |b, value| {
        if i % every == 0 {
            all.push((*b, value));
        }
        i += 1;
    });
    let positions = all.len() as u64;
    let proofs: u64 = all.par_iter().map(|(b, value)| {
        let (b, value) = (b, *value);
        let mut proofs = 0u64;
        let mut board = Board::new(w as usize, h as usize, k as usize).unwrap();
        for cell in 0..w * h {
            if b.x >> cell & 1 == 1 {
                board.place(cell as usize, Color::Black);
            } else if b.o >> cell & 1 == 1 {
                board.place(cell as usize, Color::White);
            }
        }
        // X is gomoku's black (the first player).
        let (mover, other) = if b.x_to_move() {
            (Color::Black, Color::White)
        } else {
            (Color::White, Color::Black)
        };
        let p = prove_win(&board, mover, Rules::Freestyle, budget);
        if p.proven {
            proofs += 1;
            let max_plies = 2 * p.attacker_moves as u16 - 1;
            assert!(
                matches!(value, Value::Win(d) if d <= max_plies),
                "{w}x{h} k={k}: search proves the side to move wins within {} stones, table says {value:?}: {}",
                p.attacker_moves,
                retro::present::GameText::position_text(&game, b)
            );
        }
        let q = prove_win_defender_to_move(
            &board,
            other,
            Rules::Freestyle,
            budget,
            SearchConfig::default(),
        );
        if q.proven {
            proofs += 1;
            let max_plies = 2 * q.attacker_moves as u16;
            assert!(
                matches!(value, Value::Loss(d) if d <= max_plies),
                "{w}x{h} k={k}: search proves the side to move loses within {} opposing stones, table says {value:?}: {}",
                q.attacker_moves,
                retro::present::GameText::position_text(&game, b)
            );
        }
        proofs
    }).sum();
    (positions, proofs)
}

#[test]
fn threat_search_never_contradicts_the_tables() {
    // (w, h, k, every): the large tables are sampled, every 2nd or 4th position in the
    // table's order, still 290,000 to 430,000 positions each with at least 80,000 proofs:
    // every position was 29 s of CPU, 20 s of it the 1.2 million of 4x4 k=4, most of whose
    // searches fail (a drawn game) and check nothing.
    let boards = [
        (3, 3, 3, 1),
        (3, 4, 3, 1),
        (4, 3, 3, 1),
        (4, 4, 3, 2),
        (4, 4, 4, 4),
        (5, 3, 3, 2),
        (5, 3, 4, 2),
    ];
    let results: Vec<(u64, u64)> = std::thread::scope(|s| {
        let runs: Vec<_> = boards
            .iter()
            .map(|&(w, h, k, every)| s.spawn(move || referee(w, h, k, every)))
            .collect();
        runs.into_iter().map(|t| t.join().unwrap()).collect()
    });
    for (&(w, h, k, _), &(positions, proofs)) in boards.iter().zip(&results) {
        eprintln!("{w}x{h} k={k}: {positions} positions, {proofs} proofs checked");
        // The check has teeth: the search proves something in a good share of positions.
        assert!(positions > 700, "{w}x{h} k={k}: {positions} positions");
        assert!(
            proofs * 10 > positions,
            "{w}x{h} k={k}: only {proofs} proofs in {positions} positions"
        );
    }
}

/// Runs the proof search (black = X attacking) on every position of the `w` x `h`, k table,
/// `pns.rs`'s or, with `dag`, `retro gomoku solve`'s; returns (positions, proofs checked).
fn referee_proof_search(w: u32, h: u32, k: u32, dag: bool) -> (u64, u64) {
    let game = Mnk::new(w, h, k).unwrap();
    let sol = game.solve(&SolveOptions { progress: &Silent }).unwrap();
    let (mut positions, mut proofs) = (0u64, 0u64);
    game.for_each_solved(&sol, |b, value| {
        positions += 1;
        let mut board = Board::new(w as usize, h as usize, k as usize).unwrap();
        for cell in 0..w * h {
            if b.x >> cell & 1 == 1 {
                board.place(cell as usize, Color::Black);
            } else if b.o >> cell & 1 == 1 {
                board.place(cell as usize, Color::White);
            }
        }
        if board.has_five(Color::Black, Rules::Freestyle)
            || board.has_five(Color::White, Rules::Freestyle)
        {
            return;
        }
        // No artificial limit: more X moves than the board holds.
        let cfg = ProveConfig {
            width: 16,
            node_limit: 300,
            ..ProveConfig::new(Rules::Freestyle, board.count(Color::Black) + w * h)
        };
        let x_to_move = b.x_to_move();
        let by_stone = if dag {
            let scfg = SolveConfig {
                width: cfg.width,
                node_limit: cfg.node_limit,
                ..SolveConfig::new(Rules::Freestyle, cfg.max_moves)
            };
            let mut s = Solver::new(&board, x_to_move, scfg);
            s.run(None);
            s.by_stone()
        } else {
            let r = proof_search(&board, Color::Black, x_to_move, cfg);
            r.proven.then_some(r.by_stone)
        };
        if let Some(by_stone) = by_stone {
            proofs += 1;
            // Plies from here to X's winning stone, in the worst case.
            let plies = (by_stone - board.stones()) as u16;
            let ok = if x_to_move {
                matches!(value, Value::Win(d) if d <= plies)
            } else {
                matches!(value, Value::Loss(d) if d <= plies)
            };
            assert!(
                ok,
                "{w}x{h} k={k}: the proof search claims X's row within {plies} plies, the table says {value:?}: {}",
                retro::present::GameText::position_text(&game, b)
            );
        }
    });
    (positions, proofs)
}

#[test]
fn proof_search_never_contradicts_the_tables() {
    for (w, h, k) in [(3, 3, 3), (3, 4, 3), (4, 3, 3), (4, 4, 3)] {
        let (positions, proofs) = referee_proof_search(w, h, k, false);
        eprintln!("{w}x{h} k={k}: {positions} positions, {proofs} proof-search proofs checked");
        assert!(positions > 700, "{w}x{h} k={k}: {positions} positions");
        assert!(proofs > 0, "{w}x{h} k={k}: nothing proven, nothing checked");
    }
}

/// The same referee for `retro gomoku solve`'s DAG search.
#[test]
fn solve_never_contradicts_the_tables() {
    for (w, h, k) in [(3, 3, 3), (3, 4, 3), (4, 3, 3), (4, 4, 3)] {
        let (positions, proofs) = referee_proof_search(w, h, k, true);
        eprintln!("{w}x{h} k={k}: {positions} positions, {proofs} solve proofs checked");
        assert!(positions > 700, "{w}x{h} k={k}: {positions} positions");
        assert!(proofs > 0, "{w}x{h} k={k}: nothing proven, nothing checked");
    }
}

/// A complete strategy for X (gomoku's black) read off the table: at each X turn the table's
/// best move, after it every O reply listed, until X's row.
fn export(game: &Mnk, table: &Table, b: retro::mnk::Board) -> BlackNode {
    let best = retro::probe::probe(game, table, &b)
        .best
        .expect("X wins here");
    let cell = best as u32 - 1;
    let after_x = retro::mnk::Board {
        x: b.x | 1 << cell,
        o: b.o,
    };
    let after = if game.terminal(&after_x).is_some() {
        AfterBlack::Leaf(1)
    } else {
        let free = (0..game.geometry().cells).filter(|&c| (after_x.x | after_x.o) >> c & 1 == 0);
        AfterBlack::White(WhiteNode {
            replies: free
                .map(|c| {
                    let next = retro::mnk::Board {
                        x: after_x.x,
                        o: after_x.o | 1 << c,
                    };
                    (
                        c as u16,
                        AfterWhite::Black(Box::new(export(game, table, next))),
                    )
                })
                .collect(),
        })
    };
    BlackNode {
        mv: cell as u16,
        after,
    }
}

/// The exported strategy of a table where X wins from the empty board, and its length in
/// X moves.
fn exported(w: u32, h: u32, k: u32) -> (Strategy, u32, Mnk, tempfile::TempDir) {
    let game = Mnk::new(w, h, k).unwrap();
    let sol = game.solve(&SolveOptions { progress: &Silent }).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write_solution(&game, dir.path(), &sol).unwrap();
    let table = Table::open(&path).unwrap();
    let Value::Win(plies) = game.value(&table, &retro::mnk::Board::default()) else {
        panic!("X wins {w}x{h} k={k}")
    };
    let root = export(&game, &table, retro::mnk::Board::default());
    let strategy = Strategy {
        start: Board::new(w as usize, h as usize, k as usize).unwrap(),
        rules: Some(Rules::Freestyle),
        max_moves: Some(plies.div_ceil(2) as u32),
        root,
        seed_format: false,
    };
    (strategy, plies.div_ceil(2) as u32, game, dir)
}

/// The validator with its proof search (small limits: these boards are tiny), so the
/// checks below also hold the proof search to the tables' exact distances.
fn options(max_moves: u32) -> Options {
    let mut o = Options::new(Rules::Freestyle, max_moves);
    if let Some(p) = o.proof.as_mut() {
        p.node_limit = 2_000;
        p.time_limit = std::time::Duration::from_secs(5);
    }
    o
}

#[test]
fn strategies_exported_from_tables_validate() {
    for (w, h, k) in [(3, 4, 3), (4, 3, 3), (4, 4, 3)] {
        let (strategy, moves, _, _dir) = exported(w, h, k);
        let report = validate(&strategy, &options(moves));
        assert!(
            report.failures.is_empty(),
            "{w}x{h} k={k}: {:?}",
            report.failures.first().map(|f| &f.path)
        );
        assert!(report.black_moves > 10, "{w}x{h} k={k}: a real tree");
        // One black move fewer is not enough: the table's distances are exact.
        let short = validate(&strategy, &options(moves - 1));
        assert!(
            !short.failures.is_empty(),
            "{w}x{h} k={k} in {} moves",
            moves - 1
        );
    }
}

#[test]
fn a_changed_black_move_fails_at_that_node() {
    let (mut strategy, moves, game, dir) = exported(4, 4, 3);
    let table = Table::open(&dir.path().join("mnk-4x4-3.rtb")).unwrap();
    // X's second move, after O's first listed reply: replace it by a move that, by the table,
    // does not win within the limit.
    let root_cell = strategy.root.mv;
    let AfterBlack::White(white) = &mut strategy.root.after else {
        panic!("the game goes on after X's first move")
    };
    let (reply, AfterWhite::Black(node)) = &mut white.replies[0] else {
        panic!("X moves after O's reply")
    };
    let reply = *reply;
    let before = retro::mnk::Board {
        x: 1 << root_cell,
        o: 1 << reply,
    };
    let limit = 2 * (moves - 1) as u16 - 1;
    let bad = (0..16u16)
        .filter(|&c| (before.x | before.o) >> c & 1 == 0)
        .find(|&c| {
            let after = retro::mnk::Board {
                x: before.x | 1 << c,
                o: before.o,
            };
            !matches!(game.value(&table, &after).back(), Value::Win(p) if p <= limit)
        })
        .expect("some move of X does not win in time");
    assert_ne!(bad, node.mv);
    node.mv = bad;
    let report = validate(&strategy, &options(moves));
    let first = report.failures.first().expect("the changed strategy fails");
    assert_eq!(
        first.path[..3],
        [root_cell, reply, bad],
        "fails at the changed node"
    );
}
