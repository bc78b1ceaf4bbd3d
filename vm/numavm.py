#!/usr/bin/env python3
"""Run a shell script inside a throw-away multi-node NUMA Linux VM (qemu, TCG).

The guest is a Debian kernel booted straight into an initramfs built here:
static busybox for the shell and tools, plus whatever host files the caller
passes in (ELF executables and shared libraries bring the host shared
libraries they need, so host-built binaries run unchanged).  The VM runs the
script once, prints its exit status after an end marker and powers off.

    import numavm
    res = numavm.run("cat /sys/devices/system/node/online",
                     nodes=4, numa_balancing=False)
    res.rc, res.output, res.boot_seconds, res.total_seconds

CLI:  python3 vm/numavm.py [--nodes 4] [--numa-balancing] \
          [--file HOST[:GUEST]]... -- 'shell command'

Needs qemu-system-x86_64 on PATH, and vmlinuz + busybox in the cache
directory ($NUMAPLACE_VM_CACHE, default vm/.cache); vm/setup.sh installs all
three.  Python standard library only.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
QEMU = "qemu-system-x86_64"

__all__ = ["Result", "VMError", "VMUnavailable", "available", "cache_dir", "run"]


class VMError(RuntimeError):
    """The VM could not run the script.  str() is one line; .detail has the
    last console lines (or other diagnostics) when there are any."""

    def __init__(self, message: str, detail: str = ""):
        super().__init__(message)
        self.detail = detail


class VMUnavailable(VMError):
    """qemu, the kernel image or busybox is missing (run vm/setup.sh)."""


@dataclasses.dataclass
class Result:
    rc: int
    output: str
    boot_seconds: float
    total_seconds: float
    console: str = dataclasses.field(default="", repr=False)


def cache_dir() -> Path:
    return Path(os.environ.get("NUMAPLACE_VM_CACHE") or HERE / ".cache")


def _missing() -> str | None:
    cache = cache_dir()
    if shutil.which(QEMU) is None:
        return f"{QEMU} not found on PATH; vm/setup.sh installs it (apt package qemu-system-x86)"
    if not (cache / "vmlinuz").is_file():
        return f"kernel image {cache / 'vmlinuz'} missing; vm/setup.sh fetches it (Debian linux-image-amd64)"
    if not os.access(cache / "busybox", os.X_OK):
        return f"static busybox {cache / 'busybox'} missing; vm/setup.sh fetches it (Debian busybox-static)"
    return None


def _extract_vmlinux(bzimage: bytes) -> bytes | None:
    """The uncompressed ELF vmlinux inside a bzImage (xz or gzip payload), or None."""
    import gzip
    import lzma
    import zlib
    for magic, make in ((b"\xfd7zXZ\x00", lambda: lzma.LZMADecompressor()),
                        (b"\x1f\x8b\x08\x00", lambda: zlib.decompressobj(16 + zlib.MAX_WBITS))):
        start = 0
        while (i := bzimage.find(magic, start)) >= 0:
            start = i + 1
            try:
                out = make().decompress(bzimage[i:])
            except (lzma.LZMAError, zlib.error, gzip.BadGzipFile, EOFError):
                continue
            if out[:4] == b"\x7fELF":
                return out
    return None


def _has_pvh_note(elf: bytes) -> bool:
    """Whether a 64-bit ELF has the Xen PHYS32_ENTRY note qemu needs to boot it (PVH)."""
    le = lambda a, b: int.from_bytes(elf[a:b], "little")  # noqa: E731
    if elf[:4] != b"\x7fELF" or elf[4] != 2:
        return False
    phoff, phentsize, phnum = le(32, 40), le(54, 56), le(56, 58)
    for k in range(phnum):
        ph = phoff + k * phentsize
        if le(ph, ph + 4) != 4:  # PT_NOTE
            continue
        off, size = le(ph + 8, ph + 16), le(ph + 32, ph + 40)
        pos = off
        while pos + 12 <= off + size:
            namesz, descsz, ntype = le(pos, pos + 4), le(pos + 4, pos + 8), le(pos + 8, pos + 12)
            name = elf[pos + 12:pos + 12 + namesz]
            if name.rstrip(b"\0") == b"Xen" and ntype == 18:  # XEN_ELFNOTE_PHYS32_ENTRY
                return True
            pos += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False


def prepare_kernel() -> Path:
    """Kernel file to pass to qemu -kernel.

    Booting the uncompressed ELF vmlinux through its PVH entry point skips the
    in-guest xz decompression of the bzImage, which under TCG takes ~3 of the
    ~5.5 s boot.  The ELF is extracted once into the cache (vmlinux); if that
    is impossible (unknown compression, read-only cache) the bzImage is used.
    """
    cache = cache_dir()
    bz, elf = cache / "vmlinuz", cache / "vmlinux"
    try:
        if elf.is_file() and elf.stat().st_mtime >= bz.stat().st_mtime:
            return elf
        data = _extract_vmlinux(bz.read_bytes())
        if data is None or not _has_pvh_note(data):
            return bz
        fd, tmp = tempfile.mkstemp(dir=cache, prefix="vmlinux.")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, elf)
        return elf
    except OSError:
        return bz


def available() -> tuple[bool, str]:
    """(True, "") when run() can boot a VM, else (False, what is missing)."""
    why = _missing()
    return (why is None, why or "")


# --------------------------------------------------------------------------
# initramfs (newc cpio written here; no dependency on the cpio tool)


class _Cpio:
    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.ino = 1
        self.size = 0

    def _add(self, name: str, mode: int, data: bytes = b"", rdev: tuple[int, int] = (0, 0)) -> None:
        name_b = name.encode() + b"\0"
        fields = [self.ino, mode, 0, 0, 1 if not stat.S_ISDIR(mode) else 2, 0,
                  len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0]
        self.ino += 1
        hdr = b"070701" + b"".join(b"%08X" % f for f in fields)
        rec = hdr + name_b
        rec += b"\0" * (-len(rec) % 4)
        rec += data
        rec += b"\0" * (-len(rec) % 4)
        self.chunks.append(rec)
        self.size += len(rec)

    def dir(self, name: str) -> None:
        self._add(name, stat.S_IFDIR | 0o755)

    def file(self, name: str, data: bytes, perm: int = 0o644) -> None:
        self._add(name, stat.S_IFREG | perm, data)

    def symlink(self, name: str, target: str) -> None:
        self._add(name, stat.S_IFLNK | 0o777, target.encode())

    def chardev(self, name: str, major: int, minor: int, perm: int = 0o600) -> None:
        self._add(name, stat.S_IFCHR | perm, rdev=(major, minor))

    def finish(self) -> bytes:
        self._add("TRAILER!!!", 0)
        out = b"".join(self.chunks)
        return out + b"\0" * (-len(out) % 512)


def _is_dynamic_elf(path: str) -> bool:
    """ELF with a PT_DYNAMIC segment (dynamic executable or shared library)."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
                return False  # only 64-bit little-endian (x86_64) ELF
            phoff = int.from_bytes(head[32:40], "little")
            phentsize = int.from_bytes(head[54:56], "little")
            phnum = int.from_bytes(head[56:58], "little")
            f.seek(phoff)
            table = f.read(phentsize * phnum)
    except OSError:
        return False
    for i in range(phnum):
        if int.from_bytes(table[i * phentsize:i * phentsize + 4], "little") == 2:  # PT_DYNAMIC
            return True
    return False


