//! The Lichess tablebase API (`/standard`, `/standard/mainline`): Lichess's fields and move
//! order, DTZ only where exact, the halfmove clock, Lichess-style errors, thousands of
//! mutated requests over a real socket, and the real Python client `berserk` pointed at
//! `retro serve` (installed by scripts/install-lichess-client.sh).
//!
//! Tables: KPvK and its sub-tables (KQvK, KRvK, KBvK, KNvK), made once into a folder.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use axum::body::{Body, Bytes};
use axum::http::{header, Request, StatusCode};
use axum::Router;
use http_body_util::{BodyExt, Empty};
use serde_json::Value as Json;
use tower::ServiceExt;

use retro::chess::fen::to_fen;
use retro::chess::material::Material;
use retro::chess::Chess;
use retro::game::{Game, Value};
use retro::serve::{router, AppState};

use super::common::{RetroServe, Rng};

/// The tables folder: KPvK and every table it leads to.
fn dir() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    super::common::fixture(&DIR, || {
        let dir = super::common::fixture_dir();
        let kpvk = Material::parse("KPvK").unwrap();
        for m in retro::chess::plan::closure(&[kpvk]) {
            let p = retro::GAMES.plugin_in(&m.to_string(), dir.path()).unwrap();
            retro::generate::generate(&*p, dir.path(), &retro::progress::Silent).unwrap();
        }
        dir
    })
    .path()
}

fn app() -> &'static Router {
    static APP: OnceLock<Router> = OnceLock::new();
    APP.get_or_init(|| {
        let state = AppState::load(dir());
        assert_eq!(state.len(), 5, "KPvK, KQvK, KRvK, KBvK, KNvK");
        router(state)
    })
}

/// A KRvK position at the table's longest distance, white to move (found in the table).
fn krvk_longest() -> (String, u16) {
    static FOUND: OnceLock<(String, u16)> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let m = Material::parse("KRvK").unwrap();
            let game = Chess::open(&m, dir()).unwrap();
            let loaded = retro::GAMES.open(dir(), "KRvK").unwrap();
            let white = game.sections()[0].len;
            let mut best: Option<(u64, u16)> = None;
            for i in 0..white {
                if let Value::Win(p) = loaded.table.value(i) {
                    if best.is_none_or(|b| p > b.1) {
                        best = Some((i, p));
                    }
                }
            }
            let (i, p) = best.unwrap();
            let pos = game.decode(i).unwrap();
            (to_fen(&pos, 0, 1), p)
        })
        .clone()
}

pub(super) struct Reply {
    pub(super) status: StatusCode,
    content_type: String,
    body: Vec<u8>,
}

impl Reply {
    pub(super) fn json(&self) -> Json {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.text()))
    }
    pub(super) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

async fn get(uri: &str) -> Reply {
    get_from(app(), uri).await
}

pub(super) async fn get_from(app: &Router, uri: &str) -> Reply {
    let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    let status = res.status();
    let content_type = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let body = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    Reply {
        status,
        content_type,
        body,
    }
}

