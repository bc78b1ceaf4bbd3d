"""The report's files as text: ``index.html`` (:func:`html_page`), ``README.md``
(:func:`markdown_page`), ``results.csv`` (:func:`results_csv`) and the table written to
``epochs.parquet`` (:func:`epochs_table`).

Both pages have the same content in the same order: the summary of every claim first (one line
each: verdict, simulated figures beside the published ones), the links to the data files, then
one section per experiment (its paper cited in full, its table, its chart, its configuration
shown once) and the references (every seed's citation, :data:`numaplace.experiments.PAPERS`).
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pandas as pd
import pyarrow as pa
from matplotlib.figure import Figure

from numaplace import plot
from numaplace.experiments import EXPERIMENTS, PAPERS, SEED_NOT_COMPARED, ABSOLUTE_BELOW, Claim, Experiment, Fidelity, Grid, median_error
from numaplace.report.tables import (
    breakable,
    distinct_values,
    html_table,
    markdown_table,
    split_configs,
    summary_table,
)

REPORT_TITLE = "numaplace: reproduced results"
RESULTS_CSV = "results.csv"
"""Every run, one row each, without the per-epoch data."""
EPOCHS_PARQUET = "epochs.parquet"
"""The per-epoch data: one row per run and epoch."""
FIDELITY_CSV = "fidelity.csv"
"""Every published number compared, one row each (:data:`FIDELITY_COLUMNS`)."""
FIDELITY_COLUMNS = ("seed", "quantity", "source", "published", "simulated", "abs_error", "rel_error", "measure", "error")
"""The columns of :data:`FIDELITY_CSV`: the seed, the published number's quantity and source,
the published and simulated values, simulated − published, and that ÷ |published|."""
EPOCHS_COLUMN = "epochs"
"""The column of the results frame that goes to :data:`EPOCHS_PARQUET` instead of the CSV."""


@dataclass(frozen=True)
class Section:
    """One experiment's section of the report: its table, the configuration of each run, the
    file name of its chart, the chart itself and the claims it checks."""

    experiment: Experiment
    table: pd.DataFrame
    configs: pd.DataFrame
    image: str
    figure: Figure | None = None
    claims: Sequence[Claim] = field(default_factory=tuple)
    fidelity: Sequence[Fidelity] = field(default_factory=tuple)


FULL_COMMAND = "numaplace reproduce --full"
"""The command that asks the claims (class A)."""


def _claims_mode(grid: Grid, code: Callable[[str], str] = str) -> str:
    """The sentence after the summary's count: at which class the claims are asked (``code``
    formats the command: ``<code>`` in HTML, backticks in Markdown)."""
    if grid is Grid.FULL:
        return "Full mode: the claims are asked here, with the NAS kernels at class A, the seeds' size."
    what = "Quick mode, class W: these verdicts are a quick check" if grid is Grid.QUICK else "Test grid: these verdicts mean nothing"
    return f"{what}, shown, not required; the claims are asked at class A, the seeds' size, by {code(FULL_COMMAND)}."


def _intro(grid: Grid) -> str:
    """The paragraph under the summary."""
    return (
        "Each section below re-runs an experiment from one of the seed papers the simulator "
        "implements and compares the simulated outcome with the published one. "
        f"Generated in {grid.description}."
    )


def _lead(sections: Sequence[Section]) -> str:
    found = [c for s in sections for c in s.claims]
    claims = [c for c in found if not c.not_reproduced]
    held = sum(c.holds for c in claims)
    shown = len(found) - len(claims)
    extra = f" {shown} published finding{'s' * (shown != 1)} shown but not reproduced (the reason is in {'their rows' if shown != 1 else 'its row'})." if shown else ""
    return f"{held} of {len(claims)} claims hold in the simulation.{extra}" if found else "The selected experiments check no claims."


def _heading(e: Experiment) -> str:
    """A section's heading: the experiment's title and the paper it reproduces."""
    return f"{e.title} — {PAPERS[e.seed].short}" if e.seed else e.title


def _summary_rows(sections: Sequence[Section]) -> list[tuple[Section, Claim]]:
    return [(s, c) for s in sections for c in s.claims]


def claim_error(s: Section, c: Claim) -> str:
    """The summary's error cell: the median |error| (the fidelity tables' rule) of the rows of
    ``s``'s fidelity table whose published number claim ``c`` restates (:attr:`Claim.compared`),
    with how many, or "–" where it restates none.

    Raises:
        ValueError: the claim names a published number its experiment's fidelity table does
            not compare (a defect of the experiment).
    """
    rows = [r for p in c.compared for r in s.fidelity if r.published is p]
    if len(rows) != len(c.compared):
        missing = [p.quantity for p in c.compared if not any(r.published is p for r in s.fidelity)]
        raise ValueError(f"claim {c.id} of {s.experiment.id} restates published numbers its fidelity table does not compare: {missing}")
    median, n = median_error(rows)
    return "–" if n == 0 else _percent(median) + ("" if n == 1 else f" (median of {n})")


def _untested_seeds(sections: Sequence[Section]) -> list[str]:
    """The seeds no registered experiment reproduces (whichever experiments this report ran)."""
    covered = {e.seed for e in EXPERIMENTS.values()} | {s.experiment.seed for s in sections}
    return [seed for seed in PAPERS if seed not in covered]


def _seed_line(seed: str) -> str:
    paper = PAPERS[seed]
    return f"{paper.name}: {paper.citation}" + (f" ({paper.note})" if paper.note else "")


_STYLE = (
    f"body{{font-family:sans-serif;max-width:{plot.REPORT_COLUMN_PX}px;margin:1em auto;padding:0 1em;line-height:1.35;color:#111}}"
    "h1{font-size:1.6em;margin:0.3em 0}"
    "h2{font-size:1.25em;margin-top:1.6em}"
    "table{border-collapse:collapse;margin:0.6em 0;font-size:85%;max-width:100%}"
    "th,td{border:1px solid #999;padding:0.15em 0.4em;text-align:left;vertical-align:top;overflow-wrap:break-word}"
    "td.num{text-align:right}"
    "img{max-width:100%;height:auto}"
    "table.summary td:nth-child(3){font-weight:bold;white-space:nowrap}"
    "table.summary td.holds{color:#005a8c}"
    "table.summary td.fails{color:#b34700}"
    "table.summary td.not-reproduced{color:#555;font-weight:normal}"
    "table.summary td:nth-child(2),table.summary td.num,table.summary th{white-space:nowrap}"
    "table.fidelity td.num{white-space:nowrap}"
    ".cite{font-size:90%;color:#333}"
    "details{margin:0.6em 0}"
    "summary{cursor:pointer}"
    "code{overflow-wrap:break-word}"
)


def _html_summary(sections: Sequence[Section], grid: Grid) -> list[str]:
    esc = html.escape
    rows = []
    for s, c in _summary_rows(sections):
        verdict = c.verdict
        paper = PAPERS[s.experiment.seed].short if s.experiment.seed else ""
        rows.append(
            f'<tr><td><a href="#{esc(s.experiment.id)}">{esc(c.id)}</a></td><td>{esc(paper)}</td>'
            f'<td class="{verdict.replace(" ", "-")}">{verdict}</td><td class="num">{esc(claim_error(s, c))}</td>'
            f"<td>{breakable(c.brief or c.why)}</td></tr>"
        )
    head = "".join(f"<th>{esc(h)}</th>" for h in summary_table([]).columns)
    untested = _untested_seeds(sections)
    fidelity = _fidelity_by_seed(sections)
    return [
        '<section id="summary">',
        f"<p><b>{esc(_lead(sections))}</b> "
        + (f"{_claims_mode(grid, lambda c: f'<code>{esc(c)}</code>')} " if _summary_rows(sections) else "")
        + f'Data: <a href="{RESULTS_CSV}">{RESULTS_CSV}</a> (one row per run), '
        f'<a href="{EPOCHS_PARQUET}">{EPOCHS_PARQUET}</a> (one row per run and epoch) and '
        f'<a href="{FIDELITY_CSV}">{FIDELITY_CSV}</a> (one row per published number compared).</p>',
        *([f'<table class="summary"><thead><tr>{head}</tr></thead><tbody>', *rows, "</tbody></table>"] if rows else []),
        *(
            [
                f'<p><a href="#fidelity">{esc(FIDELITY_TITLE)}</a>, median |error|: '
                + " ".join(f"{esc(_fidelity_brief(seed, found, headlines))}." for seed, found, headlines in fidelity)
                + "</p>"
            ]
            if fidelity
            else []
        ),
        (
            "<p>Seeds without an experiment yet: "
            + ", ".join(f"{seed} ({esc(PAPERS[seed].short)})" for seed in untested)
            + '. Full citations under <a href="#references">References</a>.</p>'
            if untested
            else '<p>Full citations under <a href="#references">References</a>.</p>'
        ),
        "</section>",
    ]


FIDELITY_TITLE = "Fidelity to the published numbers"


def _fidelity_by_seed(sections: Sequence[Section]) -> list[tuple[str, list[Fidelity], list[str]]]:
    """Per seed with fidelity rows, in :data:`PAPERS` order: its rows (in section order) and the
    groups its experiments name as headline."""
    out = []
    for seed in PAPERS:
        mine = [s for s in sections if s.experiment.seed == seed and s.fidelity]
        if mine:
            headlines = [s.experiment.fidelity_headline for s in mine if s.experiment.fidelity_headline]
            out.append((seed, [r for s in mine for r in s.fidelity], headlines))
    return out


def _percent(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value * 100:.0f} %"


def _median_text(rows: Sequence[Fidelity]) -> str:
    """``"<median> % over <n>"``, saying how many rows have no error (no simulated value)."""
    median, n = median_error(rows)
    missing = len(rows) - n
    return f"{_percent(median)} over {n}" + (f" (of {len(rows)}; {missing} without an error)" if missing else "")


def _groups(rows: Sequence[Fidelity]) -> dict[str, list[Fidelity]]:
    """The rows by :attr:`Published.group`, groups in order of first appearance."""
    out: dict[str, list[Fidelity]] = {}
    for r in rows:
        out.setdefault(r.published.group, []).append(r)
    return out


def _fidelity_brief(seed: str, rows: Sequence[Fidelity], headlines: Sequence[str]) -> str:
    """One seed's line in the summary: the median over all its rows, and over each headline group."""
    groups = _groups(rows)
    return f"{PAPERS[seed].name} ({PAPERS[seed].short}): {_median_text(rows)} numbers" + "".join(
        f", {g} {_median_text(groups[g])}" for g in headlines if g in groups
    )


