"""The tiered-memory experiments (tiering-numab, tiering-tpp, tiering-hemem, tiering-memtis, tiering-colloid, tiering-nomad) on the test grid:
their frames' columns, their claims evaluated, their fidelity rows, and the one time scale."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from numaplace.experiments import EXPERIMENTS, PAPERS, SEED_PUBLISHED, Claim, Grid, run_experiments
from numaplace.experiments import tiering, tiering_apps, tiering_colloid, tiering_memtis, tiering_nomad

IDS = ("tiering-numab", "tiering-tpp", "tiering-hemem", "tiering-memtis", "tiering-colloid", "tiering-nomad")


@pytest.fixture(scope="module")
def results() -> pd.DataFrame:
    return run_experiments(list(IDS), grid=Grid.TEST, progress=False, jobs=0)


def test_the_experiments_are_registered_with_their_papers() -> None:
    for experiment_id, key in zip(IDS, ("numab", "tpp", "hemem", "memtis", "colloid", "nomad")):
        e = EXPERIMENTS[experiment_id]
        assert e.seed == key and not PAPERS[key].is_seed and PAPERS[key].name.startswith("Tiering: ")
        assert e.claims and e.fidelity


def test_frames_have_the_runs_columns(results: pd.DataFrame) -> None:
    for column in ("experiment", "run", "request.machine", "request.workload", "total_time_ns", "per_iteration_time_ns", "config.workload"):
        assert column in results.columns, column
    assert results.groupby("experiment", sort=False).size().to_dict() == {"tiering-numab": 5, "tiering-tpp": 4, "tiering-hemem": 5, "tiering-memtis": 12, "tiering-colloid": 35, "tiering-nomad": 6}
    tiered = results[results["request.dynamic"].notna() & ~results["request.dynamic"].fillna("").str.startswith("autonuma")]
    assert tiered["policy.promotions"].notna().all()


def test_claims_are_evaluated_and_the_fidelity_rows_exist(results: pd.DataFrame) -> None:
    for experiment_id, ids in zip(IDS, (["NB1", "NB2", "NB3"], ["TP1", "TP2"], ["HM1", "HM2"], ["MT1", "MT2"], ["CL1", "CL2", "CL3", "CL4", "CL5", "CL6", "CL7"], ["NM1", "NM2"])):
        e = EXPERIMENTS[experiment_id]
        rows = results[results.experiment == experiment_id].reset_index(drop=True)
        claims = e.claims(rows)
        assert [c.id for c in claims] == ids
        assert all(isinstance(c, Claim) and c.verdict in ("holds", "fails") and c.brief for c in claims)
        assert all(math.isfinite(v) for c in claims for v in c.measured.values())
        fidelity = e.fidelity(rows)
        assert [f.published for f in fidelity] == list(SEED_PUBLISHED[e.seed])
        assert all(math.isfinite(f.simulated) for f in fidelity)
        table, fig = e.analyse(rows)
        assert list(table.columns) == ["claim", "holds", "simulated"] and len(table) == len(ids)
        assert any(line.get_label().startswith("published") or "claim" in str(line.get_label()) for ax in fig.axes for line in [*ax.get_lines(), *ax.patches, *ax.collections])


def test_one_time_scale_divides_every_period_and_cost() -> None:
    assert tiering.TIME_SCALE == 100
    assert tiering.numab_spec("hot_selection=off").startswith(
        "numab-tiering:scan_delay_ms=10,scan_period_ms=10,max_scan_mb_per_s=256000,hot_threshold_ms=10,rate_limit_window_ms=10,threshold_period_ms=600,fault_ns=10,"
    )
    # the scan-rate cap (MAX_SCAN_WINDOW, 2560 MB/s) is a rate: multiplied
    assert tiering.tpp_spec() == "tpp:scan_delay_ms=10,scan_period_ms=10,max_scan_mb_per_s=256000,fault_ns=10"
    assert tiering_nomad.nomad_spec() == "nomad:scan_delay_ms=10,scan_period_ms=10,max_scan_mb_per_s=256000,fault_ns=10"
    assert tiering.autonuma_spec() == "autonuma:scan_period_min_ms=10,scan_period_max_ms=600,max_scan_mb_per_s=256000,fault_ns=10"
    assert tiering.hemem_spec() == "hemem:interval_ms=0.1,sample_period=200"
    # Memtis: periods and the record cost divided, sample periods (counts of events) divided
    # as HeMem's, the watermarks' floors at 0 (tiering_memtis' module documentation)
    assert tiering_memtis.memtis_spec() == (
        "memtis:sample_period=2,inst_sample_period=1000,cpucap_period_ms=150,period_ms=5,sample_cost_ns=10,"
        "demotion_floor_mb=0,promotion_floor_mb=0"
    )
    assert tiering_colloid.colloid_spec() == "colloid:interval_ms=0.1,sample_period=50"
    # Colloid on TPP: its host's parameters as the MEMTIS experiment runs numab-tiering, and
    # the monitor's 10 µs poll scaled
    assert tiering_colloid.colloid_tpp_spec() == tiering_memtis._specs()["numab-tiering"].replace("numab-tiering:", "colloid-tpp:") + ",poll_us=0.1"
    assert tiering_colloid.colloid_memtis_spec() == tiering_memtis.memtis_spec().replace("memtis:", "colloid-memtis:") + ",monitor_ms=0.1"
    # the antagonist is a machine setting, before the time scale
    assert tiering_colloid.loaded_machine(0.5) == "cxl-1to8:antagonist_gbps=125:time_scale=100"
    # the rate limit: the published rate-limited promotion rate, scaled, declared once
    assert tiering.RATE_LIMIT_MBPS == pytest.approx(165.2 * 100 * 396 / 65536)
    assert tiering.NUMAB_RATE["rate limit"] == 165.2 and tiering.NUMAB_SCORE["auto threshold"] == 170495294.0
    assert tiering_apps.TPP_GAIN_LINUX.value == 0.18 and tiering_apps.HEMEM_GAP_REDUCTION.value == 0.50


def test_pmbench_full_runs_the_papers_accesses_per_page_at_the_per_page_time_scale() -> None:
    """``--full``'s pmbench: the paper's 6,226 accesses per page over the run (146.9 M/s over
    48 x 1728 MiB for 900 s), periods divided by the simulated-to-paper rate per page, faults
    at 1 µs, and each run recognised as its step."""
    runs = tiering.numab_runs(Grid.FULL)
    workload = runs[0]["workload"]
    accesses = int(workload.split("accesses=")[1].split(",")[0]) * int(workload.split("iterations=")[1].split(",")[0]) * runs[0]["threads"]
    assert accesses / tiering.PMBENCH_PAGES == pytest.approx(146887704.1 * 900 / (48 * 1728 * 256), rel=1e-3)
    t = tiering.SIM_RATE_PER_PAGE / (146887704.1 / (48 * 1728 * 256))
    assert tiering.FULL_SCALE.time == pytest.approx(t) and 5 < t < 6
    base = runs[1]["dynamic"]
    assert f"scan_period_ms={1000 / t:g}," in base and "fault_ns=1000," in base and f"max_scan_mb_per_s={2560 * t:g}," in base
    assert f"rate_limit_mbps={165.2 * t / (48 * 1728 * 256 / tiering.PMBENCH_PAGES):.1f}" in runs[3]["dynamic"]
    assert [tiering._step_of(r.get("dynamic")) for r in runs] == [tiering.NO_TIERING, *tiering.STEPS]
