"""`numaplace record` against the reference tracer on the suite of real programs (issue 30).

For every program of tests/suite/suite.toml (or those named), builds it with
``tools/build-suite.py --compiler numaplace --class CLASS`` (unless `--build-dir` already holds
it), records it with ``numaplace record`` and runs the same binary under npref
(docs/record-reference.md), with OMP_NUM_THREADS=--threads and the cache model --cache, and
prints one row of docs/record-reference.md's suite table per program (Markdown), plus one
JSON object per program to --json-dir (the whole comparison). Slow: Valgrind runs the programs
about 40x slower than natively (class S, 2 threads: about 10 minutes for the whole suite on
two cores)::

    .venv/bin/python benchmarks/record_suite.py [--class S] [--threads 2] [--cache 32K,8]
        [--build-dir /tmp/suite] [--json-dir /tmp/suite-cmp] [PROGRAM...]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from numaplace import reftrace

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "tests" / "suite" / "suite.toml"
THRESHOLDS = {"total": 0.05, "pages_within": 0.95, "first_touch": 0.99}


def build(programs: list[str], klass: str, out: Path) -> None:
    """tools/build-suite.py's numaplace builds, with DWARF 4 debug information: Valgrind 3.19's
    reader gives up on clang 14's DWARF 5 of a program of several compilation units (NPB's:
    "debuginfo reader: Possibly corrupted debuginfo file ... Giving up"). A wrapper around
    `numaplace` adds -gdwarf-4 after `cc`/`c++` (debug information only: the same code)."""
    out.mkdir(parents=True, exist_ok=True)
    wrapper = out / "numaplace-dwarf4"
    wrapper.write_text(f'#!/bin/sh\nsub="$1"; shift\nexec {ROOT / ".venv" / "bin" / "numaplace"} "$sub" -gdwarf-4 "$@"\n')
    wrapper.chmod(0o755)
    cmd = [sys.executable, str(ROOT / "tools" / "build-suite.py"), "--compiler", "numaplace", "--class", klass,
           "--out", str(out), "--numaplace", str(wrapper)]
    for p in programs:
        cmd += ["--program", p]
    subprocess.run(cmd, check=True)


def row(name: str, args: list[str], res: dict, seconds: float) -> str:
    rc, rf = res["recorded"], res["reference"]
    counts_ok = abs(res["total_rel_diff"]) <= THRESHOLDS["total"] and res["pages_within"] >= THRESHOLDS["pages_within"]
    ok = counts_ok and res["first_touch_same_thread"] >= THRESHOLDS["first_touch"]
    # The same with first touch judged on the pages whose first toucher the program decides (not
    # a race between threads touching the page in the same epoch).
    ok_unraced = counts_ok and res["first_touch_same_thread_unraced"] >= THRESHOLDS["first_touch"]
    ex = res["excluded"]
    verdict = f"{'yes' if ok else '**no**'} / {'yes' if ok_unraced else '**no**'}" if res["pages"] else "n/a (nothing compared)"
    return (f"| {name} ({' '.join(args) or '—'}) | {sum(rc.values()):,} | {sum(rf.values()):,} | "
            f"{res['total_rel_diff']:+.2%} | {res['pages']:,} | {res['pages_within']:.1%} | "
            f"{res['first_touch_same_thread']:.1%} | {res['first_touch_same_thread_unraced']:.1%} ({res['first_touch_raced_pages']:,}) | "
            f"{ex['recorded_share']:.1%} / {ex['reference_share']:.1%} | "
            f"{seconds:.0f} s | {verdict} |").replace("%", " %").replace("  %", " %")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--class", dest="klass", default="S", choices=["S", "W"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--cache", default="32K,8")
    ap.add_argument("--build-dir", help="tools/build-suite.py's --out (default: a temporary directory)")
    ap.add_argument("--json-dir", help="write each program's comparison here as PROGRAM.json")
    ap.add_argument("--skip-build", action="store_true", help="use the binaries in --build-dir as they are")
    ap.add_argument("programs", nargs="*")
    a = ap.parse_args(argv)

    with open(MANIFEST, "rb") as f:
        manifest = tomllib.load(f)
    progs = [p for p in manifest["program"] if not a.programs or p["name"] in a.programs]
    tmp = tempfile.TemporaryDirectory(prefix="record-suite-")
    out = Path(a.build_dir) if a.build_dir else Path(tmp.name) / "build"
    if not a.skip_build:
        build([p["name"] for p in progs], a.klass, out)
    jd = Path(a.json_dir) if a.json_dir else None
    if jd:
        jd.mkdir(parents=True, exist_ok=True)
    tool = reftrace.build()
    print(f"cache {a.cache}, {a.threads} threads, class {a.klass}", file=sys.stderr)
    print("| program (arguments) | recorded misses | reference misses | total | pages | pages within 5 % | "
          "same first-touch thread | same, unraced pages (raced pages) | excluded (recorded / reference) | time | "
          "thresholds (all pages / unraced) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    failed = 0
    for p in progs:
        exe = out / "numaplace" / p["name"] / p["binary"].format(**{"class": a.klass})
        args = [str(x) for x in p["args"].get(a.klass, [])]
        work = Path(tmp.name) / p["name"]
        work.mkdir(parents=True, exist_ok=True)
        t0 = time.monotonic()
        try:
            res = reftrace.record_and_compare([str(exe), *args], work, cache=a.cache, threads=a.threads, tool_dir=tool)
        except Exception as e:  # noqa: BLE001 - one line per program, go on with the others
            failed += 1
            print(f"| {p['name']} ({' '.join(args)}) | failed: {str(e).splitlines()[0][:200]} |||||||||", flush=True)
            continue
        dt = time.monotonic() - t0
        res["seconds"] = dt
        res["program"] = p["name"]
        res["args"] = args
        if jd:
            (jd / f"{p['name']}.json").write_text(json.dumps(res, indent=1))
        print(row(p["name"], args, res, dt), flush=True)
        print(reftrace.format_comparison(res), file=sys.stderr, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
