"""Running experiments: their runs go through the sweep executor, into one results frame.

:func:`run_experiments` plans every selected experiment's runs, executes them on one backend
(:func:`numaplace.sweep.make_backend`: local worker processes, a Dask cluster, or this process
for a custom ``simulate``) through :func:`numaplace.sweep.execute`, plans and runs the
``followup`` stages from the first stage's rows, and assembles the frame in run order, so that
it does not depend on where or in which order the runs executed.

Results frame
-------------
One row per run, with columns in this order:

* ``experiment`` — the experiment id; ``run`` — the run's index within its experiment;
* ``request.<kwarg>`` — the keyword arguments passed to ``simulate`` (as the experiment wrote
  them, e.g. ``request.workload == "traverse:pattern=strided"``);
* ``config.<key>`` — the resolved configuration from ``Result.to_dict()["config"]`` (canonical
  specs with every default filled in, e.g. ``config.workload``); nested dicts are flattened
  with further dots;
* every other key of ``Result.to_dict()`` under its own name (``total_time_ns``,
  ``local_fraction``, ``per_node_pages``, ...). List values stay lists in the frame (the report
  writes them to ``results.csv`` as JSON arrays).

Experiments group and label runs by their ``request.*`` columns, which do not depend on how the
simulator spells canonical specs; the report shows the ``config.*`` columns so that each run can
be repeated exactly.

Grids
-----
The :class:`~numaplace.experiments.base.Grid` (``"quick"``, the default; ``"full"``, the seeds'
sizes; ``"test"``, the project's tests' reduced grid) is passed to every experiment's ``runs``
and ``followup``; each seed module says what it means for its runs (the NAS kernels run class W
on the quick grid, A on the full one).
"""

from __future__ import annotations

import collections
import sys
import time
from collections.abc import Sequence
from typing import Any

import pandas as pd

from numaplace.experiments._frames import flatten
from numaplace.experiments.base import Grid, RunConfig, Simulate
from numaplace.experiments.registry import SelectionError, select
from numaplace.sweep import SweepError, execute, make_backend, run_id
from numaplace.sweep.backends import Backend


def run_experiments(
    experiment_ids: Sequence[str] | None = None,
    *,
    grid: Grid | str = Grid.QUICK,
    simulate: Simulate | None = None,
    progress: bool = True,
    scheduler: str | None = None,
    jobs: int | None = None,
) -> pd.DataFrame:
    """Runs the given experiments (default: all, in registry order) and returns the results frame.

    The runs go through the sweep executor (:func:`numaplace.sweep.execute`, each run by
    :func:`numaplace.sweep.run_one`): on ``jobs`` local worker processes (default: the number
    of CPUs; 0: in this process), or as tasks on the Dask scheduler at ``scheduler``
    (``"local"`` starts a LocalCluster). ``grid`` sizes the runs (a :class:`Grid` or its
    value: ``"test"``, ``"quick"``, ``"full"``). A custom ``simulate`` (default
    :func:`numaplace.simulate`) runs in this process. A progress bar is shown on standard error
    when ``progress`` is true and standard error is a terminal. The frame's columns are
    described in the module documentation; its rows are in run order whatever the backend.
    Experiments with a ``followup`` get a second stage, planned from their first runs' rows,
    on the same backend; its rows follow each experiment's first ones.

    Raises:
        UnknownExperimentError: an id is not in :data:`EXPERIMENTS` (raised before any run).
        SelectionError: ``experiment_ids`` is empty, or ``grid`` is not a grid.
        numaplace.sweep.SweepError: a run failed (the message names it and gives its error),
            or ``jobs``/``scheduler`` are unusable.
    """
    grid = _grid(grid)
    experiments = select(experiment_ids)
    rows: dict[str, list[dict[str, Any]]] = {e.id: [] for e in experiments}
    stage = [(e.id, kwargs) for e in experiments for kwargs in e.runs(grid)]
    clock = _Clock(progress)
    clock.say(f"{len(stage)} runs of {len(experiments)} experiment{'s' * (len(experiments) != 1)} on the {grid.value} grid, longest first")
    backend = make_backend(scheduler, jobs, simulate, runs=len(stage))  # a second stage reuses these workers
    try:
        _run_stage(stage, backend, rows, progress, "reproduce", clock, grid)
        stage = [(e.id, kwargs) for e in experiments if e.followup for kwargs in e.followup(grid, pd.DataFrame(rows[e.id]))]
        if stage:
            clock.say(f"{len(stage)} runs of a second stage (planned from the first's results)")
            _run_stage(stage, backend, rows, progress, "reproduce, 2nd stage", clock, grid)
    except BaseException:
        backend.close(cancel=True)
        raise
    backend.close()
    return pd.DataFrame([row for e in experiments for row in rows[e.id]])


def _grid(grid: Grid | str) -> Grid:
    """``grid`` as a :class:`Grid`; a :class:`SelectionError` naming the grids if it is none."""
    try:
        return Grid(grid)
    except ValueError:
        raise SelectionError(f"unknown grid {grid!r} (known: {', '.join(g.value for g in Grid)})") from None


