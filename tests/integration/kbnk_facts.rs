//! KBNK: the published facts, the examples and mirroring. The table is solved once per test
//! binary. Its fast solver's values and best moves are checked against the chess plug-in's
//! generic KBNvK table, slot by slot, in chess_facts.

use retro::solve::Solve;
use std::sync::OnceLock;

use retro::game::{Game, Solution, SolveOptions, Value, NO_MOVE};
use retro::kbnk::Kbnk;
use retro::present::{DistanceUnit, GameText};
use retro::probe::probe;
use retro::progress::Silent;
use retro::table::Table;

struct Fixture {
    sol: &'static Solution,
    table: Table,
}

/// The shared solution and its table file (see `common`).
fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| Fixture {
        sol: super::common::kbnk_solution(),
        table: Table::open(&super::common::kbnk_file()).expect("opens"),
    })
}

const HALF: usize = 8_388_608;

/// Histogram of the values of one section (0 white, 1 black), by value code.
fn histogram(sol: &Solution, section: usize) -> [u64; 257] {
    let mut h = [0u64; 257];
    for r in sol.records[section * 2 * HALF..(section + 1) * 2 * HALF].chunks_exact(2) {
        h[Value::from_record(r[0], r[1]).code() as usize] += 1;
    }
    h
}

fn count(h: &[u64; 257], f: impl Fn(Value) -> bool) -> u64 {
    (0..257)
        .filter(|&c| f(Value::from_code(c as u16).unwrap()))
        .map(|c| h[c])
        .sum()
}

#[test]
fn published_facts() {
    let sol = &fixture().sol;
    assert_eq!(sol.records.len(), 4 * HALF);
    let w = histogram(sol, 0);
    let b = histogram(sol, 1);
    let legal = |v: Value| v != Value::Illegal;
    assert_eq!(count(&w, legal), 5_437_752, "legal, white to move");
    assert_eq!(count(&b, legal), 6_830_292, "legal, black to move");
    assert_eq!(count(&w, |v| matches!(v, Value::Win(_))), 5_411_092, "won");
    assert_eq!(
        count(&b, |v| matches!(v, Value::Loss(_))),
        5_594_084,
        "lost"
    );
    assert_eq!(count(&w, |v| v == Value::Draw), 26_660, "drawn wtm");
    assert_eq!(count(&b, |v| v == Value::Draw), 1_236_208, "drawn btm");
    // White never loses, black never wins.
    assert_eq!(count(&w, |v| matches!(v, Value::Loss(_))), 0);
    assert_eq!(count(&b, |v| matches!(v, Value::Win(_))), 0);
    assert_eq!(b[Value::Loss(0).code() as usize], 232, "checkmates");
    assert_eq!(w[Value::Win(1).code() as usize], 920, "mate in 1");
    assert_eq!(b[Value::Loss(2).code() as usize], 156, "lost in 1");
    // Longest: 33 moves for both sides.
    let longest_w = (0..257).rev().find(|&i| w[i] > 0 && i >= 2).unwrap();
    assert_eq!(Value::from_code(longest_w as u16), Some(Value::Win(65)));
    assert_eq!(w[longest_w], 552);
    let longest_b = (0..257).rev().find(|&i| b[i] > 0).unwrap();
    assert_eq!(Value::from_code(longest_b as u16), Some(Value::Loss(66)));
    assert_eq!(b[longest_b], 1_480);
}

#[test]
fn records_are_well_formed() {
    let g = Kbnk::new();
    let sol = &fixture().sol;
    for i in (0..2 * HALF as u64).step_by(101) {
        let (v, mv) = (sol.value(i), sol.mv(i));
        match g.decode(i) {
            None => assert_eq!((v, mv), (Value::Illegal, NO_MOVE), "index {i}"),
            Some(p) => {
                let terminal = g.terminal(&p);
                if terminal.is_some() {
                    assert_eq!((Some(v), mv), (terminal, NO_MOVE));
                } else {
                    assert_ne!(mv, NO_MOVE, "{}", g.position_text(&p));
                }
            }
        }
    }
}

fn probe_fen(fen: &str) -> (retro::kbnk::Position, retro::probe::Probed) {
    let g = Kbnk::new();
    let pos = g.parse_position(fen).expect(fen);
    let probed = probe(&g, &fixture().table, &pos);
    (pos, probed)
}

