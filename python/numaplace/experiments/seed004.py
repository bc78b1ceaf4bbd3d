"""Seed 004's experiment, :data:`PROXIES` (``seed004-proxies``): page placement, finite input
buffers and proxies on a 64-node line-level cc-NUMA machine.

Seed 004 §1.5 runs seven programs — GE (512×512) and six SPLASH-2 programs — on a simulated
64-node machine (``talbot64``, its Tables 1.1–1.2; ``docs/protocol.md``) under first-touch
(after initialisation) and round-robin page placement, without proxies, with basic proxies
(the data structures of its Table 1.3 marked) and with reactive proxies, with infinite input
buffers (Figures 1.5–1.7) and with buffers of eight read requests (Figures 1.8–1.10, Table
1.4). Every result is normalised to first-touch without proxies under the same buffers. The
experiment runs that grid on the protocol engine (``engine = protocol``) and evaluates:

* P1 (infinite buffers, no proxies): GE is faster under round-robin than first-touch;
  Ocean-Contig is at least 10 % slower under round-robin.
* P2 (infinite buffers, basic proxies): GE gains at least 20 % over first-touch without
  proxies under both placements, and under first-touch sends more messages and has a remote
  read response time at least 50 % lower.
* P3 (finite buffers, no proxies): round-robin is slower than first-touch for at least five of
  the seven programs, and GE's round-robin advantage is smaller than with infinite buffers.
* P4 (finite buffers): first-touch with reactive proxies beats both placements without
  proxies, for every program — the seed's headline.
* P5 (finite buffers, GE): reactive proxies gain at least 15 % but less than basic proxies,
  and send fewer messages than no proxies.

A gain or speedup of *s* is a time ratio of 1 / (1 + *s*) (the seed's "7.3 % speedup" of GE
under round-robin is 0.932 of first-touch's time); a slowdown of *s* is 1 + *s*.

Its published numbers are declared once (:data:`PUBLISHED`); the text gives no figure for the
other cells of Figures 1.5–1.10 nor the values of Table 1.4 (:data:`NOT_COMPARED`).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from numaplace import plot
from numaplace.experiments.base import Claim, Experiment, Grid, RunConfig, claims_table
from numaplace.experiments.fidelity import Fidelity, Published, declared, pairs

__all__ = ["PROXIES"]

MACHINE = "talbot64"
PROGRAMS = ("ge", "ocean-contig", "ocean-noncontig", "fft", "barnes", "fmm", "water-nsq")
"""Seed 004 Table 1.3's programs, by their line-level program names."""
NAMES = {
    "ge": "GE",
    "ocean-contig": "Ocean-Contig",
    "ocean-noncontig": "Ocean-Non-Contig",
    "fft": "FFT",
    "barnes": "Barnes",
    "fmm": "FMM",
    "water-nsq": "Water-Nsq",
}
PLACEMENTS = ("first-touch", "round-robin")
PROXY_MODES = ("none", "basic", "reactive")
BUFFERS = ("infinite", "finite")
REFERENCE = ("first-touch", "none")
"""The cell every result is normalised to, under the same buffers (seed 004 §1.5)."""
CELLS = tuple((p, x) for p in PLACEMENTS for x in PROXY_MODES)
_CELL_LABEL = {(p, x): f"{'FT' if p == 'first-touch' else 'RR'}, {'no proxies' if x == 'none' else x}" for p, x in CELLS}

GRID_PARAMS: dict[Grid, dict[str, str]] = {
    Grid.FULL: {},
    Grid.QUICK: {},
    # The test grid: each program at about a tenth of its lines or less (a run in well under a second).
    Grid.TEST: {
        "ge": "n=128",
        "ocean-contig": "n=66",
        "ocean-noncontig": "n=66",
        "fft": "points=16384",
        "barnes": "particles=2048",
        "fmm": "particles=1024",
        "water-nsq": "molecules=128",
    },
}
"""Workload parameters per grid and program (none: the seed's sizes; the quick grid runs them
too)."""


