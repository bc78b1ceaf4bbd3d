"""Shared helpers for the CLI and API tests: running the CLI, and a small valid machine file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

# Ctrl-C must reach the programs these tests start and interrupt. A non-interactive shell that
# runs `make test` as a background job (`.ci/run &` in a script, some CI runners) starts it with
# SIGINT ignored; every child inherits that, and a Python started with SIGINT ignored never
# raises KeyboardInterrupt, so the tests that interrupt a sweep or a run would see it finish
# instead (seen: exit 0 where 130 was due). A handler installed here is reset to the default in
# each child at exec, where "ignored" would have been inherited.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# A complete, valid two-node machine (every key of docs/machines.md). Tests mutate it to make
# invalid files; keep each mutated line unique so a plain str.replace hits exactly one place.
TWO_NODE_TOML = """\
name = "two-node"
description = "a small test machine"
page_size = 4096
line_size = 64
mlp = 2.0
latency_ns = [
    [100.0, 200.0],
    [200.0, 100.0],
]

[migration]
fixed_ns = 1000.0
copy_gbps = 4.0
tlb_shootdown_ns_per_cpu = 500.0

[[nodes]]   # node 0
cpus = 4
memory_mib = 1024
bandwidth_gbps = 10.0
[[nodes]]   # node 1
cpus = 4
memory_mib = 2048
bandwidth_gbps = 10.0
"""


# Four nodes of one CPU each, 4 KiB pages: the shape of a small NUMA host for recorded traces
# (the advise diagnosis' golden, the recorder's 4-node replays).
FOUR_NODE_TOML = """\
name = "four-node"
description = "four nodes of one CPU each"
page_size = 4096
line_size = 64
mlp = 2.0
latency_ns = [
    [100.0, 200.0, 200.0, 200.0],
    [200.0, 100.0, 200.0, 200.0],
    [200.0, 200.0, 100.0, 200.0],
    [200.0, 200.0, 200.0, 100.0],
]

[migration]
fixed_ns = 1000.0
copy_gbps = 4.0
tlb_shootdown_ns_per_cpu = 500.0
""" + "".join("\n[[nodes]]\ncpus = 1\nmemory_mib = 1024\nbandwidth_gbps = 10.0\n" for _ in range(4))


@pytest.fixture
def four_node_toml() -> str:
    """The text of a valid four-node machine of one CPU a node, 4 KiB pages."""
    return FOUR_NODE_TOML


@pytest.fixture
def two_node_toml() -> str:
    """The text of a valid two-node machine file."""
    return TWO_NODE_TOML


@dataclass
class Run:
    """The outcome of one CLI invocation."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def stderr_lines(self) -> list[str]:
        return self.stderr.splitlines()


def _cli_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("NUMAPLACE_DEBUG", None)  # tracebacks must never be shown by default
    return env


@pytest.fixture
def cli(tmp_path: Path) -> Callable[..., Run]:
    """Runs ``python -m numaplace ARGS`` (the venv's interpreter) in ``tmp_path``."""

    def run(*args: str, cwd: Path | None = None) -> Run:
        p = subprocess.run(
            [sys.executable, "-m", "numaplace", *map(str, args)],
            capture_output=True,
            text=True,
            cwd=cwd or tmp_path,
            env=_cli_env(),
            timeout=60,
        )
        return Run(p.returncode, p.stdout, p.stderr)

    return run


@pytest.fixture
def machine_file(tmp_path: Path) -> Callable[..., Path]:
    """Writes a machine file: ``TWO_NODE_TOML`` with each ``(old, new)`` replacement applied."""

    def make(*replacements: tuple[str, str], name: str = "machine.toml", text: str | None = None) -> Path:
        body = TWO_NODE_TOML if text is None else text
        for old, new in replacements:
            assert body.count(old) == 1, f"mutation {old!r} must hit exactly one place"
            body = body.replace(old, new)
        path = tmp_path / name
        path.write_text(body)
        return path

    return make


@pytest.fixture
def sysfs(tmp_path: Path) -> Path:
    """A fake ``/sys/devices/system/node`` with two 4-CPU, 4 GiB nodes, SLIT ``10 21 / 21 10``."""
    root = tmp_path / "sysfs"
    for n, dist in ((0, "10 21"), (1, "21 10")):
        d = root / f"node{n}"
        d.mkdir(parents=True)
        (d / "cpulist").write_text("0-3\n" if n == 0 else "4-7\n")
        (d / "meminfo").write_text(f"Node {n} MemTotal:        4194304 kB\nNode {n} MemFree:  1000 kB\n")
        (d / "distance").write_text(dist + "\n")
    return root



@pytest.fixture
def tiny_tmpfs(tmp_path: Path):
    """A function mounting a tmpfs of a given size (e.g. ``"4k"``) on a new directory under
    ``tmp_path`` and returning it; skips the test without root or where this process may not
    mount. Unmounted at teardown."""
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        where = tmp_path / f"tmpfs-{len(mounted)}"
        where.mkdir()
        if os.geteuid() != 0:
            pytest.skip("mounting a tmpfs needs root")
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
        mounted.append(where)
        return where

    yield mount
    for where in mounted:
        subprocess.run(["umount", str(where)], check=True)
