//! Generic chess tables: published facts, the KBNK table agreeing with the generic KBNvK
//! table on every position, the self-test on every material, identical bytes whatever
//! the thread count, and sub-tables read from files. The tables are generated once per
//! test binary, in a temporary folder.

use std::path::Path;

use retro::chess::material::Material;
use retro::chess::Chess;
use retro::game::{Game, Value};
use retro::generate::with_threads;
use retro::present::DistanceUnit;
use retro::progress::Silent;
use retro::solve::one_byte::{check_group_passes, check_passes, GamePasses, Passes};
use retro::summary::{stats, SectionStats};
use retro::table::Table;

/// The materials the facts need, with everything they lead to.
const MATERIALS: &[&str] = &["KQvK", "KRvK", "KBBvK", "KBNvK", "KQvKR", "KPvK", "KRvKP"];

/// Every table of up to 4 pieces (the shared set), [`MATERIALS`] among them.
fn tables() -> &'static Path {
    crate::common::chess_all4()
}

fn section_stats(name: &str) -> Vec<SectionStats> {
    let t = Table::open(&retro::table::table_path(tables(), name)).unwrap();
    stats(t.header(), DistanceUnit::Moves)
}

/// Longest mate in moves over both sides to move.
fn longest(name: &str) -> u16 {
    section_stats(name)
        .iter()
        .filter_map(|s| s.longest.map(|l| l.0))
        .max()
        .unwrap()
}

#[test]
fn longest_mates() {
    // Published maxima (white to move mates in n moves).
    assert_eq!(longest("KQvK"), 10);
    assert_eq!(longest("KRvK"), 16);
    assert_eq!(longest("KBBvK"), 19);
    assert_eq!(longest("KBNvK"), 33);
    assert_eq!(longest("KQvKR"), 35);
    assert_eq!(longest("KPvK"), 28);
    // The longest 4-piece mate: KRvKP, 85 plies, with the pawn's side to move (the pawn
    // queens into KQvKR). Exactly one such position is stored, none longer.
    let t = Table::open(&retro::table::table_path(tables(), "KRvKP")).unwrap();
    let black = &t.header().sections[1].histogram;
    assert_eq!(black[Value::Win(85).code() as usize], 1);
    assert_eq!(longest("KRvKP"), 43);
    // Bare minor pieces cannot mate.
    for m in ["KBvK", "KNvK"] {
        for s in section_stats(m) {
            assert_eq!((s.wins, s.losses), (0, 0), "{m}");
            assert!(s.draws > 0);
        }
    }
}

/// `[[wins, draws, losses] white to move, [same] black to move]` of a table.
fn counts(name: &str) -> [[u64; 3]; 2] {
    let s = section_stats(name);
    [0, 1].map(|k| [s[k].wins, s[k].draws, s[k].losses])
}

#[test]
fn counts_match_syzygy_statistics() {
    // The statistics published with the Syzygy tables (syzygy-tables.info,
    // stats/regular/regular-stats.txt): legal positions up to the board's symmetries, a
    // position that is its own image counted once, as this index stores them.
    assert_eq!(counts("KQvK"), [[18_081, 0, 0], [0, 2_896, 25_160]]);
    assert_eq!(counts("KRvK"), [[21_959, 0, 0], [0, 2_796, 25_260]]);
    assert_eq!(counts("KPvK"), [[62_480, 19_184, 0], [0, 35_210, 48_802]]);
    assert_eq!(
        counts("KBNvK"),
        [[1_352_913, 6_665, 0], [0, 309_147, 1_398_741]]
    );
    assert_eq!(
        counts("KQvKR"),
        [[1_108_111, 8_963, 2_142], [386_313, 78_518, 883_075]]
    );
    assert_eq!(
        counts("KRvKP"),
        [[3_703_102, 340_191, 6_727], [816_810, 871_949, 3_292_745]]
    );
}

