"""The report's experiments: what each runs, how its results are read, and the registry.

Each seed paper has one module, defining its experiments as :class:`Experiment` constants
(:mod:`~numaplace.experiments.seed000`: ``SENSITIVITY``, ``MIGRATION``, ``RECREP``;
:mod:`~numaplace.experiments.seed001`: ``WILDFIRE``; :mod:`~numaplace.experiments.seed003`:
``TABLE2``, ``SAMPLED``) and checking the paper's findings as :class:`Claim` values.
:data:`EXPERIMENTS` (:mod:`~numaplace.experiments.registry`) holds them all, keyed by id, in
report order; :func:`get_experiment` looks one up (an unknown id raises
:class:`UnknownExperimentError`, listing the known ones). :func:`run_experiments`
(:mod:`~numaplace.experiments.run`) runs them through the sweep executor into one results
frame, which :mod:`numaplace.report` renders. :data:`PAPERS`
(:mod:`~numaplace.experiments.papers`) cites every seed paper, keyed by seed id; each experiment
names its seed (:attr:`Experiment.seed`). Each seed module declares the published numbers it
compares once, as :class:`Published` values (:data:`SEED_PUBLISHED`), and an experiment's
``fidelity`` pairs them with the simulated ones (:class:`Fidelity`,
:mod:`~numaplace.experiments.fidelity`); :data:`SEED_NOT_COMPARED` says which it leaves out.

Importing this package imports pandas and matplotlib (the analyses build tables and figures).
"""

from __future__ import annotations

from numaplace.experiments.papers import PAPERS, Paper
from numaplace.experiments.base import Claim, Experiment, Grid, RunConfig, Simulate, SupportsToDict, claims_table
from numaplace.experiments.fidelity import ABSOLUTE_BELOW, Fidelity, Published, median_error
from numaplace.experiments.registry import (
    EXPERIMENTS,
    SEED_NOT_COMPARED,
    SEED_PUBLISHED,
    SelectionError,
    UnknownExperimentError,
    get_experiment,
    select,
)
from numaplace.experiments.run import run_experiments

__all__ = [
    "ABSOLUTE_BELOW",
    "EXPERIMENTS",
    "PAPERS",
    "SEED_NOT_COMPARED",
    "SEED_PUBLISHED",
    "Claim",
    "Experiment",
    "Fidelity",
    "Grid",
    "Published",
    "RunConfig",
    "SelectionError",
    "Simulate",
    "SupportsToDict",
    "UnknownExperimentError",
    "claims_table",
    "Paper",
    "get_experiment",
    "median_error",
    "run_experiments",
    "select",
]
