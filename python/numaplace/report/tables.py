"""Tables as the report prints them: one text per cell (:func:`cell`), identical in HTML and
Markdown and across runs; the per-run configuration (:func:`resolved_configs`) split into the
settings shared by every run and those that vary (:func:`split_configs`); and the summary of
every claim (:func:`summary_table`)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
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


def _right(table: pd.DataFrame, right: Collection[str]) -> list[bool]:
    """Which columns are right-aligned: the numeric ones and those named in ``right`` (numbers
    already formatted as text)."""
    return [pd.api.types.is_numeric_dtype(table[c]) or c in right for c in table.columns]


def markdown_table(table: pd.DataFrame, right: Collection[str] = ()) -> str:
    """A pipe table; numeric columns and those named in ``right`` right-aligned, ``|`` in cells escaped."""
    numeric = _right(table, right)
    text = _text_table(table)

    def row(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    lines = [row([str(c) for c in table.columns]), row(["---:" if n else "---" for n in numeric])]
    lines += [row(list(r)) for r in text.itertuples(index=False)]
    return "\n".join(lines)


_BREAK_AFTER = re.compile(r"([,;=/_])")


def breakable(text: str) -> str:
    """``text`` escaped for HTML, with a line-break opportunity (``<wbr>``) after each ``,``,
    ``;``, ``=``, ``/`` and ``_``, so that long specs and lists wrap inside their column
    instead of widening the table."""
    return _BREAK_AFTER.sub(r"\1<wbr>", html.escape(text))


def html_table(table: pd.DataFrame, right: Collection[str] = ()) -> str:
    """An HTML ``<table>`` without the frame's index, cells escaped (:func:`breakable`),
    numeric columns and those named in ``right`` right-aligned."""
    numeric = _right(table, right)
    head = "".join(f"<th>{breakable(str(c))}</th>" for c in table.columns)
    rows = [
        "<tr>" + "".join(f'<td class="num">{breakable(v)}</td>' if n else f"<td>{breakable(v)}</td>" for v, n in zip(r, numeric)) + "</tr>"
        for r in _text_table(table).itertuples(index=False)
    ]
    return "\n".join(["<table>", f"<thead><tr>{head}</tr></thead>", "<tbody>", *rows, "</tbody>", "</table>"])


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


@dataclass(frozen=True)
class ConfigSplit:
    """An experiment's per-run configuration, shown once: the settings every run shares
    (``constant``: name → text), and the table of ``run`` and the settings that vary."""

    constant: dict[str, str]
    varying: pd.DataFrame


def split_configs(configs: pd.DataFrame) -> ConfigSplit:
    """Splits :func:`resolved_configs`' table into the settings with one text in every run
    and the ``run`` column with the settings that differ between runs (compared as printed)."""
    text = _text_table(configs.drop(columns="run"))
    same = [c for c in text.columns if text[c].nunique() == 1]
    return ConfigSplit(
        constant={c: text[c].iloc[0] for c in same},
        varying=configs[["run", *(c for c in configs.columns if c != "run" and c not in same)]],
    )


def distinct_values(varying: pd.DataFrame) -> dict[str, list[str]]:
    """Each varying setting's distinct texts, in the order they first occur."""
    return {c: list(dict.fromkeys(_text_table(varying[[c]])[c])) for c in varying.columns if c != "run"}


SUMMARY_COLUMNS = ("claim", "paper", "verdict", "error", "simulated vs published")
"""The columns of :func:`summary_table`."""


def summary_table(rows: Sequence[tuple[str, str, str, str, str]]) -> pd.DataFrame:
    """The report's summary: one row per claim, (id, paper, verdict, error, brief), the verdict
    as :attr:`numaplace.experiments.base.Claim.verdict` gives it and the error the median of
    its compared numbers' (``numaplace.report.pages.claim_error``)."""
    return pd.DataFrame(
        list(rows),
        columns=list(SUMMARY_COLUMNS),
    )
