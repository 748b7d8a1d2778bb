//! Placements of the white king and pieces, what does not change during the solve for
//! each (legal black king squares, attacks, captures, promotions), and white's moves in
//! move order.
//!
//! The values read from the sub-tables are those of the metric solved: for DTZ, the
//! sub-tables' DTZ values restarted ([`Value::restarted`]), since a capture or a
//! promotion zeroes the count.

use rayon::prelude::*;

use crate::indexing::index::Layout;
use crate::indexing::subtables::SubTables;
use crate::rules::board::{
    bb, bishop_attacks, pawn_attacks, queen_attacks, rank, rook_attacks, squares, Square, BETWEEN,
    KING, KNIGHT,
};
use crate::rules::material::{Color, Role};
use crate::rules::position::Position;
use retro_engine::game::Value;
use retro_engine::progress::Progress;
use retro_engine::table::Metric;

/// Placements per parallel work item, at least.
pub const MIN_LEN: usize = 512;

/// A move of a placement, as recorded during the solve: `0x8000 | mover << 9 | promotion
/// << 6 | destination`, mover 0 the king and j the j-th piece of [`Layout::pieces`],
/// promotion 0 none, 1..=4 queen, rook, bishop, knight. 0 is no move.
pub fn move_id(mover: usize, promotion: usize, to: Square) -> u16 {
    0x8000 | (mover as u16) << 9 | (promotion as u16) << 6 | to as u16
}

/// What does not change during the solve, per placement. All 0 for a placement that is
/// not one (two men on a square, a pawn on the first or last rank).
#[derive(Clone, Copy, Default)]
pub struct Fixed {
    /// Black king squares where white to move is legal (also black's safe destinations).
    pub legal_w: u64,
    /// Black king squares where black to move is legal.
    pub legal_b: u64,
    /// Squares attacked by white (the black king does not block: it moves off its line).
    pub attacked: u64,
    /// White pieces black may take.
    pub capturable: u64,
}

impl Fixed {
    /// The sets of the white king on `king` and `pieces` (role, square) for every black
    /// king square; all 0 if two men share a square or a pawn stands on the first or last
    /// rank.
    pub fn of(king: Square, pieces: &[(Role, Square)]) -> Fixed {
        let occ = pieces.iter().fold(bb(king), |o, &(_, s)| o | bb(s));
        if occ.count_ones() as usize != pieces.len() + 1 {
            return Fixed::default();
        }
        if pieces
            .iter()
            .any(|&(r, s)| r == Role::Pawn && !(1..=6).contains(&rank(s)))
        {
            return Fixed::default();
        }
        let attacked = pieces
            .iter()
            .fold(KING[king as usize], |a, &(r, s)| a | attacks(r, s, occ));
        Fixed {
            legal_w: !occ & !attacked,
            legal_b: !occ & !KING[king as usize],
            attacked,
            capturable: occ & !bb(king) & !attacked,
        }
    }
}

/// A capture of an undefended white piece by the black king.
#[derive(Clone, Copy)]
pub struct Capture {
    /// The piece's square; 64 for none.
    pub sq: Square,
    /// Black, taking, loses in this many plies (the sub-table position, white to move, is
    /// a win in one ply less), or 0: the capture draws.
    pub loses: u16,
}

/// No capture.
pub const NO_CAPTURE: Capture = Capture { sq: 64, loses: 0 };

/// One promotion move of a placement: its id, and the black king squares grouped by the
/// value, for black to move, of the sub-table position it leads to (restarted for DTZ).
pub struct Promotion {
    pub id: u16,
    pub groups: Vec<(Value, u64)>,
}

/// Where a white move leads.
pub enum Dest<'a> {
    /// Placement `q` seen through symmetry `t` (`flip`: a king move out of the white
    /// king's region), for the black king squares in `allow` (those not on its path).
    Table(usize, u8, u64),
    /// Out of the table.
    Promotion(&'a Promotion),
    /// A pawn move that zeroes the count (DTZ): placement `q` of a higher tier, solved
    /// before this one, for the black king squares in `allow`.
    Zeroing(usize, u64),
}

