//! The plug-in contract: what a game must tell the engine.
//!
//! A game is a value implementing [`Game`] (parameters are fields, never global state).
//! Like GamesmanOne's callbacks, the contract separates what a plug-in MUST provide from
//! what it MAY override:
//!
//! | method | | without it |
//! |---|---|---|
//! | [`Game::name`], [`Game::sections`] | REQUIRED | – |
//! | [`Game::decode`], [`Game::encode`], [`Game::canonical`] | REQUIRED | – |
//! | [`Game::terminal`], [`Game::successors`], [`Game::predecessors`] | REQUIRED | – |
//! | [`Game::size`] | provided | sum of the section lengths |
//! | [`Game::own_solution`], [`Game::own_records`] | OPTIONAL | the generic two-queue solver (`solve::two_queue`) |
//! | [`Game::images`] | OPTIONAL | the self-test checks canonical forms on `pos` alone |
//! | [`Game::first_successor`] | OPTIONAL | the first match in the full [`Game::successors`] list |
//! | [`Game::count_successors`] | OPTIONAL | the full [`Game::successors`] list, deduplicated |
//! | [`Game::move_from_canonical`] | OPTIONAL | the stored best move is used only for positions already in canonical form |
//! | [`Game::colour_twin`] | OPTIONAL | a compressed table's dropped section is searched one ply on, slot by slot |
//!
//! Text forms (FEN, board strings, move names) live in `present::GameText`, which the CLI and the
//! server need but the solver does not.
//!
//! Conventions every plug-in follows:
//! - One dense index space `0..size()`, split into consecutive [`Section`]s (KBNK: white to
//!   move, then black to move). Every index is a slot of 2-byte records in the table file.
//! - `decode(i)` is `None` for an unused slot or a position that cannot occur; the table then
//!   stores [`Value::Illegal`] there.
//! - `encode` maps *any* legal position, in any orientation, to the index of its canonical form.
//! - Moves are coded in one non-zero byte chosen by the game ([`NO_MOVE`] = 0 means "none").
//! - Values are from the point of view of the side to move; distances are in plies. The
//!   winner makes the last move, so a win is an odd number of plies and a loss an even one:
//!   the record stores moves, which loses nothing (see [`Value::to_byte`]).

use std::fmt::Debug;

use crate::error::TableError;
use crate::progress::Progress;

pub use crate::value::{Index, Value, MAX_LOSS_PLIES, MAX_WIN_PLIES, NO_MOVE};

/// Where a move leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// A position of this game's index space (canonical index).
    Index(Index),
    /// A position outside the table whose value is known (for the side then to move): a
    /// capture into KBK or KNK is `Known(Value::Draw)`.
    Known(Value),
    /// A position of the index space where the side then to move also has extra moves
    /// outside the table, the best of them worth `extra` for that side: the position's value
    /// is the better of its stored value and `extra`. Chess uses it for a double pawn step
    /// that allows an en-passant capture (stored positions carry no en-passant right).
    /// The position at `index` must have legal moves of its own; otherwise the game
    /// reports `Known(extra)`. Such a move is not listed by [`Game::predecessors`]: the
    /// solver follows it from the mover's side.
    Augmented { index: Index, extra: Value },
    /// A position of the index space reached by a move that restarts the count (chess's
    /// zeroing moves under the 50-move rule, for distance to zeroing): the mover cares
    /// only whether the position's result comes within `limit` plies, not how soon, so
    /// its value counts as [`Value::restarted`]. `extra` is the best of the side then to
    /// move's own moves outside the table (as in `Augmented`), if it has any. Only the
    /// restarting solver (`solve::restart`) follows such moves; the target must
    /// lie in a tier solved before the mover's, and is not listed by
    /// [`Game::predecessors`].
    Restart {
        index: Index,
        limit: u16,
        extra: Option<Value>,
    },
}

