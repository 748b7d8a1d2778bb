//! The server under hostile use: a table's name swapped for a link out of the folder after
//! start, a table changed in place while served, the same table under several names,
//! `If-Match`, an HTTP/2 client, and clients that stop reading or never finish a request.
//! Each answer is checked to be right or a clear refusal, never bytes from outside the
//! folder or a value from bytes that changed.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

use retro::serve::{router, serve_on, AppState, Limits};

use super::common::{chess_all4, kbnk_file};

/// The KBNK position with mate in 65 (a fact of the table, see `kbnk_facts`).
const PROBE: &str = "/api/probe/kbnk?position=8/8/8/8/8/8/5k2/5BNK_w_-_-_0_1";

/// `serve_on` over `state` on a free port, with `limits`, in a runtime of its own; the
/// folder is looked at only when the test calls [`AppState::refresh`].
fn start(state: AppState, limits: Limits) -> (SocketAddr, tokio::runtime::Runtime) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    rt.spawn(serve_on(
        listener,
        router(state),
        limits,
        std::future::pending(),
    ));
    (addr, rt)
}

/// A reply: status, head (lower-cased) and body.
struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

/// `GET path` with extra header lines, on a connection of its own.
fn get(addr: SocketAddr, path: &str, extra: &str) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\n{extra}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a whole head");
    let head = String::from_utf8_lossy(&raw[..split]).to_lowercase();
    let status = head[9..12].parse().unwrap();
    Reply {
        status,
        head,
        body: raw[split + 4..].to_vec(),
    }
}

/// A folder `tables/` inside a temporary folder, holding a copy of the KBNK table.
fn kbnk_folder() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("tables");
    std::fs::create_dir(&dir).unwrap();
    std::fs::copy(kbnk_file(), dir.join("kbnk.rtb")).unwrap();
    (tmp, dir)
}

/// Write `bytes` over the file at `path` in place (same file, as `cp` does).
fn overwrite(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .unwrap();
    f.write_all(bytes).unwrap();
    f.sync_all().unwrap();
}

#[cfg(unix)]
#[test]
fn a_link_put_in_place_of_a_table_after_start_leads_nowhere() {
    let (tmp, dir) = kbnk_folder();
    let table = std::fs::read(dir.join("kbnk.rtb")).unwrap();
    let secret = tmp.path().join("secret.txt");
    std::fs::write(&secret, b"the secret outside the folder").unwrap();
    let state = AppState::load(&dir);
    let (addr, _rt) = start(state.clone(), Limits::default());
    let before = get(addr, "/tables/kbnk.rtb", "");
    assert_eq!((before.status, &before.body), (200, &table));

    std::fs::remove_file(dir.join("kbnk.rtb")).unwrap();
    std::os::unix::fs::symlink(&secret, dir.join("kbnk.rtb")).unwrap();
    // The file opened was unlinked, which is a change to it: 503 until the folder is
    // looked at again, never the link's target.
    let swapped = get(addr, "/tables/kbnk.rtb", "");
    assert_eq!(swapped.status, 503);
    assert!(!String::from_utf8_lossy(&swapped.body).contains("secret"));
    // Once the folder is looked at again, the name holds no table: nothing is served.
    assert!(state.refresh());
    let after = get(addr, "/tables/kbnk.rtb", "");
    assert_eq!(after.status, 404);
    assert!(!String::from_utf8_lossy(&after.body).contains("secret"));
    assert_eq!(get(addr, PROBE, "").status, 404);
}

#[test]
fn a_table_changed_in_place_answers_503_until_opened_again() {
    let (_tmp, dir) = kbnk_folder();
    let path = dir.join("kbnk.rtb");
    let good = std::fs::read(&path).unwrap();
    let state = AppState::load(&dir);
    let (addr, _rt) = start(state.clone(), Limits::default());
    let probe = get(addr, PROBE, "");
    assert_eq!(probe.status, 200);
    assert!(String::from_utf8_lossy(&probe.body).contains("\"dtm\":65"));
    let stats = get(addr, "/api/tables/kbnk/stats.json", "");
    assert!(String::from_utf8_lossy(&stats.body).contains("\"checksum_ok\":true"));

    // A byte of the last record flipped in place: the file is no longer the one checked.
    let mut bad = good.clone();
    *bad.last_mut().unwrap() ^= 1;
    overwrite(&path, &bad);
    for route in [PROBE, "/api/tables/kbnk/stats.json", "/tables/kbnk.rtb"] {
        let r = get(addr, route, "");
        assert_eq!(r.status, 503, "{route}");
        assert!(r.head.contains("retry-after: 1"), "{route}: {}", r.head);
        let text = String::from_utf8_lossy(&r.body);
        assert!(
            text.contains("kbnk.rtb") && text.contains("changed on disk"),
            "{text}"
        );
    }
    // Opened again, it fails its checksum: no table, and the other routes say so.
    assert!(state.refresh());
    assert_eq!(get(addr, PROBE, "").status, 404);
    assert_eq!(get(addr, "/tables/kbnk.rtb", "").status, 404);
    assert!(!state.refresh(), "nothing changed since");

    // The good bytes written back in place are served again, statistics made anew.
    overwrite(&path, &good);
    assert!(state.refresh());
    let probe = get(addr, PROBE, "");
    assert_eq!(probe.status, 200);
    assert!(String::from_utf8_lossy(&probe.body).contains("\"dtm\":65"));
    let file = get(addr, "/tables/kbnk.rtb", "");
    assert_eq!((file.status, &file.body), (200, &good));
}

