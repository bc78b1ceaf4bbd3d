"""Seed 001's experiment, :data:`WILDFIRE` (``seed001-wildfire``): distribution × migration ×
replication on the Sun Wildfire.

Seed 001 §3 runs SHALLOW and NAS kernels on the three-node Sun Wildfire with 18 threads (6 per
node), with data distribution on or off (parallel or sequential initialisation), page migration
on or off and page replication on or off: a 2×2×2 grid per benchmark. The experiment runs the
grid on the ``wildfire`` preset (SHALLOW with the seed's 100 time steps in both modes; class W
kernels in quick mode and class A in full mode) and evaluates claims C5 and C6.

SHALLOW runs its 100 steps in quick mode too: seed 001 §3 (Figure 1) reports transients over
the first 20–25 of its 100 steps, so a 20-step run would be all transient and C5, a claim
about the whole 100-step run (Table 1), could not be judged on it.

* C5: SHALLOW with sequential init and neither mechanism is at least 3 × slower than with
  parallel init; migration alone and replication alone each come within 1.5 × of parallel init.
* C6: CG with sequential init: both cells with replication on are below half of the no-policy
  time and below migration alone.

Its Tables 1–7 are declared once (:data:`PUBLISHED_TIMES`, seconds); the fidelity table compares
each time as a ratio to its table's parallel-initialisation time with neither mechanism
(:data:`TIME_RATIO`, all in :data:`PUBLISHED`), as the simulation runs smaller problems.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from numaplace import plot
from numaplace.experiments._frames import requested
from numaplace.experiments.base import NAS_CLASS, Claim, Experiment, Grid, RunConfig, claims_table
from numaplace.experiments.fidelity import Fidelity, Published, declared, pairs

__all__ = ["WILDFIRE"]

BENCHMARKS = ("shallow", "nas-bt", "nas-cg", "nas-ft", "nas-mg", "nas-sp")
INITS = ("parallel", "sequential")
SWITCHES = (("off", "off"), ("on", "off"), ("off", "on"), ("on", "on"))
CELLS = ("none", "migration", "replication", "both")
"""The grid's cells, named by the mechanisms on, in :data:`SWITCHES`' order."""

# --- the published numbers (seed 001), each declared once ------------------------------------

SHALLOW_LAST = "shallow-last"
"""The key of Table 2 in :data:`PUBLISHED_TIMES`: SHALLOW's last :data:`SHALLOW_LAST_STEPS` steps."""
SHALLOW_LAST_STEPS = 10
_TABLES = {  # table, then the rows "Replication OFF" and "ON" as printed: distribution off
    # (migration off, on), distribution on (migration off, on); seconds on 18 processors.
    "shallow": ("Table 1", (275, 79, 63, 63), (78, 81, 63, 63)),
    SHALLOW_LAST: ("Table 2", (26.0, 5.94, 6.11, 6.12), (7.25, 6.21, 6.09, 6.10)),
    "nas-bt": ("Table 3", (965, 609, 620, 601), (588, 581, 582, 578)),
    "nas-cg": ("Table 4", (1065, 699, 941, 699), (296, 279, 298, 288)),
    "nas-ft": ("Table 5", (516, 328, 375, 264), (249, 261, 187, 198)),
    "nas-mg": ("Table 6", (231, 230, 236, 234), (220, 225, 224, 228)),
    "nas-sp": ("Table 7", (1541, 781, 764, 778), (675, 680, 666, 670)),
}
TABLE = {key: table for key, (table, _, _) in _TABLES.items()}
"""Which of seed 001's tables gives each benchmark's times."""
PUBLISHED_TIMES: dict[tuple[str, str, str], float] = {
    (key, "sequential" if distribution == 0 else "parallel", CELLS[2 * replication + migration]): float(row[2 * distribution + migration])
    for key, (_, off, on) in _TABLES.items()
    for replication, row in enumerate((off, on))
    for distribution in (0, 1)
    for migration in (0, 1)
}
"""Seed 001 Tables 1–7: time in seconds, keyed by (benchmark, init, cell); distribution on is
parallel initialisation. NAS BT, CG, FT and SP are class B, MG class C."""
REFERENCE = ("parallel", "none")
"""The cell the fidelity table divides by: distribution on, neither migration nor replication."""
_NAMES = {"shallow": "SHALLOW", SHALLOW_LAST: f"SHALLOW, last {SHALLOW_LAST_STEPS} of 100 steps"} | {
    b: b.removeprefix("nas-").upper() for b in BENCHMARKS if b.startswith("nas-")
}
_WITH = {"none": "neither migration nor replication", "migration": "migration", "replication": "replication", "both": "migration and replication"}


def _ratio_published(key: str, init: str, cell: str) -> Published:
    t, ref = PUBLISHED_TIMES[(key, init, cell)], PUBLISHED_TIMES[(key, *REFERENCE)]
    return Published(
        f"{TABLE[key]}: {t:g} s ÷ {ref:g} s",
        f"{_NAMES[key]}: time, {init} init with {_WITH[cell]} ÷ parallel init with neither",
        t / ref,
        _NAMES[key],
    )


