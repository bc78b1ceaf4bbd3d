"""Recording OpenMP programs: ``numaplace cc``/``c++`` and ``numaplace record`` (exact and sampled).

``numaplace cc`` compiles and links a program for recording: clang's load/store instrumentation
(numaplace's LLVM pass plugin for every load and store, with an inline fast path, and
ThreadSanitizer's pass for atomics and memory intrinsics only) under LLVM's libomp, or
GCC's ``-fsanitize=thread`` callbacks under GCC's libgomp, with the recording library
(``crates/record/recorder.c``) linked in instead of any sanitizer runtime. ``numaplace record``
runs such a program with the library switched on, then turns its raw stream into a numaplace
trace with ``numaplace-record-convert`` (crate ``crates/record``). docs/record.md defines
epochs, the cache model, first touch, and what is counted without being seen.

``numaplace record --sampled`` records an unmodified program instead: the same library, built as
a shared object, is preloaded (``LD_PRELOAD``) and samples page accesses with hinting faults
(pages armed with ``PROT_NONE``, one sample per fault); docs/record.md, "Sampled mode".
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from numaplace import checkout
from numaplace._native import NumaplaceError
from numaplace.checkout import REPO
from numaplace.messages import error_line, shown
from numaplace.outfile import check_outputs, write_output

#: The recording library's source.
RECORDER_SOURCE = REPO / "crates" / "record" / "recorder.c"
#: The LLVM pass plugin (libomp/clang builds): the accesses sanitizer coverage does not report.
PASS_SOURCE = REPO / "crates" / "record" / "pass" / "numaplace-pass.cpp"
#: Where the library's objects are built (one per compiler: clang for libomp, gcc for libgomp).
RECORDER_DIR = REPO / "target" / "record"
#: The converter binary (`cargo build --release -p numaplace-record`).
CONVERTER = "numaplace-record-convert"

#: The OpenMP runtimes `numaplace cc --openmp` builds for: compiler (C, C++) and its flags.
RUNTIMES: dict[str, dict[str, object]] = {
    "libomp": {
        "cc": "clang",
        "c++": "clang++",
        "flags": [
            "-fopenmp=libomp",
            # numaplace's pass plugin (crates/record/pass/, -fpass-plugin, added by
            # compile_command) reports every plain load and store, with an inline fast path for
            # those that leave the cache model unchanged, and the masked, gather/scatter and
            # expand/compress vector accesses — after vectorisation, so the program is
            # vectorised as its flags say. ThreadSanitizer's pass, restricted to the rest,
            # turns atomics into __tsan_atomic* calls the recording library performs, and every
            # memory intrinsic (struct copies, merged stores and zeroing loops become
            # llvm.memcpy/memset, which the backend would expand inline when small) into a call
            # of memcpy/memmove/memset (LLVM 14; __tsan_mem* from LLVM 16), which it interposes.
            "-fsanitize=thread",
            "-mllvm", "-tsan-instrument-memory-accesses=0",
            "-mllvm", "-tsan-instrument-func-entry-exit=0",
            "-mllvm", "-tsan-instrument-memintrinsics=1",
        ],
    },
    "libgomp": {
        "cc": "gcc",
        "c++": "g++",
        "flags": ["-fopenmp", "-fsanitize=thread", "--param=tsan-instrument-func-entry-exit=0"],
    },
}
DEFAULT_RUNTIME = "libomp"
#: How each runtime's programs are built unmodified (no recording library): what `--sampled`
#: records, and the baseline the benchmarks and tests compare against.
PLAIN: dict[str, list[str]] = {"libomp": ["clang", "-O2", "-g", "-fopenmp=libomp"], "libgomp": ["gcc", "-O2", "-g", "-fopenmp"]}
#: Flags every recorded program gets: debug lines name phases and regions; -rdynamic lets
#: libomp find the OMPT tool in the program and dladdr name functions. (Not -gdwarf-4, which
#: Valgrind 3.19 would need to read a multi-file program for the reference tracer: clang 14's
#: DWARF 4 line tables place every barrier of transpose.c at its `omp parallel` line, so the
#: phases lose their names and the iterations heuristic its initialisation epoch. The
#: reference's tests and benchmark add it themselves.)
COMMON_FLAGS = ["-g"]
LINK_FLAGS = ["-rdynamic", "-ldl", "-lpthread"]

#: Sampled mode: the default sampling rate (the fraction of the tracked pages armed at each epoch
#: boundary; docs/record.md, "Sampled mode"), and the largest number of windows (1/rate).
DEFAULT_RATE = "1/16"
MAX_WINDOWS = 1 << 20

#: The cache model's default: bytes and ways (64-byte lines, LRU; docs/record.md).
DEFAULT_CACHE = "1M,8"
LINE_SIZE = 64

SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".i", ".ii")


class RecordError(NumaplaceError):
    """A bad input to `numaplace record`/`cc`: the message names the thing."""


def _setup_hint() -> str:
    return "run tools/record-setup.sh (or `make record-setup`) to install clang and libomp"


def _which(tool: str) -> str:
    path = shutil.which(tool)
    if not path:
        raise RecordError(f"{tool} not found on PATH: {_setup_hint()}")
    return path


def _compiled_recorder(out: Path, tool: str, flags: list[str], libs: list[str]) -> Path:
    """The recording library compiled by the compiler `tool` with `flags` into `out`, rebuilt
    when its source is newer (written to a temporary name and renamed, so concurrent builds
    never see half)."""
    if not RECORDER_SOURCE.is_file():
        raise RecordError(f"recording library source {RECORDER_SOURCE} missing")
    if out.is_file() and out.stat().st_mtime >= RECORDER_SOURCE.stat().st_mtime:
        return out
    RECORDER_DIR.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".{os.getpid()}{out.suffix}")
    # -fno-builtin (and GCC's loop-distribution off): the library's own byte loops must not
    # become calls of the C library functions it interposes.
    own = ["-fno-builtin"] + (["-fno-tree-loop-distribute-patterns"] if "gcc" in Path(tool).name else [])
    cmd = [_which(tool), "-O2", "-fPIC", *flags, *own, "-fexceptions", "-fno-omit-frame-pointer", str(RECORDER_SOURCE),
           "-o", str(tmp), *libs]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RecordError(f"compiling the recording library failed: {' '.join(cmd)}: {r.stderr.strip()[:500]}")
    os.replace(tmp, out)
    return out


def recorder_object(runtime: str) -> Path:
    """The recording library compiled for `runtime`'s compiler, rebuilt when its source is newer."""
    cc = str(RUNTIMES[runtime]["cc"])
    return _compiled_recorder(RECORDER_DIR / f"recorder-{cc}.o", cc, ["-c"], [])


