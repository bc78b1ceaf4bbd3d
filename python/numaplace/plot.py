"""Bar charts for numaplace experiments, drawn deterministically with the Agg backend.

Figures are built with the object-oriented Matplotlib API (``Figure`` plus an explicit
``FigureCanvasAgg``), never through ``pyplot``: nothing here touches global Matplotlib state,
opens a window or depends on the user's configured backend. Every figure has the same size and
resolution (:data:`FIGSIZE`, :data:`DPI`), and :func:`save_png` writes PNGs without the
"Software" metadata, so the same data always gives byte-identical files.

Helpers:

* :func:`slowdown` — the time of each run relative to the baseline run of its group.
* :func:`slowdown_bars` — grouped bars of that slowdown (e.g. placements within a workload).
* :func:`compare_bars` — simulated next to published values, one pair of bars per label.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

FIGSIZE: tuple[float, float] = (7.0, 4.0)
"""Width and height of every figure, in inches."""

DPI: int = 100
"""Resolution of every figure, in dots per inch."""

_BAR_GROUP_WIDTH = 0.8


def new_axes() -> tuple[Figure, Axes]:
    """Returns a fresh figure of the standard size, rendered by Agg, with one set of axes."""
    fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def save_png(fig: Figure, path: str | Path) -> None:
    """Writes ``fig`` to ``path`` as a PNG with fixed resolution and no software metadata."""
    fig.savefig(path, format="png", dpi=DPI, metadata={"Software": None})


def slowdown(
    df: pd.DataFrame,
    baseline: str = "first-touch",
    group: str = "workload",
    by: str = "placement",
    value: str = "total_time_ns",
) -> pd.Series:
    """Returns ``df[value]`` divided by the value of the baseline row of the same group.

    Each distinct value of column ``group`` must have exactly one row whose column ``by`` equals
    ``baseline``; that row's slowdown is 1. The result is aligned with ``df``'s index and named
    ``"slowdown"``.

    Raises:
        ValueError: a group has no baseline row, or more than one.
    """
    base_rows = df.loc[df[by] == baseline, [group, value]]
    duplicated = sorted(map(str, base_rows.loc[base_rows[group].duplicated(), group].unique()))
    if duplicated:
        raise ValueError(f"more than one {by}={baseline!r} row for {group} {', '.join(duplicated)}")
    base = base_rows.set_index(group)[value]
    missing = sorted(map(str, set(df[group]) - set(base.index)))
    if missing:
        raise ValueError(f"no {by}={baseline!r} row for {group} {', '.join(missing)}")
    return (df[value] / df[group].map(base)).rename("slowdown")


def _target(ax: Axes | None) -> tuple[Figure, Axes]:
    if ax is None:
        return new_axes()
    return ax.get_figure(root=True), ax


def _grouped_bars(ax: Axes, groups: Sequence[str], series: dict[str, Sequence[float]], fmt: str) -> None:
    """Draws one cluster of bars per group, one bar per entry of ``series``, labelled ``fmt``."""
    x = np.arange(len(groups))
    width = _BAR_GROUP_WIDTH / len(series)
    for i, (name, values) in enumerate(series.items()):
        offset = (i - (len(series) - 1) / 2) * width
        bars = ax.bar(x + offset, values, width, label=name)
        ax.bar_label(bars, fmt=fmt, fontsize="small", padding=2)
    ax.set_xticks(x, list(groups))
    ax.margins(y=0.15)


def slowdown_bars(
    df: pd.DataFrame,
    baseline: str = "first-touch",
    group: str = "workload",
    by: str = "placement",
    value: str = "total_time_ns",
    ax: Axes | None = None,
    *,
    title: str | None = None,
    ylabel: str | None = None,
) -> tuple[Figure, Axes]:
    """Plots the :func:`slowdown` of every row, bars clustered by ``group`` and coloured by ``by``.

    Groups and bars appear in the order they first occur in ``df``. A dashed line marks 1 (the
    baseline). ``title`` and ``ylabel`` default to texts naming ``baseline``, ``by`` and
    ``value``. Draws on ``ax`` if given, else on a new standard figure; returns the figure and
    the axes.

    Raises:
        ValueError: as :func:`slowdown`, or a (group, by) pair occurs more than once.
    """
    frame = df[[group, by]].assign(slowdown=slowdown(df, baseline, group, by, value))
    if frame.duplicated([group, by]).any():
        raise ValueError(f"more than one row per ({group}, {by}) pair")
    groups = list(pd.unique(frame[group]))
    table = frame.pivot(index=group, columns=by, values="slowdown").reindex(groups)
    series = {str(name): table[name].tolist() for name in pd.unique(frame[by])}
    fig, ax = _target(ax)
    _grouped_bars(ax, [str(g) for g in groups], series, fmt="%.2f")
    ax.axhline(1.0, color="black", linestyle="--", linewidth=0.8)
    ax.set_xlabel(group)
    ax.set_ylabel(ylabel or f"{value} relative to {baseline} (×)")
    ax.set_title(title or f"Slowdown relative to {by} {baseline}")
    ax.legend(title=by, fontsize="small")
    return fig, ax


def compare_bars(
    labels: Sequence[str],
    simulated: Sequence[float],
    published: Sequence[float],
    *,
    title: str = "Simulated and published values",
    xlabel: str = "",
    ylabel: str = "value",
    ax: Axes | None = None,
) -> tuple[Figure, Axes]:
    """Plots ``simulated`` next to ``published``, one pair of bars per label.

    Draws on ``ax`` if given, else on a new standard figure; returns the figure and the axes.

    Raises:
        ValueError: the three sequences differ in length.
    """
    if not len(labels) == len(simulated) == len(published):
        raise ValueError(
            f"labels, simulated and published differ in length ({len(labels)}, {len(simulated)}, {len(published)})"
        )
    fig, ax = _target(ax)
    _grouped_bars(ax, list(labels), {"simulated": simulated, "published": published}, fmt="%.2f")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small")
    return fig, ax
