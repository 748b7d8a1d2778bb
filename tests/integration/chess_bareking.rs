//! The bitboard solver for pieces against a bare king (`games/chess/bareking`) writes the
//! same bytes as the generic two-queue solver, on tables of 3 and 4 pieces: queen, rook,
//! pawn (promotions into every sub-table), identical pieces (KBBvK: only the increasing
//! order is stored) and a pawn with a piece (KQPvK).

use retro::chess::material::Material;
use retro::chess::Chess;
use retro::game::{Game, SolveOptions};
use retro::progress::Silent;

#[test]
fn bare_king_solver_writes_the_generic_solvers_bytes() {
    let dir = crate::common::chess_all4();
    let opts = SolveOptions { progress: &Silent };
    for name in ["KQvK", "KRvK", "KPvK", "KBBvK", "KQPvK"] {
        let m = Material::parse(name).unwrap();
        assert!(retro::chess::bareking::applies(&m), "{name}");
        let chess = Chess::open(&m, dir).unwrap();
        let fast = chess.solve(&opts).unwrap();
        let generic = retro::solve::two_queue::solve(&chess, &opts).unwrap();
        assert_eq!(fast.records.len(), generic.records.len(), "{name}");
        let first = (0..chess.size())
            .find(|&i| fast.value(i) != generic.value(i) || fast.mv(i) != generic.mv(i));
        assert_eq!(
            first.map(|i| (i, chess.decode(i), fast.value(i), fast.mv(i))),
            first.map(|i| (i, chess.decode(i), generic.value(i), generic.mv(i))),
            "{name}: first differing slot"
        );
    }
}