/// Every placement of one material: the white king in the a1-d4 quadrant (pawnless) or
/// on files a-d (with pawns), every square for each piece. Every stored position is one
/// (its white king is in the a1-d1-d4 triangle, or on files a-d), and a king move out of
/// the region is read from its mirror image.
pub struct Placements {
    /// White's pieces besides the king, in [`Layout::pieces`] order.
    pub roles: Vec<Role>,
    /// The region is the quadrant (ranks 1-4 too), not files a-d.
    quadrant: bool,
    /// Number of placements: white king squares (16 or 32) times `64^roles`.
    pub len: usize,
    pub fixed: Vec<Fixed>,
    /// Up to one capture per piece.
    pub captures: Vec<[Capture; 2]>,
    /// Per placement, its promotions in move order (empty without pawns).
    pub promotions: Vec<Vec<Promotion>>,
    /// Two identical pieces: placements with them in decreasing order duplicate others
    /// (solved all the same; only the increasing order is stored).
    pub twins: bool,
    /// What the solve counts: with DTZ a pawn move zeroes, so it leaves the solve (into a
    /// higher tier, `zeroing.rs`) instead of moving within it.
    pub metric: Metric,
}

/// Where a role's moves come in the move order: queen, rook, bishop, knight, pawn.
fn role_rank(r: Role) -> u8 {
    4 - r as u8
}

pub fn attacks(role: Role, sq: Square, occ: u64) -> u64 {
    match role {
        Role::King => KING[sq as usize],
        Role::Queen => queen_attacks(sq, occ),
        Role::Rook => rook_attacks(sq, occ),
        Role::Bishop => bishop_attacks(sq, occ),
        Role::Knight => KNIGHT[sq as usize],
        Role::Pawn => pawn_attacks(true, sq),
    }
}

impl Placements {
    /// Everything fixed for `layout`'s placements, counting `metric` (`subs` holds the
    /// sub-tables of that metric); `None` if a capture leads to a sub-table position that
    /// is not a win or a draw for white, or a promotion to one that is not a loss or a
    /// draw for black (never with correct sub-tables).
    pub fn new(
        layout: &Layout,
        subs: &SubTables,
        metric: Metric,
        progress: &dyn Progress,
    ) -> Option<Placements> {
        let roles: Vec<Role> = layout.pieces.iter().map(|&(_, r)| r).collect();
        let quadrant = !roles.contains(&Role::Pawn);
        let kings = if quadrant { 16 } else { 32 };
        let len = kings << (6 * roles.len());
        let twins = roles.windows(2).any(|w| w[0] == w[1]);
        let mut pl = Placements {
            roles,
            quadrant,
            len,
            fixed: Vec::new(),
            captures: Vec::new(),
            promotions: Vec::new(),
            twins,
            metric,
        };
        progress.phase("initial positions", len as u64);
        pl.fixed = (0..len)
            .into_par_iter()
            .with_min_len(MIN_LEN)
            .map(|p| pl.fixed_of(p))
            .collect();
        let caps: Vec<Option<[Capture; 2]>> = (0..len)
            .into_par_iter()
            .with_min_len(MIN_LEN)
            .map(|p| pl.captures_of(p, subs))
            .collect();
        pl.captures = caps.into_iter().collect::<Option<_>>()?;
        if pl.roles.contains(&Role::Pawn) {
            let promos: Vec<Option<Vec<Promotion>>> = (0..len)
                .into_par_iter()
                .with_min_len(MIN_LEN)
                .map(|p| pl.promotions_of(p, subs))
                .collect();
            pl.promotions = promos.into_iter().collect::<Option<_>>()?;
        }
        progress.advance(len as u64);
        Some(pl)
    }

    /// The squares of placement `p`: `[white king, piece 1, piece 2]`.
    #[inline]
    pub fn coords(&self, p: usize) -> [Square; 3] {
        let mut c = [0; 3];
        let w = p >> self.shift(0);
        c[0] = ((w >> 2) << 3 | (w & 3)) as Square;
        for (j, x) in c.iter_mut().enumerate().take(self.roles.len() + 1).skip(1) {
            *x = (p >> self.shift(j) & 63) as Square;
        }
        c
    }

    /// The placement of squares `c` (`[white king, piece 1, piece 2]`), the white king in
    /// the region.
    #[inline]
    pub fn place(&self, c: &[Square]) -> usize {
        let w = (c[0] >> 3) as usize * 4 + (c[0] & 3) as usize;
        c[1..=self.roles.len()]
            .iter()
            .fold(w, |p, &s| p * 64 + s as usize)
    }

    /// The symmetry ([`flip`]) that brings a white king on `sq` into the region.
    #[inline]
    fn to_region(&self, sq: Square) -> u8 {
        (sq & 7 >= 4) as u8 | (2 * (self.quadrant && sq >> 3 >= 4) as u8)
    }

    /// Where the square of man `j` (0 the king) sits in a placement number: 6 bits each,
    /// the king highest. (Shifts and masks only: this is the solver's inner loop.)
    #[inline]
    pub fn shift(&self, j: usize) -> usize {
        6 * (self.roles.len() - j)
    }

