"""The ``oracle`` placement from Python and the CLI: the simulator runs it (after profiling the
workload), the listings say it needs a profile, and the runtime's launcher refuses it before the
program starts, in one line, from the same capabilities."""

from __future__ import annotations

import json

import pytest

import numaplace
from numaplace import runtime as rt


def test_sim_runs_the_oracle_and_no_placement_is_more_local(cli, tmp_path):
    out = tmp_path / "oracle.json"
    r = cli("sim", "--workload", "nas-cg", "--class", "S", "--placement", "oracle", "--no-progress", "--json", out)
    assert r.returncode == 0, r.stderr
    oracle = json.loads(out.read_text())
    assert oracle["config"]["placement"] == "oracle"
    for p in ("first-touch", "round-robin", "worst-case", "random", "block"):
        other = numaplace.simulate(workload="nas-cg", problem_class="S", placement=p)
        assert oracle["local_fraction"] >= other.local_fraction, p
    # CG's shared vector is fetched by every node: first-touch is not the bound there.
    assert oracle["local_fraction"] > numaplace.simulate(workload="nas-cg", problem_class="S").local_fraction


def test_the_oracle_is_deterministic_through_the_api():
    a = numaplace.simulate(workload="random:pages=256,accesses=2000", placement="oracle", seed=7)
    b = numaplace.simulate(workload="random:pages=256,accesses=2000", placement="oracle", seed=7)
    assert a.to_json() == b.to_json()


def test_listings_say_the_oracle_needs_a_profile(cli):
    caps = {p["name"]: p for p in numaplace.placements()}
    assert caps["oracle"]["needs_profile"] is True
    assert not any(p["needs_profile"] for name, p in caps.items() if name != "oracle")
    r = cli("placements")
    assert r.returncode == 0
    line = next(line for line in r.stdout.splitlines() if line.startswith("oracle: "))
    assert "offline bound" in line and "simulator only" in line


def test_the_launcher_refuses_the_oracle_with_the_reason():
    with pytest.raises(rt.RuntimeToolError) as e:
        rt.validate_placement("oracle")
    msg = str(e.value)
    assert msg.startswith("placement 'oracle' cannot run in the runtime: it is computed from a profile of the whole run")
    assert "numaplace sim --placement oracle" in msg and "\n" not in msg
    # Every other placement still passes.
    for p in numaplace.placements():
        if p["name"] != "oracle":
            assert rt.validate_placement(p["name"]) == p["name"]


def test_run_refuses_the_oracle_before_the_program_starts(cli, tmp_path):
    # The program would leave a file behind if it ran.
    marker = tmp_path / "ran"
    r = cli("run", "--placement", "oracle", "--", "touch", marker)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stdout == "" and "Traceback" not in r.stderr
    assert len(r.stderr_lines) == 1, r.stderr
    line = r.stderr_lines[0]
    assert line.startswith("numaplace: error: placement 'oracle' cannot run in the runtime"), line
    assert line.endswith("the runtime runs: bind, block, first-touch, random, round-robin, worst-case"), line
    assert not marker.exists()
