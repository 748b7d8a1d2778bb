// retro viewer: table list, routing between the chess and k-in-a-row views.
window.__errors = window.__errors || [];
window.addEventListener("error", (e) => window.__errors.push(String(e.message)));
window.addEventListener("unhandledrejection", (e) => window.__errors.push(String(e.reason)));
import { mountChess } from "./chess.js";
import { mountMnk } from "./mnk.js";
import { mountStats } from "./stats.js";

const state = { tables: [], current: null, view: null, unmount: null };

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

function fmtBytes(n) {
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

function renderTabs() {
  const nav = document.getElementById("tabs");
  nav.replaceChildren(
    ...state.tables.map((t) =>
      el(
        "a",
        {
          href: `/?table=${t.name}`,
          class: "tab" + (state.current && state.current.name === t.name ? " active" : ""),
          "data-table": t.name,
          title: t.title,
          onclick: (ev) => {
            ev.preventDefault();
            select(t.name, true);
          },
        },
        tabLabel(t)
      )
    )
  );
}

function tabLabel(t) {
  if (t.game === "kbnk") return "KBNK";
  if (t.viewer === "chess") return t.name;
  const m = /^mnk-(\d+)x(\d+)-(\d+)$/.exec(t.name);
  return m ? `${m[1]}×${m[2]}, ${m[3]} in a row` : t.name;
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
      stat("legal positions", fmtInt(h.legal)),
      stat("wins", fmtInt(h.wins), "win"),
      stat("losses", fmtInt(h.losses), "loss"),
      stat("draws", fmtInt(h.draws), "draw"),
      h.longest !== null ? stat(`longest (${t.unit})`, String(h.longest)) : null,
      // No url: the file lies outside the tables folder and is not offered for download.
      stat("file", t.url ? el("a", { href: t.url, download: "" }, fmtBytes(t.bytes)) : fmtBytes(t.bytes))
    ),
    t.summary.length ? el("ul", { class: "summary" }, t.summary.map((s) => el("li", {}, s))) : null,
    el(
      "p",
      { class: "info-links" },
      state.view === "stats"
        ? el("a", { id: "board-link", href: `/?table=${t.name}`, onclick: (ev) => (ev.preventDefault(), select(t.name, true, null)) }, "Board")
        : el("a", { id: "stats-link", href: `/?table=${t.name}&view=stats`, onclick: (ev) => (ev.preventDefault(), select(t.name, true, "stats")) }, "Statistics: histogram, longest positions, checksums"),
      " · ",
      el("a", { href: `/api/tables/${t.name}/stats.json` }, "stats.json")
    ),
  ];
  box.replaceChildren(...parts.filter(Boolean));
}

/** Show table `name`: its board, or with `page` = "stats" its statistics page. */
function select(name, push, page = null) {
  const t = state.tables.find((x) => x.name === name) || state.tables[0];
  if (!t) return;
  if (state.unmount) state.unmount();
  state.current = t;
  state.view = page === "stats" ? "stats" : null;
  renderTabs();
  renderInfo(t);
  const view = document.getElementById("view");
  view.replaceChildren();
  if (push) setParams({ table: t.name, view: state.view }, true);
  document.title = `${tabLabel(t)}${state.view ? " · statistics" : ""} · retro`;
  // The table list says which viewer shows a table; game names play no part.
  if (state.view === "stats") state.unmount = mountStats(view, t);
  else state.unmount = t.viewer === "chess" ? mountChess(view, t) : mountMnk(view, t, state.tables);
}

async function start() {
  const view = document.getElementById("view");
  try {
    const r = await fetch("/api/tables");
    state.tables = (await r.json()).tables;
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
  select(getParam("table") || (state.tables.find((t) => t.game === "kbnk") || state.tables[0]).name, false, getParam("view"));
  window.addEventListener("popstate", () => {
    const name = getParam("table");
    const page = getParam("view") === "stats" ? "stats" : null;
    if (!state.current || name !== state.current.name || page !== state.view) select(name, false, page);
    else if (state.current && state.unmount && state.unmount.reload) state.unmount.reload();
  });
}

start();
