#!/usr/bin/env bash
# Install what vm/numavm.py needs to boot a NUMA test VM under qemu (TCG):
#   - qemu-system-x86_64            (Debian package qemu-system-x86, via apt-get)
#   - a Debian amd64 kernel image   -> $CACHE/vmlinuz   (from linux-image-6.x-amd64)
#   - a static busybox              -> $CACHE/busybox   (from busybox-static)
# CACHE is $NUMAPLACE_VM_CACHE, default vm/.cache next to this script.
#
# Idempotent and non-interactive: a second run only checks that the files are
# there and exits 0 within a fraction of a second.  On failure it prints ONE
# line on stderr saying what is missing and exits non-zero (details of the
# failed apt-get command are in $CACHE/setup.log).
set -u
export DEBIAN_FRONTEND=noninteractive

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${NUMAPLACE_VM_CACHE:-$here/.cache}"
log="$cache/setup.log"

die() { echo "vm/setup.sh: $*" >&2; exit 1; }

have_qemu() { command -v qemu-system-x86_64 >/dev/null 2>&1; }
have_kernel() { [ -s "$cache/vmlinuz" ]; }
have_busybox() { [ -x "$cache/busybox" ]; }
# Uncompressed kernel (ELF, booted via PVH: ~3 s faster under TCG); optional,
# made by numavm.py from vmlinuz, which it falls back to if this is missing.
have_vmlinux() { [ -s "$cache/vmlinux" ] || ! command -v python3 >/dev/null 2>&1; }

# The dax/kmem modules a tiered VM loads (numavm.run(kmem=True)); optional: "none" in the
# directory records why they could not be had, so a later run does not try again.
kmods="device_dax dax_hmem kmem"
have_modules() {
    [ -s "$cache/modules/none" ] && return 0
    local m; for m in $kmods; do [ -s "$cache/modules/$m.ko" ] || return 1; done
}

# Fast path: everything already in place.
if have_qemu && have_kernel && have_busybox && have_vmlinux && have_modules; then
    exit 0
fi

mkdir -p "$cache" 2>/dev/null || die "cannot create cache directory $cache"
: >"$log" 2>/dev/null || die "cannot write to cache directory $cache"

if ! command -v apt-get >/dev/null 2>&1; then
    missing=""
    have_qemu || missing="$missing qemu-system-x86_64"
    have_kernel || missing="$missing $cache/vmlinuz"
    have_busybox || missing="$missing $cache/busybox"
    die "missing:$missing; apt-get not found (not Debian/Ubuntu), install qemu-system-x86_64 and put a bzImage at $cache/vmlinuz and a static busybox at $cache/busybox by hand"
fi

# Run privileged commands directly as root, else through non-interactive sudo.
if [ "$(id -u)" -eq 0 ]; then
    SUDO=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
else
    SUDO=(false)
fi

updated=0
apt_update() {
    [ "$updated" -eq 1 ] && return 0
    updated=1
    "${SUDO[@]}" apt-get update -q >>"$log" 2>&1
}

# --- qemu -----------------------------------------------------------------
if ! have_qemu; then
    [ "${SUDO[*]}" = false ] && die "qemu-system-x86_64 missing and not root (no passwordless sudo): run 'apt-get install --no-install-recommends qemu-system-x86' as root"
    install=("${SUDO[@]}" apt-get install -y -q --no-install-recommends qemu-system-x86)
    if ! "${install[@]}" >>"$log" 2>&1; then
        apt_update
        "${install[@]}" >>"$log" 2>&1 || die "apt-get install qemu-system-x86 failed (see $log)"
    fi
    have_qemu || die "qemu-system-x86 installed but qemu-system-x86_64 not on PATH"
fi

# --- kernel image and busybox (downloaded as .deb, extracted, not installed) --
tmp="$(mktemp -d "$cache/dl.XXXXXX")" || die "cannot create a temporary directory in $cache"
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"   # lets apt's _apt user write there (avoids an unsandboxed-download warning)

kernel_pkg() {
    # linux-image-amd64 (Debian) is a metapackage depending on the versioned
    # image; linux-image-generic is Ubuntu's equivalent.
    local meta
    for meta in amd64 generic; do
        apt-cache depends "linux-image-$meta" 2>/dev/null |
            awk -v m="$meta" '$1 == "Depends:" && $2 ~ ("^linux-image-(unsigned-)?[0-9].*-" m "$") { print $2; f = 1; exit }
                              END { exit !f }' && return 0
    done
    return 1
}

download() {  # download PKG into $tmp, retrying once after apt-get update
    (cd "$tmp" && apt-get download "$1" >>"$log" 2>&1) && return 0
    apt_update
    (cd "$tmp" && apt-get download "$1" >>"$log" 2>&1)
}

