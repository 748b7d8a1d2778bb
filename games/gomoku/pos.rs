//! Incremental position bookkeeping for the threat search: the board plus, per line and per
//! cell, the winning cells and four-makers of both colours, updated stone by stone.

use super::board::{Board, Color, Rules};
use super::cellset::{bb_cells, bb_count, bb_iter, bb_set, CellSet};
use super::lines::{win_and_four, win_cells, Windows};

/// Board plus per-line and per-cell caches of winning cells and four-makers.
pub(crate) struct Pos {
    pub(crate) board: Board,
    pub(crate) rules: Rules,
    pub(crate) k: usize,
    pub(crate) len: Vec<u8>,
    /// Per line, per colour: winning cells, four-makers (line bit masks).
    pub(crate) lw: Vec<[u32; 2]>,
    pub(crate) lf: Vec<[u32; 2]>,
    /// Per cell, per colour: on how many lines the cell is winning / a four-maker.
    pub(crate) wcnt: Vec<[u8; 2]>,
    pub(crate) fcnt: Vec<[u8; 2]>,
    /// Per colour: winning cells, four-makers.
    pub(crate) wbb: [CellSet; 2],
    pub(crate) fbb: [CellSet; 2],
    /// Per placed stone: its cell and the four lines' masks before it.
    pub(crate) undo: Vec<(u16, [[u32; 4]; 4])>,
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
        let (win, four) = win_and_four(b, w, len, k, self.rules);
        self.set_masks(l, 0, win, four);
        let (win, four) = win_and_four(w, b, len, k, self.rules);
        self.set_masks(l, 1, win, four);
    }

    /// Sets the cached masks of line `l` for colour `ci`, updating the per-cell counts.
    #[inline]
    pub(crate) fn set_masks(&mut self, l: usize, ci: usize, win: u32, four: u32) {
        // Most touched lines keep their masks for one of the colours.
        if win == self.lw[l][ci] && four == self.lf[l][ci] {
            return;
        }
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
    pub(crate) fn wins(&self, c: Color) -> u32 {
        bb_count(&self.wbb[c.idx()])
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
            if !changed && self.lf[l][ci] & (1 << p) == 0 {
                continue;
            }
            n += win_cells(pl[ci], pl[1 - ci], len, self.k, self.rules).count_ones();
        }
        n
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
    pub(crate) fn threat_zone(&self, c: Color, min: usize) -> CellSet {
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
