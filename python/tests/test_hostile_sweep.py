"""Hostile input and hostile hosts for sweeps (issue 16): bad specs, bad output directories,
absurd ``--jobs``, bad scheduler addresses, two sweeps into one directory, a killed parent.

Every error must be one line: a :class:`SweepError` (a :class:`numaplace.NumaplaceError`) from
the API, ``numaplace: error: ...`` with exit status 2 from the command line. No test relies on
timing: processes are awaited by polling with generous deadlines (the suite runs on a loaded
two-core machine).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import numaplace
from numaplace.sweep import CHECKPOINT_FILE, RESULTS_FILE, SweepError, load_spec, main, run_sweep

STREAM = "stream:pages=32,iterations=1"
SLOW = "random:accesses=100000,pages=4096,iterations=2"  # tens of ms: long enough to be in flight
ONE_RUN = f'[fixed]\nworkload = "{STREAM}"\n'


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """Runs ``numaplace sweep ARGV`` in this process; returns (exit status, standard error)."""
    status = main(list(argv))
    return status, capsys.readouterr().err


def _assert_one_line_error(err: str, *fragments: str) -> None:
    assert err.startswith("numaplace: error: "), err
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err and "Error:" not in err.split("numaplace: error: ", 1)[1][:40], err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


# --- the spec --------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "# nothing\n", "[axes]\n", "[fixed]\n", "[axes]\n[fixed]\n"])
def test_a_spec_that_sets_no_option_is_an_error(tmp_path: Path, text: str) -> None:
    # Before: an empty spec ran one default simulation, as though it had been meant.
    path = tmp_path / "empty.toml"
    path.write_text(text)
    with pytest.raises(SweepError, match=rf"^{path}: the spec sets no option") as info:
        load_spec(path)
    assert "\n" not in str(info.value)
    with pytest.raises(SweepError, match=r"^<dict>: the spec sets no option"):
        run_sweep({}, jobs=0)


def test_a_spec_with_only_fixed_options_is_one_run() -> None:
    df = run_sweep({"fixed": {"workload": STREAM}}, jobs=0)
    assert len(df) == 1 and df["status"].tolist() == ["ok"]


def test_a_missing_spec_says_it_does_not_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # Before: `numaplace sweep missing --out X` took "missing" for TOML text: "not valid TOML".
    monkeypatch.chdir(tmp_path)
    status, err = _cli(capsys, "missing", "--out", str(tmp_path / "out"))
    assert status == 2
    _assert_one_line_error(err, "missing: the sweep spec does not exist")
    status, err = _cli(capsys, str(tmp_path / "missing.toml"), "--out", str(tmp_path / "out"))
    assert status == 2
    _assert_one_line_error(err, "missing.toml: the sweep spec does not exist")
    with pytest.raises(SweepError, match=r"^missing: the sweep spec does not exist$"):
        run_sweep("missing", jobs=0)
    assert not (tmp_path / "out").exists()


def test_a_directory_or_unreadable_spec_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "specdir").mkdir()
    status, err = _cli(capsys, str(tmp_path / "specdir"), "--out", str(tmp_path / "out"))
    assert status == 2
    _assert_one_line_error(err, f"{tmp_path / 'specdir'}: the sweep spec is a directory")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    status, err = _cli(capsys, str(binary), "--out", str(tmp_path / "out"))
    assert status == 2
    _assert_one_line_error(err, f"{binary}: the sweep spec is not UTF-8 text")
    if os.geteuid() != 0:  # root reads anything
        locked = tmp_path / "locked.toml"
        locked.write_text(ONE_RUN)
        locked.chmod(0)
        status, err = _cli(capsys, str(locked), "--out", str(tmp_path / "out"))
        assert status == 2
        _assert_one_line_error(err, f"{locked}: cannot read the sweep spec: Permission denied")
