//! Hunts small-board positions whose only wins start with a quiet move (issue 9): black to
//! move wins by exhaustive minimax (`brute.rs`) within `d` black stones, the threat search
//! alone does not prove it, no winning first move is one the threat search would play
//! ("loose": a four, a three, or a move after which black has a VCF if white passes;
//! "strict" also excludes every cell of a window of `k - 3` black stones, the extended
//! mode's candidates), and the proof search proves it within `d`, which minimax confirms.
//! Cheap filters run first (threat search fails, proof search proves within `MAX_D`),
//! minimax last. Prints each find as a board with its facts; a proof search win that
//! minimax denies is printed as "unsound?".
//!
//! Measured (release, standard rules; minimax limits 4 black stones unless said): 4x4 k=3,
//! 1,310 minimax wins sampled; 5x5 k=4, 283 (and 100 more with limit 5); 6x5 k=4, 121; 7x6
//! k=4, 24; 7x7 k=5, 3: the threat search alone proved every one, so no quiet-only win was
//! found. Positions where white threatens an open three (`block`) were too rare in random
//! sampling to settle anything (one win on 6x6 k=4); seeding a white open two on 6x6,
//! 7x6 and 7x7 (`board` with 2 or 3 random pairs, 2,000 to 4,000 positions each) gave no
//! position that the proof search proves and the threat search does not.
//!
//! Built by design instead (`board` mode, limit 4; kept as a test in `pns_tests.rs`): k=4,
//! a board filled with stones that leave no window with two stones of one colour and none
//! of the other, 17 empty cells. White has a double-four cell W (two lines of two white
//! stones meeting there, each black window through W holding a white stone, so the block
//! is neither a four nor a three cell); black has two separate cells each making two open
//! twos, which lose to W before the block and cannot both be spoiled after it. A local
//! search for the filler on 9x9 and 11x11 always left extra fours (the threat search then
//! proved the board through them); an exhaustive backtracking fill found none with both
//! black crosses on 11x11 and found one on 13x13 (in 0.05 s here: minimax win in 4, only
//! winning first move m13, strict, proof search by stone 159 starting with m13).
//!
//! `cargo run --release --example gomoku_quiet_hunt -- W H K POSITIONS [SEED] [MAX_D] [block]`,
//! or `-- board ROWS K MAX_D [PAIRS TRIES]` for one position (rows top first, '/'-separated,
//! `x` `o` `.`), or TRIES positions with PAIRS random black and white stones added to it.

use std::time::{Duration, Instant};

use retro::gomoku::rules::brute::Exhaustive;
use retro::gomoku::rules::random::{add_stones, random_position, Rng};
use retro::gomoku::search::pns::{prove, ProveConfig};
use retro::gomoku::search::quiet::{four_cells, has_double_move, three_cells, winning_cells};
use retro::gomoku::{prove_win_with, Board, Color, Rules, SearchConfig};

/// xorshift64.
fn arg(args: &[String], i: usize, default: u64) -> u64 {
    args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default)
}

