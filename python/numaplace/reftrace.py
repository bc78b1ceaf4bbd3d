"""An independent reference for ``numaplace record``: a Valgrind tool (docs/record-reference.md).

``npref`` (``tools/reftrace/``) is a small Valgrind tool written against Valgrind's public tool
API. It sees every memory access of the program at binary level (any width, atomics, the
accesses inside ``memset``/``memcpy`` and every library), runs each Valgrind thread's accesses
through the cache model docs/record.md describes (written anew in the tool), and counts line
misses per page, OpenMP thread and epoch, and the first-touching thread of every page. Its
preload wraps glibc's allocators (regions) and is an OMPT tool (OpenMP thread numbers, forks
and barriers: epochs).

* :func:`build` builds the tool (gcc against the installed Valgrind's headers and libraries).
* :func:`run` runs a program under it and returns the parsed result (:func:`load`).
* :func:`compare` compares a recording (``numaplace record``'s summary and page counts) with
  the reference over the program's data: the tracked regions whose allocation site is in the
  program's own code, and its static arrays.
"""

from __future__ import annotations

import bisect
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from numaplace import record as rec
from numaplace._native import NumaplaceError
from numaplace.checkout import REPO
from numaplace.outfile import write_output

TOOL_SOURCE = REPO / "tools" / "reftrace"
DEFAULT_BUILD = REPO / "target" / "reftrace"
PRELOAD = "vgpreload_npref-amd64-linux.so"
TOOL = "npref-amd64-linux"
VALGRIND_HEADERS = Path("/usr/include/valgrind/pub_tool_basics.h")
VALGRIND_LIBS = Path("/usr/lib/x86_64-linux-gnu/valgrind/libcoregrind-amd64-linux.a")


class ReftraceError(NumaplaceError):
    """The reference tracer could not be built or run."""


def missing() -> str | None:
    """Why the reference tracer cannot be used here, or None."""
    if not shutil.which("valgrind"):
        return "valgrind not installed (Debian: apt-get install valgrind)"
    if not VALGRIND_HEADERS.exists() or not VALGRIND_LIBS.exists():
        return "Valgrind's tool headers or static libraries are missing (Debian's valgrind package has them)"
    if not shutil.which("gcc"):
        return "gcc not installed (it builds the Valgrind tool)"
    if not any(Path("/usr/lib").glob("llvm-*/lib/clang/*/include/omp-tools.h")) and not any(
            Path("/usr/lib/gcc/x86_64-linux-gnu").glob("*/include/omp-tools.h")):
        return "omp-tools.h not found (clang or libomp-dev provides it)"
    return None


def build(out: str | Path | None = None) -> Path:
    """Builds npref into `out` (default target/reftrace) and returns that directory."""
    out = Path(out) if out else DEFAULT_BUILD
    srcs = [TOOL_SOURCE / f for f in ("npref_main.c", "npref_preload.c", "npref.h", "build.sh")]
    tool, pre = out / TOOL, out / PRELOAD
    if tool.exists() and pre.exists() and (out / "lib" / TOOL).exists():
        newest = max(s.stat().st_mtime for s in srcs)
        if min(tool.stat().st_mtime, pre.stat().st_mtime) >= newest:
            return out
    r = subprocess.run(["sh", str(TOOL_SOURCE / "build.sh"), str(out)], capture_output=True, text=True)
    if r.returncode != 0:
        raise ReftraceError(f"building the reference tracer failed:\n{r.stderr.strip()}")
    return out


@dataclass
class Alloc:
    seq: int
    addr: int
    size: int
    ip: int
    function: str
    file: str
    line: int


@dataclass
class Reference:
    """npref's result. Counts are per (page number = address // page size, OpenMP thread,
    epoch): [reads, writes]; `first_touch` maps a page to (thread, epoch)."""

    header: dict[str, str]
    allocs: list[Alloc]
    frees: list[tuple[int, int]]
    counts: dict[tuple[int, int, int], list[int]]
    first_touch: dict[int, tuple[int, int]]
    counters: dict[str, int]
    maps: list[str]
    exe: str = ""
    stderr: str = ""
    returncode: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def page_size(self) -> int:
        return int(self.header["page"])