def _number(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.4g}"


def _signed(value: float, percent: bool = False) -> str:
    """A signed error; one that prints as zero has no sign."""
    if math.isnan(value):
        return "n/a"
    text = f"{value * 100:+.0f} %" if percent else f"{value:+.3g}"
    return text[1:] if text.lstrip("+-").rstrip(" %") in ("0", "0.0") else text


FIDELITY_RIGHT = ("published", "simulated", "error", "relative error", "judged by")
"""The fidelity tables' number columns (right-aligned)."""


def _fidelity_display(rows: Sequence[Fidelity]) -> pd.DataFrame:
    """One group's table as the pages print it: numbers to 4 significant digits, the error
    signed, the relative error in percent, and which of the two the row is judged by."""
    return pd.DataFrame(
        [
            (
                r.published.quantity,
                r.published.source,
                _number(r.published.value),
                _number(r.simulated),
                _signed(r.abs_error),
                _signed(r.rel_error, percent=True),
                r.measure,
            )
            for r in rows
        ],
        columns=["quantity", "source", *FIDELITY_RIGHT],
    )


def _fidelity_intro(grid: Grid) -> str:
    return (
        "Each seed's published numbers that the simulation computes, beside the simulated values, "
        f"generated in {grid.description}. The error is simulated − published, in the quantity's unit (slowdowns "
        "and shares as fractions: 0.22 is 22 %); the relative error divides it by |published|. "
        f"A row is judged by its relative error, or by its absolute error where |published| is below {ABSOLUTE_BELOW:g} "
        "(a share of 0.2 % simulated as 1.2 % is one point off, not 500 %); the medians are of those. Every row is also in "
    )


