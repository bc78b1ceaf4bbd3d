"""benchmarks/policy_gap.py: the measure of issue 36's "helps and never hurts" — the gap, the
closure and the slowdown from made-up times, the verdict against the issue's bars, and what a
tiered machine runs."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pandas as pd
import pytest

PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "policy_gap.py"


@pytest.fixture(scope="module")
def gap():  # noqa: ANN201 - the script, loaded as a module
    spec = importlib.util.spec_from_file_location("policy_gap", PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["policy_gap"] = module
    spec.loader.exec_module(module)
    return module


def runs(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"machine": "m", "workload": w, "start": s, "dynamic": d, "time_ns": t, "local_fraction": 0.0, "error": ""} for w, s, d, t in rows]
    )


def test_gap_closure_and_slowdown_follow_the_three_times(gap) -> None:  # noqa: ANN001
    r = runs(
        [
            ("a", "oracle", "none", 60.0),
            ("a", "worst-case", "none", 100.0), ("a", "worst-case", "p", 70.0),  # gap 40 %, closes 30 of 40
            ("a", "first-touch", "none", 62.0), ("a", "first-touch", "p", 64.0),  # gap 3.2 %: no closure; 3.2 % slower
            ("b", "oracle", "none", 50.0),
            ("b", "worst-case", "none", 100.0), ("b", "worst-case", "p", 110.0),  # closes -10 of 50
        ]
    )  # fmt: skip
    g = gap.gaps(r, 0.05).set_index(["workload", "start"])
    assert g.loc[("a", "worst-case"), "gap"] == pytest.approx(0.4)
    assert g.loc[("a", "worst-case"), "closure"] == pytest.approx(0.75)
    assert g.loc[("a", "worst-case"), "slowdown"] == pytest.approx(-0.3)
    assert math.isnan(g.loc[("a", "first-touch"), "closure"])
    assert g.loc[("a", "first-touch"), "slowdown"] == pytest.approx(64 / 62 - 1)
    assert g.loc[("b", "worst-case"), "closure"] == pytest.approx(-0.2)
    # the verdict: the worst slowdown (+10 %) is over the 3 % bar, the median closure (0.275) under 0.5
    text = gap.summary(g.reset_index(), 0.05)
    assert "| p | 3 | +10.0% | 2 | 2 | 0.28 | no |" in text


def test_a_policy_that_never_loses_and_closes_half_meets_the_bar(gap) -> None:  # noqa: ANN001
    r = runs([("a", "oracle", "none", 50.0), ("a", "worst-case", "none", 100.0), ("a", "worst-case", "p", 75.0),
              ("a", "first-touch", "none", 51.0), ("a", "first-touch", "p", 52.0)])  # fmt: skip
    text = gap.summary(gap.gaps(r, 0.05), 0.05)
    assert "| p | 2 | +2.0% | 0 | 1 | 0.50 | yes |" in text


def test_a_tiered_machine_runs_the_tiering_workloads_over_its_fast_tier_at_the_experiments_time_scale(gap) -> None:  # noqa: ANN001
    from numaplace.experiments import tiering

    assert gap.TIME_SCALE == tiering.TIME_SCALE
    args = gap.argparse.Namespace(machines=["cxl-1to4", "origin2000"], workloads=None, placements=["first-touch", "worst-case"], policy=["adaptive"],
                                  threads=16, problem_class="W", traces=[])  # fmt: skip
    plan = gap.plan(args)
    tiered = [r for r in plan if r["machine"].startswith("cxl-1to4")]
    assert {r["machine"] for r in tiered} == {"cxl-1to4:time_scale=100"}
    # 101,376 pages in cxl-1to4's fast node: every workload twice that
    assert sorted({r["workload"] for r in tiered}) == [
        "gups:pages=202752,hot_fraction=0.1", "kvstore:mix=a,records=830472", "pmbench:pages=202752,pattern=normal,read_percent=80"]  # fmt: skip
    assert {r["workload"] for r in plan if r["machine"] == "origin2000"} == set(gap.WORKLOADS)
    # per workload: the bound, then none and the policy from each start
    assert [(r["placement"], r["dynamic"]) for r in tiered[:3]] == [("oracle", None), ("first-touch", None), ("first-touch", "adaptive")]
    # worst-case (node 0) is the fast node on a tiered machine: there the tiered worst case, all slow
    assert {r["placement"] for r in tiered} == {"oracle", "first-touch", "bind:node=1"}
    assert {r["placement"] for r in plan if r["machine"] == "origin2000"} == {"oracle", "first-touch", "worst-case"}
