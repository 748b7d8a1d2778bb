//! The board symmetries (8 on a square board, 4 on a rectangle) and canonical keys.
//!
//! A position's canonical key is the smallest of its transformed exact keys (bitboards), so
//! two positions get the same key exactly when one is a symmetric image of the other.

use super::board::{Board, Color, Key};

/// Cell permutations of the board's symmetry group.
#[derive(Debug, Clone)]
pub struct Symmetries {
    /// `perms[t][cell]` = image of `cell` under transform `t`; transform 0 is the identity.
    pub perms: Vec<Vec<u16>>,
}

impl Symmetries {
    /// Symmetries of a `width` x `height` board.
    pub fn new(width: usize, height: usize) -> Symmetries {
        let square = width == height;
        let mut perms = Vec::new();
        let count = if square { 8 } else { 4 };
        for t in 0..count {
            let mut p = Vec::with_capacity(width * height);
            for y in 0..height {
                for x in 0..width {
                    let (mut nx, mut ny) = (x, y);
                    if square {
                        // t bit 0: mirror x; bit 1: mirror y; bit 2: transpose.
                        if t & 4 != 0 {
                            std::mem::swap(&mut nx, &mut ny);
                        }
                        if t & 1 != 0 {
                            nx = width - 1 - nx;
                        }
                        if t & 2 != 0 {
                            ny = height - 1 - ny;
                        }
                    } else {
                        if t & 1 != 0 {
                            nx = width - 1 - nx;
                        }
                        if t & 2 != 0 {
                            ny = height - 1 - ny;
                        }
                    }
                    p.push((ny * width + nx) as u16);
                }
            }
            perms.push(p);
        }
        Symmetries { perms }
    }

    /// Number of transforms.
    pub fn len(&self) -> usize {
        self.perms.len()
    }

    /// Never empty (the identity is always there).
    pub fn is_empty(&self) -> bool {
        self.perms.is_empty()
    }

    /// The exact key of the board under every transform.
    pub fn keys(&self, board: &Board) -> Vec<Key> {
        let mut out = vec![[[0u64; 4]; 2]; self.perms.len()];
        let key = board.key();
        for (ci, plane) in key.iter().enumerate() {
            for (wi, &word) in plane.iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let cell = wi * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    for (t, p) in self.perms.iter().enumerate() {
                        let img = p[cell] as usize;
                        out[t][ci][img / 64] |= 1 << (img % 64);
                    }
                }
            }
        }
        out
    }

    /// Canonical key of the board.
    pub fn canonical(&self, board: &Board) -> Key {
        min_key(self.keys(board).into_iter())
    }

    /// Canonical key of `keys` (the transformed keys of a board) with one more stone.
    pub fn canonical_with(&self, keys: &[Key], cell: usize, color: Color) -> Key {
        let ci = color.idx();
        min_key(keys.iter().zip(&self.perms).map(|(k, p)| {
            let mut k = *k;
            let img = p[cell] as usize;
            k[ci][img / 64] |= 1 << (img % 64);
            k
        }))
    }

    /// Transforms that map the board onto itself.
    pub fn stabilizer(&self, keys: &[Key]) -> Vec<usize> {
        (0..keys.len()).filter(|&t| keys[t] == keys[0]).collect()
    }
}

fn min_key(keys: impl Iterator<Item = Key>) -> Key {
    keys.min().unwrap_or([[0; 4]; 2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_images_share_a_key() {
        let s = Symmetries::new(15, 15);
        let mut canon = std::collections::HashSet::new();
        let mut raw = std::collections::HashSet::new();
        for p in &s.perms {
            let mut b = Board::gomoku();
            b.place(p[0] as usize, Color::Black);
            b.place(p[b.cell(2, 1)] as usize, Color::White);
            canon.insert(s.canonical(&b));
            raw.insert(b.key());
        }
        assert_eq!(raw.len(), 8);
        assert_eq!(canon.len(), 1);
        let mut b = Board::gomoku();
        b.place(0, Color::Black);
        b.place(b.cell(2, 2), Color::White);
        assert!(!canon.contains(&s.canonical(&b)));
    }

    #[test]
    fn permutations_are_bijections() {
        for (w, h) in [(15, 15), (4, 3), (5, 5)] {
            let s = Symmetries::new(w, h);
            for p in &s.perms {
                let mut seen = vec![false; w * h];
                for &c in p {
                    assert!(!seen[c as usize]);
                    seen[c as usize] = true;
                }
            }
        }
    }

    #[test]
    fn canonical_with_matches_canonical() {
        let s = Symmetries::new(15, 15);
        let mut b = Board::gomoku();
        b.place(112, Color::Black);
        b.place(113, Color::White);
        b.place(130, Color::Black);
        let keys = s.keys(&b);
        for w in [0usize, 50, 100, 200] {
            let mut b2 = b.clone();
            b2.place(w, Color::White);
            assert_eq!(s.canonical_with(&keys, w, Color::White), s.canonical(&b2));
        }
    }
}
