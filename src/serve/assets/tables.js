// The list of every table served, as syzygy-tables.info lists its endgames: one sortable
// row per table with its size, longest win and the win/draw/loss share per side to move.
// Everything comes from `/api/tables` (made once when the server starts), so the page
// costs one request however many tables there are.
import { el, fmtInt, fmtBytes, viewerOf } from "./app.js";
import { tableLabel } from "./picker.js";

/** Pieces on the board, kings included (as the table's viewer counts them), or null for a
 * game without pieces. */
function pieces(t) {
  const v = viewerOf(t);
  return v.pieces ? v.pieces(t) : null;
}

/** Shares of wins, draws and losses (fractions) of one side to move. */
function shares(s) {
  const n = s && s.legal ? s.legal : 0;
  return n ? { win: s.wins / n, draw: s.draws / n, loss: s.losses / n } : { win: 0, draw: 0, loss: 0 };
}

const pct = (x) => `${(100 * x).toFixed(1)}%`;

/** Every legal position a table answers for, or what it stores where that is not known. */
const positions = (t) => t.positions ?? t.headline.legal;

/** What the stored positions of the tables stand for, in words: `[who, words]` for each
 * way of storing them, who by the first tables' labels. */
function storedWords(tables) {
  const ways = new Map();
  for (const t of tables) {
    if (!t.stored_as) continue;
    if (!ways.has(t.stored_as)) ways.set(t.stored_as, []);
    ways.get(t.stored_as).push(tableLabel(t));
  }
  return [...ways].map(([words, labels]) => {
    const who = labels.length > 3 ? `${labels.slice(0, 3).join(", ")} and ${labels.length - 3} more` : labels.join(", ");
    return [who, words];
  });
}

/** One side to move as a bar of three parts, with the numbers in words beside it. */
function wdl(s) {
  if (!s) return el("td", { class: "wdl" }, "—");
  const f = shares(s);
  const title = `${s.name} to move: ${pct(f.win)} wins, ${pct(f.draw)} draws, ${pct(f.loss)} losses of ${fmtInt(s.legal)} stored positions`;
  const part = (cls, x) => el("span", { class: `wdl-${cls}`, style: `width:${(100 * x).toFixed(2)}%` });
  return el(
    "td",
    { class: "wdl", title, "data-win": f.win.toFixed(6), "data-draw": f.draw.toFixed(6), "data-loss": f.loss.toFixed(6) },
    el("span", { class: "wdl-bar" }, part("win", f.win), part("draw", f.draw), part("loss", f.loss)),
    el("span", { class: "wdl-text" }, `${pct(f.win)} · ${pct(f.draw)} · ${pct(f.loss)}`)
  );
}

/** A table's statistics page and longest position. */
function links(t) {
  const q = `/?table=${encodeURIComponent(t.name)}`;
  return [
    el("a", { href: `${q}&view=stats`, class: "stats-of", "data-table": t.name }, "stats"),
    t.headline.longest === null ? null : [" · ", el("a", { href: `${q}&view=longest`, class: "longest-of", "data-table": t.name }, "longest")],
  ];
}

/** The columns: header, sort key of a table, cell; `wide` ones are left out on a phone,
 * where the links move under the table's name. */
const COLUMNS = [
  {
    id: "name",
    head: "Table",
    key: (t) => tableLabel(t),
    cell: (t) =>
      el(
        "td",
        { class: "t-name" },
        el("a", { href: `/?table=${encodeURIComponent(t.name)}`, "data-open": t.name }, tableLabel(t)),
        el("div", { class: "t-links only-narrow" }, ...links(t))
      ),
  },
  { id: "pieces", head: "Pieces", num: true, wide: true, key: (t) => pieces(t) ?? Infinity, cell: (t) => el("td", { class: "num" }, pieces(t) ?? "—") },
  {
    id: "positions",
    head: "Positions",
    num: true,
    wide: true,
    key: (t) => positions(t),
    // Every position the table answers for, and under it how many it stores (one of each
    // group alike by mirroring or turning the board), where those differ.
    cell: (t) =>
      el(
        "td",
        { class: "num", "data-positions": positions(t), "data-stored": t.headline.legal },
        fmtInt(positions(t)),
        t.stored_as ? el("small", { class: "stored" }, `${fmtInt(t.headline.legal)} stored`) : null
      ),
  },
  {
    id: "size",
    head: "File",
    num: true,
    wide: true,
    key: (t) => t.bytes,
    cell: (t) =>
      el(
        "td",
        { class: "num", title: t.compressed ? "compressed (.rtbc)" : "dense (.rtb)" },
        t.url ? el("a", { href: t.url, download: "" }, fmtBytes(t.bytes)) : fmtBytes(t.bytes),
        t.compressed ? el("small", { class: "compressed-tag" }, " z") : null
      ),
  },
  {
    id: "longest",
    head: "Longest",
    num: true,
    key: (t) => t.headline.longest ?? -1,
    cell: (t) => el("td", { class: "num" }, t.headline.longest === null ? "—" : `${t.headline.longest} ${t.headline.longest === 1 ? t.unit.replace(/s$/, "") : t.unit}`),
  },
  { id: "side0", side: 0, key: (t) => shares(t.sections[0]).win, cell: (t) => wdl(t.sections[0]) },
  { id: "side1", side: 1, key: (t) => shares(t.sections[1]).win, cell: (t) => wdl(t.sections[1]) },
  { id: "links", head: "", wide: true, cell: (t) => el("td", { class: "t-links" }, ...links(t)) },
];

