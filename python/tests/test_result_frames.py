"""Tidy frames of a result (``per_node``, ``per_iteration``, ``per_epoch``) against the
result's own lists, and its notebook display (``_repr_html_``)."""

from __future__ import annotations

import math

import pytest

import numaplace
from numaplace import Result


@pytest.fixture(scope="module")
def result() -> Result:
    # Worst-case placement with a policy: pages move, so nodes and iterations differ.
    return numaplace.simulate(workload="nas-cg", problem_class="S", placement="worst-case", threads=6, dynamic="upmlib")


def test_per_node_has_one_row_per_node_from_the_result_lists(result: Result) -> None:
    f = result.per_node()
    nodes = len(result.config["machine_spec"]["nodes"])
    assert list(f.columns) == ["node", "threads", "pages", "transactions", "share", "utilisation", "queue_ns"]
    assert len(f) == nodes and list(f.node) == list(range(nodes))
    assert list(f.pages) == result.per_node_pages
    assert list(f.transactions) == result.per_node_transactions
    assert list(f.utilisation) == result.per_node_utilisation
    assert list(f.queue_ns) == result.per_node_queue_ns and f.queue_ns.max() > 0 and (f.queue_ns >= 0).all()
    assert list(f.threads) == [result.config["thread_nodes"].count(n) for n in range(nodes)]
    assert f.threads.sum() == result.config["threads"]
    assert math.isclose(f.share.sum(), 1.0)
    assert list(f.share) == [t / sum(result.per_node_transactions) for t in result.per_node_transactions]


def test_per_iteration_has_one_row_per_timed_iteration(result: Result) -> None:
    f = result.per_iteration()
    assert list(f.columns) == ["iteration", "time_ns", "end_ns", "local_fraction", "epochs"]
    assert len(f) == result.iterations and list(f.iteration) == list(range(1, result.iterations + 1))
    assert list(f.time_ns) == result.per_iteration_time_ns
    assert list(f.local_fraction) == result.per_iteration_local_fraction
    assert math.isclose(f.end_ns.iloc[-1], result.total_time_ns, rel_tol=1e-12)
    assert (f.end_ns.diff().dropna() > 0).all()
    assert f.epochs.sum() == sum(e["iteration"] > 0 for e in result.epochs)
    # The policy moved pages: locality differs between the first iteration and the last.
    assert f.local_fraction.iloc[0] != f.local_fraction.iloc[-1]


def test_per_epoch_has_one_row_per_epoch_initialisation_first(result: Result) -> None:
    f = result.per_epoch()
    assert list(f.columns) == ["epoch", "iteration", "phase", "time_ns", "start_ns"]
    assert len(f) == len(result.epochs)
    assert f.to_dict("records")[0]["iteration"] == 0
    assert list(f.iteration) == [e["iteration"] for e in result.epochs]
    assert list(f.phase) == [e["phase"] for e in result.epochs]
    assert list(f.time_ns) == [e["time_ns"] for e in result.epochs]
    assert f.start_ns.iloc[0] == 0
    assert math.isclose(f.start_ns.iloc[-1] + f.time_ns.iloc[-1], result.init_time_ns + result.total_time_ns, rel_tol=1e-12)
    timed = f[f.iteration > 0].groupby("iteration").time_ns.sum()
    assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(timed, result.per_iteration_time_ns))


def test_the_html_display_shows_the_headline_and_small_tables(result: Result) -> None:
    page = result._repr_html_()
    assert page.count("<table") == 5  # layout, run, result, nodes, iterations
    assert f"{result.total_time_ns / 1e6:,.3f} ms" in page
    assert f"{result.local_fraction:.1%}" in page
    assert result.config["workload"] in page and "upmlib" in page
    assert page.count("<tr><td>") >= len(result.per_node_pages) + Result.HTML_ITERATIONS
    more = result.iterations - Result.HTML_ITERATIONS
    assert (f"and {more} more iterations" in page) == (more > 0)


def test_the_html_display_escapes_text() -> None:
    r = numaplace.simulate(workload="stream:pages=32,iterations=1", threads=2)
    data = r.to_dict()
    data["config"]["workload"] = "<script>alert(1)</script>"
    page = Result(data)._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert "more iterations" not in page  # one iteration: all shown


def test_a_sweep_row_gives_back_its_result_with_its_frames() -> None:
    spec = {"axes": {"dynamic": ["none", "upmlib"]}, "fixed": {"workload": "nas-cg", "class": "S", "placement": "worst-case", "threads": 6}}
    df = numaplace.sweep(spec, jobs=0)
    for row in df.to_dict("records"):
        r = Result.from_row(row)
        direct = numaplace.simulate(workload="nas-cg", problem_class="S", placement="worst-case", threads=6, dynamic=row["dynamic"])
        expected = direct.to_dict()
        del expected["config"]["machine_spec"]
        assert r.to_dict() == expected
        assert r.per_iteration().equals(direct.per_iteration()) and r.per_node().equals(direct.per_node())
    bad = numaplace.sweep({"fixed": {"workload": "no-such-workload"}}, jobs=0)
    with pytest.raises(ValueError, match="run 0 failed \\(UnknownNameError: "):
        Result.from_row(bad.iloc[0])
