//! The KBNK table through chess's bitboard passes for pieces against a bare king
//! ([`retro_chess::bareking`]): the checkmates, the two queues depth by depth, the draws'
//! best moves. This file gives them what is the table's own: its placements, numbered as
//! [`super::index`] numbers them (every white king square, the bishop on the 32 light
//! squares, so no symmetry), white's moves in the order of the seed's move byte
//! ([`super::code`]), and its records, written straight into the table.
//!
//! For each placement of the white pieces (64 * 32 * 64) one 64-bit word per set holds the
//! black king squares; black's moves never change the placement, white's never move the
//! black king. Per depth, lost → won is a pull over each placement's white moves (the
//! first in move order to reach a square is its best move; a bishop move only where the
//! black king is not on its path), and won → lost a `king_spread` per placement. Black
//! taking the bishop or knight leaves KBK or KNK, a draw, so no capture is listed.
//!
//! Each placement is written by one task only, so the result is the same whatever the
//! thread count, and it is byte-identical to the generic two-queue solver
//! (`tests/integration/kbnk_facts.rs`): values are the exact distances to mate, best moves
//! the first move in [`retro_chess::moves::legal_moves`] order achieving the value (a
//! draw: the first move to a draw or a capture), terminal positions and illegal slots have
//! no move.

use rayon::prelude::*;

use super::code::{code, Piece};
use super::index::{placement, unplace, PLACEMENTS, SECTION};
use retro_chess::bareking::{
    self, Capture, Dest, Fixed, Geometry, Promotion, Scope, Store, MIN_LEN, NO_CAPTURE,
};
use retro_chess::board::{bb, bishop_attacks, squares, Square, BETWEEN, KING, KNIGHT};
use retro_chess::material::Role;
use retro_engine::game::{Solution, SolveOptions, Value, NO_MOVE};
use retro_engine::solve::SolveError;
use retro_engine::table::Metric;

/// The placements of the white king, a light-squared bishop and the knight, numbered as
/// the table's rows ([`placement`]), with what is fixed for each.
struct Kbn {
    fixed: Vec<Fixed>,
}

fn fixed(p: usize) -> Fixed {
    let (wk, b, n) = unplace(p);
    Fixed::of(wk, &[(Role::Bishop, b), (Role::Knight, n)])
}

/// The gates' keys: a placement without the moving man. The king's `[bishop / 2][knight]`,
/// the bishop's `[king][knight]`, the knight's `[king][bishop / 2]`.
fn keys(p: usize) -> [usize; 3] {
    let (wk, b, n) = unplace(p);
    let (k, bi, n) = (wk as usize, b as usize >> 1, n as usize);
    [bi * 64 + n, k * 64 + n, k * 32 + bi]
}

impl Geometry for Kbn {
    type Id = u8;
    const NO_MOVE: u8 = NO_MOVE;

    fn placements(&self) -> usize {
        PLACEMENTS
    }

    fn fixed(&self) -> &[Fixed] {
        &self.fixed
    }

    /// None: a capture draws.
    #[inline]
    fn captures(&self, _: usize) -> &[Capture; 2] {
        &[NO_CAPTURE; 2]
    }

    #[inline]
    fn promotions(&self, _: usize) -> &[Promotion] {
        &[]
    }

    fn metric(&self) -> Metric {
        Metric::Dtm
    }

    #[inline]
    fn king_move(&self, to: Square) -> u8 {
        code(Piece::King, to)
    }

    /// King, bishop, knight, each by destination: the order of the move bytes.
    #[inline]
    fn white_moves(
        &self,
        p: usize,
        gate: impl Fn(usize, usize) -> u64,
        mut f: impl FnMut(u8, Dest),
    ) {
        let (wk, b, n) = unplace(p);
        let key = keys(p);
        let occ = bb(wk) | bb(b) | bb(n);
        let kings = KING[wk as usize] & !occ & gate(0, key[0]);
        let bishops = bishop_attacks(b, bb(wk) | bb(n)) & !occ & gate(1, key[1]);
        let knights = KNIGHT[n as usize] & !occ & gate(2, key[2]);
        for t in squares(kings) {
            f(code(Piece::King, t), Dest::Table(placement(t, b, n), 0, !0));
        }
        for t in squares(bishops) {
            let allow = !BETWEEN[b as usize][t as usize];
            f(
                code(Piece::Bishop, t),
                Dest::Table(placement(wk, t, n), 0, allow),
            );
        }
        for t in squares(knights) {
            f(
                code(Piece::Knight, t),
                Dest::Table(placement(wk, b, t), 0, !0),
            );
        }
    }

    fn gates(&self) -> Vec<usize> {
        vec![32 * 64, 64 * 64, 64 * 32]
    }

    fn mark(&self, p: usize, gates: &mut [Vec<u64>]) {
        let (wk, b, n) = unplace(p);
        let key = keys(p);
        gates[0][key[0]] |= bb(wk);
        gates[1][key[1]] |= bb(b);
        gates[2][key[2]] |= bb(n);
    }
}

/// The table's records, filled in place: a value byte and a move byte per slot, a
/// placement's 64 black king squares in a row, white to move then black to move.
struct Table(Solution);

impl Store<u8> for Table {
    type Cell = u8;
    const WIDTH: usize = 2;
    type Tag = u8;

    #[inline]
    fn drawn() -> u8 {
        Value::Draw.to_byte()
    }

    #[inline]
    fn won(plies: u16) -> u8 {
        Value::Win(plies).to_byte()
    }

    #[inline]
    fn lost(plies: u16) -> u8 {
        Value::Loss(plies).to_byte()
    }

    #[inline]
    fn put(row: &mut [u8], s: Square, tag: u8, id: u8) {
        row[2 * s as usize] = tag;
        row[2 * s as usize + 1] = id;
    }

    fn sides(&mut self) -> (&mut [u8], &mut [u8]) {
        self.0.records.split_at_mut(SECTION as usize * 2)
    }
}

/// Solve every KBNK position (both sections) on the current rayon pool.
pub fn solve(opts: &SolveOptions) -> Result<Solution, SolveError> {
    let progress = opts.progress;
    progress.phase("initial positions", PLACEMENTS as u64);
    let kbn = Kbn {
        fixed: (0..PLACEMENTS)
            .into_par_iter()
            .with_min_len(MIN_LEN)
            .map(fixed)
            .collect(),
    };
    let mut sets = bareking::start(&kbn, Table(Solution::new(2 * SECTION)));
    progress.advance(PLACEMENTS as u64);
    progress.phase("retrograde", 0);
    bareking::run(&kbn, &mut sets, &Scope::ALL, progress)?;
    progress.phase("best moves", PLACEMENTS as u64);
    bareking::draws(&kbn, &mut sets);
    progress.advance(PLACEMENTS as u64);
    Ok(sets.rec.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_sets() {
        // Kh1, Bf1, Ng1.
        let f = fixed(placement(7, 5, 6));
        assert_eq!(f.legal_w & bb(13), bb(13)); // f2 is safe
        assert_eq!(f.legal_w & bb(14), 0); // g2 next to the king
        assert_eq!(f.capturable, bb(5)); // the knight is defended by the king, the bishop is not
    }
}
