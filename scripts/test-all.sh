#!/usr/bin/env bash
# Every test of the project, as CI runs it: formatting, lints, then all unit, property,
# integration and browser tests. Installs the browser the end-to-end test needs (Debian's
# chromium and chromium-driver) when it is missing, so no test is ever skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-browser.sh
cargo fmt --check
cargo clippy --release --all-targets -- -D warnings
cargo test --release
