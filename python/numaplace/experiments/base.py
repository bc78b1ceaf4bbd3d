"""What an experiment is: :class:`Experiment` (the runs to make and how to read their results),
:class:`Claim` (one published finding checked against the simulation) and :data:`RunConfig`
(the keyword arguments of one run)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import pandas as pd
from matplotlib.figure import Figure

from numaplace.experiments.fidelity import Fidelity, Published
from numaplace.grid import Grid

RunConfig = dict[str, Any]
"""Keyword arguments of one ``numaplace.simulate`` call.

Moved here unchanged from ``report.py``; it restates the run request, and is to be replaced by
the run-request table (issue 11)."""


NAS_CLASS = {Grid.TEST: "S", Grid.QUICK: "W", Grid.FULL: "A"}
"""The NAS class the seeds' NAS kernels run at on each grid (seeds 000, 001 and 003; seed 002
sets its own)."""


class SupportsToDict(Protocol):
    """What ``simulate`` returns: a result convertible to the documented dict schema."""

    def to_dict(self) -> dict[str, Any]: ...


Simulate = Callable[..., SupportsToDict]
"""A stand-in for :func:`numaplace.simulate` (tests pass fakes): keyword arguments → result."""


@dataclass(frozen=True)
class Experiment:
    """One reproducible experiment of the report.

    Attributes:
        id: Short stable name, used on the command line and as the chart's file name.
        title: Heading in the report.
        description: One paragraph for the report, citing the seed section reproduced.
        runs: Given the :class:`Grid`, the ``simulate`` keyword arguments of every run, in order.
        analyse: Given this experiment's rows of the results frame (index reset, in run
            order), the table shown in the report and a figure.
        followup: Optional second stage: given the :class:`Grid` and this experiment's rows from
            ``runs`` (as ``analyse`` gets them), the keyword arguments of runs that depend on
            those results (seed 003's migration period is scaled to the run time without a
            policy). Their rows follow, numbered on from ``runs``'.
        seed: The seed paper reproduced, a key of :data:`numaplace.experiments.PAPERS`; the
            report names the paper in the section's heading and cites it in full.
        claims: Optional: given the rows ``analyse`` gets, the seed's findings checked against
            them (the same :class:`Claim` values ``analyse`` prints in its table); the report's
            summary lists them first.
        fidelity: Optional: given the rows ``analyse`` gets, the seed's published numbers these
            runs compute, each beside the simulated value
            (:class:`~numaplace.experiments.fidelity.Fidelity`, in the order of the seed
            module's ``PUBLISHED``); the report's fidelity table for the seed lists them.
        fidelity_headline: Optional: the group of those numbers
            (:attr:`~numaplace.experiments.fidelity.Published.group`) whose median error the
            report's summary quotes beside the seed's overall one.
    """

    id: str
    title: str
    description: str
    runs: Callable[[Grid], list[RunConfig]]
    analyse: Callable[[pd.DataFrame], tuple[pd.DataFrame, Figure]]
    followup: Callable[[Grid, pd.DataFrame], list[RunConfig]] | None = None
    seed: str | None = None
    claims: Callable[[pd.DataFrame], list[Claim]] | None = None
    fidelity: Callable[[pd.DataFrame], list[Fidelity]] | None = None
    fidelity_headline: str = ""


@dataclass(frozen=True)
class Claim:
    """One of a seed paper's findings, restated as a condition, and whether the simulation meets it.

    Attributes:
        id: The claim's short name (``"C1"`` ... ``"C8"``, as issue 4 numbered them).
        statement: The condition tested, in one line.
        paper: The published result the statement restates: where in the seed, with the
            published figures or finding where this repository records them (the experiment
            descriptions and module documents); the report does not print it.
        measured: The simulated figures the verdict is computed from, by name.
        holds: Whether the simulation meets the statement.
        why: The figures behind the verdict as the report prints them (one line).
        brief: The simulated figures beside the published ones (or, where the seed gives no
            figure, the claim's bound), short enough for one line of the report's summary.
        not_reproduced: Empty for a claim; otherwise the reason a published finding is shown
            but not claimed (the seed does not describe the mechanism enough to model it).
            Its verdict is "not reproduced", whatever ``holds`` says, and the report's count of
            claims that hold leaves it out.
        compared: The published numbers the claim restates (its seed module's declarations,
            each one a row of its experiment's fidelity table); the report's summary prints the
            median error of those rows beside the verdict, so the two never disagree. Empty
            where the claim restates no published number.
    """

    id: str
    statement: str
    paper: str
    measured: Mapping[str, float]
    holds: bool
    why: str
    brief: str = ""
    not_reproduced: str = ""
    compared: Sequence[Published] = ()

    @property
    def verdict(self) -> str:
        """``"holds"``, ``"fails"`` or ``"not reproduced"``."""
        if self.not_reproduced:
            return "not reproduced"
        return "holds" if self.holds else "fails"


CLAIM_COLUMNS = ("claim", "holds", "simulated")
"""The columns of :func:`claims_table`."""


def claims_table(claims: Sequence[Claim]) -> pd.DataFrame:
    """The report's table of claims: ``"<id>: <statement>"``, ``holds``/``fails``, and the figures."""
    return pd.DataFrame(
        [(f"{c.id}: {c.statement}", c.verdict, c.why + (f" — not reproduced: {c.not_reproduced}" if c.not_reproduced else "")) for c in claims],
        columns=list(CLAIM_COLUMNS),
    )
