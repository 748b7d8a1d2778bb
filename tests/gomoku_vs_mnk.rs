//! The gomoku threat search is generic in board size and k, so the exact k-in-a-row tables
//! can referee it: over every position of each table (freestyle rules: k or more wins), the
//! search must never prove a win the table denies, nor a faster one than the table allows.

use retro::game::{Game, SolveOptions, Value};
use retro::gomoku::threat::prove_win_defender_to_move;
use retro::gomoku::{prove_win, Board, Color, Rules, SearchConfig};
use retro::mnk::Mnk;
use retro::progress::Silent;

/// Checks every position of the `w` x `h`, k table; returns (positions, proofs checked).
fn referee(w: u32, h: u32, k: u32) -> (u64, u64) {
    let game = Mnk::new(w, h, k).unwrap();
    let sol = game.solve(&SolveOptions { progress: &Silent }).unwrap();
    let budget = w * h; // more stones than the board holds: no artificial limit
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
                retro::game::GameText::position_text(&game, b)
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
                retro::game::GameText::position_text(&game, b)
            );
        }
    });
    (positions, proofs)
}

#[test]
fn threat_search_never_contradicts_the_tables() {
    let boards = [
        (3, 3, 3),
        (3, 4, 3),
        (4, 3, 3),
        (4, 4, 3),
        (4, 4, 4),
        (5, 3, 3),
        (5, 3, 4),
    ];
    let results: Vec<(u64, u64)> = std::thread::scope(|s| {
        let runs: Vec<_> = boards
            .iter()
            .map(|&(w, h, k)| s.spawn(move || referee(w, h, k)))
            .collect();
        runs.into_iter().map(|t| t.join().unwrap()).collect()
    });
    for (&(w, h, k), &(positions, proofs)) in boards.iter().zip(&results) {
        eprintln!("{w}x{h} k={k}: {positions} positions, {proofs} proofs checked");
        // The check has teeth: the search proves something in a good share of positions.
        assert!(positions > 700, "{w}x{h} k={k}: {positions} positions");
        assert!(
            proofs * 10 > positions,
            "{w}x{h} k={k}: only {proofs} proofs in {positions} positions"
        );
    }
}
