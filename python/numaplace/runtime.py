"""Running real programs under the numaplace runtime library, and reading what it reports.

The runtime is ``libnumaplace.so`` (crate ``crates/runtime``): preloaded into a program, it
manages the program's large allocations, places their pages and moves them while it runs, and
writes a stats file at exit. This module is the Python side of it:

* :func:`find_library` — where the library is (``$NUMAPLACE_LIB``, the venv, ``target/release``).
* :func:`validate_placement`, :func:`validate_dynamic` — check a spec as the simulator would.
* :func:`launch_env`, :func:`run_program` — the environment the library reads, and a launcher
  that returns the program's exit status (128 + signal for a signal death, as shells do).
* :func:`parse_numa_maps`, :func:`read_numa_maps`, :func:`where` — how a running process's
  memory is spread over NUMA nodes, from ``/proc/PID/numa_maps``.
* :func:`load_stats`, :func:`stats_frame`, :func:`summary`, :func:`plot_stats` — the stats files
  the library writes (schema version :data:`STATS_VERSION`), checked against the schema the
  library itself is written from (:data:`STATS_SCHEMA`, Rust's ``numaplace_model::stats``).

Every error for bad input is a :class:`RuntimeToolError` with a one-line message.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from numaplace import _native
from numaplace._native import NumaplaceError
from numaplace.record import signal_name

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

STATS_SCHEMA: dict[str, Any] = json.loads(_native.stats_schema())
"""The stats file's schema, declared once in Rust (``numaplace_model::stats``): ``version`` and
``fields``, the file's keys in order, each with ``name``, ``kind`` (``text``, ``integer``,
``number``, ``share``, ``per-node``, ``list``), ``nullable`` and ``doc``; a ``list`` has the
``fields`` of its objects."""

STATS_VERSION: int = STATS_SCHEMA["version"]
"""The stats-file schema version this module reads."""

_RUNTIME = json.loads(_native.runtime_options())
RUNTIME_OPTIONS: dict[str, dict[str, Any]] = {o["name"]: o for o in _RUNTIME["options"]}
"""The library's settings, declared once in Rust (``numaplace_model::rtconfig``): ``env`` (its
``NUMAPLACE_*`` variable), ``kind``, ``default``, ``launcher`` (``numaplace run``'s default, or
None where it has no flag), ``doc``."""

LIB_NAME = "libnumaplace.so"
DEFAULT_DYNAMIC: str = RUNTIME_OPTIONS["dynamic"]["launcher"]
DEFAULT_MIN_BYTES: int = int(RUNTIME_OPTIONS["min_bytes"]["launcher"])
SOURCES: tuple[str, ...] = tuple(RUNTIME_OPTIONS["source"]["choices"])
EPOCH_KINDS = ("migrate", "timer", "record", "replay", "undo")
EXIT_NOT_FOUND = 127
"""``numaplace run``'s status when the program does not exist (as ``env`` and shells)."""
EXIT_CANNOT_EXECUTE = 126
"""``numaplace run``'s status when the program exists but cannot be executed."""

# The variables the launcher sets or clears on every launch: the preload marker and those of
# the settings it has flags for (the others, such as NUMAPLACE_SAMPLE_PERIOD_MS, pass through).
ENV_VARS: tuple[str, ...] = (_RUNTIME["preload_env"], *(o["env"] for o in RUNTIME_OPTIONS.values() if o["launcher"] is not None))


class RuntimeToolError(NumaplaceError):
    """Bad input to the runtime tools: a spec, a library path, a pid, a stats file. A
    :class:`numaplace.NumaplaceError`, as every error numaplace raises for bad input."""


# --- finding the library ---------------------------------------------------------------------


def library_candidates(prefix: str | Path | None = None, repo: str | Path | None = None) -> list[Path]:
    """The default places of the library, in search order: ``<prefix>/lib/numaplace/`` (the
    installed copy; ``prefix`` defaults to ``sys.prefix``), then ``<repo>/target/release/``
    (a checkout's build; ``repo`` defaults to two directories above this package)."""
    prefix = Path(sys.prefix if prefix is None else prefix)
    repo = Path(__file__).resolve().parents[2] if repo is None else Path(repo)
    return [prefix / "lib" / "numaplace" / LIB_NAME, repo / "target" / "release" / LIB_NAME]


def find_library(
    env: Mapping[str, str] | None = None, prefix: str | Path | None = None, repo: str | Path | None = None
) -> Path:
    """The absolute path of ``libnumaplace.so``: ``$NUMAPLACE_LIB`` if set (it must exist),
    else the first of :func:`library_candidates` that exists.

    Raises:
        RuntimeToolError: ``$NUMAPLACE_LIB`` names no file, or no candidate exists.
    """
    env = os.environ if env is None else env
    given = env.get("NUMAPLACE_LIB")
    if given:
        p = Path(given)
        if p.is_dir():
            raise RuntimeToolError(f"NUMAPLACE_LIB={given}: is a directory (give the path of {LIB_NAME})")
        if not p.is_file():
            raise RuntimeToolError(f"NUMAPLACE_LIB={given}: no such file")
        return _preloadable(p)
    tried = library_candidates(prefix, repo)
    for p in tried:
        if p.is_file():
            return _preloadable(p)
    raise RuntimeToolError(
        f"runtime library {LIB_NAME} not found (tried {', '.join(map(str, tried))}); "
        "`make run` builds it, or set NUMAPLACE_LIB to its path"
    )


def _preloadable(p: Path) -> Path:
    p = p.resolve()
    if any(c in str(p) for c in ": \t\n"):
        # ld.so splits LD_PRELOAD at colons and white space.
        raise RuntimeToolError(f"{p}: a library path in LD_PRELOAD cannot contain ':' or white space")
    return p


