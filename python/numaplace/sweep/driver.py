"""The sweep driver: :func:`run_sweep` runs a spec's configurations into its table.

It plans the runs (spec → configurations → run ids), skips those already in the checkpoint,
runs the rest on a backend through the shared executor, checkpoints each outcome as it
arrives, and assembles and writes the table in the spec's cartesian order, whatever order
the runs completed in.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from numaplace._native import __version__ as _VERSION
from numaplace.sweep.backends import _check_jobs, _check_scheduler, jobs_note, make_backend, worker_count
from numaplace.sweep.checkpoint import (
    CHECKPOINT_FILE,
    RESULTS_CSV,
    RESULTS_FILE,
    Checkpoint,
    OutputLock,
    check_outputs,
    checkpoint_record,
    read_checkpoint,
    table_rows,
    to_frame,
    to_table,
    write_atomic,
)
from numaplace.sweep.errors import SweepError
from numaplace.sweep.executor import WORKER_LOST, execute
from numaplace.sweep.spec import Sweep, load_spec, run_id, run_options

if TYPE_CHECKING:
    import pandas as pd


def _out_dir(out: str | os.PathLike[str] | None) -> Path | None:
    """The output directory, made if missing; a one-line error if it cannot be."""
    if out is None:
        return None
    try:
        path = Path(out)
    except TypeError:
        raise SweepError(f"out = {out!r}: expected a directory path") from None
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # mkdir's exist_ok covers directories only
        raise SweepError(f"{path} is not a directory; --out names the directory for the sweep's files") from None
    except OSError as e:
        raise SweepError(f"cannot create {path}: {e.strerror or e}") from None
    return path


def _reusable(record: Mapping[str, Any]) -> bool:
    """Whether a checkpointed run counts as done: same simulator version, and not a lost worker."""
    return record.get("numaplace_version") == _VERSION and record.get("error_type") != WORKER_LOST


def run_sweep(
    spec: str | os.PathLike[str] | Mapping[str, Any] | Sweep | None = None,
    scheduler: str | None = None,
    jobs: int | None = None,
    out: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
    *,
    csv: bool = False,
    axes: Mapping[str, Any] | None = None,
    fixed: Mapping[str, Any] | None = None,
    zip: Sequence[Mapping[str, Any]] | None = None,  # noqa: A002 - the spec's own word
    exclude: Sequence[Mapping[str, Any]] | None = None,
    _on_result: Callable[[int, Any], None] | None = None,
) -> pd.DataFrame:
    """Runs every configuration of a sweep spec and returns the table, one row per configuration.

    ``spec`` is a path to a TOML file, TOML text, or a dict of the same shape; or, without
    ``spec``, the keywords ``axes``, ``fixed``, ``zip`` and ``exclude`` are its tables
    (``numaplace.sweep(axes={"workload.pages": [256, 1024]}, fixed={"workload": "traverse"})``). Runs execute on
    ``jobs`` local worker processes (default ``os.cpu_count()``; 0 runs them in this process),
    or, with ``scheduler``, as Dask tasks on the cluster at that address (``"local"`` starts a
    LocalCluster of ``jobs`` single-threaded worker processes). With ``out``, each completed
    run is checkpointed in ``out/checkpoint.jsonl``, runs already recorded there are skipped,
    and the table is written to ``out/results.parquet`` (and ``out/results.csv`` if ``csv``).

    ``progress`` draws a bar of runs (``tqdm.auto``: a widget in a notebook): ``None`` (the
    default) where someone can see it — a notebook, or standard error a terminal, not a pipe —
    and ``True``/``False`` force it on or off. Sweeps of at most
    :data:`~numaplace.sweep.backends.INLINE_RUNS` runs without ``jobs`` run in this process.

    Rows are in the spec's cartesian order. Columns: ``run``, ``run_id``, ``status``
    (``"ok"``/``"failed"``), ``error_type``, ``error``, ``attempts``; one column per option the
    spec sets; then every column of ``Result.to_row()`` (``config.*`` and the result fields),
    null for failed runs. List values are Python lists here and JSON text in the files.

    Local workers (the pool's processes, or a LocalCluster's) number at most the runs still to
    do and at most :func:`~numaplace.sweep.backends.worker_bound` (2 per CPU); a larger
    ``jobs`` is not an error. The frame's ``attrs["workers"]`` says how many were allowed
    (None on a remote Dask cluster) and ``attrs["workers_note"]``, when present, why fewer
    than ``jobs``.

    Raises:
        SweepError: the spec is invalid, or ``jobs``/``scheduler`` are unusable (one line).
    """
    tables = {k: v for k, v in (("axes", axes), ("fixed", fixed), ("zip", zip), ("exclude", exclude)) if v is not None}
    if spec is None:
        spec = tables
    elif tables:
        raise SweepError(f"give a spec or its tables ({', '.join(tables)}=), not both")
    sweep = load_spec(spec)
    if progress is not None and not isinstance(progress, bool):
        raise SweepError(f"progress = {progress!r}: expected True, False or None")
    _check_jobs(jobs)
    _check_scheduler(scheduler)
    points = sweep.points()
    configs = [run_options(p) for p in points]
    ids = [run_id(c) for c in configs]
    out_dir = _out_dir(out)
    with contextlib.ExitStack() as stack:
        done: dict[str, dict[str, Any]] = {}
        checkpoint = None
        if out_dir is not None:
            # The lock first: a second sweep into the directory must not even read the
            # checkpoint the first is appending to. It is held until the table is written.
            stack.enter_context(OutputLock(out_dir))
            check_outputs(out_dir, csv)
            wanted = set(ids)
            for record in read_checkpoint(out_dir / CHECKPOINT_FILE):
                if record["run_id"] in wanted:
                    if _reusable(record):
                        done[record["run_id"]] = record
                    else:
                        done.pop(record["run_id"], None)

        todo = [i for i, r in enumerate(ids) if r not in done]
        records: dict[str, dict[str, Any]] = dict(done)
        count = 0
        backend = None

        def on_outcome(k: int, outcome: dict[str, Any], attempts: int) -> None:
            nonlocal count
            i = todo[k]
            rec = checkpoint_record(ids[i], configs[i], outcome, attempts)
            records[ids[i]] = rec
            if checkpoint is not None:
                checkpoint.append(rec)
            count += 1
            if _on_result is not None:
                _on_result(count, backend)

        if todo:
            if out_dir is not None:
                checkpoint = Checkpoint(out_dir / CHECKPOINT_FILE)
                stack.callback(checkpoint.close)
            backend = make_backend(scheduler, jobs, runs=len(todo))
            execute(
                [(ids[i], configs[i]) for i in todo],
                backend,
                on_outcome,
                progress={None: True, True: "always", False: False}[progress],
                desc="sweep",
                done_before=len(ids) - len(todo),
                failed_before=sum(r["status"] != "ok" for r in done.values()),
            )

        rows, columns = table_rows(sweep, points, [records[r] for r in ids])
        table = to_table(rows, columns)
        if out_dir is not None:
            import pyarrow.parquet as pq

            write_atomic(out_dir / RESULTS_FILE, lambda f: pq.write_table(table, f))
            if csv:
                text = to_frame(table, decode=False).to_csv(index=False, lineterminator="\n")
                write_atomic(out_dir / RESULTS_CSV, lambda f: f.write(text.encode("utf-8")))
    df = to_frame(table)
    # How many local workers ran (or, on a remote Dask cluster, None: its own), and why fewer
    # than asked: a caller sees the bound without a message printed behind its back.
    df.attrs["workers"] = worker_count(jobs, len(todo), scheduler) if scheduler is None or scheduler == "local" else None
    note = jobs_note(jobs)
    if note is not None and (scheduler is None or scheduler == "local"):
        df.attrs["workers_note"] = note
    return df
