//! What the solver asks of a game ([`Passes`]), and those passes for any [`Game`] from its
//! moves and un-moves ([`GamePasses`]).

use super::SolveError;
use crate::game::{Game, Index, Outcome, Value, MAX_LOSS_PLIES};
use crate::table::Metric;

/// How a slot starts, before any retrograde pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// No position lives here.
    Illegal,
    /// The value is known already: a terminal position, or one whose every move leaves
    /// the table (no move inside it, none [`Outcome::Augmented`]).
    Final(Value),
    /// Moves inside the table decide.
    Open {
        /// The quickest win through a move out of the table, in plies.
        win: Option<u16>,
        /// A move out of the table holds the draw: the position is never lost.
        keep: bool,
        /// The slowest win for the opponent through a move out of the table, in plies (0:
        /// none): what [`Passes::slowest_exit`] gives for this slot. The solver keeps the
        /// largest of a group's (or of 64 slots'), and asks it of no slot lost there at a
        /// depth past it.
        slowest: u16,
    },
}

/// An [`Outcome::Augmented`] move: from slot `from` to slot `to`, the opponent then also
/// having moves out of the table worth `extra` to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    pub to: Index,
    pub from: Index,
    pub extra: Value,
}

/// The value of a slot of a tier solved before, final ([`Passes::tiers`]), for a move into
/// it: [`Value::Illegal`] if the slot holds no position. Without tiers, no move leads out
/// of the tier and nothing asks it.
pub type Own<'a> = &'a dyn Fn(Index) -> Value;

/// The passes a solve needs from a game, on slot numbers.
pub trait Passes: Sync {
    /// Number of slots.
    fn slots(&self) -> u64;
    /// How slot `i` starts; its [`Outcome::Augmented`] moves go to `links`. A move into
    /// another tier leaves the table: its value is read by `own`.
    fn start(&self, i: Index, own: Own, links: &mut Vec<Link>) -> Result<Start, SolveError>;
    /// True if slot `i` holds a position (asked once per slot, after the solve).
    fn legal(&self, i: Index) -> bool;
    /// Every predecessor of legal slot `i` through a move inside the table that is not
    /// [`Outcome::Augmented`] (a predecessor may come more than once). It may also name
    /// slots that [`Passes::start`] calls [`Start::Illegal`]: the solver ignores them, so
    /// a game need not test the legality of the positions it un-moves to.
    fn predecessors(&self, i: Index, f: impl FnMut(Index));
    /// Calls `ok` with the target of every move of slot `i` that stays inside the table
    /// and is not [`Outcome::Augmented`], until it returns false; false then, else true.
    /// It may also name [`Start::Illegal`] slots, for moves that are not legal (chess: a
    /// move leaving the mover's king attacked reaches a slot with the side to move able
    /// to take that king): `ok` accepts them, so a game need not test its moves'
    /// legality.
    fn targets(&self, i: Index, ok: impl FnMut(Index) -> bool) -> bool;
    /// The slowest win for the opponent, in plies, among the moves of slot `i` that leave
    /// the table or its tier (0 if none; those into another tier read by `own`): what
    /// [`Start::Open`]'s `slowest` gives. Asked at most once per lost position, whose
    /// every such move is a win for the opponent, and not where the largest `slowest` of
    /// its group shows that its moves inside decide the depth.
    fn slowest_exit(&self, i: Index, own: Own) -> u16;
    /// The code of the first move of legal slot `i`, in the game's move order, for which
    /// `wanted` holds ([`NO_MOVE`](crate::game::NO_MOVE) if none): the best move, once
    /// the values are known.
    fn first_move(&self, i: Index, wanted: impl Fn(Outcome) -> bool) -> u8;

    /// OPTIONAL. The longest a move out of the table can take, in plies, to the end (a
    /// win or loss in a sub-table): a bound on every [`Passes::slowest_exit`], which the
    /// solver no longer asks once its depth is past it. Default: as long as a record
    /// holds. Below 252 (126 with [`Metric::Dtz`]), no position of the table can be won in
    /// 253 plies (127) before the solve gets that deep, and the solver keeps its never-lost
    /// mark in that value's byte meanwhile, not in a bit of its own; below 253, its
    /// candidates for a loss in the byte of a loss in 254 plies likewise (with
    /// [`Metric::Dtz`] they have a byte of their own).
    fn deepest_exit(&self) -> u16 {
        MAX_LOSS_PLIES
    }

