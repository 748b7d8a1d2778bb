//! `GET /tables/<file>` serves exactly the files `/api/tables` lists: no symbolic link out
//! of the folder, no temporary or stray file, no special file; and Range and conditional
//! requests behave as RFC 9110 says.

use std::path::PathBuf;
use std::sync::OnceLock;

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use tower::ServiceExt;

use retro::serve::{router, AppState};

use super::common::tables_dir;

/// `root/tables/` with `mnk-3x3-3.rtb`, a link to a real table outside the folder, links to
/// `/etc/passwd` and `/etc`, a temporary file, a stray file and a named pipe.
struct Fixture {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    app: Router,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("tables");
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::copy(
            tables_dir().join("mnk-3x3-3.rtb"),
            dir.join("mnk-3x3-3.rtb"),
        )
        .unwrap();
        let plugin = retro::GAMES.plugin("mnk-3x4-3").unwrap();
        retro::generate::generate(&*plugin, &elsewhere, &retro::progress::Silent).unwrap();
        std::fs::write(dir.join(".mnk-3x3-3.Xy12Zw.tmp"), b"half a table").unwrap();
        std::fs::write(dir.join("notes.txt"), b"stray notes").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            symlink(elsewhere.join("mnk-3x4-3.rtb"), dir.join("mnk-3x4-3.rtb")).unwrap();
            symlink("/etc/passwd", dir.join("leak")).unwrap();
            symlink("/etc", dir.join("etcdir")).unwrap();
            let ok = std::process::Command::new("mkfifo")
                .arg(dir.join("zz.rtb"))
                .status()
                .unwrap()
                .success();
            assert!(ok);
        }
        // Loading must not hang on the pipe: a thread with a deadline.
        let (tx, rx) = std::sync::mpsc::channel();
        let d = dir.clone();
        std::thread::spawn(move || tx.send(AppState::load(&d)).unwrap());
        let state = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("loading the tables folder does not hang on a named pipe");
        Fixture {
            _tmp: tmp,
            dir,
            app: router(state),
        }
    })
}

struct Reply {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: Vec<u8>,
}

async fn get(uri: &str, headers: &[(header::HeaderName, &str)]) -> Reply {
    let mut req = Request::builder().uri(uri);
    for (k, v) in headers {
        req = req.header(k, *v);
    }
    let res = fixture()
        .app
        .clone()
        .oneshot(req.body(Body::empty()).unwrap())
        .await
        .unwrap();
    Reply {
        status: res.status(),
        headers: res.headers().clone(),
        body: res.into_body().collect().await.unwrap().to_bytes().to_vec(),
    }
}

fn file() -> Vec<u8> {
    std::fs::read(fixture().dir.join("mnk-3x3-3.rtb")).unwrap()
}

#[tokio::test]
async fn only_listed_regular_files_inside_the_folder_are_served() {
    let list: serde_json::Value =
        serde_json::from_slice(&get("/api/tables", &[]).await.body).unwrap();
    let tables = list["tables"].as_array().unwrap();
    let names: Vec<&str> = tables.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["mnk-3x3-3", "mnk-3x4-3"]);
    assert_eq!(tables[0]["url"], "/tables/mnk-3x3-3.rtb");
    assert!(
        tables[1]["url"].is_null(),
        "a table outside the folder has no download"
    );

    let r = get("/tables/mnk-3x3-3.rtb", &[]).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body, file());

    let refused = [
        "/tables/mnk-3x4-3.rtb".to_string(),
        "/tables/leak".to_string(),
        "/tables/etcdir/passwd".to_string(),
        "/tables/etcdir/shadow".to_string(),
        "/tables/.mnk-3x3-3.Xy12Zw.tmp".to_string(),
        "/tables/notes.txt".to_string(),
        "/tables/zz.rtb".to_string(),
        "/tables/mnk-3x3-3.rtb/".to_string(),
        format!("/tables/{}", "a".repeat(300)),
        format!("/tables/{}", "%2e".repeat(400)),
    ];
    for uri in &refused {
        let r = get(uri, &[]).await;
        assert_eq!(r.status, StatusCode::NOT_FOUND, "{uri}");
        assert!(!r.body.is_empty(), "{uri}: a body says why");
        let text = String::from_utf8_lossy(&r.body);
        assert!(!text.contains("root:"), "{uri} leaked /etc/passwd");
        assert!(
            !text.contains("half a table") && !text.contains("stray"),
            "{uri}"
        );
    }
}

