#!/usr/bin/env bash
# Installs the browser the end-to-end test drives (tests/integration/browser.rs): Debian's chromium and
# chromium-driver. Does nothing when both are already there. Needs root (or sudo) and apt-get.
set -euo pipefail

if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser.sh: apt-get not found; install Chromium and its chromedriver by hand" >&2
    echo "(the test looks for /usr/bin/chromium and /usr/bin/chromedriver)" >&2
    exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi

echo "install-browser.sh: installing chromium and chromium-driver with apt-get" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    chromium chromium-driver fonts-dejavu-core >/dev/null
/usr/bin/chromium --version
/usr/bin/chromedriver --version
