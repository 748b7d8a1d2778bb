//! One position, one answer: the viewer keeps the whole FEN (en-passant square, halfmove
//! clock, move number) through moves, links and typing, and shows what `retro probe chess`,
//! `/api/probe/chess` and `/standard` say for it, the 50-move rule counted from the
//! position's clock. Runs in the browser session of `browser::viewer_in_chromium`.
//!
//! Tables: the shared 4-piece DTM tables and the DTZ tables of `chess_dtz` (KQvKR, KRvKP and
//! what they lead to), linked into one folder: KPvKP for en passant, KQvKR for the clock.

use std::path::Path;

use fantoccini::error::CmdError;
use fantoccini::{Client, Locator};
use serde_json::{json, Value as Json};

use super::browser::{drag, kbnk_shows, spawn_server, wait_js};
use super::common::{chess_all4, retro, stdout};
use super::lichess_api::get_from;
use retro::serve::AppState;

/// The DTM tables of every 4-piece material and the DTZ tables `chess_dtz` makes, in one
/// folder (hard links, or copies across file systems).
fn tables() -> tempfile::TempDir {
    let dir = super::common::fixture_dir();
    let link = |from: &Path| {
        let to = dir.path().join(from.file_name().unwrap());
        if std::fs::hard_link(from, &to).is_err() {
            std::fs::copy(from, &to).unwrap();
        }
    };
    for e in std::fs::read_dir(chess_all4()).unwrap() {
        link(&e.unwrap().path());
    }
    for e in std::fs::read_dir(super::chess_dtz::dir()).unwrap() {
        let p = e.unwrap().path();
        if p.to_str().unwrap().ends_with(".dtz.rtb") {
            link(&p);
        }
    }
    dir
}

/// `retro probe chess` in words and in JSON.
fn cli(dir: &Path, fen: &str) -> (String, Json) {
    let d = dir.to_str().unwrap();
    let words = retro(&["probe", "chess", fen, "--tables", d]);
    assert!(words.status.success(), "{fen}: {}", stdout(&words));
    let j = retro(&["probe", "chess", fen, "--tables", d, "--json"]);
    assert!(j.status.success(), "{fen}");
    (stdout(&words), serde_json::from_str(&stdout(&j)).unwrap())
}

fn ucis(moves: &Json) -> Vec<String> {
    moves
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["uci"].as_str().unwrap().to_string())
        .collect()
}

fn link(fen: &str) -> String {
    fen.replace(' ', "_")
}

/// What the page shows: `[headline, DTZ line, best move, moves in order, FEN box, URL]`.
async fn shown(c: &Client, fen: &str) -> Result<Json, CmdError> {
    kbnk_shows(c, fen).await;
    c.execute(
        "return [document.querySelector('#result').textContent, \
         document.querySelector('#result-dtz').textContent, \
         document.querySelector('#best').textContent, \
         [...document.querySelectorAll('#moves button[data-uci]')].map(b => b.dataset.uci), \
         document.querySelector('#fen').value, location.search]",
        vec![],
    )
    .await
}

