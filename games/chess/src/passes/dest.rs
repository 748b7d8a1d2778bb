//! Where the positions after a capture or promotion are read in a sub-table: shared by
//! the exits of a group's start (`start.rs`) and the runs they are read by (`runs.rs`).

use crate::indexing::subtables::Route;
use crate::rules::board::Square;
use crate::rules::material::Color;

/// No piece: the place of a captured piece in a sub-table's index.
pub(super) const GONE: u8 = u8::MAX;

/// Where the positions after one kind of capture or promotion are read.
#[derive(Clone, Copy)]
pub(super) struct Dest {
    /// `None`: only the kings are left, a draw.
    pub(super) route: Option<Route>,
    /// Per piece of the table: its place among the sub-table's pieces, or [`GONE`].
    pub(super) place: [u8; 4],
}

impl Dest {
    /// A position of the table (`turn` to move, the kings, the table's pieces on `sq`,
    /// those gone ignored) as its sub-table `route` stores it: the side to move, the kings
    /// and the sub-table's pieces in its order, in its colouring.
    pub(super) fn in_sub(
        &self,
        route: Route,
        turn: Color,
        wk: Square,
        bk: Square,
        sq: &[Square; 4],
    ) -> (Color, Square, Square, [Square; 4]) {
        let mut out = [0u8; 4];
        for (m, &at) in self.place.iter().enumerate() {
            if at != GONE {
                out[at as usize] = if route.flip { sq[m] ^ 56 } else { sq[m] };
            }
        }
        if route.flip {
            (turn.other(), bk ^ 56, wk ^ 56, out)
        } else {
            (turn, wk, bk, out)
        }
    }
}