async fn status_of(headers: &[(header::HeaderName, &str)]) -> (StatusCode, usize) {
    let r = get("/tables/mnk-3x3-3.rtb", headers).await;
    (r.status, r.body.len())
}

#[tokio::test]
async fn ranges_that_are_not_one_byte_range_are_ignored() {
    let len = file().len();
    assert_eq!(
        status_of(&[(header::RANGE, "bytes=0-9")]).await,
        (StatusCode::PARTIAL_CONTENT, 10)
    );
    for range in [
        "bytes=0-1,4-5",
        "bytes=0-0,-1",
        "bytes=500-100",
        "bytes=abc",
        "bytes=-",
        "pages=1-2",
        "bytes=1-2-3",
    ] {
        assert_eq!(
            status_of(&[(header::RANGE, range)]).await,
            (StatusCode::OK, len),
            "{range}"
        );
    }
    // Well-formed but beyond the end: that one is unsatisfiable.
    let (s, _) = status_of(&[(header::RANGE, &format!("bytes={}-", len + 10))]).await;
    assert_eq!(s, StatusCode::RANGE_NOT_SATISFIABLE);
}

#[tokio::test]
async fn if_range_and_if_modified_since_follow_rfc_9110() {
    let len = file().len();
    let r = get("/tables/mnk-3x3-3.rtb", &[]).await;
    let etag = r.headers[header::ETAG].to_str().unwrap().to_string();
    let modified = r.headers[header::LAST_MODIFIED]
        .to_str()
        .unwrap()
        .to_string();
    let weak = format!("W/{etag}");
    let range = (header::RANGE, "bytes=0-9");
    let cases: [(&str, StatusCode, usize); 5] = [
        (&etag, StatusCode::PARTIAL_CONTENT, 10),
        (&weak, StatusCode::OK, len),
        ("\"another\"", StatusCode::OK, len),
        (&modified, StatusCode::PARTIAL_CONTENT, 10),
        ("Sat, 01 Jan 2000 00:00:00 GMT", StatusCode::OK, len),
    ];
    for (if_range, status, bytes) in cases {
        assert_eq!(
            status_of(&[range.clone(), (header::IF_RANGE, if_range)]).await,
            (status, bytes),
            "If-Range: {if_range}"
        );
    }
    // If-Modified-Since: the real date gives 304, a future date is ignored.
    assert_eq!(
        status_of(&[(header::IF_MODIFIED_SINCE, &modified)]).await.0,
        StatusCode::NOT_MODIFIED
    );
    let future = httpdate::fmt_http_date(
        std::time::SystemTime::now() + std::time::Duration::from_secs(86_400 * 365),
    );
    assert_eq!(
        status_of(&[(header::IF_MODIFIED_SINCE, &future)]).await,
        (StatusCode::OK, len)
    );
    // If-None-Match takes precedence over If-Modified-Since.
    assert_eq!(
        status_of(&[
            (header::IF_NONE_MATCH, "\"another\""),
            (header::IF_MODIFIED_SINCE, &modified)
        ])
        .await,
        (StatusCode::OK, len)
    );
    assert_eq!(
        status_of(&[(header::IF_NONE_MATCH, &weak)]).await.0,
        StatusCode::NOT_MODIFIED,
        "If-None-Match compares weakly"
    );
}