_LDD_ARROW = re.compile(r"^\s*(\S+)\s+=>\s+(/\S+)\s+\(0x[0-9a-f]+\)\s*$")
_LDD_PLAIN = re.compile(r"^\s*(/\S+)\s+\(0x[0-9a-f]+\)\s*$")


def _shared_libs(path: str) -> list[str]:
    """Absolute paths of the shared libraries (and loader) `path` needs, per ldd."""
    try:
        proc = subprocess.run(["ldd", path], capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise VMError("ldd not found on the host; it is needed to bring shared libraries into the VM")
    if proc.returncode != 0:
        return []  # e.g. "not a dynamic executable"
    libs = []
    for line in proc.stdout.splitlines():
        if "=> not found" in line:
            raise VMError(f"{path}: shared library not found on the host: {line.strip()}")
        m = _LDD_ARROW.match(line) or _LDD_PLAIN.match(line)
        if m:
            libs.append(m.groups()[-1])
    return libs


_APPLETS_FALLBACK = [
    "bin/sh", "bin/cat", "bin/echo", "bin/ls", "bin/mkdir", "bin/mount", "bin/grep",
    "bin/sleep", "bin/dd", "bin/cp", "bin/rm", "bin/ln", "bin/sed", "sbin/poweroff",
    "usr/bin/awk", "usr/bin/head", "usr/bin/tail", "usr/bin/wc", "usr/bin/seq",
    "usr/bin/tr", "usr/bin/env", "usr/bin/nproc", "usr/bin/taskset", "usr/bin/free",
    "usr/bin/timeout", "usr/bin/md5sum", "usr/bin/sort", "usr/bin/uniq", "usr/bin/time",
]


def _applets(busybox: Path) -> list[str]:
    try:
        proc = subprocess.run([str(busybox), "--list-full"], capture_output=True, text=True, timeout=30)
        names = [n.strip() for n in proc.stdout.split() if n.strip()]
        if proc.returncode == 0 and "bin/sh" in names:
            return names
    except OSError:
        pass
    return _APPLETS_FALLBACK


_INIT = r"""#!/bin/busybox sh
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
# POSIX shared memory, as on any Linux host: LLVM's libomp registers itself with shm_open
/bin/busybox mkdir -p /dev/shm
/bin/busybox mount -t tmpfs tmpfs /dev/shm
# a fresh tmpfs on /tmp that keeps whatever files were copied to /tmp
/bin/busybox mkdir /numavm/tmpfs
/bin/busybox mount -t tmpfs tmpfs /numavm/tmpfs
/bin/busybox cp -a /tmp/. /numavm/tmpfs/
/bin/busybox mount -o move /numavm/tmpfs /tmp
echo {numa_balancing} > /proc/sys/kernel/numa_balancing
{kmem_setup}export HOME=/root TMPDIR=/tmp
{ld_path}
cd /
echo {begin}
/bin/sh /numavm/script.sh </dev/null 2>&1
rc=$?
printf '\n{end} rc=%d\n' "$rc"
/bin/busybox sync
/bin/busybox poweroff -f
"""


# The CPU-less nodes' soft-reserved RAM becomes system RAM through dax/kmem, as a CXL
# expander's or an Optane DIMM's does: dax_hmem makes a device-dax instance per soft-reserved
# range (on the range's node), kmem hot-adds it (memhp_default_state=online_movable onlines
# it) and ranks the node in a memory tier below DRAM (drivers/dax/kmem.c).  What happened is
# in /numavm/kmem.log; a failure also says so on the console.
_KMEM_SETUP = r"""(
for m in device_dax dax_hmem kmem; do
    /bin/busybox insmod /numavm/modules/$m.ko || echo "numavm: insmod $m.ko failed"
done
for d in /sys/bus/dax/devices/dax*; do
    [ -e "$d" ] || { echo "numavm: no dax device (dax_hmem claimed no soft-reserved range)"; break; }
    n=${d##*/}
    [ -e $d/driver ] && echo $n > $d/driver/unbind
    echo $n > /sys/bus/dax/drivers/kmem/new_id || echo "numavm: kmem did not take $n"
    echo "$n: node $(cat $d/target_node), $(cat $d/size) bytes, driver $(/bin/busybox readlink $d/driver)"
done
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do echo "${t##*/}: $(cat $t/nodelist)"; done
) > /numavm/kmem.log 2>&1
/bin/busybox grep numavm: /numavm/kmem.log
"""

KMEM_MODULES = ("device_dax", "dax_hmem", "kmem")


def _missing_kmem() -> str | None:
    mods = cache_dir() / "modules"
    absent = [m for m in KMEM_MODULES if not (mods / f"{m}.ko").is_file()]
    if absent:
        why = (mods / "none").read_text().strip() if (mods / "none").is_file() else "not extracted"
        return (f"kmem: kernel module(s) {', '.join(a + '.ko' for a in absent)} missing from {mods} "
                f"({why}); vm/setup.sh extracts them from the kernel package")
    return None


def _build_initramfs(script: str, files: dict[str, str], numa_balancing: int,
                     begin: str, end: str, kmem: bool = False) -> bytes:
    cache = cache_dir()
    busybox = cache / "busybox"
    entries: dict[str, tuple[str, object]] = {}  # guest path (no leading /) -> (kind, payload)

    for name in _applets(busybox):
        entries[name.lstrip("/")] = ("link", "/bin/busybox")
    entries["bin/busybox"] = ("host", str(busybox))

    lib_dirs: list[str] = []
    wanted: dict[str, str] = {}
    for guest, host in files.items():
        if not os.path.isfile(host):
            raise VMError(f"file to copy into the VM does not exist: {host}")
        wanted["/" + guest.lstrip("/")] = host
    for host in list(wanted.values()):
        if _is_dynamic_elf(host):
            for lib in _shared_libs(host):
                wanted.setdefault(lib, lib)
                d = os.path.dirname(lib)
                if d not in lib_dirs and d not in ("/lib64",):
                    lib_dirs.append(d)
    for guest, host in wanted.items():
        entries[guest.lstrip("/")] = ("host", host)

    ld_path = f"export LD_LIBRARY_PATH={':'.join(lib_dirs)}" if lib_dirs else ""
    if kmem:
        for m in KMEM_MODULES:
            entries[f"numavm/modules/{m}.ko"] = ("host", str(cache / "modules" / f"{m}.ko"))
    init = _INIT.format(numa_balancing=int(numa_balancing), ld_path=ld_path, begin=begin, end=end,
                        kmem_setup=_KMEM_SETUP if kmem else "")
    entries["init"] = ("data", (init.encode(), 0o755))
    entries["numavm/script.sh"] = ("data", (script.encode(), 0o755))

    dirs = {"proc", "sys", "dev", "tmp", "root", "bin", "sbin", "usr", "usr/bin", "usr/sbin", "numavm"}
    for name in entries:
        parts = name.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))

    cpio = _Cpio()
    for d in sorted(dirs, key=lambda p: (p.count("/"), p)):
        cpio.dir(d)
    cpio.chardev("dev/console", 5, 1)
    cpio.chardev("dev/null", 1, 3, 0o666)
    for name in sorted(entries):
        if name in dirs:
            raise VMError(f"guest path /{name} is both a file and a directory")
        kind, payload = entries[name]
        if kind == "link":
            cpio.symlink(name, payload)  # type: ignore[arg-type]
        elif kind == "data":
            data, perm = payload  # type: ignore[misc]
            cpio.file(name, data, perm)
        else:
            real = os.path.realpath(payload)  # type: ignore[arg-type]
            with open(real, "rb") as f:
                data = f.read()
            cpio.file(name, data, stat.S_IMODE(os.stat(real).st_mode) | 0o444)
    return cpio.finish()


