"""What ``numaplace report`` and ``numaplace run --stats`` print: a stats file's summary as
text, several files side by side, the figure, and the launcher's notices."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from numaplace.record import signal_name
from numaplace.runtime.stats import epoch_local_share, labels, local_share_reason, overall_local_share, summary

if TYPE_CHECKING:
    from matplotlib.figure import Figure

def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.1%}"


def _secs(v: float, wall: float) -> str:
    return f"{v:.3f} s ({v / wall:.1%} of wall)" if wall else f"{v:.3f} s"


def _table(rows: list[list[str]], header: list[str], right: Sequence[bool] | None = None) -> list[str]:
    right = right or [False] * len(header)
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(c.rjust(w) if rj else c.ljust(w) for c, w, rj in zip(r, widths, right)).rstrip()
        for r in [header, *rows]
    ]


def _samples_line(s: Mapping[str, Any]) -> str:
    taken = f"{s['faults_sampled']:,} taken"
    if s["local_share"] is None:
        return f"{taken}; local share n/a: {s['local_share_reason']}"
    return f"{taken}; {_pct(s['local_share'])} local of the {s['samples_seen']:,} the decisions saw"


def _sampling_cost_lines(s: Mapping[str, Any]) -> list[str]:
    """The measured cost of sampling: the wall-time estimate and its parts, then what the
    threads' faults cost, summed and per thread (:func:`sampling_cost`)."""
    trip = s["fault_round_trip_ns"]
    head = f"{s['time_sampling_s']:.3f} s of wall time, estimated: "
    if trip is None:
        return [head + f"no hinting faults + revoking {s['time_revoking_s']:.3f} s"]
    spread = s["thread_cost_s"]
    n = s["threads_faulting"]
    each = "" if spread is None else (
        f"{spread['max']:.3f} s" if n == 1 else
        f"{spread['min']:.3f}-{spread['max']:.3f} s each, median {spread['median']:.3f} s")
    return [
        head + f"faults on the critical path {s['time_fault_critical_s']:.3f} s + revoking {s['time_revoking_s']:.3f} s",
        f"              measured: {s['faults_handled']:,} faults x {trip:,.0f} ns round trip = {s['time_fault_round_trips_s']:.3f} s"
        f" + fault handler {s['time_fault_handling_s']:.3f} s, in {n:,} thread{'s' * (n != 1)}"
        f"{f' ({each})' if each else ''}; with revoking {s['time_sampling_summed_s']:.3f} s summed over threads",
    ]


def _tier_lines(s: Mapping[str, Any]) -> list[str]:
    """Moves between memory tiers, on a tiered machine or where a tiering trigger fired."""
    slow = [str(n) for n, t in enumerate(s["tier"]) if t > 0]
    events = s["promotions"] or s["demotions"] or s["low_memory_events"] or s["faults_forwarded"]
    if not slow and not events:
        return []
    lines = [f"tiers         promotions {s['promotions']:,}, demotions {s['demotions']:,};"
             f" slow node{'s' * (len(slow) != 1)} {','.join(slow) or 'none'}"]
    if s["low_memory_events"] or s["faults_forwarded"] or s["faults_dropped"]:
        lines.append(f"              low-memory events {s['low_memory_events']:,}; hinting faults to the policy"
                     f" {s['faults_forwarded']:,} ({s['faults_dropped']:,} dropped)")
    return lines


def _policy_lines(stats: Mapping[str, Any]) -> list[str]:
    """The dynamic policy's own statistics (the stats file's ``policy`` record, as ``numaplace
    policies`` declares them), those the tier line does not already say."""
    said = {"promotions", "demotions"}
    items = [(k, v) for k, v in stats.get("policy", {}).items() if k not in said]
    if not items:
        return []

    def show(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, list):
            return "[" + ", ".join(f"{x:g}" for x in v) + "]"
        return f"{v:,}" if isinstance(v, int) else f"{v:g}"

    return ["policy        " + ", ".join(f"{k} {show(v)}" for k, v in items)]


def format_summary(stats: Mapping[str, Any], path: str | Path) -> str:
    """The text ``numaplace report`` prints for one stats file."""
    s = summary(stats, path)
    wall = s["wall_s"]
    lines = [
        f"== {path}",
        f"program       {s['program']} (pid {s['pid']})",
        f"source        {s['source']}: {s['source_reason']}",
        f"placement     {s['placement']}",
        f"dynamic       {s['dynamic']}",
        f"regions       {s['regions']} managed",
        f"pages moved   {s['pages_moved']:,} ({s['move_failures']:,} failures, {stats['busy_retries']:,} busy retries,"
        f" {stats['fallbacks']:,} fallbacks) in {stats['invocations']:,} invocations",
        *_tier_lines(s),
        *_policy_lines(stats),
        f"samples       {_samples_line(s)}",
        f"time          wall {wall:.3f} s; sampling {_secs(s['time_sampling_s'], wall)};"
        f" migrating {_secs(s['time_migrating_s'], wall)}",
        *(f"sampling cost {x}" if i == 0 else x for i, x in enumerate(_sampling_cost_lines(s))),
        "",
    ]
    rows = [[str(n), f"{b:,}", f"{a:,}", f"{a - b:+,}"] for n, (b, a) in enumerate(zip(s["before"], s["after"]))]
    rows.append(["all", f"{sum(s['before']):,}", f"{sum(s['after']):,}", f"{sum(s['after']) - sum(s['before']):+,}"])
    lines += _table(rows, ["node", "pages before", "pages after", "change"], [True] * 4)
    lines.append("")
    if s["epochs"]:
        rows = [
            [str(i), f"{e['t_s']:.3f}", e["kind"], f"{e['samples']:,}", _pct(epoch_local_share(stats, e)), f"{e['moved']:,}"]
            for i, e in enumerate(s["epochs"])
        ]
        lines += _table(rows, ["epoch", "t (s)", "kind", "samples", "local", "moved"], [True, True, False, True, True, True])
    else:
        lines.append("no epochs")
    return "\n".join(lines)


