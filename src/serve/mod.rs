//! `retro serve`: the HTTP API and the embedded web viewer over a folder of tables.
//!
//! | route | what |
//! |---|---|
//! | `GET /` | the viewer (embedded HTML, JavaScript, SVG) |
//! | `GET /api/tables` | the tables served, with parameters, sizes and statistics |
//! | `GET /api/tables/<name>/stats.json` | a table's histogram, longest positions and checksums ([`stats`]) |
//! | `GET /api/probe/<table>?position=<text>` | the probe JSON of `retro probe --json`; 400 for a malformed or illegal position, 404 for an unknown table (naming the command that makes it) |
//! | `GET /api/chess/materials` | every chess material up to 5 pieces, and any larger table present, each marked present or not (the viewer's material picker) |
//! | `GET /tables/<file>` | the raw table files (Range, ETag, conditional GET), nothing outside the folder |
//! | `GET /standard?fen=…`, `GET /standard/mainline?fen=…` | the Lichess tablebase API over the chess tables ([`lichess`]) |
//!
//! Tables are opened once and shared; probing is a few reads, done inline on the tokio
//! workers. The folder is looked at every second, and tables added, removed or changed are
//! opened again ([`state`]). Connections are bounded in number, time out
//! when idle or slow to send their headers, and shutdown takes a few seconds at most (see
//! [`listen`]).

pub mod api;
pub mod assets;
pub mod error;
pub mod files;
pub mod lichess;
pub mod listen;
pub mod routes;
pub mod state;
pub mod stats;

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use error::ApiError;
pub use listen::{serve_on, Limits};
pub use routes::router;
pub use state::AppState;

use crate::generate::set;
use crate::registry::RegistryError;

