"""The cost of sampling that `numaplace report` states, against the time sampling adds to a run.

Runs the unmodified stencil (tests/runtime/stencil.c, `plain`: no numaplace call) with T threads
(`STENCIL_THREADS`; `--threads 1,2,4` by default) under the library, with the same placement
(first touch) and no page moved, alternately:

* **off**: `--dynamic none`: nothing is sampled;
* **on**: `--dynamic upmlib`: a policy that decides only when the program calls
  `numaplace_migrate()`, which this program never does, so the runtime samples at the full rate
  (a window of `NUMAPLACE_WINDOW_PAGES` pages revoked every `NUMAPLACE_SAMPLE_PERIOD_MS`) and
  decides and moves nothing;

both forced on (`--force`: on a one-node host sampling is otherwise off). Natively each run is
`numaplace run`; with `--vm` all runs happen in one boot of the 4-node qemu VM (vm/numavm.py),
preloaded with the environment `numaplace run` sets (`numaplace.runtime.launch_env`). A run's
wall time is its stats file's `wall_s` (from the library's start to the program's exit, in the
process: the launcher's start-up is left out); natively its CPU time is the user + system time
of the launcher and the program.

Prints one JSON object per run, then one summary per thread count: the time sampling added (on −
off, of the medians and of the shortest runs, the least disturbed by other jobs) and, for the
same runs, the cost the library reported (`numaplace.runtime.sampling_cost`): `total_s`, the
wall-time estimate (the faults' cost on the critical path + revoking), and `summed_s`, the sum
over threads (faults × calibrated round trip + handler time + revoking), with their ratios to
the time added and the spread of the per-thread costs. The issue's target is a reported cost
within 20 % of the time added. Run it on an otherwise idle machine::

    .venv/bin/python benchmarks/sampling_cost.py [--threads 1,2,4] [--repeat 5] [--pages 4096] [--sweeps 20] [--vm]
"""

from __future__ import annotations

import argparse
import json
import os
import re
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


def row_of(s: dict, mode: str, threads: int, **extra: object) -> dict:
    """One run's figures from its stats file ``s``."""
    cost = rt.sampling_cost(s)
    per_thread = rt.thread_costs(s)
    return {"mode": mode, "threads": threads, "wall_s": round(s["wall_s"], 4), **extra,
            "faults": s["faults_handled"], "round_trip_ns": s["fault_round_trip_ns"],
            "faulting_threads": len(s["threads"]), "thread_max_s": round(max(per_thread, default=0.0), 4),
            "cost_s": {k: round(v, 4) for k, v in cost.items()}}


def run_native(exe: Path, args: argparse.Namespace, mode: str, threads: int, stats: Path) -> dict:
    """One run of the stencil under `numaplace run` in `mode`; its times and reported cost."""
    env = dict(os.environ, NUMAPLACE_LIB=str(rt.find_library()), NUMAPLACE_SAMPLE_PERIOD_MS=str(args.period_ms),
               NUMAPLACE_WINDOW_PAGES=str(args.window_pages), STENCIL_THREADS=str(threads))
    if args.realtime:
        # The sampler thread has the program's FIFO priority: it runs only when a CPU is free,
        # so the program's threads must sleep at their barriers, not spin, or with as many
        # threads as CPUs it would never run during the parallel sweeps.
        env["OMP_WAIT_POLICY"] = "passive"
    cmd = [*(["chrt", "--fifo", "1"] if args.realtime else []), sys.executable, "-m", "numaplace", "run", "--force",
           "--placement", "first-touch", "--dynamic", MODES[mode], "--stats", str(stats), "--",
           str(exe), "plain", str(args.pages), str(args.iters), str(args.sweeps)]
    cpu, t0 = children_cpu(), time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    outside, cpu = time.perf_counter() - t0, children_cpu() - cpu
    if r.returncode != 0 or "checksum ok" not in r.stdout:
        raise SystemExit(f"sampling_cost: the {mode} run failed (exit {r.returncode}): {r.stderr.strip()[-300:]}")
    return row_of(rt.load_stats(stats), mode, threads, outside_s=round(outside, 4), cpu_s=round(cpu, 4))


