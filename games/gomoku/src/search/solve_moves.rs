//! Black's candidate moves at a node of `retro gomoku solve`.
//!
//! The proof search of `prove` (`quiet::candidates`) leaves black's fours and threes to the
//! threat search at its leaves. But a winning line often starts with a three that the
//! threat search cannot finish on its own (a quiet move follows white's block): the
//! published strategy's `h8 i9 g9 i7 g10 h7 i10 g7 j7 h10 g11 g12 f10 h11 f11 h9` is won by
//! the three f13, which no quiet candidate list contains. So `solve` also tries black's
//! threes, and at its first move fours, as graph moves. They are cheap nodes: after a four
//! white has one reply, after a three the pass proof's zone holds few replies. Which moves
//! are tried never affects soundness, only what can be found.

use crate::rules::board::{Board, Color, Rules};

use super::quiet::{candidates, four_cells, has_double_move, three_cells};

/// Black's moves worth a node: the quiet candidates of `quiet::candidates` (at most
/// `width`, plus every block of a white three), then black's threes (cells after which
/// black has a double move) and, with `with_fours`, black's fours not among them. When
/// white threatens an open four next move, `quiet::candidates` already keeps only blocks
/// and black's fours.
///
/// The solver passes `with_fours` only for black's first move of the search. A four is worth
/// a node there for the quiet move or three it prepares (the ladder's `h8 h9 g9 f10 i8 j8
/// g7 g6 e7 f6 f8 d6 e6 e9 f7 d7`: proven in 0.5 s with them, not in 60 s without). Deeper,
/// a four and white's forced block make a copy of the position with two stones more, whose
/// every quiet candidate is searched again, and the proof numbers hardly tell the copies
/// from the original (a four's white node has one reply, so its number stays that of the
/// position after it). Measured on the ladder's `h8 i9 g9 i7 g10 i10 i8 g8 h9 f11 h10 h11
/// i11 f8` (2 cores, 150 s): with fours at every node (none right after a four), the six
/// fours' subtrees held most of the 52,798 graph nodes and the winning `k8` had 1,478, not
/// proven; with no four below the first move, the stone-12 node above it is proven in
/// 313 s. Chains of fours stay the threat search's own work at every node.
pub fn solve_candidates(
    board: &mut Board,
    rules: Rules,
    width: usize,
    with_fours: bool,
) -> Vec<usize> {
    let mut out = candidates(board, Color::Black, rules, width);
    if has_double_move(board, Color::White, rules) {
        return out;
    }
    let fours = four_cells(board, Color::Black, rules);
    let mut threes = Vec::new();
    for c in three_cells(board, Color::Black, rules) {
        if fours.contains(&c) || out.contains(&c) {
            continue;
        }
        board.place(c, Color::Black);
        let three = has_double_move(board, Color::Black, rules);
        board.remove(c, Color::Black);
        if three {
            threes.push(c);
        }
    }
    out.extend(threes);
    if !with_fours {
        return out;
    }
    out.extend(
        fours
            .into_iter()
            .filter(|c| !out.contains(c))
            .collect::<Vec<_>>(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fours_are_graph_moves_unless_the_solver_leaves_them_out() {
        // Black's h8 i8 j8 (white far away): g8, k8, f8 and l8 each make a four.
        let mut b = Board::gomoku();
        for n in ["h8", "i8", "j8"] {
            b.place(b.parse_cell(n).expect("cell"), Color::Black);
        }
        for n in ["a1", "o15", "a15"] {
            b.place(b.parse_cell(n).expect("cell"), Color::White);
        }
        let fours = four_cells(&b, Color::Black, Rules::Standard);
        assert!(fours.len() >= 2, "{fours:?}");
        let with = solve_candidates(&mut b, Rules::Standard, 12, true);
        let without = solve_candidates(&mut b, Rules::Standard, 12, false);
        for f in &fours {
            assert!(with.contains(f), "{} missing", b.cell_name(*f));
            assert!(!without.contains(f), "{} kept", b.cell_name(*f));
        }
        // Everything else stays.
        assert_eq!(
            with.iter()
                .filter(|c| !fours.contains(c))
                .collect::<Vec<_>>(),
            without.iter().collect::<Vec<_>>()
        );
    }
}
