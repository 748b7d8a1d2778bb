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
//!   [`super::lines::win_cells`]. Its *windows* are the `k`-cell windows through it holding
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
use std::hash::{BuildHasherDefault, Hash, Hasher};

use super::board::{Board, Color, Key, Rules};
use super::lines::Windows;

/// A set of cells (up to 256).
pub type CellSet = [u64; 4];

#[inline]
fn bb_set(b: &mut CellSet, c: usize) {
    b[c >> 6] |= 1 << (c & 63);
}
#[inline]
pub fn bb_has(b: &CellSet, c: usize) -> bool {
    b[c >> 6] & (1 << (c & 63)) != 0
}
#[inline]
pub fn bb_count(b: &CellSet) -> u32 {
    b.iter().map(|w| w.count_ones()).sum()
}
#[inline]
fn bb_first(b: &CellSet) -> Option<usize> {
    b.iter()
        .enumerate()
        .find(|(_, &w)| w != 0)
        .map(|(i, w)| i * 64 + w.trailing_zeros() as usize)
}
/// Cells of a set, in increasing order.
pub fn bb_cells(b: &CellSet) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, &w) in b.iter().enumerate() {
        let mut x = w;
        while x != 0 {
            out.push(i * 64 + x.trailing_zeros() as usize);
            x &= x - 1;
        }
    }
    out
}

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

/// Fast hasher for keys that carry their own Zobrist hash.
#[derive(Default)]
struct ZHasher(u64);
impl Hasher for ZHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x100_0000_01B3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 ^= v;
    }
}

#[derive(PartialEq, Eq, Clone, Copy)]
struct TtKey {
    z: u64,
    key: Key,
}
impl Hash for TtKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.z);
    }
}

#[derive(Clone, Copy)]
struct TtEntry {
    /// Smallest budget proven (u32::MAX: none).
    proven: u32,
    /// The attacker move that proved it.
    best: u16,
    /// Largest budget that failed in VCF mode / VCT mode (0: none).
    failed: [u32; 3],
    /// The failure did not depend on the budget (no branch was cut by it).
    exhaustive: [bool; 3],
}

/// Board plus per-line and per-cell caches of winning cells and four-makers.
pub(crate) struct Pos {
    pub(crate) board: Board,
    rules: Rules,
    k: usize,
    len: Vec<u8>,
    /// Per line, per colour: winning cells, four-makers (line bit masks).
    lw: Vec<[u32; 2]>,
    lf: Vec<[u32; 2]>,
    /// Per cell, per colour: on how many lines the cell is winning / a four-maker.
    wcnt: Vec<[u8; 2]>,
    fcnt: Vec<[u8; 2]>,
    /// Per colour: winning cells, four-makers.
    wbb: [CellSet; 2],
    fbb: [CellSet; 2],
    /// Per placed stone: its cell and the four lines' masks before it.
    undo: Vec<(u16, [[u32; 4]; 4])>,
}

impl Pos {
    pub(crate) fn new(board: &Board, rules: Rules) -> Pos {
        let geo = board.geometry().clone();
        let n = board.line_count();
        let cells = board.cells();
        let len: Vec<u8> = geo.lines.iter().map(|l| l.cells.len() as u8).collect();
        let mut p = Pos {
            board: board.clone(),
            rules,
            k: board.k(),
            len,
            lw: vec![[0; 2]; n],
            lf: vec![[0; 2]; n],
            wcnt: vec![[0; 2]; cells],
            fcnt: vec![[0; 2]; cells],
            wbb: [[0; 4]; 2],
            fbb: [[0; 4]; 2],
            undo: Vec::new(),
        };
        for l in 0..n {
            p.refresh(l);
        }
        p
    }

    #[inline(always)]
    fn windows(&self, l: usize, c: Color, rules: Rules) -> Windows {
        let [b, w] = self.board.plane(l);
        let (own, opp) = if c == Color::Black { (b, w) } else { (w, b) };
        Windows::new(own, opp, self.len[l] as usize, self.k, rules)
    }

