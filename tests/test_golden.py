"""Golden files: the exact output of fixed runs, so that any change to results is seen.

Regenerate after an intended change with one command, then review the diff:

    NUMAPLACE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden.py
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from numaplace import cli, simulate

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("NUMAPLACE_UPDATE_GOLDEN") == "1"

# Small runs that still exercise contention, fallback-free placement and every result field.
RUNS = {
    "origin2000-stream-worst-case": dict(
        machine="origin2000", workload="stream:pages=256,iterations=2", placement="worst-case", threads=16
    ),
    "sunfire6800-traverse-random-remote": dict(
        machine="sunfire6800", workload="traverse:pattern=random,pages=64,iterations=2", placement="bind:node=1", threads=1
    ),
    "cxl-tiered-random-round-robin": dict(
        machine="cxl-tiered", workload="random:pages=512,accesses=2000,iterations=2,write_fraction=0.25",
        placement="round-robin", threads=8, seed=7,
    ),
}


def check(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
        return
    assert path.exists(), f"missing golden file {path}; regenerate (see module doc)"
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from its golden file"


@pytest.mark.parametrize("name", sorted(RUNS))
def test_result_json_matches_golden(name: str) -> None:
    check(f"{name}.json", simulate(**RUNS[name]).to_json() + "\n")


def test_sim_summary_matches_golden(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["sim", "--machine", "origin2000", "--workload", "stream:pages=256,iterations=2", "--placement", "round-robin"]
    assert cli.main(args) == 0
    check("sim-summary.txt", capsys.readouterr().out)


def test_report_markdown_and_fidelity_match_golden(test_grid_report: tuple[Path, list]) -> None:
    out, _ = test_grid_report
    check("report-README.md", (out / "README.md").read_text(encoding="utf-8"))
    check("report-fidelity.csv", (out / "fidelity.csv").read_text(encoding="utf-8"))


def test_explain_answer_matches_golden(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``numaplace explain`` for one page of a small tiered run: TPP demotes it when the fast
    node runs low, then promotes it back on a hint fault (ping-pong), each with what it
    weighed and what it cost."""
    log = tmp_path / "decisions.csv"
    simulate(
        machine="cxl-1to8", workload="gups:pages=65536,iterations=2,updates=8192", threads=8,
        dynamic="tpp:scan_delay_ms=0.1,scan_period_ms=1,max_scan_mb_per_s=1000000", decisions=str(log),
    )  # fmt: skip
    assert cli.main(["explain", str(log), "--page", "1000"]) == 0
    check("explain-tpp-page.txt", capsys.readouterr().out)
