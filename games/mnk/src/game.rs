//! The game itself: a board's geometry, its k and its dense index, and the checks that set
//! them up. The engine's view of it (`Game`, `GameText`) is in `lib.rs`, on top of the
//! solver and the presentation, which name this file.

use retro_engine::game::{Game, Index, Solution, Value};
use retro_engine::table::Table;

use crate::board::{Board, Geometry};
use crate::index::{self, DenseIndex};

/// The largest board (in cells) with a dense table.
pub const MAX_CELLS: u32 = 20;

/// Why a board cannot be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MnkError {
    #[error("the board needs at least one column and one row (got {width}x{height})")]
    Empty { width: u32, height: u32 },
    #[error("{width}x{height} ({cells} cells) needs {need} for its table; the limit is {max} cells", max = MAX_CELLS)]
    TooLarge {
        width: u32,
        height: u32,
        cells: u64,
        /// The memory the table would need, in words ("about 38 GiB").
        need: String,
    },
    #[error("{}", bad_k_text(*.width, *.height, *.k, *.longest))]
    BadK {
        width: u32,
        height: u32,
        k: u32,
        longest: u32,
    },
}

/// Why `k` does not fit the board, in words that hold for every board (a 1x1 board has no
/// valid k at all, so "2 <= k <= 1" would be nonsense).
fn bad_k_text(width: u32, height: u32, k: u32, longest: u32) -> String {
    if longest < 2 {
        format!("a {width}x{height} board has no row of 2 cells: k-in-a-row needs a board at least 2 cells long (k = {k} asked)")
    } else {
        format!("k = {k} does not fit a {width}x{height} board: k must be between 2 and {longest}, the longest row")
    }
}

/// The k-in-a-row game on one board: parameters are values.
pub struct Mnk {
    pub(crate) ix: DenseIndex,
}

impl std::fmt::Debug for Mnk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Mnk({})", Game::name(self))
    }
}

impl Mnk {
    /// The game on a `width` x `height` board (width columns, height rows), k in a row to
    /// win. Refuses boards of more than [`MAX_CELLS`] cells, saying what they would need.
    pub fn new(width: u32, height: u32, k: u32) -> Result<Mnk, MnkError> {
        if width == 0 || height == 0 {
            return Err(MnkError::Empty { width, height });
        }
        let cells = width as u64 * height as u64;
        if cells > MAX_CELLS as u64 {
            let syms = if width == height { 8 } else { 4 };
            let need = if cells <= 32 {
                let gib = index::estimated_slots(cells as u32, syms) * 2.0 / (1u64 << 30) as f64;
                format!("about {gib:.0} GiB")
            } else {
                "far more than 1 TiB".to_string()
            };
            return Err(MnkError::TooLarge {
                width,
                height,
                cells,
                need,
            });
        }
        let longest = width.max(height);
        if k < 2 || k > longest {
            return Err(MnkError::BadK {
                width,
                height,
                k,
                longest,
            });
        }
        Ok(Mnk {
            ix: DenseIndex::new(Geometry::new(width, height, k)),
        })
    }

    /// Board size, lines and symmetries.
    pub fn geometry(&self) -> &Geometry {
        &self.ix.geo
    }

    /// The dense index (tiers, canonical sets).
    pub fn index(&self) -> &DenseIndex {
        &self.ix
    }

    /// Why `b` cannot occur, or `Ok` if it is a legal position (game over included).
    pub fn check_legal(&self, b: &Board) -> Result<(), String> {
        let g = &self.ix.geo;
        if b.x & b.o != 0 || (b.x | b.o) & !g.full != 0 {
            return Err("stones overlap or lie off the board".into());
        }
        let (nx, no) = (b.x.count_ones(), b.o.count_ones());
        if nx != no && nx != no + 1 {
            return Err(format!(
                "X has {nx} stones and O {no}: X moves first, so X has as many stones as O or one more"
            ));
        }
        let (mover, other) = if nx == no { ("X", "O") } else { ("O", "X") };
        let (me, them) = b.me_them();
        let k = g.k;
        if g.has_line(me) {
            let also = if g.has_line(them) {
                format!(" and {other} has one too")
            } else {
                String::new()
            };
            return Err(format!(
                "{mover} is to move but already has {k} in a row{also}: the game ended before"
            ));
        }
        if g.line_core(them) == Some(0) {
            return Err(format!(
                "{other} has lines of {k} that no single stone completes: the game would have ended earlier"
            ));
        }
        Ok(())
    }

    /// The value of any legal position, in any orientation, for the side to move
    /// ([`Value::Illegal`] for a position that cannot occur), read from a table file.
    pub fn value(&self, table: &Table, b: &Board) -> Value {
        self.value_with(|i| table.value(i), b)
    }

    /// [`Mnk::value`] from a solution in memory (no table file needed).
    pub fn value_in(&self, sol: &Solution, b: &Board) -> Value {
        self.value_with(|i| sol.value(i), b)
    }

    fn value_with(&self, value: impl Fn(Index) -> Value, b: &Board) -> Value {
        if self.check_legal(b).is_err() {
            return Value::Illegal;
        }
        value(self.ix.slot(b))
    }

    /// Calls `f` once per legal position up to symmetry (in its canonical orientation), with
    /// its value for the side to move, in index order. Every legal position of the board is
    /// an image of exactly one of these under [`Mnk::orbit`]. Reads every slot: meant for
    /// small boards (3x3: 765 positions, 4x4: about 1.3 million slots).
    pub fn for_each_position(&self, table: &Table, f: impl FnMut(&Board, Value)) {
        self.for_each_with(|i| table.value(i), f)
    }

    /// [`Mnk::for_each_position`] over a solution in memory.
    pub fn for_each_solved(&self, sol: &Solution, f: impl FnMut(&Board, Value)) {
        self.for_each_with(|i| sol.value(i), f)
    }

    fn for_each_with(&self, value: impl Fn(Index) -> Value, mut f: impl FnMut(&Board, Value)) {
        for i in 0..Game::size(self) {
            let v = value(i);
            if v == Value::Illegal {
                continue;
            }
            if let Some(b) = self.decode(i) {
                f(&b, v);
            }
        }
    }

    /// The distinct images of `b` under the board's symmetries (`b` first).
    pub fn orbit(&self, b: &Board) -> Vec<Board> {
        let mut out: Vec<Board> = Vec::new();
        for (_, im) in self.ix.geo.images(*b) {
            if !out.contains(&im) {
                out.push(im);
            }
        }
        out
    }

    pub(crate) fn legal_me_them(&self, me: u32, them: u32) -> bool {
        !self.ix.geo.has_line(me) && self.ix.geo.line_core(them) != Some(0)
    }
}
