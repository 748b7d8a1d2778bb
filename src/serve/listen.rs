//! The accept loop: HTTP/1.1 and HTTP/2 connections with limits, and a shutdown that
//! cannot hang.
//!
//! `axum::serve` has no timeouts and no bound on connections: 300 idle clients exhausted a
//! 256-descriptor limit, and a half-sent request kept the server alive after SIGTERM. Here
//! hyper serves each connection directly, so that:
//!
//! - a client has `header_timeout` to send each request's headers, counted from the moment
//!   the server waits for them (so an idle keep-alive connection is closed after it too);
//! - a client that stops reading what it asked for (a table file, a large answer) is
//!   dropped once no byte could be written to it for `write_timeout`;
//! - at most `max_connections` are open (fewer if the descriptor limit is lower: see
//!   [`fit_to_descriptors`]), and at most `max_per_client` from one remote address;
//!   further clients wait in the kernel's backlog, costing no descriptor, until one closes,
//!   and one client's surplus is closed at once;
//! - on shutdown the listener closes at once, idle connections close, requests in flight
//!   get `shutdown_grace` to finish, and whatever is left is dropped.
//!
//! So a thousand slow readers and a few hundred half-sent requests hold a thousand idle
//! sockets, not the server: other requests are answered as before.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper::server::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// Bounds on what clients can hold.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Time to send a request's headers, and the longest idle time between requests.
    pub header_timeout: Duration,
    /// The longest a response may wait for its client to read.
    pub write_timeout: Duration,
    /// Connections served at once.
    pub max_connections: usize,
    /// Connections served at once from one remote address (loopback excepted: behind a
    /// proxy on the same machine every client has that address).
    pub max_per_client: usize,
    /// Time given to requests in flight after the shutdown signal.
    pub shutdown_grace: Duration,
    /// How often the tables folder is looked at for changed, added or removed tables.
    pub recheck_every: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(20),
            // An idle connection costs a descriptor and a few kilobytes: thousands are
            // cheap, so slow clients cannot take every slot.
            max_connections: 4096,
            max_per_client: 256,
            shutdown_grace: Duration::from_secs(3),
            recheck_every: Duration::from_secs(1),
        }
    }
}

/// Descriptors kept for other things than connections: the tables (one each), the
/// listener, the runtime, the files being sent.
const RESERVED_DESCRIPTORS: u64 = 512;

/// `max_connections` within this process's descriptor limit, which is first raised to its
/// hard limit (the soft limit is often 1024). Returns the bound to use and, if it had to be
/// lowered, why, for a warning.
pub fn fit_to_descriptors(max_connections: usize, tables: usize) -> (usize, Option<String>) {
    #[cfg(unix)]
    {
        use rustix::process::{getrlimit, setrlimit, Resource};
        let mut lim = getrlimit(Resource::Nofile);
        if let Some(hard) = lim.maximum {
            if lim.current.is_some_and(|c| c < hard) {
                lim.current = Some(hard);
                // Raising the soft limit to the hard one needs no privilege; if it fails
                // anyway the current limit is what there is.
                let _ = setrlimit(Resource::Nofile, lim);
            }
        }
        let Some(soft) = getrlimit(Resource::Nofile).current else {
            return (max_connections, None);
        };
        let room = soft.saturating_sub(RESERVED_DESCRIPTORS + tables as u64) as usize;
        if room < max_connections {
            let fit = room.max(16);
            return (
                fit,
                Some(format!(
                    "at most {fit} connections at once (not {max_connections}): the descriptor limit is {soft} (raise it with `ulimit -n`)"
                )),
            );
        }
    }
    let _ = tables;
    (max_connections, None)
}

/// Connections open per remote address.
#[derive(Default)]
struct PerClient(Mutex<HashMap<IpAddr, usize>>);

/// A connection counted in [`PerClient`] until dropped.
struct Counted(Arc<PerClient>, IpAddr);

impl PerClient {
    /// Count a connection from `ip`, unless it already has `max` open.
    fn admit(self: &Arc<Self>, ip: IpAddr, max: usize) -> Option<Counted> {
        let mut open = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(ip).or_insert(0);
        if *n >= max && !ip.is_loopback() {
            return None;
        }
        *n += 1;
        Some(Counted(self.clone(), ip))
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        let mut open = self.0 .0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.1) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.1);
            }
        }
    }
}

