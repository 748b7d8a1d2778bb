//! One validator task: an integer leaf (black to move), or every white reply after a black
//! move. Each proof method is its own function, tried cheapest first; a reply or leaf that
//! none proves is a hole, unless the proof search (`pns.rs`) closes it.

use std::sync::atomic::Ordering;

use crate::rules::board::{share_window, Board, Color};
use crate::search::threat::{
    bb_has, prove_win_hinted, prove_win_with, prove_with_zone, CellSet, Hint, Hints, Proof,
    SearchConfig,
};

use super::options::Options;
use super::repair::{close_hole, Hole};
use super::report::{Failure, Reason};
use super::shared::{far_white_stones, Cached, Ctx};
use super::walk::{Kind, Task};

/// How a task ended without proving everything it had to.
pub(crate) enum TaskEnd {
    /// A failure: the first reply (or the leaf) not proven.
    Failed(Box<Failure>),
    /// Stopped because the validation stops at an earlier failure; nothing to report.
    Stopped,
}

/// A task's longest forced game (black moves, line), or how it ended.
pub(crate) type TaskResult = Result<Option<(u32, Vec<u16>)>, TaskEnd>;

/// Keeps the longer line (ties: the smaller line, so reports are deterministic).
fn note(best: &mut Option<(u32, Vec<u16>)>, len: u32, path: &[u16]) {
    if best.as_ref().map_or(true, |b| len > b.0) {
        *best = Some((len, path.to_vec()));
    }
}

fn failure(
    task: &Task,
    opts: &Options,
    board: &Board,
    path: Vec<u16>,
    reason: Reason,
    cell: u16,
) -> TaskEnd {
    TaskEnd::Failed(Box::new(Failure {
        path,
        board: board.clone(),
        reason,
        order: (task.order, cell),
        rules: opts.rules,
    }))
}

/// Runs one task.
pub(crate) fn run_task(task: &Task, ctx: &Ctx<'_>) -> TaskResult {
    match &task.kind {
        Kind::BlackLeaf { claim } => leaf_task(task, *claim, ctx),
        Kind::WhiteToMove { listed } => white_task(task, listed, ctx),
    }
}

/// An integer leaf, black to move: the threat search (the leaf's claim tried early), a
/// retry, then the proof search.
fn leaf_task(task: &Task, claim: u32, ctx: &Ctx<'_>) -> TaskResult {
    let (board, opts) = (&task.board, ctx.opts);
    let blacks = board.count(Color::Black);
    let budget = opts.max_moves.saturating_sub(blacks);
    let cfg = SearchConfig {
        jump_depth: (claim / 2).min(budget),
        ..opts.search
    };
    let p = prove_win_with(board, Color::Black, opts.rules, budget, cfg);
    ctx.count_search(&p);
    let p = if p.proven {
        p
    } else if ctx.shared.stopping() {
        return Err(TaskEnd::Stopped);
    } else {
        ctx.retry(board, budget)
    };
    if p.proven {
        return Ok(Some((blacks + p.attacker_moves, task.path.clone())));
    }
    match close_hole(board, &task.path, ctx) {
        Hole::Closed(stone) => return Ok(Some((stone.div_ceil(2), task.path.clone()))),
        Hole::Stopped => return Err(TaskEnd::Stopped),
        Hole::Open => {}
    }
    let reason = Reason::LeafNotProven {
        budget,
        claim,
        black_to_move: true,
    };
    Err(failure(task, opts, board, task.path.clone(), reason, 0))
}

/// What one node's replies share: the proof after a white pass and its zone, hints for
/// hinted searches, and a base position without far white stones.
struct NodeProofs {
    pass: Proof,
    zone: Option<CellSet>,
    hints: Hints,
    history: Vec<u32>,
    far: Vec<usize>,
    base: Option<(Board, Cached)>,
    jump: u32,
}

