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
import json
import math
import os
import shlex
import stat
import sys
import tempfile
import types
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from numaplace import _native
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
the fastest row's; ``local_vs_bound`` the row's local share minus the bound's (at most 0 for a
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


def runnable(placement: str, dynamic: str) -> str | None:
    """None if ``numaplace run`` accepts the combination, else why not (the launcher's words)."""
    from numaplace import runtime as rt

    try:
        rt.validate_placement(placement)
        rt.validate_dynamic(dynamic)
    except rt.RuntimeToolError as e:
        return str(e)
    return None


def run_command(placement: str, dynamic: str) -> str:
    """The ``numaplace run`` command line that applies a combination to a program (both flags
    given: the launcher's own default policy is not ``none``)."""
    return f"numaplace run --placement {shlex.quote(placement)} --dynamic {shlex.quote(dynamic)} -- PROGRAM [ARGS...]"


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
        return self._row(self._bound_mask()) if len(self.table) else None

    def _bound_mask(self) -> Any:
        return self.table["placement"].eq(self.bound_placement) & self.table["dynamic"].eq(NO_POLICY)

    @property
    def command(self) -> str | None:
        r = self.best_runnable
        return None if r is None else run_command(r["placement"], r["dynamic"])

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
            "notes": list(self.notes),
        }

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
            f"ran      {len(self.table)} combinations of placement and dynamic policy",
            "",
        ]
        marks: dict[str, int] = {}
        notes: list[str] = []

        def mark(reason: str) -> str:
            if reason not in marks:
                notes.append(reason)
                marks[reason] = len(notes)
            return f"[{marks[reason]}]"

        t = self.table
        bound = self.bound
        shown = t if not top else t[(t["rank"] <= top) | self._bound_mask() | (t["rank"] == (self.best_runnable or {}).get("rank"))]
        head = ["rank", "placement", "dynamic", "time (ms)", "vs best", "local", "local vs bound", "time vs bound", "migrations", "runs on"]
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
                    _ms(r["time_ns"]),
                    f"{r['slowdown']:.3f}x",
                    f"{r['local_fraction']:.1%}",
                    "bound" if is_bound else _pp(r["local_vs_bound"]),
                    "bound" if is_bound else _pct(r["time_vs_bound"]),
                    f"{r['migrations']:,}",
                    "runtime" if r["runnable"] else f"sim only {mark(r['why_not_runnable'])}",
                ]
            )
        if top and last < len(t):
            rows.append(["..."] + [""] * (len(head) - 1))
        right = {0, 3, 4, 5, 6, 7, 8}
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
        if br is not None:
            lines += ["", "to apply the best runnable combination to the program:", f"  {self.command}"]
        all_notes = notes + [n for n in self.notes if n not in marks]
        if all_notes:
            lines += ["", "notes"]
            lines += [f"  [{k}] {n}" for k, n in enumerate(all_notes, 1)]
        return "\n".join(lines) + "\n"

    def plot(self, top: int = 12) -> Figure:
        """A dot chart of the ``top`` fastest combinations' times (and the bound's, wherever it
        ranks), fastest at the top: colour and marker say whether the runtime can run each, a
        label its local share, and a dashed line marks the bound's time. Dots, not bars: the
        times often differ by a percent, which bars from zero would hide."""
        from numaplace.plot import MARKERS, PALETTE, legend_below, new_axes

        t = self.table
        if t.empty:
            raise AdviceError("nothing to plot: the machine has one node, so there is nothing to choose")
        shown = t[(t["rank"] <= top) | self._bound_mask()]
        rows = shown.to_dict("records")[::-1]  # the fastest at the top
        is_bound = list(self._bound_mask()[shown.index])[::-1]
        kinds = ["bound" if b else "runtime" if r["runnable"] else "simulator only" for r, b in zip(rows, is_bound)]
        fig, ax = new_axes()
        for i, kind in enumerate(("runtime", "simulator only", "bound")):
            ys = [y for y, k in enumerate(kinds) if k == kind]
            if ys:
                ax.scatter([rows[y]["time_ns"] / 1e6 for y in ys], ys, label=kind, color=PALETTE[i], marker=MARKERS[i], zorder=3)
        for y, r in enumerate(rows):
            ax.annotate(f"{r['local_fraction']:.0%} local", (r["time_ns"] / 1e6, y), xytext=(6, 0), textcoords="offset points",
                        va="center", fontsize="x-small")
        ax.set_yticks(range(len(rows)), [f"{r['rank']}. {_combo(r)}" for r in rows], fontsize="small")
        ax.grid(axis="y", color="#dddddd", linewidth=0.5)
        lo, hi = min(r["time_ns"] for r in rows) / 1e6, max(r["time_ns"] for r in rows) / 1e6
        pad = (hi - lo) * 0.15 or hi * 0.01
        ax.set_xlim(lo - pad, hi + 2.5 * pad)  # room for the labels on the right
        bound = self.bound
        if bound is not None:
            ax.axvline(bound["time_ns"] / 1e6, color=PALETTE[7], linestyle="--", linewidth=1, label=f"bound's time ({_combo(bound)})")
        ax.set_xlabel("simulated time (ms)")
        ax.set_title(f"{os.path.basename(self.trace)} on {self.machine}: fastest combinations", fontsize="medium")
        legend_below(fig, ax)
        return fig


