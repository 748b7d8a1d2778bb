// Chess pieces drawn for retro (original artwork, same licence as the project).
// Each function returns an SVG string on a 45x45 grid.

const STYLE = {
  w: { fill: "#fbfaf6", stroke: "#1b1b1b", detail: "#1b1b1b" },
  b: { fill: "#262421", stroke: "#0d0d0d", detail: "#e9e4d8" },
};

function base(s, y = 34.5) {
  return `<rect x="10.5" y="${y}" width="24" height="5" rx="1.6" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5"/>`;
}

function king(s) {
  return (
    `<path d="M21.3 4.2h2.4v3h3v2.4h-3v4h-2.4v-4h-3V7.2h3z" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.2" stroke-linejoin="round"/>` +
    `<path d="M15.2 20.5C13 16.5 16.4 13 22.5 13s9.5 3.5 7.3 7.5z" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5" stroke-linejoin="round"/>` +
    `<path d="M15.5 20.5h14l2.5 14H13z" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5" stroke-linejoin="round"/>` +
    `<path d="M14.6 25.5h15.8M14 29.5h17" fill="none" stroke="${s.detail}" stroke-width="1.2"/>` +
    base(s)
  );
}

function bishop(s) {
  return (
    `<circle cx="22.5" cy="7.2" r="2.6" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5"/>` +
    `<path d="M22.5 9.8c-5.5 4-8 8.7-6.3 13.7h12.6c1.7-5-.8-9.7-6.3-13.7z" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5" stroke-linejoin="round"/>` +
    `<path d="M25.6 13.6l-4.6 5.2" fill="none" stroke="${s.detail}" stroke-width="1.5" stroke-linecap="round"/>` +
    `<rect x="15.2" y="23.5" width="14.6" height="3.2" rx="1.4" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5"/>` +
    `<path d="M18 26.7h9l2 7.8H16z" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5" stroke-linejoin="round"/>` +
    base(s)
  );
}

function knight(s) {
  return (
    `<path d="M15.5 34.5c-.4-5 1.6-8.3 5.4-10.6l-1.7-.5c-2.3 1.6-5.2 3.4-7 2.6-1.7-.8-2.3-2.7-1-4.6l6.6-9.3c1-1.6 2.4-2.7 4-3.3l1.4-3.4 2 3.2c6 1.1 9.5 7.2 8.6 15.8-.4 3.9-1.1 7-1.1 10.1z" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5" stroke-linejoin="round"/>` +
    `<circle cx="20.3" cy="13.8" r="1.3" fill="${s.detail}"/>` +
    `<circle cx="12.6" cy="23.3" r=".8" fill="${s.detail}"/>` +
    `<path d="M26.8 10.4c3.2 3 4.3 8.3 3.6 16.6" fill="none" stroke="${s.detail}" stroke-width="1.2" stroke-linecap="round"/>` +
    base(s)
  );
}

function rook(s) {
  return (
    `<path d="M13 9h4v3h3V9h5v3h3V9h4v6l-3 2v13h-13V17l-3-2z" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5" stroke-linejoin="round"/>` +
    base(s)
  );
}

function queen(s) {
  // Five crown points, each topped by a ball, over a band and a flared body.
  const balls = [
    [9, 12.5],
    [15.8, 9.4],
    [22.5, 8],
    [29.2, 9.4],
    [36, 12.5],
  ]
    .map(([x, y]) => `<circle cx="${x}" cy="${y}" r="2.3" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.3"/>`)
    .join("");
  return (
    `<path d="M11.5 26.5L9.5 14.6l5.6 7.6.7-10.6 4.4 9.4 2.3-10.5 2.3 10.5 4.4-9.4.7 10.6 5.6-7.6-2 11.9z" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5" stroke-linejoin="round"/>` +
    balls +
    `<path d="M11.5 26.5h22l-1.2 8H12.7z" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5" stroke-linejoin="round"/>` +
    `<path d="M12.4 30.4h20.2" fill="none" stroke="${s.detail}" stroke-width="1.2"/>` +
    base(s)
  );
}

function pawn(s) {
  return (
    `<circle cx="22.5" cy="12.6" r="4.6" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5"/>` +
    `<rect x="17.2" y="17.4" width="10.6" height="3" rx="1.3" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5"/>` +
    `<path d="M19.4 20.4c-.3 5.4-2.6 9.8-5.2 14.1h16.6c-2.6-4.3-4.9-8.7-5.2-14.1z" fill="${s.fill}" stroke="${s.stroke}" stroke-width="1.5" stroke-linejoin="round"/>` +
    base(s)
  );
}

const DRAW = { k: king, q: queen, r: rook, b: bishop, n: knight, p: pawn };

/** SVG markup of a FEN piece letter (KQRBNP white, kqrbnp black); empty for anything else. */
export function pieceSvg(code) {
  const s = code === code.toUpperCase() ? STYLE.w : STYLE.b;
  const draw = DRAW[code.toLowerCase()];
  const body = draw ? draw(s) : "";
  return `<svg viewBox="0 0 45 45" xmlns="http://www.w3.org/2000/svg" aria-hidden="true">${body}</svg>`;
}

export const PIECE_NAMES = {
  K: "white king", B: "white bishop", N: "white knight", R: "white rook", Q: "white queen", P: "white pawn",
  k: "black king", b: "black bishop", n: "black knight", r: "black rook", q: "black queen", p: "black pawn",
};
