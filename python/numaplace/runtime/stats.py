"""The stats files the library writes: loading and checking them against the schema the
library is written from, a frame of their epochs, and the figures a report states."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from numaplace.runtime.base import STATS_SCHEMA, STATS_VERSION, RuntimeToolError

if TYPE_CHECKING:
    import pandas as pd

_NUM = (int, float)
_TYPES: dict[str, tuple[type, ...]] = {"text": (str,), "integer": (int,), "number": _NUM, "list": (list,), "record": (dict,)}
_TYPE_WORDS = {"text": "a string", "integer": "an integer", "number": "a number", "list": "a list", "record": "an object"}


def _check_fields(path: str, obj: Any, fields: list[dict[str, Any]], at: str, nodes: int | None) -> None:
    """Checks ``obj`` against the schema's ``fields``: each key present, each value of its kind
    (or null where the schema allows), per-node lists ``nodes`` long; objects of a ``list``
    recursively, in order."""
    if not isinstance(obj, dict):
        raise RuntimeToolError(f"{path}: {at or 'the file'} is not a JSON object")
    for f in fields:
        key, kind = f["name"], f["kind"]
        name = f"{at}.{key}" if at else key
        if key not in obj:
            raise RuntimeToolError(f"{path}: missing key '{name}'")
        v = obj[key]
        if v is None and f["nullable"]:
            continue
        if kind == "per-node":
            ok = isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)
            if not ok:
                raise RuntimeToolError(f"{path}: key '{name}' should be a list of page counts")
            if nodes is not None and len(v) != nodes:
                raise RuntimeToolError(f"{path}: key '{name}' has {len(v)} entries for {nodes} nodes")
        elif kind == "share":
            if isinstance(v, bool) or not isinstance(v, _NUM) or not 0 <= v <= 1:
                raise RuntimeToolError(f"{path}: key '{name}' should be a number in [0, 1]{' or null' * f['nullable']}")
        elif isinstance(v, bool) or not isinstance(v, _TYPES[kind]):
            null = " or null" if f["nullable"] else ""
            raise RuntimeToolError(f"{path}: key '{name}' should be {_TYPE_WORDS[kind]}{null}, not {json.dumps(v)[:40]}")
        if kind == "list":
            for i, item in enumerate(v):
                _check_fields(path, item, f["fields"], f"{name}[{i}]", nodes)
        if kind == "record":
            for k, x in v.items():
                values = x if isinstance(x, list) else [x]
                if any(isinstance(y, bool) or not (y is None or isinstance(y, _NUM)) for y in values):
                    raise RuntimeToolError(f"{path}: key '{name}.{k}' should be a number, a list of numbers or null, not {json.dumps(x)[:40]}")


def load_stats(path: str | Path) -> dict[str, Any]:
    """Reads and checks a stats file the library wrote (schema version :data:`STATS_VERSION`).

    Raises:
        RuntimeToolError: the file cannot be read, is not JSON, has another schema version,
            lacks a key or has a value of the wrong type (the message names the file and key).
    """
    from numaplace.infile import InputError, read_input

    p = str(path)
    try:
        text = read_input(path, "stats file")
    except InputError as e:
        raise RuntimeToolError(str(e)) from None
    except OSError as e:
        raise RuntimeToolError(f"{p}: cannot read: {e.strerror or e}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise RuntimeToolError(f"{p}: not valid JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except UnicodeDecodeError:
        raise RuntimeToolError(f"{p}: not valid JSON: not UTF-8 text") from None
    except RecursionError:
        # The decoder recurses once per level of nesting; Python's recursion limit (1,000 by
        # default) bounds the depth, the file's size the memory.
        raise RuntimeToolError(f"{p}: not a numaplace stats file: JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise RuntimeToolError(f"{p}: not a numaplace stats file (expected a JSON object)")
    if "numaplace_stats" not in data:
        raise RuntimeToolError(f"{p}: missing key 'numaplace_stats' (not a numaplace stats file?)")
    version = data["numaplace_stats"]
    if version != STATS_VERSION or isinstance(version, bool):
        older = isinstance(version, int) and not isinstance(version, bool) and 0 < version < STATS_VERSION
        raise RuntimeToolError(
            f"{p}: key 'numaplace_stats' is {json.dumps(version)}: this numaplace reads version {STATS_VERSION}"
            + ("; an older libnumaplace wrote it: run the program again under this one" if older else "")
        )
    fields = STATS_SCHEMA["fields"]
    # The node count first: every per-node list is checked against it.
    _check_fields(p, data, [f for f in fields if f["name"] == "nodes"], "", None)
    nodes = data["nodes"]
    if nodes < 1:
        raise RuntimeToolError(f"{p}: key 'nodes' should be at least 1, not {nodes}")
    _check_fields(p, data, fields, "", nodes)
    return data


def _label(stats: Mapping[str, Any]) -> str:
    return f"{Path(stats['program']).name} ({stats['dynamic'].split(':', 1)[0]})"


def labels(all_stats: Sequence[Mapping[str, Any]]) -> list[str]:
    """A column label per stats file, ``program (dynamic)``, numbered when two would be equal."""
    base = [_label(s) for s in all_stats]
    return [f"{b} #{i + 1}" if base.count(b) > 1 else b for i, b in enumerate(base)]


_EPOCH_FIELDS = next(f for f in STATS_SCHEMA["fields"] if f["name"] == "epochs")["fields"]
# The frame's columns after file, program, dynamic and epoch: every scalar field of an epoch.
_FRAME_DTYPES = {"integer": "int64", "number": "float64", "share": "float64", "text": "object"}
_EPOCH_COLUMNS = [f for f in _EPOCH_FIELDS if f["kind"] in _FRAME_DTYPES]
STATS_FRAME_COLUMNS = ["file", "program", "dynamic", "epoch", *(f["name"] for f in _EPOCH_COLUMNS)]


def stats_frame(paths: Iterable[str | Path]) -> pd.DataFrame:
    """One row per epoch of every stats file: file, program, dynamic, epoch (index within its
    file), then every scalar field of an epoch in the schema's order (t_s, kind, samples,
    local_share, moved); a null number is NaN.

    Raises:
        RuntimeToolError: as :func:`load_stats`.
    """
    import pandas as pd

    rows = []
    for path in paths:
        s = load_stats(path)
        for i, e in enumerate(s["epochs"]):
            row = {"file": str(path), "program": s["program"], "dynamic": s["dynamic"], "epoch": i}
            for f in _EPOCH_COLUMNS:
                v = e[f["name"]]
                row[f["name"]] = math.nan if v is None else v
            rows.append(row)
    frame = pd.DataFrame(rows, columns=STATS_FRAME_COLUMNS)
    return frame.astype({"epoch": "int64", **{f["name"]: _FRAME_DTYPES[f["kind"]] for f in _EPOCH_COLUMNS}})


def samples_seen(stats: Mapping[str, Any]) -> int:
    """The samples the policy's decisions saw (their epochs' ``samples``): the count
    ``samples_local`` is a part of. Samples taken after the last decision, or in regions freed
    before any, are in ``faults_sampled`` but were never looked at."""
    return sum(e["samples"] for e in stats["epochs"])


def local_share_reason(stats: Mapping[str, Any]) -> str | None:
    """Why the local share of a stats file means nothing, or None when it does: one node
    (every access is local there), no samples (with the library's reason when it sampled
    nothing), or no policy decision that saw any."""
    if stats["nodes"] == 1:
        return "one NUMA node: every access is local"
    if stats["faults_sampled"] == 0:
        return f"no samples ({stats['source_reason']})" if stats["source"] == "none" and stats["source_reason"] else "no samples"
    if samples_seen(stats) == 0:
        return "no samples reached a policy decision"
    return None


def overall_local_share(stats: Mapping[str, Any]) -> float | None:
    """The share of the samples the policy's decisions saw that came from the node holding the
    page; None where that means nothing (:func:`local_share_reason`)."""
    if local_share_reason(stats) is not None:
        return None
    return min(1.0, stats["samples_local"] / samples_seen(stats))


def epoch_local_share(stats: Mapping[str, Any], epoch: Mapping[str, Any]) -> float | None:
    """An epoch's local share; None where it means nothing: one node, or a decision that saw
    no samples (the library writes 0 for those)."""
    if stats["nodes"] == 1 or epoch["samples"] == 0:
        return None
    return epoch["local_share"]


def thread_costs(stats: Mapping[str, Any]) -> list[float]:
    """Each faulting thread's cost of hinting faults, in seconds, in the file's order: its
    faults x the calibrated round trip + its time in the handler (empty without hinting
    faults)."""
    trip = stats["fault_round_trip_ns"]
    if trip is None:
        return []
    return [t["faults"] * trip / 1e9 + t["handler_s"] for t in stats["threads"]]


def sampling_cost(stats: Mapping[str, Any]) -> dict[str, Any]:
    """What sampling cost the run, as the library measured it in the process, in seconds:
    ``round_trips_s``, the hinting faults' trips through the kernel (``faults_handled`` x
    the ``fault_round_trip_ns`` calibrated at start-up; 0 without hinting faults),
    ``handler_s``, the time inside the fault handler, both summed over the program's threads;
    ``revoking_s``, the runtime's own time revoking and reopening pages and draining precise
    samples; ``summed_s``, the three added (CPU time: what the threads lost between them);
    ``critical_s``, the faults' cost on the critical path (``time_fault_critical_s``: per
    sampling interval, the slowest thread's); and ``total_s``, the estimate of the wall time
    sampling added: ``critical_s`` + ``revoking_s``. For one thread ``total_s`` equals
    ``summed_s``. The revoking is counted whole: the sampler thread's ``mprotect`` holds the
    process's memory map lock, which the faulting threads' own ``mprotect`` waits for, and
    its TLB shoot-downs interrupt them (docs/runtime.md, "What sampling costs, measured")."""
    trip = stats["fault_round_trip_ns"]
    parts = {
        "round_trips_s": 0.0 if trip is None else stats["faults_handled"] * trip / 1e9,
        "handler_s": stats["time_fault_handling_s"],
        "revoking_s": stats["time_revoking_s"],
    }
    critical = stats["time_fault_critical_s"]
    return {**parts, "summed_s": sum(parts.values()), "critical_s": critical, "total_s": critical + parts["revoking_s"]}


def summary(stats: Mapping[str, Any], path: str | Path | None = None) -> dict[str, Any]:
    """The figures ``numaplace report`` prints for one stats file, as plain data."""
    wall = stats["wall_s"]
    cost = sampling_cost(stats)
    return {
        "file": None if path is None else str(path),
        "program": stats["program"],
        "pid": stats["pid"],
        "nodes": stats["nodes"],
        "source": stats["source"],
        "source_reason": stats["source_reason"],
        "placement": stats["placement"],
        "dynamic": stats["dynamic"],
        "regions": len(stats["regions"]),
        "pages_moved": stats["pages_moved"],
        "move_failures": stats["move_failures"],
        "tier": stats["tier"],
        "promotions": stats["promotions"],
        "demotions": stats["demotions"],
        "low_memory_events": stats["low_memory_events"],
        "faults_forwarded": stats["faults_forwarded"],
        "faults_dropped": stats["faults_dropped"],
        "faults_sampled": stats["faults_sampled"],
        "samples_seen": samples_seen(stats),
        "samples_local": stats["samples_local"],
        "local_share": overall_local_share(stats),
        "local_share_reason": local_share_reason(stats),
        "faults_handled": stats["faults_handled"],
        "fault_round_trip_ns": stats["fault_round_trip_ns"],
        "time_fault_round_trips_s": cost["round_trips_s"],
        "time_fault_handling_s": cost["handler_s"],
        "time_revoking_s": cost["revoking_s"],
        "time_fault_critical_s": cost["critical_s"],
        "time_sampling_summed_s": cost["summed_s"],
        "time_sampling_s": cost["total_s"],
        "threads_faulting": len(stats["threads"]),
        "thread_cost_s": _spread(thread_costs(stats)),
        "time_migrating_s": stats["time_migrating_s"],
        "wall_s": wall,
        "sampling_share": cost["total_s"] / wall if wall else None,
        "overhead_share": (cost["total_s"] + stats["time_migrating_s"]) / wall if wall else None,
        "before": list(stats["before"]),
        "after": list(stats["after"]),
        "epochs": [dict(e) for e in stats["epochs"]],
    }


def _spread(costs: Sequence[float]) -> dict[str, float] | None:
    """The least, median and largest of per-thread costs (None for no thread)."""
    if not costs:
        return None
    c = sorted(costs)
    mid = len(c) // 2
    return {"min": c[0], "median": c[mid] if len(c) % 2 else (c[mid - 1] + c[mid]) / 2, "max": c[-1]}
