"""Tests of the reproduce report, mostly driven by a fake ``simulate``.

The fake returns times that are a fixed function of the requested machine, workload and
placement, so every slowdown in the report is known in advance. The last test runs the real
simulator, in this process and on a process pool, and compares the reports.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from numaplace import plot
from numaplace.experiments import EXPERIMENTS, Grid, UnknownExperimentError, get_experiment, run_experiments
from numaplace.report import reproduce

BASE_NS = {
    "traverse:pattern=sequential": 500e6,
    "traverse:pattern=strided": 600e6,
    "traverse:pattern=random": 400e6,
    "stream": 100e6,
    "random": 200e6,
}
NONLOCAL_FACTOR = {"sequential": 1.3, "strided": 1.2, "random": 1.1}
PLACEMENT_FACTOR = {"first-touch": 1.0, "round-robin": 1.5, "random": 1.25, "worst-case": 3.0}
# The experiments the fake simulator knows (seed000-migration needs the real kernels; it runs
# with the real simulator in test_seed000_claims_are_evaluated_from_real_runs).
FAKE_IDS = ("seed003-table2", "placement-sensitivity")
LOCAL_FRACTION = {"first-touch": 1.0, "round-robin": 0.125, "random": 0.25, "worst-case": 0.0625, "bind:node=1": 0.0}


class FakeResult:
    def __init__(self, record: dict[str, Any]) -> None:
        self._record = record

    def to_dict(self) -> dict[str, Any]:
        return self._record


def fake_simulate(
    machine: str = "origin2000",
    workload: str = "stream",
    placement: str = "first-touch",
    threads: int = 16,
    seed: int = 0,
    binding: str = "spread",
    init: str = "parallel",
) -> FakeResult:
    """A deterministic stand-in for ``numaplace.simulate`` following its result schema."""
    time = BASE_NS[workload]
    if placement == "bind:node=1":
        time *= NONLOCAL_FACTOR[workload.split("=")[1]]
    else:
        time *= PLACEMENT_FACTOR[placement]
    canonical = f"{workload}{',' if ':' in workload else ':'}pages=4096"
    return FakeResult(
        {
            "config": {
                "machine": machine,
                "workload": canonical,
                "placement": placement,
                "threads": threads,
                "binding": binding,
                "init": init,
                "seed": seed,
            },
            "total_time_ns": time,
            "init_time_ns": time / 10,
            "iterations": 2,
            "per_iteration_time_ns": [time / 2, time / 2],
            "transactions": 1000,
            "local_fraction": LOCAL_FRACTION[placement],
            "per_node_transactions": [600, 400],
            "per_node_pages": [4000, 96],
            "migrations": 0,
            "replications": 0,
            "policy_overhead_ns": 0.0,
            "epochs": [
                {"iteration": 0, "phase": "init", "time_ns": time / 10},
                {"iteration": 1, "phase": "main", "time_ns": time / 2},
                {"iteration": 2, "phase": "main", "time_ns": time / 2},
            ],
        }
    )


@pytest.fixture(scope="module")
def results() -> pd.DataFrame:
    return run_experiments(FAKE_IDS, simulate=fake_simulate, progress=False)


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return reproduce(tmp_path_factory.mktemp("report"), simulate=fake_simulate, progress=False, experiments=FAKE_IDS)


def test_reproduce_writes_every_file(report_dir: Path) -> None:
    for name in ("index.html", "README.md", "results.csv", "epochs.parquet", "fidelity.csv"):
        assert (report_dir / name).stat().st_size > 0
    for experiment_id in FAKE_IDS:
        png = report_dir / f"{experiment_id}.png"
        assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
        assert f'<img src="{experiment_id}.png"' in (report_dir / "index.html").read_text()
        assert f"]({experiment_id}.png)" in (report_dir / "README.md").read_text()
    html = (report_dir / "index.html").read_text()
    readme = (report_dir / "README.md").read_text()
    for name in ("results.csv", "epochs.parquet", "fidelity.csv"):
        assert f'<a href="{name}">{name}</a>' in html and f"[{name}]({name})" in readme


def test_results_csv_is_lean_and_epochs_are_tidy_parquet(report_dir: Path, results: pd.DataFrame) -> None:
    """The per-epoch data leaves results.csv for epochs.parquet: one row per run and epoch."""
    import pyarrow.parquet as pq

    csv = pd.read_csv(report_dir / "results.csv")
    assert "epochs" not in csv.columns and "epochs" in results.columns
    epochs = pq.read_table(report_dir / "epochs.parquet").to_pandas()
    assert list(epochs.columns) == ["experiment", "run", "epoch", "iteration", "phase", "time_ns"]
    assert len(epochs) == 3 * len(csv)
    first = epochs[(epochs.experiment == "placement-sensitivity") & (epochs.run == 3)]  # stream, worst-case: 300 ms
    assert first[["epoch", "iteration", "phase"]].values.tolist() == [[0, 0, "init"], [1, 1, "main"], [2, 2, "main"]]
    assert first["time_ns"].tolist() == pytest.approx([30e6, 150e6, 150e6])


def test_results_csv_has_one_row_per_run(report_dir: Path) -> None:
    csv = pd.read_csv(report_dir / "results.csv")
    assert len(csv) == sum(len(EXPERIMENTS[e].runs(Grid.QUICK)) for e in FAKE_IDS)
    assert list(csv.columns[:2]) == ["experiment", "run"]
    assert {"request.workload", "config.machine", "config.workload", "total_time_ns"} <= set(csv.columns)
    assert json.loads(csv.loc[0, "per_node_pages"]) == [4000, 96]


def test_results_frame_columns(results: pd.DataFrame) -> None:
    first = results.iloc[0]
    assert first["experiment"] == "seed003-table2"
    assert first["run"] == 0
    assert first["request.machine"] == "sunfire6800"
    assert first["request.threads"] == 1
    assert first["config.workload"] == "traverse:pattern=sequential,pages=4096"
    assert first["per_iteration_time_ns"] == [250e6, 250e6]


def test_table2_runs_are_one_thread_local_and_nonlocal() -> None:
    runs = get_experiment("seed003-table2").runs(Grid.QUICK)
    assert {(r["workload"], r["placement"]) for r in runs} == {
        (f"traverse:pattern={p}", placement)
        for p in ("sequential", "strided", "random")
        for placement in ("first-touch", "bind:node=1")
    }
    assert all(r["machine"] == "sunfire6800" and r["threads"] == 1 for r in runs)


def test_table2_compares_with_published_slowdowns(results: pd.DataFrame) -> None:
    runs = results.loc[results["experiment"] == "seed003-table2"].reset_index(drop=True)
    table, _ = get_experiment("seed003-table2").analyse(runs)
    assert table["pattern"].tolist() == ["sequential", "strided", "random"]
    assert table["simulated local time (ms)"].tolist() == [500.0, 600.0, 400.0]
    assert table["simulated non-local time (ms)"].tolist() == pytest.approx([650.0, 720.0, 440.0])
    assert table["simulated slowdown"].tolist() == pytest.approx([1.3, 1.2, 1.1])
    assert table["published slowdown"].tolist() == [1.25, 1.23, 1.18]
    assert table["difference (simulated − published)"].tolist() == pytest.approx([0.05, -0.03, -0.08])


def test_report_shows_published_slowdowns_and_resolved_configs(report_dir: Path) -> None:
    for name in ("index.html", "README.md"):
        text = (report_dir / name).read_text().replace("<wbr>", "")
        for published in ("1.25", "1.23", "1.18"):
            assert published in text
        assert "traverse:pattern=strided,pages=4096" in text
        assert "seed 003 §4.2" in text.lower()
    readme = (report_dir / "README.md").read_text()
    assert "| pattern | simulated local time (ms) |" in readme


def test_fidelity_csv_is_tidy_and_its_errors_follow_the_fake_times(report_dir: Path) -> None:
    """seed003-table2's published slowdowns beside the fake ones (1.3, 1.2, 1.1): one row each in
    fidelity.csv, the same in both pages' fidelity table, and the seed's median in the summary."""
    csv = pd.read_csv(report_dir / "fidelity.csv", dtype={"seed": str})
    assert list(csv.columns) == ["seed", "quantity", "source", "published", "simulated", "abs_error", "rel_error", "measure", "error"]
    assert csv.seed.tolist() == ["003"] * 3 and csv.source.tolist() == ["§4.2, Table 2"] * 3
    assert csv.published.tolist() == [1.25, 1.23, 1.18]
    assert csv.simulated.tolist() == pytest.approx([1.3, 1.2, 1.1])
    assert csv.abs_error.tolist() == pytest.approx([0.05, -0.03, -0.08])
    assert csv.rel_error.tolist() == pytest.approx([0.04, -0.03 / 1.23, -0.08 / 1.18])
    assert csv.measure.tolist() == ["relative"] * 3 and csv.error.tolist() == pytest.approx(csv.rel_error.tolist())
    readme = (report_dir / "README.md").read_text()
    html = (report_dir / "index.html").read_text()
    # median of |4 %|, |-2.4 %|, |-6.8 %|: 4 %
    assert "Seed 003 (Tikir and Hollingsworth 2004): 4 % over 3 numbers." in readme
    assert "Seed 003 (Tikir and Hollingsworth 2004): 4 % over 3 numbers." in html
    assert "| sequential traversal, one thread: array access time, non-local ÷ local pages | §4.2, Table 2 | 1.25 | 1.3 | +0.05 | +4 % | relative |" in readme
    assert "| random traversal, one thread: array access time, non-local ÷ local pages | §4.2, Table 2 | 1.18 | 1.1 | -0.08 | -7 % | relative |" in readme
    assert '<table class="fidelity">' in html and '<td class="num">-7 %</td>' in html
    assert "Not compared: Table 2's times, which have no units" in readme


def test_no_fidelity_section_without_fidelity_rows(tmp_path: Path) -> None:
    """placement-sensitivity compares no published number: fidelity.csv has its header only and
    the pages have no fidelity section."""
    out = reproduce(tmp_path, simulate=fake_simulate, progress=False, experiments=["placement-sensitivity"])
    assert (out / "fidelity.csv").read_text() == "seed,quantity,source,published,simulated,abs_error,rel_error,measure,error\n"
    assert 'id="fidelity"' not in (out / "index.html").read_text() and "## Fidelity" not in (out / "README.md").read_text()


def test_sensitivity_slowdown_vs_first_touch(results: pd.DataFrame) -> None:
    runs = results.loc[results["experiment"] == "placement-sensitivity"].reset_index(drop=True)
    table, _ = get_experiment("placement-sensitivity").analyse(runs)
    for row in table.itertuples(index=False):
        assert row[table.columns.get_loc("slowdown vs first-touch")] == pytest.approx(PLACEMENT_FACTOR[row.placement])
    stream_ms = table.loc[table["workload"] == "stream", "total time (ms)"].tolist()
    assert stream_ms == pytest.approx([100.0, 150.0, 125.0, 300.0])
    assert table["local fraction"].tolist() == [LOCAL_FRACTION[p] for p in table["placement"]]


def test_slowdown_is_relative_to_baseline_of_same_group() -> None:
    df = pd.DataFrame(
        {
            "workload": ["a", "a", "b", "b"],
            "placement": ["first-touch", "worst-case", "worst-case", "first-touch"],
            "total_time_ns": [10.0, 25.0, 60.0, 20.0],
        }
    )
    assert plot.slowdown(df).tolist() == [1.0, 2.5, 3.0, 1.0]
    with pytest.raises(ValueError, match="no placement='first-touch' row for workload c"):
        plot.slowdown(pd.concat([df, pd.DataFrame([{"workload": "c", "placement": "random", "total_time_ns": 1.0}])]))


def test_two_runs_are_byte_identical(tmp_path: Path) -> None:
    first = reproduce(tmp_path / "one", simulate=fake_simulate, progress=False, experiments=FAKE_IDS)
    second = reproduce(tmp_path / "two", simulate=fake_simulate, progress=False, experiments=FAKE_IDS)
    names = ["index.html", "README.md", "results.csv", "epochs.parquet", "fidelity.csv", *(f"{e}.png" for e in FAKE_IDS)]
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_unknown_experiment_is_rejected_before_running(tmp_path: Path) -> None:
    calls: list[dict[str, Any]] = []

    def recording_simulate(**kwargs: Any) -> FakeResult:
        calls.append(kwargs)
        return fake_simulate(**kwargs)

    with pytest.raises(UnknownExperimentError, match=r"unknown experiment 'table-9' \(known: seed003-table2, placement-sensitivity, seed000-migration, seed000-recrep, seed001-wildfire, seed003-sampled, seed002-schedulers, seed004-proxies, tiering-numab, tiering-tpp, tiering-hemem, tiering-memtis, tiering-colloid, tiering-nomad\)"):
        reproduce(tmp_path / "out", simulate=recording_simulate, progress=False, experiments=["seed003-table2", "table-9"])
    assert calls == []
    assert not (tmp_path / "out").exists()


def test_grids_size_the_runs_and_an_unknown_grid_is_refused_before_running(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each grid gives every experiment runs (the test grid's no more than the quick one's, the
    NAS kernels at class S, W and A); an unknown grid is a ValueError naming the grids, and on
    the command line a usage error, before anything runs or is written."""
    from numaplace import cli

    for e in EXPERIMENTS.values():
        sizes = {g: len(e.runs(g)) for g in Grid}
        assert 0 < sizes[Grid.TEST] <= sizes[Grid.QUICK] <= sizes[Grid.FULL], (e.id, sizes)
    migration = EXPERIMENTS["seed000-migration"]
    assert [{r["workload"].split("class=")[1] for r in migration.runs(g)} for g in Grid] == [{"S"}, {"W"}, {"A"}]
    with pytest.raises(ValueError, match=r"^unknown grid 'tiny' \(known: test, quick, full\)$"):
        reproduce(tmp_path / "out", grid="tiny", simulate=fake_simulate, progress=False)
    assert not (tmp_path / "out").exists()
    assert cli.main(["reproduce", "--grid", "tiny", "--out", str(tmp_path / "out")]) == 2
    assert "invalid choice: 'tiny'" in capsys.readouterr().err
    assert cli.main(["reproduce", "--quick", "--full", "--out", str(tmp_path / "out")]) == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()
    assert cli.main(["reproduce", "--grid", "test", "--experiment", "seed003-table2", "--no-progress", "--jobs", "0", "--out", str(tmp_path / "t")]) == 0
    assert "Generated in the test grid" in (tmp_path / "t" / "README.md").read_text()


