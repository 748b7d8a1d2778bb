//! The bitboard solver for pieces against a bare king (`games/chess/bareking`) writes the
//! same bytes as the generic two-queue solver: in full on tables of 3 and 4 pieces (queen,
//! rook, pawn with promotions into every sub-table, identical pieces), and on a sample of
//! slots, against the definition the generic solver implements, on the 4-piece pawn
//! tables, whose generic solve costs too much for a test.

use retro::chess::material::Material;
use retro::chess::Chess;
use retro::game::{Game, Solution, SolveOptions, Value, NO_MOVE};
use retro::progress::Silent;
use retro::solve::Solve;

fn solved(name: &str) -> (Chess, Solution) {
    let m = Material::parse(name).unwrap();
    assert!(retro::chess::bareking::applies(&m), "{name}");
    let chess = Chess::open(&m, crate::common::chess_all4()).unwrap();
    let sol = chess.solve(&SolveOptions { progress: &Silent }).unwrap();
    (chess, sol)
}

#[test]
fn bare_king_solver_writes_the_generic_solvers_bytes() {
    for name in ["KQvK", "KRvK", "KPvK", "KBBvK"] {
        let (chess, fast) = solved(name);
        let generic =
            retro::solve::two_queue::solve(&chess, &SolveOptions { progress: &Silent }).unwrap();
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

/// The record the generic solver writes for slot `i`, from the values `sol` gives the
/// positions its moves lead to: illegal `[0, 0]`; terminal, no move; otherwise the best
/// value over the moves and the first move (in move order) achieving it.
fn by_definition(chess: &Chess, sol: &Solution, i: u64) -> (Value, u8) {
    let Some(pos) = chess.decode(i) else {
        return (Value::Illegal, NO_MOVE);
    };
    if let Some(v) = chess.terminal(&pos) {
        return (v, NO_MOVE);
    }
    let mut succ = Vec::new();
    chess.successors(&pos, &mut succ);
    let values: Vec<Value> = succ
        .iter()
        .map(|s| s.to.value(|j| sol.value(j)).back())
        .collect();
    let best = values.iter().copied().reduce(Value::better).unwrap();
    let k = values.iter().position(|&v| v == best).unwrap();
    (best, succ[k].mv)
}

#[test]
fn bare_king_solver_keeps_the_definition_with_pawns_and_pieces() {
    for (name, step) in [("KQPvK", 211), ("KPPvK", 157), ("KNPvK", 401)] {
        let (chess, sol) = solved(name);
        let mut decisive = 0;
        for i in (0..chess.size()).step_by(step) {
            let want = by_definition(&chess, &sol, i);
            assert_eq!(
                (sol.value(i), sol.mv(i)),
                want,
                "{name} slot {i}: {:?}",
                chess.decode(i)
            );
            decisive += want.0.is_decisive() as u32;
        }
        assert!(
            decisive > 1_000,
            "{name}: {decisive} decisive slots sampled"
        );
    }
}
