"""Sweeps: many simulations from one TOML spec, on local cores or a Dask cluster.

A *sweep spec* names the options that vary (``[axes]``, each a list of values), the options
held constant (``[fixed]``) and, optionally, combinations to leave out (``[[exclude]]``). The
sweep is the cartesian product of the axes in the order the spec lists them (the last axis
varies fastest), minus the excluded combinations. ``docs/sweeps.md`` is the user's guide; in
short::

    [axes]
    workload  = ["stream:pages=32,iterations=1", "random:accesses=200,pages=256"]
    placement = ["first-touch", "round-robin"]
    threads   = [1, 2]

    [fixed]
    machine = "origin2000"

    [[exclude]]                  # drop every run that matches all keys of one table
    placement = "round-robin"
    threads = 1

Every configuration is run by one function, :func:`run_one` (options dict → outcome dict),
whichever *backend* executes it: in this process (``jobs=0``), on a local process pool
(``jobs=N``), or as one task per run on a Dask distributed cluster (``scheduler=ADDR`` or
``"local"``). The driver that submits runs, retries transient failures and records outcomes is
the same for every backend; so is the table it produces. :mod:`numaplace.report` runs its
experiments through the same driver.

Robustness
----------
* A run whose configuration is bad (an unknown workload, a parameter out of range, an option
  this version's ``simulate()`` does not take) is recorded with ``status == "failed"``, its exception
  class in ``error_type`` and its one-line message in ``error``; it is not retried.
* A run whose worker is lost (a pool worker that crashed or was killed, a Dask worker lost or
  the connection to it closed) is retried once; if it is lost again it is recorded as failed
  with ``error_type == "WorkerLost"``. No configuration ever disappears from the table.
* With an output directory, each completed run is appended (and flushed) to
  ``DIR/checkpoint.jsonl`` as it completes, and the final ``DIR/results.parquet`` (and
  ``results.csv``) is written through a temporary file renamed into place. Re-running the same
  spec with the same directory skips every run already recorded there (a run is identified
  by a hash of its option dict) and gives the same table as an uninterrupted run: rows are in
  the spec's cartesian order, whatever order runs complete in.

Nothing here imports pandas, pyarrow, tqdm or dask at module level, so that pool workers,
which import this module to find :func:`run_one`, start quickly.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import hashlib
import inspect
import itertools
import json
import math
import os
import pickle
import struct
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from numaplace._native import NumaplaceError
from numaplace._native import __version__ as _VERSION

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "CHECKPOINT_FILE",
    "OPTIONS",
    "RESULTS_CSV",
    "RESULTS_FILE",
    "Option",
    "Sweep",
    "SweepError",
    "UnsupportedOptionError",
    "WorkerLostError",
    "add_execution_args",
    "add_parser",
    "cmd_sweep",
    "execute",
    "load_results",
    "load_spec",
    "main",
    "make_backend",
    "run_id",
    "run_one",
    "run_sweep",
    "sweep",
]

CHECKPOINT_FILE = "checkpoint.jsonl"
"""Completed runs, one JSON object per line, appended as runs complete."""
RESULTS_FILE = "results.parquet"
"""The final table, one row per configuration in the spec's cartesian order."""
RESULTS_CSV = "results.csv"
"""The same table as CSV (written with ``--csv`` / ``csv=True``)."""

MAX_ATTEMPTS = 2
"""A run whose worker is lost is submitted at most this many times (one retry)."""

WORKER_LOST = "WorkerLost"
"""``error_type`` of a run whose worker was lost on every attempt."""

_JSON_COLUMNS_KEY = b"numaplace.json_columns"


class SweepError(NumaplaceError):
    """A sweep spec is invalid, or a sweep cannot be run as asked. The message is one line."""


class UnsupportedOptionError(SweepError):
    """A run uses an option (e.g. ``class``) that this version's ``simulate()`` does not take."""


# --- options ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Option:
    """One option a sweep can set: its name, value type and meaning."""

    name: str
    kind: str  # "string", "integer", "number" or "boolean"
    doc: str
    lo: int | None = None
    hi: int | None = None


