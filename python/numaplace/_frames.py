"""Helpers on the report's results frames (``report.run_experiments``), shared by the
experiment modules."""

from __future__ import annotations

import pandas as pd


def requested(results: pd.DataFrame, key: str) -> pd.Series:
    """Each run's ``request.<key>`` argument; missing (NaN) where a run did not pass it, also
    when no run of the frame did (the column is then absent)."""
    return results.get(f"request.{key}", pd.Series([None] * len(results), index=results.index, dtype=object))
