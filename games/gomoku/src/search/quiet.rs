//! Quiet candidate moves for the proof search: the attacker's moves worth trying when no
//! threat sequence wins. Which moves are tried never affects soundness (a proof still needs
//! an argument for every defender reply); it only decides what the search can find.

use crate::rules::board::{Board, Color, Rules};
use crate::rules::lines::{four_makers, low_mask, three_makers, win_cells};

/// Weight of a `k`-window holding `n` stones of one colour and none of the other: a window
/// one stone short of a row is worth far more than several emptier ones.
const WEIGHT: [u32; 6] = [0, 1, 6, 40, 300, 2000];

/// Cells of `c` on lines of `board`, as (line, position, line length) of one cell.
fn lines_of(board: &Board, cell: usize) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
    let geo = board.geometry();
    geo.cell_lines[cell].iter().filter_map(move |&(l, p)| {
        let len = geo.lines[l as usize].cells.len();
        (len >= board.k()).then_some((l as usize, p as usize, len))
    })
}

fn own_opp(board: &Board, l: usize, c: Color) -> (u32, u32) {
    let [b, w] = board.plane(l);
    if c == Color::Black {
        (b, w)
    } else {
        (w, b)
    }
}

/// How much a stone of `c` on the empty `cell` adds to `c`'s open windows: the sum over the
/// `k`-windows through `cell` with no stone of the other colour of the weight of the window
/// after the stone.
pub fn potential(board: &Board, cell: usize, c: Color) -> u32 {
    let k = board.k();
    let mut score = 0;
    for (l, p, len) in lines_of(board, cell) {
        let (own, opp) = own_opp(board, l, c);
        let lo = p.saturating_sub(k - 1);
        let hi = p.min(len - k);
        for s in lo..=hi {
            let m = low_mask(k) << s;
            if opp & m != 0 {
                continue;
            }
            let n = ((own & m).count_ones() as usize + 1).min(WEIGHT.len() - 1);
            score += WEIGHT[n];
        }
    }
    score
}

/// Winning cells `c` has on the board.
pub fn winning_cells(board: &Board, c: Color, rules: Rules) -> Vec<usize> {
    cells_where(board, c, |own, opp, len| {
        win_cells(own, opp, len, board.k(), rules)
    })
}

/// Empty cells where a stone of `c` makes a winning cell (fours, and the blocks of the
/// other colour's threes when `c` is the defender of them).
pub fn four_cells(board: &Board, c: Color, rules: Rules) -> Vec<usize> {
    cells_where(board, c, |own, opp, len| {
        four_makers(own, opp, len, board.k(), rules)
    })
}

/// Empty cells of `k`-windows holding `k - 3` stones of `c` and nothing else: where a stone
/// of `c` can make a new four-maker.
pub fn three_cells(board: &Board, c: Color, rules: Rules) -> Vec<usize> {
    cells_where(board, c, |own, opp, len| {
        three_makers(own, opp, len, board.k(), rules)
    })
}

fn cells_where(board: &Board, c: Color, f: impl Fn(u32, u32, usize) -> u32) -> Vec<usize> {
    let geo = board.geometry();
    let mut seen = vec![false; board.cells()];
    let mut out = Vec::new();
    for (l, info) in geo.lines.iter().enumerate() {
        if info.cells.len() < board.k() {
            continue;
        }
        let (own, opp) = own_opp(board, l, c);
        let mut m = f(own, opp, info.cells.len());
        while m != 0 {
            let p = m.trailing_zeros() as usize;
            m &= m - 1;
            let cell = info.cells[p] as usize;
            if !seen[cell] {
                seen[cell] = true;
                out.push(cell);
            }
        }
    }
    out.sort_unstable();
    out
}

/// Whether `c`, with no winning cell now, has a move making two or more winning cells (an
/// open four or a double four next move: what an open three threatens).
pub fn has_double_move(board: &mut Board, c: Color, rules: Rules) -> bool {
    for m in four_cells(board, c, rules) {
        board.place(m, c);
        let n: u32 = lines_of(board, m)
            .map(|(l, _, len)| {
                let (own, opp) = own_opp(board, l, c);
                win_cells(own, opp, len, board.k(), rules).count_ones()
            })
            .sum();
        board.remove(m, c);
        if n >= 2 {
            return true;
        }
    }
    false
}

