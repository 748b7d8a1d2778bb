// The table picker in the top bar: one search box over every table the server holds and
// every chess material a table can be made for, grouped by piece count. It replaces a tab
// per table, which no longer fits once a full 5-piece set (145 tables) is served.
import { el, viewerOf } from "./app.js";

/** `"krp vs kr"` → `"KRPVKR"`: what a person types, in the form the names are matched in. */
export function searchKey(text) {
  return text.toUpperCase().replace(/\s+/g, "").replace(/VS/g, "V");
}

/** How well `entry` matches the search key `q`: 0 exact, 1 prefix, 2 anywhere; -1 not. A
 * material also matches without its `v` (`KRPKR`) and without the white king (`RPVKR`). */
export function matchRank(entry, q) {
  if (!q) return 2;
  const keys = entry.keys;
  if (keys.some((k) => k === q)) return 0;
  if (keys.some((k) => k.startsWith(q))) return 1;
  if (keys.some((k) => k.includes(q))) return 2;
  return -1;
}

/** The picker's entries: served tables and (present or not) chess materials, in groups. */
export function entries(tables, materials) {
  const served = new Set(tables.map((t) => t.name));
  const out = [];
  for (const m of materials) {
    const key = searchKey(m.name);
    out.push({
      name: m.name,
      label: m.name,
      group: `${m.pieces} pieces`,
      // A material another game's table answers for (KBNvK from KBNK) is at hand too.
      present: served.has(m.name) || Boolean(m.answered_by),
      keys: [key, key.replace("V", ""), key.slice(1)],
    });
  }
  const chess = new Set(materials.map((m) => m.name));
  for (const t of tables) {
    // A DTZ table opens its material's board, which the material's entry already does.
    if (chess.has(t.name) || t.name.endsWith(".dtz")) continue;
    const label = tableLabel(t);
    out.push({ name: t.name, label, group: "Other tables", present: true, keys: [searchKey(t.name), searchKey(label), searchKey(t.title)] });
  }
  return out;
}

/** A table's short label, as its viewer gives it: `KBNK`, `KQvKR`, `3×3, 3 in a row`. */
export function tableLabel(t) {
  return viewerOf(t).label(t);
}

/** Mount the picker into `root` over `all` (from [`entries`]); `open(name)` shows a table. */
export function mountPicker(root, all, open) {
  const input = el("input", {
    id: "material-search",
    class: "picker-input",
    type: "search",
    placeholder: "Find a table: KRPvKR, krp, 4x4…",
    autocomplete: "off",
    spellcheck: "false",
    role: "combobox",
    "aria-label": "find a table",
    "aria-controls": "picker-list",
    "aria-expanded": "false",
  });
  const list = el("div", { id: "picker-list", class: "picker-list", role: "listbox", hidden: true });
  root.replaceChildren(input, list);
  let shown = [];
  let active = 0;

  function render() {
    const q = searchKey(input.value);
    shown = all
      .map((e, i) => ({ e, i, r: matchRank(e, q) }))
      .filter((x) => x.r >= 0)
      // The best match first; among equals, tables present before materials to make.
      .sort((a, b) => (q ? a.r - b.r || b.e.present - a.e.present : 0) || a.i - b.i)
      .map((x) => x.e);
    active = Math.min(active, Math.max(0, shown.length - 1));
    const groups = new Map();
    shown.forEach((e, i) => {
      const chip = el(
        "a",
        {
          class: "chip" + (e.present ? " present" : " missing") + (i === active ? " active" : ""),
          href: `/?table=${encodeURIComponent(e.name)}`,
          role: "option",
          "data-name": e.name,
          "aria-selected": i === active ? "true" : "false",
          title: e.present ? `open ${e.label}` : `${e.label}: not generated on this server`,
          onclick: (ev) => {
            ev.preventDefault();
            choose(e);
          },
        },
        e.label
      );
      // With a query, one list in match order; without, the groups in order.
      const g = q ? "Matches" : e.group;
      if (!groups.has(g)) groups.set(g, []);
      groups.get(g).push(chip);
    });
    list.replaceChildren(
      ...[...groups].map(([g, chips]) => el("div", { class: "picker-group" }, el("h4", {}, g), el("div", { class: "chips" }, chips))),
      shown.length ? el("p", { class: "picker-legend" }, "Grey: no table on this server yet; opening it names the command that makes it.") : el("p", { class: "picker-empty" }, "No table or material matches.")
    );
  }

  function setOpen(open) {
    list.hidden = !open;
    input.setAttribute("aria-expanded", String(open));
    if (open) render();
  }

  function choose(e) {
    input.value = "";
    input.blur();
    setOpen(false);
    open(e.name);
  }

  input.addEventListener("focus", () => setOpen(true));
  input.addEventListener("input", () => {
    active = 0;
    setOpen(true);
  });
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      if (!shown.length) return;
      active = (active + (ev.key === "ArrowDown" ? 1 : shown.length - 1)) % shown.length;
      render();
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      if (shown[active]) choose(shown[active]);
    } else if (ev.key === "Escape") {
      input.blur();
      setOpen(false);
    }
  });
  // A click anywhere else closes the list.
  document.addEventListener("pointerdown", (ev) => {
    if (!root.contains(ev.target)) setOpen(false);
  });
}
