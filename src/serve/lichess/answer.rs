//! The answers of `/standard` and `/standard/mainline`, from the chess tables served.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::dtz::{self, DtzTables};
use super::rules::{self, Facts};
use super::types::{MainlineResponse, MainlineStep, MoveInfo, PositionInfo, TablebaseResponse};
use crate::chess::fen::to_fen;
use crate::chess::material::{Color, Role};
use crate::chess::moves::{en_passant_after, legal_moves, make, terminal, Move};
use crate::chess::notation::{san, uci};
use crate::chess::position::Clock;
use crate::chess::{Chess, Position};
use crate::game::Value;
use crate::serve::{ApiError, AppState};

/// The longest mainline walked: longer than any mate a record can hold (253 plies).
const MAX_MAINLINE: usize = 300;

/// The chess tables of a server, seen through the Lichess API.
pub struct Tablebase {
    app: AppState,
    /// The chess rules of each material asked about (with its sub-tables open), made on
    /// first use: the served table holds the records, this the moves between them.
    games: Mutex<HashMap<String, Arc<Chess>>>,
    /// The DTZ tables served beside the DTM tables.
    dtz: DtzTables,
}

/// One legal move of a position, with the value of where it leads and its Lichess fields.
struct Scored {
    after: Position,
    info: MoveInfo,
}

/// A position with every move scored, best first.
struct Evaluated {
    value: Value,
    moves: Vec<Scored>,
    /// Each move's `(zeroing, value it leads to)`.
    outcomes: Vec<(bool, Value)>,
    /// The position's DTZ value from a DTZ table, if one is served.
    dtz: Option<Value>,
    /// The DTZ-optimal move (an index into `moves`), where every move's DTZ is known.
    dtz_best: Option<usize>,
}

impl Evaluated {
    fn dtz_from_moves(&self) -> Option<i32> {
        rules::dtz_from_moves(self.value, &self.outcomes)
    }
}

impl Tablebase {
    pub fn new(app: AppState) -> Tablebase {
        Tablebase {
            dtz: DtzTables::new(app.clone()),
            app,
            games: Mutex::new(HashMap::new()),
        }
    }

    /// `GET /standard`.
    pub fn standard(&self, pos: &Position) -> Result<TablebaseResponse, ApiError> {
        let e = self.evaluate(pos)?;
        let h = pos.clock.halfmove;
        let mut info = info(
            pos,
            e.value,
            h,
            h.saturating_sub(1),
            e.dtz,
            e.dtz_from_moves(),
        );
        // As lila-tablebase: the position is worth what its best move gives.
        if let Some(best) = e.moves.first() {
            info.category = best.info.pos.category.flip();
        }
        Ok(TablebaseResponse {
            fen: to_fen(pos, h, pos.clock.fullmove),
            pos: info,
            moves: e.moves.into_iter().map(|s| s.info).collect(),
        })
    }

    /// `GET /standard/mainline`: the first move of `/standard`'s list, again and again.
    pub fn mainline(&self, start: &Position) -> Result<MainlineResponse, ApiError> {
        let first = self.evaluate(start)?;
        // Only the distances are read from it, which the clock does not change.
        let root = info(start, first.value, 0, 0, first.dtz, first.dtz_from_moves());
        let mut line: Vec<MainlineStep> = Vec::new();
        let mut pos = *start;
        let mut next = Some(first);
        if root.dtz != Some(0) {
            while line.len() < MAX_MAINLINE && pos.clock.halfmove < 100 {
                let e = match next.take() {
                    Some(e) => e,
                    None => self.evaluate(&pos)?,
                };
                // The moves of the position reached may settle the DTZ its step left open.
                if let Some(step) = line.last_mut().filter(|s| s.dtz.is_none()) {
                    step.dtz = e.dtz_from_moves();
                    step.precise_dtz = step.dtz;
                }
                // Lichess's rule where DTZ tables answer: the DTZ-optimal move; else the
                // first of `/standard`'s list.
                let k = e.dtz_best.unwrap_or(0);
                let Some(best) = e.moves.into_iter().nth(k) else {
                    break;
                };
                line.push(MainlineStep {
                    uci: best.info.uci,
                    san: best.info.san,
                    dtz: best.info.pos.dtz,
                    precise_dtz: best.info.pos.precise_dtz,
                    dtm: best.info.pos.dtm,
                });
                pos = best.after;
            }
        }
        let winner = (terminal(&pos) == Some(Value::Loss(0)))
            .then(|| if pos.turn == Color::White { "b" } else { "w" }.to_string());
        Ok(MainlineResponse {
            fen: to_fen(start, start.clock.halfmove, start.clock.fullmove),
            mainline: line,
            winner,
            dtz: root.dtz,
            precise_dtz: root.precise_dtz,
            dtm: root.dtm,
        })
    }

