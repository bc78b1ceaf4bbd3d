"""`numaplace advise TRACE`: every placement and policy replayed on a trace, ranked against the
bound (issue 14, item 4; docs/advise.md).

One small trace (NAS IS, class S, 8 threads, exported from the simulator with `numaplace trace
export`) on a three-node preset, so that each advice is about a hundred short runs. The printed
table is a golden file (``tests/golden/advise-*.txt``; ``NUMAPLACE_UPDATE_GOLDEN=1``
regenerates it, as ``tests/test_golden.py`` does).
"""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

import numaplace
from numaplace import _native, cli
from numaplace import runtime as rt
from numaplace.advice import COST_AWARE, NO_POLICY, plan

GOLDEN = Path(__file__).resolve().parents[2] / "tests" / "golden"
UPDATE = os.environ.get("NUMAPLACE_UPDATE_GOLDEN") == "1"

MACHINE = "cxl-tiered"
TRACE = "is.nptrace"


@pytest.fixture(scope="module")
def trace_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("advise")
    args = ["trace", "export", "--workload", "nas-is", "--class", "S", "--threads", "8", "--machine", MACHINE, "--out", str(d / TRACE)]
    assert cli.main(args) == 0
    return d


@pytest.fixture(scope="module")
def advice(trace_dir: Path) -> numaplace.Advice:
    return numaplace.advise(str(trace_dir / TRACE), MACHINE, jobs=0, progress=False)


def test_every_placement_and_policy_is_run_or_named_in_a_note(advice: numaplace.Advice) -> None:
    t = advice.table
    nodes = len(numaplace.machine(MACHINE)["nodes"])
    combos = set(zip(t["placement"], t["dynamic"]))
    placements = set(t["placement"])
    for p in numaplace.placements():
        if p["one_node"]:  # once per node of the machine
            assert {f"{p['name']}:node={n}" for n in range(nodes)} <= placements
        else:
            assert p["name"] in placements
    bound = [p["name"] for p in numaplace.placements() if p["needs_profile"]]
    assert bound and all(d == NO_POLICY for pl, d in combos if pl in bound)  # the bound runs alone
    dynamics = set(t["dynamic"])
    notes = " ".join(advice.notes)
    assert NO_POLICY in dynamics
    for p in numaplace.policies():
        variants = [p["name"]] + [
            f"{p['name']}:{COST_AWARE}={c}" for q in p["params"] if q["name"] == COST_AWARE for c in q["kind"]["choices"] if c != q["default"]
        ]
        for v in variants:
            assert v in dynamics or f"{v}," in notes or f"{v} (" in notes, v
    # upmlib-recrep's default phase is BT's: this trace has none, and the note says so.
    assert "upmlib-recrep" not in dynamics
    assert any("upmlib-recrep" in n and "no such phase" in n for n in advice.notes)
    # The cost-aware option still has the name this module knows it by.
    assert any(q["name"] == COST_AWARE for p in numaplace.policies() for q in p["params"])


def test_the_bound_has_the_largest_local_share(advice: numaplace.Advice) -> None:
    """Per binding: the bound is the best static placement for the threads where they sit."""
    b = advice.bound
    assert b is not None and b["placement"] == "oracle" and b["dynamic"] == NO_POLICY
    assert b["binding"] == advice.current["binding"] == "spread"
    for binding, t in advice.table.groupby("binding"):
        (b,) = t[(t["placement"] == "oracle") & (t["dynamic"] == NO_POLICY)].to_dict("records")
        static = t[t["dynamic"] == NO_POLICY]
        assert len(static) > 5
        assert (static["local_fraction"] <= b["local_fraction"]).all(), binding  # no static placement beats it
        assert (t["local_fraction"] <= b["local_fraction"]).all(), binding  # nor, on this trace, any policy
        assert (t["local_vs_bound"] == t["local_fraction"] - b["local_fraction"]).all()
        assert (t["time_vs_bound"] == t["time_ns"] / b["time_ns"] - 1).all()


