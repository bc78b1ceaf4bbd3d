"""Running :func:`advise`: the trace checked, the machine loaded (or this host detected), the
plan's runs executed as a sweep's are, and the runs that succeeded ranked into the table."""

from __future__ import annotations

import json
import math
import os
import stat
import tempfile
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from numaplace import _native, diagnose, topo
from numaplace._native import NumaplaceError
from numaplace.advice.plan import BASELINE, NO_POLICY, AdviceError, Plan, plan, runnable
from numaplace.advice.render import combo
from numaplace.advice.result import COLUMNS, Advice
from numaplace.advice.tiers import machine_tiers, plan_tiers
from numaplace.advice.tiers import tables as tier_tables
from numaplace.outfile import write_output

if TYPE_CHECKING:
    import pandas as pd


def detect_host(sysfs: str | None = None) -> str:
    """This host as machine TOML text, as ``numaplace topo --detect`` writes it (``sysfs``: the
    node directory to read instead of ``/sys/devices/system/node``)."""
    return topo.detect(topo.SYSFS if sysfs is None else sysfs)


def _check_trace(trace: str) -> None:
    """A trace is replayed once per combination (and twice for the bound): a regular file."""
    try:
        st = os.stat(trace)
    except FileNotFoundError:
        raise AdviceError(f"trace {trace}: no such file") from None
    except OSError as e:
        raise AdviceError(f"trace {trace}: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise AdviceError(f"trace {trace}: is a directory (give a trace file)")
    if not stat.S_ISREG(st.st_mode):
        raise AdviceError(f"trace {trace}: not a regular file (advise replays the trace once per combination; save it to a file)")


def advise(
    trace: str | os.PathLike[str],
    machine: str | None = None,
    *,
    seed: int | None = None,
    binding: str | None = None,
    oversubscribe: bool | None = None,
    jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool | None = None,
    sysfs: str | None = None,
) -> Advice:
    """Replays ``trace`` under every applicable placement and dynamic policy on ``machine`` and
    ranks them (module doc; ``docs/advise.md``).

    ``machine`` is a preset name or a machine file; by default, this host as ``numaplace topo
    --detect`` describes it (read from ``sysfs``, default ``/sys/devices/system/node``). On a
    one-node machine nothing is run: the advice says there is nothing to choose. ``seed``,
    ``binding`` and ``oversubscribe`` are the run options of every replay. The runs execute as
    a sweep's do: ``jobs`` local worker processes (default: the CPUs; 0: this process) or, with
    ``scheduler``, on a Dask cluster; ``progress`` draws a bar of runs (None: where someone
    can see it). On a tiered machine the advice has its tiered part (:mod:`numaplace.advice.tiers`),
    whose runs (each capacity of its grid with each tiering setting, and all fast) go with the others.

    Raises:
        NumaplaceError: a missing or malformed trace, an unknown machine, a trace the machine
            cannot run (more threads than CPUs without ``oversubscribe``, a footprint larger
            than its memory), or bad execution settings — one line each.
    """
    from numaplace.api import check_option, machine as load_machine, simulate, trace_info
    from numaplace.sweep import execute, make_backend, run_id
    from numaplace.sweep.backends import _check_jobs, _check_scheduler

    from numaplace.api import check_text

    trace = check_text("trace", os.fspath(trace) if isinstance(trace, os.PathLike) else trace)
    if sysfs is not None:
        check_text("sysfs", os.fspath(sysfs) if isinstance(sysfs, os.PathLike) else sysfs)
    if progress is not None and not isinstance(progress, bool):
        raise AdviceError(f"progress = {progress!r}: expected True, False or None")
    _check_trace(trace)
    info = trace_info(trace)  # reads it all: a malformed trace is refused here, in its own words
    if info.get("format") == "line":
        raise AdviceError(f"trace {trace}: a line-level trace (format version 2, for the protocol engine): advise ranks"
                          " page placements and policies, which replay page-level traces (numaplace trace export"
                          " without a protocol machine, or numaplace record)")
    _check_jobs(jobs)
    _check_scheduler(scheduler)
    with tempfile.TemporaryDirectory(prefix="numaplace-advise-") as tmp:
        detected = machine is None
        if detected:
            machine = os.path.join(tmp, "this-host.toml")
            write_output(machine, "the detected machine file", detect_host(sysfs))
        m = load_machine(check_option("machine", machine))
        nodes, cpus = len(m["nodes"]), sum(n["cpus"] for n in m["nodes"])
        # Every replay on the page-level engine, which is what advise ranks placements and
        # policies on: a machine with a [protocol] table would otherwise pick the protocol
        # engine, which replays line-level traces only, and refuse the trace in its own words.
        options = {"machine": machine, "trace": trace, "engine": "page"}
        for name, value in (("seed", seed), ("oversubscribe", oversubscribe)):
            if value is not None:
                options[name] = check_option(name, value)
        all_bindings, default_binding = diagnose.bindings()
        binds = [check_option("binding", binding)] if binding is not None else all_bindings
        used_seed = seed if seed is not None else 0
        program = diagnose.recorded_program(dict(info.get("meta", [])))
        advice = dict(trace=trace, machine=m["name"], nodes=nodes, cpus=cpus, seed=used_seed, trace_info=info, detected=detected,
                      program=program, default_binding=default_binding)
        if nodes == 1:
            import pandas as pd

            return Advice(table=pd.DataFrame(columns=list(COLUMNS)), **advice)
        p = plan(nodes)
        runs = [(pl, dy, b) for b in binds for pl, dy in p.runs]
        configs = [{**options, "placement": pl, "dynamic": dy, "binding": b} for pl, dy, b in runs]
        # The baseline first, here: a trace this machine cannot run fails here, as `sim` would.
        base = (*BASELINE, binds[0] if default_binding not in binds else default_binding)
        # On a tiered machine, the tiering policies against capacity (advice.tiers): their runs
        # go with the others, after them.
        tiers = machine_tiers(machine)
        tp = plan_tiers(tiers, options, int(info["pages"]), base[2]) if tiers["tiered"] else None
        main = len(configs)
        configs += [c for _, c in tp.runs] if tp else []
        outcomes: list[dict[str, Any] | None] = [None] * len(configs)
        first = runs.index(base) if base in runs else 0
        r = simulate(**configs[first], progress=progress)
        outcomes[first] = {"status": "ok", "error_type": None, "error": None, "result": r.to_dict()}
        todo = [i for i in range(len(configs)) if outcomes[i] is None]

        def record(k: int, outcome: dict[str, Any], attempts: int) -> None:
            outcomes[todo[k]] = outcome

        if todo:
            backend = make_backend(scheduler, jobs, runs=len(todo))
            planned = [(run_id(configs[i]), configs[i]) for i in todo]
            execute(planned, backend, record, progress={None: True, True: "always", False: False}[progress], desc="advise")
        calls = diagnose.calls_the_api(program[0]) if program else None
        nodes_of = {b: json.loads(_native.thread_nodes(machine, info["threads"], b, bool(oversubscribe))) for b in binds}
        table, notes = _table(p, runs, outcomes[:main], calls, default_binding)
        tier_data = None
        if tp is not None:
            mine = {(BASELINE[0], dy, base[2]) for dy in (NO_POLICY, *tp.policies)}
            declared = [(dy, o["result"]) for (pl, dy, b), o in zip(runs, outcomes[:main])
                        if (pl, dy, b) in mine and o is not None and o["status"] == "ok"]
            tier_data, tier_notes = tier_tables(tp, outcomes[main:], declared, calls)
            notes += tier_notes
        objects, found = None, []
        try:
            objects = diagnose.tally(trace, machine, base[2], bool(oversubscribe))
            objects["binding"] = base[2]
            found = diagnose.diagnose(objects)
            diagnose.add_mover(found, _mover(table))
        except NumaplaceError as e:
            notes.append(f"no diagnosis of the data objects: {e}")
        if program and calls is None:
            notes.append(f"the recorded program {program[0]} was not found here: advise assumes it does not call"
                         " numaplace_migrate() (run advise where it was recorded)")
        return Advice(table=table, notes=p.notes + notes, bound_placement=p.bound, diagnosis=found, objects=objects,
                      binding_nodes=nodes_of, tiers=tier_data, **advice)


def _mover(t: pd.DataFrame) -> tuple[str, float] | None:
    """The fastest runnable dynamic policy from first touch with the current set-up's binding,
    and the share of the current set-up's time it saves (None: no such row)."""
    if t.empty or not t["current"].any():
        return None
    cur = t[t["current"]].iloc[0]
    rows = t[t["runnable"] & (t["placement"] == cur["placement"]) & (t["binding"] == cur["binding"]) & (t["dynamic"] != NO_POLICY)]
    if rows.empty:
        return None
    r = rows.iloc[0]
    return str(r["dynamic"]), 1.0 - float(r["time_ns"]) / float(cur["time_ns"])


def _combos(p: Plan, combos: list[tuple[str, str]]) -> str:
    """Failed combinations, named shortly: the policies that failed with every placement they
    were planned with, by name, then any other combinations one by one."""
    failed = set(combos)
    named, rest = [], []
    for dy in dict.fromkeys(d for _, d in combos):
        with_it = [(pl, d) for pl, d in p.runs if d == dy]
        if all(c in failed for c in with_it) and len(with_it) > 1:
            named.append(dy)
            failed -= set(with_it)
    rest = [combo({"placement": pl, "dynamic": dy}) for pl, dy in combos if (pl, dy) in failed]
    parts = ([f"{', '.join(named)} (with every placement)"] if named else []) + rest
    return ", ".join(parts)


def _table(p: Plan, runs: Sequence[tuple[str, str, str]], outcomes: Sequence[dict[str, Any] | None],
           calls: bool | None, default_binding: str) -> tuple[pd.DataFrame, list[str]]:
    """The ranked table of the runs that succeeded, and a note per reason runs failed."""
    import pandas as pd

    failed: dict[str, list[tuple[str, str]]] = {}
    rows = []
    for (pl, dy, b), o in zip(runs, outcomes):
        assert o is not None
        if o["status"] != "ok":
            if (pl, dy) not in failed.setdefault(o["error"], []):
                failed[o["error"]].append((pl, dy))
            continue
        r = o["result"]
        why = runnable(pl, dy, calls)
        rows.append(
            {
                "placement": pl,
                "dynamic": dy,
                "binding": b,
                "current": (pl, dy, b) == (*BASELINE, default_binding),
                "time_ns": float(r["total_time_ns"]),
                "local_fraction": float(r["local_fraction"]),
                "migrations": int(r["migrations"]),
                "replications": int(r["replications"]),
                "policy_overhead_ns": float(r["policy_overhead_ns"]),
                "runnable": why is None,
                "why_not_runnable": why or "",
            }
        )
    notes = [f"not run: {_combos(p, combos)}: {error}" for error, combos in failed.items()]
    df = pd.DataFrame(rows)
    if df.empty:
        return pd.DataFrame(columns=list(COLUMNS)), notes
    # Ranked by time; a tie keeps the plan's order (a stable sort), so the ranking is deterministic.
    df = df.sort_values("time_ns", kind="stable").reset_index(drop=True)
    df["rank"] = range(1, len(df) + 1)
    df["slowdown"] = df["time_ns"] / df["time_ns"].min()
    # Each row against the bound of its own binding (the bound is the best static placement for
    # the threads where they sit).
    df["local_vs_bound"] = math.nan
    df["time_vs_bound"] = math.nan
    for binding in df["binding"].unique():
        same = df["binding"] == binding
        bound = df[same & (df["placement"] == p.bound) & (df["dynamic"] == NO_POLICY)] if p.bound else df.iloc[0:0]
        if not bound.empty:
            b = bound.iloc[0]
            df.loc[same, "local_vs_bound"] = df.loc[same, "local_fraction"] - b["local_fraction"]
            df.loc[same, "time_vs_bound"] = df.loc[same, "time_ns"] / b["time_ns"] - 1.0
    return df[list(COLUMNS)], notes

