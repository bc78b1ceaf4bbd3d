"""Launching a program under the library: the environment it reads, the checks before the
program starts (found, executable, preloadable) and the launcher that waits for it."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from numaplace.record import signal_name
from numaplace.runtime.base import (
    _RUNTIME,
    DEFAULT_DYNAMIC,
    DEFAULT_MIN_BYTES,
    ENV_VARS,
    LIB_NAME,
    RUNTIME_OPTIONS,
    SOURCES,
    RuntimeToolError,
)

# A node list (`2`, `2-3`, `1,3`): the `slow_nodes` setting's syntax, checked before launch.
_NODE_LIST = re.compile(r"\d+(-\d+)?(,\d+(-\d+)?)*")


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
    slow_nodes: str | None = None,
    base: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment to run a program under the library: ``base`` (default ``os.environ``)
    with ``lib`` prepended to ``LD_PRELOAD`` (once) and every ``NUMAPLACE_*`` variable the
    library reads set, or removed when not wanted (no stats file, not verbose, not forced to
    sample on a one-node host), so nothing stale is inherited. ``stats`` is made absolute:
    the program may change directory. ``slow_nodes``: nodes the library's machine ranks in a
    slower memory tier (besides those the kernel ranks below its top tier)."""
    if source not in SOURCES:
        raise RuntimeToolError(f"source '{source}': expected one of: {', '.join(SOURCES)}")
    if isinstance(min_bytes, bool) or not isinstance(min_bytes, int) or min_bytes < 0:
        raise RuntimeToolError(f"min-bytes {min_bytes!r}: expected a non-negative integer")
    if slow_nodes is not None and not _NODE_LIST.fullmatch(slow_nodes):
        raise RuntimeToolError(f"slow-nodes {slow_nodes!r}: expected a node list such as 2 or 2-3")
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
    if slow_nodes:
        env[var["slow_nodes"]] = slow_nodes
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