def _speedup(s: float) -> float:
    return 1.0 / (1.0 + s)


# --- the published numbers (seed 004 §1.5), each declared once --------------------------------

_G_INF, _G_FIN = "infinite buffers", "finite buffers"
GE_RR_TIME = Published("§1.5.1, Fig. 1.5", "GE: time, round-robin ÷ first-touch, infinite buffers (7.3 % speedup)", _speedup(0.073), _G_INF)
GE_RR_MESSAGES = Published("§1.5.1, Fig. 1.6", "GE: messages, round-robin ÷ first-touch, infinite buffers (nearly +10 %)", 1.10, _G_INF)
GE_RR_RESPONSE = Published(
    "§1.5.1, Fig. 1.7", "GE: remote read response, round-robin ÷ first-touch, infinite buffers (19 % better)", 0.81, _G_INF
)
GE_BASIC_TIME = {
    p: Published(
        "§1.5.1, Fig. 1.5",
        f"GE: time, {p} with basic proxies ÷ first-touch without, infinite buffers (more than 27 % speedup)",
        _speedup(0.27),
        _G_INF,
    )
    for p in PLACEMENTS
}
GE_BASIC_MESSAGES = Published("§1.5.1, Fig. 1.6", "GE: messages, first-touch with basic proxies ÷ without, infinite buffers (+17 %)", 1.17, _G_INF)
GE_BASIC_RESPONSE = Published(
    "§1.5.1, Fig. 1.7", "GE: remote read response, first-touch with basic proxies ÷ without, infinite buffers (about 90 % lower)", 0.10, _G_INF
)
OCEAN_RR_TIME = Published(
    "§1.5.1, Fig. 1.5", "Ocean-Contig: time, round-robin ÷ first-touch, infinite buffers (nearly 19 % worse)", 1.19, _G_INF
)
BASIC_FT_TIME = {
    "fft": Published("§1.5.1, Fig. 1.5", "FFT: time, first-touch with basic proxies ÷ without, infinite buffers (9 % speedup)", _speedup(0.09), _G_INF),
    "fmm": Published("§1.5.1, Fig. 1.5", "FMM: time, first-touch with basic proxies ÷ without, infinite buffers (0.3 % speedup)", _speedup(0.003), _G_INF),
    "ocean-noncontig": Published(
        "§1.5.1, Fig. 1.5", "Ocean-Non-Contig: time, first-touch with basic proxies ÷ without, infinite buffers (1.8 % speedup)", _speedup(0.018), _G_INF
    ),
    "barnes": Published("§1.5.1, Fig. 1.5", "Barnes: time, first-touch with basic proxies ÷ without, infinite buffers (0.2 % slowdown)", 1.002, _G_INF),
    "water-nsq": Published(
        "§1.5.1, Fig. 1.5", "Water-Nsq: time, first-touch with basic proxies ÷ without, infinite buffers (0.7 % slowdown)", 1.007, _G_INF
    ),
}
GE_RR_TIME_FINITE = Published(
    "§1.5.2, Fig. 1.8", "GE: time, round-robin ÷ first-touch, finite buffers (1.2 % speedup)", _speedup(0.012), _G_FIN
)
GE_REACTIVE_TIME = Published(
    "§1.5.2, Fig. 1.8", "GE: time, first-touch with reactive proxies ÷ without, finite buffers (22.2 % improvement)", _speedup(0.222), _G_FIN
)

PUBLISHED = declared(
    GE_RR_TIME,
    GE_RR_MESSAGES,
    GE_RR_RESPONSE,
    GE_BASIC_TIME.values(),
    GE_BASIC_MESSAGES,
    GE_BASIC_RESPONSE,
    OCEAN_RR_TIME,
    BASIC_FT_TIME.values(),
    GE_RR_TIME_FINITE,
    GE_REACTIVE_TIME,
)
"""Every published number of seed 004 the report compares, in the fidelity table's order."""