OPTIONS: dict[str, Option] = {
    o.name: o
    for o in (
        Option("machine", "string", "preset name or machine TOML file"),
        Option("workload", "string", "NAME[:key=value,...]"),
        Option("class", "string", "problem class of a kernel workload (simulate's problem_class)"),
        Option("threads", "integer", "simulated threads", 1, 65535),
        Option("placement", "string", "placement policy, NAME[:key=value,...]"),
        Option("init", "string", "initialisation: parallel, sequential or none"),
        Option("dynamic", "string", "dynamic (migration/replication) policy, NAME[:key=value,...]"),
        Option("binding", "string", "thread binding: spread or compact"),
        Option("seed", "integer", "run seed", 0, 2**64 - 1),
        Option("quantum_ns", "number", "simulated time between timing-model solves, ns"),
        Option("oversubscribe", "boolean", "allow more threads than CPUs"),
        Option("trace", "string", "a trace file to replay instead of generating the workload"),
    )
}
"""Every option a sweep spec may name, in the order of the table's input columns."""

# simulate() keyword names an option may be passed as, first match wins ("class" is a Python
# keyword: simulate() spells it problem_class).
_KEYWORD_ALIASES: dict[str, tuple[str, ...]] = {"class": ("problem_class", "class_", "class")}

_KIND_TEXT = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false"}


def _type_ok(opt: Option, value: Any) -> bool:
    if opt.kind == "string":
        return isinstance(value, str)
    if opt.kind == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False
    if opt.kind == "integer":
        return isinstance(value, int)
    return isinstance(value, (int, float)) and math.isfinite(value)


def _normalise(opt: Option, value: Any) -> Any:
    return float(value) if opt.kind == "number" else value


# --- the spec --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Sweep:
    """A parsed, validated sweep spec.

    Attributes:
        source: How the spec is named in messages (its path, ``<string>`` or ``<dict>``).
        axes: Varied options, in spec order, each with its values in spec order.
        fixed: Options held constant.
        exclude: Each entry a mapping option → allowed values; a configuration matching every
            key of one entry is left out.
    """

    source: str
    axes: dict[str, list[Any]]
    fixed: dict[str, Any]
    exclude: list[dict[str, list[Any]]]

    @property
    def options(self) -> list[str]:
        """The options this sweep sets, in :data:`OPTIONS` (column) order."""
        return [name for name in OPTIONS if name in self.axes or name in self.fixed]

    def configurations(self) -> list[dict[str, Any]]:
        """Every configuration (option → value, in column order), in cartesian order."""
        order = self.options
        out = []
        for values in itertools.product(*self.axes.values()):
            config = dict(self.fixed)
            config.update(zip(self.axes, values))
            if any(all(config[k] in allowed for k, allowed in ex.items()) for ex in self.exclude):
                continue
            out.append({k: config[k] for k in order})
        return out


def _err(source: str, message: str) -> SweepError:
    return SweepError(f"{source}: {message}")


