// A table's statistics page, as syzygy-tables.info shows one: per-side histogram as an SVG
// chart with its counts, the longest positions (each opens the board), the checksums.
import { el, fmtInt, svg, viewerOf } from "./app.js";

/** Wins above the axis, losses below, one pair of bars per distance; heights on a square
 * root scale so the long tail stays visible (exact counts are in each bar's title and in
 * the table below). */
function chart(section, unit) {
  const rows = section.by_distance;
  const W = 640;
  const pad = { l: 44, r: 8, t: 12, b: 26 };
  // A side with no losses (or no wins) gets the whole height for the other kind.
  const hasWins = rows.some((r) => r[1] > 0);
  const hasLosses = rows.some((r) => r[2] > 0);
  const H = hasWins && hasLosses ? 240 : 150;
  const span = H - pad.t - pad.b;
  const mid = hasWins && hasLosses ? pad.t + span / 2 : hasWins ? H - pad.b : pad.t;
  const half = hasWins && hasLosses ? span / 2 : span;
  const maxD = rows.length ? rows[rows.length - 1][0] : 0;
  const maxN = Math.max(1, ...rows.map((r) => Math.max(r[1], r[2])));
  const step = (W - pad.l - pad.r) / (maxD + 1);
  const bw = Math.max(1, step * 0.8);
  const h = (n) => (Math.sqrt(n) / Math.sqrt(maxN)) * half;
  const root = svg("svg", { class: "histogram", viewBox: `0 0 ${W} ${H}`, role: "img", "data-section": section.name });
  root.append(svg("title", {}, `${section.name} to move: positions per distance in ${unit}`));
  root.append(svg("line", { x1: pad.l, x2: W - pad.r, y1: mid, y2: mid, class: "axis" }));
  if (hasWins) root.append(svg("text", { x: pad.l - 6, y: pad.t + 10, class: "label", "text-anchor": "end" }, "wins"));
  if (hasLosses) root.append(svg("text", { x: pad.l - 6, y: H - pad.b, class: "label", "text-anchor": "end" }, "losses"));
  for (const [d, wins, losses] of rows) {
    const x = pad.l + d * step + (step - bw) / 2;
    for (const [kind, n] of [
      ["win", wins],
      ["loss", losses],
    ]) {
      if (!n) continue;
      const bh = Math.max(1, h(n));
      const bar = svg("rect", {
        class: `bar ${kind}`,
        x: x.toFixed(2),
        width: bw.toFixed(2),
        y: (kind === "win" ? mid - bh : mid).toFixed(2),
        height: bh.toFixed(2),
        "data-distance": d,
        "data-kind": kind,
        "data-count": n,
      });
      bar.append(svg("title", {}, `${kind === "win" ? "wins" : "losses"} in ${d} ${unit}: ${fmtInt(n)}`));
      root.append(bar);
    }
  }
  const ticks = Math.min(maxD + 1, 10);
  for (let i = 0; i < ticks; i++) {
    const d = Math.round((i * maxD) / Math.max(1, ticks - 1));
    root.append(svg("text", { x: (pad.l + d * step + step / 2).toFixed(1), y: H - 6, class: "tick", "text-anchor": "middle" }, String(d)));
  }
  return root;
}

/** Link into the board for one of the table's positions (`t`: a table or its stats). */
export function positionLink(t, text) {
  const [key, value] = viewerOf(t).link(text);
  return `/?table=${encodeURIComponent(t.name)}&${key}=${encodeURIComponent(value).replace(/%2F/gi, "/")}`;
}

function section(s, t) {
  const unit = t.unit;
  const counts = el(
    "table",
    { class: "counts", "data-section": s.name },
    el("thead", {}, el("tr", {}, el("th", {}, unit), el("th", {}, "wins"), el("th", {}, "losses"))),
    el(
      "tbody",
      {},
      s.by_distance.map(([d, w, l]) => el("tr", {}, el("td", {}, String(d)), el("td", { class: "win" }, fmtInt(w)), el("td", { class: "loss" }, fmtInt(l))))
    )
  );
  const L = s.longest_positions;
  const longest = L
    ? el(
        "div",
        { class: "longest" },
        el(
          "p",
          {},
          `Longest: ${L.category === "win" ? "win" : "loss"} in ${L.distance} ${unit} (${L.plies} plies) for the side to move, ${fmtInt(L.count)} position${L.count === 1 ? "" : "s"}`,
          L.count > L.positions.length ? `; the first ${L.positions.length}:` : ":"
        ),
        el(
          "ul",
          {},
          L.positions.map((p) => el("li", {}, el("a", { class: "longest-link", href: positionLink(t, p), "data-position": p }, p)))
        )
      )
    : el("p", { class: "muted" }, "No position is won or lost.");
  return el(
    "section",
    { class: "stat-section", "data-section": s.name },
    el("h3", {}, `${s.name[0].toUpperCase()}${s.name.slice(1)} to move`),
    el(
      "div",
      { class: "stats" },
      el("div", { class: "stat" }, el("b", {}, fmtInt(s.legal)), el("span", {}, "legal")),
      el("div", { class: "stat win" }, el("b", {}, fmtInt(s.wins)), el("span", {}, "wins")),
      el("div", { class: "stat loss" }, el("b", {}, fmtInt(s.losses)), el("span", {}, "losses")),
      el("div", { class: "stat draw" }, el("b", {}, fmtInt(s.draws)), el("span", {}, "draws"))
    ),
    chart(s, unit),
    longest,
    el("details", {}, el("summary", {}, "Counts per distance"), counts),
    el(
      "p",
      { class: "checksum" },
      "xxh3-64 of the records: ",
      el("code", { "data-checksum": s.checksum }, s.checksum),
      s.checksum_ok ? el("span", { class: "ok" }, " ✓ matches the served bytes") : el("span", { class: "bad" }, " ✗ does not match the served bytes")
    )
  );
}

export function mountStats(root, table) {
  const box = el("div", { class: "stats-page" }, el("p", { class: "loading" }, "Loading statistics…"));
  root.append(box);
  let live = true;
  fetch(`/api/tables/${encodeURIComponent(table.name)}/stats.json`)
    .then((r) => r.json().then((j) => ({ ok: r.ok, j })))
    .then(({ ok, j }) => {
      if (!live) return;
      if (!ok) return box.replaceChildren(el("p", { class: "error" }, j.error || "The statistics could not be loaded."));
      box.replaceChildren(
        el("h2", {}, `${j.title} · statistics`),
        el("p", { class: "muted" }, `${fmtInt(j.records)} records, ${fmtInt(j.bytes)} bytes; distances in ${j.unit}. `, el("a", { href: `/?table=${encodeURIComponent(j.name)}`, id: "to-board" }, "Open the board")),
        ...j.sections.map((s) => section(s, j))
      );
      box.dataset.ready = "1";
    })
    .catch(() => live && box.replaceChildren(el("p", { class: "error" }, "The server cannot be reached.")));
  return () => {
    live = false;
  };
}
