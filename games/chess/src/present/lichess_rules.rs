//! From retro's value (win or loss in so many plies to mate, or draw) to Lichess's fields:
//! DTZ where it is exact, DTM in Lichess's convention, the category under the 50-move
//! rule, insufficient material, and Lichess's move order.
//!
//! **DTZ.** Syzygy's DTZ counts the plies to the next zeroing move (capture or pawn
//! move; mate counts as one), the winner hurrying and the loser delaying. retro's tables
//! hold distance to mate, so DTZ is given only where it follows from that exactly:
//! - a draw: 0; a checkmated position: -1 (Syzygy's value); a mate in one: 1;
//! - the winner has no pawn and one piece or two minor pieces, the loser a bare king. No
//!   zeroing move but the mate can occur on a winning line: a pawn move needs a pawn, and a
//!   capture by the lone king would leave at most one minor piece, a draw, which the
//!   winner never allows. So the next zeroing move *is* the mate, and DTZ = DTM (up to 100
//!   plies; beyond, Syzygy would count a cursed win differently);
//! - from the moves of the position asked about (not of the positions after its moves):
//!   1 for a win with a zeroing move to a mate within 100 plies (the clock restarts and
//!   the mate comes before any claim: the win is kept by zeroing now), and -1 for a loss
//!   within 100 plies whose every move is zeroing.
//!
//! Everywhere else a capture or pawn move may come before the mate, and DTZ is `null`.
//!
//! **Category.** With `h` the position's halfmove clock and `d` its distance to mate in
//! plies: if `d + h ≤ 100`, the winner mates before a draw can be claimed whatever the
//! loser does (a zeroing move on the way only resets the clock), so it is `win`/`loss`
//! even where DTZ is unknown. Otherwise, where DTZ is exact, Syzygy's rule: `win`/`loss` if
//! `|dtz| + h ≤ 100`, else `cursed-win`/`blessed-loss` (the win cannot be forced in time);
//! where it is not, `maybe-win`/`maybe-loss` (a win, but whether it survives the 50-move
//! rule depends on zeroing moves retro does not track: Lichess's meaning of `maybe`). As
//! in lila-tablebase, a position reached when the clock before it was already 100 or more
//! is `cursed-win`/`blessed-loss`, a checkmate `loss` (or `blessed-loss` then), and the
//! top-level category is the first move's, turned around.

use super::lichess_types::{Category, PositionInfo};
use crate::rules::material::{Color, Role};
use crate::rules::moves::{en_passant_after, make, terminal, Move};
use crate::rules::position::Clock;
use crate::Position;
use retro_engine::game::Value;

/// Squares of each colour, for bishops.
const LIGHT: u64 = 0x55aa_55aa_55aa_55aa;

/// The facts of one position that its Lichess fields are made from.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// retro's value for the side to move.
    pub value: Value,
    /// Syzygy's DTZ where it is known exactly ([`dtz`], [`dtz_from_moves`]).
    pub dtz: Option<i32>,
    /// The position's halfmove clock.
    pub halfmoves: u32,
    /// The clock of the position before it (lila-tablebase uses it to tell a win that
    /// could already have been drawn by a claim).
    pub halfmoves_before: u32,
    pub checkmate: bool,
    pub stalemate: bool,
    pub insufficient_material: bool,
}

/// True if, in `pos` of value `value`, no zeroing move but the mate can happen on the way
/// to mate (see the module documentation), so that DTZ is DTM.
pub fn dtz_is_dtm(pos: &Position, value: Value) -> bool {
    let winner = match value {
        Value::Win(_) => pos.turn,
        Value::Loss(_) => pos.turn.other(),
        _ => return false,
    };
    let loser = winner.other();
    let lone_king = pos.colors[loser as usize] == pos.pieces(loser, Role::King);
    // Counted on the bitboards: every move of every answer asks it.
    let pieces = pos.colors[winner as usize] & !pos.pieces(winner, Role::King);
    let minors = pos.pieces(winner, Role::Knight) | pos.pieces(winner, Role::Bishop);
    lone_king
        && match pieces.count_ones() {
            1 => pos.pieces(winner, Role::Pawn) == 0,
            2 => pieces == minors,
            _ => false,
        }
}

