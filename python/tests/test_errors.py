"""What the package says when it has no answer: a missing table is a KeyError
(MissingTableError, as python-chess names it) that get_* turn into their default; a
position that cannot occur is a ValueError (InvalidPositionError); never a crash."""

import os
from pathlib import Path

import chess
import pytest

import retro_tablebase
from retro_tablebase import InvalidPositionError, MissingTableError


def test_the_error_classes_are_pythons() -> None:
    assert issubclass(MissingTableError, KeyError)
    assert issubclass(InvalidPositionError, ValueError)
    assert not issubclass(InvalidPositionError, KeyError)


def test_a_missing_table_is_a_key_error_and_get_gives_the_default(dense_dir: str) -> None:
    # KQvKQ: no such table in the folder.
    board = chess.Board("8/8/3k4/8/3q4/8/3Q4/3K4 w - - 0 1")
    with retro_tablebase.open_tablebase(dense_dir) as tablebase:
        for probe in (tablebase.probe_dtm, tablebase.probe_wdl, tablebase.probe_dtz, tablebase.moves, tablebase.best_move):
            with pytest.raises(MissingTableError, match="no table KQvKQ in " + dense_dir):
                probe(board)
        assert tablebase.get_dtm(board) is None
        assert tablebase.get_wdl(board, 7) == 7
        assert tablebase.get_dtz(board, default="none") == "none"
        assert tablebase.probe_many([board, board.fen()]) == [None, None]


def test_positions_no_table_holds_are_missing_tables(dense_dir: str) -> None:
    with retro_tablebase.open_tablebase(dense_dir) as tablebase:
        # The starting position: 32 pieces (and castling rights).
        with pytest.raises(MissingTableError, match="too many pieces"):
            tablebase.probe_dtm(chess.Board())
        # Castling rights that can be used, in a material that has a table.
        castling = chess.Board("4k3/8/8/8/8/8/8/R3K3 w Q - 0 1")
        with pytest.raises(MissingTableError, match="castling"):
            tablebase.probe_dtm(castling)
        assert tablebase.get_dtm(castling) is None
        # Without them, KRvK is answered.
        castling.castling_rights = 0
        assert tablebase.probe_dtm(castling) > 0
        seven = chess.Board("4k3/8/8/8/8/8/PPPPP3/4K3 w - - 0 1")
        with pytest.raises(MissingTableError, match="too many pieces"):
            tablebase.probe_dtm(seven)
        assert tablebase.get_wdl(seven) is None


def test_impossible_positions_are_value_errors(dense_dir: str) -> None:
    with retro_tablebase.open_tablebase(dense_dir) as tablebase:
        for fen, why in [
            ("8/8/8/8/8/8/8/Kk5R w - - 0 1", "kings are adjacent"),
            ("8/8/8/8/8/8/1k6/K7 b - - 0 1", "kings are adjacent"),
            ("k7/8/8/8/8/8/8/R6K w - - 0 1", "side not to move is in check"),
            ("P7/8/8/8/8/k7/8/K7 w - - 0 1", "first or last rank"),
            ("8/8/8/8/8/k7/8/KK6 w - - 0 1", "exactly one king"),
            ("8/8/8/8/8/k7/8/K7 x - - 0 1", "side to move"),
            ("8/8/8", "8 ranks"),
            ("", "empty"),
            ("8/8/8/8/8/k7/8/KX6 w - - 0 1", "unknown piece letter"),
        ]:
            with pytest.raises(InvalidPositionError, match=why):
                tablebase.probe_dtm(fen)
            # Not a missing table: get_* do not hide it.
            with pytest.raises(ValueError):
                tablebase.get_dtm(fen)
        # A python-chess board, read from its bitboards: the same errors.
        board = chess.Board("k7/8/8/8/8/8/8/R6K w - - 0 1")
        with pytest.raises(InvalidPositionError, match="side not to move is in check"):
            tablebase.probe_dtm(board)
        with pytest.raises(InvalidPositionError, match="position 1: illegal position: kings are adjacent"):
            tablebase.probe_many(["8/8/8/8/8/k7/8/K6R w - - 0 1", "8/8/8/8/8/8/8/Kk5R w - - 0 1"])
        with pytest.raises(ValueError, match="metric"):
            tablebase.probe_many([], metric="dtc")
        with pytest.raises(TypeError, match="fen"):
            tablebase.probe_dtm(42)


def test_any_object_with_a_fen_method_is_a_board(dense_dir: str) -> None:
    class Position:
        def fen(self) -> str:
            return "8/8/8/8/8/8/8/K2kr3 w - - 0 1"

    with retro_tablebase.open_tablebase(dense_dir) as tablebase:
        # The example of chess.gaviota's documentation: white is mated in 10 plies.
        assert tablebase.probe_dtm(Position()) == -10


def test_directories(dense_dir: str, compressed_dir: str, tmp_path: Path) -> None:
    with pytest.raises(OSError, match="not a directory"):
        retro_tablebase.open_tablebase(str(tmp_path / "nowhere"))
    # Materials come from the first directory that has them: KPvKP from the second.
    kpvkp = chess.Board("8/8/3k4/3p4/8/3P4/3K4/8 w - - 0 1")
    tablebase = retro_tablebase.Tablebase()
    assert tablebase.add_directory(dense_dir) == len([n for n in os.listdir(dense_dir) if n.endswith(".rtb")])
    with pytest.raises(MissingTableError):
        tablebase.probe_dtm(kpvkp)
    tablebase.add_directory(compressed_dir)
    assert tablebase.probe_dtm(kpvkp) == retro_tablebase.open_tablebase(compressed_dir).probe_dtm(kpvkp)
    with retro_tablebase.open_tablebase(dense_dir, compressed_dir) as both:
        assert both.probe_dtm(kpvkp) == tablebase.probe_dtm(kpvkp)
    # Closed: no table is left.
    tablebase.close()
    with pytest.raises(MissingTableError):
        tablebase.probe_dtm(kpvkp)
    # Two bare kings need no table, as in python-chess.
    assert tablebase.probe_dtm("8/8/8/8/8/k7/8/K7 w - - 0 1") == 0


def test_a_table_whose_sub_table_is_missing_says_which(dense_dir: str, tmp_path: Path) -> None:
    # KQvKR without KQvK (which a capture of the rook leads to).
    os.symlink(Path(dense_dir) / "KQvKR.rtb", tmp_path / "KQvKR.rtb")
    with retro_tablebase.open_tablebase(str(tmp_path)) as tablebase:
        with pytest.raises(MissingTableError, match="KQvK"):
            tablebase.probe_dtm("8/8/8/8/8/2k5/8/KQ5r w - - 0 1")


def test_wdl_and_dtz_without_a_dtz_table_say_which_is_needed(compressed_dir: str) -> None:
    with retro_tablebase.open_tablebase(compressed_dir) as tablebase:
        # A rook against a pawn... not here: KQvKR, a quiet win whose next zeroing move
        # only the DTZ table knows.
        board = chess.Board("8/8/2k5/1r6/8/8/8/2KQ4 w - - 0 1")
        assert tablebase.probe_dtm(board) > 0
        with pytest.raises(MissingTableError, match=r"needs the DTZ table KQvKR\.dtz"):
            tablebase.probe_dtz(board)
        assert tablebase.get_dtz(board) is None
        # The mate comes within 100 plies: WDL is known all the same.
        assert tablebase.probe_wdl(board) == 2
