//! The one-byte solver against the two-queue solver: the same records on random game
//! graphs (cycles, draws, moves leaving the table, en-passant-like links), whatever the
//! thread count.

use proptest::prelude::*;

use super::tests::{chain, graphs};
use crate::game::*;
use crate::progress::Silent;

fn one_byte(g: &crate::testgame::Graph) -> Result<Solution, super::SolveError> {
    let opts = SolveOptions { progress: &Silent };
    let passes = super::one_byte::GamePasses(g);
    Ok(super::one_byte::solve(passes, &opts)?.to_solution(&Silent))
}

/// [`GamePasses`](super::one_byte::GamePasses) changed two ways.
struct Tuned<'g> {
    game: super::one_byte::GamePasses<'g, crate::testgame::Graph>,
    /// `Some`: saying how deep their moves out of the table go; the solver then keeps its
    /// never-lost marks in a value byte
    /// ([`Passes::deepest_exit`](super::one_byte::Passes::deepest_exit)) until the solve
    /// gets deep.
    deepest: Option<u16>,
    /// In groups of eight slots that tell the slots with no move
    /// ([`Passes::group_movable`](super::one_byte::Passes::group_movable)): the solver then
    /// notes a proposed candidate by its group alone, and checks every unknown slot of the
    /// group. Terminal draws start open, as chess leaves its stalemates: no move refutes
    /// them, and only `group_movable` keeps them from being lost.
    grouped: bool,
}

impl super::one_byte::Passes for Tuned<'_> {
    fn slots(&self) -> u64 {
        self.game.slots()
    }
    fn group(&self) -> usize {
        if self.grouped {
            8
        } else {
            1
        }
    }
    fn start(
        &self,
        i: Index,
        own: super::one_byte::Own,
        links: &mut Vec<super::one_byte::Link>,
    ) -> Result<super::one_byte::Start, super::SolveError> {
        let g = self.game.0;
        if self.grouped && !g.hole[i as usize] && g.terminal[i as usize] == Some(Value::Draw) {
            return Ok(super::one_byte::Start::Open {
                win: None,
                keep: false,
                slowest: 0,
            });
        }
        self.game.start(i, own, links)
    }
    fn legal(&self, i: Index) -> bool {
        self.game.legal(i)
    }
    fn predecessors(&self, i: Index, f: impl FnMut(Index)) {
        self.game.predecessors(i, f)
    }
    fn targets(&self, i: Index, ok: impl FnMut(Index) -> bool) -> bool {
        self.game.targets(i, ok)
    }
    fn slowest_exit(&self, i: Index, own: super::one_byte::Own) -> u16 {
        self.game.slowest_exit(i, own)
    }
    fn first_move(&self, i: Index, wanted: impl Fn(Outcome) -> bool) -> u8 {
        self.game.first_move(i, wanted)
    }
    fn deepest_exit(&self) -> u16 {
        self.deepest.unwrap_or_else(|| self.game.deepest_exit())
    }
    fn group_movable(&self, first: Index, mask: u64) -> Option<u64> {
        let succ = &self.game.0.succ;
        let moves = |b: &Index| {
            succ[(first + b) as usize]
                .iter()
                .any(|o| matches!(o, Outcome::Index(_)))
        };
        let movable = super::one_byte::bits(mask).filter(moves);
        self.grouped.then(|| movable.fold(0, |m, b| m | 1 << b))
    }
}

fn solve_tuned(g: &crate::testgame::Graph, deepest: Option<u16>, grouped: bool) -> Solution {
    let opts = SolveOptions { progress: &Silent };
    let game = super::one_byte::GamePasses(g);
    let passes = Tuned {
        game,
        deepest,
        grouped,
    };
    super::one_byte::solve(passes, &opts)
        .unwrap()
        .to_solution(&Silent)
}

/// The solver told how deep `g`'s moves out of the table go.
fn one_byte_shallow(g: &crate::testgame::Graph) -> Solution {
    let deepest = g
        .succ
        .iter()
        .flatten()
        .filter_map(|o| match o {
            Outcome::Known(Value::Win(p) | Value::Loss(p)) => Some(*p),
            Outcome::Augmented {
                extra: Value::Win(p) | Value::Loss(p),
                ..
            } => Some(*p),
            _ => None,
        })
        .max()
        .unwrap_or(0);
    solve_tuned(g, Some(deepest), false)
}

