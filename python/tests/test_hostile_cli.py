"""Hostile input to the CLI, the Python API and the launcher (issue 16): every bad input is one
line on stderr, ``numaplace: error: ...``, with exit status 2 (a ``NumaplaceError`` in the API),
and no command replaces or removes a file it was not asked to write.

The tests run as whatever user runs the suite; those that need root (device nodes, a setuid
file of another owner) skip with the reason otherwise. Device nodes are made in the test's own
directory with ``mknod`` (the same device as ``/dev/null``), so a regression can never replace
the machine's real ``/dev/null``.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import numaplace
from numaplace import infile
from numaplace import runtime as rt
from numaplace._native import ConfigError, NumaplaceError

SMALL = "stream:pages=64,iterations=2"
NEEDS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="mknod and chown need root")


def cli(*args: str | bytes | Path, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Runs ``python -m numaplace ARGS``; arguments may be bytes (non-UTF-8 names)."""
    full = dict(os.environ)
    full.pop("NUMAPLACE_DEBUG", None)
    full.update(env or {})
    argv = [sys.executable.encode(), b"-m", b"numaplace", *(os.fsencode(a) for a in args)]
    return subprocess.run(argv, capture_output=True, cwd=cwd, env=full, timeout=120)


def usage_error(r: subprocess.CompletedProcess, *needles: str) -> str:
    """Checks the one-line error contract; returns the line. Each needle must be in it."""
    err = r.stderr.decode(errors="replace")
    assert r.returncode == 2, (r.returncode, r.stdout, err)
    assert b"Traceback" not in r.stderr and r.stdout == b"", (r.stdout, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("numaplace: error:"), err
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def null_device(path: Path) -> Path:
    """A character device node at ``path`` that is ``/dev/null`` (major 1, minor 3)."""
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return path


def is_null_device(path: Path) -> bool:
    st = os.lstat(path)
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)


def leftovers(directory: Path, expected: set[str]) -> set[str]:
    """Names in ``directory`` besides ``expected`` (a temporary file a writer left behind)."""
    return {p.name for p in directory.iterdir()} - expected


# --- writers: regular files, links, devices, directories ----------------------------------------


