//! The self-tests of a game's own passes against [`GamePasses`](super::GamePasses), slot
//! by slot and group by group.

use super::{bits, first_slots, Own, Passes, Start, Values};
use crate::game::{Index, Outcome, Value};
use crate::table::Metric;

/// Check a game's own [`Passes`] against [`GamePasses`](super::GamePasses) of the same game
/// on slot `i`: the same start, un-moves, moves (the check accepts exactly what the moves
/// allow), slowest exit and first moves, the slots of other tiers read by `own`. Returns a
/// description of the first difference. The engine's self-test for a game's fast passes,
/// as `selftest` is for its moves.
pub fn check_passes<R: Passes, P: Passes>(
    reference: &R,
    fast: &P,
    own: Own,
    i: Index,
) -> Result<(), String> {
    let legal = reference.legal(i);
    if fast.legal(i) != legal {
        return Err(format!(
            "slot {i}: legal is {legal} by the moves, not by the passes"
        ));
    }
    if !legal {
        return Ok(());
    }
    let (mut la, mut lb) = (Vec::new(), Vec::new());
    let (sa, sb) = (
        reference.start(i, own, &mut la),
        fast.start(i, own, &mut lb),
    );
    // A slot whose moves all leave the table may start open rather than final with the
    // same win through a move out, or with its draw kept: nothing inside the table then
    // changes it. A stalemate may start open: no move, so nobody's predecessor.
    let inside = !reference.targets(i, |_| false);
    let agree = match (&sa, &sb) {
        (Ok(Start::Final(Value::Win(w))), Ok(Start::Open { win, .. })) => *win == Some(*w),
        (
            Ok(Start::Final(Value::Draw)),
            Ok(Start::Open {
                win: None, keep, ..
            }),
        ) => *keep || (!inside && la.is_empty()),
        (a, b) => format!("{a:?}") == format!("{b:?}"),
    };
    let (sa, sb) = (format!("{sa:?} {la:?}"), format!("{sb:?} {lb:?}"));
    if !agree || la != lb {
        return Err(format!(
            "slot {i}: starts as {sa} by the moves, {sb} by the passes"
        ));
    }
    let set = |f: &dyn Fn(&mut Vec<Index>)| {
        let mut v = Vec::new();
        f(&mut v);
        v.sort_unstable();
        v.dedup();
        v
    };
    // The fast passes may name illegal slots besides (see [`Passes::predecessors`]).
    let pa = set(&|v| reference.predecessors(i, |p| v.push(p)));
    let pb = set(&|v| {
        fast.predecessors(i, |p| {
            if reference.legal(p) {
                v.push(p)
            }
        })
    });
    if pa != pb {
        return Err(format!(
            "slot {i}: predecessors {pa:?} by the moves, {pb:?} by the passes"
        ));
    }
    let ta = set(&|v| {
        reference.targets(i, |q| {
            v.push(q);
            true
        });
    });
    // Illegal slots the fast passes may name besides are accepted, as the solver does.
    let known = |x: Index| ta.binary_search(&x).is_ok() || !reference.legal(x);
    if !fast.targets(i, known) {
        return Err(format!("slot {i}: the passes refuse the targets {ta:?}"));
    }
    if fast.targets(i, |x| !reference.legal(x)) != ta.is_empty() {
        return Err(format!(
            "slot {i}: the passes' check ignores the targets {ta:?}"
        ));
    }
    for &q in &ta {
        if fast.targets(i, |x| x != q && known(x)) {
            return Err(format!(
                "slot {i}: the passes' check passes without target {q}"
            ));
        }
    }
    let (ea, eb) = (reference.slowest_exit(i, own), fast.slowest_exit(i, own));
    if ea != eb {
        return Err(format!(
            "slot {i}: slowest exit {ea} by the moves, {eb} by the passes"
        ));
    }
    let wanted: [&dyn Fn(Outcome) -> bool; 4] = [
        &|_| true,
        &|o| matches!(o, Outcome::Index(q) if q % 3 == 0),
        &|o| matches!(o, Outcome::Index(q) if ta.last() == Some(&q)),
        &|o| !matches!(o, Outcome::Index(_)),
    ];
    for (k, w) in wanted.iter().enumerate() {
        let (ma, mb) = (reference.first_move(i, w), fast.first_move(i, w));
        if ma != mb {
            return Err(format!(
                "slot {i}: first move {k} is {ma} by the moves, {mb} by the passes"
            ));
        }
    }
    Ok(())
}

