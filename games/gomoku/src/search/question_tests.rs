//! What the proof searches' tests share (`pns_tests.rs`, `solve_tests.rs`): random
//! small-board questions answered by exhaustive minimax, and the check of a claimed proof
//! against that answer.

use crate::rules::board::{Board, Color, Rules};
use crate::rules::brute::Exhaustive;
use crate::rules::random::{random_position, Rng};

/// A random position and its limit, with minimax's answer.
pub(crate) struct Question {
    pub(crate) board: Board,
    pub(crate) rules: Rules,
    pub(crate) black_to_move: bool,
    /// Black's winning stone must be on or before black's move `max_moves`.
    pub(crate) max_moves: u32,
    /// Black stones still allowed.
    pub(crate) budget: u32,
    /// Black wins within the limit (minimax).
    pub(crate) truth: bool,
    ex: Exhaustive,
}

/// The `i`-th random question on `w` x `h`, k: standard rules for even `i`, freestyle for
/// odd; up to a third of the board filled (an even count: black to move); a limit 1 to
/// `extra` black moves away. `None` when the random position already has a row.
pub(crate) fn random_question(
    rng: &mut Rng,
    i: usize,
    (w, h, k): (usize, usize, usize),
    extra: usize,
) -> Option<Question> {
    let rules = if i % 2 == 0 {
        Rules::Standard
    } else {
        Rules::Freestyle
    };
    let stones = 1 + rng.below(w * h / 3);
    let mut board = random_position(rng, w, h, k, stones, rules)?;
    let black_to_move = stones % 2 == 0;
    let blacks = board.count(Color::Black);
    let max_moves = blacks + 1 + rng.below(extra) as u32;
    let budget = max_moves - blacks;
    let mut ex = Exhaustive::new(Color::Black, rules);
    let truth = if black_to_move {
        ex.wins(&mut board, budget)
    } else {
        ex.wins_defender_to_move(&mut board, budget)
    };
    Some(Question {
        board,
        rules,
        black_to_move,
        max_moves,
        budget,
        truth,
        ex,
    })
}

impl Question {
    /// Panics unless a proof claiming black's five by stone `by_stone` holds: black wins
    /// (minimax), within the limit, and by that stone.
    pub(crate) fn check_claim(&mut self, by_stone: u32) {
        let (b, rules, black_to_move) = (&mut self.board, self.rules, self.black_to_move);
        assert!(
            self.truth,
            "unsound proof ({rules}, black to move {black_to_move}, limit {}):{b:?}",
            self.max_moves
        );
        // The claimed stone must be an upper bound on black's winning stone.
        let s = b.stones();
        assert!(by_stone > s, "{b:?}");
        let moves = if black_to_move {
            (by_stone - s).div_ceil(2)
        } else {
            (by_stone - s) / 2
        };
        assert!(
            moves <= self.budget,
            "stone {by_stone} beyond the limit:{b:?}"
        );
        let confirmed = if black_to_move {
            self.ex.wins(b, moves)
        } else {
            self.ex.wins_defender_to_move(b, moves)
        };
        assert!(confirmed, "black does not win by stone {by_stone}:{b:?}");
    }
}
