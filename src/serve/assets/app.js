// retro viewer: the table picker, routing to each table's viewer (VIEWERS, from viewers.js), the
// statistics pages and the list of tables.
window.__errors = window.__errors || [];
window.addEventListener("error", (e) => window.__errors.push(String(e.message)));
window.addEventListener("unhandledrejection", (e) => window.__errors.push(String(e.reason)));
import { VIEWERS } from "./viewers.js";
import { mountStats, positionLink } from "./stats.js";
import { mountTables } from "./tables.js";
import { mountPicker, entries, tableLabel } from "./picker.js";

/* The viewers, by the `viewer` field of the tables `/api/tables` lists, come from
 * `viewers.js`, which the server makes from its table of files (`src/serve/assets.rs`): a
 * game's viewer is one module exporting `viewer` and one `viewer!("ID", "FILE.js")` entry
 * there. Each has `mount(root, table, {tables, onTable})`, which returns the function that
 * unmounts it (with an optional `reload` for the back button); `label(table)`, the table's
 * short name; `link(text)`, the URL parameter `[key, value]` that opens a position given in
 * the table's notation; optionally `pieces(table)`, for the list of tables. */

/** A table with a viewer no entry of VIEWERS names: a message, and its name as its label. */
const NO_VIEWER = {
  mount: (root, t) => {
    root.replaceChildren(el("p", { class: "error" }, `This viewer cannot show ${t.name} (viewer "${t.viewer}"); its statistics and the API can.`));
    return () => {};
  },
  label: (t) => t.name,
  link: (text) => ["position", text],
};

/** The viewer of table `t` (an entry of `/api/tables`, or a table's stats). */
export function viewerOf(t) {
  return (t && Object.hasOwn(VIEWERS, t.viewer) && VIEWERS[t.viewer]) || NO_VIEWER;
}

// `current`: the table shown (a served table, or a chess material with no table here);
// `view`: null for its board, "stats", or "tables" for the list of tables.
const state = { tables: [], materials: [], current: null, view: null, unmount: null };

