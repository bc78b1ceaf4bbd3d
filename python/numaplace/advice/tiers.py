""":func:`~numaplace.advice.advise` on a tiered machine: which tiering policy, how much fast
memory the program needs, and whether tiering is worth turning on (``docs/advise.md``, "On a
tiered machine").

On a machine with more than one memory tier (``_native.machine_tiers``, the simulator's own
derivation) advise adds, with the default placement (first touch) and the current set-up's
binding:

* **the tiering policies ranked** at the machine's declared capacity — no policy (the
  baseline) and every tiering policy from the registry (``numaplace policies``, ``tiering``:
  the policies that report the tier moves) — beside **all fast**, the same run with the fast
  tier as large as the whole machine (``fast_memory_mib``): a reference bound, not a choice;
* **the capacity curve**: the same runs with the fast tier resized (the run option
  ``fast_memory_mib``) to each fraction of the trace's footprint in :data:`CAPACITY_GRID`;
  the smallest capacity whose best run is within :data:`WITHIN` of all fast;
* **the verdict**: the best tiering policy against no policy at the declared capacity, worth
  turning on when it saves at least the worth-it threshold (:data:`numaplace.diagnose.WORTH_IT`,
  the one ``advise`` applies to every change).

The runs are planned here (:func:`plan_tiers`) and executed with the other runs of the advice.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from numaplace import _native, diagnose
from numaplace._native import NumaplaceError
from numaplace.advice.plan import BASELINE, NO_POLICY

if TYPE_CHECKING:
    import pandas as pd

CAPACITY_GRID: tuple[Fraction, ...] = tuple(Fraction(1, d) for d in (32, 16, 8, 4, 2, 1))
"""The fast-tier capacities of the curve, as fractions of the trace's footprint (its pages):
from 1/32, the smallest share the tiering papers run (HybridTier's 1:32), doubling up to the
whole footprint, where every page fits in the fast tier. Each is rounded up to whole pages."""

WITHIN = 0.05
"""How close to all fast a capacity's time must be to be "enough fast memory": 5 %."""

ALL_FAST = "all fast"
"""The label of the reference run: first touch, no policy, the fast tier as large as the machine."""

TIER_COLUMNS = ("rank", "dynamic", "reference", "time_ns", "vs_no_policy", "fast_fraction", "migrations", "runnable",
                "why_not_runnable")
"""The columns of :attr:`Advice.tiering` (the ranking at the declared capacity). ``vs_no_policy`` is
the time over no policy's, minus 1; ``fast_fraction`` the share of the timed transactions served
by the fast tier; ``reference`` marks the all-fast row (``rank`` 0: not a choice)."""

CURVE_COLUMNS = ("fraction", "fast_pages", "fast_mib", "dynamic", "time_ns", "vs_all_fast", "fast_fraction", "migrations")
"""The columns of :attr:`Advice.capacity_curve`: one row per capacity and dynamic setting
(``fraction`` of the footprint, as text such as ``1/8`` or ``1/1``; ``vs_all_fast`` the time over all
fast's, minus 1)."""


def fraction_text(f: Fraction) -> str:
    """A fraction of the grid as text, always ``n/d`` (``1/32``, ``1/1``)."""
    return f"{f.numerator}/{f.denominator}"


def tiering_policies() -> list[str]:
    """The tiering policies the simulator drives, in registry order (their capabilities: ``tiering``)."""
    out = []
    for p in json.loads(_native.policies()):
        if not p["tiering"]:
            continue
        try:
            _native.check_spec("dynamic", p["name"], "simulator")
        except NumaplaceError:
            continue
        out.append(p["name"])
    return out


@dataclass(frozen=True)
class TierPlan:
    """What the tiered part of an advice runs: ``runs`` are ``(key, config)`` pairs, ``key``
    ``("all fast", None)`` for the reference and ``(fraction, dynamic)`` for a point of the curve."""

    machine: dict[str, Any]
    policies: list[str]
    binding: str
    footprint_pages: int
    points: list[tuple[Fraction, int]]
    """The curve's capacities: each fraction and its pages (fractions that round to the same
    pages, or to less than a page per fast node, are left out)."""
    runs: list[tuple[tuple[Any, str | None], dict[str, Any]]]
    notes: list[str]

    @property
    def page_size(self) -> int:
        return int(self.machine["page_size"])

    def mib(self, pages: int) -> float:
        return pages * self.page_size / 2**20


def machine_tiers(machine: str) -> dict[str, Any]:
    """The machine's tiers as the simulator derives them (``_native.machine_tiers``)."""
    return json.loads(_native.machine_tiers(machine))


def plan_tiers(tiers: dict[str, Any], options: dict[str, Any], footprint_pages: int, binding: str) -> TierPlan:
    """The extra runs of a tiered advice: all fast, and every capacity of :data:`CAPACITY_GRID`
    with no policy and each tiering policy (first touch, ``binding``, the other ``options``)."""
    policies = tiering_policies()
    fast_nodes = sum(1 for t, c in zip(tiers["tier"], tiers["capacity_pages"]) if t == 0 and c > 0)
    points: list[tuple[Fraction, int]] = []
    notes: list[str] = []
    for f in CAPACITY_GRID:
        pages = math.ceil(f * footprint_pages)
        if pages < fast_nodes:
            notes.append(f"capacity curve: {fraction_text(f)} of the footprint is less than a page per fast node: left out")
        elif pages not in [p for _, p in points]:
            points.append((f, pages))
    base = {**options, "placement": BASELINE[0], "binding": binding}
    page_size = int(tiers["page_size"])
    runs: list[tuple[tuple[Any, str | None], dict[str, Any]]] = [
        ((ALL_FAST, None), {**base, "dynamic": NO_POLICY, "fast_memory_mib": tiers["total_pages"] * page_size / 2**20})
    ]
    for f, pages in points:
        for dy in [NO_POLICY, *policies]:
            runs.append(((f, dy), {**base, "dynamic": dy, "fast_memory_mib": pages * page_size / 2**20}))
    return TierPlan(tiers, policies, binding, footprint_pages, points, runs, notes)


def _fast_fraction(r: dict[str, Any], tier: list[int]) -> float:
    per = r["per_node_transactions"]
    total = sum(per)
    return sum(n for n, t in zip(per, tier) if t == 0) / total if total else 0.0


def tables(tp: TierPlan, outcomes: list[dict[str, Any] | None], declared: list[tuple[str, dict[str, Any]]],
           calls: bool | None) -> tuple[dict[str, Any], list[str]]:
    """The tiered advice's data from the runs: ``tiering`` (the ranking at the declared
    capacity, from ``declared``: the main table's first-touch runs of no policy and each tiering
    policy, as ``(dynamic, result)``), ``capacity_curve``, and the notes on runs that failed."""
    import pandas as pd

    from numaplace.advice.plan import runnable

    tier = tp.machine["tier"]
    results: dict[tuple[Any, str | None], dict[str, Any]] = {}
    failed: dict[str, list[tuple[Any, str | None]]] = {}
    for (key, _), o in zip(tp.runs, outcomes):
        assert o is not None
        if o["status"] == "ok":
            results[key] = o["result"]
        else:
            failed.setdefault(o["error"], []).append(key)
    notes = []
    for error, keys in failed.items():
        # A setting that failed at every capacity is named once.
        whats = []
        for dy in dict.fromkeys(dy for f, dy in keys if f != ALL_FAST):
            at = [f for f, d in keys if d == dy]
            every = len(at) == len(tp.points)
            whats.append(f"{dy} at every capacity" if every else f"{dy} at {', '.join(fraction_text(f) for f in at)} of the footprint")
        if (ALL_FAST, None) in keys:
            whats.insert(0, ALL_FAST)
        notes.append(f"capacity curve: not run: {'; '.join(whats)}: {error}")
    ref = results.get((ALL_FAST, None))
    rows = []
    none_time = next((float(r["total_time_ns"]) for dy, r in declared if dy == NO_POLICY), math.nan)
    for dy, r in declared:
        why = runnable(BASELINE[0], dy, calls)
        rows.append({"dynamic": dy, "reference": False, "time_ns": float(r["total_time_ns"]),
                     "fast_fraction": _fast_fraction(r, tier), "migrations": int(r["migrations"]),
                     "runnable": why is None, "why_not_runnable": why or ""})
    ranking = pd.DataFrame(rows, columns=[c for c in TIER_COLUMNS if c not in ("rank", "vs_no_policy")])
    if not ranking.empty:
        ranking = ranking.sort_values("time_ns", kind="stable").reset_index(drop=True)
    ranking["rank"] = range(1, len(ranking) + 1)
    if ref is not None:
        row = {"rank": 0, "dynamic": ALL_FAST, "reference": True, "time_ns": float(ref["total_time_ns"]),
               "fast_fraction": _fast_fraction(ref, tier), "migrations": int(ref["migrations"]), "runnable": False,
               "why_not_runnable": "a reference: the fast tier as large as the whole machine"}
        ranking = pd.concat([ranking, pd.DataFrame([row])], ignore_index=True)
    ranking["vs_no_policy"] = ranking["time_ns"] / none_time - 1.0
    ranking = ranking[list(TIER_COLUMNS)]
    curve_rows = []
    ref_time = float(ref["total_time_ns"]) if ref is not None else math.nan
    for f, pages in tp.points:
        for dy in [NO_POLICY, *tp.policies]:
            r = results.get((f, dy))
            if r is None:
                continue
            curve_rows.append({"fraction": fraction_text(f), "fast_pages": pages, "fast_mib": tp.mib(pages), "dynamic": dy,
                               "time_ns": float(r["total_time_ns"]), "vs_all_fast": float(r["total_time_ns"]) / ref_time - 1.0,
                               "fast_fraction": _fast_fraction(r, tier), "migrations": int(r["migrations"])})
    curve = pd.DataFrame(curve_rows, columns=list(CURVE_COLUMNS))
    data = {
        "tiering": ranking,
        "capacity_curve": curve,
        "footprint_pages": tp.footprint_pages,
        "declared_fast_pages": int(tp.machine["fast_pages"]),
        "page_size": tp.page_size,
        "binding": tp.binding,
        "policies": list(tp.policies),
    }
    return data, tp.notes + notes


def fast_needed(curve: pd.DataFrame) -> dict[str, Any] | None:
    """The smallest capacity of the curve at which the fastest run (no policy or a tiering
    policy) is within :data:`WITHIN` of all fast: that row (None: no capacity on the grid is)."""
    if curve.empty:
        return None
    for pages in sorted(curve["fast_pages"].unique()):
        at = curve[curve["fast_pages"] == pages].sort_values("time_ns", kind="stable")
        best = at.iloc[0]
        if best["vs_all_fast"] <= WITHIN:
            return best.to_dict()
    return None


def verdict(ranking: pd.DataFrame) -> dict[str, Any] | None:
    """Whether tiering is worth turning on at the declared capacity: the best tiering policy
    against no policy; worth it when it saves at least :data:`diagnose.WORTH_IT` of no policy's
    time. None when there is no policy row or no tiering policy ran."""
    runs = ranking[~ranking["reference"]]
    none = runs[runs["dynamic"] == NO_POLICY]
    pols = runs[runs["dynamic"] != NO_POLICY]
    if none.empty or pols.empty:
        return None
    n, best = none.iloc[0], pols.iloc[0]
    saves = 1.0 - float(best["time_ns"]) / float(n["time_ns"])
    return {"best_policy": str(best["dynamic"]), "saves": saves, "threshold": diagnose.WORTH_IT,
            "worth_it": saves >= diagnose.WORTH_IT, "no_policy_best": bool(runs.iloc[0]["dynamic"] == NO_POLICY)}
