//! Which tables a request needs and whether they can be made: [`plan`] orders them
//! children first and says what each costs and whether it is present, absent or damaged;
//! [`set`] works out a whole set before anything is written. Uses the rules, indexing and
//! the bare-king solver's test of the materials it takes.

pub mod plan;
pub mod set;
