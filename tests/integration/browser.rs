//! End to end in a real browser: Debian's Chromium driven through chromedriver (WebDriver)
//! by fantoccini. Starts `retro serve`'s router on a free port over tables generated into a
//! temporary folder, then uses the viewer as a person would: opens a KBNK position from a
//! URL, reads the distance shown, drags pieces (a legal move, then an illegal edit), goes
//! back, plays the best move, pastes a FEN, flips the board, autoplays towards mate, then
//! places a stone on a k-in-a-row board and lets the computer answer. Every figure shown is
//! checked against the library's own probe. Saves `target/browser-screenshot.png` (and
//! `target/browser-screenshot-mnk.png`). The same session then runs `browser_analysis`
//! (analysis board, statistics page, phone width), the other chess materials,
//! `browser_tables` (drawn pieces, the table picker, the list of tables) and
//! `browser_defaults` (a 4-piece material of the default tables, with its DTZ).
//!
//! Not covered here yet: a `/standard` (Lichess API) answer rendered in the page; that route
//! is built on another branch.
//!
//! Needs `/usr/bin/chromium` and `/usr/bin/chromedriver`: `scripts/install-browser.sh`
//! installs them (the README's test command runs it).

use std::net::TcpListener as StdListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::actions::{InputSource, MouseActions, PointerAction, MOUSE_BUTTON_LEFT};
use fantoccini::error::CmdError;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value as Json};

use retro::serve::{router, AppState};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// Kills chromedriver (and with it the browser) however the test ends.
struct Driver(Child);
impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub(super) fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

async fn start_driver() -> (Driver, String) {
    for bin in [CHROMIUM, CHROMEDRIVER] {
        assert!(
            Path::new(bin).exists(),
            "{bin} is missing: run `scripts/install-browser.sh` (installs Debian's chromium and chromium-driver)"
        );
    }
    let port = free_port();
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver(child);
    let start = Instant::now();
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "chromedriver did not listen on port {port} within 20 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (driver, format!("http://127.0.0.1:{port}"))
}

async fn connect(webdriver: &str, profile: &Path) -> Client {
    let args = vec![
        "--headless".to_string(),
        "--no-sandbox".into(),
        "--disable-gpu".into(),
        "--disable-dev-shm-usage".into(),
        "--disable-quic".into(),
        "--no-first-run".into(),
        "--disable-background-networking".into(),
        "--disable-component-update".into(),
        "--disable-sync".into(),
        "--hide-scrollbars".into(),
        "--window-size=1280,1000".into(),
        format!("--user-data-dir={}", profile.display()),
    ];
    let caps = json!({
        "browserName": "chrome",
        "goog:chromeOptions": { "binary": CHROMIUM, "args": args },
    });
    let caps = caps.as_object().unwrap().clone();
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(webdriver)
        .await
        .expect("a WebDriver session in Chromium")
}