def order(i: int) -> tuple[str, str]:
    """The modes of repetition ``i``: alternately off first and on first."""
    return ("off", "on") if i % 2 == 0 else ("on", "off")


def runs_in_vm(exe: Path, args: argparse.Namespace, threads: list[int], tmp: Path) -> list[dict]:
    """Every run in one boot of the 4-node VM, preloaded as `numaplace run` preloads; the rows."""
    sys.path.insert(0, str(ROOT / "vm"))
    import numavm

    ok, why = numavm.available()
    if not ok:
        raise SystemExit(f"sampling_cost: --vm: {why}")
    lib = rt.find_library()
    lines = []
    for t in threads:
        for i in range(args.repeat):
            for mode in order(i):
                env = rt.launch_env(lib, placement="first-touch", dynamic=MODES[mode], stats="/tmp/s.json", force=True,
                                    base={"NUMAPLACE_SAMPLE_PERIOD_MS": str(args.period_ms),
                                          "NUMAPLACE_WINDOW_PAGES": str(args.window_pages), "STENCIL_THREADS": str(t)})
                preload = " ".join(f"{k}={v}" for k, v in sorted(env.items()))
                lines += [f"echo '== run {t} {i} {mode}'",
                          f"rm -f /tmp/s.json; env {preload} stencil plain {args.pages} {args.iters} {args.sweeps} > /tmp/out 2>&1;"
                          " echo rc=$?; grep -c 'checksum ok' /tmp/out; echo '== stats'; cat /tmp/s.json"]
    r = numavm.run("\n".join(lines), {"/bin/stencil": str(exe), str(lib): str(lib)}, nodes=4, timeout=args.vm_timeout)
    rows = []
    for t, i, mode, out, stats in re.findall(r"^== run (\d+) (\d+) (\w+)\n(.*?)^== stats\n(.*?)(?=^== run |\Z)", r.output, re.S | re.M):
        if "rc=0" not in out or "{" not in stats:
            raise SystemExit(f"sampling_cost: the VM's {mode} run with {t} threads failed: {out.strip()[-300:]}")
        f = tmp / f"vm-{t}-{i}-{mode}.json"
        f.write_text(stats[stats.index("{"):stats.rindex("}") + 1])
        rows.append({"repetition": int(i), **row_of(rt.load_stats(f), mode, int(t))})
    if len(rows) != 2 * args.repeat * len(threads):
        raise SystemExit(f"sampling_cost: the VM printed {len(rows)} runs, not {2 * args.repeat * len(threads)}: {r.output[-500:]}")
    return rows


