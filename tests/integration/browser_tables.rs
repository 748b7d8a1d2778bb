//! The browser test, continued (run by `browser.rs` in its Chromium session) over a server
//! holding every chess table of up to 4 pieces with KBNK and 3x3 k-in-a-row: the drawn
//! pieces, the table picker, the list of tables and the phone layout of both. Screenshots
//! go to `target/browser-tables.png`, `target/browser-picker.png` and
//! `target/browser-phone-tables.png`. Every figure checked is derived through the library.

use fantoccini::error::CmdError;
use fantoccini::{Client, Locator};
use serde_json::{json, Value as Json};

use super::browser::{kbnk_headline, spawn_server, target_dir, wait_js};
use retro::registry::Loaded;
use retro::serve::AppState;

const ENTER: &str = "\u{E007}";

async fn js(c: &Client, expr: &str) -> Result<Json, CmdError> {
    c.execute(&format!("return ({expr});"), vec![]).await
}

/// The served tables: the 35 chess tables and the shared KBNK and 3x3 fixtures.
fn state() -> AppState {
    let chess = super::common::chess_all4();
    let mut loaded: Vec<Loaded> = retro::GAMES
        .scan(chess, retro::table::Load::Safe)
        .into_iter()
        .chain(retro::GAMES.scan(super::common::tables_dir(), retro::table::Load::Safe))
        .map(|r| r.expect("every fixture table opens"))
        .collect();
    loaded.sort_by_key(|l| l.plugin.name());
    AppState::from_loaded(chess, loaded)
}

/// What the library answers for a chess position (the page must show the same).
fn chess_probe(fen: &str) -> Json {
    let router = retro::chess::router::Router::new(super::common::chess_all4());
    serde_json::from_str(&router.probe(fen).unwrap().json()).unwrap()
}

/// Wait until the chess board shows `fen` with its answer loaded; the headline shown.
async fn board_shows(c: &Client, fen: &str) -> String {
    let want = serde_json::to_string(fen).unwrap();
    wait_js(
        c,
        &format!(
            "document.querySelector('.chess') && document.querySelector('.chess').dataset.fen === {want} && \
             document.querySelector('.chess').dataset.ready && document.querySelector('#result').textContent"
        ),
        &format!("the board at {fen}"),
    )
    .await
    .as_str()
    .unwrap()
    .to_string()
}

/// Type `text` into the picker; the names it then lists, best match first.
async fn search(c: &Client, text: &str) -> Result<Vec<String>, CmdError> {
    let input = c.find(Locator::Css("#material-search")).await?;
    input.clear().await?;
    input.click().await?;
    input.send_keys(text).await?;
    let want = serde_json::to_string(text).unwrap();
    let names = wait_js(
        c,
        &format!(
            "document.querySelector('#material-search').value === {want} && \
             !document.querySelector('#picker-list').hidden && \
             [...document.querySelectorAll('#picker-list .chip')].map(a => a.dataset.name)"
        ),
        &format!("the picker's matches for {text}"),
    )
    .await;
    Ok(names
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect())
}

