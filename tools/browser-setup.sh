#!/usr/bin/env bash
# Install headless Chromium for the report's browser test (python/tests/test_report_browser.py):
#   - chromium   (Debian package chromium, via apt-get)
#
# Idempotent and non-interactive: when chromium is already on PATH it exits 0 at once.
# On failure it prints ONE line on stderr saying what is missing and exits non-zero
# (the output of the failed apt-get command is in $NUMAPLACE_BROWSER_LOG, default
# ${TMPDIR:-/tmp}/numaplace-browser-setup.log). Runs apt-get as root, else through sudo -n.
set -u
export DEBIAN_FRONTEND=noninteractive

log="${NUMAPLACE_BROWSER_LOG:-${TMPDIR:-/tmp}/numaplace-browser-setup.log}"
die() { echo "tools/browser-setup.sh: $*" >&2; exit 1; }
have_chromium() { command -v chromium >/dev/null 2>&1; }

# Fast path: already installed.
have_chromium && exit 0

command -v apt-get >/dev/null 2>&1 ||
    die "chromium missing and apt-get not found (not Debian/Ubuntu): install Chromium so that 'chromium' is on PATH"
: >"$log" 2>/dev/null || die "cannot write the log file $log"

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
else
    die "chromium missing and not root (no passwordless sudo): run 'apt-get install --no-install-recommends chromium' as root"
fi

install=("${SUDO[@]}" apt-get install -y -q --no-install-recommends chromium)
if ! "${install[@]}" >>"$log" 2>&1; then
    "${SUDO[@]}" apt-get update -q >>"$log" 2>&1
    "${install[@]}" >>"$log" 2>&1 || die "apt-get install chromium failed (see $log)"
fi
have_chromium || die "package chromium installed but 'chromium' is not on PATH"
exit 0
