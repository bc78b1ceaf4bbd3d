"""Tests of the Python API: ``numaplace.simulate``, ``Result``, the exception classes, and the
invariants every result must satisfy."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import numaplace
from numaplace import Result

SMALL_STREAM = "stream:pages=64,iterations=2"
SMALL_RANDOM = "random:accesses=500"
ERRORS = [
    numaplace.UnknownNameError,
    numaplace.SpecError,
    numaplace.ConfigError,
    numaplace.FileError,
    numaplace.MachineError,
    numaplace.OutOfMemoryError,
]


# --- Result -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def result() -> Result:
    return numaplace.simulate("origin2000", SMALL_STREAM, "round-robin", threads=4, seed=1)


def test_result_fields_are_attributes(result):
    d = result.to_dict()
    for key in ("total_time_ns", "iterations", "per_iteration_time_ns", "transactions", "local_fraction",
                "per_node_transactions", "per_node_pages", "migrations", "config"):
        assert getattr(result, key) == d[key]
    assert result.iterations == 2
    assert result.config["threads"] == 4
    assert result.config["workload"] == "stream:pages=64,arrays=3,iterations=2,think_ns=10"
    with pytest.raises(AttributeError):
        _ = result.no_such_field
    assert "local_fraction" in dir(result)


def test_to_dict_matches_to_json_and_is_a_copy(result):
    d = result.to_dict()
    assert d == json.loads(result.to_json())
    d["config"]["machine"] = "changed"
    d["per_node_pages"].append(1)
    assert result.config["machine"] == "origin2000"
    assert len(result.per_node_pages) == 8


def test_to_pandas_is_one_flat_row(result):
    df = result.to_pandas()
    assert df.shape[0] == 1
    for col in ("config.machine", "config.workload", "config.threads", "total_time_ns", "local_fraction"):
        assert col in df.columns, col
    assert "config.machine_spec" not in df.columns
    assert "config" not in df.columns
    assert df.loc[0, "config.machine"] == "origin2000"
    assert df.loc[0, "total_time_ns"] == result.total_time_ns
    assert df.loc[0, "local_fraction"] == result.local_fraction


def test_identical_calls_give_equal_results():
    a = numaplace.simulate("sunfire6800", SMALL_RANDOM, "random", threads=6, seed=9)
    b = numaplace.simulate("sunfire6800", SMALL_RANDOM, "random", threads=6, seed=9)
    assert a == b
    assert a.to_json() == b.to_json()
    c = numaplace.simulate("sunfire6800", SMALL_RANDOM, "random", threads=6, seed=10)
    assert c != a
    assert a != a.to_dict()  # a Result only equals a Result


def test_api_result_equals_cli_json(cli, tmp_path):
    out = tmp_path / "r.json"
    run = cli("sim", "--machine", "wildfire", "--workload", SMALL_RANDOM, "--placement", "random",
              "--threads", "6", "--seed", "11", "--binding", "compact", "--init", "sequential", "--json", out)
    assert run.returncode == 0, run.stderr
    api = numaplace.simulate("wildfire", SMALL_RANDOM, "random", threads=6, seed=11, binding="compact", init="sequential")
    from_cli = Result.from_json(out.read_text())
    assert api == from_cli
    assert api.to_json() + "\n" == out.read_text()


def test_machine_and_listings():
    names = [m["name"] for m in numaplace.machines()]
    assert names == sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "machines").glob("*.toml"))
    o = numaplace.machine("origin2000")
    assert len(o["nodes"]) == 8 and o["page_size"] == 16384
    assert {w["name"] for w in numaplace.workloads()} >= {
        "stream", "random", "traverse", "nas-bt", "nas-sp", "nas-lu", "nas-mg", "nas-cg", "nas-ft", "nas-ep",
        "shallow", "ocean-contig", "ocean-noncontig", "ge",
    }
    assert {p["name"] for p in numaplace.placements()} == {"first-touch", "round-robin", "random", "worst-case", "bind", "block", "oracle"}


# --- the run request ------------------------------------------------------------------------


def test_simulate_takes_exactly_the_declared_run_options_with_their_defaults():
    # The options are declared once, in Rust; simulate's keywords are checked against them.
    import inspect

    from numaplace.api import OPTIONS, option_default

    params = {n: p for n, p in inspect.signature(numaplace.simulate).parameters.items() if p.kind is not p.VAR_KEYWORD}
    # ``progress`` is how the call is shown, not what is run: the one keyword beside the options.
    assert params.pop("progress").default is None
    assert set(params) == {o["python"] for o in OPTIONS.values()}
    for name, o in OPTIONS.items():
        default = params[o["python"]].default
        # None stands for "the declared default": unset, none, or (threads) a trace's own count.
        if default is None:
            assert o["default"] in (None, "none") or name == "threads", name
        else:
            assert default == option_default(name), name


def test_no_dynamic_policy_can_be_named_none():
    base = numaplace.simulate(workload=SMALL_STREAM, threads=4)
    assert numaplace.simulate(workload=SMALL_STREAM, threads=4, dynamic="none") == base
    assert base.config["dynamic"] is None


def test_the_cli_options_of_sim_are_generated_from_the_run_options(cli):
    from numaplace.api import OPTIONS

    help_text = cli("sim", "--help").stdout
    for name, o in OPTIONS.items():
        assert "--" + name.replace("_", "-") in help_text, name
        assert o["doc"].split()[0] in help_text, name


# --- exceptions ---------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ERRORS)
def test_error_classes_derive_from_numaplace_error(cls):
    assert issubclass(cls, numaplace.NumaplaceError)
    assert issubclass(numaplace.NumaplaceError, Exception)
    assert cls is not numaplace.NumaplaceError


def test_error_classes_are_distinct():
    assert len(set(ERRORS)) == len(ERRORS)
    for a in ERRORS:
        for b in ERRORS:
            if a is not b:
                assert not issubclass(a, b), (a, b)


@pytest.mark.parametrize(
    ("kwargs", "cls", "needle"),
    [
        pytest.param({"machine": "origin3000"}, numaplace.UnknownNameError, "origin3000", id="unknown-machine"),
        pytest.param({"workload": "nas-zz"}, numaplace.UnknownNameError, "nas-zz", id="unknown-workload"),
        pytest.param({"placement": "nearest"}, numaplace.UnknownNameError, "nearest", id="unknown-placement"),
        pytest.param({"binding": "diagonal"}, numaplace.UnknownNameError, "diagonal", id="unknown-binding"),
        pytest.param({"workload": "stream:x=1"}, numaplace.SpecError, "'x'", id="bad-spec-key"),
        pytest.param({"workload": "traverse:pattern=zigzag"}, numaplace.SpecError, "zigzag", id="bad-choice"),
        pytest.param({"placement": "bind:node=99"}, numaplace.SpecError, "99", id="bind-missing-node"),
        pytest.param({"threads": 17}, numaplace.ConfigError, "oversubscribe", id="too-many-threads"),
        pytest.param({"threads": "4"}, numaplace.ConfigError, "threads", id="threads-string"),
        pytest.param({"threads": 0}, numaplace.ConfigError, "threads", id="threads-zero"),
        pytest.param({"threads": 4.0}, numaplace.ConfigError, "threads", id="threads-float"),
        pytest.param({"threads": True}, numaplace.ConfigError, "threads", id="threads-bool"),
        pytest.param({"seed": -1}, numaplace.ConfigError, "seed", id="seed-negative"),
        pytest.param({"seed": 2**64}, numaplace.ConfigError, "seed", id="seed-too-big"),
        pytest.param({"machine": 3}, numaplace.ConfigError, "machine", id="machine-not-str"),
        pytest.param({"quantum_ns": "fast"}, numaplace.ConfigError, "quantum_ns", id="quantum-not-number"),
        pytest.param({"quantum_ns": 0.0}, numaplace.ConfigError, "quantum_ns", id="quantum-zero"),
        pytest.param({"oversubscribe": 1}, numaplace.ConfigError, "oversubscribe", id="oversubscribe-not-bool"),
        pytest.param({"workload": "random:pages=10000000"}, numaplace.OutOfMemoryError, "10000000", id="out-of-memory"),
        pytest.param({"machine": "no/such/file.toml"}, numaplace.FileError, "no/such/file.toml", id="missing-file"),
    ],
)
def test_errors_raise_the_right_class(kwargs, cls, needle):
    args = {"machine": "origin2000", "workload": SMALL_STREAM, "placement": "first-touch", "threads": 16, **kwargs}
    with pytest.raises(cls) as info:
        numaplace.simulate(**args)
    assert isinstance(info.value, numaplace.NumaplaceError)
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_oversubscribe_allows_more_threads():
    r = numaplace.simulate("origin2000", SMALL_STREAM, threads=17, oversubscribe=True)
    assert r.config["threads"] == 17 and len(r.config["thread_nodes"]) == 17


def test_invalid_machine_file_is_machine_error(tmp_path, two_node_toml):
    path = tmp_path / "bad.toml"
    path.write_text(two_node_toml.replace("[200.0, 100.0]", "[250.0, 100.0]"))
    with pytest.raises(numaplace.MachineError, match="latency_ns") as info:
        numaplace.simulate(str(path), SMALL_STREAM, threads=2)
    assert str(path) in str(info.value)
    with pytest.raises(numaplace.MachineError):
        numaplace.machine(str(path))
    good = tmp_path / "good.toml"
    good.write_text(two_node_toml)
    assert numaplace.simulate(str(good), SMALL_STREAM, threads=8).config["machine"] == "two-node"


def test_malformed_machine_file_is_machine_error(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text('name = "x"\npage_size = [')
    with pytest.raises(numaplace.MachineError) as info:
        numaplace.simulate(str(path), SMALL_STREAM, threads=2)
    assert str(path) in str(info.value)


# --- properties ---------------------------------------------------------------------------

PLACEMENT_NAMES = [p["name"] for p in numaplace.placements()]


@st.composite
def configs(draw):
    placement = draw(st.sampled_from(PLACEMENT_NAMES))
    threads = draw(st.integers(1, 16))
    init = draw(st.sampled_from(["parallel", "sequential", "none"]))
    binding = draw(st.sampled_from(["spread", "compact"]))
    seed = draw(st.integers(0, 2**32))
    if draw(st.booleans()):
        pages = draw(st.integers(1, 48))
        arrays = draw(st.integers(1, 3))
        iterations = draw(st.integers(1, 3))
        workload = f"stream:pages={pages},arrays={arrays},iterations={iterations}"
        total_pages = pages * arrays
    else:
        pages = draw(st.integers(1, 64))
        accesses = draw(st.integers(1, 300))
        iterations = draw(st.integers(1, 3))
        wf = draw(st.sampled_from([0, 0.25, 1]))
        workload = f"random:pages={pages},accesses={accesses},iterations={iterations},write_fraction={wf}"
        total_pages = pages
    return {
        "machine": "origin2000",
        "workload": workload,
        "placement": placement,
        "threads": threads,
        "init": init,
        "binding": binding,
        "seed": seed,
    }, total_pages, iterations


@settings(max_examples=25, deadline=None, database=None)
@given(configs())
def test_result_invariants(case):
    kwargs, total_pages, iterations = case
    r = numaplace.simulate(**kwargs)
    assert r.transactions > 0
    assert sum(r.per_node_transactions) == r.transactions
    assert r.reads + r.writes == r.transactions
    assert 0.0 <= r.local_fraction <= 1.0
    assert r.iterations == iterations == len(r.per_iteration_time_ns)
    assert math.isclose(sum(r.per_iteration_time_ns), r.total_time_ns, rel_tol=1e-9)
    assert all(t > 0 for t in r.per_iteration_time_ns)
    # per_node_pages counts placed pages. With init="none" a page is placed when the timed
    # iterations first touch it, so a random workload with few accesses may leave some unplaced;
    # a stream sweep, or an initialisation epoch, touches every page.
    if kwargs["init"] != "none" or kwargs["workload"].startswith("stream:"):
        assert sum(r.per_node_pages) == total_pages
    else:
        assert 1 <= sum(r.per_node_pages) <= total_pages
    assert len(r.per_node_pages) == len(r.per_node_transactions) == len(r.per_node_utilisation) == 8
    assert r.config["threads"] == kwargs["threads"] and len(r.config["thread_nodes"]) == kwargs["threads"]


@settings(max_examples=25, deadline=None, database=None)
@given(configs())
@example(
    (
        {"machine": "origin2000", "workload": "stream:pages=64,iterations=1", "placement": "worst-case",
         "threads": 16, "init": "parallel", "binding": "spread", "seed": 0},
        192,
        1,
    )
)
def test_utilisation_is_a_fraction(case):
    """Utilisation is the share of the timed run a node's memory controller was busy
    (lines x service time / time), so it can never exceed 1."""
    kwargs, _, _ = case
    r = numaplace.simulate(**kwargs)
    for u in r.per_node_utilisation:
        assert 0.0 <= u <= 1.0, (kwargs, r.per_node_utilisation)


# --- placement semantics ------------------------------------------------------------------

PLACEMENT_STREAM = "stream:pages=64,iterations=1"
PLACEMENT_PAGES = 3 * 64  # three arrays


def _place(placement: str) -> Result:
    return numaplace.simulate("origin2000", PLACEMENT_STREAM, placement, threads=16)


def test_first_touch_is_all_local():
    r = _place("first-touch")
    assert r.local_fraction == 1.0
    assert sum(r.per_node_pages) == PLACEMENT_PAGES


def test_worst_case_puts_every_page_on_node_0():
    r = _place("worst-case")
    assert r.per_node_pages[0] == PLACEMENT_PAGES
    assert r.per_node_pages[1:] == [0] * 7
    assert r.per_node_transactions[0] == r.transactions
    assert r.local_fraction == pytest.approx(2 / 16)  # the two threads on node 0
    assert r.total_time_ns > _place("first-touch").total_time_ns


def test_bind_puts_every_page_on_the_node():
    r = _place("bind:node=3")
    assert r.per_node_pages[3] == PLACEMENT_PAGES
    assert sum(r.per_node_pages) == PLACEMENT_PAGES
    assert r.per_node_transactions[3] == r.transactions


def test_round_robin_spreads_pages_evenly():
    r = _place("round-robin")
    assert len(set(r.per_node_pages)) == 1
    assert sum(r.per_node_pages) == PLACEMENT_PAGES


def test_random_placement_uses_the_seed():
    a = numaplace.simulate("origin2000", PLACEMENT_STREAM, "random", threads=16, seed=1)
    b = numaplace.simulate("origin2000", PLACEMENT_STREAM, "random", threads=16, seed=2)
    assert sum(a.per_node_pages) == sum(b.per_node_pages) == PLACEMENT_PAGES
    assert a.per_node_pages != b.per_node_pages
