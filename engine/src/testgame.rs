//! A game given as an explicit graph, for the engine's own tests.

use crate::game::*;

/// A game given as an explicit graph: node i's moves are `succ[i]`, coded 1, 2, ….
#[derive(Clone, Debug)]
pub struct Graph {
    pub succ: Vec<Vec<Outcome>>,
    pub terminal: Vec<Option<Value>>,
    /// Unused slots.
    pub hole: Vec<bool>,
    /// Fault injection for the self-test's own tests: `(node, extra predecessor)`, and a
    /// node whose predecessors are forgotten.
    pub fake_pred: Option<(usize, Index)>,
    pub forget_preds_of: Option<usize>,
}

impl Graph {
    /// A graph without injected faults.
    pub fn new(succ: Vec<Vec<Outcome>>, terminal: Vec<Option<Value>>, hole: Vec<bool>) -> Graph {
        Graph {
            succ,
            terminal,
            hole,
            fake_pred: None,
            forget_preds_of: None,
        }
    }
}

impl Game for Graph {
    type Position = usize;
    fn name(&self) -> String {
        "graph".into()
    }
    fn params(&self) -> (&'static str, Vec<(String, i64)>) {
        ("graph", vec![])
    }
    fn sections(&self) -> Vec<Section> {
        vec![Section {
            name: "all".into(),
            len: self.succ.len() as u64,
        }]
    }
    fn decode(&self, i: Index) -> Option<usize> {
        (!self.hole[i as usize]).then_some(i as usize)
    }
    fn encode(&self, p: &usize) -> Index {
        *p as Index
    }
    fn canonical(&self, p: &usize) -> usize {
        *p
    }
    fn terminal(&self, p: &usize) -> Option<Value> {
        self.terminal[*p]
    }
    fn successors(&self, p: &usize, out: &mut Vec<Successor>) {
        for (k, &to) in self.succ[*p].iter().enumerate() {
            out.push(Successor {
                mv: k as u8 + 1,
                to,
            });
        }
    }
    fn predecessors(&self, p: &usize, out: &mut Vec<Index>) {
        if self.forget_preds_of == Some(*p) {
            return;
        }
        if let Some((node, extra)) = self.fake_pred {
            if node == *p {
                out.push(extra);
            }
        }
        for (q, s) in self.succ.iter().enumerate() {
            if self.hole[q] || self.terminal[q].is_some() {
                continue;
            }
            for &o in s {
                if o == Outcome::Index(*p as Index) {
                    out.push(q as Index); // duplicates on purpose
                }
            }
        }
    }
}
