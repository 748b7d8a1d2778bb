// Practice against the tablebase on the chess board: which move the tablebase answers
// with, and what each of your moves did to the result, in words. The answers judged are
// `/api/probe/chess`'s, for the side to move (`category`, `dtm`, `mate_in`, `dtz`,
// `dtz_category`); a move's entry describes the position after it, for the opponent.

/** A move's worth for the side making it by distance to mate, smaller better: the quickest
 * mate, then draws, then the longest resistance. */
export function dtmRank(m) {
  const d = Math.abs(m.dtm || 0);
  if (m.category === "loss") return d;
  if (m.category === "win") return 2000 - d;
  return 1000;
}

/** The best move by distance to mate (the first of equals in the list's order), or null. */
export function bestByDtm(moves) {
  return (moves || []).reduce((a, b) => (a === null || dtmRank(b) < dtmRank(a) ? b : a), null);
}

/** The results under the 50-move rule, worst first for the side to move. */
const FIFTY = ["loss", "blessed-loss", "draw", "cursed-win", "win"];
/** The same result seen by the other side. */
const OTHER = { win: "loss", loss: "win", "cursed-win": "blessed-loss", "blessed-loss": "cursed-win", draw: "draw" };
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const NAMES = { win: "win", "cursed-win": "cursed win", draw: "draw", "blessed-loss": "blessed loss", loss: "loss" };
const NOW = {
  win: "you are winning",
  "cursed-win": "it is a cursed win now, which the 50-move rule draws",
  draw: "it is a draw now",
  "blessed-loss": "it is a blessed loss now, which the 50-move rule saves",
  loss: "you are losing now",
};

/** What a move did, in words. `before`: the answer for its player before it; `after`: the
 * answer for the opponent once it is played; `played`, `best`: the move's entry and the
 * best move's in `before.moves`; `zeroing`: a capture or pawn move (the 50-move count
 * starts again); `fifty`: judged under the 50-move rule (by DTZ) rather than by distance
 * to mate. `{kind, text, moves}`: kind `best` (as good as the best move), `kept` (the
 * result kept), `longer` (a win kept, the mate `moves` moves further), `sooner` (a loss,
 * the mate `moves` moves nearer) or `thrown` (a worse result). */
export function judge(before, after, played, best, zeroing, fifty) {
  const other = best && best.uci !== played.uci ? ` The best move was ${best.san} (${best.result}).` : "";
  if (fifty && before.dtz_category && after.dtz_category) {
    const was = before.dtz_category;
    const now = OTHER[after.dtz_category];
    if (FIFTY.indexOf(now) < FIFTY.indexOf(was)) return { kind: "thrown", text: `You threw the ${NAMES[was]} away: ${NOW[now]}.${other}`, moves: 0 };
    if (was === "win" && after.checkmate) return { kind: "best", text: "Checkmate.", moves: 0 };
    if (was === "win" && !zeroing) {
      // Plies to the next capture, pawn move or mate, this move counted.
      const plies = Math.abs(after.dtz) + 1;
      if (plies > before.dtz)
        return {
          kind: "longer",
          text: `You keep the win under the 50-move rule, but the next capture, pawn move or mate is ${plural(plies - before.dtz, "ply")} further away: ${plies} plies instead of ${before.dtz}.${other}`,
          moves: 0,
        };
    }
    if (was === "win") return { kind: "best", text: "You keep the win under the 50-move rule.", moves: 0 };
    return { kind: "kept", text: `You keep the ${NAMES[was]} under the 50-move rule.`, moves: 0 };
  }
  const was = before.category;
  const now = OTHER[after.category];
  if (FIFTY.indexOf(now) < FIFTY.indexOf(was)) return { kind: "thrown", text: `You threw the ${NAMES[was]} away: ${NOW[now]}.${other}`, moves: 0 };
  if (was === "win") {
    if (after.checkmate) return { kind: "best", text: "Checkmate.", moves: 0 };
    // Plies to mate from before the move: the best move's, and this one's (counted).
    const extra = (Math.abs(after.dtm) + 1 - before.dtm) / 2;
    const n = before.mate_in;
    if (extra <= 0) return { kind: "best", text: `The best move: you keep the win, mate in ${n}.`, moves: 0 };
    return {
      kind: "longer",
      text: `You keep the win, but the mate is ${plural(extra, "move")} longer: mate in ${n + extra} instead of ${n}.${other}`,
      moves: extra,
    };
  }
  if (was === "loss") {
    const n = -before.mate_in;
    const sooner = (Math.abs(before.dtm) - (Math.abs(after.dtm) + 1)) / 2;
    if (sooner <= 0) return { kind: "best", text: `The best defence: mated in ${n}.`, moves: 0 };
    return { kind: "sooner", text: `The mate comes ${plural(sooner, "move")} sooner: mated in ${n - sooner} instead of ${n}.${other}`, moves: sooner };
  }
  return { kind: "best", text: "You hold the draw.", moves: 0 };
}

/** Your moves against the best, in numbers: `{moves, best, longer, extra, thrown}`. */
export function tally(log) {
  const t = { moves: log.length, best: 0, longer: 0, extra: 0, thrown: 0 };
  for (const e of log) {
    if (e.kind === "best" || e.kind === "kept") t.best++;
    if (e.kind === "longer" || e.kind === "sooner") {
      t.longer++;
      t.extra += e.moves;
    }
    if (e.kind === "thrown") t.thrown++;
  }
  return t;
}
