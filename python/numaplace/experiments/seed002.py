"""Seed 002's experiment, :data:`SCHEDULERS` (``seed002-schedulers``): IRIX's page migration
under three processor schedulers on a multiprogrammed 64-CPU Origin2000.

Seed 002 §6 runs streams of OpenMP jobs — its Table 1's mixes W1–W4 of swim, bt, hydro2d and
apsi, arriving with exponential inter-arrival times at 60, 80 and 100 % load — on a 64-CPU
Origin2000 under the native IRIX scheduler, Equipartition and PDPA (both with a
multiprogramming level of 4, PDPA's dynamic), each with IRIX's page migration (threshold
50 %) on and off. It reports, averaged per application, the ratio with / without migration of
the CPU time each job consumes (Figures 1–3), of PDPA's speedup (Figure 4) and processor
allocation (Figure 5), and for W1 at 100 % the process migrations and CPU bursts per
scheduler (Table 2). The experiment runs the same grid as system runs (``job_stream``;
``docs/multiprogramming.md``) on the ``origin2000-64`` preset, first-touch placement, the
``kernel`` policy for migration on, and evaluates:

* M1: under ``equipartition``, migration lowers the mean CPU time per application by at least
  25 % (seed: 50 %).
* M2: under ``irix``, migration helps, but less than under ``equipartition`` (seed: 10 % vs
  50 %); ``irix`` makes at least 100 times the process migrations of ``equipartition`` and
  ``pdpa`` and its mean burst is at least 10 times shorter (Table 2).
* M3: under ``pdpa``, migration raises both the mean processor allocation (seed: +14 %) and
  the mean speedup (seed: +27 %).
* M4: migration never raises the mean CPU time per application under any scheduler or load.

A ratio is computed per (scheduler, mix, load, application) from the mean over that
application's jobs, with migration over without; "averaged per application" is the mean of
those ratios over the mixes and loads (per application), and a headline is their mean over the
applications. The quick grid runs W1 and W3 at 100 % load with 16 jobs each; the full grid
runs all four mixes at the three loads with the seed's job counts. Both run the applications at
their default sizes (bt at class A): at class W a bt job is too short for Table 2's bursts
(equipartition's mean burst is then 1.2 s against the seed's 11; at class A, 14 s).

The published numbers are declared once (:data:`PUBLISHED`); :data:`NOT_COMPARED` lists what
the fidelity table leaves out.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from numaplace import plot
from numaplace.experiments.base import Claim, Experiment, Grid, RunConfig, claims_table
from numaplace.experiments.fidelity import Fidelity, Published, declared, pairs

__all__ = ["SCHEDULERS"]

MACHINE = "origin2000-64"
SCHEDULER_NAMES = ("irix", "equipartition", "pdpa")
MIGRATION = "kernel"
"""The IRIX page-migration engine, at its default 50 % threshold (seed 002 §3)."""
APPS = ("swim", "bt", "hydro2d", "apsi")
_APP_OF = {"swim": "swim", "nas-bt": "bt", "hydro2d": "hydro2d", "apsi": "apsi"}
"""Application names of the workload specs the mixes run (``numaplace_model::jobs::mix``)."""
GRIDS: dict[Grid, dict[str, Any]] = {
    Grid.FULL: {"mixes": ("W1", "W2", "W3", "W4"), "loads": (0.6, 0.8, 1.0), "job_count": None, "apps": None},
    Grid.QUICK: {"mixes": ("W1", "W3"), "loads": (1.0,), "job_count": 16, "apps": None},
    # The test grid: W1's first 8 jobs, bt at class W (a run takes about 2 s, not 30).
    Grid.TEST: {"mixes": ("W1",), "loads": (1.0,), "job_count": 8, "apps": "bt=nas-bt:class=W"},
}
"""Each grid's mixes, loads, job count (None: the seed's) and applications (None: the mixes'
own, bt at class A); see the module documentation."""
INIT = "sequential"
"""How the jobs initialise their data: the master thread touches it all (see the module doc)."""
TABLE2 = ("W1", 1.0)
"""The mix and load of seed 002 Table 2."""

# --- the published numbers (seed 002 §6), each declared once ---------------------------------

_G_CPU, _G_PDPA, _G_T2 = "CPU time with / without migration", "PDPA with / without migration", "Table 2 (W1, 100 % load)"


def _ratio(source: str, what: str, value: float, group: str) -> Published:
    return Published(source, what, value, group)


CPU_RATIO: dict[tuple[str, str], Published] = {
    ("equipartition", "all"): _ratio("§6.1.1, Fig. 1", "Equipartition: CPU time with ÷ without migration, mean per application (50 % better)", 0.50, _G_CPU),
    ("equipartition", "swim"): _ratio("§6.1.1", "Equipartition: swim's CPU time with ÷ without migration (38 % better)", 0.62, _G_CPU),
    ("equipartition", "bt"): _ratio("§6.1.1", "Equipartition: bt's CPU time with ÷ without migration (68 % better)", 0.32, _G_CPU),
    ("equipartition", "hydro2d"): _ratio("§6.1.1", "Equipartition: hydro2d's CPU time with ÷ without migration (69 % better)", 0.31, _G_CPU),
    ("pdpa", "all"): _ratio("§6.1.2, Fig. 2", "PDPA: CPU time with ÷ without migration, mean per application (13 % better)", 0.87, _G_CPU),
    ("pdpa", "swim"): _ratio("§6.1.2", "PDPA: swim's CPU time with ÷ without migration (29 % better)", 0.71, _G_CPU),
    ("pdpa", "bt"): _ratio("§6.1.2", "PDPA: bt's CPU time with ÷ without migration (9 % better)", 0.91, _G_CPU),
    ("pdpa", "hydro2d"): _ratio("§6.1.2", "PDPA: hydro2d's CPU time with ÷ without migration (19 % better)", 0.81, _G_CPU),
    ("pdpa", "apsi"): _ratio("§6.1.2", "PDPA: apsi's CPU time with ÷ without migration (1 % better)", 0.99, _G_CPU),
    ("irix", "all"): _ratio("§6.1.3, Fig. 3", "IRIX: CPU time with ÷ without migration, mean per application (10 % better)", 0.90, _G_CPU),
}
"""Figures 1–3 as the text gives them: (scheduler, application or ``all``) → ratio."""
SPEEDUP_RATIO: dict[str, Published] = {
    "all": _ratio("§6.2, Fig. 4", "PDPA: speedup with ÷ without migration, mean per application (+27 %)", 1.27, _G_PDPA),
    "swim": _ratio("§6.2", "PDPA: swim's speedup with ÷ without migration (+55 %)", 1.55, _G_PDPA),
    "bt": _ratio("§6.2", "PDPA: bt's speedup with ÷ without migration (+14 %)", 1.14, _G_PDPA),
    "hydro2d": _ratio("§6.2", "PDPA: hydro2d's speedup with ÷ without migration (+39 %)", 1.39, _G_PDPA),
    "apsi": _ratio("§6.2", "PDPA: apsi's speedup with ÷ without migration (+2 %)", 1.02, _G_PDPA),
}
ALLOCATION_RATIO: dict[str, Published] = {
    "all": _ratio("§6.3, Fig. 5", "PDPA: processor allocation with ÷ without migration, mean per application (+14 %)", 1.14, _G_PDPA),
    "swim": _ratio("§6.3", "PDPA: swim's processor allocation with ÷ without migration (+10 %)", 1.10, _G_PDPA),
    "bt": _ratio("§6.3", "PDPA: bt's processor allocation with ÷ without migration (+11 %)", 1.11, _G_PDPA),
    "hydro2d": _ratio("§6.3", "PDPA: hydro2d's processor allocation with ÷ without migration (+31 %)", 1.31, _G_PDPA),
    "apsi": _ratio("§6.3", "PDPA: apsi's processor allocation with ÷ without migration (+2 %)", 1.02, _G_PDPA),
}
BURST_S: dict[str, Published] = {
    "irix": Published("Table 2", "IRIX: average burst time per CPU, s", 0.243, _G_T2),
    "equipartition": Published("Table 2", "Equipartition: average burst time per CPU, s (more than 11)", 11.0, _G_T2),
    "pdpa": Published("Table 2", "PDPA: average burst time per CPU, s (more than 10)", 10.0, _G_T2),
}
BURSTS_PER_CPU: dict[str, Published] = {
    "irix": Published("Table 2", "IRIX: average number of bursts per CPU (more than 2000)", 2000.0, _G_T2),
    "equipartition": Published("Table 2", "Equipartition: average number of bursts per CPU", 43.0, _G_T2),
    "pdpa": Published("Table 2", "PDPA: average number of bursts per CPU", 41.0, _G_T2),
}
PROCESS_MIGRATIONS: dict[str, Published] = {
    "irix": Published("Table 2", "IRIX: process migrations (more than 150000)", 150000.0, _G_T2),
    "equipartition": Published("Table 2", "Equipartition: process migrations", 325.0, _G_T2),
    "pdpa": Published("Table 2", "PDPA: process migrations", 66.0, _G_T2),
}

PUBLISHED = declared(
    CPU_RATIO.values(), SPEEDUP_RATIO.values(), ALLOCATION_RATIO.values(), BURST_S.values(), BURSTS_PER_CPU.values(), PROCESS_MIGRATIONS.values()
)
"""Every published number of seed 002 the report compares, in the fidelity table's order."""

