"""How fast retro_tablebase probes from Python, on one core, against python-chess's own
Gaviota probing of the same positions where Gaviota tables are at hand.

    python benches/python_probe.py --tables TABLES [--gaviota GAVIOTA_DIR] [--materials KQvK,KRvK,...]

TABLES holds retro's chess tables (`retro generate chess --all 4 --out TABLES`); GAVIOTA_DIR
Gaviota's `.gtb.cp4` files (Debian's package gaviotatb has the 3-piece ones in
/usr/share/gaviotatb/gtb4). It measures single `probe_dtm` calls on python-chess boards and
on FEN strings, and `probe_many` on lists of each; for Gaviota, chess.gaviota's pure-Python
prober and, where Debian's libgaviotatb1 is installed, its C library through
chess.gaviota.open_tablebase_native. Each position is probed once per round, a round
over the whole list (Gaviota: a tenth of it); rates are per second of the process's CPU
time, on one thread: one core, whatever else the machine runs.
"""

import argparse
import os
import random
import time
from typing import Callable, List

import chess
import chess.gaviota

import retro_tablebase

NATIVE_GTB = "/usr/lib/libgaviotatb.so.1"


def random_boards(material: str, count: int, rng: random.Random) -> List[chess.Board]:
    white, black = material.split("v")
    pieces = [chess.Piece.from_symbol(c) for c in white] + [chess.Piece.from_symbol(c.lower()) for c in black]
    boards: List[chess.Board] = []
    while len(boards) < count:
        board = chess.Board(None)
        for square, piece in zip(rng.sample(chess.SQUARES, len(pieces)), pieces):
            board.set_piece_at(square, piece)
        board.turn = rng.random() < 0.5
        if board.is_valid():
            boards.append(board)
    return boards


def rate(count: int, run: Callable[[], object], seconds: float) -> float:
    """Positions a second of the process's CPU time (one thread: one core), which other
    programs on the machine do not inflate as they do the wall clock: `run` answers `count`
    positions; repeated for `seconds`, the best round counts."""
    best = 0.0
    deadline = time.process_time() + seconds
    while True:
        start = time.process_time()
        run()
        elapsed = max(time.process_time() - start, 1e-9)
        best = max(best, count / elapsed)
        if time.process_time() > deadline:
            return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", required=True)
    parser.add_argument("--gaviota")
    parser.add_argument("--materials", default="KQvK,KRvK,KPvK,KQvKR,KRvKP,KPvKP")
    parser.add_argument("--positions", type=int, default=20000, help="per material")
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    args = parser.parse_args()
    rng = random.Random(1)
    tablebase = retro_tablebase.open_tablebase(args.tables)
    gaviota = chess.gaviota.open_tablebase(args.gaviota) if args.gaviota else None
    native = None
    if args.gaviota and os.path.exists(NATIVE_GTB):
        native = chess.gaviota.open_tablebase_native(args.gaviota, libgtb=NATIVE_GTB)
    print(f"{'material':9} {'retro board':>12} {'retro FEN':>12} {'many boards':>12} {'many FENs':>12} {'gaviota py':>11} {'gaviota C':>11}   (positions per CPU second)")
    for material in args.materials.split(","):
        boards = random_boards(material, args.positions, rng)
        fens = [b.fen() for b in boards]
        probe = tablebase.probe_dtm
        row = [
            rate(len(boards), lambda: [probe(b) for b in boards], args.seconds),
            rate(len(fens), lambda: [probe(f) for f in fens], args.seconds),
            rate(len(boards), lambda: tablebase.probe_many(boards), args.seconds),
            rate(len(fens), lambda: tablebase.probe_many(fens), args.seconds),
        ]
        cells = [f"{r:12,.0f}" for r in row]
        for other in (gaviota, native):
            if other is None or len(material) > 4:
                cells.append(f"{'-':>11}")
                continue
            # A tenth of the positions: Gaviota's probes are much slower.
            some = boards[: max(1, len(boards) // 10)]
            assert [other.probe_dtm(b) for b in some[:200]] == [probe(b) for b in some[:200]], material
            cells.append(f"{rate(len(some), lambda: [other.probe_dtm(b) for b in some], args.seconds):11,.0f}")
        print(f"{material:9} " + " ".join(cells))


if __name__ == "__main__":
    main()
