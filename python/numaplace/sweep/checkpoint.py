"""A sweep's files: the append-only checkpoint and the final table.

* ``DIR/checkpoint.jsonl`` (:class:`Checkpoint`): one JSON record per completed run, appended
  and flushed as the run completes, so that a killed sweep loses at most the runs in flight;
  :func:`read_checkpoint` skips the half-written last line such a sweep may leave.
* ``DIR/results.parquet`` and ``DIR/results.csv``: the table, built as an Arrow table
  (:func:`to_table`; lists, dicts and mixed columns as JSON text, named in the schema metadata)
  and written through a temporary file renamed into place (:func:`write_atomic`), so that a
  reader never sees half a file. :func:`load_results` reads it back as a DataFrame.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from numaplace._native import __version__ as _VERSION
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

_JSON_COLUMNS_KEY = b"numaplace.json_columns"

# --- the table -------------------------------------------------------------------------------

_LEAD = ("run", "run_id", "status", "error_type", "error", "attempts")


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
    return to_frame(pq.read_table(p / RESULTS_FILE if p.is_dir() else p))


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Writes ``path`` through ``write`` on a temporary file renamed into place, so that a
    reader (or a resumed sweep) never sees half a file; the temporary file is removed on error."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


# --- the checkpoint --------------------------------------------------------------------------


def read_checkpoint(path: Path) -> Iterator[dict[str, Any]]:
    """Records of a checkpoint file; lines that are not whole JSON objects are skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return
    for line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:  # e.g. the last line of a killed sweep
            continue
        if isinstance(record, dict) and isinstance(record.get("run_id"), str):
            yield record


class Checkpoint:
    """Appends one JSON line per completed run to ``DIR/checkpoint.jsonl``, flushed at once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        partial = False
        try:
            with path.open("rb") as f:
                if f.seek(0, os.SEEK_END) > 0:
                    f.seek(-1, os.SEEK_END)
                    partial = f.read(1) != b"\n"
        except FileNotFoundError:
            pass
        self._file = path.open("a", encoding="utf-8")
        if partial:  # a killed sweep may have left half a line: start on a fresh one
            self._file.write("\n")
            self._file.flush()

    def append(self, record: Mapping[str, Any]) -> None:
        self._file.write(json.dumps(record, separators=(",", ":"), allow_nan=True) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


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


def table_rows(sweep: Sweep, configs: Sequence[Mapping[str, Any]], records: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The table's rows (one per configuration, in ``configs`` order, from its record) and its
    columns: the lead columns, the options the sweep sets, then every result column seen."""
    result_columns: dict[str, None] = {}
    for rec in records:
        for k in rec["row"] or {}:
            result_columns.setdefault(k, None)
    options = sweep.options
    rows = []
    for i, (config, rec) in enumerate(zip(configs, records)):
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
