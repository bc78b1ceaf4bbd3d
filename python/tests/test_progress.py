"""Progress: the engine's per-epoch reports through ``_native.simulate``, the bar of
``simulate(progress=...)`` and of sweeps, when bars are shown (a notebook or a terminal, not a
pipe), and Ctrl-C stopping a long run. No assertion depends on how fast the machine is."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import types

import pandas as pd
import pytest

import numaplace
from numaplace import _native, api
from numaplace.api import request_json

# Many epochs (CG has several phases per iteration) in well under a second.
SMALL_CG = {"workload": "nas-cg", "problem_class": "S", "threads": 4, "dynamic": "upmlib"}


def _request(**kw: object) -> str:
    return request_json("test", kw, {})


def test_the_engine_reports_every_epoch_with_period_zero_and_the_result_is_unchanged() -> None:
    req = _request(**SMALL_CG)
    calls: list[tuple[int, int, int, float]] = []
    observed = _native.simulate(req, lambda *a: calls.append(a), 0.0)
    assert observed == _native.simulate(req)  # byte-identical JSON with and without an observer
    r = json.loads(observed)
    assert len(calls) == len(r["epochs"])
    assert [c[0] for c in calls] == [e["iteration"] for e in r["epochs"]]
    assert {c[1] for c in calls} == {r["iterations"]}
    assert [c[2] for c in calls] == list(range(1, len(calls) + 1))
    times = [c[3] for c in calls]
    assert times == sorted(times) and times[0] > 0


def test_the_default_period_reports_at_most_every_tenth_of_a_second() -> None:
    period = _native.PROGRESS_PERIOD_S
    assert api.PROGRESS_PERIOD_S == period == 0.1
    calls: list[float] = []
    start = time.monotonic()
    _native.simulate(_request(**SMALL_CG), lambda *a: calls.append(time.monotonic()))
    elapsed = time.monotonic() - start
    # However slow or loaded the host: no more reports than periods elapsed.
    assert len(calls) <= elapsed / period + 1
    assert all(b - a >= period for a, b in zip(calls, calls[1:]))


# A line-level run on the protocol engine: GE has a barrier per pivot step.
SMALL_GE = {"machine": "talbot64", "workload": "ge:n=64"}


@pytest.mark.parametrize("run", [SMALL_CG, SMALL_GE], ids=["page-level", "protocol"])
@pytest.mark.parametrize("exc", [KeyboardInterrupt, ValueError])
def test_an_exception_from_the_callback_stops_the_run_and_is_raised(exc: type[BaseException], run: dict[str, object]) -> None:
    calls = []

    def stop(*a: object) -> None:
        calls.append(a)
        if len(calls) == 3:
            raise exc("stop here")

    with pytest.raises(exc, match="stop here"):
        _native.simulate(_request(**run), stop, 0.0)
    assert len(calls) == 3  # the run did not go on after it


def test_a_bad_period_is_a_one_line_error() -> None:
    with pytest.raises(ValueError, match="period = -1"):
        _native.simulate(_request(**SMALL_CG), None, -1.0)


def test_ctrl_c_stops_a_long_simulation() -> None:
    # SIGINT arrives while the GIL is released; the engine's next check (every epoch at most
    # 0.1 s apart) sees it. The run would take several seconds on an idle host.
    code = (
        "import signal, _thread, threading, time, numaplace\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "threading.Timer(0.3, _thread.interrupt_main).start()\n"
        "t = time.monotonic()\n"
        "try:\n"
        "    numaplace.simulate(workload='nas-cg', problem_class='B', dynamic='sampled', progress=False)\n"
        "    print('finished')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted', time.monotonic() - t)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("interrupted"), p.stdout


# --- when a bar is shown ------------------------------------------------------------------------


class _Stream:
    def __init__(self, tty: bool) -> None:
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def test_bars_are_shown_on_a_terminal_not_in_a_pipe_unless_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(api, "in_notebook", lambda: False)
    monkeypatch.setattr(sys, "stderr", _Stream(True))
    assert api.show_progress(None) is True
    monkeypatch.setattr(sys, "stderr", _Stream(False))
    assert api.show_progress(None) is False
    assert api.show_progress(True) is True
    monkeypatch.setattr(sys, "stderr", _Stream(True))
    assert api.show_progress(False) is False


def test_a_jupyter_kernel_counts_as_a_notebook(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.ModuleType("IPython")
    shell = types.SimpleNamespace(kernel=object())
    fake.get_ipython = lambda: shell  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "IPython", fake)
    monkeypatch.setattr(sys, "stderr", _Stream(False))
    assert api.in_notebook() and api.show_progress(None)
    shell.kernel = None  # a terminal IPython: no kernel
    assert not api.in_notebook()
    fake.get_ipython = lambda: None  # type: ignore[attr-defined]
    assert not api.in_notebook()


def test_simulate_with_progress_draws_a_bar_and_gives_the_same_result(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = numaplace.simulate(**SMALL_CG, progress=False)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(api, "PROGRESS_PERIOD_S", 0.0)  # report every epoch
    shown = numaplace.simulate(**SMALL_CG, progress=True)
    assert shown == plain
    err = capsys.readouterr().err
    assert "simulate nas-cg" in err and f"/{plain.iterations}" in err and "epochs" in err
    with pytest.raises(numaplace.ConfigError, match="progress = 'yes'"):
        numaplace.simulate(**SMALL_CG, progress="yes")  # type: ignore[arg-type]


def test_a_protocol_run_reports_its_barriers_and_the_result_is_unchanged() -> None:
    req = _request(**SMALL_GE)
    calls: list[tuple[int, int, int, float]] = []
    observed = _native.simulate(req, lambda *a: calls.append(a), 0.0)
    assert observed == _native.simulate(req)
    barriers = [c[0] for c in calls]
    assert barriers == list(range(1, len(calls) + 1)) and len(calls) > 32, barriers[:5]  # a barrier per pivot step
    assert {c[1] for c in calls} == {0}  # the total is unknown
    times = [c[3] for c in calls]
    assert times == sorted(times) and 0 < times[-1] <= json.loads(observed)["cycles"] * 10.0  # talbot64: 10 ns cycles


def test_a_protocol_runs_bar_counts_barriers(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    plain = numaplace.simulate(**SMALL_GE, progress=False)
    monkeypatch.setattr(api, "PROGRESS_PERIOD_S", 0.0)
    shown = numaplace.simulate(**SMALL_GE, progress=True)
    assert shown == plain
    err = capsys.readouterr().err
    assert "simulate ge:n=64" in err and "barrier" in err and "ms simulated" in err and "epochs" not in err


def test_sweep_progress_is_off_in_a_pipe_and_on_when_forced(capsys: pytest.CaptureFixture[str]) -> None:
    spec = {"axes": {"threads": [1, 2]}, "fixed": {"workload": "stream:pages=32,iterations=1"}}
    quiet = numaplace.sweep(spec)  # pytest's stderr is no terminal, and this is no notebook
    assert capsys.readouterr().err == ""
    loud = numaplace.sweep(spec, progress=True)
    err = capsys.readouterr().err
    assert "sweep" in err and "2/2" in err
    pd.testing.assert_frame_equal(quiet, loud)
    numaplace.sweep(spec, progress=False)
    assert capsys.readouterr().err == ""
    with pytest.raises(numaplace.SweepError, match="progress = 1"):
        numaplace.sweep(spec, progress=1)  # type: ignore[arg-type]


def test_sim_on_a_pipe_draws_no_bar(cli) -> None:
    r = cli("sim", "--workload", "nas-cg", "--class", "S", "--threads", "4", "--dynamic", "none")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""


def test_workers_of_a_sweep_draw_no_bars_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []

    def simulate(progress: bool | None = None, **kw: object) -> numaplace.Result:
        seen.append(progress)
        return numaplace.simulate(**kw, progress=progress)

    from numaplace.sweep import run_one

    assert run_one({"workload": "stream:pages=32,iterations=1"}, simulate)["status"] == "ok"
    assert seen == [False]


def test_sim_on_a_terminal_draws_a_bar_and_ctrl_c_stops_it() -> None:
    import os
    import select
    import signal

    # stderr is a pseudo-terminal: the bar is drawn there. A class B CG with a sampled policy
    # runs for seconds, so the bar (reports at most every 0.1 s) appears; then SIGINT stops it.
    import fcntl
    import struct
    import termios

    master, slave = os.openpty()
    # A terminal of 24 rows and 100 columns: a fresh pty is 0 × 0, where a bar has no room.
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    p = subprocess.Popen(
        [sys.executable, "-m", "numaplace", "sim", "--workload", "nas-cg", "--class", "B", "--dynamic", "sampled"],
        stdout=subprocess.PIPE,
        stderr=slave,
        text=True,
    )
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 300
    try:
        while b"simulate nas-cg" not in seen or b"iter" not in seen:
            assert time.monotonic() < deadline and p.poll() is None, seen
            if select.select([master], [], [], 1.0)[0]:
                try:
                    seen += os.read(master, 4096)
                except OSError:  # the child closed the terminal: it ended, and the assert says how
                    pass
        p.send_signal(signal.SIGINT)
        out, _ = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            p.kill()
        while select.select([master], [], [], 0.5)[0]:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        os.close(master)
    assert p.returncode == 130, (out, seen)
    assert out == ""  # no summary: the run did not finish
    assert b"numaplace: interrupted" in seen
