//! `retro serve`'s HTTP API, in process: requests go straight into the router
//! (`tower::ServiceExt::oneshot`), no port is opened.
//!
//! Two fixtures: a tiny take-away game defined here (so routing, errors, Range and traversal
//! are tested whatever the plug-ins do), and the real KBNK and 3x3 k-in-a-row tables,
//! generated once into a temporary folder.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use serde_json::Value as Json;
use tower::ServiceExt;

use retro::game::*;
use retro::present::*;
use retro::probe::Probed;
use retro::registry::Loaded;
use retro::serve::{router, AppState};
use retro::table::Table;

// ---------------------------------------------------------------------------------------
// A take-away game: a pile of 0..=20 stones, take 1, 2 or 3, whoever cannot move loses.
// Positions are written as the number of stones.

const PILE: u64 = 20;

struct TakeAway;

impl Game for TakeAway {
    type Position = u64;
    fn name(&self) -> String {
        "takeaway".into()
    }
    fn params(&self) -> (&'static str, Vec<(String, i64)>) {
        ("takeaway", vec![("pile".into(), PILE as i64)])
    }
    fn sections(&self) -> Vec<Section> {
        vec![Section {
            name: "all".into(),
            len: PILE + 1,
        }]
    }
    fn decode(&self, i: Index) -> Option<u64> {
        (i <= PILE).then_some(i)
    }
    fn encode(&self, p: &u64) -> Index {
        *p
    }
    fn canonical(&self, p: &u64) -> u64 {
        *p
    }
    fn terminal(&self, p: &u64) -> Option<Value> {
        (*p == 0).then_some(Value::Loss(0))
    }
    fn successors(&self, p: &u64, out: &mut Vec<Successor>) {
        for take in 1..=3u64.min(*p) {
            out.push(Successor {
                mv: take as u8,
                to: Outcome::Index(p - take),
            });
        }
    }
    fn predecessors(&self, p: &u64, out: &mut Vec<Index>) {
        for take in 1..=3 {
            if p + take <= PILE {
                out.push(p + take);
            }
        }
    }
}

fn category(v: Value) -> &'static str {
    match v {
        Value::Win(_) => "win",
        Value::Loss(_) => "loss",
        Value::Draw => "draw",
        Value::Illegal => "illegal",
    }
}

struct Answer(Json);

impl ProbeAnswer for Answer {
    fn json(&self) -> String {
        self.0.to_string()
    }
    fn text(&self) -> String {
        self.0.to_string()
    }
}

impl GameText for TakeAway {
    fn title(&self) -> String {
        "take-away, 1 to 3 stones".into()
    }
    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        let n: u64 = text
            .parse()
            .map_err(|_| PositionError::Malformed(format!("'{text}' is not a number")))?;
        if n > PILE {
            return Err(PositionError::Illegal(format!("more than {PILE} stones")));
        }
        Ok(n)
    }
    fn position_text(&self, p: &u64) -> String {
        p.to_string()
    }
    fn present(&self, p: &u64, probed: &Probed) -> Presented {
        let dist = |v: Value| match v {
            Value::Win(d) | Value::Loss(d) => Some(d),
            _ => None,
        };
        let json = serde_json::json!({
            "stones": p,
            "category": category(probed.value),
            "remoteness": dist(probed.value),
            "best": probed.best.map(|m| serde_json::json!({"take": m})),
            "moves": probed.moves.iter().map(|&(m, v)| serde_json::json!({
                "take": m, "category": category(v), "remoteness": dist(v)
            })).collect::<Vec<_>>(),
        });
        Box::new(Answer(json))
    }
    fn distance_unit(&self) -> DistanceUnit {
        DistanceUnit::Plies
    }
}

/// `root/tables/takeaway.rtb`, with `root/secret.txt` beside the tables folder.
struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    app: Router,
}