def test_selected_experiments_only(tmp_path: Path) -> None:
    out = reproduce(tmp_path, simulate=fake_simulate, progress=False, experiments=["placement-sensitivity"])
    assert (out / "placement-sensitivity.png").exists()
    assert not (out / "seed003-table2.png").exists()
    assert set(pd.read_csv(out / "results.csv")["experiment"]) == {"placement-sensitivity"}


# --- where the runs execute (the sweep machinery) -----------------------------------------------


def test_failed_run_names_its_experiment_and_error(tmp_path: Path) -> None:
    from numaplace.sweep import SweepError

    def failing_simulate(**kwargs: Any) -> FakeResult:
        if kwargs["placement"] == "worst-case":
            raise ValueError("no room on node 0")
        return fake_simulate(**kwargs)

    with pytest.raises(SweepError, match=r"^experiment placement-sensitivity, run 3 failed: ValueError: no room on node 0$"):
        reproduce(tmp_path / "out", simulate=failing_simulate, progress=False, experiments=["placement-sensitivity"])
    assert not (tmp_path / "out").exists()


def test_custom_simulate_runs_in_this_process_only(tmp_path: Path) -> None:
    from numaplace.sweep import SweepError

    with pytest.raises(SweepError, match="a custom simulate function runs in this process only"):
        run_experiments(FAKE_IDS, simulate=fake_simulate, progress=False, scheduler="local")


