//! The wire types of the Lichess tablebase API, field for field as lila-tablebase writes
//! them (`GET /standard`, `GET /standard/mainline`), plus `fen`, the position as read.
//!
//! Every distance is in plies and signed for the side to move in the position it
//! describes: for a move, the position *after* it, seen by the opponent.

use serde::{Deserialize, Serialize};

/// Query of `GET /standard` and `GET /standard/mainline`. Other parameters (Lichess's
/// `dtc`) are accepted and ignored.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct TablebaseQuery {
    /// The FEN; `_` may stand for a space.
    pub fen: Option<String>,
}

/// Lichess's categories, in Lichess's sort order: a move whose category comes first is
/// better for the side making it (it leaves the opponent lost).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    Loss,
    Unknown,
    SyzygyLoss,
    MaybeLoss,
    BlessedLoss,
    Draw,
    CursedWin,
    MaybeWin,
    SyzygyWin,
    Win,
}

impl Category {
    /// The same result seen by the other side.
    pub fn flip(self) -> Category {
        use Category::*;
        match self {
            Loss => Win,
            Unknown => Unknown,
            SyzygyLoss => SyzygyWin,
            MaybeLoss => MaybeWin,
            BlessedLoss => CursedWin,
            Draw => Draw,
            CursedWin => BlessedLoss,
            MaybeWin => MaybeLoss,
            SyzygyWin => SyzygyLoss,
            Win => Loss,
        }
    }

    /// Some kind of win for the side to move.
    pub fn is_positive(self) -> bool {
        matches!(
            self,
            Category::CursedWin | Category::MaybeWin | Category::SyzygyWin | Category::Win
        )
    }
}

/// What is known of one position (the answer's top level, or the position after a move).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PositionInfo {
    pub checkmate: bool,
    pub stalemate: bool,
    /// Chess variants only: always `false` here.
    pub variant_win: bool,
    pub variant_loss: bool,
    pub insufficient_material: bool,
    /// Distance to zeroing (capture, pawn move or mate) in plies, Syzygy's DTZ; `null`
    /// unless retro knows it exactly (see the module documentation of `lichess`).
    pub dtz: Option<i32>,
    /// The same, never rounded: retro's DTZ is exact whenever it is given.
    pub precise_dtz: Option<i32>,
    /// Distance to mate in plies; `0` for a draw and `null` for a checkmated position, as
    /// Lichess answers (its DTM tables reserve 0 for draws).
    pub dtm: Option<i32>,
    /// Antichess only: always `null`.
    pub dtw: Option<i32>,
    /// Distance to conversion: not in retro's tables, always `null`.
    pub dtc: Option<i32>,
    pub category: Category,
}

/// One legal move and the position it leads to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MoveInfo {
    pub uci: String,
    pub san: String,
    /// A capture or a pawn move: it resets the halfmove clock.
    pub zeroing: bool,
    /// A capture or a promotion: it changes the material.
    pub conversion: bool,
    #[serde(flatten)]
    pub pos: PositionInfo,
}

/// Body of `GET /standard`.
#[derive(Clone, Debug, Serialize)]
pub struct TablebaseResponse {
    /// The position as read, normalised: castling and en-passant fields that change
    /// nothing are dropped, the halfmove clock and move number are kept.
    pub fen: String,
    #[serde(flatten)]
    pub pos: PositionInfo,
    /// Every legal move, best first, ordered as Lichess orders them.
    pub moves: Vec<MoveInfo>,
}

/// One move of a mainline, with what is known of the position after it.
#[derive(Clone, Debug, Serialize)]
pub struct MainlineStep {
    pub uci: String,
    pub san: String,
    pub dtz: Option<i32>,
    pub precise_dtz: Option<i32>,
    pub dtm: Option<i32>,
}

/// Body of `GET /standard/mainline`.
#[derive(Clone, Debug, Serialize)]
pub struct MainlineResponse {
    pub fen: String,
    /// The best move, then the best reply, … until mate, or until the halfmove clock
    /// reaches 100 (a draw may be claimed); empty for a drawn position.
    pub mainline: Vec<MainlineStep>,
    /// `"w"` or `"b"` if the line ends in checkmate, else `null`.
    pub winner: Option<String>,
    pub dtz: Option<i32>,
    pub precise_dtz: Option<i32>,
    pub dtm: Option<i32>,
}
