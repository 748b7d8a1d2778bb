//! Threat-sequence search: victory by continuous fours (VCF) and by continuous threats
//! (fours and "threes", VCT), proven against every defence that could matter.
//!
//! Entry points: [`prove_win`] (attacker to move), [`prove_win_defender_to_move`], and
//! [`prove_with_zone`] (a proof plus the cells where an extra defender stone could matter).
//! Generic in board size, `k` and [`Rules`], so it can be checked against exhaustive
//! k-in-a-row tables on small boards.
//!
//! # Terms (attacker `A`, defender `D`)
//!
//! * A *winning cell* of a colour is an empty cell where a stone of that colour makes a
//!   winning row (exactly `k` under standard rules, `k` or more under freestyle). See
//!   [`crate::rules::lines::win_cells`]. Its *windows* are the `k`-cell windows through it holding
//!   `k - 1` stones of that colour and nothing else (with no own stone just outside under
//!   standard rules).
//! * A *four-maker* is an empty cell where a stone creates at least one winning cell.
//! * A *double move* of `A` is an empty cell where an `A` stone creates two or more winning
//!   cells (an open four, a double four). Its *support* `S(m)` is the union of the `k`-cell
//!   windows through `m` that hold exactly `k - 2` `A` stones, no `D` stone (and no `A`
//!   stone just outside, under standard rules).
//!
//! Two facts used throughout:
//!
//! * (F1) A `D` stone never creates an `A` winning cell and an `A` stone never creates a
//!   `D` winning cell. A `D` stone removes an `A` winning cell `c` only by landing in one of
//!   `c`'s windows (or on `c`): the row through `c` is made of `A` stones and `c`, and a `D`
//!   stone next to it does not lengthen it (only `A` stones make an overline).
//! * (F2) If `A` has no winning cell, every winning cell created by an `A` stone on `m` lies
//!   in a window through `m` with `k - 2` `A` stones before `m` (a window that did not
//!   contain `m` would have been winning already). So which winning cells `m` creates
//!   depends only on `S(m)`'s windows; a `D` stone outside `S(m)` leaves them all.
//!
//! # The search and why every proof is sound
//!
//! `or_node(d)`: `A` to move, prove that `A` makes a winning row with at most `d` more `A`
//! stones whatever `D` does. `and_node(d)`: `D` to move, same claim. A node returns `true`
//! only in the cases below; each comes with its argument. Any doubt (node limit reached, no
//! threat) returns `false`, i.e. "not proven".
//!
//! **OR node.**
//! 1. `A` has a winning cell and `d >= 1`: play it.
//! 2. Otherwise, if `D` has two or more winning cells, fail (one `A` stone fills one cell).
//! 3. If `D` has exactly one winning cell `c`, every other `A` move lets `D` win at once:
//!    only `A` at `c` is tried.
//! 4. Otherwise try `A` four-makers (VCF moves) and, in VCT mode, moves after which `A` has
//!    a double move (threes). Proven if one leads to a proven AND node with `d - 1`.
//!    Which attacker moves are tried never affects soundness, only what can be found.
//!
//! **AND node** (`D` to move, `A` may still use `d` stones).
//! 1. If `D` has a winning cell, fail (`D` wins at once).
//! 2. If `A` has two or more winning cells and `d >= 1`: proven. `D` cannot win with its
//!    move (case 1), and one `D` stone removes at most one of them (F1: the only empty cell
//!    of a winning cell's window is that cell itself, so a stone on another winning cell is
//!    outside it), so a winning cell is left for `A`.
//! 3. If `A` has exactly one winning cell `c`: every `D` move but `c` leaves `c` winning
//!    (F1) without winning itself, and loses at once. Only `D` at `c` is searched.
//! 4. Otherwise, with `d >= 2`: let `M` be `A`'s double moves; fail if `M` is empty. A `D`
//!    reply `w` is *harmless* if (a) `w` is not a `D` four-maker and (b) some `m` in `M`,
//!    `m != w`, is still a double move after `w`. After a harmless `w`, `A` plays `m`; `D`
//!    has no winning cell (none before, none from `w` by (a), none from `m` by F1), so `D`
//!    cannot win and fills at most one of `A`'s winning cells; `A` wins with its second
//!    stone. Every non-harmless reply is searched with `or_node(d)` and must be proven.
//!    Non-harmless replies are found by brute force among the candidates: all `D`
//!    four-makers (exact, from the line windows) and the cells of the intersection of the
//!    supports `S(m)`, `m` in `M` (a `w` outside some `S(m)` leaves that `m` a double move,
//!    F2). Each candidate is tested exactly by playing it and recounting winning cells, so
//!    the exactly-five rule, broken threes and the far ends of 6- and 7-cell threes are all
//!    covered by the single exact definition of a winning cell.
//!
//! 5. (Extended mode only, tried after fours and threes fail.) No double move either: find
//!    a proof `T` that `A`, moving here as if `D` passed, wins within `d` by fours, and its
//!    zone `Z` (see "Zones" below, which also covers `D` replies that would complete a `D`
//!    row). By the zone claim every `D` reply outside `Z` leaves `T` a valid proof, so the
//!    replies in `Z` are all searched with `or_node(d)` and must all be proven. In this
//!    mode the OR node also tries the other cells of `k`-windows holding `k - 3` `A` stones.
//!    A proof tree containing such a node is never given a zone itself (the zone walk
//!    refuses it), so it is only ever used whole.
//!
//! Counting `d`: every `A` stone costs one, forced blocks of `D` fours included, and so
//! does the final winning stone.
//!
//! Caching: within one search, OR-node results are cached under the exact position (both
//! bitboards, compared in full). A proof at `d` is reused for any budget `>= d`.
//!
//! # Zones: one proof for many defender stones
//!
//! [`prove_with_zone`] finds a proof tree `T` for a position `P` and walks it again (the
//! walk re-checks every case above on the actual boards), collecting a set of cells `Z`:
//!
//! * every cell played in `T`;
//! * every cell of a `k`-window of `P` holding no `A` stone and at least `k - 2` `D` stones
//!   (so the extra stone cannot complete a `D` row and end the game);
//! * at every AND node: the windows of the winning cells used (cases 2, 3), the supports
//!   `S(m)` of all double moves (case 4), and every cell of a `k`-window holding no `A`
//!   stone and at least `k - 2` `D` stones (cases 2, 3) or `k - 3` (case 4);
//! * at every OR node won by case 1: the windows of the winning cell.
//!
//! **Claim.** For an empty cell `w` not in `Z`, `T` is also a proof for `P` plus a `D`
//! stone on `w`. By induction over `T`, with `P_n` a node's position and `P'_n = P_n + w`:
//! OR nodes only play moves of `T` (still empty, since `w` is not played in `T`). Case 1
//! and AND cases 2 and 3 use winning cells whose windows avoid `w`, so they stay winning
//! (F1). AND case 1: a new `D` winning cell in `P'_n` needs a window through `w` with
//! `k - 2` `D` stones and no `A` stone in `P_n` (a window avoiding `w` was already winning,
//! or is spoilt by `w` under standard rules), excluded. (Cases 2 and 3 need nothing more:
//! the `D` replies there are fixed by `A`'s winning cells.) AND case 4: `M` is unchanged and
//! each `m` keeps its double status after any reply (F2, `w` outside every `S(m)`), and a
//! new `D` four-maker would need a window through `w` with `k - 3` `D` stones and no `A`
//! stone, excluded; so the non-harmless replies of `P'_n` are among those of `P_n`, each
//! with its subtree in `T`, valid by induction. The root windows keep `w` from completing
//! a `D` row itself.
//!
//! **Several extra stones.** The same holds for a set `W` of extra `D` stones, all outside
//! `Z`, when no `k`-window holds two of them: each condition above concerns one window at
//! a time, and a window with a single stone of `W` is excluded exactly as before.
//!
//! # Hints (ordering only)
//!
//! [`prove_win_hinted`] reuses a search of the same position without one defender stone:
//! its best moves are tried first, and positions it failed to prove are given up at once.
//! Both only choose or drop attacker options, so they can lose proofs but never make one;
//! every proof is still checked case by case as above. Move ordering also uses history
//! tables (cells that proved nodes, replies that refuted them).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use crate::rules::board::{Board, Color, Rules};
use crate::rules::cellset::bb_iter;
pub use crate::rules::cellset::{bb_cells, bb_count, bb_has, CellSet};
use crate::rules::cellset::{bb_first, bb_set};
use crate::rules::lines::{has_bits, Windows};