/// `board` plus `pairs` random black and white stones (black first), no row yet.
fn add_pairs(rng: &mut Rng, board: &Board, pairs: usize) -> Option<Board> {
    add_stones(rng, board, 2 * pairs, Rules::Standard)
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    // `board ROWS K MAX_D`: one position, rows top first separated by '/'.
    let fixed = if args.first().is_some_and(|a| a == "board") {
        let rows = args.get(1).cloned().unwrap_or_default();
        let k = arg(&args, 2, 4) as usize;
        let Ok(b) = Board::from_rows(&rows.split('/').collect::<Vec<_>>(), k) else {
            eprintln!("bad board {rows}");
            std::process::exit(2);
        };
        // `board ROWS K MAX_D PAIRS TRIES`: also TRIES positions with PAIRS random black and
        // white stones added to the board.
        let pairs = arg(&args, 4, 0);
        args = vec![
            b.width().to_string(),
            b.height().to_string(),
            k.to_string(),
            arg(&args, 5, 1).to_string(),
            "7".into(),
            args.get(3).cloned().unwrap_or_else(|| "4".into()),
            String::new(),
            pairs.to_string(),
        ];
        Some(b)
    } else {
        None
    };
    let (w, h, k) = (
        arg(&args, 0, 6) as usize,
        arg(&args, 1, 6) as usize,
        arg(&args, 2, 4) as usize,
    );
    let positions = arg(&args, 3, 1000) as usize;
    let mut rng = Rng(arg(&args, 4, 0x9E37_79B9_7F4A_7C15).max(1));
    let max_d = arg(&args, 5, 4) as u32;
    // "block": only positions where white threatens a double move (an open three) and black
    // has no four, so black must block first.
    let block = args.get(6).is_some_and(|a| a == "block");
    let rules = Rules::Standard;
    let mut found = 0;
    let (mut wins, mut hard, mut quiet) = (0, 0, 0);
    for _ in 0..positions {
        let stones = 2 * (1 + rng.below(w * h / 5));
        let pairs = arg(&args, 7, 0) as usize;
        let b = match &fixed {
            Some(f) => add_pairs(&mut rng, f, pairs),
            None => random_position(&mut rng, w, h, k, stones, Rules::Standard),
        };
        let Some(mut b) = b else {
            continue;
        };
        let say = |what: &str| {
            if fixed.is_some() && positions == 1 {
                println!("# {what}");
            }
        };
        if !winning_cells(&b, Color::White, rules).is_empty()
            || !winning_cells(&b, Color::Black, rules).is_empty()
        {
            continue;
        }
        if block
            && (!has_double_move(&mut b, Color::White, rules)
                || !four_cells(&b, Color::Black, rules).is_empty())
        {
            continue;
        }
        let t0 = Instant::now();
        // Cheap filters first, minimax last: the threat search fails at the largest
        // budget, and the proof search proves the position.
        let limit = b.count(Color::Black) + max_d;
        if prove_win_with(&b, Color::Black, rules, max_d, SearchConfig::default()).proven {
            say("the threat search proves it");
            continue;
        }
        let cfg = ProveConfig {
            width: 64,
            node_limit: 4_000,
            time_limit: Duration::from_secs(10),
            ..ProveConfig::new(rules, limit)
        };
        if !prove(&b, Color::Black, true, cfg).proven {
            say("the proof search does not prove it");
            continue;
        }
        hard += 1;
        if hard % 20 == 0 {
            println!("# {hard} proven by the proof search only so far");
        }
        let mut ex = Exhaustive::new(Color::Black, rules);
        let Some(d) = (2..=max_d).find(|&d| ex.wins(&mut b, d)) else {
            println!("# unsound?{b:?}");
            continue;
        };
        wins += 1;
        if prove_win_with(&b, Color::Black, rules, d, SearchConfig::default()).proven {
            say(&format!("the threat search proves it within {d}"));
            continue;
        }
        // The threat search's own root moves: fours, threes, and (extended mode) every cell
        // of a window with k - 3 black stones.
        let mut threat_moves = four_cells(&b, Color::Black, rules);
        threat_moves.extend(three_cells(&b, Color::Black, rules));
        let mut winners = Vec::new();
        for c in 0..b.cells() {
            if !b.is_empty(c) {
                continue;
            }
            b.place(c, Color::Black);
            if ex.wins_defender_to_move(&mut b, d - 1) {
                winners.push(c);
            }
            b.remove(c, Color::Black);
        }
        // Loose: no winning move is a four or a three, nor threatens a VCF (white passing).
        let vcf = SearchConfig {
            vct: false,
            ..SearchConfig::default()
        };
        let loose = winners.iter().all(|&c| {
            if four_cells(&b, Color::Black, rules).contains(&c) {
                return false;
            }
            b.place(c, Color::Black);
            let threat = has_double_move(&mut b, Color::Black, rules)
                || prove_win_with(&b, Color::Black, rules, d - 1, vcf).proven;
            b.remove(c, Color::Black);
            !threat
        });
        let strict = !winners.iter().any(|c| threat_moves.contains(c));
        if !loose {
            say(&format!("a winning first move is a threat: {winners:?}"));
            continue;
        }
        quiet += 1;
        let limit = b.count(Color::Black) + d;
        let cfg = ProveConfig {
            width: 64,
            node_limit: 4_000,
            time_limit: Duration::from_secs(10),
            ..ProveConfig::new(rules, limit)
        };
        let r = prove(&b, Color::Black, true, cfg);
        if !r.proven {
            println!(
                "# minimax win in {d}, proof search fails ({}):{b:?}",
                r.stopped
            );
            continue;
        }
        let m = (r.by_stone - b.stones()).div_ceil(2);
        let sound = m <= d && ex.wins(&mut b, m);
        let first = r
            .root_tries
            .iter()
            .find(|t| t.1 == "proven")
            .map(|t| b.cell_name(t.0 as usize));
        found += 1;
        let names: Vec<String> = winners.iter().map(|&c| b.cell_name(c)).collect();
        println!(
            "# {w}x{h} k={k}: minimax win in {d} black moves; winning first moves {names:?}; \
             strict {strict}; proof search: stone {} (sound: {sound}), first move {first:?}, {} tree nodes; \
             {:.2} s{b:?}",
            r.by_stone,
            r.tree_nodes,
            t0.elapsed().as_secs_f64()
        );
    }
    println!(
        "# {hard} proven by the proof search only, {wins} minimax wins, {quiet} with only quiet \
         winning moves, {found} proven"
    );
}