/// Check a game's group passes ([`Passes::group_predecessors`], [`Passes::group_refuted`])
/// against its slot passes on the slots `mask` of the group at `first`: the same
/// predecessors among the legal slots (as `legal` says), and the same slots refuted
/// whatever `ok` accepts (here: the legal targets `accept` holds, and every illegal slot),
/// the slots of other tiers read by `own`; with tiers, un-moves and moves that stay in the
/// slot's tier. Returns a description of the first difference.
pub fn check_group_passes<P: Passes>(
    p: &P,
    own: Own,
    first: Index,
    mask: u64,
    legal: impl Fn(Index) -> bool,
    accept: impl Fn(Index) -> bool,
) -> Result<(), String> {
    // Every slot of the group starts as it does alone.
    let mut group_links = Vec::new();
    let mut starts = Vec::new();
    p.group_start(
        first,
        first_slots(p.group()),
        own,
        &mut group_links,
        |b, s| starts.push((b, s)),
    )
    .map_err(|e| format!("group {first}: {e}"))?;
    let mut slot_links = Vec::new();
    for (b, got) in starts {
        let want = p
            .start(first + b, own, &mut slot_links)
            .map_err(|e| format!("slot {}: {e}", first + b))?;
        if got != want {
            return Err(format!(
                "slot {}: starts {got:?} in its group, {want:?} alone",
                first + b
            ));
        }
    }
    if group_links != slot_links {
        return Err(format!(
            "group {first}: links {group_links:?} in the group, {slot_links:?} slot by slot"
        ));
    }
    // With tiers, each group's slots of a tier are those whose tier it is.
    let legal_slots = (0..p.group() as Index)
        .filter(|&b| legal(first + b))
        .fold(0u64, |m, b| m | 1 << b);
    for t in (0..p.tiers()).filter(|_| p.tiers() > 1) {
        let want = bits(legal_slots)
            .filter(|&b| p.tier(first + b) == t)
            .fold(0u64, |m, b| m | 1 << b);
        let got = p.group_tier(first, p.group(), t) & legal_slots;
        if want != got {
            return Err(format!(
                "group {first}: tier {t} holds {got:#x} by the group, {want:#x} slot by slot"
            ));
        }
    }
    // With tiers, un-moves and moves stay in the slot's tier.
    let mut out_of_tier = None;
    let mut tier_of = |i: Index, q: Index| {
        if p.tiers() > 1 && legal(q) && p.tier(q) != p.tier(i) {
            out_of_tier.get_or_insert((i, q));
        }
    };
    let mut want = Vec::new();
    for b in bits(mask) {
        p.predecessors(first + b, |q| {
            tier_of(first + b, q);
            if legal(q) {
                want.push(q)
            }
        });
        p.targets(first + b, |q| {
            tier_of(first + b, q);
            true
        });
    }
    if let Some((i, q)) = out_of_tier {
        return Err(format!(
            "slot {i} (tier {}) has un-moves or moves to slot {q} of tier {}",
            p.tier(i),
            p.tier(q)
        ));
    }
    want.sort_unstable();
    want.dedup();
    let mut got = Vec::new();
    p.group_predecessors(first, mask, |q, m| {
        got.extend(bits(m).map(|b| q + b).filter(|&x| legal(x)))
    });
    got.sort_unstable();
    got.dedup();
    if want != got {
        let missing: Vec<_> = want.iter().filter(|x| !got.contains(x)).collect();
        let extra: Vec<_> = got.iter().filter(|x| !want.contains(x)).collect();
        return Err(format!(
            "group {first} mask {mask:#x}: predecessors missing {missing:?}, extra {extra:?}"
        ));
    }
    let ok = |x: Index| !legal(x) || accept(x);
    let mut want = 0u64;
    for b in bits(mask) {
        if !p.targets(first + b, ok) {
            want |= 1 << b;
        }
    }
    let got = p.group_refuted(first, mask, |q, m| {
        bits(m).filter(|&b| ok(q + b)).fold(0, |a, b| a | 1 << b)
    });
    if want != got {
        return Err(format!(
            "group {first} mask {mask:#x}: refuted {got:#x} by the group, {want:#x} slot by slot"
        ));
    }
    if p.metric() == Metric::Dtm {
        check_first_moves(p, first, mask, &legal)?;
    }
    Ok(())
}

/// The best moves of the group ([`Passes::group_first_moves`]), read as values and as
/// codes, against the slots' [`Passes::first_move`], under made-up values: a few wins,
/// losses and draws spread over the legal slots by a hash, so that moves achieve, or not,
/// at every rank.
fn check_first_moves<P: Passes>(
    p: &P,
    first: Index,
    mask: u64,
    legal: &impl Fn(Index) -> bool,
) -> Result<(), String> {
    const MADE_UP: [Value; 8] = [
        Value::Draw,
        Value::Draw,
        Value::Win(1),
        Value::Loss(0),
        Value::Loss(2),
        Value::Win(3),
        Value::Win(5),
        Value::Loss(4),
    ];
    let value = |q: Index| match legal(q) {
        true => MADE_UP[(q.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 61) as usize],
        false => Value::Illegal,
    };
    let mut want = [0u8; 64];
    for b in bits(mask) {
        let own = value(first + b);
        want[b as usize] = p.first_move(first + b, |to| to.value(value).back() == own);
    }
    for (how, coded) in [("values", false), ("codes", true)] {
        // No move has this rank: a slot the group leaves out shows.
        let mut got = [u8::MAX; 64];
        let out = |b: Index, code: u8| got[b as usize] = code;
        if coded {
            p.group_first_moves(first, mask, &Coded(value), out);
        } else {
            p.group_first_moves(first, mask, &value, out);
        }
        if let Some(b) = bits(mask).find(|&b| got[b as usize] != want[b as usize]) {
            return Err(format!(
                "slot {}: best move {} by the group read as {how}, {} alone",
                first + b,
                got[b as usize],
                want[b as usize]
            ));
        }
    }
    Ok(())
}

/// Values that also come as codes, each value its byte ([`Value::packed`]) and the
/// illegal slots one no value of [`check_first_moves`] has.
struct Coded<F>(F);

impl<F: Fn(Index) -> Value> Values for Coded<F> {
    fn value(&self, q: Index) -> Value {
        (self.0)(q)
    }

    fn codes(&self, q: Index, out: &mut [u8]) -> bool {
        for (k, c) in out.iter_mut().enumerate() {
            *c = self.code((self.0)(q + k as Index));
        }
        true
    }

    fn code(&self, v: Value) -> u8 {
        match v {
            Value::Illegal => 128,
            v => v.packed(),
        }
    }

    fn code_value(&self, c: u8) -> Value {
        match c {
            128 => Value::Illegal,
            c => Value::from_packed(c),
        }
    }
}
