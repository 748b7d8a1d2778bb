//! The proof search against exhaustive minimax (`brute.rs`) on small boards: every proof
//! it claims must hold, its stone count must be an upper bound, and it must prove
//! positions whose win starts with a quiet move, which the threat search alone cannot.

use std::time::Duration;

use crate::rules::board::{Board, Color, Rules};
use crate::rules::brute::Exhaustive;
use crate::rules::random::{random_position, Rng};

use super::pns::{prove, ProveConfig};
use super::question_tests::random_question;
use super::quiet::{four_cells, has_double_move, three_cells, winning_cells};
use super::threat::{prove_win_with, SearchConfig};

fn small_cfg(rules: Rules, max_moves: u32) -> ProveConfig {
    ProveConfig {
        width: 64,
        node_limit: 4_000,
        time_limit: Duration::from_secs(10),
        ..ProveConfig::new(rules, max_moves)
    }
}

/// Counts over random positions: (proof-search proofs, minimax wins, threat-search proofs,
/// proofs that needed a quiet move).
fn cross_check(
    w: usize,
    h: usize,
    k: usize,
    positions: usize,
    seed: u64,
    extra: usize,
) -> (u32, u32, u32, u32) {
    let mut rng = Rng(seed);
    let (mut proofs, mut wins, mut threat, mut quiet) = (0, 0, 0, 0);
    for i in 0..positions {
        let Some(mut q) = random_question(&mut rng, i, (w, h, k), extra) else {
            continue;
        };
        wins += q.truth as u32;
        let cfg = small_cfg(q.rules, q.max_moves);
        let res = prove(&q.board, Color::Black, q.black_to_move, cfg);
        if res.proven {
            proofs += 1;
            q.check_claim(res.by_stone);
            if q.black_to_move {
                let t = prove_win_with(
                    &q.board,
                    Color::Black,
                    q.rules,
                    q.budget,
                    SearchConfig::default(),
                );
                threat += t.proven as u32;
                quiet += !t.proven as u32;
            }
        }
    }
    eprintln!("{w}x{h} k={k}: {proofs} proofs, {wins} wins, {threat} by threats, {quiet} quiet");
    (proofs, wins, threat, quiet)
}

#[test]
fn agrees_with_minimax_on_4x4_k3() {
    let (proofs, wins, _, _) = cross_check(4, 4, 3, 1500, 0x1357_9BDF, 3);
    assert!(proofs > 0 && wins > 0);
    // With every cell a candidate on so small a board, the search finds most wins.
    assert!(proofs * 10 >= wins * 9, "{proofs} proofs of {wins} wins");
}

#[test]
fn agrees_with_minimax_on_5x5_k4() {
    let (proofs, wins, _, _) = cross_check(5, 5, 4, 400, 0x2468_ACE0, 4);
    assert!(proofs > 0 && wins > 0);
    assert!(proofs * 10 >= wins * 9, "{proofs} proofs of {wins} wins");
}

/// Random `w` x `h`, k positions, black to move, where white threatens an open four next
/// move (it has a double move) and black has no four: black must block quietly (or lose
/// the tempo). Returns (minimax wins within `d`, threat-search proofs, proof-search proofs);
/// every proof is checked against minimax.
fn blocks(w: usize, h: usize, k: usize, d: u32, positions: usize, seed: u64) -> (u32, u32, u32) {
    let rules = Rules::Standard;
    let mut rng = Rng(seed);
    let (mut wins, mut threat, mut proofs) = (0, 0, 0);
    let mut tried = 0;
    while tried < positions {
        let stones = 2 * (2 + rng.below(w * h / 6));
        let Some(mut b) = random_position(&mut rng, w, h, k, stones, rules) else {
            continue;
        };
        if !has_double_move(&mut b, Color::White, rules)
            || !four_cells(&b, Color::Black, rules).is_empty()
            || !winning_cells(&b, Color::White, rules).is_empty()
        {
            continue;
        }
        tried += 1;
        let mut ex = Exhaustive::new(Color::Black, rules);
        if !ex.wins(&mut b, d) {
            continue;
        }
        wins += 1;
        threat += prove_win_with(&b, Color::Black, rules, d, SearchConfig::default()).proven as u32;
        let limit = b.count(Color::Black) + d;
        let r = prove(&b, Color::Black, true, small_cfg(rules, limit));
        if r.proven {
            proofs += 1;
            let m = (r.by_stone - b.stones()).div_ceil(2);
            assert!(m <= d && ex.wins(&mut b, m), "unsound:{b:?}");
        }
    }
    (wins, threat, proofs)
}

