// Chess viewer (KBNK and every chess table): a free board editor and analysis board over the tablebase.
import { el, probe, getParam, setParams, SVGNS } from "./app.js";
import { pieceSvg, PIECE_NAMES } from "./pieces.js";
import { renderLine, lineAround, pgn } from "./chess-line.js";
import { FILES, sqName, sqIndex, readFen, parseFen, toFen, clonePos, editedPos, applyUci, materialFen, boardMaterial } from "./chess-pos.js";
import { bestByDtm, judge, tally } from "./chess-practice.js";

const DEFAULT_FEN = "8/8/8/4k3/8/8/8/1N2KB2 w - - 0 1";

/** "mate in 33" → "Mate in 33": the server's words, capitalised for a heading. */
export const cap = (t) => (t ? t[0].toUpperCase() + t.slice(1) : t);

/** A move's result for the side making it, in the server's words (`result`, `plies`). */
export function moveVerdict(m) {
  // The JSON's category describes the position after the move, for the opponent.
  const cls = m.category === "loss" ? "win" : m.category === "win" ? "loss" : "draw";
  return { cls, text: m.result, plies: m.plies };
}

const SIDE = { w: "White", b: "Black", white: "White", black: "Black" };

/** King against king and at most one bishop or knight: no mate is possible. */
function insufficient(pos) {
  const pieces = pos.board.filter(Boolean).sort().join("");
  return pieces === "BKk" || pieces === "KNk" || pieces === "Kbk" || pieces === "Kkn" || pieces === "Kk";
}

/** Bare kings not side by side: a legal position, drawn by the rules (no table holds it). */
function kingsApart(pos) {
  if (pos.board.filter(Boolean).length !== 2) return false;
  const [a, b] = ["K", "k"].map((k) => pos.board.indexOf(k));
  return a >= 0 && b >= 0 && Math.max(Math.abs((a % 8) - (b % 8)), Math.abs((a >> 3) - (b >> 3))) > 1;
}

/** The position's result in words: {cls, head, sub}. */
export function verdict(res, pos) {
  if (!res) return { cls: "pending", head: "…", sub: "" };
  if (!res.ok && pos && insufficient(pos) && res.data && (res.data.missing || kingsApart(pos))) {
    // After a capture of the last bishop or knight: a draw by the rules, no table needed.
    return { cls: "draw", head: "Draw · insufficient material", sub: "A lone bishop or knight cannot force mate." };
  }
  if (!res.ok && res.data && res.data.command) {
    // A material whose table this server lacks: the command that makes it.
    const d = res.data;
    return { cls: "illegal", head: `No ${d.missing} table on this server`, sub: `Make it with: ${d.command}, then restart retro serve.` };
  }
  if (!res.ok) {
    // Any material: the server names what is wrong.
    const d = res.data || {};
    const msg = d.reason || d.error || "The server refused this position.";
    const illegal = d.category === "illegal";
    return {
      cls: "illegal",
      head: (illegal ? "Illegal: " : "") + msg,
      sub: illegal ? "Drag the pieces to a legal position." : "Only the tables the server lists can be probed.",
    };
  }
  const j = res.data;
  const side = SIDE[j.side] || j.side;
  const plies = Math.abs(j.dtm);
  const head = cap(j.result);
  // Checkmate and stalemate are facts about the board, not a loss to colour red.
  if (j.checkmate) return { cls: "mate", head, sub: `${side} is in check and has no legal move.` };
  if (j.stalemate) return { cls: "draw", head, sub: `${side} is not in check and has no legal move: a draw.` };
  if (j.category === "win") return { cls: "win", head, sub: `${plies} plies with best play` };
  if (j.category === "loss") return { cls: "loss", head, sub: `${plies} plies with best defence` };
  return { cls: "draw", head, sub: "Neither side can force a win." };
}

/** The DTZ line under the verdict, where the server has the material's DTZ table: plies
 * to the next capture, pawn move or mate, and whether the 50-move rule lets the result
 * stand. Empty without a DTZ table. */
export function dtzLine(res, halfmove = 0) {
  if (!res || !res.ok) return "";
  const d = res.data;
  // The game is over: no count to show.
  if (d.checkmate || d.stalemate) return "";
  if (d.dtz === undefined || d.dtz === null) {
    // Only the distance to mate is known: a mate within 100 plies of the clock comes before
    // any claim; a later one may be drawn by the 50-move rule first.
    if (typeof d.dtm !== "number" || Math.abs(d.dtm) + halfmove <= 100) return "";
    return "50-move rule not taken into account: this server has no distance-to-zeroing (DTZ) table for this material.";
  }
  const n = Math.abs(d.dtz);
  const clock = halfmove > 0 ? ` (halfmove clock at ${halfmove})` : "";
  const what = {
    win: "the win holds under the 50-move rule",
    loss: "the loss holds under the 50-move rule",
    "cursed-win": "cursed win: the 50-move rule draws it",
    "blessed-loss": "blessed loss: the 50-move rule saves it",
  }[d.dtz_category];
  if (!what) return "DTZ 0 · a draw";
  return `DTZ ${n} ${n === 1 ? "ply" : "plies"} to a capture, pawn move or mate · ${what}${clock}`;
}

/** The chess viewer as app.js's map of viewers takes it: the tables `/api/tables` marks
 * `viewer: "chess"` (KBNK and every chess material, DTZ tables included). */
