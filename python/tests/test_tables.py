"""`open_table(path).probe(text)` for any retro table answers what `retro probe NAME TEXT
--json` answers, field for field; and the package is one wheel for every CPython from 3.9."""

import json
import subprocess
from pathlib import Path

import pytest

import retro_tablebase
from retro_tablebase import InvalidPositionError

# (table, positions in its notation)
CASES = [
    ("kbnk", ["8/8/8/8/8/2k5/8/KBN5 w - - 0 1", "8/8/8/8/8/2k5/8/KBN5 b - - 0 1", "k7/8/1K6/8/8/8/8/5BN1 w"]),
    ("mnk-3x3-3", ["........./", ".../.../...", "x../.o./...", "xo./.x./..o", "xxx/oo./..."]),
    ("KQvKR", ["8/8/8/8/8/2k5/8/KQ5r w - - 0 1", "8/8/2k5/1r6/8/8/8/2KQ4 b - - 0 1"]),
]


def cli(retro_bin: str, tables: str, name: str, text: str) -> subprocess.CompletedProcess:
    return subprocess.run([retro_bin, "probe", name, text, "--tables", tables, "--json"], capture_output=True, text=True)


@pytest.mark.parametrize("name,positions", CASES)
def test_probe_answers_as_the_cli(name: str, positions: list, games_dir: str, dense_dir: str, retro_bin: str) -> None:
    folder = dense_dir if name.startswith("K") else games_dir
    table = retro_tablebase.open_table(str(Path(folder) / f"{name}.rtb"))
    assert table.name == name
    assert table.game == ("chess" if name.startswith("K") else name.split("-")[0])
    assert table.title
    answered = 0
    for text in positions:
        run = cli(retro_bin, folder, name, text)
        if run.returncode == 0:
            assert table.probe(text) == json.loads(run.stdout), text
            assert table.probe_json(text) == run.stdout.strip()
            answered += 1
        else:
            # The CLI refuses it: so does the package, with the same reason.
            with pytest.raises(InvalidPositionError) as e:
                table.probe(text)
            assert str(e.value).split(": ", 1)[1] in run.stdout + run.stderr, (text, run.stdout, run.stderr)
    assert answered >= len(positions) - 1


def test_open_table_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        retro_tablebase.open_table(str(tmp_path / "KQvK.rtb"))
    junk = tmp_path / "KQvK.rtb"
    junk.write_bytes(b"not a table" * 100)
    with pytest.raises(OSError, match="KQvK.rtb"):
        retro_tablebase.open_table(str(junk))


def test_one_wheel_for_every_cpython_from_3_9() -> None:
    # The extension module is built against Python's stable ABI (abi3).
    extension = Path(retro_tablebase._retro.__file__).name
    assert extension.endswith(".abi3.so"), extension
    metadata = subprocess.run(
        [__import__("sys").executable, "-c", "import importlib.metadata as m; print(m.metadata('retro-tablebase')['Requires-Python'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert metadata.stdout.strip() == ">=3.9"