#[test]
fn agrees_with_minimax_where_black_must_block_an_open_three() {
    let (wins, threat, proofs) = blocks(6, 6, 4, 4, 60, 0xB10C_0001);
    eprintln!("6x6 k=4 blocks: {wins} wins, {threat} by threats, {proofs} by the proof search");
    assert!(wins > 0, "no winning position sampled");
    assert_eq!(proofs, wins, "every sampled win is proven");
}

/// Every opening of `w` x `h`, k with `pairs` black and white stones each, black to move:
/// (black wins by minimax within `max` moves, the threat search alone proves it, the proof
/// search proves it). Every proof is checked against minimax.
fn openings(w: usize, h: usize, k: usize, max: u32) -> (u32, u32, u32) {
    let rules = Rules::Standard;
    let (mut wins, mut threat, mut proofs) = (0, 0, 0);
    let cells = w * h;
    for b0 in 0..cells {
        for w0 in 0..cells {
            if w0 == b0 {
                continue;
            }
            let mut b = Board::new(w, h, k).expect("size");
            b.place(b0, Color::Black);
            b.place(w0, Color::White);
            let mut ex = Exhaustive::new(Color::Black, rules);
            let Some(d) = (1..=max).find(|&d| ex.wins(&mut b, d)) else {
                continue;
            };
            wins += 1;
            let limit = 1 + d;
            threat +=
                prove_win_with(&b, Color::Black, rules, d, SearchConfig::default()).proven as u32;
            let r = prove(&b, Color::Black, true, small_cfg(rules, limit));
            if r.proven {
                proofs += 1;
                let m = (r.by_stone - b.stones()).div_ceil(2);
                assert!(m <= d && ex.wins(&mut b, m), "unsound:{b:?}");
            }
        }
    }
    (wins, threat, proofs)
}

#[test]
fn agrees_with_minimax_on_every_4x4_k3_opening() {
    let (wins, threat, proofs) = openings(4, 4, 3, 4);
    assert!(wins > 100, "{wins}");
    assert_eq!(proofs, wins, "{threat} by threats alone");
}

/// A 15x15 position from a move list.
fn gomoku(moves: &str) -> Board {
    let mut b = Board::gomoku();
    for (i, name) in moves.split_whitespace().enumerate() {
        let c = b.parse_cell(name).expect("cell");
        b.place(
            c,
            if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            },
        );
    }
    b
}

/// Hand-built 15x15 positions: two black stones a knight's move apart (and one diagonal),
/// white's stones in far corners. No four or three wins at once, so the threat search
/// finds nothing; a quiet move that builds twos in several lines does.
#[test]
fn quiet_first_moves_win_on_15x15() {
    for moves in ["h8 a1 i9 o15", "h8 a1 j8 o15"] {
        let b = gomoku(moves);
        let t = prove_win_with(
            &b,
            Color::Black,
            Rules::Standard,
            16,
            SearchConfig::default(),
        );
        assert!(!t.proven, "{moves}: the threat search alone proves it");
        let cfg = ProveConfig::new(Rules::Standard, 18);
        let r = prove(&b, Color::Black, true, cfg);
        assert!(r.proven, "{moves}: {}", r.stopped);
        assert!(
            r.by_stone <= 35 && r.by_stone > b.stones(),
            "{moves}: {}",
            r.by_stone
        );
        let (mv, _) = r
            .root_tries
            .iter()
            .find(|t| t.1 == "proven")
            .copied()
            .expect("a proven move");
        let mut after = b.clone();
        after.place(mv as usize, Color::Black);
        assert!(
            winning_cells(&after, Color::Black, Rules::Standard).is_empty()
                && !has_double_move(&mut after, Color::Black, Rules::Standard),
            "{moves}: {} is a threat, not a quiet move",
            b.cell_name(mv as usize)
        );
    }
}

