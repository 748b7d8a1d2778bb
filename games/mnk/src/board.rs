//! Bit boards, k-lines and the board's symmetries.

/// A position of k-in-a-row, in any orientation: the cells of each player as bit masks.
///
/// Cell `(col, row)`, counted from 0 from the left and from the bottom, is bit
/// `row * width + col`: `a1` (bottom-left) is bit 0, `b1` bit 1, `a2` bit `width`. X moves
/// first, so X is to move when both players have as many stones. Bits at or above
/// `width * height` are never set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Board {
    /// X's stones.
    pub x: u32,
    /// O's stones.
    pub o: u32,
}

impl Board {
    /// True when X is to move (as many X stones as O stones).
    pub fn x_to_move(&self) -> bool {
        self.x.count_ones() == self.o.count_ones()
    }

    /// Number of stones on the board.
    pub fn stones(&self) -> u32 {
        (self.x | self.o).count_ones()
    }

    /// `(stones of the side to move, stones of the other side)`.
    pub fn me_them(&self) -> (u32, u32) {
        if self.x_to_move() {
            (self.x, self.o)
        } else {
            (self.o, self.x)
        }
    }

    /// The board with `me` for the side to move and `them` for the other (X is to move when
    /// the number of stones is even).
    pub fn from_me_them(me: u32, them: u32) -> Board {
        if (me | them).count_ones() % 2 == 0 {
            Board { x: me, o: them }
        } else {
            Board { x: them, o: me }
        }
    }
}

/// One symmetry of the board as a cell permutation, with byte lookup tables for masks.
#[derive(Clone, Debug)]
pub struct Sym {
    /// `perm[c]`: where cell `c` goes.
    pub perm: Vec<u8>,
    /// `inv[c]`: the cell that goes to `c`.
    pub inv: Vec<u8>,
    table: Box<[[u32; 256]; 3]>,
}

impl Sym {
    fn new(perm: Vec<u8>) -> Sym {
        let mut inv = vec![0u8; perm.len()];
        for (c, &d) in perm.iter().enumerate() {
            inv[d as usize] = c as u8;
        }
        let mut table = Box::new([[0u32; 256]; 3]);
        for (chunk, t) in table.iter_mut().enumerate() {
            for (byte, out) in t.iter_mut().enumerate() {
                let mut m = 0u32;
                for bit in 0..8 {
                    let c = chunk * 8 + bit;
                    if byte >> bit & 1 == 1 && c < perm.len() {
                        m |= 1 << perm[c];
                    }
                }
                *out = m;
            }
        }
        Sym { perm, inv, table }
    }

    /// The image of a cell mask.
    #[inline]
    pub fn apply(&self, m: u32) -> u32 {
        self.table[0][(m & 0xff) as usize]
            | self.table[1][(m >> 8 & 0xff) as usize]
            | self.table[2][(m >> 16 & 0xff) as usize]
    }
}

/// The board's shape: size, winning lines and symmetries.
#[derive(Clone, Debug)]
pub struct Geometry {
    pub width: u32,
    pub height: u32,
    pub k: u32,
    /// `width * height`.
    pub cells: u32,
    /// Mask of all cells.
    pub full: u32,
    /// Every set of k cells in a row (horizontal, vertical, both diagonals).
    pub lines: Vec<u32>,
    /// The distinct symmetries, identity first (8 for a square, 4 for a rectangle, fewer
    /// for a single row).
    pub syms: Vec<Sym>,
}

