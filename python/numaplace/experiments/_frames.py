"""Helpers on the results frame of :func:`numaplace.experiments.run_experiments`, shared by
the runner and the seed modules: flattening a run into its row, reading a ``request.<key>``
column, and splitting a ``NAME:key=value,...`` spec."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd


def flatten(mapping: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``mapping`` with nested mappings flattened into dotted keys, each key prefixed by
    ``prefix`` (a run's row: ``request.<kwarg>``, ``config.<key>``, ``config.machine_spec.<key>``)."""
    flat: dict[str, Any] = {}
    for key, value in mapping.items():
        if isinstance(value, Mapping):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def requested(results: pd.DataFrame, key: str) -> pd.Series:
    """Each run's ``request.<key>`` argument; missing (NaN) where a run did not pass it, also
    when no run of the frame did (the column is then absent)."""
    return results.get(f"request.{key}", pd.Series([None] * len(results), index=results.index, dtype=object))


def spec_params(spec: str) -> dict[str, str]:
    """The ``key=value`` parameters of a ``NAME:key=value,...`` spec."""
    _, _, rest = spec.partition(":")
    return dict(pair.split("=", 1) for pair in rest.split(",")) if rest else {}