NOT_COMPARED = (
    "Not compared: the bars of Figures 1.5–1.10 the text gives no number for, and the values of "
    "Table 1.4 (mean input buffer queueing cycles; the simulated values are in the results), "
    "which the text describes but does not list; \u201cfor six of the seven benchmark "
    "applications\u201d and \u201cbest performance for six of the seven\u201d, which P3 and P4 "
    "restate as claims."
)
"""The seed's numbers the fidelity table leaves out, and why."""


def _workload(program: str, grid: Grid) -> str:
    params = GRID_PARAMS[grid].get(program)
    return f"{program}:{params}" if params else program


def runs(grid: Grid) -> list[RunConfig]:
    """Every (program, placement, proxies, buffers) run on the protocol engine."""
    return [
        {
            "machine": MACHINE,
            "engine": "protocol",
            "workload": _workload(program, grid),
            "placement": placement,
            "proxies": proxies,
            "buffers": buffers,
            "seed": 0,
        }
        for program in PROGRAMS
        for buffers in BUFFERS
        for placement in PLACEMENTS
        for proxies in PROXY_MODES
    ]


def _frame(results: pd.DataFrame) -> pd.DataFrame:
    """One row per run: program, buffers, placement, proxies and the figures compared."""
    return pd.DataFrame(
        {
            "program": results["request.workload"].str.split(":").str[0],
            "buffers": results["request.buffers"],
            "placement": results["request.placement"],
            "proxies": results["request.proxies"],
            "time": results["total_time_ns"].astype(float),
            "messages": results["messages"].astype(float),
            "response": results["remote_read_mean_cycles"].astype(float),
            "queueing": results["queue_cycles_mean"].astype(float),
        }
    )


class _Grid:
    """Lookups in the frame: a figure of one run, and its ratio to the reference cell."""

    def __init__(self, results: pd.DataFrame) -> None:
        self.t = _frame(results).set_index(["program", "buffers", "placement", "proxies"])

    def value(self, column: str, program: str, buffers: str, placement: str, proxies: str) -> float:
        return float(self.t[column][(program, buffers, placement, proxies)])

    def ratio(self, column: str, program: str, buffers: str, placement: str, proxies: str) -> float:
        ref = self.value(column, program, buffers, *REFERENCE)
        return self.value(column, program, buffers, placement, proxies) / ref if ref else math.nan


def _gain(ratio: float) -> float:
    """The speedup a time ratio is (1 / ratio − 1)."""
    return 1.0 / ratio - 1.0


def _margins(ratios: dict[str, float]) -> str:
    """Each program's ratio − 1 as a signed percentage: the margins behind P3's and P4's counts,
    which seed 004 calls "marginal" where they are small (§1.5.1: FMM, Ocean-Non-Contig and
    Water-Nsq "perform marginally better with first-touch", Barnes and FFT with round-robin)."""
    return ", ".join(f"{NAMES[p]} {v - 1:+.1%}" for p, v in ratios.items())


