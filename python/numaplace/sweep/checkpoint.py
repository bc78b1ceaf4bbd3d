"""A sweep's files: the append-only checkpoint and the final table.

* ``DIR/checkpoint.jsonl`` (:class:`Checkpoint`): one JSON record per completed run, appended
  and flushed as the run completes, so that a killed sweep loses at most the runs in flight;
  :func:`read_checkpoint` skips the half-written last line such a sweep may leave.
* ``DIR/results.parquet`` and ``DIR/results.csv``: the table, built as an Arrow table
  (:func:`to_table`; lists, dicts and mixed columns as JSON text, named in the schema metadata)
  and written through a temporary file renamed into place (:func:`write_atomic`), so that a
  reader never sees half a file. :func:`load_results` reads it back as a DataFrame.
* ``DIR/sweep.lock`` (:class:`OutputLock`): held (``flock``) by the one sweep writing to DIR.

The directory is the sweep's, but not everything in it need be: before anything runs,
:func:`check_outputs` refuses (in one line, touching nothing) a symbolic link, a directory or
a special file at any of these names, and a file there that is not what a sweep writes (a
checkpoint that is binary, a ``results.parquet`` that is not Parquet). Every open is
``O_NOFOLLOW`` and non-blocking, so a link or FIFO planted later is not followed or waited on
either: a sweep writes only regular files in DIR, and never through a link to elsewhere.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from numaplace._native import __version__ as _VERSION
from numaplace.api import SWEEP_LEAD
from numaplace.sweep.errors import SweepError
from numaplace.sweep.spec import Sweep

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

CHECKPOINT_FILE = "checkpoint.jsonl"
"""Completed runs, one JSON object per line, appended as runs complete."""
RESULTS_FILE = "results.parquet"
"""The final table, one row per configuration in the spec's cartesian order."""
RESULTS_CSV = "results.csv"
"""The same table as CSV (written with ``--csv`` / ``csv=True``)."""

LOCK_FILE = "sweep.lock"
"""Locked by the sweep writing to the directory; holds its process id."""

_JSON_COLUMNS_KEY = b"numaplace.json_columns"

# --- the directory's files, opened safely ------------------------------------------------------

_NOT_REGULAR = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
}

_MOVE = "move it away or choose another --out"


def _refuse(path: Path, what: str) -> SweepError:
    return SweepError(f"{path} {what}; {_MOVE}")


def _cannot_write(path: Path, e: OSError) -> SweepError:
    """A failed write (a full disk, a file size limit, an I/O error) as one line naming the file."""
    return SweepError(f"cannot write {path}: {e.strerror or e}")


def _check_kind(path: Path, mode: int) -> None:
    """Refuses anything but a regular file (``mode`` from lstat or fstat)."""
    if stat.S_ISLNK(mode):
        raise _refuse(path, "is a symbolic link (a sweep writes its own files in --out, never through a link)")
    if stat.S_ISDIR(mode):
        raise _refuse(path, "is a directory")
    if not stat.S_ISREG(mode):
        raise _refuse(path, f"is not a regular file ({_NOT_REGULAR.get(stat.S_IFMT(mode), 'a special file')})")


