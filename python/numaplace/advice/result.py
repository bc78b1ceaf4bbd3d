"""The result of :func:`~numaplace.advice.advise` as data: :class:`Advice`, its table of
:data:`COLUMNS`, its picks, and the plain data (``to_dict``, ``to_json``, ``to_csv``) the
command writes. How it reads as text and as a chart is :mod:`numaplace.advice.render`."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from numaplace import diagnose
from numaplace.advice import tiers as tp
from numaplace.advice.plan import BASELINE, NO_POLICY, run_command
from numaplace.advice.render import AdviceView, combo

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = (
    "rank",
    "placement",
    "dynamic",
    "binding",
    "current",
    "time_ns",
    "slowdown",
    "local_fraction",
    "local_vs_bound",
    "time_vs_bound",
    "migrations",
    "replications",
    "policy_overhead_ns",
    "runnable",
    "why_not_runnable",
)
"""The columns of :attr:`Advice.table` (and ``--csv``), in order. ``slowdown`` is the time over
the fastest row's; ``binding`` how the threads sit on the nodes (the ``binding`` run option's
values); ``current`` marks the set-up the trace was recorded under (first touch, no policy, the
default binding); ``local_vs_bound`` the row's local share minus the bound's (at most 0 for a
static placement; above 0 when a dynamic policy beats the static bound); ``time_vs_bound`` the
row's time over the bound's, minus 1 (below 0 when faster: the bound is not a time bound)."""


@dataclass(repr=False)
class Advice(AdviceView):
    """What :func:`~numaplace.advice.advise` found.

    ``table`` is a pandas DataFrame of :data:`COLUMNS`, one row per combination, fastest first
    (``rank`` 1); ``best``, ``best_runnable`` and ``bound`` are rows of it as dicts (None when
    there is none); ``command`` is the ``numaplace run`` command line of ``best_runnable``;
    ``notes`` says what was left out and why. On a one-node machine ``one_node`` is true, the
    table is empty and :meth:`format` says there is nothing to choose.
    """

    trace: str
    machine: str
    nodes: int
    cpus: int
    seed: int
    trace_info: dict[str, Any]
    table: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    detected: bool = False
    bound_placement: str | None = None
    diagnosis: list[diagnose.ObjectDiagnosis] = field(default_factory=list)
    """The data objects that lose the most locality, diagnosed (:mod:`numaplace.diagnose`)."""
    objects: dict[str, Any] | None = None
    """The per-object tally the diagnosis read (``_native.trace_objects``), for the heat maps."""
    program: list[str] | None = None
    """The command line the trace was recorded from (None: not a recording)."""
    default_binding: str = "spread"
    binding_nodes: dict[str, list[int]] = field(default_factory=dict)
    """The node of each thread under each binding run."""
    tiers: dict[str, Any] | None = None
    """On a tiered machine, the tiered advice's data (:func:`numaplace.advice.tiers.tables`): read
    it through :attr:`tiering`, :attr:`capacity_curve`, :attr:`fast_needed` and
    :attr:`tiering_verdict`. None on a machine of one tier."""

    def __repr__(self) -> str:
        if self.one_node:
            return f"<Advice {self.trace} on {self.machine}: one node, nothing to choose>"
        best, br = self.best, self.best_runnable
        runnable_part = f"; best runnable {combo(br)}" if br is not None and br["rank"] != best["rank"] else ""
        return f"<Advice {self.trace} on {self.machine}: {len(self.table)} combinations; best {combo(best)}{runnable_part}>"

    @property
    def one_node(self) -> bool:
        return self.nodes == 1

    def _row(self, mask: Any) -> dict[str, Any] | None:
        rows = self.table[mask] if len(self.table) else self.table
        return None if rows.empty else rows.iloc[0].to_dict()

    @property
    def best(self) -> dict[str, Any] | None:
        return self._row(slice(None)) if len(self.table) else None

    @property
    def best_runnable(self) -> dict[str, Any] | None:
        return self._row(self.table["runnable"]) if len(self.table) else None

    @property
    def bound(self) -> dict[str, Any] | None:
        """The bound's row for the current set-up's binding (each binding has its own bound)."""
        return self._row(self._bound_mask()) if len(self.table) else None

    def _bound_mask(self) -> Any:
        t = self.table
        binding = self.current["binding"] if t["current"].any() else t["binding"].iloc[0]
        return t["placement"].eq(self.bound_placement) & t["dynamic"].eq(NO_POLICY) & t["binding"].eq(binding)

    @property
    def command(self) -> str | None:
        r = self.best_runnable
        return None if r is None else run_command(r["placement"], r["dynamic"], r["binding"], self.program)

    @property
    def numactl(self) -> str | None:
        """The best runnable combination with plain ``numactl``, where numactl does it."""
        r = self.best_runnable
        if r is None:
            return None
        nodes = self.binding_nodes.get(r["binding"], [])
        return diagnose.numactl_command(r["placement"], r["dynamic"], r["binding"], nodes, self.program)

    @property
    def current(self) -> dict[str, Any] | None:
        """The row of the set-up the trace was recorded under: first touch, no policy, the default binding."""
        return self._row(self.table["current"]) if len(self.table) else None

    @property
    def gain(self) -> float | None:
        """The share of the current set-up's simulated time the best runnable combination saves."""
        c, r = self.current, self.best_runnable
        return None if c is None or r is None else 1.0 - r["time_ns"] / c["time_ns"]

    @property
    def change_nothing(self) -> bool:
        """True when no runnable combination saves at least :data:`diagnose.WORTH_IT` of the time."""
        g = self.gain
        return g is None or g < diagnose.WORTH_IT

    @property
    def tiered(self) -> bool:
        """Whether the machine has more than one memory tier (and the advice its tiered part)."""
        return self.tiers is not None

    @property
    def tiering(self) -> pd.DataFrame | None:
        """On a tiered machine: no policy and every tiering policy at the declared fast-tier
        capacity (first touch, the current binding), fastest first, and the all-fast reference
        (``rank`` 0): a DataFrame of :data:`~numaplace.advice.tiers.TIER_COLUMNS`. None otherwise."""
        return None if self.tiers is None else self.tiers["tiering"]

    @property
    def capacity_curve(self) -> pd.DataFrame | None:
        """On a tiered machine: time against fast-tier capacity, one row per capacity of
        :data:`~numaplace.advice.tiers.CAPACITY_GRID` and dynamic setting (no policy and each
        tiering policy): a DataFrame of :data:`~numaplace.advice.tiers.CURVE_COLUMNS`. None otherwise."""
        return None if self.tiers is None else self.tiers["capacity_curve"]

    @property
    def fast_needed(self) -> dict[str, Any] | None:
        """The smallest capacity of the curve whose fastest run is within 5 % of all fast
        (:func:`~numaplace.advice.tiers.fast_needed`), as its curve row; None if none is (or one tier)."""
        return None if self.tiers is None else tp.fast_needed(self.tiers["capacity_curve"])

    @property
    def tiering_verdict(self) -> dict[str, Any] | None:
        """Whether tiering is worth turning on (:func:`~numaplace.advice.tiers.verdict`): ``best_policy``,
        ``saves`` (its share of no policy's time at the declared capacity), ``threshold``,
        ``worth_it``, ``no_policy_best``. None on a machine of one tier."""
        return None if self.tiers is None else tp.verdict(self.tiers["tiering"])

    def to_csv(self) -> str:
        """The table as CSV text (every row, full precision)."""
        return self.table.to_csv(index=False, lineterminator="\n")

    def to_dict(self) -> dict[str, Any]:
        """Everything as plain data: what was advised on, the rows, the picks and the notes."""
        rows = [{k: _plain(v) for k, v in r.items()} for r in self.table.to_dict("records")]
        pick = lambda r: None if r is None else {k: _plain(v) for k, v in r.items()}  # noqa: E731
        out = {
            "trace": self.trace,
            "machine": self.machine,
            "nodes": self.nodes,
            "cpus": self.cpus,
            "seed": self.seed,
            "one_node": self.one_node,
            "rows": rows,
            "best": pick(self.best),
            "best_runnable": pick(self.best_runnable),
            "bound": pick(self.bound),
            "command": self.command,
            "numactl": self.numactl,
            "current": pick(self.current),
            "gain": self.gain,
            "threshold": diagnose.WORTH_IT,
            "change_nothing": self.change_nothing,
            "program": self.program,
            "diagnosis": diagnose.as_rows(self.diagnosis),
            "depends": self.depends(),
            "notes": list(self.notes),
        }
        if self.tiers is not None:  # only on a tiered machine: a one-tier advice is as it was
            frame = lambda df: [{k: _plain(v) for k, v in r.items()} for r in df.to_dict("records")]  # noqa: E731
            needed = self.fast_needed
            out["tiers"] = {
                "footprint_pages": self.tiers["footprint_pages"],
                "declared_fast_pages": self.tiers["declared_fast_pages"],
                "page_size": self.tiers["page_size"],
                "binding": self.tiers["binding"],
                "placement": BASELINE[0],
                "capacity_grid": [tp.fraction_text(f) for f in tp.CAPACITY_GRID],
                "within": tp.WITHIN,
                "tiering": frame(self.tiers["tiering"]),
                "capacity_curve": frame(self.tiers["capacity_curve"]),
                "fast_needed": None if needed is None else {k: _plain(v) for k, v in needed.items()},
                "verdict": self.tiering_verdict,
            }
        return out

    def depends(self) -> list[str]:
        """What the advice depends on beyond the machine, in words (:func:`diagnose.depends`)."""
        return diagnose.depends(self.trace_info, self.table)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"


def _plain(v: Any) -> Any:
    """A table value as plain JSON data (numpy scalars to Python's)."""
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v

