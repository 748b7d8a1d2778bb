#!/usr/bin/env bash
# Installs what the Python package's test and bench need (tests/integration/python.rs,
# benches/python_probe.py): a virtual environment at target/python-venv with maturin, python-chess
# and pytest, pinned (python/requirements-test.txt), and Debian's Gaviota tables of the 3-piece
# endgames (package gaviotatb, in /usr/share/gaviotatb), which python-chess's own Gaviota
# prober reads to check retro's answers against. The package itself is built and installed
# by the test, from the checkout. Does nothing when all is there.
# Needs python3 with its venv module (Debian: python3-venv), apt-get (root or sudo) and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${RETRO_PYTHON_VENV:-target/python-venv}"
REQUIREMENTS=python/requirements-test.txt
GAVIOTA=/usr/share/gaviotatb/gtb4

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
apt_install() {
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "install-python-package.sh: apt-get not found; install Debian's $* by hand" >&2
        exit 1
    fi
    echo "install-python-package.sh: installing $* with apt-get" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

if [ ! -f "$GAVIOTA/kqk.gtb.cp4" ]; then
    apt_install gaviotatb
fi

# The requirements file as last installed, kept beside the environment.
STAMP="$VENV/retro-requirements.txt"
if [ -x "$VENV/bin/python" ] && cmp -s "$REQUIREMENTS" "$STAMP"; then
    exit 0
fi
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    apt_install python3 python3-venv
fi
echo "install-python-package.sh: installing maturin, python-chess and pytest into $VENV" >&2
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
"$VENV/bin/python" -c "import importlib.metadata as m; print(*(p + ' ' + m.version(p) for p in ('maturin', 'chess', 'pytest')), sep=', ')"
cp "$REQUIREMENTS" "$STAMP"
