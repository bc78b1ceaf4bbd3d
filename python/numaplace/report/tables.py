"""Tables as the report prints them: one text per cell (:func:`cell`), identical in HTML and
Markdown and across runs, and the per-run configuration table (:func:`resolved_configs`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pandas as pd


def cell(value: Any) -> str:
    """The text of one table cell, identical in HTML, Markdown and across runs."""
    if isinstance(value, (list, tuple)):
        return json.dumps(list(value))
    if pd.isna(value):
        return "n/a"
    if isinstance(value, float):
        return str(float(value))
    return str(value)


def _text_table(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with every cell as its text (:func:`cell`), so both formats print the same."""
    return table.map(cell).astype(object)


def markdown_table(table: pd.DataFrame) -> str:
    """A pipe table; numeric columns right-aligned, ``|`` in cells escaped."""
    numeric = [pd.api.types.is_numeric_dtype(table[c]) for c in table.columns]
    text = _text_table(table)

    def row(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    lines = [row([str(c) for c in table.columns]), row(["---:" if n else "---" for n in numeric])]
    lines += [row(list(r)) for r in text.itertuples(index=False)]
    return "\n".join(lines)


def html_table(table: pd.DataFrame) -> str:
    """An HTML ``<table>``, cells escaped, without the frame's index."""
    return _text_table(table).to_html(index=False, border=0, escape=True)


def resolved_configs(runs: pd.DataFrame) -> pd.DataFrame:
    """The ``config.*`` columns of an experiment's runs, without the prefix, one row per run.

    The machine's full description (``config.machine_spec.*``) stays in ``results.csv``; the
    report names the machine, whose preset file is in ``machines/``.
    """
    columns = [
        c
        for c in runs.columns
        if c.startswith("config.") and not c.startswith("config.machine_spec.") and runs[c].notna().any()
    ]
    configs = runs[columns].rename(columns=lambda c: c.removeprefix("config."))
    return pd.concat([runs[["run"]], configs], axis=1)