/// Percent-encode everything but unreserved characters.
fn encode(s: &[u8]) -> String {
    s.iter()
        .map(|&b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// `/standard` for a FEN (spaces written `_`, as Lichess allows); asserts 200.
async fn standard(fen: &str) -> Json {
    let r = get(&format!("/standard?fen={}", fen.replace(' ', "_"))).await;
    assert_eq!(r.status, 200, "{fen}: {}", r.text());
    assert_eq!(r.content_type, "application/json");
    r.json()
}

async fn mainline(fen: &str) -> Json {
    let r = get(&format!(
        "/standard/mainline?fen={}",
        encode(fen.as_bytes())
    ))
    .await;
    assert_eq!(r.status, 200, "{fen}: {}", r.text());
    r.json()
}

/// Lichess's categories, in Lichess's move order.
const CATEGORIES: [&str; 10] = [
    "loss",
    "unknown",
    "syzygy-loss",
    "maybe-loss",
    "blessed-loss",
    "draw",
    "cursed-win",
    "maybe-win",
    "syzygy-win",
    "win",
];

fn rank(category: &Json) -> usize {
    CATEGORIES
        .iter()
        .position(|c| category == c)
        .unwrap_or_else(|| panic!("not a Lichess category: {category}"))
}

/// Lichess's order of DTM: -1, -2, …, null and 0, …, 2, 1.
fn dtm_rank(dtm: &Json) -> (i64, i64) {
    match dtm.as_i64() {
        Some(d) if d < 0 => (0, -d),
        Some(d) if d > 0 => (2, -d),
        _ => (1, 0),
    }
}

const POSITION_KEYS: [&str; 11] = [
    "category",
    "checkmate",
    "dtc",
    "dtm",
    "dtw",
    "dtz",
    "insufficient_material",
    "precise_dtz",
    "stalemate",
    "variant_loss",
    "variant_win",
];

fn keys(j: &Json) -> BTreeSet<String> {
    j.as_object().unwrap().keys().cloned().collect()
}

/// Lichess's fields on the answer and on every move, and the move order.
fn check_shape(fen: &str, a: &Json) {
    let mut top: BTreeSet<String> = POSITION_KEYS.iter().map(|s| s.to_string()).collect();
    let mut mv = top.clone();
    top.extend(["fen".to_string(), "moves".to_string()]);
    mv.extend(["uci", "san", "zeroing", "conversion"].map(String::from));
    assert_eq!(keys(a), top, "{fen}");
    let moves = a["moves"].as_array().unwrap();
    for m in moves {
        assert_eq!(keys(m), mv, "{fen}: {m}");
        assert_eq!(m["precise_dtz"], m["dtz"], "retro's DTZ is never rounded");
        assert!(m["dtc"].is_null() && m["dtw"].is_null());
        assert_eq!(m["variant_win"], false);
    }
    // Best first, as Lichess sorts: category, then mate, stalemate, then DTM.
    for w in moves.windows(2) {
        let key = |m: &Json| {
            (
                rank(&m["category"]),
                m["checkmate"] != true,
                m["stalemate"] != true,
                m["insufficient_material"] != true,
            )
        };
        let (a, b) = (key(&w[0]), key(&w[1]));
        assert!(a <= b, "{fen}: {} before {}", w[0], w[1]);
        if a == b {
            assert!(
                dtm_rank(&w[0]["dtm"]) <= dtm_rank(&w[1]["dtm"]),
                "{fen}: {} before {}",
                w[0],
                w[1]
            );
        }
    }
    // The position is worth what its best move gives, seen from the other side.
    if let Some(best) = moves.first() {
        let flip = match rank(&best["category"]) {
            k @ (1 | 5) => k,
            0 => 9,
            9 => 0,
            k => 10 - k,
        };
        assert_eq!(a["category"], CATEGORIES[flip], "{fen}");
    }
}

#[tokio::test]
async fn standard_answers_field_for_field_and_agrees_with_retro_and_shakmaty() {
    use shakmaty::{fen::Fen, san::SanPlus, CastlingMode, Position as _};
    for fen in [
        "8/8/8/4k3/8/8/8/KQ6 w - - 0 1",
        "8/8/8/4k3/8/8/8/KQ6 b - - 0 1",
        "8/4P2k/8/8/8/8/8/K7 w - - 0 1",
        "8/8/3k4/8/3P4/8/8/3K4 b - - 0 1",
        "8/8/8/8/8/k7/1Q6/7K b - - 0 1",
        "8/8/8/2k5/8/8/1N6/K7 w - - 0 1",
    ] {
        let a = standard(fen).await;
        check_shape(fen, &a);
        // The same moves as retro's own probe, with the same distances (Lichess writes 0
        // for a draw and null for a mated position; retro's probe the other way round).
        let own = get(&format!("/api/probe/chess?fen={}", encode(fen.as_bytes()))).await;
        let own = own.json();
        assert_eq!(a["dtm"], lichess_dtm(&own["dtm"], own["checkmate"] == true));
        let moves = a["moves"].as_array().unwrap();
        assert_eq!(moves.len(), own["moves"].as_array().unwrap().len());
        for o in own["moves"].as_array().unwrap() {
            let m = moves.iter().find(|m| m["uci"] == o["uci"]).unwrap();
            assert_eq!(m["san"], o["san"], "{fen}");
            assert_eq!(
                m["dtm"],
                lichess_dtm(&o["dtm"], o["checkmate"] == true),
                "{fen}"
            );
            assert_eq!(m["checkmate"], o["checkmate"]);
        }
        // Moves and SAN as shakmaty makes them.
        let pos: shakmaty::Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let theirs: BTreeSet<(String, String)> = pos
            .legal_moves()
            .iter()
            .map(|m| {
                let uci = m.to_uci(CastlingMode::Standard).to_string();
                (uci, SanPlus::from_move(pos.clone(), *m).to_string())
            })
            .collect();
        let ours: BTreeSet<(String, String)> = moves
            .iter()
            .map(|m| {
                (
                    m["uci"].as_str().unwrap().into(),
                    m["san"].as_str().unwrap().into(),
                )
            })
            .collect();
        assert_eq!(ours, theirs, "{fen}");
        // Zeroing and conversion as the move is.
        for m in moves {
            let san = m["san"].as_str().unwrap();
            let pawn = san.starts_with(|c: char| c.is_ascii_lowercase());
            assert_eq!(m["zeroing"], san.contains('x') || pawn, "{fen} {san}");
            assert_eq!(m["conversion"], san.contains('x') || san.contains('='));
        }
    }
}

/// Lichess's DTM from retro's probe JSON: 0 for a draw, null once mated.
fn lichess_dtm(d: &Json, checkmate: bool) -> Json {
    match d.as_i64() {
        None if !checkmate => Json::from(0),
        Some(0) if checkmate => Json::Null,
        _ => d.clone(),
    }
}

#[tokio::test]
async fn kbnk_positions_are_answered_from_the_kbnk_table() {
    // The shared folder holds `kbnk.rtb` (the KBNK plug-in's table) and no chess KBNvK.
    let app = router(AppState::load(super::common::tables_dir()));
    for (fen, reference) in [
        ("8/8/8/8/8/8/5k2/5BNK w - - 0 1", None),
        ("8/8/8/8/8/8/5k2/5BNK b - - 0 1", None),
        ("8/8/8/8/3k4/8/8/4KN1B b - - 0 1", None),
        // Black has the bishop and knight: the README's position with colours swapped.
        (
            "5bnk/5K2/8/8/8/8/8/8 b - - 0 1",
            Some("8/8/8/8/8/8/5k2/5BNK w - - 0 1"),
        ),
    ] {
        let r = get_from(&app, &format!("/standard?fen={}", encode(fen.as_bytes()))).await;
        assert_eq!(r.status, 200, "{fen}: {}", r.text());
        let a = r.json();
        check_shape(fen, &a);
        // The KBNK plug-in's own probe agrees on every distance; DTZ is DTM (two minor
        // pieces against a bare king).
        let asked = reference.unwrap_or(fen);
        let uri = format!("/api/probe/kbnk?fen={}", encode(asked.as_bytes()));
        let own = get_from(&app, &uri).await.json();
        assert_eq!(
            a["dtm"],
            lichess_dtm(&own["dtm"], own["checkmate"] == true),
            "{fen}"
        );
        assert_eq!(a["dtz"], a["dtm"], "{fen}");
        let moves = a["moves"].as_array().unwrap();
        assert_eq!(moves.len(), own["moves"].as_array().unwrap().len(), "{fen}");
        if reference.is_none() {
            for o in own["moves"].as_array().unwrap() {
                let m = moves.iter().find(|m| m["uci"] == o["uci"]).unwrap();
                assert_eq!(
                    m["dtm"],
                    lichess_dtm(&o["dtm"], o["checkmate"] == true),
                    "{fen}"
                );
            }
        }
    }
    // The README's position: white mates in 33 (65 plies).
    let r = get_from(&app, "/standard?fen=8/8/8/8/8/8/5k2/5BNK_w_-_-_0_1").await;
    assert_eq!(r.json()["dtm"], 65);
}

#[tokio::test]
async fn dtz_is_given_only_where_it_is_exact() {
    // KRvK at its longest: a lone rook against a bare king, DTZ is DTM on every line.
    let (fen, plies) = krvk_longest();
    assert_eq!(plies, 31, "KRvK's longest mate is 16 moves");
    let a = standard(&fen).await;
    assert_eq!((a["dtm"].as_i64(), a["dtz"].as_i64()), (Some(31), Some(31)));
    assert_eq!(a["precise_dtz"], 31);
    assert_eq!(a["category"], "win");
    let best = &a["moves"][0];
    assert_eq!(
        (best["dtm"].as_i64(), best["dtz"].as_i64()),
        (Some(-30), Some(-30))
    );
    assert_eq!(best["category"], "loss");
    for m in a["moves"].as_array().unwrap() {
        // Each move keeps the win, or hangs the rook or stalemates: a draw, DTZ 0.
        if m["category"] == "draw" {
            assert_eq!((&m["dtz"], &m["dtm"]), (&Json::from(0), &Json::from(0)));
        } else {
            assert_eq!(m["dtz"], m["dtm"], "{m}");
        }
    }
    // KPvK: pawn moves may come before the mate. Where a pawn move keeps a sure win it is
    // the next zeroing move: DTZ 1, as Syzygy says; elsewhere DTZ is unknown, never a guess.
    let a = standard("8/4P2k/8/8/8/8/8/K7 w - - 0 1").await;
    assert_eq!(a["category"], "win");
    assert!(a["dtm"].as_i64().unwrap() > 1);
    assert_eq!(
        (&a["dtz"], &a["precise_dtz"]),
        (&Json::from(1), &Json::from(1))
    );
    let queen = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["uci"] == "e7e8q")
        .unwrap();
    assert_eq!(queen["zeroing"], true);
    assert_eq!(queen["dtz"], queen["dtm"], "KQvK: exact again");
    assert!(queen["dtz"].as_i64().unwrap() < 0);
    let king = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["uci"] == "a1b1")
        .unwrap();
    assert!(king["dtz"].is_null(), "KPvK after a king move: {king}");
    // The pawn blocked by its own king: the win starts with king moves.
    let a = standard("8/6k1/8/8/8/4K3/4P3/8 w - - 0 1").await;
    assert_eq!(a["category"], "win", "{a}");
    assert!(a["dtz"].is_null() && a["precise_dtz"].is_null(), "{a}");
    // The defender's side: king moves delay the zeroing by an unknown number of plies.
    let a = standard("8/6k1/8/8/8/4K3/4P3/8 b - - 0 1").await;
    assert!(a["dtz"].is_null(), "{a}");
    for fen in [
        "8/8/3k4/8/3P4/8/8/3K4 w - - 0 1",
        "8/8/8/8/2k5/8/1P6/K7 w - - 0 1",
        "7k/8/5K2/6P1/8/8/8/8 w - - 0 1",
    ] {
        let a = standard(fen).await;
        let zero_to_mate = a["moves"].as_array().unwrap().iter().any(|m| {
            m["zeroing"] == true && m["dtm"].as_i64().is_some_and(|d| (-100..0).contains(&d))
        });
        let expected = if a["category"] == "draw" {
            Json::from(0)
        } else if a["category"] == "win" && zero_to_mate {
            Json::from(1)
        } else {
            Json::Null
        };
        assert_eq!(a["dtz"], expected, "{fen}: {a}");
    }
    // Mate in one: DTZ 1 in any material (here KPvK, by promotion), as Syzygy counts.
    let a = standard("k7/2P5/1K6/8/8/8/8/8 w - - 0 1").await;
    assert_eq!((&a["dtm"], &a["dtz"]), (&Json::from(1), &Json::from(1)));
    assert_eq!(a["moves"][0]["san"], "c8=Q#");
    assert_eq!(a["moves"][0]["checkmate"], true);
    assert_eq!(a["moves"][0]["dtz"], -1, "the mated side: Syzygy's -1");
    assert!(a["moves"][0]["dtm"].is_null(), "Lichess: no DTM once mated");
}