impl Outcome {
    /// The value of where the move leads, given the value of an in-table position.
    #[inline]
    pub fn value(self, stored: impl Fn(Index) -> Value) -> Value {
        match self {
            Outcome::Index(i) => stored(i),
            Outcome::Known(v) => v,
            Outcome::Augmented { index, extra } => stored(index).better(extra),
            Outcome::Restart {
                index,
                limit,
                extra,
            } => {
                let own = stored(index).restarted(limit);
                extra.map_or(own, |e| own.better(e.restarted(limit)))
            }
        }
    }
}

/// One legal move and where it leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Successor {
    /// The game's move code (never [`NO_MOVE`]).
    pub mv: u8,
    /// The position reached.
    pub to: Outcome,
}

/// One part of the index space (one array in the table file).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    /// Short name: `"white"`, `"black"`, `"all"`.
    pub name: String,
    /// Number of records.
    pub len: u64,
}

/// Knobs for a solve.
#[derive(Clone, Copy)]
pub struct SolveOptions<'a> {
    /// Progress reporting (a bar in the CLI, nothing in tests).
    pub progress: &'a dyn Progress,
}

/// A solved game: two bytes per index, `[value byte, move byte]`, sections concatenated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    pub records: Vec<u8>,
}

/// A solved game's records, made a range at a time: a [`Solution`] in memory, or a
/// solver's values from which each record (its best move above all) is worked out as it
/// is written, so the table's two bytes a slot never all sit in memory at once.
pub trait Records: Sync {
    /// Number of slots.
    fn slots(&self) -> u64;
    /// The value of slot `i`: the same as its record's, [`Value::from_record`].
    fn value(&self, i: Index) -> Value;
    /// The records of slots `first..first + out.len() / 2`, as two bytes each.
    fn fill(&self, first: Index, out: &mut [u8]);
    /// OPTIONAL. The records of slots `first..first + out.len() / 2` as [`Records::fill`]
    /// makes them, but for their best moves: each record holds the same value
    /// ([`Metric::value`](crate::metric::Metric::value)), its move byte any that says so.
    /// For a table compressed as it is solved, which keeps values only. Default:
    /// [`Records::fill`].
    fn fill_values(&self, first: Index, out: &mut [u8]) {
        self.fill(first, out)
    }
    /// The first damaged block met by the tables read to make these records (a solver's
    /// sub-tables): the writer then refuses to keep the file. Default: none.
    fn damage(&self) -> Option<TableError> {
        None
    }
    /// OPTIONAL. How many slots of `lo..hi` have each code of `metric`
    /// ([`Metric::code`](crate::metric::Metric::code)) as their value, which a table's
    /// header records before its records are written. Default: `None`, and the writer
    /// reads [`Records::value`] slot by slot.
    fn histogram(
        &self,
        _lo: Index,
        _hi: Index,
        _metric: crate::metric::Metric,
    ) -> Option<Vec<u64>> {
        None
    }
    /// Every record, in memory.
    fn to_solution(&self, progress: &dyn Progress) -> Solution {
        use rayon::prelude::*;
        const CHUNK: usize = 1 << 12;
        let mut sol = Solution::new(self.slots());
        sol.records
            .par_chunks_mut(CHUNK * 2)
            .enumerate()
            .for_each(|(c, out)| {
                self.fill((c * CHUNK) as Index, out);
                progress.advance(out.len() as u64 / 2);
            });
        sol
    }
}

/// Records already made, two bytes a slot.
impl Records for &[u8] {
    fn slots(&self) -> u64 {
        self.len() as u64 / 2
    }
    fn value(&self, i: Index) -> Value {
        let at = i as usize * 2;
        Value::from_record(self[at], self[at + 1])
    }
    fn fill(&self, first: Index, out: &mut [u8]) {
        let at = first as usize * 2;
        out.copy_from_slice(&self[at..at + out.len()]);
    }
}

impl Records for Solution {
    fn slots(&self) -> u64 {
        self.records.as_slice().slots()
    }
    fn value(&self, i: Index) -> Value {
        self.records.as_slice().value(i)
    }
    fn fill(&self, first: Index, out: &mut [u8]) {
        self.records.as_slice().fill(first, out)
    }
}