/// Poll a JavaScript expression until it is truthy; returns its value.
pub(super) async fn wait_js(c: &Client, expr: &str, what: &str) -> Json {
    let start = Instant::now();
    loop {
        let v = c
            .execute(&format!("return ({expr});"), vec![])
            .await
            .unwrap_or(Json::Null);
        let truthy = match &v {
            Json::Null | Json::Bool(false) => false,
            Json::String(s) => !s.is_empty(),
            _ => true,
        };
        if truthy {
            return v;
        }
        if start.elapsed() > Duration::from_secs(15) {
            // What the page shows, to tell a slow answer from a refused one.
            let page = c
                .execute(
                    "return JSON.stringify({errors: window.__errors || [], at: location.href, \
                     view: (document.getElementById('view') || document.body).innerText.slice(0, 400)})",
                    vec![],
                )
                .await
                .unwrap_or(Json::Null);
            panic!("timed out waiting for {what} (`{expr}`); the page: {page}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub(super) async fn text(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no element {css}: {e}"))
        .text()
        .await
        .unwrap()
}

pub(super) async fn drag(c: &Client, from_css: &str, to_css: &str) {
    let from = c.find(Locator::Css(from_css)).await.unwrap();
    let to = c.find(Locator::Css(to_css)).await.unwrap();
    let moves = MouseActions::new("mouse".into())
        .then(PointerAction::MoveToElement {
            element: from,
            duration: Some(Duration::from_millis(50)),
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::Down {
            button: MOUSE_BUTTON_LEFT,
        })
        .then(PointerAction::MoveBy {
            duration: Some(Duration::from_millis(50)),
            x: 8.0,
            y: 8.0,
        })
        .then(PointerAction::MoveToElement {
            element: to,
            duration: Some(Duration::from_millis(150)),
            x: 0.0,
            y: 0.0,
        })
        .then(PointerAction::Up {
            button: MOUSE_BUTTON_LEFT,
        });
    c.perform_actions(moves).await.expect("drag");
}

/// What the library says about a KBNK position (what the page must show).
pub(super) fn kbnk_probe(dir: &Path, fen: &str) -> Json {
    let loaded = retro::GAMES.open(dir, "kbnk").unwrap();
    serde_json::from_str(&loaded.plugin.probe(&loaded.table, fen).unwrap().json()).unwrap()
}

/// The page's headline for a probe answer: the JSON's `result`, capitalised (the viewer
/// shows the server's words, see `verdict` in chess.js).
pub(super) fn kbnk_headline(j: &Json) -> String {
    let r = j["result"].as_str().expect("a result in words");
    let mut c = r.chars();
    c.next().unwrap().to_uppercase().chain(c).collect()
}

/// Wait until the KBNK view shows `fen` with its answer loaded.
pub(super) async fn kbnk_shows(c: &Client, fen: &str) -> String {
    let want = serde_json::to_string(fen).unwrap();
    wait_js(
        c,
        &format!(
            "document.querySelector('.chess') && document.querySelector('.chess').dataset.fen === {want} && \
             document.querySelector('#fen').value === {want} && \
             document.querySelector('#result').textContent"
        ),
        &format!("the page to show {fen}"),
    )
    .await
    .as_str()
    .unwrap()
    .to_string()
}

/// Serve `state` on a free local port until the test ends; its base URL.
pub(super) async fn spawn_server(state: AppState) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(retro::serve::serve_on(
        listener,
        router(state),
        retro::serve::Limits::default(),
        std::future::pending(),
    ));
    base
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn viewer_in_chromium() {
    // Tables: KBNK and 3x3 tic-tac-toe, the shared fixture folder.
    let dir = super::common::tables_dir();
    let state = AppState::load(dir);
    assert_eq!(state.len(), 2);
    let base = spawn_server(state).await;

    let (_driver, webdriver) = start_driver().await;
    let profile = tempfile::tempdir().unwrap();
    let c = connect(&webdriver, profile.path()).await;
    // The answers of every route first, at the desktop width the session starts with.
    let mut result = super::browser_answers::same_answers(&c).await;
    if result.is_ok() {
        result = run(&c, &base, dir).await;
    }
    if result.is_ok() {
        result = super::browser_answers::kbnk_everywhere(&c, &base, dir).await;
    }
    if result.is_ok() {
        result = super::browser_answers::mnk_counts(&c, &base, dir).await;
    }
    if result.is_ok() {
        result = super::browser_analysis::analysis_board(&c, &base, dir).await;
    }
    if result.is_ok() {
        result = super::browser_analysis::stats_page(&c, &base, dir).await;
    }
    if result.is_ok() {
        result = super::browser_analysis::phone_width(&c, &base, dir).await;
    }
    if result.is_ok() {
        result = any_material(&c).await;
    }
    if result.is_ok() {
        result = boards_of_other_shapes(&c).await;
    }
    if result.is_ok() {
        result = super::browser_tables::tables_and_picker(&c).await;
    }
    if result.is_ok() {
        result = super::browser_defaults::four_pieces_with_their_dtz(&c).await;
    }
    let _ = c.close().await;
    result.unwrap();
}

/// k-in-a-row boards that are not square (4x3 and 3x4): the viewer takes the width, height
/// and k from the table's `params` in `/api/tables`, for the board, its label (the picker
/// of boards, the page title) and its hint; the result shown is the library's.
async fn boards_of_other_shapes(c: &Client) -> Result<(), CmdError> {
    let dir = tempfile::tempdir().unwrap();
    for name in ["mnk-4x3-3", "mnk-3x4-3"] {
        let p = retro::GAMES.plugin(name).unwrap();
        retro::generate::generate(&*p, dir.path(), &retro::progress::Silent).unwrap();
    }
    let base = spawn_server(AppState::load(dir.path())).await;
    let headline = |name: &str, board: &str| -> String {
        let t = retro::GAMES.open(dir.path(), name).unwrap();
        let j: Json =
            serde_json::from_str(&t.plugin.probe(&t.table, board).unwrap().json()).unwrap();
        let r = j["remoteness"].as_i64().unwrap_or(0);
        match j["category"].as_str().unwrap() {
            "win" => format!("X to move: win in {r}"),
            "loss" => format!("X to move: loss in {r}"),
            _ => "X to move: draw".to_string(),
        }
    };
    let shown = "(() => { const v = document.querySelector('.mnk'); \
                   return [document.querySelector('#mnk-board').getAttribute('aria-label'), \
                     [...document.querySelectorAll('#mnk-board [data-cell]')].map(e => e.dataset.cell).join(' '), \
                     [...document.querySelectorAll('#mnk-table option')].map(o => [o.textContent, o.value, o.selected]), \
                     document.querySelector('.mnk .hint').textContent.split('.')[0], \
                     document.querySelector('#mnk-result').textContent, document.title]; })()";
    c.goto(&format!("{base}/?table=mnk-4x3-3")).await?;
    wait_js(
        c,
        "document.querySelector('.mnk') && document.querySelector('.mnk').dataset.board === '..../..../....'",
        "the empty 4x3 board",
    )
    .await;
    let options = json!([
        ["3×4, 3 in a row", "mnk-3x4-3", false],
        ["4×3, 3 in a row", "mnk-4x3-3", true]
    ]);
    assert_eq!(
        c.execute(&format!("return {shown};"), vec![]).await?,
        json!([
            "4 by 3 board",
            "a3 b3 c3 d3 a2 b2 c2 d2 a1 b1 c1 d1",
            options,
            "Get 3 in a row (across, down or diagonally) on a 4×3 board",
            headline("mnk-4x3-3", "..../..../...."),
            "4×3, 3 in a row · retro"
        ])
    );
    // The other board from the picker of boards.
    c.execute(
        "const s = document.querySelector('#mnk-table'); s.value = 'mnk-3x4-3'; \
         s.dispatchEvent(new Event('change'));",
        vec![],
    )
    .await?;
    wait_js(
        c,
        "document.querySelector('.mnk') && document.querySelector('.mnk').dataset.board === '.../.../.../...'",
        "the empty 3x4 board",
    )
    .await;
    let shown = c.execute(&format!("return {shown};"), vec![]).await?;
    assert_eq!(shown[0], "3 by 4 board");
    assert_eq!(shown[1], "a4 b4 c4 a3 b3 c3 a2 b2 c2 a1 b1 c1");
    assert_eq!(shown[2][1][2], false, "{shown}");
    assert_eq!(shown[2][0][2], true, "{shown}");
    assert_eq!(shown[4], json!(headline("mnk-3x4-3", ".../.../.../...")));
    assert_eq!(shown[5], "3×4, 3 in a row · retro");
    let errors = c.execute("return window.__errors || []", vec![]).await?;
    assert_eq!(errors, json!([]), "JavaScript errors on the page");
    Ok(())
}

/// The chess viewer over tables of other materials: KPvK and its sub-tables, probed through
/// `/api/probe/chess`, with their DTZ tables (shown under the verdict and beside each
/// move); a pawn dragged to the last rank promotes, and the board then belongs to another
/// table (KQvK).
async fn any_material(c: &Client) -> Result<(), CmdError> {
    let dir = tempfile::tempdir().unwrap();
    let kpvk = retro::chess::material::Material::parse("KPvK").unwrap();
    for m in retro::chess::plan::closure(&[kpvk]) {
        for name in [m.to_string(), format!("{m}.dtz")] {
            let p = retro::GAMES.plugin_in(&name, dir.path()).unwrap();
            retro::generate::generate(&*p, dir.path(), &retro::progress::Silent).unwrap();
        }
    }
    let state = AppState::load(dir.path());
    assert_eq!(state.len(), 10, "five materials, DTM and DTZ");
    let base = spawn_server(state).await;
    let router = retro::chess::router::Router::new(dir.path());
    let probe =
        |fen: &str| -> Json { serde_json::from_str(&router.probe(fen).unwrap().json()).unwrap() };
    // White pawn on e7, kings a1 and h7 (clear of e8): the URL position and its verdict.
    let fen = "8/4P2k/8/8/8/8/8/K7 w - - 0 1";
    c.goto(&format!("{base}/?table=KPvK&fen={}", fen.replace(' ', "_")))
        .await?;
    let shown = kbnk_shows(c, fen).await;
    let j = probe(fen);
    assert_eq!(j["table"], "KPvK");
    assert_eq!(shown, kbnk_headline(&j), "result for the URL's position");
    // DTZ beside DTM: promoting now zeroes into a win, one ply.
    assert_eq!(
        (j["dtz"].as_i64(), j["dtz_category"].as_str()),
        (Some(1), Some("win"))
    );
    let dtz_line = c
        .execute(
            "return document.querySelector('#result-dtz').textContent",
            vec![],
        )
        .await?;
    assert_eq!(
        dtz_line,
        "DTZ 1 ply to a capture, pawn move or mate · the win holds under the 50-move rule"
    );
    // Each decisive move shows the DTZ of the position it reaches.
    let ka2 = j["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["uci"] == "a1a2")
        .unwrap();
    let shown = c
        .execute(
            "return document.querySelector('#moves button[data-uci=a1a2] .dtz').textContent",
            vec![],
        )
        .await?;
    assert_eq!(shown, format!(" z{}", ka2["dtz"].as_i64().unwrap().abs()));
    // Every piece of both colours is in the tray.
    let tray = c.find_all(Locator::Css("#spares [data-spare]")).await?;
    assert_eq!(tray.len(), 12);
    // e7-e8 promotes (the best promotion, listed first), and the queen's table answers.
    drag(c, "[data-square=e7] .piece", "[data-square=e8]").await;
    let promoted = "4Q3/7k/8/8/8/8/8/K7 b - - 0 1";
    let shown = kbnk_shows(c, promoted).await;
    let j = probe(promoted);
    assert_eq!(j["table"], "KQvK");
    assert_eq!(shown, kbnk_headline(&j), "result after the promotion");
    // Stalemate is a draw, said as such; the table names why a pawn move draws.
    let stalemate = "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1";
    c.goto(&format!(
        "{base}/?table=KQvK&fen={}",
        stalemate.replace(' ', "_")
    ))
    .await?;
    assert_eq!(kbnk_shows(c, stalemate).await, "Stalemate");
    assert_eq!(probe(stalemate)["stalemate"], true);
    let cls = c
        .execute("return document.querySelector('.result').className", vec![])
        .await?;
    assert_eq!(cls, json!("result draw"));
    let hang = "8/8/8/8/3k4/8/4P3/7K w - - 0 1";
    c.goto(&format!(
        "{base}/?table=KPvK&fen={}",
        hang.replace(' ', "_")
    ))
    .await?;
    kbnk_shows(c, hang).await;
    let e3 = probe(hang)["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["uci"] == "e2e3")
        .unwrap()["result"]
        .clone();
    assert_eq!(e3, "draw: black takes the pawn");
    let shown = c
        .execute(
            "return document.querySelector('#moves button[data-uci=e2e3] .verdict').textContent",
            vec![],
        )
        .await?;
    assert_eq!(shown, e3);
    // The material's DTZ table has its statistics page, linked from the board: the DTZ
    // histogram in plies, as the table's header counts it.
    let href = c
        .execute(
            "const a = document.querySelector('#dtz-stats-link'); return a && a.getAttribute('href')",
            vec![],
        )
        .await?;
    assert_eq!(href, "/?table=KPvK.dtz&view=stats");
    c.goto(&format!("{base}{}", href.as_str().unwrap())).await?;
    wait_js(
        c,
        "document.querySelector('.stats-page') && document.querySelector('.stats-page').dataset.ready",
        "the DTZ statistics page",
    )
    .await;
    let bars = c
        .execute(
            "return [...document.querySelectorAll(\"svg.histogram[data-section='white'] rect.bar\")].map(r => [Number(r.dataset.distance), r.dataset.kind, Number(r.dataset.count)])",
            vec![],
        )
        .await?;
    let t = retro::table::Table::open(&dir.path().join("KPvK.dtz.rtb")).unwrap();
    let want = super::browser_analysis::histogram_bars(
        &retro::summary::stats(t.header(), retro::present::DistanceUnit::Plies)[0],
    );
    assert!(want.len() > 5, "{want:?}");
    assert_eq!(bars, Json::Array(want));
    let heading = c
        .execute(
            "return document.querySelector('.stats-page h2').textContent",
            vec![],
        )
        .await?;
    assert!(
        heading.as_str().unwrap().contains("distance to zeroing"),
        "{heading}"
    );
    let errors = c.execute("return window.__errors || []", vec![]).await?;
    assert_eq!(errors, json!([]), "JavaScript errors on the page");

    // The Lichess API, as the browser renders it: the answer for the promoted position
    // (black to move, lost) agrees with the table's own probe.
    c.goto(&format!(
        "{base}/standard?fen={}",
        promoted.replace(' ', "_")
    ))
    .await?;
    let body = c.execute("return document.body.innerText", vec![]).await?;
    let lichess: Json = serde_json::from_str(body.as_str().unwrap()).unwrap();
    let j = probe(promoted);
    assert_eq!(lichess["category"], "loss", "{lichess}");
    assert_eq!(lichess["dtm"], j["dtm"], "{lichess}");
    // A bare king against a queen: the next zeroing move is the mate, so DTZ is DTM.
    assert_eq!(lichess["dtz"], j["dtm"], "{lichess}");
    let ucis = |v: &Json| -> Vec<String> {
        let mut u: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["uci"].as_str().unwrap().to_string())
            .collect();
        u.sort();
        u
    };
    assert_eq!(ucis(&lichess["moves"]), ucis(&j["moves"]));
    Ok(())
}

async fn run(c: &Client, base: &str, dir: &Path) -> Result<(), CmdError> {
    c.set_window_size(1280, 1000).await?;

    // 1. A KBNK position from a URL; the shown distance is the table's.
    let fen = "8/8/8/3k4/8/8/8/KBN5 w - - 0 1";
    c.goto(&format!("{base}/?table=kbnk&fen={}", fen.replace(' ', "_")))
        .await?;
    let shown = kbnk_shows(c, fen).await;
    let j = kbnk_probe(dir, fen);
    assert_eq!(j["category"], "win", "{j}");
    assert_eq!(shown, kbnk_headline(&j), "result for the URL's position");
    assert!(shown.starts_with("White mates in "), "{shown}");
    // The best move is drawn as an arrow and listed first.
    let best = j["best"]["uci"].as_str().unwrap().to_string();
    wait_js(
        c,
        &format!("document.querySelector('svg.arrows').getAttribute('data-best') === '{best}'"),
        "the best-move arrow",
    )
    .await;
    let first = c
        .find(Locator::Css("#moves li:first-child button"))
        .await?
        .attr("data-uci")
        .await?;
    assert_eq!(first.as_deref(), Some(best.as_str()));
    let listed = c.find_all(Locator::Css("#moves button.move")).await?.len();
    assert_eq!(listed, j["moves"].as_array().unwrap().len());

    // 2. Drag the white king a1 -> b2: a legal move, so it is played (black to move).
    drag(c, "[data-square=a1] .piece", "[data-square=b2]").await;
    let fen2 = "8/8/8/3k4/8/8/1K6/1BN5 b - - 1 1";
    let shown2 = kbnk_shows(c, fen2).await;
    let j2 = kbnk_probe(dir, fen2);
    assert_eq!(shown2, kbnk_headline(&j2));
    assert_ne!(shown2, shown, "the result changes");
    assert!(
        c.current_url().await?.as_str().contains("1K6/1BN5_b"),
        "the position is in the URL"
    );

    // 3. Drag the black king next to the white one (not a move: an edit): illegal, and why.
    drag(c, "[data-square=d5] .piece", "[data-square=c3]").await;
    let shown3 = kbnk_shows(c, "8/8/8/8/8/2k5/1K6/1BN5 b - - 1 1").await;
    assert!(
        shown3.starts_with("Illegal") && shown3.contains("adjacent"),
        "{shown3}"
    );

    // 4. Clicking a listed move plays it; back twice to the position after Kb2, then play
    //    the best move.
    c.find(Locator::Css("#back")).await?.click().await?;
    kbnk_shows(c, fen2).await;
    let listed = j2["moves"].as_array().unwrap();
    let last = listed.last().unwrap()["uci"].as_str().unwrap().to_string();
    c.find(Locator::Css(&format!("#moves button[data-uci='{last}']")))
        .await?
        .click()
        .await?;
    wait_js(
        c,
        &format!(
            "document.querySelector('.square.last[data-square={}] [data-piece=k]')",
            &last[2..4]
        ),
        "the clicked move to be played",
    )
    .await;
    c.find(Locator::Css("#back")).await?.click().await?;
    kbnk_shows(c, fen2).await;
    let best2 = j2["best"]["uci"].as_str().unwrap().to_string();
    wait_js(
        c,
        &format!("document.querySelector('svg.arrows').getAttribute('data-best') === '{best2}'"),
        "the best-move arrow after the drag",
    )
    .await;
    c.find(Locator::Css("#play-best")).await?.click().await?;
    let after = wait_js(
        c,
        &format!("document.querySelector('#fen').value !== '{fen2}' && document.querySelector('.square.last') && document.querySelector('#fen').value"),
        "the best move to be played",
    )
    .await;
    let fen3 = after.as_str().unwrap().to_string();
    let shown4 = kbnk_shows(c, &fen3).await;
    let j3 = kbnk_probe(dir, &fen3);
    assert_eq!(shown4, kbnk_headline(&j3));
    // Black's best defence keeps it lost, one move less far from mate or the same.
    assert_eq!(j3["category"], "win");
    assert_eq!(j3["side"], "white");
    assert_eq!(
        j3["mate_in"].as_i64().unwrap().abs(),
        j2["mate_in"].as_i64().unwrap().abs()
    );
    // The king really moved the way the table said.
    let from = &best2[0..2];
    let to = &best2[2..4];
    assert!(c
        .find(Locator::Css(&format!("[data-square={to}] [data-piece=k]")))
        .await
        .is_ok());
    assert!(c
        .find(Locator::Css(&format!("[data-square={from}] .piece")))
        .await
        .is_err());

    // 5. Paste a FEN into the box; flip the board.
    let fen5 = "7k/8/5K2/8/8/8/8/B6N w - - 0 1";
    let input = c.find(Locator::Css("#fen")).await?;
    input.clear().await?;
    input.send_keys(&format!("{fen5}\u{E007}")).await?;
    let shown5 = kbnk_shows(c, fen5).await;
    assert_eq!(shown5, kbnk_headline(&kbnk_probe(dir, fen5)));
    c.find(Locator::Css("#flip")).await?.click().await?;
    let corner = c
        .execute(
            "return document.querySelector('#board .square').dataset.square",
            vec![],
        )
        .await?;
    assert_eq!(corner, json!("h1"), "flipped: h1 at the top left");
    c.find(Locator::Css("#flip")).await?.click().await?;

    // 6. Autoplay at the fastest speed plays the table's best moves; stop it.
    c.execute(
        "const s = document.querySelector('#speed'); s.value = s.min; s.dispatchEvent(new Event('input'));",
        vec![],
    )
    .await?;
    let ply = "Number(document.querySelector('#ply').textContent.split('/')[0])";
    let ply0 = c
        .execute(&format!("return {ply}"), vec![])
        .await?
        .as_i64()
        .unwrap();
    c.find(Locator::Css("#autoplay")).await?.click().await?;
    let top = "return document.querySelector('#autoplay').getBoundingClientRect().top";
    let top0 = c.execute(top, vec![]).await?.as_f64().unwrap();
    wait_js(
        c,
        &format!("{ply} >= {}", ply0 + 6),
        "autoplay to play six plies",
    )
    .await;
    // Six positions later, with lists of moves of other lengths, the button is where it was.
    let top6 = c.execute(top, vec![]).await?.as_f64().unwrap();
    assert_eq!(top0, top6, "the stop button moved during autoplay");
    // Stopped by a real click, as a user's: the button sits above the moves list, whose
    // length changes several times a second at this speed, so it stays where WebDriver
    // measured it (below the list, a click once landed beside it).
    c.find(Locator::Css("#autoplay")).await?.click().await?;
    // Once stopped, no further move may come: the board, its ply counter and its answer
    // settle on one position. Read the ply and the FEN in one script so they belong together.
    tokio::time::sleep(Duration::from_millis(300)).await;
    wait_js(
        c,
        "document.querySelector('.chess').dataset.fen === document.querySelector('#fen').value",
        "the stopped board's answer",
    )
    .await;
    let state = c
        .execute(
            &format!("return [{ply}, document.querySelector('#fen').value]"),
            vec![],
        )
        .await?;
    let played = state[0].as_i64().unwrap() - ply0;
    // Stopped, the button is still where it was: the list of moves keeps its height.
    let top_stopped = c.execute(top, vec![]).await?.as_f64().unwrap();
    assert_eq!(
        top0, top_stopped,
        "the stop button moved when autoplay stopped"
    );
    let fen6 = state[1].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let ply_later = c.execute(&format!("return {ply}"), vec![]).await?;
    assert_eq!(
        ply_later.as_i64().unwrap() - ply0,
        played,
        "autoplay went on after stop"
    );
    let shown6 = kbnk_shows(c, &fen6).await;
    let j6 = kbnk_probe(dir, &fen6);
    assert_eq!(shown6, kbnk_headline(&j6));
    let j5 = kbnk_probe(dir, fen5);
    if j5["category"] == "win" {
        // Best play on both sides: the mate comes one move nearer with every white move.
        let plies = |j: &Json| j["dtm"].as_i64().unwrap().abs();
        assert_eq!(plies(&j6), plies(&j5) - played, "{fen5} -> {fen6}");
    }
    let errors = c.execute("return window.__errors || []", vec![]).await?;
    assert_eq!(errors, json!([]), "JavaScript errors on the page");
    let png = c.screenshot().await?;
    std::fs::create_dir_all(target_dir()).unwrap();
    std::fs::write(target_dir().join("browser-screenshot.png"), &png).unwrap();

    // 7. k-in-a-row: find the 3x3 board with the picker, read the hints, place a stone.
    let search = c.find(Locator::Css("#material-search")).await?;
    search.click().await?;
    search.send_keys("3x3").await?;
    wait_js(
        c,
        "document.querySelector('#picker-list .chip.active') && document.querySelector('#picker-list .chip.active').dataset.name === 'mnk-3x3-3'",
        "the picker's match for 3x3",
    )
    .await;
    search.send_keys("\u{E007}").await?;
    wait_js(
        c,
        "document.querySelector('#mnk-result') && document.querySelector('#mnk-result').textContent === 'X to move: draw'",
        "the empty 3x3 board",
    )
    .await;
    let centre = c
        .find(Locator::Css("[data-cell=b2]"))
        .await?
        .attr("data-verdict")
        .await?;
    assert_eq!(centre.as_deref(), Some("draw"));
    c.find(Locator::Css("[data-cell=b2]"))
        .await?
        .click()
        .await?;
    wait_js(
        c,
        "document.querySelector('.mnk').dataset.board === '.../.x./...' && document.querySelector('#mnk-result').textContent === 'O to move: draw'",
        "the stone on b2",
    )
    .await;
    assert!(c
        .current_url()
        .await?
        .as_str()
        .contains("board=.../.x./..."));
    // After X takes the centre, an edge reply loses for O; a corner draws.
    assert_eq!(
        c.find(Locator::Css("[data-cell=a1]"))
            .await?
            .attr("data-verdict")
            .await?
            .as_deref(),
        Some("draw")
    );
    let edge = c
        .find(Locator::Css("[data-cell=b1]"))
        .await?
        .attr("data-verdict")
        .await?;
    assert!(
        edge.as_deref().unwrap_or("").starts_with("loss in"),
        "{edge:?}"
    );
    assert_eq!(text(c, "[data-cell=b2]").await.trim(), "×");
    // The computer answers for O when asked to.
    c.find(Locator::Css("#computer")).await?.click().await?;
    wait_js(
        c,
        "(document.querySelector('.mnk').dataset.board.match(/o/g) || []).length === 1",
        "the computer's reply",
    )
    .await;
    // The value history: one dot per position of the game, at the value and remoteness
    // the table gives for the player to move.
    let board = wait_js(
        c,
        "document.querySelector('.mnk').dataset.charted === document.querySelector('.mnk').dataset.ready && document.querySelectorAll('#value-history circle.vh-dot').length === 3 && document.querySelector('.mnk').dataset.board",
        "the value history of three positions",
    )
    .await;
    let mnk = retro::GAMES.open(dir, "mnk-3x3-3").unwrap();
    let mnk_probe = |b: &str| -> Json {
        serde_json::from_str(&mnk.plugin.probe(&mnk.table, b).unwrap().json()).unwrap()
    };
    let dots = c
        .execute(
            "return [...document.querySelectorAll('#value-history circle.vh-dot')].map(d => [Number(d.dataset.ply), d.dataset.value, d.dataset.remoteness === '' ? null : Number(d.dataset.remoteness), d.dataset.turn])",
            vec![],
        )
        .await?;
    let want: Vec<Json> = [".../.../...", ".../.x./...", board.as_str().unwrap()]
        .iter()
        .enumerate()
        .map(|(ply, b)| {
            let j = mnk_probe(b);
            json!([ply, j["category"], j["remoteness"], j["turn"]])
        })
        .collect();
    assert_eq!(dots, Json::Array(want), "the value history");
    // The first-move map: what opening on each cell gives, from the empty board's answer.
    let map = c
        .execute(
            "return Object.fromEntries([...document.querySelectorAll('#first-moves .fm-cell')].map(e => [e.dataset.cell, e.dataset.verdict]))",
            vec![],
        )
        .await?;
    let empty = mnk_probe(".../.../...");
    let mut want = serde_json::Map::new();
    for m in empty["moves"].as_array().unwrap() {
        // Counted for the player making the move, the move included.
        let r = m["remoteness"].as_i64().unwrap_or(0) + 1;
        let plies = if r == 1 {
            "1 ply".to_string()
        } else {
            format!("{r} plies")
        };
        let v = match m["category"].as_str().unwrap() {
            "loss" => format!("win in {plies}"),
            "win" => format!("loss in {plies}"),
            _ => "draw".to_string(),
        };
        want.insert(m["cell"].as_str().unwrap().to_string(), json!(v));
    }
    assert_eq!(want.len(), 9);
    assert_eq!(map, Json::Object(want), "the first-move map");
    let png = c.screenshot().await?;
    std::fs::write(target_dir().join("browser-screenshot-mnk.png"), &png).unwrap();
    let errors = c.execute("return window.__errors || []", vec![]).await?;
    assert_eq!(errors, json!([]), "JavaScript errors on the page");
    Ok(())
}
