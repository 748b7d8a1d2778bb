//! The `retro` command line: parse, call the library, map errors to exit codes.
//!
//! Exit codes, for every command alike (`cli::output::report` maps a command's result to
//! them): 0 success; 1 a check that ran and failed (`verify` found mismatches, a batch
//! probe had bad lines, a strategy graph is not valid); 2 an error (bad input such as a
//! refused position, in words or in JSON alike; a bad flag; a missing, damaged or changed
//! table; I/O).

#[macro_use]
mod cli;
mod cpu;

use std::process::ExitCode;

/// mimalloc rather than the system's allocator: `retro serve` decodes a compressed block
/// into a buffer of its own for each value it cannot find held, and the block cache frees
/// it later, often on another thread; glibc's allocator then takes the allocating
/// thread's arena lock.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{Parser, Subcommand};

/// A retrograde endgame-tablebase engine: solve games backwards from their ends, store every
/// position's value, distance and best move, and probe them instantly.
#[derive(Parser)]
#[command(name = "retro", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Solve and write tables: chess (a material, or every one of up to N pieces, DTM and
    /// DTZ), KBNK, k-in-a-row boards (tables/<name>.rtb).
    Generate(cli::generate::GenerateArgs),
    /// Look positions up in any table (chess by FEN, KBNK, k-in-a-row): value, distance,
    /// best move and every move's result for the player making it, the move counted
    /// (`mate in 33 (65 plies)`, `win in 7 plies`).
    Probe(cli::probe::ProbeArgs),
    /// Show any table file's header, parameters, statistics and checksum status (chess,
    /// KBNK, k-in-a-row; dense or compressed).
    Info(cli::info::InfoArgs),
    /// Check any table file (chess, KBNK, k-in-a-row): its checksums, then every record
    /// against its successors.
    Verify(cli::verify::VerifyArgs),
    /// Write a table's compressed form (.rtbc) beside it, for any game: its values in
    /// checksummed zstd blocks (chess: one side to move), read by probe, serve, info and verify.
    Compress(cli::compress::CompressArgs),
    /// Rebuild the dense table (.rtb) from its compressed form, byte for byte (any game).
    Decompress(cli::compress::DecompressArgs),
    /// The task graph of a chess table set as JSON: each table, the sub-tables it reads,
    /// its size and its estimated peak memory, in dependency order (for distributed runners).
    Plan(cli::plan::PlanArgs),
    /// Gomoku (15x15): validate, prove and solve winning strategies for black.
    #[command(subcommand)]
    Gomoku(GomokuCommand),
    /// Serve a folder of tables over HTTP, every game: a JSON API, the Lichess tablebase API
    /// for chess, and the web viewer (makes the default tables where missing).
    #[cfg(feature = "server")]
    Serve(cli::serve::ServeArgs),
}

#[derive(Subcommand)]
enum GomokuCommand {
    /// Validate a gomoku strategy graph for black: every white reply must continue in the
    /// graph or be proven lost for white by the sound threat-sequence search, or else by the
    /// sound proof search (quiet moves), whose finds `--repair` adds to the graph.
    Validate(cli::gomoku::ValidateArgs),
    /// Prove that black wins a gomoku position (moves "h8 h9 g9" or a board): the same
    /// search as `solve`, answered at once, with no checkpoint; --out writes the strategy.
    Prove(cli::gomoku_solve::ProveArgs),
    /// Prove a gomoku position as `prove` does, for long runs: the strategy goes to --out,
    /// with checkpoints (FILE.checkpoint) to resume from; the strategy written is validated.
    Solve(cli::gomoku_solve::SolveArgs),
}

fn main() -> ExitCode {
    let missing = cpu::missing();
    if !missing.is_empty() {
        eprintln!(
            "error: this retro was built for a processor with {}, which this one lacks: \
             build it here (cargo build --release)",
            missing.join(", ")
        );
        return ExitCode::from(2);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Generate(a) => cli::generate::run(a),
        Command::Probe(a) => cli::probe::run(a),
        Command::Info(a) => cli::info::run(a),
        Command::Verify(a) => cli::verify::run(a),
        Command::Compress(a) => cli::compress::run_compress(&a),
        Command::Decompress(a) => cli::compress::run_decompress(&a),
        Command::Plan(a) => cli::plan::run(&a),
        Command::Gomoku(GomokuCommand::Validate(a)) => cli::gomoku::run_validate(&a),
        Command::Gomoku(GomokuCommand::Prove(a)) => cli::gomoku_solve::run_prove(&a),
        Command::Gomoku(GomokuCommand::Solve(a)) => cli::gomoku_solve::run_solve(&a),
        #[cfg(feature = "server")]
        Command::Serve(a) => retro::serve::run(&a.options())
            .map(|()| true)
            .map_err(Into::into),
    };
    cli::output::report(result)
}
