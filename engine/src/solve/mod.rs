//! Solvers: the generic two-queue retrograde solver (any game, the reference), the
//! one-byte solver (values and two bits a slot, over a game's [`one_byte::Passes`], also
//! for distance to zeroing, by tiers), the restarting solver (distance to zeroing on
//! positions, its reference) and helpers shared by the games' own faster solvers.

mod ascending;
mod bytes;
pub use crate::huge;
pub mod one_byte;
pub mod restart;
pub mod two_queue;

pub use crate::game::SolveError;
use crate::game::{Game, Records, Solution, SolveOptions};
pub use bytes::prefetch;

/// Solving any game: with its own solver if it has one ([`Game::own_solution`],
/// [`Game::own_records`]), else with the generic two-queue solver, the reference.
pub trait Solve: Game + Sized {
    /// Every position's record, in memory.
    fn solve(&self, opts: &SolveOptions) -> Result<Solution, SolveError> {
        match self.own_solution(opts) {
            Some(solved) => solved,
            None => match self.own_records(opts) {
                Some(records) => Ok(records?.to_solution(opts.progress)),
                None => two_queue::solve(self, opts),
            },
        }
    }

    /// Every position's record, for writing: made as they are written where the solver
    /// allows it (see [`Game::own_records`]). The bytes are [`Solve::solve`]'s.
    fn solve_records(&self, opts: &SolveOptions) -> Result<Box<dyn Records + '_>, SolveError> {
        match self.own_records(opts) {
            Some(records) => records,
            None => Ok(Box::new(self.solve(opts)?)),
        }
    }
}

impl<G: Game> Solve for G {}

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
