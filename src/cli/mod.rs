//! The binary's commands, one file each (`main.rs` only dispatches), and what they share:
//! argument types, output that survives a closed pipe, the batch line reader.

// First, so its `outln!` and `out!` macros are in scope in the modules below.
#[macro_use]
pub mod output;
pub mod batch;
pub mod compress;
pub mod generate;
pub mod gomoku;
pub mod gomoku_args;
pub mod gomoku_prove;
pub mod gomoku_solve;
pub mod info;
pub mod plan;
pub mod probe;
#[cfg(feature = "server")]
pub mod serve;
pub mod verify;

/// The parser of a flag taking a whole number from `lo` to `hi`: anything else (negative,
/// fractional, NaN, out of range) is refused before anything starts, clap naming the flag
/// and this message the range. Every numeric flag that counts something goes through it
/// (or [`seconds`], [`size`]).
pub fn whole<T>(lo: T, hi: T) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy + Send + Sync + 'static,
{
    move |s: &str| match s.trim().parse::<T>() {
        Ok(n) if lo <= n && n <= hi => Ok(n),
        _ => Err(format!("expected a whole number from {lo} to {hi}")),
    }
}

/// `--threads N`: a number from 1 to [`retro::generate::MAX_THREADS`], refused otherwise
/// before anything starts.
pub fn threads(s: &str) -> Result<usize, String> {
    let max = retro::generate::MAX_THREADS;
    whole(1, max)(s).map_err(|_| format!("expected a number of threads from 1 to {max}"))
}

/// The most nodes a search may be given: far beyond any run's time.
pub const MAX_NODES: u64 = 1_000_000_000_000;
/// The most graph or tree nodes a search may keep: about 630 GB of them.
pub const MAX_TREE_NODES: usize = 1_000_000_000;

/// The longest span a flag in seconds takes: about 31 years.
pub const MAX_SECONDS: f64 = 1e9;

/// A flag in seconds (`--time-limit`, `--proof-budget`, `--checkpoint-every`): a number
/// from 0 to [`MAX_SECONDS`]; NaN, infinities and negative numbers are refused before
/// anything starts.
pub fn seconds(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if (0.0..=MAX_SECONDS).contains(&x) => Ok(x),
        Ok(_) => Err(format!(
            "expected seconds from 0 to {MAX_SECONDS:e}, not {s}"
        )),
        Err(_) => Err(format!("expected a number of seconds, not '{s}'")),
    }
}

/// `--max-memory SIZE`: a size such as `4G` or `2000000000`.
pub fn size(s: &str) -> Result<u64, String> {
    retro::memory::parse_size(s).map_err(|e| e.to_string())
}
