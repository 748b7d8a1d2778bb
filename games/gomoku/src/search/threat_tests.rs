//! The threat search against exhaustive minimax on small boards, every zone claim
//! included, and hand-built 15x15 cases.

use crate::rules::board::{Board, Color, Rules};
use crate::rules::brute::Exhaustive;
use crate::rules::cellset::bb_has;
use crate::rules::random::{random_boards, random_position, Rng};

use super::threat::*;

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
                    .filter(|&(c1, c2)| !crate::rules::board::share_window(&b, c1, c2))
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

/// The three moves and the double moves each hands to the AND node, against counting after
/// every empty cell: a cell gives the attacker a double move (having none before, and not
/// being a four-maker) exactly when it is listed, with exactly those double moves.
#[test]
fn three_moves_list_every_three_and_its_double_moves() {
    let (mut positions, mut threes) = (0, 0);
    for (b, rules) in random_boards(0x7487_EE5D, 400, 9, 5, 4, 24) {
        let att = Color::Black;
        let mut s = Searcher::new(&b, att, rules, SearchConfig::default());
        if s.pos.wins(att) > 0 || !s.pos.double_moves(att).is_empty() {
            continue;
        }
        positions += 1;
        let fours = s.pos.fbb[att.idx()];
        let listed = s.three_moves(&fours);
        for cell in (0..b.cells()).filter(|&c| b.is_empty(c) && !bb_has(&fours, c)) {
            s.pos.place(cell, att);
            let mut doubles = s.pos.double_moves(att);
            s.pos.remove(cell, att);
            let three = listed.iter().find(|t| t.cell as usize == cell);
            match three {
                None => assert!(doubles.is_empty(), "{b:?} {cell} unlisted: {doubles:?}"),
                Some(t) => {
                    let mut given = t.doubles().expect("few double moves").to_vec();
                    given.sort_unstable();
                    doubles.sort_unstable();
                    assert_eq!(given, doubles, "{b:?} three {cell} ({rules})");
                    threes += 1;
                }
            }
        }
    }
    assert!(
        positions > 200 && threes > 500,
        "{positions} positions, {threes} threes"
    );
}