    /// OPTIONAL. What the values count (default [`Metric::Dtm`]: wins of an odd number of
    /// plies, losses of an even one, and a best move in every record). With
    /// [`Metric::Dtz`], a move may be worth any number of plies (a move out of the table
    /// into a zeroing move's result: 1 or 101): the solver keeps wins and losses of either
    /// parity up to 127 plies ([`SolveError::TooDeep`] beyond) and its records are DTZ
    /// codes, without a best move ([`Passes::first_move`] is not asked).
    fn metric(&self) -> Metric {
        Metric::Dtm
    }

    /// OPTIONAL. How many tiers the slots fall into (default 1). A game whose moves may
    /// restart the count ([`Metric::Dtz`]: chess's pawn moves, which zero) is solved a
    /// tier at a time, highest first: a move into another tier must lead to a higher one,
    /// whose values are final by then, and counts as a move out of the table
    /// ([`Passes::start`] and [`Passes::slowest_exit`] read its value). The predecessors
    /// and the forward checks' targets must then stay in the slot's tier (chess: no pawn
    /// moves; [`check_group_passes`](super::check_group_passes) checks it).
    fn tiers(&self) -> u8 {
        1
    }

    /// OPTIONAL. The tier of slot `i`, below [`Passes::tiers`] (default 0); any tier for
    /// a slot that holds no position.
    fn tier(&self, _i: Index) -> u8 {
        0
    }

    /// OPTIONAL. The slots of tier `t` ([`Passes::tier`]) among the `len` of the group at
    /// `first`, as a mask (bit `b`: slot `first + b`); asked for each tier, as it starts,
    /// when there are tiers. Default: slot by slot.
    fn group_tier(&self, first: Index, len: usize, t: u8) -> u64 {
        (0..len as Index)
            .filter(|&b| self.tier(first + b) == t)
            .fold(0, |m, b| m | 1 << b)
    }

    /// OPTIONAL. How many consecutive slots make a group, at most 64 (default 1): the
    /// solver hands the passes below a group's first slot (a multiple of this) and a mask
    /// of its slots (bit `b`: slot `first + b`), so that work shared by a group's slots is
    /// done once. Chess: the squares of the last piece, the other pieces standing still.
    fn group(&self) -> usize {
        1
    }

    /// OPTIONAL. How each slot `first + b` of `mask` in the group at `first` starts
    /// ([`Passes::start`]), given to `out(b, start)` in order of `b`; their
    /// [`Outcome::Augmented`] moves go to `links`. Default: slot by slot.
    fn group_start(
        &self,
        first: Index,
        mask: u64,
        own: Own,
        links: &mut Vec<Link>,
        mut out: impl FnMut(Index, Start),
    ) -> Result<(), SolveError> {
        for b in bits(mask) {
            out(b, self.start(first + b, own, links)?);
        }
        Ok(())
    }

    /// OPTIONAL. [`Passes::predecessors`] of every slot of `mask` in the group at
    /// `first`, as sets of slots: `f(q, m)` names the slots `q + b` for each bit `b` of
    /// `m`. Default: slot by slot.
    fn group_predecessors(&self, first: Index, mask: u64, mut f: impl FnMut(Index, u64)) {
        for b in bits(mask) {
            self.predecessors(first + b, |p| f(p, 1));
        }
    }

    /// OPTIONAL. The best move ([`Passes::first_move`]) of every slot `first + b` of
    /// `mask` in the group at `first`, given to `out(b, code)`, the values known:
    /// `values.value(q)` is slot `q`'s ([`Value::Illegal`] for a slot holding no position,
    /// which no legal move reaches). The best move is the first move, in the game's move
    /// order, into a position whose value, seen from the mover ([`Value::back`]), is the
    /// slot's own. Default: slot by slot.
    fn group_first_moves(
        &self,
        first: Index,
        mask: u64,
        values: &impl Values,
        mut out: impl FnMut(Index, u8),
    ) {
        let value = |q: Index| values.value(q);
        for b in bits(mask) {
            let own = value(first + b);
            out(
                b,
                self.first_move(first + b, |to| to.value(value).back() == own),
            );
        }
    }

