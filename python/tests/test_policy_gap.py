"""benchmarks/policy_gap.py: the measure of issue 36's "helps and never hurts" — the gap, the
closure and the slowdown from made-up times, the verdict against the issue's bars, and a tiered
machine refused (its bound does not exist yet)."""

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


def test_a_tiered_machine_is_refused_before_any_run(gap, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    with pytest.raises(SystemExit) as e:
        gap.main(["--policy", "adaptive", "--machines", "cxl-1to4", "--out", str(tmp_path / "out")])
    assert e.value.code == 2
    assert "machine cxl-1to4: tiered; its bound (the best static tier assignment) is not built yet" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