def _check_option_name(source: str, where: str, name: str) -> Option:
    if name in OPTIONS:
        return OPTIONS[name]
    import difflib

    close = difflib.get_close_matches(name, OPTIONS, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise _err(source, f"{where}: unknown option {name!r} ({hint}valid: {', '.join(OPTIONS)})")


def _check_value(source: str, where: str, opt: Option, value: Any) -> Any:
    if not _type_ok(opt, value):
        raise _err(source, f"{where} {opt.name} = {value!r}: expected {_KIND_TEXT[opt.kind]}")
    if opt.lo is not None and not opt.lo <= value <= (opt.hi if opt.hi is not None else value):
        raise _err(source, f"{where} {opt.name} = {value}: expected an integer in [{opt.lo}, {opt.hi}]")
    return _normalise(opt, value)


def _parse(data: Mapping[str, Any], source: str) -> Sweep:
    if not isinstance(data, Mapping):
        raise _err(source, "a sweep spec must be a table")
    unknown = [k for k in data if k not in ("axes", "fixed", "exclude")]
    if unknown:
        raise _err(source, f"unknown top-level key {unknown[0]!r} (valid: [axes], [fixed], [[exclude]])")
    axes_in = data.get("axes", {})
    fixed_in = data.get("fixed", {})
    exclude_in = data.get("exclude", [])
    if not isinstance(axes_in, Mapping):
        raise _err(source, "[axes] must be a table of option = [values]")
    if not isinstance(fixed_in, Mapping):
        raise _err(source, "[fixed] must be a table of option = value")
    if not isinstance(exclude_in, list) or not all(isinstance(e, Mapping) for e in exclude_in):
        raise _err(source, "exclude must be an array of tables ([[exclude]])")

    axes: dict[str, list[Any]] = {}
    for name, values in axes_in.items():
        opt = _check_option_name(source, "[axes]", name)
        if not isinstance(values, list):
            raise _err(source, f"[axes] {name} = {values!r}: expected a list of values (or move it to [fixed])")
        if not values:
            raise _err(source, f"[axes] {name}: empty list (a sweep needs at least one value per axis)")
        checked = [_check_value(source, "[axes]", opt, v) for v in values]
        seen: list[Any] = []
        for v in checked:
            if v in seen:
                raise _err(source, f"[axes] {name}: value {v!r} is listed twice")
            seen.append(v)
        axes[name] = checked

    fixed: dict[str, Any] = {}
    for name, value in fixed_in.items():
        opt = _check_option_name(source, "[fixed]", name)
        if name in axes:
            raise _err(source, f"option {name!r} is both in [axes] and in [fixed]")
        if isinstance(value, list):
            raise _err(source, f"[fixed] {name} = {value!r}: expected one value (lists belong in [axes])")
        fixed[name] = _check_value(source, "[fixed]", opt, value)

    exclude: list[dict[str, list[Any]]] = []
    for i, table in enumerate(exclude_in, 1):
        where = f"[[exclude]] #{i}"
        if not table:
            raise _err(source, f"{where} is empty (it would exclude every run)")
        entry: dict[str, list[Any]] = {}
        for name, value in table.items():
            opt = _check_option_name(source, where, name)
            if name not in axes and name not in fixed:
                raise _err(source, f"{where}: option {name!r} is set by neither [axes] nor [fixed]")
            values = value if isinstance(value, list) else [value]
            entry[name] = [_check_value(source, where, opt, v) for v in values]
        exclude.append(entry)

    sweep = Sweep(source=source, axes=axes, fixed=fixed, exclude=exclude)
    if not sweep.configurations():
        raise _err(source, "[[exclude]] leaves no configuration to run")
    return sweep


def _toml_loads(text: str, source: str) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _err(source, f"not valid TOML: {' '.join(str(e).split())}") from None


def load_spec(spec: str | os.PathLike[str] | Mapping[str, Any] | Sweep) -> Sweep:
    """Parses and validates a sweep spec: a path to a TOML file, TOML text, or a dict.

    A ``str`` naming an existing file (or ending in ``.toml``) is read as a path; any other
    ``str`` is TOML text.

    Raises:
        SweepError: the spec cannot be read, is not valid TOML, names an unknown option (the
            message lists the valid ones), or has a value of the wrong type. The message is
            one line and starts with the spec's file name.
    """
    if isinstance(spec, Sweep):
        return spec
    if isinstance(spec, Mapping):
        return _parse(spec, "<dict>")
    if isinstance(spec, os.PathLike) or (
        isinstance(spec, str) and "\n" not in spec and (spec.endswith(".toml") or Path(spec).is_file())
    ):
        path = Path(spec)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise _err(str(path), f"cannot read the sweep spec: {e.strerror or e}") from None
        return _parse(_toml_loads(text, str(path)), str(path))
    if isinstance(spec, str):
        return _parse(_toml_loads(spec, "<string>"), "<string>")
    raise SweepError(f"a sweep spec is a path, TOML text or a dict, not {type(spec).__name__}")


def run_id(options: Mapping[str, Any]) -> str:
    """A stable identifier of a run: a hash of its option dict (independent of key order)."""
    text = json.dumps(dict(options), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# --- the executor: one configuration → one outcome --------------------------------------------


def _signature(fn: Callable[..., Any]) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):
        return None


def _keywords(fn: Callable[..., Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """``options`` as keyword arguments of ``fn``; an option it cannot take is an error."""
    sig = _signature(fn)
    if sig is None:
        return dict(options)
    params = sig.parameters
    var_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    named = {
        n for n, p in params.items() if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    }
    kwargs: dict[str, Any] = {}
    for name, value in options.items():
        keyword = next((k for k in _KEYWORD_ALIASES.get(name, (name,)) if k in named), None)
        if keyword is None and var_keyword:
            keyword = name
        if keyword is None:
            raise UnsupportedOptionError(
                f"option {name!r} is not supported by this version of numaplace (simulate() has no such argument)"
            )
        kwargs[keyword] = value
    return kwargs


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def run_one(options: Mapping[str, Any], simulate: Callable[..., Any] | None = None) -> dict[str, Any]:
    """Runs one configuration and returns its outcome; never raises for the run's own failure.

    ``options`` are passed to ``simulate`` (default :func:`numaplace.simulate`) as keyword
    arguments, each only when present. The outcome is a dict: ``status`` (``"ok"`` or
    ``"failed"``), ``error_type`` and ``error`` (the exception's class name and one-line
    message, or None), and ``result`` (the result's ``to_dict()``, or None). This is the
    function every backend runs: in this process, in a pool worker, or as a Dask task.
    """
    try:
        if simulate is None:
            from numaplace.api import simulate
        result = simulate(**_keywords(simulate, options)).to_dict()
        return {"status": "ok", "error_type": None, "error": None, "result": result}
    except Exception as e:  # noqa: BLE001 - a run's failure is data, not a crash
        return {"status": "failed", "error_type": type(e).__name__, "error": _one_line(e), "result": None}


def _lost(error: BaseException, attempts: int) -> dict[str, Any]:
    text = _one_line(f"{type(error).__name__}: {error}") if str(error) else type(error).__name__
    return {
        "status": "failed",
        "error_type": WORKER_LOST,
        "error": f"worker lost on all {attempts} attempts (last: {text})",
        "result": None,
    }


# --- backends: where run_one runs --------------------------------------------------------------


class _InlineBackend:
    """Runs each configuration in this process, one at a time (``jobs=0``, or a custom simulate)."""

    capacity = 1
    generation = 0

    def __init__(self, simulate: Callable[..., Any] | None = None) -> None:
        self._simulate = simulate

    def submit(self, options: Mapping[str, Any], run: str) -> Any:
        from concurrent.futures import Future

        fut: Future[dict[str, Any]] = Future()
        fut.set_result(run_one(options, self._simulate))
        return fut

    def wait(self, futures: Sequence[Any]) -> Iterable[Any]:
        return futures

    def recover(self) -> None:
        pass

    def pids(self) -> list[int]:
        return []

    def close(self, cancel: bool = False) -> None:
        pass


class WorkerLostError(RuntimeError):
    """The local worker process running a configuration exited before answering."""


_FRAME = struct.Struct(">I")

# A worker runs many simulations, each allocating and freeing megabytes of per-epoch buffers;
# by default glibc returns those to the kernel every time, and the page faults that follow cost
# about a quarter of a small run and contend between workers. Keep the memory (the caller's
# environment takes precedence; other C libraries ignore these variables).
_WORKER_MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": str(256 << 20), "MALLOC_TRIM_THRESHOLD_": str(256 << 20)}

_WORKER_BOOTSTRAP = (
    "import json, os, sys; "
    "sys.path[:0] = json.loads(os.environ.pop('NUMAPLACE_WORKER_SYS_PATH', '[]')); "
    "from numaplace.sweep import _worker_main; _worker_main()"
)


def _read_frame(stream: Any) -> Any:
    """One length-prefixed pickle from a binary stream; None at end of file."""
    header = stream.read(_FRAME.size)
    if len(header) < _FRAME.size:
        return None
    body = stream.read(_FRAME.unpack(header)[0])
    if len(body) < _FRAME.unpack(header)[0]:
        return None
    return pickle.loads(body)


def _write_frame(stream: Any, obj: Any) -> None:
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_FRAME.pack(len(body)) + body)
    stream.flush()


def _worker_main() -> None:
    """A local worker process: reads ``(seq, options)`` frames on stdin, answers ``(seq, outcome)``.

    Started by :class:`_PoolBackend` as ``python -c`` (never by re-running the caller's
    ``__main__``), in its own session so that Ctrl-C reaches only the driver. Anything the run
    prints goes to standard error; standard output carries only the answers.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    requests = sys.stdin.buffer
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    while (request := _read_frame(requests)) is not None:
        seq, options = request
        _write_frame(answers, (seq, run_one(options)))


def _exit_text(pid: int, returncode: int) -> str:
    import signal

    if returncode < 0:
        try:
            return f"worker process {pid} was killed by {signal.Signals(-returncode).name}"
        except ValueError:
            pass
    return f"worker process {pid} exited with status {returncode}"


class _Worker:
    """One worker process, its pending futures and the thread that reads its answers."""

    def __init__(self) -> None:
        import subprocess
        import threading

        env = {**_WORKER_MALLOC_ENV, **os.environ, "NUMAPLACE_WORKER_SYS_PATH": json.dumps([p for p in sys.path if p])}
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER_BOOTSTRAP],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=os.name == "posix",
        )
        self.pending: dict[int, Any] = {}
        self.lock = threading.Lock()
        self.alive = True
        self.answered = 0
        self.exit_text = ""
        self.reader = threading.Thread(target=self._read, name=f"numaplace-worker-{self.proc.pid}", daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        try:
            while (answer := _read_frame(self.proc.stdout)) is not None:
                seq, outcome = answer
                with self.lock:
                    fut = self.pending.pop(seq, None)
                    self.answered += 1
                if fut is not None and not fut.done():
                    fut.set_result(outcome)
        except (OSError, EOFError, pickle.UnpicklingError):
            pass
        self.fail(None)

    def fail(self, reason: str | None) -> None:
        """Marks the worker dead and fails its pending futures (as lost, hence retried)."""
        with self.lock:
            self.alive = False
            pending, self.pending = self.pending, {}
        if reason is None:
            reason = _exit_text(self.proc.pid, self.proc.wait())
        self.exit_text = reason
        if pending:
            for fut in pending.values():
                if not fut.done():
                    fut.set_exception(WorkerLostError(reason))

    def submit(self, seq: int, options: Mapping[str, Any], fut: Any) -> None:
        assert self.proc.stdin is not None
        with self.lock:
            if not self.alive:
                fut.set_exception(WorkerLostError(f"worker process {self.proc.pid} had exited"))
                return
            self.pending[seq] = fut
        try:
            _write_frame(self.proc.stdin, (seq, dict(options)))
        except OSError as e:  # it died: the reader fails every pending future, this one included
            # Mark it dead now, not when its reader thread gets to run: until then it has no
            # pending run, so every later submission would pick it, fail at once the same way,
            # and use up the retries of the whole queue without a death being counted.
            with self.lock:
                self.alive = False
                self.pending.pop(seq, None)
            if not fut.done():
                fut.set_exception(WorkerLostError(f"worker process {self.proc.pid}: {e}"))

    def stop(self, kill: bool, wait: bool = True) -> None:
        """Ends the worker: closes its requests (an idle worker then exits), or kills it."""
        assert self.proc.stdin is not None
        if kill:
            self.proc.kill()
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        if wait:
            self.join()

    def join(self) -> None:
        self.proc.wait()
        self.reader.join()
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class _PoolBackend:
    """``jobs`` local worker processes, each fed up to two configurations at a time.

    A worker that dies fails only the runs it held (so only those are retried) and is
    replaced at the next submission.
    """

    DEPTH = 2  # runs queued per worker: the next one waits in its pipe while one runs
    generation = 0

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.capacity = self.DEPTH * jobs
        self._workers = [_Worker() for _ in range(jobs)]
        self._seq = itertools.count()
        self._answered = 0  # by workers replaced so far
        self._deaths = 0

    def submit(self, options: Mapping[str, Any], run: str) -> Any:
        from concurrent.futures import Future

        for i, w in enumerate(self._workers):
            if not w.alive:
                w.stop(kill=True)
                self._deaths += 1
                self._answered += w.answered
                self._check_startable(w, self._deaths + sum(not x.alive for x in self._workers if x is not w))
                self._workers[i] = _Worker()
        worker = min(self._workers, key=lambda w: len(w.pending))
        fut: Future[dict[str, Any]] = Future()
        worker.submit(next(self._seq), options, fut)
        return fut

    def wait(self, futures: Sequence[Any]) -> Iterable[Any]:
        from concurrent.futures import FIRST_COMPLETED, wait

        return wait(futures, return_when=FIRST_COMPLETED).done

    def _check_startable(self, dead: _Worker, lost: int) -> None:
        """Stops the sweep when `lost` workers died before any of them ran anything."""
        if not self._answered and not any(x.answered for x in self._workers) and lost >= max(3, self.jobs + 1):
            # A worker marked dead by a broken pipe may not have been reaped by its reader yet.
            reason = dead.exit_text or _exit_text(dead.proc.pid, dead.proc.wait())
            raise SweepError(
                f"local worker processes exit before running anything ({reason}); "
                "see the messages above, or run with jobs=0 (--jobs 0)"
            )

    def recover(self) -> None:
        # Dead workers are replaced at the next submission; but when runs are lost and no
        # worker has ever answered, check now: the retries may otherwise all be used up on
        # workers not yet seen dead at submission, and the sweep would end as failed rows.
        for w in self._workers:
            if not w.alive:
                self._check_startable(w, self._deaths + sum(not x.alive for x in self._workers))

    def pids(self) -> list[int]:
        """The process ids of the live workers (for tests)."""
        return [w.proc.pid for w in self._workers if w.alive]

    def close(self, cancel: bool = False) -> None:
        for w in self._workers:  # all at once: they exit in parallel
            w.stop(kill=cancel, wait=False)
        for w in self._workers:
            w.join()


class _DaskBackend:
    """One Dask task per configuration, on a running scheduler or a LocalCluster it starts."""

    generation = 0

    def __init__(self, scheduler: str, jobs: int) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise SweepError("a Dask scheduler needs dask.distributed: pip install 'dask[distributed]'") from None
        self._cluster = None
        try:
            if scheduler == "local":
                import logging

                self._cluster = LocalCluster(
                    n_workers=jobs,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    # no dashboard, but the scheduler still serves /health: on any free port
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.ERROR,
                )
                self._client = Client(self._cluster)
            else:
                self._client = Client(scheduler, timeout="10s")
        except OSError as e:
            if self._cluster is not None:
                self._cluster.close()
            raise SweepError(f"cannot connect to the Dask scheduler at {scheduler}: {_one_line(e)}") from None
        import uuid

        self.capacity = 1 << 62  # submit everything; the scheduler balances the workers
        self._token = uuid.uuid4().hex[:8]
        self._serial = itertools.count()

    def submit(self, options: Mapping[str, Any], run: str) -> Any:
        key = f"numaplace-run-{run}-{self._token}-{next(self._serial)}"
        return self._client.submit(run_one, dict(options), key=key, pure=False, retries=0)

    def wait(self, futures: Sequence[Any]) -> Iterable[Any]:
        from distributed import wait

        return wait(list(futures), return_when="FIRST_COMPLETED").done

    def recover(self) -> None:
        pass  # the scheduler replaces lost workers itself

    def pids(self) -> list[int]:
        return []

    def close(self, cancel: bool = False) -> None:
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()


def _check_jobs(jobs: int | None) -> int:
    if jobs is None:
        return os.cpu_count() or 1
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise SweepError(f"jobs = {jobs!r}: expected an integer ≥ 0 (0: run in this process)")
    return jobs


def _check_scheduler(scheduler: str | None) -> str | None:
    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise SweepError(f"scheduler = {scheduler!r}: expected an address such as tcp://HOST:PORT, or 'local'")
    return scheduler


def make_backend(scheduler: str | None = None, jobs: int | None = None, simulate: Callable[..., Any] | None = None) -> Any:
    """The backend for a scheduler address (``"local"``: a LocalCluster), else ``jobs`` workers.

    ``jobs`` defaults to ``os.cpu_count()``; ``jobs=0``, or a custom ``simulate`` (which
    cannot be sent to other processes), runs in this process.
    """
    n = _check_jobs(jobs)
    if simulate is not None:
        if scheduler is not None:
            raise SweepError("a custom simulate function runs in this process only: pass no scheduler")
        return _InlineBackend(simulate)
    if _check_scheduler(scheduler) is not None:
        return _DaskBackend(scheduler, max(n, 1))
    return _InlineBackend() if n == 0 else _PoolBackend(n)


# --- the driver ------------------------------------------------------------------------------


@dataclasses.dataclass
class _Task:
    index: int
    run: str
    options: dict[str, Any]
    attempts: int = 0


def execute(
    planned: Sequence[tuple[str, Mapping[str, Any]]],
    backend: Any,
    on_outcome: Callable[[int, dict[str, Any], int], None],
    *,
    progress: bool = False,
    desc: str = "sweep",
    done_before: int = 0,
    failed_before: int = 0,
    close: bool = True,
) -> None:
    """Runs every ``(run id, options)`` of ``planned`` on ``backend``, retrying lost workers once.

    ``on_outcome(index, outcome, attempts)`` is called in this process as each run completes
    (in completion order), with the index into ``planned`` and the :func:`run_one` outcome.
    A progress bar (runs done, failed, left, ETA) is drawn on standard error when ``progress``
    is true and standard error is a terminal; ``done_before``/``failed_before`` count runs
    already recorded. On an exception (e.g. KeyboardInterrupt) runs in flight are cancelled and
    the backend is closed; on success the backend is closed too. With ``close`` false the caller
    closes it, in both cases (it has more runs for it).
    """
    from tqdm import tqdm

    queue = collections.deque(_Task(i, r, dict(o)) for i, (r, o) in enumerate(planned))
    inflight: dict[Any, tuple[_Task, int]] = {}
    failed = failed_before
    total = done_before + len(queue)
    ok = False
    with tqdm(
        total=total,
        initial=done_before,
        desc=desc,
        unit="run",
        file=sys.stderr,
        disable=not (progress and sys.stderr.isatty()),
        dynamic_ncols=True,
    ) as bar:

        def postfix(done: int) -> None:
            bar.set_postfix_str(f"failed={failed}, left={total - done}", refresh=False)

        postfix(done_before)
        try:
            while queue or inflight:
                while queue and len(inflight) < backend.capacity:
                    task = queue.popleft()
                    task.attempts += 1
                    inflight[backend.submit(task.options, task.run)] = (task, backend.generation)
                for fut in sorted(backend.wait(list(inflight)), key=lambda f: inflight[f][0].index):
                    task, generation = inflight.pop(fut)
                    try:
                        outcome = fut.result()
                    except BaseException as e:  # run_one never raises: the worker or its link was lost
                        if isinstance(e, (KeyboardInterrupt, SystemExit)):
                            raise
                        if generation == backend.generation:
                            backend.recover()
                        if task.attempts < MAX_ATTEMPTS:
                            queue.appendleft(task)
                            continue
                        outcome = _lost(e, task.attempts)
                    on_outcome(task.index, outcome, task.attempts)
                    failed += outcome["status"] != "ok"
                    postfix(bar.n + 1)
                    bar.update()
            ok = True
        finally:
            if not ok:
                for fut in inflight:
                    fut.cancel()
            if close:
                backend.close(cancel=not ok)


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


def _table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> pa.Table:
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


def _frame(table: pa.Table, decode: bool = True) -> pd.DataFrame:
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
    return _frame(pq.read_table(p / RESULTS_FILE if p.is_dir() else p))


def _write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


# --- the checkpoint --------------------------------------------------------------------------


def _read_checkpoint(path: Path) -> Iterator[dict[str, Any]]:
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


def _reusable(record: Mapping[str, Any]) -> bool:
    """Whether a checkpointed run counts as done: same simulator version, and not a lost worker."""
    return record.get("numaplace_version") == _VERSION and record.get("error_type") != WORKER_LOST


class _Checkpoint:
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


# --- running a sweep -------------------------------------------------------------------------


def _record(run: str, options: Mapping[str, Any], outcome: Mapping[str, Any], attempts: int) -> dict[str, Any]:
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


def _rows(sweep: Sweep, configs: Sequence[Mapping[str, Any]], records: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
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


def run_sweep(
    spec: str | os.PathLike[str] | Mapping[str, Any] | Sweep,
    scheduler: str | None = None,
    jobs: int | None = None,
    out: str | os.PathLike[str] | None = None,
    progress: bool = False,
    *,
    csv: bool = False,
    _on_result: Callable[[int, Any], None] | None = None,
) -> pd.DataFrame:
    """Runs every configuration of a sweep spec and returns the table, one row per configuration.

    ``spec`` is a path to a TOML file, TOML text, or a dict of the same shape. Runs execute on
    ``jobs`` local worker processes (default ``os.cpu_count()``; 0 runs them in this process),
    or, with ``scheduler``, as Dask tasks on the cluster at that address (``"local"`` starts a
    LocalCluster of ``jobs`` single-threaded worker processes). With ``out``, each completed
    run is checkpointed in ``out/checkpoint.jsonl``, runs already recorded there are skipped,
    and the table is written to ``out/results.parquet`` (and ``out/results.csv`` if ``csv``).

    Rows are in the spec's cartesian order. Columns: ``run``, ``run_id``, ``status``
    (``"ok"``/``"failed"``), ``error_type``, ``error``, ``attempts``; one column per option the
    spec sets; then every column of ``Result.to_row()`` (``config.*`` and the result fields),
    null for failed runs. List values are Python lists here and JSON text in the files.

    Raises:
        SweepError: the spec is invalid, or ``jobs``/``scheduler`` are unusable (one line).
    """
    sweep = load_spec(spec)
    _check_jobs(jobs)
    _check_scheduler(scheduler)
    configs = sweep.configurations()
    ids = [run_id(c) for c in configs]
    out_dir = Path(out) if out is not None else None
    done: dict[str, dict[str, Any]] = {}
    checkpoint = None
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise SweepError(f"cannot create {out_dir}: {e.strerror or e}") from None
        wanted = set(ids)
        for record in _read_checkpoint(out_dir / CHECKPOINT_FILE):
            if record["run_id"] in wanted:
                if _reusable(record):
                    done[record["run_id"]] = record
                else:
                    done.pop(record["run_id"], None)

    todo = [i for i, r in enumerate(ids) if r not in done]
    backend = make_backend(scheduler, jobs) if todo else None
    records: dict[str, dict[str, Any]] = dict(done)
    count = 0

    def on_outcome(k: int, outcome: dict[str, Any], attempts: int) -> None:
        nonlocal count
        i = todo[k]
        rec = _record(ids[i], configs[i], outcome, attempts)
        records[ids[i]] = rec
        if checkpoint is not None:
            checkpoint.append(rec)
        count += 1
        if _on_result is not None:
            _on_result(count, backend)

    if todo:
        if out_dir is not None:
            checkpoint = _Checkpoint(out_dir / CHECKPOINT_FILE)
        try:
            execute(
                [(ids[i], configs[i]) for i in todo],
                backend,
                on_outcome,
                progress=progress,
                desc="sweep",
                done_before=len(ids) - len(todo),
                failed_before=sum(r["status"] != "ok" for r in done.values()),
            )
        finally:
            if checkpoint is not None:
                checkpoint.close()

    rows, columns = _rows(sweep, configs, [records[r] for r in ids])
    table = _table(rows, columns)
    if out_dir is not None:
        import pyarrow.parquet as pq

        _write_atomic(out_dir / RESULTS_FILE, lambda p: pq.write_table(table, p))
        if csv:
            text = _frame(table, decode=False).to_csv(index=False, lineterminator="\n")
            _write_atomic(out_dir / RESULTS_CSV, lambda p: p.write_text(text, encoding="utf-8"))
    return _frame(table)


sweep = run_sweep
"""``numaplace.sweep(spec, scheduler=None, jobs=None, out=None, progress=False)``: see :func:`run_sweep`."""


# --- the command line ------------------------------------------------------------------------


def add_execution_args(parser: argparse.ArgumentParser) -> None:
    """Adds ``--jobs`` and ``--scheduler`` (shared by ``numaplace sweep`` and ``reproduce``)."""
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="local worker processes (default: the number of CPUs; 0: run in this process)",
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDR",
        help="run each simulation as a task on the Dask scheduler at ADDR (tcp://HOST:PORT), "
        "or 'local' for a LocalCluster of --jobs worker processes",
    )


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Registers the ``sweep`` subcommand on an argparse subparsers object; returns its parser."""
    s = subparsers.add_parser(
        "sweep",
        help="run every configuration of a sweep spec (TOML) into DIR/results.parquet",
        description="Runs the cartesian product of a sweep spec's [axes] (see docs/sweeps.md) and "
        "writes one row per configuration to DIR/results.parquet. Re-running with the same --out "
        "skips the runs already done.",
    )
    s.add_argument("spec", metavar="SPEC", help="the sweep spec, a TOML file")
    s.add_argument("--out", required=True, metavar="DIR", help="output directory (results.parquet, checkpoint.jsonl)")
    s.add_argument("--csv", action="store_true", help="also write DIR/results.csv")
    add_execution_args(s)
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_sweep)
    return s


def cmd_sweep(args: argparse.Namespace) -> None:
    """``numaplace sweep``: runs the spec, writes the table, prints where and how many failed."""
    df = run_sweep(
        args.spec,
        scheduler=args.scheduler,
        jobs=args.jobs,
        out=args.out,
        progress=not args.no_progress,
        csv=args.csv,
    )
    failed = int((df["status"] != "ok").sum())
    out = Path(args.out)
    files = [out / RESULTS_FILE, *([out / RESULTS_CSV] if args.csv else [])]
    print(f"wrote {' and '.join(map(str, files))}: {len(df)} runs, {len(df) - failed} ok, {failed} failed")
    if failed:
        first = df.loc[df["status"] != "ok"].iloc[0]
        print(
            f"numaplace: warning: {failed} of {len(df)} runs failed (first: run {first['run']}: "
            f"{first['error_type']}: {first['error']}); see the error column",
            file=sys.stderr,
        )


def main(argv: Sequence[str] | None = None) -> int:
    """``numaplace sweep ARGS`` without the rest of the CLI; returns the exit status."""
    parser = argparse.ArgumentParser(prog="numaplace")
    add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["sweep", *(sys.argv[1:] if argv is None else argv)])
    try:
        args.func(args)
        return 0
    except NumaplaceError as e:
        print(f"numaplace: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("numaplace: interrupted", file=sys.stderr)
        return 130
