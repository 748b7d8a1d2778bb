// Chess positions in the viewer: squares, FEN in and out, moves the server listed.

export const FILES = "abcdefgh";

export function sqName(i) {
  return FILES[i % 8] + (Math.floor(i / 8) + 1);
}
export function sqIndex(name) {
  if (!/^[a-h][1-8]$/.test(name)) return -1;
  return FILES.indexOf(name[0]) + 8 * (Number(name[1]) - 1);
}

/** Parse a FEN loosely (board and side only); null if it is not one. */
export function parseFen(text) {
  const parts = text.trim().replace(/_/g, " ").split(/\s+/);
  const rows = parts[0].split("/");
  if (rows.length !== 8) return null;
  const board = new Array(64).fill(null);
  for (let r = 0; r < 8; r++) {
    let f = 0;
    for (const c of rows[r]) {
      if (/[1-8]/.test(c)) f += Number(c);
      else if (/[kqrbnpKQRBNP]/.test(c)) {
        if (f > 7) return null;
        board[(7 - r) * 8 + f] = c;
        f++;
      } else return null;
    }
    if (f !== 8) return null;
  }
  const turn = parts[1] === "b" ? "b" : "w";
  return { board, turn };
}

export function toFen(pos) {
  const rows = [];
  for (let r = 7; r >= 0; r--) {
    let row = "";
    let empty = 0;
    for (let f = 0; f < 8; f++) {
      const p = pos.board[r * 8 + f];
      if (!p) empty++;
      else {
        if (empty) row += empty;
        empty = 0;
        row += p;
      }
    }
    if (empty) row += empty;
    rows.push(row);
  }
  return `${rows.join("/")} ${pos.turn} - - 0 1`;
}

export function clonePos(pos) {
  return { board: pos.board.slice(), turn: pos.turn };
}

/** Apply a UCI move (no legality check: the server listed it). */
export function applyUci(pos, uci) {
  const from = sqIndex(uci.slice(0, 2));
  const to = sqIndex(uci.slice(2, 4));
  const next = clonePos(pos);
  const piece = next.board[from];
  if (from < 0 || to < 0 || !piece) return null;
  // A pawn moving diagonally to an empty square takes en passant: the pawn beside it goes.
  if ((piece === "P" || piece === "p") && (from - to) % 8 !== 0 && !next.board[to]) {
    next.board[to + (piece === "P" ? -8 : 8)] = null;
  }
  const promo = uci[4];
  next.board[to] = promo ? (piece === "P" ? promo.toUpperCase() : promo) : piece;
  next.board[from] = null;
  next.turn = pos.turn === "w" ? "b" : "w";
  return next;
}

/** A starting position for a material such as `KQvKR`: kings on e1 and e8, white's pieces
 * on the first rank (pawns on the second), black's on the eighth (pawns on the seventh). */
export function materialFen(name) {
  const [w, b] = name.slice(1).split("vK");
  const rank = (pieces, pawnRank, backRank, lower) => {
    const board = {};
    let file = 0;
    for (const c of pieces) {
      if (c === "P") board[pawnRank * 8 + file] = lower ? "p" : "P";
      else board[backRank * 8 + (file === 4 ? ++file : file)] = lower ? c.toLowerCase() : c;
      file++;
    }
    return board;
  };
  const squares = { 4: "K", 60: "k", ...rank(w || "", 1, 0, false), ...rank(b || "", 6, 7, true) };
  const board = Array.from({ length: 64 }, (_, i) => squares[i] || null);
  return toFen({ board, turn: "w" });
}


/** The material on the board as a table is named, white's pieces first: `{ name: "KQvKR",
 * pieces: 4 }`. Pieces are listed strongest first (`KQRBNP`), whatever their number. */
export function boardMaterial(pos) {
  const order = "KQRBNP";
  const side = (white) =>
    pos.board
      .filter((p) => p && (p === p.toUpperCase()) === white)
      .map((p) => p.toUpperCase())
      .sort((a, b) => order.indexOf(a) - order.indexOf(b))
      .join("");
  const w = side(true);
  const b = side(false);
  return { name: `${w}v${b}`, pieces: w.length + b.length };
}
