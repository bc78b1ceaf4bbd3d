#!/usr/bin/env bash
# Install headless Chromium for the report's browser test (python/tests/test_report_browser.py):
#   - chromium   (Debian package chromium, via apt-get)
#
# Idempotent and non-interactive: when chromium is already on PATH it exits 0 at once.
# On failure it prints ONE line on stderr saying what is missing and exits non-zero
# (the output of the failed apt-get command is in $NUMAPLACE_BROWSER_LOG, default
# target/setup/browser-setup.log in this checkout, not a fixed name in /tmp, where a link
# planted under it would redirect a root shell's write). Runs apt-get as root, else through sudo -n.
set -u
export DEBIAN_FRONTEND=noninteractive

log="${NUMAPLACE_BROWSER_LOG:-$(cd "$(dirname "$0")/.." && pwd)/target/setup/browser-setup.log}"
mkdir -p "$(dirname "$log")" 2>/dev/null || true
die() { echo "tools/browser-setup.sh: $*" >&2; exit 1; }
have_chromium() { command -v chromium >/dev/null 2>&1; }

# Fast path: already installed.
have_chromium && exit 0

. "$(dirname "$0")/apt-install.sh"
apt_install chromium chromium
have_chromium || die "package chromium installed but 'chromium' is not on PATH"
exit 0