    /// OPTIONAL. Slots that [`Passes::group_first_moves`] of the group at `first` will
    /// read, given to `out` (each standing for its cache line, and the 63 bytes after it):
    /// the records' pass asks one group ahead and fetches them into the cache while it
    /// works on the group before, since those reads land far apart in the table and
    /// would otherwise each wait on memory. Only a hint: naming too few or too many
    /// changes no record. Default: none.
    fn group_reads(&self, _first: Index, _out: impl FnMut(Index)) {}

    /// OPTIONAL. The slots of `mask` in the group at `first` (open, not illegal) that have
    /// a legal move inside the table (the tier), moves out of it and links aside. `Some`
    /// lets the solver note a proposed candidate by its group alone, not mark it in its
    /// value byte, a read and a write at random a proposal; it then checks every unknown
    /// slot of a proposed group, and a slot the start left open with no move (a
    /// stalemate) would pass a check with nothing to refute: this is asked of the slots
    /// about to be lost. For groups of more than one slot; the solver asks it once with an
    /// empty mask to learn whether it is given. Default: `None`, each candidate marked.
    fn group_movable(&self, _first: Index, _mask: u64) -> Option<u64> {
        None
    }

    /// OPTIONAL. The slots of `mask` in the group at `first` that have a move inside the
    /// table (as [`Passes::targets`] gives them) into a slot that `ok` does not accept:
    /// `ok(q, m)` returns the bits of `m` whose slots `q + b` it accepts. Default: slot by
    /// slot, each stopping at its first refusal.
    fn group_refuted(&self, first: Index, mask: u64, mut ok: impl FnMut(Index, u64) -> u64) -> u64 {
        let mut refuted = 0;
        for b in bits(mask) {
            if !self.targets(first + b, |q| ok(q, 1) == 1) {
                refuted |= 1 << b;
            }
        }
        refuted
    }
}

/// The mask of the first `len` slots of a group (`len` at most 64).
#[inline]
pub fn first_slots(len: usize) -> u64 {
    if len >= 64 {
        !0
    } else {
        (1u64 << len) - 1
    }
}

/// The bits set in `m`, lowest first, as slot offsets.
#[inline]
pub fn bits(mut m: u64) -> impl Iterator<Item = Index> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let b = m.trailing_zeros() as Index;
            m &= m - 1;
            b
        })
    })
}

/// How a legal, non-terminal slot `i` starts, from whether it has a move inside the table
/// and where its other moves lead (`exits`: [`Outcome::Known`] and
/// [`Outcome::Augmented`], which go to `links`).
pub fn start_from(
    i: Index,
    inside: bool,
    exits: &[Outcome],
    links: &mut Vec<Link>,
) -> Result<Start, SolveError> {
    let (mut win, mut keep, mut slowest) = (None::<u16>, false, None::<u16>);
    let before = links.len();
    for &to in exits {
        match to {
            Outcome::Index(_) => {}
            Outcome::Augmented { index, extra } => links.push(Link {
                to: index,
                from: i,
                extra,
            }),
            Outcome::Known(Value::Loss(l)) => win = Some(win.map_or(l + 1, |w| w.min(l + 1))),
            Outcome::Known(Value::Win(w)) => slowest = slowest.max(Some(w)),
            Outcome::Known(_) => keep = true,
            Outcome::Restart { .. } => {
                return Err(SolveError::Game(format!(
                "position {i} has a move that restarts the count: that needs tiers (Passes::tiers) or the restarting solver"
            )))
            }
        }
    }
    if !inside && links.len() == before {
        // Every move leaves the table (or there is none: a draw).
        return Ok(Start::Final(match (win, keep, slowest) {
            (Some(w), _, _) => Value::Win(w),
            (None, false, Some(s)) => Value::Loss(s + 1),
            _ => Value::Draw,
        }));
    }
    Ok(Start::Open {
        win,
        keep,
        slowest: slowest.unwrap_or(0),
    })
}