LIST_VALUES_UP_TO = 300
"""A varying setting's distinct values are listed in the text up to this many characters;
longer lists are left to the per-run table."""


def _values_text(values: list[str]) -> str:
    text = ", ".join(values)
    return text if len(text) <= LIST_VALUES_UP_TO else "see each run below"


def _html_config(s: Section) -> list[str]:
    esc = html.escape
    split = split_configs(s.configs)
    n = len(s.configs)
    constant = "; ".join(f"<code>{esc(k)}</code> = {breakable(v)}" for k, v in split.constant.items())
    varying = distinct_values(split.varying)
    out = ["<h3>Configuration</h3>", f"<p>Every run ({n}): {constant}.</p>"]
    if varying:
        out.append(
            "<p>Varying between runs: "
            + "; ".join(f"<code>{esc(k)}</code> ({len(v)}): {breakable(_values_text(v))}" for k, v in varying.items())
            + ".</p>"
        )
        out += [
            f"<details><summary>Configuration of each run ({n} runs; the settings that vary, the others as above)</summary>",
            html_table(split.varying),
            "</details>",
        ]
    return out


def _html_fidelity(sections: Sequence[Section], grid: Grid) -> list[str]:
    esc = html.escape
    by_seed = _fidelity_by_seed(sections)
    if not by_seed:
        return []
    out = [
        f'<h2 id="fidelity">{esc(FIDELITY_TITLE)}</h2>',
        f'<p>{esc(_fidelity_intro(grid))}<a href="{FIDELITY_CSV}">{FIDELITY_CSV}</a>.</p>',
    ]
    for seed, rows, headlines in by_seed:
        out += [
            f'<h3 id="fidelity-{seed}">{esc(PAPERS[seed].name)} — {esc(PAPERS[seed].short)}</h3>',
            f"<p><b>Median |error| {esc(_median_text(rows))} published numbers.</b></p>",
        ]
        for group, found in _groups(rows).items():
            out += [
                f"<p><b>{esc(group)}</b> — median |error| {esc(_median_text(found))}.</p>",
                html_table(_fidelity_display(found), right=FIDELITY_RIGHT).replace("<table>", '<table class="fidelity">', 1),
            ]
        if seed in SEED_NOT_COMPARED:
            out.append(f'<p class="cite">{esc(SEED_NOT_COMPARED[seed])}</p>')
    return out


