"""Hostile input and hostile hosts for sweeps (issue 16): bad specs, bad output directories,
absurd ``--jobs``, bad scheduler addresses, two sweeps into one directory, a killed parent.

Every error must be one line: a :class:`SweepError` (a :class:`numaplace.NumaplaceError`) from
the API, ``numaplace: error: ...`` with exit status 2 from the command line. No test relies on
timing: processes are awaited by polling with generous deadlines (the suite runs on a loaded
two-core machine).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import numaplace
from numaplace.sweep import CHECKPOINT_FILE, RESULTS_FILE, SweepError, load_spec, main, run_sweep

STREAM = "stream:pages=32,iterations=1"
SLOW = "random:accesses=100000,pages=4096,iterations=2"  # tens of ms: long enough to be in flight
ONE_RUN = f'[fixed]\nworkload = "{STREAM}"\n'


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Runs ``numaplace sweep ARGV`` in this process; returns (exit status, standard error)."""
    status = main(list(argv))
    return status, capsys.readouterr().err


def _assert_one_line_error(err: str, *fragments: str) -> None:
    assert err.startswith("numaplace: error: "), err
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err and "Error:" not in err.split("numaplace: error: ", 1)[1][:40], err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


# --- the spec --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "# nothing\n", "[axes]\n", "[fixed]\n", "[axes]\n[fixed]\n"])
def test_a_spec_that_sets_no_option_is_an_error(tmp_path: Path, text: str) -> None:
    # Before: an empty spec ran one default simulation, as though it had been meant.
    path = tmp_path / "empty.toml"
    path.write_text(text)
    with pytest.raises(SweepError, match=rf"^{path}: the spec sets no option") as info:
        load_spec(path)
    assert "\n" not in str(info.value)
    with pytest.raises(SweepError, match=r"^<dict>: the spec sets no option"):
        run_sweep({}, jobs=0)


def test_a_spec_with_only_fixed_options_is_one_run() -> None:
    df = run_sweep({"fixed": {"workload": STREAM}}, jobs=0)
    assert len(df) == 1 and df["status"].tolist() == ["ok"]


def test_a_missing_spec_says_it_does_not_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: `numaplace sweep missing --out X` took "missing" for TOML text: "not valid TOML".
    monkeypatch.chdir(tmp_path)
    status, err = _cli(capsys, "missing", "--out", str(tmp_path / "out"))
    assert status == 2
    _assert_one_line_error(err, "missing: the sweep spec does not exist")
    status, err = _cli(capsys, str(tmp_path / "missing.toml"), "--out", str(tmp_path / "out"))
    assert status == 2
    _assert_one_line_error(err, "missing.toml: the sweep spec does not exist")
    with pytest.raises(SweepError, match=r"^missing: the sweep spec does not exist$"):
        run_sweep("missing", jobs=0)
    assert not (tmp_path / "out").exists()


def test_a_directory_or_unreadable_spec_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "specdir").mkdir()
    status, err = _cli(capsys, str(tmp_path / "specdir"), "--out", str(tmp_path / "out"))
    assert status == 2
    _assert_one_line_error(err, f"{tmp_path / 'specdir'}: the sweep spec is a directory")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    status, err = _cli(capsys, str(binary), "--out", str(tmp_path / "out"))
    assert status == 2
    _assert_one_line_error(err, f"{binary}: the sweep spec is not UTF-8 text")
    if os.geteuid() != 0:  # root reads anything
        locked = tmp_path / "locked.toml"
        locked.write_text(ONE_RUN)
        locked.chmod(0)
        status, err = _cli(capsys, str(locked), "--out", str(tmp_path / "out"))
        assert status == 2
        _assert_one_line_error(err, f"{locked}: cannot read the sweep spec: Permission denied")


# --- workers: how many, and how they end -------------------------------------------------------


