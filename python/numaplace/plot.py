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
* :func:`iteration_series` — per-iteration time of several runs, one line per run.
* :func:`factor_grid` — a grid of small bar charts for three factors, e.g. the 2×2×2 design
  init × migration × replication: one panel per (row, column) level, one bar per level of the
  third factor.

The last two take a sweep's table (:func:`numaplace.sweep.run_sweep`) or any DataFrame with
the named columns.

Style, declared once here: series take their colours from :data:`PALETTE` (Okabe–Ito, safe for
the common colour-vision deficiencies) and, for bars, a hatch from :data:`HATCHES` (lines a
marker from :data:`MARKERS`), so that series stay distinct in grey and when there are many.
Legends go below the axes (:func:`legend_below`), never over the data; published values are
drawn as black diamonds (:func:`published_points`), published ranges as black bars with caps
(:func:`published_ranges`) or, for a range that applies to the whole chart, a grey band
(:func:`published_band`), all labelled "published". :func:`legend_overlaps` measures a figure
and names every legend that overlaps a data artist (the report's tests use it).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine

FIGSIZE: tuple[float, float] = (7.0, 4.0)
"""Width and height of every figure, in inches."""

DPI: int = 100
"""Resolution of every figure, in dots per inch."""

_BAR_GROUP_WIDTH = 0.8

PALETTE: tuple[str, ...] = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000")
"""Series colours: the Okabe–Ito palette (orange, sky blue, bluish green, yellow, blue,
vermillion, reddish purple, black), distinguishable with the common colour-vision deficiencies."""

HATCHES: tuple[str, ...] = ("", "///", "...", "xxx", "\\\\\\", "ooo", "+++", "---")
"""Bar hatches, one per series beside its colour (series ``i`` gets ``HATCHES[i % len]``)."""

MARKERS: tuple[str, ...] = ("o", "s", "^", "D", "v", "P", "X", "*")
"""Line markers, one per series beside its colour."""

PUBLISHED_STYLE: dict[str, Any] = {"color": "black", "zorder": 4}
"""How published values are drawn over the simulated ones (black, above the bars)."""


def new_axes() -> tuple[Figure, Axes]:
    """Returns a fresh figure of the standard size, rendered by Agg, with one set of axes."""
    fig = Figure(figsize=FIGSIZE, dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def save_png(fig: Figure, path: str | Path, what: str = "PNG") -> None:
    """Writes ``fig`` to ``path`` as a PNG with fixed resolution and no software metadata, by
    the one writer (:func:`numaplace.outfile.write_output`; ``what`` names the file in its errors)."""
    from numaplace.outfile import write_output

    write_output(path, what, png_bytes(fig))


def png_bytes(fig: Figure) -> bytes:
    """``fig`` as PNG bytes (what :func:`save_png` writes): fixed resolution, no software metadata."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    return buf.getvalue()


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


def series_style(i: int) -> dict[str, Any]:
    """The colour and hatch of bar series ``i`` (:data:`PALETTE`, :data:`HATCHES`)."""
    return {"color": PALETTE[i % len(PALETTE)], "hatch": HATCHES[i % len(HATCHES)], "edgecolor": "#333333", "linewidth": 0.5}


def grouped_bars(
    ax: Axes, groups: Sequence[str], series: dict[str, Sequence[float]], fmt: str | None = None
) -> dict[str, np.ndarray]:
    """Draws one cluster of bars per group on ``ax``, one bar per entry of ``series`` (its
    values in group order, its key as the legend label), styled by :func:`series_style`; with
    ``fmt``, each bar is labelled with its value. Returns each series' bar centres (x), in
    group order, for drawing published values on them."""
    x = np.arange(len(groups))
    width = bar_width(len(series))
    centres = {}
    for i, (name, values) in enumerate(series.items()):
        offset = (i - (len(series) - 1) / 2) * width
        bars = ax.bar(x + offset, values, width, label=name, **series_style(i))
        centres[name] = x + offset
        if fmt is not None:
            ax.bar_label(bars, fmt=fmt, fontsize="small", padding=2)
    ax.set_xticks(x, list(groups))
    ax.margins(y=0.15)
    return centres


def published_points(
    ax: Axes, xs: Sequence[float], values: Sequence[float], label: str = "published", width: float | None = None
) -> None:
    """Marks published values: a black diamond at each (x, value); NaN values are skipped. With
    ``width`` (a bar's width, :func:`bar_width`), each diamond sits on a black line across its
    bar, so that among a cluster's bars the one a published value belongs to is plain."""
    xs_, ys = np.asarray(xs, dtype=float), np.asarray(values, dtype=float)
    keep = ~np.isnan(ys)
    if width is not None:
        ax.hlines(ys[keep], xs_[keep] - width / 2, xs_[keep] + width / 2, linewidth=2, **PUBLISHED_STYLE)
    ax.plot(xs_[keep], ys[keep], linestyle="none", marker="D", markersize=6, markerfacecolor="white",
            markeredgewidth=1.5, label=label, **PUBLISHED_STYLE)


def bar_width(series: int) -> float:
    """The width of each bar :func:`grouped_bars` draws with ``series`` bars per cluster."""
    return _BAR_GROUP_WIDTH / series


def published_ranges(
    ax: Axes, xs: Sequence[float], lows: Sequence[float], highs: Sequence[float], label: str = "published range"
) -> None:
    """Marks published ranges: a black vertical bar with caps from low to high at each x."""
    xs_ = np.asarray(xs, dtype=float)
    lo, hi = np.asarray(lows, dtype=float), np.asarray(highs, dtype=float)
    mid = (lo + hi) / 2
    ax.errorbar(xs_, mid, yerr=[mid - lo, hi - mid], fmt="none", capsize=3, elinewidth=1.5, label=label,
                ecolor=PUBLISHED_STYLE["color"], zorder=PUBLISHED_STYLE["zorder"])


def baseline_line(ax: Axes, y: float = 1.0) -> None:
    """A dashed black line across the axes at ``y`` (the baseline of a relative chart)."""
    ax.axhline(y, color="black", linestyle="--", linewidth=0.8)


def published_band(ax: Axes, low: float, high: float, label: str = "published range") -> None:
    """Marks a published range that applies to the whole chart: a grey band behind the data."""
    ax.axhspan(low, high, color="#999999", alpha=0.2, zorder=0, linewidth=0, label=label)


def legend_below(fig: Figure, axes: Axes | Sequence[Axes] | np.ndarray, title: str | None = None, ncol: int | None = None) -> None:
    """One legend for ``axes`` (labels in first-seen order, duplicates once), outside every
    data area: centred below them in the figure when they are all of a figure with constrained
    layout (which makes room, as :func:`new_axes`' figures have); otherwise (axes the caller
    placed in a figure of their own) beside the single axes, to the right of it."""
    handles: dict[str, Any] = {}
    targets = list(np.atleast_1d(np.asarray(axes, dtype=object)).ravel())
    for ax in targets:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    if not handles:
        return
    constrained = isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)
    if not constrained or set(map(id, targets)) != set(map(id, fig.axes)):
        targets[-1].legend(list(handles.values()), list(handles), loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                           fontsize="small", title=title, title_fontsize="small", frameon=False)
        return
    # As many columns as fit the figure's width (about 6 px a character at this font size,
    # plus the handle), balanced over the rows.
    n = len(handles)
    fits = max(1, int(fig.get_figwidth() * DPI / 6.5 // (max(map(len, handles)) + 8)))
    rows = int(np.ceil(n / min(n, fits, 5)))
    cols = ncol or int(np.ceil(n / rows))
    fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncol=cols, fontsize="small",
               title=title, title_fontsize="small", frameon=False)


def _data_extents(ax: Axes, renderer: Any) -> list[tuple[str, Any]]:
    """The window extents of ``ax``'s data artists (bars and other patches, lines, collections
    such as error bars, and value labels), clipped to the axes; empty ones left out."""
    from matplotlib.transforms import Bbox

    out = []
    artists = [*ax.patches, *ax.lines, *ax.collections, *ax.texts]
    for artist in artists:
        if not artist.get_visible():
            continue
        box = artist.get_window_extent(renderer)
        if not np.all(np.isfinite(box.get_points())):
            continue
        clipped = Bbox.intersection(box, ax.bbox)
        if clipped is None or clipped.width <= 0 or clipped.height <= 0:
            if box.width > 0 or box.height > 0:  # a horizontal or vertical line has no area
                clipped = Bbox.intersection(box.expanded(1.0, 1.0).padded(0.5), ax.bbox)
            if clipped is None or clipped.width <= 0 or clipped.height <= 0:
                continue
        label = str(artist.get_label() or "")
        out.append((f"{type(artist).__name__} {'' if label.startswith('_') else label}".strip(), clipped))
    return out


REPORT_COLUMN_PX: int = 960
"""The width, in CSS pixels, of the report's text column (``numaplace.report.pages`` sets its
``max-width`` from it); a figure wider than this is shown scaled down to it."""

MIN_TEXT_PX: float = 10.0
"""The smallest text a chart may show in the report, in CSS pixels as displayed (issue 34: the
charts readable at 1280 px, labels of at least 10 px)."""


def smallest_text(fig: Figure, shown_px: float | None = None) -> tuple[float, str]:
    """The smallest visible text of ``fig`` (drawing it) as displayed ``shown_px`` CSS pixels
    wide (default: the figure's own width in pixels, capped at :data:`REPORT_COLUMN_PX`, as
    the report shows it): its height in pixels and the text itself."""
    from matplotlib.text import Text

    fig.canvas.draw()
    width = fig.get_figwidth() * DPI
    scale = (shown_px if shown_px is not None else min(width, REPORT_COLUMN_PX)) / width
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip() and _drawn(t)]
    if not texts:
        return math.inf, ""
    size, text = min((t.get_fontsize() * DPI / 72 * scale, t.get_text()) for t in texts)
    return float(size), text


def _drawn(t: Any) -> bool:
    """Whether visible text ``t`` is drawn where a reader sees it: it has an extent and lies
    inside the figure (matplotlib keeps tick labels of ticks outside the view "visible")."""
    box = t.get_window_extent()
    fig = t.get_figure(root=True)
    return bool(box.width > 0 and box.height > 0 and fig.bbox.overlaps(box))


def legend_overlaps(fig: Figure) -> list[str]:
    """Measures ``fig`` (drawing it) and returns one line per legend overlapping a data artist
    of any of its axes (see :func:`_data_extents`) or reaching beyond the figure's edge (cut
    off in the PNG): empty when every legend is whole and covers no data."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    found = []
    for legend in legends:
        box = legend.get_window_extent(renderer)
        edge = fig.bbox
        if box.x0 < edge.x0 - 0.5 or box.y0 < edge.y0 - 0.5 or box.x1 > edge.x1 + 0.5 or box.y1 > edge.y1 + 0.5:
            found.append(f"legend {legend.get_title().get_text()!r} reaches beyond the figure ({box.bounds} in {edge.bounds})")
        for i, ax in enumerate(fig.axes):
            for name, extent in _data_extents(ax, renderer):
                if box.overlaps(extent):
                    found.append(f"legend {legend.get_title().get_text()!r} overlaps {name} of axes {i} ({ax.get_title()!r})")
    return found


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
    published: dict[str, tuple[float, float]] | None = None,
    published_label: str = "published range",
) -> tuple[Figure, Axes]:
    """Plots the :func:`slowdown` of every row, bars clustered by ``group`` and coloured by ``by``.

    Groups and bars appear in the order they first occur in ``df``. A dashed line marks 1 (the
    baseline). ``title`` and ``ylabel`` default to texts naming ``baseline``, ``by`` and
    ``value``. ``published`` maps levels of ``by`` to a published (low, high) slowdown, drawn
    on each of that level's bars (:func:`published_ranges`, labelled ``published_label``).
    Draws on ``ax`` if given, else on a new standard figure; returns the figure and the axes.

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
    centres = grouped_bars(ax, [str(g) for g in groups], series, fmt="%.2f")
    baseline_line(ax)
    ranges = [(centres[str(level)], lo_hi) for level, lo_hi in (published or {}).items() if str(level) in centres]
    if ranges:
        xs = np.concatenate([x for x, _ in ranges])
        lows = np.concatenate([np.full(len(x), lo) for x, (lo, _) in ranges])
        highs = np.concatenate([np.full(len(x), hi) for x, (_, hi) in ranges])
        published_ranges(ax, xs, lows, highs, label=published_label)
    ax.set_xlabel(group)
    ax.set_ylabel(ylabel or f"{value} relative to {baseline} (×)")
    ax.set_title(title or f"Slowdown relative to {by} {baseline}")
    legend_below(fig, ax, title=by)
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
    """Plots ``simulated`` as bars, one per label, with ``published`` as diamonds on them.

    Draws on ``ax`` if given, else on a new standard figure; returns the figure and the axes.

    Raises:
        ValueError: the three sequences differ in length.
    """
    if not len(labels) == len(simulated) == len(published):
        raise ValueError(
            f"labels, simulated and published differ in length ({len(labels)}, {len(simulated)}, {len(published)})"
        )
    fig, ax = _target(ax)
    centres = grouped_bars(ax, list(labels), {"simulated": simulated})
    ax.bar_label(ax.containers[-1], labels=[f"simulated {v:.2f}" for v in simulated], label_type="center", fontsize="small")
    published_points(ax, centres["simulated"], published)
    for x, y in zip(centres["simulated"], published):
        ax.annotate(f"published {y:.2f}", (x, y), xytext=(8, 0), textcoords="offset points", va="center", fontsize="small")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    legend_below(fig, ax)
    return fig, ax


def _label_columns(df: pd.DataFrame, label: str | Sequence[str] | None) -> list[str]:
    if isinstance(label, str):
        return [label]
    if label is not None:
        return list(label)
    # Default: the run inputs (a sweep's option columns, a report's request.* columns) that vary.
    from numaplace.sweep import OPTIONS

    inputs = [c for c in df.columns if c in OPTIONS or str(c).startswith("request.")]
    varying = [c for c in inputs if df[c].astype(str).nunique() > 1]
    return varying or (["run"] if "run" in df.columns else [])


def _as_list(value: Any) -> list[float]:
    if isinstance(value, str):
        value = json.loads(value)
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return []
    return [float(v) for v in value]


def iteration_series(
    df: pd.DataFrame,
    label: str | Sequence[str] | None = None,
    value: str = "per_iteration_time_ns",
    ax: Axes | None = None,
    *,
    scale: float = 1e-6,
    title: str | None = None,
    ylabel: str | None = None,
) -> tuple[Figure, Axes]:
    """Plots ``df[value]`` (a list per row, e.g. ``per_iteration_time_ns``) as one line per row.

    The x axis is the iteration (1, 2, ...); values are multiplied by ``scale`` (default: ns
    to ms). Each line is labelled by the ``label`` column(s), ``name=value`` joined by commas;
    by default, by the input columns that vary between rows (a sweep's option columns or a
    report's ``request.*`` columns). Lists may also be JSON text, as in a sweep's CSV file.
    Rows without values (failed runs) are skipped.
    Draws on ``ax`` if given, else on a new standard figure; returns the figure and the axes.

    Raises:
        KeyError: a named column is missing.
    """
    columns = _label_columns(df, label)
    missing = [c for c in [value, *columns] if c not in df.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r} in the frame")
    fig, ax = _target(ax)
    drawn = 0
    for _, row in df.iterrows():
        ys = _as_list(row[value])
        if not ys:
            continue
        name = ", ".join(f"{c}={row[c]}" for c in columns)
        ax.plot(np.arange(1, len(ys) + 1), np.asarray(ys) * scale, marker=MARKERS[drawn % len(MARKERS)], markersize=4,
                color=PALETTE[drawn % len(PALETTE)], linestyle=("-", "--", ":", "-.")[drawn // len(PALETTE) % 4], label=name)
        drawn += 1
    ax.set_xlabel("iteration")
    ax.set_ylabel(ylabel or (f"{value} (ms)" if scale == 1e-6 else value))
    ax.set_title(title or "Time per iteration")
    ax.xaxis.get_major_locator().set_params(integer=True)
    legend_below(fig, ax)
    return fig, ax


def factor_grid(
    df: pd.DataFrame,
    row: str,
    col: str,
    bar: str,
    value: str = "total_time_ns",
    *,
    scale: float = 1e-6,
    sharey: bool = True,
    title: str | None = None,
    ylabel: str | None = None,
) -> tuple[Figure, np.ndarray]:
    """Draws a grid of small bar charts: one panel per (``row``, ``col``) level, one bar per ``bar`` level.

    Made for 2×2×2 designs with three binary factors (e.g. ``row="init"``, ``col="migration"``,
    ``bar="replication"``), it accepts any number of levels; levels appear in the order they
    first occur in ``df``. Each (row, col, bar) combination must occur at most once; a missing
    one leaves its bar out. Values are multiplied by ``scale`` (default: ns to ms) and share
    one y axis unless ``sharey`` is false. Returns the figure and the 2-D array of axes
    (``axes[i, j]``).

    Raises:
        KeyError: a named column is missing.
        ValueError: a combination occurs more than once.
    """
    missing = [c for c in (row, col, bar, value) if c not in df.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r} in the frame")
    if df.duplicated([row, col, bar]).any():
        raise ValueError(f"more than one row per ({row}, {col}, {bar}) combination")
    rows, cols, bars = (list(pd.unique(df[c])) for c in (row, col, bar))
    fig = Figure(figsize=(FIGSIZE[0], FIGSIZE[1] * max(1, len(rows)) / 1.5), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(rows), len(cols), sharey=sharey, squeeze=False)
    styles = [series_style(i) for i in range(len(bars))]
    x = np.arange(len(bars))
    for i, r in enumerate(rows):
        for j, c in enumerate(cols):
            ax = axes[i, j]
            cell = df.loc[(df[row] == r) & (df[col] == c)]
            heights = [
                float(cell.loc[cell[bar] == b, value].iloc[0]) * scale if (cell[bar] == b).any() else np.nan
                for b in bars
            ]
            drawn = ax.bar(x, heights, color=[st["color"] for st in styles], edgecolor="#333333", linewidth=0.5)
            for patch, st in zip(drawn, styles):
                patch.set_hatch(st["hatch"])
            ax.bar_label(drawn, fmt="%.3g", fontsize="small", padding=2)
            ax.set_xticks(x, [str(b) for b in bars], fontsize="small")
            ax.set_title(f"{row}={r}\n{col}={c}", fontsize="small")
            ax.margins(y=0.2)
            if j == 0:
                ax.set_ylabel(ylabel or (f"{value} (ms)" if scale == 1e-6 else value), fontsize="small")
            if i == len(rows) - 1:
                ax.set_xlabel(bar, fontsize="small")
    fig.suptitle(title or f"{value} by {row} × {col} × {bar}")
    return fig, axes


def allocation_timeline(timeline: pd.DataFrame, cpus: int | None = None, ax: Axes | None = None) -> Figure:
    """A system run's processor allocation over time (``Result.timeline()``: ``time_ns``,
    ``job``, ``cpus``): each job's thread count stacked, as steps, with the machine's CPUs
    (``cpus``) as a dashed line. Jobs take the palette's colours in turn."""
    fig, ax = _target(ax)
    times = sorted(set(timeline["time_ns"].tolist()))
    jobs = sorted(set(timeline["job"].tolist()))
    level = {j: 0 for j in jobs}
    changes = {t: [] for t in times}
    for t, j, c in timeline[["time_ns", "job", "cpus"]].itertuples(index=False):
        changes[t].append((j, c))
    rows = []
    for t in times:
        for j, c in changes[t]:
            level[j] = c
        rows.append([level[j] for j in jobs])
    x = np.asarray(times, dtype=float) / 1e9
    y = np.asarray(rows, dtype=float).T if rows else np.zeros((0, 0))
    if len(x):
        colours = [PALETTE[i % len(PALETTE)] for i in range(len(jobs))]
        ax.stackplot(x, y, step="post", colors=colours, linewidth=0)
    if cpus is not None:
        ax.axhline(cpus, color="black", linestyle="--", linewidth=0.8, label=f"{cpus} CPUs")
        ax.legend(loc="upper right", fontsize="small", frameon=False)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("CPUs allocated (stacked by job)")
    ax.set_title(f"processor allocation, {len(jobs)} jobs", fontsize="medium")
    return fig
