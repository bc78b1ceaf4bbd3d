"""Recording slowdown of `numaplace record` (exact mode) on the test programs (tests/record/).

For each program and OpenMP runtime, builds it twice — plain (`clang -O2 -fopenmp=libomp`, or
`gcc -O2 -fopenmp`) and for recording (`numaplace cc`) — and times, interleaved in the same run:
the plain program, the instrumented program with the library off (no $NUMAPLACE_RECORD_OUT:
the instrumentation's own cost), the instrumented program recording (library on, raw stream
written), and the whole `numaplace record` (Python's start-up and the conversion to a trace
included). Prints one JSON object per line: the medians of `--repeat` tries (seconds) and
the ratios to the plain run; the issue's target is a recording at most 20x slower than the
plain program. Run it on an otherwise idle machine::

    .venv/bin/python benchmarks/record_bench.py [--repeat 3] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from numaplace import record as rec

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATIO = 20.0
#: Program, arguments: sizes about ten times the tests' so that start-up does not dominate.
PROGRAMS = {
    "stencil": ["4194304", "4"],
    "spmv": ["1048576", "8", "4"],
    "transpose": ["2048", "4"],
    "reduction": ["8388608", "8"],
    "pipeline": ["256", "8192"],
}


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", default=rec.DEFAULT_CACHE)
    args = ap.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), PYTHONPATH=str(ROOT / "python"))
    with tempfile.TemporaryDirectory(prefix="numaplace-record-bench-") as tmp:
        d = Path(tmp)
        for runtime in rec.RUNTIMES:
            for name, prog_args in PROGRAMS.items():
                src = str(ROOT / "tests" / "record" / f"{name}.c")
                plain, inst = d / f"{name}-{runtime}-plain", d / f"{name}-{runtime}-rec"
                if not shutil.which(rec.PLAIN[runtime][0]):
                    print(json.dumps({"program": name, "runtime": runtime, "skipped": f"{rec.PLAIN[runtime][0]} missing"}))
                    continue
                subprocess.run([*rec.PLAIN[runtime], src, "-o", str(plain)], check=True)
                subprocess.run([sys.executable, "-m", "numaplace", "cc", "--openmp", runtime, "-O2", src, "-o", str(inst)],
                               check=True, env=env)
                trace = d / f"{name}-{runtime}.nptrace"
                record = [sys.executable, "-m", "numaplace", "record", "--cache", args.cache, "--out", str(trace),
                          "--", str(inst), *prog_args]
                raw = d / "bench.raw"
                on = dict(env, NUMAPLACE_RECORD_OUT=str(raw), NUMAPLACE_RECORD_CACHE=rec.cache_variable(*rec.parse_cache(args.cache)))
                tries: dict[str, list[float]] = {"plain": [], "instrumented_off": [], "recording": [], "record": []}
                for _ in range(args.repeat):
                    tries["plain"].append(timed([str(plain), *prog_args], env))
                    tries["instrumented_off"].append(timed([str(inst), *prog_args], env))
                    tries["recording"].append(timed([str(inst), *prog_args], on))
                    tries["record"].append(timed(record, env))
                raw_bytes = raw.stat().st_size
                raw.unlink()
                med = {k: statistics.median(v) for k, v in tries.items()}
                print(json.dumps({
                    "program": name, "runtime": runtime, "args": prog_args, "threads": args.threads,
                    "seconds": {k: round(v, 4) for k, v in med.items()},
                    "ratio_instrumented_off": round(med["instrumented_off"] / med["plain"], 2),
                    "ratio_recording": round(med["recording"] / med["plain"], 2),
                    "ratio_record": round(med["record"] / med["plain"], 2),
                    "meets_target": med["record"] / med["plain"] <= TARGET_RATIO,
                    "raw_bytes": raw_bytes,
                    "trace_bytes": trace.stat().st_size,
                }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
