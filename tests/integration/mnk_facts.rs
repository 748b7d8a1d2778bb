//! k-in-a-row: the published results, and an independent plain minimax (the seeds' method,
//! written here without any of the plug-in's code) agreeing with the table on every
//! position reachable from the empty board.

use retro::solve::Solve;
use std::collections::HashMap;

use retro::game::{PositionError, SolveOptions, Value};
use retro::generate::write_solution;
use retro::mnk::Mnk;
use retro::present::{GameText, ProbeError};
use retro::progress::Silent;
use retro::table::Table;

/// Solve with the plug-in's own solver and open the written table.
fn table(w: u32, h: u32, k: u32) -> (Mnk, Table, tempfile::TempDir) {
    let g = Mnk::new(w, h, k).unwrap();
    let sol = g.solve(&SolveOptions { progress: &Silent }).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = write_solution(&g, dir.path(), &sol).unwrap();
    let t = Table::open(&path).unwrap();
    (g, t, dir)
}

fn value_of(g: &Mnk, t: &Table, board: &str) -> Value {
    let b = g.parse_position(board).unwrap();
    g.value(t, &b)
}

/// Value after the first move at `cell` (column letter, row number) on the empty board.
fn after_first(g: &Mnk, t: &Table, w: usize, h: usize, col: usize, row: usize) -> Value {
    let mut rows = vec![vec!['.'; w]; h];
    rows[h - row][col] = 'x';
    let s: Vec<String> = rows.iter().map(|r| r.iter().collect()).collect();
    value_of(g, t, &s.join("/"))
}

#[test]
fn tic_tac_toe_is_a_draw_with_5478_positions() {
    let (g, t, _d) = table(3, 3, 3);
    assert_eq!(value_of(&g, &t, ".../.../..."), Value::Draw);
    let (all, classes) = retro::mnk::present::reachable(&g, &t);
    assert_eq!(all, 5478);
    assert_eq!(classes, 765);
    let lines = g.summary_lines(&t);
    assert!(lines[0].contains("draw"), "{lines:?}");
    assert!(lines[1].contains("5,478"), "{lines:?}");
}

#[test]
fn three_by_four_first_player_wins_in_7_both_orientations() {
    for (w, h) in [(3usize, 4usize), (4, 3)] {
        let (g, t, _d) = table(w as u32, h as u32, 3);
        let empty = vec![".".repeat(w); h].join("/");
        assert_eq!(value_of(&g, &t, &empty), Value::Win(7), "{w}x{h}");
        // Corners: O to move afterwards, lost in 8 (X wins in 9 from the empty board).
        for (c, r) in [(0, 1), (w - 1, 1), (0, h), (w - 1, h)] {
            assert_eq!(after_first(&g, &t, w, h, c, r), Value::Loss(8), "{w}x{h}");
        }
        // The middle cell of a 3-cell side loses for X.
        let middles = if w == 3 {
            [(1, 1), (1, h)]
        } else {
            [(0, 2), (w - 1, 2)]
        };
        for (c, r) in middles {
            let v = after_first(&g, &t, w, h, c, r);
            assert!(matches!(v, Value::Win(_)), "{w}x{h} {c},{r}: {v:?}");
        }
        let lines = g.summary_lines(&t);
        assert!(lines[0].contains("X wins in 7 plies"), "{lines:?}");
    }
}

#[test]
fn four_by_four() {
    let (g, t, _d) = table(4, 4, 3);
    assert!(matches!(
        value_of(&g, &t, "..../..../..../...."),
        Value::Win(_)
    ));
    let (g, t, _d) = table(4, 4, 4);
    assert_eq!(value_of(&g, &t, "..../..../..../...."), Value::Draw);
}

// ---- An independent minimax, written from the rules alone ----

/// (result for the side to move: 1 win, 0 draw, -1 loss; plies to the end).
type Score = (i8, u16);

