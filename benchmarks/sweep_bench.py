"""Wall time of a 200-configuration sweep of small runs on the local process pool, 1 vs 2 jobs.

Prints one JSON object: the wall time (seconds) of the same sweep with ``jobs=1`` and
``jobs=2``, the median of ``--repeat`` interleaved tries each (worker start-up, checkpointing
and writing ``results.parquet`` included; every try is listed too), their ratio, and whether
it meets the target (≤ 0.65 on a machine with two idle cores). The simulator's speed varies
by up to about a quarter from one process to the next (the same runs, in a fresh process), so
single tries are noisy: use several. Each try writes into a fresh temporary directory, so nothing is
resumed. Run it on an otherwise idle machine::

    .venv/bin/python benchmarks/sweep_bench.py
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

from numaplace.sweep import run_sweep

TARGET_RATIO = 0.65


def spec(accesses: int) -> dict:
    """200 configurations: 5 seeds × 4 placements × 2 thread counts × 5 workloads."""
    return {
        "axes": {
            "workload": [
                f"random:accesses={accesses},pages=4096,iterations=2",
                f"random:accesses={accesses},pages=4096,iterations=2,write_fraction=0.25",
                f"random:accesses={accesses // 2},pages=8192,iterations=4",
                "stream:pages=4096,iterations=2",
                "stream:pages=2048,iterations=4",
            ],
            "placement": ["first-touch", "round-robin", "random", "worst-case"],
            "threads": [8, 16],
            "seed": [0, 1, 2, 3, 4],
        },
        "fixed": {"machine": "origin2000"},
    }


def wall(s: dict, jobs: int) -> float:
    with tempfile.TemporaryDirectory() as out:
        start = time.perf_counter()
        df = run_sweep(s, jobs=jobs, out=out)
        elapsed = time.perf_counter() - start
    assert len(df) == 200 and (df["status"] == "ok").all(), df.loc[df["status"] != "ok", "error"].tolist()
    return elapsed


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--accesses", type=int, default=200000, help="random accesses per thread per iteration (200000: runs of about 15 ms)")
    p.add_argument("--repeat", type=int, default=7, help="tries per job count (the median is kept)")
    args = p.parse_args()
    s = spec(args.accesses)
    load_before = os.getloadavg()[0]
    wall(s, 1)  # warm up: imports, page cache
    ones, twos = [], []
    for _ in range(args.repeat):  # interleaved, so that a burst of other load hits both alike
        ones.append(wall(s, 1))
        twos.append(wall(s, 2))
    one, two = statistics.median(ones), statistics.median(twos)
    print(
        json.dumps(
            {
                "configurations": 200,
                "cpus": os.cpu_count(),
                "repeats": args.repeat,
                "load_average_before": round(load_before, 2),
                "load_average_after": round(os.getloadavg()[0], 2),
                "jobs1_wall_s": round(one, 3),
                "jobs2_wall_s": round(two, 3),
                "ratio": round(two / one, 3),
                "jobs1_wall_s_all": [round(t, 3) for t in ones],
                "jobs2_wall_s_all": [round(t, 3) for t in twos],
                "target_ratio": TARGET_RATIO,
                "meets_target": two / one <= TARGET_RATIO,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