use super::pos::Pos;
use super::tt::{TtEntry, TtKey, ZHasher};

/// Result of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proof {
    /// A win is proven.
    pub proven: bool,
    /// When proven: the attacker's stones needed in the worst case (0 if the attacker
    /// already has a winning row on the board).
    pub attacker_moves: u32,
    /// Nodes searched.
    pub nodes: u64,
}

/// Search options.
#[derive(Debug, Clone, Copy)]
pub struct SearchConfig {
    /// Also use threes (VCT); otherwise fours only (VCF).
    pub vct: bool,
    /// Give up ("not proven") after this many nodes.
    pub node_limit: u64,
    /// Largest budget tried by the VCT phase (the VCF phase always uses the full limit).
    pub vct_depth: u32,
    /// Smallest budget tried (iterative deepening starts here). A proof found at a larger
    /// budget is just as valid; only the reported length may be longer than the shortest.
    pub start_depth: u32,
    /// After fours and threes fail, also try threats of a VCF (AND node case 5).
    pub extended: bool,
    /// A budget worth trying right after the first failures (e.g. a strategy file's own
    /// claim); 0 for none. Only changes the order in which budgets are tried.
    pub jump_depth: u32,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            vct: true,
            node_limit: 2_000_000,
            vct_depth: 20,
            start_depth: 1,
            jump_depth: 0,
            extended: true,
        }
    }
}

