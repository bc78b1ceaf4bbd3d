"""The "reproduce" report: re-runs experiments from the seed papers and writes a report.

An :class:`Experiment` names the seed section it reproduces, lists the simulations to run
(``runs(quick)`` returns one dict of :func:`numaplace.simulate` keyword arguments per run) and
turns their results into a table and a figure (``analyse(runs)``). :data:`EXPERIMENTS` holds every
experiment, keyed by id; :func:`reproduce` runs them and writes, into one directory:

* ``index.html`` — self-contained HTML (inline style, no scripts): per experiment its
  description, result table, chart and the resolved configuration of each run;
* ``README.md`` — the same content in Markdown (pipe tables, linked images);
* ``<experiment id>.png`` — one chart per experiment;
* ``results.csv`` — every run, one row each (the results frame below).

The output contains no dates, versions or timings of the reproduction itself, so the same
simulator gives byte-identical files on every run, wherever the runs execute: the runs go
through the sweep machinery (:mod:`numaplace.sweep`), on local worker processes or a Dask
cluster (``reproduce(..., jobs=N)`` or ``scheduler="tcp://HOST:PORT"``), and the frame is
assembled in run order.

Results frame
-------------
:func:`run_experiments` returns one row per run, with columns in this order:

* ``experiment`` — the experiment id; ``run`` — the run's index within its experiment;
* ``request.<kwarg>`` — the keyword arguments passed to ``simulate`` (as the experiment wrote
  them, e.g. ``request.workload == "traverse:pattern=strided"``);
* ``config.<key>`` — the resolved configuration from ``Result.to_dict()["config"]`` (canonical
  specs with every default filled in, e.g. ``config.workload``); nested dicts are flattened
  with further dots;
* every other key of ``Result.to_dict()`` under its own name (``total_time_ns``,
  ``local_fraction``, ``per_node_pages``, ...). List values stay lists in the frame and are
  written to ``results.csv`` as JSON arrays.

Experiments group and label runs by their ``request.*`` columns, which do not depend on how the
simulator spells canonical specs; the report shows the ``config.*`` columns so that each run can
be repeated exactly.

Quick mode
----------
``quick`` is passed to every experiment's ``runs``; a quick run may later use smaller problem
sizes through workload parameters. For now both modes run the simulator's default sizes, so
they give the same results.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import pandas as pd
from matplotlib.figure import Figure

from numaplace import experiments_seed000, experiments_seed001, experiments_seed003, plot
from numaplace.sweep import SweepError, execute, make_backend, run_id

REPORT_TITLE = "numaplace: reproduced results"

RunConfig = dict[str, Any]
"""Keyword arguments of one ``numaplace.simulate`` call."""


class SupportsToDict(Protocol):
    """What ``simulate`` returns: a result convertible to the documented dict schema."""

    def to_dict(self) -> dict[str, Any]: ...


Simulate = Callable[..., SupportsToDict]


class UnknownExperimentError(ValueError):
    """An experiment id that is not in :data:`EXPERIMENTS`; the message lists the known ids."""


@dataclass(frozen=True)
class Experiment:
    """One reproducible experiment of the report.

    Attributes:
        id: Short stable name, used on the command line and as the chart's file name.
        title: Heading in the report.
        description: One paragraph for the report, citing the seed section reproduced.
        runs: Given ``quick``, the ``simulate`` keyword arguments of every run, in order.
        analyse: Given this experiment's rows of the results frame (index reset, in run
            order), the table shown in the report and a figure.
        followup: Optional second stage: given ``quick`` and this experiment's rows from
            ``runs`` (as ``analyse`` gets them), the keyword arguments of runs that depend on
            those results (seed 003's migration period is scaled to the run time without a
            policy). Their rows follow, numbered on from ``runs``'.
    """

    id: str
    title: str
    description: str
    runs: Callable[[bool], list[RunConfig]]
    analyse: Callable[[pd.DataFrame], tuple[pd.DataFrame, Figure]]
    followup: Callable[[bool, pd.DataFrame], list[RunConfig]] | None = None


def _spec_params(spec: str) -> dict[str, str]:
    """Returns the ``key=value`` parameters of a ``NAME:key=value,...`` spec."""
    _, _, rest = spec.partition(":")
    return dict(pair.split("=", 1) for pair in rest.split(",")) if rest else {}


# --- seed003-table2 --------------------------------------------------------------------------

TABLE2_PATTERNS = ("sequential", "strided", "random")
TABLE2_LOCAL = "first-touch"
TABLE2_NONLOCAL = "bind:node=1"
TABLE2_PUBLISHED: dict[str, tuple[float, float, float]] = {
    "sequential": (546.6, 685.8, 1.25),
    "strided": (659.7, 810.1, 1.23),
    "random": (512.5, 606.0, 1.18),
}
"""Seed 003 Table 2: local time, non-local time and slowdown per access pattern."""


def _table2_runs(quick: bool) -> list[RunConfig]:
    return [
        {
            "machine": "sunfire6800",
            "workload": f"traverse:pattern={pattern}",
            "placement": placement,
            "threads": 1,
            "seed": 0,
        }
        for pattern in TABLE2_PATTERNS
        for placement in (TABLE2_LOCAL, TABLE2_NONLOCAL)
    ]


def _table2_analyse(runs: pd.DataFrame) -> tuple[pd.DataFrame, Figure]:
    patterns = runs["request.workload"].map(lambda spec: _spec_params(spec)["pattern"])
    times_ms = (
        runs.assign(pattern=patterns, ms=runs["total_time_ns"] / 1e6)
        .pivot(index="pattern", columns="request.placement", values="ms")
        .reindex(list(TABLE2_PATTERNS))
    )
    local, nonlocal_ = times_ms[TABLE2_LOCAL], times_ms[TABLE2_NONLOCAL]
    simulated = nonlocal_ / local
    published = pd.Series({p: TABLE2_PUBLISHED[p][2] for p in TABLE2_PATTERNS})
    table = pd.DataFrame(
        {
            "pattern": list(TABLE2_PATTERNS),
            "simulated local time (ms)": local.round(3).to_numpy(),
            "simulated non-local time (ms)": nonlocal_.round(3).to_numpy(),
            "simulated slowdown": simulated.round(3).to_numpy(),
            "published slowdown": published.to_numpy(),
            "difference (simulated − published)": (simulated - published).round(3).to_numpy(),
        }
    )
    fig, _ = plot.compare_bars(
        list(TABLE2_PATTERNS),
        simulated.tolist(),
        published.tolist(),
        title="Sun Fire 6800, one thread: non-local / local array access time",
        xlabel="array access pattern",
        ylabel="slowdown of non-local placement (×)",
    )
    return table, fig


# --- placement-sensitivity -------------------------------------------------------------------

SENSITIVITY_WORKLOADS = ("stream", "random")
SENSITIVITY_PLACEMENTS = ("first-touch", "round-robin", "random", "worst-case")


def _sensitivity_runs(quick: bool) -> list[RunConfig]:
    return [
        {"machine": "origin2000", "workload": workload, "placement": placement, "threads": 16, "seed": 0}
        for workload in SENSITIVITY_WORKLOADS
        for placement in SENSITIVITY_PLACEMENTS
    ]


def _sensitivity_analyse(runs: pd.DataFrame) -> tuple[pd.DataFrame, Figure]:
    frame = pd.DataFrame(
        {
            "workload": runs["request.workload"],
            "placement": runs["request.placement"],
            "total_time_ns": runs["total_time_ns"],
        }
    )
    table = pd.DataFrame(
        {
            "workload": frame["workload"],
            "placement": frame["placement"],
            "total time (ms)": (frame["total_time_ns"] / 1e6).round(3),
            "slowdown vs first-touch": plot.slowdown(frame).round(3),
            "local fraction": runs["local_fraction"].round(4),
        }
    )
    fig, _ = plot.slowdown_bars(
        frame,
        title="Origin2000, 16 threads: slowdown relative to first-touch placement",
        ylabel="total time relative to first-touch (×)",
    )
    return table, fig


EXPERIMENTS: dict[str, Experiment] = {
    e.id: e
    for e in (
        Experiment(
            id="seed003-table2",
            title="Local versus non-local page placement, one thread (seed 003 Table 2)",
            description=(
                "Seed 003 §4.2 (Impact of Local Page Placement, Table 2) runs a single thread on a "
                "Sun Fire 6800 that traverses an array sequentially, with a stride, or in random "
                "order, invalidating each cache line before the access so that every access goes "
                "to memory, and compares the array access time when the array pages are local to "
                "the thread with the time when they are on another board. The paper measures "
                "slowdowns of 1.18 to 1.25 and finds them proportional to the back-to-back remote "
                "and local memory latencies. We simulate workload traverse:pattern=P on machine sunfire6800 "
                "with one thread (on node 0), placing pages with first-touch (local) or "
                "bind:node=1 (non-local). The paper gives its times without units, so only the "
                "slowdowns are compared; the table lists simulated times in milliseconds."
            ),
            runs=_table2_runs,
            analyse=_table2_analyse,
        ),
        Experiment(
            id="placement-sensitivity",
            title="Sensitivity to page placement, 16 threads on an Origin2000 (seed 000 §2)",
            description=(
                "Seed 000 §2 (Sensitivity of OpenMP to page placement) runs the NAS benchmarks on "
                "16 processors of an SGI Origin2000 under first-touch, round-robin, random and "
                "worst-case page placement (every page on one node, as when one processor "
                "initialises all data). Relative to first-touch it reports modest slowdowns for "
                "the balanced round-robin (8–35%) and random (2–45%) schemes and large ones for "
                "worst-case (24–248%, 90% on average), because remote memory is at most about "
                "twice as slow as local memory at that scale while worst-case placement also "
                "concentrates contention on one node. We run the stream and random workloads on "
                "machine origin2000 with 16 threads under the same four placements and report "
                "each run's time relative to first-touch; the paper's figures are for the NAS "
                "codes, so they bound the expected shape rather than give values to match."
            ),
            runs=_sensitivity_runs,
            analyse=_sensitivity_analyse,
        ),
        Experiment(
            id="seed000-migration",
            title=experiments_seed000.TITLE,
            description=experiments_seed000.DESCRIPTION,
            runs=experiments_seed000.runs,
            analyse=experiments_seed000.analyse,
        ),
        Experiment(
            id="seed000-recrep",
            title=experiments_seed000.RECREP_TITLE,
            description=experiments_seed000.RECREP_DESCRIPTION,
            runs=experiments_seed000.recrep_runs,
            analyse=experiments_seed000.recrep_analyse,
        ),
        Experiment(
            id="seed001-wildfire",
            title=experiments_seed001.TITLE,
            description=experiments_seed001.DESCRIPTION,
            runs=experiments_seed001.runs,
            analyse=experiments_seed001.analyse,
        ),
        Experiment(
            id="seed003-sampled",
            title=experiments_seed003.TITLE,
            description=experiments_seed003.DESCRIPTION,
            runs=experiments_seed003.runs,
            analyse=experiments_seed003.analyse,
            followup=experiments_seed003.followup,
        ),
    )
}
"""Every experiment of the report, keyed by id, in report order."""


def get_experiment(experiment_id: str) -> Experiment:
    """Returns the experiment named ``experiment_id``.

    Raises:
        UnknownExperimentError: no such experiment; the message lists the known ids.
    """
    try:
        return EXPERIMENTS[experiment_id]
    except KeyError:
        known = ", ".join(EXPERIMENTS)
        raise UnknownExperimentError(f"unknown experiment {experiment_id!r} (known: {known})") from None


def _flatten(mapping: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in mapping.items():
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _select(experiment_ids: Sequence[str] | None) -> list[Experiment]:
    ids = list(EXPERIMENTS) if experiment_ids is None else list(experiment_ids)
    if not ids:
        raise ValueError("no experiments selected")
    return [get_experiment(i) for i in ids]


def run_experiments(
    experiment_ids: Sequence[str] | None = None,
    *,
    quick: bool = True,
    simulate: Simulate | None = None,
    progress: bool = True,
    scheduler: str | None = None,
    jobs: int | None = None,
) -> pd.DataFrame:
    """Runs the given experiments (default: all, in registry order) and returns the results frame.

    The runs go through the sweep machinery (:func:`numaplace.sweep.execute`, each run by
    :func:`numaplace.sweep.run_one`): on ``jobs`` local worker processes (default: the number
    of CPUs; 0: in this process), or as tasks on the Dask scheduler at ``scheduler``
    (``"local"`` starts a LocalCluster). A custom ``simulate`` (default
    :func:`numaplace.simulate`) runs in this process. A progress bar is shown on standard error
    when ``progress`` is true and standard error is a terminal. The frame's columns are
    described in the module documentation; its rows are in run order whatever the backend.
    Experiments with a ``followup`` get a second stage, planned from their first runs' rows,
    on the same backend; its rows follow each experiment's first ones.

    Raises:
        UnknownExperimentError: an id is not in :data:`EXPERIMENTS` (raised before any run).
        ValueError: ``experiment_ids`` is empty.
        numaplace.sweep.SweepError: a run failed (the message names it and gives its error),
            or ``jobs``/``scheduler`` are unusable.
    """
    experiments = _select(experiment_ids)
    rows: dict[str, list[dict[str, Any]]] = {e.id: [] for e in experiments}
    stage = [(e.id, kwargs) for e in experiments for kwargs in e.runs(quick)]
    backend = make_backend(scheduler, jobs, simulate)
    try:
        _run_stage(stage, backend, rows, progress, "reproduce")
        stage = [(e.id, kwargs) for e in experiments if e.followup for kwargs in e.followup(quick, pd.DataFrame(rows[e.id]))]
        if stage:
            _run_stage(stage, backend, rows, progress, "reproduce, 2nd stage")
    except BaseException:
        backend.close(cancel=True)
        raise
    backend.close()
    return pd.DataFrame([row for e in experiments for row in rows[e.id]])


def _run_stage(
    planned: Sequence[tuple[str, RunConfig]],
    backend: Any,
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
            | _flatten(kwargs, "request.")
            | _flatten(outcome["result"])
        )


# --- rendering -------------------------------------------------------------------------------


def _cell(value: Any) -> str:
    """The text of one table cell, identical in HTML, Markdown and across runs."""
    if isinstance(value, (list, tuple)):
        return json.dumps(list(value))
    if pd.isna(value):
        return "n/a"
    if isinstance(value, float):
        return str(float(value))
    return str(value)


def _text_table(table: pd.DataFrame) -> pd.DataFrame:
    return table.map(_cell).astype(object)


def _markdown_table(table: pd.DataFrame) -> str:
    numeric = [pd.api.types.is_numeric_dtype(table[c]) for c in table.columns]
    text = _text_table(table)

    def row(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    lines = [row([str(c) for c in table.columns]), row(["---:" if n else "---" for n in numeric])]
    lines += [row(list(r)) for r in text.itertuples(index=False)]
    return "\n".join(lines)


def _html_table(table: pd.DataFrame) -> str:
    return _text_table(table).to_html(index=False, border=0, escape=True)


def _resolved_configs(runs: pd.DataFrame) -> pd.DataFrame:
    """The ``config.*`` columns of an experiment's runs, without the prefix, one row per run.

    The machine's full description (``config.machine_spec.*``) stays in ``results.csv``; the
    report names the machine, whose preset file is in ``machines/``.
    """
    columns = [
        c
        for c in runs.columns
        if c.startswith("config.") and not c.startswith("config.machine_spec.") and runs[c].notna().any()
    ]
    configs = runs[columns].rename(columns=lambda c: c.removeprefix("config."))
    return pd.concat([runs[["run"]], configs], axis=1)


@dataclass(frozen=True)
class _Section:
    experiment: Experiment
    table: pd.DataFrame
    configs: pd.DataFrame
    image: str


def _intro(quick: bool) -> str:
    mode = (
        "quick mode (smaller problem sizes where an experiment defines them; currently the same "
        "sizes as the full mode)"
        if quick
        else "full mode"
    )
    return (
        "Each section re-runs an experiment from one of the papers the simulator implements and "
        f"compares the simulated outcome with the published one. Generated in {mode}; every run, "
        "with its resolved configuration and all result fields, is in results.csv."
    )


_STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.4}"
    "table{border-collapse:collapse;margin:1em 0;font-size:90%}"
    "th,td{border:1px solid #999;padding:0.2em 0.5em;text-align:left}"
    "img{max-width:100%}"
)


def _html(sections: Sequence[_Section], quick: bool) -> str:
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        f"<title>{esc(REPORT_TITLE)}</title>",
        f"<style>{_STYLE}</style></head>",
        "<body>",
        f"<h1>{esc(REPORT_TITLE)}</h1>",
        f"<p>{esc(_intro(quick))}</p>",
        "<ul>",
        *(f'<li><a href="#{esc(s.experiment.id)}">{esc(s.experiment.title)}</a></li>' for s in sections),
        "</ul>",
    ]
    for s in sections:
        e = s.experiment
        parts += [
            f'<h2 id="{esc(e.id)}">{esc(e.title)}</h2>',
            f"<p>Experiment <code>{esc(e.id)}</code>. {esc(e.description)}</p>",
            _html_table(s.table),
            f'<p><img src="{esc(s.image)}" alt="{esc(e.title)}"></p>',
            "<h3>Resolved configuration of each run</h3>",
            _html_table(s.configs),
        ]
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def _markdown(sections: Sequence[_Section], quick: bool) -> str:
    parts = [f"# {REPORT_TITLE}", _intro(quick)]
    parts += ["\n".join(f"- [{s.experiment.title}](#{s.experiment.id})" for s in sections)]
    for s in sections:
        e = s.experiment
        parts += [
            f'<a id="{e.id}"></a>\n\n## {e.title}',
            f"Experiment `{e.id}`. {e.description}",
            _markdown_table(s.table),
            f"![{e.title}]({s.image})",
            "### Resolved configuration of each run",
            _markdown_table(s.configs),
        ]
    return "\n\n".join(parts) + "\n"


def _results_csv(results: pd.DataFrame) -> str:
    as_text = results.map(lambda v: json.dumps(list(v)) if isinstance(v, (list, tuple)) else v)
    return as_text.to_csv(index=False, lineterminator="\n")


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
    execute, as for :func:`run_experiments`; the report is the same wherever they run. See the
    module documentation for the files written; the directory is created if missing and
    existing report files in it are overwritten.

    Raises:
        UnknownExperimentError: an id is not in :data:`EXPERIMENTS` (raised before any run).
        ValueError: ``experiments`` is empty.
        numaplace.sweep.SweepError: a run failed, or ``jobs``/``scheduler`` are unusable
            (raised before anything is written).
    """
    selected = _select(experiments)
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
        sections.append(_Section(e, table, _resolved_configs(runs), image))
    (out / "results.csv").write_text(_results_csv(results), encoding="utf-8")
    (out / "index.html").write_text(_html(sections, quick), encoding="utf-8")
    (out / "README.md").write_text(_markdown(sections, quick), encoding="utf-8")
    return out
