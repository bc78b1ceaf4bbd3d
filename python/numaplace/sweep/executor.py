"""Running configurations: one configuration → one outcome (:func:`run_one`, what every
backend runs), and the loop that feeds a backend, retries runs whose worker was lost and
reports each outcome (:func:`execute`, shared by sweeps and the report's experiments).
"""

from __future__ import annotations

import collections
import dataclasses
import inspect
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from numaplace.sweep.errors import UnsupportedOptionError, one_line
from numaplace.sweep.spec import KEYWORD_ALIASES

MAX_ATTEMPTS = 2
"""A run whose worker is lost is submitted at most this many times (one retry)."""

WORKER_LOST = "WorkerLost"
"""``error_type`` of a run whose worker was lost on every attempt."""


class Backend(Protocol):
    """What the executor needs of a backend (the backends are in :mod:`numaplace.sweep.backends`).

    ``submit`` returns a future of a :func:`run_one` outcome; the future raises if the run's
    worker (or the link to it) was lost. ``capacity`` bounds the runs in flight; ``generation``
    changes when the backend replaces its workers wholesale, so that one loss is not recovered
    from twice; ``recover`` is called once per lost run of the current generation.
    """

    capacity: int
    generation: int

    def submit(self, options: Mapping[str, Any], run: str) -> Any: ...

    def wait(self, futures: Sequence[Any]) -> Iterable[Any]: ...

    def recover(self) -> None: ...

    def pids(self) -> list[int]: ...

    def close(self, cancel: bool = False) -> None: ...

# --- the executor: one configuration → one outcome --------------------------------------------


def _signature(fn: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _keywords(fn: Callable[..., Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` as keyword arguments of ``fn``; an option it cannot take is an error."""
    sig = _signature(fn)
    if sig is None:
        return dict(options)
    params = sig.parameters
    var_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    named = {
        n for n, p in params.items() if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    }
    kwargs: dict[str, Any] = {}
    for name, value in options.items():
        keyword = next((k for k in KEYWORD_ALIASES.get(name, (name,)) if k in named), None)
        if keyword is None and var_keyword:
            keyword = name
        if keyword is None:
            raise UnsupportedOptionError(
                f"option {name!r} is not supported by this version of numaplace (simulate() has no such argument)"
            )
        kwargs[keyword] = value
    return kwargs



def run_one(options: Mapping[str, Any], simulate: Callable[..., Any] | None = None) -> dict[str, Any]:
    """Runs one configuration and returns its outcome; never raises for the run's own failure.

    ``options`` are passed to ``simulate`` (default :func:`numaplace.simulate`) as keyword
    arguments, each only when present. The outcome is a dict: ``status`` (``"ok"`` or
    ``"failed"``), ``error_type`` and ``error`` (the exception's class name and one-line
    message, or None), and ``result`` (the result's ``to_dict()``, or None). This is the
    function every backend runs: in this process, in a pool worker, or as a Dask task.
    """
    try:
        if simulate is None:
            from numaplace.api import simulate
        kwargs = _keywords(simulate, options)
        sig = _signature(simulate)
        if sig is not None and "progress" in sig.parameters:
            kwargs["progress"] = False  # the sweep draws one bar of runs, not one per run
        result = simulate(**kwargs).to_dict()
        return {"status": "ok", "error_type": None, "error": None, "result": result}
    except Exception as e:  # noqa: BLE001 - a run's failure is data, not a crash
        return {"status": "failed", "error_type": type(e).__name__, "error": one_line(e), "result": None}


def _lost(error: BaseException, attempts: int) -> dict[str, Any]:
    text = one_line(f"{type(error).__name__}: {error}") if str(error) else type(error).__name__
    return {
        "status": "failed",
        "error_type": WORKER_LOST,
        "error": f"worker lost on all {attempts} attempts (last: {text})",
        "result": None,
    }


# --- the loop: many configurations on one backend ----------------------------------------------


@dataclasses.dataclass
class _Task:
    """One planned run: its index in ``planned``, its id and options, and its submissions so far."""

    index: int
    run: str
    options: dict[str, Any]
    attempts: int = 0


def execute(
    planned: Sequence[tuple[str, Mapping[str, Any]]],
    backend: Backend,
    on_outcome: Callable[[int, dict[str, Any], int], None],
    *,
    progress: bool | str = False,
    desc: str = "sweep",
    done_before: int = 0,
    failed_before: int = 0,
    close: bool = True,
) -> None:
    """Runs every ``(run id, options)`` of ``planned`` on ``backend``, retrying lost workers once.

    ``on_outcome(index, outcome, attempts)`` is called in this process as each run completes
    (in completion order), with the index into ``planned`` and the :func:`run_one` outcome.
    A progress bar of runs (done, failed, left, ETA; ``tqdm.auto``: a widget in a notebook,
    text on standard error elsewhere) is drawn when ``progress`` is true and someone can see
    it (a notebook, or standard error a terminal: :func:`numaplace.api.show_progress`), or
    whatever the output when it is ``"always"``; ``done_before``/``failed_before`` count runs
    already recorded. On an exception (e.g. KeyboardInterrupt) runs in flight are cancelled and
    the backend is closed; on success the backend is closed too. With ``close`` false the caller
    closes it, in both cases (it has more runs for it).
    """
    from tqdm.auto import tqdm

    from numaplace.api import show_progress

    queue = collections.deque(_Task(i, r, dict(o)) for i, (r, o) in enumerate(planned))
    inflight: dict[Any, tuple[_Task, int]] = {}
    failed = failed_before
    total = done_before + len(queue)
    ok = False
    with tqdm(
        total=total,
        initial=done_before,
        desc=desc,
        unit="run",
        file=sys.stderr,
        disable=not (progress == "always" or (progress is True and show_progress(None))),
        dynamic_ncols=True,
    ) as bar:

        def postfix(done: int) -> None:
            bar.set_postfix_str(f"failed={failed}, left={total - done}", refresh=False)

        postfix(done_before)
        try:
            while queue or inflight:
                while queue and len(inflight) < backend.capacity:
                    task = queue.popleft()
                    task.attempts += 1
                    inflight[backend.submit(task.options, task.run)] = (task, backend.generation)
                for fut in sorted(backend.wait(list(inflight)), key=lambda f: inflight[f][0].index):
                    task, generation = inflight.pop(fut)
                    try:
                        outcome = fut.result()
                    except BaseException as e:  # run_one never raises: the worker or its link was lost
                        if isinstance(e, (KeyboardInterrupt, SystemExit)):
                            raise
                        if generation == backend.generation:
                            backend.recover()
                        if task.attempts < MAX_ATTEMPTS:
                            queue.appendleft(task)
                            continue
                        outcome = _lost(e, task.attempts)
                    on_outcome(task.index, outcome, task.attempts)
                    failed += outcome["status"] != "ok"
                    postfix(bar.n + 1)
                    bar.update()
            ok = True
        finally:
            if not ok:
                for fut in inflight:
                    fut.cancel()
            if close:
                backend.close(cancel=not ok)