/// What `retro serve` does (the binary fills this in from its arguments).
#[derive(Clone, Debug)]
pub struct Options {
    /// Folder of the tables to serve (missing default tables are generated into it).
    pub tables: PathBuf,
    /// Address to listen on.
    pub addr: SocketAddr,
    /// Generate the missing default tables first.
    pub generate_missing: bool,
    /// Make the folder if it does not exist (the default folder on a first start; a folder
    /// named by the user that does not exist is more likely a typo than a wish).
    pub make_folder: bool,
    /// Worker threads of the server (`None`: one per core).
    pub threads: Option<usize>,
    /// Timeouts and the connection bound.
    pub limits: Limits,
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("making the default tables: {0}")]
    Defaults(#[from] set::MakeError),
    // Not `transparent`: a transparent error's `source` skips the one it wraps, and the
    // fix for a registry error is found by walking the chain (`fixes::fix`).
    #[error("{0}")]
    Registry(#[from] RegistryError),
    #[error("{path}: {why}")]
    Folder { path: PathBuf, why: &'static str },
    #[error("cannot make the folder {path}: {source}")]
    Make {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start the server's threads: {0}")]
    Runtime(std::io::Error),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// Make the default tables missing from `dir`, every family's ([`Registry::default_sets`]:
/// chess's of up to 4 pieces, DTM and DTZ, compressed; KBNK; k-in-a-row boards), one line
/// a table. Tables already there are served as they are; a folder holding them all starts
/// at once. The default tables that cannot be planned (a damaged table in the way, too
/// little memory) are not made, with a line saying why: the server serves what is there.
///
/// [`Registry::default_sets`]: crate::registry::Registry::default_sets
pub fn ensure_default_tables(dir: &Path) -> Result<(), ServeError> {
    let sets = match crate::GAMES.default_sets(dir) {
        Ok(sets) => sets,
        Err(e) => {
            // In the error's own words: a fix naming `generate`'s flags would not apply.
            eprintln!("retro serve: not making the default tables: {e}");
            return Ok(());
        }
    };
    for mut d in sets {
        let missing = (0..d.tables.len())
            .filter(|&i| d.tables.to_make(i, dir))
            .count();
        if missing == 0 {
            continue;
        }
        eprintln!(
            "retro serve: making {missing} default table(s) into {} ({})",
            dir.display(),
            d.what
        );
        let opts = set::Options {
            threads: None,
            compress: d.compressed.then_some(set::Compress {
                level: Some(DEFAULT_SET_LEVEL),
                block_slots: None,
                keep_dense: false,
                found_too: false,
            }),
            memory: crate::memory::available(),
        };
        let done = set::make(&mut *d.tables, dir, &opts, &mut Lines)?;
        eprintln!(
            "retro serve: made {} table(s) in {}",
            done.made,
            crate::summary::duration(done.seconds)
        );
    }
    Ok(())
}

/// The zstd level of the default tables: the 70 chess tables of up to 4 pieces take 13 s
/// of CPU to compress at 9 against about 50 s at `generate`'s levels (14 for DTM, 15 for
/// DTZ), for 19 MB instead of 16 MB, and a first start is about the wait, not the bytes. `retro generate --compress` or
/// `retro compress` make the smaller files.
pub const DEFAULT_SET_LEVEL: i32 = 9;

/// What `retro serve` says while it makes its default tables: one line a table made.
struct Lines;

impl set::Report for Lines {
    fn bar(&self) -> Option<crate::progress::Bar> {
        None
    }
    fn event(&mut self, e: set::Event<'_>) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        match e {
            set::Event::Removed { path } => eprintln!(
                "retro serve: removed {}, left by an interrupted run",
                path.display()
            ),
            set::Event::Settled {
                i,
                total,
                name,
                made: true,
                clock,
            } => eprintln!("retro serve: [{i}/{total}] {name} made ({clock})"),
            _ => {}
        }
        Ok(())
    }
}

/// Ctrl-C, or SIGTERM on Unix (as service managers send).
pub async fn shutdown_signal() {
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

/// Run the server until Ctrl-C or SIGTERM; it then stops within `limits.shutdown_grace`
/// (plus a second for the runtime), whatever the clients do.
pub fn run(opts: &Options) -> Result<(), ServeError> {
    let folder = |why| ServeError::Folder {
        path: opts.tables.clone(),
        why,
    };
    match std::fs::metadata(&opts.tables) {
        Ok(m) if !m.is_dir() => {
            return Err(folder(
                "not a folder (--tables names the folder of the tables)",
            ))
        }
        Err(_) if !opts.make_folder => {
            return Err(folder(
                "no such folder (leave --tables out to serve ./tables, made with the default tables on a first start)",
            ))
        }
        Err(_) if !opts.generate_missing => {
            return Err(folder(
                "no such folder (without --no-generate it is made, with the default tables)",
            ))
        }
        Err(_) => {
            std::fs::create_dir_all(&opts.tables).map_err(|source| ServeError::Make {
                path: opts.tables.clone(),
                source,
            })?;
            eprintln!(
                "retro serve: made the folder {} for the default tables",
                opts.tables.display()
            );
        }
        Ok(_) => {}
    }
    if opts.generate_missing {
        ensure_default_tables(&opts.tables)?;
    }
    let state = AppState::load(&opts.tables);
    let now = state.now();
    if now.tables.is_empty() {
        eprintln!(
            "retro serve: no tables in {} (generate some with `retro generate`)",
            opts.tables.display()
        );
    }
    let mut rt = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = opts.threads {
        rt.worker_threads(n.max(1));
    }
    let rt = rt.enable_all().build().map_err(ServeError::Runtime)?;
    let result = rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(opts.addr)
            .await
            .map_err(|source| ServeError::Listen {
                addr: opts.addr,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| ServeError::Listen {
            addr: opts.addr,
            source,
        })?;
        // A closed stdout must not stop the server: these lines are for people.
        let mut out = std::io::stdout();
        let _ = writeln!(
            out,
            "retro serve: {} table(s) from {}: {}",
            now.tables.len(),
            opts.tables.display(),
            now.tables.known()
        );
        let _ = writeln!(
            out,
            "retro serve: listening on http://{addr}/ (Ctrl-C to stop)"
        );
        let _ = out.flush();
        let mut limits = opts.limits;
        let (fit, why) = listen::fit_to_descriptors(limits.max_connections, now.tables.len());
        if let Some(why) = why {
            eprintln!("retro serve: {why}");
        }
        limits.max_connections = fit;
        drop(now);
        tokio::spawn(state.clone().watch(limits.recheck_every));
        serve_on(listener, router(state), limits, shutdown_signal()).await;
        Ok(())
    });
    // Connections still open after the grace period are dropped with their tasks; a file
    // read still running on a blocking thread gets one more second.
    rt.shutdown_timeout(Duration::from_secs(1));
    result
}
