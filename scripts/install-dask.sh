#!/usr/bin/env bash
# Installs the engine the distributed test and benchmark drive (tests/integration/distributed.rs,
# benches/distributed.rs): Dask distributed, pinned, into a virtual environment under
# target/dask-venv. Does nothing when that environment already has the pinned versions.
# Needs python3 with its venv module (Debian: python3-venv, installed here with apt-get when
# missing) and PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV="${RETRO_DASK_VENV:-target/dask-venv}"
REQUIREMENTS=runners/dask/requirements.txt

# The requirements file as last installed, kept beside the environment.
STAMP="$VENV/retro-requirements.txt"
if [ -x "$VENV/bin/dask" ] && cmp -s "$REQUIREMENTS" "$STAMP"; then
    exit 0
fi

if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "install-dask.sh: python3 with its venv module is needed (and apt-get is not here to install it)" >&2
        exit 1
    fi
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        SUDO="sudo"
    fi
    echo "install-dask.sh: installing python3-venv with apt-get" >&2
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        python3 python3-venv >/dev/null
fi

echo "install-dask.sh: installing Dask distributed into $VENV" >&2
rm -rf "$VENV"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
"$VENV/bin/dask" --version
cp "$REQUIREMENTS" "$STAMP"
