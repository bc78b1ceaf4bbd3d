"""The ``numaplace sweep`` subcommand: its parser, the ``--jobs``/``--scheduler`` options it
shares with ``numaplace reproduce``, and :func:`main` to run it without the rest of the CLI.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from numaplace._native import NumaplaceError
from numaplace.messages import error_line, shown
from numaplace.sweep.backends import _check_scheduler, jobs_note
from numaplace.sweep.checkpoint import RESULTS_CSV, RESULTS_FILE
from numaplace.sweep.driver import run_sweep

# --- the command line ------------------------------------------------------------------------


def add_execution_args(parser: argparse.ArgumentParser) -> None:
    """Adds ``--jobs`` and ``--scheduler`` (shared by ``numaplace sweep`` and ``reproduce``)."""
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="local worker processes (default: the number of CPUs; never more than the runs to do or "
        "2 per CPU; 0: run in this process)",
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDR",
        help="run each simulation as a task on the Dask scheduler at ADDR (tcp://HOST:PORT), "
        "or 'local' for a LocalCluster of --jobs worker processes",
    )


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Registers the ``sweep`` subcommand on an argparse subparsers object; returns its parser."""
    s = subparsers.add_parser(
        "sweep",
        help="run every configuration of a sweep spec (TOML) into DIR/results.parquet",
        description="Runs the cartesian product of a sweep spec's [axes] (see docs/sweeps.md) and "
        "writes one row per configuration to DIR/results.parquet. Re-running with the same --out "
        "skips the runs already done.",
    )
    s.add_argument("spec", metavar="SPEC", help="the sweep spec, a TOML file")
    s.add_argument("--out", required=True, metavar="DIR", help="output directory (results.parquet, checkpoint.jsonl)")
    s.add_argument("--csv", action="store_true", help="also write DIR/results.csv")
    add_execution_args(s)
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_sweep)
    return s


def cmd_sweep(args: argparse.Namespace) -> None:
    """``numaplace sweep``: runs the spec, writes the table, prints where and how many failed."""
    # Checked here too, so the messages name the options as the user typed them.
    _check_scheduler(args.scheduler, what="--scheduler ")
    if args.scheduler is None or args.scheduler == "local":
        note = jobs_note(args.jobs, what="--jobs ")
        if note is not None:
            print(f"numaplace: note: {note}", file=sys.stderr)
    df = run_sweep(
        Path(args.spec),  # on the command line SPEC is always a file, never TOML text
        scheduler=args.scheduler,
        jobs=args.jobs,
        out=args.out,
        progress=False if args.no_progress else None,  # else: on a terminal, not a pipe
        csv=args.csv,
    )
    failed = int((df["status"] != "ok").sum())
    out = Path(args.out)
    files = [out / RESULTS_FILE, *([out / RESULTS_CSV] if args.csv else [])]
    print(f"wrote {' and '.join(map(shown, files))}: {len(df)} runs, {len(df) - failed} ok, {failed} failed")
    if failed:
        first = df.loc[df["status"] != "ok"].iloc[0]
        print(
            f"numaplace: warning: {failed} of {len(df)} runs failed (first: run {first['run']}: "
            f"{first['error_type']}: {shown(first['error'])}); see the error column",
            file=sys.stderr,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """``numaplace sweep ARGS`` without the rest of the CLI; returns the exit status."""
    parser = argparse.ArgumentParser(prog="numaplace")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sweep", *(sys.argv[1:] if argv is None else argv)])
    try:
        args.func(args)
        return 0
    except NumaplaceError as e:
        print(error_line(e), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("numaplace: interrupted", file=sys.stderr)
        return 130