impl Geometry {
    /// The geometry of a `width` x `height` board with k in a row; sizes are checked by
    /// the caller (at most 20 cells so that masks fit the byte tables).
    pub fn new(width: u32, height: u32, k: u32) -> Geometry {
        let cells = width * height;
        let full = if cells == 32 {
            u32::MAX
        } else {
            (1u32 << cells) - 1
        };
        let (w, h, k_) = (width as i32, height as i32, k as i32);
        let mut lines = Vec::new();
        for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            for r in 0..h {
                for c in 0..w {
                    let (ec, er) = (c + dc * (k_ - 1), r + dr * (k_ - 1));
                    if ec < 0 || ec >= w || er < 0 || er >= h {
                        continue;
                    }
                    let mut m = 0u32;
                    for i in 0..k_ {
                        m |= 1 << ((r + dr * i) * w + c + dc * i);
                    }
                    lines.push(m);
                }
            }
        }
        let mut perms: Vec<Vec<u8>> = Vec::new();
        let swaps: &[bool] = if width == height {
            &[false, true]
        } else {
            &[false]
        };
        for &swap in swaps {
            for fy in [false, true] {
                for fx in [false, true] {
                    let perm: Vec<u8> = (0..cells as i32)
                        .map(|cell| {
                            let (c, r) = (cell % w, cell / w);
                            let c1 = if fx { w - 1 - c } else { c };
                            let r1 = if fy { h - 1 - r } else { r };
                            let (c2, r2) = if swap { (r1, c1) } else { (c1, r1) };
                            (r2 * w + c2) as u8
                        })
                        .collect();
                    if !perms.contains(&perm) {
                        perms.push(perm);
                    }
                }
            }
        }
        Geometry {
            width,
            height,
            k,
            cells,
            full,
            lines,
            syms: perms.into_iter().map(Sym::new).collect(),
        }
    }

    /// True if `m` holds k in a row.
    #[inline]
    pub fn has_line(&self, m: u32) -> bool {
        for &l in &self.lines {
            if m & l == l {
                return true;
            }
        }
        false
    }

    /// `None` if `m` holds no line, else the cells common to all its lines (empty when the
    /// lines share no stone: they cannot all have been completed by one move).
    #[inline]
    pub fn line_core(&self, m: u32) -> Option<u32> {
        let mut core = None;
        for &l in &self.lines {
            if m & l == l {
                core = Some(core.unwrap_or(u32::MAX) & l);
            }
        }
        core
    }

    /// The name of a cell: column letter from the left, row number from the bottom (`a1`).
    pub fn cell_name(&self, cell: u32) -> String {
        let col = (b'a' + (cell % self.width) as u8) as char;
        format!("{col}{}", cell / self.width + 1)
    }

    /// Images of a position under every symmetry, as `(index of symmetry, board)`.
    pub fn images(&self, b: Board) -> impl Iterator<Item = (usize, Board)> + '_ {
        self.syms.iter().enumerate().map(move |(i, s)| {
            (
                i,
                Board {
                    x: s.apply(b.x),
                    o: s.apply(b.o),
                },
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_symmetries_counts() {
        let g = Geometry::new(3, 3, 3);
        assert_eq!(g.lines.len(), 8);
        assert_eq!(g.syms.len(), 8);
        let g = Geometry::new(4, 5, 4);
        assert_eq!(g.lines.len(), 5 + 8 + 2 + 2);
        assert_eq!(g.syms.len(), 4);
        let g = Geometry::new(5, 1, 3);
        assert_eq!(g.lines.len(), 3);
        assert_eq!(g.syms.len(), 2);
    }

    #[test]
    fn symmetries_are_permutations_preserving_lines() {
        for (w, h, k) in [(3, 3, 3), (4, 3, 3), (4, 5, 4), (4, 4, 3)] {
            let g = Geometry::new(w, h, k);
            for s in &g.syms {
                assert_eq!(s.apply(g.full), g.full);
                for &l in &g.lines {
                    assert!(g.lines.contains(&s.apply(l)));
                }
                for c in 0..g.cells {
                    assert_eq!(s.apply(1 << c), 1 << s.perm[c as usize]);
                    assert_eq!(s.inv[s.perm[c as usize] as usize] as u32, c);
                }
            }
        }
    }

    #[test]
    fn line_core() {
        let g = Geometry::new(5, 1, 3);
        assert_eq!(g.line_core(0b00011), None);
        assert_eq!(g.line_core(0b11111), Some(0b00100));
        assert_eq!(g.line_core(0b01111), Some(0b00110));
        let g = Geometry::new(3, 3, 3);
        // Bottom row and top row: no common stone.
        assert_eq!(g.line_core(0b111_000_111), Some(0));
        assert_eq!(g.cell_name(0), "a1");
        assert_eq!(g.cell_name(5), "c2");
    }
}