def test_rows_are_ranked_by_time(advice: numaplace.Advice) -> None:
    t = advice.table
    assert list(t["rank"]) == list(range(1, len(t) + 1))
    assert t["time_ns"].is_monotonic_increasing
    assert t["slowdown"].iloc[0] == 1.0 and (t["slowdown"] >= 1.0).all()
    assert advice.best["rank"] == 1


def test_runnable_is_what_the_launcher_accepts(advice: numaplace.Advice) -> None:
    """The launcher's checks, and a policy that acts only on the program's calls is not offered
    for a trace that names no program (this one was exported from the simulator)."""
    needs_calls = {p["name"] for p in numaplace.policies() if p["needs_program_calls"]}
    assert needs_calls == {"upmlib", "upmlib-recrep"}
    for r in advice.table.to_dict("records"):
        for kind, spec in (("placement", r["placement"]), ("dynamic", r["dynamic"])):
            if spec == NO_POLICY:
                continue
            try:
                _native.check_spec(kind, spec, "runtime")
            except numaplace.NumaplaceError as e:
                assert not r["runnable"] and str(e) == r["why_not_runnable"]
                break
        else:
            if r["dynamic"].split(":")[0] in needs_calls:
                assert not r["runnable"] and "only when the program calls numaplace_migrate()" in r["why_not_runnable"]
            else:
                assert r["runnable"] and r["why_not_runnable"] == ""


def test_the_run_command_applies_the_best_runnable_combination(advice: numaplace.Advice) -> None:
    t = advice.table
    best = advice.best_runnable
    assert best is not None and best["runnable"]
    assert not t[t["rank"] < best["rank"]]["runnable"].any()  # nothing runnable is faster
    # Compact binding keeps IS's 8 threads on node 0, beside its DRAM: first touch is fastest
    # there, but by less than the worth-it threshold against the current set-up.
    assert (advice.best_runnable["placement"], advice.best_runnable["binding"]) == ("first-touch", "compact")
    assert advice.change_nothing and 0 < advice.gain < 0.03
    assert "advice         change nothing: " in advice.format()
    argv = shlex.split(advice.command)
    env = [a for a in argv if "=" in a and not a.startswith("-") and argv.index(a) < argv.index("numaplace")]
    assert env == ["OMP_PROC_BIND=" + {"spread": "spread", "compact": "close"}[best["binding"]], "OMP_PLACES=cores"]
    argv = argv[len(env):]
    assert argv[:2] == ["numaplace", "run"]
    args = cli.build_parser().parse_args(argv[1:])  # `numaplace run`'s own parser takes it
    assert (args.placement, args.dynamic) == (best["placement"], best["dynamic"])
    assert rt.validate_placement(args.placement) == best["placement"]
    assert rt.validate_dynamic(args.dynamic) == best["dynamic"]
    assert args.program[0] == "--" and args.program[1] == "PROGRAM"