#[tokio::test]
async fn the_halfmove_clock_is_read_and_echoed() {
    let (fen, _) = krvk_longest();
    let at = |h: u32| fen.replace(" 0 1", &format!(" {h} 57"));
    // 31 plies to mate: with 69 halfmoves played, mate comes on the 100th; one more and
    // the defender can claim a draw first (exact DTZ: cursed).
    let a = standard(&at(69)).await;
    assert_eq!(a["category"], "win");
    assert_eq!(a["fen"], at(69), "clock and move number echoed");
    let a = standard(&at(70)).await;
    assert_eq!(a["category"], "cursed-win");
    assert_eq!(a["moves"][0]["category"], "blessed-loss");
    assert_eq!(a["dtz"], 31, "DTZ itself does not depend on the clock");
    // A claim was possible before this position: cursed whatever the distance.
    let a = standard(&at(101)).await;
    assert_eq!(a["category"], "cursed-win");
    // KPvK with 99 halfmoves: the promotion resets the clock (a sure win), a king move
    // that keeps the win does not, and with DTZ unknown it is only "maybe".
    let a = standard("8/4P2k/8/8/8/8/8/K7 w - - 99 80").await;
    check_shape("KPvK 99", &a);
    assert_eq!(a["fen"], "8/4P2k/8/8/8/8/8/K7 w - - 99 80");
    assert_eq!(a["category"], "win");
    assert_eq!(a["moves"][0]["uci"], "e7e8q");
    assert_eq!(a["moves"][0]["category"], "loss");
    let cats: BTreeSet<&str> = a["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["zeroing"] == false)
        .map(|m| m["category"].as_str().unwrap())
        .collect();
    assert!(cats.contains("maybe-loss"), "{cats:?}");
    assert!(!cats.contains("loss"), "{cats:?}");
}

#[tokio::test]
async fn checkmate_stalemate_insufficient_material_and_colours() {
    // Checkmated: no moves, DTZ -1 as Syzygy, DTM null as Lichess (0 means a draw there).
    let a = standard("k7/1Q6/1K6/8/8/8/8/8 b - - 0 1").await;
    check_shape("mate", &a);
    assert_eq!(a["checkmate"], true);
    assert_eq!(a["category"], "loss");
    assert_eq!((&a["dtz"], &a["dtm"]), (&Json::from(-1), &Json::Null));
    assert_eq!(a["moves"].as_array().unwrap().len(), 0);
    // Stalemate.
    let a = standard("k7/8/1QK5/8/8/8/8/8 b - - 0 1").await;
    assert_eq!(
        (&a["stalemate"], &a["category"]),
        (&Json::from(true), &"draw".into())
    );
    assert_eq!((&a["dtz"], &a["dtm"]), (&Json::from(0), &Json::from(0)));
    // Black takes the unguarded queen: a draw by insufficient material, which is best.
    let a = standard("8/8/8/8/8/k7/1Q6/7K b - - 0 1").await;
    assert_eq!(a["moves"][0]["uci"], "a3b2");
    assert_eq!(a["moves"][0]["san"], "Kxb2");
    assert_eq!(a["moves"][0]["insufficient_material"], true);
    assert_eq!(a["moves"][0]["category"], "draw");
    assert_eq!(a["category"], "draw");
    // Bare kings need no table.
    let a = standard("8/8/8/4k3/8/8/8/K7 w - - 0 1").await;
    check_shape("KvK", &a);
    assert_eq!(
        (&a["category"], &a["insufficient_material"]),
        (&"draw".into(), &Json::from(true))
    );
    assert_eq!(a["moves"].as_array().unwrap().len(), 3);
    // Colours swapped (KvKQ) are answered from KQvK, the board turned over.
    let w = standard("8/8/8/4k3/8/8/8/KQ6 w - - 0 1").await;
    let b = standard("kq6/8/8/8/4K3/8/8/8 b - - 0 1").await;
    assert_eq!(w["dtm"], b["dtm"]);
    assert_eq!(w["category"], b["category"]);
    assert_eq!(
        w["moves"].as_array().unwrap().len(),
        b["moves"].as_array().unwrap().len()
    );
    // Lichess-tolerated fields: unusable castling rights and an idle en-passant square.
    let a = standard("8/8/8/4k3/8/8/8/KQ6 w KQkq e6 3 9").await;
    assert_eq!(a["fen"], "8/8/8/4k3/8/8/8/KQ6 w - - 3 9");
    assert_eq!(a["dtm"], w["dtm"]);
}

#[tokio::test]
async fn mainline_is_the_line_of_best_moves_to_mate() {
    let (fen, plies) = krvk_longest();
    let m = mainline(&fen).await;
    let line = m["mainline"].as_array().unwrap();
    assert_eq!(line.len(), plies as usize, "one ply per unit of DTM");
    assert_eq!(m["dtm"], plies);
    assert_eq!(m["dtz"], plies);
    assert_eq!(m["winner"], "w");
    assert!(line.last().unwrap()["san"].as_str().unwrap().ends_with('#'));
    assert_eq!(
        line.last().unwrap()["dtz"],
        -1,
        "Lichess: the mated side's DTZ"
    );
    // Distances count down, the side to move alternating.
    for (k, step) in line.iter().enumerate().take(line.len() - 1) {
        let left = plies as i64 - 1 - k as i64;
        let signed = if k % 2 == 0 { -left } else { left };
        assert_eq!(step["dtm"], signed, "ply {k}: {step}");
        assert_eq!(step["dtz"], step["dtm"]);
    }
    // Each step is /standard's first move.
    let a = standard(&fen).await;
    assert_eq!(line[0]["uci"], a["moves"][0]["uci"]);
    // Through a promotion into another table: KPvK then KQvK, mate at the end.
    let m = mainline("8/4P2k/8/8/8/8/8/K7 w - - 0 1").await;
    let line = m["mainline"].as_array().unwrap();
    assert_eq!(line[0]["uci"], "e7e8q");
    assert_eq!(line.len() as i64, m["dtm"].as_i64().unwrap());
    assert_eq!(m["dtz"], 1, "the promotion zeroes at once");
    assert_eq!(m["winner"], "w");
    // A pawn run: before each winning pawn move the side to move zeroes at once, so the
    // step reaching that position has DTZ 1 (its moves settle it), as on Lichess.
    let m = mainline("8/8/8/8/8/k7/6P1/K7 w - - 0 1").await;
    let line = m["mainline"].as_array().unwrap();
    assert_eq!(line.len() as i64, m["dtm"].as_i64().unwrap());
    let mut settled = 0;
    for w in line.windows(2) {
        let san = w[1]["san"].as_str().unwrap();
        let zeroing = san.starts_with(|c: char| c.is_ascii_lowercase()) || san.contains('x');
        if zeroing && w[1]["dtm"].as_i64().is_some_and(|d| (-100..0).contains(&d)) {
            assert_eq!(w[0]["dtz"], 1, "{} then {san}", w[0]["san"]);
            settled += 1;
        }
    }
    assert!(settled >= 3, "{line:?}");
    // A draw: no line.
    let m = mainline("8/8/8/4k3/8/8/8/KN6 w - - 0 1").await;
    assert_eq!(m["mainline"].as_array().unwrap().len(), 0);
    assert_eq!((&m["dtz"], &m["winner"]), (&Json::from(0), &Json::Null));
    // The clock at 90: the line stops when a draw can be claimed, without a winner.
    let m = mainline(&fen.replace(" 0 1", " 90 1")).await;
    assert_eq!(m["mainline"].as_array().unwrap().len(), 10);
    assert_eq!(m["winner"], Json::Null);
}

#[tokio::test]
async fn bad_input_gets_lichess_style_errors() {
    let plain = |r: &Reply| r.content_type.starts_with("text/plain");
    for (uri, status, says) in [
        ("/standard", 400, "missing query parameter 'fen'"),
        ("/standard?fen=", 400, "missing query parameter 'fen'"),
        (
            "/standard?fen=8/8/8",
            400,
            "invalid fen: the board needs 8 ranks",
        ),
        (
            "/standard?fen=8/8/8/4k3/8/8/8/KX6_w",
            400,
            "invalid fen: unknown piece letter 'X'",
        ),
        (
            "/standard?fen=8/8/8/4k3/8/8/8/KQ6_w_-_-_x_1",
            400,
            "invalid fen: halfmove clock",
        ),
        (
            "/standard?fen=8/8/8/8/8/8/8/Kk6_w",
            400,
            "illegal position: kings are adjacent",
        ),
        (
            "/standard?fen=8/8/8/4k3/8/8/8/KQ6_b_-_-_0_1&fen=x",
            400,
            "duplicate field",
        ),
        (
            "/standard?fen=8/8/8/4k3/8/8/8/KQ5r_w",
            404,
            "required table not found: KQvKR",
        ),
        (
            "/standard?fen=4k3/8/8/8/8/8/8/KQRBNN2_w",
            404,
            "too many pieces",
        ),
        (
            "/standard?fen=4k3/8/8/8/8/8/8/4K2R_w_K_-_0_1",
            404,
            "castling",
        ),
        (
            "/standard/mainline?fen=8/8/8/8/8/8/8/Kk6_w",
            400,
            "illegal position",
        ),
        (
            "/standard/mainline?fen=8/8/8/4k3/8/8/8/KQ5r_w",
            404,
            "required table not found",
        ),
    ] {
        let r = get(uri).await;
        assert_eq!(r.status, status, "{uri}: {}", r.text());
        assert!(plain(&r), "{uri}: {}", r.content_type);
        assert!(r.text().contains(says), "{uri}: {}", r.text());
    }
    // Other variants are not served.
    assert_eq!(get("/atomic?fen=8/8/8/4k3/8/8/8/KQ6_w").await.status, 404);
}

/// One mutation of a FEN: a character replaced, removed, inserted or repeated, a field
/// dropped or doubled, a huge number, or raw bytes.
fn mutate(r: &mut Rng, fen: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"KQRBNPkqrbnp12345678/ _-wbx0123456789abcdefgh%&=+";
    let mut s = fen.as_bytes().to_vec();
    for _ in 0..1 + r.next() % 3 {
        let at = (r.next() as usize) % (s.len() + 1);
        let c = ALPHABET[(r.next() as usize) % ALPHABET.len()];
        match r.next() % 9 {
            0 if at < s.len() => s[at] = c,
            1 if at < s.len() => {
                s.remove(at);
            }
            2 => s.insert(at, c),
            3 => s.insert(at, (r.next() & 0xff) as u8),
            4 => s.truncate(at),
            5 => s.extend_from_slice(b" 99999999999999999999"),
            6 => {
                let fields: Vec<&[u8]> = s.split(|&b| b == b' ').collect();
                let k = (r.next() as usize) % fields.len();
                let mut v = fields.clone();
                v.insert(k, fields[k]);
                s = v.join(&b' ');
            }
            7 => {
                s = s
                    .iter()
                    .map(|&b| if b == b' ' { b'_' } else { b })
                    .collect()
            }
            _ => {
                let n = (r.next() as usize) % (s.len() + 1);
                s[..n].reverse();
            }
        }
    }
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_mutated_requests_get_no_500_and_the_server_stays_up() {
    use hyper_util::client::legacy::Client;
    use hyper_util::rt::TokioExecutor;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(retro::serve::serve_on(
        listener,
        router(AppState::load(dir())),
        retro::serve::Limits::default(),
        std::future::pending(),
    ));
    let client: Client<_, Empty<Bytes>> = Client::builder(TokioExecutor::new()).build_http();
    let (longest, _) = krvk_longest();
    let seeds = [
        longest.as_str(),
        "8/4P2k/8/8/8/8/8/K7 w - - 99 80",
        "8/8/8/4k3/8/8/8/KQ6 w KQkq e6 3 9",
        "8/8/3k4/8/3P4/8/8/3K4 b - - 0 1",
        "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1",
        "8/8/8/4k3/8/8/8/K7 w - - 0 1",
        // Not in any table: 404s.
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
        "8/8/8/4k3/8/8/8/KQ5r w - - 0 1",
    ];
    let good = format!("{base}/standard?fen={}", encode(seeds[1].as_bytes()));
    let fetch = |uri: String| {
        let client = client.clone();
        async move {
            let res = client.get(uri.parse().unwrap()).await.unwrap();
            let status = res.status().as_u16();
            let body = res.into_body().collect().await.unwrap().to_bytes();
            (status, body)
        }
    };
    let (_, reference) = fetch(good.clone()).await;
    let mut r = Rng(10);
    let mut seen = std::collections::BTreeMap::new();
    let mut tasks = Vec::new();
    for k in 0..3000 {
        let seed = seeds[k % seeds.len()];
        let route = if k % 5 == 0 {
            "standard/mainline"
        } else {
            "standard"
        };
        let uri = format!("{base}/{route}?fen={}", encode(&mutate(&mut r, seed)));
        tasks.push(fetch(uri.clone()));
        if tasks.len() == 8 || k == 2999 {
            for (status, body) in futures_join(std::mem::take(&mut tasks)).await {
                assert!(
                    [200, 400, 404].contains(&status),
                    "{status}: {}",
                    String::from_utf8_lossy(&body)
                );
                if status == 200 {
                    let j: Json = serde_json::from_slice(&body).unwrap();
                    assert!(j["fen"].is_string(), "{j}");
                } else {
                    assert!(!body.is_empty());
                }
                *seen.entry(status).or_insert(0) += 1;
            }
        }
    }
    // Every kind of answer came up, and the server still answers as before.
    assert_eq!(seen.len(), 3, "{seen:?}");
    let (status, again) = fetch(good).await;
    assert_eq!((status, again), (200, reference));
}

/// Run every future at once; their outputs in order.
async fn futures_join<F>(fs: Vec<F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = fs.into_iter().map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

/// The virtual environment scripts/install-lichess-client.sh makes.
fn venv_python() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/lichess-venv/bin/python");
    assert!(
        p.exists(),
        "{} is missing: run scripts/install-lichess-client.sh (scripts/test-all.sh does)",
        p.display()
    );
    p
}

/// Asks `retro serve` through berserk, Lichess's Python client, with only its tablebase
/// URL changed; prints one JSON object: FEN to the answer, or to the error's status.
const CLIENT: &str = r#"
import json, sys
import berserk
base, fens = sys.argv[1], json.loads(sys.argv[2])
client = berserk.Client(tablebase_url=base)
out = {"standard": {}, "mainline": {}}
for fen in fens:
    try:
        out["standard"][fen] = client.tablebase.standard(fen)
    except berserk.exceptions.ResponseError as e:
        out["standard"][fen] = {"status": e.status_code, "text": e.response.text}
    try:
        # berserk has no mainline method: its own requestor, on Lichess's path.
        out["mainline"][fen] = client.tablebase._r.get("/standard/mainline", params={"fen": fen})
    except berserk.exceptions.ResponseError as e:
        out["mainline"][fen] = {"status": e.status_code}
print(json.dumps(out))
"#;

#[test]
fn berserk_reads_retro_as_it_reads_lichess() {
    let python = venv_python();
    let server = RetroServe::start(dir());
    let (longest, plies) = krvk_longest();
    let kqvk = "8/8/8/4k3/8/8/8/KQ6 w - - 0 1";
    let draw = "8/8/8/4k3/8/8/8/KN6 w - - 0 1";
    let kpvk = "8/4P2k/8/8/8/8/8/K7 w - - 99 80";
    let missing = "8/8/8/4k3/8/8/8/KQ5r w - - 0 1";
    let malformed = "8/8/8/4k3/8/8/8/KX6 w - - 0 1";
    let fens = [longest.as_str(), kqvk, draw, kpvk, missing, malformed];
    let out = Command::new(&python)
        .args(["-c", CLIENT, &format!("http://{}", server.addr)])
        .arg(serde_json::to_string(&fens).unwrap())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got: Json = serde_json::from_slice(&out.stdout).unwrap();
    let std = &got["standard"];
    // KRvK at its longest: mate in 16, DTZ exact.
    let a = &std[longest.as_str()];
    assert_eq!(
        (&a["category"], &a["dtm"], &a["dtz"]),
        (&"win".into(), &Json::from(plies), &Json::from(plies))
    );
    assert_eq!(a["moves"][0]["dtm"], -(plies as i64) + 1);
    // KQvK: a win within 10 moves, every field as the in-process API gives it.
    let rt = tokio::runtime::Runtime::new().unwrap();
    for fen in [longest.as_str(), kqvk, draw, kpvk] {
        let direct = rt.block_on(standard(fen));
        assert_eq!(std[fen], direct, "{fen}");
    }
    let a = &std[kqvk];
    assert_eq!(a["category"], "win");
    let d = a["dtm"].as_i64().unwrap();
    assert!(
        d > 0 && d % 2 == 1 && d <= 19,
        "KQvK mates within 10 moves: {d}"
    );
    assert_eq!(a["dtz"], a["dtm"]);
    // KNvK: a draw.
    assert_eq!(
        (&std[draw]["category"], &std[draw]["dtz"]),
        (&"draw".into(), &Json::from(0))
    );
    // KPvK with the clock at 99: the clock was read.
    assert_eq!(std[kpvk]["fen"], kpvk);
    assert_eq!(std[kpvk]["moves"][0]["category"], "loss");
    // Errors reach the client with Lichess's statuses and plain-text messages.
    assert_eq!(std[missing]["status"], 404);
    assert!(std[missing]["text"].as_str().unwrap().contains("KQvKR"));
    assert_eq!(std[malformed]["status"], 400);
    // The mainline: one move per ply of DTM, ending in mate.
    let m = &got["mainline"][longest.as_str()];
    assert_eq!(m["mainline"].as_array().unwrap().len(), plies as usize);
    assert_eq!(m["winner"], "w");
    assert_eq!(
        got["mainline"][draw]["mainline"].as_array().unwrap().len(),
        0
    );
    assert_eq!(got["mainline"][missing]["status"], 404);
    drop(server);
}