    /// Every legal move of `pos` with the value it leads to, in Lichess's order, and the
    /// value of `pos` itself (the best of them: this also counts an en-passant capture,
    /// which stored positions leave out).
    fn evaluate(&self, pos: &Position) -> Result<Evaluated, ApiError> {
        crate::table::damage::watch(|| self.evaluate_unwatched(pos)).map_err(ApiError::Damaged)?
    }

    /// [`Self::evaluate`], answering from a damaged compressed block (see
    /// [`crate::table::damage`]).
    fn evaluate_unwatched(&self, pos: &Position) -> Result<Evaluated, ApiError> {
        let mut legal = Vec::new();
        legal_moves(pos, &mut legal);
        let values: Vec<Value> = if pos.material().is_bare_kings() {
            // Two kings: a draw, with no table.
            vec![Value::Draw; legal.len()]
        } else if let Some(kbnk) = self.kbnk_table(pos) {
            legal
                .iter()
                .map(|m| match m.capture {
                    // The lone king takes a minor piece: KBvK or KNvK, a draw.
                    Some(_) => Value::Draw,
                    None => kbnk_value(kbnk, &make(pos, m)),
                })
                .collect()
        } else {
            let (game, served) = self.table_of(pos)?;
            let probed = crate::probe::probe(&*game, &served.table, pos);
            let mut v = vec![Value::Illegal; legal.len()];
            for (code, value) in probed.moves {
                if let Some(slot) = (code as usize).checked_sub(1).and_then(|i| v.get_mut(i)) {
                    *slot = value;
                }
            }
            v
        };
        let value = terminal(pos).unwrap_or_else(|| {
            values
                .iter()
                .copied()
                .min_by_key(|v| v.move_rank())
                .map_or(Value::Illegal, Value::back)
        });
        let h = pos.clock.halfmove;
        let afters: Vec<Position> = legal.iter().map(|m| after(pos, m)).collect();
        let dtz_root = self.dtz.value(pos);
        let dtz_after: Vec<Option<Value>> = match dtz_root {
            Some(_) => afters.iter().map(|a| self.dtz.value(a)).collect(),
            None => vec![None; legal.len()],
        };
        let dtz_best = dtz_root
            .filter(|v| v.is_decisive())
            .and_then(|_| dtz::best_move(pos, &dtz_after))
            .map(|k| uci(&legal[k]).to_string());
        let outcomes = legal
            .iter()
            .map(zeroing)
            .zip(values.iter().copied())
            .collect();
        let mut moves: Vec<(Scored, Option<Role>, Option<Role>)> = legal
            .iter()
            .zip(values)
            .zip(afters.into_iter().zip(dtz_after))
            .map(|((m, v), (after, dtz))| {
                let info = info(&after, v, after.clock.halfmove, h, dtz, None);
                let scored = Scored {
                    after,
                    info: MoveInfo {
                        uci: uci(m).to_string(),
                        san: san(pos, m, Some(info.checkmate)).to_string(),
                        zeroing: zeroing(m),
                        conversion: m.converts(),
                        pos: info,
                    },
                };
                (scored, m.capture, m.promotion)
            })
            .collect();
        // Stable: equal moves keep retro's move order.
        moves.sort_by_cached_key(|(s, c, p)| rules::sort_key(&s.info, *c, *p));
        let moves: Vec<Scored> = moves.into_iter().map(|m| m.0).collect();
        Ok(Evaluated {
            value,
            dtz_best: dtz_best.and_then(|u| moves.iter().position(|s| s.info.uci == u)),
            moves,
            outcomes,
            dtz: dtz_root,
        })
    }