/// Syzygy's DTZ where it follows from the value alone, else `None`.
pub fn dtz(value: Value, dtz_is_dtm: bool) -> Option<i32> {
    match value {
        Value::Draw => Some(0),
        Value::Loss(0) => Some(-1),
        Value::Win(1) => Some(1),
        Value::Win(d) if dtz_is_dtm && d <= 100 => Some(d as i32),
        Value::Loss(d) if dtz_is_dtm && d <= 100 => Some(-(d as i32)),
        _ => None,
    }
}

/// Syzygy's DTZ of a position worth `value` from its legal moves, each `(zeroing, the
/// value it leads to)`, where they settle it (see the module documentation).
pub fn dtz_from_moves(value: Value, moves: &[(bool, Value)]) -> Option<i32> {
    match value {
        Value::Win(_) => moves
            .iter()
            .any(|&(z, v)| z && matches!(v, Value::Loss(d) if d <= 100))
            .then_some(1),
        Value::Loss(d) if d <= 100 => {
            (!moves.is_empty() && moves.iter().all(|m| m.0)).then_some(-1)
        }
        _ => None,
    }
}

/// DTM as Lichess gives it: plies, signed; 0 for a draw, `None` once checkmated.
pub fn dtm(value: Value) -> Option<i32> {
    match value {
        Value::Draw => Some(0),
        Value::Win(d) => Some(d as i32),
        Value::Loss(0) | Value::Illegal => None,
        Value::Loss(d) => Some(-(d as i32)),
    }
}

/// The category (see the module documentation).
pub fn category(f: &Facts) -> Category {
    let claimable_before = f.halfmoves_before >= 100;
    let in_time = |plies: u64| plies + u64::from(f.halfmoves) <= 100;
    match f.value {
        Value::Illegal => Category::Unknown,
        _ if f.stalemate || f.insufficient_material => Category::Draw,
        Value::Draw => Category::Draw,
        Value::Loss(0) if claimable_before => Category::BlessedLoss,
        Value::Loss(0) => Category::Loss,
        Value::Win(_) if claimable_before => Category::CursedWin,
        Value::Loss(_) if claimable_before => Category::BlessedLoss,
        Value::Win(d) if in_time(d.into()) => Category::Win,
        Value::Loss(d) if in_time(d.into()) => Category::Loss,
        Value::Win(_) => match f.dtz {
            Some(z) if in_time(z.unsigned_abs().into()) => Category::Win,
            Some(_) => Category::CursedWin,
            None => Category::MaybeWin,
        },
        Value::Loss(_) => match f.dtz {
            Some(z) if in_time(z.unsigned_abs().into()) => Category::Loss,
            Some(_) => Category::BlessedLoss,
            None => Category::MaybeLoss,
        },
    }
}

/// Every Lichess field of a position.
pub fn position_info(f: &Facts) -> PositionInfo {
    let dtz = f.dtz;
    PositionInfo {
        checkmate: f.checkmate,
        stalemate: f.stalemate,
        variant_win: false,
        variant_loss: false,
        insufficient_material: f.insufficient_material,
        dtz,
        precise_dtz: dtz,
        dtm: dtm(f.value),
        dtw: None,
        dtc: None,
        category: category(f),
    }
}

/// Neither side can mate by any series of legal moves (the rule Lichess applies, from
/// shakmaty): each side has at most a king and a lone knight, or only bishops all on
/// squares of one colour, with nothing on the board that would let it mate itself.
pub fn insufficient_material(pos: &Position) -> bool {
    [Color::White, Color::Black]
        .into_iter()
        .all(|c| side_insufficient(pos, c))
}

