"""What :func:`~numaplace.advice.advise` runs: the combinations of placement and dynamic policy
from the registries (:func:`plan`), and whether the Linux runtime can run each (:func:`runnable`)."""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from numaplace import _native, diagnose
from numaplace._native import NumaplaceError

COST_AWARE = "cost_aware"
"""The name of the cost-aware option of a migrating policy (declared in Rust,
``dynamic::cost::param``; a test checks that the policies still declare it)."""

NO_POLICY = "none"
"""The ``dynamic`` value of a run without a dynamic policy (the run option's own spelling)."""

BASELINE = ("first-touch", NO_POLICY)
"""The combination run first, in this process: the kernel's default and no policy. If the
trace cannot run on the machine at all, this run says why."""


class AdviceError(NumaplaceError):
    """Bad input to :func:`~numaplace.advice.advise` found before any run (a trace that is not a
    regular file)."""


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

