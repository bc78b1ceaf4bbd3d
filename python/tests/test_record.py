"""`numaplace record` / `cc` on the project's OpenMP test programs (tests/record/): exact mode, and
sampled mode (`--sampled`) on plain builds of the same programs, checked against exact mode.

Each program is built with `numaplace cc` for both OpenMP runtimes (libomp through numaplace's
LLVM pass plugin, libgomp through GCC's -fsanitize=thread callbacks), recorded with a small
cache model (32 KiB, 8-way, 64-byte lines: every array exceeds it), and its recorded line
misses are checked against closed forms derived from the program (docs/record.md). Skipped,
with the reason, when a compiler or the converter is missing (`make record-setup record-lib`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from numaplace import record as rec

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "record"
CACHE = "32K,8"
LINE_DOUBLES = 8  # doubles per 64-byte line
LINE_INTS = 16
PAGE_DOUBLES = 512
RUNTIMES = ["libomp", "libgomp"]


def _missing() -> str | None:
    for rt in RUNTIMES:
        cc = str(rec.RUNTIMES[rt]["cc"])
        if not shutil.which(cc):
            return f"{cc} not installed (tools/record-setup.sh installs clang and libomp)"
    return rec.unavailable()


MISSING = _missing()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"recording unavailable: {MISSING}")


def cli(*args: str, env: dict | None = None, check: bool = True) -> subprocess.CompletedProcess:
    e = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    e.update(env or {})
    r = subprocess.run([sys.executable, "-m", "numaplace", *args], capture_output=True, text=True, env=e)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def cached_builds(out: Path, compile_to: Callable[[Path, str, Path], None]) -> Callable[[str, str], Path]:
    """`get(name, runtime)`: the test program `name` built once per runtime into `out` by
    `compile_to`, then reused."""
    built: dict[tuple[str, str], Path] = {}

    def get(name: str, runtime: str) -> Path:
        if (name, runtime) not in built:
            exe = out / f"{name}-{runtime}"
            compile_to(next(PROGRAMS.glob(f"{name}.c*")), runtime, exe)
            built[(name, runtime)] = exe
        return built[(name, runtime)]

    return get


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """The test programs built for recording (`numaplace cc` / `c++`)."""
    def compile_to(src: Path, runtime: str, exe: Path) -> None:
        cli("c++" if src.suffix == ".cpp" else "cc", "--openmp", runtime, "-O2", str(src), "-o", str(exe))

    return cached_builds(tmp_path_factory.mktemp("record-bin"), compile_to)


def run_record(tmp_path: Path, exe: Path, *args: str, threads: int = 2, extra: tuple[str, ...] = (),
               env: dict[str, str] | None = None) -> dict:
    out = tmp_path / f"{exe.name}.nptrace"
    summary = tmp_path / f"{exe.name}.json"
    cli("record", "--cache", CACHE, "--out", str(out), "--summary", str(summary), *extra, "--", str(exe), *args,
        env={"OMP_NUM_THREADS": str(threads), **(env or {})})
    return json.loads(summary.read_text())


def lines(lo: int, hi: int, per: int = LINE_DOUBLES) -> int:
    """Lines covering elements [lo, hi) of an array that starts on a line."""
    return 0 if hi <= lo else (hi - 1) // per - lo // per + 1


def block(n: int, threads: int, t: int) -> tuple[int, int]:
    """Iterations [lo, hi) of thread t under schedule(static) (both runtimes)."""
    q, r = divmod(n, threads)
    lo = t * q + min(t, r)
    return lo, lo + q + (t < r)


def region(d: dict, line: str) -> dict:
    """The tracked region allocated at source line `line` (e.g. 'stencil.c:18')."""
    found = [r for r in d["regions"] if r["tracked"] and r["name"].endswith(line)]
    assert len(found) == 1, (line, [r["name"] for r in d["regions"]])
    return found[0]


def first_touch(d: dict, reg: dict) -> dict[int, tuple[int, int]]:
    """Page (relative to the region) -> (thread, epoch index) of its first touch."""
    out = {}
    for page, n, thread, epoch in d["first_touch_runs"]:
        for p in range(page, page + n):
            if reg["first_page"] <= p < reg["first_page"] + reg["pages"]:
                out[p - reg["first_page"]] = (thread, epoch)
    return out


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_stencil_counts_first_touch_epochs_and_replay(build, tmp_path, runtime):
    n, iters, T = 1 << 17, 2, 2
    d = run_record(tmp_path, build("stencil", runtime), str(n), str(iters))
    assert d["threads"] == T and d["truncated"] is None
    epochs = d["epochs"]
    # Epoch 0 is the serial start up to the fork; the parallel initialisation ends at its
    # barrier; then one epoch per sweep (2 per time step), all in timed iterations.
    assert epochs[0]["phase"].startswith("fork main stencil.c:") and epochs[0]["iteration"] == 0
    assert epochs[1]["iteration"] == 0 and epochs[1]["phase"].startswith("barrier ")
    sweeps = [e for e in epochs if e["iteration"] > 0 and sum(e["reads"]) > 1000]
    assert len(sweeps) == 2 * iters
    assert d["iterations"] in (iters, 2 * iters)  # one iteration per time step or per sweep
    a, b = region(d, "stencil.c:18"), region(d, "stencil.c:19")
    assert a["pages"] == b["pages"] == n // PAGE_DOUBLES
    for t in range(T):
        lo, hi = block(n, T, t)
        # Initialisation: each thread writes its block of both arrays (write-allocate: a read
        # miss and a write per line).
        for r in (a, b):
            assert r["init_reads"][t] == lines(lo, hi) and r["init_writes"][t] == lines(lo, hi)
        # Each sweep reads the source over [lo-1, hi+1) and misses on the destination over
        # [lo, hi) (iterations 1..n-2 split between the threads).
        slo, shi = block(n - 2, T, t)
        slo, shi = slo + 1, shi + 1
        per_array_reads = iters * (lines(slo - 1, shi + 1) + lines(slo, shi))
        printf = 1 if t == 0 else 0  # main reads a[n/2] after the region
        assert a["reads"][t] == per_array_reads + printf
        assert b["reads"][t] == per_array_reads
        assert a["writes"][t] == b["writes"][t] == iters * lines(slo, shi)
        # The sweeps' epochs hold those writes (and at most a few lines of the runtime's own).
        assert 0 <= sum(e["writes"][t] for e in sweeps) - 2 * iters * lines(slo, shi) <= 8
    # First touch: each page by the thread whose block holds it, in the initialisation.
    for r in (a, b):
        ft = first_touch(d, r)
        assert len(ft) == r["pages"]
        for page, (thread, epoch) in ft.items():
            assert thread == page * PAGE_DOUBLES * T // n and epoch == 1
    # The trace replays.
    trace = tmp_path / f"stencil-{runtime}.nptrace"
    info = cli("trace", "info", str(trace)).stdout
    assert "threads       2" in info and "truncated" not in info
    sim = cli("sim", "--trace", str(trace), "--machine", "modern-2s").stdout
    assert "transactions" in sim


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_spmv_serial_initialisation(build, tmp_path, runtime):
    n, k, iters, T = 1 << 15, 4, 3, 2
    d = run_record(tmp_path, build("spmv", runtime), str(n), str(k), str(iters))
    assert d["iterations"] == iters
    rowptr, col, val, x, y = (region(d, f"spmv.c:{line}") for line in (13, 14, 15, 16, 17))
    # The initial thread initialises everything serially, before the first fork: it first-touches
    # every page in epoch 0, and its initialisation misses are whole arrays.
    for r, per, count in ((rowptr, LINE_INTS, n + 1), (col, LINE_INTS, n * k), (val, LINE_DOUBLES, n * k),
                          (x, LINE_DOUBLES, n), (y, LINE_DOUBLES, n)):
        assert set(first_touch(d, r).values()) == {(0, 0)}
        assert r["init_reads"] == [lines(0, count, per), 0] and r["init_writes"] == [lines(0, count, per), 0]
    for t in range(T):
        lo, hi = block(n, T, t)
        assert rowptr["reads"][t] == iters * lines(lo, hi + 1, LINE_INTS)
        assert col["reads"][t] == iters * lines(lo * k, hi * k, LINE_INTS)
        assert val["reads"][t] == iters * lines(lo * k, hi * k)
        # x[(i + j) mod n]: the block's columns plus k-1 beyond it (wrapping to line 0).
        xs = lines(lo, min(hi + k - 1, n)) + (1 if hi + k - 1 > n and lo > 0 else 0)
        assert x["reads"][t] == iters * xs
        assert y["reads"][t] == iters * lines(lo, hi) + (1 if t == 0 else 0)  # + main's y[n/2]
        assert y["writes"][t] == iters * lines(lo, hi)
        for r in (rowptr, col, val, x):
            assert r["writes"][t] == 0


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_transpose_misses_every_column_write(build, tmp_path, runtime):
    n, iters, T = 256, 2, 2
    d = run_record(tmp_path, build("transpose", runtime), str(n), str(iters))
    a, b = region(d, "transpose.c:12"), region(d, "transpose.c:13")
    for t in range(T):
        lo, hi = block(n, T, t)
        assert a["init_writes"][t] == (hi - lo) * n // LINE_DOUBLES
        assert a["reads"][t] == iters * (hi - lo) * n // LINE_DOUBLES
        # Column writes to B map to 2 of the 64 sets: every one misses (and dirties its line).
        assert b["reads"][t] == iters * (hi - lo) * n + (1 if t == 0 else 0)
        assert b["writes"][t] == iters * (hi - lo) * n
    # B is first touched in the first transpose (by either thread: both write every page).
    first_transpose = next(i for i, e in enumerate(d["epochs"]) if e["iteration"] == 1)
    assert {e for _, e in first_touch(d, b).values()} == {first_transpose}


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_reduction(build, tmp_path, runtime):
    n, iters, T = 1 << 17, 3, 2
    d = run_record(tmp_path, build("reduction", runtime), str(n), str(iters))
    assert d["iterations"] == iters
    a = region(d, "reduction.c:10")
    for t in range(T):
        lo, hi = block(n, T, t)
        assert a["init_writes"][t] == lines(lo, hi)
        assert a["reads"][t] == iters * lines(lo, hi) and a["writes"][t] == 0
    if runtime == "libgomp":  # GCC's reduction combines with atomics, which its callbacks show
        assert d["counters"]["atomics"] >= T * iters


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_static_array_is_a_region_named_after_its_symbol(build, tmp_path, runtime):
    n, iters, T = 1 << 16, 2, 2
    d = run_record(tmp_path, build("statics", runtime), str(iters))
    (grid,) = [r for r in d["regions"] if r["name"] == "grid (static)"]
    addr = int(grid["address"], 16)
    assert grid["bytes"] == n * 8 and grid["pages"] == (addr + n * 8 - 1) // 4096 - addr // 4096 + 1
    skew = addr % 64 // 8  # the array need not start on a line
    for t in range(T):
        lo, hi = block(n, T, t)
        assert grid["reads"][t] == iters * lines(lo + skew, hi + skew)
    owners = {thread for thread, _ in first_touch(d, grid).values()}
    assert owners == set(range(T))


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_struct_copies_and_merged_stores_are_counted(build, tmp_path, runtime):
    """16-byte complex numbers (NAS FT's): clang makes the initialisation's stores a memset and
    each `y[i] = x[i]` a memcpy intrinsic, which its backend expands inline; GCC reports them as
    16-byte accesses. Every line is counted either way, and first-touched by its block's owner."""
    n, iters, T, per_line = 1 << 15, 3, 2, 4  # 4 complex numbers a line
    d = run_record(tmp_path, build("complex", runtime), str(n), str(iters))
    tracked = sorted((r for r in d["regions"] if r["tracked"] and "complex.c:14" in r["name"]), key=lambda r: r["first_page"])
    assert len(tracked) == 2, [r["name"] for r in d["regions"]]
    x, y = tracked
    for t in range(T):
        lo, hi = block(n, T, t)
        want = lines(lo, hi, per_line)
        assert (x["init_reads"][t], x["init_writes"][t]) == (want, want)  # write-allocate, then dirty
        assert (y["init_reads"][t], y["init_writes"][t]) == (want, want)
        assert (x["reads"][t], x["writes"][t]) == (iters * want, 0)
        epilogue = int(t == 0)  # thread 0 prints y[n - 1], after the last region
        assert (y["reads"][t], y["writes"][t]) == (iters * want + epilogue, iters * want)
        for reg in (x, y):
            assert {th for th, _ in first_touch(d, reg).values() if th == t}, (runtime, t)
    if runtime == "libomp":  # through the memory intrinsics clang's pass turns into calls
        assert d["counters"]["memfn_lines"] >= 2 * n // per_line * (iters + 1)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_spin_wait_pipeline_oversubscribed(build, tmp_path, runtime):
    chunks, length, T = 16, 4096, 3  # 3 threads on fewer cores: progresses only by yielding
    # glibc's fixed mmap threshold puts the 512 KiB buffers in mappings where the runtime's
    # freed blocks were: an address reused after a free belongs to its latest allocation.
    d = run_record(tmp_path, build("pipeline", runtime), str(chunks), str(length), threads=T,
                   env={"MALLOC_MMAP_THRESHOLD_": "131072"})
    bufs = sorted((r for r in d["regions"] if r["tracked"] and "pipeline.c:20" in r["name"]),
                  key=lambda r: r["first_page"])
    assert len(bufs) == T + 1
    total = chunks * length // LINE_DOUBLES
    for s in range(T):
        assert bufs[s]["reads"][s] == total  # stage s reads buffer s
        assert bufs[s + 1]["writes"][s] == total  # and writes buffer s+1 (write-allocate read)
        assert bufs[s + 1]["reads"][s] == total
        assert {th for th, _ in first_touch(d, bufs[s + 1]).values()} == {s}
    c = d["counters"]
    assert c["spin_loads_collapsed"] > 0 and c["spin_yields"] >= 0
    # Each stage's atomic increment of `arrived` is counted, under either compiler.
    assert c["atomics"] >= T


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_cplusplus_vectors_and_memcpy(build, tmp_path, runtime):
    n, iters = 1 << 17, 3
    d = run_record(tmp_path, build("vector", runtime), str(n), str(iters))
    # Allocations through operator new are named after the code that called it.
    names = [r["name"] for r in d["regions"] if r["tracked"] and r["pages"] >= n * 8 // 4096]
    assert names[:2] == ["main vector.cpp:13", "main vector.cpp:13#2"], names
    # new[] is named after its caller too, not after libstdc++'s operator new[] inside it.
    assert "main vector.cpp:19" in names, names
    # Each memcpy reads n/8 lines of b and writes n/8 lines of a (libomp copies a little too).
    assert d["counters"]["memfn_lines"] >= iters * 2 * n // LINE_DOUBLES
    assert d["counters"]["memfn_calls"] >= iters


def test_no_link_beside_the_output_is_followed_and_nothing_is_left_behind(build, tmp_path):
    """The raw stream and the converter's summary are written in a private directory, never at a
    predictable name beside --out: links planted at the names earlier versions used are left
    alone, the file they point at untouched, and only the trace is added to the directory."""
    out_dir = tmp_path / "shared"
    out_dir.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = out_dir / "s.nptrace"
    planted = [out_dir / f".{out.name}.{os.getpid()}.raw", out_dir / f".{out.name}.{os.getpid()}.json"]
    for p in planted:
        p.symlink_to(victim)
    rec.record([str(build("stencil", "libomp")), "4096", "1"], out, cache=CACHE, env=dict(os.environ, OMP_NUM_THREADS="2"))
    assert victim.read_text() == "precious\n"
    assert sorted(p.name for p in out_dir.iterdir()) == sorted([out.name] + [p.name for p in planted])
    assert all(p.is_symlink() for p in planted)


def test_progress_reads_the_stream_as_it_grows(build, tmp_path, capsys):
    """The progress line's counts come from the raw stream's chunk headers: read after the run,
    they are thread 0's epoch boundaries (one per trace epoch) and its forks."""
    out = tmp_path / "p.nptrace"
    d = rec.record([str(build("stencil", "libomp")), "65536", "3"], out, cache=CACHE, keep_raw=True, progress=True,
                   env=dict(os.environ, OMP_NUM_THREADS="2"))
    raw = out.parent / f".{out.name}.{os.getpid()}.raw"
    w = rec._StreamWatch(raw)
    w.poll()
    while w.pos < raw.stat().st_size:  # a poll reads for at most _StreamWatch.BUDGET_S
        before = w.pos
        w.poll()
        assert w.pos > before
    w.close()
    assert w.pos == raw.stat().st_size
    assert w.epochs == len(d["epochs"]) + d["empty_epochs"]
    assert w.forks == sum(1 for e in d["epochs"] if e["phase"].startswith("fork "))
    assert capsys.readouterr().err.endswith("\r\033[K")  # the line is cleared at the end


def test_gcc_old_abi_parallel_start_end(build, tmp_path):
    n, T = 1 << 16, 2
    d = run_record(tmp_path, build("oldabi", "libgomp"), str(n))
    phases = [e["phase"].split(" ")[0] for e in d["epochs"]]
    assert phases[:3] == ["fork", "barrier", "barrier"]  # serial start, write phase, read phase
    a = region(d, "oldabi.c:30")
    write, read = d["epochs"][1], d["epochs"][2]
    for t in range(T):
        lo, hi = n * t // T, n * (t + 1) // T
        assert write["writes"][t] >= lines(lo, hi) and read["reads"][t] >= lines(lo, hi)
        assert a["init_reads"][t] + a["reads"][t] == 2 * lines(lo, hi)  # write-allocate, then read
    assert {th for th, _ in first_touch(d, a).values()} == set(range(T))


def test_crash_leaves_a_truncated_readable_trace(build, tmp_path):
    exe = build("faults", "libomp")
    out = tmp_path / "crash.nptrace"
    r = cli("record", "--out", str(out), "--", str(exe), "segv", "3", check=False, env={"OMP_NUM_THREADS": "2"})
    assert r.returncode != 0
    assert "crashed" in r.stderr and "marked truncated" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    info = cli("trace", "info", str(out)).stdout
    assert "truncated" in info and "signal" in info


def test_full_disk_marks_the_trace_truncated(build, tmp_path):
    # The recording stream cannot grow past 16 blocks of 512 or 1024 bytes (ulimit -f; SIGXFSZ
    # ignored: writes fail as on a full disk) while the whole recording needs about 200 KiB: the
    # library stops recording, the program finishes, the trace holds the whole epochs written
    # and says it is truncated.
    exe = build("stencil", "libgomp")
    out = tmp_path / "full.nptrace"
    shell = f'trap "" XFSZ; ulimit -f 16; exec "{exe}" 131072 2'
    r = cli("record", "--cache", CACHE, "--out", str(out), "--", "/bin/sh", "-c", shell, check=False,
            env={"OMP_NUM_THREADS": "2"})
    assert r.returncode != 0 and "marked truncated" in r.stderr and "disk full" in r.stderr
    info = cli("trace", "info", str(out)).stdout
    assert "truncated" in info


def _one_line_without_internal_names(r: subprocess.CompletedProcess) -> str:
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and len(lines) == 1 and lines[0].startswith("numaplace: error:"), r.stderr
    assert ".record" not in lines[0] and "stream.raw" not in lines[0], lines[0]
    return lines[0]


def test_a_stream_that_cannot_be_written_is_not_blamed_on_the_build(build, tmp_path):
    # Before: "was not built for recording" (the library could not write its stream), or the
    # converter's "DIR/.OUT.XXXX.record/stream.raw: empty recording". A file size limit of 0
    # makes the library's first write fail as on a full disk.
    exe = build("stencil", "libgomp")
    out = tmp_path / "t.nptrace"
    shell = f'trap "" XFSZ; ulimit -f 0; exec "{exe}" 4096 1'
    r = cli("record", "--out", str(out), "--", "/bin/sh", "-c", shell, check=False, env={"OMP_NUM_THREADS": "2"})
    line = _one_line_without_internal_names(r)
    assert f"could not be written beside --out {out}" in line and "file size limit" in line, line
    assert "not built" not in line
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def full_disk(tiny_tmpfs):
    """A full 8 KiB tmpfs (root, and a kernel that lets this process mount, only)."""
    mnt = tiny_tmpfs("8k")
    with (mnt / "fill").open("wb") as f:
        try:
            f.write(b"\0" * 65536)
        except OSError:
            pass
    return mnt


def test_a_full_disk_beside_out_is_said_to_be_one(build, full_disk):
    out = full_disk / "t.nptrace"
    r = cli("record", "--out", str(out), "--", str(build("stencil", "libgomp")), "4096", "1", check=False,
            env={"OMP_NUM_THREADS": "2"})
    line = _one_line_without_internal_names(r)
    assert f"could not be written beside --out {out}: No space left on device" in line, line
    assert sorted(p.name for p in full_disk.iterdir()) == ["fill"]


def test_uninstrumented_program_and_other_bad_input(build, tmp_path):
    r = cli("record", "--out", str(tmp_path / "t.nptrace"), "--", "/bin/true", check=False)
    assert r.returncode != 0 and "not built for recording" in r.stderr and "numaplace cc" in r.stderr
    r = cli("record", "--", str(tmp_path / "nope"), check=False)
    assert r.returncode != 0 and "nope: program not found" in r.stderr
    r = cli("record", "--cache", "1000,3", "--", "/bin/true", check=False)
    assert r.returncode != 0 and "--cache" in r.stderr
    r = cli("record", "--out", str(tmp_path / "s.nptrace"), "--", str(build("faults", "libgomp")), "serial",
            check=False)
    assert r.returncode != 0 and "no OpenMP parallel region" in r.stderr
    r = cli("cc", "x.c", check=False, env={"PATH": str(tmp_path)})
    assert r.returncode != 0 and "clang not found" in r.stderr and "record-setup" in r.stderr


def test_iteration_marker(build, tmp_path):
    d = run_record(tmp_path, build("stencil", "libomp"), str(1 << 15), "3", extra=("--iteration-marker", "step"))
    # Each sweep's barrier lies in step(): one iteration per sweep.
    assert d["iterations"] == 6
    r = cli("record", "--iteration-marker", "no_such_function", "--out", str(tmp_path / "m.nptrace"), "--",
            str(build("stencil", "libomp")), "4096", "1", check=False)
    assert r.returncode != 0 and "no_such_function" in r.stderr


def test_cache_option_parsing():
    assert rec.parse_cache("1M,8") == (1 << 20, 8)
    assert rec.parse_cache("32KiB, 4") == (32768, 4)
    for bad in ("1M", "1M,0", "1000,8", "3M,8", "x,8"):
        with pytest.raises(rec.RecordError):
            rec.parse_cache(bad)


# ----------------------------------------------------------------------------- sampled mode



@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    """The test programs built with the plain compiler (no recording library): unmodified binaries."""
    def compile_to(src: Path, runtime: str, exe: Path) -> None:
        subprocess.run([*rec.PLAIN[runtime], str(src), "-o", str(exe)], check=True)

    return cached_builds(tmp_path_factory.mktemp("record-plain"), compile_to)


def recording(tmp_path: Path, exe: Path, args: list[str], *, sampled: bool, rate: str = "1") -> tuple[dict, dict]:
    tag = "s" if sampled else "e"
    out, pages = tmp_path / f"{exe.name}-{tag}.nptrace", tmp_path / f"{exe.name}-{tag}.pages.json"
    d = rec.record([str(exe), *args], out, cache=CACHE, sampled=sampled, rate=rate, page_counts=pages,
                   env=dict(os.environ, OMP_NUM_THREADS="2"))
    return d, json.loads(pages.read_text())


SAMPLED_CASES = [("stencil", ["131072", "2"], ("stencil.c:18", "stencil.c:19")),
                 ("spmv", ["32768", "4", "3"], ("spmv.c:14", "spmv.c:15", "spmv.c:16", "spmv.c:17"))]


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("name,args,lines_", SAMPLED_CASES, ids=[c[0] for c in SAMPLED_CASES])
def test_sampled_mode_matches_exact_mode(build, plain, tmp_path, runtime, name, args, lines_):
    exact = recording(tmp_path, build(name, runtime), args, sampled=False)
    sampled = recording(tmp_path, plain(name, runtime), args, sampled=True, rate="1/2")
    d = sampled[0]
    assert d["sampling"] == {"rate": 0.5, "windows": 2, "lines_per_page": 64}
    assert d["counters"]["samples"] > 0 and d["counters"]["arming_skipped"] == 0
    # Same epochs, and the program's arrays are regions with the same names and sizes.
    assert [e["phase"].split()[0] for e in d["epochs"]] == [e["phase"].split()[0] for e in exact[0]["epochs"]]
    names = [region(d, line)["name"] for line in lines_]
    for line in lines_:
        assert region(d, line)["pages"] == region(exact[0], line)["pages"]
    cmp = rec.compare_counts(exact, sampled, regions=names)
    # The busiest thread of each page that has one (by 2x) is the exact mode's, but for a few
    # pages whose first access raced; the scale is right within a factor of 2.
    assert cmp["busiest_pages"] >= 100 and cmp["busiest_wrong"] <= cmp["busiest_pages"] // 50, cmp
    assert 0.5 <= cmp["scale"] <= 2.0, cmp
    # First touches are sampled exactly (every new allocation is armed whole).
    for line in lines_:
        ft_s, ft_e = first_touch(d, region(d, line)), first_touch(exact[0], region(exact[0], line))
        assert ft_s == ft_e
    # The trace says what its counts are, and replays.
    trace = Path(d["trace"])
    info = cli("trace", "info", str(trace)).stdout
    assert "counts = sampled" in info and "sampling_rate = 1/2" in info and "count.samples" in info
    assert "cache = " not in info
    sim = cli("sim", "--trace", str(trace), "--machine", "modern-2s").stdout
    assert "transactions" in sim


def test_sampled_mode_cli_and_bad_input(build, plain, tmp_path):
    exe = plain("stencil", "libgomp")
    out = tmp_path / "cli.nptrace"
    r = cli("record", "--sampled", "--rate", "0.25", "--out", str(out), "--", str(exe), "65536", "2",
            env={"OMP_NUM_THREADS": "2"})
    assert "samples (rate 1/4)" in r.stdout
    assert "sampling_rate = 1/4" in cli("trace", "info", str(out)).stdout
    for bad in ("0", "1.5", "x", "1/0"):
        r = cli("record", "--sampled", "--rate", bad, "--", str(exe), check=False)
        assert r.returncode != 0 and f"--rate {bad!r}" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = cli("record", "--rate", "1/4", "--", str(exe), check=False)
    assert r.returncode != 0 and "--sampled" in r.stderr
    r = cli("record", "--sampled", "--cache", "32K,8", "--", str(exe), check=False)
    assert r.returncode != 0 and "--cache does not apply" in r.stderr
    # A program built for exact mode is refused (its own copy of the library would shadow the
    # preloaded one), and a program that never forks is refused as in exact mode.
    r = cli("record", "--sampled", "--out", str(tmp_path / "x.nptrace"), "--", str(build("stencil", "libomp")),
            "4096", "1", check=False)
    assert r.returncode != 0 and "numaplace cc" in r.stderr and "without --sampled" in r.stderr
    r = cli("record", "--sampled", "--out", str(tmp_path / "y.nptrace"), "--", str(plain("faults", "libomp")),
            "serial", check=False)
    assert r.returncode != 0 and "no OpenMP parallel region" in r.stderr
    r = cli("record", "--sampled", "--out", str(tmp_path / "z.nptrace"), "--", "/bin/true", check=False)
    assert r.returncode != 0 and "no OpenMP parallel region" in r.stderr
    # A program whose data is all static ran its regions: said so, with why nothing was sampled.
    r = cli("record", "--sampled", "--out", str(tmp_path / "s.nptrace"), "--", str(plain("statics", "libomp")), "2",
            check=False, env={"OMP_NUM_THREADS": "2"})
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "ran 3 OpenMP parallel regions, but sampled mode counted no access" in r.stderr, r.stderr
    assert "static" in r.stderr and "numaplace cc" in r.stderr and not (tmp_path / "s.nptrace").exists()


def test_sampled_mode_s_smallest_allocation_is_declared_alike_in_the_library_and_the_messages():
    import re

    m = re.search(r"#define SAMPLE_MIN \((\d+) \* 1024\)", rec.RECORDER_SOURCE.read_text())
    assert m and int(m[1]) == rec.SAMPLED_MIN_KIB


def test_sampled_mode_crash_is_a_crash(plain, tmp_path):
    # A real SIGSEGV (a null pointer) is not taken for a sample: the trace is truncated, as in
    # exact mode.
    out = tmp_path / "crash.nptrace"
    r = cli("record", "--sampled", "--out", str(out), "--", str(plain("faults", "libgomp")), "segv", "3",
            check=False, env={"OMP_NUM_THREADS": "2"})
    assert r.returncode != 0 and "crashed" in r.stderr and "signal 11" in r.stderr
    assert "truncated" in cli("trace", "info", str(out)).stdout


def test_sampled_program_reads_and_writes_into_armed_buffers(tmp_path):
    # read(2)/write(2)/fwrite on armed pages would fail with EFAULT if the library did not
    # re-enable them around the call: the program checks every byte. Then a forked child reads
    # the armed pages it inherited (it must not crash) and the program runs `system`.
    src = tmp_path / "io.c"
    src.write_text(IO_PROGRAM)
    exe = tmp_path / "io"
    subprocess.run(["gcc", "-O2", "-fopenmp", str(src), "-o", str(exe)], check=True)
    d = rec.record([str(exe), str(tmp_path / "data")], tmp_path / "io.nptrace", sampled=True, rate="1",
                   env=dict(os.environ, OMP_NUM_THREADS="2"))
    assert d["program_status"] == 0 and d["counters"]["samples"] > 0


IO_PROGRAM = r"""
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    size_t n = 1 << 20;
    char *a = malloc(n), *b = malloc(n);
    for (int it = 0; it < 4; it++) {
#pragma omp parallel for
        for (size_t i = 0; i < n; i++) { a[i] = (char)(i * 7 + it); b[i] = 0; }
        int fd = open(argv[1], O_CREAT | O_TRUNC | O_RDWR, 0600);
        if (fd < 0 || write(fd, a, n) != (ssize_t)n) return 10;
        if (pread(fd, b, n, 0) != (ssize_t)n || memcmp(a, b, n)) return 11;
        close(fd);
        FILE *f = fopen(argv[1], "w+");
        if (!f || fwrite(b, 1, n, f) != n) return 12;
        rewind(f);
        memset(a, 0, n);
        if (fread(a, 1, n, f) != n || memcmp(a, b, n)) return 13;
        fclose(f);
#pragma omp parallel for
        for (size_t i = 0; i < n; i++) a[i] += 1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        long s = 0;
        for (size_t i = 0; i < n; i++) s += a[i];
        _exit(s == 0 ? 3 : 0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) return 14;
    if (system("true")) return 15;
    return 0;
}
"""


def _cpu_has(flag: str) -> bool:
    try:
        return any(flag in line.split() for line in Path("/proc/cpuinfo").read_text().splitlines()
                   if line.startswith("flags"))
    except OSError:
        return False


def _tracked(d: dict, source: str) -> list[dict]:
    """The tracked regions allocated in `source`, in address order."""
    return sorted((r for r in d["regions"] if r["tracked"] and f" {source}:" in r["name"]), key=lambda r: r["first_page"])


@pytest.mark.skipif(not _cpu_has("avx2"), reason="the CPU has no AVX2")
@pytest.mark.parametrize("opt", ["-O2", "-O0"])
def test_wide_masked_and_gathered_accesses_are_counted(tmp_path, opt):
    """Accesses beyond 1..16-byte loads and stores (numaplace's pass plugin reports them):
    256-bit loads and stores, a masked load (only its active lane's line), a gather (each
    lane's line), x87 long doubles (10 bytes). At -O0 the masked load and the gather stay x86
    intrinsics; at -O2 clang makes the gather a generic llvm.masked.gather."""
    n, iters, T = 1 << 17, 2, 2
    exe = tmp_path / "wide"
    cli("cc", opt, "-mavx2", str(PROGRAMS / "wide.c"), "-o", str(exe))
    d = run_record(tmp_path, exe, str(n), str(iters))
    a, b, c, dd, e = regs = _tracked(d, "wide.c")
    assert [r["pages"] for r in regs] == [n * 8 // 4096] * 4 + [n // 2 * 16 // 4096]

    def total(r: dict, t: int) -> tuple[int, int]:  # initialisation and timed iterations together
        return r["init_reads"][t] + r["reads"][t], r["init_writes"][t] + r["writes"][t]

    for t in range(T):
        lo, hi = block(n // 4, T, t)
        init = lines(4 * lo, 4 * hi)  # the 256-bit stores of the initialisation
        assert total(a, t) == ((1 + iters) * init, init)
        assert total(b, t) == ((1 + iters) * init, (1 + iters) * init)
        lo16, hi16 = block(n // 16, T, t)
        assert total(c, t) == (init + iters * (hi16 - lo16), init)  # line 2m only, not 2m+1
        lo64, hi64 = block(n // 64, T, t)
        assert total(dd, t) == (init + iters * 4 * (hi64 - lo64), init)  # 4 lanes, 4 lines
        elo, ehi = block(n // 2, T, t)
        le = lines(elo, ehi, 4)  # 4 long doubles (16 bytes each) a line
        assert total(e, t) == ((1 + iters) * le, le)
        for r in regs:
            assert {th for th, _ in first_touch(d, r).values() if th == t}
    c_ = d["counters"]
    assert c_["wide_accesses"] >= (n // 4) * (4 + 3 * iters) + (n // 2) * (1 + iters) + iters * (n // 16 + n // 64)
    assert c_["unseen_intrinsics"] == 0


@pytest.mark.skipif(not _cpu_has("avx2"), reason="the CPU has no AVX2")
def test_a_users_vector_width_cannot_hide_accesses(build, tmp_path):
    """-O3 -mavx2 -mprefer-vector-width=256 vectorises the stencil with 32-byte loads and stores:
    the counts are those of the default build, access for access."""
    n, iters = 1 << 17, 2
    wide = tmp_path / "stencil256"
    cli("cc", "-O3", "-mavx2", "-mprefer-vector-width=256", str(PROGRAMS / "stencil.c"), "-o", str(wide))
    got = run_record(tmp_path, wide, str(n), str(iters))
    want = run_record(tmp_path, build("stencil", "libomp"), str(n), str(iters))
    assert got["counters"]["wide_accesses"] > n // 2  # the sweeps' 32-byte vectors
    for line in ("stencil.c:18", "stencil.c:19"):
        g, w = region(got, line), region(want, line)
        for key in ("init_reads", "init_writes", "reads", "writes"):
            assert g[key] == w[key], (line, key)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_c_library_buffer_functions_are_counted(build, tmp_path, runtime):
    """memcmp, memchr, strlen, bzero, strcpy and qsort on the program's arrays: the bytes each
    examines or writes go through the cache model (qsort: the recorder's copy of glibc's merge
    sort, every element moved through its temporary buffer and back)."""
    n, iters, T = 1 << 19, 2, 2
    d = run_record(tmp_path, build("libc", runtime), str(n), str(iters))
    x, y, z, w, v, s = regs = _tracked(d, "libc.c")
    assert [r["pages"] for r in regs] == [n // 4096] * 6
    for t in range(T):
        lo, hi = block(64, T, t)
        L = (hi - lo) * (n // 64) // 64  # the thread's blocks, in lines
        want = {  # (reads, writes), initialisation and timed iterations together
            "x": (L + iters * 2 * L, L),  # memcmp and memchr (nothing found: every byte)
            "y": (L + iters * L, L),  # memcmp (equal blocks: every byte)
            "z": (L + iters * 2 * L, L),  # strlen, strcpy's source
            "w": ((1 + iters) * L, (1 + iters) * L),  # bzero
            "v": ((1 + iters) * L, (1 + iters) * L),  # strcpy's destination
            "s": ((1 + iters) * L, (1 + iters) * L),  # qsort: every chunk's lines read and written
        }
        for name, r in zip("xyzwvs", regs):
            got = (r["init_reads"][t] + r["reads"][t], r["init_writes"][t] + r["writes"][t])
            assert got == want[name], (name, t, got, want[name])
    # (bzero may be compiled into memset, counted with memcpy/memmove/memset)
    assert d["counters"]["libc_calls"] >= iters * (4 * 64 + (n // 8) // 512)


def test_pass_plugin_without_llvm_headers_is_one_line_naming_the_package(tmp_path, monkeypatch):
    """Without LLVM's development headers (Debian's llvm-N-dev for clang N) the plugin cannot be
    built: `numaplace cc` says which package is missing."""
    which = shutil.which
    monkeypatch.setattr(rec, "RECORDER_DIR", tmp_path)  # nothing built yet
    monkeypatch.setattr(rec.shutil, "which", lambda name: None if name.startswith("llvm-config") else which(name))
    with pytest.raises(rec.RecordError) as e:
        rec.pass_plugin()
    major = rec._clang_major(which("clang"))
    assert f"install llvm-{major}-dev" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.skipif(not shutil.which("setarch"), reason="setarch (util-linux) missing: cannot turn off address randomisation")
def test_the_inline_fast_path_changes_no_count(build, tmp_path):
    """The pass plugin's inline fast path (an access to its set's most recently used line, a
    store only to a dirty one, is counted without calling the library) leaves every count as
    the library alone makes it: the same binary recorded with $NUMAPLACE_RECORD_FAST=0 (every
    access calls the library) and with the fast path gives the same trace, byte for byte, and
    the same counters. One thread, address randomisation off: two runs see the same addresses,
    so the same cache sets. The programs: 16-byte vectors (stencil), indirect loads (spmv),
    strided stores (transpose), struct copies (complex), 32-byte vectors, masked and gathered
    accesses and x87 long doubles (wide.c at -O2 -mavx2)."""
    wide = tmp_path / "wide"
    cli("cc", "-O2", "-mavx2", str(PROGRAMS / "wide.c"), "-o", str(wide))
    runs = [(build("stencil", "libomp"), ["65536", "3"]), (build("spmv", "libomp"), ["32768", "4", "3"]),
            (build("transpose", "libomp"), ["256", "2"]), (build("complex", "libomp"), ["32768", "3"]),
            (wide, ["32768", "2"])]
    for exe, args in runs:
        got = []
        for fast in ("0", "1"):
            out, summary = tmp_path / f"{exe.name}-{fast}.nptrace", tmp_path / f"{exe.name}-{fast}.json"
            subprocess.run(["setarch", "-R", sys.executable, "-m", "numaplace", "record", "--cache", CACHE,
                            "--out", str(out), "--summary", str(summary), "--", str(exe), *args],
                           check=True, capture_output=True,
                           env=dict(os.environ, OMP_NUM_THREADS="1", NUMAPLACE_RECORD_FAST=fast))
            d = json.loads(summary.read_text())
            got.append((out.read_bytes(), d["counters"], d["regions"], d["epochs"]))
        off, on = got
        assert on[1] == off[1], (exe.name, on[1], off[1])
        assert on[2:] == off[2:], exe.name
        # The trace differs only in its own file name, which it does not contain.
        assert on[0] == off[0], exe.name
        assert on[1]["loads"] > 0 and on[1]["stores"] > 0