/// Proves that `attacker`, to move on `board`, makes a winning row within
/// `max_attacker_moves` of its own stones against every defence. `proven == false` means
/// "not proven", never "not winning". Under [`Rules::Freestyle`] a row of `k` or more wins;
/// under [`Rules::Standard`] exactly `k`.
pub fn prove_win(board: &Board, attacker: Color, rules: Rules, max_attacker_moves: u32) -> Proof {
    prove_win_with(
        board,
        attacker,
        rules,
        max_attacker_moves,
        SearchConfig::default(),
    )
}

/// [`prove_win`] with explicit options.
pub fn prove_win_with(
    board: &Board,
    attacker: Color,
    rules: Rules,
    max: u32,
    cfg: SearchConfig,
) -> Proof {
    let mut s = Searcher::new(board, attacker, rules, cfg);
    s.run(max, false)
}

/// Proves the same claim with the defender to move: after every defender reply, the
/// attacker wins within `max` stones.
pub fn prove_win_defender_to_move(
    board: &Board,
    attacker: Color,
    rules: Rules,
    max: u32,
    cfg: SearchConfig,
) -> Proof {
    let mut s = Searcher::new(board, attacker, rules, cfg);
    s.run(max, true)
}

/// [`prove_win_with`] (attacker to move), plus, when proven, the zone `Z` of the module
/// documentation: for every empty cell outside it, the same proof holds with a defender
/// stone added there. `None` for the zone when the proof could not be walked again (then
/// no cell may be assumed safe).
pub fn prove_with_zone(
    board: &Board,
    attacker: Color,
    rules: Rules,
    max: u32,
    cfg: SearchConfig,
) -> (Proof, Option<CellSet>, Hints) {
    let mut s = Searcher::new(board, attacker, rules, cfg);
    let p = s.run(max, false);
    let zone = if !p.proven {
        None
    } else if p.attacker_moves == 0 {
        // A row already on the board: no defender stone can remove it.
        Some([0; 4])
    } else {
        // The extra defender stone must not end the game itself: cover every window where
        // it could complete a defender row (k - 1 defender stones after it).
        let mut zone = s.pos.threat_zone(s.def, board.k().saturating_sub(2));
        s.collect_or(p.attacker_moves, &mut zone).then_some(zone)
    };
    (
        p,
        zone,
        Hints {
            tt: std::mem::take(&mut s.tt),
            history: std::mem::take(&mut s.history),
        },
    )
}

