"""What every command of the command line shares: its error (:class:`UsageError`) and exit
statuses, the parser class whose errors are one line, the argparse types of numbers, the run
options generated from their one declaration, and table printing."""

from __future__ import annotations

import argparse
import math
from typing import NoReturn, Sequence

from numaplace._native import NumaplaceError
from numaplace.messages import shown

__all__ = [
    "EXIT_INTERNAL",
    "EXIT_USAGE",
    "EXPORT_OPTIONS",
    "SHAPE_OPTIONS",
    "Parser",
    "UsageError",
    "add_run_options",
    "count",
    "fmt_ms",
    "pid",
    "positive_int",
    "positive_number",
    "print_table",
    "run_kwargs",
    "shown",
]

EXIT_USAGE = 2
EXIT_INTERNAL = 1


class UsageError(NumaplaceError):
    """Bad command-line input found by the CLI itself (a :class:`NumaplaceError`, as every
    error for bad input is)."""


class Parser(argparse.ArgumentParser):
    """argparse, but errors are one line and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see --help)")


def fmt_ms(ns: float) -> str:
    return f"{ns / 1e6:,.3f} ms"


def print_table(rows: list[list[str]], header: list[str]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())


def positive_int(text: str) -> int:
    """An argparse type: an integer in [1, 2**63 - 1] (what the simulator's counters hold)."""
    return _int_in(text, 1)


def count(text: str) -> int:
    """An argparse type: an integer in [0, 2**63 - 1]."""
    return _int_in(text, 0)


def _int_in(text: str, low: int) -> int:
    try:
        v = int(text)
    except ValueError:
        v = None
    if v is None or not low <= v < 2**63:
        raise argparse.ArgumentTypeError(f"'{text}': expected an integer in [{low}, 2^63 - 1]")
    return v


def positive_number(text: str) -> float:
    """An argparse type: a finite number greater than 0."""
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"'{text}': expected a finite number greater than 0")
    return v


def pid(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a process id (a positive integer)")
    return int(text)


def run_kwargs(args: argparse.Namespace, names: Sequence[str]) -> dict:
    """The ``numaplace.simulate``-style keyword arguments of the run options ``names`` given on
    the command line (an option not given is left to its declared default)."""
    from numaplace.api import OPTIONS

    return {OPTIONS[n]["python"]: getattr(args, n) for n in names if getattr(args, n, None) is not None}


#: The run options that that shape a workload without running it (``trace export``, ``workload show``).
SHAPE_OPTIONS = ("machine", "class", "threads", "init", "binding", "seed")
#: ``trace export``'s: a workload's shape, and the engine (a line-level program's trace).
EXPORT_OPTIONS = (*SHAPE_OPTIONS, "engine")


def add_run_options(parser: argparse.ArgumentParser, names: Sequence[str]) -> None:
    """Adds the run options ``names`` to ``parser``, generated from their one declaration
    (``numaplace.api.OPTIONS``): flag, type, choices, help and default. Defaults are left to
    the run (an option not given is not sent), so a trace's own thread count can stand."""
    from numaplace.api import OPTIONS

    for name in names:
        o = OPTIONS[name]
        kind = o["kind"]
        default = f" (default: {o['default']})" if o["default"] is not None else ""
        flag = "--" + name.replace("_", "-")
        doc = o["doc"].replace("%", "%%")  # argparse formats help with %
        if kind["type"] == "bool":
            parser.add_argument(flag, dest=name, action="store_const", const=True, default=None, help=doc)
            continue
        extra: dict = {"type": {"integer": int, "number": float}.get(kind["type"], str)}
        if kind["type"] == "name":
            extra["choices"] = kind["choices"]
        parser.add_argument(flag, dest=name, metavar=name.upper(), default=None, help=doc + default, **extra)
