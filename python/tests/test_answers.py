"""The package's answers on thousands of random positions against `retro probe --json` on
the same positions (the CLI's answers, made by other code: the probe answer rendered as
JSON), with python-chess boards and python-chess's own move generation."""

import random
from typing import Dict, List, Optional

import chess
import pytest

import retro_tablebase
from conftest import cli_answers, en_passant_boards, random_boards

# The positions per material: 9 materials, about 4,000 positions in all.
COUNT = 450

WDL = {"win": 2, "cursed-win": 1, "draw": 0, "blessed-loss": -1, "loss": -2}


def gaviota_dtm(answer: Dict) -> int:
    """The CLI's DTM (plies, signed for the side to move; null for a draw) as
    chess.gaviota gives it: 0 for a draw, and for a checkmated position."""
    return answer["dtm"] or 0


def check_moves(tablebase: retro_tablebase.Tablebase, board: chess.Board, answer: Dict, dtz: bool) -> None:
    moves = tablebase.moves(board)
    # Every legal move by python-chess's move generation, each once.
    assert sorted(m.move.uci() for m in moves) == sorted(m.uci() for m in board.legal_moves), board.fen()
    cli = {m["uci"]: m for m in answer["moves"]}
    assert set(cli) == {m.move.uci() for m in moves}
    for m in moves:
        assert isinstance(m.move, chess.Move)
        assert m.dtm == gaviota_dtm(cli[m.move.uci()]), (board.fen(), m)
        if dtz:
            assert m.dtz == cli[m.move.uci()]["dtz"], (board.fen(), m)
    # Best first: no move leaves the opponent worse off under the 50-move rule, and among
    # those that leave it as badly off, none mates sooner.
    if moves and dtz:
        best = moves[0]
        assert tablebase.best_move(board) == best.move
        assert best.wdl == min(m.wdl for m in moves)
        peers = [m for m in moves if m.wdl == best.wdl]
        if best.wdl < 0:
            # The opponent is lost: the quickest mate (checkmate is 0, else the least negative).
            assert all((m.dtm == 0) <= (best.dtm == 0) for m in peers)
            if best.dtm != 0:
                assert best.dtm == max(m.dtm for m in peers if m.dtm != 0)
    if not moves:
        assert tablebase.best_move(board) is None


def compare(tablebase: retro_tablebase.Tablebase, boards: List[chess.Board], answers: List[Dict], dtz: bool) -> None:
    for board, answer in zip(boards, answers):
        fen = board.fen()
        assert answer["fen"] == fen
        want = gaviota_dtm(answer)
        # A board is read from its bitboards, a FEN string by the FEN reader: the same.
        assert tablebase.probe_dtm(board) == want, fen
        assert tablebase.probe_dtm(fen) == want, fen
        assert tablebase.get_dtm(board) == want
        if dtz:
            assert tablebase.probe_dtz(board) == answer["dtz"], fen
            assert tablebase.probe_wdl(board) == WDL[answer["dtz_category"]], fen
        else:
            # Without a DTZ table: exact where the mate comes within 100 plies, else known
            # only where the moves settle it, never a guess.
            wdl = tablebase.get_wdl(board)
            sign = -1 if board.is_checkmate() else (want > 0) - (want < 0)
            if wdl is not None:
                assert (wdl > 0) - (wdl < 0) == sign, fen
            if abs(want) <= 100:
                assert wdl == 2 * sign, fen
        check_moves(tablebase, board, answer, dtz)
    # A batch gives what one probe at a time gives, from boards and from FEN strings.
    want = [gaviota_dtm(a) for a in answers]
    assert tablebase.probe_many(boards) == want
    assert tablebase.probe_many([b.fen() for b in boards]) == want
    if dtz:
        assert tablebase.probe_many(boards, metric="dtz") == [a["dtz"] for a in answers]
        assert tablebase.probe_many(boards, metric="wdl") == [WDL[a["dtz_category"]] for a in answers]


@pytest.mark.parametrize("material", ["KQvK", "KRvK", "KPvK", "KQvKR", "KRvKB", "KRvKN", "KRvKR", "KRvKP"])
def test_dense_tables_with_dtz_answer_as_the_cli(material: str, dense_dir: str, retro_bin: str, rng: random.Random) -> None:
    boards = random_boards(material, COUNT, rng)
    answers = cli_answers(retro_bin, dense_dir, [b.fen() for b in boards])
    with retro_tablebase.open_tablebase(dense_dir) as tablebase:
        compare(tablebase, boards, answers, dtz=True)


