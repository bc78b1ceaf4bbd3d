"""Tests of the runtime tools: ``numaplace run``, ``where`` and ``report`` and ``numaplace.runtime``.

The runtime library itself is not needed: ``run`` is tested with a stand-in shared object
compiled here with gcc, whose constructor records the environment it was loaded with.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import numaplace
from numaplace import runtime as rt



def assert_usage_error(run, *needles: str) -> str:
    """The one-line error contract of the CLI (as in test_cli.py): status 2, one
    ``numaplace: error:`` line naming every needle, nothing on stdout, no traceback."""
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr and run.stdout == "", (run.stdout, run.stderr)
    lines = run.stderr.splitlines()  # a conftest Run or a subprocess.CompletedProcess (run_cli)
    assert len(lines) == 1, run.stderr
    line = lines[0]
    assert line.startswith("numaplace: error:"), line
    for needle in needles:
        assert str(needle) in line, f"{needle!r} not in {line!r}"
    return line

# --- numa_maps ---------------------------------------------------------------------------------

NUMA_MAPS = """\
55e1c35fb000 default file=/usr/bin/head mapped=2 N0=2 kernelpagesize_kB=4
55e1d11cb000 default heap anon=4 dirty=4 active=0 N0=4 kernelpagesize_kB=4
7f0000000000 interleave:0-1 anon=8 dirty=8 N0=3 N1=5 kernelpagesize_kB=4
7f2000000000 bind:1 file=/dev/hugepages/buf huge dirty=3 N0=1 N1=2 kernelpagesize_kB=2048
7f4000000000 default huge anon=4 dirty=4 N1=4 kernelpagesize_kB=2048
7fadf7f92000 default
7fadf7f96000 default file=/tmp/with\\040space\\012name
7ffc1a2b3000 default stack anon=33 dirty=33 N0=33 kernelpagesize_kB=4
"""


def test_parse_numa_maps():
    maps = rt.parse_numa_maps(NUMA_MAPS)
    assert [m.name for m in maps] == [
        "/usr/bin/head", "[heap]", "[anon]", "/dev/hugepages/buf", "[huge]", "[anon]", "/tmp/with space\nname", "[stack]",
    ]
    head, heap, inter, hugefile, hugeanon, empty, spaced, stack = maps
    assert head.address == 0x55E1C35FB000 and head.policy == "default" and head.pages == {0: 2}
    assert head.flags["mapped"] == "2" and head.page_size == 4096
    assert heap.pages == {0: 4} and heap.bytes == 4 * 4096
    assert inter.policy == "interleave:0-1" and inter.pages == {0: 3, 1: 5}
    assert inter.total_pages == 8 and inter.largest_node == 1 and inter.local_share == pytest.approx(5 / 8)
    assert hugefile.page_size == 2 * 2**20 and hugefile.pages == {0: 1, 1: 2} and hugefile.bytes == 3 * 2**21
    assert "huge" in hugefile.flags and hugefile.policy == "bind:1"
    assert hugeanon.pages == {1: 4} and hugeanon.bytes == 8 * 2**20 and hugeanon.local_share == 1.0
    # No N entries: nothing resident.
    for m in (empty, spaced):
        assert m.pages == {} and m.total_pages == 0 and m.bytes == 0
        assert m.local_share is None and m.largest_node is None
    assert empty.page_size == 4096
    assert stack.pages == {0: 33}


def test_parse_numa_maps_equal_nodes_picks_lowest():
    (m,) = rt.parse_numa_maps("7f0000000000 default anon=4 N0=2 N1=2 kernelpagesize_kB=4\n")
    assert m.largest_node == 0 and m.local_share == 0.5


@pytest.mark.parametrize(
    ("text", "needle"),
    [("7f0000000000\n", "line 1"), ("zzz default N0=1\n", "bad address"), ("\n7f00 default N0=x\n", "line 2")],
)
def test_parse_numa_maps_bad_lines(text, needle):
    with pytest.raises(rt.RuntimeToolError, match=needle):
        rt.parse_numa_maps(text)


def test_where_on_a_fake_proc(tmp_path):
    (tmp_path / "42").mkdir()
    (tmp_path / "42" / "numa_maps").write_text(NUMA_MAPS)
    w = rt.where(42, proc=tmp_path, min_bytes=16 * 1024)
    assert w["nodes"] == 2
    assert [m["name"] for m in w["mappings"]] == ["[heap]", "[anon]", "/dev/hugepages/buf", "[huge]", "[stack]"]
    assert w["total_pages"] == [2 + 4 + 3 + 1 + 33, 5 + 2 + 4]
    assert w["total_bytes"] == [(2 + 4 + 3 + 33) * 4096 + 2**21, 5 * 4096 + 6 * 2**21]
    assert w["hidden"] == {"mappings": 3, "bytes": 2 * 4096}
    assert len(rt.where(42, proc=tmp_path, show_all=True)["mappings"]) == 8
    wide = rt.where(42, proc=tmp_path, min_nodes=4)
    assert wide["nodes"] == 4 and wide["total_pages"][2:] == [0, 0] and len(wide["mappings"][0]["pages"]) == 4


def test_where_own_pid_has_pages_on_node_0(cli):
    r = cli("where", str(os.getpid()), "--json")
    assert r.returncode == 0, r.stderr
    w = json.loads(r.stdout)
    assert w["pid"] == os.getpid()
    assert w["total_pages"][0] > 0 and w["total_bytes"][0] > 0
    assert w["mappings"], "a Python process has mappings of at least 256 KiB"
    assert any(m["pages"][0] > 0 for m in w["mappings"])

    r = cli("where", str(os.getpid()))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:4] == ["address", "mapping", "page", "MiB"] and "N0 pages" in lines[0]
    total = next(line for line in lines if line.startswith("total (MiB)") or line.strip().startswith("total (MiB)"))
    # This process's memory may change between the two calls (a page faulted in meanwhile made
    # an exact comparison fail under load): node 0's total must agree to within 5 %.
    shown = float(total.split("total (MiB)")[1].split()[0].replace(",", ""))
    assert shown == pytest.approx(w["total_bytes"][0] / 2**20, rel=0.05)
    assert any("[heap]" in line or "python" in line for line in lines)


def test_where_all_shows_more(cli):
    few = json.loads(cli("where", str(os.getpid()), "--json").stdout)
    every = json.loads(cli("where", str(os.getpid()), "--json", "--all").stdout)
    assert len(every["mappings"]) > len(few["mappings"]) and every["hidden"]["mappings"] == 0


@pytest.mark.parametrize(("pid", "needle"), [("abc", "'abc' is not a process id"), ("0", "'0'"), ("-5", "PID")])
def test_where_bad_pid_argument(cli, pid, needle):
    assert_usage_error(cli("where", pid), needle)


def test_where_missing_process(cli):
    pid = 2**22 + 12345  # above the largest pid_max (2^22)
    assert_usage_error(cli("where", str(pid)), f"no process with pid {pid}")


def test_where_errors_without_numa_or_permission(tmp_path):
    (tmp_path / "7").mkdir()
    with pytest.raises(rt.RuntimeToolError, match="no NUMA support"):
        rt.read_numa_maps(7, proc=tmp_path)
    if os.geteuid() != 0:
        (tmp_path / "7" / "numa_maps").write_text("")
        (tmp_path / "7" / "numa_maps").chmod(0)
        with pytest.raises(rt.RuntimeToolError, match="permission denied"):
            rt.read_numa_maps(7, proc=tmp_path)
    (tmp_path / "8").mkdir()
    (tmp_path / "8" / "numa_maps").write_text("")
    with pytest.raises(rt.RuntimeToolError, match="no memory mappings"):
        rt.where(8, proc=tmp_path)


# --- stats files and report ---------------------------------------------------------------------

STATS = {
    "numaplace_stats": 5, "program": "/opt/bench/stream", "pid": 4242, "nodes": 4, "tier": [0, 0, 0, 0], "page_size": 4096,
    "source": "hinting-faults", "source_reason": "perf_event: no precise memory sampling (test)",
    "placement": "first-touch", "dynamic": "sampled:mode=interval,period_ms=100",
    "regions": [{"name": "malloc#0", "address": "0x7f0000000000", "bytes": 8388608, "pages": 2048,
                 "before": [2048, 0, 0, 0], "after": [512, 512, 512, 512]}],
    "before": [2048, 0, 0, 0], "after": [512, 512, 512, 512],
    # The decisions saw 4,096 + 3,072 samples, 25 % and 87.5 % of them local: 3,712.
    "faults_sampled": 10240, "samples_local": 3712,
    "pages_moved": 1536, "move_failures": 2, "busy_retries": 5, "fallbacks": 0,
    "invocations": 3,
    "promotions": 0, "demotions": 0, "low_memory_events": 0, "faults_forwarded": 0, "faults_dropped": 0,
    # Sampling's measured cost: 10,000 faults x 2,500 ns = 0.025 s, 0.05 s in the handler, 0.05 s
    # revoking: 0.125 s summed over threads. Per thread (faults x 2,500 ns + handler): 0.03,
    # 0.0225, 0.015, 0.0075 s; on the critical path 0.04 s, so 0.09 s of wall time with revoking.
    "faults_handled": 10000, "fault_round_trip_ns": 2500.0, "time_fault_handling_s": 0.05,
    "time_fault_critical_s": 0.04,
    "threads": [{"tid": 101, "faults": 4000, "handler_s": 0.02}, {"tid": 102, "faults": 3000, "handler_s": 0.015},
                {"tid": 103, "faults": 2000, "handler_s": 0.01}, {"tid": 104, "faults": 1000, "handler_s": 0.005}],
    "time_revoking_s": 0.05,
    "time_migrating_s": 0.05, "wall_s": 2.5,
    "epochs": [
        {"t_s": 0.5, "kind": "timer", "samples": 4096, "local_share": 0.25, "moved": 1536, "per_node": [512, 512, 512, 512]},
        {"t_s": 1.0, "kind": "timer", "samples": 3072, "local_share": 0.875, "moved": 0, "per_node": [512, 512, 512, 512]},
        {"t_s": 1.5, "kind": "migrate", "samples": 0, "local_share": None, "moved": 0, "per_node": [512, 512, 512, 512]},
    ],
    "policy": {"frozen_pages": 3, "refusals": 0},
}


def write_stats(path: Path, **changes) -> Path:
    data = copy.deepcopy(STATS)
    data.update(changes)
    path.write_text(json.dumps(data))
    return path


def test_load_stats_and_frame(tmp_path):
    a = write_stats(tmp_path / "a.json")
    b = write_stats(tmp_path / "b.json", dynamic="upmlib", epochs=STATS["epochs"][:1])
    assert rt.load_stats(a) == STATS
    df = rt.stats_frame([a, b])
    assert list(df.columns) == ["file", "program", "dynamic", "epoch", "t_s", "kind", "samples", "local_share", "moved"]
    assert len(df) == 4
    assert df["epoch"].tolist() == [0, 1, 2, 0]
    assert df["file"].tolist() == [str(a)] * 3 + [str(b)]
    assert df["local_share"].iloc[1] == 0.875 and df["local_share"].isna().tolist() == [False, False, True, False]
    assert df["moved"].sum() == 2 * 1536
    empty = rt.stats_frame([write_stats(tmp_path / "c.json", epochs=[])])
    assert empty.empty and list(empty.columns) == rt.STATS_FRAME_COLUMNS


def test_the_fixture_is_the_schema_and_a_freed_region_loads():
    # STATS above is an example file: it has exactly the keys the Rust schema declares.
    schema = rt.STATS_SCHEMA["fields"]
    assert list(STATS) == [f["name"] for f in schema]
    fields = {f["name"]: f for f in schema}
    assert list(STATS["regions"][0]) == [f["name"] for f in fields["regions"]["fields"]]
    assert list(STATS["epochs"][0]) == [f["name"] for f in fields["epochs"]["fields"]]
    assert list(STATS["threads"][0]) == [f["name"] for f in fields["threads"]["fields"]]
    assert rt.STATS_VERSION == STATS["numaplace_stats"] == 5


def test_a_freed_region_s_null_address_loads_and_other_nulls_do_not(tmp_path):
    freed = dict(STATS["regions"][0], address=None)
    assert rt.load_stats(write_stats(tmp_path / "f.json", regions=[freed]))["regions"][0]["address"] is None
    with pytest.raises(rt.RuntimeToolError, match="'regions\\[0\\].pages' should be an integer, not null"):
        rt.load_stats(write_stats(tmp_path / "g.json", regions=[dict(freed, pages=None)]))
    # The round trip is null where no fault was calibrated; the handler's time never is.
    assert rt.load_stats(write_stats(tmp_path / "h.json", fault_round_trip_ns=None))["fault_round_trip_ns"] is None
    with pytest.raises(rt.RuntimeToolError, match="'time_fault_handling_s' should be a number, not null"):
        rt.load_stats(write_stats(tmp_path / "i.json", time_fault_handling_s=None))


def test_report_text(cli, tmp_path):
    f = write_stats(tmp_path / "s.json")
    r = cli("report", f)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for needle in [
        "/opt/bench/stream (pid 4242)",
        "hinting-faults: perf_event: no precise memory sampling (test)",
        "first-touch",
        "sampled:mode=interval,period_ms=100",
        "1,536 (2 failures, 5 busy retries, 0 fallbacks) in 3 invocations",
        # Of the samples the decisions saw (not of those taken: the last were never looked at).
        "10,240 taken; 51.8% local of the 7,168 the decisions saw",  # 3712 / 7168
        # Sampling's wall-time estimate: the critical path (0.04 s) + revoking (0.05 s).
        "wall 2.500 s; sampling 0.090 s (3.6% of wall); migrating 0.050 s (2.0% of wall)",
        "sampling cost 0.090 s of wall time, estimated: faults on the critical path 0.040 s + revoking 0.050 s",
        # The parts of that cost, as measured in the process, and the spread over threads.
        "measured: 10,000 faults x 2,500 ns round trip = 0.025 s + fault handler 0.050 s, in 4 threads"
        " (0.007-0.030 s each, median 0.019 s); with revoking 0.125 s summed over threads",
    ]:
        assert needle in out, (needle, out)
    lines = out.splitlines()
    # before -> after per node
    assert lines[lines.index(next(x for x in lines if x.split()[:1] == ["node"])) + 1].split() == ["0", "2,048", "512", "-1,536"]
    assert ["all", "2,048", "2,048", "+0"] in [x.split() for x in lines]
    # epochs
    assert ["0", "0.500", "timer", "4,096", "25.0%", "1,536"] in [x.split() for x in lines]
    assert ["1", "1.000", "timer", "3,072", "87.5%", "0"] in [x.split() for x in lines]
    assert ["2", "1.500", "migrate", "0", "n/a", "0"] in [x.split() for x in lines]  # no samples: no share
    assert "local share of samples per epoch" not in out  # one file: no comparison


def test_report_several_files_side_by_side_and_plot(cli, tmp_path):
    a = write_stats(tmp_path / "a.json")
    b = write_stats(tmp_path / "b.json", program="/bin/other", dynamic="upmlib:threshold=2",
                    epochs=[dict(STATS["epochs"][0], local_share=0.5)], samples_local=0)
    png = tmp_path / "out.png"
    r = cli("report", a, b, "--plot", png)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == f"wrote {png}"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000
    tail = r.stdout.split("local share of samples per epoch\n", 1)[1].splitlines()
    assert tail[0].split() == ["epoch", "stream", "(sampled)", "other", "(upmlib)"]
    assert tail[1].split() == ["0", "25.0%", "50.0%"]
    assert tail[2].split() == ["1", "87.5%"]
    assert tail[3].split() == ["2", "n/a"]
    assert tail[4].split() == ["all", "51.8%", "0.0%"]
    assert f"== {a}" in r.stdout and f"== {b}" in r.stdout


def test_report_same_labels_are_numbered(tmp_path):
    s = rt.load_stats(write_stats(tmp_path / "a.json"))
    assert rt.labels([s, s]) == ["stream (sampled) #1", "stream (sampled) #2"]


def test_report_json(cli, tmp_path):
    r = cli("report", write_stats(tmp_path / "s.json"), "--json")
    assert r.returncode == 0, r.stderr
    (s,) = json.loads(r.stdout)
    assert s["program"] == "/opt/bench/stream" and s["pages_moved"] == 1536
    assert s["local_share"] == pytest.approx(3712 / 7168) and s["local_share_reason"] is None
    assert s["samples_seen"] == 7168
    assert s["overhead_share"] == pytest.approx(0.14 / 2.5)
    assert (s["faults_handled"], s["fault_round_trip_ns"]) == (10000, 2500.0)
    assert s["time_fault_round_trips_s"] == pytest.approx(0.025)
    assert (s["time_fault_handling_s"], s["time_revoking_s"], s["time_fault_critical_s"]) == (0.05, 0.05, 0.04)
    assert s["time_sampling_summed_s"] == pytest.approx(0.125)
    assert s["time_sampling_s"] == pytest.approx(0.09) and s["sampling_share"] == pytest.approx(0.036)
    assert s["threads_faulting"] == 4
    assert s["thread_cost_s"] == pytest.approx({"min": 0.0075, "median": 0.01875, "max": 0.03})
    assert s["before"] == [2048, 0, 0, 0] and s["after"] == [512] * 4 and len(s["epochs"]) == 3


def test_report_without_hinting_faults_has_no_round_trip(cli, tmp_path):
    # Precise sampling (or none): no fault was calibrated or taken; the runtime's own time is
    # the whole cost.
    f = write_stats(tmp_path / "p.json", source="perf_event", faults_handled=0, fault_round_trip_ns=None,
                    time_fault_handling_s=0.0, time_fault_critical_s=0.0, threads=[], time_revoking_s=0.02)
    r = cli("report", f)
    assert r.returncode == 0, r.stderr
    assert "sampling 0.020 s (0.8% of wall)" in r.stdout
    assert "sampling cost 0.020 s of wall time, estimated: no hinting faults + revoking 0.020 s" in r.stdout
    assert rt.sampling_cost(rt.load_stats(f)) == {"round_trips_s": 0.0, "handler_s": 0.0, "revoking_s": 0.02,
                                                  "summed_s": 0.02, "critical_s": 0.0, "total_s": 0.02}
    assert rt.thread_costs(rt.load_stats(f)) == []


def test_one_thread_s_wall_estimate_is_its_whole_cost_and_the_report_says_one_thread(cli, tmp_path):
    # One thread: the critical path is the thread's whole cost (0.075 s), the estimate the sum.
    f = write_stats(tmp_path / "one.json", time_fault_critical_s=0.075, threads=[{"tid": 7, "faults": 10000, "handler_s": 0.05}])
    cost = rt.sampling_cost(rt.load_stats(f))
    assert cost["total_s"] == pytest.approx(cost["summed_s"]) == pytest.approx(0.125)
    r = cli("report", f)
    assert r.returncode == 0, r.stderr
    assert "fault handler 0.050 s, in 1 thread (0.075 s); with revoking 0.125 s summed over threads" in r.stdout


def test_runtime_tool_errors_are_numaplace_errors(tmp_path):
    # The README promises every error for bad input derives from NumaplaceError.
    assert issubclass(rt.RuntimeToolError, numaplace.NumaplaceError)
    with pytest.raises(numaplace.NumaplaceError, match="cannot read"):
        rt.load_stats(tmp_path / "nope.json")


def test_report_missing_file(cli, tmp_path):
    assert_usage_error(cli("report", tmp_path / "nope.json"), "nope.json", "cannot read")


def test_report_bad_json(cli, tmp_path):
    f = tmp_path / "bad.json"
    f.write_text('{"numaplace_stats": 1,')
    assert_usage_error(cli("report", f), "bad.json", "not valid JSON")


def test_report_not_an_object(cli, tmp_path):
    f = tmp_path / "list.json"
    f.write_text("[1, 2]")
    assert_usage_error(cli("report", f), "list.json", "expected a JSON object")


def test_report_wrong_version(cli, tmp_path):
    # Version 1 had the sampler thread's time only (time_sampling_s), not the measured cost.
    assert_usage_error(cli("report", write_stats(tmp_path / "v1.json", numaplace_stats=1)),
                       "v1.json", "'numaplace_stats'", "version 5", "an older libnumaplace wrote it")
    # Version 2 had the sampling cost summed over threads only (no threads, no critical path).
    v2 = {k: v for k, v in STATS.items() if k not in ("threads", "time_fault_critical_s")}
    (tmp_path / "v2.json").write_text(json.dumps(dict(v2, numaplace_stats=2)))
    assert_usage_error(cli("report", tmp_path / "v2.json"), "v2.json", "is 2: this numaplace reads version 5",
                       "an older libnumaplace wrote it: run the program again")
    # Version 3 had no memory tiers (no tier, promotions, demotions, ...).
    v3 = {k: v for k, v in STATS.items() if k not in ("tier", "promotions", "demotions", "low_memory_events",
                                                       "faults_forwarded", "faults_dropped")}
    (tmp_path / "v3.json").write_text(json.dumps(dict(v3, numaplace_stats=3)))
    assert_usage_error(cli("report", tmp_path / "v3.json"), "v3.json", "is 3: this numaplace reads version 5",
                       "an older libnumaplace wrote it: run the program again")
    # Version 4 had no policy record (the policy's own statistics).
    v4 = {k: v for k, v in STATS.items() if k != "policy"}
    (tmp_path / "v4.json").write_text(json.dumps(dict(v4, numaplace_stats=4)))
    assert_usage_error(cli("report", tmp_path / "v4.json"), "v4.json", "is 4: this numaplace reads version 5",
                       "an older libnumaplace wrote it: run the program again")
    # A version from the future is refused without that advice.
    r = cli("report", write_stats(tmp_path / "v9.json", numaplace_stats=9))
    assert_usage_error(r, "v9.json", "is 9: this numaplace reads version 5")
    assert "older" not in r.stderr


@pytest.mark.parametrize("key", ["numaplace_stats", "program", "epochs", "wall_s", "after"])
def test_report_missing_key(cli, tmp_path, key):
    data = copy.deepcopy(STATS)
    del data[key]
    f = tmp_path / "k.json"
    f.write_text(json.dumps(data))
    assert_usage_error(cli("report", f), "k.json", f"missing key '{key}'")


def test_report_missing_nested_key(cli, tmp_path):
    data = copy.deepcopy(STATS)
    del data["epochs"][1]["kind"]
    del data["regions"][0]["pages"]
    f = tmp_path / "n.json"
    f.write_text(json.dumps(data))
    assert_usage_error(cli("report", f), "n.json", "missing key 'regions[0].pages'")
    del data["regions"][0]
    f.write_text(json.dumps(data))
    assert_usage_error(cli("report", f), "n.json", "missing key 'epochs[1].kind'")


@pytest.mark.parametrize(
    ("changes", "needle"),
    [({"pages_moved": "many"}, "'pages_moved' should be an integer"),
     ({"wall_s": True}, "'wall_s' should be a number"),
     ({"after": [1, 2]}, "'after' has 2 entries for 4 nodes"),
     ({"nodes": 0}, "'nodes' should be at least 1"),
     ({"policy": [1]}, "'policy' should be an object"),
     ({"policy": {"thrash": "many"}}, "'policy.thrash' should be a number, a list of numbers or null")],
)
def test_report_bad_values(cli, tmp_path, changes, needle):
    assert_usage_error(cli("report", write_stats(tmp_path / "t.json", **changes)), "t.json", needle)


def test_report_bad_file_among_good_ones_writes_nothing(cli, tmp_path):
    png = tmp_path / "p.png"
    r = cli("report", write_stats(tmp_path / "a.json"), tmp_path / "gone.json", "--plot", png)
    assert_usage_error(r, "gone.json")
    assert not png.exists()


# --- specs --------------------------------------------------------------------------------------

BAD_PLACEMENTS = ["nearest", "bind:node=x", "bind:core=1", "round-robin:x=1", ":node=1", "bind:node", "bind:node=1,node=2",
                  "bind:node=-1"]
BAD_DYNAMICS = ["foo", "sampled:x=1", "sampled:mode=record", "sampled:period_ms=0", "sampled:period_ms=abc",
                "upmlib:threshold=0.5", "kernel:threshold=2", "upmlib:regions=a/b", "sampled:period_ms=", "wildfire:migration=maybe",
                "sampled:period_ms=1_000", "sampled:period_ms=\uff11", "sampled:period_ms=inf", "sampled:interval=1.5"]


@pytest.mark.parametrize("spec", BAD_PLACEMENTS)
def test_placement_errors_match_the_simulator(spec):
    with pytest.raises(numaplace.NumaplaceError) as sim:
        numaplace.simulate(workload="stream:pages=64,iterations=1", placement=spec, threads=1)
    with pytest.raises(rt.RuntimeToolError) as ours:
        rt.validate_placement(spec)
    assert str(ours.value) == str(sim.value)


@pytest.mark.parametrize("spec", BAD_DYNAMICS)
def test_dynamic_errors_match_the_simulator(spec):
    with pytest.raises(numaplace.NumaplaceError) as sim:
        numaplace.simulate(workload="stream:pages=64,iterations=1", threads=1, dynamic=spec)
    with pytest.raises(rt.RuntimeToolError) as ours:
        rt.validate_dynamic(spec)
    assert str(ours.value) == str(sim.value)


@pytest.mark.parametrize("spec", ["first-touch", "round-robin", "random", "block", "worst-case", " bind:node=1 ", "bind:node=1_0"])
def test_good_placements(spec):
    assert rt.validate_placement(spec) == spec.strip()


@pytest.mark.parametrize("spec", ["none", "sampled", "sampled:period_ms=100", "upmlib", "upmlib:regions=malloc-0",
                                  "sampled:interval=auto"])
def test_good_dynamics(spec):
    # `interval=auto` is no value of interval (its default is not auto): the simulator refuses it too.
    if spec.endswith("auto"):
        with pytest.raises(rt.RuntimeToolError, match="interval=auto"):
            rt.validate_dynamic(spec)
        return
    assert rt.validate_dynamic(spec) == spec


@pytest.mark.parametrize("spec", ["kernel:threshold=0.25", "autonuma", "wildfire:replication=off", "upmlib-recrep"])
def test_dynamics_the_runtime_cannot_drive_are_refused_with_the_reason(spec):
    # The policies' capabilities say which drivers run them; the launcher refuses from the same
    # data the library does, before anything runs.
    with pytest.raises(rt.RuntimeToolError) as e:
        rt.validate_dynamic(spec)
    name = spec.split(":")[0]
    assert str(e.value).startswith(f"dynamic policy '{name}' cannot run in the runtime: ")
    assert str(e.value).endswith("; the runtime runs: none, sampled, upmlib, adaptive, tpp, hemem")
    info = next(p for p in numaplace.policies() if p["name"] == name)
    assert "runtime" not in info["drivers"] and info["why_not"] in str(e.value)


def test_bind_checked_against_host_nodes(tmp_path):
    assert rt.validate_placement("bind:node=1", [0, 1]) == "bind:node=1"
    with pytest.raises(rt.RuntimeToolError, match=r"node=2: this host has nodes 0\.\.1"):
        rt.validate_placement("bind:node=2", [0, 1])
    with pytest.raises(rt.RuntimeToolError, match="this host has nodes 0,2"):
        rt.validate_placement("bind:node=1", [0, 2])
    (tmp_path / "online").write_text("0-1,4\n")
    assert rt.host_nodes(tmp_path) == [0, 1, 4]
    assert rt.host_nodes(tmp_path / "missing") is None


def test_run_unknown_placement(cli):
    msg = assert_usage_error(cli("run", "--placement", "nearest", "--", "true"), "unknown placement 'nearest'")
    for name in ("first-touch", "round-robin", "bind", "block"):
        assert name in msg


def test_run_unknown_policy_and_bad_parameter(cli):
    assert_usage_error(cli("run", "--dynamic", "foo", "--", "true"), "unknown dynamic policy 'foo'", "sampled")
    assert_usage_error(cli("run", "--dynamic", "sampled:period_ms=-1", "--", "true"), "period_ms=-1")


def test_run_refuses_a_policy_the_runtime_cannot_drive_before_the_program_starts(cli, tmp_path):
    # The program would leave a file behind if it ran.
    marker = tmp_path / "ran"
    msg = assert_usage_error(cli("run", "--dynamic", "kernel", "--", "touch", marker), "dynamic policy 'kernel' cannot run in the runtime")
    assert "hardware reference counters" in msg and msg.endswith("the runtime runs: none, sampled, upmlib, adaptive, tpp, hemem")
    assert not marker.exists()


def test_run_bad_options(cli, tmp_path):
    assert_usage_error(cli("run", "--source", "pmu", "--", "true"), "--source")
    assert_usage_error(cli("run", "--min-bytes", "-1", "--", "true"), "--min-bytes", "'-1'")
    assert_usage_error(cli("run", "--stats", tmp_path / "no" / "dir" / "s.json", "--", "true"), "does not exist")
    assert_usage_error(cli("run", "--stats", tmp_path, "--", "true"), "is a directory")
    assert_usage_error(cli("run"), "no program given")
    assert_usage_error(cli("run", "--"), "no program given")


# --- finding the library ------------------------------------------------------------------------


def test_find_library_order(tmp_path):
    prefix, repo = tmp_path / "prefix", tmp_path / "repo"
    with pytest.raises(rt.RuntimeToolError) as e:
        rt.find_library({}, prefix, repo)
    msg = str(e.value)
    assert str(prefix / "lib/numaplace/libnumaplace.so") in msg and str(repo / "target/release/libnumaplace.so") in msg
    assert "cargo build --release -p numaplace-runtime" in msg
    built = repo / "target" / "release" / "libnumaplace.so"
    built.parent.mkdir(parents=True)
    built.write_bytes(b"")
    assert rt.find_library({}, prefix, repo) == built.resolve()
    installed = prefix / "lib" / "numaplace" / "libnumaplace.so"
    installed.parent.mkdir(parents=True)
    installed.write_bytes(b"")
    assert rt.find_library({}, prefix, repo) == installed.resolve()
    mine = tmp_path / "mine.so"
    mine.write_bytes(b"")
    assert rt.find_library({"NUMAPLACE_LIB": str(mine)}, prefix, repo) == mine.resolve()
    with pytest.raises(rt.RuntimeToolError, match="NUMAPLACE_LIB=.*gone.so: no such file"):
        rt.find_library({"NUMAPLACE_LIB": str(tmp_path / "gone.so")}, prefix, repo)
    odd = tmp_path / "a:b.so"
    odd.write_bytes(b"")
    with pytest.raises(rt.RuntimeToolError, match="cannot contain"):
        rt.find_library({"NUMAPLACE_LIB": str(odd)}, prefix, repo)


def test_built_library_is_numaplace_lib_else_the_checkout_s_release_build(tmp_path):
    assert rt.built_library({"NUMAPLACE_LIB": str(tmp_path / "t.so")}) == tmp_path / "t.so"
    assert rt.built_library({}) == rt.library_candidates()[1]


def test_default_candidates_are_venv_then_checkout():
    venv, checkout = rt.library_candidates()
    assert venv == Path(sys.prefix) / "lib" / "numaplace" / "libnumaplace.so"
    assert checkout == Path(numaplace.__file__).resolve().parents[2] / "target" / "release" / "libnumaplace.so"


def run_cli(args, env_changes, cwd):
    """Runs ``python -m numaplace ARGS`` with a clean NUMAPLACE_*/LD_PRELOAD environment plus
    ``env_changes``; the result has ``returncode``, ``stdout``, ``stderr`` and ``pid``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMAPLACE_") and k != "LD_PRELOAD"}
    env.update({k: str(v) for k, v in env_changes.items()})
    with subprocess.Popen([sys.executable, "-m", "numaplace", *map(str, args)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env, cwd=cwd) as p:
        stdout, stderr = p.communicate(timeout=60)
    return subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr), p.pid


