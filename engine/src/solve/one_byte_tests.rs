//! The one-byte solver against the two-queue solver: the same records on random game
//! graphs (cycles, draws, moves leaving the table, en-passant-like links), whatever the
//! thread count.

use proptest::prelude::*;

use super::tests::{chain, graphs};
use crate::game::*;
use crate::progress::Silent;

fn one_byte(g: &crate::testgame::Graph) -> Result<Solution, super::SolveError> {
    let opts = SolveOptions { progress: &Silent };
    let passes = super::one_byte::GamePasses(g);
    Ok(super::one_byte::solve(passes, &opts)?.to_solution(&Silent))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn one_byte_writes_the_two_queue_records(g in graphs()) {
        let want = super::two_queue::solve(&g, &SolveOptions { progress: &Silent }).unwrap();
        let got = one_byte(&g).unwrap();
        for i in 0..g.succ.len() as Index {
            prop_assert_eq!(
                (got.value(i), got.mv(i)),
                (want.value(i), want.mv(i)),
                "node {}", i
            );
        }
    }

    #[test]
    fn one_byte_bytes_do_not_depend_on_the_thread_count(g in graphs()) {
        let solve = |t| crate::generate::with_threads(Some(t), || one_byte(&g).unwrap()).unwrap();
        prop_assert_eq!(solve(1), solve(3));
    }
}

#[test]
fn the_longest_loss_is_solved_and_one_ply_more_is_refused() {
    let sol = one_byte(&chain(255)).unwrap();
    assert_eq!(sol.value(254), Value::Loss(MAX_LOSS_PLIES));
    assert_eq!(sol.value(253), Value::Win(MAX_WIN_PLIES));
    assert_eq!((sol.mv(0), sol.mv(254)), (NO_MOVE, 1));
    let err = one_byte(&chain(256)).unwrap_err();
    assert!(matches!(err, super::SolveError::TooDeep(255)), "{err}");
}