def format_comparison(all_stats: Sequence[Mapping[str, Any]]) -> str:
    """Local share of samples per epoch index, one column per stats file."""
    cols = labels(all_stats)
    n = max((len(s["epochs"]) for s in all_stats), default=0)
    rows = [
        [str(i)] + [_pct(epoch_local_share(s, s["epochs"][i])) if i < len(s["epochs"]) else "" for s in all_stats]
        for i in range(n)
    ]
    rows.append(["all"] + [_pct(overall_local_share(s)) for s in all_stats])
    return "\n".join(["local share of samples per epoch", *_table(rows, ["epoch", *cols], [True] * (len(cols) + 1))])


def plot_stats(all_stats: Sequence[Mapping[str, Any]], names: Sequence[str] | None = None) -> Figure:
    """A figure of two panels: pages per node before and after (bars, per file) and the local
    share of samples per epoch against time (a line per file). Where no file has a local
    share that means anything (:func:`local_share_reason`: one node, no samples), the second
    panel is a note saying why instead of an empty chart; a file without one among others is
    named in the legend with its reason."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from numaplace.plot import DPI, FIGSIZE, PALETTE

    names = list(names) if names is not None else labels(all_stats)
    fig = Figure(figsize=(FIGSIZE[0] * 1.6, FIGSIZE[1]), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    bars, line = fig.subplots(1, 2)
    nodes = max(s["nodes"] for s in all_stats)
    x = np.arange(nodes)
    # One colour per file (the same in both panels); "before" bars are pale and hatched.
    colours = [PALETTE[k % len(PALETTE)] for k in range(len(all_stats))]  # the report's palette
    series = [(f"{name}: {when}", s[when], colours[k], when == "before")
              for k, (name, s) in enumerate(zip(names, all_stats)) for when in ("before", "after")]
    width = 0.8 / len(series)
    for i, (label, values, colour, before) in enumerate(series):
        padded = list(values) + [0] * (nodes - len(values))
        bars.bar(x + (i - (len(series) - 1) / 2) * width, padded, width, label=label, color=colour,
                 alpha=0.4 if before else 1.0, hatch="//" if before else None)
    bars.set_xticks(x, [str(n) for n in range(nodes)])
    bars.set_xlabel("node")
    bars.set_ylabel("pages of managed regions")
    bars.set_title("pages per node, before and after")
    # Below the axes, never over a bar.
    bars.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.18), ncols=2)
    reasons = [local_share_reason(s) for s in all_stats]
    if all(reasons):
        line.set_axis_off()
        why = "\n".join(f"{name}: {r}" for name, r in zip(names, reasons)) if len(set(reasons)) > 1 else reasons[0]
        line.text(0.5, 0.5, f"local share per epoch: not applicable\n{why}", ha="center", va="center",
                  wrap=True, transform=line.transAxes)
        return fig
    for k, (name, s, why) in enumerate(zip(names, all_stats, reasons)):
        if why:
            line.plot([], [], color=colours[k], label=f"{name}: n/a ({why})")
            continue
        t = [e["t_s"] for e in s["epochs"]]
        share = [math.nan if (v := epoch_local_share(s, e)) is None else v for e in s["epochs"]]
        line.plot(t, share, marker="o", label=name, color=colours[k])
    line.set_ylim(0, 1.05)
    line.set_xlabel("time (s)")
    line.set_ylabel("local share of samples")
    line.set_title("local share per epoch")
    line.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.18))
    return fig


def stats_notice(given: str, written: bool, min_bytes: int, killed_by: int | None = None, status: int = 0) -> str:
    """What ``numaplace run --stats FILE`` says after the program exits: where the stats went
    and the command to read them, or why there are none (``given`` as the user wrote it;
    ``killed_by``: the signal that killed the program, if one did; else ``status``, its exit
    status). The launcher sees how the program ended, not how each of its processes did: with
    no stats and no signal it says what it saw and each way a process writes none, rather than
    blaming one (a process that allocated enough, then exec'd or called _exit, writes none)."""
    import shlex

    if written:
        png = Path(given).with_suffix(".png") if Path(given).suffix else Path(given + ".png")
        return f"numaplace: stats in {given}; next: numaplace report {shlex.quote(given)} --plot {shlex.quote(str(png))}"
    if killed_by is not None:
        return (f"numaplace: no stats written to {given}: the program was killed by {signal_name(killed_by)}"
                " before its exit (the library writes the file at exit)")
    return (f"numaplace: no stats written to {given}: the program exited with status {status} and no process of it"
            f" wrote them; a process writes them as it ends by exit() or a return from main, if it allocated at"
            f" least {min_bytes:,} bytes (--min-bytes), and writes none if it ends by _exit(), by exec'ing another"
            " program or in a crash")


RUN_HINT = "numaplace: add --stats FILE to record what was placed and moved (then: numaplace report FILE)"
"""``numaplace run``'s one line after a run without ``--stats``, on a terminal only."""
