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

from collections.abc import Sequence
from typing import Any

import pandas as pd

from numaplace.experiments._frames import flatten
from numaplace.experiments.base import Grid, RunConfig, Simulate
from numaplace.experiments.registry import select
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
        ValueError: ``experiment_ids`` is empty, or ``grid`` is not a grid.
        numaplace.sweep.SweepError: a run failed (the message names it and gives its error),
            or ``jobs``/``scheduler`` are unusable.
    """
    grid = _grid(grid)
    experiments = select(experiment_ids)
    rows: dict[str, list[dict[str, Any]]] = {e.id: [] for e in experiments}
    stage = [(e.id, kwargs) for e in experiments for kwargs in e.runs(grid)]
    backend = make_backend(scheduler, jobs, simulate, runs=len(stage))  # a second stage reuses these workers
    try:
        _run_stage(stage, backend, rows, progress, "reproduce")
        stage = [(e.id, kwargs) for e in experiments if e.followup for kwargs in e.followup(grid, pd.DataFrame(rows[e.id]))]
        if stage:
            _run_stage(stage, backend, rows, progress, "reproduce, 2nd stage")
    except BaseException:
        backend.close(cancel=True)
        raise
    backend.close()
    return pd.DataFrame([row for e in experiments for row in rows[e.id]])


def _grid(grid: Grid | str) -> Grid:
    """``grid`` as a :class:`Grid`; a ValueError naming the grids if it is none."""
    try:
        return Grid(grid)
    except ValueError:
        raise ValueError(f"unknown grid {grid!r} (known: {', '.join(g.value for g in Grid)})") from None


def _run_stage(
    planned: Sequence[tuple[str, RunConfig]],
    backend: Backend,
    rows: dict[str, list[dict[str, Any]]],
    progress: bool,
    desc: str,
) -> None:
    """Runs ``(experiment id, kwargs)`` pairs on ``backend`` (left open) and appends each run's
    row to its experiment's rows, numbered on, in planned order."""
    outcomes: list[dict[str, Any] | None] = [None] * len(planned)

    def record(index: int, outcome: dict[str, Any], attempts: int) -> None:
        outcomes[index] = outcome

    execute([(run_id(kwargs), kwargs) for _, kwargs in planned], backend, record, progress=progress, desc=desc, close=False)
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