def html_page(sections: Sequence[Section], grid: Grid) -> str:
    """``index.html``: self-contained (inline style, no scripts), images by relative name."""
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(REPORT_TITLE)}</title>",
        f"<style>{_STYLE}</style></head>",
        "<body>",
        f"<h1>{esc(REPORT_TITLE)}</h1>",
        *_html_summary(sections, grid),
        f"<p>{esc(_intro(grid))}</p>",
        "<ul>",
        *(f'<li><a href="#{esc(s.experiment.id)}">{esc(_heading(s.experiment))}</a></li>' for s in sections),
        *([f'<li><a href="#fidelity">{esc(FIDELITY_TITLE)}</a></li>'] if _fidelity_by_seed(sections) else []),
        '<li><a href="#references">References</a></li>',
        "</ul>",
    ]
    for s in sections:
        e = s.experiment
        parts += [f'<h2 id="{esc(e.id)}">{esc(_heading(e))}</h2>']
        if e.seed:
            parts.append(f'<p class="cite">{esc(_seed_line(e.seed))}</p>')
        parts += [
            f"<p>Experiment <code>{esc(e.id)}</code>. {esc(e.description)}</p>",
            html_table(s.table),
            f'<p><img src="{esc(s.image)}" alt="{esc(e.title)}"></p>',
            *_html_config(s),
        ]
    parts += _html_fidelity(sections, grid)
    parts += [
        '<h2 id="references">References</h2>',
        "<ol>",
        *(f"<li>{esc(_seed_line(seed))}</li>" for seed in PAPERS),
        "</ol>",
        "</body>",
        "</html>",
        "",
    ]
    return "\n".join(parts)


