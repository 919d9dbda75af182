#!/usr/bin/env bash
# Headless Chromium for the web pages' browser tests (tests/web), from the Debian packages,
# as .ci/postgres.sh installs PostgreSQL: nothing is downloaded at test time (Playwright drives
# this executable; `playwright install` is never run).
#
#   bash .ci/chromium.sh        # installs chromium when /usr/bin/chromium is missing
#
# Diagnostics go to stderr; idempotent (a second call only checks the file).
set -euo pipefail

BROWSER=/usr/bin/chromium

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

if [ ! -x "$BROWSER" ]; then
    echo "chromium.sh: $BROWSER not found; installing chromium from the Debian packages" >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >&2
fi
"$BROWSER" --version >&2
