// k-in-a-row: the value-history chart of the game played (GamesmanUni style) and the
// first-move map of the empty board.
import { el, svg } from "./app.js";

/** The value history: one row per position of the game, top to bottom. Columns are
 * remoteness, as in GamesmanUni: X's wins on the left (remoteness 0 at the edge), O's on
 * the right, draws on the centre line. Each point is coloured by the value for the player
 * to move there (win, loss, draw), and the points are joined in order.
 *
 * `rows`: `[{ply, move, data}]`, `data` the probe answer of the position (or null). */
export function valueHistory(rows, cells) {
  const maxR = Math.max(1, cells);
  const W = 340;
  const rowH = 20;
  const top = 26;
  const side = 34;
  const mid = W / 2;
  const step = (mid - side) / (maxR + 1);
  const H = top + rows.length * rowH + 6;
  const root = svg("svg", { id: "value-history", class: "value-history", viewBox: `0 0 ${W} ${H}`, role: "img" });
  root.append(svg("title", {}, "Value history: who wins, and in how many plies, after each move"));
  root.append(svg("text", { x: side, y: 12, class: "vh-label" }, "X wins"));
  root.append(svg("text", { x: W - side, y: 12, class: "vh-label", "text-anchor": "end" }, "O wins"));
  root.append(svg("text", { x: mid, y: 12, class: "vh-label", "text-anchor": "middle" }, "draw"));
  root.append(svg("line", { x1: mid, x2: mid, y1: top - 8, y2: H, class: "vh-centre" }));
  // Remoteness guides every few plies on both halves.
  const every = maxR > 12 ? 4 : 2;
  for (let r = 0; r <= maxR; r += every) {
    for (const x of [side + r * step, W - side - r * step]) {
      root.append(svg("line", { x1: x, x2: x, y1: top - 8, y2: H, class: "vh-grid" }));
      root.append(svg("text", { x, y: top - 2, class: "vh-tick", "text-anchor": "middle" }, String(r)));
    }
  }
  const pts = [];
  for (const [i, row] of rows.entries()) {
    const y = top + i * rowH + rowH / 2;
    root.append(svg("text", { x: 2, y: y + 4, class: "vh-ply" }, String(row.ply)));
    if (row.move) root.append(svg("text", { x: W - 2, y: y + 4, class: "vh-ply", "text-anchor": "end" }, row.move));
    const d = row.data;
    if (!d) continue;
    const r = d.remoteness ?? 0;
    // Who wins from here: the player to move on a win, the other on a loss.
    const winner = d.category === "win" ? d.turn : d.category === "loss" ? (d.turn === "x" ? "o" : "x") : null;
    const x = winner === "x" ? side + r * step : winner === "o" ? W - side - r * step : mid;
    pts.push(`${x.toFixed(1)},${y}`);
    const dot = svg("circle", { cx: x.toFixed(1), cy: y, r: 5.5, class: `vh-dot ${d.category}`, "data-ply": row.ply, "data-value": d.category, "data-remoteness": d.remoteness ?? "", "data-turn": d.turn });
    dot.append(svg("title", {}, `ply ${row.ply}: ${d.turn.toUpperCase()} to move, ${d.category}${d.category === "draw" ? "" : ` in ${r}`}`));
    root.append(dot);
  }
  if (pts.length > 1) root.insertBefore(svg("polyline", { points: pts.join(" "), class: "vh-path" }), root.querySelector(".vh-dot"));
  return root;
}

/** The first-move map: the empty board, each cell showing what opening there gives. */
export function firstMoveMap(w, h, data, verdictOf) {
  const FILES = "abcdefghijklmnopqrstuvwxyz";
  const moves = new Map((data && data.moves ? data.moves : []).map((m) => [m.cell, m]));
  const grid = el("div", { id: "first-moves", class: "first-moves", role: "grid", "aria-label": "first-move map" });
  grid.style.setProperty("--cols", w);
  for (let r = 0; r < h; r++) {
    for (let c = 0; c < w; c++) {
      const name = FILES[c] + (h - r);
      const m = moves.get(name);
      const v = m ? verdictOf(m) : null;
      grid.append(el("div", { class: "fm-cell" + (v ? ` hint-${v.cls}` : ""), "data-cell": name, "data-verdict": v ? v.long : "", title: v ? `${name}: ${v.long}` : name }, v ? v.text : ""));
    }
  }
  return grid;
}
