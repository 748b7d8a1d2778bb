//! The validator's tests: hand-built 15x15 strategies and ones exported from exhaustive
//! search on small boards.

mod tests {
    use super::super::options::Options;
    use super::super::report::Reason;
    use super::super::strategy::Strategy;
    use super::super::validator::validate;
    use crate::rules::board::{Board, Color, Rules};
    use crate::rules::brute::Exhaustive;
    use crate::search::threat::SearchConfig;

    fn opts(rules: Rules, max_moves: u32) -> Options {
        Options {
            search: SearchConfig::default(),
            // The threat search alone: these tests are about its holes.
            proof: None,
            ..Options::new(rules, max_moves)
        }
    }

    /// Fours only: on 4x4 the full search proves every reply, so tests that need listed
    /// replies use this weaker search both to export and to validate.
    fn vcf() -> SearchConfig {
        SearchConfig {
            vct: false,
            ..SearchConfig::default()
        }
    }

    fn vcf_opts(max_moves: u32) -> Options {
        Options {
            search: vcf(),
            ..opts(Rules::Standard, max_moves)
        }
    }

    const FORK_SETUP: &str =
        r#""setup": {"black": ["e8", "f8", "g9", "g10"], "white": ["a1", "a3", "o1", "o15"]}"#;

    fn fork(strategy: &str, max_moves: u32) -> Strategy {
        let text = format!(
            r#"{{"format": "retro-gomoku-strategy/1", "width": 15, "height": 15, "k": 5, "rules": "standard",
                "max_moves": {max_moves}, {FORK_SETUP}, "strategy": {strategy}}}"#
        );
        Strategy::from_json(&text).expect("test strategy parses")
    }

    fn names(s: &Strategy, path: &[u16]) -> String {
        path.iter()
            .map(|&c| s.start.cell_name(c as usize))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn hand_built_fork_is_valid() {
        let s = fork(r#"{"g8": 3}"#, 10);
        let r = validate(&s, &opts(Rules::Standard, 10));
        assert!(r.valid(), "{r}");
        // 4 setup stones + g8 + open four + five.
        assert_eq!(r.longest, 7);
        assert_eq!(r.black_moves, 1);
        assert_eq!(r.leaves, 1);
        assert!(r.replies_proven >= 200);
    }

    #[test]
    fn changed_black_move_fails_at_that_node() {
        // With g8, 7 black moves suffice; a15 wastes the tempo.
        let s = fork(r#"{"g8": 3}"#, 7);
        assert!(validate(&s, &opts(Rules::Standard, 7)).valid());
        let s = fork(r#"{"a15": 3}"#, 7);
        let r = validate(&s, &opts(Rules::Standard, 7));
        assert!(!r.valid());
        let f = &r.failures[0];
        assert_eq!(f.path.len(), 2, "{r}");
        assert_eq!(names(&s, &f.path[..1]), "a15");
        assert!(
            matches!(
                f.reason,
                Reason::ReplyNotProven { .. } | Reason::LeafNotProven { .. }
            ),
            "{r}"
        );
    }

    #[test]
    fn illegal_move_and_limit_are_reported() {
        let s = fork(r#"{"e8": 3}"#, 10);
        let r = validate(&s, &opts(Rules::Standard, 10));
        assert_eq!(r.failures[0].reason, Reason::Occupied { black: true });
        assert_eq!(names(&s, &r.failures[0].path), "e8");
        let s = fork(r#"{"g8": {"e8": 3}}"#, 10);
        let r = validate(&s, &opts(Rules::Standard, 10));
        assert_eq!(r.failures[0].reason, Reason::Occupied { black: false });
        assert_eq!(names(&s, &r.failures[0].path), "g8 e8");
        let s = fork(r#"{"g8": 3}"#, 4);
        let r = validate(&s, &opts(Rules::Standard, 4));
        assert_eq!(r.failures[0].reason, Reason::LimitExceeded { max_moves: 4 });
        // Enough moves for g8 but not for the win: 5 black stones after g8, limit 6.
        let r = validate(&s, &opts(Rules::Standard, 6));
        assert!(!r.valid());
    }

    #[test]
    fn white_five_after_an_ignored_four_is_a_hole() {
        // Black has an open four but plays a1; white completes its own five at c10 or h10.
        let text = r#"{"format": "retro-gomoku-strategy/1", "max_moves": 10,
            "setup": {"black": ["d8", "e8", "f8", "g8"], "white": ["d10", "e10", "f10", "g10"]},
            "strategy": {"a1": 1}}"#;
        let s = Strategy::from_json(text).expect("parse");
        let r = validate(&s, &opts(Rules::Standard, 10));
        assert!(!r.valid());
        assert_eq!(names(&s, &r.failures[0].path), "a1 c10", "{r}");
        // Black's own five instead: valid.
        let s = Strategy::from_json(&text.replace("a1", "c8")).expect("parse");
        assert!(validate(&s, &opts(Rules::Standard, 10)).valid());
    }

    #[test]
    fn unprovable_leaf_is_reported() {
        let text = r#"{"format": "retro-gomoku-strategy/1", "strategy": {"h8": {"h9": 5}}}"#;
        let s = Strategy::from_json(text).expect("parse");
        let r = validate(&s, &opts(Rules::Standard, 35));
        assert!(!r.valid());
        // The first failure is at the first black move (white's replies to h8 alone).
        assert_eq!(names(&s, &r.failures[0].path[..1]), "h8");
        assert!(r
            .failures
            .iter()
            .any(|f| matches!(f.reason, Reason::LeafNotProven { claim: 5, .. })));
    }

    /// Several failing tasks: the first listed reply's leaf, the second's, and the replies
    /// a8 leaves unlisted. Going on lists all three; stopping at the first lists one and
    /// says how many tasks ran.
    #[test]
    fn stop_at_first_reports_one_failure_and_stops() {
        let s = fork(r#"{"a8": {"b1": {"b8": 3}, "c1": {"c8": 3}}}"#, 7);
        let all = validate(&s, &opts(Rules::Standard, 7));
        assert_eq!(all.failures.len(), 3, "{all}");
        assert_eq!(all.stopped_early, None);
        let first = Options {
            stop_at_first: true,
            ..opts(Rules::Standard, 7)
        };
        let r = validate(&s, &first);
        assert_eq!(r.failures.len(), 1, "{r}");
        assert!(
            all.failures.iter().any(|f| f.path == r.failures[0].path),
            "the failure is one of the three:\n{r}"
        );
        let (ran, tasks) = r.stopped_early.expect("stopped early");
        assert_eq!(tasks, 3);
        assert!(ran <= tasks);
        // A failure of the walk needs no search: no task runs.
        let s = fork(r#"{"a8": {"b1": {"e8": 3}, "c1": {"c8": 3}}}"#, 7);
        let r = validate(&s, &first);
        assert_eq!(r.failures.len(), 1, "{r}");
        assert_eq!(r.failures[0].reason, Reason::Occupied { black: true });
        assert_eq!(r.stopped_early, Some((0, 2)), "{r}");
        assert_eq!(r.searches, 0);
        // A valid graph runs to the end either way.
        let s = fork(r#"{"g8": 3}"#, 10);
        let r = validate(
            &s,
            &Options {
                stop_at_first: true,
                ..opts(Rules::Standard, 10)
            },
        );
        assert!(r.valid(), "{r}");
        assert_eq!(r.stopped_early, None);
    }

    /// Two move orders to one position (black wastes a15 and b15, white d13 and k13, and
    /// black plays the fork at g8 before or after b15; a second fork at m3 keeps every
    /// position won): the position is checked once, and a hole there is reported once.
    #[test]
    fn a_position_reached_twice_is_checked_once() {
        let strategy = |max_moves: u32| {
            let text = r#"{"format": "retro-gomoku-strategy/1", "max_moves": MAX,
                "setup": {"black": ["e8", "f8", "g9", "g10", "k3", "l3", "m4", "m5"],
                          "white": ["a1", "a6", "a11", "o1", "o15", "h1", "h15", "o8"]},
                "strategy": {"a15": {"k13": {"b15": {"d13": {"g8": 3}}},
                                     "d13": {"g8": {"k13": {"b15": 3}}}}}}"#;
            Strategy::from_json(&text.replace("MAX", &max_moves.to_string())).expect("parse")
        };
        // 11 black stones after the last move, the fork on the board: 2 more win.
        let r = validate(&strategy(13), &opts(Rules::Standard, 13));
        assert!(r.valid(), "{r}");
        assert_eq!(r.repeated, 1, "{r}");
        // One stone short: the repeated position fails (as does the one before it on the
        // path where g8 comes last), and it is reported once.
        let s = strategy(12);
        let r = validate(&s, &opts(Rules::Standard, 12));
        assert_eq!(r.repeated, 1, "{r}");
        let at_end: Vec<String> = r
            .failures
            .iter()
            .filter(|f| f.path.len() > 5)
            .map(|f| names(&s, &f.path[..5]))
            .collect();
        assert_eq!(at_end.len(), 1, "{r}");
        assert!(
            at_end[0] == "a15 k13 b15 d13 g8" || at_end[0] == "a15 d13 g8 k13 b15",
            "{r}"
        );
    }

    /// The proof search on the holes: closed within the budget, left open (and said so)
    /// once the budget is spent.
    #[test]
    fn spent_proof_budget_leaves_holes_open() {
        let text = r#"{"format": "retro-gomoku-strategy/1", "max_moves": 18,
            "setup": {"black": ["h8", "i9", "b3", "c3", "d3"], "white": ["a3", "o15", "a15", "o1", "a13"]},
            "strategy": {"e3": {"f3": 17}}}"#;
        let s = Strategy::from_json(text).expect("parse");
        let with = Options::new(Rules::Standard, 18);
        let r = validate(&s, &with);
        assert!(r.valid(), "{r}");
        assert_eq!(r.repairs.len(), 1, "{r}");
        let spent = Options {
            proof_budget: std::time::Duration::ZERO,
            ..with
        };
        let r = validate(&s, &spent);
        assert!(!r.valid(), "{r}");
        assert!(r.repairs.is_empty());
        assert_eq!(r.unclosed.len(), 1, "{r}");
        assert!(r.unclosed[0].budget_spent, "{r}");
    }

    /// Strategy exported from exhaustive search on 4x4, k = 3 (from the empty board).
    fn exported_4x4() -> (Strategy, u32) {
        let mut b = Board::new(4, 4, 3).expect("size");
        let mut ex = Exhaustive::new(Color::Black, Rules::Standard);
        let d = (1..=6)
            .find(|&d| ex.wins(&mut b, d))
            .expect("black wins 4x4 k=3");
        let root = super::super::export::export(&mut ex, &mut b, d, SearchConfig::default())
            .expect("export");
        (
            Strategy {
                start: b,
                rules: Some(Rules::Standard),
                max_moves: Some(d),
                root,
                seed_format: false,
            },
            d,
        )
    }

    #[test]
    fn exported_4x4_k3_strategy_is_valid() {
        let (s, d) = exported_4x4();
        let r = validate(&s, &opts(Rules::Standard, d));
        assert!(r.valid(), "{r}");
        assert!(r.longest <= d);
        // The same strategy round-trips through the project format.
        let again = Strategy::from_json(&s.to_project_json().to_string()).expect("reparse");
        assert!(validate(&again, &opts(Rules::Standard, d)).valid());
    }

    #[test]
    fn exported_4x4_k3_with_a_losing_first_move_fails_there() {
        let (s, d) = exported_4x4();
        let mut b = s.start.clone();
        let mut ex = Exhaustive::new(Color::Black, Rules::Standard);
        let bad = (0..b.cells()).find(|&c| {
            b.place(c, Color::Black);
            let wins = ex.wins_defender_to_move(&mut b, d - 1);
            b.remove(c, Color::Black);
            !wins
        });
        let bad = bad.expect("4x4 k=3 has a first move that does not win in time");
        let mut changed = s.clone();
        changed.root.mv = bad as u16;
        let r = validate(&changed, &opts(Rules::Standard, d));
        assert!(!r.valid(), "a losing first move must not validate");
        assert_eq!(r.failures[0].path[0] as usize, bad);
    }

    /// 15x15: black's row-2 three is closed at a2, so e2 is a four that white must block at
    /// f2; then g8 makes two open threes (e8 f8 g8, g8 g9 g10).
    fn four_then_fork(tree: &str) -> Strategy {
        let text = format!(
            r#"{{"format": "retro-gomoku-strategy/1", "rules": "standard", "max_moves": 11,
                "setup": {{"black": ["e8", "f8", "g9", "g10", "b2", "c2", "d2"],
                           "white": ["a2", "o15", "o10", "o5", "k15", "e15", "a15"]}},
                "strategy": {tree}}}"#
        );
        Strategy::from_json(&text).expect("test strategy parses")
    }

    #[test]
    fn listed_branch_needed_by_a_fours_only_search() {
        let s = four_then_fork(r#"{"e2": {"f2": {"g8": 3}}}"#);
        let r = validate(&s, &vcf_opts(11));
        assert!(r.valid(), "{r}");
        assert_eq!(r.listed_replies, 1);
        // Branch removed: the fours-only search cannot prove f2 on its own.
        let cut = four_then_fork(r#"{"e2": 4}"#);
        let r = validate(&cut, &vcf_opts(11));
        assert!(!r.valid());
        assert_eq!(names(&cut, &r.failures[0].path), "e2 f2", "{r}");
        assert!(
            matches!(
                r.failures[0].reason,
                Reason::LeafNotProven {
                    black_to_move: false,
                    ..
                }
            ),
            "{r}"
        );
        // The full search (threes too) proves it without the branch.
        assert!(validate(&cut, &opts(Rules::Standard, 11)).valid());
    }

    #[test]
    fn changed_black_move_in_a_listed_line_fails_there() {
        // Black's g8 replaced by a quiet a8: the fork is gone.
        let s = four_then_fork(r#"{"e2": {"f2": {"a8": 3}}}"#);
        let r = validate(&s, &vcf_opts(11));
        assert!(!r.valid());
        let p = names(&s, &r.failures[0].path);
        assert!(p.starts_with("e2 f2 a8 "), "{p}\n{r}");
        assert_eq!(r.failures[0].path.len(), 4);
    }
}

mod test_data {
    use super::super::strategy::Strategy;
    use crate::rules::board::{Board, Color, Rules};
    use crate::rules::brute::Exhaustive;
    use crate::search::threat::SearchConfig;

    /// `tests/data/gomoku/k3_4x4.json`, the exhaustive 4x4 k=3 strategy the CLI tests
    /// validate, is exactly what the exporter produces (a golden file). To rewrite it after a
    /// deliberate change: `RETRO_BLESS=1 cargo test --release gomoku_test_data`.
    #[test]
    fn gomoku_test_data_is_current() {
        let mut b = Board::new(4, 4, 3).expect("size");
        let mut ex = Exhaustive::new(Color::Black, Rules::Standard);
        let d = (1..=6).find(|&d| ex.wins(&mut b, d)).expect("black wins");
        let root = super::super::export::export(&mut ex, &mut b, d, SearchConfig::default())
            .expect("export");
        let s = Strategy {
            start: b,
            rules: Some(Rules::Standard),
            max_moves: Some(d),
            root,
            seed_format: false,
        };
        let text = serde_json::to_string_pretty(&s.to_project_json()).expect("json");
        // The crate is games/gomoku/; the data is the workspace's, in tests/data/gomoku/.
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/data/gomoku/k3_4x4.json");
        if std::env::var_os("RETRO_BLESS").is_some() {
            std::fs::write(&path, text + "\n").expect("write");
        } else {
            let committed = std::fs::read_to_string(&path).expect("golden file");
            assert_eq!(
                committed,
                text + "\n",
                "exporter output changed: {}",
                path.display()
            );
        }
    }
}