def _advise_cli(capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert cli.main(["advise", TRACE, "--machine", MACHINE, "--no-progress", "--top", "12", *extra]) == 0
    return capsys.readouterr().out


def test_table_matches_golden_and_is_the_same_from_a_pool(
    trace_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(trace_dir)
    out = _advise_cli(capsys, "--jobs", "0", "--csv", "a.csv", "--json", "a.json", "--plot", "a.png")
    name = f"advise-{MACHINE}-is.txt"
    if UPDATE:
        (GOLDEN / name).write_text(out, encoding="utf-8")
    assert out == (GOLDEN / name).read_text(encoding="utf-8"), f"{name} differs from its golden file"
    # Runs on two worker processes give the same table and files, byte for byte.
    assert _advise_cli(capsys, "--jobs", "2", "--csv", "b.csv", "--json", "b.json") == out
    assert (trace_dir / "a.csv").read_bytes() == (trace_dir / "b.csv").read_bytes()
    assert (trace_dir / "a.json").read_bytes() == (trace_dir / "b.json").read_bytes()
    data = json.loads((trace_dir / "a.json").read_text())
    # Below the worth-it threshold the advice is to change nothing, and no command is printed.
    assert data["change_nothing"] and data["threshold"] == 0.03 and data["command"] not in out
    assert data["current"]["current"] and data["current"]["placement"] == "first-touch"
    assert "change nothing" in out and "<- current" in out
    assert (trace_dir / "a.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _one_node_sysfs(root: Path) -> Path:
    d = root / "node0"
    d.mkdir(parents=True)
    (d / "cpulist").write_text("0-7\n")
    (d / "meminfo").write_text("Node 0 MemTotal:        4194304 kB\n")
    (d / "distance").write_text("10\n")
    return root


def test_a_one_node_host_has_nothing_to_choose(cli, trace_dir: Path, tmp_path: Path) -> None:  # noqa: ANN001
    r = cli("advise", trace_dir / TRACE, "--sysfs", _one_node_sysfs(tmp_path / "sys"))
    assert r.returncode == 0, r.stderr
    assert "has one NUMA node: every page is local under every placement and policy, so there is nothing to choose" in r.stdout
    assert "--machine" in r.stdout
    # --machine still advises for another machine from that host (here: the bound's row).
    r = cli("advise", trace_dir / TRACE, "--sysfs", tmp_path / "sys", "--machine", MACHINE, "--top", "1", "--jobs", "0")
    assert r.returncode == 0, r.stderr
    assert "oracle" in r.stdout and "nothing to choose" not in r.stdout


def test_the_default_machine_is_this_host_and_progress_is_shown(
    trace_dir: Path, sysfs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = numaplace.advise(str(trace_dir / TRACE), sysfs=str(sysfs), jobs=0, progress=True)
    assert a.detected and (a.machine, a.nodes, a.cpus) == ("this-host", 2, 8)
    assert not a.table.empty and set(a.table["placement"]) >= {"bind:node=0", "bind:node=1", "oracle"}
    # A bar of the runs after the first (which runs alone, to check the trace fits the machine).
    todo = 2 * len(plan(2).runs) - 1  # both bindings
    err = capsys.readouterr().err
    assert "advise: 100%" in err and f"{todo}/{todo}" in err, err[-300:]


@pytest.mark.parametrize(
    "case, expected",
    [
        ("missing", "trace missing.nptrace: no such file"),
        ("malformed", "bad.nptrace: byte 0: expected the magic"),
        ("directory", "is a directory"),
        ("pipe", "not a regular file"),
        ("machine", "unknown machine 'nowhere'"),
        ("threads", "8 threads but machine 'two-node' has 5 CPUs"),
        ("jobs", "--jobs -1: expected an integer"),
        ("line-level", "a line-level trace (format version 2, for the protocol engine)"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, machine_file, trace_dir: Path, tmp_path: Path, case: str, expected: str) -> None:  # noqa: ANN001
    trace, extra = str(trace_dir / TRACE), ["--machine", MACHINE]
    if case == "missing":
        trace = "missing.nptrace"
    elif case == "malformed":
        (tmp_path / "bad.nptrace").write_text("not a trace\n")
        trace = "bad.nptrace"
    elif case == "directory":
        trace = str(tmp_path)
    elif case == "pipe":
        os.mkfifo(tmp_path / "fifo")
        trace = str(tmp_path / "fifo")
    elif case == "machine":
        extra = ["--machine", "nowhere"]
    elif case == "threads":
        extra = ["--machine", str(machine_file(("cpus = 4\nmemory_mib = 1024", "cpus = 1\nmemory_mib = 1024")))]
    elif case == "jobs":
        extra += ["--jobs", "-1"]
    elif case == "line-level":
        trace = str(tmp_path / "ge.npline")
        assert cli("trace", "export", "--machine", "talbot64", "--workload", "ge:n=16", "--out", trace).returncode == 0
    r = cli("advise", trace, *extra, "--no-progress")
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert len(r.stderr_lines) == 1 and r.stderr_lines[0].startswith("numaplace: error: "), r.stderr
    assert expected in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize(
    "kwargs",
    [
        {"trace": 5},
        {"trace": b"is.nptrace"},
        {"machine": 7},
        {"seed": -1},
        {"seed": "1"},
        {"oversubscribe": "yes"},
        {"jobs": -2},
        {"jobs": 1.5},
        {"progress": "on"},
        {"sysfs": 3},
        {"binding": "everywhere"},
    ],
)
def test_api_bad_arguments_are_numaplace_errors(trace_dir: Path, kwargs: dict) -> None:
    call = {"trace": str(trace_dir / TRACE), "machine": MACHINE, "jobs": 0, "progress": False, **kwargs}
    with pytest.raises(numaplace.NumaplaceError) as e:
        numaplace.advise(**call)
    assert "\n" not in str(e.value)


def jacobi_trace(path: Path, pages: int = 64, iterations: int = 3) -> None:
    """A recorded 2-D Jacobi's shape, as a text trace: grid `a` first written by thread 0 in serial
    code, grid `b` by each thread on its quarter in a parallel loop, and a small table of
    coefficients every thread reads in every sweep; then each sweep reads each thread's quarter
    of both grids and the table, and writes its quarter of `b`."""
    T, q = 4, pages // 4
    a, b, c = 0, pages, 2 * pages
    out = ["numaplace-trace 1", "page_size 4096", "line_size 64", f"threads {T}",
           "meta source record:./jacobi 1024 3", "meta cache 1048576,8",
           f"region grid_a {a} {pages}", f"region grid_b {b} {pages}", f"region coef {c} 4",
           "epoch 0 fork"]
    out += [f"0 {a + p} 64 64" for p in range(pages)] + [f"0 {c + p} 64 64" for p in range(4)] + ["end"]
    out += ["epoch 0 barrier"]
    out += [f"{t} {b + t * q + p} 64 64" for t in range(T) for p in range(q)] + ["end"]
    for it in range(1, iterations + 1):
        out.append(f"epoch {it} barrier")
        for t in range(T):
            out += [f"{t} {a + t * q + p} 64 0" for p in range(q)]
            out += [f"{t} {c + p} 16 0" for p in range(4)]
            out += [f"{t} {b + t * q + p} 64 64" for p in range(q)]
        out.append("end")
    path.write_text("\n".join(out) + "\n")


def test_the_diagnosis_names_the_objects_that_lose_locality_why_and_what_to_change(tmp_path: Path, four_node_toml: str) -> None:
    """A golden diagnosis (tests/golden/advise-four-node-jacobi.txt; a text trace names regions and
    phases in one word, where `numaplace record` writes `main jacobi.c:10` and `fork SITE`): the serially initialised
    grid is to be initialised in parallel, the shared read-only table interleaved or
    replicated, the grid initialised in parallel left alone; the current set-up is marked, and
    the printed commands parse as `numaplace run`'s and numactl's."""
    machine = tmp_path / "four.toml"
    machine.write_text(four_node_toml)
    trace = tmp_path / "jacobi.nptxt"
    jacobi_trace(trace)
    a = numaplace.advise(str(trace), str(machine), jobs=0, progress=False)
    verdicts = {d.name: d.verdict for d in a.diagnosis}
    assert verdicts == {"grid_a": "initialise-in-parallel", "coef": "interleave", "grid_b": "fine"}
    grid, coef = a.diagnosis[0], next(d for d in a.diagnosis if d.name == "coef")
    assert grid.name == "grid_a" and grid.first_touch_thread == 0 and grid.first_touch_serial
    assert grid.local_now == 0.25 and grid.local_best == 1.0 and grid.pattern == "partitioned"
    assert "the serial code before a parallel region" in grid.first_touch
    assert coef.pattern == "shared" and coef.read_only_after is not None and any("replicate" in c for c in coef.change)
    # The fix pays: the best runnable combination beats the current set-up by more than the threshold.
    assert not a.change_nothing and a.gain > 0.03
    assert a.command.endswith("-- ./jacobi 1024 3") and "numaplace run" in a.command
    out = a.format(top=6)
    assert "<- current" in out
    d = a.to_dict()
    assert [x["name"] for x in d["diagnosis"]] == [x.name for x in a.diagnosis] and d["program"] == ["./jacobi", "1024", "3"]
    assert a.tiering is None and a.capacity_curve is None and "tiers" not in d and "\ntiers " not in out  # one tier
    name = "advise-four-node-jacobi.txt"
    text = out.replace(str(trace), "jacobi.nptxt")
    if UPDATE:
        (GOLDEN / name).write_text(text, encoding="utf-8")
    assert text == (GOLDEN / name).read_text(encoding="utf-8"), f"{name} differs from its golden file"


# --- on a tiered machine (issue 35, item 6) --------------------------------------------------

TINY_TIERED = """\
name = "tiny-tiered"
description = "two CPUs with 4 MiB of DRAM, and a CPU-less 28 MiB CXL node"
page_size = 4096
line_size = 64
mlp = 4.0
huge_page_size = 2097152
latency_ns = [[100.0, 250.0], [250.0, 250.0]]

[migration]
fixed_ns = 2000.0
copy_gbps = 10.0
tlb_shootdown_ns_per_cpu = 250.0

[[nodes]]
cpus = 2
memory_mib = 4
bandwidth_gbps = 50.0

[[nodes]]
cpus = 0
memory_mib = 28
memory = "cxl"
bandwidth_gbps = 10.0
"""
"""A tiered machine small enough that a 1,500-page GUPS trace (5.9 MiB) spills out of its fast tier (1,024 pages)."""

GUPS_PAGES = 1500


@pytest.fixture(scope="module")
def tiered_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("advise-tiered")
    (d / "tiny.toml").write_text(TINY_TIERED)
    args = ["trace", "export", "--workload", f"gups:pages={GUPS_PAGES},updates=3000,iterations=2", "--threads", "2",
            "--machine", str(d / "tiny.toml"), "--out", str(d / "gups.nptrace")]
    assert cli.main(args) == 0
    return d


@pytest.fixture(scope="module")
def tiered(tiered_dir: Path) -> numaplace.Advice:
    return numaplace.advise(str(tiered_dir / "gups.nptrace"), str(tiered_dir / "tiny.toml"), binding="spread", jobs=0, progress=False)


def test_on_a_tiered_machine_the_tiering_policies_are_ranked_beside_all_fast(tiered: numaplace.Advice) -> None:
    from numaplace.advice import tiers

    policies = [p["name"] for p in numaplace.policies() if p["tiering"]]
    assert policies == ["numab-tiering", "tpp", "hemem", "memtis", "colloid", "colloid-tpp", "colloid-memtis", "nomad"] == tiers.tiering_policies()
    t = tiered.tiering
    assert tiered.tiered and list(t.columns) == list(tiers.TIER_COLUMNS)
    assert sorted(t["dynamic"]) == sorted([NO_POLICY, *policies, tiers.ALL_FAST])
    runs, ref = t[~t["reference"]], t[t["reference"]].iloc[0]
    assert list(runs["rank"]) == list(range(1, len(policies) + 2)) and runs["time_ns"].is_monotonic_increasing and ref["rank"] == 0
    # The declared-capacity rows are the main table's first-touch runs, not runs of their own.
    main = tiered.table[tiered.table["placement"] == "first-touch"].set_index("dynamic")["time_ns"]
    for r in runs.to_dict("records"):
        assert r["time_ns"] == main[r["dynamic"]], r["dynamic"]
    none = runs[runs["dynamic"] == NO_POLICY].iloc[0]
    assert (t["vs_no_policy"] == t["time_ns"] / none["time_ns"] - 1).all()
    # 1,500 pages in a 1,024-page fast tier spill; with the fast tier as large as the machine nothing does.
    assert none["fast_fraction"] < 1.0 and ref["fast_fraction"] == 1.0 and ref["time_ns"] < none["time_ns"]
    assert not ref["runnable"] and "reference" in ref["why_not_runnable"]


def test_the_capacity_curve_and_the_fast_memory_needed(tiered: numaplace.Advice) -> None:
    import math

    from numaplace.advice import tiers

    c = tiered.capacity_curve
    assert list(c.columns) == list(tiers.CURVE_COLUMNS)
    assert list(dict.fromkeys(c["fraction"])) == ["1/32", "1/16", "1/8", "1/4", "1/2", "1/1"]
    assert list(dict.fromkeys(c["fast_pages"])) == [math.ceil(GUPS_PAGES / k) for k in (32, 16, 8, 4, 2, 1)]
    assert (c["fast_mib"] == c["fast_pages"] * 4096 / 2**20).all()
    assert len(c) == 6 * (1 + len(tiers.tiering_policies())) and set(c["dynamic"]) == {NO_POLICY, *tiers.tiering_policies()}
    ref = tiered.tiering[tiered.tiering["reference"]].iloc[0]["time_ns"]
    assert (c["vs_all_fast"] == c["time_ns"] / ref - 1).all()
    none = c[c["dynamic"] == NO_POLICY]
    # Less fast memory, more time; at the whole footprint every page fits.
    assert none["time_ns"].iloc[0] > none["time_ns"].iloc[-1] and none["fast_fraction"].iloc[-1] == 1.0
    assert none["fast_fraction"].iloc[0] < 0.2
    # The smallest capacity whose fastest run is within 5 % of all fast, found independently.
    best = c.groupby("fast_pages")["vs_all_fast"].min()
    want = min(p for p, v in best.items() if v <= tiers.WITHIN)
    assert tiered.fast_needed["fast_pages"] == want and tiered.fast_needed["vs_all_fast"] <= 0.05
    assert all(v > tiers.WITHIN for p, v in best.items() if p < want)


def test_the_tiering_verdict(tiered: numaplace.Advice) -> None:
    """On this trace no policy is fastest at the declared capacity: leave tiering off. The other
    verdicts on frames made up for them."""
    import pandas as pd

    from numaplace.advice import tiers

    v = tiered.tiering_verdict
    runs = tiered.tiering[~tiered.tiering["reference"]]
    assert v["best_policy"] == runs[runs["dynamic"] != NO_POLICY].iloc[0]["dynamic"]
    assert v["no_policy_best"] == (runs.iloc[0]["dynamic"] == NO_POLICY) and not v["worth_it"]
    assert "tiering  leave it off" in tiered.format(top=3)

    def frame(none: float, tpp: float) -> pd.DataFrame:
        rows = sorted([(none, NO_POLICY), (tpp, "tpp")])
        return pd.DataFrame({"dynamic": [d for _, d in rows] + [tiers.ALL_FAST], "time_ns": [t for t, _ in rows] + [50.0],
                             "reference": [False, False, True]})

    on = tiers.verdict(frame(100.0, 90.0))
    assert on == {"best_policy": "tpp", "saves": pytest.approx(0.1), "threshold": 0.03, "worth_it": True, "no_policy_best": False}
    small = tiers.verdict(frame(100.0, 98.0))
    assert not small["worth_it"] and not small["no_policy_best"] and small["saves"] == pytest.approx(0.02)
    assert tiers.verdict(frame(100.0, 110.0))["no_policy_best"]
    # No capacity of a curve within 5 %: none found; the first within it at the smallest capacity.
    curve = pd.DataFrame({"fast_pages": [1, 1, 2, 2], "dynamic": [NO_POLICY, "tpp"] * 2, "time_ns": [130.0, 120.0, 107.0, 106.0],
                          "vs_all_fast": [0.3, 0.2, 0.07, 0.06]})
    assert tiers.fast_needed(curve) is None
    curve.loc[3, ["time_ns", "vs_all_fast"]] = [104.0, 0.04]
    assert tiers.fast_needed(curve)["dynamic"] == "tpp" and tiers.fast_needed(curve)["fast_pages"] == 2


def test_the_tiered_advice_text_is_golden_and_its_json_the_same_from_a_pool(tiered: numaplace.Advice, tiered_dir: Path) -> None:
    from numaplace.advice import tiers

    out = tiered.format(top=5).replace(str(tiered_dir) + os.sep, "")
    name = "advise-tiny-tiered-gups.txt"
    if UPDATE:
        (GOLDEN / name).write_text(out, encoding="utf-8")
    assert out == (GOLDEN / name).read_text(encoding="utf-8"), f"{name} differs from its golden file"
    for line in ("tiers    first-touch, spread: the fast tier as declared holds 4 MiB; the trace's footprint is 5.9 MiB",
                 "time (ms) against the fast tier's capacity (vs all fast):"):
        assert line in out
    d = tiered.to_dict()["tiers"]
    assert d["capacity_grid"] == ["1/32", "1/16", "1/8", "1/4", "1/2", "1/1"] and d["within"] == 0.05
    assert d["footprint_pages"] == GUPS_PAGES and d["declared_fast_pages"] == 1024 and len(d["capacity_curve"]) == 6 * (1 + len(tiers.tiering_policies()))
    assert d["fast_needed"]["fast_pages"] == tiered.fast_needed["fast_pages"] and d["verdict"] == tiered.tiering_verdict
    # The same inputs give the same bytes, whether the runs go to this process or a pool.
    again = numaplace.advise(str(tiered_dir / "gups.nptrace"), str(tiered_dir / "tiny.toml"), binding="spread", jobs=2, progress=False)
    assert again.to_json() == tiered.to_json()
    fig = tiered.plot()
    assert fig.axes[-1].get_title() == "time against fast memory" and len(fig.axes[-1].get_lines()) >= 5


def test_fast_memory_is_a_run_option_with_one_line_errors(tiered_dir: Path) -> None:
    machine, trace = str(tiered_dir / "tiny.toml"), str(tiered_dir / "gups.nptrace")
    r = numaplace.simulate(machine, trace=trace, fast_memory_mib=2)
    assert r.per_node_pages == [512, GUPS_PAGES - 512] and r.config["fast_memory_mib"] == 2
    assert "fast_memory_mib" not in numaplace.simulate(machine, trace=trace).config
    for value, message in [
        (0, "fast_memory_mib = 0: a fast tier of zero: the fast tier must hold at least one page per fast node"),
        (32.5, "fast_memory_mib = 32.5: a fast tier larger than the machine: machine 'tiny-tiered' has 32 MiB of memory in all its tiers"),
    ]:
        with pytest.raises(numaplace.ConfigError) as e:
            numaplace.simulate(machine, trace=trace, fast_memory_mib=value)
        assert str(e.value) == message
    with pytest.raises(numaplace.ConfigError, match=r"^fast_memory_mib = 64: machine 'modern-2s' has one memory tier"):
        numaplace.simulate("modern-2s", "stream:pages=64", threads=2, fast_memory_mib=64)


def test_a_tiering_policy_the_machine_refuses_is_left_out_and_named_once(tiered_dir: Path, tmp_path: Path) -> None:
    """hemem's, memtis's and colloid's (on HeMem and on Memtis) default 2 MiB pages need huge pages: on a machine without them
    each is refused, in the table and on the curve, each in one note."""
    machine = tmp_path / "no-huge.toml"
    machine.write_text(TINY_TIERED.replace("huge_page_size = 2097152\n", ""))
    a = numaplace.advise(str(tiered_dir / "gups.nptrace"), str(machine), binding="spread", jobs=0, progress=False)
    assert not {"hemem", "memtis", "colloid", "colloid-memtis"} & (set(a.tiering["dynamic"]) | set(a.capacity_curve["dynamic"]))
    assert set(a.capacity_curve["dynamic"]) == {NO_POLICY, "numab-tiering", "tpp", "colloid-tpp", "nomad"}
    curve_notes = [n for n in a.notes if n.startswith("capacity curve:")]
    assert curve_notes == [f"capacity curve: not run: {p} at every capacity: dynamic policy '{p}': page=2m: machine"
                           " 'tiny-tiered' declares no huge pages (huge_page_size); give it one or use page=4k" for p in ("hemem", "memtis", "colloid", "colloid-memtis")]
