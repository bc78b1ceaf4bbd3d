"""The tiered-memory experiments (issue 35, item 4): :data:`NUMAB` (``tiering-numab``, Linux's
NUMA-balancing tiering patches on pmbench), and, in :mod:`~numaplace.experiments.tiering_apps`,
``tiering-tpp`` (TPP, ASPLOS'23) and ``tiering-hemem`` (HeMem, SOSP'21).

One experiment per paper, because each :class:`Experiment` cites one paper and the report's
fidelity tables are per paper: each paper's published numbers are declared once here
(:data:`NUMAB_PUBLISHED`; ``TPP_PUBLISHED`` and ``HEMEM_PUBLISHED`` in
:mod:`~numaplace.experiments.tiering_apps`), its claims are
stated before the runs (module documents and each :class:`Claim`'s statement), and its
fidelity table lists what the runs compute.

The time scale
--------------
The kernel policies act on 1 s periods (scan delay, scan period, hot threshold; 60 s for the
hot threshold's adjustment) and HeMem every 10 ms on one sample per 19,997 accesses, while a
quick run lasts 0.1–1 s of simulated time. Every policy therefore runs with one declared
factor, :data:`TIME_SCALE` = 100: each of its periods, time thresholds and its per-fault cost
is divided by it, each of its rates (MB/s, the scanners' cap ``MAX_SCAN_WINDOW`` included)
multiplied by it, and HeMem's sample period (a count of accesses, which sets the sample rate)
divided by it — the policy runs 100 times faster, with the same share of its own overheads in
the run time. Its page moves are among those overheads: the machine is named with
``:time_scale=100`` (:func:`machine`, the suffix ``_native.TIME_SCALE_SUFFIX``), which divides
every migration cost term of the preset by the factor (``numaplace_sim::presets::load_machine``).
Before stop 47 it did not, and each move cost its real 2.7 µs at 100 times the real rate: TPP
on YCSB A moved 186 K pages in a 0.1 s run (0.5 s of moves) and ran 27 % slower than no
policy. Sizes per period (the scanner's 256 MB, HeMem's 10 GB per pass) and counts (HeMem's
hot thresholds) are kept. The same factor for every policy and claim, chosen before the runs
so that a quick run spans tens of scan periods; not tuned. The promotion rate limit of
``numab-tiering`` is scaled with its window (``rate_limit_window_ms``, :func:`numab_spec`);
one period of the policies' code is not: ``autonuma`` has no scan-delay parameter.

One experiment departs from the one factor at ``--full``: pmbench (:data:`NUMAB`), whose
paper's run is known well enough (docs/tiering-full-sizes.md §1) to run at its own length in
accesses per page, with the time scale the notes' per-page rule gives (:data:`FULL_SCALE`):
the same accesses per page per scan period as the paper's, fault costs unscaled.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
from matplotlib.figure import Figure

from numaplace import _native, plot
from numaplace.experiments._frames import requested
from numaplace.experiments.base import Claim, Experiment, Grid, RunConfig, claims_table
from numaplace.experiments.fidelity import Fidelity, Published, declared, pairs

__all__ = ["NUMAB"]

TIME_SCALE = 100.0
"""The one time-scale factor of every tiering policy's periods, thresholds and costs (module doc)."""

PAGE_BYTES = 4096
"""The ``cxl-1toK`` presets' page (docs/tiering.md)."""


def machine(name: str, scale: Scale | None = None) -> str:
    """The machine ``name`` for a run at ``scale`` (default :data:`QUICK_SCALE`): with
    ``:time_scale=T`` where the scale divides the policy's costs (``scale.fault``), so that its
    page moves are divided too; the preset itself otherwise."""
    scale = scale or QUICK_SCALE
    return f"{name}{_native.TIME_SCALE_SUFFIX}{scale.time:g}" if scale.fault else name


def machine_name(value: object) -> str:
    """The preset of a ``request.machine`` value, without its time scale."""
    return str(value).rsplit(_native.TIME_SCALE_SUFFIX, 1)[0]


def scaled(ms: float) -> str:
    """A policy duration in ms, divided by :data:`TIME_SCALE`, as a spec value."""
    return f"{ms / TIME_SCALE:g}"


MAX_SCAN_MB_PER_S = 2560
"""Linux's cap on NUMA balancing's scan rate (kernel/sched/fair.c ``MAX_SCAN_WINDOW``), a rate:
multiplied by :data:`TIME_SCALE` in every scanner's spec."""


