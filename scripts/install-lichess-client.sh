#!/usr/bin/env bash
# Installs the Lichess client the Lichess-API test drives (tests/integration/lichess_api.rs):
# Python's `berserk`, pinned, in a virtual environment at target/lichess-venv. Does nothing
# when it is already there. Installs Debian's python3 and python3-venv with apt-get if
# Python cannot make a virtual environment (needs root or sudo then).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=target/lichess-venv
BERSERK=0.14.0

if [ -x "$VENV/bin/python" ] &&
    "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('berserk') != '$BERSERK')" 2>/dev/null; then
    exit 0
fi

make_venv() {
    rm -rf "$VENV"
    command -v python3 >/dev/null 2>&1 && python3 -m venv "$VENV" >/dev/null 2>&1
}

# Debian's python3 makes virtual environments only with python3-venv installed.
if ! make_venv; then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "install-lichess-client.sh: python3 cannot make a virtual environment and apt-get is not found; install python3 and python3-venv by hand" >&2
        exit 1
    fi
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        SUDO="sudo"
    fi
    echo "install-lichess-client.sh: installing python3 and python3-venv with apt-get" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        python3 python3-venv >/dev/null
    rm -rf "$VENV"
    python3 -m venv "$VENV"
fi

echo "install-lichess-client.sh: installing berserk $BERSERK into $VENV" >&2
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "berserk==$BERSERK"
"$VENV/bin/python" -c "import berserk, importlib.metadata as m; print('berserk', m.version('berserk'))"
