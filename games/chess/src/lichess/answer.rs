//! The answers of `/standard` and `/standard/mainline`, from the chess tables served.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::dtz::{self, DtzTables};
use super::rules::{self, after, info, ranked, zeroing};
use super::types::{MainlineResponse, MainlineStep, MoveInfo, TablebaseResponse};
use super::{LichessError, StandIn, Tables};
use crate::rules::fen::to_fen;
use crate::rules::material::Color;
use crate::rules::moves::{legal_moves, make, terminal};
use crate::rules::notation::{san, uci};
use crate::{Chess, Position};
use retro_engine::game::Value;
use retro_engine::table::Table;

/// The longest mainline walked: longer than any mate a record can hold (253 plies).
const MAX_MAINLINE: usize = 300;

/// The chess tables of a server, seen through the Lichess API.
pub struct Tablebase {
    tables: Arc<dyn Tables>,
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
    pub fn new(tables: Arc<dyn Tables>) -> Tablebase {
        Tablebase {
            dtz: DtzTables::new(tables.clone()),
            tables,
            games: Mutex::new(HashMap::new()),
        }
    }

    /// `GET /standard`.
    pub fn standard(&self, pos: &Position) -> Result<TablebaseResponse, LichessError> {
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
    pub fn mainline(&self, start: &Position) -> Result<MainlineResponse, LichessError> {
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

    /// retro's value of `pos` for its side to move (the DTM behind `/standard`'s `dtm`), without
    /// the moves: one table lookup, unless an en-passant capture may be better than the
    /// stored position (which has no en-passant right), when the moves are weighed as
    /// `/standard` weighs them.
    pub fn value(&self, pos: &Position) -> Result<Value, LichessError> {
        if pos.ep.is_some() {
            return Ok(self.evaluate(pos)?.value);
        }
        if pos.material().is_bare_kings() {
            return Ok(Value::Draw);
        }
        // The material's name made once (this is the hot path of a batch of probes).
        let (material, _) = pos.material().canonical();
        let name = material.to_string();
        retro_engine::table::damage::watch(|| -> Result<Value, LichessError> {
            let Some(table) = self.tables.table(&name) else {
                return match self.tables.stand_in(&name) {
                    Some((table, value)) => Ok(value(table, pos)),
                    None => Err(LichessError::Missing { name }),
                };
            };
            let game = self.game(&name, &material)?;
            Ok(table.value(retro_engine::game::Game::encode(&*game, pos)))
        })
        .map_err(LichessError::Damaged)?
    }

    /// Every legal move of `pos` with the value it leads to, in Lichess's order, and the
    /// value of `pos` itself (the best of them: this also counts an en-passant capture,
    /// which stored positions leave out).
    fn evaluate(&self, pos: &Position) -> Result<Evaluated, LichessError> {
        retro_engine::table::damage::watch(|| self.evaluate_unwatched(pos))
            .map_err(LichessError::Damaged)?
    }

    /// [`Self::evaluate`], answering from a damaged compressed block (see
    /// [`retro_engine::table::damage`]).
    fn evaluate_unwatched(&self, pos: &Position) -> Result<Evaluated, LichessError> {
        let mut legal = Vec::new();
        legal_moves(pos, &mut legal);
        let values: Vec<Value> = if pos.material().is_bare_kings() {
            // Two kings: a draw, with no table.
            vec![Value::Draw; legal.len()]
        } else if let Some((table, value)) = self.stand_in(pos) {
            legal
                .iter()
                .map(|m| match m.capture {
                    // A capture leaves the material: stand-ins hold pieces against a bare
                    // king, so it is a lone minor piece, a draw.
                    Some(_) => Value::Draw,
                    None => value(table, &make(pos, m)),
                })
                .collect()
        } else {
            let (game, table) = self.table_of(pos)?;
            let probed = retro_engine::probe::probe(&*game, table, pos);
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
        let ranked = ranked(pos, &legal, Some(&afters), &values, &dtz_after);
        let mut afters: Vec<Option<Position>> = afters.into_iter().map(Some).collect();
        let moves: Vec<Scored> = ranked
            .into_iter()
            .map(|(k, info)| {
                let m = &legal[k];
                Scored {
                    after: afters[k].take().expect("each move once"),
                    info: MoveInfo {
                        uci: uci(m).to_string(),
                        san: san(pos, m, Some(info.checkmate)).to_string(),
                        zeroing: zeroing(m),
                        conversion: m.converts(),
                        pos: info,
                    },
                }
            })
            .collect();
        Ok(Evaluated {
            value,
            dtz_best: dtz_best.and_then(|u| moves.iter().position(|s| s.info.uci == u)),
            moves,
            outcomes,
            dtz: dtz_root,
        })
    }

    /// A table of another game that holds `pos`'s material, when no chess table of the
    /// material is served (`retro serve` makes `kbnk`, which holds KBNvK, by default).
    fn stand_in(&self, pos: &Position) -> Option<StandIn<'_>> {
        let (material, _) = pos.material().canonical();
        let name = material.to_string();
        if self.tables.table(&name).is_some() {
            return None;
        }
        self.tables.stand_in(&name)
    }

    /// The table of `pos`'s material and its rules, or 404 as Lichess answers a missing table.
    fn table_of(&self, pos: &Position) -> Result<(Arc<Chess>, &Table), LichessError> {
        let (material, _) = pos.material().canonical();
        let name = material.to_string();
        let table = self
            .tables
            .table(&name)
            .ok_or_else(|| LichessError::Missing { name: name.clone() })?;
        Ok((self.game(&name, &material)?, table))
    }

    /// The chess rules of material `name`, with its sub-tables open, made on first use.
    fn game(
        &self,
        name: &str,
        material: &crate::rules::material::Material,
    ) -> Result<Arc<Chess>, LichessError> {
        let mut games = self.games.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(g) = games.get(name) {
            return Ok(g.clone());
        }
        let g =
            Arc::new(Chess::open(material, self.tables.dir()).map_err(LichessError::SubTables)?);
        games.insert(name.to_string(), g.clone());
        Ok(g)
    }
}
