"""The ``numaplace`` parser, built from one declaration: :data:`COMMANDS`, the function adding
each sub-command, in the order ``numaplace --help`` lists them."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from numaplace import record, sweep
from numaplace.cli import advise, experiments, explain, host, listings, simulate
from numaplace.cli.common import Parser

COMMANDS: tuple[Callable[[Any], Any], ...] = (
    listings.add_machines,
    listings.add_workloads,
    listings.add_placements,
    host.add_topo,
    simulate.add_sim,
    explain.add_explain,
    listings.add_programs,
    listings.add_schedulers,
    listings.add_policies,
    listings.add_policy,
    simulate.add_trace,
    simulate.add_workload,
    experiments.add_bench,
    experiments.add_reproduce,
    host.add_run,
    host.add_where,
    host.add_report,
    sweep.add_parser,
    advise.add_advise,
    record.register,
)
"""Each adds its sub-command (and sets its ``func``) to the subparsers object it is given."""


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="numaplace", description="NUMA page placement: simulate, compare, reproduce.")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for add in COMMANDS:
        add(sub)
    return p
