"""`numaplace topo --detect` with and without ACPI HMAT, on fake sysfs trees (issue 15).

The kernel publishes HMAT figures per memory node in ``nodeN/access1/initiators/`` (CPU
initiators) or ``access0/initiators/`` (any initiator): ``read_latency`` in ns and
``read_bandwidth`` in MiB/s (Documentation/admin-guide/mm/numaperf.rst). Where it does, they
replace the assumed 90 ns and 20 GB/s; where it does not, the file and stderr say what was
assumed.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import numaplace


def make_tree(root: Path, nodes: list[tuple[str, int, str]]) -> Path:
    """Node directories from (cpulist, MemTotal kB, SLIT row)."""
    for i, (cpus, kb, dist) in enumerate(nodes):
        d = root / f"node{i}"
        d.mkdir(parents=True)
        (d / "cpulist").write_text(cpus + "\n")
        (d / "meminfo").write_text(f"Node {i} MemTotal:       {kb} kB\nNode {i} MemFree: 1 kB\n")
        (d / "distance").write_text(dist + "\n")
    return root


def publish(root: Path, node: int, files: dict[str, str], initiators: list[int], cls: str = "access1") -> None:
    d = root / f"node{node}" / cls / "initiators"
    d.mkdir(parents=True)
    for name, text in files.items():
        (d / name).write_text(text + "\n")
    for k in initiators:
        (d / f"node{k}").symlink_to(f"../../../node{k}")


@pytest.fixture
def two(tmp_path: Path) -> Path:
    return make_tree(tmp_path / "sys", [("0-3", 4 << 20, "10 21"), ("4-7", 4 << 20, "21 10")])


def comments(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("#")]


def test_without_hmat_the_file_and_stderr_say_what_was_assumed(cli, two, tmp_path):
    out = tmp_path / "host.toml"
    r = cli("topo", "--detect", "--sysfs", two, "--out", out)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    assert "# assumed local latency 90 ns on node 0-1 (no HMAT read_latency)" in comments(text)
    assert "# assumed bandwidth 20 GB/s on node 0-1 (no HMAT read_bandwidth)" in comments(text)
    assert tomllib.loads(text)["latency_ns"] == [[90.0, 189.0], [189.0, 90.0]]
    assert r.stderr_lines[0] == f"wrote {out}"
    assert r.stderr_lines[1].startswith("numaplace: note: assumed local latency 90 ns on node 0-1")
    assert r.stderr_lines[1].endswith("set them with --local-ns / --bandwidth-gbps")


def test_hmat_on_every_node_is_used_and_nothing_is_assumed(cli, two):
    publish(two, 0, {"read_latency": "85", "read_bandwidth": "190735", "write_latency": "95"}, [0])
    publish(two, 1, {"read_latency": "95", "read_bandwidth": "190735"}, [1])
    r = cli("topo", "--detect", "--sysfs", two, "--local-ns", "1000")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # nothing assumed, nothing to note
    data = tomllib.loads(r.stdout)
    # --local-ns applies only where HMAT is silent. 21 / 10 from each side: (95 + 85) x 2.1 / 2.
    assert data["latency_ns"] == [[85.0, 189.0], [189.0, 95.0]]
    assert [round(n["bandwidth_gbps"], 3) for n in data["nodes"]] == [200.0, 200.0]  # 190735 MiB/s
    assert not [c for c in comments(r.stdout) if c.startswith("# assumed")]
    assert "# local latency: HMAT access1/initiators/read_latency on node 0-1" in comments(r.stdout)


def test_partial_hmat_names_the_nodes_whose_values_were_assumed(cli, two):
    publish(two, 1, {"read_latency": "120", "read_bandwidth": "0"}, [1], cls="access0")
    r = cli("topo", "--detect", "--sysfs", two)
    assert r.returncode == 0, r.stderr
    assert "# assumed local latency 90 ns on node 0 (no HMAT read_latency)" in comments(r.stdout)
    assert "# assumed bandwidth 20 GB/s on node 0-1 (no HMAT read_bandwidth)" in comments(r.stdout)
    assert tomllib.loads(r.stdout)["latency_ns"] == [[90.0, 220.5], [220.5, 120.0]]


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [("read_latency", "n/a", '"n/a" is not a whole number'), ("read_bandwidth", "0", None), ("read_latency", "9999999", "outside the machine bounds")],
)
def test_a_malformed_hmat_file_is_one_error_line_naming_it(cli, two, name, text, says):
    from test_cli import assert_usage_error

    publish(two, 0, {name: text}, [0])
    r = cli("topo", "--detect", "--sysfs", two)
    if says is None:  # 0 is the kernel's "not published": assumed, and said
        assert r.returncode == 0 and "no HMAT read_bandwidth" in r.stderr
    else:
        assert_usage_error(r, str(two / "node0" / "access1" / "initiators" / name), says)


def test_a_cxl_like_cpu_less_node_is_described_and_simulates(cli, tmp_path):
    root = make_tree(
        tmp_path / "sys",
        [("0-1", 1 << 20, "10 21 24"), ("2-3", 1 << 20, "21 10 34"), ("", 2 << 20, "24 34 10")],
    )
    publish(root, 2, {"read_latency": "240", "read_bandwidth": "47684"}, [0])
    out = tmp_path / "cxl.toml"
    assert cli("topo", "--detect", "--sysfs", root, "--out", out).returncode == 0
    data = tomllib.loads(out.read_text())
    assert [n["cpus"] for n in data["nodes"]] == [2, 2, 0]
    assert data["latency_ns"][0][2] == 240.0  # from its initiator, node 0
    assert data["latency_ns"][1][2] == 340.0  # 240 x 34 / 24
    r = numaplace.simulate(machine=str(out), workload="stream:pages=64,iterations=1", placement="round-robin", threads=4)
    assert r.per_node_pages[2] > 0