#[test]
fn a_table_read_at_positions_refuses_every_read_once_cut_in_place() {
    let (_tmp, dir) = kbnk_folder();
    let path = dir.join("kbnk.rtb");
    let loaded = retro::GAMES
        .open_file_with(&path, retro::table::Load::Positioned)
        .unwrap();
    let state = AppState::from_loaded(&dir, vec![loaded]);
    let now = state.now();
    let served = now.tables.table("kbnk").unwrap();
    let fen = "8/8/8/8/8/8/5k2/5BNK w - - 0 1";
    assert!(served.plugin.probe(&served.table, fen).is_ok());
    let len = std::fs::metadata(&path).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    // Even the slots still in the file are not read: no value from a changed file.
    let Err(err) = served.plugin.probe(&served.table, fen) else {
        panic!("an answer from a file cut in place");
    };
    assert!(
        matches!(
            err,
            retro::present::ProbeError::Table(retro::table::TableError::Changed { .. })
        ),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn one_table_a_name_whatever_copies_and_links_the_folder_holds() {
    let (_tmp, dir) = kbnk_folder();
    std::fs::copy(kbnk_file(), dir.join("a-copy.rtb")).unwrap();
    std::os::unix::fs::symlink(dir.join("kbnk.rtb"), dir.join("link.rtb")).unwrap();
    let state = AppState::load(&dir);
    let now = state.now();
    assert_eq!(now.tables.len(), 1);
    assert_eq!(now.tables.known(), "kbnk");
    let list: serde_json::Value = serde_json::from_slice(&now.tables.list_json()).unwrap();
    let tables = list["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 1);
    // The file named after its table, by the stated rule (not the first in name order).
    assert_eq!(tables[0]["url"], "/tables/kbnk.rtb");
}

#[test]
fn if_match_with_another_tag_is_refused_with_412() {
    let (_tmp, dir) = kbnk_folder();
    let (addr, _rt) = start(AppState::load(&dir), Limits::default());
    let plain = get(addr, "/tables/kbnk.rtb", "");
    let etag = plain
        .head
        .lines()
        .find_map(|l| l.strip_prefix("etag: "))
        .unwrap()
        .to_string();
    let wrong = get(addr, "/tables/kbnk.rtb", "If-Match: \"0-0\"\r\n");
    assert_eq!(wrong.status, 412);
    assert!(wrong.body.is_empty());
    let weak = get(addr, "/tables/kbnk.rtb", &format!("If-Match: W/{etag}\r\n"));
    assert_eq!(weak.status, 412, "a weak tag never matches If-Match");
    let right = get(addr, "/tables/kbnk.rtb", &format!("If-Match: {etag}\r\n"));
    assert_eq!((right.status, right.body.len()), (200, plain.body.len()));
    let any = get(addr, "/tables/kbnk.rtb", "If-Match: *\r\n");
    assert_eq!(any.status, 200);
}

#[test]
fn an_http2_client_is_answered_in_http2() {
    let (_tmp, dir) = kbnk_folder();
    let (addr, _rt) = start(AppState::load(&dir), Limits::default());
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    // The client preface, then an empty SETTINGS frame (RFC 9113 §3.4).
    s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").unwrap();
    s.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).unwrap();
    let mut frame = [0u8; 9];
    s.read_exact(&mut frame).unwrap();
    // The server's preface is a SETTINGS frame (type 4) on stream 0.
    assert_eq!(frame[3], 4, "{frame:?}");
    assert_eq!(&frame[5..9], &[0, 0, 0, 0]);
}

#[test]
fn clients_that_stop_reading_or_never_finish_hold_no_one_up() {
    // Raise this process's descriptor limit, as `retro serve` does for itself: the test
    // holds both ends of every connection.
    retro::serve::listen::fit_to_descriptors(1024, 0);
    // The largest table of up to 4 pieces: more than the sockets buffer, for readers
    // that stop reading.
    let big = std::fs::read_dir(chess_all4())
        .unwrap()
        .map(|e| e.unwrap().path())
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let size = std::fs::metadata(&big).unwrap().len();
    assert!(size > 8 << 20, "{size}");
    let file = big.file_name().unwrap().to_str().unwrap().to_string();
    let limits = Limits {
        // Long enough that a half-sent request holds its connection for the whole test.
        header_timeout: Duration::from_secs(60),
        write_timeout: Duration::from_secs(1),
        ..Limits::default()
    };
    let state = AppState::from_loaded(
        chess_all4(),
        vec![retro::GAMES
            .open_file_with(&big, retro::table::Load::Safe)
            .unwrap()],
    );
    let (addr, _rt) = start(state, limits);
    // More than the 128 connections that used to be all there was.
    let mut held = Vec::new();
    for _ in 0..150 {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(b"GET /api/tables HTTP/1.1\r\nHost: x\r\n")
            .unwrap();
        held.push(s);
    }
    let mut readers = Vec::new();
    for _ in 0..20 {
        let mut s = TcpStream::connect(addr).unwrap();
        write!(s, "GET /tables/{file} HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        readers.push(s);
    }
    // Others are answered at once, not after the stalled ones time out.
    let t = Instant::now();
    for _ in 0..20 {
        assert_eq!(get(addr, "/api/tables", "").status, 200);
    }
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "20 requests took {:?}",
        t.elapsed()
    );
    // The readers that stopped are dropped once their writes stall for a second: each
    // gets part of the file, then the end of the connection.
    std::thread::sleep(Duration::from_secs(3));
    for mut s in readers {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut got = 0u64;
        let mut buf = vec![0u8; 1 << 16];
        loop {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => got += n as u64,
            }
        }
        assert!(got < size, "a stalled reader still got the whole file");
    }
    drop(held);
}
