"""The commands that list what can be named: ``machines``, ``workloads``, ``placements``,
``programs``, ``schedulers``, ``policies`` and ``policy show``."""

from __future__ import annotations

import argparse
from typing import Any

from numaplace.cli.common import Parser, UsageError, print_table


def cmd_machines(args: argparse.Namespace) -> None:
    import numaplace

    if args.name:
        print(numaplace._native.machine_toml(args.name), end="")
        return
    rows = [
        [m["name"], str(m["nodes"]), str(m["cpus"]), f"{m['page_size'] // 1024} KiB", m["description"]]
        for m in numaplace.machines()
    ]
    print_table(rows, ["name", "nodes", "cpus", "page", "description"])


def _print_plugins(items: list[dict]) -> None:
    for it in items:
        print(f"{it['name']}: {it['doc']}")
        if "drivers" in it:  # a dynamic policy's capabilities
            print(f"    observes {it['observes']}; acts on: {', '.join(it['triggers'])}; runs in: {', '.join(it['drivers'])}")
        for p in it["params"]:
            kind = p["kind"]
            ty = {"integer": "integer", "word": "word", "text": "text", "number": f"number in [{kind.get('min')}, {kind.get('max')}]"}.get(
                kind["type"], "|".join(kind.get("choices", []))
            )
            print(f"    {p['name']}={p['default']} ({ty}): {p['doc']}")
        if it.get("stats"):  # what a run of the policy reports in its `policy` record
            print("    reports: " + ", ".join(f"{s['name']} ({s['unit']})" for s in it["stats"]))


def cmd_workloads(args: argparse.Namespace) -> None:
    import numaplace

    _print_plugins(numaplace.workloads())


def cmd_programs(args: argparse.Namespace) -> None:
    import numaplace

    _print_plugins(numaplace.programs())


def cmd_schedulers(args: argparse.Namespace) -> None:
    import numaplace

    items = numaplace.schedulers()
    for it in items:
        reads = [w for w, on in (("efficiency", it["reads_efficiency"]), ("faults", it["reads_faults"])) if on]
        it["doc"] = f"{it['doc']} [{it['sharing']} sharing{'; reads ' + ', '.join(reads) if reads else ''}]"
    _print_plugins(items)


def cmd_placements(args: argparse.Namespace) -> None:
    import numaplace

    _print_plugins(numaplace.placements())


def cmd_policies(args: argparse.Namespace) -> None:
    import numaplace

    _print_plugins(numaplace.policies())


def cmd_policy_show(args: argparse.Namespace) -> None:
    import numaplace

    known = {p["name"]: p for p in numaplace.policies()}
    if args.name not in known:
        raise UsageError(f"unknown dynamic policy '{args.name}' (known: {', '.join(sorted(known))})")
    _print_plugins([known[args.name]])

def add_machines(sub: Any) -> None:
    """``machines [NAME]``."""
    s = sub.add_parser("machines", help="list machine presets, or print one as TOML")
    s.add_argument("name", nargs="?", help="a preset name or machine file to print")
    s.set_defaults(func=cmd_machines)


def add_workloads(sub: Any) -> None:
    """``workloads``."""
    s = sub.add_parser("workloads", help="list workloads and their parameters")
    s.set_defaults(func=cmd_workloads)


def add_placements(sub: Any) -> None:
    """``placements``."""
    s = sub.add_parser("placements", help="list placement policies and their parameters")
    s.set_defaults(func=cmd_placements)


def add_programs(sub: Any) -> None:
    """``programs``."""
    s = sub.add_parser("programs", help="list line-level programs (the protocol engine's workloads) and their parameters")
    s.set_defaults(func=cmd_programs)


def add_schedulers(sub: Any) -> None:
    """``schedulers``."""
    s = sub.add_parser("schedulers", help="list processor schedulers (system runs) and their parameters")
    s.set_defaults(func=cmd_schedulers)


def add_policies(sub: Any) -> None:
    """``policies``."""
    s = sub.add_parser("policies", help="list dynamic policies and their parameters")
    s.set_defaults(func=cmd_policies)


def add_policy(sub: Any) -> None:
    """``policy show NAME``."""
    s = sub.add_parser("policy", help="describe a dynamic policy")
    psub = s.add_subparsers(dest="policy_command", metavar="SUBCOMMAND", parser_class=Parser, required=True)
    p2 = psub.add_parser("show", help="a policy's parameters, defaults and sources")
    p2.add_argument("name")
    p2.set_defaults(func=cmd_policy_show)
