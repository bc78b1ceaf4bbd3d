"""``numaplace advise``: which placement and dynamic policy suit a trace on a machine.

:func:`advise` replays one trace under every placement and every dynamic policy the simulator
can run on it, discovered from their registries (``numaplace placements``, ``numaplace
policies``), never from a list written here:

* every placement; a placement that puts every page on one node (``PlacementCaps.one_node``:
  ``bind``) once per node of the machine; a placement computed from a profile of the run
  (``needs_profile``: ``oracle``) only without a dynamic policy — it is *the bound*, the best
  static placement for locality, which no other static placement beats on local share;
* with each placement but the bound: no dynamic policy, and every dynamic policy the
  simulator drives, each with its defaults and, for a policy that declares the cost-aware
  option (:data:`COST_AWARE`), once more with each other choice of it (``cost_aware=on`` for
  the seeds' policies, ``off`` for ``adaptive``).

A combination the simulator refuses for this trace (e.g. ``upmlib-recrep``, whose phase the
trace does not have) is left out of the table and named in a note with the simulator's reason.
The runs go through the sweep executor (:func:`numaplace.sweep.execute`: this process, a local
process pool, or a Dask cluster), after one run in this process — first touch, no policy —
whose failure (a bad trace, a machine too small for it) is the whole command's error.

The result, an :class:`Advice`, ranks the combinations by simulated time and says for each its
slowdown against the fastest, its local share and its gaps to the bound, and whether the Linux
runtime can run it (the launcher's own checks, ``numaplace.runtime.validate_placement`` and
``validate_dynamic``); it names the best combination overall and the best runnable one, with
the ``numaplace run`` command line that applies the latter. The same trace, machine and seed
give the same advice, byte for byte (``docs/advise.md``).

As ``numaplace.sweep`` is, this module is callable: ``numaplace.advise(trace)`` is
:func:`advise`, and ``numaplace.advise.Advice`` names its result.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import stat
import sys
import tempfile
import types
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from numaplace import _native, diagnose, messages
from numaplace._native import NumaplaceError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["COST_AWARE", "Advice", "AdviceError", "advise", "plan", "register"]

COST_AWARE = "cost_aware"
"""The name of the cost-aware option of a migrating policy (declared in Rust,
``dynamic::cost::param``; a test checks that the policies still declare it)."""

NO_POLICY = "none"
"""The ``dynamic`` value of a run without a dynamic policy (the run option's own spelling)."""

BASELINE = ("first-touch", NO_POLICY)
"""The combination run first, in this process: the kernel's default and no policy. If the
trace cannot run on the machine at all, this run says why."""

COLUMNS = (
    "rank",
    "placement",
    "dynamic",
    "binding",
    "current",
    "time_ns",
    "slowdown",
    "local_fraction",
    "local_vs_bound",
    "time_vs_bound",
    "migrations",
    "replications",
    "policy_overhead_ns",
    "runnable",
    "why_not_runnable",
)
"""The columns of :attr:`Advice.table` (and ``--csv``), in order. ``slowdown`` is the time over
the fastest row's; ``binding`` how the threads sit on the nodes (the ``binding`` run option's
values); ``current`` marks the set-up the trace was recorded under (first touch, no policy, the
default binding); ``local_vs_bound`` the row's local share minus the bound's (at most 0 for a
static placement; above 0 when a dynamic policy beats the static bound); ``time_vs_bound`` the
row's time over the bound's, minus 1 (below 0 when faster: the bound is not a time bound)."""


class AdviceError(NumaplaceError):
    """Bad input to :func:`advise` found before any run (a trace that is not a regular file)."""


# --- what to run ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """The combinations to run (``(placement, dynamic)`` specs, in table order before ranking)
    and the notes on what was left out before running."""

    runs: list[tuple[str, str]]
    notes: list[str]
    bound: str | None


def _dynamic_specs(policies: Sequence[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """``none`` and every policy the simulator drives, with its cost-aware variants; and notes
    on the policies it does not drive."""
    specs, notes = [NO_POLICY], []
    for p in policies:
        name = p["name"]
        try:
            _native.check_spec("dynamic", name, "simulator")
        except NumaplaceError as e:
            notes.append(f"not run: {e}")
            continue
        specs.append(name)
        for q in p["params"]:
            if q["name"] == COST_AWARE:
                specs.extend(f"{name}:{COST_AWARE}={c}" for c in q["kind"]["choices"] if c != q["default"])
    return specs, notes


def _placement_specs(placements: Sequence[dict[str, Any]], nodes: int) -> tuple[list[str], list[str], str | None]:
    """Every placement (a one-node placement once per node), the notes, and the bound (the first
    placement computed from a profile of the run)."""
    specs, notes, bound = [], [], None
    for p in placements:
        name = p["name"]
        names = [f"{name}:node={n}" for n in range(nodes)] if p["one_node"] else [name]
        try:
            for s in names:
                _native.check_spec("placement", s, "simulator")
        except NumaplaceError as e:
            notes.append(f"not run: {e}")
            continue
        specs.extend(names)
        if p["needs_profile"] and bound is None:
            bound = name
    return specs, notes, bound


def plan(nodes: int) -> Plan:
    """The combinations :func:`advise` runs on a machine of ``nodes`` nodes, from the registries."""
    placements, notes, bound = _placement_specs(json.loads(_native.placements()), nodes)
    dynamics, dnotes = _dynamic_specs(json.loads(_native.policies()))
    notes += dnotes
    runs = [(p, d) for p in placements for d in ([NO_POLICY] if p == bound else dynamics)]
    if bound is not None and len(dynamics) > 1:
        notes.append(
            f"{bound} runs without a dynamic policy only: it is the bound (the best static placement for"
            " locality, computed from a profile of this trace), and the runtime cannot run it"
        )
    return Plan(runs, notes, bound)


@functools.cache
def _needs_program_calls() -> frozenset[str]:
    """The policies whose capabilities say they act only through the program's calls (read once:
    :func:`runnable` asks for every row of the table)."""
    return frozenset(p["name"] for p in json.loads(_native.policies()) if p["needs_program_calls"])


def runnable(placement: str, dynamic: str, calls: bool | None = None) -> str | None:
    """None if ``numaplace run`` accepts the combination and it acts on the program, else why
    not (the launcher's words). A policy that acts only when the program calls
    ``numaplace_migrate()`` (its capability ``needs_program_calls``) needs ``calls`` true: the
    program's binary names that entry point."""
    from numaplace import runtime as rt

    try:
        rt.validate_placement(placement)
        rt.validate_dynamic(dynamic)
    except rt.RuntimeToolError as e:
        return str(e)
    name = dynamic.split(":", 1)[0]
    if name in _needs_program_calls() and not calls:
        which = "the program makes no such call" if calls is False else "no recorded program to check for such calls"
        return (f"dynamic policy '{name}' acts on a real process only when the program calls numaplace_migrate()"
                f" or upmlib_migrate_memory() (docs/runtime.md): {which}; unmodified programs use --dynamic sampled")
    return None


def run_command(placement: str, dynamic: str, binding: str | None = None, argv: list[str] | None = None) -> str:
    """The command line that applies a combination to the program (:func:`diagnose.run_command`)."""
    return diagnose.run_command(placement, dynamic, binding or diagnose.bindings()[1], argv)


# --- the machine ------------------------------------------------------------------------------


def _topo_defaults(sysfs: str | None) -> argparse.Namespace:
    """``numaplace topo --detect``'s settings with their declared defaults (its parser is the
    one place they are written), and ``sysfs`` if given."""
    from numaplace import cli

    argv = ["topo", "--detect", *(["--sysfs", sysfs] if sysfs is not None else [])]
    return cli.build_parser().parse_args(argv)


def detect_host(sysfs: str | None = None) -> str:
    """This host as machine TOML text, as ``numaplace topo --detect`` writes it (``sysfs``: the
    node directory to read instead of ``/sys/devices/system/node``)."""
    a = _topo_defaults(sysfs)
    return _native.detect(a.sysfs, a.name, a.local_ns, a.bandwidth_gbps, a.mlp, os.sysconf("SC_PAGE_SIZE"))


# --- the result -------------------------------------------------------------------------------


def _ms(ns: float) -> str:
    return f"{ns / 1e6:,.3f}"


@dataclass(repr=False)
class Advice:
    """What :func:`advise` found.

    ``table`` is a pandas DataFrame of :data:`COLUMNS`, one row per combination, fastest first
    (``rank`` 1); ``best``, ``best_runnable`` and ``bound`` are rows of it as dicts (None when
    there is none); ``command`` is the ``numaplace run`` command line of ``best_runnable``;
    ``notes`` says what was left out and why. On a one-node machine ``one_node`` is true, the
    table is empty and :meth:`format` says there is nothing to choose.
    """

    trace: str
    machine: str
    nodes: int
    cpus: int
    seed: int
    trace_info: dict[str, Any]
    table: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    detected: bool = False
    bound_placement: str | None = None
    diagnosis: list[diagnose.ObjectDiagnosis] = field(default_factory=list)
    """The data objects that lose the most locality, diagnosed (:mod:`numaplace.diagnose`)."""
    objects: dict[str, Any] | None = None
    """The per-object tally the diagnosis read (``_native.trace_objects``), for the heat maps."""
    program: list[str] | None = None
    """The command line the trace was recorded from (None: not a recording)."""
    default_binding: str = "spread"
    binding_nodes: dict[str, list[int]] = field(default_factory=dict)
    """The node of each thread under each binding run."""

    def __repr__(self) -> str:
        if self.one_node:
            return f"<Advice {self.trace} on {self.machine}: one node, nothing to choose>"
        best, br = self.best, self.best_runnable
        runnable_part = f"; best runnable {_combo(br)}" if br is not None and br["rank"] != best["rank"] else ""
        return f"<Advice {self.trace} on {self.machine}: {len(self.table)} combinations; best {_combo(best)}{runnable_part}>"

    @property
    def one_node(self) -> bool:
        return self.nodes == 1

    def _row(self, mask: Any) -> dict[str, Any] | None:
        rows = self.table[mask] if len(self.table) else self.table
        return None if rows.empty else rows.iloc[0].to_dict()

    @property
    def best(self) -> dict[str, Any] | None:
        return self._row(slice(None)) if len(self.table) else None

    @property
    def best_runnable(self) -> dict[str, Any] | None:
        return self._row(self.table["runnable"]) if len(self.table) else None

    @property
    def bound(self) -> dict[str, Any] | None:
        """The bound's row for the current set-up's binding (each binding has its own bound)."""
        return self._row(self._bound_mask()) if len(self.table) else None

    def _bound_mask(self) -> Any:
        t = self.table
        binding = self.current["binding"] if t["current"].any() else t["binding"].iloc[0]
        return t["placement"].eq(self.bound_placement) & t["dynamic"].eq(NO_POLICY) & t["binding"].eq(binding)

    @property
    def command(self) -> str | None:
        r = self.best_runnable
        return None if r is None else run_command(r["placement"], r["dynamic"], r["binding"], self.program)

    @property
    def numactl(self) -> str | None:
        """The best runnable combination with plain ``numactl``, where numactl does it."""
        r = self.best_runnable
        if r is None:
            return None
        nodes = self.binding_nodes.get(r["binding"], [])
        return diagnose.numactl_command(r["placement"], r["dynamic"], r["binding"], nodes, self.program)

    @property
    def current(self) -> dict[str, Any] | None:
        """The row of the set-up the trace was recorded under: first touch, no policy, the default binding."""
        return self._row(self.table["current"]) if len(self.table) else None

    @property
    def gain(self) -> float | None:
        """The share of the current set-up's simulated time the best runnable combination saves."""
        c, r = self.current, self.best_runnable
        return None if c is None or r is None else 1.0 - r["time_ns"] / c["time_ns"]

    @property
    def change_nothing(self) -> bool:
        """True when no runnable combination saves at least :data:`diagnose.WORTH_IT` of the time."""
        g = self.gain
        return g is None or g < diagnose.WORTH_IT

    def to_csv(self) -> str:
        """The table as CSV text (every row, full precision)."""
        return self.table.to_csv(index=False, lineterminator="\n")

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain data: what was advised on, the rows, the picks and the notes."""
        rows = [{k: _plain(v) for k, v in r.items()} for r in self.table.to_dict("records")]
        pick = lambda r: None if r is None else {k: _plain(v) for k, v in r.items()}  # noqa: E731
        return {
            "trace": self.trace,
            "machine": self.machine,
            "nodes": self.nodes,
            "cpus": self.cpus,
            "seed": self.seed,
            "one_node": self.one_node,
            "rows": rows,
            "best": pick(self.best),
            "best_runnable": pick(self.best_runnable),
            "bound": pick(self.bound),
            "command": self.command,
            "numactl": self.numactl,
            "current": pick(self.current),
            "gain": self.gain,
            "threshold": diagnose.WORTH_IT,
            "change_nothing": self.change_nothing,
            "program": self.program,
            "diagnosis": diagnose.as_rows(self.diagnosis),
            "depends": self.depends(),
            "notes": list(self.notes),
        }

    def depends(self) -> list[str]:
        """What the advice depends on beyond the machine, in words (:func:`diagnose.depends`)."""
        return diagnose.depends(self.trace_info, self.table)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

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
        lines.append(f"best overall   {_combo(best)}: {_ms(best['time_ns'])} ms, {best['local_fraction']:.1%} local"
                     + ("" if best["runnable"] else " (simulator only)"))
        if br is None:
            lines.append("best runnable  none of these combinations can run under the runtime")
        elif br["rank"] == best["rank"]:
            lines.append("best runnable  the same")
        else:
            lines.append(f"best runnable  {_combo(br)}: {_ms(br['time_ns'])} ms, {br['local_fraction']:.1%} local"
                         f" ({br['slowdown']:.3f}x the best)")
        if bound is not None:
            lines.append(
                f"bound          {_combo(bound)}: {bound['local_fraction']:.1%} local (no static placement has more),"
                f" {_ms(bound['time_ns'])} ms"
            )
        cur = self.current
        if cur is not None:
            lines.append(f"current        {_combo(cur)}, {cur['binding']} (as recorded): {_ms(cur['time_ns'])} ms,"
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
            return [f"advice         change nothing: the best runnable combination ({_combo(br)}, {br['binding']}){g}"
                    f" below the {diagnose.WORTH_IT:.0%} worth-it threshold"]
        out = [f"advice         {_combo(br)}, {br['binding']}: saves {gain:.1%} of the current set-up's simulated time",
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
        ax.set_yticks(range(len(rows)), [f"{r['rank']}. {_combo(r)}, {r['binding']}" for r in rows], fontsize="small")
        ax.grid(axis="y", color="#dddddd", linewidth=0.5)
        lo, hi = min(r["time_ns"] for r in rows) / 1e6, max(r["time_ns"] for r in rows) / 1e6
        pad = (hi - lo) * 0.15 or hi * 0.01
        ax.set_xlim(lo - pad, hi + 2.5 * pad)  # room for the labels on the right
        bound = self.bound
        if bound is not None:
            ax.axvline(bound["time_ns"] / 1e6, color=PALETTE[7], linestyle="--", linewidth=1, label=f"bound's time ({_combo(bound)})")
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


def _plain(v: Any) -> Any:
    """A table value as plain JSON data (numpy scalars to Python's)."""
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


_combo = diagnose.combo


def _pp(x: float) -> str:
    return f"{round(x * 100, 1) + 0.0:+.1f} pp"  # + 0.0: no "-0.0"


def _pct(x: float) -> str:
    return f"{round(x * 100, 1) + 0.0:+.1f}%"


def _multi_node_example() -> str:
    multi = [m["name"] for m in json.loads(_native.machines()) if m["nodes"] > 1]
    return multi[0] if multi else "a multi-node preset"


# --- running ----------------------------------------------------------------------------------


def _check_trace(trace: str) -> None:
    """A trace is replayed once per combination (and twice for the bound): a regular file."""
    try:
        st = os.stat(trace)
    except FileNotFoundError:
        raise AdviceError(f"trace {trace}: no such file") from None
    except OSError as e:
        raise AdviceError(f"trace {trace}: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise AdviceError(f"trace {trace}: is a directory (give a trace file)")
    if not stat.S_ISREG(st.st_mode):
        raise AdviceError(f"trace {trace}: not a regular file (advise replays the trace once per combination; save it to a file)")


def advise(
    trace: str | os.PathLike[str],
    machine: str | None = None,
    *,
    seed: int | None = None,
    binding: str | None = None,
    oversubscribe: bool | None = None,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
    sysfs: str | None = None,
) -> Advice:
    """Replays ``trace`` under every applicable placement and dynamic policy on ``machine`` and
    ranks them (module doc; ``docs/advise.md``).

    ``machine`` is a preset name or a machine file; by default, this host as ``numaplace topo
    --detect`` describes it (read from ``sysfs``, default ``/sys/devices/system/node``). On a
    one-node machine nothing is run: the advice says there is nothing to choose. ``seed``,
    ``binding`` and ``oversubscribe`` are the run options of every replay. The runs execute as
    a sweep's do: ``jobs`` local worker processes (default: the CPUs; 0: this process) or, with
    ``scheduler``, on a Dask cluster; ``progress`` draws a bar of runs (None: where someone
    can see it).

    Raises:
        NumaplaceError: a missing or malformed trace, an unknown machine, a trace the machine
            cannot run (more threads than CPUs without ``oversubscribe``, a footprint larger
            than its memory), or bad execution settings — one line each.
    """
    from numaplace.api import check_option, machine as load_machine, simulate, trace_info
    from numaplace.sweep import execute, make_backend, run_id
    from numaplace.sweep.backends import _check_jobs, _check_scheduler

    from numaplace.api import check_text

    trace = check_text("trace", os.fspath(trace) if isinstance(trace, os.PathLike) else trace)
    if sysfs is not None:
        check_text("sysfs", os.fspath(sysfs) if isinstance(sysfs, os.PathLike) else sysfs)
    if progress is not None and not isinstance(progress, bool):
        raise AdviceError(f"progress = {progress!r}: expected True, False or None")
    _check_trace(trace)
    info = trace_info(trace)  # reads it all: a malformed trace is refused here, in its own words
    if info.get("format") == "line":
        raise AdviceError(f"trace {trace}: a line-level trace (format version 2, for the protocol engine): advise ranks"
                          " page placements and policies, which replay page-level traces (numaplace trace export"
                          " without a protocol machine, or numaplace record)")
    _check_jobs(jobs)
    _check_scheduler(scheduler)
    with tempfile.TemporaryDirectory(prefix="numaplace-advise-") as tmp:
        detected = machine is None
        if detected:
            machine = os.path.join(tmp, "this-host.toml")
            with open(machine, "w", encoding="utf-8") as f:
                f.write(detect_host(sysfs))
        m = load_machine(check_option("machine", machine))
        nodes, cpus = len(m["nodes"]), sum(n["cpus"] for n in m["nodes"])
        # Every replay on the page-level engine, which is what advise ranks placements and
        # policies on: a machine with a [protocol] table would otherwise pick the protocol
        # engine, which replays line-level traces only, and refuse the trace in its own words.
        options = {"machine": machine, "trace": trace, "engine": "page"}
        for name, value in (("seed", seed), ("oversubscribe", oversubscribe)):
            if value is not None:
                options[name] = check_option(name, value)
        all_bindings, default_binding = diagnose.bindings()
        binds = [check_option("binding", binding)] if binding is not None else all_bindings
        used_seed = seed if seed is not None else 0
        program = diagnose.recorded_program(dict(info.get("meta", [])))
        advice = dict(trace=trace, machine=m["name"], nodes=nodes, cpus=cpus, seed=used_seed, trace_info=info, detected=detected,
                      program=program, default_binding=default_binding)
        if nodes == 1:
            import pandas as pd

            return Advice(table=pd.DataFrame(columns=list(COLUMNS)), **advice)
        p = plan(nodes)
        runs = [(pl, dy, b) for b in binds for pl, dy in p.runs]
        configs = [{**options, "placement": pl, "dynamic": dy, "binding": b} for pl, dy, b in runs]
        outcomes: list[dict[str, Any] | None] = [None] * len(configs)
        # The baseline first, here: a trace this machine cannot run fails here, as `sim` would.
        base = (*BASELINE, binds[0] if default_binding not in binds else default_binding)
        first = runs.index(base) if base in runs else 0
        r = simulate(**configs[first], progress=progress)
        outcomes[first] = {"status": "ok", "error_type": None, "error": None, "result": r.to_dict()}
        todo = [i for i in range(len(configs)) if outcomes[i] is None]

        def record(k: int, outcome: dict[str, Any], attempts: int) -> None:
            outcomes[todo[k]] = outcome

        if todo:
            backend = make_backend(scheduler, jobs, runs=len(todo))
            planned = [(run_id(configs[i]), configs[i]) for i in todo]
            execute(planned, backend, record, progress={None: True, True: "always", False: False}[progress], desc="advise")
        calls = diagnose.calls_the_api(program[0]) if program else None
        nodes_of = {b: json.loads(_native.thread_nodes(machine, info["threads"], b, bool(oversubscribe))) for b in binds}
        table, notes = _table(p, runs, outcomes, calls, default_binding)
        objects, found = None, []
        try:
            objects = diagnose.tally(trace, machine, base[2], bool(oversubscribe))
            objects["binding"] = base[2]
            found = diagnose.diagnose(objects)
            diagnose.add_mover(found, _mover(table))
        except NumaplaceError as e:
            notes.append(f"no diagnosis of the data objects: {e}")
        if program and calls is None:
            notes.append(f"the recorded program {program[0]} was not found here: advise assumes it does not call"
                         " numaplace_migrate() (run advise where it was recorded)")
        return Advice(table=table, notes=p.notes + notes, bound_placement=p.bound, diagnosis=found, objects=objects,
                      binding_nodes=nodes_of, **advice)


def _mover(t: pd.DataFrame) -> tuple[str, float] | None:
    """The fastest runnable dynamic policy from first touch with the current set-up's binding,
    and the share of the current set-up's time it saves (None: no such row)."""
    if t.empty or not t["current"].any():
        return None
    cur = t[t["current"]].iloc[0]
    rows = t[t["runnable"] & (t["placement"] == cur["placement"]) & (t["binding"] == cur["binding"]) & (t["dynamic"] != NO_POLICY)]
    if rows.empty:
        return None
    r = rows.iloc[0]
    return str(r["dynamic"]), 1.0 - float(r["time_ns"]) / float(cur["time_ns"])


def _combos(p: Plan, combos: list[tuple[str, str]]) -> str:
    """Failed combinations, named shortly: the policies that failed with every placement they
    were planned with, by name, then any other combinations one by one."""
    failed = set(combos)
    named, rest = [], []
    for dy in dict.fromkeys(d for _, d in combos):
        with_it = [(pl, d) for pl, d in p.runs if d == dy]
        if all(c in failed for c in with_it) and len(with_it) > 1:
            named.append(dy)
            failed -= set(with_it)
    rest = [_combo({"placement": pl, "dynamic": dy}) for pl, dy in combos if (pl, dy) in failed]
    parts = ([f"{', '.join(named)} (with every placement)"] if named else []) + rest
    return ", ".join(parts)


def _table(p: Plan, runs: Sequence[tuple[str, str, str]], outcomes: Sequence[dict[str, Any] | None],
           calls: bool | None, default_binding: str) -> tuple[pd.DataFrame, list[str]]:
    """The ranked table of the runs that succeeded, and a note per reason runs failed."""
    import pandas as pd

    failed: dict[str, list[tuple[str, str]]] = {}
    rows = []
    for (pl, dy, b), o in zip(runs, outcomes):
        assert o is not None
        if o["status"] != "ok":
            if (pl, dy) not in failed.setdefault(o["error"], []):
                failed[o["error"]].append((pl, dy))
            continue
        r = o["result"]
        why = runnable(pl, dy, calls)
        rows.append(
            {
                "placement": pl,
                "dynamic": dy,
                "binding": b,
                "current": (pl, dy, b) == (*BASELINE, default_binding),
                "time_ns": float(r["total_time_ns"]),
                "local_fraction": float(r["local_fraction"]),
                "migrations": int(r["migrations"]),
                "replications": int(r["replications"]),
                "policy_overhead_ns": float(r["policy_overhead_ns"]),
                "runnable": why is None,
                "why_not_runnable": why or "",
            }
        )
    notes = [f"not run: {_combos(p, combos)}: {error}" for error, combos in failed.items()]
    df = pd.DataFrame(rows)
    if df.empty:
        return pd.DataFrame(columns=list(COLUMNS)), notes
    # Ranked by time; a tie keeps the plan's order (a stable sort), so the ranking is deterministic.
    df = df.sort_values("time_ns", kind="stable").reset_index(drop=True)
    df["rank"] = range(1, len(df) + 1)
    df["slowdown"] = df["time_ns"] / df["time_ns"].min()
    # Each row against the bound of its own binding (the bound is the best static placement for
    # the threads where they sit).
    df["local_vs_bound"] = math.nan
    df["time_vs_bound"] = math.nan
    for binding in df["binding"].unique():
        same = df["binding"] == binding
        bound = df[same & (df["placement"] == p.bound) & (df["dynamic"] == NO_POLICY)] if p.bound else df.iloc[0:0]
        if not bound.empty:
            b = bound.iloc[0]
            df.loc[same, "local_vs_bound"] = df.loc[same, "local_fraction"] - b["local_fraction"]
            df.loc[same, "time_vs_bound"] = df.loc[same, "time_ns"] / b["time_ns"] - 1.0
    return df[list(COLUMNS)], notes


# --- the command line -------------------------------------------------------------------------


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``advise`` sub-command to an argparse subparsers object; returns its parser."""
    from numaplace.cli import _count, add_run_options
    from numaplace.sweep import add_execution_args

    s = subparsers.add_parser(
        "advise",
        help="rank every placement and dynamic policy on a trace, against the best static placement",
        description="Replays TRACE under every placement and dynamic policy the simulator can run on it, plus the"
        " best static placement computed from the trace itself (the bound), ranks them by simulated time and"
        " prints the `numaplace run` command line of the best combination the runtime can run (docs/advise.md).",
    )
    s.add_argument("trace", metavar="TRACE", help="a trace file (numaplace trace export, or your own: docs/trace-format.md)")
    s.add_argument("--machine", metavar="M", help="a preset name or machine file (default: this host, as `numaplace topo --detect` describes it)")
    s.add_argument("--sysfs", metavar="DIR", help="the sysfs node directory this host is detected from (default: the one `numaplace topo --detect` reads)")
    add_run_options(s, ["seed", "binding", "oversubscribe"])
    s.add_argument("--top", type=_count, default=20, metavar="N", help="print the N fastest rows (and the bound and best runnable rows); 0: every row (default: 20)")
    s.add_argument("--csv", metavar="FILE", help="write every row as CSV")
    s.add_argument("--json", metavar="FILE", help="write the advice as JSON")
    s.add_argument("--plot", metavar="FILE", help="draw the fastest combinations' times as a PNG chart")
    add_execution_args(s)
    s.add_argument("--no-progress", action="store_true", help="no progress bar (by default one is drawn on stderr when it is a terminal)")
    s.set_defaults(func=cmd_advise)
    return s


def cmd_advise(args: argparse.Namespace) -> None:
    """``numaplace advise``: runs :func:`advise`, prints the advice, writes the files asked for."""
    from numaplace.outfile import check_outputs, write_output, write_with

    from numaplace.sweep.backends import _check_jobs

    _check_jobs(args.jobs, "--jobs ")
    outs = [(args.csv, "--csv"), (args.json, "--json"), (args.plot, "--plot")]
    check_outputs(outs, [(args.trace, "the trace"), (args.machine, "--machine")])
    a = advise(
        args.trace,
        args.machine,
        seed=args.seed,
        binding=args.binding,
        oversubscribe=args.oversubscribe,
        jobs=args.jobs,
        scheduler=args.scheduler,
        progress=False if args.no_progress else None,
        sysfs=args.sysfs,
    )
    sys.stdout.write(a.format(args.top or None))
    if args.csv is not None:
        write_output(args.csv, "--csv", a.to_csv())
    if args.json is not None:
        write_output(args.json, "--json", a.to_json())
    if args.plot is not None and not a.one_node:
        from numaplace.plot import save_png

        fig = a.plot()
        write_with(args.plot, "--plot", lambda p: save_png(fig, p))
    for path, what in outs:
        if path is None:
            continue
        shown = messages.shown(path)
        if what == "--plot" and a.one_node:
            print(f"numaplace: note: --plot {shown} not written: one node, nothing to chart", file=sys.stderr)
        else:
            print(f"wrote {shown}", file=sys.stderr)


# --- the module is callable, as numaplace.sweep is --------------------------------------------


class _CallableModule(types.ModuleType):
    """This module's type: called, it runs :func:`advise` (so ``numaplace.advise(trace)`` works
    while ``numaplace.advise.Advice`` still names the class)."""

    __call__ = staticmethod(advise)

    def __repr__(self) -> str:
        return f"<callable module {self.__name__!r} (calling it runs advise)>"


sys.modules[__name__].__class__ = _CallableModule
