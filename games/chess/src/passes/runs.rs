//! Captures and promotions read as runs of a sub-table: from every slot of a group, the
//! same kind of capture (the same piece taking the same piece, promoting to the same role)
//! leads to positions of the sub-table that differ by one piece's square alone, the last
//! piece's (a fixed piece or a king took a fixed piece) or the taker's (it took the last
//! piece, on the last piece's square). Where the orientation of the sub-table does not
//! depend on that piece's square and it has no twin there, those positions' slots are one
//! run, a slot a square of that piece
//! apart by its digit's weight: the run is worked out once a group and kind, and each slot
//! reads its position at an offset, where a probe would place every piece and work out the
//! sub-table's index anew.

use std::cell::RefCell;

use super::dest::{Dest, GONE};
use super::ChessPasses;
use crate::indexing::index::transform;
use crate::indexing::subtables::Route;
use crate::rules::board::Square;
use crate::rules::material::{Color, Role};
use retro_engine::game::{Index, Value};
use retro_engine::solve::one_byte::bits;

/// The kinds of capture and promotion of a group, a number each ([`kind`]).
const KINDS: usize = 125;

thread_local! {
    /// The runs of one group, worked out as its kinds are met.
    static RUNS: RefCell<Runs> = const {
        RefCell::new(Runs {
            id: 0,
            first: Index::MAX,
            known: 0,
            run: [None; KINDS],
        })
    };
}

/// The runs of one group of one table's passes.
struct Runs {
    /// Whose group: the passes' [`ChessPasses::id`] (a thread goes on to other tables,
    /// and to the same material's other metric) and its first slot (`Index::MAX`: none).
    id: u64,
    first: Index,
    /// The kinds worked out (bit [`kind`]); `None` where the kind is no run.
    known: u128,
    run: [Option<Run>; KINDS],
}

/// The slots of a sub-table holding the positions of one kind of capture or promotion
/// from a group: `first` plus the digit of the varying piece's square, turned by `t`,
/// times `stride`.
#[derive(Clone, Copy)]
struct Run {
    first: Index,
    t: u8,
    stride: Index,
    /// The varying piece is a pawn (its digit is its square less 8).
    pawn: bool,
    /// The sub-table read (in the other colouring: squares mirrored by rank).
    route: Route,
}

impl Run {
    /// The sub-table slot where the varying piece stands on `s`.
    fn slot(&self, s: Square) -> Index {
        let x = transform(self.t, if self.route.flip { s ^ 56 } else { s });
        self.first + (if self.pawn { x - 8 } else { x }) as Index * self.stride
    }
}

/// The number of a kind of capture or promotion: the piece moving (`taker`: its place in
/// the table's pieces, 4 for the king), the piece taken (its place, 4 for none) and the
/// promotion (its place in [`Role::PROMOTIONS`], 4 for none).
pub(super) fn kind(taker: usize, taken: usize, promotion: usize) -> usize {
    (taker * 5 + taken) * 5 + promotion
}

/// The king as a taker in [`kind`].
pub(super) const KING_TAKES: usize = 4;