/// Whether a new connection speaks HTTP/2, from its first bytes (looked at, not taken):
/// its preface, or anything else (HTTP/1). `None` if it sends nothing, or stops within the
/// preface, for `limit` (the time it has to send its headers anyway).
async fn is_http2(stream: &TcpStream, limit: Duration) -> Option<bool> {
    const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    let deadline = tokio::time::Instant::now() + limit;
    let mut buf = [0u8; PREFACE.len()];
    let mut seen = 0;
    loop {
        let n = tokio::time::timeout_at(deadline, stream.peek(&mut buf))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None; // closed
        }
        if buf[..n] != PREFACE[..n] {
            return Some(false);
        }
        if n == PREFACE.len() {
            return Some(true);
        }
        // Part of the preface: wait for the rest (a peek answers at once while data
        // waits, so pause rather than spin; only an HTTP/2 client ever gets here).
        if n == seen {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        seen = n;
    }
}

/// A connection whose writes must make progress: a write or flush that could not go on
/// for `limit` fails, which ends the connection. Reads are left to hyper's own timeouts.
struct WriteDeadline<S> {
    io: S,
    limit: Duration,
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<S> WriteDeadline<S> {
    fn new(io: S, limit: Duration) -> Self {
        WriteDeadline {
            io,
            limit,
            stalled: None,
        }
    }

    /// After a write returned `Pending`: wait on, or fail once the limit has passed.
    fn pending<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let limit = self.limit;
        let timer = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client stopped reading",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// A write's outcome: progress resets the timer.
    fn track<T>(&mut self, p: Poll<io::Result<T>>, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        match p {
            Poll::Ready(r) => {
                self.stalled = None;
                Poll::Ready(r)
            }
            Poll::Pending => self.pending(cx),
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteDeadline<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let p = Pin::new(&mut self.io).poll_write(cx, buf);
        self.track(p, cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let p = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.track(p, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let p = Pin::new(&mut self.io).poll_flush(cx);
        self.track(p, cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let p = Pin::new(&mut self.io).poll_shutdown(cx);
        self.track(p, cx)
    }
}

/// Serve `app` on `listener` until `shutdown` completes, then stop within
/// `limits.shutdown_grace`.
pub async fn serve_on(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let per_client = Arc::new(PerClient::default());
    let graceful = GracefulShutdown::new();
    let mut http1 = http1::Builder::new();
    http1
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    // HTTP/2 for a client that opens with its preface (a proxy speaking h2c): an idle
    // one is found out by pings.
    let mut http2 = http2::Builder::new(TokioExecutor::new());
    http2
        .timer(TokioTimer::new())
        .keep_alive_interval(limits.header_timeout)
        .keep_alive_timeout(limits.header_timeout);
    tokio::pin!(shutdown);
    loop {
        // A permit first, so a connection beyond the bound is not even accepted.
        let permit = tokio::select! {
            () = &mut shutdown => break,
            p = permits.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break, // never closed
            },
        };
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            r = listener.accept() => match r {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors or a connection reset before it was accepted: wait
                    // a little rather than spin, and keep serving.
                    eprintln!("retro serve: accepting a connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        // One client's connections beyond its share are closed at once.
        let Some(counted) = per_client.admit(peer.ip(), limits.max_per_client) else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let (http1, http2, watcher, app) = (
            http1.clone(),
            http2.clone(),
            graceful.watcher(),
            app.clone(),
        );
        tokio::spawn(async move {
            // A client's errors (reset, timeout, bad request line) end its connection only.
            if let Some(speaks_h2) = is_http2(&stream, limits.header_timeout).await {
                let io = TokioIo::new(WriteDeadline::new(stream, limits.write_timeout));
                let service = TowerToHyperService::new(app);
                if speaks_h2 {
                    let _ = watcher.watch(http2.serve_connection(io, service)).await;
                } else {
                    let _ = watcher.watch(http1.serve_connection(io, service)).await;
                }
            }
            drop(counted);
            drop(permit);
        });
    }
    drop(listener);
    tokio::select! {
        () = graceful.shutdown() => {},
        () = tokio::time::sleep(limits.shutdown_grace) => {
            eprintln!(
                "retro serve: closing the connections still open after {:.0?}",
                limits.shutdown_grace
            );
        },
    }
}
