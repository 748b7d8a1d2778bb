//! Incremental position bookkeeping for the threat search: the board plus, per line and per
//! cell, the winning cells and four-makers of both colours, updated stone by stone.

use crate::rules::board::{Board, Color, Rules};
#[cfg(test)]
use crate::rules::cellset::bb_has;
use crate::rules::cellset::{bb_cells, bb_count_to_two, bb_iter, bb_set, CellSet};
use crate::rules::lines::{has_bits, line_masks, win_cells, Windows};

/// Board plus per-line and per-cell caches of winning cells and four-makers.
pub(crate) struct Pos {
    pub(crate) board: Board,
    pub(crate) rules: Rules,
    pub(crate) k: usize,
    pub(crate) len: Vec<u8>,
    /// Per line: winning cells of black and white, four-makers of black and white (line
    /// bit masks), kept together so that one comparison tells whether a line changed.
    pub(crate) masks: Vec<[u32; 4]>,
    /// Per cell, per colour: on how many lines the cell is winning / a four-maker.
    pub(crate) wcnt: Vec<[u8; 2]>,
    pub(crate) fcnt: Vec<[u8; 2]>,
    /// Per colour: winning cells, four-makers.
    pub(crate) wbb: [CellSet; 2],
    pub(crate) fbb: [CellSet; 2],
    /// Per placed stone: its cell and the four lines' masks before it.
    pub(crate) undo: Vec<(u16, [[u32; 4]; 4])>,
}