NOT_COMPARED = (
    "Not compared: the per-load points of Figures 1–5, which the text gives only as averages; "
    "§6.4's absolute comparisons (Equipartition 40 % better than IRIX and 5 % better than PDPA "
    "with migration, PDPA 30 % better than Equipartition without), whose measure the text does "
    "not define; and the largest multiprogramming level PDPA reached (36 jobs, W3 at 100 %). "
    "Table 2 does not say whether migration was on: the simulated values are with migration."
)
"""The seed's numbers the fidelity table leaves out, and why."""


def runs(grid: Grid) -> list[RunConfig]:
    """Every (mix, load, scheduler, migration) system run."""
    g = GRIDS[grid]
    out = []
    for mix in g["mixes"]:
        for load in g["loads"]:
            for scheduler in SCHEDULER_NAMES:
                for migration in (False, True):
                    kwargs: RunConfig = {
                        "machine": MACHINE,
                        "job_stream": mix,
                        "load": load,
                        "scheduler": scheduler,
                        "placement": "first-touch",
                        "init": INIT,
                        "seed": 0,
                    }
                    if migration:
                        kwargs["dynamic"] = MIGRATION
                    if g["job_count"] is not None:
                        kwargs["job_count"] = g["job_count"]
                    if g["apps"] is not None:
                        kwargs["apps"] = g["apps"]
                    out.append(kwargs)
    return out