EXPECTED_S = {"system": 12.5, "protocol": 1.8, "page": 0.5}
"""A run's rough cost by kind, seconds on one core of the two-core machine: the quick grid's
means, measured one run at a time in one process (2026-11-28: seed 002's 12 system runs 176 s,
17 % less since the page engine's sparse quanta; seed 004's 84 protocol-engine runs 153 s; the
159 page-level runs 79 s, from 0.01 s to 8.5 s each). They set the order runs start in
(longest first, so that no long run is left for one worker at the end) and the estimate of the
time left. Neither changes a result. (At 20, 1 and
0.1 s, `make run` said "about 33 s left" when seed 002's runs were done, 94 s before the end.)"""


FULL_EXPECTED_S = {"system": 37.5, "protocol": 5.0, "page": 5.0, "seed003-sampled": 91.0}
"""The same at ``--full`` (the seeds' sizes), by kind and, where one experiment's runs are far
from their kind's, by experiment; seconds on one worker of the idle two-core machine: seed 002's
72 system runs took about 45 worker-minutes (stop 50: done after 29 min 39 s on two workers,
the other worker running the page and protocol runs beside them); the 212 page and protocol runs
of seeds 000, 001, 003 (Table 2), 004 and the placement study took the other 17 or so, about
5 s each; seed 003's 17 sampled runs at classes B-C (and the 6 planned from them) took 46 min
31 s on one worker at stop 51, and 25 min 54 s at stop 52 once the bus sampler walked its stream
(91 s each of the 17). With the quick grid's costs the time left read "about 31 s" 16 minutes before
stop 50's run was stopped, and "about 54 min" for the tiering runs after seed 003's in stop 51."""


def expected_s(kwargs: RunConfig, experiment_id: str = "", grid: Grid = Grid.QUICK) -> float:
    """The expected cost of the run ``kwargs`` describes: :data:`FULL_EXPECTED_S` on the full
    grid (its experiment's entry, else its kind's), else :data:`EXPECTED_S` of its kind."""
    kind = "system" if "job_stream" in kwargs else "protocol" if kwargs.get("engine") == "protocol" else "page"
    if grid is Grid.FULL:
        return FULL_EXPECTED_S.get(experiment_id, FULL_EXPECTED_S[kind])
    return EXPECTED_S[kind]


class _Clock:
    """The progress lines of a reproduction, on standard error when ``progress`` is true (also
    in a log, where the bar is not drawn): one when it starts, then one as each experiment's
    runs are all done, with the runs done, the time since the start and the time left, estimated
    from the runs' expected costs (:func:`expected_s`)."""

    def __init__(self, progress: bool) -> None:
        self.progress = progress
        self.start = time.monotonic()

    def say(self, what: str) -> None:
        if self.progress:
            from tqdm.auto import tqdm

            tqdm.write(f"numaplace reproduce: {what}", file=sys.stderr)

    def elapsed(self) -> str:
        return _duration(time.monotonic() - self.start)


def _duration(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 60} min {s % 60} s" if s >= 60 else f"{s} s"


def _run_stage(
    planned: Sequence[tuple[str, RunConfig]],
    backend: Backend,
    rows: dict[str, list[dict[str, Any]]],
    progress: bool,
    desc: str,
    clock: _Clock,
    grid: Grid,
) -> None:
    """Runs ``(experiment id, kwargs)`` pairs on ``backend`` (left open), the longest expected
    on ``grid`` first, and appends each run's row to its experiment's rows, numbered on, in
    planned order."""
    outcomes: list[dict[str, Any] | None] = [None] * len(planned)
    cost = [expected_s(kwargs, experiment_id, grid) for experiment_id, kwargs in planned]
    order = sorted(range(len(planned)), key=lambda i: -cost[i])  # stable
    left = collections.Counter(e for e, _ in planned)
    total, done = sum(cost), [0.0, 0]

    def record(k: int, outcome: dict[str, Any], attempts: int) -> None:
        index = order[k]
        outcomes[index] = outcome
        experiment_id = planned[index][0]
        done[0] += cost[index]
        done[1] += 1
        left[experiment_id] -= 1
        if not left[experiment_id]:
            elapsed = time.monotonic() - clock.start
            eta = elapsed * (total - done[0]) / done[0] if done[0] < total else 0.0
            clock.say(f"{experiment_id} done; {done[1]} of {len(planned)} runs after {clock.elapsed()}" + (f", about {_duration(eta)} left" if eta >= 0.5 else ""))

    execute([(run_id(planned[i][1]), planned[i][1]) for i in order], backend, record, progress=progress, desc=desc, close=False)
    for (experiment_id, kwargs), outcome in zip(planned, outcomes):
        assert outcome is not None
        index = len(rows[experiment_id])
        if outcome["status"] != "ok":
            raise SweepError(
                f"experiment {experiment_id}, run {index} failed: {outcome['error_type']}: {outcome['error']}"
            )
        rows[experiment_id].append(
            {"experiment": experiment_id, "run": index}
            | flatten(kwargs, "request.")
            | flatten(outcome["result"])
        )