def load(path: str | Path) -> Reference:
    """Parses npref's output file."""
    header: dict[str, str] = {}
    allocs: list[Alloc] = []
    frees: list[tuple[int, int]] = []
    counts: dict[tuple[int, int, int], list[int]] = {}
    ft: dict[int, tuple[int, int]] = {}
    counters: dict[str, int] = {}
    maps: list[str] = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            tag, _, rest = line.rstrip("\n").partition(" ")
            if tag == "C":
                p, t, e, r, w = map(int, rest.split())
                c = counts.setdefault((p, t, e), [0, 0])
                c[0] += r
                c[1] += w
            elif tag == "T":
                p, t, e = map(int, rest.split())
                ft[p] = (t, e)
            elif tag == "A":
                seq, addr, size, ip, site = rest.split(" ", 4)
                fn, _, loc = site.partition("|")
                file, _, ln = loc.rpartition(":")
                allocs.append(Alloc(int(seq), int(addr, 16), int(size), int(ip, 16), fn,
                                    file if file else "?", int(ln) if ln.isdigit() else 0))
            elif tag == "F":
                seq, addr = rest.split()
                frees.append((int(seq), int(addr, 16)))
            elif tag == "K":
                k, v = rest.split()
                counters[k.removeprefix("cnt_")] = int(v)
            elif tag == "M":
                maps.append(rest)
            elif tag == "H":
                k, _, v = rest.partition(" ")
                header[k] = v
    return Reference(header, allocs, frees, counts, ft, counters, maps, exe=header.get("exe", ""))


