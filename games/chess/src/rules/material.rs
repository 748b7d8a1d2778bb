//! Materials: which pieces each side has, named as Syzygy names them (`KQvKR`, `KBNvK`).
//!
//! A table is stored for one colouring of a material, Syzygy's: white is the side with
//! more pieces, or with as many, the side whose pieces, strongest first, come first in the
//! order Q, R, B, N, P (python-chess `normalize_tablename`): `KQvKR`, `KNvKP`, `KBNvKQ`.
//! A position whose material is the other colouring (`KvKQ`, `KRvKQ`) is answered from the
//! same table with the colours swapped and the board turned over.

use std::fmt;

/// A kind of piece, ordered from weakest to strongest; the king is listed apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    Pawn = 0,
    Knight = 1,
    Bishop = 2,
    Rook = 3,
    Queen = 4,
    King = 5,
}

impl Role {
    pub const ALL: [Role; 6] = [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ];
    /// What a pawn may promote to, in move order.
    pub const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

    /// The upper-case letter (`P`, `N`, `B`, `R`, `Q`, `K`).
    pub fn letter(self) -> char {
        b"PNBRQK"[self as usize] as char
    }

    /// The role of an upper- or lower-case letter.
    pub fn from_letter(c: char) -> Option<Role> {
        let i = "PNBRQK".find(c.to_ascii_uppercase())?;
        Some(Role::ALL[i])
    }

    /// The usual material value.
    pub fn value(self) -> u32 {
        [1, 3, 3, 5, 9, 0][self as usize]
    }
}

/// White or black.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

/// The most pieces a table may have, kings included: the index holds four pieces beside
/// the kings. Whether one can be made here is the memory's and the disk's to say
/// ([`crate::planning::plan::estimate`]): a 6-piece table without pawns takes about 21 GB of memory
/// and a 31 GB file.
pub const MAX_PIECES: usize = 6;

/// The most pieces of a whole set (`--all`, the viewer's material list): the 6-piece set
/// would take terabytes, so 6-piece tables are made one material at a time.
pub const SET_PIECES: usize = 5;

/// The pieces of both sides, kings excluded, each side strongest first.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    /// `[white, black]`.
    pub sides: [Vec<Role>; 2],
}

/// Why a material name was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MaterialError {
    #[error("'{0}' is not a material: expected white's pieces, 'v', black's pieces, kings included, e.g. KQvKR")]
    Syntax(String),
    #[error("'{0}': each side needs exactly one king")]
    Kings(String),
    #[error("'{name}' has {count} pieces; tables go up to {MAX_PIECES}")]
    TooMany { name: String, count: usize },
}

impl Material {
    /// Parse `KQvKR` (either colouring, pieces in any order).
    pub fn parse(name: &str) -> Result<Material, MaterialError> {
        let (w, b) = name
            .split_once(['v', 'V'])
            .ok_or_else(|| MaterialError::Syntax(name.to_string()))?;
        let side = |s: &str| -> Result<Vec<Role>, MaterialError> {
            let mut roles = Vec::new();
            let mut kings = 0;
            for c in s.chars() {
                match Role::from_letter(c) {
                    Some(Role::King) => kings += 1,
                    Some(r) if c.is_ascii_uppercase() => roles.push(r),
                    _ => return Err(MaterialError::Syntax(name.to_string())),
                }
            }
            if kings != 1 {
                return Err(MaterialError::Kings(name.to_string()));
            }
            roles.sort_unstable_by(|a, b| b.cmp(a));
            Ok(roles)
        };
        let m = Material {
            sides: [side(w)?, side(b)?],
        };
        if m.count() > MAX_PIECES {
            return Err(MaterialError::TooMany {
                name: name.to_string(),
                count: m.count(),
            });
        }
        Ok(m)
    }

    /// From the pieces on a board (kings excluded).
    pub fn from_roles(mut white: Vec<Role>, mut black: Vec<Role>) -> Material {
        white.sort_unstable_by(|a, b| b.cmp(a));
        black.sort_unstable_by(|a, b| b.cmp(a));
        Material {
            sides: [white, black],
        }
    }

    /// Pieces on the board, kings included.
    pub fn count(&self) -> usize {
        2 + self.sides[0].len() + self.sides[1].len()
    }

    pub fn has_pawns(&self) -> bool {
        self.sides.iter().flatten().any(|&r| r == Role::Pawn)
    }

    /// The colours swapped.
    pub fn swapped(&self) -> Material {
        Material {
            sides: [self.sides[1].clone(), self.sides[0].clone()],
        }
    }

    /// True if this colouring is the stored one (see the module documentation).
    pub fn is_canonical(&self) -> bool {
        // Syzygy swaps when (len(w), order(b)) < (len(b), order(w)), with order the
        // pieces' places in "KQRBNP": our `Role` numbers run the other way.
        let order = |s: &[Role]| -> Vec<u8> { s.iter().map(|&r| 4 - r as u8).collect() };
        let [w, b] = &self.sides;
        (w.len(), order(b)) >= (b.len(), order(w))
    }

    /// The stored colouring, and whether the colours had to be swapped to get it.
    pub fn canonical(&self) -> (Material, bool) {
        if self.is_canonical() {
            (self.clone(), false)
        } else {
            (self.swapped(), true)
        }
    }

    /// Only the two kings: a draw, with no table.
    pub fn is_bare_kings(&self) -> bool {
        self.sides.iter().all(|s| s.is_empty())
    }