export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export const SVGNS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes and optional text (the charts' one builder). */
export function svg(tag, attrs = {}, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

export function fmtInt(n) {
  return Number(n).toLocaleString("en-US");
}

export function fmtBytes(n) {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(2)} GiB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MiB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KiB`;
  return `${n} B`;
}

/** Probe a position; resolves to {ok, status, data}. Never throws on HTTP errors. */
const cache = new Map();
export async function probe(table, position) {
  const key = table + "\n" + position;
  if (cache.has(key)) return cache.get(key);
  let out;
  try {
    const r = await fetch(`/api/probe/${encodeURIComponent(table)}?position=${encodeURIComponent(position)}`);
    const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
    out = { ok: r.ok, status: r.status, data };
  } catch (e) {
    return { ok: false, status: 0, data: { error: "the server cannot be reached" } };
  }
  if (out.status === 200 || out.status === 400) {
    if (cache.size > 2000) cache.delete(cache.keys().next().value);
    cache.set(key, out);
  }
  return out;
}

/** Read and write the page's query string. */
export function getParam(name) {
  return new URLSearchParams(location.search).get(name);
}
export function setParams(params, push = false) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) q.set(k, v);
  // Keep '/' readable in links.
  const url = `${location.pathname}?${q.toString().replace(/%2F/gi, "/")}`;
  if (url === location.pathname + location.search) return;
  if (push) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
}

function renderInfo(t) {
  const box = document.getElementById("table-info");
  if (!t) {
    box.hidden = true;
    return;
  }
  const h = t.headline;
  const stat = (label, value, cls) => el("div", { class: "stat " + (cls || "") }, el("b", {}, value), el("span", {}, label));
  box.hidden = false;
  const parts = [
    el("h2", {}, `${t.title}`, el("small", {}, ` · ${t.name}`)),
    el(
      "div",
      { class: "stats" },
      // Every position it answers for, and how many it stores (one of each group alike by
      // mirroring or turning the board), where those differ.
      stat("positions", fmtInt(t.positions ?? h.legal)),
      t.stored_as ? stat("stored", fmtInt(h.legal)) : null,
      stat("wins", fmtInt(h.wins), "win"),
      stat("losses", fmtInt(h.losses), "loss"),
      stat("draws", fmtInt(h.draws), "draw"),
      h.longest !== null ? stat(`longest (${t.unit})`, String(h.longest)) : null,
      // No url: the file lies outside the tables folder and is not offered for download.
      stat(t.compressed ? "file, compressed" : "file", t.url ? el("a", { href: t.url, download: "" }, fmtBytes(t.bytes)) : fmtBytes(t.bytes))
    ),
    t.stored_as ? el("p", { class: "stored-as muted", id: "stored-as" }, `Stored: ${t.stored_as}; the others are answered from it.`) : null,
    t.summary.length ? el("ul", { class: "summary" }, t.summary.map((s) => el("li", {}, s))) : null,
    el(
      "p",
      { class: "info-links" },
      state.view === "stats"
        ? el("a", { id: "board-link", href: `/?table=${t.name}`, onclick: (ev) => (ev.preventDefault(), select(t.name, true, null)) }, "Board")
        : el("a", { id: "stats-link", href: `/?table=${t.name}&view=stats`, onclick: (ev) => (ev.preventDefault(), select(t.name, true, "stats")) }, "Statistics: histogram, longest positions, checksums"),
      " · ",
      el("a", { href: `/api/tables/${t.name}/stats.json` }, "stats.json"),
      // The material's DTZ table, where the server has one: its own statistics page.
      state.tables.some((x) => x.name === `${t.name}.dtz`)
        ? [" · ", el("a", { id: "dtz-stats-link", href: `/?table=${t.name}.dtz&view=stats`, onclick: (ev) => (ev.preventDefault(), select(`${t.name}.dtz`, true, "stats")) }, "DTZ statistics")]
        : null
    ),
  ];
  box.replaceChildren(...parts.filter(Boolean));
}

/** The table called `name`: a served one, or else a chess material the server lacks (its
 * board then names the command that makes it); null if neither. */
function tableNamed(name) {
  const t = state.tables.find((x) => x.name === name);
  if (t) return t;
  // Any chess material, listed or not (six pieces, say): its board shows what the server
  // says of it rather than another table's.
  const chess = state.materials.some((x) => x.name === name) || /^K[QRBNP]*vK[QRBNP]*$/.test(name || "");
  return chess ? { name, game: "chess", viewer: "chess", title: name, missing: true } : null;
}

/** Show table `name`: its board, or with `page` = "stats" its statistics page, or with
 * "longest" its board at its longest win or loss; `page` = "tables" lists every table. */
export function select(name, push, page = null) {
  if (page === "longest") return openLongest(name, push);
  // A DTZ table's board is its material's: the board shows DTM and DTZ together.
  if (name && name.endsWith(".dtz") && page !== "stats" && page !== "tables") return select(name.slice(0, -4), push, page);
  const t = page === "tables" ? null : tableNamed(name) || tableNamed(defaultTable());
  if (state.unmount) state.unmount();
  state.unmount = null;
  state.current = t;
  state.view = page === "stats" || page === "tables" ? page : null;
  if (state.view === "stats" && t && t.missing) state.view = null;
  const view = document.getElementById("view");
  view.replaceChildren();
  if (state.view === "tables") {
    renderInfo(null);
    if (push) setParams({ view: "tables" }, true);
    document.title = "Tables · retro";
    state.unmount = mountTables(view, state.tables, state.materials, (n, p) => select(n, true, p));
    return;
  }
  if (!t) return;
  renderInfo(t.missing ? null : t);
  if (push) setParams({ table: t.name, view: state.view }, true);
  document.title = `${tableLabel(t)}${state.view ? " · statistics" : ""} · retro`;
  // The table list says which viewer shows a table; game names play no part.
  if (state.view === "stats") state.unmount = mountStats(view, t);
  else state.unmount = viewerOf(t).mount(view, t, { tables: state.tables, onTable });
}

/** The chess board moved on to the table of another material (a capture, a promotion, an
 * edit): the page follows it without redrawing the board. */
function onTable(name) {
  if (!state.current || state.current.name === name) return;
  const t = tableNamed(name);
  if (!t) return;
  state.current = t;
  renderInfo(t.missing ? null : t);
  document.title = `${tableLabel(t)} · retro`;
}

/** Open the board of table `name` at the first of its longest positions (from its
 * statistics, which the server makes once per table). */
async function openLongest(name, push) {
  const view = document.getElementById("view");
  view.replaceChildren(el("p", { class: "loading" }, "Finding the longest position…"));
  let j = null;
  try {
    const r = await fetch(`/api/tables/${encodeURIComponent(name)}/stats.json`);
    if (r.ok) j = await r.json();
  } catch (e) {
    j = null;
  }
  const longest = j && j.sections.map((s) => s.longest_positions).filter((l) => l && l.positions.length);
  if (!longest || !longest.length) {
    view.replaceChildren(el("p", { class: "error" }, `No longest position could be found for ${name}.`));
    return;
  }
  // The longest of the sides; a win before a loss of the same length, as the stats page.
  const best = longest.reduce((a, b) => (b.plies > a.plies || (b.plies === a.plies && b.category === "win" && a.category !== "win") ? b : a));
  const url = positionLink(j, best.positions[0]);
  if (push) history.pushState(null, "", url);
  else history.replaceState(null, "", url);
  select(name, false, null);
}

function defaultTable() {
  return (state.tables.find((t) => t.game === "kbnk") || state.tables[0] || {}).name;
}

async function start() {
  const view = document.getElementById("view");
  try {
    const [tables, materials] = await Promise.all([fetch("/api/tables"), fetch("/api/chess/materials")]);
    state.tables = (await tables.json()).tables;
    state.materials = (await materials.json()).materials;
  } catch (e) {
    view.replaceChildren(el("p", { class: "error" }, "Could not load the table list from the server."));
    return;
  }
  if (!state.tables.length) {
    view.replaceChildren(
      el("p", { class: "error" }, "No tables are being served. Generate some with ", el("code", {}, "retro generate kbnk"), " and restart the server.")
    );
    return;
  }
  mountPicker(document.getElementById("picker"), entries(state.tables, state.materials), (name) => select(name, true));
  const page = () => (["stats", "tables", "longest"].includes(getParam("view")) ? getParam("view") : null);
  select(getParam("table") || defaultTable(), false, page());
  window.addEventListener("popstate", () => {
    const name = getParam("table");
    const p = page();
    if (p === "tables" ? state.view !== "tables" : !state.current || name !== state.current.name || p !== state.view) select(name, false, p);
    else if (state.current && state.unmount && state.unmount.reload) state.unmount.reload();
  });
}

start();