def summarise(rows: list[dict], threads: int) -> dict:
    """The time sampling added with ``threads`` threads, and the costs reported for the same runs."""
    off = [r for r in rows if r["mode"] == "off" and r["threads"] == threads]
    on = [r for r in rows if r["mode"] == "on" and r["threads"] == threads]

    def med(rs: list[dict], key: str) -> float:
        return statistics.median(r[key] for r in rs)

    def reported(key: str) -> float:
        return statistics.median(r["cost_s"][key] for r in on)

    shortest = min(on, key=lambda r: r["wall_s"])
    added = {"wall_median": med(on, "wall_s") - med(off, "wall_s"),
             "wall_shortest": shortest["wall_s"] - min(r["wall_s"] for r in off)}
    rep = {"wall_median": reported("total_s"), "wall_shortest": shortest["cost_s"]["total_s"]}
    out = {
        "threads": threads, "runs": [len(off), len(on)],
        "off_wall_s": sorted(r["wall_s"] for r in off), "on_wall_s": sorted(r["wall_s"] for r in on),
        "faults": med(on, "faults"), "round_trip_ns": med(on, "round_trip_ns"),
        "faulting_threads": med(on, "faulting_threads"), "thread_max_s": round(med(on, "thread_max_s"), 4),
        "reported_parts_s": {k: round(reported(k), 4) for k in ("round_trips_s", "handler_s", "revoking_s", "critical_s")},
        "reported_s": {"wall_estimate": round(rep["wall_median"], 4), "summed": round(reported("summed_s"), 4)},
        "added_s": {k: round(v, 4) for k, v in added.items()},
    }
    ratio = {k: rep[k] / added[k] if added[k] > 0 else None for k in added}
    summed = reported("summed_s") / added["wall_median"] if added["wall_median"] > 0 else None
    if all("cpu_s" in r for r in off + on):
        cpu_added = med(on, "cpu_s") - med(off, "cpu_s")
        out["added_s"]["cpu_median"] = round(cpu_added, 4)
        ratio["summed_over_cpu"] = reported("summed_s") / cpu_added if cpu_added > 0 else None
    out["reported_over_added"] = {**{k: None if v is None else round(v, 3) for k, v in ratio.items()},
                                  "summed_wall_median": None if summed is None else round(summed, 3)}
    out["within_target"] = {k: v is not None and abs(v - 1) <= TARGET for k, v in out["reported_over_added"].items()}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", default="1,2,4", help="thread counts, comma-separated (STENCIL_THREADS)")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--pages", type=int, default=4096, help="pages per array (the stencil has two)")
    ap.add_argument("--iters", type=int, default=4)
    ap.add_argument("--sweeps", type=int, default=20)
    ap.add_argument("--period-ms", type=float, default=float(rt.RUNTIME_OPTIONS["sample_period_ms"]["default"]))
    ap.add_argument("--window-pages", type=int, default=int(rt.RUNTIME_OPTIONS["window_pages"]["default"]))
    ap.add_argument("--realtime", action="store_true",
                    help="natively, run the launcher and the program SCHED_FIFO (chrt --fifo 1; root or CAP_SYS_NICE), "
                    "the program's threads sleeping at barriers (OMP_WAIT_POLICY=passive, so that the sampler thread runs): on a "
                    "shared machine other jobs then do not stretch their wall time")
    ap.add_argument("--vm", action="store_true", help="run everything in one boot of the 4-node qemu VM (vm/numavm.py)")
    ap.add_argument("--vm-timeout", type=float, default=3600)
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    load = [loadavg()]
    with tempfile.TemporaryDirectory(prefix="numaplace-sampling-cost-") as tmp:
        d = Path(tmp)
        exe = d / "stencil"
        subprocess.run(["gcc", "-O2", "-fopenmp", str(ROOT / "tests" / "runtime" / "stencil.c"), "-o", str(exe)], check=True)
        if args.vm:
            rows = runs_in_vm(exe, args, threads, d)
            for row in rows:
                print(json.dumps(row), flush=True)
        else:
            rows = []
            for t in threads:
                for i in range(args.repeat):
                    for mode in order(i):
                        row = run_native(exe, args, mode, t, d / f"{mode}.json")
                        rows.append(row)
                        print(json.dumps({"repetition": i, **row}), flush=True)
    load.append(loadavg())
    setup = {"where": "vm" if args.vm else "native", "pages": args.pages, "iters": args.iters, "sweeps": args.sweeps,
             "period_ms": args.period_ms, "window_pages": args.window_pages, "repeat": args.repeat,
             "realtime": args.realtime, "cpus": os.cpu_count(), "loadavg": load}
    for t in threads:
        s = summarise(rows, t)
        print(json.dumps({"summary": setup, **s}), flush=True)
        r = s["reported_over_added"]
        print(f"{t} thread(s): sampling added {s['added_s']['wall_median']:.3f} s of wall time (median on - median off);"
              f" numaplace report estimated {s['reported_s']['wall_estimate']:.3f} s (ratio {r['wall_median'] or float('nan'):.2f});"
              f" summed over threads {s['reported_s']['summed']:.3f} s (ratio {r['summed_wall_median'] or float('nan'):.2f});"
              f" target {1 - TARGET:.1f}-{1 + TARGET:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