#[test]
fn examples_mate_in_33() {
    let g = Kbnk::new();
    for fen in [
        "8/8/8/8/8/8/5k2/5BNK w - - 0 1",
        "8/8/8/8/8/8/2k5/KNB5 w - - 0 1",
    ] {
        let (pos, p) = probe_fen(fen);
        assert_eq!(p.value, Value::Win(65), "{fen}");
        let shown = show(g.present(&pos, &p));
        assert_eq!(shown.json["category"], "win");
        assert_eq!(shown.json["dtm"], 65);
        assert_eq!(shown.json["mate_in"], 33);
        assert!(shown.text.contains("white mates in 33"), "{}", shown.text);
        // The best move keeps the value: it leads to black lost in 32 moves (64 plies).
        let best = p.best.expect("a best move");
        let (_, after) = p.moves.iter().find(|m| m.0 == best).expect("legal");
        assert_eq!(*after, Value::Loss(64));
        assert_eq!(p.moves[0].1, Value::Loss(64));
        assert_eq!(shown.json["moves"][0]["category"], "loss");
        assert_eq!(shown.json["moves"][0]["dtm"], -64);
        // One vocabulary: the move's result for white, who makes it, in 65 plies.
        assert_eq!(shown.json["result"], "white mates in 33");
        assert_eq!(shown.json["moves"][0]["result"], "mate in 33");
        assert_eq!(shown.json["moves"][0]["plies"], 65);
        let san = shown.json["moves"][0]["san"].as_str().unwrap().to_string();
        assert!(
            shown
                .text
                .lines()
                .any(|l| l.trim_start().starts_with(&san) && l.ends_with(" mate in 33 (65 plies)")),
            "{}",
            shown.text
        );
    }
    let (pos, p) = probe_fen("8/8/8/6B1/8/8/4k3/1K5N b - - 0 1");
    assert_eq!(p.value, Value::Loss(66));
    let shown = show(g.present(&pos, &p));
    assert_eq!(shown.json["category"], "loss");
    assert_eq!(shown.json["dtm"], -66);
    assert_eq!(shown.json["mate_in"], -33);
    assert!(
        shown.text.contains("black is mated in 33"),
        "{}",
        shown.text
    );
}

#[test]
fn mirrored_positions_agree() {
    let g = Kbnk::new();
    // Each position and its file mirror (bishop colours swapped).
    for (a, b) in [
        (
            "8/8/8/8/8/8/2k5/KNB5 w - - 0 1",
            "8/8/8/8/8/8/5k2/5BNK w - - 0 1",
        ),
        (
            "8/8/8/1B6/8/8/3k4/N5K1 b - - 0 1",
            "8/8/8/6B1/8/8/4k3/1K5N b - - 0 1",
        ),
        (
            "8/3k4/8/8/2N5/8/2K5/5B2 w - - 0 1",
            "8/4k3/8/8/5N2/8/5K2/2B5 w - - 0 1",
        ),
    ] {
        let (pa, ra) = probe_fen(a);
        let (pb, rb) = probe_fen(b);
        assert_eq!(retro::kbnk::index::mirrored(&pa), pb);
        assert_eq!(ra.value, rb.value, "{a}");
        let mirror_mv = |m: u8| m ^ 7;
        assert_eq!(ra.best.map(mirror_mv), rb.best, "{a}");
        let ja = show(g.present(&pa, &ra)).json;
        let jb = show(g.present(&pb, &rb)).json;
        assert_eq!(ja["dtm"], jb["dtm"]);
        let ua = ja["best"]["uci"].as_str().unwrap().to_string();
        let ub = jb["best"]["uci"].as_str().unwrap().to_string();
        let mirror_uci: String = ua
            .chars()
            .map(|c| match c {
                'a'..='h' => (b'h' - (c as u8 - b'a')) as char,
                _ => c,
            })
            .collect();
        assert_eq!(mirror_uci, ub);
        // Every move has the mirrored value.
        assert_eq!(ra.moves.len(), rb.moves.len());
        for &(m, v) in &ra.moves {
            assert!(rb.moves.contains(&(m ^ 7, v)));
        }
        // The stored best move of the dark-bishop position is a best move in its own frame.
        if let Some(best) = ra.best {
            let v = ra.moves.iter().find(|x| x.0 == best).unwrap().1;
            assert_eq!(v.back(), ra.value);
        }
    }
}

