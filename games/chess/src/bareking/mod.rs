//! The fast solver for pieces against a bare king (KQvK, KBNvK, KPPvK, ...: white has one
//! or two pieces besides its king, black only its king), byte-identical to the generic
//! two-queue solver ([`retro_engine::solve::two_queue`]); counting DTZ ([`solve_dtz`]),
//! byte-identical to the restarting solver ([`retro_engine::solve::restart`]).
//!
//! It grew out of the KBNK solver, which now runs on its passes (`games/kbnk/solver.rs`
//! gives them the `kbnk` table's own placements, move byte and records: the
//! [`Geometry`] and [`Store`] traits): for each *placement* of the
//! white king and pieces (the king in the a1-d4 quadrant, or on files a-d with pawns; each
//! piece on any square: `16 * 64^k` or `32 * 64^k` placements for k pieces), one 64-bit
//! word per set holds the black king squares. A white king move out of the region reads
//! the placement's mirror image, its black king squares mirrored back (a byte swap and a
//! bit reversal per byte). Black's moves never change the
//! placement, white's moves never change the black king square, so per depth d:
//!
//! - lost at d → won at d + 1 is a pull over each placement's white moves in move order
//!   (the first move reaching a square is its best move); promotions leave the table and
//!   reach `Known` values read from the sub-tables, per black king square;
//! - won at d + 1 → lost at d + 2 is recomputed per placement with `king_spread`: a black
//!   king square is lost when it has a move and every move goes to a won square or
//!   captures an undefended piece into a sub-table position won for white by then.
//!
//! White is never in check and never pinned (black has only a king), so a white move is
//! legal for a black king square exactly when the king does not block its path and the
//! position reached is legal with black to move. The solve runs over every placement
//! (`placements.rs`, `retrograde.rs`); the table is then filled slot by slot from the
//! placement each stored position is (`fill.rs`), where the move byte, a rank in the
//! stored position's move order, is counted with popcounts. Every stored position is a
//! placement: its white king stands in the a1-d1-d4 triangle, or on files a-d.
//!
//! DTZ (`zeroing.rs`) is the same loop with other values: the sub-tables' DTZ values
//! restarted, so that the king's captures lose at 1 or 101 plies and wins and losses come
//! at any depth; no best move; and a pawn move zeroes, so the placements are solved a tier
//! of pawn advance at a time, highest first, a pawn move being a win known in advance, in
//! 1 or 101 plies, into a tier already solved.
//!
//! Each placement is written by one task only, so the bytes do not depend on the thread
//! count.

mod fill;
mod placements;
mod retrograde;
mod zeroing;

// The passes (the checkmates, the depth loop, the draws' best moves) for placements
// numbered, moved and recorded some other way: the `kbnk` table's.
pub use placements::{Capture, Dest, Fixed, Promotion, MIN_LEN, NO_CAPTURE};
pub use retrograde::{draws, run, start, Geometry, Scope, Sets, Store};

use crate::indexing::index::Layout;
use crate::indexing::subtables::SubTables;
use crate::rules::material::Material;
use retro_engine::game::{Solution, SolveOptions};
use retro_engine::solve::restart::Restarted;
use retro_engine::solve::SolveError;
use retro_engine::table::Metric;

/// The most white pieces besides the king: three would need 16 * 64^3 placements of 64
/// black king squares, gigabytes of records; such materials take the generic solver.
const MAX_PIECES: usize = 2;

/// True if `m` (stored colouring) is solved by this solver: black has a bare king and
/// white one or two (`MAX_PIECES`) pieces besides its king.
pub fn applies(m: &Material) -> bool {
    m.sides[1].is_empty() && (1..=MAX_PIECES).contains(&m.sides[0].len())
}

/// Solve the table of `layout` (a material for which [`applies`] holds). `Ok(None)` if a
/// sub-table holds a value this solver does not expect (a capture of a white piece that
/// wins for black): the caller then takes the generic solver.
pub fn solve(
    layout: &Layout,
    subs: &SubTables,
    opts: &SolveOptions,
) -> Result<Option<Solution>, SolveError> {
    debug_assert!(applies(&layout.material));
    let Some(pl) = placements::Placements::new(layout, subs, Metric::Dtm, opts.progress) else {
        return Ok(None);
    };
    let sets = retrograde::solve(&pl, opts.progress)?;
    Ok(Some(fill::fill(layout, &pl, &sets, opts.progress)))
}

/// Solve the DTZ table of `layout` (a material for which [`applies`] holds), `subs`
/// holding its sub-materials' DTZ tables: the restarting solver's records
/// ([`retro_engine::solve::restart`]), byte for byte. `Ok(None)` as for [`solve`].
pub fn solve_dtz(
    layout: &Layout,
    subs: &SubTables,
    opts: &SolveOptions,
) -> Result<Option<Restarted>, SolveError> {
    debug_assert!(applies(&layout.material));
    let Some(pl) = placements::Placements::new(layout, subs, Metric::Dtz, opts.progress) else {
        return Ok(None);
    };
    Ok(Some(zeroing::solve(layout, &pl, opts.progress)?))
}
