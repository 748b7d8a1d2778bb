//! `retro serve`'s arguments; the server itself is the library's `serve` module.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use retro::serve::{Limits, Options};

/// The folder served when `--tables` is not given.
const DEFAULT_FOLDER: &str = "tables";

/// Options of `retro serve`.
#[derive(Clone, Debug, clap::Args)]
pub struct ServeArgs {
    /// Folder of the tables to serve (it must exist). The default tables missing from it
    /// are made first: every chess table of up to 4 pieces, DTM and DTZ, compressed; KBNK;
    /// k-in-a-row boards (about 40 s on 2 cores the first time). Without it: ./tables,
    /// made on a first start.
    #[arg(long, value_name = "FOLDER")]
    pub tables: Option<PathBuf>,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,
    /// Serve what is there; do not generate missing default tables.
    #[arg(long)]
    pub no_generate: bool,
    /// Worker threads of the server (default: one per core).
    #[arg(long, value_parser = super::threads)]
    pub threads: Option<usize>,
    /// Connections served at once; more wait until one closes.
    #[arg(long, default_value_t = Limits::default().max_connections as u32,
          value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub max_connections: u32,
    /// Seconds a client has to send a request's headers, and the longest idle time
    /// between requests.
    #[arg(long, default_value_t = Limits::default().header_timeout.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout: u64,
    /// Seconds a response may wait for its client to read before the connection is closed.
    #[arg(long, default_value_t = Limits::default().write_timeout.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub write_timeout: u64,
    /// Connections served at once from one address (not counting the machine's own).
    #[arg(long, default_value_t = Limits::default().max_per_client as u32,
          value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub max_per_client: u32,
}

impl ServeArgs {
    pub fn options(&self) -> Options {
        Options {
            tables: (self.tables.clone()).unwrap_or_else(|| PathBuf::from(DEFAULT_FOLDER)),
            addr: self.addr,
            generate_missing: !self.no_generate,
            make_folder: self.tables.is_none(),
            threads: self.threads,
            limits: Limits {
                header_timeout: Duration::from_secs(self.header_timeout),
                max_connections: self.max_connections as usize,
                write_timeout: Duration::from_secs(self.write_timeout),
                max_per_client: self.max_per_client as usize,
                ..Limits::default()
            },
        }
    }
}
