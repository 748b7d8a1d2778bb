//! The board: stones held as bit lines (2 bits per cell, see [`super::lines`]) plus
//! bitboards for exact position keys.
//!
//! Generic in width, height (each at most 16) and `k` (the length of a winning row), so the
//! same code serves 15x15 gomoku and small k-in-a-row boards.

use std::fmt;
use std::sync::Arc;

pub use super::lines::Rules;
use super::lines::{has_five, MAX_LINE};

/// Most cells a board may have (16 x 16).
pub const MAX_CELLS: usize = MAX_LINE * MAX_LINE;

/// A stone colour. Black moves first.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Color {
    /// The first player.
    Black,
    /// The second player.
    White,
}

impl Color {
    /// The other colour.
    #[inline]
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
    #[inline]
    pub(crate) fn idx(self) -> usize {
        match self {
            Color::Black => 0,
            Color::White => 1,
        }
    }
}

/// Errors about boards and coordinates.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BoardError {
    /// Width, height or `k` out of range.
    #[error("unsupported board {width}x{height} with k={k} (sides 1..=16, 2 <= k <= max side)")]
    BadSize {
        /// Requested width.
        width: usize,
        /// Requested height.
        height: usize,
        /// Requested k.
        k: usize,
    },
    /// A coordinate that does not parse or lies off the board.
    #[error("bad cell name {0:?} (expected a column letter and a row number, like h8)")]
    BadCell(String),
}

/// One line of the board: direction and cells.
#[derive(Debug, Clone)]
pub struct LineInfo {
    /// Cells of the line in order.
    pub cells: Vec<u16>,
}

/// The fixed geometry of a board size: which lines pass through which cell.
#[derive(Debug)]
pub struct Geometry {
    /// Columns.
    pub width: usize,
    /// Rows.
    pub height: usize,
    /// Length of a winning row.
    pub k: usize,
    /// All lines (rows, columns, diagonals, anti-diagonals), including those shorter than k.
    pub lines: Vec<LineInfo>,
    /// For each cell and direction: (line index, position in line).
    pub cell_lines: Vec<[(u8, u8); 4]>,
    /// Zobrist keys per cell and colour.
    pub zobrist: Vec<[u64; 2]>,
}

/// Direction steps: horizontal, vertical, diagonal, anti-diagonal.
pub const DIRS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Geometry {
    fn new(width: usize, height: usize, k: usize) -> Geometry {
        let n = width * height;
        let mut lines = Vec::new();
        let mut cell_lines = vec![[(0u8, 0u8); 4]; n];
        for (d, &(dx, dy)) in DIRS.iter().enumerate() {
            for y in 0..height as i32 {
                for x in 0..width as i32 {
                    let (px, py) = (x - dx, y - dy);
                    let starts = px < 0 || py < 0 || px >= width as i32 || py >= height as i32;
                    if !starts {
                        continue;
                    }
                    let id = lines.len();
                    let mut cells = Vec::new();
                    let (mut cx, mut cy) = (x, y);
                    while cx >= 0 && cy >= 0 && cx < width as i32 && cy < height as i32 {
                        let c = cy as usize * width + cx as usize;
                        cell_lines[c][d] = (id as u8, cells.len() as u8);
                        cells.push(c as u16);
                        cx += dx;
                        cy += dy;
                    }
                    lines.push(LineInfo { cells });
                }
            }
        }
        let mut seed = 0x5EED_0F60_u64 ^ ((width as u64) << 32 | (height as u64) << 16 | k as u64);
        let zobrist = (0..n)
            .map(|_| [splitmix(&mut seed), splitmix(&mut seed)])
            .collect();
        Geometry {
            width,
            height,
            k,
            lines,
            cell_lines,
            zobrist,
        }
    }
}

/// Exact identity of a position: the black and white bitboards.
pub type Key = [[u64; 4]; 2];

/// A board with stones. Cloning is cheap apart from the line array.
#[derive(Clone)]
pub struct Board {
    geo: Arc<Geometry>,
    /// Per line: [black plane, white plane].
    planes: Vec<[u32; 2]>,
    bits: Key,
    counts: [u32; 2],
    hash: u64,
}

impl PartialEq for Board {
    fn eq(&self, other: &Board) -> bool {
        self.geo.width == other.geo.width
            && self.geo.height == other.geo.height
            && self.geo.k == other.geo.k
            && self.bits == other.bits
    }
}
impl Eq for Board {}

impl Board {
    /// An empty `width` x `height` board where `k` in a row wins.
    pub fn new(width: usize, height: usize, k: usize) -> Result<Board, BoardError> {
        if width == 0
            || height == 0
            || width > MAX_LINE
            || height > MAX_LINE
            || k < 2
            || k > width.max(height)
        {
            return Err(BoardError::BadSize { width, height, k });
        }
        let geo = Arc::new(Geometry::new(width, height, k));
        let planes = vec![[0u32; 2]; geo.lines.len()];
        Ok(Board {
            geo,
            planes,
            bits: [[0; 4]; 2],
            counts: [0; 2],
            hash: 0,
        })
    }