    /// The materials one capture or promotion leads to, stored colouring, without
    /// duplicates and without bare kings, sorted.
    pub fn children(&self) -> Vec<Material> {
        let mut out = Vec::new();
        for c in 0..2 {
            // A capture by side c removes one of the other side's pieces.
            let o = 1 - c;
            for (i, _) in self.sides[o].iter().enumerate() {
                let mut m = self.clone();
                m.sides[o].remove(i);
                out.push(m.clone());
                // Capturing while promoting.
                if self.sides[c].contains(&Role::Pawn) {
                    out.extend(m.promoted(c));
                }
            }
            if self.sides[c].contains(&Role::Pawn) {
                out.extend(self.promoted(c));
            }
        }
        let mut out: Vec<Material> = out
            .into_iter()
            .filter(|m| !m.is_bare_kings())
            .map(|m| m.canonical().0)
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Side `c`'s pawn promoted to each piece.
    fn promoted(&self, c: usize) -> Vec<Material> {
        let i = self.sides[c]
            .iter()
            .position(|&r| r == Role::Pawn)
            .expect("a pawn");
        Role::PROMOTIONS
            .iter()
            .map(|&r| {
                let mut m = self.clone();
                m.sides[c][i] = r;
                m.sides[c].sort_unstable_by(|a, b| b.cmp(a));
                m
            })
            .collect()
    }

    /// Every material of 3 to `n` pieces in its stored colouring, sorted so that each
    /// material comes after every material it leads to (fewer pieces first, then fewer
    /// pawns, then by name).
    pub fn all(n: usize) -> Vec<Material> {
        let roles = [
            Role::Queen,
            Role::Rook,
            Role::Bishop,
            Role::Knight,
            Role::Pawn,
        ];
        // Multisets of up to `k` non-king pieces, strongest first.
        fn multisets(roles: &[Role], k: usize, out: &mut Vec<Vec<Role>>, cur: &mut Vec<Role>) {
            out.push(cur.clone());
            if k == 0 {
                return;
            }
            for (i, &r) in roles.iter().enumerate() {
                cur.push(r);
                multisets(&roles[i..], k - 1, out, cur);
                cur.pop();
            }
        }
        let mut sets = Vec::new();
        multisets(&roles, n.saturating_sub(2), &mut sets, &mut Vec::new());
        let mut out: Vec<Material> = Vec::new();
        for w in &sets {
            for b in &sets {
                let m = Material {
                    sides: [w.clone(), b.clone()],
                };
                if m.count() <= n && !m.is_bare_kings() && m.is_canonical() {
                    out.push(m);
                }
            }
        }
        out.sort_by_key(|m| (m.count(), m.pawns(), m.to_string()));
        out.dedup();
        out
    }

    fn pawns(&self) -> usize {
        self.sides
            .iter()
            .flatten()
            .filter(|&&r| r == Role::Pawn)
            .count()
    }
}

impl fmt::Display for Material {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |s: &[Role]| -> String {
            std::iter::once('K')
                .chain(s.iter().map(|r| r.letter()))
                .collect()
        };
        write!(f, "{}v{}", side(&self.sides[0]), side(&self.sides[1]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let m = Material::parse("KRQvKR").unwrap();
        assert_eq!(m.to_string(), "KQRvKR");
        assert!(m.is_canonical());
        let (c, swapped) = Material::parse("KvKQ").unwrap().canonical();
        assert!(swapped);
        assert_eq!(c.to_string(), "KQvK");
        // Syzygy's names: more pieces first, then the stronger pieces.
        for (any, stored) in [
            ("KQvKBN", "KBNvKQ"),
            ("KPvKN", "KNvKP"),
            ("KRvKQ", "KQvKR"),
            ("KBvKPP", "KPPvKB"),
            ("KBvKRN", "KRNvKB"),
        ] {
            assert_eq!(
                Material::parse(any).unwrap().canonical().0.to_string(),
                stored
            );
        }
        assert!(matches!(
            Material::parse("KQRBvKRN"),
            Err(MaterialError::TooMany { count: 7, .. })
        ));
        assert!(matches!(
            Material::parse("QvKR"),
            Err(MaterialError::Kings(_))
        ));
        assert!(matches!(
            Material::parse("KQKR"),
            Err(MaterialError::Syntax(_))
        ));
        assert!(matches!(
            Material::parse("KXvK"),
            Err(MaterialError::Syntax(_))
        ));
    }

    #[test]
    fn children() {
        let kqvkr = Material::parse("KQvKR").unwrap();
        let names: Vec<String> = kqvkr.children().iter().map(|m| m.to_string()).collect();
        assert_eq!(names, ["KRvK", "KQvK"]);
        let kpvk = Material::parse("KPvK").unwrap();
        let names: Vec<String> = kpvk.children().iter().map(|m| m.to_string()).collect();
        assert_eq!(names, ["KNvK", "KBvK", "KRvK", "KQvK"]);
    }

    #[test]
    fn every_material() {
        // 5 three-piece tables, 30 four-piece ones (15 with one side bare, 15 one against one).
        assert_eq!(Material::all(3).len(), 5);
        assert_eq!(Material::all(4).len(), 35);
        let all5 = Material::all(5);
        // Each material's children come first.
        for (i, m) in all5.iter().enumerate() {
            for c in m.children() {
                let j = all5.iter().position(|x| *x == c).unwrap();
                assert!(j < i, "{c} after {m}");
            }
        }
    }
}
