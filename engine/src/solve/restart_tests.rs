//! The restarting solver against a naive definition, on random tiered game graphs: moves
//! inside a tier, restarts into higher tiers, moves leaving the table, of any parity.

use proptest::prelude::*;

use crate::game::*;
use crate::progress::Silent;
use crate::table::Metric;
use crate::testgame::Graph;

/// Tiers of `n` nodes: node i is in tier `i % 3`.
fn tier(i: usize) -> u32 {
    (i % 3) as u32
}

const LIMIT: u16 = 3;

/// Values by definition: tier by tier, highest first, one distance layer at a time; a
/// restart counts its target's final value as [`Value::restarted`].
fn naive(g: &Graph) -> Vec<Value> {
    let n = g.succ.len();
    let mut v = super::tests::settled_at_start(g);
    for t in (0..3).rev() {
        for d in 1..=40u16 {
            let after = |v: &Vec<Option<Value>>, o: Outcome| match o {
                Outcome::Index(j) => v[j as usize],
                Outcome::Known(x) => Some(x),
                Outcome::Restart { .. } => Some(o.value(|j| v[j as usize].expect("final"))),
                Outcome::Augmented { .. } => unreachable!(),
            };
            let prev = v.clone();
            for i in (0..n).filter(|&i| tier(i) == t && prev[i].is_none()) {
                let outs: Vec<Option<Value>> = g.succ[i].iter().map(|&o| after(&prev, o)).collect();
                v[i] = super::tests::settled_at(&outs, d);
            }
        }
        for i in (0..n).filter(|&i| tier(i) == t) {
            v[i] = v[i].or(Some(Value::Draw));
        }
    }
    v.into_iter()
        .map(|x| x.expect("every tier settled"))
        .collect()
}

/// A graph game whose tier is [`tier`].
struct Tiered(Graph);

impl Game for Tiered {
    type Position = usize;
    fn name(&self) -> String {
        self.0.name()
    }
    fn params(&self) -> (&'static str, Vec<(String, i64)>) {
        ("graph", Metric::Dtz.param().into_iter().collect())
    }
    fn sections(&self) -> Vec<Section> {
        self.0.sections()
    }
    fn decode(&self, i: Index) -> Option<usize> {
        self.0.decode(i)
    }
    fn encode(&self, p: &usize) -> Index {
        self.0.encode(p)
    }
    fn canonical(&self, p: &usize) -> usize {
        *p
    }
    fn terminal(&self, p: &usize) -> Option<Value> {
        self.0.terminal(p)
    }
    fn successors(&self, p: &usize, out: &mut Vec<Successor>) {
        self.0.successors(p, out)
    }
    fn predecessors(&self, p: &usize, out: &mut Vec<Index>) {
        self.0.predecessors(p, out)
    }
}

