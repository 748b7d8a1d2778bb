"""A script written for python-chess's chess.gaviota: for each position, its distance to
mate and result, and the line of best moves to the end. Run as
`python gaviota_mates.py TABLES_DIR`."""

import sys

import chess
import chess.gaviota as gaviota

POSITIONS = [
    "8/8/8/8/8/8/8/K2kr3 w - - 0 1",
    "8/8/8/8/8/8/8/K2kr3 b - - 0 1",
    "8/8/8/4k3/8/8/8/4K2Q w - - 0 1",
    "8/8/8/4k3/8/8/8/4K2Q b - - 0 1",
    "8/6k1/8/8/8/8/1P6/K7 w - - 0 1",
    "8/8/8/8/8/2k5/1p6/K7 w - - 0 1",
    "8/8/4k3/8/8/8/8/B3K3 w - - 0 1",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "7k/5Q2/5K2/8/8/8/8/8 b - - 0 1",
]


def score(tablebase, board):
    """How good the position after a move is for the side that made it (larger is better)."""
    if board.is_checkmate():
        return (3, 0)
    dtm = tablebase.probe_dtm(board)
    if dtm < 0:
        return (2, dtm)  # the opponent is mated: sooner is better
    if dtm == 0:
        return (1, 0)
    return (0, dtm)  # the opponent mates: later is better


def best_line(tablebase, board, limit=120):
    board = board.copy()
    line = []
    while not board.is_game_over() and len(line) < limit:
        best = None
        for move in board.legal_moves:
            board.push(move)
            key = score(tablebase, board)
            board.pop()
            if best is None or key > best[0]:
                best = (key, move)
        line.append(board.san(best[1]))
        board.push(best[1])
    return line


with gaviota.open_tablebase(sys.argv[1]) as tablebase:
    for fen in POSITIONS:
        board = chess.Board(fen)
        dtm = tablebase.probe_dtm(board)
        wdl = tablebase.probe_wdl(board)
        line = best_line(tablebase, board) if dtm != 0 else []
        print(fen, dtm, wdl, tablebase.get_wdl(board), " ".join(line))
    four = chess.Board("8/8/8/4k3/8/8/8/3BNK2 w - - 0 1")
    print("KBNvK", tablebase.get_dtm(four), tablebase.get_dtm(four, "none"))
    try:
        tablebase.probe_dtm(four)
    except gaviota.MissingTableError:
        print("KBNvK: missing table")
    except KeyError:
        print("KBNvK: key error")
