//! Black's first move of a threat proof found at a black-to-move node: the threat search
//! answers "proven within m stones" without naming its first move, and a strategy file
//! needs that move (`retro gomoku prove --out`, `retro gomoku solve`).

use crate::rules::board::{Board, Color, Rules};

use super::quiet::{four_cells, has_double_move, three_cells, winning_cells};
use super::threat::{prove_win_defender_to_move, SearchConfig};

/// The first of the threat search's own move kinds after which `attacker` wins against
/// every reply within the rest of `budget` (its stones still allowed, this move included):
/// `(move, m)` with `m` the attacker's stones needed after it (0 when the move makes five).
/// Those kinds are, as in the search: a five if the attacker has one; else, when the
/// defender threatens five, the blocks, the attacker's only moves; else fours, threes and
/// the other cells of windows with `k - 3` attacker stones. `None` when none of them is
/// proven (the caller then has no move to write).
pub fn first_threat_move(
    board: &Board,
    attacker: Color,
    rules: Rules,
    budget: u32,
    cfg: SearchConfig,
) -> Option<(u16, u32)> {
    let mut b = board.clone();
    if let Some(&c) = winning_cells(&b, attacker, rules).first() {
        return Some((c as u16, 0));
    }
    let blocks = winning_cells(&b, attacker.other(), rules);
    let candidates: Vec<usize> = if !blocks.is_empty() {
        // A threat proof can start with a forced block (it then threatens as it blocks):
        // no other move survives the defender's five.
        blocks
    } else {
        let fours = four_cells(&b, attacker, rules);
        let mut threes = Vec::new();
        let mut others = Vec::new();
        for c in three_cells(&b, attacker, rules) {
            if fours.contains(&c) {
                continue;
            }
            b.place(c, attacker);
            let three = has_double_move(&mut b, attacker, rules);
            b.remove(c, attacker);
            if three {
                threes.push(c);
            } else {
                others.push(c);
            }
        }
        fours.into_iter().chain(threes).chain(others).collect()
    };
    for c in candidates {
        b.place(c, attacker);
        let five = b.five_through(c, attacker, rules);
        let p = if five {
            None
        } else {
            let p = prove_win_defender_to_move(&b, attacker, rules, budget.saturating_sub(1), cfg);
            p.proven.then_some(p.attacker_moves)
        };
        b.remove(c, attacker);
        if five {
            return Some((c as u16, 0));
        }
        if let Some(m) = p {
            return Some((c as u16, m));
        }
    }
    None
}