def _clang_major(clang: str) -> int:
    r = subprocess.run([clang, "--version"], capture_output=True, text=True)
    m = re.search(r"clang version (\d+)", r.stdout)
    if not m:
        raise RecordError(f"{clang} --version: no clang version in {r.stdout.strip()[:100]!r}")
    return int(m.group(1))


def pass_plugin() -> Path:
    """numaplace's LLVM pass plugin (crates/record/pass/) built for the installed clang, into
    target/record/, rebuilt when its source is newer (written to a temporary name and renamed)."""
    if not PASS_SOURCE.is_file():
        raise RecordError(f"the recorder's pass plugin source {PASS_SOURCE} missing")
    clang = _which("clang")
    major = _clang_major(clang)
    out = RECORDER_DIR / f"numaplace-pass-llvm{major}.so"
    if out.is_file() and out.stat().st_mtime >= PASS_SOURCE.stat().st_mtime:
        return out
    config = shutil.which(f"llvm-config-{major}") or shutil.which("llvm-config")
    include = ""
    if config:
        r = subprocess.run([config, "--version"], capture_output=True, text=True)
        if r.stdout.strip().split(".")[0] == str(major):
            include = subprocess.run([config, "--includedir"], capture_output=True, text=True).stdout.strip()
    if not include or not (Path(include) / "llvm" / "Passes" / "PassPlugin.h").is_file():
        raise RecordError(
            f"building numaplace's LLVM pass plugin needs LLVM {major}'s headers (llvm/Passes/PassPlugin.h"
            f" via llvm-config-{major}), which are missing: install llvm-{major}-dev (tools/record-setup.sh)"
        )
    cxx = shutil.which(f"clang++-{major}") or shutil.which("clang++") or _which("c++")
    RECORDER_DIR.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(f".{os.getpid()}.so")
    assert config is not None  # include was found through it
    cxxflags = subprocess.run([config, "--cxxflags"], capture_output=True, text=True).stdout.split()
    # LLVM is built without RTTI: a plugin with it would need LLVM's type information.
    cmd = [cxx, *cxxflags, "-fno-rtti", "-fPIC", "-shared", "-O2", str(PASS_SOURCE), "-o", str(tmp)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RecordError(f"compiling the recorder's pass plugin failed: {' '.join(cmd)}: {r.stderr.strip()[:500]}")
    os.replace(tmp, out)
    return out


def unavailable() -> str | None:
    """Why `numaplace cc`/`record` cannot work on this machine (clang, libomp, the converter), or
    None: what tools/record-setup.sh and `make record-lib` provide (a check: it builds nothing)."""
    if not shutil.which("clang"):
        return "clang not installed (tools/record-setup.sh installs clang and libomp)"
    probe = subprocess.run(["clang", "-fopenmp=libomp", "-x", "c", "-", "-o", os.devnull],
                           input="int main(void){return 0;}", capture_output=True, text=True)
    if probe.returncode != 0:
        return "clang cannot link against libomp (tools/record-setup.sh installs libomp-dev)"
    try:
        converter(build=False)
    except RecordError as e:
        return str(e)
    return None


def recorder_preload() -> Path:
    """The recording library as a shared object for LD_PRELOAD (sampled mode), rebuilt when stale."""
    tool = "gcc" if shutil.which("gcc") else "clang"
    return _compiled_recorder(RECORDER_DIR / "recorder-preload.so", tool, ["-shared"], ["-ldl", "-lpthread"])


def parse_rate(text: str | float) -> int:
    """``--rate R`` (a fraction in (0, 1], as ``0.0625`` or ``1/16``) → windows per cycle, round(1/R)."""
    t = str(text).strip()
    try:
        if "/" in t:
            num, den = t.split("/", 1)
            r = float(num) / float(den)
        else:
            r = float(t)
    except (ValueError, ZeroDivisionError):
        raise RecordError(f"--rate {text!r}: expected a fraction in (0, 1], e.g. 1/16 or 0.0625") from None
    if not 0 < r <= 1:
        raise RecordError(f"--rate {text!r}: expected a fraction in (0, 1], e.g. 1/16 or 0.0625")
    k = round(1 / r)
    if k > MAX_WINDOWS:
        raise RecordError(f"--rate {text!r}: at least 1/{MAX_WINDOWS}")
    return k


def _instrumented(exe: str) -> bool:
    """Whether `exe` was built by `numaplace cc` (it exports the recorder's callbacks)."""
    nm = shutil.which("nm")
    if not nm:
        return False
    r = subprocess.run([nm, "-D", "--defined-only", exe], capture_output=True, text=True)
    names = {line.split()[-1] for line in r.stdout.splitlines() if line.split()}
    return bool(names & {"__sanitizer_cov_load8", "__tsan_read8"})


def converter(build: bool = True) -> Path:
    """The converter: $NUMAPLACE_RECORD_CONVERT, else target/release/numaplace-record-convert,
    which cargo builds (or checks fresh) first when ``build``: :func:`numaplace.checkout.build`."""
    given = os.environ.get("NUMAPLACE_RECORD_CONVERT")
    if not given and build:
        checkout.build("numaplace-record", CONVERTER, RecordError)
    p = Path(given) if given else checkout.release_build(CONVERTER)
    if not p.is_file():
        raise RecordError(f"{p} not found: `make record-lib` (cargo build --release -p numaplace-record) builds it")
    return p


def parse_cache(text: str) -> tuple[int, int]:
    """``SIZE,WAYS`` (SIZE in bytes, or with K/M/G, KiB/MiB/GiB) → (bytes, ways), checked."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMG](?:i?B)?|B)?\s*,\s*(\d+)\s*", text, re.IGNORECASE)
    if not m:
        raise RecordError(f"--cache {text!r}: expected SIZE,WAYS (e.g. 1M,8 or 32768,4)")
    unit = (m.group(2) or "B")[0].upper()
    size = int(m.group(1)) * {"B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[unit]
    ways = int(m.group(3))
    if not 1 <= ways <= 64:
        raise RecordError(f"--cache {text!r}: ways must be 1..64")
    sets = size // (LINE_SIZE * ways) if ways else 0
    if sets < 1 or size % (LINE_SIZE * ways) or sets & (sets - 1) or size > 1 << 30:
        raise RecordError(
            f"--cache {text!r}: SIZE must be {LINE_SIZE} bytes x WAYS x a power of two sets, at most 1 GiB"
        )
    return size, ways


def cache_variable(size: int, ways: int) -> str:
    """The recording library's $NUMAPLACE_RECORD_CACHE: ``BYTES,WAYS,LINE``."""
    return f"{size},{ways},{LINE_SIZE}"


# ----------------------------------------------------------------------------- numaplace cc


def compile_command(lang: str, runtime: str, args: Sequence[str], tmpdir: Path) -> list[list[str]]:
    """The commands `numaplace cc`/`c++` runs for compiler arguments `args` (tested)."""
    spec = RUNTIMES[runtime]
    compiler = _which(str(spec[lang]))
    flags = list(spec["flags"]) + COMMON_FLAGS  # type: ignore[arg-type]
    if runtime == "libomp":
        flags.append(f"-fpass-plugin={pass_plugin()}")
    links = not any(a in ("-c", "-S", "-E", "-M", "-MM") for a in args)
    if not links:
        return [[compiler, *flags, *args]]
    rec = str(recorder_object(runtime))
    if runtime == "libomp":
        # The recording library replaces the sanitizer runtime clang would link.
        return [[compiler, *flags, *args, "-fno-sanitize-link-runtime", rec, *LINK_FLAGS]]
    # GCC links TSan's own runtime whenever -fsanitize=thread is on the link line: compile each
    # source separately with the instrumentation, then link without it.
    cmds: list[list[str]] = []
    sources = [a for a in args if a.endswith(SOURCE_SUFFIXES) and not a.startswith("-")]
    rest: list[str] = []
    skip = False
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a.startswith("-o") or a in sources:
            continue
        rest.append(a)
    objs = []
    for k, s in enumerate(sources):
        obj = str(tmpdir / f"{k}-{Path(s).stem}.o")
        cmds.append([compiler, *flags, *rest, "-c", s, "-o", obj])
        objs.append(obj)
    link = [compiler, "-fopenmp", *[a if a not in sources else objs[sources.index(a)] for a in args], rec, *LINK_FLAGS]
    cmds.append(link)
    return cmds


def cmd_cc(args: argparse.Namespace) -> int:
    lang = args.lang
    runtime = args.openmp
    with tempfile.TemporaryDirectory(prefix="numaplace-cc-") as tmp:
        for cmd in compile_command(lang, runtime, args.args, Path(tmp)):
            r = subprocess.run(cmd)
            if r.returncode != 0:
                return r.returncode
    return 0


# ----------------------------------------------------------------------------- numaplace record


def signal_name(n: int) -> str:
    """``SIGSEGV`` for 11; ``signal N`` for a number Python does not name."""
    try:
        return signal.Signals(n).name
    except ValueError:
        return f"signal {n}"


def record(
    program: Sequence[str],
    out: str | Path,
    *,
    cache: str = DEFAULT_CACHE,
    iteration_marker: str | None = None,
    summary: str | Path | None = None,
    keep_raw: bool = False,
    env: dict[str, str] | None = None,
    sampled: bool = False,
    rate: str | float = DEFAULT_RATE,
    page_counts: str | Path | None = None,
    progress: bool | None = None,
) -> dict:
    """Records `program` into the trace `out`; returns the summary (docs/record.md).

    `sampled`: record an unmodified program by sampling (the library preloaded; `rate` the
    fraction of the tracked pages armed at each epoch boundary); the trace's counts are then
    scaled samples and its metadata says ``counts = sampled``. `page_counts`: also write each
    page's transactions per thread, summed over the run, as JSON (the converter's --page-counts).
    `progress`: show a line on stderr while the program runs (elapsed time, epochs and parallel
    regions so far, the stream's size); None: when stderr is a terminal.

    Raises:
        RecordError: the program is missing, not built for recording, used no OpenMP, or
            crashed (the trace then holds its whole epochs and is marked truncated).
    """
    if not program:
        raise RecordError("no program given: numaplace record [OPTIONS] -- PROGRAM [ARGS...]")
    size, ways = parse_cache(cache)
    exe = shutil.which(program[0]) if "/" not in program[0] else program[0]
    if exe and Path(exe).is_dir():
        raise RecordError(f"{program[0]}: is a directory, not a program")
    if not exe or not Path(exe).is_file():
        raise RecordError(f"{program[0]}: program not found")
    # Before anything runs: each output can be created, and none is another or the program.
    check_outputs([(out, "--out"), (summary, "--summary"), (page_counts, "page_counts")], [(exe, "the program")])
    out = Path(out)
    windows = parse_rate(rate) if sampled else 0
    if sampled and _instrumented(exe):
        raise RecordError(
            f"{program[0]} was built with `numaplace cc`: record it in exact mode (without --sampled),"
            " or build it with the plain compiler for --sampled"
        )
    conv = converter()
    preload = recorder_preload() if sampled else None
    # The raw stream and the converter's summary go to a private directory (mode 0700, made
    # with O_EXCL semantics) beside --out, on its file system: no one else can plant a link
    # where they are written (the library also opens the stream with O_NOFOLLOW).
    # The stream is created here, with its time stamps at 0: if the library opens it (with
    # O_TRUNC) they change, so an empty stream tells a library that never started (a program
    # not built for recording) from one that could not write (a full disk), and a file that
    # cannot be created beside --out is said to be that, not blamed on the build.
    try:
        work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".record", dir=out.parent))
    except OSError as e:
        raise RecordError(_cannot_create(out, e)) from None
    raw = work / "stream.raw"
    try:
        os.close(os.open(raw, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600))
        os.utime(raw, ns=(0, 0))
    except OSError as e:
        shutil.rmtree(work, ignore_errors=True)
        raise RecordError(_cannot_create(out, e)) from None
    run_env = dict(os.environ if env is None else env)
    run_env["NUMAPLACE_RECORD_OUT"] = str(raw)
    run_env["NUMAPLACE_RECORD_CACHE"] = cache_variable(size, ways)
    if preload:
        run_env["NUMAPLACE_RECORD_SAMPLED"] = str(windows)
        run_env["LD_PRELOAD"] = " ".join(x for x in (str(preload), run_env.get("LD_PRELOAD", "")) if x)
    try:
        try:
            r = _run_watched(list(program), run_env, raw, show=progress if progress is not None else sys.stderr.isatty())
        except PermissionError:
            raise RecordError(f"{program[0]}: cannot execute") from None
        except OSError as e:
            raise RecordError(f"{program[0]}: cannot execute ({e.strerror})") from None
        st = raw.stat()
        if st.st_size == 0 and st.st_mtime_ns == 0 and sampled:
            raise RecordError(
                f"the recording library could not be preloaded into {program[0]} (LD_PRELOAD ignored:"
                " a statically linked or set-user-ID program?)"
            )
        if st.st_size == 0 and st.st_mtime_ns == 0:
            raise RecordError(
                f"{program[0]} was not built for recording (the recording library never started): "
                "build it with `numaplace cc` (or `numaplace c++`)"
            )
        if st.st_size == 0:  # the library started, and its first write failed
            raise RecordError(f"the recording of {program[0]} could not be written beside --out {out}: {_write_failure(raw)}:"
                              " no trace written")
        status = f"exit {r.returncode}" if r.returncode >= 0 else f"signal {-r.returncode} ({signal_name(-r.returncode)})"
        # The converter writes its summary in the private directory; --summary gets a copy by
        # the outputs' rule (numaplace.outfile), as every file a command writes.
        summary_path = work / "summary.json"
        cmd = [str(conv), str(raw), str(out), "--summary", str(summary_path), "--status", status,
               "--command", " ".join(program)]
        if iteration_marker:
            cmd += ["--iteration-marker", iteration_marker]
        if page_counts:
            cmd += ["--page-counts", str(page_counts)]
        c = subprocess.run(cmd, capture_output=True, text=True)
        if c.returncode != 0:
            msg = c.stderr.strip().splitlines()[-1] if c.stderr.strip() else f"exit {c.returncode}"
            # The private directory's names are the recorder's own business, not the user's.
            msg = msg.removeprefix(f"{CONVERTER}: ").replace(str(raw), "the recording's stream")
            msg = msg.replace(str(summary_path), "the recording's summary").replace(str(work), "a directory beside --out")
            if msg.startswith(f"{out}: "):  # the trace itself could not be written (a full disk)
                raise RecordError(f"cannot write --out {msg}")
            if r.returncode < 0:
                raise RecordError(f"{program[0]} crashed ({status}) before any whole epoch: {msg}")
            if sampled and "no whole epoch" in msg:  # preloaded into a program without OpenMP
                raise RecordError(_no_openmp(program[0], None))
            if sampled and (m := _NO_ACCESS.search(msg)) and m["regions"] == "0":  # no OpenMP at all
                raise RecordError(_no_openmp(program[0], None))
            if sampled and m:  # parallel regions, nothing sampled
                raise RecordError(
                    f"{program[0]} ran {m['regions']} OpenMP parallel regions, but sampled mode counted no access in"
                    f" them: it samples heap allocations of at least {SAMPLED_MIN_KIB} KiB, and this program's data"
                    " is static or in smaller blocks; record it in exact mode (build it with `numaplace cc`,"
                    " then `numaplace record` without --sampled): no trace written"
                )
            raise RecordError(f"converting the recording of {program[0]}: {msg}")
        text = summary_path.read_text()
        data = json.loads(text)
        if summary is not None:
            write_output(summary, "--summary", text)
    finally:
        if keep_raw and raw.exists():
            raw.replace(out.parent / f".{out.name}.{os.getpid()}.raw")
        shutil.rmtree(work, ignore_errors=True)
    data["program_status"] = r.returncode
    if not any(e["phase"].startswith("fork ") for e in data["epochs"]):
        raise RecordError(_no_openmp(program[0], out))
    if r.returncode < 0:
        raise RecordError(
            f"{program[0]} crashed ({status}); the trace {out} holds its {len(data['epochs'])} whole epochs "
            "and is marked truncated"
        )
    if data["truncated"]:
        raise RecordError(
            f"the recording of {program[0]} is incomplete ({data['truncated']}); the trace {out} holds its "
            f"{len(data['epochs'])} whole epochs and is marked truncated"
        )
    return data


