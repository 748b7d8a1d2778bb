//! k-in-a-row on an m x n board (m,n,k games, tic-tac-toe is 3,3,3): every position of a
//! board of at most 20 cells, solved with value, remoteness in plies and best move.
//!
//! - [`board`]: the [`Board`] type (two bit masks), winning lines, symmetries.
//! - [`index`]: the dense index, reduced by the symmetries, tiered by stone count.
//! - [`tiers`]: the fast tier-by-tier solver (byte-identical to the generic one).
//! - [`notation`]: board strings `x.../.o../....` and cell names `a1`.
//! - [`present`]: probe answers as JSON and words.
//!
//! Rules: X moves first; k or more in a row wins; a full board without a line is a draw.
//! A position is legal iff X has as many stones as O or one more, the side to move has no
//! line, and every line of the player who just moved runs through one common stone of
//! theirs (the game ended with that stone). Move code = cell index + 1.

pub mod board;
pub mod family;
pub mod index;
pub mod notation;
pub mod present;
pub mod tiers;

use retro_engine::game::{
    Game, Index, PositionError, Section, Solution, SolveOptions, Successor, Value,
};
use retro_engine::present::{DistanceUnit, GameText, Presented};
use retro_engine::solve::SolveError;
use retro_engine::table::Table;

pub use board::{Board, Geometry};
use index::DenseIndex;

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
    ix: DenseIndex,
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

    fn legal_me_them(&self, me: u32, them: u32) -> bool {
        !self.ix.geo.has_line(me) && self.ix.geo.line_core(them) != Some(0)
    }
}

impl Game for Mnk {
    type Position = Board;

    fn name(&self) -> String {
        let g = &self.ix.geo;
        family::table_name(g.width, g.height, g.k)
    }

    fn params(&self) -> (&'static str, Vec<(String, i64)>) {
        let g = &self.ix.geo;
        (
            "mnk",
            vec![
                ("width".into(), g.width as i64),
                ("height".into(), g.height as i64),
                ("k".into(), g.k as i64),
            ],
        )
    }

    fn sections(&self) -> Vec<Section> {
        vec![
            Section {
                name: "x".into(),
                len: self.ix.x_len,
            },
            Section {
                name: "o".into(),
                len: self.ix.o_len,
            },
        ]
    }

    fn decode(&self, index: Index) -> Option<Board> {
        let (me, them) = self.ix.slot_me_them(index)?;
        self.legal_me_them(me, them)
            .then(|| Board::from_me_them(me, them))
    }

    fn encode(&self, pos: &Board) -> Index {
        self.ix.slot(pos)
    }

    fn canonical(&self, pos: &Board) -> Board {
        let (me, them) = pos.me_them();
        let (m, t, _) = self.ix.canonical_me_them(me, them);
        Board::from_me_them(m, t)
    }

    fn terminal(&self, pos: &Board) -> Option<Value> {
        let (_, them) = pos.me_them();
        if self.ix.geo.has_line(them) {
            Some(Value::Loss(0))
        } else if (pos.x | pos.o) == self.ix.geo.full {
            Some(Value::Draw)
        } else {
            None
        }
    }

    fn successors(&self, pos: &Board, out: &mut Vec<Successor>) {
        let x_moves = pos.x_to_move();
        let empty = self.ix.geo.full & !(pos.x | pos.o);
        for c in 0..self.ix.geo.cells {
            if empty >> c & 1 == 0 {
                continue;
            }
            let mut child = *pos;
            if x_moves {
                child.x |= 1 << c;
            } else {
                child.o |= 1 << c;
            }
            out.push(Successor {
                mv: (c + 1) as u8,
                to: retro_engine::game::Outcome::Index(self.ix.slot(&child)),
            });
        }
    }

    fn predecessors(&self, pos: &Board, out: &mut Vec<Index>) {
        let (me, them) = pos.me_them();
        let mut t = them;
        while t != 0 {
            let b = t & t.wrapping_neg();
            t ^= b;
            let before = them ^ b;
            if !self.ix.geo.has_line(before) {
                out.push(self.ix.slot(&Board::from_me_them(before, me)));
            }
        }
    }

    fn own_solution(&self, opts: &SolveOptions) -> Option<Result<Solution, SolveError>> {
        Some(tiers::solve(self, opts))
    }

    fn images(&self, pos: &Board) -> Vec<Board> {
        self.orbit(pos)
    }

    fn move_from_canonical(&self, pos: &Board, mv: u8) -> Option<u8> {
        if mv == 0 || mv as u32 > self.ix.geo.cells {
            return None;
        }
        let (me, them) = pos.me_them();
        let (_, _, g) = self.ix.canonical_me_them(me, them);
        Some(self.ix.geo.syms[g].inv[mv as usize - 1] + 1)
    }
}

impl GameText for Mnk {
    fn title(&self) -> String {
        let g = &self.ix.geo;
        format!("{} in a row on a {}x{} board", g.k, g.width, g.height)
    }

    fn parse_position(&self, text: &str) -> Result<Board, PositionError> {
        let b = notation::parse_board(&self.ix.geo, text)?;
        self.check_legal(&b).map_err(PositionError::Illegal)?;
        Ok(b)
    }

    fn position_text(&self, pos: &Board) -> String {
        notation::board_text(&self.ix.geo, pos)
    }

    fn present(&self, pos: &Board, probed: &retro_engine::probe::Probed) -> Presented {
        present::present(self, pos, probed)
    }

    fn distance_unit(&self) -> DistanceUnit {
        DistanceUnit::Plies
    }

    fn summary_lines(&self, table: &Table) -> Vec<String> {
        present::summary_lines(self, table)
    }

    /// Boards alike by the board's symmetries share a slot; how many each stands for
    /// varies (a symmetric board is its own image), so the total is not given here.
    fn stored_as(&self, _stored: u64) -> Option<retro_engine::present::StoredAs> {
        Some(retro_engine::present::StoredAs {
            positions: None,
            words: "one of each group of boards alike by turning or reflecting the board".into(),
        })
    }
}

#[cfg(test)]
mod tests;
