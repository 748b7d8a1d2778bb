//! The fast KBNK solver: two queues over bitboards.
//!
//! For each placement of the white pieces (king, light-squared bishop, knight: 64 * 32 * 64)
//! one 64-bit word per set holds the black king squares: `won_w` (white to move, won),
//! `lost_b` (black to move, lost) and the sets new at the current depth. Black's moves never
//! change the placement, white's moves never change the black king square, so:
//!
//! - lost at d → won at d + 1 is a *pull*: for each placement P', for each white move to P,
//!   the new wins of P' are `lost_new[P]` less the black king squares that would block the
//!   bishop's path, restricted to P's legal, unresolved squares. Taking the moves in the
//!   game's move order, the first move to hit a square is its best move.
//! - won at d + 1 → lost at d + 2 is recomputed per changed placement: with `Safe` the
//!   squares where white to move is legal (not attacked, not occupied, not next to the white
//!   king) and `LC` the undefended bishop or knight (captures: draws), a black king square
//!   is lost when it has a safe move and every move goes to a won square:
//!   `legal_b & spread(Safe) & !spread((Safe & !won_w) | LC)`.
//!
//! The second step needs only the placement's own wins, so both run in one parallel pass
//! per depth (losses go to a second buffer, read at the next depth). Masks of the
//! placements with new losses (`Active`) let the pull skip white moves leading elsewhere.
//!
//! Each placement is written by one task only (rayon over placements, no atomics), so the
//! result is the same whatever the thread count, and it is byte-identical to the generic
//! two-queue solver: values are the exact distances to mate, best moves the first move in
//! [`retro_chess::moves::legal_moves`] order (see [`super::code`]) achieving the value (a draw: the first move to a
//! draw or a capture), terminal positions and illegal slots have no move.

use rayon::prelude::*;

use super::code::{code, Piece};
use super::index::{placement, unplace, PLACEMENTS, SECTION};
use retro_chess::board::{bb, bishop_attacks, king_spread, squares, BETWEEN, KING, KNIGHT};
use retro_engine::game::{Solution, SolveOptions, Value, NO_MOVE};
use retro_engine::solve::{check_layer, SolveError};

/// Record bytes per placement in one section: 64 black king squares, 2 bytes each.
const ROW: usize = 128;
/// Placements per parallel work item, at least.
const MIN_LEN: usize = 512;

/// What does not change during the solve, per placement.
#[derive(Clone, Copy, Default)]
struct Fixed {
    /// Black king squares where white to move is legal (also: black's safe destinations).
    legal_w: u64,
    /// Black king squares where black to move is legal.
    legal_b: u64,
    /// Squares attacked by white.
    attacked: u64,
    /// The bishop or knight, if black may take it.
    capturable: u64,
}

fn fixed(p: usize) -> Fixed {
    let (wk, b, n) = unplace(p);
    if wk == b || wk == n || b == n {
        return Fixed::default();
    }
    let occ = bb(wk) | bb(b) | bb(n);
    let attacked = KING[wk as usize] | KNIGHT[n as usize] | bishop_attacks(b, bb(wk) | bb(n));
    Fixed {
        legal_w: !occ & !attacked,
        legal_b: !occ & !KING[wk as usize],
        attacked,
        capturable: (bb(b) | bb(n)) & !attacked,
    }
}

/// Placements with new losses, as masks over the square of the piece that moves there, so
/// a placement's pull visits only white moves into such placements.
struct Active {
    /// `[king * 32 + bishop / 2]`: knight squares.
    knight: Vec<u64>,
    /// `[king * 64 + knight]`: bishop squares.
    bishop: Vec<u64>,
    /// `[bishop / 2 * 64 + knight]`: white king squares.
    king: Vec<u64>,
}

impl Active {
    fn all() -> Active {
        Active {
            knight: vec![!0; 64 * 32],
            bishop: vec![!0; 64 * 64],
            king: vec![!0; 32 * 64],
        }
    }

    fn set(&mut self, lost_new: &[u64]) {
        self.knight.iter_mut().for_each(|m| *m = 0);
        self.bishop.iter_mut().for_each(|m| *m = 0);
        self.king.iter_mut().for_each(|m| *m = 0);
        for (p, _) in lost_new.iter().enumerate().filter(|(_, &l)| l != 0) {
            let (wk, b, n) = unplace(p);
            let (wk, bi, n) = (wk as usize, b as usize >> 1, n as usize);
            self.knight[wk * 32 + bi] |= bb(n as u8);
            self.bishop[wk * 64 + n] |= bb(b);
            self.king[bi * 64 + n] |= bb(wk as u8);
        }
    }
}

/// Calls `f(move byte, target placement, black king squares allowing the move)` for every
/// white move of placement `p` into a placement marked in `act`, in move-byte order.
#[inline]
fn white_moves(p: usize, act: &Active, mut f: impl FnMut(u8, usize, u64)) {
    let (wk, b, n) = unplace(p);
    let (k, bi, nn) = (wk as usize, b as usize >> 1, n as usize);
    let occ = bb(wk) | bb(b) | bb(n);
    let kings = KING[k] & !occ & act.king[bi * 64 + nn];
    let bishops = bishop_attacks(b, bb(wk) | bb(n)) & !occ & act.bishop[k * 64 + nn];
    let knights = KNIGHT[nn] & !occ & act.knight[k * 32 + bi];
    for t in squares(kings) {
        f(code(Piece::King, t), placement(t, b, n), !0);
    }
    for t in squares(bishops) {
        f(
            code(Piece::Bishop, t),
            placement(wk, t, n),
            !BETWEEN[b as usize][t as usize],
        );
    }
    for t in squares(knights) {
        f(code(Piece::Knight, t), placement(wk, b, t), !0);
    }
}