impl ChessPasses<'_> {
    /// The value, for `turn` to move, of capture or promotion `d` (of [`kind`] `k`) from
    /// the slot of group `first` that leads to kings on `wk`, `bk` and the table's pieces
    /// on `after`, where piece `varying` (the last piece, or the taker of the last piece)
    /// is the only one whose square changes from slot to slot: read by the group's run
    /// where there is one, else by [`ChessPasses::probe`].
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_probe(
        &self,
        first: Index,
        k: usize,
        d: &Dest,
        varying: usize,
        turn: Color,
        wk: Square,
        bk: Square,
        after: &[Square; 4],
    ) -> Value {
        let Some(run) = self.group_run(first, k, d, varying, turn, wk, bk, after) else {
            return self.probe(d, turn, wk, bk, after);
        };
        let v = self
            .chess
            .subs
            .value_at(run.route, run.slot(after[varying]));
        debug_assert_eq!(self.exit(v), self.probe(d, turn, wk, bk, after));
        self.exit(v)
    }

    /// [`ChessPasses::run_probe`] of every slot `b` of `lanes` in the group at `first`, the
    /// last piece varying (on `last_square(b)`), into `out[b]`: one run read lane by lane.
    /// False (nothing read) where the kind is no run.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn run_lanes(
        &self,
        first: Index,
        k: usize,
        d: &Dest,
        turn: Color,
        wk: Square,
        bk: Square,
        after: &[Square; 4],
        lanes: u64,
        out: &mut [Value; 64],
    ) -> bool {
        let n = self.layout().pieces.len();
        let Some(run) = self.group_run(first, k, d, n - 1, turn, wk, bk, after) else {
            return false;
        };
        let subs = &self.chess.subs;
        for b in bits(lanes) {
            let v = subs.value_at(run.route, run.slot(self.last_square(b)));
            out[b as usize] = self.exit(v);
            debug_assert!({
                let mut a = *after;
                a[n - 1] = self.last_square(b);
                out[b as usize] == self.probe(d, turn, wk, bk, &a)
            });
        }
        true
    }

    /// The run of kind `k` (capture or promotion `d`, piece `varying` the only one whose
    /// square changes) from the group at `first`: worked out once a group and kind
    /// ([`ChessPasses::run_of`]) and kept in the thread's [`Runs`].
    #[allow(clippy::too_many_arguments)]
    fn group_run(
        &self,
        first: Index,
        k: usize,
        d: &Dest,
        varying: usize,
        turn: Color,
        wk: Square,
        bk: Square,
        after: &[Square; 4],
    ) -> Option<Run> {
        RUNS.with(|r| {
            let mut r = r.borrow_mut();
            if (r.id, r.first) != (self.id, first) {
                (r.id, r.first, r.known) = (self.id, first, 0);
            }
            if r.known & 1 << k == 0 {
                r.run[k] = self.run_of(d, varying, turn, wk, bk, after);
                r.known |= 1 << k;
            }
            r.run[k]
        })
    }

    /// The run of capture or promotion `d` from a group, piece `varying` of the table the
    /// only one whose square changes (here on `after[varying]`): `None` where its square
    /// may decide the sub-table's orientation (two symmetries give the kings, and it is
    /// not the sub-table's last piece, or the others leave the choice to it), where it has
    /// a twin there (their order may change) or where it is gone.
    fn run_of(
        &self,
        d: &Dest,
        varying: usize,
        turn: Color,
        wk: Square,
        bk: Square,
        after: &[Square; 4],
    ) -> Option<Run> {
        let route = d.route?;
        let p = d.place[varying];
        if p == GONE {
            return None;
        }
        let p = p as usize;
        let l = self.chess.subs.layout_of(route);
        let k = l.pieces.len();
        if (0..k).any(|j| j != p && l.pieces[j] == l.pieces[p]) {
            return None;
        }
        let (turn, wk, bk, out) = d.in_sub(route, turn, wk, bk, after);
        let t = match l.orientation(wk, bk) {
            Some(t) => t,
            // The sub-table's other pieces choose, the same wherever its last piece stands
            // ([`Layout::group_orientation`](crate::indexing::index::Layout::group_orientation)).
            None if p == k - 1 => l.group_orientation(wk, bk, &out[..k - 1])?,
            None => return None,
        };
        let pawn = l.pieces[p].1 == Role::Pawn;
        let size = |r: Role| if r == Role::Pawn { 48 } else { 64 };
        let stride: Index = l.pieces[p + 1..k].iter().map(|&(_, r)| size(r)).product();
        let x = transform(t, out[p]);
        let digit = (if pawn { x - 8 } else { x }) as Index;
        Some(Run {
            first: l.slot_of(turn, wk, bk, &out[..k]) - digit * stride,
            t,
            stride,
            pawn,
            route,
        })
    }
}