def claims(results: pd.DataFrame) -> list[Claim]:
    """The claims P1–P5, from this experiment's rows of the results frame."""
    g = _Grid(results)
    t = lambda prog, buf, pl, px: g.ratio("time", prog, buf, pl, px)  # noqa: E731

    ge_rr, oc_rr = t("ge", "infinite", "round-robin", "none"), t("ocean-contig", "infinite", "round-robin", "none")
    p1 = Claim(
        id="P1",
        statement="infinite buffers, no proxies: GE faster under round-robin; Ocean-Contig ≥ 10 % slower under it",
        paper="seed 004 §1.5.1, Fig. 1.5 (GE 7.3 % speedup; Ocean-Contig nearly 19 % worse)",
        measured={"GE RR ÷ FT": ge_rr, "Ocean-Contig RR ÷ FT": oc_rr},
        holds=bool(ge_rr < 1.0 and oc_rr >= 1.10),
        why=f"GE round-robin {ge_rr:.3f} × first-touch's time, Ocean-Contig {oc_rr:.3f} ×",
        brief=f"GE RR {ge_rr:.3f} × FT (published {GE_RR_TIME.value:.3f}; claim < 1), "
        f"Ocean-Contig RR {oc_rr:.3f} × (published {OCEAN_RR_TIME.value:.2f}; claim ≥ 1.10)",
        compared=(GE_RR_TIME, OCEAN_RR_TIME),
    )

    basic = {pl: t("ge", "infinite", pl, "basic") for pl in PLACEMENTS}
    msgs = g.ratio("messages", "ge", "infinite", "first-touch", "basic")
    resp = g.ratio("response", "ge", "infinite", "first-touch", "basic")
    p2 = Claim(
        id="P2",
        statement="infinite buffers, GE with basic proxies: ≥ 20 % gain under both placements; under first-touch more messages, remote reads ≥ 50 % faster",
        paper="seed 004 §1.5.1, Figs. 1.5–1.7 (more than 27 %; +17 % messages; about 90 % lower response)",
        measured={f"GE basic {pl} time ÷ FT none": v for pl, v in basic.items()} | {"messages ÷": msgs, "response ÷": resp},
        holds=bool(all(_gain(v) >= 0.20 for v in basic.values()) and msgs > 1.0 and resp <= 0.5),
        why="gain " + ", ".join(f"{pl} {_gain(v):.1%}" for pl, v in basic.items()) + f"; messages {msgs:.2f} ×, response {resp:.2f} ×",
        brief="GE basic proxies: gain " + ", ".join(f"{'FT' if pl == 'first-touch' else 'RR'} {_gain(v):.1%}" for pl, v in basic.items())
        + f" (published > 27 %; claim ≥ 20 %), messages {msgs:.2f} × (published {GE_BASIC_MESSAGES.value:.2f}), "
        f"response {resp:.2f} × (published {GE_BASIC_RESPONSE.value:.2f}; claim ≤ 0.5)",
        compared=(*GE_BASIC_TIME.values(), GE_BASIC_MESSAGES, GE_BASIC_RESPONSE),
    )

    rr_fin = {p: t(p, "finite", "round-robin", "none") for p in PROGRAMS}
    slower = [p for p, v in rr_fin.items() if v > 1.0]
    adv_inf, adv_fin = _gain(ge_rr), _gain(rr_fin["ge"])
    p3 = Claim(
        id="P3",
        statement="finite buffers, no proxies: round-robin slower for ≥ 5 of 7 programs; GE's round-robin advantage below its infinite-buffer value",
        paper="seed 004 §1.5.2, Fig. 1.8 (six of seven; GE 7.3 % → 1.2 %)",
        measured={f"{NAMES[p]} RR ÷ FT": v for p, v in rr_fin.items()} | {"GE RR advantage, infinite": adv_inf, "GE RR advantage, finite": adv_fin},
        holds=bool(len(slower) >= 5 and adv_fin < adv_inf),
        why=f"slower under round-robin: {len(slower)} of {len(PROGRAMS)} ({', '.join(NAMES[p] for p in slower) or 'none'}); "
        f"GE advantage {adv_inf:.1%} → {adv_fin:.1%}",
        brief=f"RR slower for {len(slower)} of 7 (published 6; claim ≥ 5), by program RR ÷ FT − 1: {_margins(rr_fin)}; "
        f"GE RR advantage {adv_inf:.1%} → {adv_fin:.1%} (published 7.3 % → 1.2 %)",
        compared=(GE_RR_TIME, GE_RR_TIME_FINITE),
    )

    beats = {
        p: (t(p, "finite", "first-touch", "reactive"), min(1.0, t(p, "finite", "round-robin", "none")))
        for p in PROGRAMS
    }
    losers = [p for p, (r, best) in beats.items() if not r < best]
    p4 = Claim(
        id="P4",
        statement="finite buffers: first-touch with reactive proxies beats both placements without proxies, for every program",
        paper="seed 004 §1.5.2–1.5.3 (the headline: always better than either placement without proxies)",
        measured={f"{NAMES[p]} FT reactive ÷ best without": r / best for p, (r, best) in beats.items()},
        holds=not losers,
        why=", ".join(f"{NAMES[p]} {r / best:.3f}" for p, (r, best) in beats.items()) + " × the better placement without proxies",
        brief=f"FT + reactive beats both placements without proxies for {len(PROGRAMS) - len(losers)} of 7"
        + (f" (not {', '.join(NAMES[p] for p in losers)})" if losers else "")
        + f" (published: all 7), by program FT reactive ÷ the better without − 1: {_margins({p: r / best for p, (r, best) in beats.items()})}",
    )

    react, basic_fin = t("ge", "finite", "first-touch", "reactive"), t("ge", "finite", "first-touch", "basic")
    msgs_react = g.ratio("messages", "ge", "finite", "first-touch", "reactive")
    p5 = Claim(
        id="P5",
        statement="finite buffers, GE: reactive proxies gain ≥ 15 % but less than basic, with fewer messages than no proxies",
        paper="seed 004 §1.5.2, Figs. 1.8–1.9 (22.2 %; basic better; fewer messages)",
        measured={"reactive gain": _gain(react), "basic gain": _gain(basic_fin), "reactive messages ÷ none": msgs_react},
        holds=bool(_gain(react) >= 0.15 and _gain(react) < _gain(basic_fin) and msgs_react < 1.0),
        why=f"reactive {_gain(react):.1%}, basic {_gain(basic_fin):.1%}; reactive messages {msgs_react:.2f} × none",
        brief=f"GE finite: reactive gain {_gain(react):.1%} (published 22.2 %; claim ≥ 15 %), basic {_gain(basic_fin):.1%} "
        f"(claim: more), messages {msgs_react:.2f} × (claim < 1)",
        compared=(GE_REACTIVE_TIME,),
    )
    return [p1, p2, p3, p4, p5]