def _per_app(results: pd.DataFrame) -> pd.DataFrame:
    """One row per (run, application): scheduler, mix, load, migration, and the mean over the
    application's jobs of CPU time (s), speedup and CPUs allocated."""
    rows = []
    for d in results.to_dict("records"):
        jobs = pd.DataFrame(d["jobs"])
        jobs["app"] = jobs["workload"].str.split(":").str[0].map(_APP_OF)
        for app, g in jobs.groupby("app"):
            rows.append(
                {
                    "scheduler": d["request.scheduler"],
                    "mix": d["request.job_stream"],
                    "load": float(d["request.load"]),
                    "migration": isinstance(d.get("request.dynamic"), str),
                    "app": app,
                    "cpu": g["cpu_time_ns"].mean() / 1e9,
                    "speedup": g["speedup"].mean(),
                    "cpus": g["mean_cpus"].mean(),
                }
            )
    return pd.DataFrame(rows)


def _ratios(results: pd.DataFrame) -> pd.DataFrame:
    """Per (scheduler, mix, load, app): each figure with migration ÷ without."""
    a = _per_app(results)
    keys = ["scheduler", "mix", "load", "app"]
    on = a[a.migration].set_index(keys)[["cpu", "speedup", "cpus"]]
    off = a[~a.migration].set_index(keys)[["cpu", "speedup", "cpus"]]
    return (on / off).reset_index()