def _md(text: str) -> str:
    """Text for a Markdown table cell or paragraph: ``|`` escaped."""
    return text.replace("|", "\\|")


def _markdown_fidelity(sections: Sequence[Section], grid: Grid) -> list[str]:
    by_seed = _fidelity_by_seed(sections)
    if not by_seed:
        return []
    out = [f'<a id="fidelity"></a>\n\n## {FIDELITY_TITLE}', f"{_md(_fidelity_intro(grid))}[{FIDELITY_CSV}]({FIDELITY_CSV})."]
    for seed, rows, _ in by_seed:
        out += [
            f'<a id="fidelity-{seed}"></a>\n\n### {PAPERS[seed].name} — {PAPERS[seed].short}',
            f"**Median \\|error\\| {_md(_median_text(rows))} published numbers.**",
        ]
        for group, found in _groups(rows).items():
            out += [
                f"**{_md(group)}** — median \\|error\\| {_md(_median_text(found))}.",
                markdown_table(_fidelity_display(found), right=FIDELITY_RIGHT),
            ]
        if seed in SEED_NOT_COMPARED:
            out.append(f"*{_md(SEED_NOT_COMPARED[seed])}*")
    return out


def markdown_page(sections: Sequence[Section], grid: Grid) -> str:
    """``README.md``: the same content as :func:`html_page` in Markdown."""
    summary = summary_table(
        [
            (f"[{c.id}](#{s.experiment.id})", PAPERS[s.experiment.seed].short if s.experiment.seed else "", c.verdict, claim_error(s, c), c.brief or c.why)
            for s, c in _summary_rows(sections)
        ]
    )
    untested = _untested_seeds(sections)
    fidelity = _fidelity_by_seed(sections)
    parts = [
        f"# {REPORT_TITLE}",
        f"**{_lead(sections)}** "
        + (f"{_claims_mode(grid, lambda c: f'`{c}`')} " if len(summary) else "")
        + f"Data: [{RESULTS_CSV}]({RESULTS_CSV}) (one row per run), "
        f"[{EPOCHS_PARQUET}]({EPOCHS_PARQUET}) (one row per run and epoch) and "
        f"[{FIDELITY_CSV}]({FIDELITY_CSV}) (one row per published number compared).",
        *([markdown_table(summary)] if len(summary) else []),
        *(
            [
                f"[{FIDELITY_TITLE}](#fidelity), median \\|error\\|: "
                + " ".join(f"{_md(_fidelity_brief(seed, found, headlines))}." for seed, found, headlines in fidelity)
            ]
            if fidelity
            else []
        ),
        (
            "Seeds without an experiment yet: " + ", ".join(f"{seed} ({PAPERS[seed].short})" for seed in untested) + ". "
            if untested
            else ""
        )
        + "Full citations under [References](#references).",
        _intro(grid),
        "\n".join(f"- [{_heading(s.experiment)}](#{s.experiment.id})" for s in sections)
        + (f"\n- [{FIDELITY_TITLE}](#fidelity)" if fidelity else "")
        + "\n- [References](#references)",
    ]
    for s in sections:
        e = s.experiment
        parts += [f'<a id="{e.id}"></a>\n\n## {_heading(e)}']
        if e.seed:
            parts.append(f"*{_seed_line(e.seed)}*")
        parts += [
            f"Experiment `{e.id}`. {e.description}",
            markdown_table(s.table),
            f"![{e.title}]({s.image})",
            "### Configuration",
        ]
        split = split_configs(s.configs)
        n = len(s.configs)
        parts.append(f"Every run ({n}): " + "; ".join(f"`{k}` = {_md(v)}" for k, v in split.constant.items()) + ".")
        varying = distinct_values(split.varying)
        if varying:
            parts.append(
                "Varying between runs: "
                + "; ".join(f"`{k}` ({len(v)}): {_md(_values_text(v))}" for k, v in varying.items())
                + "."
            )
            parts.append(
                f"<details><summary>Configuration of each run ({n} runs; the settings that vary, the others as above)</summary>\n\n"
                + markdown_table(split.varying)
                + "\n\n</details>"
            )
    parts += _markdown_fidelity(sections, grid)
    parts += ['<a id="references"></a>\n\n## References', "\n".join(f"{i}. {_seed_line(seed)}" for i, seed in enumerate(PAPERS, 1))]
    return "\n\n".join(parts) + "\n"