TIME_RATIO: dict[tuple[str, str, str], Published] = {
    (key, init, cell): _ratio_published(key, init, cell)
    for key in _TABLES
    for init in ("sequential", "parallel")
    for cell in CELLS
    if (init, cell) != REFERENCE
}
"""Each published time as a ratio to its table's :data:`REFERENCE` cell, keyed by (benchmark,
init, cell): the simulation runs smaller problems on a model of the machine, so the times
themselves are not comparable, their ratios are."""

PUBLISHED = declared(TIME_RATIO.values())
"""Every published number of seed 001 the report compares, in the fidelity table's order."""

NOT_COMPARED = (
    "Not compared: the times in seconds themselves (the real Wildfire, NAS at class B and MG at "
    "class C; the simulation runs class W or A on a model of it), which are compared as ratios "
    "to the same table's parallel-initialisation time with neither mechanism; the text's "
    "\u201cmore than four-fold\u201d, \u201cwithin a factor of 1.4\u201d and \u201caround 20 %\u201d, "
    "which restate the tables; the per-step times of Figure 1; and the run on the E6000 alone, "
    "which is not simulated."
)
"""The seed's numbers the fidelity table leaves out, and why."""


def _workload(benchmark: str, grid: Grid) -> str:
    if benchmark == "shallow":
        # seed 001 §3's 100 steps on every grid (see the module docstring); the test grid's
        # arrays a quarter of the size
        return "shallow:n=1408,steps=100" if grid is Grid.TEST else "shallow:steps=100"
    return f"{benchmark}:class={NAS_CLASS[grid]}"


def runs(grid: Grid) -> list[RunConfig]:
    """Every (benchmark, init, migration, replication) run."""
    out = []
    for b in BENCHMARKS:
        for init in INITS:
            for migration, replication in SWITCHES:
                kwargs: RunConfig = {
                    "machine": "wildfire",
                    "workload": _workload(b, grid),
                    "placement": "first-touch",
                    "threads": 18,
                    "init": init,
                    "seed": 0,
                }
                if (migration, replication) != ("off", "off"):
                    kwargs["dynamic"] = f"wildfire:migration={migration},replication={replication}"
                out.append(kwargs)
    return out


def _cell(dynamic: Any) -> str:
    if not isinstance(dynamic, str):
        return "none"
    params = dict(p.split("=") for p in dynamic.split(":", 1)[1].split(","))
    return {("on", "off"): "migration", ("off", "on"): "replication", ("on", "on"): "both"}[
        (params["migration"], params["replication"])
    ]


def _frame(results: pd.DataFrame) -> pd.DataFrame:
    """Benchmark, init, grid cell and time (s) of each run."""
    dynamic = requested(results, "dynamic")
    return pd.DataFrame(
        {
            "benchmark": results["request.workload"].str.split(":").str[0],
            "init": results["request.init"],
            "cell": dynamic.map(_cell),
            "time": results["total_time_ns"] / 1e9,
        }
    )


def _pub_ratio(key: str, cell: str) -> float:
    """A published time with sequential initialisation ÷ the same with parallel initialisation and neither."""
    return PUBLISHED_TIMES[(key, "sequential", cell)] / PUBLISHED_TIMES[(key, *REFERENCE)]


def _cg_published(cell: str) -> float:
    """CG's published time with sequential initialisation and ``cell`` ÷ the same with neither."""
    return PUBLISHED_TIMES[("nas-cg", "sequential", cell)] / PUBLISHED_TIMES[("nas-cg", "sequential", "none")]


def claims(results: pd.DataFrame) -> list[Claim]:
    """The claims C5 and C6, from this experiment's rows of the results frame."""
    f = _frame(results)
    t = f.set_index(["benchmark", "init", "cell"])["time"]
    sh = lambda init, cell: float(t[("shallow", init, cell)])  # noqa: E731
    par = sh("parallel", "none")
    seq_ratio = sh("sequential", "none") / par
    mig_ratio = sh("sequential", "migration") / par
    rep_ratio = sh("sequential", "replication") / par
    c5 = seq_ratio >= 3 and mig_ratio <= 1.5 and rep_ratio <= 1.5
    cg = lambda cell: float(t[("nas-cg", "sequential", cell)])  # noqa: E731
    c6 = all(cg(c) < 0.5 * cg("none") and cg(c) < cg("migration") for c in ("replication", "both"))
    times = {c: cg(c) for c in ("none", "migration", "replication", "both")}
    return [
            Claim(
                id="C5",
                statement="SHALLOW sequential ≥ 3 × parallel; migration alone and replication alone within 1.5 ×",
                paper="seed 001 §3, Table 1 (SHALLOW, the whole 100-step run)",
                measured={"sequential / parallel": seq_ratio, "migration / parallel": mig_ratio, "replication / parallel": rep_ratio},
                holds=bool(c5),
                why=f"sequential {seq_ratio:.2f} ×, migration {mig_ratio:.2f} ×, replication {rep_ratio:.2f} × parallel init",
                brief=f"SHALLOW, × parallel init: sequential {seq_ratio:.2f} (published {_pub_ratio('shallow', 'none'):.2f}; claim ≥ 3), "
                f"migration {mig_ratio:.2f} (published {_pub_ratio('shallow', 'migration'):.2f}), "
                f"replication {rep_ratio:.2f} (published {_pub_ratio('shallow', 'replication'):.2f}) (claim ≤ 1.5)",
                compared=tuple(TIME_RATIO[("shallow", "sequential", c)] for c in ("none", "migration", "replication")),
            ),
            Claim(
                id="C6",
                statement="CG sequential: both replication cells < half of no policy and < migration alone",
                paper="seed 001 §3 (CG, sequential initialisation)",
                measured={f"CG time (s), {c}": secs for c, secs in times.items()},
                holds=bool(c6),
                why=", ".join(f"{c} {secs:.3f} s" for c, secs in times.items()),
                brief="CG sequential, × no policy: "
                + ", ".join(f"{c} {times[c] / times['none']:.2f} (published {_cg_published(c):.2f})" for c in ("migration", "replication", "both"))
                + " (claim: replication and both < 0.5 and < migration)",
                compared=tuple(TIME_RATIO[("nas-cg", "sequential", c)] for c in times),
            ),
        ]