#[test]
fn generic_kbnv_k_agrees_with_the_kbnk_table() {
    use rayon::prelude::*;
    let dir = tables();
    let kbnk = retro::kbnk::Kbnk::new();
    let sol = super::common::kbnk_solution();
    let generic = retro::GAMES.open(dir, "KBNvK").unwrap();
    let chess = Chess::open(&Material::parse("KBNvK").unwrap(), dir).unwrap();
    // Every slot's value; the best move of every 16th slot (playing out the move took
    // three quarters of the test's 14 s of CPU when every one was checked).
    let checked: u64 = (0..kbnk.size())
        .into_par_iter()
        .map_init(Vec::new, |moves, i| {
            // The same position type: only the index differs.
            let Some(p) = kbnk.decode(i) else { return 0 };
            let j = chess.encode(&p);
            let v = generic.table.value(j);
            assert_eq!(sol.value(i), v, "{p:?}");
            // The generic table's best move, seen in this position's frame, is a move of
            // equal value in the KBNK table.
            let (_, mv) = generic.table.record(j);
            if i % 16 == 0 && v.is_decisive() && v != Value::Loss(0) {
                let own = chess.move_from_canonical(&p, mv).expect("a best move");
                moves.clear();
                retro::chess::moves::legal_moves(&p, moves);
                let m = moves[own as usize - 1];
                let after = retro::chess::moves::make(&p, &m);
                let value_after = if m.capture.is_some() {
                    Value::Draw
                } else {
                    sol.value(kbnk.encode(&after))
                };
                assert_eq!(value_after.back(), v, "best move of {p:?}");
            }
            1
        })
        .sum();
    // Every legal KBNK position (light-squared bishops), both sides to move.
    assert_eq!(checked, 5_437_752 + 6_830_292);
}

/// The value reader of passes without tiers, which nothing may ask.
const NO_TIERS: retro::solve::one_byte::Own = &|q| unreachable!("slot {q} read: no tiers");

#[test]
fn every_material_conforms() {
    // The engine's self-test on sampled slots of every material up to 5 pieces (rules
    // only: values are not needed to check moves against un-moves).
    let all = Material::all(5);
    assert_eq!(all.len(), 145);
    let mut checked = 0;
    for m in &all {
        let g = Chess::rules_only(m);
        // The DTZ plug-in of the material: the same index, pawn moves restarting.
        let z = retro::chess::dtz::ChessDtz::rules_only(m);
        let size = g.size();
        let (moves, passes) = (GamePasses(&g), g.passes());
        let mut i = 7919 % size;
        for _ in 0..40 {
            retro::selftest::check_slot(&g, i).unwrap_or_else(|e| panic!("{m}: {e}"));
            // The one-byte solver's passes make the same moves and un-moves.
            check_passes(&moves, &passes, NO_TIERS, i)
                .unwrap_or_else(|e| panic!("{m} passes: {e}"));
            retro::selftest::check_slot(&z, i).unwrap_or_else(|e| panic!("{m}.dtz: {e}"));
            checked += usize::from(g.decode(i).is_some());
            i = (i + 2_654_435_761) % size;
        }
    }
    assert!(checked > 2_000, "{checked} legal slots");
    // Denser on what the passes' index arithmetic treats apart: twins, pawns on both sides
    // (en passant), symmetric king pairs (one in eight pawnless slots), 6 pieces.
    for name in [
        "KRRvKR", "KPPvKP", "KNNvKB", "KPvKP", "KQvKR", "KBPvKN", "KRRvKRR", "KQBvKRN", "KRPvKBP",
    ] {
        let g = Chess::rules_only(&Material::parse(name).unwrap());
        let (moves, passes) = (GamePasses(&g), g.passes());
        let mut i = 104_729 % g.size();
        for _ in 0..3_000 {
            check_passes(&moves, &passes, NO_TIERS, i)
                .unwrap_or_else(|e| panic!("{name} passes: {e}"));
            i = (i + 2_654_435_761) % g.size();
        }
    }
    // The group passes, captures read from real sub-tables: every slot starts as alone,
    // and the groups' un-moves and checks are their slots'.
    for name in [
        "KQvKR", "KRvKP", "KPvKP", "KQvKP", "KBvKB", "KNvKP", "KRvKN",
    ] {
        let g = Chess::open(&Material::parse(name).unwrap(), tables()).unwrap();
        let passes = g.passes();
        let len = passes.group() as u64;
        let legal = |i| g.decode(i).is_some();
        for first in (0..g.size() / len).step_by(97).map(|k| k * len) {
            let mask = (0..len)
                .filter(|&b| legal(first + b))
                .fold(0, |m, b| m | 1 << b);
            if mask != 0 {
                let accept = |i: u64| i % 5 != 0;
                check_group_passes(&passes, NO_TIERS, first, mask, legal, accept)
                    .unwrap_or_else(|e| panic!("{name} groups: {e}"));
            }
        }
    }
    // With real sub-tables too.
    for name in MATERIALS {
        let g = Chess::open(&Material::parse(name).unwrap(), tables()).unwrap();
        let (moves, passes) = (GamePasses(&g), g.passes());
        for i in (0..g.size()).step_by(4_099) {
            retro::selftest::check_slot(&g, i).unwrap_or_else(|e| panic!("{name}: {e}"));
            check_passes(&moves, &passes, NO_TIERS, i)
                .unwrap_or_else(|e| panic!("{name} passes: {e}"));
        }
    }
}

