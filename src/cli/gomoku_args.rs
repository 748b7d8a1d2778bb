//! What `retro gomoku prove`, `solve` and `validate` share on the binary's side: the move
//! limit and position arguments, the position header, the list of root moves tried, and
//! running on a given number of threads.

use anyhow::Context;

/// The most stones a board holds (16 by 16, the largest).
pub const MAX_STONES: u32 = MAX_CELLS as u32;
/// The most black moves on a board: black plays every other stone, first.
pub const MAX_BLACK_MOVES: u32 = MAX_STONES.div_ceil(2);

/// The largest strategy file read: the published one is 0.4 MB, and a strategy grown by
/// `solve` to its default 2 million graph nodes is some 200 MB.
pub const STRATEGY_MAX: u64 = 256 << 20;
/// The largest checkpoint read: 2 million graph nodes (the default limit) take some 1 GB.
pub const CHECKPOINT_MAX: u64 = 4 << 30;

use retro::gomoku::rules::board::{Board, Rules, MAX_CELLS};
use retro::gomoku::rules::limit::MoveLimit;
use retro::gomoku::rules::lines::MAX_LINE;
use retro::gomoku::rules::position::Position;

/// The move-limit options shared by `prove`, `solve` and `validate`.
#[derive(Debug, Clone, clap::Args)]
pub struct LimitArgs {
    /// Black's five must come on or before this stone (stones counted from the first move;
    /// black's move m is stone 2m - 1). Default: the strategy file's limit (validate), else
    /// 35 (the published claim: black wins by his 18th move).
    #[arg(long, conflicts_with = "max_black_moves", value_parser = super::whole(1, MAX_STONES))]
    pub max_stones: Option<u32>,
    /// The same limit in black moves (black's five on or before black's move N).
    #[arg(long, alias = "max-moves", value_parser = super::whole(1, MAX_BLACK_MOVES))]
    pub max_black_moves: Option<u32>,
}

impl LimitArgs {
    /// The limit: these options, else `file` (in black moves), else the published claim's 35 stones.
    pub fn limit(&self, file: Option<u32>) -> MoveLimit {
        match (self.max_stones, self.max_black_moves, file) {
            (Some(s), _, _) => MoveLimit::from_stones(s),
            (None, Some(m), _) | (None, None, Some(m)) => MoveLimit::from_black_moves(m),
            (None, None, None) => MoveLimit::default(),
        }
    }
}

/// The position and its question, shared by `prove` and `solve`.
#[derive(Debug, Clone, clap::Args)]
pub struct PositionArgs {
    /// The position: moves black first ("h8 h9 g9"), or a board of rows top first separated
    /// by '/' (x black, o white, . empty).
    pub position: String,
    /// Rules: standard (exactly five wins) or freestyle (five or more).
    #[arg(long, value_enum, default_value_t = RulesArg::Standard)]
    pub rules: RulesArg,
    /// Stones in a row needed to win, 2 to 16 (the longest line of a board).
    #[arg(long, default_value_t = 5, value_parser = super::whole(2, MAX_LINE))]
    pub k: usize,
    #[command(flatten)]
    pub limit: LimitArgs,
}

impl PositionArgs {
    /// The position and the limit (no file: the options, else stone 35); prints the
    /// position's diagram (its last move marked) and the limit. `Err`: a bad position.
    pub fn read(&self) -> anyhow::Result<(Position, MoveLimit)> {
        let pos = Position::parse(&self.position, self.k, self.rules.into())
            .with_context(|| format!("bad position {:?}", self.position))?;
        let limit = self.limit.limit(None);
        let b = &pos.board;
        outln!(
            "position ({} to move, {} stones):\n{}",
            if pos.black_to_move() {
                "black"
            } else {
                "white"
            },
            b.stones(),
            b.diagram(
                &pos.moves
                    .last()
                    .map(|&m| vec![m as usize])
                    .unwrap_or_default()
            )
        )?;
        outln!("limit: {limit}, {} rules", Rules::from(self.rules))?;
        Ok((pos, limit))
    }
}

/// "root moves tried: h7 proven, f10 open" (or "none"): the root's moves and what is known
/// of each, for "not proven".
pub fn tries_line(board: &Board, tries: &[(u16, &str)]) -> String {
    let tries: Vec<String> = tries
        .iter()
        .map(|&(m, what)| format!("{} {what}", board.cell_name(m as usize)))
        .collect();
    format!(
        "root moves tried: {}",
        if tries.is_empty() {
            "none".to_string()
        } else {
            tries.join(", ")
        }
    )
}

/// Runs `f` on `threads` threads (`None`: rayon's global pool, all cores).
pub fn with_threads<T: Send>(
    threads: Option<usize>,
    f: impl FnOnce() -> T + Send,
) -> anyhow::Result<T> {
    Ok(match threads {
        Some(n) => rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .context("cannot start threads")?
            .install(f),
        None => f(),
    })
}

/// `--rules`: gomoku's [`Rules`] as clap reads them (the library has no clap).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RulesArg {
    /// Exactly `k` in a row wins; `k + 1` or more (an overline) does not, for either colour.
    Standard,
    /// `k` or more in a row wins.
    Freestyle,
}

impl From<RulesArg> for Rules {
    fn from(r: RulesArg) -> Rules {
        match r {
            RulesArg::Standard => Rules::Standard,
            RulesArg::Freestyle => Rules::Freestyle,
        }
    }
}