def fidelity(results: pd.DataFrame) -> list[Fidelity]:
    """Each published number beside the simulated one, from this experiment's rows."""
    g = _Grid(results)
    items: list[tuple[Published, float]] = [
        (GE_RR_TIME, g.ratio("time", "ge", "infinite", "round-robin", "none")),
        (GE_RR_MESSAGES, g.ratio("messages", "ge", "infinite", "round-robin", "none")),
        (GE_RR_RESPONSE, g.ratio("response", "ge", "infinite", "round-robin", "none")),
        *[(p, g.ratio("time", "ge", "infinite", pl, "basic")) for pl, p in GE_BASIC_TIME.items()],
        (GE_BASIC_MESSAGES, g.ratio("messages", "ge", "infinite", "first-touch", "basic")),
        (GE_BASIC_RESPONSE, g.ratio("response", "ge", "infinite", "first-touch", "basic")),
        (OCEAN_RR_TIME, g.ratio("time", "ocean-contig", "infinite", "round-robin", "none")),
        *[(p, g.ratio("time", prog, "infinite", "first-touch", "basic")) for prog, p in BASIC_FT_TIME.items()],
        (GE_RR_TIME_FINITE, g.ratio("time", "ge", "finite", "round-robin", "none")),
        (GE_REACTIVE_TIME, g.ratio("time", "ge", "finite", "first-touch", "reactive")),
    ]
    return pairs(items)


_METRICS = (("time", "time"), ("messages", "messages"), ("response", "remote read response"))
_MARKS: dict[tuple[str, str, str, tuple[str, str]], Published] = {
    ("time", "infinite", "ge", ("round-robin", "none")): GE_RR_TIME,
    ("messages", "infinite", "ge", ("round-robin", "none")): GE_RR_MESSAGES,
    ("response", "infinite", "ge", ("round-robin", "none")): GE_RR_RESPONSE,
    **{("time", "infinite", "ge", (pl, "basic")): p for pl, p in GE_BASIC_TIME.items()},
    ("messages", "infinite", "ge", ("first-touch", "basic")): GE_BASIC_MESSAGES,
    ("response", "infinite", "ge", ("first-touch", "basic")): GE_BASIC_RESPONSE,
    ("time", "infinite", "ocean-contig", ("round-robin", "none")): OCEAN_RR_TIME,
    **{("time", "infinite", prog, ("first-touch", "basic")): p for prog, p in BASIC_FT_TIME.items()},
    ("time", "finite", "ge", ("round-robin", "none")): GE_RR_TIME_FINITE,
    ("time", "finite", "ge", ("first-touch", "reactive")): GE_REACTIVE_TIME,
}
"""Where each published number is drawn: (figure, buffers, program, cell)."""


