"""The "reproduce" report: renders the experiments' results as HTML, Markdown and CSV.

:func:`reproduce` runs the selected experiments (:mod:`numaplace.experiments`, which plans and
runs them through the sweep executor) and writes, into one directory:

* ``index.html`` — self-contained HTML (inline style, no scripts): per experiment its
  description, result table, chart and the resolved configuration of each run;
* ``README.md`` — the same content in Markdown (pipe tables, linked images);
* ``<experiment id>.png`` — one chart per experiment (drawn by the experiment's ``analyse``
  with :mod:`numaplace.plot`, saved by :func:`numaplace.plot.save_png`);
* ``results.csv`` — every run, one row each (the results frame of
  :func:`numaplace.experiments.run_experiments`).

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

from numaplace import plot
from numaplace.experiments import Simulate, UnknownExperimentError, run_experiments, select
from numaplace.report.pages import REPORT_TITLE, Section, html_page, markdown_page, results_csv
from numaplace.report.tables import resolved_configs

__all__ = ["REPORT_TITLE", "UnknownExperimentError", "reproduce"]


def reproduce(
    out_dir: str | Path = "report",
    quick: bool = True,
    simulate: Simulate | None = None,
    progress: bool = True,
    experiments: Sequence[str] | None = None,
    scheduler: str | None = None,
    jobs: int | None = None,
) -> Path:
    """Runs the experiments and writes the report into ``out_dir``; returns its path.

    ``experiments`` selects experiment ids (default: all, in registry order). ``simulate``
    defaults to :func:`numaplace.simulate`. ``scheduler`` and ``jobs`` choose where the runs
    execute, as for :func:`numaplace.experiments.run_experiments`; the report is the same wherever they run. See the
    module documentation for the files written; the directory is created if missing and
    existing report files in it are overwritten.

    Raises:
        UnknownExperimentError: an id is not in :data:`numaplace.experiments.EXPERIMENTS` (raised before any run).
        ValueError: ``experiments`` is empty.
        numaplace.sweep.SweepError: a run failed, or ``jobs``/``scheduler`` are unusable
            (raised before anything is written).
    """
    selected = select(experiments)
    results = run_experiments(
        [e.id for e in selected], quick=quick, simulate=simulate, progress=progress, scheduler=scheduler, jobs=jobs
    )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sections = []
    for e in selected:
        runs = results.loc[results["experiment"] == e.id].reset_index(drop=True)
        table, fig = e.analyse(runs)
        image = f"{e.id}.png"
        plot.save_png(fig, out / image)
        sections.append(Section(e, table, resolved_configs(runs), image))
    (out / "results.csv").write_text(results_csv(results), encoding="utf-8")
    (out / "index.html").write_text(html_page(sections, quick), encoding="utf-8")
    (out / "README.md").write_text(markdown_page(sections, quick), encoding="utf-8")
    return out
