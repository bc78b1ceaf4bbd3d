"""Real-kernel NUMA tests in a qemu VM (vm/numavm.py).

Two boots in total: a 4-node VM (default memory, NUMA balancing off) that
runs the OpenMP move_pages smoke program and reads the topology, and a
2-node VM with unequal node memory and NUMA balancing on whose script fails
on purpose.  Skipped, with the reason, when qemu or the kernel image is
missing (vm/setup.sh installs them) or gcc cannot build OpenMP programs.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

VM_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(VM_DIR))
import numavm  # noqa: E402

SMOKE_SRC = Path(__file__).resolve().parent / "numa_smoke.c"


def _require_vm() -> None:
    ok, why = numavm.available()
    if not ok:
        pytest.skip(why)


def _sections(output: str) -> dict[str, str]:
    """Split output on '== name ==' header lines."""
    parts: dict[str, str] = {}
    name = None
    for line in output.splitlines():
        m = re.fullmatch(r"== (\S+) ==", line)
        if m:
            name = m.group(1)
            parts[name] = ""
        elif name is not None:
            parts[name] += line + "\n"
    return parts


def _node_memtotal_kb(text: str) -> dict[int, int]:
    return {int(n): int(kb) for n, kb in re.findall(r"Node (\d+) MemTotal:\s+(\d+) kB", text)}


def _check_node_memory(memtotal: dict[int, int], asked_mb: list[int]) -> None:
    assert sorted(memtotal) == list(range(len(asked_mb))), memtotal
    for node, mb in enumerate(asked_mb):
        kb = memtotal[node]
        # The kernel keeps some memory: its own image, initramfs and low
        # reservations on node 0 (~45 MiB), struct pages (~1.6%) everywhere.
        slack = 64 * 1024 if node == 0 else mb * 1024 // 20
        assert mb * 1024 - slack <= kb <= mb * 1024, (node, kb, mb)


SCRIPT_4NODES = """
echo "== smoke =="
/bin/numa_smoke 4 256; echo "smoke rc=$?"
echo "== balancing =="
cat /proc/sys/kernel/numa_balancing
echo "== online =="
cat /sys/devices/system/node/online
echo "== meminfo =="
cat /sys/devices/system/node/node*/meminfo
echo "== tmp =="
ls /tmp/in; mount | grep -c " /tmp type tmpfs"
"""


@pytest.fixture(scope="module")
def four_nodes(tmp_path_factory):
    _require_vm()
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not found on PATH (needed to build vm/tests/numa_smoke.c)")
    exe = tmp_path_factory.mktemp("vm") / "numa_smoke"
    build = subprocess.run([gcc, "-O2", "-fopenmp", "-Wall", "-o", str(exe), str(SMOKE_SRC)],
                           capture_output=True, text=True)
    if build.returncode != 0:
        pytest.skip(f"gcc -fopenmp cannot build numa_smoke.c: {build.stderr.strip()[-300:]}")
    files = {"/bin/numa_smoke": str(exe), "/tmp/in/copy": str(SMOKE_SRC)}
    res = numavm.run(SCRIPT_4NODES, files, nodes=4)
    return res, _sections(res.output)


def test_smoke_first_touch_and_move_pages(four_nodes):
    res, sec = four_nodes
    out = sec["smoke"]
    assert "smoke rc=0" in out, res.output
    for line in ["nodes: 4", "first touch: 1024 pages on node 0",
                 "placement: every block on its thread's node", "numa_smoke: OK"]:
        assert line in out.splitlines(), (line, res.output)
    for k in range(4):
        assert f"node {k}: cpu {k}" in out.splitlines()
        assert f"moved block {k}: 256 pages -> node {k}" in out.splitlines()
    assert re.search(r"^checksum: unchanged \([0-9a-f]{16}\)$", out, re.M)
    assert res.rc == 0


def test_numa_balancing_off_by_default(four_nodes):
    _, sec = four_nodes
    assert sec["balancing"].strip() == "0"


def test_four_nodes_with_requested_memory(four_nodes):
    res, sec = four_nodes
    assert sec["online"].strip() == "0-3"
    _check_node_memory(_node_memtotal_kb(sec["meminfo"]), [256] * 4)
    assert res.boot_seconds > 0 and res.total_seconds >= res.boot_seconds


def test_files_under_tmp_survive_the_tmpfs_mount(four_nodes):
    _, sec = four_nodes
    assert sec["tmp"] == "copy\n1\n"


def test_balancing_on_uneven_nodes_and_failing_rc():
    """One boot: numa_balancing=True, 2 nodes of 160/320 MiB, script exits 7."""
    _require_vm()
    script = """
echo "== balancing =="
cat /proc/sys/kernel/numa_balancing
echo "== cmdline =="
cat /proc/cmdline
echo "== online =="
cat /sys/devices/system/node/online
echo "== meminfo =="
cat /sys/devices/system/node/node*/meminfo
echo "== fail =="
echo "about to fail" >&2
exit 7
"""
    res = numavm.run(script, nodes=2, node_mem_mb=[160, 320], numa_balancing=True)
    sec = _sections(res.output)
    assert res.rc == 7, res.output
    assert sec["fail"] == "about to fail\n"  # stderr is captured too
    assert sec["balancing"].strip() == "1"
    assert "numa_balancing=enable" in sec["cmdline"].split()
    assert sec["online"].strip() == "0-1"
    _check_node_memory(_node_memtotal_kb(sec["meminfo"]), [160, 320])


def test_unavailable_is_reported(monkeypatch, tmp_path):
    """Without a kernel image, available() says so and run() raises one line."""
    monkeypatch.setenv("NUMAPLACE_VM_CACHE", str(tmp_path / "empty"))
    ok, why = numavm.available()
    assert not ok and "vm/setup.sh" in why and "\n" not in why
    with pytest.raises(numavm.VMUnavailable, match="vm/setup.sh"):
        numavm.run("true")