#[test]
fn one_byte_solver_writes_the_two_queue_solvers_bytes() {
    // The fixture's tables of pieces against more than a bare king are the one-byte
    // solver's output (what `retro generate` writes). The two-queue solver, the reference,
    // makes the same record in every slot: pawns on both sides (promotions into sub-tables,
    // double steps allowing en passant), and a pawnless table with symmetric king pairs.
    for name in ["KPvKP", "KRvKR"] {
        let chess = Chess::open(&Material::parse(name).unwrap(), tables()).unwrap();
        let reference = retro::solve::two_queue::solve(
            &chess,
            &retro::game::SolveOptions { progress: &Silent },
        )
        .unwrap();
        let t = Table::open(&retro::table::table_path(tables(), name)).unwrap();
        let record = |i| (t.value(i), t.record(i).1);
        let first = (0..chess.size()).find(|&i| record(i) != (reference.value(i), reference.mv(i)));
        assert_eq!(
            first.map(|i| (i, chess.decode(i), record(i))),
            first.map(|i| (i, chess.decode(i), (reference.value(i), reference.mv(i)))),
            "{name}: first differing slot"
        );
    }
}

#[test]
fn thread_count_does_not_change_the_bytes() {
    let dir = tables();
    for name in ["KPvK", "KQvKR"] {
        let plugin = retro::GAMES.plugin_in(name, dir).unwrap();
        // The records made on the same pool as the values: the best moves too.
        let solve = |t| {
            with_threads(Some(t), || {
                plugin
                    .solve(&retro::game::SolveOptions { progress: &Silent })
                    .unwrap()
                    .to_solution(&Silent)
            })
            .unwrap()
        };
        assert!(solve(1) == solve(2), "{name}");
    }
}

#[test]
fn colour_swapped_positions_use_the_same_table() {
    let dir = tables();
    let router = retro::chess::router::Router::new(dir);
    let json = |fen: &str| -> serde_json::Value {
        serde_json::from_str(&router.probe(fen).unwrap().json()).unwrap()
    };
    // White king a1, queen b1; black king h8, white to move; and the same with colours
    // swapped and the board turned over.
    let a = json("7k/8/8/8/8/8/8/KQ6 w - - 0 1");
    let b = json("kq6/8/8/8/8/8/8/7K b - - 0 1");
    assert_eq!(a["table"], "KQvK");
    assert_eq!(b["table"], "KQvK");
    assert_eq!(a["dtm"], b["dtm"]);
    assert_eq!(a["category"], "win");
    let flip = |u: &str| -> String {
        u.chars()
            .map(|c| match c {
                '1'..='8' => (b'9' - (c as u8 - b'0')) as char,
                c => c,
            })
            .collect()
    };
    // Every move, turned over, leads to the same value; the best move of each is one of
    // the quickest mates (the two lists break ties alike, by the order moves are
    // generated in, which turning the board over does not keep).
    let moves = |j: &serde_json::Value,
                 turn: bool|
     -> std::collections::BTreeMap<String, serde_json::Value> {
        j["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let u = m["uci"].as_str().unwrap();
                (if turn { flip(u) } else { u.to_string() }, m["dtm"].clone())
            })
            .collect()
    };
    assert_eq!(moves(&a, true), moves(&b, false));
    assert_eq!(a["best"]["uci"], a["moves"][0]["uci"]);
    assert_eq!(b["best"]["uci"], b["moves"][0]["uci"]);
    assert_eq!(a["moves"][0]["dtm"], b["moves"][0]["dtm"]);
}