def test_report_is_identical_in_process_and_on_a_process_pool(test_grid_report: tuple[Path, list], tmp_path: Path) -> None:
    """The real simulator, every experiment on the test grid: the report does not depend on
    where its runs execute (the session's report ran in this process, conftest.py)."""
    ids = list(EXPERIMENTS)
    inline, _ = test_grid_report
    pooled = reproduce(tmp_path / "pool", grid="test", progress=False, jobs=2, experiments=ids)
    for name in ["index.html", "README.md", "results.csv", "epochs.parquet", "fidelity.csv", *(f"{e}.png" for e in ids)]:
        assert (inline / name).read_bytes() == (pooled / name).read_bytes(), name


def test_seed000_claims_are_evaluated_from_real_runs(tmp_path: Path) -> None:
    """The seed 000 experiment runs on the real simulator and reports C1–C4 with numbers."""
    out = reproduce(tmp_path, grid="test", progress=False, experiments=["seed000-migration"], jobs=0)
    text = (out / "README.md").read_text()
    for claim in ("C1:", "C2:", "C3:", "C4:"):
        assert claim in text
    rows = [line for line in text.splitlines() if re.match(r"\| C\d", line)]  # claim rows, not fidelity rows ("| CG, ...")
    assert len(rows) == 4 and all(("| holds |" in r) != ("| fails |" in r) for r in rows), rows


