"""``numaplace advise TRACE``: runs :func:`numaplace.advice.advise`, prints the advice and writes
the files asked for (``--csv``, ``--json``, ``--plot``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from numaplace.cli.common import add_run_options, count, shown


def add_advise(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``advise`` sub-command to an argparse subparsers object; returns its parser."""
    from numaplace.sweep import add_execution_args

    s = subparsers.add_parser(
        "advise",
        help="rank every placement and dynamic policy on a trace, against the best static placement",
        description="Replays TRACE under every placement and dynamic policy the simulator can run on it, plus the"
        " best static placement computed from the trace itself (the bound), ranks them by simulated time and"
        " prints the `numaplace run` command line of the best combination the runtime can run; on a tiered machine,"
        " also the tiering policies against fast-tier capacity: how much fast memory the program needs and whether"
        " tiering is worth turning on (docs/advise.md).",
    )
    s.add_argument("trace", metavar="TRACE", help="a trace file (numaplace trace export, or your own: docs/trace-format.md)")
    s.add_argument("--machine", metavar="M", help="a preset name or machine file (default: this host, as `numaplace topo --detect` describes it)")
    s.add_argument("--sysfs", metavar="DIR", help="the sysfs node directory this host is detected from (default: the one `numaplace topo --detect` reads)")
    add_run_options(s, ["seed", "binding", "oversubscribe"])
    s.add_argument("--top", type=count, default=20, metavar="N", help="print the N fastest rows (and the bound and best runnable rows); 0: every row (default: 20)")
    s.add_argument("--csv", metavar="FILE", help="write every row as CSV")
    s.add_argument("--json", metavar="FILE", help="write the advice as JSON")
    s.add_argument("--plot", metavar="FILE", help="draw the fastest combinations' times as a PNG chart")
    add_execution_args(s)
    s.add_argument("--no-progress", action="store_true", help="no progress bar (by default one is drawn on stderr when it is a terminal)")
    s.set_defaults(func=cmd_advise)
    return s


def cmd_advise(args: argparse.Namespace) -> None:
    """``numaplace advise``: runs :func:`advise`, prints the advice, writes the files asked for."""
    from numaplace.advice import advise
    from numaplace.outfile import check_outputs, write_output
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
        save_png(fig, args.plot, "--plot")
    for path, what in outs:
        if path is None:
            continue
        named = shown(path)
        if what == "--plot" and a.one_node:
            print(f"numaplace: note: --plot {named} not written: one node, nothing to chart", file=sys.stderr)
        else:
            print(f"wrote {named}", file=sys.stderr)
