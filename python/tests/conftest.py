"""What the package's tests share: the folders of tables they read (made by the Rust test
that runs them, tests/integration/python.rs, and named in environment variables), the
`retro` program, and random legal positions."""

import json
import os
import random
import subprocess
from pathlib import Path
from typing import Dict, List

import chess
import pytest


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: these tests are run by tests/integration/python.rs")
    return value


@pytest.fixture(scope="session")
def retro_bin() -> str:
    return _env("RETRO")


@pytest.fixture(scope="session")
def dense_dir() -> str:
    """Dense DTM and DTZ tables of KQvKR, KRvKB, KRvKN, KRvKR, KRvKP and the 3-piece ones."""
    return _env("RETRO_DENSE")


@pytest.fixture(scope="session")
def compressed_dir() -> str:
    """Compressed DTM tables (one side to move kept) of KQvK, KRvK, KPvK, KQvKR and KPvKP
    (which holds en passant), the others they read dense; no DTZ table."""
    return _env("RETRO_COMPRESSED")


@pytest.fixture(scope="session")
def games_dir() -> str:
    """kbnk.rtb and mnk-3x3-3.rtb."""
    return _env("RETRO_GAMES")


@pytest.fixture(scope="session")
def gaviota_dir() -> str:
    """Debian's Gaviota tables of the 3-piece endgames (package gaviotatb)."""
    return _env("GAVIOTA_TABLES")


@pytest.fixture(scope="session")
def small_dir(retro_bin: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """Every 3-piece table, DTM and DTZ, compressed, as the retro program makes them."""
    out = tmp_path_factory.mktemp("small")
    subprocess.run(
        [retro_bin, "generate", "chess", "--all", "3", "--metric", "both", "--compress", "--out", str(out)],
        check=True,
        capture_output=True,
    )
    return str(out)


def cli_answers(retro_bin: str, tables: str, fens: List[str]) -> List[Dict]:
    """`retro probe chess - --json` of each FEN, in order."""
    run = subprocess.run(
        [retro_bin, "probe", "chess", "-", "--tables", tables, "--json"],
        input="".join(f + "\n" for f in fens),
        capture_output=True,
        text=True,
    )
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(answers) == len(fens), run.stderr
    return answers


def random_boards(material: str, count: int, rng: random.Random) -> List[chess.Board]:
    """`count` random legal positions of `material` (`KQvKR`: white's pieces, then
    black's), either side to move, as python-chess judges them legal."""
    white, black = material.split("v")
    pieces = [chess.Piece.from_symbol(c) for c in white] + [chess.Piece.from_symbol(c.lower()) for c in black]
    boards = []
    while len(boards) < count:
        board = chess.Board(None)
        for square, piece in zip(rng.sample(chess.SQUARES, len(pieces)), pieces):
            board.set_piece_at(square, piece)
        board.turn = rng.random() < 0.5
        if board.is_valid():
            boards.append(board)
    return boards


def en_passant_boards(count: int, rng: random.Random) -> List[chess.Board]:
    """Positions of KPvKP just after a double step that can be taken en passant."""
    boards: List[chess.Board] = []
    while len(boards) < count:
        for board in random_boards("KPvKP", 50, rng):
            for move in board.legal_moves:
                if board.piece_type_at(move.from_square) == chess.PAWN and abs(move.to_square - move.from_square) == 16:
                    after = board.copy()
                    after.push(move)
                    if after.has_legal_en_passant():
                        boards.append(after)
    return boards[:count]


@pytest.fixture
def rng() -> random.Random:
    return random.Random(54)


def repo_path(*parts: str) -> Path:
    return Path(__file__).resolve().parents[2].joinpath(*parts)