def _open(path: Path, flags: int, mode: int = 0o666) -> int:
    """``os.open`` of a regular file in the output directory, never following a link or
    blocking on a FIFO; every refusal one line naming the file."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise _refuse(path, "is a symbolic link (a sweep writes its own files in --out, never through a link)") from None
        if e.errno == errno.EISDIR:
            raise _refuse(path, "is a directory") from None
        if e.errno == errno.ENXIO:  # a FIFO with no reader, opened for writing
            raise _refuse(path, "is not a regular file (a FIFO)") from None
        raise SweepError(f"cannot open {path}: {e.strerror or e}") from None
    try:
        _check_kind(path, os.fstat(fd).st_mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_existing(path: Path) -> IO[bytes] | None:
    """A file in the output directory opened for reading, or None if there is none."""
    try:
        fd = _open(path, os.O_RDONLY)
    except SweepError:
        if not os.path.lexists(path):
            return None
        raise
    return os.fdopen(fd, "rb")


def check_outputs(out: Path, csv: bool) -> None:
    """Refuses, before anything runs, an output file the sweep would not be right to replace:
    a link, a directory, a special file, or a table that is not a sweep's. Reads only the
    tables' first and last bytes."""
    # (sweep.lock is checked as OutputLock opens it, before this.)
    for name in (CHECKPOINT_FILE, RESULTS_FILE, *([RESULTS_CSV] if csv else [])):
        path = out / name
        try:
            mode = os.lstat(path).st_mode
        except FileNotFoundError:
            continue
        except OSError as e:
            raise SweepError(f"cannot examine {path}: {e.strerror or e}") from None
        _check_kind(path, mode)
        if name in (RESULTS_FILE, RESULTS_CSV):
            fd = _open(path, os.O_RDONLY)
            with os.fdopen(fd, "rb") as f:
                size = f.seek(0, os.SEEK_END)
                head = os.pread(fd, 16, 0)
                tail = os.pread(fd, 4, max(size - 4, 0))
            if size == 0:  # nothing to lose
                continue
            if name == RESULTS_FILE and not (size >= 8 and head[:4] == tail == b"PAR1"):
                raise _refuse(path, "is not a Parquet file (not a sweep's table)")
            if name == RESULTS_CSV and not head.startswith(b"run,run_id,"):
                raise _refuse(path, "is not a sweep's CSV table (its header does not start with run,run_id)")


class OutputLock:
    """An exclusive ``flock`` on ``DIR/sweep.lock`` for as long as a sweep writes to DIR.

    A second sweep into the same directory fails at once, naming the holder's process id
    (written in the file), instead of running every configuration again beside the first.
    The lock is the kernel's: it goes with the holder's process, even on kill -9, so a stale
    lock file never blocks a later sweep. The file itself stays (removing it would let a third
    sweep lock a new file while a second still holds the old one). The descriptor is not
    inherited by worker processes (``O_CLOEXEC``; Dask's LocalCluster spawns its workers).
    """

    def __init__(self, out: Path) -> None:
        import fcntl

        self.path = out / LOCK_FILE
        self._fd = _open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(self._fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(self._fd)
            raise SweepError(
                f"{out}: another sweep is writing to this directory (pid {holder}); "
                "wait for it to finish or choose another --out"
            ) from None
        except OSError as e:
            os.close(self._fd)
            raise SweepError(f"cannot lock {self.path}: {e.strerror or e}") from None
        try:
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, f"{os.getpid()}\n".encode(), 0)
        except OSError as e:
            os.close(self._fd)
            raise _cannot_write(self.path, e) from None

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # releases the lock
            self._fd = -1

    def __enter__(self) -> OutputLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

# --- the table -------------------------------------------------------------------------------

_LEAD = SWEEP_LEAD
"""The sweep's own columns, first in its table (declared in :mod:`numaplace.api`, whose
:meth:`~numaplace.api.Result.from_row` leaves them out)."""


def _arrow_type(values: list[Any]) -> tuple[pa.DataType, bool]:
    """The Arrow type of a column's values, and whether they are stored as JSON text."""
    import pyarrow as pa

    present = [v for v in values if v is not None]
    if not present:
        return pa.string(), False
    if all(isinstance(v, bool) for v in present):
        return pa.bool_(), False
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return (pa.int64(), False) if all(-(2**63) <= v < 2**63 for v in present) else (pa.uint64(), False)
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
        return pa.float64(), False
    if all(isinstance(v, str) for v in present):
        return pa.string(), False
    return pa.string(), True


