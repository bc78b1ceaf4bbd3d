"""Tests of sweeps: the spec, the executor and its backends (pool, Dask), robustness, the CLI.

Runs are tiny (well under a millisecond) except where a test needs runs in flight to kill or
interrupt. Every table is compared whole: results are deterministic, so the same spec gives
the same table on every backend, after a crash, and after an interrupted run is resumed.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.parquet as pq
import pytest

import numaplace
from numaplace import _native, cli, plot
from numaplace.sweep.spec import PARAM_OPTIONS
from numaplace.sweep import (
    CHECKPOINT_FILE,
    OPTIONS,
    RESULTS_CSV,
    RESULTS_FILE,
    SweepError,
    UnsupportedOptionError,
    execute,
    load_results,
    load_spec,
    main,
    run_id,
    run_one,
    run_sweep,
)

STREAM = "stream:pages=32,iterations=1"
RANDOM = "random:accesses=200,pages=256"
SLOW = "random:accesses=100000,pages=4096,iterations=2"  # ~30 ms: long enough to be caught in flight

SMALL_SPEC = f"""\
[axes]
workload = ["{STREAM}", "{RANDOM}"]
placement = ["first-touch", "round-robin", "no-such-policy"]
threads = [1, 2]

[fixed]
machine = "origin2000"
seed = 3