/** A column's header classes. */
const cls = (c) => [c.num ? "num" : "", c.wide ? "hide-narrow" : ""].join(" ").trim();

/** The page. `open(name, page)` shows a table (page: null for its board, `stats`, `longest`). */
export function mountTables(root, tables, materials, open) {
  // A side's heading names it as the tables do: "White to move", or "White / X to move"
  // beside k-in-a-row tables.
  const sideName = (i) => {
    const names = [...new Set(tables.filter((t) => t.sections[i]).map((t) => t.sections[i].name))];
    return `${names.map((n) => n[0].toUpperCase() + n.slice(1)).join(" / ")} to move`;
  };
  let sort = { id: "pieces", dir: 1 };
  const tbody = el("tbody");
  const heads = COLUMNS.map((c) => {
    const label = c.side === undefined ? c.head : sideName(c.side);
    if (!c.key) return el("th", { class: cls(c) }, label);
    return el(
      "th",
      { class: cls(c), "data-col": c.id, "aria-sort": "none" },
      el("button", { type: "button", class: "sort", onclick: () => sortBy(c.id) }, label)
    );
  });
  const table = el("table", { id: "tables-list", class: "tables-list" }, el("thead", {}, el("tr", {}, heads)), tbody);

  function sortBy(id) {
    sort = sort.id === id ? { id, dir: -sort.dir } : { id, dir: COLUMNS.find((c) => c.id === id).num ? -1 : 1 };
    render();
  }

  function render() {
    const col = COLUMNS.find((c) => c.id === sort.id);
    // Ties keep the server's order (chess by pieces and name, then the other games).
    const rows = tables
      .map((t, i) => ({ t, i, k: col.key(t) }))
      .sort((a, b) => (a.k < b.k ? -sort.dir : a.k > b.k ? sort.dir : a.i - b.i))
      .map(({ t }) =>
        el(
          "tr",
          { "data-table": t.name },
          COLUMNS.map((c) => {
            const td = c.cell(t);
            if (c.wide) td.classList.add("hide-narrow");
            return td;
          })
        )
      );
    tbody.replaceChildren(...rows);
    for (const th of heads) {
      if (!th.dataset.col) continue;
      th.setAttribute("aria-sort", th.dataset.col === sort.id ? (sort.dir > 0 ? "ascending" : "descending") : "none");
    }
  }
  render();

  // Links inside the page stay in the page: no reload.
  table.addEventListener("click", (ev) => {
    const a = ev.target.closest && ev.target.closest("a[data-open], a.stats-of, a.longest-of");
    if (!a) return;
    ev.preventDefault();
    if (a.dataset.open) open(a.dataset.open, null);
    else open(a.dataset.table, a.classList.contains("stats-of") ? "stats" : "longest");
  });

  const chessHere = materials.filter((m) => m.present).length;
  const totalBytes = tables.reduce((n, t) => n + t.bytes, 0);
  root.append(
    el(
      "div",
      { class: "tables-page" },
      el("h2", {}, "Tables"),
      el(
        "p",
        { class: "muted", id: "tables-summary" },
        `${fmtInt(tables.length)} tables served, ${fmtBytes(totalBytes)} in all; ${chessHere} of the ${materials.length} chess materials up to ${materials.length ? Math.max(...materials.map((m) => m.pieces)) : 0} pieces. `,
        "Per side to move, the share of positions won, drawn and lost (green, grey, red); a file marked z is compressed. Click a column to sort; a table's name opens its board, “longest” its longest win or loss."
      ),
      el(
        "div",
        { class: "muted stored-note", id: "stored-note" },
        el(
          "p",
          {},
          "Positions counts every legal position of a table's pieces, either side to move. A table stores one position of each group that mirroring or turning the board makes alike, and answers for the others from it: the smaller figure is how many it stores. Tables of the same pieces stored in different ways hold the same positions."
        ),
        el("ul", {}, storedWords(tables).map(([who, words]) => el("li", {}, el("b", {}, who), `: ${words}.`)))
      ),
      el("div", { class: "tables-scroll" }, table)
    )
  );
  return () => {};
}
