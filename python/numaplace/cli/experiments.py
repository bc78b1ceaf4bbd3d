"""The commands that run the project's measurements: ``reproduce`` (the papers' experiments,
into ``report/``) and ``bench`` (the simulator's speed or footprint)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from numaplace.cli.common import UsageError, positive_int, shown
from numaplace.grid import Grid


def cmd_bench(args: argparse.Namespace) -> None:
    from numaplace import _native

    if args.footprint:
        out = _native.bench_footprint(args.pages if args.pages is not None else 16 * 1024 * 1024)
    elif args.protocol:
        out = _native.bench_protocol(args.sweeps if args.sweeps is not None else 16, args.repetitions or 3)
    elif args.tiered:
        pages = args.pages if args.pages is not None else 1 << 28
        out = _native.bench_tiered(pages, args.sweeps if args.sweeps is not None else 2, args.repetitions or 1)
    else:
        pages = args.pages if args.pages is not None else 256 * 1024
        out = _native.bench_speed(args.transactions, pages, args.repetitions or 3)
    print(json.dumps(json.loads(out), indent=2))


def cmd_reproduce(args: argparse.Namespace) -> None:
    from numaplace import report
    from numaplace.outfile import check_output_dir

    check_output_dir(args.out, "--out")
    try:
        out = report.reproduce(
            out_dir=args.out,
            grid=args.grid,
            progress=not args.no_progress,
            experiments=args.experiment or None,
            scheduler=args.scheduler,
            jobs=args.jobs,
        )
    except report.UnknownExperimentError as e:
        raise UsageError(str(e)) from None
    print(f"wrote {shown(Path(out) / 'index.html')}")

def add_bench(sub: Any) -> None:
    """``bench``."""
    s = sub.add_parser("bench", help="measure simulator speed (or memory footprint) as JSON")
    kind = s.add_mutually_exclusive_group()
    kind.add_argument("--footprint", action="store_true", help="16 M-page footprint run: peak RSS")
    kind.add_argument(
        "--protocol", action="store_true", help="the protocol engine (seed 004) on talbot64: line accesses after the FLC per second, and the ratio to a limit loop"
    )
    kind.add_argument(
        "--tiered",
        action="store_true",
        help="a 1 TiB DRAM+CXL (1:4) machine under tpp, every page streamed: accesses (records) per second, "
        "the ratio to a plain loop, and the per-page state in bytes a page, computed and measured",
    )
    s.add_argument(
        "--sweeps", type=positive_int, default=None, help="--protocol: sweeps of the fixed line-level program (default 16); --tiered: timed sweeps after the first touch (default 2)"
    )
    s.add_argument("--transactions", type=positive_int, default=64 * 1024 * 1024)
    s.add_argument("--pages", type=positive_int, default=None, help="pages (default 256 Ki; 16 Mi with --footprint; 2^28 with --tiered)")
    s.add_argument("--repetitions", type=positive_int, default=None, help="repetitions, the best time kept (default 3; 1 with --tiered)")
    s.set_defaults(func=cmd_bench)


def add_reproduce(sub: Any) -> None:
    """``reproduce``."""
    from numaplace.sweep import add_execution_args

    s = sub.add_parser("reproduce", help="re-run the seeds' experiments and write report/")
    s.add_argument("--out", default="report", help="output directory (default: report)")
    mode = s.add_mutually_exclusive_group()
    mode.add_argument(
        "--grid",
        choices=[g.value for g in Grid],
        default=Grid.QUICK.value,
        help="how large the runs are: quick (small problem sizes, the default), full (the seeds' sizes) "
        "or test (smaller than quick: the project's tests; its verdicts mean nothing)",
    )
    mode.add_argument("--quick", dest="grid", action="store_const", const=Grid.QUICK.value, help="--grid quick")
    mode.add_argument("--full", dest="grid", action="store_const", const=Grid.FULL.value, help="--grid full: the seeds' full problem sizes")
    s.add_argument("--experiment", action="append", help="run only this experiment (repeatable)")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_execution_args(s)
    s.set_defaults(func=cmd_reproduce)
