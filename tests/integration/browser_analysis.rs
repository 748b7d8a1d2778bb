//! The browser test, continued (see `browser.rs`, which runs these in its Chromium session):
//! the analysis board (results in the server's words, the played line with clickable plies
//! and arrow keys, PGN, the check highlight, checkmate told from the board's view), the
//! statistics page, and the phone layout (390 px), with screenshots saved under `target/`.
//! Every figure checked is derived from the tables through the library.

use std::path::Path;

use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::error::CmdError;
use fantoccini::{Client, Locator};
use serde_json::{json, Value as Json};

use super::browser::{kbnk_headline, kbnk_probe, kbnk_shows, target_dir, wait_js};
use retro::present::DistanceUnit;

const ARROW_LEFT: char = '\u{E012}';
const ARROW_RIGHT: char = '\u{E014}';

async fn key(c: &Client, k: char) -> Result<(), CmdError> {
    let keys = KeyActions::new("keyboard".into())
        .then(KeyAction::Down { value: k })
        .then(KeyAction::Up { value: k });
    c.perform_actions(keys).await
}

async fn js(c: &Client, expr: &str) -> Result<Json, CmdError> {
    c.execute(&format!("return ({expr});"), vec![]).await
}

/// The page's current position (the FEN its answer was loaded for).
async fn shown_fen(c: &Client) -> Result<String, CmdError> {
    Ok(js(c, "document.querySelector('.chess').dataset.fen")
        .await?
        .as_str()
        .unwrap()
        .to_string())
}