    /// The KBNK plug-in's table, for a KBNvK position when no chess table `KBNvK` is served
    /// (`retro serve` makes `kbnk` by default: it is a chess table too).
    fn kbnk_table(&self, pos: &Position) -> Option<&crate::table::Table> {
        let (material, _) = pos.material().canonical();
        let name = material.to_string();
        if name != "KBNvK" || self.app.table(&name).is_some() {
            return None;
        }
        self.app.table("kbnk").map(|s| &*s.table)
    }

    /// The table of `pos`'s material and its rules, or 404 as Lichess answers a missing table.
    fn table_of(
        &self,
        pos: &Position,
    ) -> Result<(Arc<Chess>, &crate::serve::state::Served), ApiError> {
        let (material, _) = pos.material().canonical();
        let name = material.to_string();
        let served = self.app.table(&name).ok_or_else(|| {
            ApiError::NotInTablebase(format!(
                "required table not found: {name} (make it with `{}`)",
                crate::fixes::generate_command(&name).unwrap_or_default()
            ))
        })?;
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        let game = match games.get(&name) {
            Some(g) => g.clone(),
            None => {
                let g = Arc::new(
                    Chess::open(&material, self.app.dir())
                        .map_err(|e| ApiError::NotInTablebase(crate::fixes::explained(&e)))?,
                );
                games.insert(name, g.clone());
                g
            }
        };
        Ok((game, served))
    }
}

/// The Lichess fields of `pos`, worth `value`, with clock `h` (and `before` before it);
/// `table` is its value in a DTZ table, if one is served, and `dtz` what its moves say of
/// DTZ, if they were looked at.
fn info(
    pos: &Position,
    value: Value,
    h: u32,
    before: u32,
    table: Option<Value>,
    dtz: Option<i32>,
) -> PositionInfo {
    rules::position_info(&Facts {
        value,
        dtz: table
            .and_then(dtz::syzygy)
            .or_else(|| rules::dtz(value, rules::dtz_is_dtm(pos, value)))
            .or(dtz),
        halfmoves: h,
        halfmoves_before: before,
        checkmate: value == Value::Loss(0),
        stalemate: value == Value::Draw && terminal(pos) == Some(Value::Draw),
        insufficient_material: rules::insufficient_material(pos),
    })
}

/// A capture or a pawn move: it resets the halfmove clock.
fn zeroing(m: &Move) -> bool {
    m.capture.is_some() || m.role == Role::Pawn
}

/// The value of a KBNvK position (either colouring) in the KBNK table.
fn kbnk_value(table: &crate::table::Table, pos: &Position) -> Value {
    // The table holds white's bishop and knight: black's are seen from the other side.
    let p = if pos.pieces(Color::White, Role::Bishop) != 0 {
        *pos
    } else {
        pos.color_flipped()
    };
    table.value(crate::game::Game::encode(&crate::kbnk::Kbnk, &p))
}

/// The position after `m`, with its clocks, and the en-passant square if the opponent
/// can take en passant (so its moves and its value count the capture).
fn after(pos: &Position, m: &Move) -> Position {
    let mut a = make(pos, m);
    if !en_passant_after(&a, m).is_empty() {
        a.ep = Some((m.from + m.to) / 2);
    }
    a.clock = Clock {
        halfmove: rules::halfmoves_after(zeroing(m), pos.clock.halfmove),
        fullmove: pos
            .clock
            .fullmove
            .saturating_add((pos.turn == Color::Black) as u32),
    };
    a
}
