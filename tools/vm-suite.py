#!/usr/bin/env python3
"""The suite of real programs under every runtime policy, in a 4-node VM (issue 30).

    tools/vm-suite.py [--out DIR] [--class S] [--threads 4] [--program NAME]... [--timeout S]

Builds every program of tests/suite/suite.toml (or those named) plain with clang + libomp and
with gcc + libgomp (tools/build-suite.py, into DIR, default target/suite), then boots one
4-node VM (vm/numavm.py: qemu TCG, one CPU and 256 MiB a node) and runs each build there as it
is, then under the runtime library as `numaplace run` preloads it (the same environment,
`numaplace.runtime.launcher.launch_env`) with every dynamic policy the runtime runs, from
first touch. The tiering policies run with node 3 declared slow (`--slow-nodes 3`). Every run
must verify as the manifest says (`check`, `fail`, the checksum against `expect`): the same
result as the plain run. A policy that reads the CPU's address samples is refused in one line
where the guest has no PMU (TCG): counted as refused, not as a failure.

Prints a Markdown table (a row per program and compiler, a column per policy: ✓ and the pages
the library moved, from its stats file; – where it wrote none: it managed no allocation and its
policy never ran, as with static arrays) and exits 1 when a run failed. Needs vm/setup.sh's qemu and kernel, clang + libomp and gcc (tools/record-setup.sh)
and target/release/libnumaplace.so (`make libs`; $NUMAPLACE_LIB names another). Slow: TCG runs the programs tens of times
slower than natively (class S: about 20 minutes on two cores).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "vm"))
sys.path.insert(0, str(REPO / "python"))
import numavm  # noqa: E402

from numaplace import _native  # noqa: E402
from numaplace.runtime.launcher import launch_env  # noqa: E402
from numaplace.runtime.base import RUNTIME_OPTIONS  # noqa: E402
from numaplace.runtime.library import built_library  # noqa: E402

MANIFEST = REPO / "tests" / "suite" / "suite.toml"
LIB = built_library()
GUEST_LIB = "/numaplace/libnumaplace.so"
COMPILERS = ("clang", "gcc")
SLOW_NODE = "3"
NO_ADDRESS_SAMPLES = "reads address samples from the CPU"
GUEST_STATS, STATS_MARK = "/tmp/numaplace-stats.json", "--- numaplace stats ---"


def _build_suite():
    spec = importlib.util.spec_from_file_location("build_suite", REPO / "tools" / "build-suite.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def policies() -> list[dict]:
    """The dynamic policies the runtime runs (the registry's capabilities), `none` first."""
    got = [p for p in json.loads(_native.policies()) if "runtime" in p["drivers"]]
    return [{"name": "none", "stats": [], "observes": ""}] + got


def tiering(p: dict) -> bool:
    return any(s["name"] == "promotions" for s in p["stats"])


def script(cases: list[tuple[str, str, str, list[str], dict[str, str]]]) -> str:
    """One shell line per case: a `case` header, the program's output, its exit status."""
    lines = []
    for compiler, name, binary, args, env in cases:
        pol = env.get("NUMAPLACE_DYNAMIC", "plain") if env else "plain"
        pre = " ".join(f"{k}={v}" for k, v in sorted(env.items()))
        cmd = f"env {pre} ./{binary}" if env else f"./{binary}"
        stats = f"; echo '{STATS_MARK}'; cat {GUEST_STATS} 2>&1; rm -f {GUEST_STATS}" if env.get("LD_PRELOAD") else ""
        lines.append(f"echo 'case {compiler} {name} {pol.split(':')[0]}'; cd /suite/{compiler}/{name};"
                     f" {cmd} {' '.join(args)} > /tmp/out 2>&1; echo rc=$?; cat /tmp/out{stats}; cd /")
    return "\n".join(lines) + "\necho 'case end'\n"


def suite_cases(out: Path, progs: list[dict], klass: str, threads: int,
                sample_period_ms: float | None = None) -> tuple[dict[str, str], list[tuple]]:
    """The files to copy into the VM and the runs: each build of each program plain, then under
    every runtime policy from first touch, as `numaplace run` preloads the library (its sampler
    every ``sample_period_ms``, the library's default if None)."""
    files = {GUEST_LIB: str(LIB)}
    cases = []
    for c in COMPILERS:
        for p in progs:
            binary = p["binary"].format(**{"class": klass})
            files[f"/suite/{c}/{p['name']}/{binary}"] = str(out / c / p["name"] / binary)
            args = [str(x) for x in p["args"].get(klass, [])]
            base = {"OMP_NUM_THREADS": str(threads)}
            cases.append((c, p["name"], binary, args, base))
            for pol in policies():
                spec = pol["name"] + (":page=4k" if pol["name"] == "hemem" else "")
                env = launch_env(GUEST_LIB, placement="first-touch", dynamic=spec, base=base, stats=GUEST_STATS,
                                 slow_nodes=SLOW_NODE if tiering(pol) else None)
                if sample_period_ms is not None:
                    env[RUNTIME_OPTIONS["sample_period_ms"]["env"]] = f"{sample_period_ms:g}"
                cases.append((c, p["name"], binary, args, env))
    return files, cases


def judge(output: str, progs: list[dict], klass: str) -> tuple[list[str], dict[tuple[str, str], list[str]], list[str]]:
    """The VM's output of :func:`script` judged: (columns, a row of cells per (compiler, program),
    the failures, one line each)."""
    bs = _build_suite()
    pols = policies()
    out = dict(re.findall(r"^case ([^\n]+)\n(.*?)(?=^case )", output, re.S | re.M))
    address = {p["name"] for p in pols if p["observes"] == "address-samples"}
    columns = ["plain"] + [p["name"] for p in pols]
    failures, table = [], {}
    for c in COMPILERS:
        for p in progs:
            row = []
            for col in columns:
                key = f"{c} {p['name']} {col}"
                text = out.get(key)
                if text is None:
                    failures.append(f"{key}: no output")
                    row.append("✗ (no output)")
                    continue
                rc = re.search(r"^rc=(\d+)$", text, re.M)
                if col in address and rc and rc.group(1) == "2" and NO_ADDRESS_SAMPLES in text:
                    row.append("refused (no PMU)")
                    continue
                text, _, stats = text.partition(STATS_MARK)
                try:
                    row.append(_cell(bs, p, klass, key, col, text, rc, stats))
                except bs.BuildError as e:
                    failures.append(f"{key}: {e}")
                    row.append("✗")
            table[(c, p["name"])] = row
    return columns, table, failures


def _cell(bs, prog: dict, klass: str, key: str, col: str, text: str, rc, stats: str) -> str:
    if not rc or rc.group(1) != "0":
        raise bs.BuildError(f"exit {rc.group(1) if rc else '?'}: {bs.first_error(text)}")
    bs.verify(prog, klass, text, key)
    if col == "plain":
        return "✓"
    if not stats.strip() or "can't open" in stats:
        # The library writes no stats file when it managed no allocation and its policy never
        # ran (static arrays only: NPB's).
        return "✓ –"
    try:
        moved = json.loads(stats)["pages_moved"]
    except (ValueError, KeyError, TypeError):
        raise bs.BuildError(f"an unreadable stats file: {stats.strip()[:200]}") from None
    return f"✓ {moved:,}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(REPO / "target" / "suite"))
    ap.add_argument("--class", dest="klass", default="S", choices=["S", "W"])
    ap.add_argument("--threads", type=int, default=4, help="OMP_NUM_THREADS (default 4: one a node)")
    ap.add_argument("--program", action="append", help="only this program (repeatable)")
    ap.add_argument("--timeout", type=float, default=3600.0, help="seconds for the whole VM run")
    a = ap.parse_args(argv)
    ok, why = numavm.available()
    if not ok:
        print(f"vm-suite: the VM is not available: {why}", file=sys.stderr)
        return 2
    if not LIB.is_file():
        print(f"vm-suite: {LIB} missing: run `make libs`", file=sys.stderr)
        return 2
    with open(MANIFEST, "rb") as f:
        m = tomllib.load(f)
    progs = [p for p in m["program"] if not a.program or p["name"] in a.program]
    if a.program and len(progs) != len(set(a.program)):
        print(f"vm-suite: unknown program among {a.program}", file=sys.stderr)
        return 2
    build = [sys.executable, str(REPO / "tools" / "build-suite.py"), "--out", a.out, "--class", a.klass]
    for c in COMPILERS:
        build += ["--compiler", c]
    for p in progs:
        build += ["--program", p["name"]]
    subprocess.run(build, check=True, stdout=subprocess.DEVNULL)
    files, cases = suite_cases(Path(a.out), progs, a.klass, a.threads)
    print(f"vm-suite: {len(cases)} runs in a 4-node VM ...", file=sys.stderr, flush=True)
    res = numavm.run(script(cases), files, nodes=4, cpus_per_node=1, mem_per_node_mb=512, timeout=a.timeout)
    columns, table, failures = judge(res.output, progs, a.klass)
    print(f"| program | compiler | {' | '.join(columns)} |")
    print("|---|---|" + "---|" * len(columns))
    for (c, name), row in table.items():
        print(f"| {name} | {c} | {' | '.join(row)} |")
    runs = sum(len(r) for r in table.values())
    print(f"\n{runs} runs, {len(failures)} failed; VM boot {res.boot_seconds:.0f} s, total {res.total_seconds:.0f} s")
    for f in failures:
        print(f"  {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