# --- checking specs as the simulator does ------------------------------------------------------


def _validate(spec: str, kind: str, driver: str | None = None) -> tuple[str, dict[str, str]]:
    """Checks ``spec`` with the model's own parser and parameter declarations (the checks a
    run makes before it needs a machine) and, with ``driver``, the policy's capabilities;
    returns its name and values as text."""
    if not spec.strip():  # the model's parser would say "missing name" without the option
        raise RuntimeToolError(f"{kind} = '{spec}': expected NAME[:key=value,...]")
    try:
        out = json.loads(_native.check_spec(kind, spec, driver))
    except _native.NumaplaceError as e:
        raise RuntimeToolError(str(e)) from None
    return out["name"], out["values"]


def host_nodes(sysfs: str | Path = "/sys/devices/system/node") -> list[int] | None:
    """The online NUMA nodes of this host (from sysfs), or None if that cannot be read."""
    try:
        text = (Path(sysfs) / "online").read_text().strip()
    except OSError:
        return None
    nodes: list[int] = []
    try:
        for part in filter(None, text.split(",")):
            lo, _, hi = part.partition("-")
            nodes.extend(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        return None
    return nodes


_PLACEMENT_CAPS: dict[str, dict[str, Any]] = {p["name"]: p for p in json.loads(_native.placements())}


def validate_placement(spec: str, nodes: Sequence[int] | None = None) -> str:
    """Checks a placement spec as the simulator does (name, keys, value types and ranges) and
    returns it stripped, and that the runtime can realise it (a placement computed from a
    profile of the whole run, ``oracle``, cannot: its capabilities). ``bind:node=N`` is also
    checked against ``nodes`` (the host's online nodes, if known). Checks that need the
    program's memory are left to the library.

    Raises:
        RuntimeToolError: with the same message ``numaplace sim --placement`` gives.
    """
    name, values = _validate(spec, "placement", "runtime")
    # A one-node placement names its node in the `node` parameter (PlacementCaps.one_node).
    if _PLACEMENT_CAPS[name]["one_node"] and nodes:
        node = int(values["node"].replace("_", ""))
        if node not in nodes:
            have = f"0..{max(nodes)}" if list(nodes) == list(range(max(nodes) + 1)) else ",".join(map(str, nodes))
            raise RuntimeToolError(f"placement 'bind': node={node}: this host has nodes {have}")
    return spec.strip()


def validate_dynamic(spec: str) -> str:
    """Checks a dynamic-policy spec as the simulator does, and that the runtime can drive it
    (the policy's capabilities, as ``numaplace policies`` lists them), and returns it
    stripped; ``none`` (no dynamic policy) is accepted too. Checks that need the program (e.g.
    ``upmlib``'s region names) are left to the library.

    Raises:
        RuntimeToolError: with the same message ``numaplace sim --dynamic`` gives for a bad
            spec, or the reason the runtime cannot drive the policy and those it can.
    """
    if spec.strip() == "none":
        return "none"
    _validate(spec, "dynamic", "runtime")
    return spec.strip()


# --- launching -------------------------------------------------------------------------------


def launch_env(
    lib: str | Path,
    *,
    placement: str = RUNTIME_OPTIONS["placement"]["launcher"],
    dynamic: str = DEFAULT_DYNAMIC,
    stats: str | Path | None = None,
    min_bytes: int = DEFAULT_MIN_BYTES,
    source: str = RUNTIME_OPTIONS["source"]["launcher"],
    verbose: bool = False,
    force: bool = False,
    base: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment to run a program under the library: ``base`` (default ``os.environ``)
    with ``lib`` prepended to ``LD_PRELOAD`` (once) and every ``NUMAPLACE_*`` variable the
    library reads set, or removed when not wanted (no stats file, not verbose, not forced to
    sample on a one-node host), so nothing stale is inherited. ``stats`` is made absolute:
    the program may change directory."""
    if source not in SOURCES:
        raise RuntimeToolError(f"source '{source}': expected one of: {', '.join(SOURCES)}")
    if isinstance(min_bytes, bool) or not isinstance(min_bytes, int) or min_bytes < 0:
        raise RuntimeToolError(f"min-bytes {min_bytes!r}: expected a non-negative integer")
    env = dict(os.environ if base is None else base)
    lib = str(lib)
    rest = [p for p in re.split(r"[:\s]+", env.get("LD_PRELOAD", "")) if p and p != lib]
    env["LD_PRELOAD"] = ":".join([lib, *rest])
    for k in ENV_VARS:
        env.pop(k, None)
    var = {name: o["env"] for name, o in RUNTIME_OPTIONS.items()}
    env[_RUNTIME["preload_env"]] = "1"
    env[var["placement"]] = placement
    env[var["dynamic"]] = dynamic
    env[var["min_bytes"]] = str(min_bytes)
    env[var["source"]] = source
    if stats is not None:
        env[var["stats"]] = str(Path(stats).absolute())
    if verbose:
        env[var["verbose"]] = "1"
    if force:
        env[var["force"]] = "1"
    return env


def resolve_program(program: str, env: Mapping[str, str]) -> str:
    """The executable ``program`` names: a path if it has a ``/``, else looked up on ``PATH``.

    Raises:
        ProgramNotFound, ProgramNotExecutable
    """
    if "/" in program:
        p = Path(program)
        if not p.exists():
            raise ProgramNotFound(f"{program}: no such file")
        if p.is_dir() or not os.access(p, os.X_OK):
            raise ProgramNotExecutable(f"{program}: not an executable file")
        return program
    found = shutil.which(program, path=env.get("PATH", os.defpath))
    if found is None:
        raise ProgramNotFound(f"{program}: command not found")
    return found


_PT_INTERP = 3
# The dynamic linker run as a program (`ld-linux-x86-64.so.2 PROG`) has no PT_INTERP of its
# own, but it is what reads LD_PRELOAD.
_LOADER_NAMES = re.compile(r"^(ld-linux.*|ld64\.so.*|ld\.so.*|ld-musl.*)$")


def elf_kind(path: str | Path) -> str | None:
    """``"dynamic"`` for an ELF executable the dynamic linker loads (it has a PT_INTERP program
    header), ``"static"`` for one it does not (static, or static-pie), None for anything else
    (a script, a truncated or foreign file: left to the kernel to run or refuse). Reads the
    64-byte header and at most 64 KiB of program headers."""
    import struct

    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if len(head) < 52 or head[:4] != b"\x7fELF" or head[4] not in (1, 2) or head[5] not in (1, 2):
                return None
            end = "<" if head[5] == 1 else ">"
            if head[4] == 2:  # ELF64: e_phoff at 32 (8 bytes), e_phentsize/e_phnum at 54/56
                if len(head) < 64:
                    return None
                phoff = struct.unpack_from(end + "Q", head, 32)[0]
                phentsize, phnum = struct.unpack_from(end + "HH", head, 54)
            else:  # ELF32: e_phoff at 28 (4 bytes), e_phentsize/e_phnum at 42/44
                phoff = struct.unpack_from(end + "I", head, 28)[0]
                phentsize, phnum = struct.unpack_from(end + "HH", head, 42)
            if phentsize < 8 or phnum == 0 or phentsize * phnum > 65536:
                return None
            f.seek(phoff)
            table = f.read(phentsize * phnum)
    except OSError:
        return None
    if len(table) < phentsize * phnum:
        return None
    types = [struct.unpack_from(end + "I", table, i * phentsize)[0] for i in range(phnum)]
    return "dynamic" if _PT_INTERP in types else "static"


def check_preloadable(exe: str | Path) -> None:
    """Refuses a program the dynamic linker would not preload the library into, before it
    starts: a static ELF executable (no dynamic linker runs), or one that runs with other
    privileges than the caller (setuid or setgid to another user or group, on a mount that
    honours it; the linker then ignores LD_PRELOAD). Otherwise it would run unmanaged, with
    no stats file and exit 0.

    Raises:
        ProgramNotPreloadable: with the reason.
    """
    p = Path(exe)
    if elf_kind(p) == "static" and not _LOADER_NAMES.match(p.name):
        raise ProgramNotPreloadable(
            f"{exe}: statically linked, so {LIB_NAME} cannot be preloaded into it (link it dynamically)"
        )
    try:
        st = os.stat(p)
        nosuid = bool(os.statvfs(p).f_flag & os.ST_NOSUID)
    except OSError:
        return
    if nosuid:
        return
    if st.st_mode & 0o4000 and st.st_uid != os.getuid():
        why = f"setuid (to uid {st.st_uid})"
    elif st.st_mode & 0o2000 and st.st_gid != os.getgid():
        why = f"setgid (to gid {st.st_gid})"
    else:
        return
    raise ProgramNotPreloadable(
        f"{exe}: {why}: the dynamic linker ignores LD_PRELOAD for it, so it would run unmanaged"
    )


class ProgramNotPreloadable(RuntimeToolError):
    """The program cannot run under the library (static, or setuid/setgid): ``numaplace run``
    refuses it with exit status 2."""


class ProgramNotFound(RuntimeToolError):
    """The program to run does not exist (``numaplace run`` exits with 127)."""


class ProgramNotExecutable(RuntimeToolError):
    """The program exists but cannot be executed (``numaplace run`` exits with 126)."""


def exit_status(returncode: int) -> int:
    """A child's status as a shell reports it: its exit code, or 128 + N for death by signal N."""
    return 128 - returncode if returncode < 0 else returncode


@dataclass(frozen=True)
class ProgramExit:
    """How a program started by :func:`run_program` ended."""

    returncode: int
    """:class:`subprocess.Popen`'s: the exit code, or minus the signal that killed it."""

    @property
    def status(self) -> int:
        """The status ``numaplace run`` exits with (:func:`exit_status`)."""
        return exit_status(self.returncode)

    @property
    def signal(self) -> int | None:
        """The signal that killed the program, or ``None`` when it exited."""
        return -self.returncode if self.returncode < 0 else None

    def killed_line(self, program: str) -> str | None:
        """One line naming the signal that killed ``program`` (``None`` when it exited)."""
        if self.signal is None:
            return None
        return f"numaplace: {program} was killed by {signal_name(self.signal)} (exit status {self.status})"


def run_program(argv: Sequence[str], env: Mapping[str, str]) -> ProgramExit:
    """Runs ``argv`` with ``env`` and returns how it ended (:class:`ProgramExit`).

    While it runs, SIGINT and SIGQUIT are ignored here (the terminal sends them to the program
    too, and the program decides), and SIGTERM and SIGHUP are passed on to it, so the launcher
    never exits before the program it started.

    Raises:
        ProgramNotFound, ProgramNotExecutable
    """
    if not argv:
        raise RuntimeToolError("no program to run (usage: numaplace run [OPTIONS] -- PROGRAM [ARGS...])")
    exe = resolve_program(argv[0], env)
    check_preloadable(exe)
    try:
        child = subprocess.Popen(list(argv), env=dict(env), executable=exe)  # argv[0] as given
    except FileNotFoundError as e:
        raise ProgramNotFound(f"{argv[0]}: {e.strerror}") from None
    except OSError as e:  # ENOEXEC, EACCES, a missing interpreter
        raise ProgramNotExecutable(f"{argv[0]}: {e.strerror or e}") from None

    def forward(signum: int, _frame: object) -> None:
        child.send_signal(signum)

    saved = {}
    if threading.current_thread() is threading.main_thread():  # only there can handlers be set
        for s, handler in ((signal.SIGINT, signal.SIG_IGN), (signal.SIGQUIT, signal.SIG_IGN),
                           (signal.SIGTERM, forward), (signal.SIGHUP, forward)):
            saved[s] = signal.signal(s, handler)
    try:
        return ProgramExit(child.wait())
    finally:
        for s, h in saved.items():
            signal.signal(s, h)


# --- /proc/PID/numa_maps -----------------------------------------------------------------------

_NODE_KEY = re.compile(r"^N(\d+)$")
_OCTAL = re.compile(r"\\([0-7]{3})")


@dataclass
class NumaMapping:
    """One line of ``numa_maps``: a mapping, its policy, and its resident pages per node."""

    address: int
    policy: str
    name: str
    """``file=`` path, ``[heap]``, ``[stack]``, ``[huge]`` (hugetlbfs without a file) or ``[anon]``."""
    page_size: int
    """Bytes per page counted in ``pages`` (``kernelpagesize_kB``)."""
    pages: dict[int, int] = field(default_factory=dict)
    """Resident pages per node (``N<node>=<pages>``); empty when nothing is resident."""
    flags: dict[str, str] = field(default_factory=dict)
    """Every other ``key=value`` (``anon``, ``dirty``, ``mapped``...) and bare word (``huge``)."""

    @property
    def total_pages(self) -> int:
        return sum(self.pages.values())

    @property
    def bytes(self) -> int:
        return self.total_pages * self.page_size

    @property
    def largest_node(self) -> int | None:
        return max(self.pages, key=lambda n: (self.pages[n], -n)) if self.pages else None

    @property
    def local_share(self) -> float | None:
        """The share of the pages on the node holding most of them (None if none resident)."""
        total = self.total_pages
        return max(self.pages.values()) / total if total else None



def parse_numa_maps(text: str) -> list[NumaMapping]:
    """Parses the text of ``/proc/PID/numa_maps`` (proc(5)): one mapping per line,
    ``ADDRESS POLICY [key=value | word]...``. Pages are counted in units of the mapping's
    ``kernelpagesize_kB`` (4 KiB if absent). A file name's escaped characters (``\\040``...)
    are decoded.

    Raises:
        RuntimeToolError: a line without an address and a policy, or a bad ``N<node>=`` count.
    """
    out: list[NumaMapping] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        words = line.split()
        if len(words) < 2:
            raise RuntimeToolError(f"numa_maps line {lineno}: expected 'ADDRESS POLICY ...': {line!r}")
        try:
            address = int(words[0], 16)
        except ValueError:
            raise RuntimeToolError(f"numa_maps line {lineno}: bad address {words[0]!r}") from None
        m = NumaMapping(address=address, policy=words[1], name="", page_size=4096)
        kinds: list[str] = []
        for w in words[2:]:
            key, eq, value = w.partition("=")
            node = _NODE_KEY.match(key)
            if node and eq:
                if not value.isdigit():
                    raise RuntimeToolError(f"numa_maps line {lineno}: bad page count {w!r}")
                m.pages[int(node.group(1))] = int(value)
            elif key == "kernelpagesize_kB" and value.isdigit():
                m.page_size = int(value) * 1024
            elif key == "file" and eq:
                m.name = _OCTAL.sub(lambda g: chr(int(g.group(1), 8)), value)
            elif not eq:
                kinds.append(key)
                m.flags[key] = ""
            else:
                m.flags[key] = value
        if not m.name:
            for k in ("heap", "stack", "huge"):
                if k in kinds:
                    m.name = f"[{k}]"
                    break
            else:
                m.name = "[anon]"
        out.append(m)
    return out


def read_numa_maps(pid: int, proc: str | Path = "/proc") -> str:
    """The text of ``/proc/PID/numa_maps``.

    Raises:
        RuntimeToolError: no such process, no permission, or a kernel without NUMA support.
    """
    base = Path(proc) / str(pid)
    path = base / "numa_maps"
    try:
        return path.read_text(errors="surrogateescape")
    except FileNotFoundError:
        if not base.exists():
            raise RuntimeToolError(f"no process with pid {pid}") from None
        raise RuntimeToolError(f"{path} does not exist: this kernel has no NUMA support (CONFIG_NUMA)") from None
    except PermissionError:
        raise RuntimeToolError(f"cannot read {path}: permission denied ({_denied_reason(base, pid)})") from None
    except ProcessLookupError:
        raise RuntimeToolError(f"process {pid} exited while its numa_maps was being read") from None
    except OSError as e:
        raise RuntimeToolError(f"cannot read {path}: {e.strerror or e}") from None


def _denied_reason(base: Path, pid: int) -> str:
    """Why reading a process's ``numa_maps`` was refused. The kernel allows it to a caller
    that may ptrace the process, so for root the owner is not the reason."""
    if os.geteuid() == 0:
        return (f"even root may not inspect process {pid}: the kernel's ptrace check refused it"
                " (no CAP_SYS_PTRACE here, or the process is in another container or namespace)")
    try:
        owner = base.stat().st_uid
    except OSError:
        owner = None
    if owner is not None and owner != os.geteuid():
        return f"process {pid} belongs to another user; try as its owner or root"
    return f"the kernel's ptrace check refused it (Yama ptrace_scope, or process {pid} is not dumpable)"


def where(
    pid: int,
    *,
    min_bytes: int = 256 * 1024,
    show_all: bool = False,
    proc: str | Path = "/proc",
    min_nodes: int = 1,
) -> dict[str, Any]:
    """How process ``pid``'s resident memory is spread over nodes, as plain data: ``pid``,
    ``nodes`` (node count seen), ``mappings`` (those with at least ``min_bytes`` resident, or
    all if ``show_all``; each with address, name, policy, page_size, pages per node, bytes and
    local_share), ``hidden`` (how many mappings and bytes were left out) and
    ``total_bytes``/``total_pages`` per node over every mapping. Nodes are counted from the
    highest ``N<node>`` seen, and at least ``min_nodes`` (e.g. the host's), so empty nodes show.
    """
    maps = parse_numa_maps(read_numa_maps(pid, proc))
    if not maps:
        raise RuntimeToolError(f"process {pid} has no memory mappings (a kernel thread?)")
    nodes = max(min_nodes, 1 + max((n for m in maps for n in m.pages), default=0))
    shown = [m for m in maps if show_all or (m.total_pages and m.bytes >= min_bytes)]
    total_bytes = [0] * nodes
    total_pages = [0] * nodes
    for m in maps:
        for n, c in m.pages.items():
            total_bytes[n] += c * m.page_size
            total_pages[n] += c
    return {
        "pid": pid,
        "nodes": nodes,
        "mappings": [
            {
                "address": f"0x{m.address:x}",
                "name": m.name,
                "policy": m.policy,
                "page_size": m.page_size,
                "pages": [m.pages.get(n, 0) for n in range(nodes)],
                "bytes": m.bytes,
                "largest_node": m.largest_node,
                "local_share": m.local_share,
            }
            for m in shown
        ],
        "hidden": {"mappings": len(maps) - len(shown), "bytes": sum(m.bytes for m in maps) - sum(m.bytes for m in shown)},
        "total_bytes": total_bytes,
        "total_pages": total_pages,
    }


# --- stats files -----------------------------------------------------------------------------

_NUM = (int, float)
_TYPES: dict[str, tuple[type, ...]] = {"text": (str,), "integer": (int,), "number": _NUM, "list": (list,)}
_TYPE_WORDS = {"text": "a string", "integer": "an integer", "number": "a number", "list": "a list"}


def _check_fields(path: str, obj: Any, fields: list[dict[str, Any]], at: str, nodes: int | None) -> None:
    """Checks ``obj`` against the schema's ``fields``: each key present, each value of its kind
    (or null where the schema allows), per-node lists ``nodes`` long; objects of a ``list``
    recursively, in order."""
    if not isinstance(obj, dict):
        raise RuntimeToolError(f"{path}: {at or 'the file'} is not a JSON object")
    for f in fields:
        key, kind = f["name"], f["kind"]
        name = f"{at}.{key}" if at else key
        if key not in obj:
            raise RuntimeToolError(f"{path}: missing key '{name}'")
        v = obj[key]
        if v is None and f["nullable"]:
            continue
        if kind == "per-node":
            ok = isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)
            if not ok:
                raise RuntimeToolError(f"{path}: key '{name}' should be a list of page counts")
            if nodes is not None and len(v) != nodes:
                raise RuntimeToolError(f"{path}: key '{name}' has {len(v)} entries for {nodes} nodes")
        elif kind == "share":
            if isinstance(v, bool) or not isinstance(v, _NUM) or not 0 <= v <= 1:
                raise RuntimeToolError(f"{path}: key '{name}' should be a number in [0, 1]{' or null' * f['nullable']}")
        elif isinstance(v, bool) or not isinstance(v, _TYPES[kind]):
            null = " or null" if f["nullable"] else ""
            raise RuntimeToolError(f"{path}: key '{name}' should be {_TYPE_WORDS[kind]}{null}, not {json.dumps(v)[:40]}")
        if kind == "list":
            for i, item in enumerate(v):
                _check_fields(path, item, f["fields"], f"{name}[{i}]", nodes)


def load_stats(path: str | Path) -> dict[str, Any]:
    """Reads and checks a stats file the library wrote (schema version :data:`STATS_VERSION`).

    Raises:
        RuntimeToolError: the file cannot be read, is not JSON, has another schema version,
            lacks a key or has a value of the wrong type (the message names the file and key).
    """
    from numaplace.infile import InputError, read_input

    p = str(path)
    try:
        text = read_input(path, "stats file")
    except InputError as e:
        raise RuntimeToolError(str(e)) from None
    except OSError as e:
        raise RuntimeToolError(f"{p}: cannot read: {e.strerror or e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise RuntimeToolError(f"{p}: not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except UnicodeDecodeError:
        raise RuntimeToolError(f"{p}: not valid JSON: not UTF-8 text") from None
    except RecursionError:
        # The decoder recurses once per level of nesting; Python's recursion limit (1,000 by
        # default) bounds the depth, the file's size the memory.
        raise RuntimeToolError(f"{p}: not a numaplace stats file: JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise RuntimeToolError(f"{p}: not a numaplace stats file (expected a JSON object)")
    if "numaplace_stats" not in data:
        raise RuntimeToolError(f"{p}: missing key 'numaplace_stats' (not a numaplace stats file?)")
    version = data["numaplace_stats"]
    if version != STATS_VERSION or isinstance(version, bool):
        older = isinstance(version, int) and not isinstance(version, bool) and 0 < version < STATS_VERSION
        raise RuntimeToolError(
            f"{p}: key 'numaplace_stats' is {json.dumps(version)}: this numaplace reads version {STATS_VERSION}"
            + ("; an older libnumaplace wrote it: run the program again under this one" if older else "")
        )
    fields = STATS_SCHEMA["fields"]
    # The node count first: every per-node list is checked against it.
    _check_fields(p, data, [f for f in fields if f["name"] == "nodes"], "", None)
    nodes = data["nodes"]
    if nodes < 1:
        raise RuntimeToolError(f"{p}: key 'nodes' should be at least 1, not {nodes}")
    _check_fields(p, data, fields, "", nodes)
    return data


def _label(stats: Mapping[str, Any]) -> str:
    return f"{Path(stats['program']).name} ({stats['dynamic'].split(':', 1)[0]})"


def labels(all_stats: Sequence[Mapping[str, Any]]) -> list[str]:
    """A column label per stats file, ``program (dynamic)``, numbered when two would be equal."""
    base = [_label(s) for s in all_stats]
    return [f"{b} #{i + 1}" if base.count(b) > 1 else b for i, b in enumerate(base)]


_EPOCH_FIELDS = next(f for f in STATS_SCHEMA["fields"] if f["name"] == "epochs")["fields"]
# The frame's columns after file, program, dynamic and epoch: every scalar field of an epoch.
_FRAME_DTYPES = {"integer": "int64", "number": "float64", "share": "float64", "text": "object"}
_EPOCH_COLUMNS = [f for f in _EPOCH_FIELDS if f["kind"] in _FRAME_DTYPES]
STATS_FRAME_COLUMNS = ["file", "program", "dynamic", "epoch", *(f["name"] for f in _EPOCH_COLUMNS)]


def stats_frame(paths: Iterable[str | Path]) -> pd.DataFrame:
    """One row per epoch of every stats file: file, program, dynamic, epoch (index within its
    file), then every scalar field of an epoch in the schema's order (t_s, kind, samples,
    local_share, moved); a null number is NaN.

    Raises:
        RuntimeToolError: as :func:`load_stats`.
    """
    import pandas as pd

    rows = []
    for path in paths:
        s = load_stats(path)
        for i, e in enumerate(s["epochs"]):
            row = {"file": str(path), "program": s["program"], "dynamic": s["dynamic"], "epoch": i}
            for f in _EPOCH_COLUMNS:
                v = e[f["name"]]
                row[f["name"]] = math.nan if v is None else v
            rows.append(row)
    frame = pd.DataFrame(rows, columns=STATS_FRAME_COLUMNS)
    return frame.astype({"epoch": "int64", **{f["name"]: _FRAME_DTYPES[f["kind"]] for f in _EPOCH_COLUMNS}})


def samples_seen(stats: Mapping[str, Any]) -> int:
    """The samples the policy's decisions saw (their epochs' ``samples``): the count
    ``samples_local`` is a part of. Samples taken after the last decision, or in regions freed
    before any, are in ``faults_sampled`` but were never looked at."""
    return sum(e["samples"] for e in stats["epochs"])


def local_share_reason(stats: Mapping[str, Any]) -> str | None:
    """Why the local share of a stats file means nothing, or None when it does: one node
    (every access is local there), no samples (with the library's reason when it sampled
    nothing), or no policy decision that saw any."""
    if stats["nodes"] == 1:
        return "one NUMA node: every access is local"
    if stats["faults_sampled"] == 0:
        return f"no samples ({stats['source_reason']})" if stats["source"] == "none" and stats["source_reason"] else "no samples"
    if samples_seen(stats) == 0:
        return "no samples reached a policy decision"
    return None


def overall_local_share(stats: Mapping[str, Any]) -> float | None:
    """The share of the samples the policy's decisions saw that came from the node holding the
    page; None where that means nothing (:func:`local_share_reason`)."""
    if local_share_reason(stats) is not None:
        return None
    return min(1.0, stats["samples_local"] / samples_seen(stats))


def epoch_local_share(stats: Mapping[str, Any], epoch: Mapping[str, Any]) -> float | None:
    """An epoch's local share; None where it means nothing: one node, or a decision that saw
    no samples (the library writes 0 for those)."""
    if stats["nodes"] == 1 or epoch["samples"] == 0:
        return None
    return epoch["local_share"]


def thread_costs(stats: Mapping[str, Any]) -> list[float]:
    """Each faulting thread's cost of hinting faults, in seconds, in the file's order: its
    faults x the calibrated round trip + its time in the handler (empty without hinting
    faults)."""
    trip = stats["fault_round_trip_ns"]
    if trip is None:
        return []
    return [t["faults"] * trip / 1e9 + t["handler_s"] for t in stats["threads"]]


def sampling_cost(stats: Mapping[str, Any]) -> dict[str, Any]:
    """What sampling cost the run, as the library measured it in the process, in seconds:
    ``round_trips_s``, the hinting faults' trips through the kernel (``faults_handled`` x
    the ``fault_round_trip_ns`` calibrated at start-up; 0 without hinting faults),
    ``handler_s``, the time inside the fault handler, both summed over the program's threads;
    ``revoking_s``, the runtime's own time revoking and reopening pages and draining precise
    samples; ``summed_s``, the three added (CPU time: what the threads lost between them);
    ``critical_s``, the faults' cost on the critical path (``time_fault_critical_s``: per
    sampling interval, the slowest thread's); and ``total_s``, the estimate of the wall time
    sampling added: ``critical_s`` + ``revoking_s``. For one thread ``total_s`` equals
    ``summed_s``. The revoking is counted whole: the sampler thread's ``mprotect`` holds the
    process's memory map lock, which the faulting threads' own ``mprotect`` waits for, and
    its TLB shoot-downs interrupt them (docs/runtime.md, "What sampling costs, measured")."""
    trip = stats["fault_round_trip_ns"]
    parts = {
        "round_trips_s": 0.0 if trip is None else stats["faults_handled"] * trip / 1e9,
        "handler_s": stats["time_fault_handling_s"],
        "revoking_s": stats["time_revoking_s"],
    }
    critical = stats["time_fault_critical_s"]
    return {**parts, "summed_s": sum(parts.values()), "critical_s": critical, "total_s": critical + parts["revoking_s"]}


def summary(stats: Mapping[str, Any], path: str | Path | None = None) -> dict[str, Any]:
    """The figures ``numaplace report`` prints for one stats file, as plain data."""
    wall = stats["wall_s"]
    cost = sampling_cost(stats)
    return {
        "file": None if path is None else str(path),
        "program": stats["program"],
        "pid": stats["pid"],
        "nodes": stats["nodes"],
        "source": stats["source"],
        "source_reason": stats["source_reason"],
        "placement": stats["placement"],
        "dynamic": stats["dynamic"],
        "regions": len(stats["regions"]),
        "pages_moved": stats["pages_moved"],
        "move_failures": stats["move_failures"],
        "faults_sampled": stats["faults_sampled"],
        "samples_seen": samples_seen(stats),
        "samples_local": stats["samples_local"],
        "local_share": overall_local_share(stats),
        "local_share_reason": local_share_reason(stats),
        "faults_handled": stats["faults_handled"],
        "fault_round_trip_ns": stats["fault_round_trip_ns"],
        "time_fault_round_trips_s": cost["round_trips_s"],
        "time_fault_handling_s": cost["handler_s"],
        "time_revoking_s": cost["revoking_s"],
        "time_fault_critical_s": cost["critical_s"],
        "time_sampling_summed_s": cost["summed_s"],
        "time_sampling_s": cost["total_s"],
        "threads_faulting": len(stats["threads"]),
        "thread_cost_s": _spread(thread_costs(stats)),
        "time_migrating_s": stats["time_migrating_s"],
        "wall_s": wall,
        "sampling_share": cost["total_s"] / wall if wall else None,
        "overhead_share": (cost["total_s"] + stats["time_migrating_s"]) / wall if wall else None,
        "before": list(stats["before"]),
        "after": list(stats["after"]),
        "epochs": [dict(e) for e in stats["epochs"]],
    }


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.1%}"


def _secs(v: float, wall: float) -> str:
    return f"{v:.3f} s ({v / wall:.1%} of wall)" if wall else f"{v:.3f} s"


def _table(rows: list[list[str]], header: list[str], right: Sequence[bool] | None = None) -> list[str]:
    right = right or [False] * len(header)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(c.rjust(w) if rj else c.ljust(w) for c, w, rj in zip(r, widths, right)).rstrip()
        for r in [header, *rows]
    ]


def _samples_line(s: Mapping[str, Any]) -> str:
    taken = f"{s['faults_sampled']:,} taken"
    if s["local_share"] is None:
        return f"{taken}; local share n/a: {s['local_share_reason']}"
    return f"{taken}; {_pct(s['local_share'])} local of the {s['samples_seen']:,} the decisions saw"


def _spread(costs: Sequence[float]) -> dict[str, float] | None:
    """The least, median and largest of per-thread costs (None for no thread)."""
    if not costs:
        return None
    c = sorted(costs)
    mid = len(c) // 2
    return {"min": c[0], "median": c[mid] if len(c) % 2 else (c[mid - 1] + c[mid]) / 2, "max": c[-1]}


def _sampling_cost_lines(s: Mapping[str, Any]) -> list[str]:
    """The measured cost of sampling: the wall-time estimate and its parts, then what the
    threads' faults cost, summed and per thread (:func:`sampling_cost`)."""
    trip = s["fault_round_trip_ns"]
    head = f"{s['time_sampling_s']:.3f} s of wall time, estimated: "
    if trip is None:
        return [head + f"no hinting faults + revoking {s['time_revoking_s']:.3f} s"]
    spread = s["thread_cost_s"]
    n = s["threads_faulting"]
    each = "" if spread is None else (
        f"{spread['max']:.3f} s" if n == 1 else
        f"{spread['min']:.3f}-{spread['max']:.3f} s each, median {spread['median']:.3f} s")
    return [
        head + f"faults on the critical path {s['time_fault_critical_s']:.3f} s + revoking {s['time_revoking_s']:.3f} s",
        f"              measured: {s['faults_handled']:,} faults x {trip:,.0f} ns round trip = {s['time_fault_round_trips_s']:.3f} s"
        f" + fault handler {s['time_fault_handling_s']:.3f} s, in {n:,} thread{'s' * (n != 1)}"
        f"{f' ({each})' if each else ''}; with revoking {s['time_sampling_summed_s']:.3f} s summed over threads",
    ]


def format_summary(stats: Mapping[str, Any], path: str | Path) -> str:
    """The text ``numaplace report`` prints for one stats file."""
    s = summary(stats, path)
    wall = s["wall_s"]
    lines = [
        f"== {path}",
        f"program       {s['program']} (pid {s['pid']})",
        f"source        {s['source']}: {s['source_reason']}",
        f"placement     {s['placement']}",
        f"dynamic       {s['dynamic']}",
        f"regions       {s['regions']} managed",
        f"pages moved   {s['pages_moved']:,} ({s['move_failures']:,} failures, {stats['busy_retries']:,} busy retries,"
        f" {stats['fallbacks']:,} fallbacks) in {stats['invocations']:,} invocations",
        f"samples       {_samples_line(s)}",
        f"time          wall {wall:.3f} s; sampling {_secs(s['time_sampling_s'], wall)};"
        f" migrating {_secs(s['time_migrating_s'], wall)}",
        *(f"sampling cost {x}" if i == 0 else x for i, x in enumerate(_sampling_cost_lines(s))),
        "",
    ]
    rows = [[str(n), f"{b:,}", f"{a:,}", f"{a - b:+,}"] for n, (b, a) in enumerate(zip(s["before"], s["after"]))]
    rows.append(["all", f"{sum(s['before']):,}", f"{sum(s['after']):,}", f"{sum(s['after']) - sum(s['before']):+,}"])
    lines += _table(rows, ["node", "pages before", "pages after", "change"], [True] * 4)
    lines.append("")
    if s["epochs"]:
        rows = [
            [str(i), f"{e['t_s']:.3f}", e["kind"], f"{e['samples']:,}", _pct(epoch_local_share(stats, e)), f"{e['moved']:,}"]
            for i, e in enumerate(s["epochs"])
        ]
        lines += _table(rows, ["epoch", "t (s)", "kind", "samples", "local", "moved"], [True, True, False, True, True, True])
    else:
        lines.append("no epochs")
    return "\n".join(lines)


def format_comparison(all_stats: Sequence[Mapping[str, Any]]) -> str:
    """Local share of samples per epoch index, one column per stats file."""
    cols = labels(all_stats)
    n = max((len(s["epochs"]) for s in all_stats), default=0)
    rows = [
        [str(i)] + [_pct(epoch_local_share(s, s["epochs"][i])) if i < len(s["epochs"]) else "" for s in all_stats]
        for i in range(n)
    ]
    rows.append(["all"] + [_pct(overall_local_share(s)) for s in all_stats])
    return "\n".join(["local share of samples per epoch", *_table(rows, ["epoch", *cols], [True] * (len(cols) + 1))])


def plot_stats(all_stats: Sequence[Mapping[str, Any]], names: Sequence[str] | None = None) -> Figure:
    """A figure of two panels: pages per node before and after (bars, per file) and the local
    share of samples per epoch against time (a line per file). Where no file has a local
    share that means anything (:func:`local_share_reason`: one node, no samples), the second
    panel is a note saying why instead of an empty chart; a file without one among others is
    named in the legend with its reason."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from numaplace.plot import DPI, FIGSIZE, PALETTE

    names = list(names) if names is not None else labels(all_stats)
    fig = Figure(figsize=(FIGSIZE[0] * 1.6, FIGSIZE[1]), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    bars, line = fig.subplots(1, 2)
    nodes = max(s["nodes"] for s in all_stats)
    x = np.arange(nodes)
    # One colour per file (the same in both panels); "before" bars are pale and hatched.
    colours = [PALETTE[k % len(PALETTE)] for k in range(len(all_stats))]  # the report's palette
    series = [(f"{name}: {when}", s[when], colours[k], when == "before")
              for k, (name, s) in enumerate(zip(names, all_stats)) for when in ("before", "after")]
    width = 0.8 / len(series)
    for i, (label, values, colour, before) in enumerate(series):
        padded = list(values) + [0] * (nodes - len(values))
        bars.bar(x + (i - (len(series) - 1) / 2) * width, padded, width, label=label, color=colour,
                 alpha=0.4 if before else 1.0, hatch="//" if before else None)
    bars.set_xticks(x, [str(n) for n in range(nodes)])
    bars.set_xlabel("node")
    bars.set_ylabel("pages of managed regions")
    bars.set_title("pages per node, before and after")
    # Below the axes, never over a bar.
    bars.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.18), ncols=2)
    reasons = [local_share_reason(s) for s in all_stats]
    if all(reasons):
        line.set_axis_off()
        why = "\n".join(f"{name}: {r}" for name, r in zip(names, reasons)) if len(set(reasons)) > 1 else reasons[0]
        line.text(0.5, 0.5, f"local share per epoch: not applicable\n{why}", ha="center", va="center",
                  wrap=True, transform=line.transAxes)
        return fig
    for k, (name, s, why) in enumerate(zip(names, all_stats, reasons)):
        if why:
            line.plot([], [], color=colours[k], label=f"{name}: n/a ({why})")
            continue
        t = [e["t_s"] for e in s["epochs"]]
        share = [math.nan if (v := epoch_local_share(s, e)) is None else v for e in s["epochs"]]
        line.plot(t, share, marker="o", label=name, color=colours[k])
    line.set_ylim(0, 1.05)
    line.set_xlabel("time (s)")
    line.set_ylabel("local share of samples")
    line.set_title("local share per epoch")
    line.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.18))
    return fig


def stats_notice(given: str, written: bool, min_bytes: int, killed_by: int | None = None, status: int = 0) -> str:
    """What ``numaplace run --stats FILE`` says after the program exits: where the stats went
    and the command to read them, or why there are none (``given`` as the user wrote it;
    ``killed_by``: the signal that killed the program, if one did; else ``status``, its exit
    status). The launcher sees how the program ended, not how each of its processes did: with
    no stats and no signal it says what it saw and each way a process writes none, rather than
    blaming one (a process that allocated enough, then exec'd or called _exit, writes none)."""
    import shlex

    if written:
        png = Path(given).with_suffix(".png") if Path(given).suffix else Path(given + ".png")
        return f"numaplace: stats in {given}; next: numaplace report {shlex.quote(given)} --plot {shlex.quote(str(png))}"
    if killed_by is not None:
        return (f"numaplace: no stats written to {given}: the program was killed by {signal_name(killed_by)}"
                " before its exit (the library writes the file at exit)")
    return (f"numaplace: no stats written to {given}: the program exited with status {status} and no process of it"
            f" wrote them; a process writes them as it ends by exit() or a return from main, if it allocated at"
            f" least {min_bytes:,} bytes (--min-bytes), and writes none if it ends by _exit(), by exec'ing another"
            " program or in a crash")


RUN_HINT = "numaplace: add --stats FILE to record what was placed and moved (then: numaplace report FILE)"
"""``numaplace run``'s one line after a run without ``--stats``, on a terminal only."""