_SHORT = {"Ocean-Contig": "Ocean-C", "Ocean-Non-Contig": "Ocean-NC", "Water-Nsq": "Water"}
"""Program names as the chart's axes print them (the seed's names are in its legend text and
the claims)."""


def analyse(results: pd.DataFrame) -> tuple[pd.DataFrame, Figure]:
    """The claims P1–P5, and Figures 1.5–1.10 as one chart of small multiples: per figure (rows:
    time, messages, remote read response) and buffer mode (columns), one cluster per program,
    one bar per (placement, proxies) cell, relative to first-touch without proxies; each
    published value a mark on its own bar. As wide as the report's column, so its labels are
    shown at their size."""
    table = claims_table(claims(results))
    g = _Grid(results)
    fig, ax0 = plot.new_axes()
    fig.set_size_inches(plot.REPORT_COLUMN_PX / plot.DPI, 10)
    fig.delaxes(ax0)
    axes = fig.subplots(len(_METRICS), len(BUFFERS), sharey="row")
    names = [_SHORT.get(NAMES[p], NAMES[p]) for p in PROGRAMS]
    width = plot.bar_width(len(CELLS))
    for r, (column, label) in enumerate(_METRICS):
        for c, buffers in enumerate(BUFFERS):
            ax = axes[r][c]
            series: dict[str, Any] = {
                _CELL_LABEL[cell]: [g.ratio(column, p, buffers, *cell) for p in PROGRAMS] for cell in CELLS
            }
            centres = plot.grouped_bars(ax, names, series)
            plot.baseline_line(ax)
            marks = [(centres[_CELL_LABEL[cell]][PROGRAMS.index(prog)], p.value) for (m, buf, prog, cell), p in _MARKS.items() if (m, buf) == (column, buffers)]
            if marks:
                plot.published_points(ax, [x for x, _ in marks], [y for _, y in marks], width=width)
            ax.set_title(f"{label}, {buffers} buffers", fontsize="medium")
            ax.tick_params(axis="x", labelsize="small", labelrotation=30)
        axes[r][0].set_ylabel("× FT, no proxies", fontsize="small")
    fig.suptitle(f"{MACHINE}: placement, buffers and proxies (seed 004 Figs. 1.5–1.10)")
    plot.legend_below(fig, axes, title="placement (FT first-touch, RR round-robin), proxies")
    return table, fig


PROXIES = Experiment(
    id="seed004-proxies",
    title="First-touch placement and reactive proxies on a 64-node cc-NUMA machine (seed 004 §1.5)",
    description=(
        "Seed 004 simulates a 64-node cc-NUMA machine at the level of cache lines and coherence "
        "messages, and compares first-touch (after initialisation) and round-robin page placement, "
        "without proxies, with basic proxies (data structures marked by the program) and with "
        "reactive proxies (a read bounced by a full input buffer retried through a proxy), with "
        "infinite input buffers and with buffers of eight read requests. We run its seven programs "
        "— GE, Ocean-Contig, Ocean-Non-Contig, FFT, Barnes, FMM and Water-Nsq — on machine talbot64 "
        "with the protocol engine over that grid, normalise each figure to first-touch without "
        "proxies under the same buffers, and evaluate the paper's claims P1–P5."
    ),
    runs=runs,
    analyse=analyse,
    seed="004",
    claims=claims,
    fidelity=fidelity,
)