def test_seed003_claims_are_evaluated_from_real_runs(tmp_path: Path) -> None:
    """The seed 003 experiment runs on the real simulator and reports C7 and C8 with numbers."""
    out = reproduce(tmp_path, grid="test", progress=False, experiments=["seed003-sampled"], jobs=0)
    text = (out / "README.md").read_text()
    rows = [line for line in text.splitlines() if re.match(r"\| C\d", line)]  # claim rows, not fidelity rows ("| CG, ...")
    assert [r.split(":")[0] for r in rows] == ["| C7", "| C8", "| C8 max-rate"]
    assert all(("| holds |" in r) != ("| fails |" in r) for r in rows[:2]), rows
    assert "interval=1024" in rows[1] and "max-rate" in rows[1]
    # The max-rate half is shown with its number and the reason, and not counted as a claim.
    assert "| not reproduced |" in rows[2] and "not reproduced: seed 003 §4.1" in rows[2], rows[2]
    assert "2 of 2 claims hold" in text or "1 of 2 claims hold" in text or "0 of 2 claims hold" in text
    assert "1 published finding shown but not reproduced" in text


def test_seed001_claims_are_evaluated_from_real_runs(tmp_path: Path) -> None:
    """The seed 001 grid runs on the real simulator and reports C5 and C6 with numbers."""
    out = reproduce(tmp_path, grid="test", progress=False, experiments=["seed001-wildfire"], jobs=0)
    text = (out / "README.md").read_text()
    rows = [line for line in text.splitlines() if re.match(r"\| C\d", line)]  # claim rows, not fidelity rows ("| CG, ...")
    assert [r.split(":")[0] for r in rows] == ["| C5", "| C6"]
    assert all(("| holds |" in r) != ("| fails |" in r) for r in rows), rows
    results = pd.read_csv(out / "results.csv")
    assert len(results) == 6 * 2 * 4


def test_seed000_recrep_runs_bt_with_normal_and_longer_phases(tmp_path: Path) -> None:
    """Record-replay on BT: both phase lengths, three policies, the published finding beside
    the record-replay rows, and replays that really move pages."""
    out = reproduce(tmp_path, progress=False, experiments=["seed000-recrep"], jobs=0)
    text = (out / "README.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| normal") or line.startswith("| 4 x longer")]
    assert len(rows) == 6, rows
    recrep = [r for r in rows if "| upmlib-recrep |" in r]
    assert len(recrep) == 2 and "outweighs" in recrep[0] and "5 % faster" in recrep[1]
    cells = [r.split("|") for r in recrep]
    # migrations: 20 pages before and after z_solve in each iteration from the third, plus
    # upmlib's distribution after the first.
    assert all(int(c[5]) >= 2 * 20 * 190 for c in cells), cells
    assert (out / "seed000-recrep.png").exists()