pub(super) async fn analysis_board(c: &Client, base: &str, dir: &Path) -> Result<(), CmdError> {
    c.set_window_size(1280, 1000).await?;
    let fen = "8/8/8/3k4/8/8/8/KBN5 w - - 0 1";
    c.goto(&format!("{base}/?table=kbnk&fen={}", fen.replace(' ', "_")))
        .await?;
    kbnk_shows(c, fen).await;
    let j = kbnk_probe(dir, fen);

    // 1. Each move's result for white, who makes it, in the JSON's words and plies.
    let shown = js(
        c,
        "[...document.querySelectorAll('#moves button.move')].map(b => [b.dataset.uci, b.querySelector('.verdict').firstChild.textContent, (b.querySelector('.plies') || {}).textContent || null])",
    )
    .await?;
    let moves = j["moves"].as_array().unwrap();
    let want: Vec<Json> = moves
        .iter()
        .map(|m| {
            let plies = m["plies"].as_u64().map(|p| format!(" {p}p"));
            json!([m["uci"], m["result"], plies])
        })
        .collect();
    assert_eq!(shown, Json::Array(want));
    assert_eq!(
        moves[0]["result"],
        format!("mate in {}", j["mate_in"]),
        "the best move keeps the value"
    );
    // Bb1-e4 leaves the bishop next to the black king, unguarded.
    let be4 = moves.iter().find(|m| m["uci"] == "b1e4").unwrap();
    assert_eq!(be4["result"], "draw: black takes the bishop");

    // 2. Three best moves make the line; each keeps the mate one ply nearer.
    let mut fens = vec![fen.to_string()];
    let mut sans = Vec::new();
    for _ in 0..3 {
        let cur = fens.last().unwrap().clone();
        let before = kbnk_probe(dir, &cur);
        let best = before["best"]["uci"].as_str().unwrap();
        let m = before["moves"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["uci"] == best)
            .unwrap();
        sans.push(m["san"].as_str().unwrap().to_string());
        c.find(Locator::Css("#play-best")).await?.click().await?;
        let next = wait_js(
            c,
            &format!(
                "document.querySelector('.chess').dataset.fen !== {} && document.querySelector('.chess').dataset.fen",
                serde_json::to_string(&cur).unwrap()
            ),
            "the best move to be played",
        )
        .await;
        let next = next.as_str().unwrap().to_string();
        let after = kbnk_probe(dir, &next);
        assert_eq!(
            after["dtm"].as_i64().unwrap().abs(),
            before["dtm"].as_i64().unwrap().abs() - 1,
            "{cur} -> {next}"
        );
        fens.push(next);
    }
    kbnk_shows(c, &fens[3]).await;
    let line = js(
        c,
        "[...document.querySelectorAll('#line > *')].map(e => e.textContent)",
    )
    .await?;
    assert_eq!(
        line,
        json!(["start", "1.", sans[0], sans[1], "2.", sans[2]]),
        "the move list"
    );
    assert_eq!(
        js(c, "document.querySelector('#line .current').dataset.ply").await?,
        json!("3")
    );

    // 3. Clicking a ply shows the position after it; arrow keys step through the line.
    c.find(Locator::Css("#line .ply-btn[data-ply='1']"))
        .await?
        .click()
        .await?;
    kbnk_shows(c, &fens[1]).await;
    assert_eq!(
        js(c, "document.querySelector('#line .current').textContent").await?,
        json!(sans[0])
    );
    key(c, ARROW_RIGHT).await?;
    kbnk_shows(c, &fens[2]).await;
    key(c, ARROW_LEFT).await?;
    key(c, ARROW_LEFT).await?;
    kbnk_shows(c, &fens[0]).await;
    assert_eq!(
        js(c, "document.querySelector('#line .current').textContent").await?,
        json!("start")
    );
    for want in &fens[1..] {
        key(c, ARROW_RIGHT).await?;
        kbnk_shows(c, want).await;
    }

    // 4. Copy PGN: the whole line, from its FEN.
    c.find(Locator::Css("#copy-pgn")).await?.click().await?;
    let pgn = wait_js(
        c,
        "document.querySelector('#pgn-text').dataset.copied",
        "the PGN",
    )
    .await;
    let want = format!(
        "[Event \"retro analysis\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"-\"]\n\
         [White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n[SetUp \"1\"]\n[FEN \"{fen}\"]\n\n\
         1. {} {} 2. {} *\n",
        sans[0], sans[1], sans[2]
    );
    assert_eq!(pgn, json!(want));
    assert_eq!(
        js(c, "document.querySelector('#pgn-text').value").await?,
        json!(want)
    );

    // 5. Mate in one played: the king in check glows, and checkmate is said from the
    //    board's view (who wins), not shown as a red loss; the PGN has the result.
    let m1 = "7k/4N3/6K1/8/7B/8/8/8 w - - 0 1";
    let input = c.find(Locator::Css("#fen")).await?;
    input.clear().await?;
    input.send_keys(&format!("{m1}\u{E007}")).await?;
    kbnk_shows(c, m1).await;
    c.find(Locator::Css("#moves button[data-uci='h4f6']"))
        .await?
        .click()
        .await?;
    let mated = "7k/4N3/5BK1/8/8/8/8/8 b - - 1 1";
    let head = kbnk_shows(c, mated).await;
    let jm = kbnk_probe(dir, mated);
    assert_eq!(jm["check"], true);
    assert_eq!(jm["checkmate"], true);
    assert_eq!(head, "Checkmate: white wins");
    assert_eq!(head, kbnk_headline(&jm));
    let cls = js(c, "document.querySelector('.result').className").await?;
    assert_eq!(cls, json!("result mate"));
    let check = wait_js(
        c,
        "document.querySelector('.square.check') && document.querySelector('.square.check').dataset.square",
        "the check highlight",
    )
    .await;
    assert_eq!(check, json!("h8"), "the black king is on h8");
    assert_eq!(
        js(c, "document.querySelectorAll('.square.check').length").await?,
        json!(1)
    );
    c.find(Locator::Css("#copy-pgn")).await?.click().await?;
    let pgn = wait_js(
        c,
        "document.querySelector('#pgn-text').dataset.copied.includes('Bf6#') && document.querySelector('#pgn-text').dataset.copied",
        "the PGN of the mate",
    )
    .await;
    let pgn = pgn.as_str().unwrap();
    assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    assert!(
        pgn.ends_with(&format!("[FEN \"{m1}\"]\n\n1. Bf6# 1-0\n")),
        "{pgn}"
    );
    // Back one ply: no check, no glow.
    key(c, ARROW_LEFT).await?;
    kbnk_shows(c, m1).await;
    assert_eq!(kbnk_probe(dir, m1)["check"], false);
    assert_eq!(
        js(c, "document.querySelectorAll('.square.check').length").await?,
        json!(0)
    );

    // 6. A draw says why: black to move takes the knight; taking leaves too little.
    let d = "8/8/8/8/8/8/3N4/K1k2B2 b - - 0 1";
    let input = c.find(Locator::Css("#fen")).await?;
    input.clear().await?;
    input.send_keys(&format!("{d}\u{E007}")).await?;
    let head = kbnk_shows(c, d).await;
    assert_eq!(head, "Draw: black takes the knight");
    assert_eq!(
        js(
            c,
            "document.querySelector('#moves button[data-uci=c1d2] .verdict').textContent"
        )
        .await?,
        json!("draw: insufficient material")
    );
    let desktop = c.screenshot().await?;
    std::fs::write(target_dir().join("browser-desktop-analysis.png"), desktop).unwrap();
    let errors = js(c, "window.__errors || []").await?;
    assert_eq!(errors, json!([]), "JavaScript errors on the page");
    Ok(())
}