def test_run_library_not_found(tmp_path):
    """Without $NUMAPLACE_LIB (``make test`` sets it to its test build) and with neither default
    place built, `run` says where it looked."""
    if any(p.exists() for p in rt.library_candidates()):
        pytest.skip("a libnumaplace.so is installed or built here; test_find_library_order covers the search")
    r, _ = run_cli(["run", "--", "true"], {"NUMAPLACE_NO_BUILD": "1"}, tmp_path)
    assert_usage_error(r, "libnumaplace.so not found", "cargo build --release -p numaplace-runtime",
                       *map(str, rt.library_candidates()))


def test_a_checkout_builds_what_a_command_needs_says_so_the_first_time_and_names_a_failure(tmp_path, monkeypatch, capfd):
    """`numaplace run` and `record` have cargo build the library or converter in a checkout
    (numaplace.checkout.build); here a stand-in cargo records its arguments."""
    from numaplace import checkout

    repo, bin_dir, calls = tmp_path / "repo", tmp_path / "bin", tmp_path / "calls"
    repo.mkdir()
    bin_dir.mkdir()
    (bin_dir / "cargo").write_text(f'#!/bin/sh\necho "$PWD $*" >> {calls}\n'
                                   '[ -n "$FAKE_LEAVE_NOTHING" ] || { mkdir -p target/release && touch target/release/prog; }\n'
                                   'echo "error: could not compile" >&2; exit ${FAKE_RC:-0}\n')
    (bin_dir / "cargo").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.delenv("NUMAPLACE_NO_BUILD", raising=False)
    checkout.build("pkg", "prog", RuntimeError, repo=repo)
    assert calls.exists() is False, "not a checkout (no Cargo.toml): cargo is not run"
    (repo / "Cargo.toml").write_text("")
    checkout.build("pkg", "prog", RuntimeError, repo=repo)
    assert "numaplace: building prog (build --release -p pkg in" in capfd.readouterr().err
    assert (repo / "target/release/prog").is_file()
    checkout.build("pkg", "prog", RuntimeError, repo=repo)
    assert capfd.readouterr().err == "", "built before: cargo checks it quietly"
    assert calls.read_text().splitlines() == [f"{repo} build --release -p pkg", f"{repo} build --release -p pkg --quiet"]
    monkeypatch.setenv("FAKE_RC", "101")
    with pytest.raises(RuntimeError, match=r"^building prog failed: `cargo build --release -p pkg` in .* exited with status 101: error: could not compile$"):
        checkout.build("pkg", "prog", RuntimeError, repo=repo)
    monkeypatch.setenv("FAKE_RC", "0")
    monkeypatch.setenv("FAKE_LEAVE_NOTHING", "1")
    (repo / "target/release/prog").unlink()
    with pytest.raises(RuntimeError, match="left no .*prog"):
        checkout.build("pkg", "prog", RuntimeError, repo=repo)
    monkeypatch.setenv("NUMAPLACE_NO_BUILD", "1")
    before = calls.read_text()
    checkout.build("pkg", "prog", RuntimeError, repo=repo)
    assert calls.read_text() == before, "NUMAPLACE_NO_BUILD: cargo is not run"