def _mean_per_app(r: pd.DataFrame, scheduler: str, column: str) -> dict[str, float]:
    """The ratio of ``column`` under ``scheduler`` averaged per application (over mixes and
    loads), and ``all``: the mean of those."""
    s = r[r.scheduler == scheduler].groupby("app")[column].mean()
    out = {app: float(s[app]) for app in APPS if app in s.index}
    out["all"] = float(sum(out.values()) / len(out)) if out else math.nan
    return out


def _system(results: pd.DataFrame, scheduler: str, field: str) -> float:
    """``system.<field>`` of Table 2's run (W1, 100 %, migration on) under ``scheduler``, or of
    the first run with migration under it when the grid has no W1 at 100 %."""
    mix, load = TABLE2
    s = results[(results["request.scheduler"] == scheduler) & results["request.dynamic"].notna()]
    at = s[(s["request.job_stream"] == mix) & (s["request.load"].astype(float) == load)]
    row = (at if len(at) else s).iloc[0]
    return float(row[f"system.{field}"])


def claims(results: pd.DataFrame) -> list[Claim]:
    """The claims M1–M4, from this experiment's rows of the results frame."""
    r = _ratios(results)
    cpu = {s: _mean_per_app(r, s, "cpu") for s in SCHEDULER_NAMES}
    gain = {s: 1.0 - cpu[s]["all"] for s in SCHEDULER_NAMES}
    m1 = Claim(
        id="M1",
        statement="equipartition: migration lowers the mean CPU time per application by ≥ 25 %",
        paper="seed 002 §6.1.1, Fig. 1 (50 % on average; swim 38 %, bt 68 %, hydro2d 69 %)",
        measured={f"equipartition CPU time ratio, {a}": v for a, v in cpu["equipartition"].items()},
        holds=bool(gain["equipartition"] >= 0.25),
        why=f"CPU time with ÷ without migration {cpu['equipartition']['all']:.2f} ("
        + ", ".join(f"{a} {v:.2f}" for a, v in cpu["equipartition"].items() if a != "all") + ")",
        brief=f"equipartition: migration saves {gain['equipartition']:.0%} of the CPU time (published 50 %; claim ≥ 25 %)",
        compared=(CPU_RATIO[("equipartition", "all")],),
    )
    migr = {s: _system(results, s, "process_migrations") for s in SCHEDULER_NAMES}
    burst = {s: _system(results, s, "mean_burst_ns") / 1e9 for s in SCHEDULER_NAMES}
    others = ("equipartition", "pdpa")
    moves_ok = all(migr["irix"] >= 100 * max(migr[o], 1.0) for o in others)
    burst_ok = all(burst["irix"] * 10 <= burst[o] for o in others)
    m2 = Claim(
        id="M2",
        statement="irix: migration helps, less than under equipartition; ≥ 100× the process migrations and ≤ 1/10 the burst of equipartition and pdpa",
        paper="seed 002 §6.1.3, Fig. 3 (10 % vs 50 %), Table 2 (> 150 000 vs 325 and 66; 0.243 s vs > 11 s and > 10 s)",
        measured={"irix gain": gain["irix"], "equipartition gain": gain["equipartition"]}
        | {f"{s} process migrations": migr[s] for s in SCHEDULER_NAMES}
        | {f"{s} mean burst (s)": burst[s] for s in SCHEDULER_NAMES},
        holds=bool(0.0 < gain["irix"] < gain["equipartition"] and moves_ok and burst_ok),
        why=f"gain irix {gain['irix']:.1%}, equipartition {gain['equipartition']:.1%}; process migrations "
        + ", ".join(f"{s} {migr[s]:,.0f}" for s in SCHEDULER_NAMES)
        + "; mean burst "
        + ", ".join(f"{s} {burst[s]:.3f} s" for s in SCHEDULER_NAMES),
        brief=f"irix gain {gain['irix']:.0%} vs equipartition {gain['equipartition']:.0%} (published 10 % vs 50 %); "
        f"process migrations {migr['irix']:,.0f} vs {migr['equipartition']:,.0f} and {migr['pdpa']:,.0f} (claim ≥ 100×); "
        f"burst {burst['irix']:.3f} s vs {burst['equipartition']:.2f} and {burst['pdpa']:.2f} s (claim ≤ 1/10)",
        compared=(CPU_RATIO[("irix", "all")], CPU_RATIO[("equipartition", "all")], *PROCESS_MIGRATIONS.values(), *BURST_S.values()),
    )
    alloc = _mean_per_app(r, "pdpa", "cpus")
    speed = _mean_per_app(r, "pdpa", "speedup")
    m3 = Claim(
        id="M3",
        statement="pdpa: migration raises the mean processor allocation and the mean speedup",
        paper="seed 002 §6.2–6.3, Figs. 4–5 (+14 % allocation, +27 % speedup)",
        measured={"allocation ratio": alloc["all"], "speedup ratio": speed["all"]},
        holds=bool(alloc["all"] > 1.0 and speed["all"] > 1.0),
        why=f"allocation {alloc['all']:.3f} ×, speedup {speed['all']:.3f} × with migration",
        brief=f"pdpa with migration: allocation {alloc['all']:.2f} × (published {ALLOCATION_RATIO['all'].value:.2f}), "
        f"speedup {speed['all']:.2f} × (published {SPEEDUP_RATIO['all'].value:.2f}) (claim: both > 1)",
        compared=(ALLOCATION_RATIO["all"], SPEEDUP_RATIO["all"]),
    )
    cells = r.groupby(["scheduler", "load", "app"])["cpu"].mean()
    worst = cells.idxmax() if len(cells) else None
    m4 = Claim(
        id="M4",
        statement="migration never raises the mean CPU time per application, under any scheduler or load",
        paper="seed 002 §7 (migration always improves the application performance)",
        measured={f"{s} load {l:g} {a}": float(v) for (s, l, a), v in cells.items()},
        holds=bool(len(cells) and cells.max() <= 1.0),
        why=f"largest ratio {cells.max():.3f} ({worst[0]}, load {worst[1]:g}, {worst[2]}) over {len(cells)} (scheduler, load, application) cells"
        if worst is not None
        else "no cells",
        brief=f"largest CPU-time ratio with ÷ without migration {cells.max():.3f} over {len(cells)} cells (claim ≤ 1)",
    )
    return [m1, m2, m3, m4]