# --------------------------------------------------------------------------
# qemu


def _kmem_cmdline(mem: list[int], cpuless: tuple[int, ...]) -> str:
    """Kernel arguments that make the CPU-less nodes' RAM soft-reserved (E820 type
    0xefffffff), so it is not system RAM at boot and dax_hmem + kmem bring it up later."""
    args, at = [], 4096
    for k in cpuless:
        args.append(f"memmap={mem[k]}M%{at}M+0xefffffff")
        at += mem[k]
    return " ".join(args)


def _qemu_argv(kernel: Path, initrd: Path, nodes: int, cpus_per_node: int, mem: list[int],
               numa_balancing: bool, distances: list[list[int]] | None, append: str,
               mttcg: bool = False, cpuless: tuple[int, ...] = (), kmem: bool = False) -> list[str]:
    with_cpus = [k for k in range(nodes) if k not in cpuless]
    machine = "pc"
    if kmem:
        # The CPU-less nodes (the last ones) live above 4 GiB, 2 MiB-aligned and clear of
        # the firmware's ACPI tables at the top of low RAM; their RAM is turned into "soft
        # reserved" memory that only dax_hmem claims (memmap=SIZE%START+0xefffffff).
        low = sum(mem[k] for k in with_cpus)
        machine += f",max-ram-below-4g={low}M"
        append = (append + " " + _kmem_cmdline(mem, cpuless) + " memhp_default_state=online_movable").strip()
    ncpu = len(with_cpus) * cpus_per_node
    # thread=single runs all vCPUs round-robin on one host thread: the guest
    # still has ncpu CPUs, and on a small shared host it boots faster and
    # burns about half the CPU time of multi-threaded TCG.
    argv = [QEMU, "-accel", f"tcg,thread={'multi' if mttcg else 'single'}", "-machine", machine, "-cpu", "max",
            "-smp", f"{ncpu},sockets={len(with_cpus)},cores={cpus_per_node},threads=1",
            "-m", f"{sum(mem)}M"]
    for k in range(nodes):
        argv += ["-object", f"memory-backend-ram,size={mem[k]}M,id=m{k}"]
        if k in cpuless:
            # memory and no CPUs: what Linux shows for a CXL memory expander
            argv += ["-numa", f"node,nodeid={k},memdev=m{k}"]
            continue
        i = with_cpus.index(k)
        lo, hi = i * cpus_per_node, (i + 1) * cpus_per_node - 1
        cpus = f"{lo}" if lo == hi else f"{lo}-{hi}"
        argv += ["-numa", f"node,nodeid={k},cpus={cpus},memdev=m{k}"]
    if distances is not None:
        for i in range(nodes):
            for j in range(nodes):
                if i != j:
                    argv += ["-numa", f"dist,src={i},dst={j},val={distances[i][j]}"]
    # cryptomgr.notests, random.trust_cpu and no_timer_check skip work that
    # is slow under TCG (~13% of the boot's CPU time, measured)
    cmdline = ("console=ttyS0 quiet panic=-1 nokaslr mitigations=off tsc=unstable "
               "cryptomgr.notests random.trust_cpu=on no_timer_check "
               f"numa_balancing={'enable' if numa_balancing else 'disable'}")
    if append:
        cmdline += " " + append
    argv += ["-kernel", str(kernel), "-initrd", str(initrd), "-append", cmdline,
             "-nographic", "-nodefaults", "-no-user-config", "-serial", "stdio",
             "-monitor", "none", "-no-reboot"]
    return argv