/// [`Passes`] for any [`Game`], from its positions, moves and un-moves.
pub struct GamePasses<'g, G>(pub &'g G);

impl<G: Game> Passes for GamePasses<'_, G> {
    fn slots(&self) -> u64 {
        self.0.size()
    }

    fn start(&self, i: Index, _own: Own, links: &mut Vec<Link>) -> Result<Start, SolveError> {
        let Some(pos) = self.0.decode(i) else {
            return Ok(Start::Illegal);
        };
        if let Some(v) = self.0.terminal(&pos) {
            return Ok(Start::Final(v));
        }
        let mut succ = Vec::new();
        let inside = self.0.count_successors(&pos, &mut succ);
        let exits: Vec<Outcome> = succ.iter().map(|s| s.to).collect();
        start_from(i, inside > 0, &exits, links)
    }

    fn legal(&self, i: Index) -> bool {
        self.0.decode(i).is_some()
    }

    fn predecessors(&self, i: Index, mut f: impl FnMut(Index)) {
        let pos = self.0.decode(i).expect("solved slots decode");
        let mut preds = Vec::new();
        self.0.predecessors(&pos, &mut preds);
        preds.into_iter().for_each(&mut f);
    }

    fn targets(&self, i: Index, mut ok: impl FnMut(Index) -> bool) -> bool {
        let pos = self.0.decode(i).expect("candidates decode");
        let mut succ = Vec::new();
        self.0.successors(&pos, &mut succ);
        succ.iter().all(|s| match s.to {
            Outcome::Index(q) => ok(q),
            _ => true,
        })
    }

    fn first_move(&self, i: Index, wanted: impl Fn(Outcome) -> bool) -> u8 {
        let pos = self.0.decode(i).expect("legal slots decode");
        self.0.first_successor(&pos, &wanted)
    }

    fn slowest_exit(&self, i: Index, _own: Own) -> u16 {
        let pos = self.0.decode(i).expect("lost slots decode");
        let mut succ = Vec::new();
        self.0.successors(&pos, &mut succ);
        succ.iter()
            .filter_map(|s| match s.to {
                Outcome::Known(Value::Win(w)) => Some(w),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }
}

/// What the best-move pass reads ([`Passes::group_first_moves`]): the solved values, and
/// where the solver keeps them as bytes, those bytes a line at a time, so that a move
/// taking a whole group to another is settled for all its slots with a few word
/// operations.
pub trait Values {
    /// REQUIRED. Slot `q`'s value ([`Value::Illegal`] for a slot holding no position).
    fn value(&self, q: Index) -> Value;

    /// OPTIONAL. The codes of slots `q..q + out.len()` (at most 64, inside the table)
    /// into `out`, each slot's the [`Values::code`] of its value; false if there are none,
    /// and the caller then reads [`Values::value`]. Default: false.
    fn codes(&self, _q: Index, _out: &mut [u8]) -> bool {
        false
    }

    /// OPTIONAL. The code of value `v` in [`Values::codes`], one code a value the table
    /// holds, [`Value::Illegal`]'s included. Only asked where [`Values::codes`] gives
    /// codes. Default: 0.
    fn code(&self, _v: Value) -> u8 {
        0
    }

    /// OPTIONAL. The value of code `c` of [`Values::codes`], the inverse of
    /// [`Values::code`]. Only asked where [`Values::codes`] gives codes. Default:
    /// [`Value::Illegal`].
    fn code_value(&self, _c: u8) -> Value {
        Value::Illegal
    }

    /// PROVIDED. The code of the value that a move from a slot of code `c` must reach to
    /// achieve its value ([`Value::ahead`]): what the best-move pass looks for, asked of
    /// every slot. Only asked where [`Values::codes`] gives codes.
    fn ahead_code(&self, c: u8) -> u8 {
        self.code(self.code_value(c).ahead())
    }
}

impl<F: Fn(Index) -> Value> Values for F {
    fn value(&self, q: Index) -> Value {
        self(q)
    }
}