def test_run_numaplace_lib_missing(tmp_path):
    r, _ = run_cli(["run", "--", "true"], {"NUMAPLACE_LIB": tmp_path / "nope.so"}, tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [f"numaplace: error: NUMAPLACE_LIB={tmp_path / 'nope.so'}: no such file"]


# --- run with a stand-in library -----------------------------------------------------------------

STAND_IN = r"""
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *vars[] = {"NUMAPLACE_PRELOAD", "NUMAPLACE_PLACEMENT", "NUMAPLACE_DYNAMIC", "NUMAPLACE_STATS",
                             "NUMAPLACE_MIN_BYTES", "NUMAPLACE_SOURCE", "NUMAPLACE_VERBOSE", "NUMAPLACE_FORCE",
                             "LD_PRELOAD", 0};

__attribute__((constructor)) static void stand_in_init(void) {
    const char *out = getenv("STAND_IN_OUT");
    if (!out) return;
    FILE *f = fopen(out, "a");
    if (!f) return;
    fprintf(f, "marker %s %d %d\n", TAG, (int)getpid(), (int)getppid());
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        fprintf(f, "%s=%s\n", vars[i], v ? v : "<unset>");
    }
    fclose(f);
}
"""


@pytest.fixture
def stand_in(tmp_path):
    """Compiles the stand-in library (tag ``A``) and a second one (tag ``B``); returns their paths."""
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed: cannot build the stand-in runtime library")
    src = tmp_path / "stand_in.c"
    src.write_text(STAND_IN)
    libs = []
    for tag in ("A", "B"):
        lib = tmp_path / f"libstandin{tag}.so"
        subprocess.run([gcc, "-shared", "-fPIC", f'-DTAG="{tag}"', "-o", lib, src], check=True, timeout=120)
        libs.append(lib)
    return libs


def records(path: Path) -> list[dict[str, str]]:
    """The stand-in's records: one dict per process it was loaded into."""
    out: list[dict[str, str]] = []
    for line in path.read_text().splitlines():
        if line.startswith("marker "):
            _, tag, pid, ppid = line.split()
            out.append({"tag": tag, "pid": pid, "ppid": ppid})
        else:
            k, _, v = line.partition("=")
            out[-1][k] = v
    return out


def test_run_preloads_and_sets_the_environment(stand_in, tmp_path):
    lib, _ = stand_in
    out, stats = tmp_path / "env.txt", tmp_path / "stats.json"
    r, launcher = run_cli(
        ["run", "--placement", "round-robin", "--dynamic", "upmlib", "--stats", "stats.json", "--", "/bin/sh", "-c", "exit 3"],
        {"NUMAPLACE_LIB": lib, "STAND_IN_OUT": out},
        tmp_path,
    )
    assert r.returncode == 3, r.stderr
    # The stand-in writes no stats: after the program, one line says so and why.
    assert r.stdout == "" and r.stderr.splitlines() == [
        "numaplace: no stats written to stats.json: the program exited with status 3 and no process of it wrote them;"
        " a process writes them as it ends by exit() or a return from main, if it allocated at least 1,048,576 bytes"
        " (--min-bytes), and writes none if it ends by _exit(), by exec'ing another program or in a crash"]
    (rec,) = records(out)  # the constructor ran once: in the program, not in the launcher
    assert rec["tag"] == "A" and rec["pid"] != str(launcher) and rec["ppid"] == str(launcher)
    assert rec["NUMAPLACE_PRELOAD"] == "1"
    assert rec["NUMAPLACE_PLACEMENT"] == "round-robin"
    assert rec["NUMAPLACE_DYNAMIC"] == "upmlib"
    assert rec["NUMAPLACE_STATS"] == str(stats)  # absolute
    assert rec["NUMAPLACE_MIN_BYTES"] == "1048576"
    assert rec["NUMAPLACE_SOURCE"] == "auto"
    assert rec["NUMAPLACE_VERBOSE"] == "<unset>" and rec["NUMAPLACE_FORCE"] == "<unset>"
    assert rec["LD_PRELOAD"] == str(lib.resolve())


def test_run_defaults_options_and_existing_preload(stand_in, tmp_path):
    lib, other = stand_in
    out = tmp_path / "env.txt"
    r, launcher = run_cli(
        ["run", "--min-bytes", "4096", "--source", "faults", "--verbose", "--force", "--", "sh", "-c", "exit 0"],
        # A stale stats path in the environment is not inherited; LD_PRELOAD is kept, after ours.
        {"NUMAPLACE_LIB": lib, "STAND_IN_OUT": out, "NUMAPLACE_STATS": "/stale.json", "LD_PRELOAD": other},
        tmp_path,
    )
    assert r.returncode == 0, r.stderr
    # The launcher itself had B preloaded (from its own environment); the program has both.
    recs = [x for x in records(out) if x["ppid"] == str(launcher)]
    assert sorted(x["tag"] for x in recs) == ["A", "B"]
    rec = next(x for x in recs if x["tag"] == "A")
    assert rec["LD_PRELOAD"] == f"{lib.resolve()}:{other}"
    assert rec["NUMAPLACE_PLACEMENT"] == "first-touch" and rec["NUMAPLACE_DYNAMIC"] == "adaptive"
    assert rec["NUMAPLACE_STATS"] == "<unset>"
    assert rec["NUMAPLACE_MIN_BYTES"] == "4096" and rec["NUMAPLACE_SOURCE"] == "faults"
    assert rec["NUMAPLACE_VERBOSE"] == "1" and rec["NUMAPLACE_FORCE"] == "1"


def test_run_passes_arguments_and_output_through(stand_in, tmp_path):
    lib, _ = stand_in
    r, _ = run_cli(["run", "--dynamic", "none", "--", "sh", "-c", 'printf "%s|" "$0" "$@"; echo err >&2', "x", "a b",
                    "--placement"], {"NUMAPLACE_LIB": lib}, tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "x|a b|--placement|" and r.stderr == "err\n"
    # The program's argv[0] is as given, not the resolved path.
    r, _ = run_cli(["run", "--", "sh", "-c", 'echo "$0"'], {"NUMAPLACE_LIB": lib}, tmp_path)
    assert r.stdout == "sh\n"


def test_run_signal_death_is_128_plus_signal_and_named(stand_in, tmp_path):
    lib, _ = stand_in
    r, _ = run_cli(["run", "--", "sh", "-c", "kill -TERM $$"], {"NUMAPLACE_LIB": lib}, tmp_path)
    assert r.returncode == 128 + 15, r.stderr
    assert r.stderr.splitlines() == ["numaplace: sh was killed by SIGTERM (exit status 143)"]
    # With --stats, the reason there are none is the signal, not --min-bytes.
    r, _ = run_cli(["run", "--stats", "s.json", "--", "sh", "-c", "kill -SEGV $$"], {"NUMAPLACE_LIB": lib}, tmp_path)
    assert r.returncode == 128 + 11
    assert r.stderr.splitlines() == [
        "numaplace: sh was killed by SIGSEGV (exit status 139)",
        "numaplace: no stats written to s.json: the program was killed by SIGSEGV before its exit (the library writes"
        " the file at exit)"]
    # A program that exits with 139 itself was not killed: nothing is said of a signal.
    r, _ = run_cli(["run", "--", "sh", "-c", "exit 139"], {"NUMAPLACE_LIB": lib}, tmp_path)
    assert r.returncode == 139 and "killed" not in r.stderr


def test_run_missing_program_is_127(stand_in, tmp_path):
    lib, _ = stand_in
    for prog, needle in [("no-such-program-xyz", "command not found"), (str(tmp_path / "gone"), "no such file")]:
        r, _ = run_cli(["run", "--", prog], {"NUMAPLACE_LIB": lib}, tmp_path)
        assert r.returncode == 127 and r.stdout == ""
        assert r.stderr.splitlines() == [f"numaplace: error: {prog}: {needle}"]
    noexec = tmp_path / "data.txt"
    noexec.write_text("x")
    r, _ = run_cli(["run", "--", noexec], {"NUMAPLACE_LIB": lib}, tmp_path)
    assert r.returncode == 126 and r.stderr.splitlines() == [f"numaplace: error: {noexec}: not an executable file"]


def test_exit_status():
    assert rt.exit_status(0) == 0 and rt.exit_status(3) == 3 and rt.exit_status(-9) == 137


def test_launch_env_does_not_touch_the_base():
    base = {"LD_PRELOAD": "/x.so /y.so", "NUMAPLACE_VERBOSE": "1", "PATH": "/bin"}
    env = rt.launch_env("/lib/n.so", base=base)
    assert base == {"LD_PRELOAD": "/x.so /y.so", "NUMAPLACE_VERBOSE": "1", "PATH": "/bin"}
    assert env["LD_PRELOAD"] == "/lib/n.so:/x.so:/y.so" and "NUMAPLACE_VERBOSE" not in env
    assert rt.launch_env("/lib/n.so", base={"LD_PRELOAD": "/lib/n.so"})["LD_PRELOAD"] == "/lib/n.so"
    with pytest.raises(rt.RuntimeToolError, match="source 'pmu'"):
        rt.launch_env("/lib/n.so", source="pmu", base={})


def test_run_passes_sigterm_on_and_waits(stand_in, tmp_path):
    import signal
    import time

    lib, _ = stand_in
    ready = tmp_path / "ready"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMAPLACE_")}
    env["NUMAPLACE_LIB"] = str(lib)
    script = f"trap 'kill $!; exit 7' TERM; sleep 30 >/dev/null 2>&1 & touch {ready}; wait"
    with subprocess.Popen([sys.executable, "-m", "numaplace", "run", "--", "sh", "-c", script], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as p:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert p.poll() is None and time.monotonic() < deadline, p.stderr.read() if p.stderr else ""
            time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=30)
    assert p.returncode == 7, err  # the program's trap ran: the launcher passed the signal on


def test_policies_lists_what_each_policy_observes_and_where_it_runs(cli):
    out = cli("policies").stdout
    assert "    observes samples; acts on: timer; runs in: simulator, runtime" in out
    assert "    observes hinting-faults; acts on: timer, hinting-fault; runs in: simulator" in out
    assert "    observes hinting-faults; acts on: timer, hinting-fault, low-memory; runs in: simulator, runtime" in out
    listed = {p["name"]: p for p in numaplace.policies()}
    assert {n for n, p in listed.items() if "runtime" in p["drivers"]} == {"upmlib", "sampled", "adaptive", "tpp", "hemem"}
    assert all(p["why_not"] for p in listed.values() if "runtime" not in p["drivers"])


def test_run_flags_and_the_launch_environment_come_from_the_library_settings(cli, tmp_path):
    # The library's settings are declared once (numaplace_model::rtconfig); the launcher's
    # flags, defaults and variables are read from that declaration.
    passed = {n: o for n, o in rt.RUNTIME_OPTIONS.items() if o["launcher"] is not None}
    assert {"placement", "dynamic", "min_bytes", "source", "stats", "verbose", "force", "slow_nodes"} == set(passed)
    help_text = cli("run", "--help").stdout
    for name, o in passed.items():
        assert "--" + name.replace("_", "-") in help_text, name
    env = rt.launch_env(tmp_path / "lib.so", base={"NUMAPLACE_SAMPLE_PERIOD_MS": "50", "NUMAPLACE_STATS": "stale.json"})
    assert env["NUMAPLACE_DYNAMIC"] == passed["dynamic"]["launcher"] == rt.DEFAULT_DYNAMIC
    assert env["NUMAPLACE_PLACEMENT"] == passed["placement"]["launcher"]
    assert "NUMAPLACE_STATS" not in env, "a stale variable of a setting the launcher owns is cleared"
    assert env["NUMAPLACE_SAMPLE_PERIOD_MS"] == "50", "a setting without a flag passes through"
    assert all(o["env"] == "NUMAPLACE_" + n.upper() for n, o in rt.RUNTIME_OPTIONS.items())


def test_run_says_where_the_stats_went_and_what_to_run_next(stand_in, tmp_path):
    lib, _ = stand_in
    # The program stands in for the library: it writes the file the launcher named.
    r, _ = run_cli(["run", "--stats", "out/s.json", "--", "sh", "-c", 'echo {} > "$NUMAPLACE_STATS"; echo hello'],
                   {"NUMAPLACE_LIB": lib}, tmp_path)
    (tmp_path / "out").mkdir(exist_ok=True)
    assert r.returncode == 2, "the directory did not exist: refused before the run"
    r, _ = run_cli(["run", "--stats", "out/s.json", "--", "sh", "-c", 'echo {} > "$NUMAPLACE_STATS"; echo hello'],
                   {"NUMAPLACE_LIB": lib}, tmp_path)
    assert r.returncode == 0 and r.stdout == "hello\n", r.stderr
    assert r.stderr.splitlines() == ["numaplace: stats in out/s.json; next: numaplace report out/s.json --plot out/s.png"]
    # An old file the run did not rewrite is not taken for this run's.
    r, _ = run_cli(["run", "--stats", "out/s.json", "--", "true"], {"NUMAPLACE_LIB": lib}, tmp_path)
    assert r.stderr.startswith("numaplace: no stats written to out/s.json: "), r.stderr


def test_run_without_stats_hints_on_a_terminal_only(stand_in, tmp_path):
    """Without --stats the launcher adds one line, and only where a person reads stderr: a
    script's or a pipeline's stderr is left the program's own (test_run_passes_arguments_...)."""
    import pty

    lib, _ = stand_in
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMAPLACE_") and k != "LD_PRELOAD"}
    env["NUMAPLACE_LIB"] = str(lib)
    leader, follower = pty.openpty()
    try:
        p = subprocess.run([sys.executable, "-m", "numaplace", "run", "--", "true"], stdout=subprocess.PIPE,
                           stderr=follower, env=env, cwd=tmp_path, timeout=60)
        os.close(follower)
        follower = -1
        said = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: the terminal's other end is closed
                break
            if not chunk:
                break
            said += chunk
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert p.returncode == 0
    assert said.decode().splitlines() == [rt.RUN_HINT]
    r, _ = run_cli(["run", "--", "true"], {"NUMAPLACE_LIB": lib}, tmp_path)
    assert r.stderr == "" and r.stdout == ""


ONE_NODE_REASON = ("this host has one NUMA node: every access is local, nothing to place or move; sampling off"
                   " (NUMAPLACE_FORCE=1 / numaplace run --force samples anyway)")
ONE_NODE = dict(
    nodes=1, tier=[0], source="none", source_reason=ONE_NODE_REASON, faults_sampled=0, samples_local=0, pages_moved=0,
    move_failures=0, busy_retries=0, invocations=0, epochs=[], before=[2048], after=[2048],
    regions=[dict(STATS["regions"][0], address=None, before=[2048], after=[2048])],
)


def test_report_shows_moves_between_tiers_only_where_there_are_tiers(cli, tmp_path):
    assert "tiers " not in cli("report", write_stats(tmp_path / "flat.json")).stdout
    f = write_stats(tmp_path / "tiered.json", tier=[0, 0, 1, 1], promotions=1200, demotions=336, low_memory_events=2,
                    faults_forwarded=5000, faults_dropped=7)
    out = cli("report", f).stdout
    assert "tiers         promotions 1,200, demotions 336; slow nodes 2,3" in out.splitlines(), out
    assert "              low-memory events 2; hinting faults to the policy 5,000 (7 dropped)" in out.splitlines(), out
    (s,) = json.loads(cli("report", f, "--json").stdout)
    assert (s["tier"], s["promotions"], s["demotions"], s["low_memory_events"]) == ([0, 0, 1, 1], 1200, 336, 2)
    bad = write_stats(tmp_path / "bad.json", tier=[0, 1])
    assert cli("report", bad).returncode == 2
    # The policy's own statistics, those the tier line does not say, on a line of their own.
    f = write_stats(tmp_path / "tpp.json", tier=[0, 1, 1, 1], promotions=12, demotions=30,
                    policy={"promotions": 12, "demotions": 30, "thrash": 4, "activations": 1500, "background_ms": 2.5})
    assert "policy        thrash 4, activations 1,500, background_ms 2.5" in cli("report", f).stdout.splitlines()
    assert "policy " not in cli("report", write_stats(tmp_path / "none.json", policy={})).stdout


def test_run_passes_slow_nodes_on_and_refuses_a_bad_list():
    env = rt.launch_env("/lib/n.so", slow_nodes="2-3", base={"NUMAPLACE_SLOW_NODES": "stale"})
    assert env["NUMAPLACE_SLOW_NODES"] == "2-3"
    assert "NUMAPLACE_SLOW_NODES" not in rt.launch_env("/lib/n.so", base={"NUMAPLACE_SLOW_NODES": "stale"})
    with pytest.raises(rt.RuntimeToolError, match="slow-nodes 'two': expected a node list such as 2 or 2-3"):
        rt.launch_env("/lib/n.so", slow_nodes="two", base={})


def test_report_on_one_node_says_local_share_is_not_applicable_and_why(cli, tmp_path):
    f = write_stats(tmp_path / "one.json", **ONE_NODE)
    r = cli("report", f)
    assert r.returncode == 0, r.stderr
    assert "samples       0 taken; local share n/a: one NUMA node: every access is local" in r.stdout
    assert "0.0%" not in r.stdout and f"source        none: {ONE_NODE_REASON}" in r.stdout
    (s,) = json.loads(cli("report", f, "--json").stdout)
    assert s["local_share"] is None and s["local_share_reason"] == "one NUMA node: every access is local"
    # Sampled anyway (--force): still one node, still not applicable; epochs too.
    forced = write_stats(tmp_path / "forced.json", **dict(ONE_NODE, source="hinting-faults", faults_sampled=90,
                         samples_local=90, epochs=[dict(STATS["epochs"][0], samples=90, local_share=1.0, per_node=[2048])]))
    out = cli("report", forced).stdout
    assert "90 taken; local share n/a: one NUMA node" in out
    assert ["0", "0.500", "timer", "90", "n/a", "1,536"] in [x.split() for x in out.splitlines()]
    # Several nodes, samples taken but none seen by a decision (a block freed before any).
    unseen = write_stats(tmp_path / "unseen.json", samples_local=0, epochs=[])
    (s,) = json.loads(cli("report", unseen, "--json").stdout)
    assert s["local_share"] is None and s["local_share_reason"] == "no samples reached a policy decision"
    nothing = write_stats(tmp_path / "none.json", faults_sampled=0, samples_local=0, epochs=[], source="none",
                          source_reason="no dynamic policy: nothing sampled")
    (s,) = json.loads(cli("report", nothing, "--json").stdout)
    assert s["local_share_reason"] == "no samples (no dynamic policy: nothing sampled)"


def test_report_plot_on_one_node_draws_pages_and_a_note_not_an_empty_chart(cli, tmp_path):
    one = write_stats(tmp_path / "one.json", **ONE_NODE)
    png = tmp_path / "one.png"
    r = cli("report", one, "--plot", png)
    assert r.returncode == 0 and r.stderr.strip() == f"wrote {png}", r.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fig = rt.plot_stats([rt.load_stats(one)])
    bars, note = fig.axes
    assert [round(b.get_height()) for b in bars.patches] == [2048, 2048]  # before and after, node 0
    assert not note.axison and not note.lines
    assert [t.get_text() for t in note.texts] == ["local share per epoch: not applicable\none NUMA node: every access is local"]
    # Beside a file with a local share, the one without is named with its reason in the legend.
    fig = rt.plot_stats([rt.load_stats(write_stats(tmp_path / "four.json")), rt.load_stats(one)])
    line = fig.axes[1]
    assert line.axison and len(line.lines) == 2 and len(line.lines[1].get_xdata()) == 0
    labels = [t.get_text() for t in line.get_legend().get_texts()]
    assert labels == ["stream (sampled) #1", "stream (sampled) #2: n/a (one NUMA node: every access is local)"]
    # A decision without samples is a gap, not 0 % local.
    assert list(line.lines[0].get_ydata()[:2]) == [0.25, 0.875] and str(line.lines[0].get_ydata()[2]) == "nan"
    # No legend covers data: both sit below their axes.
    for ax in fig.axes:
        assert ax.get_legend().get_bbox_to_anchor().y0 < ax.get_window_extent().y0