if ! have_kernel; then
    pkg="$(kernel_pkg)"
    if [ -z "$pkg" ]; then
        apt_update
        pkg="$(kernel_pkg)"
    fi
    [ -n "$pkg" ] || die "kernel missing: cannot resolve linux-image-amd64 (or -generic) to a versioned kernel package with apt-cache (see $log)"
    download "$pkg" || die "kernel missing: apt-get download $pkg failed (see $log)"
    deb="$(ls "$tmp"/"$pkg"_*.deb 2>/dev/null | head -n1)"
    [ -n "$deb" ] || die "kernel missing: apt-get download $pkg produced no .deb"
    dpkg-deb -x "$deb" "$tmp/kernel" >>"$log" 2>&1 || die "kernel missing: cannot extract $deb"
    vmlinuz="$(ls "$tmp"/kernel/boot/vmlinuz-* 2>/dev/null | head -n1)"
    [ -n "$vmlinuz" ] || die "kernel missing: no boot/vmlinuz-* in $pkg"
    cp "$(ls "$tmp"/kernel/boot/config-* | head -n1)" "$cache/kernel-config" 2>/dev/null
    echo "$pkg $(dpkg-deb -f "$deb" Version)" >"$cache/kernel-version"
    cp "$vmlinuz" "$cache/vmlinuz.tmp" && mv "$cache/vmlinuz.tmp" "$cache/vmlinuz" ||
        die "kernel missing: cannot copy vmlinuz into $cache"
fi

# The dax/kmem modules, from the same kernel package (downloaded again if the kernel was
# already there); uncompressed .ko (busybox insmod), or .ko.xz unpacked here.
extract_modules() {
    local pkg ver deb m f
    ver="$(awk '{print $1}' "$cache/kernel-version" 2>/dev/null)"
    [ -n "$ver" ] || { echo "kernel package unknown (no $cache/kernel-version)"; return 1; }
    if [ ! -d "$tmp/kernel" ]; then
        download "$ver" || { echo "apt-get download $ver failed"; return 1; }
        deb="$(ls "$tmp"/"$ver"_*.deb 2>/dev/null | head -n1)"
        [ -n "$deb" ] && dpkg-deb -x "$deb" "$tmp/kernel" >>"$log" 2>&1 || { echo "cannot extract $ver"; return 1; }
    fi
    mkdir -p "$cache/modules.tmp"
    for m in $kmods; do
        f="$(find "$tmp/kernel/lib/modules" -name "$m.ko" -o -name "$m.ko.xz" 2>/dev/null | head -n1)"
        [ -n "$f" ] || { echo "$m.ko not in $ver (CONFIG_DEV_DAX_KMEM/DEV_DAX_HMEM not =m)"; return 1; }
        case "$f" in
            *.xz) xz -dc "$f" >"$cache/modules.tmp/$m.ko" || { echo "cannot unpack $f"; return 1; } ;;
            *) cp "$f" "$cache/modules.tmp/$m.ko" ;;
        esac
    done
    rm -rf "$cache/modules" && mv "$cache/modules.tmp" "$cache/modules"
}
if ! have_modules; then
    if ! why="$(extract_modules)"; then
        rm -rf "$cache/modules.tmp"; mkdir -p "$cache/modules"; echo "$why" >"$cache/modules/none"
        echo "vm/setup.sh: note: no dax/kmem modules ($why): tiered VMs (kmem=True) are unavailable" >&2
    fi
fi

if ! have_busybox; then
    download busybox-static || die "busybox missing: apt-get download busybox-static failed (see $log)"
    deb="$(ls "$tmp"/busybox-static_*.deb 2>/dev/null | head -n1)"
    [ -n "$deb" ] || die "busybox missing: apt-get download busybox-static produced no .deb"
    dpkg-deb -x "$deb" "$tmp/busybox" >>"$log" 2>&1 || die "busybox missing: cannot extract $deb"
    [ -x "$tmp/busybox/bin/busybox" ] || die "busybox missing: no bin/busybox in busybox-static"
    cp "$tmp/busybox/bin/busybox" "$cache/busybox.tmp" && mv "$cache/busybox.tmp" "$cache/busybox" ||
        die "busybox missing: cannot copy busybox into $cache"
fi

# The guest needs these built in (there is no module loading in the initramfs).
if [ -s "$cache/kernel-config" ]; then
    for opt in NUMA ACPI_NUMA MIGRATION NUMA_BALANCING SERIAL_8250_CONSOLE DEVTMPFS TMPFS BLK_DEV_INITRD; do
        grep -qx "CONFIG_$opt=y" "$cache/kernel-config" ||
            { rm -f "$cache/vmlinuz"; die "kernel $(cat "$cache/kernel-version" 2>/dev/null) lacks built-in CONFIG_$opt"; }
    done
fi

have_qemu && have_kernel && have_busybox || die "setup incomplete (see $log)"
if ! have_vmlinux; then
    NUMAPLACE_VM_CACHE="$cache" python3 "$here/numavm.py" --prepare-kernel >>"$log" 2>&1 ||
        echo "vm/setup.sh: note: could not extract vmlinux (boots will use the slower bzImage)" >&2
fi
exit 0