    fn refresh(&mut self, l: usize) {
        let len = self.len[l] as usize;
        let k = self.k;
        if len < k {
            return;
        }
        for c in [Color::Black, Color::White] {
            let w = self.windows(l, c, self.rules);
            let win = w.cells(w.starts_with(k - 1));
            let four = w.cells(w.starts_with(k - 2));
            self.set_masks(l, c.idx(), win, four);
        }
    }

    /// Sets the cached masks of line `l` for colour `ci`, updating the per-cell counts.
    #[inline]
    fn set_masks(&mut self, l: usize, ci: usize, win: u32, four: u32) {
        let cells = &self.board.geometry().lines[l].cells;
        let mut diff = win ^ self.lw[l][ci];
        while diff != 0 {
            let p = diff.trailing_zeros() as usize;
            diff &= diff - 1;
            let cell = cells[p] as usize;
            if win & (1 << p) != 0 {
                self.wcnt[cell][ci] += 1;
                bb_set(&mut self.wbb[ci], cell);
            } else {
                self.wcnt[cell][ci] -= 1;
                if self.wcnt[cell][ci] == 0 {
                    self.wbb[ci][cell >> 6] &= !(1 << (cell & 63));
                }
            }
        }
        let mut diff = four ^ self.lf[l][ci];
        while diff != 0 {
            let p = diff.trailing_zeros() as usize;
            diff &= diff - 1;
            let cell = cells[p] as usize;
            if four & (1 << p) != 0 {
                self.fcnt[cell][ci] += 1;
                bb_set(&mut self.fbb[ci], cell);
            } else {
                self.fcnt[cell][ci] -= 1;
                if self.fcnt[cell][ci] == 0 {
                    self.fbb[ci][cell >> 6] &= !(1 << (cell & 63));
                }
            }
        }
        self.lw[l][ci] = win;
        self.lf[l][ci] = four;
    }

    /// Puts a stone; [`Self::remove`] must undo the placements in reverse order.
    #[inline]
    pub(crate) fn place(&mut self, cell: usize, c: Color) {
        self.board.place(cell, c);
        let cl = self.board.geometry().cell_lines[cell];
        let mut saved = [[0u32; 4]; 4];
        for (i, (l, _)) in cl.into_iter().enumerate() {
            let l = l as usize;
            saved[i] = [self.lw[l][0], self.lw[l][1], self.lf[l][0], self.lf[l][1]];
            self.refresh(l);
        }
        self.undo.push((cell as u16, saved));
    }

    /// Takes back the last stone placed (which must be on `cell`): the line caches are
    /// restored from the values saved by [`Self::place`].
    #[inline]
    pub(crate) fn remove(&mut self, cell: usize, c: Color) {
        self.board.remove(cell, c);
        let cl = self.board.geometry().cell_lines[cell];
        match self.undo.pop() {
            Some((last, saved)) if last as usize == cell => {
                for (i, (l, _)) in cl.into_iter().enumerate() {
                    let l = l as usize;
                    if (self.len[l] as usize) < self.k {
                        continue;
                    }
                    let [w0, w1, f0, f1] = saved[i];
                    self.set_masks(l, 0, w0, f0);
                    self.set_masks(l, 1, w1, f1);
                }
            }
            other => {
                // Not the last placement: recompute (correct, only slower).
                if let Some(o) = other {
                    self.undo.push(o);
                }
                for (l, _) in cl {
                    self.refresh(l as usize);
                }
            }
        }
    }

    /// Number of winning cells of `c`.
    #[inline]
    fn wins(&self, c: Color) -> u32 {
        bb_count(&self.wbb[c.idx()])
    }