/// Moves a line's mask from `old` to `new` in the per-cell counts of colour `ci` and in
/// that colour's cell set (a cell leaves it when no line keeps it).
#[inline]
fn flip_counts(
    cnt: &mut [[u8; 2]],
    set: &mut CellSet,
    ci: usize,
    cells: &[u16],
    old: u32,
    new: u32,
) {
    let mut diff = old ^ new;
    while diff != 0 {
        let p = diff.trailing_zeros() as usize;
        diff &= diff - 1;
        let cell = cells[p] as usize;
        if new & (1 << p) != 0 {
            cnt[cell][ci] += 1;
            bb_set(set, cell);
        } else {
            cnt[cell][ci] -= 1;
            if cnt[cell][ci] == 0 {
                set[cell >> 6] &= !(1 << (cell & 63));
            }
        }
    }
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
            masks: vec![[0; 4]; n],
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
    pub(crate) fn windows(&self, l: usize, c: Color, rules: Rules) -> Windows {
        let [b, w] = self.board.plane(l);
        let (own, opp) = if c == Color::Black { (b, w) } else { (w, b) };
        Windows::new(own, opp, self.len[l] as usize, self.k, rules)
    }

    pub(crate) fn refresh(&mut self, l: usize) {
        let len = self.len[l] as usize;
        let k = self.k;
        if len < k {
            return;
        }
        let [b, w] = self.board.plane(l);
        // Winning cells and four-makers need k - 2 stones of their colour on the line: most
        // lines have fewer of both, and then every mask is empty.
        let masks = if has_bits(b, k.saturating_sub(2)) || has_bits(w, k.saturating_sub(2)) {
            line_masks(b, w, len, k, self.rules)
        } else {
            [0; 4]
        };
        self.set_masks(l, masks);
    }

    /// Sets the cached masks of line `l` (as in `masks`), updating the per-cell counts
    /// and cell sets.
    #[inline]
    pub(crate) fn set_masks(&mut self, l: usize, new: [u32; 4]) {
        let old = self.masks[l];
        if new == old {
            return;
        }
        self.masks[l] = new;
        let cells = &self.board.geometry().lines[l].cells;
        for ci in 0..2 {
            flip_counts(
                &mut self.wcnt,
                &mut self.wbb[ci],
                ci,
                cells,
                old[ci],
                new[ci],
            );
            flip_counts(
                &mut self.fcnt,
                &mut self.fbb[ci],
                ci,
                cells,
                old[2 + ci],
                new[2 + ci],
            );
        }
    }

    /// Puts a stone; [`Self::remove`] must undo the placements in reverse order.
    #[inline]
    pub(crate) fn place(&mut self, cell: usize, c: Color) {
        self.board.place(cell, c);
        let cl = self.board.geometry().cell_lines[cell];
        let mut saved = [[0u32; 4]; 4];
        for (i, (l, _)) in cl.into_iter().enumerate() {
            let l = l as usize;
            saved[i] = self.masks[l];
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
                    self.set_masks(l, saved[i]);
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

    /// Number of winning cells of `c`, counted up to two (2 for two or more: all the
    /// searches ever need).
    #[inline]
    pub(crate) fn wins(&self, c: Color) -> u32 {
        bb_count_to_two(&self.wbb[c.idx()])
    }

    /// Number of winning cells `c` would have with a stone on the empty cell `m`, when `c`
    /// has no winning cell now. Then every new winning cell lies on a line through `m`
    /// (F2), and two lines through `m` share no other cell, so the count is the sum over
    /// `m`'s lines of the winning cells of the line with `m` added.
    #[inline]
    pub(crate) fn wins_after(&self, m: usize, c: Color) -> u32 {
        self.wins_after_with(m, c, None)
    }

    /// [`Self::wins_after`] on the board with one more stone `extra` (cell, colour), still
    /// assuming `c` has no winning cell on that board.
    #[inline]
    pub(crate) fn wins_after_with(&self, m: usize, c: Color, extra: Option<(usize, Color)>) -> u32 {
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
            if !changed && self.masks[l][2 + ci] & (1 << p) == 0 {
                continue;
            }
            n += win_cells(pl[ci], pl[1 - ci], len, self.k, self.rules).count_ones();
        }
        n
    }

    /// Whether a stone of `c` on `m` makes two or more winning cells, on the board with one
    /// more `c` stone on the cell `extra.0` (not a four-maker), where `m` and that cell lie
    /// on line `l` at positions `q` and `extra.1`, and `c` has no winning cell on that
    /// board: the same
    /// answer as `wins_after_with(m, c, Some((extra, c))) >= 2`, mostly without it. The
    /// other lines through `m` do not hold `extra`, and each one where `m` is a four-maker
    /// (cached) gives at least one winning cell, so line `l`'s count often decides.
    #[inline]
    pub(crate) fn double_after(
        &self,
        m: usize,
        c: Color,
        l: usize,
        q: usize,
        extra: (usize, usize),
    ) -> bool {
        let ci = c.idx();
        let pl = self.board.plane(l);
        let on_line = win_cells(
            pl[ci] | 1 << extra.1 | 1 << q,
            pl[1 - ci],
            self.len[l] as usize,
            self.k,
            self.rules,
        )
        .count_ones();
        let others = self.fcnt[m][ci] as u32 - (self.masks[l][2 + ci] >> q & 1);
        if on_line + others >= 2 {
            return true;
        }
        others > 0 && self.wins_after_with(m, c, Some((extra.0, c))) >= 2
    }

    /// Cells (any content) of the windows through `cell` on its lines holding exactly
    /// `count` stones of `c` and nothing of the other colour (standard: no `c` stone just
    /// outside).
    pub(crate) fn windows_through(&self, cell: usize, c: Color, count: usize) -> CellSet {
        let geo = self.board.geometry();
        let mut out = [0u64; 4];
        for &(l, p) in &geo.cell_lines[cell] {
            let l = l as usize;
            let len = self.len[l] as usize;
            // Windows with `count` stones of `c` need as many on the line.
            if len < self.k || !has_bits(self.board.plane(l)[c.idx()], count) {
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
    pub(crate) fn threat_zone(&self, c: Color, min: usize) -> CellSet {
        let geo = self.board.geometry();
        let k = self.k;
        let mut out = [0u64; 4];
        for (l, info) in geo.lines.iter().enumerate() {
            if info.cells.len() < k || !has_bits(self.board.plane(l)[c.idx()], min) {
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
    pub(crate) fn three_maker_cells(&self, c: Color) -> Vec<usize> {
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
    pub(crate) fn double_moves(&mut self, c: Color) -> Vec<u16> {
        let mut out = Vec::new();
        for m in bb_iter(&self.fbb[c.idx()]) {
            if self.wins_after(m, c) >= 2 {
                out.push(m as u16);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::random::random_boards;

    /// The shortcut of `double_after` against the full count, on every placement the
    /// threat search's three-move scan makes, over random boards and both rules.
    #[test]
    fn double_after_agrees_with_the_full_count() {
        let (mut checked, mut doubles) = (0, 0);
        for (b, rules) in random_boards(0x5EED_D0B1, 300, 9, 5, 4, 30) {
            let pos = Pos::new(&b, rules);
            let geo = b.geometry().clone();
            for c in [Color::Black, Color::White] {
                if pos.wins(c) > 0 {
                    continue;
                }
                for extra in (0..b.cells()).filter(|&e| b.is_empty(e)) {
                    if bb_has(&pos.fbb[c.idx()], extra) {
                        continue;
                    }
                    for &(l, p) in &geo.cell_lines[extra] {
                        let l = l as usize;
                        if (pos.len[l] as usize) < pos.k {
                            continue;
                        }
                        for (q, &m) in geo.lines[l].cells.iter().enumerate() {
                            let m = m as usize;
                            if m == extra || !b.is_empty(m) {
                                continue;
                            }
                            let full = pos.wins_after_with(m, c, Some((extra, c))) >= 2;
                            let fast = pos.double_after(m, c, l, q, (extra, p as usize));
                            assert_eq!(fast, full, "{b:?} {c:?} extra {extra} m {m} ({rules})");
                            checked += 1;
                            doubles += full as u32;
                        }
                    }
                }
            }
        }
        assert!(
            checked > 10_000 && doubles > 100,
            "{checked} checks, {doubles} doubles"
        );
    }
}
