// Chess positions in the viewer: squares, FEN in and out, moves the server listed.

export const FILES = "abcdefgh";

export function sqName(i) {
  return FILES[i % 8] + (Math.floor(i / 8) + 1);
}
export function sqIndex(name) {
  if (!/^[a-h][1-8]$/.test(name)) return -1;
  return FILES.indexOf(name[0]) + 8 * (Number(name[1]) - 1);
}

/** Read a FEN, all six fields (`board [side [castling [en-passant [halfmove [fullmove]]]]]`,
 * `_` standing for spaces as in links): `{ pos }`, or `{ error }` in words when it is not
 * one. Missing fields take their usual values (`w - - 0 1`). */
export function readFen(text) {
  const parts = text.trim().replace(/_/g, " ").split(/\s+/);
  if (!parts[0]) return { error: "Empty FEN: write the board, e.g. 8/8/8/4k3/8/8/8/4K3 w - - 0 1." };
  const rows = parts[0].split("/");
  if (rows.length !== 8) return { error: `The board needs 8 ranks separated by "/"; this one has ${rows.length}.` };
  const board = new Array(64).fill(null);
  for (let r = 0; r < 8; r++) {
    let f = 0;
    for (const c of rows[r]) {
      if (/[1-8]/.test(c)) f += Number(c);
      else if (/[kqrbnpKQRBNP]/.test(c)) {
        if (f > 7) return { error: `Rank ${8 - r} ("${rows[r]}") covers more than 8 squares.` };
        board[(7 - r) * 8 + f] = c;
        f++;
      } else return { error: `"${c}" on rank ${8 - r} is not a piece letter (KQRBNP, lower case for black) nor a count of empty squares.` };
    }
    if (f !== 8) return { error: `Rank ${8 - r} ("${rows[r]}") covers ${f} squares instead of 8.` };
  }
  const [, side = "w", castling = "-", ep = "-", half = "0", full = "1"] = parts;
  if (side !== "w" && side !== "b") return { error: `The side to move is "w" or "b", not "${side}".` };
  if (castling !== "-")
    return { error: `Castling rights "${castling}": endgame tables hold no castling, so this field must be "-".` };
  if (ep !== "-") {
    const sq = sqIndex(ep);
    const rank = side === "w" ? 6 : 3;
    if (sq < 0 || Number(ep[1]) !== rank)
      return { error: `En passant square "${ep}": it must be on rank ${rank} with ${side === "w" ? "white" : "black"} to move, or "-".` };
  }
  if (!/^\d+$/.test(half) || !/^\d+$/.test(full) || Number(full) < 1)
    return { error: `The move counters "${half} ${full}" must be whole numbers (halfmove clock, then move number from 1).` };
  if (parts.length > 6) return { error: `A FEN has at most six fields; this one has ${parts.length}.` };
  return { pos: { board, turn: side, ep: ep === "-" ? null : ep, halfmove: Number(half), fullmove: Number(full) } };
}

/** Parse a FEN (see `readFen`); null if it is not one. */
export function parseFen(text) {
  return readFen(text).pos || null;
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
  return `${rows.join("/")} ${pos.turn} - ${pos.ep || "-"} ${pos.halfmove || 0} ${pos.fullmove || 1}`;
}

export function clonePos(pos) {
  return { board: pos.board.slice(), turn: pos.turn, ep: pos.ep || null, halfmove: pos.halfmove || 0, fullmove: pos.fullmove || 1 };
}

/** The position after an edit by hand (a piece placed or removed, the side changed): an
 * en-passant right belongs to the move just played, so it goes; the clocks stay. */
export function editedPos(pos) {
  const next = clonePos(pos);
  next.ep = null;
  return next;
}

/** Apply a UCI move (no legality check: the server listed it). The clocks move on: the
 * halfmove clock restarts at a capture or pawn move, the move number after black's move;
 * a pawn's double step leaves the square it passed as the en-passant square. */
export function applyUci(pos, uci) {
  const from = sqIndex(uci.slice(0, 2));
  const to = sqIndex(uci.slice(2, 4));
  const next = clonePos(pos);
  const piece = next.board[from];
  if (from < 0 || to < 0 || !piece) return null;
  const pawn = piece === "P" || piece === "p";
  const capture = Boolean(next.board[to]) || (pawn && (from - to) % 8 !== 0);
  // A pawn moving diagonally to an empty square takes en passant: the pawn beside it goes.
  if (pawn && (from - to) % 8 !== 0 && !next.board[to]) {
    next.board[to + (piece === "P" ? -8 : 8)] = null;
  }
  const promo = uci[4];
  next.board[to] = promo ? (piece === "P" ? promo.toUpperCase() : promo) : piece;
  next.board[from] = null;
  next.ep = pawn && Math.abs(to - from) === 16 ? sqName((from + to) / 2) : null;
  next.halfmove = pawn || capture ? 0 : (pos.halfmove || 0) + 1;
  next.fullmove = (pos.fullmove || 1) + (pos.turn === "b" ? 1 : 0);
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