def scan_cap(time_scale: float = TIME_SCALE) -> str:
    """The scanners' ``max_scan_mb_per_s``, multiplied by ``time_scale``."""
    return f"max_scan_mb_per_s={MAX_SCAN_MB_PER_S * time_scale:g}"


@dataclass(frozen=True)
class Scale:
    """How a run maps a paper's time and size onto the simulation: periods and time thresholds
    are divided by ``time``, rates multiplied by it, the promotion rate limit also divided by
    ``capacity`` (the footprint's shrink); the fault and page-move costs are divided by ``time`` too when
    ``fault`` is set (the quick grid's single factor), kept otherwise (the per-page rule)."""

    time: float
    capacity: float
    fault: bool


def numab_spec(params: str, scale: Scale | None = None) -> str:
    """``numab-tiering`` with its Linux 6.1 periods (scan delay and period 1000 ms, hot
    threshold 1000 ms, rate-limit window 1000 ms, threshold period 60000 ms, fault 1 µs, the
    scan-rate cap) scaled by ``scale`` (default: :data:`QUICK_SCALE`), and ``params``."""
    scale = scale or QUICK_SCALE
    t = scale.time
    fault = 1000 / t if scale.fault else 1000
    return (
        f"numab-tiering:scan_delay_ms={1000 / t:g},scan_period_ms={1000 / t:g},{scan_cap(t)},"
        f"hot_threshold_ms={1000 / t:g},rate_limit_window_ms={1000 / t:g},threshold_period_ms={60000 / t:g},fault_ns={fault:g},{params}"
    )


def tpp_spec() -> str:
    """``tpp`` with its periods (scan delay and period 1000 ms, fault 1 µs, the scan-rate cap)
    time-scaled."""
    return f"tpp:scan_delay_ms={scaled(1000)},scan_period_ms={scaled(1000)},{scan_cap()},fault_ns={scaled(1000)}"


def autonuma_spec() -> str:
    """``autonuma`` (NUMA balancing's plain mode, numa_balancing=1) with its scan periods
    (1000 ms to 60000 ms, fault 1 µs, the scan-rate cap) time-scaled."""
    return f"autonuma:scan_period_min_ms={scaled(1000)},scan_period_max_ms={scaled(60000)},{scan_cap()},fault_ns={scaled(1000)}"


def hemem_spec() -> str:
    """``hemem`` with its pass interval (10 ms) and sample period (19,997 accesses) scaled."""
    return f"hemem:interval_ms={scaled(10)},sample_period={round(19997 / TIME_SCALE)}"


def policy_name(dynamic: object, none: str = "none") -> str:
    """The policy of a ``request.dynamic`` value (``none`` where the run has none)."""
    return dynamic.split(":")[0] if isinstance(dynamic, str) else none


# --- NUMA balancing's tiering patches (Huang Ying), pmbench -------------------------------------

NUMAB_SOURCE = "Huang Ying, \u201c[PATCH 0/3] memory tiering: hot page selection\u201d, linux-mm/LKML, 2022-04-08 (table)"
STEPS = ("base", "hot selection", "rate limit", "auto threshold")
"""The series' kernels, in its table's order: each adds one patch to the previous."""
_NUMAB_TABLE = {  # pmbench score (accesses/s), promote rate (MB/s), as the cover letter prints them
    "base": (146887704.1, 725.6),
    "hot selection": (165695601.2, 544.0),
    "rate limit": (162814569.8, 165.2),
    "auto threshold": (170495294.0, 136.9),
}
NUMAB_SCORE = {step: score for step, (score, _) in _NUMAB_TABLE.items()}
"""The cover letter's pmbench score per kernel, accesses/s."""
NUMAB_RATE = {step: rate for step, (_, rate) in _NUMAB_TABLE.items()}
"""The cover letter's promotion rate per kernel, MB/s."""
NUMAB_SCORE_RATIO = {
    s: Published(NUMAB_SOURCE, f"pmbench score, {s} \u00f7 base", NUMAB_SCORE[s] / NUMAB_SCORE["base"], "score") for s in STEPS[1:]
}
NUMAB_RATE_RATIO = {
    s: Published(NUMAB_SOURCE, f"promotion rate, {s} \u00f7 base", NUMAB_RATE[s] / NUMAB_RATE["base"], "promotion rate") for s in STEPS[1:]
}
NUMAB_PUBLISHED = declared(NUMAB_SCORE_RATIO.values(), NUMAB_RATE_RATIO.values())
"""The series' numbers the fidelity table compares: each kernel's score and promotion rate as a
ratio to the base kernel's (the machine, a 2-socket DRAM+PMEM server, is not simulated)."""
NUMAB_NOT_COMPARED = (
    "Not compared: the absolute scores (146.9 M to 170.5 M accesses/s) and promotion rates "
    "(725.6 to 136.9 MB/s) of the 2-socket DRAM+PMEM server, which is not simulated; they are "
    "compared as ratios to the base kernel's."
)