/// The bars a statistics page draws for a section: `[distance, "win" or "loss", count]`
/// for each non-zero count, as the table's header gives them.
pub(super) fn histogram_bars(s: &retro::summary::SectionStats) -> Vec<Json> {
    s.by_distance
        .iter()
        .flat_map(|&(d, w, l)| [(d, "win", w), (d, "loss", l)])
        .filter(|x| x.2 > 0)
        .map(|(d, k, n)| json!([d, k, n]))
        .collect()
}

pub(super) async fn stats_page(c: &Client, base: &str, dir: &Path) -> Result<(), CmdError> {
    c.goto(&format!("{base}/?table=kbnk&view=stats")).await?;
    wait_js(
        c,
        "document.querySelector('.stats-page') && document.querySelector('.stats-page').dataset.ready",
        "the statistics page",
    )
    .await;
    let loaded = retro::GAMES.open(dir, "kbnk").unwrap();
    let header = loaded.table.header();
    let stats = retro::summary::stats(header, DistanceUnit::Moves);
    for (info, s) in header.sections.iter().zip(&stats) {
        let sel = format!("[data-section='{}']", info.name);
        // The chart: one bar per non-zero count, at its distance, with its count.
        let bars = js(
            c,
            &format!("[...document.querySelectorAll(\"svg.histogram{sel} rect.bar\")].map(r => [Number(r.dataset.distance), r.dataset.kind, Number(r.dataset.count)])"),
        )
        .await?;
        let want = histogram_bars(s);
        assert!(!want.is_empty());
        assert_eq!(bars, Json::Array(want), "{}", info.name);
        // The counts, written out.
        let counts = js(
            c,
            &format!("document.querySelector(\".stat-section{sel} .stats\").textContent"),
        )
        .await?;
        let fmt = |n: u64| {
            let s = n.to_string();
            let mut out = String::new();
            for (i, ch) in s.chars().enumerate() {
                if i > 0 && (s.len() - i) % 3 == 0 {
                    out.push(',');
                }
                out.push(ch);
            }
            out
        };
        assert_eq!(
            counts,
            json!(format!(
                "{}legal{}wins{}losses{}draws",
                fmt(s.legal),
                fmt(s.wins),
                fmt(s.losses),
                fmt(s.draws)
            ))
        );
        // The checksum, and that the served bytes still match it.
        let sum = js(
            c,
            &format!("document.querySelector(\".stat-section{sel} code[data-checksum]\").textContent + '|' + !!document.querySelector(\".stat-section{sel} .checksum .ok\")"),
        )
        .await?;
        assert_eq!(sum, json!(format!("{:016x}|true", info.checksum)));
    }
    // The longest white win opens on the board as the mate in 33.
    let link = c
        .find(Locator::Css(
            ".stat-section[data-section='white'] a.longest-link",
        ))
        .await?;
    let fen = link.attr("data-position").await?.unwrap();
    assert_eq!(kbnk_probe(dir, &fen)["dtm"], 65);
    let png = c.screenshot().await?;
    std::fs::write(target_dir().join("browser-desktop-stats.png"), png).unwrap();
    link.click().await?;
    let head = kbnk_shows(c, &fen).await;
    assert_eq!(head, "White mates in 33");
    let errors = js(c, "window.__errors || []").await?;
    assert_eq!(errors, json!([]), "JavaScript errors on the page");
    Ok(())
}

