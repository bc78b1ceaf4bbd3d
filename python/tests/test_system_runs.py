"""Multiprogrammed-system runs (seed 002) through the run request, the API and the CLI: job
streams (generated mixes and SWF files), schedulers, per-job tables, the timeline, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import numaplace
from numaplace import ConfigError, NumaplaceError, UnknownNameError

SWF = Path(__file__).resolve().parents[2] / "crates/model/tests/data/nasa-ipsc-1993-excerpt.swf"
SMALL_APPS = "bt=nas-bt:class=S;swim=swim:steps=3;hydro2d=hydro2d:steps=3;apsi=apsi:steps=3"
SMALL = {"machine": "origin2000-64", "job_stream": "W3", "job_count": 6, "apps": SMALL_APPS}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "numaplace", *args], capture_output=True, text=True, timeout=300)


def one_line_error(p: subprocess.CompletedProcess[str]) -> str:
    assert p.returncode == 2, p
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("numaplace: error: "), p.stderr
    return lines[0]


def test_a_mix_runs_as_a_system_with_a_row_per_job() -> None:
    r = numaplace.simulate(**SMALL, scheduler="equipartition", dynamic="kernel")
    assert r.kind == "system"
    jobs = r.per_job()
    assert len(jobs) == 6 == r.system["jobs"]
    # W3 is a quarter of each application; apsi asks for 2 CPUs, the others for 32.
    apps = jobs["workload"].str.split(":").str[0]
    assert set(apps) == {"swim", "nas-bt", "hydro2d", "apsi"}
    assert set(jobs.loc[apps == "apsi", "request"]) == {2} and set(jobs.loc[apps != "apsi", "request"]) == {32}
    assert (jobs["end_ns"] >= jobs["start_ns"]).all() and (jobs["start_ns"] >= jobs["arrival_ns"]).all()
    assert jobs["response_ns"].tolist() == pytest.approx((jobs["end_ns"] - jobs["arrival_ns"]).tolist())
    assert r.config["load"] == 1.0 and r.config["mean_interarrival_s"] > 0
    assert [a for a, _ in r.config["demand_s"]] == ["swim", "bt", "hydro2d", "apsi"]
    # The timeline ends every job at 0 CPUs, and never gives more CPUs than the machine has.
    t = r.timeline()
    assert set(t.groupby("job")["cpus"].last()) == {0}
    assert r.system["cpus"] == 64 and r.system["max_running"] <= 4
    assert "system run" in r._repr_html_() and "makespan" in repr(r)


def test_same_request_same_bytes_and_the_scheduler_changes_the_run() -> None:
    a = numaplace.simulate(**SMALL, scheduler="irix").to_json()
    assert a == numaplace.simulate(**SMALL, scheduler="irix").to_json()
    irix = json.loads(a)
    equi = numaplace.simulate(**SMALL, scheduler="equipartition")
    assert irix["system"]["process_migrations"] > equi.system["process_migrations"]
    assert irix["system"]["scheduler"].startswith("irix:")


def test_an_swf_file_is_a_job_stream(tmp_path: Path) -> None:
    r = numaplace.simulate(machine="origin2000-64", job_stream=str(SWF), job_count=4, apps="apsi:steps=2;nas-bt:class=S")
    assert len(r.per_job()) == 4 and "load" not in r.config
    # The iPSC/860's first jobs asked for all its 128 nodes: on 64 CPUs they run on 64, and the
    # result says so (a request of 2^20 CPUs no longer builds 2^20 threads' state).
    assert r.config["clamped_jobs"] == ("4 jobs asked for more than the machine's 64 CPUs and ran on all of them"
                                        " (the first: swf line 37, job 1, 128 CPUs)")
    assert list(r.per_job()["request"]) == [64, 64, 64, 64]
    huge = tmp_path / "huge.swf"
    huge.write_text("1 0 0 10 65536 1 1 65536 1 1 1 1 1 1 1 1 1 1\n")
    r = numaplace.simulate(machine="origin2000-64", job_stream=str(huge), apps="apsi:steps=2")
    assert "1 job asked for more than the machine's 64 CPUs" in r.config["clamped_jobs"]
    bad = tmp_path / "bad.swf"
    bad.write_text("1 0 0 10 x 1 1 1 1 1 1 1 1 1 1 1 1 1\n")
    with pytest.raises(ConfigError, match=r"bad.swf: swf line 1: field 5 \(allocated processors\) is 'x', not an integer"):
        numaplace.simulate(machine="origin2000-64", job_stream=str(bad))
    with pytest.raises(ConfigError, match="a load is a generated mix's"):
        numaplace.simulate(machine="origin2000-64", job_stream=str(SWF), load=0.5)


def test_bad_streams_and_options_are_one_line_errors() -> None:
    with pytest.raises(UnknownNameError, match=r"unknown job mix 'W9' \(known: W1, W2, W3, W4\)"):
        numaplace.simulate(machine="origin2000-64", job_stream="W9")
    with pytest.raises(UnknownNameError, match="unknown application of seed 002 'lu'"):
        numaplace.simulate(machine="origin2000-64", job_stream="W1", apps="lu=nas-lu")
    with pytest.raises(numaplace.SpecError, match="is not APP=SPEC"):
        numaplace.simulate(machine="origin2000-64", job_stream="W1", apps="swim")
    with pytest.raises(ConfigError, match="^option threads applies to page and protocol runs, not to this system run$"):
        numaplace.simulate(**SMALL, threads=8)
    with pytest.raises(ConfigError, match="^option scheduler applies to system runs, not to this page run$"):
        numaplace.simulate(workload="stream", threads=2, scheduler="pdpa")
    with pytest.raises(UnknownNameError, match="unknown scheduler 'fifo'"):
        numaplace.simulate(**SMALL, scheduler="fifo")
    with pytest.raises(NumaplaceError, match="no such file"):
        numaplace.simulate(machine="origin2000-64", job_stream="missing/file.swf")
    with pytest.raises(ValueError, match="a page run has no jobs"):
        numaplace.simulate(workload="stream", threads=2).per_job()


def test_sim_prints_the_system_summary_and_plots_the_timeline(tmp_path: Path) -> None:
    png = tmp_path / "t.png"
    p = run("sim", "--machine", "origin2000-64", "--job-stream", "W1", "--job-count", "4", "--apps", SMALL_APPS,
            "--scheduler", "pdpa", "--timeline", str(png))  # fmt: skip
    assert p.returncode == 0, p.stderr
    for word in ("makespan", "pdpa:target=0.7", "process migrations", "workload", "speedup"):
        assert word in p.stdout, word
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "--timeline plots a system run's allocation: give --job-stream" in one_line_error(run("sim", "--timeline", str(png)))


def test_schedulers_are_listed() -> None:
    s = {x["name"]: x for x in numaplace.schedulers()}
    assert set(s) == {"irix", "equipartition", "pdpa", "linux"}
    assert s["equipartition"]["sharing"] == "space" and s["irix"]["sharing"] == "time"
    assert s["pdpa"]["reads_efficiency"] and s["linux"]["reads_faults"]
    p = run("schedulers")
    assert p.returncode == 0 and "pdpa:" in p.stdout and "target=0.7" in p.stdout


def test_a_sweep_varies_scheduler_load_and_policy_and_its_table_has_the_system_record(tmp_path: Path) -> None:
    spec = tmp_path / "sys.toml"
    spec.write_text(
        f'[fixed]\nmachine = "origin2000-64"\njob_stream = "W1"\njob_count = 3\napps = "{SMALL_APPS}"\n\n'
        '[axes]\nscheduler = ["irix", "equipartition"]\nload = [0.6, 1.0]\ndynamic = ["none", "kernel"]\n'
    )
    df = numaplace.sweep(str(spec), out=str(tmp_path / "out"), jobs=2, progress=False)
    assert len(df) == 8 and set(df["status"]) == {"ok"}
    assert {"system.makespan_ns", "system.process_migrations", "jobs", "timeline"} <= set(df.columns)
    assert (df.loc[df["scheduler"] == "irix", "system.process_migrations"] > 0).all()
    # The table reads back, and a row is a result again.
    import pandas as pd

    back = pd.read_parquet(tmp_path / "out" / "results.parquet")
    assert len(back) == 8
    r = numaplace.Result.from_row(df.iloc[0])
    assert r.system["makespan_ns"] == df.iloc[0]["system.makespan_ns"]
    # On a Dask cluster (scheduler "local": a LocalCluster of its own) the same table.
    on_dask = numaplace.sweep(str(spec), scheduler="local", jobs=2, progress=False)
    pd.testing.assert_frame_equal(on_dask, df)