[[exclude]]
placement = "round-robin"
threads = 1
"""

LEAD = ["run", "run_id", "status", "error_type", "error", "attempts"]


@pytest.fixture(scope="module")
def small_spec(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("spec") / "small.toml"
    path.write_text(SMALL_SPEC)
    return path


@pytest.fixture(scope="module")
def reference(small_spec: Path) -> pd.DataFrame:
    """The small sweep, run in this process: what every other way of running it must give."""
    return run_sweep(small_spec, jobs=0)


# --- the spec --------------------------------------------------------------------------------


def test_cartesian_order_with_fixed_and_exclude(small_spec: Path) -> None:
    configs = load_spec(small_spec).configurations()
    expected = [
        {"machine": "origin2000", "workload": w, "threads": t, "placement": p, "seed": 3}
        for w in (STREAM, RANDOM)
        for p in ("first-touch", "round-robin", "no-such-policy")
        for t in (1, 2)
        if not (p == "round-robin" and t == 1)
    ]
    assert configs == expected
    assert [list(c) for c in configs] == [["machine", "workload", "threads", "placement", "seed"]] * 10


def test_path_text_and_dict_specs_are_equivalent(small_spec: Path) -> None:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib

    from_path = load_spec(small_spec)
    assert load_spec(str(small_spec)).configurations() == from_path.configurations()
    assert load_spec(SMALL_SPEC).configurations() == from_path.configurations()
    assert load_spec(tomllib.loads(SMALL_SPEC)).configurations() == from_path.configurations()


def test_exclude_values_may_be_lists() -> None:
    s = load_spec({"axes": {"threads": [1, 2, 4], "seed": [0, 1]}, "exclude": [{"threads": [1, 4], "seed": 0}]})
    assert s.configurations() == [
        {"threads": 1, "seed": 1},
        {"threads": 2, "seed": 0},
        {"threads": 2, "seed": 1},
        {"threads": 4, "seed": 1},
    ]


def test_class_and_dynamic_are_accepted_by_the_parser() -> None:
    s = load_spec({"axes": {"class": ["S", "A"], "dynamic": ["migrate:threshold=4"]}, "fixed": {"workload": STREAM}})
    assert s.configurations()[0] == {"workload": STREAM, "class": "S", "dynamic": "migrate:threshold=4"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[axes]\nthread = [1]\n", r"\[axes\]: unknown option 'thread' \(did you mean 'threads'\? valid: machine, engine, workload, class, threads, placement, init, dynamic, binding, fast_memory_mib, proxies, buffers, job_stream, load, job_count, apps, scheduler, seed, quantum_ns, oversubscribe, trace\)"),
        ("[fixed]\ncolour = 'red'\n", r"\[fixed\]: unknown option 'colour' \(valid: machine, "),
        ("[axes]\nthreads = 4\n", r"\[axes\] threads = 4: expected a list of values \(or move it to \[fixed\]\)"),
        ("[axes]\nthreads = ['4']\n", r"\[axes\] threads = '4': expected an integer"),
        ("[axes]\nthreads = [true]\n", r"\[axes\] threads = True: expected an integer"),
        ("[axes]\nthreads = [0]\n", r"\[axes\] threads = 0: expected an integer in \[1, 65535\]"),
        ("[axes]\nworkload = [1]\n", r"\[axes\] workload = 1: expected a string"),
        ("[fixed]\noversubscribe = 1\n", r"\[fixed\] oversubscribe = 1: expected true or false"),
        ("[fixed]\nseed = [1, 2]\n", r"\[fixed\] seed = \[1, 2\]: expected one value \(lists belong in \[axes\]\)"),
        ("[axes]\nseed = []\n", r"\[axes\] seed: empty list"),
        ("[axes]\nseed = [1, 1]\n", r"\[axes\] seed: value 1 is listed twice"),
        ("[axes]\nseed = [1]\n[fixed]\nseed = 2\n", r"option 'seed' is both in \[axes\] and in \[fixed\]"),
        ("[axis]\nseed = [1]\n", r"unknown top-level key 'axis' \(valid: \[axes\], \[fixed\], \[\[zip\]\], \[\[exclude\]\]\)"),
        ("[axes]\nseed = [1]\n[[exclude]]\nthreads = 1\n", r"\[\[exclude\]\] #1: option 'threads' is set by neither"),
        ("[axes]\nseed = [1]\n[[exclude]]\n", r"\[\[exclude\]\] #1 is empty"),
        ("[axes]\nseed = [1]\n[[exclude]]\nseed = 1\n", r"\[\[exclude\]\] leaves no configuration to run"),
        ("[axes\nseed = [1]\n", r"not valid TOML: "),
    ],
)
def test_bad_specs_are_one_line_errors_naming_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(SweepError, match=f"^{path}: {message}") as info:
        load_spec(path)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, numaplace.NumaplaceError)


def test_missing_spec_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SweepError, match=r"nope\.toml: the sweep spec does not exist$"):
        load_spec(tmp_path / "nope.toml")


def test_run_id_is_a_stable_hash_of_the_options() -> None:
    a = run_id({"workload": STREAM, "threads": 2})
    assert a == run_id({"threads": 2, "workload": STREAM})
    assert a != run_id({"workload": STREAM, "threads": 1})
    assert run_id({"threads": 2}) == "02f249b379610899"  # part of the checkpoint format: never change


# --- the executor ----------------------------------------------------------------------------


class FakeResult:
    def __init__(self, record: dict[str, Any]) -> None:
        self._record = record

    def to_dict(self) -> dict[str, Any]:
        return self._record


def test_run_one_passes_only_present_options_and_records_failures() -> None:
    ok = run_one({"workload": STREAM, "threads": 2})
    assert ok["status"] == "ok" and ok["error"] is None
    assert ok["result"] == numaplace.simulate(workload=STREAM, threads=2).to_dict()
    bad = run_one({"workload": "stream:pages=-1"})
    assert bad["status"] == "failed" and bad["result"] is None
    assert bad["error_type"] == "SpecError" and "pages" in bad["error"] and "\n" not in bad["error"]


def test_options_simulate_lacks_fail_clearly_and_pass_through_once_it_has_them() -> None:
    assert "class" in OPTIONS and "dynamic" in OPTIONS

    def old_simulate(workload: str = "stream", *, threads: int = 16) -> FakeResult:
        return FakeResult({"config": {}})

    out = run_one({"workload": STREAM, "class": "A"}, simulate=old_simulate)
    assert out == {
        "status": "failed",
        "error_type": "UnsupportedOptionError",
        "error": "option 'class' is not supported by this version of numaplace (simulate() has no such argument)",
        "result": None,
    }

    seen: dict[str, Any] = {}

    def new_simulate(workload: str = "stream", *, problem_class: str | None = None, **extra: Any) -> FakeResult:
        seen.update(workload=workload, problem_class=problem_class, **extra)
        return FakeResult({"config": {}})

    out = run_one({"workload": STREAM, "class": "A", "dynamic": "migrate"}, simulate=new_simulate)
    assert out["status"] == "ok"
    assert seen == {"workload": STREAM, "problem_class": "A", "dynamic": "migrate"}
    assert issubclass(UnsupportedOptionError, SweepError)


def test_real_simulate_rejecting_an_option_is_a_failed_run_not_a_crash() -> None:
    df = run_sweep({"axes": {"dynamic": ["no-such-policy:threshold=4"], "class": ["S"]}, "fixed": {"workload": STREAM}}, jobs=0)
    assert df.loc[0, "status"] == "failed" and df.loc[0, "attempts"] == 1
    assert issubclass(getattr(numaplace, df.loc[0, "error_type"], SweepError), numaplace.NumaplaceError)
    assert df.loc[0, "error"] and "\n" not in df.loc[0, "error"]


class ScriptedBackend:
    """A backend whose futures fail as a lost worker would, as scripted per run id."""

    capacity = 3
    generation = 0

    def __init__(self, losses: dict[str, int]) -> None:
        self.losses = dict(losses)
        self.submitted: list[str] = []
        self.recovered = 0
        self.closed = False

    def submit(self, options: dict[str, Any], run: str) -> Future:
        self.submitted.append(run)
        fut: Future = Future()
        if self.losses.get(run, 0) > 0:
            self.losses[run] -= 1
            fut.set_exception(ConnectionError("worker went away"))
        else:
            fut.set_result({"status": "ok", "error_type": None, "error": None, "result": {"v": options["v"]}})
        return fut

    def wait(self, futures: list[Future]) -> list[Future]:
        return futures

    def recover(self) -> None:
        self.recovered += 1
        self.generation += 1

    def close(self, cancel: bool = False) -> None:
        self.closed = True


def test_lost_workers_are_retried_once_then_recorded() -> None:
    planned = [(f"r{i}", {"v": i}) for i in range(5)]
    backend = ScriptedBackend({"r1": 1, "r3": 5})
    outcomes: dict[int, tuple[dict[str, Any], int]] = {}
    execute(planned, backend, lambda i, o, a: outcomes.__setitem__(i, (o, a)))
    assert sorted(outcomes) == [0, 1, 2, 3, 4]  # nothing disappears
    assert outcomes[1] == ({"status": "ok", "error_type": None, "error": None, "result": {"v": 1}}, 2)
    lost, attempts = outcomes[3]
    assert attempts == 2 and lost["status"] == "failed" and lost["error_type"] == "WorkerLost"
    assert lost["error"] == "worker lost on all 2 attempts (last: ConnectionError: worker went away)"
    assert all(outcomes[i][1] == 1 and outcomes[i][0]["status"] == "ok" for i in (0, 2, 4))
    assert backend.submitted.count("r3") == 2 and backend.closed


# --- running sweeps --------------------------------------------------------------------------


def _missing_as_none(value: Any) -> Any:
    return None if not isinstance(value, (list, dict)) and pd.isna(value) else value


def test_table_columns_and_values(reference: pd.DataFrame) -> None:
    row_keys = list(numaplace.simulate(workload=STREAM, threads=1).to_row())
    assert list(reference.columns) == [*LEAD, "machine", "workload", "threads", "placement", "seed", *row_keys]
    assert reference["run"].tolist() == list(range(10))
    assert reference["placement"].tolist() == ["first-touch"] * 2 + ["round-robin"] + ["no-such-policy"] * 2 + (
        ["first-touch"] * 2 + ["round-robin"] + ["no-such-policy"] * 2
    )
    ok = reference.loc[reference["status"] == "ok"]
    assert len(ok) == 6
    for _, row in ok.iterrows():
        expected = numaplace.simulate(
            machine="origin2000", workload=row["workload"], placement=row["placement"], threads=int(row["threads"]), seed=3
        ).to_row()
        assert {k: _missing_as_none(row[k]) for k in expected} == expected
    failed = reference.loc[reference["status"] == "failed"]
    assert len(failed) == 4
    assert set(failed["error_type"]) == {"UnknownNameError"}
    assert failed["error"].str.startswith("unknown placement 'no-such-policy' (known: ").all()
    assert failed["total_time_ns"].isna().all() and failed["config.workload"].isna().all()
    assert (reference["attempts"] == 1).all()  # bad parameters are not retried
    assert reference["run_id"].tolist() == [run_id(c) for c in load_spec(SMALL_SPEC).configurations()]


def test_local_pool_writes_parquet_and_csv_and_resumes(small_spec: Path, reference: pd.DataFrame, tmp_path: Path) -> None:
    df = run_sweep(small_spec, jobs=2, out=tmp_path, csv=True)
    pd.testing.assert_frame_equal(df, reference)
    pd.testing.assert_frame_equal(load_results(tmp_path), reference)
    stored = pq.read_table(tmp_path / RESULTS_FILE)
    assert str(stored.schema.field("per_node_pages").type) == "string"  # lists as JSON text
    assert json.loads(stored.column("per_node_pages")[0].as_py()) == reference.loc[0, "per_node_pages"]
    csv = pd.read_csv(tmp_path / RESULTS_CSV)
    assert csv["run_id"].tolist() == reference["run_id"].tolist()
    assert json.loads(csv.loc[0, "epochs"]) == reference.loc[0, "epochs"]
    assert len((tmp_path / CHECKPOINT_FILE).read_text().splitlines()) == 10
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary files left

    executed: list[int] = []
    again = run_sweep(small_spec, jobs=2, out=tmp_path, _on_result=lambda n, b: executed.append(n))
    assert executed == []  # everything was done already
    pd.testing.assert_frame_equal(again, reference)


def test_dask_cluster_gives_the_same_table_as_the_local_pool(small_spec: Path, reference: pd.DataFrame) -> None:
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # /health on a free port, not 8787
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        on_cluster = run_sweep(small_spec, scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(on_cluster, reference)
    pd.testing.assert_frame_equal(run_sweep(small_spec, jobs=2), reference)


def test_scheduler_local_starts_a_local_cluster(small_spec: Path, reference: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(run_sweep(small_spec, scheduler="local", jobs=2), reference)


def test_killed_pool_worker_runs_are_retried_and_table_is_complete(tmp_path: Path) -> None:
    spec = {"axes": {"seed": list(range(12))}, "fixed": {"workload": SLOW, "threads": 16}}
    expected = run_sweep(spec, jobs=0)
    killed: list[int] = []

    def kill_a_worker(done: int, backend: Any) -> None:
        if done == 2 and not killed:
            pid = backend.pids()[0]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    df = run_sweep(spec, jobs=2, out=tmp_path, _on_result=kill_a_worker)
    assert killed
    assert (df["status"] == "ok").all() and len(df) == 12
    assert (df["attempts"] == 2).any()  # the runs in flight when the worker died ran again
    pd.testing.assert_frame_equal(df.drop(columns="attempts"), expected.drop(columns="attempts"))
    pd.testing.assert_frame_equal(load_results(tmp_path), df)


def _sweep_command() -> list[str]:
    """``numaplace sweep`` if the CLI has the subcommand, else the same code through sweep.main."""
    try:
        cli.build_parser().parse_args(["sweep", "spec.toml", "--out", "out"])
        return [sys.executable, "-m", "numaplace", "sweep"]
    except cli.UsageError:
        return [sys.executable, "-c", "import sys; from numaplace.sweep import main; sys.exit(main())"]


def test_interrupted_sweep_resumes_to_the_same_table(tmp_path: Path) -> None:
    spec = tmp_path / "slow.toml"
    spec.write_text(f'[axes]\nseed = {list(range(24))}\n[fixed]\nworkload = "{SLOW}"\nthreads = 16\n')
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [*_sweep_command(), str(spec), "--out", str(out), "--jobs", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, like a shell job: Ctrl-C reaches all of it
    )
    checkpoint = out / CHECKPOINT_FILE
    deadline = time.monotonic() + 60
    while not (checkpoint.exists() and len(checkpoint.read_text().splitlines()) >= 3):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.005)
    os.killpg(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert stderr.splitlines()[-1] == "numaplace: interrupted"
    assert not (out / RESULTS_FILE).exists()
    done_before = len([line for line in checkpoint.read_text().splitlines() if line.strip()])
    assert 3 <= done_before < 24

    # A sweep killed mid-write leaves half a line: it is ignored, and the run done again.
    with checkpoint.open("a") as f:
        f.write('{"run_id": "trunc')
    executed: list[int] = []
    resumed = run_sweep(spec, jobs=1, out=out, _on_result=lambda n, b: executed.append(n))
    assert len(executed) == 24 - done_before
    expected = run_sweep(spec, jobs=0)
    pd.testing.assert_frame_equal(resumed, expected)
    pd.testing.assert_frame_equal(load_results(out), expected)


def test_a_cancelled_pool_leaves_a_reader_stuck_on_a_future_the_interrupt_left_locked() -> None:
    """concurrent.futures.wait acquires each future's lock in turn, and a Ctrl-C inside that
    loop leaves the ones it took held by the main thread; the worker's reader then blocks
    handing its answer over. Closing the cancelled pool must still return (a fresh-clone CI saw
    an interrupted sweep hang there), leaving the reader, a daemon thread, behind."""
    import threading

    from numaplace.sweep import backends

    pool = backends._PoolBackend(1)
    fut = pool.submit({"workload": STREAM, "threads": 1}, "r0")
    worker = pool._workers[0]
    fut._condition.acquire()  # what the interrupted wait() left behind
    try:
        deadline = time.monotonic() + 120
        while worker.answered == 0:  # the reader took the answer and now waits for the future's lock
            assert time.monotonic() < deadline and worker.alive, "the worker never answered"
            time.sleep(0.01)
        closing = threading.Thread(target=pool.close, kwargs={"cancel": True}, daemon=True)
        closing.start()
        closing.join(60)  # about READER_GRACE_S; without the bound it never returns
        assert not closing.is_alive(), "close(cancel=True) waited for the stuck reader"
        assert worker.reader.is_alive() and not fut.done()
    finally:
        fut._condition.release()
    worker.reader.join(60)
    assert fut.done() and not worker.reader.is_alive()


def test_lost_runs_in_the_checkpoint_are_run_again(tmp_path: Path) -> None:
    spec = {"axes": {"seed": [0, 1]}, "fixed": {"workload": STREAM, "threads": 1}}
    run_sweep(spec, jobs=0, out=tmp_path)
    lines = (tmp_path / CHECKPOINT_FILE).read_text().splitlines()
    lost = json.loads(lines[1]) | {"status": "failed", "error_type": "WorkerLost", "error": "lost", "row": None}
    (tmp_path / CHECKPOINT_FILE).write_text("\n".join([lines[0], json.dumps(lost)]) + "\n")
    executed: list[int] = []
    df = run_sweep(spec, jobs=0, out=tmp_path, _on_result=lambda n, b: executed.append(n))
    assert executed == [1] and (df["status"] == "ok").all()


def test_bad_jobs_and_scheduler_arguments() -> None:
    with pytest.raises(SweepError, match=r"jobs = -1: expected an integer ≥ 0"):
        run_sweep({"fixed": {"workload": STREAM}}, jobs=-1)
    with pytest.raises(SweepError, match=r"scheduler = '': expected 'local' \(a Dask LocalCluster"):
        run_sweep({"fixed": {"workload": STREAM}}, scheduler="")


# --- the command line ------------------------------------------------------------------------


def test_sweep_command_writes_results(small_spec: Path, reference: pd.DataFrame, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(small_spec), "--out", str(tmp_path), "--csv", "--jobs", "2", "--no-progress"]) == 0
    captured = capsys.readouterr()
    assert captured.out == f"wrote {tmp_path / RESULTS_FILE} and {tmp_path / RESULTS_CSV}: 10 runs, 6 ok, 4 failed\n"
    assert captured.err.startswith("numaplace: warning: 4 of 10 runs failed (first: run 3: UnknownNameError: unknown placement")
    assert len(captured.err.splitlines()) == 1
    pd.testing.assert_frame_equal(load_results(tmp_path), reference)


def test_sweep_command_user_errors_are_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "typo.toml"
    spec.write_text("[axes]\nplacements = ['first-touch']\n")
    assert main([str(spec), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"numaplace: error: {spec}: [axes]: unknown option 'placements' (did you mean 'placement'?")
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_numaplace_cli_wires_the_sweep_command(small_spec: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if _sweep_command()[1] != "-m":
        pytest.skip("numaplace.cli does not register `sweep` yet (cli/parser.py: sweep.add_parser)")
    assert cli.main(["sweep", str(small_spec), "--out", str(tmp_path), "--jobs", "0", "--no-progress"]) == 0
    assert "10 runs, 6 ok, 4 failed" in capsys.readouterr().out
    assert cli.main(["sweep", str(tmp_path / "missing.toml"), "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("numaplace: error: ")


def test_readme_example_spec_runs(tmp_path: Path) -> None:
    example = Path(__file__).parents[2] / "examples" / "sweep-small.toml"
    df = run_sweep(example, jobs=0, out=tmp_path)
    assert len(df) == len(load_spec(example).configurations()) > 1
    assert (df["status"] == "ok").all()


def test_numaplace_sweep_is_the_package_and_runs_a_sweep_when_called(tmp_path: Path) -> None:
    """``numaplace.sweep`` names the package (its exceptions are reachable through it) and,
    called, runs a sweep exactly as :func:`run_sweep` does."""
    import numaplace.sweep as package
    from numaplace.sweep import SweepError as imported

    assert numaplace.sweep is package is sys.modules["numaplace.sweep"]
    assert numaplace.sweep.SweepError is imported is SweepError
    assert list(inspect.signature(numaplace.sweep).parameters) == list(inspect.signature(run_sweep).parameters)
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[axes]\nseed = [1, 2, 3]\n[fixed]\nworkload = "{STREAM}"\n')
    called = numaplace.sweep(str(spec), jobs=2)
    assert list(called["seed"]) == [1, 2, 3] and (called["status"] == "ok").all()
    pd.testing.assert_frame_equal(called, run_sweep(str(spec), jobs=0))
    with pytest.raises(numaplace.sweep.SweepError, match=r"unknown option 'seeed' \(did you mean 'seed'\?"):
        numaplace.sweep({"axes": {"seeed": [1]}}, jobs=0)


# --- plots and the extension's stubs ----------------------------------------------------------


def test_plot_helpers_take_a_sweep_table() -> None:
    df = run_sweep(
        {
            "axes": {"init": ["parallel", "sequential"], "placement": ["first-touch", "round-robin"], "binding": ["spread", "compact"]},
            "fixed": {"workload": "random:accesses=200,pages=256,iterations=3", "threads": 4},
        },
        jobs=0,
    )
    fig, axes = plot.factor_grid(df, "init", "placement", "binding")
    assert axes.shape == (2, 2)
    assert axes[1, 0].get_title() == "init=sequential\nplacement=first-touch"
    assert [b.get_height() for b in axes[0, 0].patches] == pytest.approx((df["total_time_ns"][:2] / 1e6).tolist())
    with pytest.raises(ValueError, match="more than one row per"):
        plot.factor_grid(df, "init", "placement", "placement")

    fig, ax = plot.iteration_series(df.iloc[:2])
    assert [line.get_label() for line in ax.get_lines()] == ["binding=spread", "binding=compact"]
    assert ax.get_lines()[0].get_ydata().tolist() == pytest.approx([t / 1e6 for t in df.loc[0, "per_iteration_time_ns"]])
    as_json = df.iloc[:2].assign(per_iteration_time_ns=df["per_iteration_time_ns"][:2].map(json.dumps))
    _, ax2 = plot.iteration_series(as_json, label=["placement", "binding"])
    assert ax2.get_lines()[1].get_label() == "placement=first-touch, binding=compact"


def test_native_stub_lists_exactly_what_the_extension_exports() -> None:
    tree = ast.parse(Path(numaplace.__file__).with_name("_native.pyi").read_text())
    stub: dict[str, tuple[str, Any]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            params = [a.arg for a in node.args.args]
            with_default = params[len(params) - len(node.args.defaults) :]
            stub[node.name] = ("function", (params, with_default))
        elif isinstance(node, ast.ClassDef):
            stub[node.name] = ("class", [ast.unparse(b) for b in node.bases])
        elif isinstance(node, ast.AnnAssign):
            assert isinstance(node.target, ast.Name)
            stub[node.target.id] = ("value", ast.unparse(node.annotation))
    exported = {n for n in dir(_native) if not n.startswith("_")} | {"__version__"}
    assert set(stub) == exported
    for name, (kind, detail) in stub.items():
        obj = getattr(_native, name)
        if kind == "function":
            params = inspect.signature(obj).parameters
            with_default = [n for n, p in params.items() if p.default is not inspect.Parameter.empty]
            assert (list(params), with_default) == detail, name
        elif kind == "class":
            assert [b.__name__ for b in obj.__bases__] == detail, name
        else:
            assert type(obj).__name__ == detail, name
    assert (Path(numaplace.__file__).with_name("py.typed")).exists()


def test_workers_that_cannot_start_stop_the_sweep_with_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import numaplace.sweep.backends as _  # noqa: F401 - the module that starts the workers

    module = sys.modules["numaplace.sweep.backends"]
    monkeypatch.setattr(module, "_WORKER_BOOTSTRAP", "import sys; sys.exit(3)")
    with pytest.raises(SweepError, match=r"^local worker processes exit before running anything \(worker process \d+ exited with status 3\); "):
        run_sweep({"axes": {"seed": list(range(8))}, "fixed": {"workload": STREAM}}, jobs=2, out=tmp_path)
    assert not (tmp_path / RESULTS_FILE).exists()


def test_workers_found_dead_by_a_broken_pipe_still_stop_the_sweep(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The race CI once lost: a worker has exited, but its reader thread has not yet run to mark
    # it dead. Submissions then meet a broken pipe; each must count as that worker's death, or
    # they all go to the same dead worker and use up every run's retries without a death seen.
    import numaplace.sweep.backends as _  # noqa: F401

    module = sys.modules["numaplace.sweep.backends"]
    monkeypatch.setattr(module, "_WORKER_BOOTSTRAP", "import sys; sys.exit(3)")
    start, read = module._Worker.__init__, module._Worker._read

    def exited_on_start(self: Any) -> None:
        start(self)
        self.proc.wait()

    def slow_reader(self: Any) -> None:
        time.sleep(0.3)
        read(self)

    monkeypatch.setattr(module._Worker, "__init__", exited_on_start)
    monkeypatch.setattr(module._Worker, "_read", slow_reader)
    with pytest.raises(SweepError, match=r"^local worker processes exit before running anything \(worker process \d+ exited with status 3\); "):
        run_sweep({"axes": {"seed": list(range(8))}, "fixed": {"workload": STREAM}}, jobs=2, out=tmp_path)
    assert not (tmp_path / RESULTS_FILE).exists()


# --- no policy as a value, parameter keys, zipped keys, in-process small sweeps ----------------


def test_none_is_a_dynamic_value_like_any_policy(cli) -> None:
    # simulate, the sim command, a sweep axis, and run_one (what reproduce's experiments run)
    base = numaplace.simulate(workload=STREAM, threads=2)
    assert numaplace.simulate(workload=STREAM, threads=2, dynamic="none") == base
    r = cli("sim", "--workload", STREAM, "--threads", "2", "--dynamic", "none")
    assert r.returncode == 0, r.stderr
    df = numaplace.sweep({"axes": {"dynamic": ["none", "upmlib"]}, "fixed": {"workload": STREAM, "threads": 2}})
    assert list(df.status) == ["ok", "ok"] and list(df.dynamic) == ["none", "upmlib"]
    assert df["config.dynamic"].isna().tolist() == [True, False]
    assert df.total_time_ns.iloc[0] == base.total_time_ns
    assert run_one({"workload": STREAM, "threads": 2, "dynamic": "none"})["status"] == "ok"


PARAM_SPEC = """\
[axes]
"workload.pages" = [64, 256]
"dynamic.threshold" = [2, 8]