@pytest.mark.parametrize("material", ["KQvKR", "KPvKP", "KPvK"])
def test_compressed_tables_answer_as_the_cli(material: str, compressed_dir: str, retro_bin: str, rng: random.Random) -> None:
    boards = random_boards(material, COUNT, rng)
    if material == "KPvKP":
        # The en-passant right is counted: the stored position has none.
        boards += en_passant_boards(COUNT // 3, rng)
    answers = cli_answers(retro_bin, compressed_dir, [b.fen() for b in boards])
    with retro_tablebase.open_tablebase(compressed_dir) as tablebase:
        compare(tablebase, boards, answers, dtz=False)


def test_tables_made_compressed_by_the_program_with_dtz(small_dir: str, retro_bin: str, rng: random.Random) -> None:
    boards = [b for m in ["KQvK", "KRvK", "KPvK", "KBvK", "KNvK"] for b in random_boards(m, COUNT // 3, rng)]
    answers = cli_answers(retro_bin, small_dir, [b.fen() for b in boards])
    with retro_tablebase.open_tablebase(small_dir) as tablebase:
        compare(tablebase, boards, answers, dtz=True)


def expected_wdl(dtm: int, dtz: int, clock: int, checkmate: bool) -> int:
    """chess.syzygy's WDL with the 50-move rule counted from `clock` (the Lichess rule):
    a win survives if the mate, or the next zeroing move, comes by ply 100 of the count."""
    if dtm == 0 and not checkmate:
        return 0
    sign = 1 if dtm > 0 else -1
    in_time = abs(dtm) + clock <= 100 or abs(dtz) + clock <= 100
    return sign * (2 if in_time else 1)


def test_wdl_counts_the_halfmove_clock(dense_dir: str, retro_bin: str, rng: random.Random) -> None:
    boards = [b for m in ["KQvKR", "KRvKP", "KRvKN"] for b in random_boards(m, 200, rng)]
    answers = cli_answers(retro_bin, dense_dir, [b.fen() for b in boards])
    seen = set()
    with retro_tablebase.open_tablebase(dense_dir) as tablebase:
        for board, answer in zip(boards, answers):
            for clock in (0, rng.randrange(1, 100), rng.randrange(60, 110)):
                board.halfmove_clock = clock
                dtm, dtz = gaviota_dtm(answer), answer["dtz"]
                want = expected_wdl(dtm, dtz, clock, board.is_checkmate())
                assert tablebase.probe_wdl(board) == want, (board.fen(), dtm, dtz)
                assert tablebase.probe_wdl(board.fen()) == want
                # DTZ and DTM do not depend on the clock.
                assert tablebase.probe_dtz(board) == dtz
                assert tablebase.probe_dtm(board) == dtm
                seen.add(want)
    # Wins, cursed wins, draws, blessed losses and losses all met.
    assert seen == {-2, -1, 0, 1, 2}


def test_bitboards_and_fen_read_alike_even_when_illegal(dense_dir: str, rng: random.Random) -> None:
    """Random placements, many illegal: a board read from its bitboards gives what its FEN
    gives, errors included."""

    def outcome(tablebase: retro_tablebase.Tablebase, board: object) -> object:
        try:
            return tablebase.probe_dtm(board)
        except (retro_tablebase.MissingTableError, retro_tablebase.InvalidPositionError) as e:
            return type(e)

    kinds = set()
    with retro_tablebase.open_tablebase(dense_dir) as tablebase:
        for _ in range(3000):
            board = chess.Board(None)
            for square in rng.sample(chess.SQUARES, rng.randrange(2, 5)):
                board.set_piece_at(square, chess.Piece(rng.choice(chess.PIECE_TYPES), rng.random() < 0.5))
            board.turn = rng.random() < 0.5
            by_board = outcome(tablebase, board)
            by_fen = outcome(tablebase, board.fen())
            assert by_board == by_fen, board.fen()
            kinds.add(by_board if isinstance(by_board, type) else int)
    assert kinds == {int, retro_tablebase.MissingTableError, retro_tablebase.InvalidPositionError}
