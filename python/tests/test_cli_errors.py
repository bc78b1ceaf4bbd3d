"""Bad input that reached the user as a bare built-in exception ("numaplace: internal error:
TypeError: ...", exit 1) is a one-line error naming the thing, exit 2: a damaged sweep
checkpoint (a record whose row is not a table, a record without a row, a result integer past 64
bits, a status that is not text) and a report directory that cannot be one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from numaplace import cli
from numaplace.sweep import CHECKPOINT_FILE, RESULTS_FILE

STREAM = "stream:pages=64,iterations=1"


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = cli.main(list(argv))
    return status, capsys.readouterr().err


def _one_line_error(err: str, needle: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("numaplace: error: "), err
    assert "internal error" not in err and "Traceback" not in err
    assert needle in lines[0], err


@pytest.fixture(scope="module")
def checkpoint_line(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A record of a finished one-run sweep's checkpoint, as this version writes it."""
    out = tmp_path_factory.mktemp("done")
    spec = out / "spec.toml"
    spec.write_text(f'[fixed]\nworkload = "{STREAM}"\n')
    assert cli.main(["sweep", str(spec), "--out", str(out / "out"), "--jobs", "0", "--no-progress"]) == 0
    (line,) = (out / "out" / CHECKPOINT_FILE).read_text().splitlines()
    return json.loads(line)


def _without(record: dict, key: str) -> dict:
    return {k: v for k, v in record.items() if k != key}


@pytest.mark.parametrize(
    ("damage", "needle"),
    [
        # Before: "internal error: TypeError: cannot convert dictionary update sequence element #0".
        (lambda r: {**r, "row": [1, 2]}, "(line 1: row is a list, not a table or null)"),
        # Before: "internal error: KeyError: 'row'".
        (lambda r: _without(r, "row"), "(line 1: the record has no row)"),
        # Before: "internal error: OverflowError: Python int too large to convert to C unsigned long".
        (lambda r: {**r, "row": {**r["row"], "iterations": 10**30}}, "(line 1: row iterations = 1" + "0" * 30 + ": an integer past 64 bits)"),
        # Before: the table said the run failed, with the error "nan: nan".
        (lambda r: {**r, "status": 7}, "(line 1: status is a number, not text)"),
        (lambda r: {**r, "attempts": "twice"}, "(line 1: attempts is text, not an integer)"),
    ],
    ids=["row-a-list", "no-row", "integer-past-64-bits", "status-a-number", "attempts-text"],
)
def test_a_damaged_checkpoint_record_is_one_line_naming_the_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], checkpoint_line: dict, damage, needle: str  # noqa: ANN001
) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[fixed]\nworkload = "{STREAM}"\n')
    out = tmp_path / "out"
    out.mkdir()
    text = json.dumps(damage(checkpoint_line)) + "\n"
    (out / CHECKPOINT_FILE).write_text(text)
    status, err = _cli(capsys, "sweep", str(spec), "--out", str(out), "--jobs", "0", "--no-progress")
    assert status == 2
    _one_line_error(err, f"{out / CHECKPOINT_FILE} is not a sweep checkpoint {needle}; move it away or choose another --out")
    assert (out / CHECKPOINT_FILE).read_text() == text  # kept as it was
    assert not (out / RESULTS_FILE).exists()


def test_a_record_of_another_version_is_not_read_further(tmp_path: Path, checkpoint_line: dict) -> None:
    """Its runs are redone, whatever its fields (another version may write others)."""
    spec = tmp_path / "spec.toml"
    spec.write_text(f'[fixed]\nworkload = "{STREAM}"\n')
    out = tmp_path / "out"
    out.mkdir()
    (out / CHECKPOINT_FILE).write_text(json.dumps({**_without(checkpoint_line, "row"), "numaplace_version": "0.0.1"}) + "\n")
    assert cli.main(["sweep", str(spec), "--out", str(out), "--jobs", "0", "--no-progress"]) == 0
    assert (out / RESULTS_FILE).exists()


@pytest.mark.parametrize(
    ("where", "needle"),
    [
        ("a-file", "--out {out}: not a directory (give a directory for the files)"),
        ("under-a-file", "--out {out}: {file} is not a directory"),
        ("dev-null", "--out {out}: not a directory (give a directory for the files)"),
    ],
)
def test_reproduce_into_what_cannot_be_a_directory_is_one_line_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, needle: str
) -> None:
    # Before: every experiment ran, then "internal error: FileExistsError: [Errno 17] File
    # exists" (or NotADirectoryError), exit 1.
    file = tmp_path / "afile"
    file.write_text("mine\n")
    out = {"a-file": file, "under-a-file": file / "report", "dev-null": Path("/dev/null")}[where]
    status, err = _cli(capsys, "reproduce", "--out", str(out), "--grid", "test", "--experiment", "seed003-table2", "--jobs", "0", "--no-progress")
    assert status == 2
    _one_line_error(err, needle.format(out=out, file=file))
    assert file.read_text() == "mine\n"


def test_reproduce_checks_its_directory_in_python_too(tmp_path: Path) -> None:
    from numaplace.outfile import OutputError
    from numaplace.report import reproduce

    (tmp_path / "afile").write_text("")
    with pytest.raises(OutputError, match=r"^out_dir .*afile: not a directory"):
        reproduce(out_dir=tmp_path / "afile", grid="test", experiments=["seed003-table2"], jobs=0, progress=False)
