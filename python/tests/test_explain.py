"""The decision log (``sim --decisions``) and ``numaplace explain``: the three forms hold the
same records, a run writes the same bytes every time, the result's ``decision_log`` agrees
with the log, the answers for a page and a region, and bad input in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import numaplace
from numaplace import cli
from numaplace.cli.decisions import COLUMNS, DecisionLogError, explain, read

#: A small tiered run whose policy promotes and demotes, with pages moved back (TPP demotes
#: the first-touched fast pages, then promotes the hot ones back).
RUN = dict(
    machine="cxl-1to8", workload="gups:pages=65536,iterations=2,updates=8192", threads=8,
    dynamic="tpp:scan_delay_ms=0.1,scan_period_ms=1,max_scan_mb_per_s=1000000",
)  # fmt: skip


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, numaplace.Result]]:
    d = tmp_path_factory.mktemp("logs")
    out = {}
    for ext in ("csv", "jsonl", "parquet"):
        path = d / f"d.{ext}"
        out[ext] = (path, numaplace.simulate(**RUN, decisions=str(path), progress=False))
    return out


def test_every_form_holds_the_same_records_and_the_result_is_the_runs(logs) -> None:
    plain = numaplace.simulate(**RUN, progress=False)
    frames = {ext: read(path) for ext, (path, _) in logs.items()}
    for ext, df in frames.items():
        assert list(df.columns) == list(COLUMNS)
        assert df.equals(frames["csv"]), ext
    for _, r in logs.values():
        data = r.to_dict()
        summary = data.pop("decision_log")
        assert data == plain.to_dict(), "the log changes nothing of the run"
        assert summary["records"] == summary["written"] == len(frames["csv"]) == plain.migrations
        assert summary["dropped"] == 0
        assert summary["capacity"] == 8192
    a = explain(frames["csv"])
    s = logs["csv"][1].decision_log
    assert (a["promotions"], a["demotions"], a["returns"], a["pages_returned"]) == (s["promotions"], s["demotions"], s["returns"], s["pages_returned"])
    assert a["promotions"] == plain.policy["promotions"] and a["demotions"] == plain.policy["demotions"]
    assert a["promotions"] > 0 and a["returns"] > 0


def test_a_run_writes_the_same_log_bytes_every_time(logs, tmp_path: Path) -> None:
    for ext in ("csv", "jsonl", "parquet"):
        again = tmp_path / f"again.{ext}"
        numaplace.simulate(**RUN, decisions=str(again), progress=False)
        assert again.read_bytes() == logs[ext][0].read_bytes(), ext


def test_a_page_answer_says_why_it_moved_and_what_it_cost(logs) -> None:
    df = read(logs["csv"][0])
    page = int(df[df["tier"] == "promotion"]["page"].iloc[0])
    a = explain(df, page=page)
    assert a["page"] == page and a["region"] == "table"
    assert a["moves"] == len(df[df["page"] == page])
    assert {w["trigger"] for w in a["why"]} == {"low-memory", "hinting-fault"}
    assert a["returns"] == 1, "demoted, then promoted back"
    assert abs(a["cost_ns"] - df[df["page"] == page]["cost_ns"].sum()) < 1e-6
    promoted = next(m for m in a["first_moves"] if m["tier"] == "promotion")
    assert promoted["threshold"] == "promote_above_free_pages" and promoted["value"] > promoted["limit"]
    assert promoted["trigger"] == "hinting-fault" and not promoted["background"]
    demoted = next(m for m in a["first_moves"] if m["tier"] == "demotion")
    assert demoted["background"] and demoted["trigger"] == "low-memory"


def test_the_cli_answers_in_one_screen_for_a_page_a_region_and_the_run(logs, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(logs["parquet"][0])
    for extra in (["--page", "5"], ["--region", "table"], []):
        assert cli.main(["explain", path, *extra]) == 0
        out = capsys.readouterr().out
        assert 5 < len(out.splitlines()) <= 25, out
        assert "ping-pong" in out and "why" in out
    assert cli.main(["explain", path, "--region", "table", "--json"]) == 0
    a = json.loads(capsys.readouterr().out)
    assert a["region"] == "table" and a["top_pages"][0]["moves"] >= a["top_pages"][-1]["moves"]


def _upmlib_weighed(r) -> bool:  # noqa: ANN001 - a row
    """UPMlib's busiest node beat the threshold times the home node's count."""
    return len(r["counts"]) == 8 and max(r["counts"]) == r["value"] > r["limit"] and r["threshold"] == "threshold_x_home_count"


def _kernel_weighed(r) -> bool:  # noqa: ANN001 - a row
    """The counts that raised the interrupt: the remote node's lead over the home node's."""
    return r["value"] == r["counts"][r["to"]] - r["counts"][r["from"]] >= r["limit"]


@pytest.mark.parametrize(
    "workload, dynamic, trigger, weighed",
    [("nas-bt:class=S", "upmlib", "iteration-end", _upmlib_weighed), ("nas-cg:class=S", "kernel", "counter-interrupt", _kernel_weighed)],
)
def test_a_log_holds_the_counts_and_the_threshold_behind_each_move(tmp_path: Path, workload, dynamic, trigger, weighed) -> None:
    path = tmp_path / "d.csv"
    numaplace.simulate("origin2000", workload, dynamic=dynamic, decisions=str(path), progress=False)
    df = read(path)
    assert len(df) > 0 and (df["trigger"] == trigger).all()
    assert all(weighed(r) for _, r in df.iterrows())


def test_an_empty_log_still_has_its_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "none.csv"
    numaplace.simulate("wildfire", "stream:pages=64,iterations=2", threads=6, dynamic="wildfire", decisions=str(path), progress=False)
    assert path.read_text().startswith("time_ns,page,region,")
    assert read(path).empty
    assert cli.main(["explain", str(path)]) == 0
    assert "no moves" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, words",
    [
        (["--page", "999999"], ["page 999999 never moved", "pages did"]),
        (["--region", "nowhere"], ["region 'nowhere' has no move", "table"]),
    ],
)
def test_asking_for_what_never_moved_is_one_line(logs, args, words, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain", str(logs["csv"][0]), *args]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("numaplace: error: ")
    for w in words:
        assert w in err


@pytest.mark.parametrize(
    "content, words",
    [
        (None, ["missing.csv", "No such file"]),
        (b"", ["empty"]),
        (b"a,b\n1,2\n", ["not a decision log", "no column"]),
        (b"PAR1garbage", ["not a decision log"]),
        (b'{"time_ns": 1}\n', ["not a decision log", "no column"]),
        (b"\x00\xff\xfe binary", ["not a decision log"]),
    ],
)
def test_a_missing_or_malformed_log_is_one_line(tmp_path: Path, content, words, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "missing.csv"
    if content is not None:
        path.write_bytes(content)
    assert cli.main(["explain", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("numaplace: error: decision log ")
    for w in words:
        assert w in err
    with pytest.raises(DecisionLogError):
        read(path)


def test_page_and_region_together_are_refused(logs, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["explain", str(logs["csv"][0]), "--page", "1", "--region", "table"]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_parquet_through_the_native_layer_alone_is_refused(tmp_path: Path) -> None:
    from numaplace import _native

    request = json.dumps({"workload": "stream:pages=64,iterations=2", "dynamic": "upmlib", "decisions": str(tmp_path / "d.parquet")})
    with pytest.raises(numaplace.NumaplaceError, match="Parquet"):
        _native.simulate(request)
    assert not (tmp_path / "d.parquet").exists()


def test_sim_says_where_the_log_went_and_how_to_read_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "d.jsonl"
    args = ["sim", "--workload", "nas-bt", "--class", "S", "--dynamic", "upmlib", "--decisions", str(path), "--no-progress"]
    assert cli.main(args) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("decisions "))
    assert f"{len(read(path)):,} written to {path}" in line and line.endswith(f"numaplace explain {path}")