def fidelity(results: pd.DataFrame) -> list[Fidelity]:
    """Each published number beside the simulated one, from this experiment's rows."""
    r = _ratios(results)
    cpu = {s: _mean_per_app(r, s, "cpu") for s in SCHEDULER_NAMES}
    alloc, speed = _mean_per_app(r, "pdpa", "cpus"), _mean_per_app(r, "pdpa", "speedup")
    get = lambda d, k: d.get(k, math.nan)  # noqa: E731
    items: list[tuple[Published, float]] = [(p, get(cpu[s], a)) for (s, a), p in CPU_RATIO.items()]
    items += [(p, get(speed, a)) for a, p in SPEEDUP_RATIO.items()]
    items += [(p, get(alloc, a)) for a, p in ALLOCATION_RATIO.items()]
    items += [(p, _system(results, s, "mean_burst_ns") / 1e9) for s, p in BURST_S.items()]
    items += [(p, _system(results, s, "bursts_per_cpu")) for s, p in BURSTS_PER_CPU.items()]
    items += [(p, _system(results, s, "process_migrations")) for s, p in PROCESS_MIGRATIONS.items()]
    return pairs(items)


_PANEL_PUBLISHED: dict[tuple[str, str], dict[str, Published]] = {
    (s, "cpu"): {a: p for (sch, a), p in CPU_RATIO.items() if sch == s and a != "all"} for s in SCHEDULER_NAMES
} | {("pdpa", "speedup"): {a: p for a, p in SPEEDUP_RATIO.items() if a != "all"}, ("pdpa", "cpus"): {a: p for a, p in ALLOCATION_RATIO.items() if a != "all"}}
"""The published per-application values drawn on each panel of the chart."""


