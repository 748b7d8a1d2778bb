//! The zone walk: a found threat proof is walked again (every case re-checked on the actual
//! boards) to collect the cells where an extra defender stone could change it. The claim and
//! its proof are in `threat.rs`, "Zones".

use crate::rules::cellset::{bb_cells, bb_first, bb_set, CellSet};

use super::threat::Searcher;

impl Searcher<'_> {
    // ----- Walking a found proof again to collect its zone (see the module docs). -----

    pub(crate) fn collect_or(&mut self, d: u32, zone: &mut CellSet) -> bool {
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

    pub(crate) fn collect_and(&mut self, d: u32, zone: &mut CellSet) -> bool {
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
        let Some((doubles, needed)) = self.needed_replies(None) else {
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