    /// Number of winning cells `c` would have with a stone on the empty cell `m`, when `c`
    /// has no winning cell now. Then every new winning cell lies on a line through `m`
    /// (F2), and two lines through `m` share no other cell, so the count is the sum over
    /// `m`'s lines of the winning cells of the line with `m` added.
    #[inline]
    fn wins_after(&self, m: usize, c: Color) -> u32 {
        self.wins_after_with(m, c, None)
    }

    /// [`Self::wins_after`] on the board with one more stone `extra` (cell, colour), still
    /// assuming `c` has no winning cell on that board.
    #[inline]
    fn wins_after_with(&self, m: usize, c: Color, extra: Option<(usize, Color)>) -> u32 {
        let ci = c.idx();
        let geo = self.board.geometry();
        let mut n = 0;
        for (d, &(l, p)) in geo.cell_lines[m].iter().enumerate() {
            let l = l as usize;
            let len = self.len[l] as usize;
            if len < self.k {
                continue;
            }
            let mut pl = self.board.plane(l);
            pl[ci] |= 1 << p;
            let mut changed = false;
            if let Some((e, ec)) = extra {
                let (el, ep) = geo.cell_lines[e][d];
                if el as usize == l {
                    pl[ec.idx()] |= 1 << ep;
                    changed = true;
                }
            }
            // On a line the extra stone does not touch, a stone on `m` creates a winning
            // cell only through a window with k - 2 own stones: `m` must be a four-maker of
            // this line (cached).
            if !changed && self.lf[l][ci] & (1 << p) == 0 {
                continue;
            }
            let w = Windows::new(pl[ci], pl[1 - ci], len, self.k, self.rules);
            n += w.cells(w.starts_with(self.k - 1)).count_ones();
        }
        n
    }

    /// Cells (any content) of the windows through `cell` on its lines holding exactly
    /// `count` stones of `c` and nothing of the other colour (standard: no `c` stone just
    /// outside).
    fn windows_through(&self, cell: usize, c: Color, count: usize) -> CellSet {
        let geo = self.board.geometry();
        let mut out = [0u64; 4];
        for &(l, p) in &geo.cell_lines[cell] {
            let l = l as usize;
            let len = self.len[l] as usize;
            if len < self.k {
                continue;
            }
            let w = self.windows(l, c, self.rules);
            let p = p as usize;
            // Starts s with s <= p <= s + k - 1.
            let lo = p.saturating_sub(self.k - 1);
            let through = (u32::MAX >> (31 - p)) & !((1u32 << lo) - 1);
            let mut span = w.span(w.starts_with(count) & through);
            while span != 0 {
                let q = span.trailing_zeros() as usize;
                span &= span - 1;
                bb_set(&mut out, geo.lines[l].cells[q] as usize);
            }
        }
        out
    }

    /// Every cell of a `k`-window holding at least `min` stones of `c` and none of the
    /// other colour (no condition on the cells outside the window).
    fn threat_zone(&self, c: Color, min: usize) -> CellSet {
        let geo = self.board.geometry();
        let k = self.k;
        let mut out = [0u64; 4];
        for (l, info) in geo.lines.iter().enumerate() {
            if info.cells.len() < k {
                continue;
            }
            let w = self.windows(l, c, Rules::Freestyle);
            let mut starts = 0;
            for count in min..=k {
                starts |= w.starts_with(count);
            }
            let mut span = w.span(starts);
            while span != 0 {
                let q = span.trailing_zeros() as usize;
                span &= span - 1;
                bb_set(&mut out, info.cells[q] as usize);
            }
        }
        out
    }

    /// Empty cells of `k`-windows holding `k - 3` stones of `c` and nothing else.
    fn three_maker_cells(&self, c: Color) -> Vec<usize> {
        let geo = self.board.geometry();
        let mut set = [0u64; 4];
        if self.k < 3 {
            return Vec::new();
        }
        for (l, info) in geo.lines.iter().enumerate() {
            if info.cells.len() < self.k {
                continue;
            }
            let w = self.windows(l, c, self.rules);
            let mut m = w.cells(w.starts_with(self.k - 3));
            while m != 0 {
                let p = m.trailing_zeros() as usize;
                m &= m - 1;
                bb_set(&mut set, info.cells[p] as usize);
            }
        }
        bb_cells(&set)
    }

