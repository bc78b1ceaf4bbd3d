"""Checking placement and policy specs as the simulator does, before anything runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from numaplace import _native
from numaplace.runtime.base import RuntimeToolError

def _validate(spec: str, kind: str, driver: str | None = None) -> tuple[str, dict[str, str]]:
    """Checks ``spec`` with the model's own parser and parameter declarations (the checks a
    run makes before it needs a machine) and, with ``driver``, the policy's capabilities;
    returns its name and values as text."""
    if not spec.strip():  # the model's parser would say "missing name" without the option
        raise RuntimeToolError(f"{kind} = '{spec}': expected NAME[:key=value,...]")
    try:
        out = json.loads(_native.check_spec(kind, spec, driver))
    except _native.NumaplaceError as e:
        raise RuntimeToolError(str(e)) from None
    return out["name"], out["values"]


def host_nodes(sysfs: str | Path = "/sys/devices/system/node") -> list[int] | None:
    """The online NUMA nodes of this host (from sysfs), or None if that cannot be read."""
    try:
        text = (Path(sysfs) / "online").read_text().strip()
    except OSError:
        return None
    nodes: list[int] = []
    try:
        for part in filter(None, text.split(",")):
            lo, _, hi = part.partition("-")
            nodes.extend(range(int(lo), int(hi or lo) + 1))
    except ValueError:
        return None
    return nodes


_PLACEMENT_CAPS: dict[str, dict[str, Any]] = {p["name"]: p for p in json.loads(_native.placements())}


def validate_placement(spec: str, nodes: Sequence[int] | None = None) -> str:
    """Checks a placement spec as the simulator does (name, keys, value types and ranges) and
    returns it stripped, and that the runtime can realise it (a placement computed from a
    profile of the whole run, ``oracle``, cannot: its capabilities). ``bind:node=N`` is also
    checked against ``nodes`` (the host's online nodes, if known). Checks that need the
    program's memory are left to the library.

    Raises:
        RuntimeToolError: with the same message ``numaplace sim --placement`` gives.
    """
    name, values = _validate(spec, "placement", "runtime")
    # A one-node placement names its node in the `node` parameter (PlacementCaps.one_node).
    if _PLACEMENT_CAPS[name]["one_node"] and nodes:
        node = int(values["node"].replace("_", ""))
        if node not in nodes:
            have = f"0..{max(nodes)}" if list(nodes) == list(range(max(nodes) + 1)) else ",".join(map(str, nodes))
            raise RuntimeToolError(f"placement 'bind': node={node}: this host has nodes {have}")
    return spec.strip()


def validate_dynamic(spec: str) -> str:
    """Checks a dynamic-policy spec as the simulator does, and that the runtime can drive it
    (the policy's capabilities, as ``numaplace policies`` lists them), and returns it
    stripped; ``none`` (no dynamic policy) is accepted too. Checks that need the program (e.g.
    ``upmlib``'s region names) are left to the library.

    Raises:
        RuntimeToolError: with the same message ``numaplace sim --dynamic`` gives for a bad
            spec, or the reason the runtime cannot drive the policy and those it can.
    """
    if spec.strip() == "none":
        return "none"
    _validate(spec, "dynamic", "runtime")
    return spec.strip()