@pytest.fixture
def started_workers(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The process ids of every local worker started while the test runs.

    More than 16 is a failure at once: without a bound, ``jobs=10**9`` would start workers
    until the machine runs out of memory, taking the test run (and more) with it.
    """
    import numaplace.sweep.backends as _  # noqa: F401 - the module that starts them

    module = sys.modules["numaplace.sweep.backends"]
    started: list[int] = []
    start = module._Worker.__init__

    def counting(self: Any) -> None:
        if len(started) >= 16:
            raise RuntimeError(f"a 17th worker process was started: {started}")
        start(self)
        started.append(self.proc.pid)

    monkeypatch.setattr(module._Worker, "__init__", counting)
    return started


def test_workers_are_bounded_by_the_runs(started_workers: list[int]) -> None:
    # Before: jobs=8 started 8 workers for 2 runs.
    df = run_sweep({"axes": {"seed": [0, 1]}, "fixed": {"workload": STREAM}}, jobs=8)
    assert (df["status"] == "ok").all()
    assert 1 <= len(started_workers) <= 2
    assert df.attrs["workers"] == 2


def test_jobs_beyond_the_machine_get_the_bound_and_a_note(
    started_workers: list[int], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Before: jobs=10**9 started workers until the machine ran out of memory.
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    spec = {"axes": {"seed": list(range(6))}, "fixed": {"workload": STREAM}}
    df = run_sweep(spec, jobs=10**9)
    assert (df["status"] == "ok").all() and len(df) == 6
    assert 1 <= len(started_workers) <= 2  # 2 per CPU
    assert df.attrs["workers"] == 2
    assert df.attrs["workers_note"] == (
        "jobs = 1000000000 is more than this machine's bound of 2 worker processes (2 per CPU, 1 CPU); using 2"
    )
    path = tmp_path / "spec.toml"
    path.write_text(f'[axes]\nseed = [0, 1, 2]\n[fixed]\nworkload = "{STREAM}"\n')
    assert main([str(path), "--out", str(tmp_path / "out"), "--jobs", str(10**9), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert err == "numaplace: note: --jobs 1000000000 is more than this machine's bound of 2 worker processes (2 per CPU, 1 CPU); using 2\n"


def test_a_local_dask_cluster_has_no_more_workers_than_runs() -> None:
    pytest.importorskip("distributed")
    sizes: list[int] = []

    def cluster_size(done: int, backend: Any) -> None:
        sizes.append(len(backend._cluster.workers))

    df = run_sweep({"axes": {"seed": [0, 1]}, "fixed": {"workload": STREAM}}, scheduler="local", jobs=6, _on_result=cluster_size)
    assert (df["status"] == "ok").all()
    assert sizes and max(sizes) <= 2
    assert df.attrs["workers"] == 2


def _children(pid: int) -> list[int]:
    """The process ids of ``pid``'s children (Linux /proc)."""
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                children.append(int(entry.name))
    return children


def _gone(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_workers_of_a_killed_sweep_exit_quietly(tmp_path: Path) -> None:
    # Before: kill -9 of the sweep made each busy worker print a BrokenPipeError traceback.
    spec = tmp_path / "slow.toml"
    spec.write_text(f'[axes]\nseed = {list(range(40))}\n[fixed]\nworkload = "{SLOW}"\nthreads = 16\n')
    out = tmp_path / "out"
    with (tmp_path / "stderr").open("wb") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from numaplace.sweep import main; sys.exit(main())", str(spec), "--out", str(out), "--jobs", "2"],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    checkpoint = out / CHECKPOINT_FILE
    deadline = time.monotonic() + 120
    while not (checkpoint.exists() and checkpoint.read_text().count("\n") >= 2 and len(_children(proc.pid)) >= 2):
        assert proc.poll() is None, (tmp_path / "stderr").read_text()
        assert time.monotonic() < deadline
        time.sleep(0.01)
    workers = _children(proc.pid)
    proc.kill()
    proc.wait(timeout=60)
    deadline = time.monotonic() + 120  # each worker may finish the run it holds
    while not all(_gone(w) for w in workers):
        assert time.monotonic() < deadline, [w for w in workers if not _gone(w)]
        time.sleep(0.05)
    err = (tmp_path / "stderr").read_text()
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


# --- the Dask scheduler ---------------------------------------------------------------------


@pytest.mark.parametrize("value", ["garbage", "tcp://host", "host:99999", "ftp://host:8786", "tcp://:8786", "inproc://x"])
def test_a_bad_scheduler_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    # Before: `--scheduler garbage` was "internal error: ValueError: missing port number" (exit 1).
    path = tmp_path / "spec.toml"
    path.write_text(ONE_RUN)
    status, err = _cli(capsys, str(path), "--out", str(tmp_path / "out"), "--scheduler", value)
    assert status == 2
    _assert_one_line_error(err, f"--scheduler {value!r}", "'local'", "tcp://HOST:PORT")
    with pytest.raises(SweepError, match=rf"^scheduler = {value!r}: expected "):
        run_sweep(ONE_RUN, scheduler=value)
    assert not (tmp_path / "out").exists()


# --- the output directory --------------------------------------------------------------------


def _spec(tmp_path: Path) -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(f'[axes]\nseed = [0, 1]\n[fixed]\nworkload = "{STREAM}"\n')
    return path


def _sweep_subprocess(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``numaplace sweep ARGV`` in a child process, so that a hang is a failed test, not a hung run."""
    return subprocess.run(
        [sys.executable, "-c", "import sys; from numaplace.sweep import main; sys.exit(main())", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


GARBAGE = bytes(range(256)) * 4


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (CHECKPOINT_FILE, "is not a sweep checkpoint (binary data: byte 0 is 0x00)"),
        (RESULTS_FILE, "is not a Parquet file (not a sweep's table)"),
        ("results.csv", "is not a sweep's CSV table"),
    ],
)
def test_garbage_in_an_output_file_is_refused_and_kept(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, message: str) -> None:
    # Before: checkpoint garbage was "internal error: UnicodeDecodeError" (exit 1), and garbage
    # in results.parquet was silently replaced by the new table.
    out = tmp_path / "out"
    out.mkdir()
    (out / name).write_bytes(GARBAGE)
    status, err = _cli(capsys, str(_spec(tmp_path)), "--out", str(out), "--jobs", "0", "--csv")
    assert status == 2
    _assert_one_line_error(err, f"{out / name} {message}")
    assert (out / name).read_bytes() == GARBAGE
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".") and p.name != "sweep.lock") == [name]


@pytest.mark.parametrize("name", [CHECKPOINT_FILE, RESULTS_FILE])
def test_a_directory_at_an_output_file_is_refused_before_running(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    # Before: "internal error: IsADirectoryError" (exit 1) — for results.parquet after every run.
    out = tmp_path / "out"
    (out / name).mkdir(parents=True)
    (out / name / "keep").write_text("mine")
    status, err = _cli(capsys, str(_spec(tmp_path)), "--out", str(out), "--jobs", "0")
    assert status == 2
    _assert_one_line_error(err, f"{out / name} is a directory")
    assert (out / name / "keep").read_text() == "mine"
    assert not (out / (RESULTS_FILE if name == CHECKPOINT_FILE else CHECKPOINT_FILE)).exists()


@pytest.mark.parametrize("name", [CHECKPOINT_FILE, RESULTS_FILE])
def test_a_symlink_at_an_output_file_is_refused_and_its_target_untouched(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    # Before: a link at checkpoint.jsonl was followed (the runs appended to its target), and one
    # at results.parquet replaced by a regular file.
    out = tmp_path / "out"
    out.mkdir()
    target = tmp_path / "precious"
    target.write_text("not yours\n")
    (out / name).symlink_to(target)
    status, err = _cli(capsys, str(_spec(tmp_path)), "--out", str(out), "--jobs", "0")
    assert status == 2
    _assert_one_line_error(err, f"{out / name} is a symbolic link")
    assert target.read_text() == "not yours\n"
    assert (out / name).is_symlink()


def test_a_fifo_at_the_checkpoint_is_refused_without_hanging(tmp_path: Path) -> None:
    # Before: reading the checkpoint blocked for ever on the FIFO's open.
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / CHECKPOINT_FILE)
    proc = _sweep_subprocess(str(_spec(tmp_path)), "--out", str(out), "--jobs", "0")
    assert proc.returncode == 2, proc.stderr
    _assert_one_line_error(proc.stderr, f"{out / CHECKPOINT_FILE} is not a regular file (a FIFO)")


def test_out_that_is_a_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.write_text("mine")
    status, err = _cli(capsys, str(_spec(tmp_path)), "--out", str(out), "--jobs", "0")
    assert status == 2
    _assert_one_line_error(err, f"{out} is not a directory")
    assert out.read_text() == "mine"


def test_results_are_written_with_the_umask_and_replace_a_previous_table(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = run_sweep(_spec(tmp_path), jobs=0, out=out)
    second = run_sweep(_spec(tmp_path), jobs=0, out=out)  # every run is reused; the table rewritten
    assert first.equals(second)
    mask = os.umask(0)
    os.umask(mask)
    assert (out / RESULTS_FILE).stat().st_mode & 0o777 == 0o666 & ~mask
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_two_sweeps_into_one_directory_the_second_fails_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: both ran every configuration, appending to one checkpoint.
    spec = tmp_path / "slow.toml"
    spec.write_text(f'[axes]\nseed = {list(range(40))}\n[fixed]\nworkload = "{SLOW}"\nthreads = 16\n')
    out = tmp_path / "out"
    first = subprocess.Popen(
        [sys.executable, "-c", "import sys; from numaplace.sweep import main; sys.exit(main())", str(spec), "--out", str(out), "--jobs", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        checkpoint = out / CHECKPOINT_FILE
        deadline = time.monotonic() + 120
        while not (checkpoint.exists() and checkpoint.read_text().count("\n") >= 1):
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.01)
        # The first sweep (and its worker) is stopped while it holds the lock, so that however
        # slowly a loaded host refuses the second, the first cannot finish its 40 runs before
        # the interrupt below.
        os.killpg(first.pid, signal.SIGSTOP)
        lines = checkpoint.read_text().count("\n")
        status, err = _cli(capsys, str(spec), "--out", str(out), "--jobs", "1")
        assert status == 2
        _assert_one_line_error(err, f"{out}: another sweep is writing to this directory (pid {first.pid})")
        with pytest.raises(SweepError, match=rf"another sweep is writing to this directory \(pid {first.pid}\)"):
            run_sweep(spec, jobs=0, out=out)
        assert first.poll() is None  # the lock's holder is alive: the refusal did not wait for it
        assert checkpoint.read_text().count("\n") == lines  # and the refused sweeps wrote nothing
    finally:
        os.killpg(first.pid, signal.SIGINT)  # delivered when it continues
        os.killpg(first.pid, signal.SIGCONT)
        first.communicate(timeout=120)
    assert first.returncode == 130
    df = run_sweep(spec, jobs=1, out=out)  # the lock is free again, and the resume completes
    assert len(df) == 40 and (df["status"] == "ok").all()


# --- the low list: odd names, deep nesting, huge products ----------------------------------------


def test_a_non_utf8_output_directory_works(tmp_path: Path) -> None:
    # Before: "internal error: UnicodeEncodeError" (exit 1) once every run was done.
    out = Path(os.fsdecode(os.fsencode(tmp_path) + b"/out\xff"))
    proc = _sweep_subprocess(str(_spec(tmp_path)), "--out", str(out), "--jobs", "0")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith("results.parquet: 2 runs, 2 ok, 0 failed\n")
    assert (out / RESULTS_FILE).is_file()


def test_a_deeply_nested_spec_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: "internal error: RecursionError" (exit 1).
    path = tmp_path / "deep.toml"
    path.write_text("[fixed]\nseed = " + "[" * 100_000 + "]" * 100_000 + "\n")
    status, err = _cli(capsys, str(path), "--out", str(tmp_path / "out"))
    assert status == 2
    _assert_one_line_error(err, f"{path}: not valid TOML: nested too deeply")


def test_a_sweep_of_more_than_a_million_configurations_is_refused_before_planning(tmp_path: Path) -> None:
    # Before: the cartesian product was built in memory whatever its size (10^15 for five
    # axes of a thousand values), before the first run.
    spec = {"axes": {"seed": list(range(1001)), "threads": list(range(1, 1001))}}
    with pytest.raises(SweepError, match=r"^<dict>: \[axes\] make 1001000 configurations \(1001 × 1000\); at most 1000000 are allowed"):
        load_spec(spec)
    assert len(load_spec({"axes": {"seed": list(range(1000)), "threads": list(range(1, 1001))}}).axes["seed"]) == 1000


def test_out_of_the_wrong_type_is_a_sweep_error() -> None:
    with pytest.raises(SweepError, match=r"^out = 5: expected a directory path"):
        run_sweep(ONE_RUN, jobs=0, out=5)  # type: ignore[arg-type]
    assert issubclass(SweepError, numaplace.NumaplaceError)


def test_checkpoint_lines_that_are_not_records_are_skipped_even_nested_deeply(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = run_sweep(_spec(tmp_path), jobs=0, out=out)
    lines = (out / CHECKPOINT_FILE).read_text().splitlines()
    (out / CHECKPOINT_FILE).write_text("\n".join([lines[0], "[" * 100_000, '{"run_id": "trunc']) + "\n")
    executed: list[int] = []
    again = run_sweep(_spec(tmp_path), jobs=0, out=out, _on_result=lambda n, b: executed.append(n))
    assert executed == [1]  # only the run whose line was replaced
    assert again.equals(first)


def test_a_link_at_results_csv_is_left_alone_without_csv(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.csv").symlink_to(tmp_path / "elsewhere.csv")
    df = run_sweep(_spec(tmp_path), jobs=0, out=out)
    assert len(df) == 2 and (out / "results.csv").is_symlink() and not (tmp_path / "elsewhere.csv").exists()


def test_bad_jobs_on_the_command_line_names_the_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = _cli(capsys, str(_spec(tmp_path)), "--out", str(tmp_path / "out"), "--jobs", "-1")
    assert status == 2
    _assert_one_line_error(err, "--jobs -1: expected an integer ≥ 0")


def test_a_link_at_the_lock_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "sweep.lock").symlink_to(tmp_path / "victim")
    status, err = _cli(capsys, str(_spec(tmp_path)), "--out", str(out), "--jobs", "0")
    assert status == 2
    _assert_one_line_error(err, f"{out / 'sweep.lock'} is a symbolic link")
    assert not (tmp_path / "victim").exists()


# --- large specs (issue 37: two axes of 100,000 values hung for over a minute) -------------------


def _sweep_cli(tmp_path: Path, spec_text: str) -> subprocess.CompletedProcess[str]:
    """``numaplace sweep SPEC`` in a subprocess that must end within the issue's 20 s."""
    spec = tmp_path / "big.toml"
    spec.write_text(spec_text)
    return subprocess.run(
        [sys.executable, "-m", "numaplace", "sweep", str(spec), "--out", str(tmp_path / "out"), "--jobs", "0"],
        capture_output=True, text=True, timeout=20,
    )


def test_two_axes_of_100000_values_are_refused_from_their_lengths_at_once(tmp_path: Path) -> None:
    # Before: every value of the first axis was compared with every earlier one (quadratic)
    # before the 10^6-configuration bound was looked at.
    r = _sweep_cli(tmp_path, f"[axes]\nseed = {list(range(100_000))}\n\"workload.pages\" = {list(range(1, 100_001))}\n")
    assert r.returncode == 2, r.stderr
    _assert_one_line_error(r.stderr, "make 10000000000 configurations (100000 × 100000); at most 1000000")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("table", ["axes", "zip"])
def test_a_value_repeated_among_200000_is_found_in_linear_time(tmp_path: Path, table: str) -> None:
    values = [*range(200_000), 7]
    if table == "axes":
        r = _sweep_cli(tmp_path, f"[axes]\nseed = {values}\n")
        needle = "[axes] seed: value 7 is listed twice"
    else:
        r = _sweep_cli(tmp_path, f"[[zip]]\nseed = {values}\nthreads = {[1] * len(values)}\n")
        needle = "[[zip]] #1: values #8 and #200001 are the same"
    assert r.returncode == 2, r.stderr
    _assert_one_line_error(r.stderr, needle)


def test_an_axis_of_a_million_values_inside_the_bound_is_planned_in_seconds() -> None:
    # Before: hours (a million values compared pairwise). About 4 s on an idle machine.
    code = (
        "from numaplace.sweep import load_spec; "
        f"print(load_spec({{'axes': {{'seed': list(range(1_000_000))}}, 'fixed': {{'workload': '{STREAM}'}}}}).size)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout == "1000000\n", r.stderr


# --- a full disk (issue 37: "internal error: OSError") -----------------------------------------

_LIMITED = (
    "import resource, sys; n = int(sys.argv[1]); resource.setrlimit(resource.RLIMIT_FSIZE, (n, n)); "
    "from numaplace.cli import main; sys.exit(main(sys.argv[2:]))"
)


def _sweep_with_file_size_limit(limit: int, spec: Path, out: Path, jobs: str = "0") -> subprocess.CompletedProcess[str]:
    """``numaplace sweep`` whose files cannot grow past ``limit`` bytes (RLIMIT_FSIZE; Python
    ignores SIGXFSZ, so a write past it fails with EFBIG as one on a full disk fails with ENOSPC)."""
    return subprocess.run(
        [sys.executable, "-c", _LIMITED, str(limit), "sweep", str(spec), "--out", str(out), "--jobs", jobs],
        capture_output=True, text=True, timeout=120,
    )


@pytest.mark.parametrize("jobs", ["0", "2"])
def test_a_checkpoint_that_cannot_grow_is_one_line_naming_it(tmp_path: Path, jobs: str) -> None:
    out = tmp_path / "out"
    r = _sweep_with_file_size_limit(100, _spec(tmp_path), out, jobs)  # less than one record
    assert r.returncode == 2, r.stderr
    _assert_one_line_error(r.stderr, f"cannot write {out / CHECKPOINT_FILE}: File too large")
    assert {p.name for p in out.iterdir()} == {CHECKPOINT_FILE, "sweep.lock"}


def test_a_table_that_cannot_be_written_is_one_line_naming_it_and_leaves_no_temporary(tmp_path: Path) -> None:
    done = tmp_path / "done"
    run_sweep(_spec(tmp_path), jobs=0, out=done)
    checkpoint, table = (done / CHECKPOINT_FILE).stat().st_size, (done / RESULTS_FILE).stat().st_size
    assert checkpoint < table  # a limit between the two lets the checkpoint grow, not the table
    out = tmp_path / "out"
    r = _sweep_with_file_size_limit((checkpoint + table) // 2, _spec(tmp_path), out)
    assert r.returncode == 2, r.stderr
    _assert_one_line_error(r.stderr, f"cannot write {out / RESULTS_FILE}: File too large")
    assert {p.name for p in out.iterdir()} == {CHECKPOINT_FILE, "sweep.lock"}
    # The runs are kept: the same sweep without the limit runs nothing again.
    executed: list[int] = []
    run_sweep(_spec(tmp_path), jobs=0, out=out, _on_result=lambda n, b: executed.append(n))
    assert executed == []


@pytest.fixture
def full_disk(tiny_tmpfs):
    """A directory on a 4 KiB tmpfs (root, and a kernel that lets this process mount, only)."""
    return tiny_tmpfs("4k")


def test_a_full_disk_is_one_line_naming_the_file(tmp_path: Path, full_disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = full_disk / "out"
    status, err = _cli(capsys, str(_spec(tmp_path)), "--out", str(out), "--jobs", "0")
    assert status == 2
    _assert_one_line_error(err, f"cannot write {out / CHECKPOINT_FILE}: No space left on device")


# --- workers die with their sweep (issue 37: they ran on after timeout, Ctrl-C or kill -9) ------

LONG = "random:accesses=100000,pages=4096,iterations=20000"  # about 2 minutes a run


def _cpu_seconds(pid: int) -> float:
    try:
        fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("how", ["SIGKILL to the sweep", "SIGTERM to its process group", "SIGINT to its process group"])
def test_workers_end_with_their_sweep_however_it_is_stopped(tmp_path: Path, how: str) -> None:
    spec = tmp_path / "long.toml"
    spec.write_text(f'[axes]\nseed = [0, 1, 2, 3]\n[fixed]\nworkload = "{LONG}"\nthreads = 16\n')
    sweep = subprocess.Popen(
        [sys.executable, "-m", "numaplace", "sweep", str(spec), "--out", str(tmp_path / "out"), "--jobs", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a shell job's
    )
    try:
        # Both workers busy in a run (a second of CPU: past their start-up), not still starting.
        deadline = time.monotonic() + 120
        while len(workers := _children(sweep.pid)) < 2 or min(map(_cpu_seconds, workers)) < 1.0:
            assert sweep.poll() is None, sweep.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        if how == "SIGKILL to the sweep":
            sweep.kill()
        else:
            os.killpg(sweep.pid, signal.SIGTERM if "SIGTERM" in how else signal.SIGINT)
        _, err = sweep.communicate(timeout=60)
        # Before: each worker ran on to the end of its run, minutes here.
        deadline = time.monotonic() + 10
        while not all(_gone(w) for w in workers):
            assert time.monotonic() < deadline, [w for w in workers if not _gone(w)]
            time.sleep(0.05)
    finally:
        if sweep.poll() is None:
            sweep.kill()
            sweep.wait()
    assert "Traceback" not in err, err
    if "SIGINT" in how:
        assert sweep.returncode == 130 and err.splitlines()[-1] == "numaplace: interrupted", err
