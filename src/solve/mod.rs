//! Solvers: the generic two-queue retrograde solver (any game, the reference), the
//! one-byte solver (values and two bits a slot, over a game's [`one_byte::Passes`]), the
//! restarting solver (distance to zeroing) and helpers shared by the games' own faster
//! solvers.

mod ascending;
pub mod one_byte;
pub mod restart;
pub mod two_queue;

/// Why a solve failed.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    #[error("distance {0} plies exceeds the record limit (a win of {max} plies, a loss of {lmax} plies)", max = crate::game::MAX_WIN_PLIES, lmax = crate::game::MAX_LOSS_PLIES)]
    TooDeep(u16),
    #[error("cannot start {threads} worker threads: {source}")]
    Threads {
        threads: usize,
        source: rayon::ThreadPoolBuildError,
    },
    #[error("{threads} worker threads asked; the limit is {max}", max = crate::generate::MAX_THREADS)]
    TooManyThreads { threads: usize },
    #[error("{0}")]
    Game(String),
}

/// For the layered bitboard solvers: refuse layer `d` (wins at `d + 1` plies, losses at
/// `d + 2`) if it found a distance a record cannot hold.
pub fn check_layer(d: u16, any_won: bool, any_lost: bool) -> Result<(), SolveError> {
    if any_won && d + 1 > crate::game::MAX_WIN_PLIES {
        return Err(SolveError::TooDeep(d + 1));
    }
    if any_lost && d + 2 > crate::game::MAX_LOSS_PLIES {
        return Err(SolveError::TooDeep(d + 2));
    }
    Ok(())
}

#[cfg(test)]
mod one_byte_tests;
#[cfg(test)]
mod restart_tests;
#[cfg(test)]
mod tests;