def test_seed003_period_keeps_the_seeds_intervals_per_run() -> None:
    """The seed-period runs, the experiment's second stage, migrate every 5 s × (our no-policy
    run time) / (the seed's run time of the kernel), so MG gets the seed's 31 s / 5 s intervals
    per run."""
    from numaplace.experiments import seed003 as e3
    from numaplace.experiments._frames import flatten as _flatten

    first = e3.runs(Grid.QUICK)
    mg = [r for r in first if r["workload"].startswith("nas-mg")]
    assert [r.get("dynamic", "none") for r in mg] == ["none", "sampled"]  # and the policy's own period
    assert all(r["init"] == "parallel" and r["workload"].endswith(",first_touch=npb-c") for r in first)
    # Stage-1 rows with made-up run times: 1 ms per position in the run list.
    rows = pd.DataFrame([_flatten(r, "request.") | {"total_time_ns": 1e6 * (i + 1)} for i, r in enumerate(first)])
    second = e3.followup(Grid.QUICK, rows)
    assert len(second) == len(e3.KERNELS) and all(r["dynamic"].startswith("sampled:period_ms=") for r in second)
    (mg2,) = [r for r in second if r["workload"].startswith("nas-mg")]
    assert {k: v for k, v in mg2.items() if k != "dynamic"} == mg[0]
    base_ms = first.index(mg[0]) + 1.0
    assert base_ms / float(mg2["dynamic"].removeprefix("sampled:period_ms=")) == pytest.approx(31.0 / 5.0, rel=1e-5)
    workload = "nas-mg:class=W,first_touch=npb-c"
    with pytest.raises(ValueError, match=rf"^seed003-sampled: expected one run of {workload} without a policy, found 0$"):
        e3.followup(Grid.QUICK, rows[~((rows["request.workload"] == workload) & rows["request.dynamic"].isna())])


def test_seed003_runs_each_kernel_at_the_seeds_class_in_full_mode() -> None:
    """§5 ran BT, FT, MG at class B and CG, LU, SP at C; quick mode keeps class W."""
    from numaplace.experiments import seed003 as e3

    classes = {r["workload"].split(":")[0]: r["workload"].split("class=")[1].split(",")[0] for r in e3.runs(Grid.FULL)}
    assert classes == {"nas-bt": "B", "nas-sp": "C", "nas-cg": "C", "nas-mg": "B", "nas-ft": "B", "nas-lu": "C"}
    assert {r["workload"].split("class=")[1].split(",")[0] for r in e3.runs(Grid.QUICK)} == {"W"}


def test_a_second_stage_gets_the_first_stages_rows_and_its_runs_follow(monkeypatch: pytest.MonkeyPatch) -> None:
    from numaplace import experiments
    from numaplace.experiments import Experiment

    seen: list[pd.DataFrame] = []

    def followup(grid: Grid, rows: pd.DataFrame) -> list[dict[str, Any]]:
        seen.append(rows)
        slowest = rows.loc[rows["total_time_ns"].idxmax(), "request.placement"]
        return [{"machine": "origin2000", "workload": "random", "placement": slowest}]

    two = Experiment(
        id="two-stage",
        title="t",
        description="d",
        runs=lambda grid: [{"workload": "stream", "placement": p} for p in ("first-touch", "worst-case")],
        analyse=lambda rows: (rows, plot.new_axes()[0]),
        followup=followup,
    )
    monkeypatch.setitem(experiments.EXPERIMENTS, "two-stage", two)
    frame = run_experiments(["seed003-table2", "two-stage"], simulate=fake_simulate, progress=False)
    assert len(seen) == 1 and list(seen[0]["request.placement"]) == ["first-touch", "worst-case"]
    mine = frame[frame.experiment == "two-stage"]
    assert list(mine["run"]) == [0, 1, 2]
    assert list(mine["request.workload"]) == ["stream", "stream", "random"]
    assert mine["request.placement"].iloc[2] == "worst-case" and mine["total_time_ns"].iloc[2] == 200e6 * 3.0
    assert list(frame.experiment.drop_duplicates()) == ["seed003-table2", "two-stage"]