struct Minimax {
    w: usize,
    h: usize,
    k: usize,
    memo: HashMap<Vec<u8>, Score>,
}

impl Minimax {
    /// Does `who` have k in a row on `cells` (row-major, top row first)?
    fn line(&self, cells: &[u8], who: u8) -> bool {
        let (w, h, k) = (self.w as i32, self.h as i32, self.k as i32);
        for r in 0..h {
            for c in 0..w {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    let ok = (0..k).all(|i| {
                        let (rr, cc) = (r + dr * i, c + dc * i);
                        rr >= 0
                            && rr < h
                            && cc >= 0
                            && cc < w
                            && cells[(rr * w + cc) as usize] == who
                    });
                    if ok {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Score of `cells` with `me` to move (1 = X, 2 = O).
    fn score(&mut self, cells: &mut Vec<u8>, me: u8) -> Score {
        if let Some(&s) = self.memo.get(cells) {
            return s;
        }
        let other = 3 - me;
        let s = if self.line(cells, other) {
            (-1, 0)
        } else if cells.iter().all(|&c| c != 0) {
            (0, 0)
        } else {
            let mut best: Option<Score> = None;
            for i in 0..cells.len() {
                if cells[i] != 0 {
                    continue;
                }
                cells[i] = me;
                let (r, d) = self.score(cells, other);
                cells[i] = 0;
                let mine = (-r, d + if r == 0 { 0 } else { 1 });
                // Win soonest, else draw, else lose latest.
                let key = |s: Score| match s.0 {
                    1 => (2, -(s.1 as i32)),
                    0 => (1, 0),
                    _ => (0, s.1 as i32),
                };
                if best.map_or(true, |b| key(mine) > key(b)) {
                    best = Some(mine);
                }
            }
            let b = best.unwrap();
            if b.0 == 0 {
                (0, 0)
            } else {
                b
            }
        };
        self.memo.insert(cells.clone(), s);
        s
    }

    fn text(&self, cells: &[u8]) -> String {
        cells
            .chunks(self.w)
            .map(|r| {
                r.iter()
                    .map(|&c| match c {
                        1 => 'x',
                        2 => 'o',
                        _ => '.',
                    })
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/")
    }
}

fn minimax_agrees(w: usize, h: usize, k: usize, reachable: usize) {
    let (g, t, _d) = table(w as u32, h as u32, k as u32);
    let mut mm = Minimax {
        w,
        h,
        k,
        memo: HashMap::new(),
    };
    let mut cells = vec![0u8; w * h];
    mm.score(&mut cells, 1);
    // The memo holds exactly the positions reachable from the empty board, which the
    // table's summary counts from its legal slots and their images.
    assert_eq!(mm.memo.len(), reachable);
    assert_eq!(retro::mnk::present::reachable(&g, &t).0, reachable as u64);
    for (cells, &(r, d)) in &mm.memo {
        let text = mm.text(cells);
        let expected = match r {
            1 => Value::Win(d),
            -1 => Value::Loss(d),
            _ => Value::Draw,
        };
        assert_eq!(value_of(&g, &t, &text), expected, "{text}");
        let probed = retro::plugin::Plugin::probe(&g, &t, &text).unwrap();
        let probed_json: serde_json::Value = serde_json::from_str(&probed.json()).unwrap();
        assert_eq!(
            probed_json["remoteness"],
            serde_json::json!(expected_rem(expected))
        );
    }
}

fn expected_rem(v: Value) -> Option<u16> {
    match v {
        Value::Win(d) | Value::Loss(d) => Some(d),
        _ => None,
    }
}

#[test]
fn minimax_agrees_on_every_reachable_position_3x3() {
    minimax_agrees(3, 3, 3, 5478);
}

#[test]
fn minimax_agrees_on_every_reachable_position_3x4_and_4x3() {
    let (a, b) = (count_reachable(3, 4, 3), count_reachable(4, 3, 3));
    assert_eq!(a, b);
    minimax_agrees(3, 4, 3, a);
    minimax_agrees(4, 3, 3, b);
}

fn count_reachable(w: usize, h: usize, k: usize) -> usize {
    let mut mm = Minimax {
        w,
        h,
        k,
        memo: HashMap::new(),
    };
    mm.score(&mut vec![0u8; w * h], 1);
    mm.memo.len()
}

// ---- Probing through the registry ----

#[test]
fn probe_answers_in_the_probed_orientation() {
    let (_, t, _d) = table(4, 3, 3);
    let p = retro::GAMES.plugin("mnk-4x3-3").unwrap();
    // X in a3, O in b2: the same position as X in d1, O in c2 (rotated).
    let mut seen = None;
    for (board, orientation) in [("x.../.o../....", 0), ("..../..o./...x", 1)] {
        let a = p.probe(&t, board).unwrap();
        let a_json: serde_json::Value = serde_json::from_str(&a.json()).unwrap();
        let a_text = a.text();
        assert_eq!(a_json["board"], board);
        assert_eq!(a_json["turn"], "x");
        let moves = a_json["moves"].as_array().unwrap();
        assert_eq!(moves.len(), 10);
        let best = a_json["best"]["cell"].as_str().unwrap().to_string();
        // The best move's entry is the first, and it achieves the value.
        let entry = moves.iter().find(|m| m["cell"] == best.as_str()).unwrap();
        assert_eq!(entry["category"], moves[0]["category"]);
        assert_eq!(entry["remoteness"], moves[0]["remoteness"]);
        let flip = |m: &serde_json::Value| {
            let c = m["cell"].as_str().unwrap().as_bytes();
            if orientation == 0 {
                (c[0], c[1])
            } else {
                (b'a' + b'd' - c[0], b'1' + b'3' - c[1])
            }
        };
        let mut got: Vec<_> = moves
            .iter()
            .map(|m| (flip(m), m["category"].clone(), m["remoteness"].clone()))
            .collect();
        got.sort_by_key(|g| g.0);
        match &seen {
            None => seen = Some(got),
            Some(first) => assert_eq!(first, &got),
        }
        assert!(a_text.contains("X to move"), "{}", a_text);
    }
    // A finished game is legal to probe.
    let a = p.probe(&t, "xxx./oo../....").unwrap();
    let a_json: serde_json::Value = serde_json::from_str(&a.json()).unwrap();
    let a_text = a.text();
    assert_eq!(a_json["category"], "loss");
    assert_eq!(a_json["remoteness"], 0);
    assert!(a_json["best"].is_null());
    assert!(a_text.contains("X has won"), "{}", a_text);
    // Malformed and impossible boards.
    for bad in ["x.../.o..", "x.../.o../...", "x.../.q../....", ""] {
        assert!(
            matches!(
                p.probe(&t, bad),
                Err(ProbeError::Position(PositionError::Malformed(_)))
            ),
            "{bad}"
        );
    }
    for bad in ["xx../..../....", "xxx./ooo./x...", "o.../..../...."] {
        assert!(
            matches!(
                p.probe(&t, bad),
                Err(ProbeError::Position(PositionError::Illegal(_)))
            ),
            "{bad}"
        );
    }
}

#[test]
fn every_position_of_a_table_can_be_listed() {
    let (g, t, _d) = table(3, 3, 3);
    let mut n = 0;
    let mut images = 0;
    g.for_each_position(&t, |b, v| {
        n += 1;
        images += g.orbit(b).len();
        assert_eq!(g.value(&t, b), v);
    });
    assert_eq!(n, 765);
    assert_eq!(images, 5478);
    // The same from a solution in memory.
    let sol = g.solve(&SolveOptions { progress: &Silent }).unwrap();
    let mut m = 0;
    g.for_each_solved(&sol, |b, v| {
        m += 1;
        assert_eq!(g.value_in(&sol, b), v);
        assert_eq!(g.value(&t, b), v);
    });
    assert_eq!(m, 765);
}
