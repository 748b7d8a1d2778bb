//! One position, one answer: the viewer keeps the whole FEN (en-passant square, halfmove
//! clock, move number) through moves, links and typing, and shows what `retro probe chess`,
//! `/api/probe/chess` and `/standard` say for it (the same moves in the same order, each
//! worth the same), the 50-move rule counted from the position's clock; the DTZ line of
//! `/standard/mainline` beside the DTM line; "Play to mate" to its end without its button
//! moving; a practice game against the tablebase, each move judged; KBN against K from the
//! KBNK table on every route; k-in-a-row counted alike in the CLI and the viewer, with the
//! computer judging your moves. Runs in the browser session of `browser::viewer_in_chromium`.
//!
//! Tables: the shared 4-piece DTM tables and the DTZ tables of `chess_dtz` (KQvKR, KRvKP and
//! what they lead to), linked into one folder: KPvKP for en passant, KQvKR for the clock,
//! KQvK for autoplay and practice; the shared KBNK and 3x3 tables for the rest.

use std::path::Path;

use fantoccini::error::CmdError;
use fantoccini::{Client, Locator};
use serde_json::{json, Value as Json};

use super::browser::{drag, kbnk_shows, spawn_server, wait_js};
use super::common::{chess_all4, link_shared, retro, stdout};
use super::lichess_api::get_from;
use retro::serve::AppState;