def test_runs_start_longest_first_rows_keep_run_order_and_each_experiment_says_when_done(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """System runs start before protocol-engine runs, which start before page-level runs
    (stable within a kind); the frame keeps each experiment's run order; with progress on, a
    line when the reproduction starts and one as each experiment's runs are all done."""
    from numaplace import experiments
    from numaplace.experiments import Experiment

    calls: list[str] = []

    def simulate(**kwargs: Any) -> FakeResult:
        calls.append(kwargs["name"])
        return FakeResult({"total_time_ns": float(len(calls))})

    kinds = {"page": {}, "protocol": {"engine": "protocol"}, "system": {"job_stream": "W1"}}
    mixed = [{"name": f"{kind}{i}", **extra} for i in range(2) for kind, extra in kinds.items()]
    for name, runs in (("mixed", mixed), ("pages", [{"name": "p0"}, {"name": "p1"}])):
        monkeypatch.setitem(
            experiments.EXPERIMENTS, name, Experiment(id=name, title="t", description="d", runs=lambda grid, runs=runs: runs, analyse=lambda rows: (rows, None))
        )
    from numaplace.experiments import run as run_module

    now = iter([0.0] + [600.0] * 10)  # the start, then ten minutes later
    monkeypatch.setattr(run_module.time, "monotonic", lambda: next(now))
    frame = run_experiments(["pages", "mixed"], simulate=simulate, progress=True)
    assert calls == ["system0", "system1", "protocol0", "protocol1", "p0", "p1", "page0", "page1"]
    assert list(frame["request.name"]) == ["p0", "p1", "page0", "protocol0", "system0", "page1", "protocol1", "system1"]
    assert list(frame["run"]) == [0, 1, 0, 1, 2, 3, 4, 5]
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "numaplace reproduce: 8 runs of 2 experiments on the quick grid, longest first"
    # Two system, two protocol and two page runs' expected seconds done after 600 s, two page
    # runs' left: the time left is 600 s scaled by their ratio (EXPECTED_S declares the costs).
    cost = run_module.EXPECTED_S
    done = 2 * (cost["system"] + cost["protocol"] + cost["page"])
    left = round(600 * 2 * cost["page"] / done)
    assert 1 <= left < 60, left
    assert lines[1] == f"numaplace reproduce: pages done; 6 of 8 runs after 10 min 0 s, about {left} s left", lines
    assert lines[2] == "numaplace reproduce: mixed done; 8 of 8 runs after 10 min 0 s", lines
    assert len(lines) == 3


def test_the_full_grid_weighs_runs_by_its_own_costs() -> None:
    """``--full`` orders and estimates by the seeds' sizes' costs: seed 003's sampled runs
    (about 164 s each there) before seed 002's system runs, and a page run of another
    experiment by its kind's full cost, not the quick grid's."""
    from numaplace.experiments.run import EXPECTED_S, FULL_EXPECTED_S, expected_s

    system, page = {"job_stream": "W1"}, {"workload": "nas-bt"}
    assert expected_s(page, "seed003-sampled", Grid.FULL) > expected_s(system, "seed002-schedulers", Grid.FULL) > expected_s(page, "seed000-migration", Grid.FULL)
    assert expected_s(page, "seed003-sampled", Grid.QUICK) == EXPECTED_S["page"] == expected_s(page)
    assert expected_s({"engine": "protocol"}, "seed004-proxies", Grid.FULL) == FULL_EXPECTED_S["protocol"]
    assert expected_s(system, "seed002-schedulers", Grid.TEST) == EXPECTED_S["system"]


# --- the experiments package ------------------------------------------------------------------


def test_every_experiment_a_seed_module_defines_is_registered_under_its_id() -> None:
    """Adding an experiment to a seed module without registering it (or registering another
    object under its id) fails here, not silently in a report without the section."""
    from numaplace.experiments import Experiment, seed000, seed001, seed002, seed003, seed004, tiering, tiering_apps, tiering_colloid, tiering_memtis, tiering_nomad

    modules = (seed000, seed001, seed002, seed003, seed004, tiering, tiering_apps, tiering_colloid, tiering_memtis, tiering_nomad)
    defined = {name: obj for module in modules for name, obj in vars(module).items() if isinstance(obj, Experiment)}
    assert sorted(defined) == sorted(n for m in modules for n in m.__all__)
    assert {e.id: e for e in defined.values()} == EXPERIMENTS
    assert all(get_experiment(e.id) is e for e in defined.values())


def test_claims_table_prints_id_statement_verdict_and_figures() -> None:
    from numaplace.experiments import Claim, claims_table

    claims = [
        Claim("C9", "x ≤ 1", "seed 9 §1: x is 0.5", {"x": 0.5}, True, "x 0.50"),
        Claim("C10", "y ≥ 2", "seed 9 §2", {"y": 1.0}, False, "y 1.00"),
    ]
    table = claims_table(claims)
    assert list(table.columns) == ["claim", "holds", "simulated"]
    assert table.values.tolist() == [["C9: x ≤ 1", "holds", "x 0.50"], ["C10: y ≥ 2", "fails", "y 1.00"]]


def test_seed_claims_are_typed_and_their_verdicts_follow_the_figures() -> None:
    """seed 000's claims from a made-up grid where every placement and policy is as fast as
    first-touch: C1 fails (worst-case is not 40 % slower), C2 holds, C3 fails (kernel does not
    improve on no policy), C4 holds; each Claim carries the figures its verdict was computed from."""
    from numaplace.experiments import Claim, seed000

    rows = [
        {"kernel": k, "placement": p, "dynamic": d, "total_time_ns": 1e9, "migrations": 10, "first_fraction": 0.9}
        for k in seed000.KERNELS
        for p in seed000.PLACEMENTS
        for d in seed000.DYNAMICS
    ]
    claims = seed000.claims(pd.DataFrame(rows))
    assert all(isinstance(c, Claim) for c in claims)
    assert [(c.id, c.holds) for c in claims] == [("C1", False), ("C2", True), ("C3", False), ("C4", True)]
    assert claims[0].measured == {f"mean slowdown, {p}": 0.0 for p in ("round-robin", "random", "worst-case")}
    assert claims[3].measured == {f"first-invocation share, {k}": 0.9 for k in sorted(seed000.KERNELS)}
    assert all(c.paper.startswith("seed 000 §") for c in claims)


# --- the report's presentation: summary, configuration, citations, charts ----------------------


@pytest.fixture(scope="module")
def sections(results: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> list[Any]:
    from numaplace.experiments import select
    from numaplace.report import write_report

    return write_report(tmp_path_factory.mktemp("sections"), select(list(FAKE_IDS)), results, Grid.QUICK)


def test_summary_lists_every_claim_first_one_line_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An experiment with claims: the summary (before the first section) has one row per claim
    with its paper, verdict and brief; the lead line counts them."""
    from numaplace import experiments
    from numaplace.experiments import Claim, Experiment, Fidelity, PAPERS, Published

    published = Published("§9", "the ratio", 2.0, "g")

    def claims(rows: pd.DataFrame) -> list[Claim]:
        slow = float(rows["total_time_ns"].max() / rows["total_time_ns"].min())
        return [
            Claim("C9", "x", "seed 004", {"ratio": slow}, slow > 2, "why 9", brief=f"ratio {slow:.1f} (published 2.0)", compared=(published,)),
            Claim("C10", "y", "seed 004", {}, False, "why 10 | piped", brief=""),
        ]

    def fidelity(rows: pd.DataFrame) -> list[Fidelity]:
        return [Fidelity(published, float(rows["total_time_ns"].max() / rows["total_time_ns"].min()))]

    toy = Experiment(
        id="toy",
        title="Toy",
        description="d",
        runs=lambda grid: [{"workload": "stream", "placement": p} for p in ("first-touch", "worst-case")],
        analyse=lambda rows: (rows[["run"]], plot.new_axes()[0]),
        seed="004",
        claims=claims,
        fidelity=fidelity,
    )
    monkeypatch.setitem(experiments.EXPERIMENTS, "toy", toy)
    # A seed left without an experiment, for the summary's line about them; the shared registry
    # keeps its order (a deleted and restored key would move to its end, and the report with it).
    from numaplace.report import pages

    monkeypatch.setattr(pages, "EXPERIMENTS", {k: e for k, e in experiments.EXPERIMENTS.items() if k != "seed002-schedulers"})
    out = reproduce(tmp_path, simulate=fake_simulate, progress=False, experiments=["toy"])
    readme = (out / "README.md").read_text()
    short = PAPERS["004"].short
    # the error beside the verdict is its fidelity row's: (3.0 - 2.0) / 2.0
    assert f"| [C9](#toy) | {short} | holds | 50 % | ratio 3.0 (published 2.0) |" in readme
    assert f"| [C10](#toy) | {short} | fails | – | why 10 \\| piped |" in readme  # no brief: the figures
    assert "**1 of 2 claims hold in the simulation.** Quick mode, class W: these verdicts are a quick check, shown, not required; the claims are asked at class A, the seeds' size, by `numaplace reproduce --full`." in readme
    assert readme.index("| [C9]") < readme.index('<a id="toy">')
    html = (out / "index.html").read_text()
    assert html.index('id="summary"') < html.index('<h2 id="toy">')
    assert '<td><a href="#toy">C9</a></td>' in html and '<td class="holds">holds</td>' in html
    # seeds no registered experiment reproduces are named in the summary (004 now has "toy")
    assert f"Seeds without an experiment yet: 002 ({PAPERS['002'].short}). " in readme
    assert "these verdicts are a quick check, shown, not required; the claims are asked at class A, the seeds' size, by <code>numaplace reproduce --full</code>." in html
    # in full mode the claims are asked: no quick-check note
    full = reproduce(tmp_path / "full", grid="full", simulate=fake_simulate, progress=False, experiments=["toy"])
    for name in ("README.md", "index.html"):
        text = (full / name).read_text()
        assert "quick check" not in text and "Full mode: the claims are asked here, with the NAS kernels at class A" in text, name


def test_a_claim_restating_a_number_its_fidelity_table_lacks_is_a_defect_named() -> None:
    from numaplace.experiments import Claim, Fidelity, Published
    from numaplace.report import Section
    from numaplace.report.pages import claim_error

    kept, lost = Published("§1", "kept", 0.5, "g"), Published("§2", "lost", 0.5, "g")
    claim = Claim("C9", "x", "seed 004", {}, True, "why", compared=(kept, lost))
    section = Section(EXPERIMENTS["placement-sensitivity"], pd.DataFrame(), pd.DataFrame(), "x.png", None, (claim,), (Fidelity(kept, 0.6),))
    with pytest.raises(ValueError, match=r"claim C9 of placement-sensitivity restates published numbers its fidelity table does not compare: \['lost'\]"):
        claim_error(section, claim)
    assert claim_error(section, Claim("C9", "x", "seed 004", {}, True, "why", compared=(kept,))) == "20 %"


def test_configuration_is_shown_once_and_the_runs_collapsed(report_dir: Path) -> None:
    readme = (report_dir / "README.md").read_text()
    section = readme[readme.index('<a id="placement-sensitivity">') :]
    assert "Every run (8): `machine` = origin2000; `threads` = 16; `binding` = spread;" in section
    assert "Varying between runs: `workload` (2): stream:pages=4096, random:pages=4096; `placement` (4): first-touch, round-robin, random, worst-case." in section
    details = section[section.index("<details>") : section.index("</details>")]
    assert "| run | workload | placement |" in details and "machine" not in details
    assert details.count("\n| ") == 2 + 8  # header, alignment, one row per run
    html = (report_dir / "index.html").read_text()
    assert html.count("<details>") == len(FAKE_IDS)


def test_each_section_names_and_cites_its_paper(report_dir: Path) -> None:
    from numaplace.experiments import PAPERS

    import html

    for name in ("index.html", "README.md"):
        text = (report_dir / name).read_text()
        text = html.unescape(text) if name == "index.html" else text
        for experiment_id in FAKE_IDS:
            e = get_experiment(experiment_id)
            assert e.seed in PAPERS
            heading = f"{e.title} — {PAPERS[e.seed].short}"
            assert (f'<h2 id="{e.id}">{heading}</h2>' if name == "index.html" else f"## {heading}") in text
            assert f"{PAPERS[e.seed].name}: {PAPERS[e.seed].citation}" in text  # under the heading
        for paper in PAPERS.values():  # the references: every seed, with or without an experiment
            assert paper.citation in text


def test_every_experiment_names_a_seed_paper() -> None:
    from numaplace.experiments import PAPERS

    assert list(PAPERS) == ["000", "001", "002", "003", "004", "numab", "tpp", "hemem", "memtis", "colloid", "nomad"]
    assert [k for k, p in PAPERS.items() if p.is_seed] == ["000", "001", "002", "003", "004"]
    assert all(e.seed in PAPERS for e in EXPERIMENTS.values())


def test_repository_readme_cites_every_seed() -> None:
    """The repository's README cites each seed with the citation declared in PAPERS (compared
    with runs of white space as one space, so the README may wrap its lines)."""
    import re

    from numaplace.experiments import PAPERS

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    flat = re.sub(r"\s+", " ", readme)
    missing = [seed for seed, paper in PAPERS.items() if paper.is_seed and paper.citation not in flat]
    assert missing == [], f"README.md lacks the citation of seed(s) {', '.join(missing)}"


def test_charts_use_the_palette_and_draw_published_values(sections: list[Any]) -> None:
    from matplotlib.colors import to_hex

    by_id = {s.experiment.id: s for s in sections}
    for s in sections:
        bars = [p for ax in s.figure.axes for p in ax.patches]
        colours = {to_hex(p.get_facecolor(), keep_alpha=False).upper() for p in bars if p.get_width() > 0}
        assert colours and colours <= set(plot.PALETTE) | {"#999999"}, (s.experiment.id, colours)
        assert plot.legend_overlaps(s.figure) == [], s.experiment.id
        assert not any(ax.get_legend() for ax in s.figure.axes) and len(s.figure.legends) == 1
    (ax,) = by_id["seed003-table2"].figure.axes
    (published,) = [line for line in ax.get_lines() if line.get_label() == "published"]
    assert published.get_ydata().tolist() == [1.25, 1.23, 1.18]
    (ax,) = by_id["placement-sensitivity"].figure.axes
    (ranges,) = [c for c in ax.containers if str(c.get_label()).startswith("published range")]
    segments = ranges.lines[2][0].get_segments()  # one vertical segment per ranged bar: 3 placements × 2 workloads
    assert sorted((round(seg[0][1], 2), round(seg[1][1], 2)) for seg in segments) == sorted(
        [(1.08, 1.35), (1.02, 1.45), (1.24, 3.48)] * 2
    )


def test_legend_overlaps_finds_a_legend_over_bars_and_one_cut_off() -> None:
    fig, ax = plot.new_axes()
    plot.grouped_bars(ax, ["a", "b"], {"x": [1.0, 1.0], "y": [1.0, 1.0]})
    ax.legend(loc="lower left")  # over the first bar
    assert plot.legend_overlaps(fig) and all("overlaps Rectangle" in o for o in plot.legend_overlaps(fig))
    fig, ax = plot.new_axes()
    plot.grouped_bars(ax, ["a", "b"], {"x": [1.0, 1.0], "y": [1.0, 1.0]})
    plot.legend_below(fig, ax)
    assert plot.legend_overlaps(fig) == []
    fig, ax = plot.new_axes()
    ax.bar([0], [1.0], label="a label far too long to fit " * 6)
    fig.legend(loc="outside lower center")
    assert any("reaches beyond the figure" in o for o in plot.legend_overlaps(fig))


def test_legend_beside_axes_the_caller_placed() -> None:
    """On axes of the caller's own figure, the legend goes beside those axes (not a figure
    legend that several panels would stack at one place), still outside the data."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 4), layout="constrained")
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2)
    df = pd.DataFrame({"workload": ["a", "a"], "placement": ["first-touch", "random"], "total_time_ns": [1.0, 2.0]})
    plot.slowdown_bars(df, ax=left)
    plot.slowdown_bars(df, ax=right)
    assert fig.legends == [] and left.get_legend() is not None and right.get_legend() is not None
    assert plot.legend_overlaps(fig) == []