fn graphs() -> impl Strategy<Value = Graph> {
    (1usize..40).prop_flat_map(|n| {
        let value = prop_oneof![
            Just(Value::Draw),
            (0u16..6).prop_map(Value::Loss),
            (0u16..6).prop_map(Value::Win),
        ];
        let outcome = (
            0..n,
            value.clone(),
            prop::option::of(value.clone()),
            0u8..10,
        )
            .prop_map(|(j, v, extra, kind)| match kind {
                0..=5 => Outcome::Index(j as Index),
                6 | 7 => Outcome::Restart {
                    index: j as Index,
                    limit: LIMIT,
                    extra,
                },
                _ => Outcome::Known(v),
            });
        super::tests::random_graphs(n, outcome).prop_map(|mut g| {
            let hole = g.hole.clone();
            for (i, s) in g.succ.iter_mut().enumerate() {
                // Moves stay in their tier, restarts go up, and none into unused slots.
                s.retain(|o| match *o {
                    Outcome::Index(j) => !hole[j as usize] && tier(j as usize) == tier(i),
                    Outcome::Restart { index: j, .. } => {
                        !hole[j as usize] && tier(j as usize) > tier(i)
                    }
                    _ => true,
                });
            }
            g
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn restarting_solver_matches_the_definition(g in graphs()) {
        let game = Tiered(g);
        let tier_of = |p: &usize| tier(*p);
        let solved =
            super::restart::solve_values(&game, Some(&tier_of), &SolveOptions { progress: &Silent })
                .unwrap();
        let want = naive(&game.0);
        for (i, w) in want.iter().enumerate() {
            prop_assert_eq!(solved.value(i as Index), *w, "node {}", i);
        }
        // The same records whatever the thread count.
        let again = crate::generate::with_threads(Some(3), || {
            super::restart::solve_values(&game, Some(&tier_of), &SolveOptions { progress: &Silent })
                .unwrap()
        })
        .unwrap();
        let bytes = |r: &dyn Records| {
            let mut out = vec![0u8; 2 * r.slots() as usize];
            r.fill(0, &mut out);
            out
        };
        prop_assert_eq!(bytes(&solved), bytes(&again));
        // Without restarts, one tier for all gives the same (illegal slots found as it goes).
        let restarts = game.0.succ.iter().flatten().any(|o| matches!(o, Outcome::Restart { .. }));
        if !restarts {
            let one = super::restart::solve_values(&game, None, &SolveOptions { progress: &Silent })
                .unwrap();
            prop_assert_eq!(bytes(&solved), bytes(&one));
        }
    }
}

#[test]
fn a_restart_into_an_unsolved_tier_is_refused() {
    // Node 0 (tier 0) restarts into node 3 (tier 0 too): not a higher tier.
    let mut g = Graph::new(
        vec![vec![], vec![], vec![], vec![]],
        vec![None, None, None, Some(Value::Loss(0))],
        vec![false; 4],
    );
    g.succ[0] = vec![Outcome::Restart {
        index: 3,
        limit: LIMIT,
        extra: None,
    }];
    let game = Tiered(g);
    let err = super::restart::solve_values(
        &game,
        Some(&|p: &usize| tier(*p)),
        &SolveOptions { progress: &Silent },
    )
    .err()
    .expect("refused");
    assert!(err.to_string().contains("not in a higher tier"), "{err}");
}

/// The one-byte solver's passes for a graph whose moves may restart, values in plies
/// ([`Metric::Dtz`]), node i in tier `i % tiers`: the solver the chess DTZ tables take.
struct Plies<'g> {
    g: &'g Graph,
    tiers: u8,
}

impl super::one_byte::Passes for Plies<'_> {
    fn slots(&self) -> u64 {
        self.g.succ.len() as u64
    }
    fn metric(&self) -> Metric {
        Metric::Dtz
    }
    fn tiers(&self) -> u8 {
        self.tiers
    }
    fn tier(&self, i: Index) -> u8 {
        (i % self.tiers as Index) as u8
    }
    fn start(
        &self,
        i: Index,
        own: super::one_byte::Own,
        links: &mut Vec<super::one_byte::Link>,
    ) -> Result<super::one_byte::Start, super::SolveError> {
        let i_ = i as usize;
        if self.g.hole[i_] {
            return Ok(super::one_byte::Start::Illegal);
        }
        if let Some(v) = self.g.terminal[i_] {
            return Ok(super::one_byte::Start::Final(v));
        }
        let succ = &self.g.succ[i_];
        let inside = succ.iter().any(|o| matches!(o, Outcome::Index(_)));
        // A restart leaves the tier: its value is known, read from the tier above.
        let exits: Vec<Outcome> = succ
            .iter()
            .filter(|o| !matches!(o, Outcome::Index(_)))
            .map(|o| Outcome::Known(o.value(own)))
            .collect();
        super::one_byte::start_from(i, inside, &exits, links)
    }
    fn legal(&self, i: Index) -> bool {
        !self.g.hole[i as usize]
    }
    fn predecessors(&self, i: Index, mut f: impl FnMut(Index)) {
        let mut out = Vec::new();
        self.g.predecessors(&(i as usize), &mut out);
        out.into_iter().for_each(&mut f);
    }
    fn targets(&self, i: Index, mut ok: impl FnMut(Index) -> bool) -> bool {
        self.g.succ[i as usize].iter().all(|o| match *o {
            Outcome::Index(q) => ok(q),
            _ => true,
        })
    }
    fn slowest_exit(&self, i: Index, own: super::one_byte::Own) -> u16 {
        self.g.succ[i as usize]
            .iter()
            .filter(|o| !matches!(o, Outcome::Index(_)))
            .filter_map(|o| match o.value(own) {
                Value::Win(w) => Some(w),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }
    fn first_move(&self, _: Index, _: impl Fn(Outcome) -> bool) -> u8 {
        unreachable!("distance to zeroing stores no move")
    }
}

fn records(r: &dyn Records) -> Vec<u8> {
    let mut out = vec![0u8; 2 * r.slots() as usize];
    r.fill(0, &mut out);
    out
}

/// The histogram of the values of `r`'s slots `lo..hi` by `metric`'s code, slot by slot
/// (what a writer counts where the records give none of their own).
pub(super) fn tallied(r: &dyn Records, lo: Index, hi: Index, metric: Metric) -> Vec<u64> {
    let mut h = vec![0u64; metric.codes()];
    (lo..hi).for_each(|i| h[metric.code(r.value(i))] += 1);
    h
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn one_byte_solver_by_tiers_writes_the_restarting_solvers_records(g in graphs()) {
        let opts = SolveOptions { progress: &Silent };
        let game = Tiered(g);
        let tier_of = |p: &usize| tier(*p);
        let want = super::restart::solve_values(&game, Some(&tier_of), &opts).unwrap();
        let got = super::one_byte::solve(Plies { g: &game.0, tiers: 3 }, &opts).unwrap();
        prop_assert_eq!(records(&got), records(&want));
        // The whole table, and a range starting and ending inside words of bytes.
        let n = got.slots();
        for (lo, hi) in [(0, n), (n / 3, n - n / 4)] {
            let want = tallied(&want, lo, hi, Metric::Dtz);
            prop_assert_eq!(got.histogram(lo, hi, Metric::Dtz), Some(want));
        }
    }
}

#[test]
fn values_beyond_a_byte_are_kept_apart() {
    // A line of 400 positions, each with one move to the next, the first checkmated: its
    // values, of both parities past 126 plies, are the restarting solver's, and a move out
    // of the table to a loss in 300 plies beside the line's end is won in 301.
    let mut g = super::tests::chain(400);
    g.succ
        .push(vec![Outcome::Index(399), Outcome::Known(Value::Loss(300))]);
    g.terminal.push(None);
    g.hole.push(false);
    let opts = SolveOptions { progress: &Silent };
    let game = Tiered(g);
    let want = super::restart::solve_values(&game, None, &opts).unwrap();
    let got = super::one_byte::solve(
        Plies {
            g: &game.0,
            tiers: 1,
        },
        &opts,
    )
    .unwrap();
    assert_eq!(got.value(399), Value::Win(399));
    assert_eq!(got.value(398), Value::Loss(398));
    assert_eq!(got.value(400), Value::Win(301));
    assert_eq!(records(&got), records(&want));
    let n = got.slots();
    let histogram = tallied(&want, 0, n, Metric::Dtz);
    assert_eq!(got.histogram(0, n, Metric::Dtz), Some(histogram));
}
