//! `retro serve`: the HTTP API and the embedded web viewer over a folder of tables.
//!
//! | route | what |
//! |---|---|
//! | `GET /` | the viewer (embedded HTML, JavaScript, SVG) |
//! | `GET /api/tables` | the tables served, with parameters, sizes and statistics |
//! | `GET /api/probe/<table>?position=<text>` | the probe JSON of `retro probe --json`; 400 for a malformed or illegal position, 404 for an unknown table |
//! | `GET /tables/<file>` | the raw table files (Range, ETag, conditional GET), nothing outside the folder |
//!
//! Tables are opened once, read-only, and shared without locks; probing is a few
//! memory-map reads, done inline on the tokio workers.

pub mod api;
pub mod assets;
pub mod error;
pub mod routes;
pub mod state;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::Context;

pub use error::ApiError;
pub use routes::router;
pub use state::AppState;

/// The tables `retro serve` generates when they are missing, sub-tables first.
pub const DEFAULT_TABLES: &[&str] = &[
    "kbnk",
    "KQvK",
    "KRvK",
    "KBvK",
    "KNvK",
    "KPvK",
    "mnk-3x3-3",
    "mnk-3x4-3",
    "mnk-4x4-3",
];

/// Options of `retro serve`.
#[derive(Clone, Debug, clap::Args)]
pub struct ServeArgs {
    /// Folder of the tables to serve (missing default tables are generated into it).
    #[arg(long, default_value = "tables")]
    pub tables: PathBuf,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Serve what is there; do not generate missing default tables.
    #[arg(long)]
    pub no_generate: bool,
    /// Worker threads of the server (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
}

/// Generate the default tables missing from `dir`, with a progress bar each.
pub fn ensure_default_tables(dir: &Path) -> anyhow::Result<()> {
    for name in DEFAULT_TABLES {
        if crate::registry::table_path(dir, name).exists() {
            continue;
        }
        let plugin = crate::registry::plugin_in(name, dir)?;
        eprintln!(
            "retro serve: table {name} ({}) is missing; generating it into {}",
            plugin.title(),
            dir.display()
        );
        let bar = crate::progress::Bar::new();
        let done = crate::generate::generate(&*plugin, dir, &bar);
        bar.finish();
        let done = done.with_context(|| format!("generating {name}"))?;
        eprintln!(
            "retro serve: wrote {} in {:.1} s",
            done.path.display(),
            done.total_seconds
        );
    }
    Ok(())
}

/// Ctrl-C, or SIGTERM on Unix (as service managers send).
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    eprintln!("retro serve: shutting down");
}

/// Run the server until Ctrl-C or SIGTERM.
pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    if !args.no_generate {
        ensure_default_tables(&args.tables)?;
    }
    let state = AppState::load(&args.tables);
    if state.is_empty() {
        eprintln!(
            "retro serve: no tables in {} (generate some with `retro generate`)",
            args.tables.display()
        );
    }
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = args.threads {
        rt.worker_threads(n.max(1));
    }
    let rt = rt
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        let addr = listener.local_addr()?;
        println!(
            "retro serve: {} table(s) from {}: {}",
            state.len(),
            args.tables.display(),
            state.known()
        );
        println!("retro serve: listening on http://{addr}/ (Ctrl-C to stop)");
        axum::serve(listener, router(state))
            .with_graceful_shutdown(shutdown_signal())
            .await
            .context("serving")
    })
}
