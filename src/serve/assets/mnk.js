// k-in-a-row viewer: play on any solved board, every empty cell showing what it gives.
import { el, probe, getParam, setParams, select } from "./app.js";
import { valueHistory, firstMoveMap } from "./mnk-chart.js";

const FILES = "abcdefghijklmnopqrstuvwxyz";

/** A table's board, from the parameters `/api/tables` sends (`width`, `height`, `k`):
 * `{w, h, k}`, or null. */
export function dims(t) {
  const p = (t && t.params) || {};
  return p.width && p.height && p.k ? { w: p.width, h: p.height, k: p.k } : null;
}

/** The k-in-a-row viewer as app.js's map of viewers takes it (`viewer: "board"`). */
export const viewer = {
  mount: (root, table, ctx) => mountMnk(root, table, ctx.tables),
  /** A table's short label: `3×3, 3 in a row`. */
  label: (t) => {
    const d = dims(t);
    return d ? `${d.w}×${d.h}, ${d.k} in a row` : t.name;
  },
  /** A position in a link to the board: its rows as they are (`board=`). */
  link: (text) => ["board", text],
};

/** Cell name like a chess square: a1 is bottom-left. */
function cellName(col, rowFromTop, h) {
  return FILES[col] + (h - rowFromTop);
}

/** A move's result for the player making it, in the server's words (`result`: "win in 7
 * plies", the move itself counted, as `retro probe` says it) and, on the cell, short. */
export function cellVerdict(m) {
  // `category` describes the position after the move, for the opponent.
  const cls = m.category === "loss" ? "win" : m.category === "win" ? "loss" : "draw";
  return { cls, text: m.plies ? `${cls} ${m.plies}` : "draw", long: m.result };
}

/** The result of a position for its player to move, best last. */
const RANK = { loss: 0, draw: 1, win: 2 };
const FLIP = { win: "loss", loss: "win", draw: "draw" };
const plies = (n) => `${n} ${n === 1 ? "ply" : "plies"}`;
/** A judged move in a few words, for the review. */
const SHORT = { best: () => "best", longer: (e) => `${plies(e.plies)} longer`, sooner: (e) => `${plies(e.plies)} sooner`, thrown: () => "threw the result away" };

/** What your move did, in words, while the computer plays the other side: `before` the
 * answer for you before it, `after` the answer for the computer once it is played (the
 * plies counted as the cells show them, the move included). `{kind, text, plies}`: kind
 * `best`, `longer` (a win kept, `plies` plies later), `sooner` (a loss, `plies` sooner)
 * or `thrown` (a worse result). */
export function judgeMove(before, after, best) {
  const was = before.category;
  const now = FLIP[after.category];
  const other = best ? ` The best move was ${best.cell} (${best.result}).` : "";
  if (RANK[now] < RANK[was]) {
    const what = now === "draw" ? "it is a draw now" : "you are losing now";
    return { kind: "thrown", text: `You threw the ${was} away: ${what}.${other}`, plies: 0 };
  }
  const took = (after.remoteness ?? 0) + 1;
  if (was === "win" && took > before.remoteness)
    return { kind: "longer", text: `You keep the win, but it takes ${plies(took - before.remoteness)} longer: win in ${took} instead of ${before.remoteness}.${other}`, plies: took - before.remoteness };
  if (was === "loss" && took < before.remoteness)
    return { kind: "sooner", text: `The loss comes ${plies(before.remoteness - took)} sooner: loss in ${took} instead of ${before.remoteness}.${other}`, plies: before.remoteness - took };
  const kept = { win: `The best move: win in ${before.remoteness}.`, loss: `The best defence: loss in ${before.remoteness}.`, draw: "You hold the draw." };
  return { kind: "best", text: kept[was], plies: 0 };
}