pub(super) async fn tables_and_picker(c: &Client) -> Result<(), CmdError> {
    c.set_window_size(1280, 1000).await?;
    let state = state();
    assert_eq!(state.len(), 37);
    let base = spawn_server(state.clone()).await;

    // 1. Every piece kind, both colours, on the board and in the tray, is a drawing: no
    //    text inside, and the six kinds all differ.
    let fen = "rnbqkp2/8/8/8/8/8/8/RNBQKP2 w - - 0 1";
    c.goto(&format!(
        "{base}/?table=KQvKR&fen={}",
        fen.replace(' ', "_")
    ))
    .await?;
    board_shows(c, fen).await;
    let pieces = js(
        c,
        "[...document.querySelectorAll('#board .piece, #spares .piece')].map(p => { \
           const w = document.createTreeWalker(p, NodeFilter.SHOW_TEXT); \
           const s = p.querySelector('svg'); const b = s.getBBox(); \
           return [p.dataset.piece || p.dataset.spare, w.nextNode() === null, \
                   s.querySelectorAll('path, circle, rect').length, b.width, b.height, \
                   s.innerHTML.replace(/#[0-9a-f]{6}/g, '')]; })",
    )
    .await?;
    let pieces = pieces.as_array().unwrap();
    assert_eq!(pieces.len(), 24, "12 on the board, 12 in the tray");
    let mut kinds = std::collections::BTreeMap::new();
    for p in pieces {
        let code = p[0].as_str().unwrap();
        assert_eq!(p[1], json!(true), "{code}: a text node inside the piece");
        assert!(p[2].as_u64().unwrap() >= 2, "{code}: drawn with shapes");
        let (w, h) = (p[3].as_f64().unwrap(), p[4].as_f64().unwrap());
        assert!(w > 15.0 && h > 25.0, "{code}: {w}x{h} of a 45x45 square");
        // White and black of a kind share the drawing (only the colours differ).
        let shape = p[5].as_str().unwrap().to_string();
        let kind = code.to_ascii_lowercase();
        assert_eq!(
            kinds.entry(kind.clone()).or_insert(shape.clone()),
            &shape,
            "{code}"
        );
    }
    let mut shapes: Vec<&String> = kinds.values().collect();
    assert_eq!(kinds.len(), 6, "{:?}", kinds.keys());
    shapes.sort();
    shapes.dedup();
    assert_eq!(shapes.len(), 6, "six different drawings");

    // 2. The picker: typing finds a material, present or not.
    let found = search(c, "krpvkr").await?;
    assert_eq!(
        found.first().map(String::as_str),
        Some("KRPvKR"),
        "{found:?}"
    );
    let found = search(c, "KRP").await?;
    for want in ["KRPvK", "KRPvKR", "KRPvKP", "KRPvKQ"] {
        assert!(
            found.iter().any(|n| n == want),
            "KRP finds {want}: {found:?}"
        );
    }
    assert!(found.iter().all(|n| n.contains("RP")), "{found:?}");
    // Without the `v`, and a table present comes first.
    assert_eq!(
        search(c, "kqkr").await?.first().map(String::as_str),
        Some("KQvKR")
    );
    let png = c.screenshot().await?;
    std::fs::write(target_dir().join("browser-picker.png"), png).unwrap();
    // Enter opens the first match: a material with no table here names its command.
    search(c, "krpvkr").await?;
    c.find(Locator::Css("#material-search"))
        .await?
        .send_keys(ENTER)
        .await?;
    let shown = wait_js(
        c,
        "document.querySelector('#material') && document.querySelector('#material').textContent === 'KRPvKR' && \
         document.querySelector('.chess').dataset.ready && \
         [location.search, document.querySelector('#result').textContent, document.querySelector('#result-sub').textContent, \
          document.querySelector('#picker-list').hidden]",
        "the KRPvKR board",
    )
    .await;
    assert!(
        shown[0].as_str().unwrap().contains("table=KRPvKR"),
        "{shown}"
    );
    assert_eq!(shown[1], "No KRPvKR table on this server", "{shown}");
    assert!(
        shown[2]
            .as_str()
            .unwrap()
            .contains("retro generate chess KRPvKR"),
        "{shown}"
    );
    assert_eq!(shown[3], true, "the list closes");
    // A present table: the board answers as the library does, its material above it.
    search(c, "KQvKR").await?;
    c.find(Locator::Css("#material-search"))
        .await?
        .send_keys(ENTER)
        .await?;
    let kqvkr = "r3k3/8/8/8/8/8/8/Q3K3 w - - 0 1";
    let head = board_shows(c, kqvkr).await;
    assert_eq!(head, kbnk_headline(&chess_probe(kqvkr)));
    assert_eq!(
        js(c, "document.querySelector('#material').textContent").await?,
        "KQvKR"
    );
    // The colours swapped: the board's material, answered from the stored table.
    let swapped = "q3k3/8/8/8/8/8/8/R3K3 b - - 0 1";
    c.goto(&format!(
        "{base}/?table=KQvKR&fen={}",
        swapped.replace(' ', "_")
    ))
    .await?;
    board_shows(c, swapped).await;
    let note = js(
        c,
        "[document.querySelector('#material').textContent, document.querySelector('#material-note').textContent]",
    )
    .await?;
    assert_eq!(note, json!(["KRvKQ", "4 pieces · answered from KQvKR"]));

    // 3. The list of tables: every table present, its figures from the library.
    c.goto(&format!("{base}/?view=tables")).await?;
    let rows = wait_js(
        c,
        "document.querySelectorAll('#tables-list tbody tr').length > 0 && \
         [...document.querySelectorAll('#tables-list tbody tr')].map(r => r.dataset.table)",
        "the list of tables",
    )
    .await;
    let mut rows: Vec<String> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect();
    let mut names: Vec<String> = state.known().split(", ").map(String::from).collect();
    rows.sort();
    names.sort();
    assert_eq!(rows, names, "one row per table served");
    // Each table's label and piece count, as its viewer gives them.
    let cells = js(
        c,
        "['kbnk', 'mnk-3x3-3', 'KQvKR', 'KQvK'].map(n => { \
           const r = document.querySelector(`#tables-list tr[data-table='${n}']`); \
           return [r.cells[0].querySelector('a').textContent, r.cells[1].textContent]; })",
    )
    .await?;
    assert_eq!(
        cells,
        json!([
            ["KBNK", "4"],
            ["3×3, 3 in a row", "—"],
            ["KQvKR", "4"],
            ["KQvK", "3"]
        ])
    );
    // Positions: every position a table answers for, and under it how many it stores.
    // KBNK and KBNvK store them in different ways and hold the same positions.
    let counts = js(
        c,
        "['kbnk', 'KBNvK', 'KQvK'].map(n => { \
           const td = document.querySelector(`#tables-list tr[data-table='${n}'] td[data-positions]`); \
           return [Number(td.dataset.positions), Number(td.dataset.stored), td.querySelector('small.stored').textContent]; })",
    )
    .await?;
    // KQvK's, from its table: the positions stored, and those they stand for.
    let now = state.now();
    let kqvk = now.tables.table("KQvK").unwrap();
    let stored: u64 =
        retro::summary::stats(kqvk.table.header(), retro::present::DistanceUnit::Moves)
            .iter()
            .map(|s| s.legal)
            .sum();
    let all = kqvk.plugin.stored_as(stored).unwrap().positions.unwrap();
    assert_eq!((stored, all), (46_137, 368_452));
    assert_eq!(
        counts,
        json!([
            [24_536_088, 12_268_044, "12,268,044 stored"],
            [24_536_088, 3_067_466, "3,067,466 stored"],
            [all, stored, "46,137 stored"]
        ])
    );
    let note = js(c, "document.querySelector('#stored-note').textContent").await?;
    for words in [
        "Positions counts every legal position of a table's pieces, either side to move.",
        "KBNK: one of each pair of positions mirrored left to right (the bishop on a light square).",
        "one of each group of up to 8 positions alike by turning or reflecting the board.",
    ] {
        assert!(note.as_str().unwrap().contains(words), "{note}");
    }
    // Two requests make the page, however many tables: nothing per table.
    let mut asked = js(
        c,
        "performance.getEntriesByType('resource').map(e => new URL(e.name).pathname).filter(p => p.startsWith('/api/'))",
    )
    .await?;
    asked.as_array_mut().unwrap().sort_by_key(|p| p.to_string());
    assert_eq!(asked, json!(["/api/chess/materials", "/api/tables"]));
    // Each row's longest and its shares per side to move, against the table's header.
    let unit = |n: u16| if n == 1 { "move" } else { "moves" };
    let mut longest_table = (0u16, String::new());
    for name in names.iter().filter(|n| !n.starts_with("mnk-")) {
        let now = state.now();
        let served = now.tables.table(name).unwrap();
        let stats = retro::summary::stats(served.table.header(), served.plugin.distance_unit());
        let longest = stats.iter().filter_map(|s| s.longest.map(|l| l.0)).max();
        let row = js(
            c,
            &format!(
                "(() => {{ const r = document.querySelector(\"#tables-list tr[data-table='{name}']\"); \
                 return [r.children[4].textContent, ...[...r.querySelectorAll('td.wdl')].map(d => Number(d.dataset.win))]; }})()"
            ),
        )
        .await?;
        let want_longest = longest.map_or("—".to_string(), |l| format!("{l} {}", unit(l)));
        assert_eq!(row[0], json!(want_longest), "{name}");
        for (i, s) in stats.iter().enumerate() {
            let shown = row[1 + i].as_f64().unwrap();
            let want = s.wins as f64 / s.legal as f64;
            assert!(
                (shown - want).abs() < 1e-6,
                "{name} {}: {shown} vs {want}",
                s.name
            );
        }
        if let Some(l) = longest {
            if l > longest_table.0 {
                longest_table = (l, name.clone());
            }
        }
    }
    // Sorted by the longest win, longest first: KRvKP's 43 moves (85 plies) lead.
    assert_eq!(longest_table, (43, "KRvKP".to_string()));
    c.find(Locator::Css("th[data-col=longest] button"))
        .await?
        .click()
        .await?;
    let first = wait_js(
        c,
        "document.querySelector('th[data-col=longest]').getAttribute('aria-sort') === 'descending' && \
         document.querySelector('#tables-list tbody tr').dataset.table",
        "the list sorted by longest",
    )
    .await;
    assert_eq!(first, json!(longest_table.1));
    let png = c.screenshot().await?;
    std::fs::write(target_dir().join("browser-tables.png"), png).unwrap();
    // "longest" opens that table's longest position on the board.
    let stats =
        retro::serve::stats::table_stats("KRvKP", state.now().tables.table("KRvKP").unwrap());
    let want = stats
        .sections
        .iter()
        .filter_map(|s| s.longest_positions.as_ref())
        .max_by_key(|l| (l.plies, l.category == "win"))
        .unwrap();
    assert_eq!(want.plies, 85);
    let fen = want.positions[0].clone();
    c.find(Locator::Css("td.t-links a.longest-of[data-table=KRvKP]"))
        .await?
        .click()
        .await?;
    let head = board_shows(c, &fen).await;
    let j = chess_probe(&fen);
    assert_eq!(j["dtm"].as_i64().unwrap().abs(), 85, "{j}");
    assert_eq!(head, kbnk_headline(&j));
    let url = js(c, "location.search").await?;
    assert!(url.as_str().unwrap().contains("table=KRvKP"), "{url}");

    // 4. At phone width nothing is wider than the screen: the list, and the board with
    //    the picker open.
    c.set_window_size(390, 844).await?;
    c.goto(&format!("{base}/?view=tables")).await?;
    wait_js(
        c,
        "document.querySelectorAll('#tables-list tbody tr').length === 37",
        "the list at phone width",
    )
    .await;
    let w = js(
        c,
        "[document.documentElement.scrollWidth, window.innerWidth]",
    )
    .await?;
    assert!(w[0].as_f64() <= w[1].as_f64(), "no sideways scrolling: {w}");
    let png = c.screenshot().await?;
    std::fs::write(target_dir().join("browser-phone-tables.png"), png).unwrap();
    c.goto(&format!("{base}/?table=KQvKR")).await?;
    board_shows(c, kqvkr).await;
    search(c, "k").await?;
    let w = js(
        c,
        "[document.documentElement.scrollWidth, window.innerWidth, document.querySelector('#picker-list').getBoundingClientRect().right]",
    )
    .await?;
    assert!(
        w[0].as_f64() <= w[1].as_f64() && w[2].as_f64() <= w[1].as_f64(),
        "no sideways scrolling with the picker open: {w}"
    );
    c.set_window_size(1280, 1000).await?;
    let errors = js(c, "window.__errors || []").await?;
    assert_eq!(errors, json!([]), "JavaScript errors on the page");
    Ok(())
}