CAPACITY_SCALE = 65536 / 396
"""``cxl-1to4``'s fast node (396 MiB) models a 64 GiB DRAM node (docs/tiering.md): sizes are
scaled down by this factor."""
QUICK_SCALE = Scale(TIME_SCALE, CAPACITY_SCALE, True)
"""The test and quick grids' scale: the one time factor, ``cxl-1to4``'s capacity shrink."""


def rate_limit_mbps(scale: Scale) -> float:
    """The promotion rate limit of the ``rate limit`` and ``auto threshold`` runs at ``scale``.
    The series does not say the value it tested; a limit caps the candidates, so at least the
    published rate-limited promotion rate, 165.2 MB/s: we take that smallest value, scaled as
    the model is (× the time scale, ÷ the capacity shrink). Chosen before the runs."""
    return NUMAB_RATE["rate limit"] * scale.time / scale.capacity


RATE_LIMIT_MBPS = rate_limit_mbps(QUICK_SCALE)
"""The quick grid's rate limit: 99.8 MB/s."""


def numab_switches(scale: Scale) -> dict[str, str]:
    """The ``numab-tiering`` switches of each step of the series at ``scale``."""
    limit = rate_limit_mbps(scale)
    return {
        "base": "hot_selection=off,auto_threshold=off",
        "hot selection": "hot_selection=on,auto_threshold=off,rate_limit_mbps=65536",
        "rate limit": f"hot_selection=on,auto_threshold=off,rate_limit_mbps={limit:.1f}",
        "auto threshold": f"hot_selection=on,auto_threshold=on,rate_limit_mbps={limit:.1f}",
    }


NUMAB_SWITCHES = numab_switches(QUICK_SCALE)
"""The ``numab-tiering`` switches of each step of the series on the quick grid."""
NO_TIERING = "no tiering"
"""The reference run without a policy (shown, not claimed)."""

PMBENCH_PAGES = 4 * 101376
"""pmbench's set: four times ``cxl-1to4``'s fast node (101,376 pages), so that, initialised
sequentially (first touch, one thread), the fast node holds the set's first quarter, cold under
the Gaussian pattern, and the hot middle starts on the CXL node."""
NUMAB_THREADS = 4
PAPER_PAGES = 48 * 1728 * 256
"""The series' pmbench set as Intel's LKP job ``pmbench-dcpmm.yaml`` runs it (48 processes of
1728 MiB, 4 KiB pages; docs/tiering-full-sizes.md §1: the job read, that it is the series'
set a guess)."""
PAPER_SECONDS = 900
"""The job's runtime, s (the score is pmbench's whole-run average)."""
PAPER_RATE_PER_PAGE = NUMAB_SCORE["base"] / PAPER_PAGES
"""Accesses per page per second in the base kernel's run: 146.9 M/s over 21.2 M pages, 6.92."""
PAPER_ACCESSES_PER_PAGE = PAPER_RATE_PER_PAGE * PAPER_SECONDS
"""Accesses per page over the base kernel's run: 6,226."""
SIM_RATE_PER_PAGE = 36.6
"""Accesses per page per simulated second of the quick grid's run without tiering (16 M
accesses in 1.080 s over :data:`PMBENCH_PAGES`; measured at stop 43, checked against every
quick report by python/tests/test_fidelity.py)."""
FULL_SCALE = Scale(SIM_RATE_PER_PAGE / PAPER_RATE_PER_PAGE, PAPER_PAGES / PMBENCH_PAGES, False)
"""``--full``'s scale by the per-page rule (docs/tiering-full-sizes.md §0): time ÷ 5.29, so
that a page gets as many accesses per scan period as in the paper's run (the simulated pmbench
thread runs about 3.7 M accesses/s, the paper's processes 3.06 M/s, so fault costs are kept);
the rate limit ÷ 52.4, the set's shrink."""
_ITERATIONS = {Grid.TEST: 10, Grid.QUICK: 10, Grid.FULL: 100}
_ACCESSES = {
    Grid.TEST: 20_000,
    Grid.QUICK: 400_000,
    Grid.FULL: round(PAPER_ACCESSES_PER_PAGE * PMBENCH_PAGES / (NUMAB_THREADS * _ITERATIONS[Grid.FULL])),
}
"""pmbench accesses per thread per iteration; ``--full``: the paper's 6,226 per page over the
run, in 100 iterations (an epoch holds at most 2^24 records a thread)."""


