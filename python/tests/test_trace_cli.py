"""Traces, kernels and workload inspection through the CLI and the API."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import numaplace


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "numaplace", *args], capture_output=True, text=True, timeout=120)


def one_line_error(p: subprocess.CompletedProcess[str]) -> str:
    assert p.returncode == 2, p
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("numaplace: error: "), p.stderr
    assert "Traceback" not in p.stderr
    return lines[0]


@pytest.mark.parametrize("text", [False, True])
def test_export_then_replay_gives_the_kernels_result(tmp_path: Path, text: bool) -> None:
    out = tmp_path / ("cg.txt" if text else "cg.nptrace")
    args = ["--machine", "origin2000", "--threads", "16", "--class", "S"]
    p = run("trace", "export", "--workload", "nas-cg", *args, "--out", str(out), *(["--text"] if text else []))
    assert p.returncode == 0, p.stderr
    direct = tmp_path / "direct.json"
    replay = tmp_path / "replay.json"
    assert run("sim", "--workload", "nas-cg", *args, "--placement", "round-robin", "--json", str(direct)).returncode == 0
    assert run("sim", "--trace", str(out), "--placement", "round-robin", "--json", str(replay)).returncode == 0
    a, b = json.loads(direct.read_text()), json.loads(replay.read_text())
    assert b["config"].pop("trace") == str(out)
    assert a == b


def test_trace_info_reports_header_and_phases(tmp_path: Path) -> None:
    out = tmp_path / "s.nptrace"
    numaplace.trace_export(str(out), workload="stream:pages=8,iterations=2", threads=4)
    i = numaplace.trace_info(str(out))
    assert (i["format"], i["threads"], i["pages"], i["epochs"], i["iterations"]) == ("binary", 4, 24, 3, 2)
    assert [p[0] for p in i["phases"]] == ["init", "sweep"]
    p = run("trace", "info", str(out))
    assert p.returncode == 0 and "source = stream:pages=8" in p.stdout and "sweep" in p.stdout


@pytest.mark.parametrize(
    "mutate, expect",
    [
        (lambda b: b"XXXXXXXX" + b[8:], "byte 0: expected the magic"),
        (lambda b: b[:8] + b"\x07" + b[9:], "byte 8: format version 7"),
        (lambda b: b[: len(b) - 30], "truncated"),
        (lambda b: b[:-20] + bytes([b[-20] ^ 0xFF]) + b[-19:], "byte "),
    ],
    ids=["bad-magic", "wrong-version", "truncated", "corrupt"],
)
def test_malformed_traces_give_one_line_errors(tmp_path: Path, mutate, expect: str) -> None:
    good = tmp_path / "good.nptrace"
    numaplace.trace_export(str(good), workload="random:pages=64,accesses=300,iterations=1", threads=4)
    bad = tmp_path / "bad.nptrace"
    bad.write_bytes(mutate(good.read_bytes()))
    line = one_line_error(run("sim", "--trace", str(bad), "--threads", "4"))
    assert str(bad) in line and expect in line, line
    with pytest.raises(numaplace.TraceError):
        numaplace.simulate(trace=str(bad), threads=4)


def test_text_trace_page_out_of_range(tmp_path: Path) -> None:
    t = tmp_path / "t.txt"
    t.write_text("numaplace-trace 1\npage_size 16384\nline_size 128\nthreads 1\nregion a 0 2\nepoch 1 x\n0 9 1 0\nend\n")
    line = one_line_error(run("sim", "--trace", str(t)))
    assert line.endswith("line 7: page 9 out of range (the trace has 2 pages)"), line


def test_trace_and_workload_together_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "s.nptrace"
    numaplace.trace_export(str(out), workload="stream:pages=8,iterations=1", threads=2)
    line = one_line_error(run("sim", "--trace", str(out), "--workload", "stream"))
    assert "--trace" in line


def test_class_option_and_its_errors() -> None:
    r = numaplace.simulate(workload="nas-ep", problem_class="S", threads=4)
    assert "class=S" in r.config["workload"]
    r2 = numaplace.simulate(workload="nas-ep", threads=4, **{"class": "S"})
    assert r2 == r
    line = one_line_error(run("sim", "--workload", "stream", "--class", "A"))
    assert "unknown parameter 'class'" in line
    line = one_line_error(run("sim", "--workload", "nas-ep:class=S", "--class", "A"))
    assert "class given twice" in line
    line = one_line_error(run("sim", "--workload", "nas-ep", "--class", "Z"))
    assert "expected one of: S, W, A, B" in line


def test_workload_show_reports_phases_and_sharing() -> None:
    i = numaplace.workload_show("nas-bt", problem_class="S", threads=16)
    phases = {p["phase"]: p for p in i["phases"] if p["iteration"] == 1}
    assert {"x_solve", "y_solve", "z_solve"} <= set(phases)
    assert i["footprint_pages"] > 0 and i["transactions_per_iteration"] > 0
    p = run("workload", "show", "nas-cg", "--class", "S", "--threads", "16")
    assert p.returncode == 0 and "matvec" in p.stdout and "shared pages" in p.stdout


def test_workloads_lists_every_kernel() -> None:
    p = run("workloads")
    for name in ["nas-bt", "nas-sp", "nas-lu", "nas-mg", "nas-cg", "nas-ft", "nas-ep", "shallow", "ocean-contig",
                 "ocean-noncontig", "ge"]:
        assert f"{name}:" in p.stdout


def test_a_trace_is_a_workload_whose_thread_count_comes_from_its_header(tmp_path: Path) -> None:
    out = tmp_path / "s.nptrace"
    numaplace.trace_export(str(out), workload="stream:pages=8,iterations=2", threads=4)
    by_option = numaplace.simulate(trace=str(out), placement="round-robin")
    by_workload = numaplace.simulate(workload=f"trace:file={out}", placement="round-robin")
    assert by_option.config["threads"] == 4 and by_option.config["trace"] == str(out)
    assert by_option == by_workload
    # A count that is given is checked against the trace's.
    with pytest.raises(numaplace.ConfigError, match=r"the trace's thread count is 4 but the run asks for 2"):
        numaplace.simulate(trace=str(out), threads=2)
    with pytest.raises(numaplace.SpecError, match=r"workload 'trace': unknown parameter 'path' \(valid keys: file\)"):
        numaplace.simulate(workload=f"trace:path={out}")
    with pytest.raises(numaplace.SpecError, match=r"file= names no file"):
        numaplace.simulate(workload="trace")
    with pytest.raises(numaplace.FileError, match="no such file"):
        numaplace.simulate(workload=f"trace:file={tmp_path / 'missing'}")
    assert "trace: replays a trace file" in run("workloads").stdout


def test_a_trace_workload_is_shown_and_re_exported_at_its_own_thread_count(tmp_path: Path) -> None:
    out = tmp_path / "s.nptrace"
    numaplace.trace_export(str(out), workload="stream:pages=8,iterations=2", threads=4)
    shown = numaplace.workload_show(f"trace:file={out}")
    assert shown["threads"] == 4
    again = tmp_path / "again.nptrace"
    numaplace.trace_export(str(again), workload=f"trace:file={out}")
    assert numaplace.trace_info(str(again))["threads"] == 4
    assert numaplace.trace_info(str(again))["transactions"] == numaplace.trace_info(str(out))["transactions"]