/// The one-byte solver's histogram of `g`'s values (DTM's codes), over the whole table and
/// over a range starting and ending inside words of bytes, against `want`'s slot by slot;
/// and its records without best moves, value by value.
fn same_histograms(g: &crate::testgame::Graph, want: &Solution) -> Result<(), TestCaseError> {
    use crate::table::Metric;
    let opts = SolveOptions { progress: &Silent };
    let solved = super::one_byte::solve(super::one_byte::GamePasses(g), &opts).unwrap();
    let n = want.slots();
    for (lo, hi) in [(0, n), (n / 3, n - n / 4)] {
        let counted = super::restart_tests::tallied(want, lo, hi, Metric::Dtm);
        prop_assert_eq!(solved.histogram(lo, hi, Metric::Dtm), Some(counted));
    }
    // Its records made without best moves (a table compressed as it is solved) hold the
    // same values, from a slot inside a word of bytes on.
    let first = n / 5;
    let mut out = vec![0u8; 2 * (n - first) as usize];
    solved.fill_values(first, &mut out);
    for (k, r) in out.chunks_exact(2).enumerate() {
        let i = first + k as u64;
        prop_assert_eq!(Metric::Dtm.value([r[0], r[1]]), want.value(i), "node {}", i);
    }
    Ok(())
}

/// Every node's value and best move alike in `got` and `want`, the first that differs named.
fn same_records(got: &Solution, want: &Solution) -> Result<(), TestCaseError> {
    prop_assert_eq!(got.slots(), want.slots());
    for i in 0..want.slots() {
        prop_assert_eq!(
            (got.value(i), got.mv(i)),
            (want.value(i), want.mv(i)),
            "node {}",
            i
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn one_byte_writes_the_two_queue_records(g in graphs()) {
        let want = super::two_queue::solve(&g, &SolveOptions { progress: &Silent }).unwrap();
        let got = one_byte(&g).unwrap();
        same_records(&got, &want)?;
        same_histograms(&g, &want)?;
    }

    /// With moves out of the table no deeper than they are, the never-lost marks and the
    /// candidates are kept in bytes no value holds yet, until the solve gets deep.
    #[test]
    fn never_lost_and_candidate_marks_in_a_byte_change_nothing(g in graphs()) {
        let want = super::two_queue::solve(&g, &SolveOptions { progress: &Silent }).unwrap();
        let got = one_byte_shallow(&g);
        same_records(&got, &want)?;
    }

    /// Candidates noted by their group, every unknown slot of it checked: a slot not
    /// proposed cannot pass, a terminal draw left open aside.
    #[test]
    fn candidates_by_whole_groups_change_nothing(g in graphs()) {
        let want = super::two_queue::solve(&g, &SolveOptions { progress: &Silent }).unwrap();
        let got = solve_tuned(&g, None, true);
        same_records(&got, &want)?;
    }

    #[test]
    fn one_byte_bytes_do_not_depend_on_the_thread_count(g in graphs()) {
        let solve = |t| crate::generate::with_threads(Some(t), || one_byte(&g).unwrap()).unwrap();
        prop_assert_eq!(solve(1), solve(3));
        let shallow =
            |t| crate::generate::with_threads(Some(t), || one_byte_shallow(&g)).unwrap();
        prop_assert_eq!(shallow(1), shallow(3));
        let grouped =
            |t| crate::generate::with_threads(Some(t), || solve_tuned(&g, None, true)).unwrap();
        prop_assert_eq!(grouped(1), grouped(3));
    }
}

#[test]
fn the_longest_loss_is_solved_and_one_ply_more_is_refused() {
    let sol = one_byte(&chain(255)).unwrap();
    assert_eq!(sol.value(254), Value::Loss(MAX_LOSS_PLIES));
    assert_eq!(sol.value(253), Value::Win(MAX_WIN_PLIES));
    assert_eq!((sol.mv(0), sol.mv(254)), (NO_MOVE, 1));
    // The never-lost marks and the candidates move to their own bits before the last
    // depths.
    assert_eq!(one_byte_shallow(&chain(255)), sol);
    // By whole groups, no candidate marked in a byte, however deep.
    assert_eq!(solve_tuned(&chain(255), None, true), sol);
    // So deep that a bit marks the illegal slots: the checkmates' byte is read slot by slot.
    same_histograms(&chain(255), &sol).unwrap();
    let err = one_byte(&chain(256)).unwrap_err();
    assert!(matches!(err, super::SolveError::TooDeep(255)), "{err}");
}

#[test]
fn never_lost_marks_survive_the_move_to_their_own_bits() {
    // Beside the longest line, two positions whose move out of the table draws: one also
    // moves to the line's loss in 252 plies, so it is won in 253, a value found only after
    // the marks have left the byte that value needs; the other moves to a win, so it stays
    // a draw.
    let mut g = chain(255);
    g.succ
        .push(vec![Outcome::Known(Value::Draw), Outcome::Index(252)]);
    g.succ
        .push(vec![Outcome::Known(Value::Draw), Outcome::Index(251)]);
    g.terminal.extend([None, None]);
    g.hole.extend([false, false]);
    let want = super::two_queue::solve(&g, &SolveOptions { progress: &Silent }).unwrap();
    let got = one_byte_shallow(&g);
    assert_eq!(
        (got.value(255), got.value(256)),
        (Value::Win(253), Value::Draw)
    );
    assert_eq!(got, want);
}
