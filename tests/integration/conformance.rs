//! The engine's conformance self-test on every plug-in: index round-trips, canonical forms,
//! successors and predecessors agreeing both ways, on slots sampled by proptest. (Small
//! k-in-a-row boards are also checked in every slot, in `games/mnk/tests.rs`.)

use proptest::prelude::*;
use retro::game::Game;
use retro::selftest::check_slot;

fn sample<G: Game>(game: &G, cases: u32) {
    let size = game.size();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(cases));
    runner
        .run(&(0..size), |i| {
            check_slot(game, i).map_err(TestCaseError::fail)?;
            Ok(())
        })
        .unwrap();
}

#[test]
fn kbnk_conforms() {
    sample(&retro::kbnk::Kbnk::new(), 20_000);
}

#[test]
fn larger_mnk_boards_conform() {
    // Boards up to 12 cells are checked in every slot by games/mnk/tests.rs.
    for (w, h, k) in [(4, 4, 3), (4, 4, 4), (5, 3, 4), (5, 4, 4), (4, 5, 4)] {
        let g = retro::mnk::Mnk::new(w, h, k).unwrap();
        sample(&g, 5_000);
    }
}