/// The DTM tables of every 4-piece material and the DTZ tables `chess_dtz` makes, in one
/// folder (linked).
fn tables() -> tempfile::TempDir {
    let dir = super::common::fixture_dir();
    for e in std::fs::read_dir(chess_all4()).unwrap() {
        link_shared(&e.unwrap().path(), dir.path());
    }
    for e in std::fs::read_dir(super::chess_dtz::dir()).unwrap() {
        let p = e.unwrap().path();
        if p.to_str().unwrap().ends_with(".dtz.rtb") {
            link_shared(&p, dir.path());
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
        // The same moves in the same order (Lichess's), each worth the same: DTM, and DTZ
        // where a DTZ table gives it; the position's DTM and DTZ too.
        assert_eq!(ucis(&j["moves"]), ucis(&std["moves"]), "{fen}: move order");
        let dtm = |v: &Json| v.as_i64().unwrap_or(0);
        for (m, s) in j["moves"]
            .as_array()
            .unwrap()
            .iter()
            .zip(std["moves"].as_array().unwrap())
        {
            assert_eq!(dtm(&m["dtm"]), dtm(&s["dtm"]), "{fen} {}: dtm", m["uci"]);
            if !m["dtz"].is_null() {
                assert_eq!(m["dtz"], s["dtz"], "{fen} {}: dtz", m["uci"]);
            }
        }
        assert_eq!(dtm(&j["dtm"]), dtm(&std["dtm"]), "{fen}: dtm");
        if fifty.is_some() {
            assert_eq!(j["dtz"], std["dtz"], "{fen}: dtz");
        }
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
        // The line of DTZ-optimal moves (`/standard/mainline`) beside the DTM line, where
        // the material has a DTZ table; its first move drawn on the board when it is not
        // the best move's.
        if fifty == Some("win") {
            let line = get_from(&app, &format!("/standard/mainline?fen={}", link(fen))).await;
            assert_eq!(line.status, 200);
            let line = line.json();
            let want: Vec<Json> = line["mainline"]
                .as_array()
                .unwrap()
                .iter()
                .take(40)
                .map(|m| m["uci"].clone())
                .collect();
            assert!(want.len() > 10, "{line}");
            let shown = wait_js(
                c,
                "document.querySelector('.chess').dataset.lines === document.querySelector('.chess').dataset.ready && \
                 [[...document.querySelectorAll('#dtz-line button[data-uci]')].map(b => b.dataset.uci), \
                  [...document.querySelectorAll('#dtm-line button[data-uci]')].map(b => b.dataset.uci), \
                  document.querySelector('svg.arrows').getAttribute('data-dtz')]",
                "the lines of best moves",
            )
            .await;
            assert_eq!(shown[0], Json::Array(want.clone()), "{fen}: the DTZ line");
            // The DTM line starts with the best move by distance to mate.
            assert_eq!(shown[1][0], j["best"]["uci"], "{fen}: the DTM line");
            let dtz_first = (want[0] != j["best"]["uci"]).then(|| want[0].clone());
            assert_eq!(shown[2], json!(dtz_first), "{fen}: the DTZ arrow");
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
    autoplay_to_the_end(c, &base).await?;
    practice(c, &base, dir.path()).await?;
    let errors = c.execute("return window.__errors || []", vec![]).await?;
    assert_eq!(errors, json!([]), "JavaScript errors on the page");
    Ok(())
}

/// The top of the "Play to mate" button, in the page.
const AUTOPLAY_TOP: &str = "return document.querySelector('#autoplay').getBoundingClientRect().top";

/// "Play to mate" played to the mate: its button stays where it was when autoplay ends by
/// itself (the verdict and the best move change height above the moves, not above it).
async fn autoplay_to_the_end(c: &Client, base: &str) -> Result<(), CmdError> {
    let fen = "8/8/8/4k3/8/8/8/4K2Q w - - 0 1";
    c.goto(&format!("{base}/?table=KQvK&fen={}", link(fen)))
        .await?;
    assert_eq!(kbnk_shows(c, fen).await, "White mates in 7");
    c.execute(
        "const s = document.querySelector('#speed'); s.value = s.min; s.dispatchEvent(new Event('input'));",
        vec![],
    )
    .await?;
    let top = c.execute(AUTOPLAY_TOP, vec![]).await?;
    c.find(Locator::Css("#autoplay")).await?.click().await?;
    wait_js(
        c,
        "document.querySelector('#result').textContent === 'Checkmate: white wins' && \
         document.querySelector('#autoplay').textContent === '▶ Play to mate'",
        "autoplay to reach the mate and stop",
    )
    .await;
    assert_eq!(
        c.execute(AUTOPLAY_TOP, vec![]).await?,
        top,
        "the button moved when autoplay ended"
    );
    Ok(())
}

/// The move of a probe answer (the library's) worth the most to its mover by distance to
/// mate: the quickest mate, the first of equals in the answer's order.
fn best_by_dtm(j: &Json) -> Json {
    let rank = |m: &Json| -> i64 {
        let d = m["dtm"].as_i64().unwrap_or(0).abs();
        match m["category"].as_str().unwrap() {
            "loss" => d,
            "win" => 2000 - d,
            _ => 1000,
        }
    };
    let moves = j["moves"].as_array().unwrap();
    moves.iter().min_by_key(|m| rank(m)).unwrap().clone()
}

/// Play `uci` from the move list and wait for the verdict on it; its kind and text.
async fn practise_move(c: &Client, uci: &str) -> Result<(String, String), CmdError> {
    c.execute(
        "document.querySelector('#practice-verdict').dataset.kind = 'waiting';",
        vec![],
    )
    .await?;
    c.find(Locator::Css(&format!("#moves button[data-uci={uci}]")))
        .await?
        .click()
        .await?;
    let v = wait_js(
        c,
        "document.querySelector('#practice-verdict').dataset.kind !== 'waiting' && \
         [document.querySelector('#practice-verdict').dataset.kind, document.querySelector('#practice-verdict').textContent]",
        &format!("the verdict on {uci}"),
    )
    .await;
    Ok((v[0].as_str().unwrap().into(), v[1].as_str().unwrap().into()))
}

/// Wait until the tablebase has answered and it is white's move again; that position.
async fn white_to_move(c: &Client, after: &str) -> String {
    let after = serde_json::to_string(after).unwrap();
    wait_js(
        c,
        &format!(
            "document.querySelector('.chess').dataset.fen !== {after} && \
             document.querySelector('.chess').dataset.fen.split(' ')[1] === 'w' && \
             document.querySelector('.chess').dataset.fen === document.querySelector('#fen').value && \
             document.querySelector('.chess').dataset.fen"
        ),
        "the tablebase's answer",
    )
    .await
    .as_str()
    .unwrap()
    .to_string()
}

/// A practice game against the tablebase from a won KQvK position: a slip that keeps the
/// win but makes the mate longer, one that throws the win away (taken back), then best
/// moves to the mate; the verdict on each move and the count at the end.
async fn practice(c: &Client, base: &str, dir: &Path) -> Result<(), CmdError> {
    let start = "8/8/8/4k3/8/8/8/4K2Q w - - 0 1";
    c.goto(&format!("{base}/?table=KQvK&fen={}", link(start)))
        .await?;
    kbnk_shows(c, start).await;
    let (_, j) = cli(dir, start);
    let mate = j["mate_in"].as_i64().unwrap();
    c.find(Locator::Css("#practice")).await?.click().await?;
    // The slip: a king move that still wins, slower than the best.
    let best = best_by_dtm(&j);
    let slow = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| {
            m["category"] == "loss"
                && m["dtm"].as_i64().unwrap().abs() + 1 > j["dtm"].as_i64().unwrap()
        })
        .unwrap()
        .clone();
    let longer = (slow["dtm"].as_i64().unwrap().abs() + 1 - j["dtm"].as_i64().unwrap()) / 2;
    let (kind, text) = practise_move(c, slow["uci"].as_str().unwrap()).await?;
    assert_eq!(kind, "longer", "{text}");
    let s = if longer == 1 { "" } else { "s" };
    assert_eq!(
        text,
        format!(
            "You keep the win, but the mate is {longer} move{s} longer: mate in {} instead of {mate}. The best move was {} ({}).",
            mate + longer,
            best["san"].as_str().unwrap(),
            best["result"].as_str().unwrap()
        )
    );
    let after_slip = c
        .execute(
            "return document.querySelector('.chess').dataset.fen",
            vec![],
        )
        .await?;
    let mut fen = white_to_move(c, after_slip.as_str().unwrap()).await;
    // The tablebase answered with its best defence: the longest.
    let (_, now) = cli(dir, &fen);
    assert_eq!(now["mate_in"].as_i64().unwrap(), mate + longer - 1, "{fen}");
    // The throw: a queen move the king takes, or that stalemates.
    let drawn = now["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["category"] == "draw")
        .unwrap()
        .clone();
    let (kind, text) = practise_move(c, drawn["uci"].as_str().unwrap()).await?;
    assert_eq!(kind, "thrown", "{text}");
    assert!(
        text.starts_with("You threw the win away: it is a draw now. The best move was "),
        "{text}"
    );
    c.find(Locator::Css("#take-back")).await?.click().await?;
    let back = wait_js(
        c,
        &format!(
            "document.querySelector('.chess').dataset.fen === {} && document.querySelector('.chess').dataset.ready && \
             document.querySelector('#practice-verdict').textContent",
            serde_json::to_string(&fen).unwrap()
        ),
        "the move taken back",
    )
    .await;
    assert_eq!(
        back,
        format!("{} taken back: your move.", drawn["san"].as_str().unwrap())
    );
    // Best moves from there to the mate, each said to be the best.
    let mut played = 1;
    loop {
        let (_, j) = cli(dir, &fen);
        let m = best_by_dtm(&j);
        let (kind, text) = practise_move(c, m["uci"].as_str().unwrap()).await?;
        played += 1;
        assert_eq!(kind, "best", "{fen}: {text}");
        if m["checkmate"] == true {
            assert_eq!(text, "Checkmate.");
            break;
        }
        assert_eq!(
            text,
            format!("The best move: you keep the win, mate in {}.", j["mate_in"])
        );
        let after = c
            .execute(
                "return document.querySelector('.chess').dataset.fen",
                vec![],
            )
            .await?;
        fen = white_to_move(c, after.as_str().unwrap()).await;
    }
    let summary = wait_js(
        c,
        "document.querySelector('#practice-summary') && document.querySelector('#practice-summary').textContent",
        "the count at the end",
    )
    .await;
    assert_eq!(
        summary,
        format!(
            "Your {played} moves against the best: {} as good as the best, 1 lengthened the game (by {longer} move{s} in all), 0 threw the result away (1 taken back). You mated in {played} moves; best play mates in {mate}.",
            played - 1
        )
    );
    let review = c
        .execute(
            "return [...document.querySelectorAll('#practice-review li')].map(l => l.dataset.kind)",
            vec![],
        )
        .await?;
    let mut kinds = vec![json!("longer")];
    kinds.extend((1..played).map(|_| json!("best")));
    assert_eq!(review, Json::Array(kinds));
    Ok(())
}

/// KBN against K on a server holding the KBNK table and no chess KBNvK table (as `retro
/// serve` makes by default): the chess board, `retro probe chess`, `/api/probe/chess` and
/// `/standard` answer from it, colours either way round, and the board says which table
/// answered.
pub(super) async fn kbnk_everywhere(c: &Client, base: &str, dir: &Path) -> Result<(), CmdError> {
    let app = retro::serve::router(AppState::load(dir));
    for fen in [
        "8/8/8/3k4/8/8/8/KBN5 w - - 0 1",
        "kbn5/8/8/8/3K4/8/8/8 b - - 0 1",
    ] {
        let (words, j) = cli(dir, fen);
        assert!(words.contains("(kbnk)"), "{words}");
        assert_eq!(j["table"], "kbnk");
        let api = get_from(&app, &format!("/api/probe/chess?fen={}", link(fen))).await;
        assert_eq!(api.status, 200, "{fen}: {}", api.text());
        assert_eq!(api.json(), j, "{fen}: /api/probe and `retro probe --json`");
        let std = get_from(&app, &format!("/standard?fen={}", link(fen)))
            .await
            .json();
        assert_eq!(ucis(&j["moves"]), ucis(&std["moves"]), "{fen}: move order");
        assert_eq!(j["dtm"], std["dtm"], "{fen}");
        // The board of the material, which this server has no chess table of.
        c.goto(&format!("{base}/?table=KBNvK&fen={}", link(fen)))
            .await?;
        let s = shown(c, fen).await?;
        assert_eq!(s[0], super::browser::kbnk_headline(&j), "{fen}: headline");
        assert_eq!(s[3], json!(ucis(&j["moves"])), "{fen}: move order");
        let note = c
            .execute(
                "return document.querySelector('#material-note').textContent",
                vec![],
            )
            .await?;
        assert_eq!(note, "4 pieces · answered from kbnk", "{fen}");
    }
    Ok(())
}

/// k-in-a-row: every cell counts its move the same way in the viewer and in `retro probe`
/// (for the player making it, the move included: "win in 7 plies"); with the computer
/// playing O, a slip that wins later and one that throws the win away are said as such,
/// and Undo takes a move back.
pub(super) async fn mnk_counts(c: &Client, base: &str, dir: &Path) -> Result<(), CmdError> {
    let d = dir.to_str().unwrap();
    let probe = |board: &str| -> (String, Json) {
        let words = retro(&["probe", "mnk-3x3-3", board, "--tables", d]);
        assert!(words.status.success());
        let j = retro(&["probe", "mnk-3x3-3", board, "--tables", d, "--json"]);
        (stdout(&words), serde_json::from_str(&stdout(&j)).unwrap())
    };
    let ready = |board: &str| {
        format!(
            "document.querySelector('.mnk') && document.querySelector('.mnk').dataset.board === '{board}' && \
             document.querySelector('.mnk').dataset.ready && document.querySelector('#mnk-result').textContent"
        )
    };
    // O to move after X took the centre: the edges lose, the corners draw.
    let board = ".../.x./...";
    let (words, j) = probe(board);
    c.goto(&format!("{base}/?table=mnk-3x3-3&board={board}"))
        .await?;
    wait_js(c, &ready(board), "the board").await;
    let shown = c
        .execute(
            "return Object.fromEntries([...document.querySelectorAll('#mnk-board [data-verdict]')].map(e => [e.dataset.cell, [e.dataset.verdict, e.textContent]]))",
            vec![],
        )
        .await?;
    let listed: Vec<(String, String)> = words
        .lines()
        .skip_while(|l| !l.starts_with("moves for O"))
        .skip(1)
        .map(|l| {
            let (cell, said) = l.trim().split_once(' ').unwrap();
            (cell.to_string(), said.trim().to_string())
        })
        .collect();
    assert_eq!(listed.len(), 8, "{words}");
    assert!(
        listed.iter().any(|(_, s)| s == "loss in 6 plies"),
        "{words}"
    );
    for ((cell, said), m) in listed.iter().zip(j["moves"].as_array().unwrap()) {
        assert_eq!(m["cell"], cell.as_str());
        assert_eq!(m["result"], said.as_str());
        // The cell: the same words, and the same count in short.
        let short = match m["plies"].as_u64() {
            Some(p) => format!("{} {p}", said.split(' ').next().unwrap()),
            None => "draw".to_string(),
        };
        assert_eq!(shown[cell], json!([said, short]), "{cell}");
    }
    // X to move: a2 wins at once, b1 two plies later, c2 draws.
    let board = "x.o/.o./x..";
    let (_, j) = probe(board);
    let best = &j["moves"][0];
    assert_eq!(
        (best["cell"].as_str(), best["plies"].as_u64()),
        (Some("a2"), Some(1))
    );
    c.goto(&format!("{base}/?table=mnk-3x3-3&board={board}"))
        .await?;
    wait_js(c, &ready(board), "the board").await;
    c.find(Locator::Css("#computer")).await?.click().await?;
    let verdict = "document.querySelector('#mnk-verdict').dataset.kind && \
                   [document.querySelector('#mnk-verdict').dataset.kind, document.querySelector('#mnk-verdict').textContent]";
    c.find(Locator::Css("[data-cell=b1]"))
        .await?
        .click()
        .await?;
    let v = wait_js(c, verdict, "the verdict on b1").await;
    assert_eq!(
        v,
        json!(["longer", "You keep the win, but it takes 2 plies longer: win in 3 instead of 1. The best move was a2 (win in 1 ply)."])
    );
    // The computer answers; Undo takes back its move and yours.
    wait_js(
        c,
        "(document.querySelector('.mnk').dataset.board.match(/o/g) || []).length === 3",
        "the computer's move",
    )
    .await;
    c.find(Locator::Css("#undo")).await?.click().await?;
    let back = wait_js(
        c,
        &format!(
            "{} && document.querySelector('#mnk-verdict').textContent",
            ready(board)
        ),
        "the move taken back",
    )
    .await;
    assert_eq!(back, "b1 taken back: your move.");
    c.find(Locator::Css("[data-cell=c2]"))
        .await?
        .click()
        .await?;
    let v = wait_js(
        c,
        &format!("document.querySelector('#mnk-verdict').dataset.kind === 'thrown' && {verdict}"),
        "the verdict on c2",
    )
    .await;
    assert_eq!(
        v,
        json!([
            "thrown",
            "You threw the win away: it is a draw now. The best move was a2 (win in 1 ply)."
        ])
    );
    let errors = c.execute("return window.__errors || []", vec![]).await?;
    assert_eq!(errors, json!([]), "JavaScript errors on the page");
    Ok(())
}