/// Every white reply after a black move.
fn white_task(task: &Task, own: &[u16], ctx: &Ctx<'_>) -> TaskResult {
    let (board, opts) = (&task.board, ctx.opts);
    let blacks = board.count(Color::Black);
    let budget = opts.max_moves.saturating_sub(blacks);
    let empties: Vec<usize> = (0..board.cells()).filter(|&c| board.is_empty(c)).collect();
    let unlisted = empties
        .iter()
        .filter(|&&c| !own.contains(&(c as u16)))
        .count() as u64;
    ctx.shared.positions.fetch_add(unlisted, Ordering::Relaxed);
    let mut np = node_proofs(task, budget, ctx);
    let keys = ctx.sym.keys(board);
    let stab = ctx.sym.stabilizer(&keys);
    let mut best: Option<(u32, Vec<u16>)> = None;
    let mut b2 = board.clone();
    let mut path = task.path.clone();
    for &w in &empties {
        if own.contains(&(w as u16)) {
            continue;
        }
        if ctx.shared.stopping() {
            return Err(TaskEnd::Stopped);
        }
        // A symmetric image of a smaller sibling reply: same position up to symmetry.
        if stab.iter().any(|&t| (ctx.sym.perms[t][w] as usize) < w) {
            ctx.shared.symmetric.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        if ctx
            .listed
            .contains(&ctx.sym.canonical_with(&keys, w, Color::White))
        {
            ctx.shared.in_graph.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        path.push(w as u16);
        b2.place(w, Color::White);
        let r = prove_reply(&b2, w, budget, &mut np, &path, ctx);
        match r {
            Ok(moves) => {
                ctx.shared.proven.fetch_add(1, Ordering::Relaxed);
                note(&mut best, moves, &path);
            }
            Err(None) => return Err(TaskEnd::Stopped),
            Err(Some(reason)) => {
                let reason = match reason {
                    Reason::ReplyNotProven { .. } if own.is_empty() && task.claim > 0 => {
                        Reason::LeafNotProven {
                            budget,
                            claim: task.claim,
                            black_to_move: false,
                        }
                    }
                    r => r,
                };
                return Err(failure(task, opts, &b2, path, reason, w as u16));
            }
        }
        b2.remove(w, Color::White);
        path.pop();
    }
    Ok(best)
}

fn node_proofs(task: &Task, budget: u32, ctx: &Ctx<'_>) -> NodeProofs {
    let (board, opts) = (&task.board, ctx.opts);
    // One proof with black to move (white "passes") covers every reply outside its zone
    // (threat.rs, "Zones").
    let (pass, zone, hints) = prove_with_zone(board, Color::Black, opts.rules, budget, opts.search);
    ctx.count_search(&pass);
    let zone = zone.filter(|_| pass.proven);
    let history = hints.history.clone();
    // A base position without far white stones `far`, shared with other tasks. A proof `T`
    // of the base extends to the base plus the stones of a set `W` when every stone of `W`
    // is outside the zone of `T` and no k-window holds two of them (threat.rs, "Zones": the
    // induction there only needs, for each window, at most one new stone).
    let far = far_white_stones(board);
    let base = if far.is_empty() || budget == 0 {
        None
    } else {
        let mut b = board.clone();
        for &x in &far {
            b.remove(x, Color::White);
        }
        let null = ctx
            .shared
            .cache
            .get_or_prove(&b, opts, budget, opts.search, ctx.shared);
        Some((b, null))
    };
    // A budget worth trying early in the replies' searches (never a limit: the budget
    // stays the move limit): the larger of the leaf's own claim (n: black's five on stone
    // S + n - 1, S counting black's last move, leaves (n - 1) / 2 black moves after a
    // reply) and two moves more than the pass proof. A reply inside the pass proof's zone
    // often costs black a block or two, and one search at that budget costs less than
    // deepening one move at a time (17 % fewer nodes on the published strategy).
    let claimed = task.claim.saturating_sub(1) / 2;
    let passed = if pass.proven {
        pass.attacker_moves.max(1) + 2
    } else {
        0
    };
    let jump = claimed.max(passed).min(budget);
    NodeProofs {
        pass,
        zone,
        hints,
        history,
        far,
        base,
        jump,
    }
}

/// Whether no cell of `cells` is in the zone (false without a zone).
fn outside(zone: &Option<CellSet>, cells: &[usize]) -> bool {
    match zone {
        Some(z) => cells.iter().all(|&c| !bb_has(z, c)),
        None => false,
    }
}

/// One white reply `w` (already on `b2`): proven within the budget, as black's total moves
/// in the worst case, or why not (`None`: the validation is stopping at an earlier
/// failure).
fn prove_reply(
    b2: &Board,
    w: usize,
    budget: u32,
    np: &mut NodeProofs,
    path: &[u16],
    ctx: &Ctx<'_>,
) -> Result<u32, Option<Reason>> {
    let blacks = b2.count(Color::Black);
    // A reply that makes white's winning row ends the game: a hole, whatever any proof
    // says.
    if b2.five_through(w, Color::White, ctx.opts.rules) {
        return Err(Some(Reason::ReplyNotProven { budget }));
    }
    if np.zone.is_some_and(|z| !bb_has(&z, w)) {
        return Ok(blacks + np.pass.attacker_moves);
    }
    if let Some(m) = by_base(w, budget, np, ctx) {
        return Ok(blacks + m);
    }
    if let Some(m) = by_hinted_search(b2, w, budget, np, ctx) {
        return Ok(blacks + m);
    }
    if ctx.shared.stopping() {
        return Err(None);
    }
    let p = ctx.retry(b2, budget);
    if p.proven {
        return Ok(blacks + p.attacker_moves);
    }
    match close_hole(b2, path, ctx) {
        Hole::Closed(stone) => Ok(stone.div_ceil(2)),
        Hole::Open => Err(Some(Reason::ReplyNotProven { budget })),
        Hole::Stopped => Err(None),
    }
}

/// The shared base position: its proof holds here when `w` and the far stones are all
/// outside its zone and no window holds two of them; else the base plus `w` is proven
/// (cached across tasks) with the far stones outside that proof's zone.
fn by_base(w: usize, budget: u32, np: &NodeProofs, ctx: &Ctx<'_>) -> Option<u32> {
    let (base, null) = np.base.as_ref()?;
    let opts = ctx.opts;
    let free = np.far.iter().all(|&x| !share_window(base, x, w));
    let mut with_w = np.far.clone();
    with_w.push(w);
    if null.proven && free && outside(&null.zone, &with_w) {
        return Some(null.moves);
    }
    let mut bw = base.clone();
    bw.place(w, Color::White);
    if bw.five_through(w, Color::White, opts.rules) {
        return None;
    }
    let cfg = SearchConfig {
        start_depth: null.moves.max(1),
        jump_depth: np.jump,
        ..opts.search
    };
    let c = ctx
        .shared
        .cache
        .get_or_prove(&bw, opts, budget, cfg, ctx.shared);
    (c.proven && outside(&c.zone, &np.far)).then_some(c.moves)
}

/// The threat search on the reply's position, hinted by the pass proof.
fn by_hinted_search(
    b2: &Board,
    w: usize,
    budget: u32,
    np: &mut NodeProofs,
    ctx: &Ctx<'_>,
) -> Option<u32> {
    let cfg = SearchConfig {
        start_depth: np.pass.attacker_moves.max(1),
        jump_depth: np.jump,
        ..ctx.opts.search
    };
    let p = prove_win_hinted(
        b2,
        Color::Black,
        ctx.opts.rules,
        budget,
        cfg,
        Hint {
            hints: &np.hints,
            extra: w,
            history: &mut np.history,
        },
    );
    ctx.count_search(&p);
    p.proven.then_some(p.attacker_moves)
}
