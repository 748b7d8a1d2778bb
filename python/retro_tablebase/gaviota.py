"""``chess.gaviota``'s interface over retro's tables, for scripts written for it: they run
with their ``import chess.gaviota as gaviota`` line changed to
``import retro_tablebase.gaviota as gaviota``.

As in ``chess.gaviota``, ``probe_wdl`` is 1, 0 or -1 and ignores the 50-move rule (the
package's own ``Tablebase.probe_wdl`` gives ``chess.syzygy``'s -2 to 2); ``probe_dtm`` and
everything else are the package's.
"""

from typing import Any, Optional

from . import InvalidPositionError, MissingTableError, Tablebase as _Tablebase

__all__ = ["MissingTableError", "InvalidPositionError", "PythonTablebase", "NativeTablebase", "open_tablebase", "open_tablebase_native"]


class GaviotaTablebase(_Tablebase):
    """A :class:`retro_tablebase.Tablebase` whose WDL is ``chess.gaviota``'s."""

    def probe_wdl(self, board: Any) -> int:
        """1 if the side to move mates, 0 for a draw, -1 if it is mated (a checkmated
        position too), whatever the 50-move rule says."""
        return self._gaviota_wdl(board)

    def get_wdl(self, board: Any, default: Optional[int] = None) -> Optional[int]:
        try:
            return self.probe_wdl(board)
        except KeyError:
            return default


# chess.gaviota's class names, for scripts that name them.
PythonTablebase = NativeTablebase = GaviotaTablebase


def open_tablebase(directory: str, *, libgtb: Any = None, LibraryLoader: Any = None) -> GaviotaTablebase:
    """Open retro's tables in ``directory``. ``libgtb`` and ``LibraryLoader`` (which pick
    the Gaviota C library in ``chess.gaviota``) are accepted and ignored."""
    tablebase = GaviotaTablebase()
    tablebase.add_directory(directory)
    return tablebase


open_tablebase_native = open_tablebase