def _plain(v: Any) -> Any:
    """A table value as plain JSON data (numpy scalars to Python's)."""
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _combo(r: dict[str, Any]) -> str:
    return r["placement"] if r["dynamic"] == NO_POLICY else f"{r['placement']} + {r['dynamic']}"


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
        options = {"machine": machine, "trace": trace}
        for name, value in (("seed", seed), ("binding", binding), ("oversubscribe", oversubscribe)):
            if value is not None:
                options[name] = check_option(name, value)
        used_seed = seed if seed is not None else 0
        advice = dict(trace=trace, machine=m["name"], nodes=nodes, cpus=cpus, seed=used_seed, trace_info=info, detected=detected)
        if nodes == 1:
            import pandas as pd

            return Advice(table=pd.DataFrame(columns=list(COLUMNS)), **advice)
        p = plan(nodes)
        configs = [{**options, "placement": pl, "dynamic": dy} for pl, dy in p.runs]
        outcomes: list[dict[str, Any] | None] = [None] * len(configs)
        # The baseline first, here: a trace this machine cannot run fails here, as `sim` would.
        first = p.runs.index(BASELINE) if BASELINE in p.runs else 0
        r = simulate(**configs[first], progress=progress)
        outcomes[first] = {"status": "ok", "error_type": None, "error": None, "result": r.to_dict()}
        todo = [i for i in range(len(configs)) if outcomes[i] is None]

        def record(k: int, outcome: dict[str, Any], attempts: int) -> None:
            outcomes[todo[k]] = outcome

        if todo:
            backend = make_backend(scheduler, jobs, runs=len(todo))
            planned = [(run_id(configs[i]), configs[i]) for i in todo]
            execute(planned, backend, record, progress={None: True, True: "always", False: False}[progress], desc="advise")
        table, notes = _table(p, outcomes)
        return Advice(table=table, notes=p.notes + notes, bound_placement=p.bound, **advice)


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


def _table(p: Plan, outcomes: Sequence[dict[str, Any] | None]) -> tuple[pd.DataFrame, list[str]]:
    """The ranked table of the runs that succeeded, and a note per reason runs failed."""
    import pandas as pd

    failed: dict[str, list[tuple[str, str]]] = {}
    rows = []
    for (pl, dy), o in zip(p.runs, outcomes):
        assert o is not None
        if o["status"] != "ok":
            failed.setdefault(o["error"], []).append((pl, dy))
            continue
        r = o["result"]
        why = runnable(pl, dy)
        rows.append(
            {
                "placement": pl,
                "dynamic": dy,
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
    bound = df[(df["placement"] == p.bound) & (df["dynamic"] == NO_POLICY)] if p.bound else df.iloc[0:0]
    if bound.empty:
        df["local_vs_bound"] = math.nan
        df["time_vs_bound"] = math.nan
    else:
        b = bound.iloc[0]
        df["local_vs_bound"] = df["local_fraction"] - b["local_fraction"]
        df["time_vs_bound"] = df["time_ns"] / b["time_ns"] - 1.0
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
    from numaplace.outfile import check_output, destination, write_output, write_with

    from numaplace.sweep.backends import _check_jobs

    _check_jobs(args.jobs, "--jobs ")
    outs = [(args.csv, "--csv"), (args.json, "--json"), (args.plot, "--plot")]
    seen: dict[Any, str] = {}
    for path, what in outs:
        if path is not None:
            check_output(path, what)
            dest, special = destination(path, what)
            if dest in seen and not special:
                raise AdviceError(f"{seen[dest]} and {what} name one file ({path})")
            seen[dest] = what
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
        shown = os.fsencode(path).decode("utf-8", "backslashreplace")
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
