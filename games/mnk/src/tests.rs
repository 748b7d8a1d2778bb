//! Unit tests of the whole plug-in: the index against the contract, the tier solver against
//! the generic one, probing in every orientation.

use super::*;
use retro_engine::game::{Game, Outcome, Solution, SolveOptions};
use retro_engine::progress::Silent;
use retro_engine::solve::Solve;

fn opts() -> SolveOptions<'static> {
    SolveOptions { progress: &Silent }
}

fn generic(g: &Mnk) -> Solution {
    retro_engine::solve::two_queue::solve(g, &opts()).unwrap()
}

/// The engine's conformance self-test (index round trips, canonical forms for every
/// orientation, un-moves against moves) on every slot, plus: decoded boards are legal.
fn conformance(g: &Mnk) {
    let mut legal = 0;
    for i in 0..g.size() {
        retro_engine::selftest::check_slot(g, i).unwrap();
        if let Some(b) = g.decode(i) {
            legal += 1;
            assert!(g.check_legal(&b).is_ok(), "{}", g.position_text(&b));
        }
    }
    assert!(legal > 0);
}

#[test]
fn conformance_small_boards() {
    for (w, h, k) in [
        (3, 3, 3),
        (4, 3, 3),
        (3, 4, 3),
        (5, 1, 3),
        (2, 2, 2),
        (4, 2, 3),
    ] {
        conformance(&Mnk::new(w, h, k).unwrap());
    }
}

#[test]
fn fast_equals_generic() {
    for (w, h, k) in [
        (3, 3, 3),
        (3, 4, 3),
        (4, 3, 3),
        (4, 4, 3),
        (4, 4, 4),
        (5, 1, 3),
        (2, 3, 2),
        (5, 3, 4),
        (1, 6, 3),
        (6, 2, 3),
        (2, 4, 2),
    ] {
        let g = Mnk::new(w, h, k).unwrap();
        let fast = g.solve(&opts()).unwrap();
        let slow = generic(&g);
        if fast != slow {
            let i = (0..g.size())
                .find(|&i| fast.value(i) != slow.value(i) || fast.mv(i) != slow.mv(i))
                .unwrap();
            panic!(
                "{w}x{h} k={k}: slot {i} {:?}: fast {:?} {} generic {:?} {}",
                g.decode(i).map(|b| g.position_text(&b)),
                fast.value(i),
                fast.mv(i),
                slow.value(i),
                slow.mv(i)
            );
        }
    }
}

#[test]
fn refuses_bad_parameters() {
    let e = Mnk::new(5, 5, 4).unwrap_err().to_string();
    assert!(e.starts_with("5x5 (25 cells) needs about "), "{e}");
    assert!(
        e.ends_with("GiB for its table; the limit is 20 cells"),
        "{e}"
    );
    assert!(Mnk::new(7, 7, 5).is_err());
    let e = Mnk::new(1000, 1000, 5).unwrap_err().to_string();
    assert!(e.contains("far more than 1 TiB"), "{e}");
    assert!(Mnk::new(u32::MAX, u32::MAX, 5).is_err());
    assert!(Mnk::new(0, 3, 2).is_err());
    assert!(Mnk::new(3, 3, 4).is_err());
    assert!(Mnk::new(3, 3, 1).is_err());
    assert!(Mnk::new(5, 4, 5).is_ok());
}

#[test]
fn legality() {
    let g = Mnk::new(3, 3, 3).unwrap();
    let illegal = |s: &str| match g.parse_position(s) {
        Err(retro_engine::game::PositionError::Illegal(why)) => why,
        other => panic!("{s}: {other:?}"),
    };
    assert!(illegal("xx./.../...").contains("stones"));
    assert!(illegal("o../.../...").contains("stones"));
    // X to move with a line of its own.
    assert!(illegal("xxx/oo./o..").contains("X is to move"));
    // Both players have a line.
    assert!(illegal("xxx/ooo/x..").contains("to move"));
    // Two separate X lines.
    let g5 = Mnk::new(5, 3, 3).unwrap();
    match g5.parse_position("xxx.o/oo.o./o.xxx") {
        Err(retro_engine::game::PositionError::Illegal(why)) => {
            assert!(why.contains("no single stone"))
        }
        other => panic!("{other:?}"),
    }
    // One stone completing two lines at once is fine.
    assert!(g.parse_position("xxx/xoo/xoo").is_ok());
    assert!(g.parse_position("xxx/oo./...").is_ok());
    assert!(g.parse_position("x../.../...").is_ok());
}

#[test]
fn moves_come_back_in_the_probed_orientation() {
    let g = Mnk::new(4, 3, 3).unwrap();
    let sol = g.solve(&opts()).unwrap();
    for i in 0..g.size() {
        let Some(b) = g.decode(i) else { continue };
        if g.terminal(&b).is_some() {
            continue;
        }
        let stored = sol.mv(i);
        for im in g.orbit(&b) {
            let mv = g.move_from_canonical(&im, stored).unwrap();
            let mut succ = Vec::new();
            g.successors(&im, &mut succ);
            let s = succ.iter().find(|s| s.mv == mv).expect("a legal move");
            let Outcome::Index(j) = s.to else { panic!() };
            assert_eq!(sol.value(j).back(), sol.value(i));
        }
    }
}

#[test]
fn probe_text_and_summary() {
    let g = Mnk::new(3, 3, 3).unwrap();
    let sol = g.solve(&opts()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (game, params) = g.params();
    let (path, _) = retro_engine::table::write_table(
        dir.path(),
        game,
        &Game::name(&g),
        params,
        &Game::sections(&g),
        &sol.records,
    )
    .unwrap();
    let t = retro_engine::table::Table::open(&path).unwrap();
    let lines = GameText::summary_lines(&g, &t);
    assert_eq!(
        lines,
        [
            "empty board: draw (all 9 first moves are equally good)",
            "positions reachable from the empty board: 5,478 (765 up to symmetry)"
        ]
    );
    let b = g.parse_position("xx./.o./...").unwrap();
    let p = retro_engine::probe::probe(&g, &t, &b);
    let a = g.present(&b, &p);
    let a_json: serde_json::Value = serde_json::from_str(&a.json()).unwrap();
    let a_text = a.text();
    println!("{a_text}\n{a_json}");
    assert!(a_text.contains("O to move: draw"), "{}", a_text);
    assert!(a_text.contains("best move: c3"), "{}", a_text);
    // O's a1 leaves c3 to X, who completes the top row: for O the game ends 2 plies on,
    // a1 itself counted.
    assert!(a_text.contains("a1  loss in 2 plies"), "{}", a_text);
    let a1 = a_json["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["cell"] == "a1")
        .unwrap();
    assert_eq!(
        (a1["result"].as_str(), a1["plies"].as_u64()),
        (Some("loss in 2 plies"), Some(2))
    );
    assert_eq!(a_json["best"]["cell"], "c3");
    assert_eq!(a_json["turn"], "o");
    assert_eq!(a_json["board"], "xx./.o./...");
}