def results_csv(results: pd.DataFrame) -> str:
    """``results.csv``: the results frame without its per-epoch column (see
    :func:`epochs_table`), list values as JSON arrays."""
    lean = results.drop(columns=[EPOCHS_COLUMN], errors="ignore")
    as_text = lean.map(lambda v: json.dumps(list(v)) if isinstance(v, (list, tuple)) else v)
    return as_text.to_csv(index=False, lineterminator="\n")


def fidelity_frame(sections: Sequence[Section]) -> pd.DataFrame:
    """Every fidelity row of ``sections``, tidy (:data:`FIDELITY_COLUMNS`), in the report's
    order (seeds in :data:`PAPERS` order, then section order)."""
    return pd.DataFrame(
        [
            (seed, r.published.quantity, r.published.source, r.published.value, r.simulated, r.abs_error, r.rel_error, r.measure, r.error)
            for seed, rows, _ in _fidelity_by_seed(sections)
            for r in rows
        ],
        columns=list(FIDELITY_COLUMNS),
    )


def fidelity_csv(sections: Sequence[Section]) -> str:
    """``fidelity.csv``: :func:`fidelity_frame` as CSV (a missing value is an empty field)."""
    return fidelity_frame(sections).to_csv(index=False, lineterminator="\n")


EPOCHS_SCHEMA = pa.schema(
    [
        ("experiment", pa.string()),
        ("run", pa.int32()),
        ("epoch", pa.int32()),
        ("iteration", pa.int32()),
        ("phase", pa.string()),
        ("time_ns", pa.float64()),
    ]
)
"""The columns of :data:`EPOCHS_PARQUET`: a run (experiment, run, as in ``results.csv``), the
epoch's position in the run (0, 1, ...), and the epoch's fields from the result."""


def epochs_table(results: pd.DataFrame) -> pa.Table:
    """The per-epoch data of every run, tidy: one row per run and epoch (empty when no run
    reports epochs)."""
    columns: dict[str, list] = {name: [] for name in EPOCHS_SCHEMA.names}
    if EPOCHS_COLUMN in results.columns:
        for experiment, run, epochs in zip(results["experiment"], results["run"], results[EPOCHS_COLUMN]):
            if not isinstance(epochs, (list, tuple)):
                continue
            for i, epoch in enumerate(epochs):
                columns["experiment"].append(experiment)
                columns["run"].append(int(run))
                columns["epoch"].append(i)
                columns["iteration"].append(int(epoch["iteration"]))
                columns["phase"].append(str(epoch["phase"]))
                columns["time_ns"].append(float(epoch["time_ns"]))
    return pa.table(columns, schema=EPOCHS_SCHEMA)