def run(script: str, files: dict[str, str] | None = None, *, nodes: int = 4,
        cpus_per_node: int = 1, mem_per_node_mb: int = 256, numa_balancing: bool | int = False,
        timeout: float = 120, node_mem_mb: list[int] | None = None,
        distances: list[list[int]] | None = None, append: str = "",
        mttcg: bool = False, cpuless: list[int] | tuple[int, ...] = (),
        kmem: bool = False) -> Result:
    """Boot a `nodes`-node VM, run `script` with /bin/sh (busybox) inside, power off.

    files: guest path -> host path to copy in; dynamic ELF files bring their
    shared libraries (per host ldd) at the same absolute paths.
    node_mem_mb: per-node memory in MiB (overrides mem_per_node_mb).
    distances: optional nodes x nodes SLIT matrix (diagonal 10).
    append: extra kernel command-line arguments.
    mttcg: one host thread per vCPU (real parallelism, more host CPU) instead
    of all vCPUs taking turns on one host thread (the default).
    numa_balancing: False/True, or the sysctl's mode (2: memory tiering, 3: both).
    cpuless: nodes with memory and no CPUs (Linux's view of a CXL memory
    expander); in 6.1 such a node still ranks in the DRAM tier.
    kmem: bring the CPU-less nodes (the last nodes, whole 128 MiB blocks) up
    through dax/kmem instead, so the kernel ranks them in a slower memory tier
    (needs the modules vm/setup.sh extracts; VMUnavailable names what is
    missing).  The setup's log is /numavm/kmem.log in the guest.

    Returns Result(rc, output, boot_seconds, total_seconds): output is what
    the script wrote to stdout/stderr (console CRs removed), boot_seconds the
    time until the script started.  Raises VMUnavailable if qemu / kernel /
    busybox are missing, VMError if the VM did not finish the script
    (timeout, kernel panic, ...), with the last console lines in .detail.
    """
    why = _missing()
    if why:
        raise VMUnavailable(why)
    if nodes < 1 or cpus_per_node < 1:
        raise ValueError("nodes and cpus_per_node must be >= 1")
    mem = list(node_mem_mb) if node_mem_mb is not None else [mem_per_node_mb] * nodes
    if len(mem) != nodes:
        raise ValueError(f"node_mem_mb has {len(mem)} entries for {nodes} nodes")
    cpuless = tuple(sorted(set(cpuless)))
    if any(not 0 <= k < nodes for k in cpuless):
        raise ValueError(f"cpuless names a node outside 0..{nodes - 1}: {list(cpuless)}")
    if len(cpuless) == nodes:
        raise ValueError("cpuless: every node would be CPU-less; at least one node needs CPUs")
    if kmem:
        if not cpuless:
            raise ValueError("kmem needs CPU-less nodes (cpuless=...) to bring up through dax/kmem")
        if list(cpuless) != list(range(nodes - len(cpuless), nodes)):
            raise ValueError(f"kmem: the CPU-less nodes must be the last ones (got {list(cpuless)} of {nodes})")
        if any(mem[k] % 128 for k in cpuless):
            raise ValueError("kmem: a CPU-less node's memory must be a multiple of 128 MiB (a memory block)")
        why = _missing_kmem()
        if why:
            raise VMUnavailable(why)
    if distances is not None and (len(distances) != nodes or any(len(r) != nodes for r in distances)):
        raise ValueError(f"distances must be a {nodes}x{nodes} matrix")

    nonce = secrets.token_hex(6)
    begin, end = f"@@NUMAVM-{nonce}-BEGIN@@", f"@@NUMAVM-{nonce}-END@@"
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="numavm-") as tmp:
        initrd = Path(tmp) / "initramfs.cpio"
        initrd.write_bytes(_build_initramfs(script, files or {}, numa_balancing, begin, end, kmem))
        argv = _qemu_argv(prepare_kernel(), initrd, nodes, cpus_per_node, mem,
                          bool(numa_balancing), distances, append, mttcg, cpuless, kmem)
        console, boot_at, timed_out, qrc, qerr = _boot(argv, begin, end, timeout, t0)
    total = time.monotonic() - t0

    # drop CRs of the serial line and the BIOS's terminal escape sequences
    text = re.sub(r"\x1b(\[[0-9;?]*[A-Za-z]|c)", "", console.decode("utf-8", "replace").replace("\r", ""))
    m = re.search(re.escape(begin) + r"\n(.*)\n" + re.escape(end) + r" rc=(\d+)\n", text, re.S)
    if m is None:
        tail = "\n".join(text.splitlines()[-20:])
        if qerr.strip():
            tail += "\n--- qemu stderr ---\n" + qerr.strip()
        if timed_out:
            what = f"VM timed out after {timeout:g}s " + (
                "while running the script" if boot_at is not None else "before the script started")
        elif boot_at is None:
            what = f"VM exited (qemu rc {qrc}) before the script started"
        else:
            what = f"VM exited (qemu rc {qrc}) before the script finished"
        started = text.split(begin + "\n", 1)[1] if begin + "\n" in text else ""
        said = [line for line in started.splitlines() if line.strip()]
        if said:
            what += f"; the script's last line: {said[-1].strip()[:160]!r}"
        raise VMError(what + " (last console lines in .detail)", tail)
    return Result(rc=int(m.group(2)), output=m.group(1), boot_seconds=(boot_at or t0) - t0,
                  total_seconds=total, console=text)