@NEEDS_ROOT
def test_sim_json_to_a_device_writes_through_it(tmp_path):
    dev = null_device(tmp_path / "null")
    r = cli("sim", "--workload", SMALL, "--json", dev, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert is_null_device(dev)
    assert leftovers(tmp_path, {"null"}) == set()


def test_sim_json_to_dev_null_as_another_user(tmp_path):
    """Not root: the real /dev/null cannot be replaced, so this is safe, and it must work (a
    writer that renames a temporary over it fails, as it cannot create one in /dev)."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv to run the CLI as another user")
    as_nobody = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable]
    # A checkout in a private directory (a fresh clone in mktemp -d is mode 0700) cannot be
    # imported by uid 65534: then this case cannot be run, which says nothing of the writer.
    probe = subprocess.run([*as_nobody, "-c", "import numaplace"], capture_output=True, cwd="/", timeout=120)
    if probe.returncode != 0:
        pytest.skip(f"uid 65534 cannot import this checkout's numaplace: {probe.stderr.decode(errors='replace').strip()[-120:]}")
    r = subprocess.run([*as_nobody, "-m", "numaplace", "sim", "--workload", SMALL, "--json", "/dev/null"], capture_output=True, cwd="/", timeout=120)
    assert r.returncode == 0, r.stderr
    assert is_null_device(Path("/dev/null"))


def test_sim_json_to_a_fifo_writes_through_it(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    p = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)  # the reader keeps the open from blocking
    r = cli("sim", "--workload", SMALL, "--json", fifo, cwd=tmp_path)
    out, _ = p.communicate(timeout=120)
    assert r.returncode == 0, r.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert numaplace.Result.from_json(out.decode()).iterations == 2


def test_sim_json_through_a_symlink_writes_its_target(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "out.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    r = cli("sim", "--workload", SMALL, "--json", link, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert numaplace.Result.from_json(target.read_text()).iterations == 2
    assert leftovers(tmp_path / "real", {"out.json"}) == set()


def test_sim_json_through_a_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to("made.json")
    r = cli("sim", "--workload", SMALL, "--json", link, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and (tmp_path / "made.json").is_file()


def test_sim_json_empty_path_is_an_error(tmp_path):
    usage_error(cli("sim", "--workload", SMALL, "--json", "", cwd=tmp_path), "--json")


def test_sim_json_onto_a_directory_is_one_line(tmp_path):
    (tmp_path / "d").mkdir()
    usage_error(cli("sim", "--workload", SMALL, "--json", tmp_path / "d", cwd=tmp_path), "is a directory")
    assert list((tmp_path / "d").iterdir()) == []


def test_decisions_needs_dynamic(tmp_path):
    usage_error(cli("sim", "--workload", SMALL, "--decisions", "d.csv", cwd=tmp_path), "--decisions", "--dynamic")
    assert not (tmp_path / "d.csv").exists()


def test_decisions_and_json_on_one_path_is_an_error(tmp_path):
    r = cli("sim", "--workload", SMALL, "--dynamic", "upmlib", "--decisions", "x.json", "--json", "./x.json", cwd=tmp_path)
    usage_error(r, "--decisions", "--json")
    assert leftovers(tmp_path, set()) == set()


@NEEDS_ROOT
def test_decisions_to_a_device_and_through_a_symlink(tmp_path):
    dev = null_device(tmp_path / "null")
    r = cli("sim", "--workload", SMALL, "--dynamic", "upmlib", "--decisions", dev, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert is_null_device(dev)
    target = tmp_path / "t.csv"
    (tmp_path / "l.csv").symlink_to(target)
    r = cli("sim", "--workload", SMALL, "--dynamic", "upmlib", "--decisions", "l.csv", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "l.csv").is_symlink() and target.read_text().startswith("time_ns,page,")
    assert leftovers(tmp_path, {"null", "t.csv", "l.csv"}) == set()


def test_decisions_onto_a_directory_leaves_no_temporary(tmp_path):
    (tmp_path / "d.csv").mkdir()
    with pytest.raises(NumaplaceError, match="d.csv"):
        numaplace.simulate(workload=SMALL, dynamic="upmlib", decisions=str(tmp_path / "d.csv"))
    assert leftovers(tmp_path, {"d.csv"}) == set()


@NEEDS_ROOT
def test_topo_out_report_plot_and_trace_export_through_devices_and_links(tmp_path, sysfs):
    dev = null_device(tmp_path / "null")
    assert cli("topo", "--detect", "--sysfs", sysfs, "--out", dev, cwd=tmp_path).returncode == 0
    assert is_null_device(dev)
    (tmp_path / "m.link").symlink_to("m.toml")
    assert cli("topo", "--detect", "--sysfs", sysfs, "--out", "m.link", cwd=tmp_path).returncode == 0
    assert (tmp_path / "m.link").is_symlink() and "[[nodes]]" in (tmp_path / "m.toml").read_text()

    r = cli("trace", "export", "--workload", SMALL, "--threads", "2", "--out", dev, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert is_null_device(dev)
    (tmp_path / "t.link").symlink_to("t.nptrace")
    r = cli("trace", "export", "--workload", SMALL, "--threads", "2", "--out", "t.link", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "t.link").is_symlink() and numaplace.trace_info(str(tmp_path / "t.nptrace"))["threads"] == 2

    from test_runtime_cli import write_stats

    stats = write_stats(tmp_path / "s.json")
    assert cli("report", stats, "--plot", dev, cwd=tmp_path).returncode == 0
    assert is_null_device(dev)
    (tmp_path / "p.link").symlink_to("p.png")
    assert cli("report", stats, "--plot", "p.link", cwd=tmp_path).returncode == 0
    assert (tmp_path / "p.link").is_symlink() and (tmp_path / "p.png").read_bytes().startswith(b"\x89PNG")
    expected = {"null", "m.link", "m.toml", "t.link", "t.nptrace", "s.json", "p.link", "p.png", "sysfs"}
    assert leftovers(tmp_path, expected) == set()


def test_trace_export_onto_a_directory_is_one_line(tmp_path):
    (tmp_path / "d").mkdir()
    usage_error(cli("trace", "export", "--workload", SMALL, "--out", "d", cwd=tmp_path), "is a directory")


# --- non-UTF-8 arguments ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, needle",
    [
        ((b"sim", b"--workload", b"stream\xff"), "workload"),
        ((b"sim", b"--machine", b"m\xff.toml"), "machine"),
        ((b"trace", b"info", b"x\xff.nptrace"), "x\\xff"),
        ((b"machines", b"\xff"), "\\xff"),
        ((b"sim", b"--workload", SMALL.encode(), b"--dynamic", b"upmlib", b"--decisions", b"d\xff.csv"), "decisions"),
    ],
)
def test_non_utf8_arguments_are_one_line_errors(tmp_path, args, needle):
    usage_error(cli(*args, cwd=tmp_path), needle)


def test_non_utf8_output_paths_are_written(tmp_path):
    r = cli(b"sim", b"--workload", SMALL.encode(), b"--json", b"r\xff.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert os.path.exists(os.path.join(os.fsencode(tmp_path), b"r\xff.json"))


def test_non_utf8_input_paths_are_read_and_printed_as_given(tmp_path):
    from test_runtime_cli import write_stats

    name = os.fsdecode(b"s\xff.json")
    write_stats(tmp_path / name)
    # A strict stdout (as under a UTF-8 locale other than C.UTF-8) must still print the name.
    r = cli("report", name, cwd=tmp_path, env={"PYTHONIOENCODING": "utf-8:strict"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(b"== s\xff.json\n")


def test_launcher_passes_non_utf8_arguments_through(tmp_path):
    r = cli(b"run", b"--", b"/bin/echo", b"a\xffb", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"a\xffb\n"


# --- numeric options --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, needle",
    [
        (("bench", "--transactions", "-1"), "--transactions"),
        (("bench", "--transactions", "0"), "--transactions"),
        (("bench", "--pages", "0"), "--pages"),
        (("bench", "--repetitions", "-3"), "--repetitions"),
        (("bench", "--footprint", "--pages", "-5"), "--pages"),
        (("bench", "--transactions", str(2**70)), "--transactions"),
        (("where", "1", "--min-kib", "-1"), "--min-kib"),
        (("topo", "--detect", "--local-ns", "-1"), "--local-ns"),
        (("topo", "--detect", "--bandwidth-gbps", "0"), "--bandwidth-gbps"),
        (("topo", "--detect", "--mlp", "nan"), "--mlp"),
        (("topo", "--detect", "--local-ns", "inf"), "--local-ns"),
        (("sim", "--quantum-ns", "nan"), "quantum"),
        (("sim", "--seed", str(2**70)), "seed"),
    ],
)
def test_bad_numeric_options_are_one_line(tmp_path, args, needle):
    usage_error(cli(*args, cwd=tmp_path), needle)


# --- empty options ----------------------------------------------------------------------------


@pytest.mark.parametrize("option", ["--workload", "--placement", "--machine", "--dynamic", "--class"])
def test_empty_text_options_are_errors_naming_them(tmp_path, option):
    usage_error(cli("sim", option, "", cwd=tmp_path), option.lstrip("-"))


def test_empty_workload_in_the_api_names_the_option():
    with pytest.raises(ConfigError, match="workload"):
        numaplace.simulate(workload="")
    with pytest.raises(ConfigError, match="workload"):
        numaplace.simulate(workload="   ")


# --- the API: every public function raises a NumaplaceError for hostile values ------------------

HOSTILE = [
    ("simulate", (), {"workload": "\udcff"}),
    ("simulate", (), {"machine": "o\udcff"}),
    ("simulate", (), {"seed": 2**70}),
    ("simulate", (), {"seed": -1}),
    ("simulate", (), {"quantum_ns": float("nan")}),
    ("simulate", (), {"quantum_ns": float("inf")}),
    ("simulate", (), {"threads": 2**64}),
    ("simulate", (), {"workload": b"stream"}),
    ("simulate", (), {"workload": ["stream"]}),
    ("simulate", (), {"decisions": "\udcff.csv", "dynamic": "upmlib"}),
    ("simulate", (), {"decisions": "", "dynamic": "upmlib"}),
    ("simulate", (), {"trace": "\udcff"}),
    ("simulate", (), {"colour": 3}),
    ("machine", (3,), {}),
    ("machine", ("\udcff",), {}),
    ("machine", (b"origin2000",), {}),
    ("trace_info", (b"x",), {}),
    ("trace_info", ("\udcff",), {}),
    ("trace_info", ("",), {}),
    ("trace_export", (3,), {}),
    ("trace_export", ("\udcff",), {}),
    ("trace_export", ("",), {}),
    ("trace_export", ("x.nptrace",), {"seed": 2**70}),
    ("trace_export", ("x.nptrace",), {"workload": ""}),
    ("workload_show", ("\udcff",), {}),
    ("workload_show", (3,), {}),
    ("workload_show", ("",), {}),
    ("workload_show", (SMALL,), {"seed": float("nan")}),
]


@pytest.mark.parametrize("name, args, kwargs", HOSTILE, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(HOSTILE)])
def test_api_raises_numaplace_errors_for_hostile_values(tmp_path, monkeypatch, name, args, kwargs):
    monkeypatch.chdir(tmp_path)  # a trace_export that wrongly succeeded writes here
    with pytest.raises(NumaplaceError) as e:
        getattr(numaplace, name)(*args, **kwargs)
    assert isinstance(e.value, ConfigError) or "\n" not in str(e.value)
    assert "a run request must be a JSON object" not in str(e.value)


def test_every_public_api_function_that_takes_arguments_is_in_the_hostile_table():
    import inspect

    # The package's exported functions from api.py (sweep is the sweep engineers' suite's).
    public = {
        n for n in numaplace.__all__
        if inspect.isfunction(getattr(numaplace, n)) and getattr(numaplace, n).__module__ == "numaplace.api"
        and inspect.signature(getattr(numaplace, n)).parameters
    }
    assert public == {n for n, _, _ in HOSTILE}


# --- report and where ---------------------------------------------------------------------------


def test_report_deeply_nested_json_is_one_line(tmp_path):
    (tmp_path / "deep.json").write_text("[" * 100_000)
    usage_error(cli("report", "deep.json", cwd=tmp_path), "deep.json", "nested")


def test_where_permission_denied_as_root_gives_the_real_reason(tmp_path, monkeypatch):
    (tmp_path / "7").mkdir()
    (tmp_path / "7" / "numa_maps").write_text("")

    def refuse(*_a, **_k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_text", refuse)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    with pytest.raises(rt.RuntimeToolError) as e:
        rt.read_numa_maps(7, proc=tmp_path)
    assert "another user" not in str(e.value) and "permission denied" in str(e.value)
    assert "ptrace" in str(e.value)
    # Not root, and the process's owner is someone else: that is the reason given.
    monkeypatch.setattr(os, "geteuid", lambda: os.stat(tmp_path / "7").st_uid + 1)
    with pytest.raises(rt.RuntimeToolError, match="belongs to another user"):
        rt.read_numa_maps(7, proc=tmp_path)


# --- the launcher -------------------------------------------------------------------------------


def test_numaplace_lib_a_directory_says_so(tmp_path):
    usage_error(cli("run", "--", "true", cwd=tmp_path, env={"NUMAPLACE_LIB": str(tmp_path)}), "is a directory")


def test_run_refuses_a_static_program(tmp_path):
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed: cannot build a static program")
    (tmp_path / "s.c").write_text("int main(void) { return 0; }\n")
    built = subprocess.run([gcc, "-static", "-o", tmp_path / "static", tmp_path / "s.c"], capture_output=True, timeout=120)
    if built.returncode != 0:
        pytest.skip(f"gcc -static failed (no static libc?): {built.stderr.decode()[-200:]}")
    r = cli("run", "--stats", "s.json", "--", "./static", cwd=tmp_path)
    usage_error(r, "./static", "statically linked")
    assert not (tmp_path / "s.json").exists()


@NEEDS_ROOT
def test_run_refuses_a_setuid_program_of_another_user(tmp_path):
    prog = tmp_path / "true"
    shutil.copy("/bin/true", prog)
    os.chown(prog, 65534, 65534)
    prog.chmod(0o4755)
    usage_error(cli("run", "--", prog, cwd=tmp_path), str(prog), "setuid")


def test_elf_reader_on_real_files(tmp_path):
    assert rt.elf_kind(Path(sys.executable).resolve()) == "dynamic"
    (tmp_path / "script").write_text("#!/bin/sh\n")
    assert rt.elf_kind(tmp_path / "script") is None
    (tmp_path / "short").write_bytes(b"\x7fELF\x02\x01")
    assert rt.elf_kind(tmp_path / "short") is None  # truncated: left to the kernel to refuse


@NEEDS_ROOT
def test_run_stats_onto_a_device_is_refused(tmp_path):
    # The library writes its stats file by renaming a finished one into place, which would
    # replace a device node: the launcher refuses it before the program starts.
    dev = null_device(tmp_path / "null")
    usage_error(cli("run", "--stats", dev, "--", "true", cwd=tmp_path), "--stats", "not a regular file")
    assert is_null_device(dev)


def test_run_stats_through_a_symlink_names_its_target(tmp_path):
    from test_runtime_cli import STAND_IN, records

    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed: cannot build the stand-in runtime library")
    (tmp_path / "s.c").write_text(STAND_IN)
    lib = tmp_path / "libstandin.so"
    subprocess.run([gcc, "-shared", "-fPIC", '-DTAG="A"', "-o", lib, tmp_path / "s.c"], check=True, timeout=120)
    (tmp_path / "real").mkdir()
    (tmp_path / "link.json").symlink_to(tmp_path / "real" / "stats.json")
    env = {"NUMAPLACE_LIB": str(lib), "STAND_IN_OUT": str(tmp_path / "env.txt")}
    r = cli("run", "--stats", "link.json", "--", "/bin/true", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    (rec,) = records(tmp_path / "env.txt")
    assert rec["NUMAPLACE_STATS"] == str((tmp_path / "real" / "stats.json").resolve())


@pytest.mark.parametrize(
    "args, needle",
    [
        (("run", "--min-bytes", str(2**64), "--", "true"), "--min-bytes"),
        (("run", "--placement", "", "--", "true"), "placement"),
        (("run", "--dynamic", " ", "--", "true"), "dynamic"),
    ],
)
def test_run_bad_options_are_refused_before_the_program_starts(tmp_path, args, needle):
    usage_error(cli(*args, cwd=tmp_path), needle)


def test_a_run_whose_simulator_state_would_be_too_large_is_refused_before_allocating(tmp_path, two_node_toml):
    # A machine with the memory for a billion pages: the workload fits, but the per-page state a
    # policy needs (counters per node) would pass the 16 GiB bound, so the run is refused with
    # OutOfMemoryError before anything of that size is allocated (issue 16, item 8).
    big = tmp_path / "big.toml"
    big.write_text(two_node_toml.replace("memory_mib = 1024", "memory_mib = 4194304").replace("memory_mib = 2048", "memory_mib = 4194304"))
    with pytest.raises(numaplace.OutOfMemoryError, match=r"a run of 900000000 pages"):
        numaplace.simulate(str(big), "stream:pages=300000000,iterations=1", threads=2, dynamic="upmlib")


# --- user text echoed in errors (issue 37: a newline split an error, a NUL was echoed raw) -------


def test_shown_makes_any_text_one_printable_line():
    from numaplace.messages import shown

    # Every character a terminal or str.splitlines() could break a line on or act upon.
    hostile = "".join(map(chr, [*range(0x00, 0x100), 0x2028, 0x2029, 0xFEFF, 0x200B, *range(0xDC80, 0xDD00)]))
    line = shown(hostile)
    assert line.isprintable() and len(line.splitlines()) == 1
    assert shown("a\nb\rc\0d\x1b") == "a\\nb\\rc\\x00d\\x1b"
    assert shown(os.fsdecode(b"x\xff")) == shown(b"x\xff") == "x\\xff"
    assert shown("plain ü × 名前") == "plain ü × 名前"  # printable text is left as it is


@pytest.mark.parametrize(
    "args, needle",
    [
        (("sim", "--machine", "m\nx.toml"), "m\\nx.toml"),
        (("report", "s\r\n.json"), "s\\r\\n.json"),
        (("trace", "info", "\x1b[31mred"), "\\x1b[31mred"),
        (("sim", "--workload", SMALL, "--json", "d\n/x.json"), "d\\n"),
        (("run", "--", "no such\nprogram"), "no such\\nprogram"),
    ],
)
def test_control_characters_in_a_path_are_escaped_in_the_one_line_error(tmp_path, args, needle):
    r = cli(*args, cwd=tmp_path)
    if args[0] == "run":  # the launcher's own status for a missing program, in the same one line
        assert r.returncode == rt.EXIT_NOT_FOUND and len(r.stderr.decode().splitlines()) == 1, r.stderr
        assert needle in r.stderr.decode()
        return
    usage_error(r, needle)


def test_a_nul_byte_read_from_a_file_is_escaped_in_the_error(tmp_path):
    (tmp_path / "s.toml").write_text('[fixed]\nmachine = "a\\u0000b\\nc"\n')  # TOML escapes: a NUL and a newline
    r = cli("sweep", "s.toml", "--out", "o", cwd=tmp_path)  # the run fails: the sweep warns of it
    err = r.stderr.decode()
    assert r.returncode == 0 and len(err.splitlines()) == 1 and "\0" not in err, err
    assert err.startswith("numaplace: warning:") and "unknown machine 'a\\x00b\\nc'" in err, err


# --- an output that names an input, or another output (issue 37: record --summary PROGRAM) -----
#
# Every command with outputs, each output against each file the command reads and against each
# other output, named as the same path, another spelling of it, a symbolic link to it and a
# hard link to it: refused in one line before anything is read or run, the input unchanged and
# nothing else created. The commands run in this process (cli.main): the checks come first.


def _inputs(tmp_path: Path) -> dict[str, Path]:
    """One file of each kind a command reads."""
    from conftest import TWO_NODE_TOML
    from test_runtime_cli import write_stats

    files = {
        "machine": tmp_path / "m.toml",
        "trace": tmp_path / "t.nptrace",
        "swf": tmp_path / "jobs.swf",
        "stats": tmp_path / "s.json",
        "program": tmp_path / "prog",
    }
    files["machine"].write_text(TWO_NODE_TOML)
    numaplace.trace_export(str(files["trace"]), workload=SMALL, threads=2)
    files["swf"].write_text("; an SWF header\n1 0 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n")
    write_stats(files["stats"])
    shutil.copy("/bin/true", files["program"])
    return files


# (argv with {machine} ... {out} placeholders, the output option, the input option or None)
OUTPUT_CLASHES = [
    (["sim", "--machine", "{machine}", "--workload", SMALL, "--json", "{out}"], "--json", "--machine"),
    (["sim", "--trace", "{trace}", "--json", "{out}"], "--json", "--trace"),
    (["sim", "--trace", "{trace}", "--dynamic", "upmlib", "--decisions", "{out}"], "--decisions", "--trace"),
    (["sim", "--job-stream", "{swf}", "--timeline", "{out}"], "--timeline", "--job-stream"),
    (["sim", "--job-stream", "{swf}", "--timeline", "{out}", "--json", "{out}"], "--timeline", "--json"),
    (["sim", "--workload", SMALL, "--dynamic", "upmlib", "--json", "{out}", "--decisions", "{out}"], "--json", "--decisions"),
    (["trace", "export", "--machine", "{machine}", "--workload", SMALL, "--out", "{out}"], "--out", "--machine"),
    (["report", "{stats}", "--plot", "{out}"], "--plot", "input"),
    (["advise", "{trace}", "--machine", "{machine}", "--json", "{out}"], "--json", "the trace"),
    (["advise", "{trace}", "--machine", "{machine}", "--csv", "{out}"], "--csv", "--machine"),
    (["advise", "{trace}", "--machine", "{machine}", "--csv", "{out}", "--plot", "{out}"], "--csv", "--plot"),
    (["record", "--summary", "{out}", "--", "{program}"], "--summary", "the program"),
    (["record", "--out", "{out}", "--", "{program}"], "--out", "the program"),
    (["record", "--out", "{out}", "--summary", "{out}", "--", "{program}"], "--out", "--summary"),
    (["run", "--stats", "{out}", "--", "{program}"], "--stats", "the program"),
]
# What {out} is when it names an input (by the input option's kind).
_INPUT_KIND = {"--machine": "machine", "--trace": "trace", "the trace": "trace", "--job-stream": "swf",
               "input": "stats", "the program": "program"}


@pytest.mark.parametrize("spelling", ["same", "dotted", "symlink", "hardlink"])
@pytest.mark.parametrize("argv, output, other", OUTPUT_CLASHES, ids=[" ".join(a[:2]) + f" {o}={i}" for a, o, i in OUTPUT_CLASHES])
def test_an_output_naming_an_input_or_another_output_is_refused_before_anything_runs(
    tmp_path, monkeypatch, capsys, argv, output, other, spelling
):
    from numaplace.cli import main

    monkeypatch.chdir(tmp_path)
    files = _inputs(tmp_path)
    kind = _INPUT_KIND.get(other)
    target = files[kind] if kind else tmp_path / "out.dat"
    if kind is None:  # two outputs: an existing file both name
        target.write_text("old\n")
    named = {"same": target, "dotted": Path(".") / target.name}
    if spelling in ("symlink", "hardlink"):
        named[spelling] = tmp_path / f"{spelling}.out"
        (named[spelling].symlink_to if spelling == "symlink" else named[spelling].hardlink_to)(target)
    before = target.read_bytes()
    names = {p.name for p in tmp_path.iterdir()}
    monkeypatch.setattr(numaplace, "simulate", lambda *a, **k: pytest.fail("a run started"))
    status = main([a.format(out=named[spelling], **files) for a in argv])
    err = capsys.readouterr().err
    assert status == 2 and len(err.splitlines()) == 1 and err.startswith("numaplace: error:"), err
    assert output in err and other in err, err
    assert target.read_bytes() == before
    assert {p.name for p in tmp_path.iterdir()} == names


def test_outputs_that_are_one_device_are_allowed(tmp_path, capsys):
    from numaplace.cli import main

    status = main(["sim", "--workload", SMALL, "--dynamic", "upmlib", "--json", "/dev/null", "--decisions", "/dev/null"])
    assert status == 0, capsys.readouterr().err


def test_an_output_in_a_directory_where_nothing_can_be_created_is_refused_before_the_run(tmp_path, monkeypatch, capsys):
    # Before: --timeline (and every output) in /proc, or on a read-only file system, failed
    # after the whole run ("cannot write --timeline /proc/x.png").
    from numaplace.cli import main

    monkeypatch.setattr(numaplace, "simulate", lambda *a, **k: pytest.fail("a run started"))
    for argv in (["sim", "--job-stream", "W1", "--timeline", "/proc/x.png"], ["sim", "--workload", SMALL, "--json", "/proc/x.json"]):
        status = main(argv)
        err = capsys.readouterr().err
        assert status == 2 and len(err.splitlines()) == 1 and "cannot write --" in err and "/proc/x." in err, err


# --- inputs read whole (issue 37: /dev/zero as a sweep spec or stats file ran out of memory) ----

# Every input numaplace reads whole in Python, by its kind in infile.INPUT_CAPS: the command
# line that reads FILE.
READ_WHOLE = {
    "sweep spec": ["sweep", "{file}", "--out", "o", "--jobs", "0"],
    "stats file": ["report", "{file}"],
}


def test_every_input_read_whole_is_in_the_table():
    assert set(READ_WHOLE) == set(infile.INPUT_CAPS)


def _unbounded(tmp_path: Path, how: str) -> Path:
    if how == "dev-zero":
        return Path("/dev/zero")
    if how == "link-to-dev-zero":
        (tmp_path / "zero").symlink_to("/dev/zero")
        return tmp_path / "zero"
    big = tmp_path / "big"  # sparse: no disk used
    with big.open("wb") as f:
        f.truncate(max(infile.INPUT_CAPS.values()) + 1)
    return big


@pytest.mark.parametrize("how", ["dev-zero", "link-to-dev-zero", "a-file-past-the-cap"])
@pytest.mark.parametrize("kind", sorted(READ_WHOLE))
def test_an_input_past_its_cap_is_one_line_naming_the_file_and_the_cap(tmp_path, kind, how):
    path = _unbounded(tmp_path, how)
    argv = [a.format(file=path) for a in READ_WHOLE[kind]]
    usage_error(cli(*argv, cwd=tmp_path), str(path), infile.cap_text(infile.INPUT_CAPS[kind]), kind)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("kind", sorted(READ_WHOLE))
def test_an_input_that_is_a_directory_is_one_line(tmp_path, kind):
    (tmp_path / "d").mkdir()
    usage_error(cli(*[a.format(file="d") for a in READ_WHOLE[kind]], cwd=tmp_path), "d:", "directory")


@pytest.mark.parametrize("kind", sorted(READ_WHOLE))
def test_an_input_fifo_without_a_writer_is_refused_after_the_wait(tmp_path, monkeypatch, capsys, kind):
    from numaplace.cli import main

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(infile, "FIFO_WAIT_S", 0.2)
    os.mkfifo("f")
    status = main([a.format(file="f") for a in READ_WHOLE[kind]])
    err = capsys.readouterr().err
    assert status == 2 and len(err.splitlines()) == 1 and "f: a FIFO nothing was written to within 0.2 s" in err, err


@pytest.mark.parametrize("kind", sorted(READ_WHOLE))
def test_an_input_fifo_with_an_endless_writer_stops_at_the_cap(tmp_path, kind):
    os.mkfifo(tmp_path / "f")
    writer = subprocess.Popen(["sh", "-c", "exec yes > f"], cwd=tmp_path, stderr=subprocess.DEVNULL)
    try:
        usage_error(cli(*[a.format(file="f") for a in READ_WHOLE[kind]], cwd=tmp_path), "f:", "larger than")
    finally:
        writer.kill()
        writer.wait()


def test_an_input_fifo_is_read_when_it_is_written(tmp_path):
    from test_runtime_cli import STATS

    os.mkfifo(tmp_path / "f")
    text = json.dumps(STATS)
    writer = subprocess.Popen(["sh", "-c", f"sleep 0.5; printf '%s' '{text}' > f"], cwd=tmp_path)
    r = cli("report", "f", "--json", cwd=tmp_path)
    writer.wait()
    assert r.returncode == 0, r.stderr


def test_read_input_takes_exactly_the_cap(tmp_path, monkeypatch):
    monkeypatch.setitem(infile.INPUT_CAPS, "stats file", 1000)
    (tmp_path / "a").write_bytes(b"x" * 1000)
    assert infile.read_input(tmp_path / "a", "stats file") == b"x" * 1000
    (tmp_path / "b").write_bytes(b"x" * 1001)
    with pytest.raises(infile.InputError, match=r"b: larger than 1,000 bytes, the most numaplace reads of a stats file"):
        infile.read_input(tmp_path / "b", "stats file")


def test_the_docs_state_the_declared_input_caps_and_bounds():
    from numaplace.sweep.spec import MAX_CONFIGURATIONS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "bounds.md").read_text()
    for kind, cap in infile.INPUT_CAPS.items():
        rows = [line for line in doc.splitlines() if line.startswith(f"| a {kind} (")]
        assert len(rows) == 1, kind
        assert rows[0].split("|")[2].strip() == infile.cap_text(cap), rows[0]
    assert f"within {infile.FIFO_WAIT_S:g} s of its opening" in doc
    assert f"| configurations of one spec | at most {MAX_CONFIGURATIONS:,}," in doc


# --- record's own options, before anything is recorded (no recorder needed) ---------------------


def test_record_refuses_an_empty_out_or_cache_and_a_directory_as_the_program(tmp_path):
    # Before: --out "" wrote PROGRAM.nptrace over an existing one, --cache "" was the default,
    # and a directory was "program not found".
    shutil.copy("/bin/true", tmp_path / "prog")
    (tmp_path / "prog.nptrace").write_text("kept\n")
    usage_error(cli("record", "--out", "", "--", "./prog", cwd=tmp_path), "--out", "empty path")
    usage_error(cli("record", "--cache", "", "--", "./prog", cwd=tmp_path), "--cache ''")
    usage_error(cli("record", "--summary", "", "--", "./prog", cwd=tmp_path), "--summary", "empty path")
    assert (tmp_path / "prog.nptrace").read_text() == "kept\n"
    (tmp_path / "dir").mkdir()
    usage_error(cli("record", "--", "./dir", cwd=tmp_path), "./dir: is a directory, not a program")
    assert {p.name for p in tmp_path.iterdir()} == {"prog", "prog.nptrace", "dir"}


# --- run --stats when the program's process ends without writing them -----------------------------

ALLOC_THEN = r"""
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
    size_t n = 8 << 20;
    char *p = malloc(n);
    memset(p, 1, n);  /* managed: more than --min-bytes */
    if (!strcmp(argv[1], "exec")) execl("/bin/true", "true", (char *)0);
    if (!strcmp(argv[1], "_exit")) _exit(3);
    return p[n - 1] - 1;
}
"""


@pytest.mark.parametrize("how, said", [("exec", "status 0"), ("_exit", "status 3")])
def test_run_stats_after_an_exec_or_exit_says_what_it_saw_not_min_bytes(tmp_path, how, said):
    # Before: "no process of the program managed memory (no allocation of at least 1,048,576
    # bytes: --min-bytes)", of a program that had managed 8 MiB and then exec'd or _exit'ed.
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed")
    try:
        rt.find_library()
    except rt.RuntimeToolError as e:
        pytest.skip(str(e))
    (tmp_path / "a.c").write_text(ALLOC_THEN)
    subprocess.run([gcc, "-O1", "-o", tmp_path / "alloc", tmp_path / "a.c"], check=True, timeout=120)
    r = cli("run", "--stats", "s.json", "--", "./alloc", how, cwd=tmp_path)
    notice = r.stderr.decode().splitlines()[-1]
    assert notice.startswith("numaplace: no stats written to s.json: the program exited with " + said), notice
    assert "_exit()" in notice and "exec'ing another program" in notice, notice
    assert not (tmp_path / "s.json").exists()


# --- advise on a machine with a [protocol] table ------------------------------------------------


def test_advise_on_a_protocol_machine_replays_on_the_page_level_engine(tmp_path, two_node_toml):
    # Before: the machine's own engine (protocol) was picked for every replay, which refused the
    # page-level trace with "replay it with the page-level engine", an option advise does not have.
    toml = numaplace._native.machine_toml("talbot64")
    protocol = toml[toml.index("[protocol]"):toml.index("[[nodes]]")]
    protocol = "\n".join(line for line in protocol.splitlines() if not line.startswith("proxy_clusters"))
    machine = tmp_path / "p2.toml"
    # A valid protocol machine: one CPU per node, as the protocol engine runs.
    machine.write_text(two_node_toml.replace("cpus = 4", "cpus = 1").replace("[migration]", protocol + "\n\n[migration]"))
    assert "protocol" in numaplace.machine(str(machine))
    trace = tmp_path / "t.nptrace"
    numaplace.trace_export(str(trace), machine=str(machine), workload=SMALL, threads=2, engine="page")
    a = numaplace.advise(str(trace), str(machine), jobs=0, progress=False)
    assert len(a.table) > 2 and a.best is not None


# Every file option of the command line, with FILE where the file goes (a directory named
# d.toml, as machine files are told from preset names by their .toml or a /).
EVERY_INPUT = {
    "sim --trace": ["sim", "--trace", "./{file}"],
    "sim --machine": ["sim", "--machine", "./{file}"],
    "sim --job-stream": ["sim", "--job-stream", "./{file}"],
    "trace info": ["trace", "info", "./{file}"],
    "advise": ["advise", "./{file}"],
    "machines": ["machines", "./{file}"],
    "sweep": ["sweep", "./{file}", "--out", "o"],
    "report": ["report", "./{file}"],
    "record": ["record", "--", "./{file}"],
}


@pytest.mark.parametrize("option", sorted(EVERY_INPUT))
def test_a_directory_given_for_any_input_is_one_line(tmp_path, option):
    (tmp_path / "d.toml").mkdir()
    usage_error(cli(*[a.format(file="d.toml") for a in EVERY_INPUT[option]], cwd=tmp_path), "d.toml", "directory")
    assert [p.name for p in tmp_path.iterdir()] == ["d.toml"]


def test_a_300_digit_number_is_cut_in_its_one_line_error(capsys):
    """An option's value is quoted as the simulator quotes values: at most SHOWN_CHARS
    characters, then how many were left out (the issue's 300-digit seed was echoed whole)."""
    from numaplace import cli
    from numaplace.messages import SHOWN_CHARS

    assert cli.main(["sim", "--workload", "stream", "--seed", "9" * 300]) == 2
    err = capsys.readouterr().err
    assert err == f"numaplace: error: seed = {'9' * SHOWN_CHARS}…({300 - SHOWN_CHARS} more characters): expected an integer in [0, 18446744073709551615]\n"
    rust = (Path(__file__).resolve().parents[2] / "crates" / "model" / "src" / "error.rs").read_text()
    assert f"pub const SHOWN_CHARS: usize = {SHOWN_CHARS};" in rust