export const viewer = {
  mount: (root, table, ctx) => mountChess(root, table, { onTable: ctx.onTable }),
  /** A table's short label: `KBNK`, `KQvKR`, `KQvKR DTZ`. */
  label: (t) => (t.game === "kbnk" ? "KBNK" : t.name.endsWith(".dtz") ? `${t.name.slice(0, -4)} DTZ` : t.name),
  /** A position in a link to the board: its FEN, spaces as underscores (`fen=`). */
  link: (text) => ["fen", text.replace(/ /g, "_")],
  /** Pieces on the board, kings included. */
  pieces: (t) => (t.params && t.params.pieces) || (t.game === "kbnk" ? 4 : null),
};

/** The chess board over `table`; `hooks.onTable(name)` hears when the board's material
 * moves on to another table (a capture, a promotion, an edit). */
export function mountChess(root, table, hooks = {}) {
  // Every board is probed through `/api/probe/chess`, which answers from the table that
  // holds the material on the board: its chess table, or another game's (KBNK's table
  // for KBNvK). A table of another game keeps its own pieces in the tray.
  const generic = table.game === "chess";
  const defaultFen = generic ? materialFen(table.name) : DEFAULT_FEN;
  const S = {
    history: [],
    index: -1,
    flipped: false,
    result: null,
    seq: 0,
    selected: null,
    autoplay: null,
    drag: null,
    // The table answering for the board, which follows its material.
    table: table.name,
    // A practice game against the tablebase: `{side, fifty, log, timer, judging, over}`.
    practice: null,
  };

  // ----- layout -----
  const boardEl = el("div", { id: "board", class: "board", role: "grid", "aria-label": "chess board" });
  const arrowSvg = document.createElementNS(SVGNS, "svg");
  arrowSvg.setAttribute("class", "arrows");
  arrowSvg.setAttribute("viewBox", "0 0 8 8");
  const boardWrap = el("div", { class: "board-wrap" }, boardEl, arrowSvg);
  // The board's material above it, and the table answering (`KvKQ` is answered from
  // `KQvK`, KBNvK perhaps from `kbnk`), or that it is missing.
  const materialEl = el("span", { id: "material", class: "material-name" });
  const materialNote = el("span", { id: "material-note", class: "material-note" });
  const materialBar = el(
    "div",
    { class: "material-bar" },
    el("span", { class: "material-label" }, "Material"),
    materialEl,
    materialNote,
    el("a", { id: "all-tables", href: "/?view=tables" }, "All tables")
  );
  const spares = el("div", { id: "spares", class: "spares", title: "Drag a piece onto the board; drag a piece off the board to remove it" });
  const tray = generic ? ["K", "Q", "R", "B", "N", "P", "k", "q", "r", "b", "n", "p"] : ["K", "B", "N", "k"];
  for (const p of tray) {
    const s = el("div", { class: "spare piece", "data-spare": p, title: `add a ${PIECE_NAMES[p]}` });
    s.innerHTML = pieceSvg(p);
    s.addEventListener("pointerdown", (ev) => startDrag(ev, null, p));
    spares.append(s);
  }
  const resultHead = el("div", { id: "result", class: "result-head" });
  const resultSub = el("div", { id: "result-sub", class: "result-sub" });
  const bestEl = el("div", { id: "best", class: "best-line" });
  const resultDtz = el("div", { id: "result-dtz", class: "result-dtz" });
  const resultBox = el("div", { class: "result" }, resultHead, resultSub, resultDtz, bestEl);
  const movesEl = el("ol", { id: "moves", class: "moves" });
  // What the small labels beside a move mean, in view (phones show no tooltips).
  const movesNote = el("p", { id: "moves-note", class: "moves-note" }, "z12: after the move, 12 plies to the next capture, pawn move or mate (distance to zeroing) with best play.");
  const fenInput = el("input", { id: "fen", class: "fen", type: "text", spellcheck: "false", autocomplete: "off", "aria-label": "FEN" });
  // Why a FEN typed, pasted or linked was not taken: in words, under the box.
  const fenError = el("div", { id: "fen-error", class: "fen-error", role: "alert", hidden: true });
  const sideW = el("button", { id: "side-white", class: "seg", type: "button", onclick: () => setTurn("w") }, "White to move");
  const sideB = el("button", { id: "side-black", class: "seg", type: "button", onclick: () => setTurn("b") }, "Black to move");
  const speed = el("input", { id: "speed", type: "range", min: "100", max: "2000", step: "100", value: "700", "aria-label": "autoplay delay" });
  const speedLabel = el("span", { class: "speed-label" });
  const autoBtn = el("button", { id: "autoplay", type: "button", onclick: toggleAutoplay }, "▶ Play to mate");
  const backBtn = el("button", { id: "back", type: "button", title: "back (←)", onclick: () => go(S.index - 1) }, "◀");
  const fwdBtn = el("button", { id: "forward", type: "button", title: "forward (→)", onclick: () => go(S.index + 1) }, "▶");
  const ply = el("span", { id: "ply", class: "ply" });
  const bestBtn = el("button", { id: "play-best", class: "primary", type: "button", onclick: playBest }, "Play best move");

  const lineEl = el("div", { id: "line", class: "line", "aria-label": "moves played" });
  const pgnBtn = el("button", { id: "copy-pgn", type: "button", title: "copy the line as PGN, from its starting FEN", onclick: copyPgn }, "Copy PGN");
  // The text last copied, readable on the page whether or not the clipboard is allowed.
  const pgnText = el("textarea", { id: "pgn-text", class: "pgn-text", readonly: true, rows: "4", "aria-label": "PGN", hidden: true });
  // Practice against the tablebase: you play one side, it answers with its best defence.
  const practiceSide = el(
    "select",
    { id: "practice-side", "aria-label": "your side" },
    el("option", { value: "" }, "the side to move"),
    el("option", { value: "w" }, "White"),
    el("option", { value: "b" }, "Black")
  );
  const practiceFifty = el("input", { id: "practice-fifty", type: "checkbox" });
  const practiceBtn = el("button", { id: "practice", type: "button", onclick: togglePractice }, "Practise");
  const takeBackBtn = el("button", { id: "take-back", type: "button", onclick: takeBack, disabled: true }, "↶ Take back");
  const practiceVerdict = el("div", { id: "practice-verdict", class: "practice-verdict", role: "status" });
  const practiceReview = el("div", { id: "practice-review", class: "practice-review" });
  const practiceBox = el(
    "div",
    { class: "practice-box" },
    el("div", { class: "row" }, practiceBtn, el("label", { for: "practice-side" }, "as"), practiceSide, takeBackBtn),
    el("div", { class: "row small" }, el("label", {}, practiceFifty, " Play to the 50-move rule (the tablebase defends by DTZ, your moves are judged by it)")),
    practiceVerdict,
    practiceReview
  );
  // The lines of best moves from the position: to mate (DTM) and to the next capture,
  // pawn move or mate under the 50-move rule (DTZ, `/standard/mainline`).
  const dtmLineEl = el("div", { id: "dtm-line", class: "best-moves" });
  const dtzLineEl = el("div", { id: "dtz-line", class: "best-moves" });
  const linesBox = el("div", { class: "lines-box" }, dtmLineEl, dtzLineEl);
  // Phone width: the verdict and the moves come first, right under the board. The play
  // buttons head the panel: nothing above them changes height, so they never move.
  const panel = el(
    "div",
    { class: "panel" },
    el("div", { class: "row play-row" }, bestBtn, autoBtn),
    resultBox,
    practiceBox,
    el("h3", { class: "moves-head" }, "Moves"),
    movesEl,
    movesNote,
    el("div", { class: "row small" }, el("label", { for: "speed" }, "Speed"), speed, speedLabel),
    el("h3", {}, "Best lines"),
    linesBox,
    el("h3", {}, "Line"),
    lineEl,
    el("div", { class: "row" }, backBtn, ply, fwdBtn, pgnBtn),
    pgnText
  );
  // Mirroring left to right keeps the result and puts each bishop on the other colour of
  // square: offered only while a bishop is on the board, where that means something.
  const mirrorBtn = el("button", { id: "mirror", type: "button", title: "mirror left to right: the other bishop colour, same result", onclick: mirror }, "⇆ Other bishop colour");
  const fenRow = el("div", { class: "row fen-row" }, fenInput, el("button", { id: "copy-fen", type: "button", onclick: copyFen }, "Copy"));
  const editor = el(
    "div",
    { class: "editor" },
    el("div", { class: "row seg-group", role: "group", "aria-label": "side to move" }, sideW, sideB),
    el(
      "div",
      { class: "row" },
      el("button", { id: "flip", type: "button", onclick: flip }, "⇅ Flip"),
      mirrorBtn,
      el("button", { id: "clear", type: "button", onclick: clearBoard }, "Clear"),
      el("button", { id: "setup", type: "button", title: "a starting position to set up from", onclick: () => setPosition(parseFen(defaultFen), true) }, "Reset")
    ),
    el("p", { class: "hint" }, "Drag any piece to any square, legal or not; a drag that is a legal move plays it. Drag pieces from the tray to set up, off the board to remove.")
  );
  // The FEN box sits above the board, in view without scrolling.
  const view = el("div", { class: "chess" }, el("div", { class: "left" }, materialBar, fenRow, fenError, spares, boardWrap, editor), panel);
  root.append(view);

  // ----- position & history -----
  const current = () => S.history[S.index];

  /** `san`: set for a move played (it extends the line), absent for an edit. */
  function setPosition(pos, record, lastMove = null, san = null) {
    if (!pos) return;
    // An edit ends a practice game; a move played from an earlier position of it drops
    // the judgements of the moves after.
    if (S.practice && !san) stopPractice();
    if (S.practice) S.practice.log = S.practice.log.filter((e) => e.index < S.index);
    if (record) {
      S.history = S.history.slice(0, S.index + 1);
      S.history.push({ pos, lastMove, san });
      S.index = S.history.length - 1;
    } else {
      S.history[S.index] = { pos, lastMove, san };
    }
    refresh();
  }

  function go(i) {
    if (i < 0 || i >= S.history.length) return;
    if (S.practice) {
      clearTimeout(S.practice.timer);
      S.practice.judging = null;
    }
    S.index = i;
    refresh();
  }

  function setTurn(t) {
    const pos = editedPos(current().pos);
    if (pos.turn === t) return;
    pos.turn = t;
    stopAutoplay();
    setPosition(pos, true);
  }

  function flip() {
    S.flipped = !S.flipped;
    setParams(urlParams(toFen(current().pos)));
    drawBoard();
    drawArrow();
  }

  /** The page's URL parameters for the board showing `fen`: the table, the position and
   * the board's orientation (black at the bottom: `flip=1`). */
  function urlParams(fen) {
    return { table: S.table, fen: fen.replace(/ /g, "_"), flip: S.flipped ? "1" : null };
  }

  function mirror() {
    const pos = editedPos(current().pos);
    for (let i = 0; i < 64; i++) pos.board[i] = current().pos.board[(i & ~7) | (7 - (i & 7))];
    setPosition(pos, true);
  }

  function clearBoard() {
    stopAutoplay();
    const pos = editedPos(current().pos);
    pos.board.fill(null);
    setPosition(pos, true);
  }

  async function copyPgn() {
    const { start, end } = lineAround(S.history, S.index);
    const text = pgn(S.history, start, end);
    pgnText.value = text;
    pgnText.hidden = false;
    try {
      await navigator.clipboard.writeText(text);
      pgnBtn.textContent = "Copied";
    } catch (e) {
      // No clipboard permission: the text is selected in the box for a manual copy.
      pgnText.select();
      const ok = document.execCommand && document.execCommand("copy");
      pgnBtn.textContent = ok ? "Copied" : "Select and copy below";
    }
    pgnText.dataset.copied = text;
    setTimeout(() => (pgnBtn.textContent = "Copy PGN"), 1200);
  }

  async function copyFen() {
    const text = toFen(current().pos);
    try {
      await navigator.clipboard.writeText(text);
    } catch (e) {
      fenInput.select();
      document.execCommand && document.execCommand("copy");
    }
    fenInput.classList.add("flash");
    setTimeout(() => fenInput.classList.remove("flash"), 600);
  }

  /** Show why a FEN was refused (`null`: it was taken). */
  function showFenError(msg) {
    fenError.textContent = msg || "";
    fenError.hidden = !msg;
    fenInput.classList.toggle("bad", Boolean(msg));
  }

  fenInput.addEventListener("change", () => {
    const r = readFen(fenInput.value);
    if (r.pos) setPosition(r.pos, true);
    else showFenError(r.error);
  });
  fenInput.addEventListener("input", () => showFenError(null));
  fenInput.addEventListener("paste", () => setTimeout(() => fenInput.dispatchEvent(new Event("change")), 0));

  speed.addEventListener("input", () => (speedLabel.textContent = `${(speed.value / 1000).toFixed(1)} s/move`));
  speed.dispatchEvent(new Event("input"));

  // ----- rendering -----
  function drawBoard() {
    const { pos, lastMove } = current();
    const squares = [];
    for (let row = 0; row < 8; row++) {
      for (let col = 0; col < 8; col++) {
        const rank = S.flipped ? row : 7 - row;
        const file = S.flipped ? 7 - col : col;
        const i = rank * 8 + file;
        const name = sqName(i);
        const dark = (rank + file) % 2 === 0;
        const cls = ["square", dark ? "dark" : "light"];
        if (lastMove && (lastMove.slice(0, 2) === name || lastMove.slice(2, 4) === name)) cls.push("last");
        if (S.selected === i) cls.push("selected");
        const sq = el("div", { class: cls.join(" "), "data-square": name });
        if (col === 0) sq.append(el("span", { class: "coord rank" }, String(rank + 1)));
        if (row === 7) sq.append(el("span", { class: "coord file" }, FILES[file]));
        const p = pos.board[i];
        if (p) {
          const pe = el("div", { class: "piece", "data-piece": p, "aria-label": PIECE_NAMES[p] || p });
          pe.innerHTML = pieceSvg(p);
          pe.addEventListener("pointerdown", (ev) => startDrag(ev, i, p));
          sq.append(pe);
        }
        sq.addEventListener("click", () => clickSquare(i));
        squares.push(sq);
      }
    }
    boardEl.replaceChildren(...squares);
    markCheck();
  }

  /** The board's material (`KQvKR`), and the table answering when it is another name. */
  function drawMaterial(pos, answering) {
    const m = boardMaterial(pos);
    mirrorBtn.hidden = !/B/.test(m.name);
    materialEl.textContent = m.name;
    materialEl.dataset.pieces = String(m.pieces);
    const missing = S.result && !S.result.ok && S.result.data && S.result.data.missing === answering;
    // The table that answered, always named: a material may be answered from a table
    // under another name (its colours swapped, or another game's table: kbnk for KBNvK).
    materialNote.textContent = !answering
      ? `${m.pieces} pieces`
      : missing
        ? `${m.pieces} pieces · no table here`
        : `${m.pieces} pieces · answered from ${answering}`;
  }

  /** Red glow on the king in check, once the table has answered for this position. */
  function markCheck() {
    boardEl.querySelectorAll(".square.check").forEach((q) => q.classList.remove("check"));
    const res = S.result;
    const { pos } = current();
    if (!res || !res.ok || !res.data.check || res.fen !== toFen(pos)) return;
    const k = pos.board.indexOf(pos.turn === "w" ? "K" : "k");
    const sq = k >= 0 && boardEl.querySelector(`[data-square="${sqName(k)}"]`);
    if (sq) sq.classList.add("check");
  }

  function squareXY(name) {
    const i = sqIndex(name);
    const file = i % 8;
    const rank = Math.floor(i / 8);
    const x = S.flipped ? 7 - file : file;
    const y = S.flipped ? rank : 7 - rank;
    return [x + 0.5, y + 0.5];
  }

  /** The best move's arrow, and beside it the first move of the DTZ line where it is
   * another move (`S.lines`, for the position shown). */
  function drawArrow() {
    arrowSvg.replaceChildren();
    arrowSvg.removeAttribute("data-best");
    arrowSvg.removeAttribute("data-dtz");
    const res = S.result;
    if (!res || !res.ok || !res.data.best) return;
    const uci = res.data.best.uci;
    const lines = S.lines && S.lines.fen === res.fen ? S.lines : null;
    if (lines && lines.dtz && lines.dtz !== uci) {
      arrowSvg.append(...arrow(lines.dtz, "dtz"));
      arrowSvg.setAttribute("data-dtz", lines.dtz);
    }
    arrowSvg.setAttribute("data-best", uci);
    arrowSvg.append(...arrow(uci, "best"));
  }

  /** An arrow from the move's square to its target: its line and its head. */
  function arrow(uci, kind) {
    const [x1, y1] = squareXY(uci.slice(0, 2));
    const [x2, y2] = squareXY(uci.slice(2, 4));
    const len = Math.hypot(x2 - x1, y2 - y1);
    const ux = (x2 - x1) / len;
    const uy = (y2 - y1) / len;
    const head = 0.42;
    const ex = x2 - ux * head;
    const ey = y2 - uy * head;
    const line = document.createElementNS(SVGNS, "line");
    line.setAttribute("x1", x1 + ux * 0.2);
    line.setAttribute("y1", y1 + uy * 0.2);
    line.setAttribute("x2", ex);
    line.setAttribute("y2", ey);
    line.setAttribute("class", `arrow-line arrow-${kind}`);
    const w = 0.3;
    const tip = document.createElementNS(SVGNS, "polygon");
    tip.setAttribute(
      "points",
      `${x2},${y2} ${ex - uy * w},${ey + ux * w} ${ex + uy * w},${ey - ux * w}`
    );
    tip.setAttribute("class", `arrow-head arrow-${kind}`);
    return [line, tip];
  }

  // ----- the lines of best moves -----
  /** `/standard/mainline` for `fen` (the line of best moves, DTZ-optimal where the server
   * has DTZ tables), or null; kept for the positions seen. */
  const mainlines = new Map();
  async function mainline(fen) {
    if (mainlines.has(fen)) return mainlines.get(fen);
    let out = null;
    try {
      const r = await fetch(`/standard/mainline?fen=${encodeURIComponent(fen)}`);
      if (r.ok) out = await r.json();
    } catch (e) {
      out = null;
    }
    if (mainlines.size > 500) mainlines.delete(mainlines.keys().next().value);
    mainlines.set(fen, out);
    return out;
  }

  /** The most plies a line shows. */
  const LINE_PLIES = 40;

  /** The line of best moves by distance to mate from `pos` (answered `data`), walked
   * through the answers (cached): `[{uci, san}]`. */
  async function dtmLine(pos, data, seq) {
    const line = [];
    let p = pos;
    let d = data;
    while (d && d.category !== "draw" && line.length < LINE_PLIES) {
      const m = bestByDtm(d.moves);
      if (!m) break;
      line.push({ uci: m.uci, san: m.san });
      p = applyUci(p, m.uci);
      if (m.checkmate) break;
      const r = await probe("chess", toFen(p));
      if (seq !== S.seq || !r.ok) break;
      d = r.data;
    }
    return line;
  }

  /** Both lines for the position shown: to mate, and under the 50-move rule. */
  async function drawLines(seq) {
    const res = S.result;
    const pos = current().pos;
    const fen = toFen(pos);
    const data = res && res.ok ? res.data : null;
    const hasDtz = data && data.dtz !== null && data.dtz !== undefined;
    const [dtm, dtz] = await Promise.all([
      data ? dtmLine(pos, data, seq) : [],
      hasDtz && data.category !== "draw" ? mainline(fen) : null,
    ]);
    if (seq !== S.seq) return;
    const dtzMoves = dtz ? dtz.mainline.slice(0, LINE_PLIES) : [];
    S.lines = { fen, dtz: dtzMoves.length ? dtzMoves[0].uci : null };
    const over = data && !(data.moves || []).length;
    const none = !data ? "" : over ? "the game is over." : data.category === "draw" ? "a draw: no line to mate." : null;
    renderBestLine(dtmLineEl, "Mate (DTM)", pos, dtm, none ?? (dtm.length ? "" : "—"), data && data.mate_in !== null ? ` mate in ${Math.abs(data.mate_in)}` : "");
    const why = !data ? "" : over ? none : !hasDtz ? "no DTZ table of this material on this server." : none ?? "";
    renderBestLine(dtzLineEl, "50-move rule (DTZ)", pos, dtzMoves, why, dtz && dtz.mainline.length > LINE_PLIES ? " …" : "");
    drawArrow();
    view.dataset.lines = String(seq);
  }

  /** One line: its label, then its moves numbered from `pos` (each plays the line to
   * there), or `empty` in words where it has none; `tail` after a line cut short. */
  function renderBestLine(box, label, pos, moves, empty, tail) {
    const items = [el("span", { class: "line-label" }, `${label}: `)];
    if (!moves.length) items.push(empty);
    let n = pos.fullmove || 1;
    let turn = pos.turn;
    moves.forEach((m, k) => {
      if (turn === "w") items.push(el("span", { class: "move-num" }, `${n}.`));
      else if (k === 0) items.push(el("span", { class: "move-num" }, `${n}...`));
      items.push(el("button", { type: "button", class: "ply-btn", "data-uci": m.uci, onclick: () => playLine(moves, k) }, m.san));
      if (turn === "b") n++;
      turn = turn === "w" ? "b" : "w";
    });
    const last = moves[moves.length - 1];
    if (moves.length && !(last.san || "").endsWith("#")) items.push(el("span", { class: "line-tail" }, moves.length >= LINE_PLIES ? " …" : tail));
    box.replaceChildren(...items);
  }

  /** Play the moves of a line, up to and including move `k`. */
  function playLine(moves, k) {
    stopAutoplay();
    let pos = current().pos;
    for (const m of moves.slice(0, k + 1)) {
      const next = applyUci(pos, m.uci);
      if (!next) return;
      S.history = S.history.slice(0, S.index + 1);
      S.history.push({ pos: next, lastMove: m.uci, san: m.san });
      S.index = S.history.length - 1;
      pos = next;
    }
    refresh();
  }

  function drawPanel() {
    const res = S.result;
    const v = verdict(res, current().pos);
    resultBox.className = `result ${v.cls}`;
    resultHead.textContent = v.head;
    resultSub.textContent = v.sub;
    resultDtz.textContent = dtzLine(res, current().pos.halfmove);
    resultBox.classList.toggle("cursed", res && res.ok && /cursed|blessed/.test(res.data.dtz_category || ""));
    const moves = res && res.ok ? res.data.moves || [] : [];
    const best = res && res.ok && res.data.best ? res.data.best : null;
    bestEl.textContent = best ? `Best move: ${best.san}` : "";
    bestBtn.disabled = !best;
    autoBtn.disabled = !best && !S.autoplay;
    movesEl.replaceChildren(
      ...moves.map((m) => {
        const mv = moveVerdict(m);
        return el(
          "li",
          {},
          el(
            "button",
            {
              type: "button",
              class: `move ${mv.cls}` + (best && best.uci === m.uci ? " best" : ""),
              "data-uci": m.uci,
              title: mv.plies ? `${m.uci}: ${mv.text}, ${mv.plies} ${mv.plies === 1 ? "ply" : "plies"}` : `${m.uci}: ${mv.text}`,
              onclick: () => playUci(m.uci),
            },
            el("span", { class: "san" }, m.san),
            el(
              "span",
              { class: "verdict" },
              mv.text,
              mv.plies ? el("small", { class: "plies" }, ` ${mv.plies}p`) : null,
              // The DTZ of the position reached, where the server has DTZ tables (not for
              // a draw, whose DTZ is 0).
              m.dtz ? el("small", { class: "dtz", title: "distance to zeroing after the move, plies" }, ` z${Math.abs(m.dtz)}`) : null
            )
          )
        );
      })
    );
    // Kept in place when empty, so that the buttons below stay where they are.
    movesNote.style.visibility = moves.some((m) => m.dtz) ? "visible" : "hidden";
    if (res && res.ok && moves.length === 0) movesEl.append(el("li", { class: "none" }, "No legal moves."));
    if (res && !res.ok) movesEl.append(el("li", { class: "none" }, "—"));
    ply.textContent = `${S.index + 1} / ${S.history.length}`;
    renderLine(lineEl, S.history, S.index, go);
    backBtn.disabled = S.index <= 0;
    fwdBtn.disabled = S.index >= S.history.length - 1;
    const turn = current().pos.turn;
    sideW.classList.toggle("on", turn === "w");
    sideB.classList.toggle("on", turn === "b");
    sideW.setAttribute("aria-pressed", turn === "w");
    sideB.setAttribute("aria-pressed", turn === "b");
  }

  async function refresh() {
    const pos = current().pos;
    const fen = toFen(pos);
    if (document.activeElement !== fenInput) fenInput.value = fen;
    showFenError(null);
    setParams(urlParams(fen));
    S.selected = null;
    drawBoard();
    drawMaterial(pos, null);
    const seq = ++S.seq;
    const res = await probe("chess", fen);
    if (seq !== S.seq) return;
    S.result = { ...res, fen };
    const answering = res.ok ? res.data.table : res.data && res.data.missing;
    drawMaterial(pos, answering || null);
    if (answering && answering !== S.table) {
      S.table = answering;
      setParams(urlParams(fen));
      if (hooks.onTable) hooks.onTable(answering);
    }
    view.dataset.fen = fen;
    markCheck();
    drawArrow();
    drawPanel();
    view.dataset.ready = String(seq);
    practiceStep();
    drawLines(seq);
  }

  // ----- moves -----
  function legalUci(from, to) {
    const res = S.result;
    if (!res || !res.ok) return null;
    const uci = sqName(from) + sqName(to);
    // Moves are listed best first: a pawn reaching the last rank takes the best promotion.
    const m = (res.data.moves || []).find((x) => x.uci.slice(0, 4) === uci);
    return m ? m.uci : null;
  }

  /** Play `uci`. While practising, a move of your side is judged once the position it
   * reaches is answered; the tablebase's side moves only by `reply` (`byTablebase`). */
  function playUci(uci, byTablebase = false) {
    const res = S.result;
    const pos = current().pos;
    const listed = res && res.ok ? (res.data.moves || []).find((m) => m.uci === uci) : null;
    const next = applyUci(pos, uci);
    if (!next) return;
    const P = S.practice;
    if (P && !P.over) {
      if ((pos.turn === P.side) === byTablebase) return;
      if (!byTablebase) {
        if (!listed || res.fen !== toFen(pos)) return;
        clearTimeout(P.timer);
        const from = pos.board[sqIndex(uci.slice(0, 2))];
        P.judging = {
          index: S.index,
          before: res.data,
          played: listed,
          best: P.fifty ? res.data.moves[0] : bestByDtm(res.data.moves),
          zeroing: listed.capture || from === "P" || from === "p",
        };
      }
    }
    setPosition(next, true, uci, listed ? listed.san : uci);
  }

  // ----- practice against the tablebase -----
  function togglePractice() {
    if (S.practice) return stopPractice();
    stopAutoplay();
    const side = practiceSide.value || current().pos.turn;
    S.practice = { side, fifty: practiceFifty.checked, log: [], timer: null, judging: null, over: false, takenBack: 0 };
    practiceBtn.textContent = "■ Stop practising";
    practiceBtn.classList.add("on");
    view.classList.add("practising");
    practiceReview.replaceChildren();
    const you = side === "w" ? "White" : "Black";
    const it = side === "w" ? "Black" : "White";
    const rule = S.practice.fifty ? ", playing by distance to zeroing (the 50-move rule)" : ", playing its best moves by distance to mate";
    showVerdict("start", `You play ${you}; the tablebase answers as ${it}${rule}. After each of your moves it says what the move did.`);
    drawPanel();
    practiceStep();
  }

  /** End the practice game, keeping its review on the page. */
  function stopPractice() {
    const P = S.practice;
    if (!P) return;
    clearTimeout(P.timer);
    S.practice = null;
    renderReview(P, true);
    practiceBtn.textContent = "Practise";
    practiceBtn.classList.remove("on");
    takeBackBtn.disabled = true;
    view.classList.remove("practising");
    drawPanel();
  }

  function showVerdict(kind, text) {
    practiceVerdict.dataset.kind = kind;
    practiceVerdict.textContent = text;
  }

  /** Take back your last move (and the tablebase's answer to it). */
  function takeBack() {
    const P = S.practice;
    if (!P || !P.log.length) return;
    clearTimeout(P.timer);
    P.judging = null;
    P.over = false;
    const e = P.log.pop();
    P.takenBack++;
    S.history = S.history.slice(0, e.index + 1);
    S.index = e.index;
    showVerdict("taken-back", `${e.san} taken back: your move.`);
    renderReview(P, false);
    refresh();
  }

  /** After an answer: judge your move that led here, end the game or let the tablebase
   * answer. */
  function practiceStep() {
    const P = S.practice;
    const res = S.result;
    const pos = current().pos;
    if (!P || !res || res.fen !== toFen(pos)) return;
    const v = verdict(res, pos);
    const drawn = !res.ok && v.cls === "draw";
    if (!res.ok && !drawn) {
      showVerdict("stopped", `The tablebase cannot answer this position (${v.head}): practice stopped.`);
      return stopPractice();
    }
    // Where the game ended by the rules (a lone minor piece), the answer is a draw.
    const after = res.ok ? res.data : { category: "draw", dtz_category: "draw", dtm: null, checkmate: false, moves: [] };
    const J = P.judging;
    if (J && J.index === S.index - 1) {
      P.judging = null;
      const j = judge(J.before, after, J.played, J.best, J.zeroing, P.fifty);
      const before = S.history[J.index].pos;
      P.log.push({ index: J.index, san: J.played.san, best: J.best ? J.best.san : null, pos: before, start: J.before, ...j });
      showVerdict(j.kind, j.text);
      takeBackBtn.disabled = false;
      renderReview(P, false);
    }
    if (!after.moves || after.moves.length === 0) {
      P.over = true;
      return renderReview(P, true);
    }
    // The tablebase moves at the end of the game only, not while you look back through it.
    if (pos.turn !== P.side && S.index === S.history.length - 1) {
      clearTimeout(P.timer);
      P.timer = setTimeout(() => reply(P, toFen(pos)), 450);
    }
  }

  /** The tablebase's move in the position `fen` (still shown): its best defence by
   * distance to mate, or by distance to zeroing (`/standard/mainline`'s first move). */
  async function reply(P, fen) {
    const res = S.result;
    if (S.practice !== P || !res || !res.ok || res.fen !== fen || toFen(current().pos) !== fen) return;
    let uci = null;
    if (P.fifty && res.data.dtz !== null && res.data.dtz !== undefined) {
      const line = await mainline(fen);
      if (line && line.mainline.length) uci = line.mainline[0].uci;
      if (S.practice !== P || toFen(current().pos) !== fen) return;
    }
    if (!uci) {
      const best = bestByDtm(res.data.moves);
      uci = best && best.uci;
    }
    if (uci) playUci(uci, true);
  }

  /** Your moves so far against the best; with `end`, the count of the whole game. */
  function renderReview(P, end) {
    if (!P.log.length) return practiceReview.replaceChildren();
    const words = { best: "best", kept: "kept the result", longer: "the mate moves longer", sooner: "the mate moves nearer", thrown: "threw the result away" };
    const rows = P.log.map((e) => {
      const num = `${e.pos.fullmove}${e.pos.turn === "w" ? "." : "..."}`;
      const what = e.kind === "longer" || e.kind === "sooner" ? words[e.kind].replace("moves", `${e.moves} move${e.moves === 1 ? "" : "s"}`) : words[e.kind];
      return el(
        "li",
        { class: `review-${e.kind}`, "data-kind": e.kind },
        `${num} `,
        el("b", {}, e.san),
        e.best && e.best !== e.san ? ` (best ${e.best})` : "",
        `: ${what}`
      );
    });
    const parts = [el("ul", { class: "review" }, rows)];
    if (end) {
      const t = tally(P.log);
      let text = `Your ${t.moves} move${t.moves === 1 ? "" : "s"} against the best: ${t.best} as good as the best, ${t.longer} lengthened the game`;
      text += t.longer ? ` (by ${t.extra} move${t.extra === 1 ? "" : "s"} in all)` : "";
      text += `, ${t.thrown} threw the result away`;
      text += P.takenBack ? ` (${P.takenBack} taken back).` : ".";
      const first = P.log[0].start;
      const last = S.result && S.result.ok ? S.result.data : null;
      if (last && last.checkmate && first.category === "win" && current().pos.turn !== P.side)
        text += ` You mated in ${t.moves} move${t.moves === 1 ? "" : "s"}; best play mates in ${first.mate_in}.`;
      parts.unshift(el("p", { id: "practice-summary", class: "practice-summary" }, text));
    }
    practiceReview.replaceChildren(...parts);
  }

  function playBest() {
    const res = S.result;
    if (res && res.ok && res.data.best) playUci(res.data.best.uci);
  }

  /** Move or place a piece by hand: a legal move is played, anything else edits. */
  function place(from, to, piece) {
    stopAutoplay();
    if (from !== null && from === to) return;
    if (from !== null && to !== null) {
      const uci = legalUci(from, to);
      if (uci) return playUci(uci);
    }
    const pos = editedPos(current().pos);
    if (from !== null) pos.board[from] = null;
    if (to !== null) pos.board[to] = piece;
    setPosition(pos, true);
  }

  function clickSquare(i) {
    const pos = current().pos;
    if (S.selected === null) {
      if (pos.board[i]) {
        S.selected = i;
        drawBoard();
      }
      return;
    }
    const from = S.selected;
    S.selected = null;
    if (from === i) return drawBoard();
    place(from, i, pos.board[from]);
  }

  function toggleAutoplay() {
    if (S.autoplay) return stopAutoplay();
    stopPractice();
    // Each run has its own token: a stop replaces S.autoplay, so a step of a stopped run
    // that was already under way can never play another move.
    const run = { timer: null };
    S.autoplay = run;
    autoBtn.textContent = "■ Stop";
    autoBtn.classList.add("on");
    // While it plays, the list of moves keeps one height (see style.css): its length
    // changes with every move, and the buttons below it must stay under the pointer.
    panel.classList.add("autoplaying");
    const step = () => {
      if (S.autoplay !== run) return;
      // The answer for the last move may still be on its way: wait for it rather than
      // play the previous position's best move.
      if (!S.result || S.result.fen !== toFen(current().pos)) {
        run.timer = setTimeout(step, 30);
        return;
      }
      const res = S.result;
      if (!res || !res.ok || !res.data.best || res.data.category === "draw") return stopAutoplay();
      playBest();
      run.timer = setTimeout(step, Number(speed.value));
    };
    run.timer = setTimeout(step, 150);
  }

  function stopAutoplay() {
    if (S.autoplay) clearTimeout(S.autoplay.timer);
    S.autoplay = null;
    autoBtn.textContent = "▶ Play to mate";
    autoBtn.classList.remove("on");
    panel.classList.remove("autoplaying");
    const res = S.result;
    autoBtn.disabled = !(res && res.ok && res.data.best);
  }

  // ----- dragging (pointer events: mouse, touch, pen) -----
  function startDrag(ev, from, piece) {
    if (ev.button !== undefined && ev.button !== 0) return;
    ev.preventDefault();
    const ghost = el("div", { class: "piece ghost" });
    ghost.innerHTML = pieceSvg(piece);
    const size = boardEl.getBoundingClientRect().width / 8;
    ghost.style.width = ghost.style.height = `${size}px`;
    document.body.append(ghost);
    S.drag = { from, piece, ghost, x: ev.clientX, y: ev.clientY, moved: false, size };
    moveGhost(ev);
    if (from !== null) {
      const src = boardEl.querySelector(`[data-square="${sqName(from)}"] .piece`);
      if (src) src.classList.add("dragging");
    }
    window.addEventListener("pointermove", onMove);
    window.addEventListener("pointerup", onUp, { once: true });
    window.addEventListener("pointercancel", onCancel, { once: true });
  }

  function moveGhost(ev) {
    const d = S.drag;
    d.ghost.style.left = `${ev.clientX - d.size / 2}px`;
    d.ghost.style.top = `${ev.clientY - d.size / 2}px`;
  }

  function onMove(ev) {
    if (!S.drag) return;
    if (Math.hypot(ev.clientX - S.drag.x, ev.clientY - S.drag.y) > 3) S.drag.moved = true;
    moveGhost(ev);
  }

  function endDrag() {
    window.removeEventListener("pointermove", onMove);
    window.removeEventListener("pointercancel", onCancel);
    window.removeEventListener("pointerup", onUp);
    const d = S.drag;
    S.drag = null;
    if (d) d.ghost.remove();
    return d;
  }

  function onCancel() {
    endDrag();
    drawBoard();
  }

  function onUp(ev) {
    const d = endDrag();
    if (!d) return;
    if (!d.moved) {
      // A click, not a drag: the square's click handler selects / moves.
      boardEl.querySelectorAll(".dragging").forEach((p) => p.classList.remove("dragging"));
      return;
    }
    const target = document.elementFromPoint(ev.clientX, ev.clientY);
    const sq = target && target.closest && target.closest("[data-square]");
    const to = sq && boardEl.contains(sq) ? sqIndex(sq.dataset.square) : null;
    if (to === null && d.from === null) return; // tray piece dropped nowhere
    place(d.from, to, d.piece);
  }

  const onKey = (ev) => {
    if (ev.target && (ev.target.tagName === "INPUT" || ev.target.tagName === "TEXTAREA")) return;
    if (ev.key === "ArrowLeft") go(S.index - 1);
    else if (ev.key === "ArrowRight") go(S.index + 1);
    else if (ev.key === "f") flip();
  };
  window.addEventListener("keydown", onKey);

  // ----- start -----
  const fromUrl = getParam("fen");
  const read = fromUrl ? readFen(fromUrl) : {};
  const start = read.pos || parseFen(defaultFen);
  S.flipped = getParam("flip") === "1";
  S.history = [{ pos: start, lastMove: null }];
  S.index = 0;
  refresh().then(() => {
    // A linked FEN that was refused: the board shows the default, and why.
    if (read.error && !S.history.some((h) => h.san)) {
      fenInput.value = fromUrl.replace(/_/g, " ");
      showFenError(read.error);
    }
  });

  const unmount = () => {
    stopAutoplay();
    endDrag();
    window.removeEventListener("keydown", onKey);
  };
  unmount.reload = () => {
    const f = getParam("fen");
    const p = f && parseFen(f);
    if (p && toFen(p) !== toFen(current().pos)) setPosition(p, true);
  };
  return unmount;
}