impl Solution {
    /// All slots unsolved (illegal, no move).
    pub fn new(size: u64) -> Solution {
        let mut records = vec![0; size as usize * 2];
        // Solvers write the records at random.
        crate::huge::advise_huge(&mut records);
        Solution { records }
    }

    pub fn value(&self, i: Index) -> Value {
        Value::from_record(
            self.records[i as usize * 2],
            self.records[i as usize * 2 + 1],
        )
    }

    pub fn mv(&self, i: Index) -> u8 {
        self.records[i as usize * 2 + 1]
    }
}

/// The contract between a game and the engine. See the module documentation for which
/// methods are required.
pub trait Game: Sync + Send {
    /// A position, in any orientation.
    type Position: Clone + Debug + PartialEq + Send + Sync;

    /// REQUIRED. The table name, also the file stem: `kbnk`, `mnk-4x3-3`.
    fn name(&self) -> String;

    /// REQUIRED. The game id and parameters written to the table header.
    fn params(&self) -> (&'static str, Vec<(String, i64)>);

    /// REQUIRED. The sections of the index space, in file order.
    fn sections(&self) -> Vec<Section>;

    /// REQUIRED. The position in slot `index`, or `None` for an unused slot or a position
    /// that cannot occur.
    fn decode(&self, index: Index) -> Option<Self::Position>;

    /// REQUIRED. The slot of the canonical form of a legal position.
    fn encode(&self, pos: &Self::Position) -> Index;

    /// REQUIRED. The canonical form under the game's symmetries; idempotent, and
    /// `decode(encode(p)) == Some(canonical(p))`.
    fn canonical(&self, pos: &Self::Position) -> Self::Position;

    /// REQUIRED. `Some(value)` if the game is over in `pos` (checkmate `Loss(0)`, stalemate
    /// `Draw`, a completed line `Loss(0)`, a full board `Draw`). Terminal positions have no
    /// successors.
    fn terminal(&self, pos: &Self::Position) -> Option<Value>;

    /// REQUIRED. Every legal move of a non-terminal position, in a fixed order (the order
    /// breaks ties between equally good moves, which keeps tables identical whatever the
    /// thread count). Works on any orientation: move codes are in `pos`'s own frame.
    fn successors(&self, pos: &Self::Position, out: &mut Vec<Successor>);

    /// REQUIRED. Un-moves: the index of every legal, non-terminal position that has a move
    /// leading to `pos` (or to a symmetric image of it). Duplicates are allowed.
    fn predecessors(&self, pos: &Self::Position, out: &mut Vec<Index>);

    /// Provided: the number of slots.
    fn size(&self) -> u64 {
        self.sections().iter().map(|s| s.len).sum()
    }

    /// OPTIONAL. A solver of the game's own, faster than the generic one (KBNK's bitboard
    /// solver, m,n,k's tier solver): `Some` of its result. Its output must be
    /// byte-identical to the generic solver's, which each such game asserts in a test.
    /// Default: `None`, and `solve::Solve::solve` runs the generic two-queue solver.
    fn own_solution(&self, _opts: &SolveOptions) -> Option<Result<Solution, SolveError>> {
        None
    }

    /// OPTIONAL. The game's own solver, for writing: its records may be made as they are
    /// written (chess works out its best moves then), which spares the two bytes a slot of
    /// a [`Solution`]. Default: `None`, and `solve::Solve::solve_records` takes
    /// [`Game::own_solution`]'s records, or else the generic solver's. Either way the
    /// bytes are the same.
    fn own_records(
        &self,
        _opts: &SolveOptions,
    ) -> Option<Result<Box<dyn Records + '_>, SolveError>> {
        None
    }

    /// OPTIONAL. Every image of `pos` under the game's symmetries, `pos` included; the
    /// conformance self-test checks that all of them encode alike. Default: just `pos`.
    fn images(&self, pos: &Self::Position) -> Vec<Self::Position> {
        vec![pos.clone()]
    }

