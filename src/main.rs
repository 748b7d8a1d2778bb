//! Minimal CLI in this worktree: only `retro serve` (the lead's CLI replaces this file).

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "retro", version, about = "A generic retrograde endgame-tablebase engine")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the tables over HTTP with the web viewer.
    Serve(retro::serve::ServeArgs),
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Serve(args) => retro::serve::run(args),
    };
    if let Err(e) = result {
        eprintln!("retro: {e:#}");
        std::process::exit(1);
    }
}
