//! Board strings (`x.../.o../....`: rows from top to bottom separated by `/`, cells `x`,
//! `o`, `.`) and cell names (`a1`: column letter from the left, row number from the bottom).

use super::board::{Board, Geometry};
use retro_engine::game::PositionError;

/// Read a board string (upper-case `X` and `O` are accepted; spaces around it ignored).
/// Only the shape and the characters are checked here, not legality.
pub fn parse_board(g: &Geometry, text: &str) -> Result<Board, PositionError> {
    let bad = |s: String| PositionError::Malformed(s);
    let rows: Vec<&str> = text.trim().split('/').collect();
    if rows.len() != g.height as usize {
        return Err(bad(format!(
            "'{}' has {} rows; a {}x{} board has {} rows of {} cells, top row first, separated by '/' (e.g. {})",
            text.trim(),
            rows.len(),
            g.width,
            g.height,
            g.height,
            g.width,
            example(g)
        )));
    }
    let mut b = Board::default();
    for (i, row) in rows.iter().enumerate() {
        let r = g.height - 1 - i as u32;
        let n = row.chars().count();
        if n != g.width as usize {
            return Err(bad(format!(
                "row {} from the top ('{row}') has {n} cells; expected {}",
                i + 1,
                g.width
            )));
        }
        for (c, ch) in row.chars().enumerate() {
            let bit = 1u32 << (r * g.width + c as u32);
            match ch {
                'x' | 'X' => b.x |= bit,
                'o' | 'O' => b.o |= bit,
                '.' => {}
                _ => {
                    return Err(bad(format!(
                        "unexpected character '{ch}' in row {} from the top: cells are x, o or .",
                        i + 1
                    )))
                }
            }
        }
    }
    Ok(b)
}

/// The empty board's string, as an example.
fn example(g: &Geometry) -> String {
    board_text(g, &Board::default())
}

/// The board string of `b` (lower case).
pub fn board_text(g: &Geometry, b: &Board) -> String {
    let mut s = String::with_capacity((g.cells + g.height) as usize);
    for r in (0..g.height).rev() {
        if r + 1 != g.height {
            s.push('/');
        }
        for c in 0..g.width {
            s.push(cell_char(b, r * g.width + c));
        }
    }
    s
}

fn cell_char(b: &Board, cell: u32) -> char {
    if b.x >> cell & 1 == 1 {
        'x'
    } else if b.o >> cell & 1 == 1 {
        'o'
    } else {
        '.'
    }
}

/// The board drawn for people, with row numbers and column letters.
pub fn board_picture(g: &Geometry, b: &Board) -> String {
    let mut s = String::new();
    let wide = g.height >= 10;
    for r in (0..g.height).rev() {
        if wide {
            s.push_str(&format!("{:>2} ", r + 1));
        } else {
            s.push_str(&format!("{} ", r + 1));
        }
        let cells: Vec<String> = (0..g.width)
            .map(|c| cell_char(b, r * g.width + c).to_string())
            .collect();
        s.push_str(&cells.join(" "));
        s.push('\n');
    }
    s.push_str(if wide { "   " } else { "  " });
    let letters: Vec<String> = (0..g.width)
        .map(|c| ((b'a' + c as u8) as char).to_string())
        .collect();
    s.push_str(&letters.join(" "));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_orientation() {
        let g = Geometry::new(4, 3, 3);
        let b = parse_board(&g, " X.../.o../...x ").unwrap();
        // a3 is x, b2 is o, d1 is x.
        assert_eq!(b.x, 1 << 8 | 1 << 3);
        assert_eq!(b.o, 1 << 5);
        assert_eq!(board_text(&g, &b), "x.../.o../...x");
        assert_eq!(
            board_picture(&g, &b),
            "3 x . . .\n2 . o . .\n1 . . . x\n  a b c d"
        );
    }

    #[test]
    fn malformed() {
        let g = Geometry::new(3, 3, 3);
        for s in [
            "",
            "..../.../...",
            ".../...",
            ".../.../..z",
            ".../.../.../...",
        ] {
            assert!(
                matches!(parse_board(&g, s), Err(PositionError::Malformed(_))),
                "{s}"
            );
        }
    }
}