def fidelity(results: pd.DataFrame) -> list[Fidelity]:
    """Each published time as a ratio to its table's reference cell, beside the simulated
    ratio (SHALLOW's last steps from the per-iteration times), from this experiment's rows."""
    f = _frame(results).assign(
        last=[float(sum(list(t)[-SHALLOW_LAST_STEPS:])) / 1e9 for t in results["per_iteration_time_ns"]]
    )
    t = f.set_index(["benchmark", "init", "cell"])

    def simulated(key: str, init: str, cell: str) -> float:
        column, bench = ("last", "shallow") if key == SHALLOW_LAST else ("time", key)
        return float(t[column][(bench, init, cell)] / t[column][(bench, *REFERENCE)])

    return pairs([(p, simulated(*key)) for key, p in TIME_RATIO.items()])


def analyse(results: pd.DataFrame) -> tuple[pd.DataFrame, Figure]:
    """The claims C5 and C6 with their numbers, and the grid of run times: one panel per
    initialisation, one bar per (migration, replication) cell, relative to the same benchmark
    with parallel initialisation and neither mechanism (:data:`REFERENCE`, as the fidelity
    table divides); each published ratio (:data:`TIME_RATIO`, Tables 1 and 3–7) a mark on its
    bar, so SHALLOW's sequential panel shows C5's published 4.37, 1.25 and 1.24."""
    table = claims_table(claims(results))
    f = _frame(results)
    ref = f[(f.init == REFERENCE[0]) & (f.cell == REFERENCE[1])].set_index("benchmark")["time"]
    fig, ax0 = plot.new_axes()
    fig.set_size_inches(plot.REPORT_COLUMN_PX / plot.DPI, 4.5)
    fig.delaxes(ax0)
    axes = fig.subplots(1, len(INITS), sharey=True)
    width = plot.bar_width(len(CELLS))
    for ax, init in zip(axes, INITS):
        pivot = f[f.init == init].pivot(index="benchmark", columns="cell", values="time").reindex(list(BENCHMARKS))
        pivot = pivot.div(ref.reindex(pivot.index), axis=0)[list(CELLS)]
        centres = plot.grouped_bars(ax, [b.removeprefix("nas-") for b in pivot.index], {c: pivot[c].tolist() for c in CELLS})
        marks = [(centres[c][i], TIME_RATIO[(b, init, c)].value) for i, b in enumerate(pivot.index) for c in CELLS if (b, init, c) in TIME_RATIO]
        plot.published_points(ax, [x for x, _ in marks], [y for _, y in marks], width=width)
        plot.baseline_line(ax)
        ax.set_title(f"{init} initialisation", fontsize="medium")
        ax.tick_params(axis="x", labelsize="small")
    axes[0].set_ylabel("time ÷ parallel init, neither (×)")
    fig.suptitle("Wildfire, 18 threads: migration and replication (seed 001 §3)")
    plot.legend_below(fig, axes, title="wildfire policy: migration / replication on")
    return table, fig


WILDFIRE = Experiment(
    id="seed001-wildfire",
    title="Data distribution, migration and replication on Sun Wildfire (seed 001 §3)",
    description=(
        "Seed 001 compares, on the three-node Sun Wildfire, data distribution (parallel versus "
        "sequential initialisation) with the machine's page migration and page replication, in a "
        "2×2×2 grid per benchmark. We run shallow, nas-bt, nas-cg, nas-ft, nas-mg and nas-sp on "
        "machine wildfire with 18 threads (6 per node) and the wildfire policy with each "
        "combination of migration and replication, and evaluate the paper's claims C5 and C6."
    ),
    runs=runs,
    analyse=analyse,
    seed="001",
    claims=claims,
    fidelity=fidelity,
)