export function mountMnk(root, table, tables) {
  const { w, h, k } = dims(table) || { w: 3, h: 3, k: 3 };
  const empty = () => Array.from({ length: h }, () => ".".repeat(w)).join("/");
  // `judging`: your move waiting for its answer; `log`: your moves judged, while the
  // computer plays the other side.
  const S = { history: [], index: -1, result: null, seq: 0, timer: null, judging: null, log: [] };

  const boardEl = el("div", { id: "mnk-board", class: "mnk-board", role: "grid", "aria-label": `${w} by ${h} board` });
    boardEl.style.setProperty("--cols", w);
  boardEl.style.setProperty("--rows", h);
  const picker = el(
    "select",
    { id: "mnk-table", "aria-label": "board" },
    tables
      .filter((t) => t.viewer === table.viewer && dims(t))
      .map((t) => el("option", { value: t.name, selected: t.name === table.name }, viewer.label(t)))
  );
  picker.addEventListener("change", () => select(picker.value, true));
  const status = el("div", { id: "mnk-result", class: "result-head" });
  const sub = el("div", { id: "mnk-result-sub", class: "result-sub" });
  const resultBox = el("div", { class: "result" }, status, sub);
  // What your last move did, while the computer plays; and your moves against the best.
  const verdictEl = el("div", { id: "mnk-verdict", class: "practice-verdict", role: "status" });
  const reviewEl = el("div", { id: "mnk-review", class: "practice-review" });
  const computer = el("input", { id: "computer", type: "checkbox" });
  const compSide = el(
    "select",
    { id: "computer-side", "aria-label": "computer plays" },
    el("option", { value: "o" }, "O (second)"),
    el("option", { value: "x" }, "X (first)")
  );
  const showHints = el("input", { id: "hints", type: "checkbox", checked: true });
  const panel = el(
    "div",
    { class: "panel" },
    resultBox,
    verdictEl,
    reviewEl,
    el("div", { class: "row" }, el("label", { for: "mnk-table" }, "Board"), picker),
    el(
      "div",
      { class: "row" },
      el("button", { id: "undo", type: "button", onclick: undo }, "↶ Undo"),
      el("button", { id: "redo", type: "button", onclick: redo }, "↷ Redo"),
      el("button", { id: "reset", type: "button", onclick: reset }, "Reset"),
      el("button", { id: "mnk-best", class: "primary", type: "button", onclick: playBest }, "Play best")
    ),
    el("div", { class: "row switch" }, el("label", {}, computer, " Computer plays "), compSide),
    el("p", { class: "hint-note" }, "While the computer plays, each of your moves is judged against the best, and Undo takes it back."),
    el("div", { class: "row switch" }, el("label", {}, showHints, " Show what every cell gives")),
    el(
      "p",
      { class: "hint" },
      `Get ${k} in a row (across, down or diagonally) on a ${w}×${h} board. X moves first. Each empty cell shows the result of playing there for the player to move, with the plies to the end of the game, that move included.`
    ),
    el(
      "div",
      { class: "legend" },
      el("span", { class: "cell-demo win" }, "win n"),
      el("span", { class: "cell-demo draw" }, "draw"),
      el("span", { class: "cell-demo loss" }, "loss n")
    )
  );
  const chartBox = el("div", { class: "chart-box" });
  const firstBox = el("div", { class: "first-box" });
  panel.append(
    el("h3", {}, "Value history"),
    el("p", { class: "hint" }, "Each position of the game, top to bottom: left, X wins in so many plies; right, O wins; the centre line, a draw. Dots: the value for the player to move."),
    chartBox,
    el("h3", {}, "First moves"),
    firstBox
  );
  const view = el("div", { class: "mnk" }, el("div", { class: "left" }, boardEl), panel);
  root.append(view);

  const current = () => S.history[S.index];

  function setBoard(board, record = true) {
    if (record) {
      S.history = S.history.slice(0, S.index + 1);
      S.history.push(board);
      S.index = S.history.length - 1;
    }
    refresh();
  }

  function undo() {
    stopTimer();
    if (S.index > 0) {
      S.index--;
      // Undo the computer's reply together with the move it answered.
      if (computer.checked && S.index > 0 && turnOf(current()) === compSide.value) S.index--;
      // Your move taken back: its judgement goes.
      const kept = S.log.filter((e) => e.index < S.index);
      if (kept.length < S.log.length) {
        verdictEl.dataset.kind = "taken-back";
        verdictEl.textContent = `${S.log[kept.length].cell} taken back: your move.`;
      }
      S.log = kept;
      S.judging = null;
      refresh(false);
    }
  }
  function redo() {
    if (S.index < S.history.length - 1) {
      S.index++;
      refresh(false);
    }
  }
  function reset() {
    stopTimer();
    setBoard(empty());
  }

  function turnOf(board) {
    const xs = (board.match(/x/g) || []).length;
    const os = (board.match(/o/g) || []).length;
    return xs > os ? "o" : "x";
  }

  function play(cell, byComputer = false) {
    const col = FILES.indexOf(cell[0]);
    const rowFromTop = h - Number(cell.slice(1));
    const rows = current().split("/");
    if (!rows[rowFromTop] || rows[rowFromTop][col] !== ".") return;
    const t = turnOf(current());
    // Your move while the computer plays the other side: judged once answered.
    const r = S.result;
    S.log = S.log.filter((e) => e.index < S.index);
    S.judging = null;
    if (computer.checked && !byComputer && t !== compSide.value && r && r.ok && r.board === current()) {
      const m = (r.data.moves || []).find((x) => x.cell === cell);
      if (m) S.judging = { index: S.index, before: r.data, cell, best: r.data.moves[0].cell === cell ? null : r.data.moves[0] };
    }
    rows[rowFromTop] = rows[rowFromTop].slice(0, col) + t + rows[rowFromTop].slice(col + 1);
    setBoard(rows.join("/"));
  }

  function playBest(byComputer = false) {
    const r = S.result;
    if (r && r.ok && r.data.best) play(r.data.best.cell, byComputer);
  }

  /** Judge your move that led to the position answered (`res`), and at the end of the game
   * count your moves against the best. */
  function judgeStep(res) {
    const J = S.judging;
    if (J && J.index === S.index - 1 && res.ok) {
      S.judging = null;
      const j = judgeMove(J.before, res.data, J.best);
      S.log.push({ index: J.index, cell: J.cell, best: J.best ? J.best.cell : null, ...j });
      verdictEl.dataset.kind = j.kind;
      verdictEl.textContent = j.text;
    }
    const over = res.ok && !(res.data.moves || []).length;
    if (!S.log.length) return reviewEl.replaceChildren();
    const rows = S.log.map((e) =>
      el("li", { class: `review-${e.kind}`, "data-kind": e.kind }, el("b", {}, e.cell), e.best ? ` (best ${e.best})` : "", `: ${SHORT[e.kind](e)}`)
    );
    const parts = [el("ul", { class: "review" }, rows)];
    if (over) {
      const n = (kind) => S.log.filter((e) => e.kind === kind).length;
      const later = S.log.reduce((a, e) => a + (e.kind === "longer" || e.kind === "sooner" ? e.plies : 0), 0);
      parts.unshift(
        el(
          "p",
          { id: "mnk-summary", class: "practice-summary" },
          `Your ${S.log.length} moves against the best: ${n("best")} as good as the best, ${n("longer") + n("sooner")} changed the length (by ${plies(later)} in all), ${n("thrown")} threw the result away.`
        )
      );
    }
    reviewEl.replaceChildren(...parts);
  }

  function stopTimer() {
    if (S.timer) clearTimeout(S.timer);
    S.timer = null;
  }

  function draw() {
    const board = current();
    const rows = board.split("/");
    const res = S.result;
    const moves = new Map();
    if (res && res.ok) for (const m of res.data.moves || []) moves.set(m.cell, m);
    const best = res && res.ok && res.data.best ? res.data.best.cell : null;
    const cells = [];
    for (let r = 0; r < h; r++) {
      for (let c = 0; c < w; c++) {
        const name = cellName(c, r, h);
        const v = rows[r] ? rows[r][c] : ".";
        const cell = el("button", { type: "button", class: "cell", "data-cell": name, "aria-label": name });
        if (v === "x" || v === "o") {
          cell.classList.add("stone", v);
          cell.append(el("span", { class: "mark" }, v === "x" ? "×" : "○"));
          cell.disabled = true;
        } else {
          const m = moves.get(name);
          if (m) {
            const cv = cellVerdict(m);
            cell.classList.add("hint-" + cv.cls);
            cell.title = `${name}: ${cv.long}`;
            cell.dataset.verdict = cv.long;
            if (showHints.checked) cell.append(el("span", { class: "cell-verdict" }, cv.text));
            if (best === name) cell.classList.add("best");
          } else cell.disabled = true;
          cell.addEventListener("click", () => {
            stopTimer();
            play(name);
          });
        }
        if (!showHints.checked) cell.classList.add("no-hints");
        cells.push(cell);
      }
    }
    boardEl.replaceChildren(...cells);
  }

  function describe() {
    const res = S.result;
    if (!res) return { cls: "pending", head: "…", sub: "" };
    if (!res.ok) return { cls: "illegal", head: res.data.error || "Refused", sub: "" };
    const j = res.data;
    const who = j.turn === "x" ? "X" : "O";
    const other = j.turn === "x" ? "O" : "X";
    if (!j.moves || j.moves.length === 0) {
      if (j.category === "loss") return { cls: "loss", head: `${other} wins`, sub: `${k} in a row. Reset or undo to play again.` };
      return { cls: "draw", head: "Draw · the board is full", sub: "Reset or undo to play again." };
    }
    const plies = (n) => `${n} ${n === 1 ? "ply" : "plies"} (single moves)`;
    if (j.category === "win") return { cls: "win", head: `${who} to move: win in ${j.remoteness}`, sub: `${plies(j.remoteness)} with best play; the best cell is outlined.` };
    if (j.category === "loss") return { cls: "loss", head: `${who} to move: loss in ${j.remoteness}`, sub: `${plies(j.remoteness)} with the best defence.` };
    return { cls: "draw", head: `${who} to move: draw`, sub: "with best play from both sides" };
  }

  async function refresh() {
    const board = current();
    setParams({ table: table.name, board });
    const seq = ++S.seq;
    draw();
    const res = await probe(table.name, board);
    if (seq !== S.seq) return;
    S.result = { ...res, board };
    judgeStep(res);
    const d = describe();
    resultBox.className = `result ${d.cls}`;
    status.textContent = d.head;
    sub.textContent = d.sub;
    draw();
    view.dataset.board = board;
    view.dataset.ready = String(seq);
    document.getElementById("undo").disabled = S.index <= 0;
    document.getElementById("redo").disabled = S.index >= S.history.length - 1;
    document.getElementById("mnk-best").disabled = !(res.ok && res.data.best);
    maybeComputer();
    drawCharts(seq);
  }

  /** The cell where two boards differ (the move between them), or null. */
  function movedCell(a, b) {
    const ra = a.split("/");
    const rb = b.split("/");
    for (let r = 0; r < h; r++) for (let c = 0; c < w; c++) if (ra[r] && rb[r] && ra[r][c] !== rb[r][c]) return cellName(c, r, h);
    return null;
  }

  /** The value history of the game up to the shown position, and the first-move map. */
  async function drawCharts(seq) {
    const boards = S.history.slice(0, S.index + 1);
    const answers = await Promise.all(boards.map((b) => probe(table.name, b)));
    const first = await probe(table.name, empty());
    if (seq !== S.seq) return;
    const rows = boards.map((b, i) => ({
      ply: (b.match(/[xo]/g) || []).length,
      move: i > 0 ? movedCell(boards[i - 1], b) : null,
      data: answers[i].ok ? answers[i].data : null,
    }));
    chartBox.replaceChildren(valueHistory(rows, w * h));
    firstBox.replaceChildren(firstMoveMap(w, h, first.ok ? first.data : null, cellVerdict));
    view.dataset.charted = String(seq);
  }

  function maybeComputer() {
    stopTimer();
    const r = S.result;
    if (!computer.checked || !r || !r.ok || !r.data.best) return;
    if (r.data.turn !== compSide.value) return;
    S.timer = setTimeout(() => playBest(true), 350);
  }

  computer.addEventListener("change", maybeComputer);
  compSide.addEventListener("change", maybeComputer);
  showHints.addEventListener("change", draw);

  const fromUrl = getParam("board");
  const valid = fromUrl && fromUrl.split("/").length === h && fromUrl.split("/").every((r) => r.length === w && /^[xo.]+$/.test(r));
  S.history = [valid ? fromUrl : empty()];
  S.index = 0;
  refresh();

  const unmount = () => stopTimer();
  unmount.reload = () => {
    const b = getParam("board");
    if (b && b !== current()) setBoard(b);
  };
  return unmount;
}