def analyse(results: pd.DataFrame) -> tuple[pd.DataFrame, Figure]:
    """The claims M1–M4, and Figures 1–5 as one chart: per scheduler, the CPU-time ratio with /
    without migration per application and load; under PDPA, the speedup and allocation
    ratios."""
    table = claims_table(claims(results))
    r = _ratios(results)
    fig, ax0 = plot.new_axes()
    fig.set_size_inches(plot.REPORT_COLUMN_PX / plot.DPI, 7)
    fig.delaxes(ax0)
    panels = [(s, "cpu", f"{s}: CPU time") for s in SCHEDULER_NAMES] + [("pdpa", "speedup", "pdpa: speedup"), ("pdpa", "cpus", "pdpa: allocation")]
    # two rows of three (the CPU times above, PDPA's speedup and allocation below), as wide as
    # the report's column so that its labels are shown at their size
    grid = fig.subplots(2, 3, sharey=False)
    axes = list(grid.flat[: len(panels)])
    for spare in grid.flat[len(panels):]:
        fig.delaxes(spare)
    loads = sorted(r["load"].unique())
    for ax, (scheduler, column, title) in zip(axes, panels):
        per = r[r.scheduler == scheduler].groupby(["app", "load"])[column].mean()
        series = {f"load {l:.0%}": [float(per.get((a, l), math.nan)) for a in APPS] for l in loads}
        centres = plot.grouped_bars(ax, list(APPS), series)
        plot.baseline_line(ax)
        published = _PANEL_PUBLISHED[(scheduler, column)]
        xs = [float(sum(c[i] for c in centres.values()) / len(centres)) for i in range(len(APPS))]
        plot.published_points(ax, xs, [published[a].value if a in published else math.nan for a in APPS])
        ax.set_title(title, fontsize="medium")
        ax.tick_params(axis="x", labelsize="small")
    axes[0].set_ylabel("with ÷ without migration (×)")
    axes[3].set_ylabel("with ÷ without migration (×)")
    fig.suptitle(f"{MACHINE}: IRIX page migration under three schedulers (seed 002 Figs. 1–5)")
    plot.legend_below(fig, axes, title="offered load")
    return table, fig


SCHEDULERS = Experiment(
    id="seed002-schedulers",
    title="Page migration under processor schedulers on a multiprogrammed Origin2000 (seed 002 §6)",
    description=(
        "Seed 002 runs streams of OpenMP jobs (its mixes W1–W4 of swim, bt, hydro2d and apsi at "
        "60, 80 and 100 % load) on a 64-CPU Origin2000 under the IRIX scheduler, Equipartition and "
        "PDPA, with IRIX's page migration on and off, and finds that migration pays when the "
        "scheduler keeps threads where their pages are. We run the same grid as system runs on "
        "machine origin2000-64 (first-touch, the kernel policy for migration) and evaluate the "
        "paper's claims M1–M4."
    ),
    runs=runs,
    analyse=analyse,
    seed="002",
    claims=claims,
    fidelity=fidelity,
)