def _boot(argv: list[str], begin: str, end: str, timeout: float, t0: float):
    begin_b, end_b = begin.encode(), end.encode()
    buf = bytearray()
    boot_at: list[float] = []
    done = threading.Event()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    err_chunks: list[bytes] = []

    def pump_out() -> None:
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            buf.extend(chunk)
            if not boot_at and begin_b in buf:
                boot_at.append(time.monotonic())
            # the end marker line is complete once "rc=N\n" follows it
            i = buf.find(end_b)
            if i >= 0 and b"\n" in buf[i:]:
                done.set()
        done.set()

    def pump_err() -> None:
        assert proc.stderr is not None
        err_chunks.append(proc.stderr.read())

    readers = [threading.Thread(target=pump_out, daemon=True),
               threading.Thread(target=pump_err, daemon=True)]
    for t in readers:
        t.start()
    timed_out = False
    try:
        if not done.wait(max(0.0, timeout - (time.monotonic() - t0))):
            timed_out = True
        try:  # after the end marker the guest powers off within moments
            proc.wait(timeout=5 if not timed_out else 0.01)
        except subprocess.TimeoutExpired:
            pass
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for t in readers:
            t.join(timeout=5)
        for f in (proc.stdout, proc.stderr):
            if f is not None:
                f.close()
    qerr = b"".join(err_chunks).decode("utf-8", "replace")
    return bytes(buf), (boot_at[0] if boot_at else None), timed_out, proc.returncode, qerr


