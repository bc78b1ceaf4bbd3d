#!/usr/bin/env bash
# Install the compilers and OpenMP runtimes `numaplace cc` / `numaplace record` need
# (python/tests/test_record.py; docs/record.md):
#   - clang       (Debian package clang; bookworm: clang 14, with ThreadSanitizer's pass for
#                  atomics and memory intrinsics; numaplace's pass plugin does the rest)
#   - libomp-dev  (LLVM's OpenMP runtime, libomp, for clang -fopenmp=libomp)
#   - gcc         (GCC, with libgomp and -fsanitize=thread, for --openmp libgomp; in build-essential)
#   - valgrind    (with its tool headers and libraries: the recorder's independent reference,
#                  tools/reftrace/, is a Valgrind tool built by its test)
#   - llvm-N-dev  (LLVM's headers for clang's version N, bookworm: llvm-14-dev: `numaplace cc`
#                  builds the recorder's pass plugin, crates/record/pass/, against them)
#
# Idempotent and non-interactive: when clang and gcc are on PATH, clang links against libomp and
# LLVM's plugin headers for clang's version are installed it exits 0 at once. On failure it
# prints ONE line on stderr saying what is missing and exits non-zero (the output of the failed
# apt-get command is in $NUMAPLACE_RECORD_LOG, default
# target/setup/record-setup.log in this checkout, not a fixed name in /tmp, where a link
# planted under it would redirect a root shell's write). Runs apt-get as root, else through sudo -n.
set -u
export DEBIAN_FRONTEND=noninteractive

log="${NUMAPLACE_RECORD_LOG:-$(cd "$(dirname "$0")/.." && pwd)/target/setup/record-setup.log}"
mkdir -p "$(dirname "$log")" 2>/dev/null || true
packages=(clang libomp-dev gcc)
die() { echo "tools/record-setup.sh: $*" >&2; exit 1; }
clang_major() { clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n 1; }
have_llvm_dev() {
    local major config
    major=$(clang_major)
    [ -n "$major" ] || return 1
    config=$(command -v "llvm-config-$major" || true)
    [ -n "$config" ] && [ -f "$("$config" --includedir)/llvm/Passes/PassPlugin.h" ]
}
have_compilers() {
    command -v clang >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1 &&
        echo 'int main(void){return 0;}' | clang -fopenmp=libomp -x c - -o /dev/null >/dev/null 2>&1
}

have_valgrind() {
    command -v valgrind >/dev/null 2>&1 && [ -f /usr/include/valgrind/pub_tool_basics.h ]
}

# Fast path: already installed.
have_compilers && have_llvm_dev && have_valgrind && exit 0

. "$(dirname "$0")/apt-install.sh"
have_compilers || apt_install clang/libomp "${packages[@]}"
have_compilers || die "packages ${packages[*]} installed but clang cannot link an OpenMP program against libomp (see $log)"
major=$(clang_major)
[ -n "$major" ] || die "clang --version names no version"
have_llvm_dev || apt_install "LLVM $major's headers" "llvm-$major-dev"
have_llvm_dev || die "llvm-$major-dev installed but llvm-config-$major finds no llvm/Passes/PassPlugin.h (see $log)"
have_valgrind || apt_install "Valgrind (the recorder's reference tracer)" valgrind
have_valgrind || die "valgrind installed but its tool headers (/usr/include/valgrind/pub_tool_basics.h) are missing (see $log)"
exit 0