/// Where an en-passant capture is legal and better than every stored move, it heads the
/// move list as the best move, and the list stays in order of rank (for the side making
/// the move: the fastest mate first, then draws, then the longest resistance): every
/// KPvKP position with white's pawn just pushed to e4 beside black's on d4, kings
/// anywhere.
#[test]
fn an_en_passant_capture_takes_its_place_in_the_move_list() {
    let router = retro::chess::router::Router::new(super::common::chess_all4());
    // A move's rank for its mover from the JSON: lower is better.
    let rank = |m: &serde_json::Value| -> (u8, i64) {
        let dtm = m["dtm"].as_i64().unwrap_or(0);
        match m["category"].as_str().unwrap() {
            "loss" => (0, dtm.abs()),
            "draw" => (1, 0),
            _ => (2, -dtm),
        }
    };
    let (mut checked, mut ep_best) = (0, 0);
    let name = |s: usize| format!("{}{}", (b'a' + (s % 8) as u8) as char, s / 8 + 1);
    for wk in 0..64 {
        for bk in 0..64 {
            let taken = [name(wk), name(bk)];
            if wk == bk
                || taken
                    .iter()
                    .any(|s| ["d4", "e4", "e3", "e2"].contains(&s.as_str()))
            {
                continue;
            }
            let mut board = [['1'; 8]; 8];
            board[wk / 8][wk % 8] = 'K';
            board[bk / 8][bk % 8] = 'k';
            board[3][3] = 'p';
            board[3][4] = 'P';
            let ranks: Vec<String> = (0..8).rev().map(|r| board[r].iter().collect()).collect();
            let fen = format!("{} b - e3 0 1", ranks.join("/"));
            let Ok(answer) = router.probe(&fen) else {
                continue;
            };
            let j = answer.json();
            let j: serde_json::Value = serde_json::from_str(&j).unwrap();
            let moves = j["moves"].as_array().unwrap();
            if moves.is_empty() {
                continue;
            }
            checked += 1;
            assert_eq!(moves[0]["uci"], j["best"]["uci"], "{fen}");
            for w in moves.windows(2) {
                assert!(
                    rank(&w[0]) <= rank(&w[1]),
                    "{fen}: {} before {}",
                    w[0]["uci"],
                    w[1]["uci"]
                );
            }
            ep_best += (j["best"]["uci"] == "d4e3") as usize;
        }
    }
    assert!(
        checked > 1000 && ep_best > 100,
        "{checked} positions, {ep_best} with en passant best"
    );
}

/// Every legal placement of `m`'s pieces (no two alike in these materials), both sides to
/// move, counted one by one without the index: pawns off the first and last ranks, the
/// rest as `Position::check` rules.
fn every_position(m: &Material) -> u64 {
    use retro::chess::material::{Color, Role};
    use retro::chess::position::Position;
    let mut pieces = vec![(Color::White, Role::King), (Color::Black, Role::King)];
    for (side, color) in m.sides.iter().zip([Color::White, Color::Black]) {
        pieces.extend(side.iter().map(|&r| (color, r)));
    }
    fn place(
        pieces: &[(retro::chess::material::Color, retro::chess::material::Role)],
        pos: Position,
    ) -> u64 {
        let Some((&(c, r), rest)) = pieces.split_first() else {
            return [Color::White, Color::Black]
                .into_iter()
                .filter(|&turn| Position { turn, ..pos }.check().is_ok())
                .count() as u64;
        };
        (0..64u8)
            .filter(|&sq| pos.piece_at(sq).is_none())
            .filter(|&sq| r != Role::Pawn || (8..56).contains(&sq))
            .map(|sq| {
                let mut p = pos;
                p.put(sq, c, r);
                place(rest, p)
            })
            .sum()
    }
    place(&pieces, Position::empty())
}

/// A table stores one position of each group its symmetries make alike, and the list of
/// tables says how many positions that is in all: every legal position of the material,
/// counted here one by one. KBNvK (one of each group of up to 8) and the KBNK table (one
/// of each pair mirrored left to right) store 3,067,466 and 12,268,044: the same
/// 24,536,088 positions.
#[test]
fn stored_positions_stand_for_every_position() {
    let stored = |dir: &Path, name: &str| {
        let t = retro::GAMES.open(dir, name).unwrap();
        let legal: u64 = stats(t.table.header(), DistanceUnit::Moves)
            .iter()
            .map(|s| s.legal)
            .sum();
        (
            legal,
            t.plugin
                .stored_as(legal)
                .expect("a table of one of each group"),
        )
    };
    for name in ["KQvK", "KRvK", "KNvK", "KPvK"] {
        let (legal, s) = stored(tables(), name);
        let all = every_position(&Material::parse(name).unwrap());
        assert_eq!(s.positions, Some(all), "{name}: {legal} stored");
        assert!(legal < all / 2 + 1, "{name}");
    }
    let (kbnvk, generic) = stored(tables(), "KBNvK");
    let (kbnk, own) = stored(super::common::tables_dir(), "kbnk");
    assert_eq!((kbnvk, kbnk), (3_067_466, 12_268_044));
    assert_eq!(generic.positions, Some(24_536_088));
    assert_eq!(own.positions, generic.positions);
    assert_eq!(
        generic.words,
        "one of each group of up to 8 positions alike by turning or reflecting the board"
    );
    assert_eq!(
        own.words,
        "one of each pair of positions mirrored left to right (the bishop on a light square)"
    );
    // With pawns, the board is only mirrored left to right.
    let (_, pawns) = stored(tables(), "KPvK");
    assert_eq!(
        pawns.words,
        "one of each pair of positions mirrored left to right"
    );
}
