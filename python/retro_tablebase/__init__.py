"""retro's endgame tables from Python, in the shape of python-chess's ``chess.gaviota`` and
``chess.syzygy``.

>>> import chess, retro_tablebase
>>> with retro_tablebase.open_tablebase("tables") as tablebase:
...     board = chess.Board("8/8/8/8/8/8/8/K2kr3 w - - 0 1")
...     tablebase.probe_dtm(board)
-10

A board is a ``chess.Board``, a FEN string, or any object with a ``fen()`` method:
python-chess is needed only for ``chess.Move`` answers (``best_move``, ``moves``), which
are UCI strings without it. The conventions are in docs/python.md.
"""

import os
from typing import Any, List, NamedTuple, Optional, Union

from ._retro import InvalidPositionError, MissingTableError, Table, open_table
from ._retro import Tablebase as _Tablebase

__all__ = [
    "InvalidPositionError",
    "MissingTableError",
    "MoveValue",
    "Table",
    "Tablebase",
    "open_table",
    "open_tablebase",
]


class MoveValue(NamedTuple):
    """A legal move and what ``probe_dtm``, ``probe_wdl`` and ``probe_dtz`` say of the
    position it leads to, for the opponent (``None`` where that is not known exactly)."""

    move: Any
    dtm: Optional[int]
    wdl: Optional[int]
    dtz: Optional[int]


def _move(uci: str) -> Any:
    """A ``chess.Move`` where python-chess is installed, else the UCI text."""
    try:
        import chess
    except ImportError:
        return uci
    return chess.Move.from_uci(uci)


class Tablebase(_Tablebase):
    """The chess tables of one or more directories.

    ``probe_dtm`` / ``get_dtm`` answer as ``chess.gaviota`` does (plies to mate, positive
    when the side to move mates, 0 for a draw or a checkmated position); ``probe_wdl`` /
    ``get_wdl`` and ``probe_dtz`` / ``get_dtz`` as ``chess.syzygy`` does, under the 50-move
    rule from the board's halfmove clock. ``probe_*`` raise :exc:`MissingTableError` (a
    :exc:`KeyError`) where no table answers, ``get_*`` return ``default`` instead; both
    raise :exc:`InvalidPositionError` (a :exc:`ValueError`) for a position that cannot
    occur.
    """

    def best_move(self, board: Any) -> Any:
        """The best move for the side to move (the first of :meth:`moves`), as a
        ``chess.Move``; ``None`` if it has no legal move."""
        moves = self._moves(board)
        return _move(moves[0][0]) if moves else None

    def moves(self, board: Any) -> List[MoveValue]:
        """Every legal move with the value of the position it leads to, best first for the
        side to move: the quickest win that survives the 50-move rule, then draws, then the
        longest resistance."""
        return [MoveValue(_move(u), dtm, wdl, dtz) for u, dtm, wdl, dtz in self._moves(board)]

    def __enter__(self) -> "Tablebase":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def open_tablebase(directory: Union[str, "os.PathLike[str]"], *directories: Any) -> Tablebase:
    """Open the chess tables of ``directory`` (and of each further one, searched in order,
    as ``add_directory`` adds them). Tables are opened on their first probe."""
    tablebase = Tablebase()
    for d in (directory, *directories):
        tablebase.add_directory(d)
    return tablebase