fn side_insufficient(pos: &Position, c: Color) -> bool {
    let ours = pos.colors[c as usize];
    let theirs = pos.colors[c.other() as usize];
    let heavy = pos.roles[Role::Pawn as usize]
        | pos.roles[Role::Rook as usize]
        | pos.roles[Role::Queen as usize];
    if ours & heavy != 0 {
        return false;
    }
    let knights = pos.roles[Role::Knight as usize];
    let bishops = pos.roles[Role::Bishop as usize];
    if ours & knights != 0 {
        // A lone knight, and the opponent has nothing to block its own king with.
        let others = theirs & !pos.roles[Role::King as usize] & !pos.roles[Role::Queen as usize];
        return ours.count_ones() <= 2 && others == 0;
    }
    if ours & bishops != 0 {
        let one_colour = bishops & LIGHT == 0 || bishops & !LIGHT == 0;
        return one_colour && knights == 0 && pos.roles[Role::Pawn as usize] == 0;
    }
    true
}

/// The clock after a move: 0 after a zeroing move.
pub fn halfmoves_after(zeroing: bool, before: u32) -> u32 {
    if zeroing {
        0
    } else {
        before.saturating_add(1)
    }
}

/// lila-tablebase's move order key, smaller first, of a move leading to `p` (a
/// `conversion` changes the material, a `zeroing` move resets the clock): category;
/// mate, then stalemate and insufficient material; DTM (quickest mate, …, draws, …,
/// longest resistance); when winning, conversions and zeroing moves first (last when
/// losing); DTZ, larger first; then the larger capture and promotion. Packed into one
/// number, its fields from the most significant down, as every answer ranks every move.
pub fn sort_key(
    p: &PositionInfo,
    conversion: bool,
    zeroing: bool,
    capture: Option<Role>,
    promotion: Option<Role>,
) -> u64 {
    let losing = !p.category.is_positive();
    // A larger role first, none last.
    let larger = |r: Option<Role>| r.map_or(7, |r| 5 - r as u64);
    // DTZ larger first (as `Reverse(dtz)`), none last.
    let dtz = p.dtz.map_or(0xFFFF, |d| {
        0xFFFE - (d.clamp(-0x7FFF, 0x7FFF) + 0x7FFF) as u64
    });
    // `(value, bits)`: 49 bits in all.
    let fields = [
        (p.category as u64, 4),
        (!p.checkmate as u64, 1),
        (!p.stalemate as u64, 1),
        (!p.insufficient_material as u64, 1),
        (tightening(p.dtm), 17),
        ((conversion ^ losing) as u64, 1),
        ((zeroing ^ losing) as u64, 1),
        (dtz, 16),
        (larger(capture), 3),
        (larger(promotion), 3),
    ];
    fields.iter().fold(0, |key, &(v, bits)| (key << bits) | v)
}

/// Lichess's order of a signed distance: -1, -2, …, then none and 0, then …, 2, 1 (as a
/// number of 17 bits).
fn tightening(metric: Option<i32>) -> u64 {
    match metric {
        Some(m) if m < 0 => u64::from(m.unsigned_abs().min(0xFFFF)),
        Some(m) if m > 0 => 0x10000 + (0x10000 - u64::from(m.unsigned_abs().min(0xFFFF))),
        _ => 0x10000,
    }
}

/// The category under the 50-move rule of `pos`, worth `value` for its side to move (its
/// distance to mate, or its DTZ value where only that is known), whose DTZ value is `dtz`,
/// with the clock `pos` carries: `/standard`'s rule ([`category`]),
/// so that every route says the same. With the clock at zero it is
/// [`super::dtz::category`]`(dtz)`.
pub fn category_at(pos: &Position, value: Value, dtz: Value) -> &'static str {
    let h = pos.clock.halfmove;
    let facts = Facts {
        value,
        dtz: signed(dtz),
        halfmoves: h,
        halfmoves_before: h.saturating_sub(1),
        checkmate: value == Value::Loss(0),
        stalemate: dtz == Value::Draw && crate::rules::moves::terminal(pos) == Some(Value::Draw),
        insufficient_material: false,
    };
    match category(&facts) {
        Category::Win | Category::SyzygyWin | Category::MaybeWin => "win",
        Category::CursedWin => "cursed-win",
        Category::Draw => "draw",
        Category::BlessedLoss => "blessed-loss",
        Category::Loss | Category::SyzygyLoss | Category::MaybeLoss => "loss",
        Category::Unknown => "unknown",
    }
}

