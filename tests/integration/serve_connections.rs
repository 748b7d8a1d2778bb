//! The server over real sockets: idle and slow clients are timed out, connections are
//! bounded, shutdown finishes within seconds whatever the clients do, and a table
//! overwritten in place while served (or probed in batch) crashes nothing.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use retro::serve::{router, serve_on, AppState, Limits};

use super::common::{kbnk_file, stderr, stdout, tables_dir, RetroServe};

/// Starts `serve_on` over the shared tables with `limits`; returns its address and a sender
/// that stops it, and the task.
async fn start(
    limits: Limits,
) -> (
    std::net::SocketAddr,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<()>,
) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let app = router(AppState::load(tables_dir()));
    let task = tokio::spawn(serve_on(listener, app, limits, async move {
        let _ = rx.await;
    }));
    (addr, tx, task)
}

/// Reads until the server closes the connection or `limit` passes; returns whether it
/// closed and what it sent.
async fn read_until_closed(s: &mut tokio::net::TcpStream, limit: Duration) -> (bool, Vec<u8>) {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (true, got),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Err(_) => return (false, got),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_half_sent_connections_are_closed() {
    use tokio::io::AsyncWriteExt;
    let limits = Limits {
        header_timeout: Duration::from_millis(400),
        ..Limits::default()
    };
    let (addr, _stop, _task) = start(limits).await;
    // Never sends a byte.
    let mut idle = tokio::net::TcpStream::connect(addr).await.unwrap();
    // Sends half a request.
    let mut half = tokio::net::TcpStream::connect(addr).await.unwrap();
    half.write_all(b"GET /api/tables HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    // Makes one request, then stays idle on the kept-alive connection.
    let mut kept = tokio::net::TcpStream::connect(addr).await.unwrap();
    kept.write_all(b"GET /api/tables HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let t = Instant::now();
    for (what, s) in [
        ("idle", &mut idle),
        ("half-sent", &mut half),
        ("kept-alive", &mut kept),
    ] {
        let (closed, _) = read_until_closed(s, Duration::from_secs(5)).await;
        assert!(closed, "{what} connection still open after 5 s");
    }
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_beyond_the_bound_wait_for_a_free_slot() {
    use tokio::io::AsyncWriteExt;
    let limits = Limits {
        max_connections: 2,
        ..Limits::default()
    };
    let (addr, _stop, _task) = start(limits).await;
    let a = tokio::net::TcpStream::connect(addr).await.unwrap();
    let _b = tokio::net::TcpStream::connect(addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
    c.write_all(b"GET /api/tables HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let (closed, got) = read_until_closed(&mut c, Duration::from_millis(500)).await;
    assert!(
        !closed && got.is_empty(),
        "a third connection is not served while two are open"
    );
    drop(a);
    let (closed, got) = read_until_closed(&mut c, Duration::from_secs(5)).await;
    assert!(closed, "served once a slot is free");
    assert!(
        got.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&got)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_finishes_within_the_grace_period() {
    use tokio::io::AsyncWriteExt;
    let limits = Limits {
        header_timeout: Duration::from_secs(60),
        shutdown_grace: Duration::from_millis(500),
        ..Limits::default()
    };
    let (addr, stop, task) = start(limits).await;
    let mut half = tokio::net::TcpStream::connect(addr).await.unwrap();
    half.write_all(b"GET /api/tables HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let _idle = tokio::net::TcpStream::connect(addr).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let t = Instant::now();
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("serve_on returns")
        .unwrap();
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

fn http_get(addr: &str, path: &str) -> std::io::Result<String> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )?;
    let mut reply = String::new();
    s.read_to_string(&mut reply)?;
    Ok(reply)
}

#[cfg(unix)]
#[test]
fn sigterm_stops_the_server_within_seconds_despite_a_half_sent_request() {
    let mut server = RetroServe::start(tables_dir());
    let addr = server.addr.clone();
    let mut half = TcpStream::connect(&addr).unwrap();
    half.write_all(b"GET /api/tables HTTP/1.1\r\nHost: x\r\n")
        .unwrap();
    let _idle = TcpStream::connect(&addr).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let t = Instant::now();
    let pid = server.child.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let status = loop {
        if let Some(s) = server.child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t.elapsed() < Duration::from_secs(8),
            "still running 8 s after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

#[test]
fn a_table_overwritten_in_place_crashes_neither_server_nor_batch_probe() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kbnk.rtb");
    let bytes = std::fs::read(kbnk_file()).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    let fen = "/api/probe/kbnk?position=8/8/8/8/8/8/5k2/5BNK_w_-_-_0_1";

    let mut server = RetroServe::start(dir.path());
    let addr = server.addr.clone();
    let mut batch = super::common::batch_probe("kbnk", dir.path());
    let mut input = batch.stdin.take().unwrap();
    let line = b"8/8/8/8/8/8/5k2/5BNK w - - 0 1\n";
    // 155 KB, more than a pipe holds: this returns only once the prober reads its input,
    // which it does after opening the table.
    for _ in 0..5000 {
        input.write_all(line).unwrap();
    }
    assert!(http_get(&addr, fen).unwrap().starts_with("HTTP/1.1 200"));

    // `cp new.rtb kbnk.rtb` truncates the file, then writes it. While it is empty, a
    // mapped reader faults (SIGBUS) on the pages it reads.
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    f.sync_all().unwrap();
    // Not a value from the file as it is now: 503 until the folder's next look, then no
    // table (an empty file is none).
    let reply = http_get(&addr, fen).unwrap();
    assert!(
        reply.starts_with("HTTP/1.1 503") || reply.starts_with("HTTP/1.1 404"),
        "{reply}"
    );
    // Complete the prober's first block of 16,384 lines, so it answers them now.
    for _ in 5000..16_384 {
        input.write_all(line).unwrap();
    }
    std::thread::sleep(Duration::from_millis(1500));
    f.write_all(&bytes).unwrap();
    drop(f);
    for _ in 0..100 {
        input.write_all(line).unwrap();
    }
    drop(input);
    let out = batch.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "batch probe: {:?} {}",
        out.status,
        stderr(&out)
    );
    let answers = stdout(&out);
    assert_eq!(answers.lines().count(), 16_484);
    assert!(answers.lines().all(|l| l.contains("\"dtm\":65")));
    // The table written back is opened again within a second or two of the change.
    let t = Instant::now();
    let reply = loop {
        let reply = http_get(&addr, fen).unwrap();
        if reply.starts_with("HTTP/1.1 200") || t.elapsed() > Duration::from_secs(20) {
            break reply;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(reply.contains("\"dtm\":65"), "{reply}");
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server is still running"
    );
}