/// 390 px wide: the verdict sits directly under the board and the best move is on screen
/// without scrolling; nothing is wider than the screen. Screenshots of the board, the
/// statistics page and k-in-a-row.
pub(super) async fn phone_width(c: &Client, base: &str, dir: &Path) -> Result<(), CmdError> {
    c.set_window_size(390, 844).await?;
    let fen = "8/8/8/3k4/8/8/8/KBN5 w - - 0 1";
    c.goto(&format!("{base}/?table=kbnk&fen={}", fen.replace(' ', "_")))
        .await?;
    kbnk_shows(c, fen).await;
    assert_eq!(shown_fen(c).await?, fen);
    let width = js(c, "window.innerWidth").await?.as_f64().unwrap();
    assert!(width <= 390.0, "a phone-width viewport: {width}");
    let g = js(
        c,
        "(() => { const b = document.querySelector('.board-wrap').getBoundingClientRect(); \
         const r = document.querySelector('.result').getBoundingClientRect(); \
         const m = document.querySelector('#moves li:first-child').getBoundingClientRect(); \
         return [b.bottom, r.top, r.bottom, m.bottom, window.innerHeight, document.documentElement.scrollWidth, window.innerWidth]; })()",
    )
    .await?;
    let g: Vec<f64> = g
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let [board_bottom, result_top, result_bottom, move_bottom, height, scroll_w, inner_w] = g[..]
    else {
        panic!("{g:?}")
    };
    let gap = result_top - board_bottom;
    assert!(
        (0.0..=16.0).contains(&gap),
        "the verdict directly under the board: gap {gap}"
    );
    assert!(result_bottom <= height, "the verdict is on screen: {g:?}");
    assert!(move_bottom <= height, "the best move is on screen: {g:?}");
    assert!(scroll_w <= inner_w, "no sideways scrolling: {g:?}");
    let png = c.screenshot().await?;
    std::fs::write(target_dir().join("browser-phone.png"), png).unwrap();
    // The whole page at phone width, to look for gaps below the fold.
    c.set_window_size(390, 2200).await?;
    let png = c.screenshot().await?;
    std::fs::write(target_dir().join("browser-phone-full.png"), png).unwrap();
    c.set_window_size(390, 844).await?;

    c.goto(&format!("{base}/?table=kbnk&view=stats")).await?;
    wait_js(
        c,
        "document.querySelector('.stats-page') && document.querySelector('.stats-page').dataset.ready",
        "the statistics page",
    )
    .await;
    let w = js(
        c,
        "[document.documentElement.scrollWidth, window.innerWidth]",
    )
    .await?;
    assert_eq!(w[0], w[1], "no sideways scrolling on the statistics page");
    let png = c.screenshot().await?;
    std::fs::write(target_dir().join("browser-phone-stats.png"), png).unwrap();

    // k-in-a-row: X (a3) and O (b3), X to move takes the centre: a won game, so the value
    // history shows X's wins, on X's side of the chart, one ply nearer each move.
    c.goto(&format!("{base}/?table=mnk-3x3-3&board=xo./.../..."))
        .await?;
    wait_js(
        c,
        "document.querySelector('.mnk') && document.querySelector('.mnk').dataset.charted",
        "the k-in-a-row view",
    )
    .await;
    c.find(Locator::Css("[data-cell=b2]"))
        .await?
        .click()
        .await?;
    let dots = wait_js(
        c,
        "document.querySelector('.mnk').dataset.board === 'xo./.x./...' && document.querySelectorAll('#value-history circle.vh-dot').length === 2 && \
         [...document.querySelectorAll('#value-history circle.vh-dot')].map(d => [Number(d.dataset.ply), d.dataset.value, Number(d.dataset.remoteness), d.dataset.turn, Number(d.getAttribute('cx'))])",
        "the value history after the centre",
    )
    .await;
    let mnk = retro::GAMES.open(dir, "mnk-3x3-3").unwrap();
    let probe = |b: &str| -> Json {
        serde_json::from_str(&mnk.plugin.probe(&mnk.table, b).unwrap().json()).unwrap()
    };
    let (a, b) = (probe("xo./.../..."), probe("xo./.x./..."));
    assert_eq!(a["category"], "win", "X to move wins");
    assert_eq!(b["category"], "loss", "after the centre O is lost");
    assert_eq!(
        b["remoteness"].as_i64().unwrap(),
        a["remoteness"].as_i64().unwrap() - 1
    );
    let dots = dots.as_array().unwrap();
    assert_eq!(dots.len(), 2);
    for (dot, (j, ply)) in dots.iter().zip([(&a, 2), (&b, 3)]) {
        assert_eq!(dot[0], ply);
        assert_eq!(dot[1], j["category"]);
        assert_eq!(dot[2], j["remoteness"]);
        assert_eq!(dot[3], j["turn"]);
        // X wins: left of the centre line (the chart is 340 wide).
        assert!(dot[4].as_f64().unwrap() < 170.0, "{dot}");
    }
    let g = js(
        c,
        "(() => { const b = document.querySelector('#mnk-board').getBoundingClientRect(); \
         const r = document.querySelector('.mnk .result').getBoundingClientRect(); \
         return [r.top - b.bottom, r.bottom <= window.innerHeight, document.documentElement.scrollWidth <= window.innerWidth]; })()",
    )
    .await?;
    let gap = g[0].as_f64().unwrap();
    assert!(
        (0.0..=16.0).contains(&gap) && g[1] == json!(true) && g[2] == json!(true),
        "k-in-a-row: the result under the board, on screen: {g}"
    );
    let png = c.screenshot().await?;
    std::fs::write(target_dir().join("browser-phone-mnk.png"), png).unwrap();
    c.set_window_size(1280, 1000).await?;
    let errors = js(c, "window.__errors || []").await?;
    assert_eq!(errors, json!([]), "JavaScript errors on the page");
    Ok(())
}