    /// Placement `p` with man `j` moved to `t`.
    #[inline]
    pub fn moved(&self, p: usize, j: usize, t: Square) -> usize {
        let sh = self.shift(j);
        (p & !(63 << sh)) | (t as usize) << sh
    }

    /// The symmetries ([`flip`]) that map the region onto the board: all four without
    /// pawns, the file mirror alone with them.
    pub fn symmetries(&self) -> u8 {
        if self.quadrant {
            4
        } else {
            2
        }
    }

    /// Placement `p` without man `j`: the index of the masks of placements with new
    /// losses (`retrograde::Active`) for moves of `j`. For the king (j = 0), the
    /// pieces' squares: its masks are over every square, the region's and its images'.
    #[inline]
    pub fn key(&self, p: usize, j: usize) -> usize {
        let sh = self.shift(j);
        (p >> (sh + 6)) << sh | (p & ((1 << sh) - 1))
    }

    /// The role of man `j` (0 the king).
    pub fn role(&self, j: usize) -> Role {
        if j == 0 {
            Role::King
        } else {
            self.roles[j - 1]
        }
    }

    /// The men of `c` (1-based piece numbers) in move order: by role, then square.
    pub fn order(&self, c: &[Square; 3]) -> ([usize; 2], usize) {
        let n = self.roles.len();
        let mut o = [1, 2];
        if n == 2 && (role_rank(self.roles[1]), c[2]) < (role_rank(self.roles[0]), c[1]) {
            o = [2, 1];
        }
        (o, n)
    }

    /// White's squares of `c`.
    pub fn occupancy(&self, c: &[Square; 3]) -> u64 {
        c[..=self.roles.len()].iter().fold(0, |o, &s| o | bb(s))
    }

    fn fixed_of(&self, p: usize) -> Fixed {
        let c = self.coords(p);
        let n = self.roles.len();
        let mut men = [(Role::King, 0); 2];
        for (j, m) in men.iter_mut().enumerate().take(n) {
            *m = (self.roles[j], c[j + 1]);
        }
        Fixed::of(c[0], &men[..n])
    }

    /// The position of `c` with the black king on `bk`, `turn` to move, without man
    /// `skip` (a taken piece; 0: none).
    fn position(&self, c: &[Square; 3], bk: Square, turn: Color, skip: usize) -> Position {
        let mut pos = Position::empty();
        pos.put(c[0], Color::White, Role::King);
        for (j, &role) in self.roles.iter().enumerate() {
            if j + 1 != skip {
                pos.put(c[j + 1], Color::White, role);
            }
        }
        pos.put(bk, Color::Black, Role::King);
        pos.turn = turn;
        pos
    }

    /// The value of `pos` in its sub-table, as the solve counts it.
    fn sub_value(&self, subs: &SubTables, pos: &Position) -> Value {
        let v = subs.value(pos);
        match self.metric {
            Metric::Dtm => v,
            Metric::Dtz => v.restarted(crate::rules::position::FIFTY_MOVES),
        }
    }

    fn captures_of(&self, p: usize, subs: &SubTables) -> Option<[Capture; 2]> {
        let mut out = [NO_CAPTURE; 2];
        let f = self.fixed[p];
        if f.capturable == 0 || f.legal_b == 0 {
            return Some(out);
        }
        let c = self.coords(p);
        for j in 1..=self.roles.len() {
            if f.capturable & bb(c[j]) == 0 {
                continue;
            }
            let after = self.position(&c, c[j], Color::White, j);
            let loses = match self.sub_value(subs, &after) {
                Value::Win(w) => w + 1,
                Value::Draw => 0,
                _ => return None,
            };
            out[j - 1] = Capture { sq: c[j], loses };
        }
        Some(out)
    }

    fn promotions_of(&self, p: usize, subs: &SubTables) -> Option<Vec<Promotion>> {
        let f = self.fixed[p];
        let c = self.coords(p);
        let occ = self.occupancy(&c);
        let mut out = Vec::new();
        let (order, n) = self.order(&c);
        for &j in &order[..n] {
            let (role, from) = (self.roles[j - 1], c[j]);
            let to = from + 8;
            if role != Role::Pawn || rank(from) != 6 || f.legal_w == 0 || occ & bb(to) != 0 {
                continue;
            }
            for (k, promo) in Role::PROMOTIONS.into_iter().enumerate() {
                let mut groups: Vec<(Value, u64)> = Vec::new();
                let mut pc = c;
                pc[j] = to;
                for bk in squares(f.legal_w & !bb(to)) {
                    let mut after = self.position(&pc, bk, Color::Black, j);
                    after.put(to, Color::White, promo);
                    let v = self.sub_value(subs, &after);
                    if !matches!(v, Value::Loss(_) | Value::Draw) {
                        return None;
                    }
                    match groups.iter_mut().find(|g| g.0 == v) {
                        Some(g) => g.1 |= bb(bk),
                        None => groups.push((v, bb(bk))),
                    }
                }
                out.push(Promotion {
                    id: move_id(j, k + 1, to),
                    groups,
                });
            }
        }
        Some(out)
    }

