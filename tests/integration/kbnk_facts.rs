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
        // Every move, mirrored, leads to the same value; each answer's best move heads its
        // list (ties broken by the order moves are generated in, which the mirror does
        // not keep) and is as good as the other's.
        let mirror_uci = |u: &str| -> String {
            u.chars()
                .map(|c| match c {
                    'a'..='h' => (b'h' - (c as u8 - b'a')) as char,
                    _ => c,
                })
                .collect()
        };
        let listed = |j: &serde_json::Value, mirror: bool| {
            let mut v: Vec<(String, serde_json::Value)> = j["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    let u = m["uci"].as_str().unwrap();
                    let u = if mirror { mirror_uci(u) } else { u.to_string() };
                    (u, m["dtm"].clone())
                })
                .collect();
            v.sort_by(|x, y| x.0.cmp(&y.0));
            v
        };
        assert_eq!(listed(&ja, true), listed(&jb, false), "{a}");
        for j in [&ja, &jb] {
            assert_eq!(j["best"]["uci"], j["moves"][0]["uci"], "{a}");
        }
        assert_eq!(ja["moves"][0]["dtm"], jb["moves"][0]["dtm"], "{a}");
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

/// KBN against K is answered alike from the KBNK table and from the chess KBNvK table,
/// whichever a folder holds (`retro probe chess`, `/api/probe/chess`): the same result,
/// moves in the same order, the same best move, for either side's bishop and knight; only
/// the table named differs. A folder with neither names the material missing.
#[test]
fn kbnv_k_is_answered_alike_from_either_table() {
    use retro::chess_answers::Folder;
    let own = Folder::new(super::common::tables_dir());
    let generic = Folder::new(super::common::chess_all4());
    let json = |f: &Folder, fen: &str| -> serde_json::Value {
        serde_json::from_str(&f.probe(fen).unwrap().json()).unwrap()
    };
    let name = |s: usize| format!("{}{}", (b'a' + (s % 8) as u8) as char, s / 8 + 1);
    let mut checked = 0;
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    while checked < 2_000 {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let sq: Vec<usize> = (0..4).map(|k| ((rng >> (k * 6)) & 63) as usize).collect();
        if (1..4).any(|k| sq[..k].contains(&sq[k])) {
            continue;
        }
        let black = (rng >> 40) & 1 == 1;
        let pieces = if black { "kbnK" } else { "KBNk" };
        let placed: Vec<String> = pieces
            .chars()
            .zip(&sq)
            .map(|(p, &s)| format!("{p}{}", name(s)))
            .collect();
        let turn = if (rng >> 41) & 1 == 1 { "b" } else { "w" };
        // Random squares, legal or not (an illegal one is refused alike by both).
        let mut pos = retro::chess::position::Position::empty();
        for p in &placed {
            let (c, r) = (p.chars().next().unwrap(), &p[1..]);
            let role = retro::chess::material::Role::from_letter(c).unwrap();
            let color = if c.is_ascii_uppercase() {
                retro::chess::material::Color::White
            } else {
                retro::chess::material::Color::Black
            };
            pos.put(retro::chess::board::parse_square(r).unwrap(), color, role);
        }
        let fen = format!(
            "{} {turn} - - 0 1",
            retro::chess::fen::to_fen(&pos, 0, 1)
                .split(' ')
                .next()
                .unwrap()
        );
        let (a, b) = match (own.probe(&fen), generic.probe(&fen)) {
            (Ok(_), Ok(_)) => (json(&own, &fen), json(&generic, &fen)),
            (Err(x), Err(y)) => {
                assert_eq!(x.to_string(), y.to_string(), "{fen}");
                continue;
            }
            (x, y) => panic!(
                "{fen}: {:?} / {:?}",
                x.err().map(|e| e.to_string()),
                y.err().map(|e| e.to_string())
            ),
        };
        assert_eq!(
            (a["table"].as_str(), b["table"].as_str()),
            (Some("kbnk"), Some("KBNvK"))
        );
        let strip = |mut j: serde_json::Value| {
            j.as_object_mut().unwrap().remove("table");
            j
        };
        assert_eq!(strip(a), strip(b), "{fen}");
        checked += 1;
    }
    // Nothing holds KBN against K here: the material's own table is named.
    let empty = super::common::fixture_dir();
    let none = Folder::new(empty.path());
    let e = none.probe("8/8/8/3k4/8/8/8/KBN5 w - - 0 1").err().unwrap();
    assert!(e.to_string().contains("KBNvK"), "{e}");
}
