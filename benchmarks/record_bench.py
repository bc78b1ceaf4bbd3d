"""Recording slowdown of `numaplace record` (exact mode): on the test programs (tests/record/),
or with ``--suite`` on the suite of real programs (tests/suite/suite.toml; issue 30's measure).

For each program and OpenMP runtime, builds it twice — plain (`clang -O2 -fopenmp=libomp`, or
`gcc -O2 -fopenmp`) and for recording (`numaplace cc`) — and times, interleaved in the same run:
the plain program, the instrumented program with the library off (no $NUMAPLACE_RECORD_OUT:
the instrumentation's own cost), the instrumented program recording (library on, raw stream
written), and the whole `numaplace record` (Python's start-up and the conversion to a trace
included). Prints one JSON object per line: the medians of `--repeat` tries (seconds) and
the ratios to the plain run; the issue's target is a recording at most 20x slower than the
plain program. Run it on an otherwise idle machine::

    .venv/bin/python benchmarks/record_bench.py [--repeat 3] [--threads 2]

``--suite`` builds every suite program (or those named with ``--program``) twice with
tools/build-suite.py — plain (``--compiler clang``: clang -O2 -fopenmp=libomp) and with
``numaplace cc`` — at ``--class`` (default W: class S runs a few hundredths of a second, less
than Python's start-up), then times, interleaved: the plain program, the instrumented one
recording (raw stream written), and the whole ``numaplace record``. One JSON object per program,
then a Markdown table and the median and worst ratio of the whole command over the plain run
against the issue's targets (10x median, 20x worst)::

    .venv/bin/python benchmarks/record_bench.py --suite [--class W] [--repeat 3] [--build-dir DIR]
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
import tomllib
from pathlib import Path

from numaplace import record as rec

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATIO = 20.0
#: Issue 30's targets on the suite: the whole `numaplace record` over the plain run.
SUITE_MEDIAN, SUITE_WORST = 10.0, 20.0
MANIFEST = ROOT / "tests" / "suite" / "suite.toml"
#: Program, arguments: sizes about ten times the tests' so that start-up does not dominate.
PROGRAMS = {
    "stencil": ["4194304", "4"],
    "spmv": ["1048576", "8", "4"],
    "transpose": ["2048", "4"],
    "reduction": ["8388608", "8"],
    "pipeline": ["256", "8192"],
}


def timed(cmd: list[str], env: dict[str, str], cwd: Path | None = None) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, cwd=cwd)
    return time.perf_counter() - t0


def suite(args: argparse.Namespace, env: dict[str, str]) -> int:
    """The suite of real programs: plain clang build against `numaplace record` of the
    `numaplace cc` build, per program, then the median and worst ratio."""
    with open(MANIFEST, "rb") as f:
        manifest = tomllib.load(f)
    programs = [p for p in manifest["program"] if not args.program or p["name"] in args.program]
    unknown = set(args.program or []) - {p["name"] for p in programs}
    if unknown:
        raise SystemExit(f"record_bench: no suite program {sorted(unknown)[0]!r} in {MANIFEST}")
    with tempfile.TemporaryDirectory(prefix="numaplace-record-bench-") as tmp:
        out = Path(args.build_dir) if args.build_dir else Path(tmp) / "suite"
        build = [sys.executable, str(ROOT / "tools" / "build-suite.py"), "--out", str(out), "--class", args.klass,
                 "--compiler", "clang", "--compiler", "numaplace", "--numaplace", str(ROOT / ".venv" / "bin" / "numaplace")]
        for p in programs:
            build += ["--program", p["name"]]
        subprocess.run(build, check=True, stdout=subprocess.DEVNULL, env=env)
        rows = []
        for p in programs:
            binary = p["binary"].format(**{"class": args.klass})
            plain, inst = out / "clang" / p["name"] / binary, out / "numaplace" / p["name"] / binary
            prog_args = list(p.get("args", {}).get(args.klass, []))
            trace, raw = Path(tmp) / f"{p['name']}.nptrace", Path(tmp) / "bench.raw"
            record = [sys.executable, "-m", "numaplace", "record", "--cache", args.cache, "--out", str(trace),
                      "--", str(inst), *prog_args]
            on = dict(env, NUMAPLACE_RECORD_OUT=str(raw), NUMAPLACE_RECORD_CACHE=rec.cache_variable(*rec.parse_cache(args.cache)))
            tries: dict[str, list[float]] = {"plain": [], "recording": [], "record": []}
            for _ in range(args.repeat):
                tries["plain"].append(timed([str(plain), *prog_args], env, plain.parent))
                tries["recording"].append(timed([str(inst), *prog_args], on, inst.parent))
                tries["record"].append(timed(record, env, inst.parent))
            raw_bytes = raw.stat().st_size
            raw.unlink()
            med = {k: statistics.median(v) for k, v in tries.items()}
            row = {"program": p["name"], "class": args.klass, "args": prog_args, "threads": args.threads,
                   "seconds": {k: round(v, 3) for k, v in med.items()},
                   "ratio_recording": round(med["recording"] / med["plain"], 2),
                   "ratio_record": round(med["record"] / med["plain"], 2),
                   "raw_bytes": raw_bytes, "trace_bytes": trace.stat().st_size}
            trace.unlink()
            rows.append(row)
            print(json.dumps(row), flush=True)
    print(f"\n| program | plain s | recording | `numaplace record` | record ÷ plain |\n|---|---|---|---|---|")
    for r in rows:
        sec = r["seconds"]
        print(f"| {r['program']} | {sec['plain']:.2f} | {sec['recording']:.2f} | {sec['record']:.2f} | {r['ratio_record']:.1f}× |")
    ratios = [r["ratio_record"] for r in rows]
    median, worst = statistics.median(ratios), max(ratios)
    ok = median <= SUITE_MEDIAN and worst <= SUITE_WORST
    print(f"\nmedian {median:.1f}x (target {SUITE_MEDIAN:g}x), worst {worst:.1f}x (target {SUITE_WORST:g}x,"
          f" {rows[ratios.index(worst)]['program']}): {'met' if ok else 'NOT met'}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", default=rec.DEFAULT_CACHE)
    ap.add_argument("--suite", action="store_true", help="the suite of real programs (tests/suite/suite.toml)")
    ap.add_argument("--class", dest="klass", default="W", choices=["S", "W"], help="--suite: the problem class")
    ap.add_argument("--program", action="append", help="--suite: only this program (repeatable)")
    ap.add_argument("--build-dir", help="--suite: build (or reuse) the programs here")
    args = ap.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), PYTHONPATH=str(ROOT / "python"))
    if args.suite:
        return suite(args, env)
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