/// DTZ in plies, signed for the side to move (0 for a draw), as Syzygy gives it: a
/// checkmated side has -1.
pub fn signed(v: Value) -> Option<i32> {
    match v {
        Value::Loss(0) => Some(-1),
        Value::Win(p) => Some(p as i32),
        Value::Loss(p) => Some(-(p as i32)),
        Value::Draw => Some(0),
        Value::Illegal => None,
    }
}

/// Lichess's order of the legal moves `legal` of `pos` (indices into `legal`, best first),
/// from the value each leads to (for the opponent, as [`retro_engine::probe::Probed`]
/// gives it) and the DTZ value of where it leads, where a DTZ table gives one. The one
/// order of every answer: `/standard`, and the chess answers of `retro probe` and
/// `/api/probe` ([`super::present`]), whose best move is its first.
pub fn move_order(
    pos: &Position,
    legal: &[Move],
    values: &[Value],
    dtz_after: &[Option<Value>],
) -> Vec<usize> {
    ranked(pos, legal, None, values, dtz_after)
        .into_iter()
        .map(|(k, _)| k)
        .collect()
}

/// Each legal move's index and the Lichess fields of where it leads, in Lichess's order;
/// `afters`, the positions the moves reach, where they are at hand.
pub(crate) fn ranked(
    pos: &Position,
    legal: &[Move],
    afters: Option<&[Position]>,
    values: &[Value],
    dtz_after: &[Option<Value>],
) -> Vec<(usize, PositionInfo)> {
    let h = pos.clock.halfmove;
    // The fields read the position reached for its material and side to move alone, but
    // for a draw (stalemate or not): a move that keeps the material stands in as `pos`
    // with the other side to move, without the move made (every answer ranks every move).
    let mut same = *pos;
    same.turn = pos.turn.other();
    let mut moves: Vec<(u64, usize, PositionInfo)> = legal
        .iter()
        .enumerate()
        .map(|(k, m)| {
            let dtz = dtz_after.get(k).copied().flatten();
            let v = values[k];
            let info = match afters {
                Some(a) => info(&a[k], v, a[k].clock.halfmove, h, dtz, None),
                None if m.converts() || v == Value::Draw => {
                    let a = after(pos, m);
                    info(&a, v, a.clock.halfmove, h, dtz, None)
                }
                None => info(&same, v, halfmoves_after(zeroing(m), h), h, dtz, None),
            };
            let key = sort_key(&info, m.converts(), zeroing(m), m.capture, m.promotion);
            (key, k, info)
        })
        .collect();
    // Stable: equal moves keep retro's move order.
    moves.sort_by_key(|e| e.0);
    moves.into_iter().map(|(_, k, info)| (k, info)).collect()
}

/// The Lichess fields of `pos`, worth `value`, with clock `h` (and `before` before it);
/// `table` is its value in a DTZ table, if one is served, and `from_moves` what its moves
/// say of DTZ, if they were looked at.
pub(crate) fn info(
    pos: &Position,
    value: Value,
    h: u32,
    before: u32,
    table: Option<Value>,
    from_moves: Option<i32>,
) -> PositionInfo {
    position_info(&Facts {
        value,
        dtz: table
            .and_then(signed)
            .or_else(|| dtz(value, dtz_is_dtm(pos, value)))
            .or(from_moves),
        halfmoves: h,
        halfmoves_before: before,
        checkmate: value == Value::Loss(0),
        stalemate: value == Value::Draw && terminal(pos) == Some(Value::Draw),
        insufficient_material: insufficient_material(pos),
    })
}