def to_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> pa.Table:
    """Rows → an Arrow table with the given columns; lists, dicts and mixed values as JSON text."""
    import pyarrow as pa

    arrays, fields, json_columns = [], [], []
    for name in columns:
        values = [row.get(name) for row in rows]
        typ, as_json = _arrow_type(values)
        if as_json:
            values = [None if v is None else json.dumps(v, separators=(",", ":")) for v in values]
            json_columns.append(name)
        elif typ == pa.float64():
            values = [None if v is None else float(v) for v in values]
        arrays.append(pa.array(values, type=typ))
        fields.append(pa.field(name, typ))
    schema = pa.schema(fields, metadata={_JSON_COLUMNS_KEY: json.dumps(json_columns).encode()})
    return pa.Table.from_arrays(arrays, schema=schema)


def _types_mapper(typ: pa.DataType) -> Any:
    import pandas as pd
    import pyarrow as pa

    if pa.types.is_int64(typ):
        return pd.Int64Dtype()
    if pa.types.is_uint64(typ):
        return pd.UInt64Dtype()
    if pa.types.is_boolean(typ):
        return pd.BooleanDtype()
    return None


def to_frame(table: pa.Table, decode: bool = True) -> pd.DataFrame:
    """An Arrow table of :func:`_table` → a DataFrame (JSON columns decoded unless ``decode``)."""
    df = table.to_pandas(types_mapper=_types_mapper)
    if decode:
        meta = table.schema.metadata or {}
        for name in json.loads(meta.get(_JSON_COLUMNS_KEY, b"[]")):
            df[name] = df[name].map(lambda v: json.loads(v) if isinstance(v, str) else None).astype(object)
    return df


def load_results(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Reads a sweep's ``results.parquet`` (or the directory holding it) as :func:`run_sweep` returns it.

    List and dict values, stored in the file as JSON text, are decoded back.
    """
    import pyarrow.parquet as pq

    p = Path(path)
    # An open file, not the path: pyarrow takes a path string for a URI ("s3:...") and cannot
    # encode a name that is not UTF-8.
    with (p / RESULTS_FILE if p.is_dir() else p).open("rb") as f:
        return to_frame(pq.read_table(f))


def write_atomic(path: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Writes ``path`` through ``write`` (given the open binary file) on a temporary file renamed into place, so that a
    reader (or a resumed sweep) never sees half a file; the temporary file is removed on error.

    The temporary file is created exclusively under a random name (a link planted at a
    predictable name would be written through), with the mode the umask gives a new file.
    ``path`` itself is refused if it became a link, directory or special file meanwhile. A
    failed write (a full disk) is a :class:`SweepError` naming ``path``.
    """
    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise _cannot_write(path, e) from None
    tmp = Path(name)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        # The open file, not its name: pyarrow would take a name for a URI, and cannot encode
        # one that is not UTF-8.
        with os.fdopen(fd, "wb") as f:
            write(f)
        try:
            _check_kind(path, os.lstat(path).st_mode)
        except FileNotFoundError:
            pass
        os.replace(tmp, path)
    except BaseException as e:
        tmp.unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise _cannot_write(path, e) from None
        raise


# --- the checkpoint --------------------------------------------------------------------------


def read_checkpoint(path: Path) -> Iterator[dict[str, Any]]:
    """Records of a checkpoint file; lines that are not whole JSON objects are skipped.

    A file that is not text (a NUL byte, or bytes that are not UTF-8; a sweep writes ASCII)
    is no sweep's checkpoint: refused in one line rather than appended to. So is a record of
    this version (a whole line with a run id) whose fields no sweep writes (:func:`_damage`).
    """
    f = _open_existing(path)
    if f is None:
        return
    with f:
        # Line by line, so that memory holds the records kept, not the whole file.
        offset = 0
        for number, raw in enumerate(f, 1):
            bad = raw.find(b"\0")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as e:
                bad = e.start if bad < 0 else min(bad, e.start)
            if bad >= 0:
                raise _refuse(path, f"is not a sweep checkpoint (binary data: byte {offset + bad} is 0x{raw[bad]:02x})")
            offset += len(raw)
            for record in _record(line):
                # A record of another version is not reused (the runs are redone): not read further.
                damage = _damage(record) if record.get("numaplace_version") == _VERSION else None
                if damage is not None:
                    raise _refuse(path, f"is not a sweep checkpoint (line {number}: {damage})")
                yield record


def _record(line: str) -> Iterator[dict[str, Any]]:
    """The checkpoint record on one line, if it holds a whole one (else nothing)."""
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, RecursionError):  # e.g. the last line of a killed sweep
        return
    if isinstance(record, dict) and isinstance(record.get("run_id"), str):
        yield record