#[test]
fn same_result_on_one_and_two_threads() {
    let g = Kbnk::new();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| g.solve(&SolveOptions { progress: &Silent }).unwrap());
    assert!(one == *fixture().sol);
}

#[test]
fn presented_answers() {
    let g = Kbnk::new();
    // Mate in 1: Bf6#.
    let (pos, p) = probe_fen("7k/4N3/6K1/8/7B/8/8/8 w - - 0 1");
    assert_eq!(p.value, Value::Win(1));
    let shown = show(g.present(&pos, &p));
    println!("{}\n{}", shown.text, shown.json);
    let j = &shown.json;
    assert_eq!(j["fen"], "7k/4N3/6K1/8/7B/8/8/8 w - - 0 1");
    // The shared chess answer, naming this table.
    assert_eq!(j["table"], "kbnk");
    assert!(shown
        .text
        .starts_with("7k/4N3/6K1/8/7B/8/8/8 w - - 0 1 (kbnk)\n"));
    assert_eq!(j["side"], "white");
    assert_eq!(j["category"], "win");
    assert_eq!(j["dtm"], 1);
    assert_eq!(j["mate_in"], 1);
    assert_eq!(j["best"]["san"], "Bf6#");
    assert_eq!(j["best"]["uci"], "h4f6");
    let first = &j["moves"][0];
    assert_eq!(first["san"], "Bf6#");
    assert_eq!(first["category"], "loss");
    assert_eq!(first["dtm"], 0);
    assert_eq!(first["checkmate"], true);
    assert_eq!(first["capture"], false);
    assert!(shown.text.contains("white mates in 1"));
    assert!(shown.text.contains("best move: Bf6# (h4f6)"));
    assert_eq!(shown.json["moves"][0]["result"], "checkmate");
    assert_eq!(shown.json["moves"][0]["plies"], 1);
    assert!(
        shown.text.contains("Bf6#     h4f6   checkmate (1 ply)"),
        "{}",
        shown.text
    );

    // Black to move with a capture available: the capture is a draw, listed first.
    let (pos, p) = probe_fen("8/8/8/8/8/8/3N4/K1k2B2 b - - 0 1");
    assert_eq!(p.value, Value::Draw);
    let shown = show(g.present(&pos, &p));
    println!("{}\n{}", shown.text, shown.json);
    let j = &shown.json;
    assert_eq!(j["category"], "draw");
    assert!(j["dtm"].is_null() && j["mate_in"].is_null());
    assert_eq!(j["best"]["san"], "Kxd2");
    let cap = &j["moves"][0];
    assert_eq!(cap["san"], "Kxd2");
    assert_eq!(cap["capture"], true);
    assert_eq!(cap["category"], "draw");
    assert!(cap["dtm"].is_null());
    // Taking leaves K+N v K: the reason is said, for the capture and for the position.
    assert_eq!(cap["result"], "draw: insufficient material");
    assert!(cap["plies"].is_null());
    assert_eq!(j["result"], "draw: black takes the knight");
    assert!(
        shown
            .text
            .contains("Kxd2     c1d2   draw: insufficient material\n"),
        "{}",
        shown.text
    );
    let n = j["moves"].as_array().unwrap().len();
    assert_eq!(n, p.moves.len());
}

#[test]
fn written_table_verifies() {
    // The engine's `verify`: every record recomputed from its successors' stored values.
    let report = retro::verify::verify(&Kbnk::new(), &fixture().table, 5, &Silent);
    assert!(report.ok(), "{:?}", report.first);
    assert_eq!(report.checked, 2 * HALF as u64);
    // The statistics `generate` and `info` print come from the header's histograms.
    let stats = retro::summary::stats(fixture().table.header(), DistanceUnit::Moves);
    assert_eq!(
        (
            stats[0].legal,
            stats[0].wins,
            stats[0].draws,
            stats[0].longest
        ),
        (5_437_752, 5_411_092, 26_660, Some((33, 552)))
    );
    assert_eq!(
        (
            stats[1].legal,
            stats[1].losses,
            stats[1].draws,
            stats[1].longest
        ),
        (6_830_292, 5_594_084, 1_236_208, Some((33, 1480)))
    );
}

/// A rendered answer in both forms.
struct Shown {
    json: serde_json::Value,
    text: String,
}

fn show(p: retro::present::Presented) -> Shown {
    Shown {
        json: serde_json::from_str(&p.json()).expect("answers are JSON"),
        text: p.text(),
    }
}