/// A hand-built 13x13, k=4 position, black to move, 17 empty cells. White's m13 would make
/// two fours (m12-m11 and l12-k11), so black must block there; the block builds nothing
/// for black (every black window through it holds a white stone). Before the block,
/// black's winning idea (c11 or i5, each making two open twos) loses to m13; after it,
/// white cannot spoil both. The filler leaves no window with two stones of one colour and
/// none of the other, so neither side has any other four.
const QUIET_BLOCK_13X13: [&str; 13] = [
    "xxoxxoooxxxo.",
    "ox.oxxxoxoxoo",
    "o..x..oxxxooo",
    "ooxooxoxo.ox.",
    "xo.xxoxoxxxox",
    "ox.xooxoxoxoo",
    "oooxoxxoooxxx",
    "oxxooxox.xoxo",
    "xxxoxxo..x..o",
    "oxxoxoxoxooox",
    "xooxooxo.xxoo",
    "oxoxooox.xoxx",
    "xooxoxxxoxoox",
];

/// The only winning first move is a quiet block (neither a four nor a three cell, the
/// proof search's own test for "quiet"): minimax finds the win in 4 black stones and no
/// other first move that wins; the threat search alone fails; the proof search proves it
/// by black's 4th stone, starting with the block.
#[test]
fn proves_a_win_whose_only_first_move_is_a_quiet_block() {
    let rules = Rules::Standard;
    let mut b = Board::from_rows(&QUIET_BLOCK_13X13, 4).expect("board");
    assert_eq!(b.count(Color::Black), b.count(Color::White));
    assert!(winning_cells(&b, Color::Black, rules).is_empty());
    assert!(winning_cells(&b, Color::White, rules).is_empty());
    assert!(has_double_move(&mut b, Color::White, rules));
    let block = b.parse_cell("m13").expect("cell");

    let mut ex = Exhaustive::new(Color::Black, rules);
    assert!(!ex.wins(&mut b, 3), "black wins sooner than designed");
    assert!(ex.wins(&mut b, 4), "black does not win within 4 stones");
    let mut winners = Vec::new();
    let empties: Vec<usize> = (0..b.cells()).filter(|&c| b.is_empty(c)).collect();
    assert_eq!(empties.len(), 17);
    for c in empties {
        b.place(c, Color::Black);
        if ex.wins_defender_to_move(&mut b, 3) {
            winners.push(c);
        }
        b.remove(c, Color::Black);
    }
    assert_eq!(winners, vec![block], "winning first moves");
    assert!(!four_cells(&b, Color::Black, rules).contains(&block));
    assert!(!three_cells(&b, Color::Black, rules).contains(&block));

    let t = prove_win_with(&b, Color::Black, rules, 4, SearchConfig::default());
    assert!(!t.proven, "the threat search alone proves it");

    let limit = b.count(Color::Black) + 4;
    let r = prove(&b, Color::Black, true, small_cfg(rules, limit));
    assert!(r.proven, "{}", r.stopped);
    // Black's 4th stone from here: stones 153, 155, 157, 159.
    assert_eq!(r.by_stone, b.stones() + 7);
    let first = r.root_tries.iter().find(|t| t.1 == "proven").map(|t| t.0);
    assert_eq!(first, Some(block as u16));
}

/// The threat-node limit and the stop flag end a search early with "not proven" and say
/// why; without them the same search proves the position.
#[test]
fn threat_node_limit_and_stop_end_the_search() {
    use super::pns::{ProofSearch, STOPPED_FROM_OUTSIDE};
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    // A quiet win on 15x15 (the threat search alone does not prove it).
    let mut b = Board::gomoku();
    for (i, name) in ["h8", "a1", "i9", "o15"].iter().enumerate() {
        let c = b.parse_cell(name).expect("cell");
        b.place(
            c,
            if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            },
        );
    }
    let cfg = ProveConfig::new(Rules::Standard, 18);
    let full = prove(&b, Color::Black, true, cfg);
    assert!(full.proven, "{}", full.stopped);
    assert!(full.threat_nodes > 1_000);
    let capped = prove(
        &b,
        Color::Black,
        true,
        ProveConfig {
            total_threat_nodes: 1_000,
            ..cfg
        },
    );
    assert!(!capped.proven);
    assert_eq!(capped.stopped, "threat-search node limit (1000) reached");
    // Far fewer nodes than the full search: it stops soon after the limit.
    assert!(
        capped.threat_nodes < full.threat_nodes,
        "{}",
        capped.threat_nodes
    );
    let stopped = ProofSearch::new(Color::Black, cfg)
        .with_stop(Arc::new(AtomicBool::new(true)))
        .run(&b, true);
    assert!(!stopped.proven);
    assert_eq!(stopped.stopped, STOPPED_FROM_OUTSIDE);
}