/// The attacker's candidate moves on `board` (attacker to move, no winning row on the
/// board, no winning cell for either side), best first, at most `width` of them plus every
/// block of a defender three:
///
/// * if the defender threatens an open four or double four next move (it has a double
///   move), only the attacker's fours and the cells that block defender threes are tried:
///   any other quiet move lets the defender make a four-threat the attacker must answer;
/// * otherwise the cells within two steps of a stone, ordered by attack potential (twice
///   the attacker's [`potential`]) plus defence (the defender's), the best `width` that are
///   neither fours nor threes (the threat search's own moves), and all blocks of defender
///   threes.
pub fn candidates(board: &mut Board, attacker: Color, rules: Rules, width: usize) -> Vec<usize> {
    let def = attacker.other();
    let blocks = four_cells(board, def, rules);
    let own_fours = four_cells(board, attacker, rules);
    let score = |b: &Board, c: usize| 2 * potential(b, c, attacker) + potential(b, c, def);
    if has_double_move(board, def, rules) {
        let mut out: Vec<usize> = blocks.clone();
        out.extend(own_fours.iter().filter(|c| !blocks.contains(c)));
        out.sort_by_key(|&c| std::cmp::Reverse(score(board, c)));
        return out;
    }
    let (w, h) = (board.width() as i64, board.height() as i64);
    let mut near = vec![false; board.cells()];
    let mut any = false;
    for c in 0..board.cells() {
        if board.is_empty(c) {
            continue;
        }
        any = true;
        let (x, y) = board.xy(c);
        for dy in -2i64..=2 {
            for dx in -2i64..=2 {
                let (nx, ny) = (x as i64 + dx, y as i64 + dy);
                if nx >= 0 && ny >= 0 && nx < w && ny < h {
                    near[board.cell(nx as usize, ny as usize)] = true;
                }
            }
        }
    }
    if !any {
        // The empty board: the centre.
        return vec![board.cell(board.width() / 2, board.height() / 2)];
    }
    let mut scored: Vec<(u32, usize)> = (0..board.cells())
        .filter(|&c| near[c] && board.is_empty(c))
        .map(|c| (score(board, c), c))
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    // Fours and threes are the threat search's moves, tried at every leaf already; a quiet
    // node spends its width on the moves the threat search never plays.
    let mut out: Vec<usize> = Vec::new();
    for &(_, c) in &scored {
        if out.len() >= width {
            break;
        }
        if own_fours.contains(&c) {
            continue;
        }
        board.place(c, attacker);
        let three = has_double_move(board, attacker, rules);
        board.remove(c, attacker);
        if !three {
            out.push(c);
        }
    }
    for c in blocks {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(black: &str, white: &str) -> Board {
        let mut b = Board::gomoku();
        for (list, c) in [(black, Color::Black), (white, Color::White)] {
            for n in list.split_whitespace() {
                let cell = b.parse_cell(n).expect("cell");
                b.place(cell, c);
            }
        }
        b
    }

    #[test]
    fn open_three_of_the_defender_restricts_the_candidates() {
        // White's f10 g10 h10 is an open three: black may only block it or make a four.
        let mut b = board("h8 i9", "f10 g10 h10");
        let c = candidates(&mut b, Color::Black, Rules::Standard, 10);
        let names: Vec<String> = c.iter().map(|&x| b.cell_name(x)).collect();
        for must in ["e10", "i10"] {
            assert!(names.contains(&must.to_string()), "{names:?}");
        }
        assert!(!names.contains(&"h9".to_string()), "{names:?}");
    }

    #[test]
    fn quiet_candidates_are_near_the_stones_and_scored() {
        let mut b = board("h8", "h9");
        let c = candidates(&mut b, Color::Black, Rules::Standard, 8);
        assert_eq!(c.len(), 8);
        for &x in &c {
            let (cx, cy) = b.xy(x);
            assert!(
                cx.abs_diff(7) <= 2 && cy.abs_diff(7) <= 2,
                "{}",
                b.cell_name(x)
            );
        }
        // A cell next to black's stone away from white beats a far corner of the area.
        assert!(potential(&b, b.parse_cell("g7").expect("cell"), Color::Black) > 0);
    }
}