/// The CLI, `/api/probe/chess`, `/standard` and the viewer on the same positions, with and
/// without an en-passant square and with the clock at 0 and at 60; then the viewer's own
/// keeping of the FEN: a pawn's double step offers en passant, a clock of 90 stays, bad
/// FENs and castling rights are refused in words, controls only where they apply.
pub(super) async fn same_answers(c: &Client) -> Result<(), CmdError> {
    let dir = tables();
    let state = AppState::load(dir.path());
    let app = retro::serve::router(AppState::load(dir.path()));
    let base = spawn_server(state).await;

    // KPvKP: black takes en passant and mates in 9; without the right, a draw. KQvKR: DTZ
    // 45 plies, a win with a fresh clock, a cursed win at 60 (DTM 55 would not settle it).
    // KPvKP at 90: no DTZ table, and the mate (17 plies) comes after the clock reaches 100:
    // the answer says the rule was not counted.
    let cases: [(&str, &str, Option<&str>); 6] = [
        ("8/8/8/8/3pP3/k7/8/K7 b - e3 0 1", "win", None),
        ("8/8/8/8/3pP3/k7/8/K7 b - - 0 1", "draw", None),
        ("8/8/8/8/3pP3/k7/8/K7 b - e3 90 40", "win", None),
        ("8/8/8/8/3pP3/k7/8/K7 b - e3 60 40", "win", None),
        ("8/8/8/1kr5/8/2K5/3Q4/8 w - - 0 1", "win", Some("win")),
        (
            "8/8/8/1kr5/8/2K5/3Q4/8 w - - 60 70",
            "win",
            Some("cursed-win"),
        ),
    ];
    for (fen, category, fifty) in cases {
        let table = if fen.contains('Q') { "KQvKR" } else { "KPvKP" };
        let (words, j) = cli(dir.path(), fen);
        let api = get_from(&app, &format!("/api/probe/chess?fen={}", link(fen))).await;
        assert_eq!(api.status, 200, "{fen}: {}", api.text());
        let api = api.json();
        assert_eq!(api, j, "{fen}: /api/probe and `retro probe --json`");
        assert_eq!(j["category"], category, "{fen}");
        assert_eq!(j["fen"], fen);
        assert_eq!(j["dtz_category"], json!(fifty), "{fen}");
        let std = get_from(&app, &format!("/standard?fen={}", link(fen))).await;
        assert_eq!(std.status, 200, "{fen}: {}", std.text());
        let std = std.json();
        // A best move first, as good in both (one may break a tie another way).
        let first = |m: &Json, field: &str| m["moves"][0][field].clone();
        if category != "draw" {
            assert_eq!(
                j["best"]["uci"],
                first(&j, "uci"),
                "{fen}: best heads the list"
            );
            assert_eq!(first(&j, "dtm"), first(&std, "dtm"), "{fen}: first move");
        }
        if fen.contains("e3") {
            assert_eq!(first(&j, "uci"), "d4e3", "{fen}: en passant first");
            assert_eq!(first(&std, "uci"), "d4e3", "{fen}: en passant first");
        }
        let mut a = ucis(&j["moves"]);
        let mut b = ucis(&std["moves"]);
        a.sort();
        b.sort();
        assert_eq!(a, b, "{fen}: the legal moves");
        // The 50-move category of `/standard`, where DTZ is known.
        let h: i64 = fen.split(' ').nth(4).unwrap().parse().unwrap();
        let uncounted = fifty.is_none() && j["dtm"].as_i64().is_some_and(|d| d.abs() + h > 100);
        let note = "50-move rule: not taken into account";
        assert_eq!(words.contains(note), uncounted, "{fen}: {words}");
        if let Some(f) = fifty {
            assert_eq!(std["category"], f, "{fen}: /standard");
            let line = if h == 0 {
                format!("({f})")
            } else {
                format!("({f}, halfmove clock {h})")
            };
            assert!(words.contains(&line), "{fen}: {words}");
        }
        // The viewer: the same headline, best move, moves in the same order, the FEN kept.
        c.goto(&format!("{base}/?table={table}&fen={}", link(fen)))
            .await?;
        let s = shown(c, fen).await?;
        assert_eq!(s[0], super::browser::kbnk_headline(&j), "{fen}: headline");
        assert_eq!(s[3], json!(ucis(&j["moves"])), "{fen}: move order");
        assert_eq!(s[4], fen, "{fen}: FEN box");
        assert!(
            s[5].as_str().unwrap().contains(&link(fen)),
            "{fen}: {}",
            s[5]
        );
        if j["best"].is_object() {
            assert_eq!(
                s[2],
                format!("Best move: {}", j["best"]["san"].as_str().unwrap())
            );
        }
        let dtz_line = s[1].as_str().unwrap();
        match fifty {
            Some("win") => assert!(
                dtz_line.ends_with("the win holds under the 50-move rule"),
                "{dtz_line}"
            ),
            Some("cursed-win") => assert!(
                dtz_line.ends_with("cursed win: the 50-move rule draws it (halfmove clock at 60)"),
                "{dtz_line}"
            ),
            Some(_) => assert_eq!(dtz_line, "DTZ 0 · a draw"),
            None if uncounted => assert!(
                dtz_line.starts_with("50-move rule not taken into account"),
                "{dtz_line}"
            ),
            None => assert_eq!(dtz_line, "", "{fen}"),
        }
    }

    // From e2 with black's pawn on d4: e4 loses to mate in 9, and after it black may take
    // en passant, which the board offers and plays.
    let start = "8/8/8/8/3p4/k7/4P3/K7 w - - 0 1";
    c.goto(&format!("{base}/?table=KPvKP&fen={}", link(start)))
        .await?;
    kbnk_shows(c, start).await;
    drag(c, "[data-square=e2] .piece", "[data-square=e4]").await;
    let after = "8/8/8/8/3pP3/k7/8/K7 b - e3 0 1";
    let s = shown(c, after).await?;
    assert_eq!(s[0], "Black mates in 9");
    assert_eq!(s[3][0], "d4e3", "en passant listed first: {}", s[3]);
    assert_eq!(s[2], "Best move: dxe3");
    assert!(s[5].as_str().unwrap().contains("_b_-_e3_0_1"), "{}", s[5]);
    c.find(Locator::Css("#moves button[data-uci=d4e3]"))
        .await?
        .click()
        .await?;
    // The pawn taken en passant leaves the board; the move number moves on.
    let taken = "8/8/8/8/8/k3p3/8/K7 w - - 0 2";
    kbnk_shows(c, taken).await;
    let pgn = {
        c.find(Locator::Css("#copy-pgn")).await?.click().await?;
        wait_js(c, "document.querySelector('#pgn-text').value", "the PGN").await
    };
    let pgn = pgn.as_str().unwrap();
    assert!(pgn.contains(&format!("[FEN \"{start}\"]")), "{pgn}");
    assert!(pgn.contains("1. e4 dxe3"), "{pgn}");

    // A clock of 90 and move 80 stay through the link, and move on with a king move.
    let late = "8/8/8/8/3p4/k7/4P3/K7 b - - 90 80";
    c.goto(&format!("{base}/?table=KPvKP&fen={}", link(late)))
        .await?;
    kbnk_shows(c, late).await;
    c.find(Locator::Css("#moves button[data-uci=a3b3]"))
        .await?
        .click()
        .await?;
    kbnk_shows(c, "8/8/8/8/3p4/1k6/4P3/K7 w - - 91 81").await;

    // The bishop-colour mirror means nothing without a bishop: not offered on KRvK.
    let krk = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
    c.goto(&format!("{base}/?table=KRvK&fen={}", link(krk)))
        .await?;
    kbnk_shows(c, krk).await;
    let mirror = "return getComputedStyle(document.querySelector('#mirror')).display";
    assert_eq!(c.execute(mirror, vec![]).await?, "none", "mirror on KRvK");
    // The FEN box is in view at 1280x900 without scrolling.
    let bottom = c
        .execute(
            "return document.querySelector('#fen').getBoundingClientRect().bottom",
            vec![],
        )
        .await?;
    assert!(bottom.as_f64().unwrap() <= 900.0, "FEN box at {bottom}");
    // A bad FEN and castling rights are refused, and the page says why.
    for (bad, words) in [
        ("8/8/8 w - - 0 1", "8 ranks"),
        ("8/8/8/4k3/8/8/8/R3K3 w Q - 0 1", "Castling rights \"Q\""),
    ] {
        let fen = c.find(Locator::Css("#fen")).await?;
        fen.clear().await?;
        fen.send_keys(&format!("{bad}\u{E007}")).await?;
        let msg = wait_js(
            c,
            "!document.querySelector('#fen-error').hidden && document.querySelector('#fen-error').textContent",
            "a message for a bad FEN",
        )
        .await;
        assert!(msg.as_str().unwrap().contains(words), "{bad}: {msg}");
        // The board stays as it was.
        let shown_fen = c
            .execute(
                "return document.querySelector('.chess').dataset.fen",
                vec![],
            )
            .await?;
        assert_eq!(shown_fen, krk);
    }
    // A castling right in a link: the same message.
    c.goto(&format!(
        "{base}/?table=KRvK&fen={}",
        link("8/8/8/4k3/8/8/8/R3K3 w Q - 0 1")
    ))
    .await?;
    let msg = wait_js(
        c,
        "!document.querySelector('#fen-error').hidden && document.querySelector('#fen-error').textContent",
        "a message for castling rights in a link",
    )
    .await;
    assert!(msg.as_str().unwrap().contains("castling"), "{msg}");

    // The board's orientation is in the link, and a link keeps it.
    c.goto(&format!("{base}/?table=KRvK&fen={}", link(krk)))
        .await?;
    kbnk_shows(c, krk).await;
    c.find(Locator::Css("#flip")).await?.click().await?;
    let url = c.current_url().await?;
    assert!(url.as_str().contains("flip=1"), "{url}");
    c.goto(url.as_str()).await?;
    kbnk_shows(c, krk).await;
    let corner = "return document.querySelector('#board [data-square]').dataset.square";
    assert_eq!(
        c.execute(corner, vec![]).await?,
        "h1",
        "black at the bottom"
    );

    // Checkmate: the verdict says it; no count to a zeroing move under it.
    let mate = "k7/1Q6/1K6/8/8/8/8/7r b - - 0 1";
    c.goto(&format!("{base}/?table=KQvKR&fen={}", link(mate)))
        .await?;
    let head = kbnk_shows(c, mate).await;
    assert_eq!(head, "Checkmate: white wins");
    assert_eq!(
        c.execute(
            "return document.querySelector('#result-dtz').textContent",
            vec![]
        )
        .await?,
        ""
    );
    // The small "z" labels are explained on the page where they show.
    let q = "8/8/8/1kr5/8/2K5/3Q4/8 w - - 0 1";
    c.goto(&format!("{base}/?table=KQvKR&fen={}", link(q)))
        .await?;
    kbnk_shows(c, q).await;
    let note = c
        .execute(
            "const n = document.querySelector('#moves-note'); return [getComputedStyle(n).visibility, n.textContent]",
            vec![],
        )
        .await?;
    assert_eq!(note[0], "visible");
    assert!(
        note[1].as_str().unwrap().contains("distance to zeroing"),
        "{note}"
    );
    let errors = c.execute("return window.__errors || []", vec![]).await?;
    assert_eq!(errors, json!([]), "JavaScript errors on the page");
    Ok(())
}
