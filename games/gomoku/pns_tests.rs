//! The proof search against exhaustive minimax (`brute.rs`) on small boards: every proof
//! it claims must hold, its stone count must be an upper bound, and it must prove
//! positions whose win starts with a quiet move, which the threat search alone cannot.

use std::time::Duration;

use super::board::{Board, Color, Rules};
use super::brute::Exhaustive;
use super::pns::{prove, ProveConfig};
use super::threat::{prove_win_with, SearchConfig};

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

/// A random position with `stones` stones (black first), nobody with a winning row.
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
fn cross_check(w: usize, h: usize, k: usize, positions: usize, seed: u64) -> (u32, u32, u32, u32) {
    let mut rng = Rng(seed);
    let (mut proofs, mut wins, mut threat, mut quiet) = (0, 0, 0, 0);
    for i in 0..positions {
        let rules = if i % 2 == 0 {
            Rules::Standard
        } else {
            Rules::Freestyle
        };
        // An even count: black to move; odd: white to move.
        let stones = 1 + rng.below(w * h / 2);
        let Some(mut b) = random_position(&mut rng, w, h, k, stones, rules) else {
            continue;
        };
        let black_to_move = stones % 2 == 0;
        let blacks = b.count(Color::Black);
        let max_moves = blacks + 1 + rng.below(3) as u32;
        let budget = max_moves - blacks;
        let mut ex = Exhaustive::new(Color::Black, rules);
        let truth = if black_to_move {
            ex.wins(&mut b, budget)
        } else {
            ex.wins_defender_to_move(&mut b, budget)
        };
        wins += truth as u32;
        let res = prove(&b, Color::Black, black_to_move, small_cfg(rules, max_moves));
        if res.proven {
            proofs += 1;
            assert!(
                truth,
                "unsound proof ({rules}, black to move {black_to_move}, limit {max_moves}):{b:?}"
            );
            // The claimed stone must be an upper bound on black's winning stone.
            let s = b.stones();
            assert!(res.by_stone > s, "{b:?}");
            let moves = if black_to_move {
                (res.by_stone - s).div_ceil(2)
            } else {
                (res.by_stone - s) / 2
            };
            assert!(
                moves <= budget,
                "stone {} beyond the limit:{b:?}",
                res.by_stone
            );
            let confirmed = if black_to_move {
                ex.wins(&mut b, moves)
            } else {
                ex.wins_defender_to_move(&mut b, moves)
            };
            assert!(
                confirmed,
                "black does not win by stone {}:{b:?}",
                res.by_stone
            );
            if black_to_move {
                let t = prove_win_with(&b, Color::Black, rules, budget, SearchConfig::default());
                threat += t.proven as u32;
                quiet += !t.proven as u32;
            }
        }
    }
    (proofs, wins, threat, quiet)
}

#[test]
fn agrees_with_minimax_on_4x4_k3() {
    let (proofs, wins, _, _) = cross_check(4, 4, 3, 1500, 0x1357_9BDF);
    assert!(proofs > 0 && wins > 0);
    // With every cell a candidate on so small a board, the search finds most wins.
    assert!(proofs * 10 >= wins * 9, "{proofs} proofs of {wins} wins");
}

#[test]
fn agrees_with_minimax_on_5x5_k4() {
    let (proofs, wins, _, quiet) = cross_check(5, 5, 4, 800, 0x2468_ACE0);
    assert!(proofs > 0 && wins > 0);
    assert!(quiet > 0, "no proof needed a quiet move");
}

#[test]
fn proves_quiet_first_moves_the_threat_search_cannot() {
    let (_, _, threat, quiet) = cross_check(6, 5, 4, 500, 0xFEED_F00D);
    assert!(quiet > 0, "no quiet-move proof ({threat} by threats alone)");
}