/// The positions and best moves of a search, used only to order the attacker's moves in
/// later searches of the same position plus one defender stone. Hints never make a proof:
/// a hinted move is just tried first, and is then checked like any other.
pub struct Hints {
    tt: HashMap<TtKey, TtEntry, BuildHasherDefault<ZHasher>>,
    /// Move-ordering statistics (per cell), carried from search to search.
    pub history: Vec<u32>,
}

/// What a hinted search reuses: the hints, the extra defender stone, and the
/// move-ordering table (updated for the next search).
pub struct Hint<'a> {
    /// Hints of the position without `extra`.
    pub hints: &'a Hints,
    /// The defender stone added since.
    pub extra: usize,
    /// Move-ordering statistics per cell, carried from search to search.
    pub history: &'a mut Vec<u32>,
}

/// [`prove_win_with`] on `board`, where `board` is the position the hints were computed on
/// plus a defender stone on `hint.extra`: the old best moves are tried first, old failures
/// are not searched again (which can only lose proofs, never make one).
pub fn prove_win_hinted(
    board: &Board,
    attacker: Color,
    rules: Rules,
    max: u32,
    cfg: SearchConfig,
    hint: Hint<'_>,
) -> Proof {
    let mut s = Searcher::new(board, attacker, rules, cfg);
    s.hint = Some((hint.hints, hint.extra));
    if hint.history.len() == s.history.len() {
        std::mem::swap(&mut s.history, hint.history);
    }
    let p = s.run(max, false);
    std::mem::swap(&mut s.history, hint.history);
    p
}

/// Most double moves one three move's record keeps (more: they are counted again at the
/// AND node).
const THREE_DOUBLES: usize = 12;

/// A three move: its cell and the attacker's double moves once it is played, each checked
/// exactly, handed to the AND node so that it need not count them again.
///
/// They are all of them: the three moves are only tried after every four failed, so the
/// attacker had no double move before (one would have won), and a stone changes a cell's
/// count of winning cells only on the line the two share. Soundness does not rest on this:
/// AND node case 4 with fewer double moves only searches more replies.
pub(crate) struct Three {
    pub(crate) cell: u16,
    count: u8,
    cells: [u16; THREE_DOUBLES],
}

impl Three {
    fn push(&mut self, m: usize) {
        if (self.count as usize) < THREE_DOUBLES {
            self.cells[self.count as usize] = m as u16;
        }
        self.count = self.count.saturating_add(1);
    }

    /// The double moves, unless there were too many to keep.
    pub(crate) fn doubles(&self) -> Option<&[u16]> {
        self.cells.get(..self.count as usize)
    }
}

pub(crate) struct Searcher<'h> {
    pub(crate) hint: Option<(&'h Hints, usize)>,
    /// Move ordering: how often (weighted by depth) a cell proved an OR node.
    pub(crate) history: Vec<u32>,
    /// Move ordering: how often a defender reply refuted an AND node.
    pub(crate) def_history: Vec<u32>,
    pub(crate) pos: Pos,
    pub(crate) att: Color,
    pub(crate) def: Color,
    pub(crate) cfg: SearchConfig,
    pub(crate) vct: bool,
    /// Extended mode: threats of a VCF count as threats (AND node case 5).
    pub(crate) ext: bool,
    pub(crate) nodes: u64,
    pub(crate) aborted: bool,
    /// Some branch was cut by the budget (so a larger budget might succeed).
    pub(crate) cut: bool,
    pub(crate) tt: HashMap<TtKey, TtEntry, BuildHasherDefault<ZHasher>>,
}

