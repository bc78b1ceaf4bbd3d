"""Protocol-engine runs (seed 004) through the run request, the API and the CLI: the engine
option, which options each engine takes, line-level traces, determinism and the errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import numaplace
from numaplace import ConfigError, NumaplaceError, UnknownNameError

SMALL = {"machine": "talbot64", "workload": "ge:n=64"}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "numaplace", *args], capture_output=True, text=True, timeout=120)


def one_line_error(p: subprocess.CompletedProcess[str]) -> str:
    assert p.returncode == 2, p
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("numaplace: error: "), p.stderr
    return lines[0]


def test_talbot64_runs_on_the_protocol_engine_and_says_so() -> None:
    r = numaplace.simulate(**SMALL)
    assert r.kind == "protocol"
    assert r.config["engine"] == "protocol" and r.config["threads"] == 64
    assert r.config["proxies"] == "none" and r.config["buffers"] == "infinite"
    assert r.total_time_ns > 0 and r.messages > 0 and r.line_accesses > 0
    # Every message type is counted, and the types add up to the total.
    by_type = {k: v for k, v in r.to_dict().items() if k.startswith("msg_")}
    assert by_type and sum(by_type.values()) == r.messages
    assert "protocol" in repr(r) and "proxies=none" in repr(r)
    assert "protocol run" in r._repr_html_()


def test_same_request_same_bytes_and_the_modes_change_the_run() -> None:
    a = numaplace.simulate(**SMALL, proxies="reactive", buffers="finite").to_json()
    assert a == numaplace.simulate(**SMALL, proxies="reactive", buffers="finite").to_json()
    basic = numaplace.simulate(**SMALL, proxies="basic")
    none = numaplace.simulate(**SMALL)
    finite = numaplace.simulate(**SMALL, buffers="finite")
    assert basic.proxy_reads > 0 and none.proxy_reads == 0
    assert finite.bounces > 0 and none.bounces == 0
    assert json.loads(a)["proxies"] == "reactive"


def test_each_engine_refuses_the_others_options_in_one_line() -> None:
    with pytest.raises(ConfigError, match="^option dynamic applies to page and system runs, not to this protocol run$"):
        numaplace.simulate(**SMALL, dynamic="upmlib")
    with pytest.raises(ConfigError, match="^option proxies applies to protocol runs, not to this page run$"):
        numaplace.simulate(workload="stream", threads=2, proxies="basic")
    with pytest.raises(ConfigError, match="one thread per node, and machine 'talbot64' has 64 nodes"):
        numaplace.simulate(**SMALL, threads=8)
    with pytest.raises(ConfigError, match="placement 'oracle' needs a page-level profile"):
        numaplace.simulate(**SMALL, placement="oracle")
    with pytest.raises(ConfigError, match="a protocol run needs a line-level program"):
        numaplace.simulate(machine="talbot64")
    with pytest.raises(UnknownNameError, match="unknown proxy mode 'magic'"):
        numaplace.simulate(**SMALL, proxies="magic")
    with pytest.raises(UnknownNameError, match="unknown line-level program 'nas-cg'"):
        numaplace.simulate(machine="talbot64", workload="nas-cg")
    # A machine without protocol parameters cannot run the protocol engine.
    with pytest.raises(NumaplaceError, match="protocol"):
        numaplace.simulate(machine="origin2000", engine="protocol", workload="ge:n=64", threads=8)


def test_line_level_trace_round_trip_through_the_cli(tmp_path: Path) -> None:
    out = tmp_path / "ge.npline"
    p = run("trace", "export", "--machine", "talbot64", "--workload", "ge:n=64", "--out", str(out))
    assert p.returncode == 0, p.stderr
    assert "operations" in p.stdout and "barriers" in p.stdout
    info = run("trace", "info", str(out))
    assert info.returncode == 0 and "format        line" in info.stdout and "proxied" in info.stdout
    direct, replay = tmp_path / "d.json", tmp_path / "r.json"
    assert run("sim", "--machine", "talbot64", "--workload", "ge:n=64", "--proxies", "basic", "--json", str(direct)).returncode == 0
    p = run("sim", "--machine", "talbot64", "--trace", str(out), "--proxies", "basic", "--json", str(replay))
    assert p.returncode == 0, p.stderr
    a, b = json.loads(direct.read_text()), json.loads(replay.read_text())
    assert b["config"].pop("trace") == str(out)
    assert a == b
    # The page-level engine names the engine that replays a line-level trace, in one line.
    assert "line-level trace: replay it with the protocol engine" in one_line_error(run("sim", "--trace", str(out)))
    # A corrupt line-level trace is a one-line error naming the file.
    bad = tmp_path / "bad.npline"
    data = bytearray(out.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad.write_bytes(bytes(data))
    assert str(bad) in one_line_error(run("sim", "--machine", "talbot64", "--trace", str(bad)))
    assert "no text trace form" in one_line_error(
        run("trace", "export", "--machine", "talbot64", "--workload", "ge:n=64", "--out", str(tmp_path / "t.txt"), "--text")
    )


def test_sim_prints_the_protocol_summary() -> None:
    p = run("sim", "--machine", "talbot64", "--workload", "ge:n=64", "--proxies", "reactive", "--buffers", "finite")
    assert p.returncode == 0, p.stderr
    for word in ("protocol engine", "proxies reactive", "buffers finite", "bounces", "remote reads", "controllers"):
        assert word in p.stdout, word
    assert "invalid choice: 'huge'" in one_line_error(run("sim", "--machine", "talbot64", "--workload", "ge", "--buffers", "huge"))


def test_programs_are_listed() -> None:
    names = {p["name"] for p in numaplace.programs()}
    assert {"ge", "ocean-contig", "ocean-noncontig", "fft", "water-nsq"} <= names
    p = run("programs")
    assert p.returncode == 0 and "ge: " in p.stdout
