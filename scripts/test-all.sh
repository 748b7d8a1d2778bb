#!/usr/bin/env bash
# Every test of the project, as CI runs it: formatting, lints, then all unit, property,
# integration and browser tests. Installs the browser the end-to-end test needs (Debian's
# chromium and chromium-driver), the Python Lichess client the Lichess-API test drives
# (berserk, in target/lichess-venv), the engine the distributed test drives (Dask, pinned,
# in target/dask-venv) and what the Python package's test builds and checks it with
# (maturin, python-chess and pytest in target/python-venv, Debian's Gaviota tables) when
# they are missing, so no test is ever skipped.
#
# Lints and tests share one release build. `cargo clippy` builds every dependency a second
# time (in check mode, which a test build cannot reuse); instead, clippy's driver compiles
# this package's own crates for the test build itself (as `cargo clippy` does, through
# RUSTC_WORKSPACE_WRAPPER), linting them with -D warnings, while the dependencies are
# compiled once by rustc. The same as `cargo clippy --release --workspace --lib --bins --tests
# --examples --all-features -- -D warnings`, and `cargo test` then only runs what was built.
# The benchmarks are left to `cargo bench` (and `cargo clippy --all-targets`): they run no
# test, and building them took a minute of the command's CPU (`cargo build --timings`).
#
# The installers (apt-get, pip: mostly waiting on the network) run one after another, since
# two apt-gets cannot run at once, in the background while the build uses the cores; the
# tests start only once they have all succeeded.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p target
install_log=target/install.log
(
    bash scripts/install-browser.sh
    bash scripts/install-lichess-client.sh
    bash scripts/install-dask.sh
    bash scripts/install-python-package.sh
) >"$install_log" 2>&1 &
installers=$!
cargo fmt --all --check
driver="$(rustc --print sysroot)/bin/clippy-driver"
if [ ! -x "$driver" ]; then
    echo "test-all.sh: clippy is not installed (rustup component add clippy)" >&2
    exit 1
fi
export RUSTC_WORKSPACE_WRAPPER="$driver"
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
cargo build --release --workspace --lib --bins --tests --examples --all-features
if ! wait "$installers"; then
    cat "$install_log" >&2
    echo "test-all.sh: installing what the tests need failed (above)" >&2
    exit 1
fi
cat "$install_log"
# The unit tests (about 20 s of CPU, mostly on one core) run beside the integration tests,
# which leave part of the second core idle while they wait on subprocesses and the browser.
# Cargo holds its build lock only while building, so the two runs do not wait on each other.
unit_log=target/unit-tests.log
(
    cargo test --release --workspace --all-features --lib --bins
    cargo test --release --workspace --all-features --doc
) >"$unit_log" 2>&1 &
unit=$!
status=0
integration_log=target/integration-tests.log
# `--workspace`, as the build: features are unified over the same packages (the Python
# package's crate included), so nothing is compiled again.
cargo test --release --workspace --all-features --test integration 2>&1 | tee "$integration_log" || status=$?
if ! wait "$unit"; then
    status=1
fi
cat "$unit_log"
# One line over everything that ran: the sum of every test binary's result line (a run
# that failed without one, a crashed binary, counts as one failure).
awk -v status="$status" '
    /^test result:/ {
        for (i = 2; i <= NF; i++) {
            if ($i ~ /^passed;?$/) passed += $(i - 1)
            if ($i ~ /^failed;?$/) failed += $(i - 1)
        }
    }
    END {
        if (status != 0 && failed == 0) failed = 1
        printf "%d passed, %d failed\n", passed, failed
    }' "$integration_log" "$unit_log"
exit "$status"