def numab_scale(grid: Grid) -> Scale:
    """The scale of a grid's runs."""
    return FULL_SCALE if grid == Grid.FULL else QUICK_SCALE


def numab_runs(grid: Grid) -> list[RunConfig]:
    """pmbench (Gaussian, 80 % reads as in the series' RFC tests) on ``cxl-1to4``, 4 threads,
    without tiering and with each step of the series."""
    workload = f"pmbench:pages={PMBENCH_PAGES},pattern=normal,read_percent=80,accesses={_ACCESSES[grid]},iterations={_ITERATIONS[grid]}"
    scale = numab_scale(grid)
    base: RunConfig = {"machine": machine("cxl-1to4", scale), "workload": workload, "placement": "first-touch", "threads": NUMAB_THREADS, "init": "sequential", "seed": 0}
    switches = numab_switches(scale)
    return [dict(base)] + [base | {"dynamic": numab_spec(switches[s], scale)} for s in STEPS]


def _step_of(dynamic: object) -> str:
    """The step of the series a run's ``dynamic`` spec is (:data:`NO_TIERING` for none)."""
    if not isinstance(dynamic, str):
        return NO_TIERING
    for scale in (QUICK_SCALE, FULL_SCALE):
        for step, switches in numab_switches(scale).items():
            if dynamic == numab_spec(switches, scale):
                return step
    raise ValueError(f"tiering-numab: a run of no step of the series: {dynamic}")


def _spec_value(results: pd.DataFrame, key: str, step: str | None = None) -> float:
    """A parameter of the runs' specs (of ``step``'s run if given)."""
    spec = next(d for d in requested(results, "dynamic") if isinstance(d, str) and (step is None or _step_of(d) == step))
    return float(spec.split(f"{key}=")[1].split(",")[0])


def _numab_frame(results: pd.DataFrame) -> pd.DataFrame:
    """Per run: the step, the score (accesses/s) and the promotion rate (MB/s, of simulated time)."""
    step = [_step_of(d) for d in requested(results, "dynamic")]
    workload = results["config.workload"]
    per_thread = workload.str.extract(r"accesses=(\d+)")[0].astype(float) * workload.str.extract(r"iterations=(\d+)")[0].astype(float)
    accesses = per_thread * results["request.threads"]
    seconds = results["total_time_ns"] / 1e9
    promotions = results.get("policy.promotions", pd.Series(0.0, index=results.index)).fillna(0.0)
    return pd.DataFrame(
        {"step": step, "score": accesses / seconds, "promotion_rate": promotions * PAGE_BYTES / 1e6 / seconds, "promotions": promotions}
    ).set_index("step")


def numab_claims(results: pd.DataFrame) -> list[Claim]:
    """NB1–NB3, the series' directions."""
    f = _numab_frame(results)
    p, s = f["promotions"], f["score"]
    rel = lambda col, step: f.loc[step, col] / f.loc["base", col]  # noqa: E731
    fastest = [x for x in STEPS if s[x] == max(s[y] for y in STEPS)]
    return [
        Claim(
            "NB1", "hot selection promotes fewer pages than the base tiering mode",
            f"{NUMAB_SOURCE}: promote rate 725.6 \u2192 544.0 MB/s",
            {"promotions, base": p["base"], "promotions, hot selection": p["hot selection"]},
            bool(p["hot selection"] < p["base"]),
            f"promotions {p['base']:.0f} (base) \u2192 {p['hot selection']:.0f} (hot selection)",
            f"promotion rate \u00f7 base {rel('promotion_rate', 'hot selection'):.2f} (published {NUMAB_RATE_RATIO['hot selection'].value:.2f}; claim < 1)",
            compared=(NUMAB_RATE_RATIO["hot selection"],),
        ),
        Claim(
            "NB2", "the rate limit promotes fewer pages than hot selection alone",
            f"{NUMAB_SOURCE}: promote rate 544.0 \u2192 165.2 MB/s",
            {"promotions, hot selection": p["hot selection"], "promotions, rate limit": p["rate limit"]},
            bool(p["rate limit"] < p["hot selection"]),
            f"promotions {p['hot selection']:.0f} (hot selection) \u2192 {p['rate limit']:.0f} (rate limit, {_spec_value(results, 'rate_limit_mbps', 'rate limit'):.1f} MB/s)",
            f"promotion rate, rate limit \u00f7 hot selection {f.loc['rate limit', 'promotion_rate'] / max(f.loc['hot selection', 'promotion_rate'], 1e-12):.2f} "
            f"(published {NUMAB_RATE['rate limit'] / NUMAB_RATE['hot selection']:.2f}; claim < 1)",
            compared=(NUMAB_RATE_RATIO["hot selection"], NUMAB_RATE_RATIO["rate limit"]),
        ),
        Claim(
            "NB3", "the full series (auto threshold) has a higher pmbench score than each of the other three kernels",
            f"{NUMAB_SOURCE}: score 146.9 M, 165.7 M, 162.8 M, 170.5 M accesses/s",
            {f"score \u00f7 base, {x}": rel("score", x) for x in STEPS},
            # strictly: a tie means the last patch changed nothing, which the series does not report
            bool(all(s["auto threshold"] > s[x] for x in STEPS[:-1])),
            "score \u00f7 base: " + ", ".join(f"{x} {rel('score', x):.3f}" for x in STEPS[1:]) + f"; fastest: {' = '.join(fastest)}",
            f"score \u00f7 base, auto threshold {rel('score', 'auto threshold'):.3f} (published {NUMAB_SCORE_RATIO['auto threshold'].value:.3f}); fastest: {' = '.join(fastest)}",
            compared=tuple(NUMAB_SCORE_RATIO.values()),
        ),
    ]


