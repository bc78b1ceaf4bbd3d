"""The cost of sampling that `numaplace report` states, against the time sampling adds to a run.

Runs the unmodified stencil (tests/runtime/stencil.c, `plain`: one thread per NUMA node, no
numaplace call) under `numaplace run`, with the same placement (first touch) and no page moved,
alternately:

* **off**: `--dynamic none`: nothing is sampled;
* **on**: `--dynamic upmlib`: a policy that decides only when the program calls
  `numaplace_migrate()`, which this program never does, so the runtime samples at the full rate
  (a window of `NUMAPLACE_WINDOW_PAGES` pages revoked every `NUMAPLACE_SAMPLE_PERIOD_MS`) and
  decides and moves nothing;

both with `--force` (on a one-node host sampling is otherwise off). A run's wall time is its
stats file's `wall_s` (from the library's start to the program's exit, in the process: the
launcher's start-up is left out); its CPU time is the user + system time of the launcher and
the program. Prints one JSON object per repetition, then one with the summary: the time
sampling added (on − off, of the medians and of the shortest runs, the least disturbed by other
jobs), the cost the library reported for the same runs (`numaplace.runtime.sampling_cost`:
faults × calibrated round trip + handler time + revoking time), and their ratio. The issue's
target is a reported cost within 20 % of the time added. Run it on an otherwise idle machine::

    .venv/bin/python benchmarks/sampling_cost.py [--repeat 5] [--pages 4096] [--sweeps 20] [--period-ms 100]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from numaplace import runtime as rt

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.20
MODES = {"off": "none", "on": "upmlib"}


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def children_cpu() -> float:
    """User + system time of the children waited for so far (the launcher and its program)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(exe: Path, args: argparse.Namespace, mode: str, stats: Path) -> dict:
    """One run of the stencil under `numaplace run` in `mode`; its times and reported cost."""
    env = dict(os.environ, NUMAPLACE_LIB=str(rt.find_library()), NUMAPLACE_SAMPLE_PERIOD_MS=str(args.period_ms),
               NUMAPLACE_WINDOW_PAGES=str(args.window_pages))
    cmd = [*(["chrt", "--fifo", "1"] if args.realtime else []), sys.executable, "-m", "numaplace", "run", "--force",
           "--placement", "first-touch", "--dynamic", MODES[mode], "--stats", str(stats), "--",
           str(exe), "plain", str(args.pages), str(args.iters), str(args.sweeps)]
    cpu, t0 = children_cpu(), time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    outside, cpu = time.perf_counter() - t0, children_cpu() - cpu
    if r.returncode != 0 or "checksum ok" not in r.stdout:
        raise SystemExit(f"sampling_cost: the {mode} run failed (exit {r.returncode}): {r.stderr.strip()[-300:]}")
    s = rt.load_stats(stats)
    cost = rt.sampling_cost(s)
    return {"mode": mode, "wall_s": round(s["wall_s"], 4), "outside_s": round(outside, 4), "cpu_s": round(cpu, 4),
            "faults": s["faults_handled"], "round_trip_ns": s["fault_round_trip_ns"],
            "cost_s": {k: round(v, 4) for k, v in cost.items()}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pages", type=int, default=4096, help="pages per array (the stencil has two)")
    ap.add_argument("--iters", type=int, default=4)
    ap.add_argument("--sweeps", type=int, default=20)
    ap.add_argument("--period-ms", type=float, default=float(rt.RUNTIME_OPTIONS["sample_period_ms"]["default"]))
    ap.add_argument("--window-pages", type=int, default=int(rt.RUNTIME_OPTIONS["window_pages"]["default"]))
    ap.add_argument("--realtime", action="store_true",
                    help="run the launcher and the program SCHED_FIFO (chrt --fifo 1; root or CAP_SYS_NICE): on a "
                    "shared machine other jobs then do not stretch their wall time")
    args = ap.parse_args()
    rows: dict[str, list[dict]] = {"off": [], "on": []}
    load = [loadavg()]
    with tempfile.TemporaryDirectory(prefix="numaplace-sampling-cost-") as tmp:
        d = Path(tmp)
        exe = d / "stencil"
        subprocess.run(["gcc", "-O2", "-fopenmp", str(ROOT / "tests" / "runtime" / "stencil.c"), "-o", str(exe)], check=True)
        for i in range(args.repeat):
            for mode in ("off", "on") if i % 2 == 0 else ("on", "off"):
                row = run(exe, args, mode, d / f"{mode}.json")
                rows[mode].append(row)
                print(json.dumps({"repetition": i, **row}), flush=True)
    load.append(loadavg())

    def med(mode: str, key: str) -> float:
        return statistics.median(r[key] for r in rows[mode])

    shortest = min(rows["on"], key=lambda r: r["wall_s"])
    reported = {"median": statistics.median(r["cost_s"]["total_s"] for r in rows["on"]),
                "shortest": shortest["cost_s"]["total_s"]}
    # The time sampling added, and the cost reported for the same runs.
    pairs = {
        "wall_median": (med("on", "wall_s") - med("off", "wall_s"), reported["median"]),
        "wall_shortest": (shortest["wall_s"] - min(r["wall_s"] for r in rows["off"]), reported["shortest"]),
        "cpu_median": (med("on", "cpu_s") - med("off", "cpu_s"), reported["median"]),
    }
    ratio = {k: rep / add if add > 0 else None for k, (add, rep) in pairs.items()}
    print(json.dumps({
        "summary": {"pages": args.pages, "iters": args.iters, "sweeps": args.sweeps, "period_ms": args.period_ms,
                    "window_pages": args.window_pages, "repeat": args.repeat, "realtime": args.realtime,
                    "cpus": os.cpu_count(), "loadavg": load},
        "off_wall_s": sorted(r["wall_s"] for r in rows["off"]), "on_wall_s": sorted(r["wall_s"] for r in rows["on"]),
        "round_trip_ns": statistics.median(r["round_trip_ns"] for r in rows["on"]),
        "faults": statistics.median(r["faults"] for r in rows["on"]),
        "reported_parts_s": {k: round(statistics.median(r["cost_s"][k] for r in rows["on"]), 4)
                             for k in ("round_trips_s", "handler_s", "revoking_s")},
        "reported_s": {k: round(v, 4) for k, v in reported.items()},
        "added_s": {k: round(add, 4) for k, (add, _) in pairs.items()},
        "reported_over_added": {k: None if v is None else round(v, 3) for k, v in ratio.items()},
        "within_target": {k: v is not None and abs(v - 1) <= TARGET for k, v in ratio.items()},
    }), flush=True)
    add, rep = pairs["wall_median"]
    print(f"sampling added {add:.3f} s of wall time (median on - median off); numaplace report stated {rep:.3f} s:"
          f" ratio {ratio['wall_median'] or float('nan'):.2f} (target {1 - TARGET:.1f}-{1 + TARGET:.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
