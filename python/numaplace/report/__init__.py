"""The "reproduce" report: renders the experiments' results as HTML, Markdown and CSV.

:func:`reproduce` runs the selected experiments (:mod:`numaplace.experiments`, which plans and
runs them through the sweep executor) and writes, into one directory:

* ``index.html`` — self-contained HTML (inline style, no scripts): first a summary of every
  claim (holds / fails, the median error of the published numbers it restates, simulated
  beside published, one line each; on the quick grid marked
  as a quick check, the claims being asked at class A) with links to the data files, and per seed
  the median relative error of its published numbers; then per experiment its paper (cited in
  full), description, result table, chart, and its configuration shown once (the settings
  shared by every run, those that vary, and the varying ones per run collapsed in
  ``<details>``); then the fidelity tables: per seed, each published number the simulation
  computes beside the simulated one, with the errors and medians
  (:mod:`numaplace.experiments.fidelity`); last the references (every seed);
* ``README.md`` — the same content in Markdown (pipe tables, linked images);
* ``<experiment id>.png`` — one chart per experiment (drawn by the experiment's ``analyse``
  with :mod:`numaplace.plot`, saved by :func:`numaplace.plot.save_png`), published values
  drawn on it where the seed gives them, its legend outside the data;
* ``fidelity.csv`` — every published number compared, one row each
  (:data:`~numaplace.report.pages.FIDELITY_COLUMNS`);
* ``results.csv`` — every run, one row each (the results frame of
  :func:`numaplace.experiments.run_experiments`) without its ``epochs`` column;
* ``epochs.parquet`` — that per-epoch data, tidy: one row per run and epoch
  (:data:`~numaplace.report.pages.EPOCHS_SCHEMA`), written with fixed settings
  (:func:`write_parquet`).

The output contains no dates, versions or timings of the reproduction itself, so the same
simulator gives byte-identical files on every run, wherever the runs execute (local worker
processes or a Dask cluster: ``reproduce(..., jobs=N)`` or ``scheduler="tcp://HOST:PORT"``).

This package only renders: :mod:`~numaplace.report.tables` formats cells and tables, and
:mod:`~numaplace.report.pages` writes the pages. :class:`UnknownExperimentError` is
re-exported because :func:`reproduce` raises it (``numaplace reproduce`` catches it here).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

import pyarrow as pa
import pyarrow.parquet as pq

from numaplace import plot
from numaplace.experiments import Experiment, Grid, Simulate, UnknownExperimentError, run_experiments, select
from numaplace.outfile import check_output_dir, write_output, write_with
from numaplace.report.pages import (
    EPOCHS_PARQUET,
    FIDELITY_CSV,
    REPORT_TITLE,
    RESULTS_CSV,
    Section,
    epochs_table,
    fidelity_csv,
    html_page,
    markdown_page,
    results_csv,
)
from numaplace.report.tables import resolved_configs

__all__ = ["REPORT_TITLE", "Section", "UnknownExperimentError", "reproduce", "write_parquet", "write_report"]


def reproduce(
    out_dir: str | Path = "report",
    grid: Grid | str = Grid.QUICK,
    simulate: Simulate | None = None,
    progress: bool = True,
    experiments: Sequence[str] | None = None,
    scheduler: str | None = None,
    jobs: int | None = None,
) -> Path:
    """Runs the experiments and writes the report into ``out_dir``; returns its path.

    ``experiments`` selects experiment ids (default: all, in registry order); ``grid`` sizes
    their runs (:class:`~numaplace.experiments.Grid`: ``"quick"``, ``"full"``, ``"test"``). ``simulate``
    defaults to :func:`numaplace.simulate`. ``scheduler`` and ``jobs`` choose where the runs
    execute, as for :func:`numaplace.experiments.run_experiments`; the report is the same wherever they run. See the
    module documentation for the files written; the directory is created if missing and
    existing report files in it are overwritten.

    Raises:
        UnknownExperimentError: an id is not in :data:`numaplace.experiments.EXPERIMENTS` (raised before any run).
        numaplace.experiments.SelectionError: ``experiments`` is empty, or ``grid`` is not a
            grid (a ValueError too).
        numaplace.outfile.OutputError: ``out_dir`` is not a directory files can be written in
            (raised before any run).
        numaplace.sweep.SweepError: a run failed, or ``jobs``/``scheduler`` are unusable
            (raised before anything is written).
    """
    selected = select(experiments)
    check_output_dir(out_dir, "out_dir")  # before the runs, which a bad directory would waste
    results = run_experiments(
        [e.id for e in selected], grid=grid, simulate=simulate, progress=progress, scheduler=scheduler, jobs=jobs
    )
    out = Path(out_dir)
    write_report(out, selected, results, Grid(grid))
    return out


def write_report(out: Path, selected: Sequence[Experiment], results: pd.DataFrame, grid: Grid) -> list[Section]:
    """Writes the report of ``selected``'s rows of ``results`` (the frame of
    :func:`~numaplace.experiments.run_experiments`) into ``out`` (created if missing); returns
    its sections, each with its figure (e.g. to measure with :func:`numaplace.plot.legend_overlaps`)."""
    out.mkdir(parents=True, exist_ok=True)
    sections = []
    for e in selected:
        runs = results.loc[results["experiment"] == e.id].reset_index(drop=True)
        table, fig = e.analyse(runs)
        image = f"{e.id}.png"
        plot.save_png(fig, out / image, "the report's figure")
        claims = tuple(e.claims(runs)) if e.claims else ()
        fidelity = tuple(e.fidelity(runs)) if e.fidelity else ()
        sections.append(Section(e, table, resolved_configs(runs), image, fig, claims, fidelity))
    write_output(out / RESULTS_CSV, "the report's results", results_csv(results))
    write_output(out / FIDELITY_CSV, "the report's fidelity table", fidelity_csv(sections))
    write_parquet(epochs_table(results), out / EPOCHS_PARQUET)
    write_output(out / "index.html", "the report's page", html_page(sections, grid))
    write_output(out / "README.md", "the report's Markdown page", markdown_page(sections, grid))
    return sections


def write_parquet(table: pa.Table, path: Path) -> None:
    """Writes ``table`` as Parquet with fixed settings (zstd, dictionary-encoded, one row
    group, statistics), so the same table gives the same bytes (pyarrow writes no timestamps;
    its version is in the file's ``created_by``, as matplotlib's is not in the PNGs), by the one
    writer (:func:`numaplace.outfile.write_with`)."""

    def write(p: Path) -> None:
        pq.write_table(
            table,
            p,
            compression="zstd",
            compression_level=9,
            use_dictionary=True,
            write_statistics=True,
            row_group_size=max(1, table.num_rows),
            store_schema=False,
        )

    write_with(path, "the report's epochs", write)