def _cannot_create(out: Path, e: OSError) -> str:
    return f"--out {out}: cannot create the recording's files in {out.parent}: {e.strerror or e}"


def _write_failure(raw: Path) -> str:
    """Why the recording library could not write its stream: the system's words for a byte
    written to it now (a full disk), or, if that works, the causes that touch the program only."""
    try:
        fd = os.open(raw, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            os.write(fd, b"\0")
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as e:
        return e.strerror or str(e)
    return "its first write failed (a file size limit, ulimit -f, or a disk full while it ran)"


#: The converter's error when whole epochs hold no access (convert.rs: NO_ACCESS_COUNTED).
_NO_ACCESS = re.compile(r"no memory access was counted in the recording's whole epochs: \d+ whole epochs, (?P<regions>\d+) parallel regions")
#: The smallest allocation sampled mode arms (recorder.c: SAMPLE_MIN; a test holds them equal).
SAMPLED_MIN_KIB = 64


class _StreamWatch:
    """Reads the raw stream's chunk headers as the library appends them (recorder.c: `u32
    length, u8 type, payload`), counting thread 0's epoch boundaries and its forks."""

    def __init__(self, raw: Path) -> None:
        self.raw, self.pos, self.epochs, self.forks, self.f = raw, 0, 0, 0, None

    #: Bytes read at a time (more than the largest chunk, recorder.c's 1 MiB of maps), and the
    #: time one poll may spend: a program passing millions of barriers writes millions of
    #: chunks, and the progress line must not take the CPU the program records on.
    BLOCK, BUDGET_S = 1 << 22, 0.05

    def poll(self) -> None:
        import time

        if self.f is None:
            try:
                self.f = open(self.raw, "rb")  # noqa: SIM115 (kept open across polls, closed in close())
            except OSError:
                return
        size = os.fstat(self.f.fileno()).st_size  # what the library has written so far
        deadline = time.monotonic() + self.BUDGET_S
        while self.pos + 5 <= size and time.monotonic() < deadline:
            self.f.seek(self.pos)
            block = self.f.read(min(size - self.pos, self.BLOCK))
            i = 0
            while i + 5 <= len(block):
                n, kind = int.from_bytes(block[i:i + 4], "little"), block[i + 4]
                if i + 5 + n > len(block):
                    break  # a chunk still being written, or beyond this block
                # an epoch chunk: thread, epoch, kind
                if kind == 0x45 and n >= 9 and int.from_bytes(block[i + 5:i + 9], "little") == 0:
                    self.epochs += 1
                    self.forks += block[i + 13] == 1
                i += 5 + n
            if i == 0:
                return
            self.pos += i

    def close(self) -> None:
        if self.f is not None:
            self.f.close()


def _run_watched(argv: list[str], env: dict[str, str], raw: Path, *, show: bool) -> subprocess.CompletedProcess:
    """Runs the program; with `show`, a line on stderr every half second while it runs."""
    import time

    child = subprocess.Popen(argv, env=env)
    watch, start = _StreamWatch(raw), time.monotonic()
    try:
        while show:
            try:
                rc = child.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                watch.poll()
                size = watch.pos / 2**20
                sys.stderr.write(f"\rrecording {argv[0]}: {time.monotonic() - start:,.1f} s, epoch {watch.epochs:,}"
                                 f" ({watch.forks:,} parallel regions), stream {size:,.1f} MiB\033[K")
                sys.stderr.flush()
        else:
            rc = child.wait()
    except BaseException:
        child.kill()
        child.wait()
        raise
    finally:
        watch.close()
        if show:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
    return subprocess.CompletedProcess(argv, rc)


def _no_openmp(program: str, out: Path | None) -> str:
    trace = f": the trace {out} has no parallel phase" if out else ": no trace written"
    return f"{program} ran no OpenMP parallel region (built with -fopenmp, and OpenMP enabled?){trace}"


def _print_summary(d: dict) -> None:
    epochs = d["epochs"]
    reads = sum(sum(e["reads"]) for e in epochs)
    writes = sum(sum(e["writes"]) for e in epochs)
    print(f"trace        {d['trace']}")
    print(f"threads      {d['threads']}; epochs {len(epochs)} ({d['iterations']} timed iterations)")
    if d.get("sampling"):
        s = d["sampling"]
        print(f"transactions {reads + writes:,} ({writes:,} writes), estimated from {d['counters'].get('samples', 0):,}"
              f" samples (rate 1/{s['windows']})")
    else:
        print(f"transactions {reads + writes:,} ({writes:,} writes), cache {d['cache_bytes']:,} bytes {d['cache_ways']}-way")
    print(f"regions      {len(d['regions'])} ({sum(1 for r in d['regions'] if not r['tracked'])} of untracked memory)")
    c = d["counters"]
    if d.get("sampling"):
        print(f"sampled      {c.get('samples', 0):,} samples ({c.get('first_touch_samples', 0):,} first touches,"
              f" {c.get('write_samples', 0):,} writes), {c.get('windows_armed', 0):,} windows armed,"
              f" {c.get('arming_skipped', 0):,} skipped")
    else:
        print(
            "counted      "
            f"wide accesses {c.get('wide_accesses', 0):,}, memcpy/memset/memmove lines {c.get('memfn_lines', 0):,}, "
            f"other C library lines {c.get('libc_lines', 0):,}, "
            f"atomics {c.get('atomics', 0):,}, spin-wait loads collapsed {c.get('spin_loads_collapsed', 0):,}"
        )
        if c.get("unseen_intrinsics"):
            print(f"not seen     {c['unseen_intrinsics']:,} calls of memory intrinsics the recorder does not understand"
                  " (counted, not run through the cache model: docs/record.md)")
    if d.get("truncated"):
        print(f"truncated    {d['truncated']}")


def cmd_record(args: argparse.Namespace) -> int:
    program = list(args.program)
    if program and program[0] == "--":
        program = program[1:]
    if args.rate is not None and not args.sampled:
        raise RecordError("--rate applies to --sampled recordings only")
    if args.cache is not None and args.sampled:
        raise RecordError("--cache does not apply to --sampled recordings (no cache model runs: docs/record.md)")
    # An empty --out or --cache is refused (by record()), not taken for the default.
    out = args.out if args.out is not None else f"{Path(program[0]).name if program else 'program'}.nptrace"
    # A RecordError reaches the CLI's main: one `numaplace: error:` line, exit status 2.
    d = record(program, out, cache=args.cache if args.cache is not None else DEFAULT_CACHE, iteration_marker=args.iteration_marker,
               summary=args.summary, keep_raw=args.keep_raw, sampled=args.sampled,
               rate=args.rate if args.rate is not None else DEFAULT_RATE)
    _print_summary(d)
    status = d["program_status"]
    if status:
        print(f"numaplace: warning: {shown(program[0])} exited with status {status}", file=sys.stderr)
    return status


def register(sub: argparse._SubParsersAction) -> None:
    """Adds `record`, `cc` and `c++` to the CLI's subcommands."""
    s = sub.add_parser(
        "record",
        help="record an OpenMP program built with `numaplace cc` as a trace (exact mode), or any"
        " OpenMP program by sampling (--sampled)",
        usage="numaplace record [--sampled [--rate R]] [--cache SIZE,WAYS] [--out FILE] [--iteration-marker F]"
        " [--summary FILE]"
        " -- PROGRAM [ARGS...]",
        description="Runs PROGRAM (built with `numaplace cc`/`c++`) with the recording library on and writes"
        " a numaplace trace: per epoch (barrier-delimited phase) and thread, the cache lines each page"
        " misses in a per-thread cache model. With --sampled, PROGRAM is any dynamically linked OpenMP"
        " program: the library is preloaded and the counts are estimated from sampled page accesses"
        " (hinting faults). docs/record.md.",
    )
    s.add_argument("--cache", metavar="SIZE,WAYS",
                   help=f"exact mode: the per-thread cache model: bytes (K/M suffixes) and ways, LRU,"
                   f" {LINE_SIZE}-byte lines (default {DEFAULT_CACHE})")
    s.add_argument("--sampled", action="store_true",
                   help="record an unmodified program (not built with `numaplace cc`) by sampling its page"
                   " accesses with hinting faults; the trace's counts are scaled samples")
    s.add_argument("--rate", metavar="R",
                   help=f"with --sampled: the fraction of the tracked pages armed at each epoch boundary, as"
                   f" 0.0625 or 1/16 (default {DEFAULT_RATE})")
    s.add_argument("--out", metavar="FILE", help="the trace to write (default PROGRAM.nptrace)")
    s.add_argument("--iteration-marker", metavar="FUNCTION",
                   help="each epoch ending in FUNCTION starts a timed iteration (default: recognise the"
                   " repeating sequence of phases)")
    s.add_argument("--summary", metavar="FILE", help="also write the recording's summary as JSON")
    s.add_argument("--keep-raw", action="store_true", help=argparse.SUPPRESS)
    s.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM [ARGS...]")
    s.set_defaults(func=cmd_record)
    for lang, what in (("cc", "C"), ("c++", "C++")):
        # Compiler arguments start with '-': this parser takes every argument as it is, and
        # cmd_cc reads its own options (--openmp, --help) from the front.
        s = sub.add_parser(
            lang,
            prefix_chars="+",
            add_help=False,
            help=f"compile and link a {what} OpenMP program for `numaplace record`",
            usage=CC_USAGE.format(lang=lang),
            description=f"Runs the {what} compiler of the chosen OpenMP runtime (libomp: clang; libgomp: GCC)"
            " with the load/store instrumentation and links the recording library.",
        )
        s.add_argument("args", nargs=argparse.REMAINDER, help="compiler arguments")
        s.set_defaults(func=_cc_entry(lang, s))


CC_USAGE = (
    "numaplace {lang} [--openmp libomp|libgomp] COMPILER-ARGS...   (default runtime: "
    + DEFAULT_RUNTIME + "; libomp uses clang, libgomp GCC)"
)


def _cc_entry(lang: str, parser: argparse.ArgumentParser):
    def run(args: argparse.Namespace) -> int:
        rest = list(args.args)
        args.lang, args.openmp = lang, DEFAULT_RUNTIME
        while rest and rest[0] in ("--help", "-h") or rest and rest[0].startswith("--openmp"):
            a = rest.pop(0)
            if a in ("--help", "-h"):
                parser.print_help()
                return 0
            value = a.split("=", 1)[1] if "=" in a else (rest.pop(0) if rest else "")
            if value not in RUNTIMES:
                print(error_line(f"--openmp {value!r}: expected one of {', '.join(sorted(RUNTIMES))}"), file=sys.stderr)
                return 2
            args.openmp = value
        if rest and rest[0] == "--":
            rest.pop(0)
        if not rest:
            print(error_line(f"numaplace {lang}: no compiler arguments"), file=sys.stderr)
            return 2
        args.args = rest
        return cmd_cc(args)

    return run


# ----------------------------------------------------------------------------- sampled vs exact


def _keyed_counts(summary: dict, page_counts: dict) -> dict[tuple[str, int], dict[int, int]]:
    """(region name, page within the region) -> {thread: reads + writes}, tracked regions only."""
    regions = sorted((r for r in summary["regions"] if r["tracked"]), key=lambda r: r["first_page"])
    starts = [r["first_page"] for r in regions]
    out: dict[tuple[str, int], dict[int, int]] = {}
    import bisect

    for page, thread, reads, writes in page_counts["counts"]:
        i = bisect.bisect_right(starts, page) - 1
        if i < 0 or page >= regions[i]["first_page"] + regions[i]["pages"]:
            continue
        key = (regions[i]["name"], page - regions[i]["first_page"])
        out.setdefault(key, {})[thread] = out.get(key, {}).get(thread, 0) + reads + writes
    return out


def compare_counts(exact: tuple[dict, dict], sampled: tuple[dict, dict], *, regions: Sequence[str] | None = None,
                   margin: float = 2.0) -> dict:
    """The sampled recording's error against the exact one (docs/record.md, "Sampled mode").

    Each argument is (summary, page counts) of one recording (`record(..., page_counts=...)`).
    Pages are matched by region name and position in the region, over the regions named in
    `regions` (default: the tracked regions of both recordings whose names match). Returns:
    `count_error`, the relative error of the per-page-per-thread counts weighted by the counts,
    sum |sampled - exact| / sum exact; `busiest_mismatch`, the share of the exact counts on
    pages whose busiest thread (by at least `margin` times the next) the sampled recording gets
    wrong; `busiest_pages` and `busiest_wrong`, how many such pages and how many wrong; and
    `scale`, sum sampled / sum exact."""
    e, s = _keyed_counts(*exact), _keyed_counts(*sampled)
    names = set(regions) if regions is not None else {k[0] for k in e} & {k[0] for k in s}
    keys = [k for k in set(e) | set(s) if k[0] in names]
    total_e = total_s = diff = 0
    heavy_w = wrong_w = 0
    n_heavy = n_wrong = 0
    for k in keys:
        ek, sk = e.get(k, {}), s.get(k, {})
        for t in set(ek) | set(sk):
            diff += abs(sk.get(t, 0) - ek.get(t, 0))
        total_e += sum(ek.values())
        total_s += sum(sk.values())
        ranked = sorted(ek.items(), key=lambda kv: (-kv[1], kv[0]))
        if ranked and (len(ranked) == 1 or ranked[0][1] >= margin * ranked[1][1]):
            n_heavy += 1
            heavy_w += ranked[0][1]
            best_s = max(sk.items(), key=lambda kv: (kv[1], -kv[0]))[0] if sk else None
            if best_s != ranked[0][0]:
                n_wrong += 1
                wrong_w += sum(ek.values())
    return {
        "regions": sorted(names),
        "count_error": diff / total_e if total_e else 0.0,
        "scale": total_s / total_e if total_e else 0.0,
        "busiest_pages": n_heavy,
        "busiest_wrong": n_wrong,
        "busiest_mismatch": wrong_w / total_e if total_e else 0.0,
    }
