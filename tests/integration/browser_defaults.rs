//! The browser test, continued (run by `browser.rs` in its Chromium session) over the
//! default tables as `retro serve` makes them into a new folder ([`default_tables`]): a
//! 4-piece material found with the picker opens on the board with its DTZ beside its DTM,
//! and a position given in the URL shows Syzygy's DTZ; KBN against K answered from the
//! chess table, as the KBNK table answers it. Every figure checked is the library's
//! answer from the same folder.

use fantoccini::error::CmdError;
use fantoccini::{Client, Locator};
use serde_json::{json, Value as Json};

use super::browser::{kbnk_headline, spawn_server, wait_js};
use super::common::default_tables;
use retro::serve::AppState;

const ENTER: &str = "\u{E007}";

/// What the library answers for a chess position from the default tables.
fn probe(fen: &str) -> Json {
    let router = retro::chess::router::Router::new(&default_tables().dir);
    serde_json::from_str(&router.probe(fen).unwrap().json()).unwrap()
}

/// The DTZ line the board shows under a decisive answer `j` (the halfmove clock at 0).
fn dtz_line(j: &Json) -> String {
    let n = j["dtz"].as_i64().expect("a DTZ").abs();
    let what = match j["dtz_category"].as_str().unwrap() {
        "win" => "the win holds under the 50-move rule",
        "loss" => "the loss holds under the 50-move rule",
        other => panic!("not decisive: {other}"),
    };
    let unit = if n == 1 { "ply" } else { "plies" };
    format!("DTZ {n} {unit} to a capture, pawn move or mate · {what}")
}

/// Wait until the board shows its answer; the FEN on it.
async fn board_fen(c: &Client, table: &str) -> String {
    let want = serde_json::to_string(&format!("{table} · retro")).unwrap();
    wait_js(
        c,
        &format!(
            "document.title === {want} && document.querySelector('.chess') && \
             document.querySelector('.chess').dataset.ready && \
             document.querySelector('#result').textContent && \
             document.querySelector('.chess').dataset.fen"
        ),
        &format!("the {table} board with its answer"),
    )
    .await
    .as_str()
    .unwrap()
    .to_string()
}

async fn shown(c: &Client) -> Result<Json, CmdError> {
    c.execute(
        "return [document.querySelector('#result').textContent, \
         document.querySelector('#result-dtz').textContent];",
        vec![],
    )
    .await
}

pub(super) async fn four_pieces_with_their_dtz(c: &Client) -> Result<(), CmdError> {
    let base = spawn_server(AppState::load(&default_tables().dir)).await;
    // KQvKR from the picker: its board, its DTM verdict and its DTZ.
    c.goto(&base).await?;
    wait_js(
        c,
        "document.querySelector('#material-search')",
        "the picker",
    )
    .await;
    let input = c.find(Locator::Css("#material-search")).await?;
    input.click().await?;
    input.send_keys("KQvKR").await?;
    wait_js(
        c,
        "!document.querySelector('#picker-list').hidden && \
         document.querySelector('#picker-list .chip') && \
         document.querySelector('#picker-list .chip').dataset.name === 'KQvKR'",
        "KQvKR first in the picker",
    )
    .await;
    input.send_keys(ENTER).await?;
    let fen = board_fen(c, "KQvKR").await;
    let j = probe(&fen);
    assert_eq!(j["table"], "KQvKR", "{j}");
    assert_eq!(shown(c).await?, json!([kbnk_headline(&j), dtz_line(&j)]));
    // KQvKR's longest DTZ50, black to move (Syzygy's statistics): 62 plies.
    let fen = "8/8/2k5/1r6/8/8/8/2KQ4 b - - 0 1";
    c.goto(&format!(
        "{base}/?table=KQvKR&fen={}",
        fen.replace(' ', "_")
    ))
    .await?;
    assert_eq!(board_fen(c, "KQvKR").await, fen);
    let j = probe(fen);
    assert_eq!(j["dtz"].as_i64(), Some(-62), "{j}");
    assert_eq!(
        shown(c).await?,
        json!([
            kbnk_headline(&j),
            "DTZ 62 plies to a capture, pawn move or mate · the loss holds under the 50-move rule"
        ])
    );
    // KBN against K: the default tables hold the chess KBNvK table and the KBNK table. The
    // board answers from the chess table and says so; the answer is the KBNK table's,
    // move for move.
    let fen = "8/8/8/3k4/8/8/8/KBN5 w - - 0 1";
    c.goto(&format!("{base}/?table=kbnk&fen={}", fen.replace(' ', "_")))
        .await?;
    let j = probe(fen);
    assert_eq!(j["table"], "KBNvK", "{j}");
    wait_js(
        c,
        "document.querySelector('.chess') && document.querySelector('.chess').dataset.ready && \
         document.querySelector('#material-note').textContent.includes('answered')",
        "the KBN board",
    )
    .await;
    let note = c
        .execute(
            "return [document.querySelector('#result').textContent, document.querySelector('#material-note').textContent, \
             [...document.querySelectorAll('#moves button[data-uci]')].map(b => b.dataset.uci)]",
            vec![],
        )
        .await?;
    let kbnk = retro::chess_answers::Folder::new(super::common::tables_dir());
    let own: Json = serde_json::from_str(&kbnk.probe(fen).unwrap().json()).unwrap();
    assert_eq!(own["table"], "kbnk");
    let ucis = |j: &Json| -> Json {
        j["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["uci"].clone())
            .collect()
    };
    assert_eq!(ucis(&own), ucis(&j));
    assert_eq!(
        note,
        json!([
            kbnk_headline(&j),
            "4 pieces · answered from KBNvK",
            ucis(&j)
        ])
    );
    let errors = c.execute("return window.__errors || []", vec![]).await?;
    assert_eq!(errors, json!([]), "JavaScript errors on the page");
    Ok(())
}