impl<'h> Searcher<'h> {
    pub(crate) fn new(
        board: &Board,
        attacker: Color,
        rules: Rules,
        cfg: SearchConfig,
    ) -> Searcher<'h> {
        Searcher {
            hint: None,
            history: vec![0; board.cells()],
            def_history: vec![0; board.cells()],
            pos: Pos::new(board, rules),
            att: attacker,
            def: attacker.other(),
            cfg,
            vct: false,
            ext: false,
            nodes: 0,
            aborted: false,
            cut: false,
            tt: HashMap::default(),
        }
    }

    fn result(&self, proven: bool, moves: u32) -> Proof {
        Proof {
            proven,
            attacker_moves: if proven { moves } else { 0 },
            nodes: self.nodes,
        }
    }

    fn run(&mut self, max: u32, defender_to_move: bool) -> Proof {
        let rules = self.pos.rules;
        if self.pos.board.has_five(self.att, rules) {
            return self.result(true, 0);
        }
        if self.pos.board.has_five(self.def, rules) {
            return self.result(false, 0);
        }
        // Phases: (vct, first budget, last budget). With a hinted start depth, one VCT
        // iteration at that depth comes first (the hinted proof usually still works),
        // unless a larger jump depth is given: a search at the jump depth finds what the
        // start depth would, and on the validator's replies it costs less than trying the
        // start depth first (13 % fewer nodes measured on the published strategy).
        let d0 = self.cfg.start_depth.max(1);
        let vct_top = max.min(self.cfg.vct_depth);
        let vct_lo = if defender_to_move { d0 } else { d0.max(3) };
        let mut phases = Vec::new();
        let lo = if self.hint.is_some() {
            vct_lo + 1
        } else {
            vct_lo
        };
        let j = self.cfg.jump_depth;
        let jumps = j > lo && j <= vct_top;
        if self.hint.is_some() && self.cfg.vct && vct_lo <= vct_top && !jumps {
            phases.push((1, vct_lo, vct_lo));
        }
        phases.push((0, d0, max));
        if self.cfg.vct {
            if jumps {
                phases.push((1, j, j));
            }
            phases.push((1, lo, vct_top));
            if self.cfg.extended {
                phases.push((2, vct_lo, vct_top));
            }
        }
        for (mode, lo, top) in phases {
            self.vct = mode >= 1;
            self.ext = mode == 2;
            for d in lo..=top {
                self.cut = false;
                let ok = if defender_to_move {
                    self.and_node(d)
                } else {
                    self.or_node(d)
                };
                if ok {
                    return self.result(true, d);
                }
                if self.aborted {
                    return self.result(false, 0);
                }
                if !self.cut {
                    break;
                }
            }
        }
        self.result(false, 0)
    }

    /// 0: fours only; 1: fours and threes; 2: also threats of a VCF (extended).
    fn mode(&self) -> usize {
        if self.ext {
            2
        } else {
            self.vct as usize
        }
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes > self.cfg.node_limit {
            self.aborted = true;
        }
        self.aborted
    }

    /// This position without the hint's extra defender stone (the hint search's key).
    fn hint_key(&self) -> Option<TtKey> {
        let (_, extra) = self.hint?;
        let ci = self.def.idx();
        if self.pos.board.get(extra) != Some(self.def) {
            return None;
        }
        let mut key = self.tt_key();
        key.z ^= self.pos.board.geometry().zobrist[extra][ci];
        key.key[ci][extra >> 6] &= !(1 << (extra & 63));
        Some(key)
    }

    pub(crate) fn tt_key(&self) -> TtKey {
        TtKey {
            z: self.pos.board.hash(),
            key: self.pos.board.key(),
        }
    }

    /// Attacker to move; prove a win within `d` attacker stones.
    fn or_node(&mut self, d: u32) -> bool {
        if self.tick() {
            return false;
        }
        // Case 1: a winning cell.
        if self.pos.wins(self.att) > 0 {
            return d >= 1;
        }
        if d <= 1 {
            self.cut = true;
            return false;
        }
        let key = self.tt_key();
        let mode = self.mode();
        if let Some(e) = self.tt.get(&key) {
            if e.proven <= d {
                return true;
            }
            if e.exhaustive[mode] {
                return false;
            }
            if e.failed[mode] >= d {
                self.cut = true;
                return false;
            }
        }
        // Failures of the hint search on this position without the extra defender stone:
        // give up here too. (Only ever turns a result into "not proven": sound.)
        if let Some(hk) = self.hint_key() {
            if let Some((h, _)) = self.hint {
                if let Some(e) = h.tt.get(&hk) {
                    if e.proven > d && (e.exhaustive[mode] || e.failed[mode] >= d) {
                        self.cut |= !e.exhaustive[mode];
                        return false;
                    }
                }
            }
        }
        let saved = std::mem::replace(&mut self.cut, false);
        let result = self.or_node_inner(d);
        let sub_cut = self.cut;
        self.cut = saved || sub_cut;
        if result.is_some() || !self.aborted {
            let e = self.tt.entry(key).or_insert(TtEntry {
                proven: u32::MAX,
                best: 0,
                failed: [0; 3],
                exhaustive: [false; 3],
            });
            match result {
                Some(m) => {
                    if d < e.proven {
                        e.proven = d;
                        e.best = m;
                    }
                    self.history[m as usize] += d * d;
                }
                None => {
                    e.failed[mode] = e.failed[mode].max(d);
                    e.exhaustive[mode] |= !sub_cut;
                }
            }
        }
        result.is_some()
    }

    /// Returns the proving move.
    fn or_node_inner(&mut self, d: u32) -> Option<u16> {
        let (att, def) = (self.att, self.def);
        // Cases 2 and 3: defender fours.
        let dw = self.pos.wins(def);
        if dw >= 2 {
            return None;
        }
        if dw == 1 {
            let c = bb_first(&self.pos.wbb[def.idx()])?;
            self.pos.place(c, att);
            let r = self.and_node(d - 1);
            self.pos.remove(c, att);
            return r.then_some(c as u16);
        }
        // Case 4: a hinted move first, then fours (double moves first of all), then threes.
        let mut hinted = None;
        if let (Some((h, _)), Some(key)) = (self.hint, self.hint_key()) {
            if let Some(e) = h.tt.get(&key) {
                if e.proven <= d && self.pos.board.is_empty(e.best as usize) {
                    hinted = Some(e.best as usize);
                }
            }
        }
        let _ = def;
        if let Some(m) = hinted {
            self.pos.place(m, att);
            let r = self.and_node(d - 1);
            self.pos.remove(m, att);
            if r {
                return Some(m as u16);
            }
            if self.aborted {
                return None;
            }
        }
        let fours = self.pos.fbb[att.idx()];
        let mut ordered: Vec<(u32, u16)> = Vec::new();
        for m in bb_iter(&fours) {
            let n = self.pos.wins_after(m, att);
            ordered.push((n, m as u16));
        }
        let h = &self.history;
        ordered.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then(h[b.1 as usize].cmp(&h[a.1 as usize]))
                .then(a.1.cmp(&b.1))
        });
        for &(_, m) in &ordered {
            let m = m as usize;
            self.pos.place(m, att);
            let r = self.and_node(d - 1);
            self.pos.remove(m, att);
            if r {
                return Some(m as u16);
            }
            if self.aborted {
                return None;
            }
        }
        if !self.vct {
            return None;
        }
        if d < 3 {
            self.cut = true;
            return None;
        }
        let threes = self.three_moves(&fours);
        for t in &threes {
            let b = t.cell as usize;
            self.pos.place(b, att);
            let r = self.and_node_with(d - 1, t.doubles());
            self.pos.remove(b, att);
            if r {
                return Some(b as u16);
            }
            if self.aborted {
                return None;
            }
        }
        if !self.ext {
            return None;
        }
        // Extended mode: any other stone in a window with k - 3 attacker stones may threaten
        // a VCF; the AND node (case 5) decides.
        let mut others = self.pos.three_maker_cells(att);
        others.retain(|&c| !bb_has(&fours, c) && !threes.iter().any(|t| t.cell as usize == c));
        let h = &self.history;
        others.sort_by(|a, b| h[*b].cmp(&h[*a]).then(a.cmp(b)));
        for b in others {
            self.pos.place(b, att);
            let r = self.and_node(d - 1);
            self.pos.remove(b, att);
            if r {
                return Some(b as u16);
            }
            if self.aborted {
                return None;
            }
        }
        None
    }

    /// AND node case 5 (extended mode): `A` has no double move, but may threaten a VCF.
    /// Find a proof `T` of `A` to move here (as if `D` passed) using fours only, and its
    /// zone `Z` (module docs, "Zones"); every `D` reply outside `Z` leaves `T` valid, so only
    /// replies in `Z` are searched, and all must be proven.
    fn generalized_and(&mut self, d: u32) -> bool {
        let def = self.def;
        let (sv, se) = (self.vct, self.ext);
        self.vct = false;
        self.ext = false;
        let ok = self.or_node(d);
        let mut zone = self.pos.threat_zone(def, self.pos.k.saturating_sub(2));
        let ok = ok && self.collect_or(d, &mut zone);
        self.vct = sv;
        self.ext = se;
        if !ok {
            return false;
        }
        let mut needed: Vec<usize> = bb_cells(&zone)
            .into_iter()
            .filter(|&w| w < self.pos.board.cells() && self.pos.board.is_empty(w))
            .collect();
        let (fb, dh) = (&self.pos.fbb[def.idx()], &self.def_history);
        needed.sort_by_key(|&w| (!bb_has(fb, w), std::cmp::Reverse(dh[w])));
        for w in needed {
            self.pos.place(w, def);
            let r = self.or_node(d);
            self.pos.remove(w, def);
            if !r {
                self.def_history[w] += d * d;
                return false;
            }
        }
        true
    }

    /// Candidate threes: empty cells, not four-makers, after which the attacker has a double
    /// move on one of the cell's lines (only a choice of attacker moves to try), each with
    /// the attacker's double moves after it.
    pub(crate) fn three_moves(&self, fours: &CellSet) -> Vec<Three> {
        let att = self.att;
        let ci = att.idx();
        // Borrowed, not cloned: cloning the `Arc` would have both threads write its one
        // shared reference count at every OR node.
        let geo = &**self.pos.board.geometry();
        let mut cand = [0u64; 4];
        for l in 0..geo.lines.len() {
            let len = self.pos.len[l] as usize;
            // A three needs k - 3 attacker stones on the line (most lines have fewer).
            if len < self.pos.k
                || self.pos.k < 3
                || !has_bits(self.pos.board.plane(l)[ci], self.pos.k - 3)
            {
                continue;
            }
            let w = self.pos.windows(l, att, self.pos.rules);
            let mut m = w.cells(w.starts_with(self.pos.k - 3));
            while m != 0 {
                let p = m.trailing_zeros() as usize;
                m &= m - 1;
                bb_set(&mut cand, geo.lines[l].cells[p] as usize);
            }
        }
        let mut out: Vec<Three> = Vec::new();
        for cell in bb_iter(&cand) {
            if bb_has(fours, cell) {
                continue;
            }
            // A stone on `cell` creates no winning cell (it is not a four-maker), so the
            // attacker still has none and `double_after` answers exactly.
            let mut three = Three {
                cell: cell as u16,
                count: 0,
                cells: [0; THREE_DOUBLES],
            };
            for &(l2, p2) in &geo.cell_lines[cell] {
                let l2 = l2 as usize;
                let len = self.pos.len[l2] as usize;
                let pl = self.pos.board.plane(l2);
                // A four-maker needs k - 2 attacker stones on the line, `cell` included.
                if len < self.pos.k || !has_bits(pl[ci], self.pos.k - 3) {
                    continue;
                }
                let w = Windows::new(
                    pl[ci] | 1 << p2,
                    pl[1 - ci],
                    len,
                    self.pos.k,
                    self.pos.rules,
                );
                let mut f = w.cells(w.starts_with(self.pos.k - 2));
                while f != 0 {
                    let q = f.trailing_zeros() as usize;
                    f &= f - 1;
                    let mcell = geo.lines[l2].cells[q] as usize;
                    if self
                        .pos
                        .double_after(mcell, att, l2, q, (cell, p2 as usize))
                    {
                        three.push(mcell);
                    }
                }
            }
            if three.count > 0 {
                out.push(three);
            }
        }
        let h = &self.history;
        out.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then(h[b.cell as usize].cmp(&h[a.cell as usize]))
                .then(a.cell.cmp(&b.cell))
        });
        out
    }

    /// AND node case 4: the defender replies that must be searched (D fours first).
    /// `None` when the attacker has no double move. `known`: the attacker's double moves,
    /// when the caller has them (else they are counted here).
    pub(crate) fn needed_replies(
        &mut self,
        known: Option<&[u16]>,
    ) -> Option<(Vec<u16>, Vec<usize>)> {
        let (att, def) = (self.att, self.def);
        let doubles = match known {
            Some(k) => k.to_vec(),
            None => self.pos.double_moves(att),
        };
        if doubles.is_empty() {
            return None;
        }
        let mut zone = [u64::MAX; 4];
        for &m in &doubles {
            let s = self.pos.windows_through(m as usize, att, self.pos.k - 2);
            for i in 0..4 {
                zone[i] &= s[i];
            }
        }
        let def_fours = self.pos.fbb[def.idx()];
        for i in 0..4 {
            zone[i] |= def_fours[i];
        }
        let mut needed = Vec::new();
        let mut late = Vec::new();
        for w in bb_iter(&zone) {
            if w >= self.pos.board.cells() || !self.pos.board.is_empty(w) {
                continue;
            }
            if bb_has(&def_fours, w) {
                needed.push(w);
            } else if !self.still_double(w, &doubles) {
                late.push(w);
            }
        }
        needed.extend(late);
        Some((doubles, needed))
    }

    /// Defender to move; prove the attacker wins within `d` more attacker stones.
    fn and_node(&mut self, d: u32) -> bool {
        self.and_node_with(d, None)
    }

    /// [`Self::and_node`], given the attacker's double moves when the caller knows them.
    fn and_node_with(&mut self, d: u32, doubles: Option<&[u16]>) -> bool {
        if self.tick() {
            return false;
        }
        let (att, def) = (self.att, self.def);
        // Case 1.
        if self.pos.wins(def) > 0 {
            return false;
        }
        // Cases 2 and 3.
        let aw = self.pos.wins(att);
        if aw >= 2 {
            return d >= 1;
        }
        if aw == 1 {
            if d < 1 {
                self.cut = true;
                return false;
            }
            let Some(c) = bb_first(&self.pos.wbb[att.idx()]) else {
                return false;
            };
            self.pos.place(c, def);
            let r = self.or_node(d);
            self.pos.remove(c, def);
            return r;
        }
        // Case 4.
        if d < 2 {
            self.cut = true;
            return false;
        }
        let Some((_, mut needed)) = self.needed_replies(doubles) else {
            return self.ext && self.generalized_and(d);
        };
        // Likely refutations first: defender fours, then replies that refuted before.
        let (fb, dh) = (&self.pos.fbb[def.idx()], &self.def_history);
        needed.sort_by_key(|&w| (!bb_has(fb, w), std::cmp::Reverse(dh[w])));
        for w in needed {
            self.pos.place(w, def);
            let r = self.or_node(d);
            self.pos.remove(w, def);
            if !r {
                self.def_history[w] += d * d;
                return false;
            }
        }
        true
    }

    /// After a defender stone on `w`, is some `m` in `doubles` (other than `w`) still a
    /// double move? Tested exactly, by playing both stones.
    fn still_double(&mut self, w: usize, doubles: &[u16]) -> bool {
        // (Only the lines through w change; the count below is exact either way.)
        let (att, def) = (self.att, self.def);
        doubles.iter().any(|&m| {
            m as usize != w && self.pos.wins_after_with(m as usize, att, Some((w, def))) >= 2
        })
    }
}
