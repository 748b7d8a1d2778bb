//! The accept loop: HTTP/1.1 connections with limits, and a shutdown that cannot hang.
//!
//! `axum::serve` has no timeouts and no bound on connections: 300 idle clients exhausted a
//! 256-descriptor limit, and a half-sent request kept the server alive after SIGTERM. Here
//! hyper serves each connection directly, so that:
//!
//! - a client has `header_timeout` to send each request's headers, counted from the moment
//!   the server waits for them (so an idle keep-alive connection is closed after it too);
//! - at most `max_connections` are open; further clients wait in the kernel's backlog,
//!   costing no descriptor, until one closes;
//! - on shutdown the listener closes at once, idle connections close, requests in flight
//!   get `shutdown_grace` to finish, and whatever is left is dropped.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// Bounds on what clients can hold.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Time to send a request's headers, and the longest idle time between requests.
    pub header_timeout: Duration,
    /// Connections served at once.
    pub max_connections: usize,
    /// Time given to requests in flight after the shutdown signal.
    pub shutdown_grace: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(10),
            // Well under the common 1024-descriptor limit (and under 256 with room for the
            // tables and the runtime), yet far more than a viewer needs.
            max_connections: 128,
            shutdown_grace: Duration::from_secs(3),
        }
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
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
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
        let stream = tokio::select! {
            () = &mut shutdown => break,
            r = listener.accept() => match r {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of descriptors or a connection reset before it was accepted: wait
                    // a little rather than spin, and keep serving.
                    eprintln!("retro serve: accepting a connection failed: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let conn =
            http.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            // A client's errors (reset, timeout, bad request line) end its connection only.
            let _ = conn.await;
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