def _damage(record: Mapping[str, Any]) -> str | None:
    """What in a checkpoint record no sweep writes (None: nothing): the fields the table is made
    of with the wrong type, or a result value no table column holds (an integer past 64 bits)."""
    from numaplace.messages import shown_value

    def kind(v: Any) -> str:
        return {dict: "a table", list: "a list", str: "text", bool: "a boolean", type(None): "null"}.get(type(v), "a number")

    for name, types, expected in (
        ("status", (str,), "text"),
        ("error_type", (str, type(None)), "text or null"),
        ("error", (str, type(None)), "text or null"),
        ("attempts", (int,), "an integer"),
        ("row", (dict, type(None)), "a table or null"),
    ):
        if name not in record:
            return f"the record has no {name}"
        v = record[name]
        if not isinstance(v, types) or (name == "attempts" and isinstance(v, bool)):
            return f"{name} is {kind(v)}, not {expected}"
    for key, v in (record["row"] or {}).items():
        if isinstance(v, int) and not isinstance(v, bool) and not -(2**63) <= v < 2**64:
            return f"row {shown_value(key)} = {shown_value(v)}: an integer past 64 bits"
    return None


class Checkpoint:
    """Appends one JSON line per completed run to ``DIR/checkpoint.jsonl``, written at once
    (no buffer: a failed write, such as a full disk, is a :class:`SweepError` naming the file
    when the run completes, and closing has nothing left to write)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = _open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            size = os.fstat(self._fd).st_size
            if size > 0 and os.pread(self._fd, 1, size - 1) != b"\n":
                self._write(b"\n")  # a killed sweep may have left half a line: start on a fresh one
        except BaseException:
            self.close()
            raise

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self._fd, view):]
        except OSError as e:
            raise _cannot_write(self.path, e) from None

    def append(self, record: Mapping[str, Any]) -> None:
        # ASCII (json.dumps escapes the rest), as read_checkpoint expects.
        self._write((json.dumps(record, separators=(",", ":"), allow_nan=True) + "\n").encode("ascii"))

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


# --- records and rows --------------------------------------------------------------------------


def checkpoint_record(run: str, options: Mapping[str, Any], outcome: Mapping[str, Any], attempts: int) -> dict[str, Any]:
    """The checkpoint record of a completed run: its options, outcome and flattened result."""
    from numaplace.api import Result

    result = outcome.get("result")
    return {
        "run_id": run,
        "numaplace_version": _VERSION,
        "options": dict(options),
        "status": outcome["status"],
        "error_type": outcome["error_type"],
        "error": outcome["error"],
        "attempts": attempts,
        "row": Result(result).to_row() if result is not None else None,
    }


def table_rows(sweep: Sweep, points: Sequence[Mapping[str, Any]], records: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The table's rows (one per configuration, in ``points`` order, from its record) and its
    columns: the lead columns, the keys the sweep sets as it writes them (options, and a
    column per parameter key such as ``workload.pages``), then every result column seen."""
    result_columns: dict[str, None] = {}
    for rec in records:
        for k in rec["row"] or {}:
            result_columns.setdefault(k, None)
    options = sweep.keys
    rows = []
    for i, (config, rec) in enumerate(zip(points, records)):
        row: dict[str, Any] = {
            "run": i,
            "run_id": rec["run_id"],
            "status": rec["status"],
            "error_type": rec["error_type"],
            "error": rec["error"],
            "attempts": rec["attempts"],
        }
        row.update({k: config[k] for k in options})
        row.update(rec["row"] or {})
        rows.append(row)
    return rows, [*_LEAD, *options, *result_columns]
