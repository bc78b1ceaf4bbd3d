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
"""

from __future__ import annotations

from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from numaplace import plot
from numaplace.experiments._frames import requested
from numaplace.experiments.base import Claim, Experiment, RunConfig, claims_table

__all__ = ["WILDFIRE"]

BENCHMARKS = ("shallow", "nas-bt", "nas-cg", "nas-ft", "nas-mg", "nas-sp")
INITS = ("parallel", "sequential")
SWITCHES = (("off", "off"), ("on", "off"), ("off", "on"), ("on", "on"))


def _workload(benchmark: str, quick: bool) -> str:
    if benchmark == "shallow":
        return "shallow:steps=100"  # seed 001 §3, in both modes (see the module docstring)
    return f"{benchmark}:class={'W' if quick else 'A'}"


def runs(quick: bool) -> list[RunConfig]:
    """Every (benchmark, init, migration, replication) run."""
    out = []
    for b in BENCHMARKS:
        for init in INITS:
            for migration, replication in SWITCHES:
                kwargs: RunConfig = {
                    "machine": "wildfire",
                    "workload": _workload(b, quick),
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
                brief=f"SHALLOW, × parallel init: sequential {seq_ratio:.2f} (claim ≥ 3), migration {mig_ratio:.2f}, "
                f"replication {rep_ratio:.2f} (claim ≤ 1.5)",
            ),
            Claim(
                id="C6",
                statement="CG sequential: both replication cells < half of no policy and < migration alone",
                paper="seed 001 §3 (CG, sequential initialisation)",
                measured={f"CG time (s), {c}": secs for c, secs in times.items()},
                holds=bool(c6),
                why=", ".join(f"{c} {secs:.3f} s" for c, secs in times.items()),
                brief="CG sequential, × no policy: "
                + ", ".join(f"{c} {times[c] / times['none']:.2f}" for c in ("migration", "replication", "both"))
                + " (claim: replication and both < 0.5 and < migration)",
            ),
        ]


CELLS = ("none", "migration", "replication", "both")


def analyse(results: pd.DataFrame) -> tuple[pd.DataFrame, Figure]:
    """The claims C5 and C6 with their numbers, and the grid of run times: one panel per
    initialisation, one bar per (migration, replication) cell, relative to no policy."""
    table = claims_table(claims(results))
    f = _frame(results)
    fig, ax0 = plot.new_axes()
    fig.set_size_inches(10, 4.5)
    fig.delaxes(ax0)
    axes = fig.subplots(1, len(INITS), sharey=True)
    for ax, init in zip(axes, INITS):
        pivot = f[f.init == init].pivot(index="benchmark", columns="cell", values="time").reindex(list(BENCHMARKS))
        pivot = pivot.div(pivot["none"], axis=0)[list(CELLS)]
        plot.grouped_bars(ax, [b.removeprefix("nas-") for b in pivot.index], {c: pivot[c].tolist() for c in CELLS})
        plot.baseline_line(ax)
        ax.set_title(f"{init} initialisation", fontsize="medium")
        ax.tick_params(axis="x", labelsize="small")
    axes[0].set_ylabel("time relative to no policy (×)")
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
)
