"""The registry: every experiment of the report, keyed by id, in report order.

The report's sections follow :data:`EXPERIMENTS`' order, so adding an experiment here also
places its section; a test checks that every :class:`Experiment` a seed module defines is
registered.
"""

from __future__ import annotations

from collections.abc import Sequence

from numaplace._native import NumaplaceError
from numaplace.experiments import seed000, seed001, seed002, seed003, seed004, tiering, tiering_apps, tiering_colloid, tiering_memtis, tiering_nomad
from numaplace.experiments.base import Experiment
from numaplace.experiments.fidelity import Published

EXPERIMENTS: dict[str, Experiment] = {
    e.id: e
    for e in (
        seed003.TABLE2,
        seed000.SENSITIVITY,
        seed000.MIGRATION,
        seed000.RECREP,
        seed001.WILDFIRE,
        seed003.SAMPLED,
        seed002.SCHEDULERS,
        seed004.PROXIES,
        tiering.NUMAB,
        tiering_apps.TPP,
        tiering_apps.HEMEM,
        tiering_memtis.MEMTIS,
        tiering_colloid.COLLOID,
        tiering_nomad.NOMAD,
    )
}
"""Every experiment of the report, keyed by id, in report order."""

SEED_PUBLISHED: dict[str, tuple[Published, ...]] = {
    "000": seed000.PUBLISHED,
    "001": seed001.PUBLISHED,
    "002": seed002.PUBLISHED,
    "003": seed003.PUBLISHED,
    "004": seed004.PUBLISHED,
    "numab": tiering.NUMAB_PUBLISHED,
    "tpp": tiering_apps.TPP_PUBLISHED,
    "hemem": tiering_apps.HEMEM_PUBLISHED,
    "memtis": tiering_memtis.MEMTIS_PUBLISHED,
    "colloid": tiering_colloid.COLLOID_PUBLISHED,
    "nomad": tiering_nomad.NOMAD_PUBLISHED,
}
"""Each seed module's published numbers (its ``PUBLISHED``), keyed by seed id, and each tiering
paper's (:mod:`~numaplace.experiments.tiering`), keyed by its :data:`PAPERS` key: the only values
its experiments' fidelity rows may carry (a test checks it)."""
SEED_NOT_COMPARED: dict[str, str] = {
    "000": seed000.NOT_COMPARED,
    "001": seed001.NOT_COMPARED,
    "002": seed002.NOT_COMPARED,
    "003": seed003.NOT_COMPARED,
    "004": seed004.NOT_COMPARED,
    "numab": tiering.NUMAB_NOT_COMPARED,
    "tpp": tiering_apps.TPP_NOT_COMPARED,
    "hemem": tiering_apps.HEMEM_NOT_COMPARED,
    "memtis": tiering_memtis.MEMTIS_NOT_COMPARED,
    "colloid": tiering_colloid.COLLOID_NOT_COMPARED,
    "nomad": tiering_nomad.NOMAD_NOT_COMPARED,
}
"""Each seed module's ``NOT_COMPARED``: which of its published numbers the fidelity table
leaves out, and why; the report prints it under the seed's table."""


class UnknownExperimentError(NumaplaceError, ValueError):
    """An experiment id that is not in :data:`EXPERIMENTS`; the message lists the known ids.

    Also a ValueError, as it was before it joined the NumaplaceError hierarchy, so that code
    catching ValueError keeps catching it.
    """


class SelectionError(NumaplaceError, ValueError):
    """A request for experiments that names none, or a grid that is not one (the message lists
    the grids). Also a ValueError, as it was before it joined the NumaplaceError hierarchy."""


def get_experiment(experiment_id: str) -> Experiment:
    """Returns the experiment named ``experiment_id``.

    Raises:
        UnknownExperimentError: no such experiment; the message lists the known ids.
    """
    try:
        return EXPERIMENTS[experiment_id]
    except KeyError:
        known = ", ".join(EXPERIMENTS)
        raise UnknownExperimentError(f"unknown experiment {experiment_id!r} (known: {known})") from None


def select(experiment_ids: Sequence[str] | None) -> list[Experiment]:
    """The experiments named (default: all, in registry order), all looked up before any runs.

    Raises:
        UnknownExperimentError: an id is not in :data:`EXPERIMENTS`.
        SelectionError: ``experiment_ids`` is empty.
    """
    ids = list(EXPERIMENTS) if experiment_ids is None else list(experiment_ids)
    if not ids:
        raise SelectionError("no experiments selected")
    return [get_experiment(i) for i in ids]