def numab_fidelity(results: pd.DataFrame) -> list[Fidelity]:
    f = _numab_frame(results)
    return pairs(
        [(p, f.loc[s, "score"] / f.loc["base", "score"]) for s, p in NUMAB_SCORE_RATIO.items()]
        + [(p, f.loc[s, "promotion_rate"] / f.loc["base", "promotion_rate"]) for s, p in NUMAB_RATE_RATIO.items()]
    )


def numab_analyse(results: pd.DataFrame) -> tuple[pd.DataFrame, Figure]:
    """The claims, and a chart: each step's score and promotion rate ÷ the base kernel's,
    published values as diamonds."""
    f = _numab_frame(results)
    fig, ax0 = plot.new_axes()
    fig.set_size_inches(plot.REPORT_COLUMN_PX / plot.DPI, 4.5)
    fig.delaxes(ax0)
    axes = fig.subplots(1, 2)
    for ax, col, pub, title in (
        (axes[0], "score", NUMAB_SCORE, "pmbench score \u00f7 base"),
        (axes[1], "promotion_rate", NUMAB_RATE, "promotion rate \u00f7 base"),
    ):
        base = f.loc["base", col]
        sim = [f.loc[s, col] / base if base else float("nan") for s in STEPS]
        centres = plot.grouped_bars(ax, list(STEPS), {"simulated": sim})
        plot.published_points(ax, centres["simulated"], [pub[s] / pub["base"] for s in STEPS])
        plot.baseline_line(ax)
        ax.set_title(title, fontsize="medium")
        ax.tick_params(axis="x", labelsize="small")
    fig.suptitle(f"pmbench on cxl-1to4, numab-tiering steps (time scale 1/{1000 / _spec_value(results, 'scan_period_ms'):.3g})")
    plot.legend_below(fig, axes)
    return claims_table(numab_claims(results)), fig


NUMAB = Experiment(
    id="tiering-numab",
    title="NUMA balancing's tiering patches on pmbench",
    description=(
        "Huang Ying's series adds to NUMA balancing's tiering mode hot-page selection by "
        "hint-fault latency, a promotion rate limit and an automatic hot threshold, and reports "
        "pmbench's score and the promotion rate after each patch. We run pmbench (Gaussian "
        f"pattern, 80 % reads) over {PMBENCH_PAGES} pages on cxl-1to4 with 4 threads, "
        "initialised by one thread so that the fast node fills with the set's cold first "
        "quarter and the hot middle starts on CXL, without tiering and with numab-tiering at "
        "each step of the series; every policy period, threshold, fault and page-move cost is divided by "
        f"{TIME_SCALE:g} (the time scale, module documentation), the rate limit is "
        f"{RATE_LIMIT_MBPS:.1f} MB/s (the published rate-limited 165.2 MB/s, scaled). With "
        f"--full the runs have the paper's {PAPER_ACCESSES_PER_PAGE:,.0f} accesses per page, "
        f"periods divided by {FULL_SCALE.time:.2f} (the same accesses per page per scan period "
        f"as the paper's), faults at 1 \u00b5s, the rate limit "
        f"{rate_limit_mbps(FULL_SCALE):.1f} MB/s. Claims "
        "NB1\u2013NB3 are the series' directions."
    ),
    runs=numab_runs,
    analyse=numab_analyse,
    seed="numab",
    claims=numab_claims,
    fidelity=numab_fidelity,
)