    /// The standard 15x15 gomoku board.
    pub fn gomoku() -> Board {
        match Board::new(15, 15, 5) {
            Ok(b) => b,
            Err(_) => unreachable!("15x15 k=5 is a valid size"),
        }
    }

    /// Geometry shared by all boards of this size.
    #[inline]
    pub fn geometry(&self) -> &Arc<Geometry> {
        &self.geo
    }
    /// Columns.
    #[inline]
    pub fn width(&self) -> usize {
        self.geo.width
    }
    /// Rows.
    #[inline]
    pub fn height(&self) -> usize {
        self.geo.height
    }
    /// Length of a winning row.
    #[inline]
    pub fn k(&self) -> usize {
        self.geo.k
    }
    /// Number of cells.
    #[inline]
    pub fn cells(&self) -> usize {
        self.geo.width * self.geo.height
    }
    /// Cell index of column `x` (0 = a) and row `y` (0 = row 1, the bottom).
    #[inline]
    pub fn cell(&self, x: usize, y: usize) -> usize {
        y * self.geo.width + x
    }
    /// (column, row) of a cell.
    #[inline]
    pub fn xy(&self, cell: usize) -> (usize, usize) {
        (cell % self.geo.width, cell / self.geo.width)
    }
    /// Stone on a cell.
    #[inline]
    pub fn get(&self, cell: usize) -> Option<Color> {
        let (w, b) = (cell / 64, 1u64 << (cell % 64));
        if self.bits[0][w] & b != 0 {
            Some(Color::Black)
        } else if self.bits[1][w] & b != 0 {
            Some(Color::White)
        } else {
            None
        }
    }
    /// Whether a cell is empty.
    #[inline]
    pub fn is_empty(&self, cell: usize) -> bool {
        let (w, b) = (cell / 64, 1u64 << (cell % 64));
        (self.bits[0][w] | self.bits[1][w]) & b == 0
    }
    /// Stones of one colour.
    #[inline]
    pub fn count(&self, c: Color) -> u32 {
        self.counts[c.idx()]
    }
    /// All stones.
    #[inline]
    pub fn stones(&self) -> u32 {
        self.counts[0] + self.counts[1]
    }
    /// Zobrist hash of the position.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }
    /// Exact key (bitboards).
    #[inline]
    pub fn key(&self) -> Key {
        self.bits
    }
    /// Line planes `[black, white]` of line `id`.
    #[inline]
    pub fn plane(&self, id: usize) -> [u32; 2] {
        self.planes[id]
    }
    /// Number of lines.
    #[inline]
    pub fn line_count(&self) -> usize {
        self.planes.len()
    }

    /// Puts a stone on an empty cell. The caller guarantees the cell is empty.
    #[inline]
    pub fn place(&mut self, cell: usize, c: Color) {
        debug_assert!(self.is_empty(cell));
        let ci = c.idx();
        self.bits[ci][cell / 64] |= 1 << (cell % 64);
        self.counts[ci] += 1;
        self.hash ^= self.geo.zobrist[cell][ci];
        for &(l, p) in &self.geo.cell_lines[cell] {
            self.planes[l as usize][ci] |= 1 << p;
        }
    }

    /// Removes the stone of colour `c` from `cell`.
    #[inline]
    pub fn remove(&mut self, cell: usize, c: Color) {
        debug_assert_eq!(self.get(cell), Some(c));
        let ci = c.idx();
        self.bits[ci][cell / 64] &= !(1 << (cell % 64));
        self.counts[ci] -= 1;
        self.hash ^= self.geo.zobrist[cell][ci];
        for &(l, p) in &self.geo.cell_lines[cell] {
            self.planes[l as usize][ci] &= !(1 << p);
        }
    }

    /// Whether colour `c` has a winning row on the board (exactly k under standard rules).
    pub fn has_five(&self, c: Color, rules: Rules) -> bool {
        let k = self.geo.k;
        self.geo
            .lines
            .iter()
            .zip(&self.planes)
            .any(|(l, p)| l.cells.len() >= k && has_five(p[c.idx()], l.cells.len(), k, rules))
    }

    /// Whether the stone on `cell` is part of a winning row of its colour.
    pub fn five_through(&self, cell: usize, c: Color, rules: Rules) -> bool {
        let k = self.geo.k;
        self.geo.cell_lines[cell].iter().any(|&(l, _)| {
            let len = self.geo.lines[l as usize].cells.len();
            len >= k && has_five(self.planes[l as usize][c.idx()], len, k, rules)
        })
    }

    /// Name of a cell: column letter from `a`, row number from 1 at the bottom.
    pub fn cell_name(&self, cell: usize) -> String {
        let (x, y) = self.xy(cell);
        format!("{}{}", (b'a' + x as u8) as char, y + 1)
    }