    /// Calls `f(move id, where it leads)` for every white move of placement `p` in move
    /// order (king, then pieces by role and square, each by destination, promotions queen
    /// to knight), skipping in-table moves of man j to squares outside `gate(j, key)`.
    /// Moves are pseudo-legal: `Dest::Table`'s allow mask and the target's legal black
    /// king squares decide for which black king squares they are legal. Counting DTZ, a
    /// pawn move is `Dest::Zeroing`.
    #[inline]
    pub fn white_moves(
        &self,
        p: usize,
        gate: impl Fn(usize, usize) -> u64,
        mut f: impl FnMut(u16, Dest),
    ) {
        let c = self.coords(p);
        let occ = self.occupancy(&c);
        let step = |j: usize, t: Square| self.moved(p, j, t);
        // King moves are gated over the whole board: a move out of the region is read
        // from the mirror image, whose image the gate marks (`retrograde::Active`).
        for t in squares(KING[c[0] as usize] & !occ & gate(0, self.key(p, 0))) {
            let x = self.to_region(t);
            let mut d = c;
            d[0] = t;
            d.iter_mut().for_each(|s| *s = flip_square(x, *s));
            f(move_id(0, 0, t), Dest::Table(self.place(&d), x, !0));
        }
        let (order, n) = self.order(&c);
        let mut promos = self.promotions.get(p).map_or(&[][..], |v| &v[..]).iter();
        for &j in &order[..n] {
            let (role, from) = (self.roles[j - 1], c[j]);
            let g = gate(j, self.key(p, j));
            if role != Role::Pawn {
                let slider = matches!(role, Role::Queen | Role::Rook | Role::Bishop);
                for t in squares(attacks(role, from, occ) & !occ & g) {
                    let allow = if slider {
                        !BETWEEN[from as usize][t as usize]
                    } else {
                        !0
                    };
                    f(move_id(j, 0, t), Dest::Table(step(j, t), 0, allow));
                }
                continue;
            }
            let one = from + 8;
            if occ & bb(one) != 0 {
                continue;
            }
            if rank(from) == 6 {
                for pr in promos.by_ref().take(4) {
                    f(pr.id, Dest::Promotion(pr));
                }
                continue;
            }
            let push = |q: usize, allow: u64| match self.metric {
                Metric::Dtm => Dest::Table(q, 0, allow),
                Metric::Dtz => Dest::Zeroing(q, allow),
            };
            if g & bb(one) != 0 {
                f(move_id(j, 0, one), push(step(j, one), !0));
            }
            let two = one + 8;
            if rank(from) == 1 && occ & bb(two) == 0 && g & bb(two) != 0 {
                f(move_id(j, 0, two), push(step(j, two), !bb(one)));
            }
        }
    }
}

/// Symmetry `t` of a square: bit 0 mirrors files, bit 1 ranks (each its own inverse).
#[inline]
pub fn flip_square(t: u8, sq: Square) -> Square {
    let files = if t & 1 != 0 { 7 } else { 0 };
    let ranks = if t & 2 != 0 { 56 } else { 0 };
    sq ^ files ^ ranks
}

/// Symmetry `t` ([`flip_square`]) of a set of squares.
#[inline]
pub fn flip(t: u8, mut b: u64) -> u64 {
    if t & 1 != 0 {
        // Reverse the bits of each byte (rank).
        b = (b >> 1 & 0x5555_5555_5555_5555) | (b & 0x5555_5555_5555_5555) << 1;
        b = (b >> 2 & 0x3333_3333_3333_3333) | (b & 0x3333_3333_3333_3333) << 2;
        b = (b >> 4 & 0x0f0f_0f0f_0f0f_0f0f) | (b & 0x0f0f_0f0f_0f0f_0f0f) << 4;
    }
    if t & 2 != 0 {
        b = b.swap_bytes();
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flips_move_every_square_as_its_set() {
        for t in 0..4 {
            for sq in 0..64 {
                assert_eq!(flip(t, bb(sq)), bb(flip_square(t, sq)), "t{t} {sq}");
            }
        }
        assert_eq!(flip_square(3, 0), 63);
        assert_eq!(flip_square(1, 3), 4);
    }
}
