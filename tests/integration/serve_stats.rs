//! `GET /api/tables/<name>/stats.json`: the statistics page's data, checked against the
//! table files themselves and the library's own probe; and its bad input.

use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::Value as Json;
use tower::ServiceExt;

use retro::game::Value;
use retro::present::DistanceUnit;
use retro::serve::{router, AppState};

fn app() -> &'static Router {
    static APP: OnceLock<Router> = OnceLock::new();
    APP.get_or_init(|| router(AppState::load(super::common::tables_dir())))
}

async fn get(uri: &str) -> (StatusCode, Option<String>, Vec<u8>) {
    let res = app()
        .clone()
        .oneshot(Request::builder().uri(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let mime = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let body = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    (status, mime, body)
}

async fn get_json(uri: &str) -> (StatusCode, Json) {
    let (status, mime, body) = get(uri).await;
    assert_eq!(mime.as_deref(), Some("application/json"), "{uri}");
    (status, serde_json::from_slice(&body).unwrap())
}

/// The library's probe of `position` in table `name`.
fn probe(name: &str, position: &str) -> Json {
    let l = retro::GAMES
        .open(super::common::tables_dir(), name)
        .unwrap();
    serde_json::from_str(&l.plugin.probe(&l.table, position).unwrap().json()).unwrap()
}

#[tokio::test]
async fn kbnk_stats_match_the_file() {
    let (status, j) = get_json("/api/tables/kbnk/stats.json").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(j["name"], "kbnk");
    assert_eq!(j["viewer"], "chess");
    assert_eq!(j["unit"], "moves");
    let l = retro::GAMES
        .open(super::common::tables_dir(), "kbnk")
        .unwrap();
    let header = l.table.header();
    let expected = retro::summary::stats(header, DistanceUnit::Moves);
    let sections = j["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 2);
    for ((s, info), want) in sections.iter().zip(&header.sections).zip(&expected) {
        assert_eq!(s["name"], info.name.as_str());
        assert_eq!(s["checksum"], format!("{:016x}", info.checksum));
        assert_eq!(s["checksum_ok"], true);
        assert_eq!(s["legal"], want.legal);
        assert_eq!(s["wins"], want.wins);
        assert_eq!(s["losses"], want.losses);
        assert_eq!(s["draws"], want.draws);
        assert_eq!(
            s["by_distance"],
            serde_json::to_value(&want.by_distance).unwrap()
        );
    }
    // White to move: the longest win is the published mate in 33 (65 plies).
    let white = &sections[0]["longest_positions"];
    assert_eq!(white["category"], "win");
    assert_eq!(white["plies"], 65);
    assert_eq!(white["distance"], 33);
    let n65 = header.sections[0].histogram[Value::Win(65).to_byte() as usize];
    assert_eq!(white["count"], n65);
    // Black to move: mated in 33 at the longest (66 plies).
    let black = &sections[1]["longest_positions"];
    assert_eq!(black["category"], "loss");
    assert_eq!(black["plies"], 66);
    assert_eq!(black["distance"], 33);
    for (side, l, dtm) in [("white", white, 65), ("black", black, -66)] {
        let positions = l["positions"].as_array().unwrap();
        assert_eq!(
            positions.len() as u64,
            l["count"].as_u64().unwrap().min(8),
            "{side}"
        );
        for p in positions {
            let answer = probe("kbnk", p.as_str().unwrap());
            assert_eq!(answer["side"], side, "{p}");
            assert_eq!(answer["dtm"], dtm, "{p}");
        }
    }
}

#[tokio::test]
async fn board_game_stats_give_boards() {
    let (status, j) = get_json("/api/tables/mnk-3x3-3/stats.json").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(j["viewer"], "board");
    assert_eq!(j["unit"], "plies");
    for s in j["sections"].as_array().unwrap() {
        assert_eq!(s["checksum_ok"], true);
        let l = &s["longest_positions"];
        let plies = l["plies"].as_u64().unwrap();
        assert!(l["count"].as_u64().unwrap() >= 1);
        for p in l["positions"].as_array().unwrap() {
            let answer = probe("mnk-3x3-3", p.as_str().unwrap());
            assert_eq!(answer["category"], l["category"], "{p}");
            assert_eq!(answer["remoteness"], plies, "{p}");
        }
    }
}

#[tokio::test]
async fn stats_bad_input_is_404_json_never_500() {
    let (status, j) = get_json("/api/tables/kbnq/stats.json").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let e = j["error"].as_str().unwrap();
    assert!(e.contains("kbnq") && e.contains("kbnk"), "{e}");
    for uri in [
        "/api/tables/kbnk/stats.xml",
        "/api/tables/kbnk/stats.json/more",
        "/api/tables/kbnk",
        "/api/tables//stats.json",
    ] {
        let (status, j) = get_json(uri).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{uri}");
        assert!(j["error"].is_string(), "{uri}");
    }
    // Arbitrary bytes as the name: a JSON 404 (or 400 for what cannot be decoded).
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..500 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let name: String = x.to_le_bytes()[..1 + (x % 8) as usize]
            .iter()
            .map(|b| format!("%{b:02X}"))
            .collect();
        let (status, mime, _) = get(&format!("/api/tables/{name}/stats.json")).await;
        assert!(
            status == StatusCode::NOT_FOUND || status == StatusCode::BAD_REQUEST,
            "{name}: {status}"
        );
        assert_eq!(mime.as_deref(), Some("application/json"), "{name}");
    }
}

#[tokio::test]
async fn viewer_modules_are_served() {
    for file in ["chess-pos.js", "chess-line.js", "stats.js", "mnk-chart.js"] {
        let (status, mime, body) = get(&format!("/assets/{file}")).await;
        assert_eq!(status, StatusCode::OK, "{file}");
        assert!(mime.unwrap().starts_with("text/javascript"), "{file}");
        assert!(
            std::str::from_utf8(&body).unwrap().contains("export "),
            "{file}"
        );
    }
}