# --------------------------------------------------------------------------
# CLI


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="numavm.py",
        description="Run a shell command in a throw-away NUMA VM (qemu TCG); "
                    "prints its output and exits with its status.",
        usage="%(prog)s [options] -- 'shell command'")
    ap.add_argument("--nodes", type=int, default=4)
    ap.add_argument("--cpus-per-node", type=int, default=1)
    ap.add_argument("--mem-per-node", type=int, default=256, metavar="MB")
    ap.add_argument("--node-mem", default=None, metavar="MB,MB,...",
                    help="per-node memory (overrides --mem-per-node)")
    ap.add_argument("--numa-balancing", nargs="?", type=int, const=1, default=0, metavar="MODE",
                    help="kernel.numa_balancing: 1 (the default with the flag), 2 = memory tiering, 3 = both")
    ap.add_argument("--cpuless", default=None, metavar="N,N,...",
                    help="nodes with memory and no CPUs (a CXL memory expander's view)")
    ap.add_argument("--kmem", action="store_true",
                    help="bring the CPU-less nodes' memory up through dax/kmem: a memory tier below DRAM")
    ap.add_argument("--file", action="append", default=[], metavar="HOST[:GUEST]",
                    help="copy a host file in (default guest path: same absolute path)")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--append", default="", help="extra kernel command-line arguments")
    ap.add_argument("--mttcg", action="store_true", help="one host thread per vCPU")
    ap.add_argument("--times", action="store_true", help="print boot/total seconds on stderr")
    ap.add_argument("--console", action="store_true", help="print the whole console log on stderr")
    ap.add_argument("--prepare-kernel", action="store_true",
                    help="only extract the ELF vmlinux into the cache (done by vm/setup.sh)")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    if a.prepare_kernel:
        why = _missing()
        if why:
            print(f"numavm: {why}", file=sys.stderr)
            return 1
        print(prepare_kernel())
        return 0
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command given (put it after --)")
    files = {}
    for spec in a.file:
        host, _, guest = spec.partition(":")
        files[guest or os.path.abspath(host)] = host
    node_mem = [int(x) for x in a.node_mem.split(",")] if a.node_mem else None
    try:
        cpuless = [int(x) for x in a.cpuless.split(",")] if a.cpuless else []
    except ValueError:
        ap.error(f"--cpuless {a.cpuless!r}: expected node numbers separated by commas")
    try:
        res = run(" ".join(cmd), files, nodes=a.nodes, cpus_per_node=a.cpus_per_node,
                  mem_per_node_mb=a.mem_per_node, node_mem_mb=node_mem,
                  numa_balancing=a.numa_balancing, timeout=a.timeout, append=a.append,
                  mttcg=a.mttcg, cpuless=cpuless, kmem=a.kmem)
    except VMError as e:
        print(f"numavm: {e}", file=sys.stderr)
        if e.detail:
            print(e.detail, file=sys.stderr)
        return 125
    if a.console:
        sys.stderr.write(res.console)
    sys.stdout.write(res.output + ("\n" if res.output and not res.output.endswith("\n") else ""))
    if a.times:
        print(f"numavm: boot {res.boot_seconds:.2f}s total {res.total_seconds:.2f}s", file=sys.stderr)
    return res.rc


if __name__ == "__main__":
    sys.exit(main())