    /// Double moves of `c` (cells creating two or more winning cells); `c` must have no
    /// winning cell now.
    fn double_moves(&mut self, c: Color) -> Vec<u16> {
        let mut out = Vec::new();
        for m in bb_cells(&self.fbb[c.idx()]) {
            if self.wins_after(m, c) >= 2 {
                out.push(m as u16);
            }
        }
        out
    }
}

struct Searcher<'h> {
    hint: Option<(&'h Hints, usize)>,
    /// Move ordering: how often (weighted by depth) a cell proved an OR node.
    history: Vec<u32>,
    /// Move ordering: how often a defender reply refuted an AND node.
    def_history: Vec<u32>,
    pos: Pos,
    att: Color,
    def: Color,
    cfg: SearchConfig,
    vct: bool,
    /// Extended mode: threats of a VCF count as threats (AND node case 5).
    ext: bool,
    nodes: u64,
    aborted: bool,
    /// Some branch was cut by the budget (so a larger budget might succeed).
    cut: bool,
    tt: HashMap<TtKey, TtEntry, BuildHasherDefault<ZHasher>>,
}

impl<'h> Searcher<'h> {
    fn new(board: &Board, attacker: Color, rules: Rules, cfg: SearchConfig) -> Searcher<'h> {
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
        // iteration at that depth comes first (the hinted proof usually still works).
        let d0 = self.cfg.start_depth.max(1);
        let vct_top = max.min(self.cfg.vct_depth);
        let vct_lo = if defender_to_move { d0 } else { d0.max(3) };
        let mut phases = Vec::new();
        if self.hint.is_some() && self.cfg.vct && vct_lo <= vct_top {
            phases.push((1, vct_lo, vct_lo));
        }
        phases.push((0, d0, max));
        if self.cfg.vct {
            let lo = if self.hint.is_some() {
                vct_lo + 1
            } else {
                vct_lo
            };
            let j = self.cfg.jump_depth;
            if j > lo && j <= vct_top {
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

    fn tt_key(&self) -> TtKey {
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
        for m in bb_cells(&fours) {
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
        for &b in &threes {
            let b = b as usize;
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
        if !self.ext {
            return None;
        }
        // Extended mode: any other stone in a window with k - 3 attacker stones may threaten
        // a VCF; the AND node (case 5) decides.
        let mut others = self.pos.three_maker_cells(att);
        others.retain(|&c| !bb_has(&fours, c) && !threes.contains(&(c as u16)));
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
    /// move on one of the cell's lines (only a choice of attacker moves to try).
    fn three_moves(&mut self, fours: &CellSet) -> Vec<u16> {
        let att = self.att;
        let ci = att.idx();
        let geo = self.pos.board.geometry().clone();
        let mut cand = [0u64; 4];
        for l in 0..geo.lines.len() {
            let len = self.pos.len[l] as usize;
            if len < self.pos.k || self.pos.k < 3 {
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
        let mut out: Vec<(u32, u16)> = Vec::new();
        for cell in bb_cells(&cand) {
            if bb_has(fours, cell) {
                continue;
            }
            // A stone on `cell` creates no winning cell (it is not a four-maker), so the
            // attacker still has none and wins_after_with counts exactly.
            let mut score = 0;
            for &(l2, p2) in &geo.cell_lines[cell] {
                let l2 = l2 as usize;
                let len = self.pos.len[l2] as usize;
                if len < self.pos.k {
                    continue;
                }
                let pl = self.pos.board.plane(l2);
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
                    if self.pos.wins_after_with(mcell, att, Some((cell, att))) >= 2 {
                        score += 1;
                    }
                }
            }
            if score > 0 {
                out.push((score, cell as u16));
            }
        }
        let h = &self.history;
        out.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then(h[b.1 as usize].cmp(&h[a.1 as usize]))
                .then(a.1.cmp(&b.1))
        });
        out.into_iter().map(|(_, c)| c).collect()
    }

    /// AND node case 4: the defender replies that must be searched (D fours first).
    /// `None` when the attacker has no double move.
    fn needed_replies(&mut self) -> Option<(Vec<u16>, Vec<usize>)> {
        let (att, def) = (self.att, self.def);
        let doubles = self.pos.double_moves(att);
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
        for w in bb_cells(&zone) {
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
        let Some((_, mut needed)) = self.needed_replies() else {
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

    // ----- Walking a found proof again to collect its zone (see the module docs). -----

    fn collect_or(&mut self, d: u32, zone: &mut CellSet) -> bool {
        let (att, def) = (self.att, self.def);
        if let Some(c) = bb_first(&self.pos.wbb[att.idx()]) {
            if d < 1 {
                return false;
            }
            let w = self.pos.windows_through(c, att, self.pos.k - 1);
            for i in 0..4 {
                zone[i] |= w[i];
            }
            return true;
        }
        if d <= 1 {
            return false;
        }
        let dw = self.pos.wins(def);
        if dw >= 2 {
            return false;
        }
        let (mv, budget) = if dw == 1 {
            match bb_first(&self.pos.wbb[def.idx()]) {
                Some(c) => (c, d),
                None => return false,
            }
        } else {
            match self.tt.get(&self.tt_key()) {
                Some(e) if e.proven <= d => (e.best as usize, e.proven),
                _ => return false,
            }
        };
        if !self.pos.board.is_empty(mv) {
            return false;
        }
        bb_set(zone, mv);
        self.pos.place(mv, att);
        let r = self.collect_and(budget - 1, zone);
        self.pos.remove(mv, att);
        r
    }

    fn collect_and(&mut self, d: u32, zone: &mut CellSet) -> bool {
        let (att, def) = (self.att, self.def);
        if self.pos.wins(def) > 0 {
            return false;
        }
        let aw = self.pos.wins(att);
        // New D winning cells matter everywhere; new D four-makers only in case 4.
        let k = self.pos.k;
        let tz = self.pos.threat_zone(
            def,
            if aw >= 1 {
                k.saturating_sub(2)
            } else {
                k.saturating_sub(3)
            },
        );
        for i in 0..4 {
            zone[i] |= tz[i];
        }
        if aw >= 1 {
            if d < 1 {
                return false;
            }
            for c in bb_cells(&self.pos.wbb[att.idx()]) {
                let w = self.pos.windows_through(c, att, self.pos.k - 1);
                for i in 0..4 {
                    zone[i] |= w[i];
                }
            }
            if aw >= 2 {
                return true;
            }
            let Some(c) = bb_first(&self.pos.wbb[att.idx()]) else {
                return false;
            };
            bb_set(zone, c);
            self.pos.place(c, def);
            let r = self.collect_or(d, zone);
            self.pos.remove(c, def);
            return r;
        }
        if d < 2 {
            return false;
        }
        let Some((doubles, needed)) = self.needed_replies() else {
            return false;
        };
        for &m in &doubles {
            let s = self.pos.windows_through(m as usize, att, self.pos.k - 2);
            for i in 0..4 {
                zone[i] |= s[i];
            }
        }
        for w in needed {
            bb_set(zone, w);
            self.pos.place(w, def);
            let r = self.collect_or(d, zone);
            self.pos.remove(w, def);
            if !r {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::brute::Exhaustive;
    use super::*;

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// A random position with `stones` stones, the attacker to move (as many attacker
    /// stones as defender stones, or one fewer), nobody with a winning row yet.
    fn random_position(
        rng: &mut Rng,
        w: usize,
        h: usize,
        k: usize,
        stones: usize,
        rules: Rules,
    ) -> Option<Board> {
        let mut b = Board::new(w, h, k).ok()?;
        for i in 0..stones {
            let c = loop {
                let c = rng.below(w * h);
                if b.is_empty(c) {
                    break c;
                }
            };
            let color = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            b.place(c, color);
            if b.five_through(c, color, rules) {
                return None;
            }
        }
        Some(b)
    }

    /// Every proof must be confirmed by exhaustive search; every zone must hold.
    fn cross_check(
        w: usize,
        h: usize,
        k: usize,
        max_d: u32,
        positions: usize,
        seed: u64,
        zone_checks: bool,
    ) {
        let mut rng = Rng(seed);
        let mut proven = 0;
        let mut zoned = 0;
        let mut paired = 0;
        for i in 0..positions {
            let rules = if i % 2 == 0 {
                Rules::Standard
            } else {
                Rules::Freestyle
            };
            let stones = 2 + rng.below(w * h / 2);
            let Some(mut b) = random_position(&mut rng, w, h, k, stones, rules) else {
                continue;
            };
            // Stones alternate from black, so the side with fewer (or equal) stones moves.
            let att = if stones % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let d = 1 + rng.below(max_d as usize) as u32;
            let mut ex = Exhaustive::new(att, rules);
            let cfg = SearchConfig::default();
            let p = prove_win_with(&b, att, rules, d, cfg);
            if p.proven {
                proven += 1;
                assert!(p.attacker_moves <= d);
                assert!(
                    ex.wins(&mut b, p.attacker_moves),
                    "unsound proof ({rules}, {att:?} to move, d={d}):{b:?}"
                );
            }
            let q = prove_win_defender_to_move(&b, att.other(), rules, d, cfg);
            if q.proven {
                let mut ex2 = Exhaustive::new(att.other(), rules);
                assert!(
                    ex2.wins_defender_to_move(&mut b, q.attacker_moves),
                    "unsound defender-to-move proof ({rules}, {att:?} to move, d={d}):{b:?}"
                );
            }
            if zone_checks {
                let (zp, zone, hints) = prove_with_zone(&b, att, rules, d, cfg);
                if let (true, Some(z)) = (zp.proven, zone) {
                    for c in 0..b.cells() {
                        if b.is_empty(c) && !bb_has(&z, c) {
                            zoned += 1;
                            b.place(c, att.other());
                            assert!(
                                !b.five_through(c, att.other(), rules),
                                "a defender row outside the zone"
                            );
                            let ok = ex.wins(&mut b, zp.attacker_moves);
                            let hp = prove_win_hinted(
                                &b,
                                att,
                                rules,
                                d,
                                cfg,
                                Hint {
                                    hints: &hints,
                                    extra: c,
                                    history: &mut hints.history.clone(),
                                },
                            );
                            assert!(
                                !hp.proven || ex.wins(&mut b, hp.attacker_moves),
                                "unsound hinted proof"
                            );
                            assert!(
                                ok,
                                "zone claim fails for a defender stone on {} ({rules}):{b:?}",
                                b.cell_name(c)
                            );
                            b.remove(c, att.other());
                        }
                    }
                    // Several extra stones (what the validator's shared proofs rely on):
                    // outside the zone, no window holding two of them.
                    let outside: Vec<usize> = (0..b.cells())
                        .filter(|&c| b.is_empty(c) && !bb_has(&z, c))
                        .collect();
                    let pairs = outside
                        .iter()
                        .enumerate()
                        .flat_map(|(i, &c1)| outside[i + 1..].iter().map(move |&c2| (c1, c2)));
                    let apart: Vec<(usize, usize)> = pairs
                        .filter(|&(c1, c2)| !crate::gomoku::shared::share_window(&b, c1, c2))
                        .take(12)
                        .collect();
                    for (c1, c2) in apart {
                        paired += 1;
                        b.place(c1, att.other());
                        b.place(c2, att.other());
                        assert!(
                            ex.wins(&mut b, zp.attacker_moves),
                            "zone claim fails for defender stones on {} and {} ({rules}):{b:?}",
                            b.cell_name(c1),
                            b.cell_name(c2)
                        );
                        b.remove(c2, att.other());
                        b.remove(c1, att.other());
                    }
                }
            }
        }
        assert!(
            proven > 0,
            "the cross-check proved nothing: it tests nothing"
        );
        if zone_checks {
            assert!(zoned > 0, "no zone was exercised");
            assert!(paired > 0, "no pair of extra stones was exercised");
        }
    }

    /// Proofs that need the extended mode (threats of a VCF) are checked exhaustively too.
    #[test]
    fn extended_mode_is_sound_and_used() {
        let mut extra = 0;
        for (w, h, k, seed) in [(5, 5, 4, 7u64), (6, 5, 4, 11), (6, 6, 4, 13)] {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            for i in 0..1500 {
                let rules = if i % 2 == 0 {
                    Rules::Standard
                } else {
                    Rules::Freestyle
                };
                let stones = 8 + rng.below(4) * 2;
                let Some(mut b) = random_position(&mut rng, w, h, k, stones, rules) else {
                    continue;
                };
                let d = 4;
                let plain = SearchConfig {
                    extended: false,
                    ..SearchConfig::default()
                };
                if prove_win_with(&b, Color::Black, rules, d, plain).proven {
                    continue;
                }
                let p = prove_win_with(&b, Color::Black, rules, d, SearchConfig::default());
                if p.proven {
                    extra += 1;
                    let mut ex = Exhaustive::new(Color::Black, rules);
                    assert!(
                        ex.wins(&mut b, p.attacker_moves),
                        "unsound extended proof ({rules}):{b:?}"
                    );
                }
            }
        }
        assert!(
            extra > 0,
            "no position needed the extended mode: it is not tested"
        );
    }

    #[test]
    fn never_unsound_4x4_k3() {
        cross_check(4, 4, 3, 4, 3000, 0x1234_5678, true);
    }

    #[test]
    fn never_unsound_5x5_k4() {
        cross_check(5, 5, 4, 3, 1500, 0x9E37_79B9, true);
    }

    #[test]
    fn never_unsound_6x5_k4() {
        cross_check(6, 5, 4, 3, 600, 0xDEAD_BEEF, false);
    }

    #[test]
    fn never_unsound_7x6_k5() {
        cross_check(7, 6, 5, 3, 300, 0xC0FF_EE00, false);
    }

    fn gomoku(rows: &[(&str, Color)]) -> Board {
        let mut b = Board::gomoku();
        for &(cells, color) in rows {
            for name in cells.split_whitespace() {
                let c = b.parse_cell(name).expect("cell");
                b.place(c, color);
            }
        }
        b
    }

    #[test]
    fn overline_wins_only_in_freestyle() {
        // c8 d8 e8 _ g8 h8: f8 makes six.
        let b = gomoku(&[
            ("c8 d8 e8 g8 h8", Color::Black),
            ("a1 a3 o1 o3 o15", Color::White),
        ]);
        let free = prove_win(&b, Color::Black, Rules::Freestyle, 1);
        assert!(free.proven && free.attacker_moves == 1);
        for d in [1, 5, 10] {
            assert!(
                !prove_win(&b, Color::Black, Rules::Standard, d).proven,
                "d={d}"
            );
        }
    }

    #[test]
    fn own_stone_next_to_a_three_spoils_the_open_four() {
        // Standard: a8 b8 _ d8 e8 f8 _ _ . g8 makes d..g; c8 would make a..g (seven): only
        // h8 completes, so g8 is a plain four, not an open four, and black has no win in 2.
        let b = gomoku(&[
            ("a8 b8 d8 e8 f8", Color::Black),
            ("a1 a3 o1 o3 o15", Color::White),
        ]);
        assert!(!prove_win(&b, Color::Black, Rules::Standard, 2).proven);
        // Freestyle: c8 already wins (a..f).
        assert!(prove_win(&b, Color::Black, Rules::Freestyle, 1).proven);
    }

    #[test]
    fn fork_of_two_threes_wins_in_three() {
        // e8 f8 and g9 g10: g8 makes two open threes.
        let b = gomoku(&[
            ("e8 f8 g9 g10", Color::Black),
            ("a1 a3 o1 o15", Color::White),
        ]);
        let p = prove_win(&b, Color::Black, Rules::Standard, 3);
        assert!(p.proven, "{p:?}");
        assert_eq!(p.attacker_moves, 3);
        assert!(!prove_win(&b, Color::Black, Rules::Standard, 2).proven);
        // VCF alone cannot see it.
        let cfg = SearchConfig {
            vct: false,
            ..SearchConfig::default()
        };
        assert!(!prove_win_with(&b, Color::Black, Rules::Standard, 10, cfg).proven);
    }

    #[test]
    fn white_counter_four_refutes_the_fork() {
        // Same fork, but white has an open three in column j: after g8 white makes an open
        // four and wins first.
        let b = gomoku(&[
            ("e8 f8 g9 g10", Color::Black),
            ("j3 j4 j5 o15", Color::White),
        ]);
        for d in [3, 4, 6, 8] {
            assert!(
                !prove_win(&b, Color::Black, Rules::Standard, d).proven,
                "d={d}"
            );
        }
    }

    #[test]
    fn white_closed_four_costs_black_a_move() {
        // White's three is closed at j2 by black: white's counter is a plain four, black
        // blocks it (one more black stone) and the fork still wins: 4 black stones.
        let b = gomoku(&[
            ("e8 f8 g9 g10 j2", Color::Black),
            ("j3 j4 j5 o15 a15", Color::White),
        ]);
        let p = prove_win(&b, Color::Black, Rules::Standard, 6);
        assert!(p.proven, "{p:?}");
        assert_eq!(p.attacker_moves, 4);
        assert!(!prove_win(&b, Color::Black, Rules::Standard, 3).proven);
    }

    #[test]
    fn black_must_answer_a_white_four() {
        // Black has a four (wins now) — that beats white's four.
        let b = gomoku(&[("d8 e8 f8 g8", Color::Black), ("d9 e9 f9 g9", Color::White)]);
        assert!(prove_win(&b, Color::Black, Rules::Standard, 1).proven);
        // Black has only a three, white has an open four: lost, never proven.
        let b = gomoku(&[
            ("d8 e8 f8 a1", Color::Black),
            ("d10 e10 f10 g10", Color::White),
        ]);
        assert!(!prove_win(&b, Color::Black, Rules::Standard, 10).proven);
    }

    #[test]
    fn nothing_to_prove_on_a_quiet_board() {
        let b = gomoku(&[("h8", Color::Black), ("h9", Color::White)]);
        assert!(!prove_win(&b, Color::Black, Rules::Standard, 20).proven);
        assert!(!prove_win(&Board::gomoku(), Color::Black, Rules::Freestyle, 20).proven);
    }

    #[test]
    fn zone_is_local() {
        let b = gomoku(&[
            ("e8 f8 g9 g10", Color::Black),
            ("a1 a3 o1 o15", Color::White),
        ]);
        let (p, zone, _) = prove_with_zone(
            &b,
            Color::Black,
            Rules::Standard,
            3,
            SearchConfig::default(),
        );
        assert!(p.proven);
        let z = zone.expect("zone");
        // The fork cell and the far corner.
        assert!(bb_has(&z, b.parse_cell("g8").expect("cell")));
        assert!(!bb_has(&z, b.parse_cell("m2").expect("cell")));
    }
}
