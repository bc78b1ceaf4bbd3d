"""Tests of the ``numaplace`` command line, run as ``python -m numaplace`` subprocesses.

Every bad input must end in exit status 2 with exactly one ``numaplace: error:`` line on
stderr, nothing on stdout and no traceback.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from pathlib import Path

import pytest

import numaplace
from numaplace import cli as cli_module

SMALL_STREAM = "stream:pages=64,iterations=2"
SMALL_RANDOM = "random:accesses=500"
# The shipped presets are the files of machines/ (crates/sim/build.rs), in name order.
PRESETS = sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "machines").glob("*.toml"))
WORKLOADS = ["stream", "random", "traverse"]
PLACEMENTS = ["first-touch", "round-robin", "random", "worst-case", "bind", "block", "oracle"]


def assert_usage_error(run, *needles: str) -> str:
    """Checks the one-line error contract; returns the message. Each needle must appear in it."""
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr and "Traceback" not in run.stdout
    assert run.stdout == "", run.stdout
    assert len(run.stderr_lines) == 1, run.stderr
    line = run.stderr_lines[0]
    assert line.startswith("numaplace: error:"), line
    for needle in needles:
        assert needle in line, f"{needle!r} not in {line!r}"
    return line


# --- error cases: names -------------------------------------------------------------------


def test_unknown_machine_lists_presets(cli):
    msg = assert_usage_error(cli("sim", "--machine", "origin3000", "--workload", SMALL_STREAM), "origin3000")
    for name in PRESETS:
        assert name in msg


def test_unknown_workload_lists_workloads(cli):
    msg = assert_usage_error(cli("sim", "--workload", "nas-zz"), "nas-zz")
    for name in WORKLOADS:
        assert name in msg


def test_unknown_placement_lists_placements(cli):
    msg = assert_usage_error(cli("sim", "--workload", SMALL_STREAM, "--placement", "nearest"), "nearest")
    for name in PLACEMENTS:
        assert name in msg


def test_unknown_workload_parameter_lists_valid_keys(cli):
    msg = assert_usage_error(cli("sim", "--workload", "stream:x=1"), "'x'")
    for key in ("pages", "arrays", "iterations", "think_ns"):
        assert key in msg


def test_bad_choice_parameter_value(cli):
    msg = assert_usage_error(cli("sim", "--workload", "traverse:pattern=zigzag"), "pattern", "zigzag")
    for choice in ("sequential", "strided", "random"):
        assert choice in msg


def test_bind_to_missing_node(cli):
    assert_usage_error(cli("sim", "--workload", SMALL_STREAM, "--placement", "bind:node=99"), "node=99")


@pytest.mark.parametrize(
    ("spec", "needle"),
    [("stream:pages=abc", "pages=abc"), ("random:write_fraction=2", "write_fraction"), ("stream:pages", "pages")],
)
def test_other_bad_workload_specs(cli, spec, needle):
    assert_usage_error(cli("sim", "--workload", spec), needle)


def test_bad_binding_choice_is_one_line(cli):
    assert_usage_error(cli("sim", "--binding", "diagonal"), "--binding", "diagonal")


# --- error cases: machine files -----------------------------------------------------------


def test_malformed_toml_names_the_file(cli, machine_file):
    path = machine_file(text='name = "x"\npage_size = [')
    assert_usage_error(cli("sim", "--machine", path, "--threads", "2", "--workload", SMALL_STREAM), str(path))


@pytest.mark.parametrize(
    ("mutation", "needles"),
    [
        pytest.param(("mlp = 2.0\n", 'mlp = 2.0\ncolour = "red"\n'), ["colour"], id="unknown-top-level-key"),
        pytest.param(("copy_gbps = 4.0\n", "copy_gbps = 4.0\nspeed = 1\n"), ["speed"], id="unknown-migration-key"),
        pytest.param(("memory_mib = 2048\n", "memory_mib = 2048\nsocket = 1\n"), ["socket"], id="unknown-node-key"),
        pytest.param(("cpus = 4\nmemory_mib = 1024", 'cpus = "two"\nmemory_mib = 1024'), ["cpus", "two"], id="wrong-type"),
        pytest.param(("[200.0, 100.0]", "[250.0, 100.0]"), ["latency_ns", "symmetric"], id="asymmetric-latency"),
        pytest.param(("[100.0, 200.0]", "[-100.0, 200.0]"), ["latency_ns", "-100"], id="negative-latency"),
        pytest.param(("mlp = 2.0\n", ""), ["mlp"], id="missing-key"),
        pytest.param(("page_size = 4096", "page_size = 1000"), ["page_size"], id="page-size-not-power-of-two"),
    ],
)
def test_invalid_machine_file_names_file_and_key(cli, machine_file, mutation, needles):
    path = machine_file(mutation)
    assert_usage_error(cli("sim", "--machine", path, "--threads", "2", "--workload", SMALL_STREAM), str(path), *needles)


def test_machine_file_without_cpus(cli, machine_file):
    path = machine_file(("cpus = 4\nmemory_mib = 1024", "cpus = 0\nmemory_mib = 1024"), ("cpus = 4\nmemory_mib = 2048", "cpus = 0\nmemory_mib = 2048"))
    assert_usage_error(cli("sim", "--machine", path, "--threads", "1", "--workload", SMALL_STREAM), str(path), "cpus")


def test_valid_machine_file_runs(cli, machine_file):
    """The base file the mutations start from is itself valid (so each mutation is the cause)."""
    path = machine_file()
    r = cli("sim", "--machine", path, "--threads", "8", "--workload", SMALL_STREAM)
    assert r.returncode == 0, r.stderr
    assert "two-node (2 nodes, 8 CPUs)" in r.stdout


def test_missing_machine_file_names_path(cli, tmp_path):
    path = tmp_path / "nowhere" / "gone.toml"
    assert_usage_error(cli("sim", "--machine", path, "--workload", SMALL_STREAM), str(path))


def test_machines_command_with_bad_file(cli, machine_file):
    path = machine_file(("[200.0, 100.0]", "[250.0, 100.0]"))
    assert_usage_error(cli("machines", path), str(path), "latency_ns")


# --- error cases: threads, argparse, output -----------------------------------------------


def test_too_many_threads_needs_oversubscribe(cli):
    assert_usage_error(cli("sim", "--machine", "origin2000", "--threads", "17", "--workload", SMALL_STREAM), "--oversubscribe", "17")
    ok = cli("sim", "--machine", "origin2000", "--threads", "17", "--oversubscribe", "--workload", SMALL_STREAM)
    assert ok.returncode == 0, ok.stderr
    assert "threads       17" in ok.stdout


@pytest.mark.parametrize("value", ["x", "0", "-3"])
def test_bad_thread_count_is_one_line(cli, value):
    assert_usage_error(cli("sim", "--threads", value, "--workload", SMALL_STREAM), "threads")


def test_unknown_command_and_option_are_one_line(cli):
    assert_usage_error(cli("simulate"), "simulate")
    assert_usage_error(cli("sim", "--colour", "red"), "--colour")


def test_json_into_missing_directory_leaves_nothing(cli, tmp_path):
    target = tmp_path / "no-such-dir" / "out.json"
    before = sorted(p.name for p in tmp_path.iterdir())
    assert_usage_error(cli("sim", "--workload", SMALL_STREAM, "--json", target), str(target))
    assert not target.exists()
    assert not target.parent.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_json_onto_a_directory_leaves_nothing(cli, tmp_path):
    target = tmp_path / "adir"
    target.mkdir()
    assert_usage_error(cli("sim", "--workload", SMALL_STREAM, "--json", target), str(target))
    assert target.is_dir() and list(target.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir"]


def test_failed_run_does_not_overwrite_json(cli, tmp_path):
    out = tmp_path / "keep.json"
    out.write_text("old")
    assert_usage_error(cli("sim", "--workload", "nas-zz", "--json", out), "nas-zz")
    assert out.read_text() == "old"


def test_out_of_memory_is_one_line(cli):
    assert_usage_error(cli("sim", "--workload", "random:pages=10000000"), "10000000")


def test_in_process_errors_return_2(capsys):
    assert cli_module.main(["sim", "--machine", "origin3000"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("numaplace: error:") and "origin3000" in err


# --- determinism and the JSON result ------------------------------------------------------


def test_sim_json_is_deterministic(cli, tmp_path):
    args = ["sim", "--workload", SMALL_RANDOM, "--placement", "random", "--threads", "4", "--seed", "3"]
    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    for path, seed in ((a, "3"), (b, "3"), (c, "4")):
        r = cli(*args[:-1], seed, "--json", path)
        assert r.returncode == 0, r.stderr
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()
    # The difference is in the placement itself, not only in the recorded seed.
    ra, rc = json.loads(a.read_text()), json.loads(c.read_text())
    assert ra["per_node_pages"] != rc["per_node_pages"]
    assert sum(ra["per_node_pages"]) == sum(rc["per_node_pages"])


def test_sim_json_fields(cli, tmp_path):
    out = tmp_path / "r.json"
    r = cli("sim", "--workload", SMALL_STREAM, "--placement", "round-robin", "--threads", "4", "--seed", "5", "--json", out)
    assert r.returncode == 0, r.stderr
    d = json.loads(out.read_text())
    assert isinstance(d["total_time_ns"], float) and d["total_time_ns"] > 0
    assert d["iterations"] == 2
    assert isinstance(d["per_iteration_time_ns"], list) and len(d["per_iteration_time_ns"]) == 2
    assert isinstance(d["transactions"], int) and d["transactions"] > 0
    assert 0.0 <= d["local_fraction"] <= 1.0
    assert len(d["per_node_transactions"]) == 8 and sum(d["per_node_transactions"]) == d["transactions"]
    for key in ("migrations", "replications"):
        assert isinstance(d[key], int) and d[key] >= 0
    assert isinstance(d["policy_overhead_ns"], float)
    c = d["config"]
    assert c["machine"] == "origin2000"
    assert c["placement"] == "round-robin"
    assert c["threads"] == 4
    assert c["seed"] == 5
    assert c["machine_spec"]["name"] == "origin2000" and len(c["machine_spec"]["nodes"]) == 8
    # The workload is the canonical spec with every default filled in.
    w = c["workload"]
    assert w.startswith("stream:")
    params = dict(kv.split("=", 1) for kv in w.split(":", 1)[1].split(","))
    assert params["pages"] == "64" and params["iterations"] == "2"
    assert set(params) == {"pages", "arrays", "iterations", "think_ns"}
    # The summary on stdout agrees with the file.
    assert f"{d['transactions']:,}" in r.stdout
    assert w in r.stdout


def test_json_output_ends_with_newline_and_is_pretty(cli, tmp_path):
    out = tmp_path / "r.json"
    assert cli("sim", "--workload", SMALL_STREAM, "--json", out).returncode == 0
    text = out.read_text()
    assert text.endswith("}\n")
    assert "\n  " in text  # indented


# --- listings -----------------------------------------------------------------------------


def test_machines_lists_presets(cli):
    r = cli("machines")
    assert r.returncode == 0 and r.stderr == ""
    first_column = [line.split()[0] for line in r.stdout.splitlines()[1:] if line.strip()]
    assert sorted(first_column) == sorted(PRESETS)
    assert re.search(r"^origin2000 +8 +16 ", r.stdout, re.M), r.stdout


@pytest.mark.parametrize("name", PRESETS)
def test_machines_prints_preset_toml(cli, name):
    r = cli("machines", name)
    assert r.returncode == 0, r.stderr
    data = tomllib.loads(r.stdout)
    assert data["name"] == name
    assert len(data["latency_ns"]) == len(data["nodes"])


def test_machines_prints_a_file_as_toml(cli, machine_file):
    path = machine_file()
    r = cli("machines", path)
    assert r.returncode == 0, r.stderr
    data = tomllib.loads(r.stdout)
    assert data["name"] == "two-node"
    assert [n["memory_mib"] for n in data["nodes"]] == [1024, 2048]
    assert data["latency_ns"] == [[100.0, 200.0], [200.0, 100.0]]


def test_workloads_lists_every_workload_and_parameter(cli):
    r = cli("workloads")
    assert r.returncode == 0
    for name in WORKLOADS:
        assert any(line.startswith(f"{name}: ") for line in r.stdout.splitlines()), name
    for w in numaplace.workloads():
        assert f"{w['name']}: {w['doc']}" in r.stdout
        for p in w["params"]:
            assert f"    {p['name']}={p['default']} (" in r.stdout, (w["name"], p["name"])
    assert "pattern=sequential (sequential|strided|random)" in r.stdout
    assert "    pages=4096 (integer)" in r.stdout


def test_placements_lists_every_placement_and_parameter(cli):
    r = cli("placements")
    assert r.returncode == 0
    names = [line.split(":")[0] for line in r.stdout.splitlines() if not line.startswith(" ")]
    assert sorted(names) == sorted(PLACEMENTS)
    assert "    node=0 (integer)" in r.stdout


def test_version_and_no_command(cli):
    r = cli("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"numaplace {numaplace.__version__}"
    r = cli()
    assert r.returncode == 2 and "usage:" in r.stdout


# --- topo ---------------------------------------------------------------------------------


def test_topo_detect_writes_a_usable_machine(cli, sysfs, tmp_path):
    out = tmp_path / "host.toml"
    r = cli("topo", "--detect", "--sysfs", sysfs, "--out", out)
    assert r.returncode == 0, r.stderr
    data = tomllib.loads(out.read_text())
    assert [n["cpus"] for n in data["nodes"]] == [4, 4]
    assert [n["memory_mib"] for n in data["nodes"]] == [4096, 4096]
    assert data["latency_ns"] == [[90.0, 189.0], [189.0, 90.0]]
    assert data["name"] == "this-host"

    r = cli("sim", "--machine", out, "--threads", "8", "--workload", "stream:pages=64,iterations=1")
    assert r.returncode == 0, r.stderr
    assert "this-host (2 nodes, 8 CPUs)" in r.stdout


def test_topo_detect_to_stdout_with_options(cli, sysfs):
    r = cli("topo", "--detect", "--sysfs", sysfs, "--local-ns", "100", "--name", "box", "--bandwidth-gbps", "7")
    assert r.returncode == 0, r.stderr
    data = tomllib.loads(r.stdout)
    assert data["name"] == "box"
    assert data["latency_ns"] == [[100.0, 210.0], [210.0, 100.0]]
    assert [n["bandwidth_gbps"] for n in data["nodes"]] == [7.0, 7.0]


def test_topo_detect_missing_sysfs_names_path(cli, tmp_path):
    assert_usage_error(cli("topo", "--detect", "--sysfs", "/nonexistent"), "/nonexistent")


def test_topo_without_detect_is_usage_error(cli):
    assert_usage_error(cli("topo"), "--detect")


def test_topo_out_into_missing_directory(cli, sysfs, tmp_path):
    out = tmp_path / "missing" / "host.toml"
    assert_usage_error(cli("topo", "--detect", "--sysfs", sysfs, "--out", out), str(out))
    assert not out.parent.exists()


# --- bench --------------------------------------------------------------------------------


def test_bench_tiered_reports_speed_and_bytes_per_page(cli):
    # A tiny run (2^16 pages of the 1 TiB machine, one timed sweep): both figures are printed.
    r = cli("bench", "--tiered", "--pages", "65536", "--sweeps", "1")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert (d["pages"], d["machine_pages"], d["policy"], d["accesses"]) == (65536, 1 << 28, "tpp", 2 * 65536)
    for key in ("accesses_per_second", "ratio", "computed_bytes_per_page", "measured_bytes_per_page"):
        assert isinstance(d[key], (int, float)) and not isinstance(d[key], bool), key
        assert math.isfinite(d[key]) and d[key] >= 0, key
    assert d["accesses_per_second"] > 0 and d["ratio"] > 0
    assert d["computed_bytes_per_page"] == d["declared_bytes_per_page"] == 4
    assert math.isclose(d["ratio"], d["seconds"] / d["limit_seconds"], rel_tol=1e-9)
    # Issue 35's two figures beside their bounds, each saying what it counts.
    speed, state = d["bounds"]["accesses_per_second"], d["bounds"]["bytes_per_page"]
    assert (speed["figure"], speed["bound"], speed["meets"]) == (d["accesses_per_second"], 100e6, d["accesses_per_second"] >= 100e6)
    assert state["figure"] == max(d["computed_bytes_per_page"], d["measured_bytes_per_page"]) and state["bound"] == 4
    assert state["meets"] == (state["figure"] <= 4)
    assert "first-touch" in speed["counts"] and "measured" in state["counts"]


def test_bench_prints_json(cli):
    r = cli("bench", "--transactions", "160000", "--pages", "4096", "--repetitions", "1")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["transactions"] == 160000
    for key in ("seconds", "transactions_per_second", "limit_seconds", "ratio"):
        assert isinstance(d[key], (int, float)) and not isinstance(d[key], bool), key
        assert math.isfinite(d[key]) and d[key] > 0, key
    assert math.isclose(d["ratio"], d["seconds"] / d["limit_seconds"], rel_tol=1e-9)