/// A capture or a pawn move: it resets the halfmove clock.
pub(crate) fn zeroing(m: &Move) -> bool {
    m.capture.is_some() || m.role == Role::Pawn
}

/// The position after `m`, with its clocks, and the en-passant square if the opponent
/// can take en passant (so its moves and its value count the capture).
pub(crate) fn after(pos: &Position, m: &Move) -> Position {
    let mut a = make(pos, m);
    if !en_passant_after(&a, m).is_empty() {
        a.ep = Some((m.from + m.to) / 2);
    }
    a.clock = Clock {
        halfmove: halfmoves_after(zeroing(m), pos.clock.halfmove),
        fullmove: pos
            .clock
            .fullmove
            .saturating_add((pos.turn == Color::Black) as u32),
    };
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::fen::parse;

    fn facts(value: Value, exact: bool, h: u32, before: u32) -> Facts {
        Facts {
            value,
            dtz: dtz(value, exact),
            halfmoves: h,
            halfmoves_before: before,
            checkmate: value == Value::Loss(0),
            stalemate: false,
            insufficient_material: false,
        }
    }

    #[test]
    fn dtz_only_where_no_zeroing_move_can_come_first() {
        let win = Value::Win(19);
        // KQvK, KBNvK, KNNvK: exact. KRRvK (a rook may be taken and the win goes on),
        // KPvK (pawn moves), KQvKR (captures): not.
        for (fen, exact) in [
            ("8/8/8/4k3/8/8/8/KQ6 w - - 0 1", true),
            ("8/8/8/4k3/8/8/8/KBN5 w - - 0 1", true),
            ("8/8/8/4k3/8/8/8/KNN5 w - - 0 1", true),
            ("8/8/8/4k3/8/8/8/KRR5 w - - 0 1", false),
            ("8/8/8/4k3/8/8/P7/K7 w - - 0 1", false),
            ("8/8/8/4k3/8/8/r7/KQ6 w - - 0 1", false),
        ] {
            assert_eq!(dtz_is_dtm(&parse(fen).unwrap(), win), exact, "{fen}");
        }
        // The loser is the side with the queen's opponent: black to move loses.
        let b = parse("8/8/8/4k3/8/8/8/KQ6 b - - 0 1").unwrap();
        assert!(dtz_is_dtm(&b, Value::Loss(18)));
        assert!(
            !dtz_is_dtm(&b, Value::Win(19)),
            "black has nothing to win with"
        );
        assert!(!dtz_is_dtm(&b, Value::Draw));
        assert_eq!(dtz(Value::Win(19), true), Some(19));
        assert_eq!(dtz(Value::Loss(18), true), Some(-18));
        assert_eq!(dtz(Value::Win(19), false), None);
        assert_eq!(dtz(Value::Loss(18), false), None);
        assert_eq!(
            dtz(Value::Win(1), false),
            Some(1),
            "mate in one zeroes at once"
        );
        assert_eq!(dtz(Value::Loss(0), false), Some(-1), "Syzygy's checkmate");
        assert_eq!(dtz(Value::Draw, false), Some(0));
        assert_eq!(
            dtz(Value::Win(101), true),
            None,
            "Syzygy's cursed-win numbering"
        );
        // From the moves: a zeroing move to a mate within 100 plies, or only zeroing moves.
        let quiet_win = (false, Value::Loss(10));
        assert_eq!(
            dtz_from_moves(Value::Win(11), &[quiet_win, (true, Value::Loss(40))]),
            Some(1)
        );
        assert_eq!(
            dtz_from_moves(Value::Win(11), &[quiet_win, (true, Value::Loss(102))]),
            None
        );
        assert_eq!(
            dtz_from_moves(Value::Win(11), &[quiet_win, (true, Value::Draw)]),
            None
        );
        assert_eq!(
            dtz_from_moves(Value::Loss(12), &[(true, Value::Win(11))]),
            Some(-1)
        );
        assert_eq!(
            dtz_from_moves(
                Value::Loss(12),
                &[(true, Value::Win(11)), (false, Value::Win(3))]
            ),
            None
        );
    }

    #[test]
    fn dtm_in_lichess_convention() {
        assert_eq!(dtm(Value::Win(17)), Some(17));
        assert_eq!(dtm(Value::Loss(16)), Some(-16));
        assert_eq!(dtm(Value::Draw), Some(0));
        assert_eq!(dtm(Value::Loss(0)), None);
    }

    #[test]
    fn category_follows_the_clock() {
        use Category::*;
        let c = |v, exact, h, before| category(&facts(v, exact, h, before));
        // Mate comes by ply 100 whatever DTZ is: a sure win.
        assert_eq!(c(Value::Win(31), false, 69, 68), Win);
        assert_eq!(c(Value::Win(31), true, 69, 68), Win);
        assert_eq!(c(Value::Loss(30), false, 70, 69), Loss);
        // Too late: exact DTZ says the draw can be claimed first; unknown DTZ says maybe.
        assert_eq!(c(Value::Win(31), true, 70, 69), CursedWin);
        assert_eq!(c(Value::Loss(30), true, 71, 70), BlessedLoss);
        assert_eq!(c(Value::Win(31), false, 70, 69), MaybeWin);
        assert_eq!(c(Value::Loss(30), false, 71, 70), MaybeLoss);
        // Exact DTZ shorter than DTM (zeroing now): the clock restarts in time.
        let zero_now = Facts {
            dtz: Some(1),
            ..facts(Value::Win(31), false, 99, 98)
        };
        assert_eq!(category(&zero_now), Win);
        let too_late = Facts {
            dtz: Some(1),
            ..facts(Value::Win(31), false, 100, 99)
        };
        assert_eq!(category(&too_late), CursedWin);
        // A claim was already possible.
        assert_eq!(c(Value::Win(1), true, 0, 100), CursedWin);
        assert_eq!(c(Value::Loss(0), true, 0, 99), Loss);
        assert_eq!(c(Value::Loss(0), true, 0, 100), BlessedLoss);
        assert_eq!(c(Value::Draw, false, 0, 0), Draw);
        assert_eq!(c(Value::Illegal, false, 0, 0), Unknown);
    }

    #[test]
    fn insufficient_material_as_shakmaty_says() {
        for (fen, yes) in [
            ("8/8/8/4k3/8/8/8/K7 w - - 0 1", true),
            ("8/8/8/4k3/8/8/8/KB6 w - - 0 1", true),
            ("8/8/8/4k3/8/8/8/KN6 w - - 0 1", true),
            ("8/8/8/4k3/8/8/8/KNN5 w - - 0 1", false),
            // Bishops on one colour (b1 and a2 are both light): no mate possible.
            ("8/8/8/4k3/8/8/b7/KB6 w - - 0 1", true),
            // Bishops on both colours: a help-mate exists.
            ("8/8/8/4k3/8/8/8/KBb5 w - - 0 1", false),
            // A knight against a bishop: a help-mate exists.
            ("8/8/8/4k3/8/8/8/KNb5 w - - 0 1", false),
            ("8/8/8/4k3/8/8/8/KR6 w - - 0 1", false),
            ("8/8/8/4k3/8/8/P7/K7 w - - 0 1", false),
        ] {
            assert_eq!(insufficient_material(&parse(fen).unwrap()), yes, "{fen}");
        }
    }

    #[test]
    fn tightening_order() {
        let mut v = [Some(2), None, Some(-2), Some(1), Some(0), Some(-1)];
        v.sort_by_key(|m| tightening(*m));
        assert_eq!(v[..3], [Some(-1), Some(-2), None]);
        assert_eq!(v[4..], [Some(2), Some(1)]);
    }
}
