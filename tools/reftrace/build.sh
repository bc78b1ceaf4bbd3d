#!/bin/sh
# Builds npref, numaplace's reference tracer (a Valgrind tool), into DIR (default
# target/reftrace under the repository): DIR/npref-amd64-linux, DIR/vgpreload_npref-amd64-linux.so,
# and DIR/lib, a Valgrind library directory (VALGRIND_LIB) holding the installed Valgrind's
# files plus npref's. Run:  VALGRIND_LIB=DIR/lib valgrind --tool=npref --out=FILE -- PROG ARGS
# Needs Valgrind's tool headers and static libraries (Debian: valgrind) and gcc.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-$root/target/reftrace}
inc=${VALGRIND_INCLUDE:-/usr/include/valgrind}
vglib=${VALGRIND_LIBDIR:-/usr/lib/x86_64-linux-gnu/valgrind}
vgexec=${VALGRIND_EXECDIR:-/usr/libexec/valgrind}
ompinc=${OMPT_INCLUDE:-}
if [ -z "$ompinc" ]; then
    for d in /usr/lib/llvm-*/lib/clang/*/include /usr/lib/gcc/x86_64-linux-gnu/*/include; do
        [ -f "$d/omp-tools.h" ] && ompinc=$d
    done
fi
[ -f "$inc/pub_tool_basics.h" ] || { echo "build.sh: Valgrind's tool headers not found in $inc" >&2; exit 1; }
[ -f "$vglib/libcoregrind-amd64-linux.a" ] || { echo "build.sh: libcoregrind-amd64-linux.a not found in $vglib" >&2; exit 1; }
[ -n "$ompinc" ] || { echo "build.sh: omp-tools.h not found (install clang or libomp-dev)" >&2; exit 1; }
mkdir -p "$out/lib"
defs="-DVGA_amd64=1 -DVGO_linux=1 -DVGP_amd64_linux=1 -DVGPV_amd64_linux_vanilla=1"
# The tool: a static executable linked against Valgrind's core, loaded at Valgrind's tool
# address (as Valgrind's own Makefile.tool.am links its tools).
gcc -O2 -g -m64 -std=gnu99 $defs -I"$inc" -I"$here" -fno-stack-protector -fno-strict-aliasing -fno-builtin \
    -fno-pie -fno-pic -fomit-frame-pointer -Wall -Wno-unused-function \
    -c "$here/npref_main.c" -o "$out/npref_main.o"
gcc -m64 -o "$out/npref-amd64-linux" "$out/npref_main.o" -static -nodefaultlibs -nostartfiles -u _start \
    -no-pie -Wl,--build-id=none -Wl,-Ttext-segment=0x58000000 \
    "$vglib/libcoregrind-amd64-linux.a" "$vglib/libvex-amd64-linux.a" "$vglib/libgcc-sup-amd64-linux.a" -lgcc
# The preload: allocation wrappers and the OMPT tool.
gcc -O1 -g -fPIC -shared -I"$here" -idirafter "$ompinc" -fno-omit-frame-pointer -Wall \
    "$here/npref_preload.c" -o "$out/vgpreload_npref-amd64-linux.so"
# VALGRIND_LIB: the installed files (default.supp, vgpreload_core, the other tools) and npref's.
for f in "$vgexec"/*; do
    ln -sf "$f" "$out/lib/$(basename "$f")"
done
ln -sf "$out/npref-amd64-linux" "$out/lib/npref-amd64-linux"
ln -sf "$out/vgpreload_npref-amd64-linux.so" "$out/lib/vgpreload_npref-amd64-linux.so"
echo "$out"
