//! Compressed tables while they are open: decoded blocks held under a byte budget, and a
//! block damaged after the file was opened and checked, which gives an error (library,
//! server), never an answer.

use std::os::unix::fs::FileExt;
use std::path::Path;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use tower::ServiceExt;

use retro::chess::material::Material;
use retro::chess::Chess;
use retro::game::Game;
use retro::present::{GameText, ProbeError};
use retro::table::cache::CacheBudget;
use retro::table::compressed::{compress, Sides, BLOCK_SLOTS};
use retro::table::{Load, Table, TableError};

use super::common::{chess_all4, Rng};
use super::compressed::{compressed_dir, compressed_file};

/// A budget of three blocks over a table of many more: the decoded blocks held never pass
/// it, it is used to the full, every answer is still the dense table's, and closing the
/// table gives its bytes back.
#[test]
fn the_block_cache_stays_within_its_budget() {
    let name = "KPvKP";
    let dense = Table::open(&chess_all4().join(format!("{name}.rtb"))).unwrap();
    let block = BLOCK_SLOTS as usize;
    let budget = CacheBudget::new(3 * block);
    let small = Table::open_with_cache_budget(&compressed_file(name), budget.clone()).unwrap();
    // Its dropped side is found from its stored side (and sub-tables, under the process's
    // budget).
    retro::GAMES.complete(&small, compressed_dir()).unwrap();
    assert!(
        small.compressed_blocks().unwrap() >= 6,
        "more blocks than fit"
    );
    let game = Chess::open(&Material::parse(name).unwrap(), chess_all4()).unwrap();
    let n = game.size();
    let (mut rng, mut peak, mut checked) = (Rng(19), 0, 0);
    // Decoding blocks through the cache of three is most of this test's time (42 s of CPU
    // for 20,000 probes); 2,000 still fill the budget, as the peak asserted below shows.
    for _ in 0..2_000 {
        let i = rng.next() % n;
        if game.decode(i).is_some() {
            assert_eq!(small.value(i), dense.value(i), "slot {i}");
            checked += 1;
        }
        peak = peak.max(budget.held());
    }
    assert!(checked > 500, "{checked} legal slots");
    assert!(peak <= budget.limit(), "{peak} bytes held");
    assert!(peak > 2 * block, "{peak} bytes held: the budget is used");
    drop(small);
    assert_eq!(budget.held(), 0);
}

/// A position whose slot lies in block `b` of the white section, and one whose slot lies
/// in another white block.
fn two_white_positions(game: &Chess, table: &Table) -> ((String, usize), (String, usize)) {
    let mut rng = Rng(7);
    let mut found: Vec<(String, usize)> = Vec::new();
    let white = table.header().sections[0].records;
    while found.len() < 2 {
        let i = rng.next() % white;
        let Some(pos) = game.decode(i) else { continue };
        let (b, _) = table.compressed_block_of(i).unwrap();
        if found.iter().all(|f| f.1 != b) {
            found.push((game.position_text(&pos), b));
        }
    }
    (found[0].clone(), found[1].clone())
}

/// KQvKR's compressed table, both sides stored (a probe of a white position then reads
/// no other block of KQvKR's), and its sub-tables, in a folder of their own.
fn copy_kqvkr(dir: &Path) {
    for m in ["KQvK", "KRvK"] {
        let file = format!("{m}.rtbc");
        std::fs::copy(compressed_dir().join(&file), dir.join(&file)).unwrap();
    }
    let dense = Table::open(&chess_all4().join("KQvKR.rtb")).unwrap();
    compress(
        &dense,
        dir,
        Sides::Both,
        Some(super::compressed::LEVEL),
        &retro::progress::Silent,
    )
    .unwrap();
}

/// A block flipped after the table was opened (read at positions, as a large table is):
/// a probe that reads it fails with the file and the block named; a probe that does not
/// still answers; the server says 500 with that message and goes on serving.
#[test]
fn a_block_changed_after_open_gives_an_error_not_an_answer() {
    let dir = tempfile::tempdir().unwrap();
    copy_kqvkr(dir.path());
    let path = dir.path().join("KQvKR.rtbc");
    let loaded = retro::GAMES
        .open_file_with(&path, Load::Positioned)
        .unwrap();
    let game = Chess::open(&Material::parse("KQvKR").unwrap(), dir.path()).unwrap();
    // Nothing probed before the damage: a block decoded before it is answered from the
    // cache, rightly.
    let ((bad_fen, bad), (good_fen, _)) = two_white_positions(&game, &loaded.table);
    let i = game.encode(&game.parse_position(&bad_fen).unwrap());
    let (b, span) = loaded.table.compressed_block_of(i).unwrap();
    assert_eq!(b, bad);
    // The server over the same open table.
    let state = retro::serve::AppState::from_loaded(dir.path(), vec![loaded]);
    let app = retro::serve::router(state.clone());
    let now = state.now();
    let served = now.tables.table("KQvKR").unwrap();
    // Flip a byte inside the block, in place.
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    let mut byte = [0u8];
    f.read_at(&mut byte, span.start + 7).unwrap();
    f.write_all_at(&[byte[0] ^ 0x10], span.start + 7).unwrap();
    let Err(err) = served.plugin.probe(&served.table, &bad_fen) else {
        panic!("an answer from a damaged block");
    };
    // Written in place, the file is no longer the one checked: no block of it is read.
    let text = err.to_string();
    assert!(
        matches!(err, ProbeError::Table(TableError::Changed { .. })),
        "{text}"
    );
    assert!(
        text.contains("KQvKR.rtbc") && text.contains("changed on disk"),
        "{text}"
    );
    let get = |uri: String| {
        let app = app.clone();
        async move {
            let r = app
                .oneshot(Request::get(uri).body(Body::empty()).unwrap())
                .await
                .unwrap();
            let status = r.status();
            let body = r.into_body().collect().await.unwrap().to_bytes();
            (status, String::from_utf8_lossy(&body).into_owned())
        }
    };
    let fen = |f: &str| f.replace(' ', "%20");
    tokio::runtime::Runtime::new().unwrap().block_on(async {
        // 503, to be asked again once the table is opened anew; any position of it.
        for f in [&bad_fen, &good_fen] {
            let (status, body) = get(format!("/api/probe/KQvKR?position={}", fen(f))).await;
            assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
            assert!(
                body.contains("KQvKR.rtbc") && body.contains("changed on disk"),
                "{body}"
            );
        }
        let (status, body) = get(format!("/standard?fen={}", fen(&bad_fen))).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert!(body.contains("changed on disk"), "{body}");
    });
}
