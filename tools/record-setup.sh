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

command -v apt-get >/dev/null 2>&1 ||
    die "clang/libomp missing and apt-get not found (not Debian/Ubuntu): install clang (with trace-loads, clang >= 14), LLVM's libomp and gcc"
: >"$log" 2>/dev/null || die "cannot write the log file $log"

if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
else
    die "clang/libomp missing and not root (no passwordless sudo): run 'apt-get install --no-install-recommends ${packages[*]}' as root"
fi

install=("${SUDO[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}")
if ! "${install[@]}" >>"$log" 2>&1; then
    "${SUDO[@]}" apt-get update -q >>"$log" 2>&1
    "${install[@]}" >>"$log" 2>&1 || die "apt-get install ${packages[*]} failed (see $log)"
fi
have_all || die "packages ${packages[*]} installed but clang cannot link an OpenMP program against libomp (see $log)"
exit 0