    /// OPTIONAL. The code of the first move (in [`Game::successors`] order) whose outcome
    /// satisfies `wanted`, or [`NO_MOVE`]. Solvers use it to pick best moves. Default: from
    /// the full successor list; a game may stop at the first match instead (chess does, as
    /// working out where a move leads is most of the cost).
    fn first_successor(&self, pos: &Self::Position, wanted: &dyn Fn(Outcome) -> bool) -> u8 {
        let mut succ = Vec::new();
        self.successors(pos, &mut succ);
        succ.iter().find(|s| wanted(s.to)).map_or(NO_MOVE, |s| s.mv)
    }

    /// OPTIONAL. What the solver's first pass needs of a non-terminal position: the number
    /// of distinct slots its [`Outcome::Index`] moves lead to, with every other move
    /// ([`Outcome::Known`], [`Outcome::Augmented`]) pushed to `out`. Default: from the full
    /// successor list, sorted and deduplicated; a game that knows when its moves cannot
    /// meet in one slot may skip working out where they lead (chess does, for positions
    /// without symmetry). The self-test compares it with the default.
    fn count_successors(&self, pos: &Self::Position, out: &mut Vec<Successor>) -> usize {
        count_from_successors(self, pos, out)
    }

    /// OPTIONAL. The first damaged block met by the tables the game reads besides its own
    /// (chess sub-tables) since they were opened: a solve that met one must not be
    /// written. Default: none (a game that reads no tables).
    fn damage(&self) -> Option<TableError> {
        None
    }

    /// OPTIONAL. Translate `mv`, a move code stored for `canonical(pos)`, into `pos`'s own
    /// frame. Default: only when `pos` is already canonical; otherwise `None`, and the
    /// prober picks the first of the best moves instead.
    fn move_from_canonical(&self, pos: &Self::Position, mv: u8) -> Option<u8> {
        (self.canonical(pos) == *pos).then_some(mv)
    }

    /// OPTIONAL. The slot of slot `index`'s position with the colours exchanged (the
    /// other side to move), where the two sides are alike (chess: the same pieces on both
    /// sides), so that it holds the same value; `None` where they differ or the slot holds
    /// no position. A compressed table that drops a section reads a dropped slot's value
    /// there, one lookup instead of a search one ply on. Default: `None`.
    fn colour_twin(&self, _index: Index) -> Option<Index> {
        None
    }
}

/// [`Game::count_successors`] from [`Game::successors`]: its default, and what the
/// self-test checks a game's own against.
pub fn count_from_successors<G: Game + ?Sized>(
    game: &G,
    pos: &G::Position,
    out: &mut Vec<Successor>,
) -> usize {
    let mut all = Vec::new();
    game.successors(pos, &mut all);
    let mut targets: Vec<Index> = all
        .iter()
        .filter_map(|s| match s.to {
            Outcome::Index(j) => Some(j),
            _ => None,
        })
        .collect();
    targets.sort_unstable();
    targets.dedup();
    out.extend(
        all.into_iter()
            .filter(|s| !matches!(s.to, Outcome::Index(_))),
    );
    targets.len()
}

/// Why a solve failed.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    #[error("distance {0} plies exceeds the record limit (a win of {max} plies, a loss of {lmax} plies)", max = MAX_WIN_PLIES, lmax = MAX_LOSS_PLIES)]
    TooDeep(u16),
    #[error("cannot start {threads} worker threads: {source}")]
    Threads {
        threads: usize,
        source: rayon::ThreadPoolBuildError,
    },
    #[error("{threads} worker threads asked; the limit is {max}")]
    TooManyThreads { threads: usize, max: usize },
    #[error("{0}")]
    Game(String),
    /// The solver's arrays could not be mapped.
    #[error("cannot get {bytes} bytes of memory for the solver's arrays: {source}")]
    Memory { bytes: u64, source: std::io::Error },
}

/// Why a position typed by a user was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The text does not describe a position of this game.
    #[error("malformed position: {0}")]
    Malformed(String),
    /// A well-formed position that cannot occur.
    #[error("illegal: {0}")]
    Illegal(String),
}
