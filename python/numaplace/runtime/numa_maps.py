"""How a running process's memory is spread over NUMA nodes, from ``/proc/PID/numa_maps``."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from numaplace.runtime.base import RuntimeToolError

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
