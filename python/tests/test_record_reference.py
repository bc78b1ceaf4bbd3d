"""`numaplace record` checked against an independent binary-level tracer (docs/record-reference.md).

The reference is npref, a Valgrind tool of the project's own (tools/reftrace/), built here with
gcc against the installed Valgrind's tool headers and libraries. The same `numaplace cc` binary
is recorded and run under Valgrind (its recording library off); both count line misses through
the same cache model (32 KiB, 8-way), and `numaplace.reftrace.compare` matches them per page
and thread over the program's arrays. Thresholds (project issue 30): total misses within 5 %,
at least 95 % of the pages within 5 % for every thread, at least 99 % of the pages first
touched by the same thread. Skipped, with the reason, when Valgrind (with its tool headers),
gcc, clang/libomp or the recorder's converter is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from numaplace import record as rec
from numaplace import reftrace

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "record"
CASES = ROOT / "tools" / "reftrace" / "cases"
CACHE = "32K,8"


def _missing() -> str | None:
    why = reftrace.missing()
    if why:
        return why
    if not shutil.which("clang"):
        return "clang not installed (tools/record-setup.sh installs clang and libomp)"
    probe = subprocess.run(["clang", "-fopenmp=libomp", "-x", "c", "-", "-o", os.devnull],
                           input="int main(void){return 0;}", capture_output=True, text=True)
    if probe.returncode != 0:
        return "clang cannot link against libomp (tools/record-setup.sh installs libomp-dev)"
    try:
        rec.converter()
    except rec.RecordError as e:
        return str(e)
    return None


MISSING = _missing()
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"reference tracer unavailable: {MISSING}")


def cli(*args: str) -> None:
    e = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    r = subprocess.run([sys.executable, "-m", "numaplace", *args], capture_output=True, text=True, env=e)
    assert r.returncode == 0, r.stderr


@pytest.fixture(scope="module")
def tool(tmp_path_factory) -> Path:
    return reftrace.build(tmp_path_factory.mktemp("npref"))


@pytest.fixture(scope="module")
def bindir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("reference-bin")


def compare(tool: Path, bindir: Path, tmp_path: Path, src: Path, *args: str, flags: tuple[str, ...] = ()) -> dict:
    exe = bindir / src.stem
    if not exe.exists():
        cli("cc", "-O2", *flags, str(src), "-o", str(exe))
    res = reftrace.record_and_compare([str(exe), *args], tmp_path, cache=CACHE, threads=2, tool_dir=tool)
    (tmp_path / "comparison.json").write_text(json.dumps(res, indent=1))
    print(reftrace.format_comparison(res))
    return res


def assert_agrees(res: dict, regions: int) -> None:
    assert len(res["regions"]) == regions, res["regions"]
    assert abs(res["total_rel_diff"]) <= 0.05, res
    assert res["pages_within"] >= 0.95, res["worst_pages"]
    assert res["first_touch_same_thread"] >= 0.99, res
    assert res["pages"] > 0


def test_stencil_agrees_with_reference(tool, bindir, tmp_path):
    res = compare(tool, bindir, tmp_path, PROGRAMS / "stencil.c", str(1 << 16), "2")
    assert_agrees(res, 2)
    # OMPT gave the tool the epochs: first touches in the same epoch, and the same split
    # between the initialisation and the timed iterations.
    assert res["first_touch_same_epoch"] >= 0.99
    for per_thread in res["iterations"].values():
        for t in per_thread.values():
            assert t["recorded"] == t["reference"]


def test_spmv_agrees_with_reference(tool, bindir, tmp_path):
    res = compare(tool, bindir, tmp_path, PROGRAMS / "spmv.c", str(1 << 14), "4", "2")
    assert_agrees(res, 5)


def test_memset_initialisation_agrees_with_reference(tool, bindir, tmp_path):
    """A serial initialisation lowered to memset/memcpy (issue 30's "memset stencil")."""
    res = compare(tool, bindir, tmp_path, CASES / "memset_init.c", str(1 << 16), "2")
    assert_agrees(res, 2)


def test_avx_accesses_agree_with_reference(tool, bindir, tmp_path):
    """256-bit loads and stores (AVX intrinsics), reported by the recorder's pass plugin."""
    res = compare(tool, bindir, tmp_path, CASES / "avx.c", str(1 << 15), "2", flags=("-mavx",))
    assert_agrees(res, 2)
