// The played line of the chess viewer: the SAN move list with clickable plies, and PGN.
import { el } from "./app.js";
import { toFen } from "./chess-pos.js";

/** The stretch of `history` that is one game around `index`: from the last entry at or
 * before it not reached by a move (the start, or an edit), on while entries were reached by
 * moves. Entries are `{pos, lastMove, san}`; `san` is set only for played moves. */
export function lineAround(history, index) {
  let start = index;
  while (start > 0 && history[start].san) start--;
  let end = start;
  while (end + 1 < history.length && history[end + 1].san) end++;
  return { start, end };
}

/** The moves `history[start+1..=end]` as PGN movetext tokens, numbered from the starting
 * FEN's move number, `40... Kd4` when black moves first. */
function movetext(history, start, end) {
  let n = history[start].pos.fullmove || 1;
  let turn = history[start].pos.turn;
  const out = [];
  for (let i = start + 1; i <= end; i++) {
    if (turn === "w") out.push({ num: `${n}.` });
    else if (i === start + 1) out.push({ num: `${n}...` });
    out.push({ san: history[i].san, ply: i });
    if (turn === "b") n++;
    turn = turn === "w" ? "b" : "w";
  }
  return { tokens: out, turn };
}

/** The line as PGN: the seven-tag roster, then SetUp and FEN (the line rarely starts from
 * the initial position), then the moves. The result is known only after a mate. */
export function pgn(history, start, end) {
  const { tokens, turn } = movetext(history, start, end);
  const last = end > start ? history[end].san : "";
  // `turn` is the side to move after the last move: the mated side.
  const result = last.endsWith("#") ? (turn === "b" ? "1-0" : "0-1") : "*";
  const tags = [
    ["Event", "retro analysis"],
    ["Site", "?"],
    ["Date", "????.??.??"],
    ["Round", "-"],
    ["White", "?"],
    ["Black", "?"],
    ["Result", result],
    ["SetUp", "1"],
    ["FEN", toFen(history[start].pos)],
  ];
  const moves = tokens.map((t) => t.num || t.san).concat(result).join(" ");
  return tags.map(([k, v]) => `[${k} "${v}"]`).join("\n") + "\n\n" + moves + "\n";
}

/** The move list: numbers and SAN buttons; `go(i)` shows history entry `i`. */
export function renderLine(list, history, index, go) {
  const { start, end } = lineAround(history, index);
  const { tokens } = movetext(history, start, end);
  const items = [
    el(
      "button",
      { type: "button", class: "ply-btn start" + (index === start ? " current" : ""), "data-ply": start, title: "the position the line starts from", onclick: () => go(start) },
      "start"
    ),
  ];
  for (const t of tokens) {
    if (t.num) items.push(el("span", { class: "move-num" }, t.num));
    else
      items.push(
        el("button", { type: "button", class: "ply-btn" + (t.ply === index ? " current" : ""), "data-ply": t.ply, onclick: () => go(t.ply) }, t.san)
      );
  }
  list.replaceChildren(...items);
  // Keep the current ply in view inside the list, never scrolling the page itself.
  const cur = list.querySelector(".current");
  if (cur && list.scrollHeight > list.clientHeight) {
    const top = cur.offsetTop; // the list is positioned: offsets are inside it
    if (top < list.scrollTop || top + cur.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = Math.max(0, top - list.clientHeight / 2);
  }
  return { start, end };
}