/// Write `(value, move)` for every square of `set` in a row of records.
#[inline]
fn put(row: &mut [u8], set: u64, value: u8, mv: u8) {
    for s in squares(set) {
        row[2 * s as usize] = value;
        row[2 * s as usize + 1] = mv;
    }
}

/// Solve every KBNK position (both sections) on the current rayon pool.
pub fn solve(opts: &SolveOptions) -> Result<Solution, SolveError> {
    let progress = opts.progress;
    let mut sol = Solution::new(2 * SECTION);
    let (white, black) = sol.records.split_at_mut(SECTION as usize * 2);

    progress.phase("initial positions", PLACEMENTS as u64);
    let fix: Vec<Fixed> = (0..PLACEMENTS)
        .into_par_iter()
        .with_min_len(MIN_LEN)
        .map(fixed)
        .collect();
    // Checkmates: black in check without a move (a capture is a move).
    let mut lost_b: Vec<u64> = fix
        .par_iter()
        .map(|f| f.legal_b & f.attacked & !king_spread(f.legal_w | f.capturable))
        .collect();
    black
        .par_chunks_mut(ROW)
        .zip(lost_b.par_iter())
        .with_min_len(MIN_LEN)
        .for_each(|(row, &m)| put(row, m, Value::Loss(0).to_byte(), NO_MOVE));
    progress.advance(PLACEMENTS as u64);
    let mut lost_cur = lost_b.clone();
    let mut lost_next = vec![0u64; PLACEMENTS];
    let mut won_w = vec![0u64; PLACEMENTS];

    progress.phase("retrograde", 0);
    let mut act = Active::all();
    let mut d: u16 = 0;
    loop {
        act.set(&lost_cur);
        let win = Value::Win(d + 1).to_byte();
        let lose = Value::Loss(d + 2).to_byte();
        // One pass per depth; each placement is written by its own task only.
        let (any_won, any_lost) = won_w
            .par_iter_mut()
            .zip(lost_b.par_iter_mut())
            .zip(lost_next.par_iter_mut())
            .zip(white.par_chunks_mut(ROW).zip(black.par_chunks_mut(ROW)))
            .enumerate()
            .with_min_len(MIN_LEN)
            .map(|(p, (((won, lost), next), (wrow, brow)))| {
                *next = 0;
                let f = &fix[p];
                let open = f.legal_w & !*won;
                if open == 0 {
                    return (false, false);
                }
                // Lost at d → won at d + 1: pull over the white moves of this placement;
                // the first move reaching a square is its best move.
                let mut acc = 0u64;
                white_moves(p, &act, |mv, q, allow| {
                    let hit = lost_cur[q] & allow & open & !acc;
                    if hit != 0 {
                        put(wrow, hit, win, mv);
                        acc |= hit;
                    }
                });
                if acc == 0 {
                    return (false, false);
                }
                *won |= acc;
                // Won at d + 1 → lost at d + 2: black's moves stay in this placement.
                let bad = (f.legal_w & !*won) | f.capturable;
                let fresh = f.legal_b & king_spread(f.legal_w) & !king_spread(bad) & !*lost;
                for s in squares(fresh) {
                    // The first move to a square won at exactly d + 1.
                    let to = (KING[s as usize] & acc).trailing_zeros() as u8;
                    brow[2 * s as usize] = lose;
                    brow[2 * s as usize + 1] = code(Piece::King, to);
                }
                *lost |= fresh;
                *next = fresh;
                (true, fresh != 0)
            })
            .reduce(|| (false, false), |a, b| (a.0 || b.0, a.1 || b.1));
        progress.advance(1);
        check_layer(d, any_won, any_lost)?;
        if !any_lost {
            break;
        }
        std::mem::swap(&mut lost_cur, &mut lost_next);
        d += 2;
    }
    drop((lost_cur, lost_next, act));

    // Draws: whatever was never reached. Best move: the first move to a draw (for black, a
    // capture counts); stalemates have none.
    progress.phase("best moves", PLACEMENTS as u64);
    let draw = Value::Draw.to_byte();
    let all = Active::all();
    white
        .par_chunks_mut(ROW)
        .zip(black.par_chunks_mut(ROW))
        .enumerate()
        .with_min_len(MIN_LEN)
        .for_each(|(p, (wrow, brow))| {
            let f = &fix[p];
            let open = f.legal_w & !won_w[p];
            if open != 0 {
                let mut acc = 0u64;
                white_moves(p, &all, |mv, q, allow| {
                    let hit = fix[q].legal_b & !lost_b[q] & allow & open & !acc;
                    if hit != 0 {
                        put(wrow, hit, draw, mv);
                        acc |= hit;
                    }
                });
                put(wrow, open & !acc, draw, NO_MOVE);
            }
            let open = f.legal_b & !lost_b[p];
            let drawn_to = (f.legal_w & !won_w[p]) | f.capturable;
            for s in squares(open) {
                // No drawing move only for a stalemate (a drawn position has a move to a draw).
                let t = KING[s as usize] & drawn_to;
                brow[2 * s as usize] = draw;
                brow[2 * s as usize + 1] = if t == 0 {
                    NO_MOVE
                } else {
                    code(Piece::King, t.trailing_zeros() as u8)
                };
            }
            progress.advance(1);
        });
    Ok(sol)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::placement;

    #[test]
    fn fixed_sets() {
        // Kh1, Bf1, Ng1.
        let f = fixed(placement(7, 5, 6));
        assert_eq!(f.legal_w & bb(13), bb(13)); // f2 is safe
        assert_eq!(f.legal_w & bb(14), 0); // g2 next to the king
        assert_eq!(f.capturable, bb(5)); // the knight is defended by the king, the bishop is not
    }
}
