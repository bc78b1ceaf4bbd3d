"""How large the report's experiment runs are: :class:`Grid`, declared here once, outside
:mod:`numaplace.experiments` (which imports pandas and matplotlib), so that the command line can
list the grids without importing them."""

from __future__ import annotations

from enum import Enum

__all__ = ["Grid"]


class Grid(str, Enum):
    """How large the experiments' runs are: every experiment's ``runs`` (and ``followup``) is
    given one, and each seed module says what it means for its runs.

    * ``QUICK`` — ``numaplace reproduce``'s default: small problem sizes (the NAS kernels at
      class W), minutes on two cores; its verdicts are a quick check.
    * ``FULL`` — ``--full``: the seeds' own sizes, where the claims are asked.
    * ``TEST`` — the smallest grid that still makes every run, section, table, chart and claim
      of the report (the NAS kernels at class S, seed 002's stream and seed 004's programs
      smaller): the project's tests of the report's structure, goldens and browser check run
      on it (``--grid test``); its verdicts and fidelity mean nothing.
    """

    TEST = "test"
    QUICK = "quick"
    FULL = "full"

    @property
    def description(self) -> str:
        """The report's words for the grid, after "Generated in"."""
        return GRID_DESCRIPTION[self]


GRID_DESCRIPTION = {
    Grid.TEST: "the test grid (every run smaller than in quick mode, for the project's tests; its verdicts and errors mean nothing)",
    Grid.QUICK: "quick mode (the NAS kernels at class W; --full runs them at class A, the seeds' size)",
    Grid.FULL: "full mode (the NAS kernels at class A, the seeds' size)",
}
"""Each grid in the report's words (:attr:`Grid.description`)."""