[fixed]
workload = "traverse:pattern=random"
dynamic = "upmlib"
threads = 4
"""


def test_parameter_keys_join_their_options_spec_and_get_a_column() -> None:
    sweep = load_spec(PARAM_SPEC)
    assert sweep.keys == ["workload", "workload.pages", "threads", "dynamic", "dynamic.threshold"]
    assert [c["workload"] for c in sweep.configurations()][::2] == ["traverse:pattern=random,pages=64", "traverse:pattern=random,pages=256"]
    assert [c["dynamic"] for c in sweep.configurations()][:2] == ["upmlib:threshold=2", "upmlib:threshold=8"]
    df = run_sweep(PARAM_SPEC, jobs=0)
    assert list(df.columns[6:11]) == ["workload", "workload.pages", "threads", "dynamic", "dynamic.threshold"]
    assert list(df["workload.pages"]) == [64, 64, 256, 256] and list(df["dynamic.threshold"]) == [2, 8, 2, 8]
    assert (df.status == "ok").all()
    assert df["config.workload"].str.contains("pages=256").tolist() == [False, False, True, True]
    assert df["config.dynamic"].str.startswith("upmlib:threshold=8").tolist() == [False, True, False, True]
    # The same runs written as whole spec strings have the same run ids (one checkpoint).
    whole = load_spec(
        {"axes": {"workload": ["traverse:pattern=random,pages=64", "traverse:pattern=random,pages=256"],
                  "dynamic": ["upmlib:threshold=2", "upmlib:threshold=8"]}, "fixed": {"threads": 4}}
    )  # fmt: skip
    assert [run_id(c) for c in whole.configurations()] == list(df.run_id)


def test_a_parameter_of_an_unset_option_joins_its_default() -> None:
    (config,) = load_spec({"fixed": {"workload.pages": 48}}).configurations()
    assert config == {"workload": "stream:pages=48"}
    (config,) = load_spec({"fixed": {"placement": "bind", "placement.node": 1}}).configurations()
    assert config == {"placement": "bind:node=1"}


def test_every_spec_option_the_request_declares_can_be_varied_by_parameter() -> None:
    # Which options take a registry's specs is declared once, in the run request (`registry`);
    # the scheduler was left out when the sweep kept its own list.
    assert PARAM_OPTIONS == ("workload", "placement", "dynamic", "scheduler")
    sweep = load_spec({"axes": {"scheduler.mpl": [1, 2]}, "fixed": {"job_stream": "W1"}})
    assert [c["scheduler"] for c in sweep.configurations()] == ["equipartition:mpl=1", "equipartition:mpl=2"]
    with pytest.raises(SweepError, match=r"scheduler 'equipartition': unknown parameter 'mlp'"):
        load_spec({"axes": {"scheduler.mlp": [1, 2]}})


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"axes": {"workload.pagez": [1, 2]}, "fixed": {"workload": "traverse"}},
         r"\[axes\] workload.pagez: workload 'traverse': unknown parameter 'pagez' \(valid keys: pattern, pages, "),
        ({"axes": {"dynamic.thresh": [1]}, "fixed": {"dynamic": "upmlib"}},
         r"\[axes\] dynamic.thresh: dynamic policy 'upmlib': unknown parameter 'thresh' \(valid keys: threshold"),
        ({"axes": {"placement.node": ["x"]}, "fixed": {"placement": "bind"}}, r"\[axes\] placement.node: placement 'bind': node=x: expected"),
        ({"axes": {"dynamic.threshold": [2, 4]}}, r"\[axes\] dynamic.threshold: a parameter of no policy \(dynamic = \"none\"\)"),
        ({"axes": {"workload.pages": [1, 2]}, "fixed": {"workload": "stream:pages=3"}},
         r"\[axes\] workload.pages: workload = 'stream:pages=3' already sets pages"),
        ({"axes": {"threads.count": [1]}}, r"\[axes\]: 'threads.count': threads has no parameters"),
        ({"axes": {"workloads.pages": [1]}}, r"\[axes\]: unknown option 'workloads' \(did you mean 'workload'"),
        ({"axes": {"workload.pages": ["1,iterations=9"]}}, r"\[axes\] workload.pages = '1,iterations=9': a parameter value cannot be empty or hold , = :"),
        ({"axes": {"workload.pages": [[1]]}}, r"\[axes\] workload.pages = \[1\]: expected a number or a string"),
        ({"zip": [{"dynamic": ["none", "upmlib"], "placement": ["first-touch"]}]},
         r"\[\[zip\]\] #1: the lists must have one length, to go together \(dynamic has 2, placement has 1\)"),
        ({"zip": [{"threads": [1, 1], "seed": [2, 2]}]}, r"\[\[zip\]\] #1: values #1 and #2 are the same"),
        ({"axes": {"threads": [1, 2]}, "zip": [{"threads": [3], "seed": [1]}]}, r"'threads' is set twice \(in \[axes\] and in \[\[zip\]\] #1\)"),
        ({"zip": [{}]}, r"\[\[zip\]\] #1 is empty"),
        ({"zip": {"threads": [1]}}, r"zip must be an array of tables"),
        ({"zip": [{"threads": 1}]}, r"\[\[zip\]\] #1 threads = 1: expected a list of values"),
        ({"axes": {"threads": [1]}, "exclude": [{"seed": 1}]}, r"\[\[exclude\]\] #1: option 'seed' is set by neither \[axes\], \[fixed\] nor a \[\[zip\]\]"),
    ],
)  # fmt: skip
def test_bad_parameter_and_zip_keys_are_one_line_errors(spec: dict[str, Any], message: str) -> None:
    with pytest.raises(SweepError, match=f"^<dict>: {message}") as info:
        load_spec(spec)
    assert "\n" not in str(info.value)


ZIP_SPEC = """\
[axes]
threads = [2, 4]

