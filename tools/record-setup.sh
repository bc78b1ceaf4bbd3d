#!/usr/bin/env bash
# Install the compilers and OpenMP runtimes `numaplace cc` / `numaplace record` need
# (python/tests/test_record.py; docs/record.md):
#   - clang       (Debian package clang; bookworm: clang 14, whose -fsanitize-coverage has
#                  trace-loads and trace-stores)
#   - libomp-dev  (LLVM's OpenMP runtime, libomp, for clang -fopenmp=libomp)
#   - gcc         (GCC, with libgomp and -fsanitize=thread, for --openmp libgomp; in build-essential)
#
# Idempotent and non-interactive: when clang and gcc are on PATH and clang links against libomp
# it exits 0 at once. On failure it prints ONE line on stderr saying what is missing and exits
# non-zero (the output of the failed apt-get command is in $NUMAPLACE_RECORD_LOG, default
# ${TMPDIR:-/tmp}/numaplace-record-setup.log). Runs apt-get as root, else through sudo -n.
set -u
export DEBIAN_FRONTEND=noninteractive

log="${NUMAPLACE_RECORD_LOG:-${TMPDIR:-/tmp}/numaplace-record-setup.log}"
packages=(clang libomp-dev gcc)
die() { echo "tools/record-setup.sh: $*" >&2; exit 1; }
have_all() {
    command -v clang >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1 &&
        echo 'int main(void){return 0;}' | clang -fopenmp=libomp -x c - -o /dev/null >/dev/null 2>&1
}

# Fast path: already installed.
have_all && exit 0

. "$(dirname "$0")/apt-install.sh"
apt_install clang/libomp "${packages[@]}"
have_all || die "packages ${packages[*]} installed but clang cannot link an OpenMP program against libomp (see $log)"
exit 0