    /// Parses a cell name like `h8`.
    pub fn parse_cell(&self, s: &str) -> Result<usize, BoardError> {
        let bad = || BoardError::BadCell(s.to_string());
        let mut chars = s.chars();
        let col = chars.next().ok_or_else(bad)?.to_ascii_lowercase();
        if !col.is_ascii_lowercase() {
            return Err(bad());
        }
        let x = (col as u8 - b'a') as usize;
        let rest = chars.as_str();
        if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) || rest.len() > 2 {
            return Err(bad());
        }
        let y: usize = rest.parse().map_err(|_| bad())?;
        if x >= self.geo.width || y == 0 || y > self.geo.height {
            return Err(bad());
        }
        Ok(self.cell(x, y - 1))
    }

    /// A text diagram: `X` black, `O` white, `.` empty, row numbers at the left and column
    /// letters below; `mark` cells are shown in lower case / `*` (for the last moves).
    pub fn diagram(&self, marks: &[usize]) -> String {
        let mut s = String::new();
        for y in (0..self.height()).rev() {
            s.push_str(&format!("{:>3} ", y + 1));
            for x in 0..self.width() {
                let c = self.cell(x, y);
                let marked = marks.contains(&c);
                let ch = match (self.get(c), marked) {
                    (Some(Color::Black), false) => 'X',
                    (Some(Color::Black), true) => 'x',
                    (Some(Color::White), false) => 'O',
                    (Some(Color::White), true) => 'o',
                    (None, true) => '*',
                    (None, false) => '.',
                };
                s.push(ch);
                s.push(' ');
            }
            s.pop();
            s.push('\n');
        }
        s.push_str("    ");
        for x in 0..self.width() {
            s.push((b'a' + x as u8) as char);
            s.push(' ');
        }
        s.pop();
        s.push('\n');
        s
    }

    /// Builds a board from rows of text (top row first): `X`/`x` black, `O`/`o` white,
    /// anything else empty. Handy in tests.
    pub fn from_rows(rows: &[&str], k: usize) -> Result<Board, BoardError> {
        let height = rows.len();
        let width = rows
            .first()
            .map(|r| r.chars().filter(|c| !c.is_whitespace()).count())
            .unwrap_or(0);
        let mut b = Board::new(width, height, k)?;
        for (i, row) in rows.iter().enumerate() {
            let y = height - 1 - i;
            for (x, ch) in row.chars().filter(|c| !c.is_whitespace()).enumerate() {
                if x >= width {
                    return Err(BoardError::BadSize { width, height, k });
                }
                let c = b.cell(x, y);
                match ch {
                    'X' | 'x' => b.place(c, Color::Black),
                    'O' | 'o' => b.place(c, Color::White),
                    _ => {}
                }
            }
        }
        Ok(b)
    }
}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\n{}", self.diagram(&[]))
    }
}

/// Whether cells `a` and `b` lie in a common `k`-window (same line, distance below `k`).
pub fn share_window(board: &Board, a: usize, b: usize) -> bool {
    let (ax, ay) = board.xy(a);
    let (bx, by) = board.xy(b);
    let (dx, dy) = (ax.abs_diff(bx), ay.abs_diff(by));
    (dx == 0 || dy == 0 || dx == dy) && dx.max(dy) < board.k()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_roundtrip() {
        let b = Board::gomoku();
        assert_eq!(b.parse_cell("h8"), Ok(b.cell(7, 7)));
        assert_eq!(b.cell_name(b.cell(0, 14)), "a15");
        assert!(b.parse_cell("p1").is_err());
        assert!(b.parse_cell("a16").is_err());
        assert!(b.parse_cell("a0").is_err());
        assert!(b.parse_cell("").is_err());
        assert!(b.parse_cell("h").is_err());
        assert!(b.parse_cell("hh").is_err());
        assert!(b.parse_cell("h+1").is_err());
    }

    #[test]
    fn place_remove_and_five() {
        let mut b = Board::gomoku();
        for x in 2..7 {
            let c = b.cell(x, 3);
            b.place(c, Color::Black);
        }
        assert!(b.has_five(Color::Black, Rules::Standard));
        let c = b.cell(7, 3);
        b.place(c, Color::Black);
        assert!(!b.has_five(Color::Black, Rules::Standard));
        assert!(b.has_five(Color::Black, Rules::Freestyle));
        b.remove(c, Color::Black);
        assert!(b.has_five(Color::Black, Rules::Standard));
        assert_eq!(b.count(Color::Black), 5);
    }

    #[test]
    fn diagonals_cover_cells() {
        let b = Board::new(4, 3, 3).expect("size");
        // 3 rows + 4 columns + 6 diagonals + 6 anti-diagonals.
        assert_eq!(b.line_count(), 19);
        for c in 0..b.cells() {
            for (d, &(l, p)) in b.geometry().cell_lines[c].iter().enumerate() {
                assert_eq!(
                    b.geometry().lines[l as usize].cells[p as usize] as usize,
                    c,
                    "dir {d}"
                );
            }
        }
    }
}
