"""``chess.syzygy``'s interface over retro's tables, for scripts written for it: they run
with their ``import chess.syzygy as syzygy`` line changed to
``import retro_tablebase.syzygy as syzygy``.

``probe_wdl`` counts the 50-move rule from the board's halfmove clock (``chess.syzygy``
assumes a clock of 0: the same answers for a board whose clock is 0); ``probe_dtz`` is
exact where Syzygy's may be rounded by one ply (see docs/python.md).
"""

from typing import Any

from . import InvalidPositionError, MissingTableError, Tablebase

__all__ = ["MissingTableError", "InvalidPositionError", "Tablebase", "open_tablebase"]


def open_tablebase(directory: str, *, load_wdl: bool = True, load_dtz: bool = True, max_fds: Any = None, VariantBoard: Any = None) -> Tablebase:
    """Open retro's tables in ``directory``. The keyword arguments of
    ``chess.syzygy.open_tablebase`` are accepted and ignored (retro opens each table on
    its first probe, and its tables are of standard chess)."""
    if VariantBoard is not None and getattr(VariantBoard, "uci_variant", "chess") != "chess":
        raise ValueError(f"retro's tables are of standard chess, not {VariantBoard.uci_variant}")
    tablebase = Tablebase()
    tablebase.add_directory(directory)
    return tablebase
