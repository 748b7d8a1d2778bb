//! A position's value for the side to move ([`Value`]), with its distance in plies, and the
//! index of a slot: what every table, solver and game speaks in. It names nothing else of
//! the engine, so that the modules above it (games, tables, solvers) import it and not one
//! another.

/// Index of a slot in the game's dense index space.
pub type Index = u64;

/// The move byte meaning "no move" (terminal positions, draws without a stored move).
pub const NO_MOVE: u8 = 0;

/// The longest win a record can hold, in plies: 127 moves.
pub const MAX_WIN_PLIES: u16 = 253;
/// The longest loss a record can hold, in plies: 127 moves. The longest 5-piece chess
/// mate, KPPvKP, is a loss of exactly this length for the side to move (254 plies).
pub const MAX_LOSS_PLIES: u16 = 254;

/// The game-theoretic value of a position for the side to move, with its distance in plies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// No position lives in this slot (unused index, or a position that cannot occur).
    Illegal,
    /// Neither side can force a win.
    Draw,
    /// The side to move wins; the number is the plies until the game is won (odd for
    /// alternating games: the winner makes the last move).
    Win(u16),
    /// The side to move loses; the number is the plies it can hold out (0: already lost,
    /// e.g. checkmated).
    Loss(u16),
}

impl Value {
    /// The record's value byte, counting moves (format version 3): 0 illegal, 1 draw,
    /// 1 + m a win in m moves (m = 1..=127, bytes 2..=128), 128 + m a loss in m moves
    /// (m = 1..=127, bytes 129..=255). A win in p plies is m = (p + 1) / 2 moves and a loss
    /// in p plies m = p / 2, which is exact because wins are odd and losses even (the
    /// winner moves last).
    ///
    /// A loss in 0 moves (checkmated, or any terminal loss) shares byte 129 with a loss in
    /// one move; the record's move byte tells them apart, since a terminal position has no
    /// move ([`NO_MOVE`]) and a lost position that is not terminal always stores one (every
    /// move loses, and the slowest is stored). That frees the byte a 127-move loss needs.
    /// Read records with [`Value::from_record`]. Distances beyond the range are clamped
    /// here; solvers refuse them first ([`MAX_WIN_PLIES`], [`MAX_LOSS_PLIES`]).
    #[inline]
    pub fn to_byte(self) -> u8 {
        match self {
            Value::Illegal => 0,
            Value::Draw => 1,
            Value::Win(p) => 1 + p.min(MAX_WIN_PLIES).div_ceil(2).max(1) as u8,
            Value::Loss(p) => 128 + (p.min(MAX_LOSS_PLIES) / 2).max(1) as u8,
        }
    }

    /// The value of a record `[value, move]`; the inverse of [`Value::to_byte`] with the
    /// move byte the record stores. Every pair means something, so this never fails.
    #[inline]
    pub fn from_record(value: u8, mv: u8) -> Value {
        match value {
            0 => Value::Illegal,
            1 => Value::Draw,
            2..=128 => Value::Win(2 * (value as u16 - 1) - 1),
            129 if mv == NO_MOVE => Value::Loss(0),
            _ => Value::Loss(2 * (value as u16 - 128)),
        }
    }

    /// The value in one byte, for solvers and compressed tables, which store no move: the
    /// record's value byte, except that a terminal loss is 0 (a record shares byte 129
    /// between a terminal loss and a loss in one move, and tells them apart by its move
    /// byte). [`Value::Illegal`] shares 0 with the terminal loss: it is for slots whose
    /// legality is known otherwise.
    #[inline]
    pub fn packed(self) -> u8 {
        if self == Value::Loss(0) {
            0
        } else {
            self.to_byte()
        }
    }

    /// Inverse of [`Value::packed`] for legal slots.
    #[inline]
    pub fn from_packed(b: u8) -> Value {
        if b == 0 {
            Value::Loss(0)
        } else {
            // Any move byte but `NO_MOVE`: byte 129 is then a loss in one move.
            Value::from_record(b, 1)
        }
    }

    /// A dense code for every value a record can hold (0 illegal, 1 draw, 2..=128 wins in
    /// 1..=127 moves, 129..=256 losses in 0..=127 moves): the index of the per-section
    /// histograms in a table's header.
    #[inline]
    pub fn code(self) -> u16 {
        match self {
            Value::Loss(p) => 129 + p.min(MAX_LOSS_PLIES) / 2,
            v => v.to_byte() as u16,
        }
    }

    /// Inverse of [`Value::code`]; `None` beyond the last code.
    #[inline]
    pub fn from_code(c: u16) -> Option<Value> {
        match c {
            0..=128 => Some(Value::from_record(c as u8, NO_MOVE)),
            129..=256 => Some(Value::Loss(2 * (c - 129))),
            _ => None,
        }
    }

    /// True if a record can hold this value exactly: a win of an odd number of plies up to
    /// [`MAX_WIN_PLIES`], a loss of an even number up to [`MAX_LOSS_PLIES`].
    #[inline]
    pub fn fits(self) -> bool {
        match self {
            Value::Win(p) => p % 2 == 1 && p <= MAX_WIN_PLIES,
            Value::Loss(p) => p % 2 == 0 && p <= MAX_LOSS_PLIES,
            _ => true,
        }
    }

    /// The better of two values for the side to move (a quicker win, then a slower loss).
    #[inline]
    pub fn better(self, other: Value) -> Value {
        // `move_rank` orders values as the opponent sees them: larger is better for us.
        if other.move_rank() > self.move_rank() {
            other
        } else {
            self
        }
    }

    /// The value of a position for its side to move, given that one move leads to a
    /// position whose value (for the opponent) is `self`.
    #[inline]
    pub fn back(self) -> Value {
        match self {
            Value::Loss(p) => Value::Win(p + 1),
            Value::Win(p) => Value::Loss(p + 1),
            v => v,
        }
    }

    /// The inverse of [`Value::back`]: what the position a move reaches must be worth,
    /// for the opponent, for the mover to have `self` by that move. [`Value::Illegal`]
    /// where no move can (a checkmate, or no position).
    #[inline]
    pub fn ahead(self) -> Value {
        match self {
            Value::Win(p) if p > 0 => Value::Loss(p - 1),
            Value::Loss(p) if p > 0 => Value::Win(p - 1),
            Value::Draw => Value::Draw,
            _ => Value::Illegal,
        }
    }

    /// Sort key of a move leading to a position of value `self` (the opponent's view), for
    /// the side making the move: smaller is better. Quickest win first, then draws, then the
    /// longest resistance.
    #[inline]
    pub fn move_rank(self) -> (u8, u16) {
        match self {
            Value::Loss(p) => (0, p),
            Value::Draw => (1, 0),
            Value::Win(p) => (2, u16::MAX - p),
            Value::Illegal => (3, 0),
        }
    }

    /// What a value counts for when the count restarts before it (a zeroing move under
    /// the 50-move rule): only whether it comes within `limit` plies. A win or loss in time
    /// becomes one at distance 0, a later one one at `limit` (a cursed win, a blessed loss),
    /// so that the move into it is worth 1 or `limit + 1` plies ([`Value::back`]).
    #[inline]
    pub fn restarted(self, limit: u16) -> Value {
        match self {
            Value::Win(p) => Value::Win(if p <= limit { 0 } else { limit }),
            Value::Loss(p) => Value::Loss(if p <= limit { 0 } else { limit }),
            v => v,
        }
    }

    /// True for a win or a loss.
    #[inline]
    pub fn is_decisive(self) -> bool {
        matches!(self, Value::Win(_) | Value::Loss(_))
    }
}
