"""retro against Gaviota: python-chess's own Gaviota prober (chess.gaviota) reading
Debian's Gaviota tables of the 3-piece endgames, a source outside retro, on random
positions; and a script written for chess.gaviota that runs on retro's tables with only
its import line changed, printing the same."""

import random
import subprocess
import sys
from pathlib import Path

import chess
import chess.gaviota

import retro_tablebase
import retro_tablebase.gaviota
from conftest import random_boards

MATERIALS = ["KQvK", "KRvK", "KPvK", "KBvK", "KNvK", "KvKQ", "KvKP"]


def test_dtm_and_wdl_are_gaviotas(small_dir: str, gaviota_dir: str, rng: random.Random) -> None:
    boards = [b for m in MATERIALS for b in random_boards(m, 300, rng)]
    mates = 0
    with chess.gaviota.open_tablebase(gaviota_dir) as gaviota, retro_tablebase.gaviota.open_tablebase(small_dir) as retro:
        for board in boards:
            dtm = gaviota.probe_dtm(board)
            assert retro.probe_dtm(board) == dtm, board.fen()
            assert retro.probe_wdl(board) == gaviota.probe_wdl(board), board.fen()
            assert retro.get_dtm(board) == gaviota.get_dtm(board)
            mates += dtm != 0
    # Wins and losses of both signs, not only draws.
    assert mates > len(boards) // 3


def test_a_gaviota_script_runs_unchanged_but_its_import(small_dir: str, gaviota_dir: str, tmp_path: Path) -> None:
    script = Path(__file__).parent / "scripts" / "gaviota_mates.py"
    text = script.read_text()
    line = "import chess.gaviota as gaviota\n"
    assert text.count(line) == 1
    ours = tmp_path / "retro_mates.py"
    ours.write_text(text.replace(line, "import retro_tablebase.gaviota as gaviota\n"))

    def run(path: Path, tables: str) -> str:
        out = subprocess.run([sys.executable, str(path), tables], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        return out.stdout

    want = run(script, gaviota_dir)
    got = run(ours, small_dir)
    assert got == want
    # It printed something worth comparing: mates found, lines played, the missing table.
    assert "-10 -1 -1 Kb2" in want
    assert "Qf7#" in want or "#" in want
    assert "KBNvK None none\nKBNvK: missing table" in want