[[zip]]                 # baseline and policy, each with its own placement
dynamic = ["none", "upmlib"]
placement = ["first-touch", "worst-case"]

[fixed]
workload = "stream:pages=64,iterations=2"
"""


def test_zipped_keys_vary_together_after_the_axes() -> None:
    sweep = load_spec(ZIP_SPEC)
    assert [(c["threads"], c["placement"], c["dynamic"]) for c in sweep.configurations()] == [
        (2, "first-touch", "none"), (2, "worst-case", "upmlib"), (4, "first-touch", "none"), (4, "worst-case", "upmlib"),
    ]  # fmt: skip
    df = numaplace.sweep(ZIP_SPEC, jobs=0)
    assert list(df.placement) == ["first-touch", "worst-case"] * 2 and (df.status == "ok").all()
    # Kwargs are the spec's tables; zip groups and exclude take parameter keys too.
    kw = numaplace.sweep(
        axes={"threads": [2, 4]},
        zip=[{"dynamic": ["none", "upmlib"], "placement": ["first-touch", "worst-case"]}],
        fixed={"workload": "stream", "workload.pages": 64, "workload.iterations": 2},
        exclude=[{"threads": 4, "dynamic": "none"}],
        jobs=0,
    )
    assert list(kw.run_id) == list(df.run_id.drop(2))
    with pytest.raises(SweepError, match=r"give a spec or its tables \(axes=\), not both"):
        numaplace.sweep(ZIP_SPEC, axes={"threads": [1]})


def test_small_sweeps_run_in_this_process_with_the_same_table(monkeypatch: pytest.MonkeyPatch) -> None:
    from numaplace.sweep import backends

    spec = {"axes": {"dynamic": ["none", "upmlib"]}, "fixed": {"workload": STREAM, "threads": 2}}
    pooled = numaplace.sweep(spec, jobs=2)  # asked for: a pool, even for two runs
    assert pooled.attrs["workers"] == 2

    def no_pool(*a: Any, **kw: Any) -> Any:
        raise AssertionError("a sweep of two runs started a pool")

    monkeypatch.setattr(backends, "_PoolBackend", no_pool)
    inline = numaplace.sweep(spec)
    assert inline.attrs["workers"] == 0
    pd.testing.assert_frame_equal(inline, pooled, check_like=False, check_exact=True, obj="table")
    with pytest.raises(AssertionError, match="started a pool"):  # one run more: a pool again
        numaplace.sweep({"axes": {"threads": [1, 2, 3]}, "fixed": {"workload": STREAM}})
    assert backends.INLINE_RUNS == 2
