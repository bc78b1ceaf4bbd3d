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


def _mib(nbytes: float) -> str:
    """A size in MiB, with as many decimals as a small one needs (``0.24 MiB``, ``7.8 MiB``, ``220 MiB``)."""
    x = nbytes / 2**20
    return f"{x:,.0f} MiB" if x >= 100 or x == int(x) else f"{x:.1f} MiB" if x >= 1 else f"{x:.3g} MiB"


def _aligned(head: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    """A table as text lines: columns padded to their widest cell, ``right`` ones right-aligned."""
    widths = [max(len(x[k]) for x in [head, *rows]) for k in range(len(head))]
    return ["  ".join(c.rjust(w) if k in right else c.ljust(w) for k, (c, w) in enumerate(zip(x, widths))).rstrip()
            for x in [head, *rows]]


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
    tiers: dict[str, Any] | None
    fast_needed: dict[str, Any] | None
    tiering_verdict: dict[str, Any] | None

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
        if self.tiers is not None:
            lines += ["", *self._tier_lines(mark)]
        depends = self.depends()
        if depends:
            lines += ["", "the advice depends on"] + [f"  - {d}" for d in depends]
        all_notes = notes + [n for n in self.notes if n not in marks]
        if all_notes:
            lines += ["", "notes"]
            lines += [f"  [{k}] {n}" for k, n in enumerate(all_notes, 1)]
        return "\n".join(lines) + "\n"

    def _tier_lines(self, mark: Any) -> list[str]:
        """The tiered part (:mod:`numaplace.advice.tiers`): the tiering policies ranked at the
        declared capacity beside all fast, the capacity curve, the fast memory needed and the
        verdict. ``mark`` numbers a reason in the notes."""
        from numaplace.advice import tiers as tp

        d = self.tiers
        assert d is not None
        size = lambda pages: _mib(pages * d["page_size"])  # noqa: E731
        lines = [f"tiers    first-touch, {d['binding']}: the fast tier as declared holds {size(d['declared_fast_pages'])};"
                 f" the trace's footprint is {size(d['footprint_pages'])}"]
        t = d["tiering"]
        head = ["rank", "dynamic", "time (ms)", "vs no policy", "fast share", "migrations", "runs on"]
        rows = []
        for r in t.to_dict("records"):
            ref = bool(r["reference"])
            rows.append(["-" if ref else str(r["rank"]), r["dynamic"], _ms(r["time_ns"]), _pct(r["vs_no_policy"]),
                         f"{r['fast_fraction']:.1%}", f"{r['migrations']:,}",
                         "reference: the fast tier as large as the whole machine" if ref
                         else "runtime" if r["runnable"] else f"sim only {mark(r['why_not_runnable'])}"])
        lines += _aligned(head, rows, {0, 2, 3, 4, 5})
        c = d["capacity_curve"]
        if not c.empty:
            dys = list(dict.fromkeys(c["dynamic"]))
            lines += ["", "time (ms) against the fast tier's capacity (vs all fast):"]
            head = ["fast tier", "of footprint", *dys]
            rows = []
            for pages, at in c.groupby("fast_pages", sort=True):
                by = {r["dynamic"]: r for r in at.to_dict("records")}
                rows.append([size(int(pages)), str(at["fraction"].iloc[0]),
                             *[f"{_ms(by[x]['time_ns'])} ({_pct(by[x]['vs_all_fast'])})" if x in by else "-" for x in dys]])
            lines += _aligned(head, rows, set(range(len(head))) - {1})
        needed = self.fast_needed
        if needed is None:
            lines.append(f"needs    not found on the grid: no capacity up to the whole footprint ({size(d['footprint_pages'])})"
                         f" comes within {tp.WITHIN:.0%} of all fast")
        else:
            lines.append(f"needs    {size(int(needed['fast_pages']))} of fast memory ({needed['fraction']} of the footprint):"
                         f" the fastest run there ({needed['dynamic']}) is within {tp.WITHIN:.0%} of all fast"
                         f" ({_pct(needed['vs_all_fast'])})")
        v = self.tiering_verdict
        fits = d["footprint_pages"] <= d["declared_fast_pages"]
        if fits:
            lines.append("fits     the whole footprint fits in the fast tier as declared: at that capacity a tiering policy"
                         " has nothing to move")
        if v is None:
            lines.append("tiering  no tiering policy ran: nothing to compare")
        elif v["no_policy_best"]:
            lines.append(f"tiering  leave it off: no policy is the fastest at the declared capacity (the best tiering policy,"
                         f" {v['best_policy']}: {_pct(-v['saves'])} time)")
        elif v["worth_it"]:
            lines.append(f"tiering  turn it on: {v['best_policy']} saves {v['saves']:.1%} of no policy's time at the declared"
                         f" capacity (worth it from {v['threshold']:.0%})")
        else:
            lines.append(f"tiering  leave it off: {v['best_policy']} saves only {v['saves']:.1%} of no policy's time at the"
                         f" declared capacity, below the {v['threshold']:.0%} worth-it threshold")
        return lines

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
        curve = self.tiers is not None and not self.tiers["capacity_curve"].empty
        ratios = [2.2] + ([1.0] if maps else []) + ([1.4] if curve else [])
        width = 1.0 + 0.45 * len(maps) + (0.65 if curve else 0.0)
        fig = Fig(figsize=(FIGSIZE[0] * width, FIGSIZE[1]), dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        grid = fig.add_gridspec(len(maps) or 1, len(ratios), width_ratios=ratios if len(ratios) > 1 else [1])
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
        if curve:
            self._plot_curve(fig.add_subplot(grid[:, len(ratios) - 1]))
        return fig

    def _plot_curve(self, ax: Any) -> None:
        """The capacity curve: time against the fast tier's capacity (log scale), a line per
        dynamic setting, all fast dashed with its 5 % band, the capacity found ringed."""
        from numaplace.advice import tiers as tp
        from numaplace.plot import MARKERS, PALETTE

        d = self.tiers
        assert d is not None
        c = d["capacity_curve"]
        for k, (dy, at) in enumerate(c.groupby("dynamic", sort=False)):
            ax.plot(at["fast_mib"], at["time_ns"] / 1e6, marker=MARKERS[k % len(MARKERS)], color=PALETTE[k % len(PALETTE)],
                    label=dy, linewidth=1)
        ref = d["tiering"][d["tiering"]["reference"]]
        if not ref.empty:
            t = float(ref["time_ns"].iloc[0]) / 1e6
            ax.axhline(t, color=PALETTE[7], linestyle="--", linewidth=1, label=tp.ALL_FAST)
            ax.axhspan(t, t * (1 + tp.WITHIN), color=PALETTE[7], alpha=0.12, label=f"within {tp.WITHIN:.0%}")
        needed = self.fast_needed
        if needed is not None:
            ax.scatter([needed["fast_mib"]], [needed["time_ns"] / 1e6], s=180, facecolors="none", edgecolors=PALETTE[7],
                       linewidths=1.2, zorder=4, label=f"enough: {_mib(needed['fast_pages'] * d['page_size'])}")
        ax.set_xscale("log", base=2)
        ticks = sorted(set(c["fast_pages"]))
        ax.set_xticks([p * d["page_size"] / 2**20 for p in ticks], [_mib(p * d["page_size"]) for p in ticks],
                      rotation=30, fontsize="x-small")
        ax.minorticks_off()
        ax.set_xlabel(f"fast-tier capacity (first touch, {d['binding']})")
        ax.set_ylabel("simulated time (ms)")
        ax.set_title("time against fast memory", fontsize="medium")
        ax.legend(fontsize="x-small", frameon=False)

