// Chess viewer (KBNK and every chess table): a free board editor and analysis board over the tablebase.
import { el, probe, getParam, setParams, SVGNS } from "./app.js";
import { pieceSvg, PIECE_NAMES } from "./pieces.js";
import { renderLine, lineAround, pgn } from "./chess-line.js";
import { FILES, sqName, sqIndex, readFen, parseFen, toFen, clonePos, editedPos, applyUci, materialFen, boardMaterial } from "./chess-pos.js";

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

/** The position's result in words: {cls, head, sub}. */
export function verdict(res, pos, generic) {
  if (!res) return { cls: "pending", head: "…", sub: "" };
  if (!res.ok && generic && res.data && res.data.command) {
    // A material whose table this server lacks: the command that makes it.
    const d = res.data;
    return { cls: "illegal", head: `No ${d.missing} table on this server`, sub: `Make it with: ${d.command}, then restart retro serve.` };
  }
  if (!res.ok && generic) {
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
  if (!res.ok && pos) {
    // After a capture the game leaves the table: king and one minor piece cannot mate.
    const pieces = pos.board.filter(Boolean).sort().join("");
    if (pieces === "BKk" || pieces === "KNk" || pieces === "Kk")
      return { cls: "draw", head: "Draw · insufficient material", sub: "A lone bishop or knight cannot force mate; this position is outside the KBNK table." };
  }
  if (!res.ok) {
    const d = res.data || {};
    if (d.category === "illegal") return { cls: "illegal", head: `Illegal: ${d.reason || d.error}`, sub: "Drag the pieces to a legal position." };
    const msg = d.error || "The server refused this position.";
    return { cls: "illegal", head: msg[0].toUpperCase() + msg.slice(1), sub: "This table needs a white king, bishop and knight and a black king: drag them from the tray." };
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
  // Every chess table but the seed's KBNK table is probed through `/api/probe/chess`,
  // which picks the table from the material on the board.
  const generic = table.game !== "kbnk";
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
  };

  // ----- layout -----
  const boardEl = el("div", { id: "board", class: "board", role: "grid", "aria-label": "chess board" });
  const arrowSvg = document.createElementNS(SVGNS, "svg");
  arrowSvg.setAttribute("class", "arrows");
  arrowSvg.setAttribute("viewBox", "0 0 8 8");
  const boardWrap = el("div", { class: "board-wrap" }, boardEl, arrowSvg);
  // The board's material above it, and the table answering when the colours are swapped
  // (`KvKQ` is answered from `KQvK`) or the table is missing.
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
  // Phone width: the verdict and the moves come first, right under the board.
  const panel = el(
    "div",
    { class: "panel" },
    resultBox,
    el("h3", {}, "Moves"),
    movesEl,
    movesNote,
    el("div", { class: "row" }, bestBtn, autoBtn),
    el("div", { class: "row small" }, el("label", { for: "speed" }, "Speed"), speed, speedLabel),
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
    materialNote.textContent = !answering
      ? `${m.pieces} pieces`
      : missing
        ? `${m.pieces} pieces · no table here`
        : answering === m.name
          ? `${m.pieces} pieces`
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

  function drawArrow() {
    arrowSvg.replaceChildren();
    const res = S.result;
    if (!res || !res.ok || !res.data.best) return;
    const uci = res.data.best.uci;
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
    line.setAttribute("class", "arrow-line");
    const w = 0.3;
    const tip = document.createElementNS(SVGNS, "polygon");
    tip.setAttribute(
      "points",
      `${x2},${y2} ${ex - uy * w},${ey + ux * w} ${ex + uy * w},${ey - ux * w}`
    );
    tip.setAttribute("class", "arrow-head");
    arrowSvg.setAttribute("data-best", uci);
    arrowSvg.append(line, tip);
  }

  function drawPanel() {
    const res = S.result;
    const v = verdict(res, current().pos, generic);
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
    const res = await probe(generic ? "chess" : table.name, fen);
    if (seq !== S.seq) return;
    S.result = { ...res, fen };
    const answering = generic ? (res.ok ? res.data.table : res.data && res.data.missing) : null;
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

  function playUci(uci) {
    const res = S.result;
    const listed = res && res.ok ? (res.data.moves || []).find((m) => m.uci === uci) : null;
    const next = applyUci(current().pos, uci);
    if (next) setPosition(next, true, uci, listed ? listed.san : uci);
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
