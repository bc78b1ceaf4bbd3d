"""The report's files as text: ``index.html`` (:func:`html_page`), ``README.md``
(:func:`markdown_page`) and ``results.csv`` (:func:`results_csv`)."""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from numaplace.experiments import Experiment
from numaplace.report.tables import html_table, markdown_table

REPORT_TITLE = "numaplace: reproduced results"


@dataclass(frozen=True)
class Section:
    """One experiment's section of the report: its table, the configuration of each run, and
    the file name of its chart."""

    experiment: Experiment
    table: pd.DataFrame
    configs: pd.DataFrame
    image: str


def _intro(quick: bool) -> str:
    """The paragraph under the report's title."""
    mode = (
        "quick mode (the NAS kernels at class W; --full runs them at class A, the seeds' size)"
        if quick
        else "full mode"
    )
    return (
        "Each section re-runs an experiment from one of the papers the simulator implements and "
        f"compares the simulated outcome with the published one. Generated in {mode}; every run, "
        "with its resolved configuration and all result fields, is in results.csv."
    )


_STYLE = (
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;line-height:1.4}"
    "table{border-collapse:collapse;margin:1em 0;font-size:90%}"
    "th,td{border:1px solid #999;padding:0.2em 0.5em;text-align:left}"
    "img{max-width:100%}"
)


def html_page(sections: Sequence[Section], quick: bool) -> str:
    """``index.html``: self-contained (inline style, no scripts), images by relative name."""
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8">',
        f"<title>{esc(REPORT_TITLE)}</title>",
        f"<style>{_STYLE}</style></head>",
        "<body>",
        f"<h1>{esc(REPORT_TITLE)}</h1>",
        f"<p>{esc(_intro(quick))}</p>",
        "<ul>",
        *(f'<li><a href="#{esc(s.experiment.id)}">{esc(s.experiment.title)}</a></li>' for s in sections),
        "</ul>",
    ]
    for s in sections:
        e = s.experiment
        parts += [
            f'<h2 id="{esc(e.id)}">{esc(e.title)}</h2>',
            f"<p>Experiment <code>{esc(e.id)}</code>. {esc(e.description)}</p>",
            html_table(s.table),
            f'<p><img src="{esc(s.image)}" alt="{esc(e.title)}"></p>',
            "<h3>Resolved configuration of each run</h3>",
            html_table(s.configs),
        ]
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def markdown_page(sections: Sequence[Section], quick: bool) -> str:
    """``README.md``: the same content as :func:`html_page` in Markdown."""
    parts = [f"# {REPORT_TITLE}", _intro(quick)]
    parts += ["\n".join(f"- [{s.experiment.title}](#{s.experiment.id})" for s in sections)]
    for s in sections:
        e = s.experiment
        parts += [
            f'<a id="{e.id}"></a>\n\n## {e.title}',
            f"Experiment `{e.id}`. {e.description}",
            markdown_table(s.table),
            f"![{e.title}]({s.image})",
            "### Resolved configuration of each run",
            markdown_table(s.configs),
        ]
    return "\n\n".join(parts) + "\n"


def results_csv(results: pd.DataFrame) -> str:
    """``results.csv``: the results frame, list values as JSON arrays."""
    as_text = results.map(lambda v: json.dumps(list(v)) if isinstance(v, (list, tuple)) else v)
    return as_text.to_csv(index=False, lineterminator="\n")
