"""An :class:`~numaplace.advice.Advice` as text (:meth:`AdviceView.format`, what ``numaplace
advise`` prints) and as a chart (:meth:`AdviceView.plot`, its ``--plot``): the methods
:class:`~numaplace.advice.Advice` inherits, written against its fields and picks."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from numaplace import _native, diagnose
from numaplace.advice.plan import AdviceError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

combo = diagnose.combo
"""A combination's short name (:func:`diagnose.combo`)."""


def _ms(ns: float) -> str:
    return f"{ns / 1e6:,.3f}"


def _pp(x: float) -> str:
    return f"{round(x * 100, 1) + 0.0:+.1f} pp"  # + 0.0: no "-0.0"


def _pct(x: float) -> str:
    return f"{round(x * 100, 1) + 0.0:+.1f}%"


def _multi_node_example() -> str:
    multi = [m["name"] for m in json.loads(_native.machines()) if m["nodes"] > 1]
    return multi[0] if multi else "a multi-node preset"


class AdviceView:
    """The text and chart of an advice. :class:`~numaplace.advice.Advice` is one: the methods
    read its fields (``table``, ``notes``, ``trace_info``...) and picks (``best``, ``bound``...)."""

    # The fields and picks read here (and _bound_mask(), depends()), declared by Advice.
    table: Any
    notes: list[str]
    trace: str
    machine: str
    nodes: int
    cpus: int
    seed: int
    detected: bool
    trace_info: dict[str, Any]
    diagnosis: list[diagnose.ObjectDiagnosis]
    objects: dict[str, Any] | None
    one_node: bool
    best: dict[str, Any] | None
    best_runnable: dict[str, Any] | None
    bound: dict[str, Any] | None
    current: dict[str, Any] | None
    command: str | None
    numactl: str | None
    gain: float | None
    change_nothing: bool

    def _what(self) -> str:
        kind = "this host, detected" if self.detected else "simulated"
        return f"{self.machine} ({self.nodes} node{'s' if self.nodes != 1 else ''}, {self.cpus} CPUs; {kind})"

    def format(self, top: int | None = None) -> str:
        """The printed advice: a header, the ranked table (the first ``top`` rows, and the bound
        and best runnable rows wherever they rank; all rows if ``top`` is None or 0), the picks,
        the ``numaplace run`` command and the notes."""
        if self.one_node:
            who = f"This host ({self.machine}, detected" if self.detected else f"Machine {self.machine} ("
            return (
                f"{who}{', ' if self.detected else ''}{self.cpus} CPUs) has one NUMA node: every page is local under every"
                " placement and policy, so there is nothing to choose.\n"
                "(To advise for a machine with several nodes, pass --machine: a preset such as"
                f" {_multi_node_example()} or a machine file.)\n"
            )
        i = self.trace_info
        lines = [
            f"trace    {self.trace}: {i['threads']} threads, {i['pages']:,} pages of {i['page_size'] // 1024} KiB,"
            f" {i['iterations']} iterations, {i['transactions']:,} transactions",
            f"machine  {self._what()}, seed {self.seed}",
            f"ran      {len(self.table)} combinations of placement, dynamic policy and binding",
            "",
        ]
        lines += self._diagnosis_lines()
        marks: dict[str, int] = {}
        notes: list[str] = []

        def mark(reason: str) -> str:
            if reason not in marks:
                notes.append(reason)
                marks[reason] = len(notes)
            return f"[{marks[reason]}]"

        t = self.table
        bound = self.bound
        shown = t if not top else t[(t["rank"] <= top) | self._bound_mask() | t["current"]
                                    | (t["rank"] == (self.best_runnable or {}).get("rank"))]
        head = ["rank", "placement", "dynamic", "binding", "time (ms)", "vs best", "local", "local vs bound", "time vs bound",
                "migrations", "runs on", ""]
        rows, last = [], 0
        for r in shown.to_dict("records"):
            if r["rank"] != last + 1:
                rows.append(["..."] + [""] * (len(head) - 1))
            last = r["rank"]
            is_bound = bound is not None and r["rank"] == bound["rank"]
            rows.append(
                [
                    str(r["rank"]),
                    r["placement"],
                    r["dynamic"],
                    r["binding"],
                    _ms(r["time_ns"]),
                    f"{r['slowdown']:.3f}x",
                    f"{r['local_fraction']:.1%}",
                    "bound" if is_bound else _pp(r["local_vs_bound"]),
                    "bound" if is_bound else _pct(r["time_vs_bound"]),
                    f"{r['migrations']:,}",
                    "runtime" if r["runnable"] else f"sim only {mark(r['why_not_runnable'])}",
                    "<- current" if r["current"] else "",
                ]
            )
        if top and last < len(t):
            rows.append(["..."] + [""] * (len(head) - 1))
        right = {0, 4, 5, 6, 7, 8, 9}
        widths = [max(len(x[k]) for x in [head, *rows]) for k in range(len(head))]
        for x in [head, *rows]:
            lines.append("  ".join(c.rjust(w) if k in right else c.ljust(w) for k, (c, w) in enumerate(zip(x, widths))).rstrip())
        if top and len(shown) < len(t):
            lines.append(f"({len(t) - len(shown)} more rows: --top 0 shows every row, --csv writes them)")
        lines.append("")
        best, br = self.best, self.best_runnable
        lines.append(f"best overall   {combo(best)}: {_ms(best['time_ns'])} ms, {best['local_fraction']:.1%} local"
                     + ("" if best["runnable"] else " (simulator only)"))
        if br is None:
            lines.append("best runnable  none of these combinations can run under the runtime")
        elif br["rank"] == best["rank"]:
            lines.append("best runnable  the same")
        else:
            lines.append(f"best runnable  {combo(br)}: {_ms(br['time_ns'])} ms, {br['local_fraction']:.1%} local"
                         f" ({br['slowdown']:.3f}x the best)")
        if bound is not None:
            lines.append(
                f"bound          {combo(bound)}: {bound['local_fraction']:.1%} local (no static placement has more),"
                f" {_ms(bound['time_ns'])} ms"
            )
        cur = self.current
        if cur is not None:
            lines.append(f"current        {combo(cur)}, {cur['binding']} (as recorded): {_ms(cur['time_ns'])} ms,"
                         f" {cur['local_fraction']:.1%} local")
        lines += ["", *self._advice_lines()]
        depends = self.depends()
        if depends:
            lines += ["", "the advice depends on"] + [f"  - {d}" for d in depends]
        all_notes = notes + [n for n in self.notes if n not in marks]
        if all_notes:
            lines += ["", "notes"]
            lines += [f"  [{k}] {n}" for k, n in enumerate(all_notes, 1)]
        return "\n".join(lines) + "\n"

    def _diagnosis_lines(self) -> list[str]:
        return diagnose.lines(self.diagnosis)

    def _advice_lines(self) -> list[str]:
        br, gain = self.best_runnable, self.gain
        if br is None:
            return ["advice         none of these combinations can run under the runtime"]
        if self.change_nothing:
            g = "" if gain is None else f" saves {gain:.1%} of the current set-up's time,"
            return [f"advice         change nothing: the best runnable combination ({combo(br)}, {br['binding']}){g}"
                    f" below the {diagnose.WORTH_IT:.0%} worth-it threshold"]
        out = [f"advice         {combo(br)}, {br['binding']}: saves {gain:.1%} of the current set-up's simulated time",
               "to apply it to the program:", f"  {self.command}"]
        if self.numactl:
            out += ["or with numactl alone:", f"  {self.numactl}"]
        return out

    def plot(self, top: int = 12, heatmaps: int = 2) -> Figure:
        """A dot chart of the ``top`` fastest combinations' times (and the bound's and the
        current set-up's, wherever they rank), fastest at the top: colour and marker say whether
        the runtime can run each, a ring marks the current set-up, a label its local share, and
        a dashed line marks the bound's time. Dots, not bars: the times often differ by a
        percent, which bars from zero would hide. Beside it, for the ``heatmaps`` data objects
        that lose the most, where their accesses come from over the run (page by epoch,
        coloured by the node that made them: :func:`diagnose.heatmap`)."""
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure as Fig

        from numaplace.plot import DPI, FIGSIZE, MARKERS, PALETTE

        t = self.table
        if t.empty:
            raise AdviceError("nothing to plot: the machine has one node, so there is nothing to choose")
        maps = [d.name for d in self.diagnosis if d.verdict != "fine"][:heatmaps] if self.objects else []
        fig = Fig(figsize=(FIGSIZE[0] * (1.0 + 0.45 * len(maps)), FIGSIZE[1]), dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        grid = fig.add_gridspec(len(maps) or 1, 2 if maps else 1, width_ratios=[2.2, 1] if maps else [1])
        ax = fig.add_subplot(grid[:, 0])
        shown = t[(t["rank"] <= top) | self._bound_mask() | t["current"]]
        rows = shown.to_dict("records")[::-1]  # the fastest at the top
        is_bound = list(self._bound_mask()[shown.index])[::-1]
        kinds = ["bound" if b else "runtime" if r["runnable"] else "simulator only" for r, b in zip(rows, is_bound)]
        for i, kind in enumerate(("runtime", "simulator only", "bound")):
            ys = [y for y, k in enumerate(kinds) if k == kind]
            if ys:
                ax.scatter([rows[y]["time_ns"] / 1e6 for y in ys], ys, label=kind, color=PALETTE[i], marker=MARKERS[i], zorder=3)
        cur = [y for y, r in enumerate(rows) if r["current"]]
        if cur:
            ax.scatter([rows[y]["time_ns"] / 1e6 for y in cur], cur, s=180, facecolors="none", edgecolors=PALETTE[7],
                       linewidths=1.2, label="current set-up (as recorded)", zorder=4)
        for y, r in enumerate(rows):
            ax.annotate(f"{r['local_fraction']:.0%} local", (r["time_ns"] / 1e6, y), xytext=(6, 0), textcoords="offset points",
                        va="center", fontsize="x-small")
        ax.set_yticks(range(len(rows)), [f"{r['rank']}. {combo(r)}, {r['binding']}" for r in rows], fontsize="small")
        ax.grid(axis="y", color="#dddddd", linewidth=0.5)
        lo, hi = min(r["time_ns"] for r in rows) / 1e6, max(r["time_ns"] for r in rows) / 1e6
        pad = (hi - lo) * 0.15 or hi * 0.01
        ax.set_xlim(lo - pad, hi + 2.5 * pad)  # room for the labels on the right
        bound = self.bound
        if bound is not None:
            ax.axvline(bound["time_ns"] / 1e6, color=PALETTE[7], linestyle="--", linewidth=1, label=f"bound's time ({combo(bound)})")
        ax.set_xlabel("simulated time (ms)")
        ax.set_title(f"{os.path.basename(self.trace)} on {self.machine}: fastest combinations", fontsize="medium")
        ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.12), ncols=2, frameon=False)
        for k, name in enumerate(maps):
            assert self.objects is not None
            diagnose.heatmap(fig.add_subplot(grid[k, 1]), self.objects, name)
        if maps:
            fig.text(1.0, 0.0, "heat maps: colour = node that made most of a cell's accesses, shade = how many",
                     ha="right", va="bottom", fontsize="x-small")
        return fig