def run(program: Sequence[str], out: str | Path, *, cache: str = rec.DEFAULT_CACHE, tool_dir: str | Path | None = None,
        env: dict[str, str] | None = None, timeout: float | None = None) -> Reference:
    """Runs `program` under npref (building it if needed) with the cache model `cache`
    ("SIZE,WAYS", as `numaplace record --cache`); writes npref's output to `out` and returns
    it parsed. The program runs with its recording library off ($NUMAPLACE_RECORD_OUT unset)."""
    size, ways = rec.parse_cache(cache)
    d = build(tool_dir)
    e = dict(os.environ if env is None else env)
    e.pop("NUMAPLACE_RECORD_OUT", None)
    e["VALGRIND_LIB"] = str(d / "lib")
    # numaplace cc's programs carry an ompt_start_tool that declines when not recording: libomp
    # then tries OMP_TOOL_LIBRARIES. A plain program finds the preload's directly.
    e["OMP_TOOL_LIBRARIES"] = str(d / PRELOAD)
    e.setdefault("KMP_BLOCKTIME", "0")   # idle threads sleep at once: spinning is slow under Valgrind
    cmd = ["valgrind", "--tool=npref", "-q", f"--cache-bytes={size}", f"--cache-ways={ways}",
           f"--page-size={os.sysconf('SC_PAGESIZE')}", f"--out={out}", "--", *program]
    r = subprocess.run(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if not Path(out).exists():
        raise ReftraceError(f"valgrind --tool=npref wrote no result (exit {r.returncode}):\n{r.stderr.strip()[-2000:]}")
    ref = load(out)
    ref.stderr, ref.returncode = r.stderr, r.returncode
    ref.exe = str(Path(program[0]).resolve())
    return ref


# ----------------------------------------------------------------------------- regions


@dataclass
class Region:
    name: str             # as the recorder names it: "FUNCTION FILE:LINE" or "SYMBOL (static)"
    pages: list[int]      # virtual page numbers, in address order
    program: bool         # allocated by the program's own code, or a static array of it


def _exe_base(ref: Reference) -> int | None:
    """The load address of the program (its mapping at file offset 0)."""
    exe = os.path.realpath(ref.exe)
    for m in ref.maps:
        parts = m.split()
        if len(parts) >= 6 and os.path.realpath(parts[5]) == exe and int(parts[2], 16) == 0:
            return int(parts[0].split("-")[0], 16)
    return None


def _static_objects(exe: str, page: int) -> list[tuple[str, int, int, str]]:
    """Data and bss objects of at least a page: (symbol, link-time address, size, source file)."""
    if not shutil.which("nm"):
        return []
    r = subprocess.run(["nm", "-S", "-l", "--defined-only", exe], capture_output=True, text=True)
    # Thread-local symbols (readelf's type TLS): nm lists them at their offset in the
    # thread-local block, which is no address of the running program.
    e = subprocess.run(["readelf", "-sW", exe], capture_output=True, text=True)
    tls = {f[7] for f in (line.split() for line in e.stdout.splitlines()) if len(f) >= 8 and f[3] == "TLS"}
    out = []
    for line in r.stdout.splitlines():
        head, _, loc = line.partition("\t")
        parts = head.split()
        if len(parts) != 4 or parts[2] not in "bBdDrR" or parts[3] in tls:
            continue
        addr, size = int(parts[0], 16), int(parts[1], 16)
        if size >= page:
            out.append((parts[3], addr, size, loc.rpartition(":")[0]))
    return out


def _recorder_symbols() -> set[str]:
    """Data symbols the recording library defines (its objects in target/record/): its static
    tables, which a `numaplace cc` program carries but which are not the program's data."""
    out: set[str] = set()
    objs = [str(p) for p in rec.RECORDER_DIR.glob("*.o")] if rec.RECORDER_DIR.is_dir() else []
    if objs and shutil.which("nm"):
        r = subprocess.run(["nm", "--defined-only", *objs], capture_output=True, text=True)
        for line in r.stdout.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[1] in "bBdDrR":
                out.add(parts[2])
    return out


def _in_exe(ref: Reference, ip: int) -> bool:
    """Whether `ip` lies in a mapping of the program's own file."""
    exe = os.path.realpath(ref.exe)
    for m in ref.maps:
        parts = m.split()
        if len(parts) >= 6 and os.path.realpath(parts[5]) == exe:
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            if lo <= ip < hi:
                return True
    return False


def regions(ref: Reference, *, program_sources: Sequence[str] | None = None) -> list[Region]:
    """The reference run's regions, named as the recorder names them: each allocation of at
    least 4096 bytes, named after its call site (repeats get #2, #3, ...), the latest covering a
    page owning it; then the program's static objects of at least a page. `program` marks the
    regions of the program's own code: allocation sites in the program (debug information
    naming a source file), static arrays not defined by numaplace's recording library."""
    ps = ref.page_size
    exe_real = os.path.realpath(ref.exe) if ref.exe else ""
    latest: dict[int, int] = {}
    live = [a for a in ref.allocs if a.size >= 4096]
    for i, a in enumerate(live):
        for v in range(a.addr // ps, (a.addr + max(a.size, 1) - 1) // ps + 1):
            latest[v] = i
    used: dict[str, int] = {}
    out: list[Region] = []

    def unique(base: str) -> str:
        used[base] = used.get(base, 0) + 1
        return base if used[base] == 1 else f"{base}#{used[base]}"

    claimed: set[int] = set()
    for i, a in enumerate(live):
        pages = [v for v in range(a.addr // ps, (a.addr + max(a.size, 1) - 1) // ps + 1) if latest.get(v) == i]
        if not pages:
            continue
        claimed.update(pages)
        if a.file != "?":
            name = f"{a.function} {os.path.basename(a.file)}:{a.line}"
        else:
            name = a.function
        in_program = a.file != "?" and _in_exe(ref, a.ip) and (program_sources is None or os.path.basename(a.file) in
                                        {os.path.basename(s) for s in program_sources})
        out.append(Region(unique(name), pages, in_program))
    base = _exe_base(ref)
    if base is not None and exe_real:
        # PIE: run-time address = load address + link-time address (a non-PIE links at its own).
        pie = subprocess.run(["readelf", "-h", exe_real], capture_output=True, text=True).stdout
        bias = base if "DYN" in pie else 0
        own = _recorder_symbols()
        for sym, addr, size, src in sorted(_static_objects(exe_real, ps), key=lambda s: s[1]):
            a = addr + bias
            pages = [v for v in range(a // ps, (a + size - 1) // ps + 1) if v not in claimed]
            if not pages:
                continue
            claimed.update(pages)
            recorder_own = sym in own or os.path.basename(src) == os.path.basename(rec.RECORDER_SOURCE)
            out.append(Region(unique(f"{sym} (static)"), pages, not recorder_own))
    return out


# ----------------------------------------------------------------------------- comparison


def _iteration_of(summary: dict):
    """raw epoch -> iteration, from the recorder's summary (epochs it did not keep take the
    iteration of the kept epoch before them)."""
    pairs = sorted((e["raw_epoch"], e["iteration"]) for e in summary["epochs"])
    raws = [p[0] for p in pairs]

    def it(raw: int) -> int:
        i = bisect.bisect_right(raws, raw) - 1
        return pairs[max(i, 0)][1]

    return it


def _strip(name: str) -> str:
    return re.sub(r"#\d+$", "", name)


_Key = tuple[str, int]
"""A page by (region name, page index in the region): how the two sides' pages are matched."""


def _recorded_pages(summary: dict, pc: dict) -> tuple[list[dict], dict[_Key, dict[int, list[int]]], list[int], dict[_Key, tuple[int, int]]]:
    """The recording's tracked regions (by first page), its counts by page and thread ([reads,
    writes]), its total [reads, writes] over every page, and each page's first touch (thread, epoch)."""
    rec_regions = sorted((r for r in summary["regions"] if r["tracked"]), key=lambda r: r["first_page"])
    starts = [r["first_page"] for r in rec_regions]

    def rec_key(page: int):
        i = bisect.bisect_right(starts, page) - 1
        if i < 0 or page >= rec_regions[i]["first_page"] + rec_regions[i]["pages"]:
            return None
        return rec_regions[i]["name"], page - rec_regions[i]["first_page"]

    rec_counts: dict[tuple[str, int], dict[int, list[int]]] = {}
    rec_total = [0, 0]
    for page, t, r, w in pc["counts"]:
        rec_total[0] += r
        rec_total[1] += w
        k = rec_key(page)
        if k is None:
            continue
        c = rec_counts.setdefault(k, {}).setdefault(t, [0, 0])
        c[0] += r
        c[1] += w
    rec_ft: dict[tuple[str, int], tuple[int, int]] = {}
    for page, n, t, e in summary["first_touch_runs"]:
        for p in range(page, page + n):
            k = rec_key(p)
            if k is not None:
                rec_ft[k] = (t, e)
    shared = {k for page, _ in pc.get("first_touch_shared", []) if (k := rec_key(page)) is not None}
    return rec_regions, rec_counts, rec_total, rec_ft, shared


def _reference_pages(ref: Reference, iteration, program_sources: Sequence[str] | None):  # noqa: ANN001, ANN202
    """The reference's regions, its counts by page and thread, by (region, thread, timed or
    init), its total [reads, writes] over every page, and each page's first touch."""
    ref_regions = regions(ref, program_sources=program_sources)
    ref_index: dict[int, tuple[str, int]] = {}
    for reg in ref_regions:
        for i, v in enumerate(reg.pages):
            ref_index[v] = (reg.name, i)
    ref_counts: dict[tuple[str, int], dict[int, list[int]]] = {}
    ref_iter: dict[tuple[str, int, bool], list[int]] = {}
    ref_total = [0, 0]
    for (v, t, e), (r, w) in ref.counts.items():
        ref_total[0] += r
        ref_total[1] += w
        k = ref_index.get(v)
        if k is None:
            continue
        c = ref_counts.setdefault(k, {}).setdefault(t, [0, 0])
        c[0] += r
        c[1] += w
        ci = ref_iter.setdefault((k[0], t, iteration(e) > 0), [0, 0])
        ci[0] += r
        ci[1] += w
    ref_ft = {ref_index[v]: te for v, te in ref.first_touch.items() if v in ref_index}
    return ref_regions, ref_counts, ref_iter, ref_total, ref_ft


def compare(recording: tuple[dict, dict], ref: Reference, *, regions_: Sequence[str] | None = None,
            tolerance: float = 0.05, program_sources: Sequence[str] | None = None) -> dict:
    """Compares a recording with the reference, page by page and thread by thread.

    `recording` is (summary, page counts) of ``numaplace record`` (``record.record(...,
    page_counts=...)``, as :func:`numaplace.record.compare_counts` takes). Regions are matched
    by name (the recorder's names: allocation site, static symbol) and pages by position in
    the region. Compared: the regions named in `regions_` (names or name suffixes such as
    "stencil.c:18"), else every region of the program's own data present on both sides (see
    :func:`regions`). Everything else -- stacks, small allocations, libraries' internal data
    and allocations, the recording library's own statics -- is excluded, and its share of each
    side's misses reported.

    Returns: `total_rel_diff` (recorded total over the reference's, minus 1, reads + writes),
    `reads_rel_diff`, `writes_rel_diff`; `pages` (touched on either side), `pages_within`
    (share of them whose reads and writes agree for every thread within `tolerance` of the
    larger), `first_touch_pages`, `first_touch_same_thread` (share with the same first-touching
    thread), `first_touch_same_epoch`, `first_touch_raced_pages` (pages the recording saw touched
    by more than one thread in their first epoch: the first toucher was a race) and
    `first_touch_same_thread_unraced` (the share over the other pages); `per_region` (name -> totals and shares); `iterations`
    (per region and thread: recorded and reference init and timed reads and writes);
    `excluded` (shares of misses outside the compared regions); `worst_pages` (the largest
    disagreements)."""
    summary, pc = recording
    ps = summary["page_size"]
    if ps != ref.page_size:
        raise ReftraceError(f"page sizes differ: recording {ps}, reference {ref.page_size}")
    threads = max(summary["threads"], 1 + max((t for (_, t, _) in ref.counts), default=0))
    iteration = _iteration_of(summary)

    rec_regions, rec_counts, rec_total, rec_ft, rec_shared = _recorded_pages(summary, pc)
    ref_regions, ref_counts, ref_iter, ref_total, ref_ft = _reference_pages(ref, iteration, program_sources)

    # Which regions: named, or the program's on both sides.
    rec_names = {r["name"] for r in rec_regions}
    ref_program = {reg.name for reg in ref_regions if reg.program}
    if regions_ is not None:
        def wanted(n: str) -> bool:
            return any(n == w or _strip(n).endswith(w) or _strip(n).endswith(" " + w) for w in regions_)
        names = {n for n in rec_names | {reg.name for reg in ref_regions} if wanted(n)}
    else:
        names = rec_names & ref_program
    missing_rec = sorted(n for n in ref_program if n not in rec_names)
    missing_ref = sorted(n for n in names if n not in {reg.name for reg in ref_regions})

    keys = sorted({k for k in set(rec_counts) | set(ref_counts) | set(rec_ft) | set(ref_ft) if k[0] in names})
    tot_rec = [0, 0]
    tot_ref = [0, 0]
    n_pages = n_within = 0
    n_ft = n_ft_same = n_ft_epoch = n_ft_raced = n_ft_raced_same = 0
    per_region: dict[str, dict] = {}
    worst = []
    for k in keys:
        a, b = rec_counts.get(k, {}), ref_counts.get(k, {})
        pr = per_region.setdefault(k[0], {"pages": 0, "pages_within": 0, "recorded": [0, 0], "reference": [0, 0],
                                          "first_touch_pages": 0, "first_touch_same_thread": 0})
        if a or b:
            n_pages += 1
            pr["pages"] += 1
            ok = True
            err = 0
            for t in set(a) | set(b):
                x, y = a.get(t, [0, 0]), b.get(t, [0, 0])
                for j in (0, 1):
                    tot_rec[j] += x[j]
                    tot_ref[j] += y[j]
                    pr["recorded"][j] += x[j]
                    pr["reference"][j] += y[j]
                    d = abs(x[j] - y[j])
                    err += d
                    if d > tolerance * max(x[j], y[j]):
                        ok = False
            n_within += ok
            pr["pages_within"] += ok
            if not ok:
                worst.append((err, k, {t: v for t, v in sorted(a.items())}, {t: v for t, v in sorted(b.items())}))
        if k in ref_ft or k in rec_ft:
            n_ft += 1
            pr["first_touch_pages"] += 1
            same = k in ref_ft and k in rec_ft and ref_ft[k][0] == rec_ft[k][0]
            n_ft_same += same
            pr["first_touch_same_thread"] += same
            n_ft_epoch += k in ref_ft and k in rec_ft and ref_ft[k] == rec_ft[k]
            if k in rec_shared:
                n_ft_raced += 1
                n_ft_raced_same += same
    worst.sort(key=lambda w: -w[0])

    def rel(x: float, y: float) -> float:
        return (x / y - 1.0) if y else (0.0 if x == 0 else float("inf"))

    iters = {}
    for r in rec_regions:
        if r["name"] not in names:
            continue
        iters[r["name"]] = {
            t: {"recorded": {"init": [r["init_reads"][t], r["init_writes"][t]], "timed": [r["reads"][t], r["writes"][t]]}
                if t < len(r["reads"]) else None,
                "reference": {"init": ref_iter.get((r["name"], t, False), [0, 0]),
                              "timed": ref_iter.get((r["name"], t, True), [0, 0])}}
            for t in range(threads)}
    return {
        "regions": sorted(names),
        "regions_missing_in_recording": missing_rec,
        "regions_missing_in_reference": missing_ref,
        "recorded": {"reads": tot_rec[0], "writes": tot_rec[1]},
        "reference": {"reads": tot_ref[0], "writes": tot_ref[1]},
        "total_rel_diff": rel(sum(tot_rec), sum(tot_ref)),
        "reads_rel_diff": rel(tot_rec[0], tot_ref[0]),
        "writes_rel_diff": rel(tot_rec[1], tot_ref[1]),
        "pages": n_pages,
        "pages_within": n_within / n_pages if n_pages else 1.0,
        "first_touch_pages": n_ft,
        "first_touch_same_thread": n_ft_same / n_ft if n_ft else 1.0,
        "first_touch_same_epoch": n_ft_epoch / n_ft if n_ft else 1.0,
        # Pages more than one thread touched in the epoch of their first touch: which thread came
        # first is a race in the program (natively, and under Valgrind one interleaving of it).
        "first_touch_raced_pages": n_ft_raced,
        "first_touch_same_thread_unraced": ((n_ft_same - n_ft_raced_same) / (n_ft - n_ft_raced)
                                            if n_ft > n_ft_raced else 1.0),
        "per_region": per_region,
        "iterations": iters,
        "excluded": {
            "recorded_share": 1 - sum(tot_rec) / sum(rec_total) if sum(rec_total) else 0.0,
            "reference_share": 1 - sum(tot_ref) / sum(ref_total) if sum(ref_total) else 0.0,
            "recorded_total": sum(rec_total),
            "reference_total": sum(ref_total),
        },
        "worst_pages": [{"region": k[0], "page": k[1], "recorded": a, "reference": b} for _, k, a, b in worst[:10]],
        "reference_counters": ref.counters,
        "recorded_counters": summary.get("counters", {}),
    }


def record_and_compare(program: Sequence[str], workdir: str | Path, *, cache: str = "32K,8", threads: int = 2,
                       regions_: Sequence[str] | None = None, tool_dir: str | Path | None = None,
                       env: dict[str, str] | None = None, reference_program: Sequence[str] | None = None) -> dict:
    """Records `program` (built with ``numaplace cc``) with ``numaplace record`` and runs it
    under the reference tracer, both with OMP_NUM_THREADS=`threads` and the cache model
    `cache`; returns :func:`compare`'s result. `reference_program`: run this command under
    the tracer instead (a plain build of the same source with the same compiler and flags:
    faster under Valgrind, without the instrumentation's own loads and stores)."""
    workdir = Path(workdir)
    name = Path(program[0]).name
    e = dict(os.environ if env is None else env)
    e["OMP_NUM_THREADS"] = str(threads)
    pc_path = workdir / f"{name}.pagecounts.json"
    summary = rec.record(list(program), workdir / f"{name}.nptrace", cache=cache, summary=workdir / f"{name}.json",
                         env=e, page_counts=pc_path)
    import json

    pc = json.loads(pc_path.read_text())
    ref = run(reference_program or program, workdir / f"{name}.npref", cache=cache, tool_dir=tool_dir, env=e)
    if ref.returncode != 0:
        raise ReftraceError(f"{name} under valgrind exited {ref.returncode}:\n{ref.stderr.strip()[-2000:]}")
    return compare((summary, pc), ref, regions_=regions_)


def format_comparison(res: dict) -> str:
    """A few lines: totals, page agreement, first touch, exclusions, the worst pages."""
    rc, rf = res["recorded"], res["reference"]
    lines = [
        f"regions       {', '.join(res['regions']) or '(none)'}",
        f"misses        recorded {rc['reads']:,} reads + {rc['writes']:,} writes; reference {rf['reads']:,} + "
        f"{rf['writes']:,}; total {res['total_rel_diff']:+.2%} (reads {res['reads_rel_diff']:+.2%}, "
        f"writes {res['writes_rel_diff']:+.2%})",
        f"pages         {res['pages']:,}, within 5 % for every thread: {res['pages_within']:.2%}",
        f"first touch   {res['first_touch_pages']:,} pages, same thread {res['first_touch_same_thread']:.2%}, "
        f"same thread and epoch {res['first_touch_same_epoch']:.2%}; {res['first_touch_raced_pages']:,} raced"
        f" (touched by several threads in their first epoch), same thread on the others"
        f" {res['first_touch_same_thread_unraced']:.2%}",
        f"excluded      {res['excluded']['recorded_share']:.1%} of the recorded misses, "
        f"{res['excluded']['reference_share']:.1%} of the reference's (outside the compared regions)",
    ]
    if res["regions_missing_in_recording"]:
        lines.append(f"not recorded  {', '.join(res['regions_missing_in_recording'])}")
    for w in res["worst_pages"][:5]:
        lines.append(f"  {w['region']} page {w['page']}: recorded {w['recorded']} reference {w['reference']}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """python -m numaplace.reftrace [--cache 32K,8] [--threads 2] -- PROGRAM ARGS: records,
    traces and prints the comparison as JSON."""
    import argparse
    import json

    p = argparse.ArgumentParser(prog="python -m numaplace.reftrace")
    p.add_argument("--cache", default="32K,8")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--region", action="append")
    p.add_argument("--keep", help="directory for the recordings (default: a temporary one)")
    p.add_argument("--reference", help="run this program (same arguments) under the tracer instead: a plain build")
    p.add_argument("--json", help="write the whole comparison here as JSON")
    p.add_argument("program", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    prog = a.program[1:] if a.program and a.program[0] == "--" else a.program
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(a.keep) if a.keep else Path(tmp)
        d.mkdir(parents=True, exist_ok=True)
        refprog = [a.reference, *prog[1:]] if a.reference else None
        res = record_and_compare(prog, d, cache=a.cache, threads=a.threads, regions_=a.region,
                                 reference_program=refprog)
    if a.json:
        write_output(a.json, "--json", json.dumps(res, indent=1))
    print(format_comparison(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