fn takeaway() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let dir = root.join("tables");
        std::fs::write(
            root.join("secret.txt"),
            "TOP SECRET, outside the tables folder",
        )
        .unwrap();
        let game = TakeAway;
        let done = retro::generate::generate(&game, &dir, &retro::progress::Silent).unwrap();
        let table = Table::open(&done.path).unwrap();
        let state = AppState::from_loaded(
            &dir,
            vec![Loaded {
                plugin: Box::new(TakeAway),
                table: table.into(),
            }],
        );
        Fixture {
            _tmp: tmp,
            root,
            app: router(state),
        }
    })
}

/// The real plug-ins: KBNK and 3x3 k-in-a-row, the shared tables folder (see `common`).
fn real() -> &'static (&'static Path, Router) {
    static F: OnceLock<(&'static Path, Router)> = OnceLock::new();
    F.get_or_init(|| {
        let dir = super::common::tables_dir();
        let state = AppState::load(dir);
        assert_eq!(state.len(), 2, "both tables load");
        (dir, router(state))
    })
}

struct Reply {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Json {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    fn header(&self, name: header::HeaderName) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

async fn get_with(app: &Router, uri: &str, headers: &[(header::HeaderName, &str)]) -> Reply {
    let mut req = Request::builder().uri(uri);
    for (k, v) in headers {
        req = req.header(k, *v);
    }
    let res = app
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = res.status();
    let headers = res.headers().clone();
    let body = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    Reply {
        status,
        headers,
        body,
    }
}

async fn get(app: &Router, uri: &str) -> Reply {
    get_with(app, uri, &[]).await
}

fn is_json(r: &Reply) -> bool {
    r.header(header::CONTENT_TYPE)
        .is_some_and(|c| c.starts_with("application/json"))
}

// ---------------------------------------------------------------------------------------
// Generic behaviour (take-away fixture).

#[tokio::test]
async fn tables_lists_name_parameters_size_and_statistics() {
    let f = takeaway();
    let r = get(&f.app, "/api/tables").await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(is_json(&r));
    let j = r.json();
    let t = &j["tables"][0];
    assert_eq!(t["name"], "takeaway");
    assert_eq!(t["game"], "takeaway");
    assert_eq!(t["params"]["pile"], PILE);
    assert_eq!(t["records"], PILE + 1);
    assert_eq!(t["url"], "/tables/takeaway.rtb");
    let len = std::fs::metadata(f.root.join("tables/takeaway.rtb"))
        .unwrap()
        .len();
    assert_eq!(t["bytes"], len);
    // Multiples of 4 are lost, the rest won; 21 positions, all legal.
    assert_eq!(t["headline"]["legal"], PILE + 1);
    assert_eq!(t["headline"]["losses"], 6);
    assert_eq!(t["headline"]["wins"], 15);
    assert_eq!(t["headline"]["draws"], 0);
    assert_eq!(t["headline"]["longest"], 10);
    assert_eq!(t["unit"], "plies");
    assert!(t["sections"][0]["by_distance"].is_array());
}

#[tokio::test]
async fn probe_answers_the_plugin_json() {
    let f = takeaway();
    let r = get(&f.app, "/api/probe/takeaway?position=7").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    assert!(is_json(&r));
    let j = r.json();
    assert_eq!(j["stones"], 7);
    assert_eq!(j["category"], "win");
    assert_eq!(j["remoteness"], 3);
    assert_eq!(j["best"]["take"], 3);
    assert_eq!(j["moves"].as_array().unwrap().len(), 3);
    // Position 0: the game is over.
    let j = get(&f.app, "/api/probe/takeaway?position=0").await.json();
    assert_eq!(j["category"], "loss");
    assert_eq!(j["remoteness"], 0);
    // `fen=` is accepted as an alias, and surrounding spaces do not matter.
    let j = get(&f.app, "/api/probe/takeaway?fen=%208%20").await.json();
    assert_eq!(j["category"], "loss");
    assert_eq!(j["remoteness"], 4);
}

#[tokio::test]
async fn malformed_and_illegal_positions_are_400_with_a_json_error() {
    let f = takeaway();
    let r = get(&f.app, "/api/probe/takeaway?position=seven").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert!(is_json(&r));
    let j = r.json();
    assert!(
        j["error"]
            .as_str()
            .unwrap()
            .contains("'seven' is not a number"),
        "{j}"
    );
    assert!(j.get("category").is_none(), "{j}");

    let r = get(&f.app, "/api/probe/takeaway?position=99").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let j = r.json();
    assert_eq!(j["category"], "illegal");
    assert_eq!(j["error"], "illegal: more than 20 stones");
    assert_eq!(j["reason"], "more than 20 stones");

    for uri in [
        "/api/probe/takeaway",
        "/api/probe/takeaway?position=",
        "/api/probe/takeaway?position=%20%20",
        "/api/probe/takeaway?other=1",
    ] {
        let r = get(&f.app, uri).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{uri}");
        assert!(
            r.json()["error"].as_str().unwrap().contains("position"),
            "{uri}"
        );
    }
    // Oversized, badly encoded and binary input: 400, never a panic.
    let long = format!("/api/probe/takeaway?position={}", "1".repeat(5000));
    assert_eq!(get(&f.app, &long).await.status, StatusCode::BAD_REQUEST);
    for uri in [
        "/api/probe/takeaway?position=%FF%FE",
        "/api/probe/takeaway?position=%00",
        "/api/probe/takeaway?position=%",
        "/api/probe/takeaway?position=1&position=2",
        "/api/probe/takeaway?position=-1",
        "/api/probe/takeaway?position=18446744073709551616",
    ] {
        let r = get(&f.app, uri).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{uri}: {}", r.text());
        assert!(r.json()["error"].is_string(), "{uri}");
    }
}

#[tokio::test]
async fn unknown_tables_and_routes_are_404() {
    let f = takeaway();
    let r = get(&f.app, "/api/probe/kbnq?position=1").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let j = r.json();
    let e = j["error"].as_str().unwrap();
    assert!(e.contains("kbnq") && e.contains("takeaway"), "{e}");
    // Encoded names are decoded and still unknown.
    assert_eq!(
        get(&f.app, "/api/probe/..%2F..%2Fetc?position=1")
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    let r = get(&f.app, "/api/nothing").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert!(r.json()["error"].is_string());
    assert_eq!(
        get(&f.app, "/nothing/here").await.status,
        StatusCode::NOT_FOUND
    );
}

/// The material picker's list: every chess material up to 5 pieces (tables go up to 6), marked present where
/// the folder holds its table; a material with no table here is a 404 naming its command.
#[tokio::test]
async fn chess_materials_and_the_command_of_a_missing_table() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["KQvK", "KRvK"] {
        let p = retro::GAMES.plugin_in(name, dir.path()).unwrap();
        retro::generate::generate(&*p, dir.path(), &retro::progress::Silent).unwrap();
    }
    let app = router(AppState::load(dir.path()));
    let r = get(&app, "/api/chess/materials").await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(is_json(&r));
    let j = r.json();
    assert_eq!(j["max_pieces"], 6);
    let all = retro::chess::material::Material::all(5);
    let listed = j["materials"].as_array().unwrap();
    assert_eq!(listed.len(), all.len());
    assert_eq!(listed.len(), 145);
    for (entry, m) in listed.iter().zip(&all) {
        assert_eq!(entry["name"], m.to_string());
        assert_eq!(entry["pieces"], m.count());
        let here = ["KQvK", "KRvK"].contains(&m.to_string().as_str());
        assert_eq!(entry["present"], here, "{entry}");
    }
    // KRPvKR (white: Ra1 Pb2, black: Rh8): no table, and the answer says how to make it.
    let r = get(
        &app,
        "/api/probe/chess?fen=4k2r/8/8/8/8/8/1P6/R3K3_w_-_-_0_1",
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let j = r.json();
    assert_eq!(j["missing"], "KRPvKR", "{j}");
    assert_eq!(j["command"], "retro generate chess KRPvKR", "{j}");
    let e = j["error"].as_str().unwrap();
    assert!(
        e.contains("make it with `retro generate chess KRPvKR`"),
        "{e}"
    );
    // The colours swapped: the stored table's name.
    let r = get(
        &app,
        "/api/probe/chess?fen=r3k3/1p6/8/8/8/8/8/4K2R_b_-_-_0_1",
    )
    .await;
    assert_eq!(r.json()["missing"], "KRPvKR");
    // A name no game knows has no command.
    let r = get(&app, "/api/probe/nonsense?position=1").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    let j = r.json();
    assert_eq!(j["missing"], "nonsense");
    assert!(j.get("command").is_none(), "{j}");
}

#[tokio::test]
async fn raw_table_file_has_etag_and_conditional_get() {
    let f = takeaway();
    let file = std::fs::read(f.root.join("tables/takeaway.rtb")).unwrap();
    let r = get(&f.app, "/tables/takeaway.rtb").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body, file);
    assert_eq!(r.header(header::ACCEPT_RANGES), Some("bytes"));
    let etag = r.header(header::ETAG).expect("an ETag").to_string();
    let modified = r
        .header(header::LAST_MODIFIED)
        .expect("Last-Modified")
        .to_string();

    let r = get_with(
        &f.app,
        "/tables/takeaway.rtb",
        &[(header::IF_NONE_MATCH, &etag)],
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_MODIFIED);
    assert!(r.body.is_empty());
    assert_eq!(r.header(header::ETAG), Some(etag.as_str()));
    let r = get_with(
        &f.app,
        "/tables/takeaway.rtb",
        &[(header::IF_NONE_MATCH, "\"other\", ".to_string().as_str())],
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    let r = get_with(
        &f.app,
        "/tables/takeaway.rtb",
        &[(header::IF_MODIFIED_SINCE, &modified)],
    )
    .await;
    assert_eq!(r.status, StatusCode::NOT_MODIFIED);
}

#[tokio::test]
async fn raw_table_file_serves_ranges() {
    let f = takeaway();
    let file = std::fs::read(f.root.join("tables/takeaway.rtb")).unwrap();
    let r = get_with(
        &f.app,
        "/tables/takeaway.rtb",
        &[(header::RANGE, "bytes=0-7")],
    )
    .await;
    assert_eq!(r.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(r.body, b"RETROTB\0");
    assert_eq!(
        r.header(header::CONTENT_RANGE),
        Some(format!("bytes 0-7/{}", file.len()).as_str())
    );
    let etag = r.header(header::ETAG).expect("ETag on 206").to_string();
    // The records of the table: the last 42 bytes of the first aligned page.
    let r = get_with(
        &f.app,
        "/tables/takeaway.rtb",
        &[(header::RANGE, "bytes=4096-4137")],
    )
    .await;
    assert_eq!(r.status, StatusCode::PARTIAL_CONTENT);
    assert_eq!(r.body, &file[4096..4138]);
    // If-Range with the current ETag keeps the range; with another one, the whole file.
    let r = get_with(
        &f.app,
        "/tables/takeaway.rtb",
        &[(header::RANGE, "bytes=0-7"), (header::IF_RANGE, &etag)],
    )
    .await;
    assert_eq!(r.status, StatusCode::PARTIAL_CONTENT);
    let r = get_with(
        &f.app,
        "/tables/takeaway.rtb",
        &[(header::RANGE, "bytes=0-7"), (header::IF_RANGE, "\"old\"")],
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body.len(), file.len());
    // Unsatisfiable.
    let r = get_with(
        &f.app,
        "/tables/takeaway.rtb",
        &[(header::RANGE, "bytes=999999-")],
    )
    .await;
    assert_eq!(r.status, StatusCode::RANGE_NOT_SATISFIABLE);
}

#[tokio::test]
async fn no_way_out_of_the_tables_folder() {
    let f = takeaway();
    assert!(f.root.join("secret.txt").exists());
    let cargo =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let abs_secret = f.root.join("secret.txt").display().to_string();
    let attempts = [
        "/tables/../secret.txt".to_string(),
        "/tables/../Cargo.toml".to_string(),
        "/tables/%2e%2e/secret.txt".to_string(),
        "/tables/%2E%2E/secret.txt".to_string(),
        "/tables/%2e%2e%2fsecret.txt".to_string(),
        "/tables/..%2fsecret.txt".to_string(),
        "/tables/..%5csecret.txt".to_string(),
        "/tables/.%2e/secret.txt".to_string(),
        "/tables/./../secret.txt".to_string(),
        "/tables/takeaway.rtb/../../secret.txt".to_string(),
        "/tables//etc/passwd".to_string(),
        "/tables/%2fetc%2fpasswd".to_string(),
        format!("/tables/{abs_secret}"),
        format!("/tables/{}", abs_secret.replace('/', "%2f")),
        "/tables/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd".to_string(),
        "/tables/..".to_string(),
        "/tables/%ff".to_string(),
        "/tables/%".to_string(),
        "/tables/takeaway.rtb%00".to_string(),
        "/tables/takeaway.rtb%2f..%2f..%2fsecret.txt".to_string(),
        "/tables/".to_string(),
        "/tables".to_string(),
    ];
    for uri in &attempts {
        let r = get(&f.app, uri).await;
        assert!(
            r.status.is_client_error(),
            "{uri}: status {} body {:?}",
            r.status,
            r.text()
        );
        let body = r.text();
        assert!(!body.contains("TOP SECRET"), "{uri} leaked the secret");
        assert!(!body.contains("root:"), "{uri} leaked /etc/passwd");
        assert!(
            !body.contains(cargo.lines().next().unwrap()),
            "{uri} leaked Cargo.toml"
        );
    }
}

#[tokio::test]
async fn viewer_is_embedded() {
    let f = takeaway();
    let r = get(&f.app, "/").await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r
        .header(header::CONTENT_TYPE)
        .unwrap()
        .starts_with("text/html"));
    let html = r.text();
    assert!(html.contains("/assets/app.js") && html.contains("/assets/style.css"));
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no CDN"
    );
    for (file, mime) in [
        ("app.js", "text/javascript"),
        ("chess.js", "text/javascript"),
        ("mnk.js", "text/javascript"),
        ("pieces.js", "text/javascript"),
        ("picker.js", "text/javascript"),
        ("tables.js", "text/javascript"),
        ("style.css", "text/css"),
        ("favicon.svg", "image/svg+xml"),
    ] {
        let r = get(&f.app, &format!("/assets/{file}")).await;
        assert_eq!(r.status, StatusCode::OK, "{file}");
        assert!(
            r.header(header::CONTENT_TYPE).unwrap().starts_with(mime),
            "{file}"
        );
        assert!(!r.body.is_empty(), "{file}");
        let etag = r.header(header::ETAG).unwrap().to_string();
        let again = get_with(
            &f.app,
            &format!("/assets/{file}"),
            &[(header::IF_NONE_MATCH, &etag)],
        )
        .await;
        assert_eq!(again.status, StatusCode::NOT_MODIFIED, "{file}");
    }
    assert_eq!(
        get(&f.app, "/assets/nope.js").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        get(&f.app, "/assets/..%2fmod.rs").await.status,
        StatusCode::NOT_FOUND
    );
}

// ---------------------------------------------------------------------------------------
// The real plug-ins.

#[tokio::test]
async fn kbnk_good_position() {
    let (dir, app) = real();
    let app: &Router = app;
    // Black king cornered on a8, white to move: a win, whatever its distance.
    let fen = "k7/8/1K6/8/3B4/8/2N5/8 w - - 0 1";
    let r = get(
        app,
        &format!("/api/probe/kbnk?position={}", fen.replace(' ', "%20")),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    let j = r.json();
    // The same JSON as `retro probe --json` (the plug-in's presented JSON).
    let loaded = retro::GAMES.open(dir, "kbnk").unwrap();
    let direct: Json =
        serde_json::from_str(&loaded.plugin.probe(&loaded.table, fen).unwrap().json()).unwrap();
    assert_eq!(j, direct);
    assert_eq!(j["side"], "white");
    assert_eq!(j["category"], "win");
    let moves = j["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    for m in moves {
        assert!(m["uci"].is_string() && m["san"].is_string());
    }
    // Underscores stand for spaces, as in Lichess links.
    let r2 = get(
        app,
        &format!("/api/probe/kbnk?position={}", fen.replace(' ', "_")),
    )
    .await;
    assert_eq!(r2.json(), j);
    // The mate-in-N figures are consistent: best move first.
    if j["category"] == "win" {
        assert_eq!(j["best"]["uci"], moves[0]["uci"]);
        assert!(j["mate_in"].as_i64().unwrap() >= 1);
    }
}

#[tokio::test]
async fn kbnk_checkmate_and_black_to_move() {
    let (_, app) = real();
    let app: &Router = app;
    // Black to move, king in a corner: the answer lists black's king moves.
    let fen = "8/8/8/8/8/2k5/8/KBN5 b - - 0 1";
    let r = get(
        app,
        &format!("/api/probe/kbnk?position={}", fen.replace(' ', "_")),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    let j = r.json();
    assert_eq!(j["side"], "black");
    for m in j["moves"].as_array().unwrap() {
        assert!(m["uci"].as_str().unwrap().starts_with("c3"), "{m}");
    }
}

#[tokio::test]
async fn kbnk_illegal_and_malformed() {
    let (_, app) = real();
    let app: &Router = app;
    let r = get(
        app,
        "/api/probe/kbnk?position=8/8/8/8/8/8/8/KkBN4_w_-_-_0_1",
    )
    .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.text());
    let j = r.json();
    assert_eq!(j["category"], "illegal");
    assert!(j["error"].as_str().unwrap().starts_with("illegal: "), "{j}");
    assert!(j["error"].as_str().unwrap().contains("adjacent"), "{j}");

    for bad in [
        "not a fen",
        "8/8/8/8/8/8/8/8_w_-_-_0_1",
        "8/8/8/8/8/8/8/KBN5_w_-_-_0_1",
        "8/8/8/8/8/8/8/KBNQ3k_w_-_-_0_1",
        "9/8/8/8/8/8/8/KBN4k_w_-_-_0_1",
        "8/8/8/8/8/8/8/KBN4k_x_-_-_0_1",
        "8/8/8/8/8/8/KBN4k_w",
        "ÿÿÿ",
    ] {
        let r = get(
            app,
            &format!(
                "/api/probe/kbnk?position={}",
                bad.replace(' ', "%20").replace('ÿ', "%C3%BF")
            ),
        )
        .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}: {}", r.text());
        assert!(r.json()["error"].is_string(), "{bad}");
    }
}

#[tokio::test]
async fn mnk_boards() {
    let (_, app) = real();
    let app: &Router = app;
    let r = get(app, "/api/probe/mnk-3x3-3?position=.../.../...").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    let j = r.json();
    assert_eq!(j["turn"], "x");
    assert_eq!(j["category"], "draw", "tic-tac-toe is a draw");
    assert_eq!(j["moves"].as_array().unwrap().len(), 9);
    // X has two in a row and is to move again... O to move must block.
    let r = get(app, "/api/probe/mnk-3x3-3?position=xx./oo./...").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    let j = r.json();
    assert_eq!(j["turn"], "x");
    assert_eq!(j["category"], "win");
    assert_eq!(j["remoteness"], 1);
    assert_eq!(j["best"]["cell"], "c3");
    // A finished game.
    let j = get(app, "/api/probe/mnk-3x3-3?position=xxx/oo./...")
        .await
        .json();
    assert_eq!(j["category"], "loss");
    assert_eq!(j["remoteness"], 0);
    assert_eq!(j["moves"].as_array().unwrap().len(), 0);
    // Malformed: wrong size, wrong characters.
    for bad in ["..../.../...", "abc/.../...", "", "x"] {
        let r = get(app, &format!("/api/probe/mnk-3x3-3?position={bad}")).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad:?}: {}", r.text());
    }
    // A table that is not served.
    assert_eq!(
        get(app, "/api/probe/mnk-4x4-4?position=..../..../..../....")
            .await
            .status,
        StatusCode::NOT_FOUND
    );
    let list = get(app, "/api/tables").await.json();
    let names: Vec<&str> = list["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["kbnk", "mnk-3x3-3"]);
}

/// Random and mutated positions: every answer is 200 or 400 with a JSON body, never a 500
/// (a plug-in panic, caught by the server) and never a dropped connection.
#[tokio::test]
async fn random_input_never_breaks_a_probe() {
    let (_, app) = real();
    let app: &Router = app;
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let seeds = [
        ("kbnk", "8/8/8/3k4/8/8/8/KBN5 w - - 0 1"),
        ("kbnk", "k7/8/1K6/8/3B4/8/2N5/8 b - - 0 1"),
        ("mnk-3x3-3", "x../.o./..x"),
        ("mnk-3x3-3", ".../.../..."),
    ];
    let alphabet: &[u8] = b"kKbBnNqQpP12345678/ wb-_x.o0\\%\x00\xff";
    for round in 0..3000 {
        let (table, seed) = seeds[round % seeds.len()];
        let mut bytes = seed.as_bytes().to_vec();
        for _ in 0..1 + next() % 4 {
            let at = (next() as usize) % (bytes.len() + 1);
            let c = alphabet[(next() as usize) % alphabet.len()];
            match next() % 3 {
                0 if at < bytes.len() => bytes[at] = c,
                1 => bytes.insert(at, c),
                _ if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => bytes.push(c),
            }
        }
        let encoded: String = bytes.iter().map(|b| format!("%{b:02X}")).collect();
        let r = get(app, &format!("/api/probe/{table}?position={encoded}")).await;
        assert!(
            r.status == StatusCode::OK || r.status == StatusCode::BAD_REQUEST,
            "{table} {:?}: {} {}",
            String::from_utf8_lossy(&bytes),
            r.status,
            r.text()
        );
        assert!(is_json(&r));
    }
}

/// The real binary: `retro serve` says where it listens, serves, and skips files that are not
/// tables it knows (here the take-away table, whose game the registry does not know).
#[test]
fn serve_binary_says_where_it_listens() {
    use std::io::{BufRead, BufReader, Read, Write};
    let f = takeaway();
    let dir = f.root.join("tables");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
        .args([
            "serve",
            "--no-generate",
            "--addr",
            "127.0.0.1:0",
            "--tables",
        ])
        .arg(&dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut stderr = child.stderr.take().unwrap();
    let _guard = Kill(child);
    let mut lines = Vec::new();
    let addr = loop {
        let mut line = String::new();
        if out.read_line(&mut line).unwrap() == 0 {
            let mut err = String::new();
            let _ = stderr.read_to_string(&mut err);
            panic!("retro serve exited: {lines:?} {err}");
        }
        if let Some(rest) = line.split("listening on http://").nth(1) {
            break rest.split('/').next().unwrap().to_string();
        }
        lines.push(line);
    };
    assert!(lines.iter().any(|l| l.contains("0 table(s)")), "{lines:?}");
    let mut s = std::net::TcpStream::connect(&addr).unwrap();
    s.write_all(b"GET /api/tables HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.ends_with("{\"tables\":[]}"), "{reply}");
}
