"""Where :func:`~numaplace.sweep.executor.run_one` runs: the backends.

* :class:`_InlineBackend` — in this process, one run at a time (``jobs=0``, or a custom
  ``simulate``, which cannot be sent to another process);
* :class:`_PoolBackend` — ``jobs`` local worker processes speaking length-prefixed pickles
  over pipes (a worker that dies fails only the runs it held);
* :class:`_DaskBackend` — one task per run on a Dask distributed cluster.

:func:`make_backend` picks one; every backend has the shape of :class:`Backend`, which is all
:func:`~numaplace.sweep.executor.execute` relies on. Nothing here imports dask at module level,
so that pool workers, which import this module to find :func:`_worker_main`, start quickly.
"""

from __future__ import annotations

import itertools
import json
import os
import pickle
import re
import struct
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from numaplace.sweep.errors import SweepError, WorkerLostError, one_line
from numaplace.sweep.executor import Backend, run_one

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



_FRAME = struct.Struct(">I")

# A worker runs many simulations, each allocating and freeing megabytes of per-epoch buffers;
# by default glibc returns those to the kernel every time, and the page faults that follow cost
# about a quarter of a small run and contend between workers. Keep the memory (the caller's
# environment takes precedence; other C libraries ignore these variables).
_WORKER_MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": str(256 << 20), "MALLOC_TRIM_THRESHOLD_": str(256 << 20)}

# SIGINT first: the worker starts with it blocked (see _Worker), is in its sweep's process
# group, and must leave Ctrl-C to the sweep, which stops its workers itself.
_WORKER_BOOTSTRAP = (
    "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); "
    "import json, os, sys; "
    "sys.path[:0] = json.loads(os.environ.pop('NUMAPLACE_WORKER_SYS_PATH', '[]')); "
    "from numaplace.sweep.backends import _worker_main; _worker_main()"
)

_PARENT_ENV = "NUMAPLACE_WORKER_PARENT"
"""The worker's environment variable holding its sweep's process id."""

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _die_with_parent(parent: int) -> None:
    """Makes this worker end when its sweep's process does, however that ends (kill -9, a
    crash, ``timeout``): on Linux the kernel sends it SIGKILL (``prctl(PR_SET_PDEATHSIG)``:
    when the thread that started it ends, which is the one that runs the sweep); elsewhere,
    or if that fails, a thread checks every second whether its parent changed. A worker
    whose parent is already gone exits at once."""
    import signal

    armed = False
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            armed = ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:  # it died before the kernel was told to tell us
        os._exit(0)
    if not armed:
        import threading
        import time

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(0)

        threading.Thread(target=watch, name="numaplace-worker-watchdog", daemon=True).start()


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
    ``__main__``), in the sweep's process group, so that a signal to the group (``timeout``,
    a closed terminal) reaches it too; it ignores SIGINT, leaving Ctrl-C to the sweep, which
    then stops it. It dies with the sweep's process (:func:`_die_with_parent`). Anything the
    run prints goes to standard error; standard output carries only the answers.
    """
    parent = os.environ.pop(_PARENT_ENV, "")
    if parent.isdigit():
        _die_with_parent(int(parent))
    requests = sys.stdin.buffer
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    while (request := _read_frame(requests)) is not None:
        seq, options = request
        outcome = run_one(options)
        try:
            _write_frame(answers, (seq, outcome))
        except BrokenPipeError:
            # The sweep is gone (and the kernel did not end this worker with it): nobody wants
            # the answer, and a traceback per worker would bury the user's terminal. Exit at
            # once, without flushing the buffered answer again at shutdown (which would raise
            # the same error).
            os._exit(0)


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
        import signal
        import subprocess
        import threading

        env = {
            **_WORKER_MALLOC_ENV,
            **os.environ,
            "NUMAPLACE_WORKER_SYS_PATH": json.dumps([p for p in sys.path if p]),
            _PARENT_ENV: str(os.getpid()),
        }
        # Started with SIGINT blocked (a signal mask is inherited through exec), so that a
        # Ctrl-C before the worker ignores it cannot print a KeyboardInterrupt from its start-up.
        sigmask = getattr(signal, "pthread_sigmask", None)
        blocked = sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if sigmask is not None else None
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-c", _WORKER_BOOTSTRAP],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=env,
            )
        finally:
            if sigmask is not None:
                sigmask(signal.SIG_SETMASK, blocked)
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
        self.proc.stdout.close()  # here, not in join(), which may have left this thread behind

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

    def join(self, reader_timeout: float | None = None) -> None:
        """Waits for the process, then for its reader thread, at most ``reader_timeout`` s if
        given: after a Ctrl-C the reader may be stuck handing an answer to a future whose lock
        the interrupted main thread still holds. ``concurrent.futures.wait`` acquires every
        future's lock in turn, and a KeyboardInterrupt inside that loop never releases the ones
        it took; a fresh-clone CI (2026-11-28) saw an interrupted sweep hang here for good. The
        reader is a daemon thread: it is left behind, and closes the pipe when it ends."""
        self.proc.wait()
        self.reader.join(reader_timeout)


class _PoolBackend:
    """Up to ``jobs`` local worker processes, each fed up to two configurations at a time.

    Workers are started as runs need them (a worker is started only when every running one
    already holds a run), so a stage of 2 runs starts at most 2 workers whatever ``jobs``
    says. A worker that dies fails only the runs it held (so only those are retried) and is
    replaced at the next submission.
    """

    DEPTH = 2  # runs queued per worker: the next one waits in its pipe while one runs
    generation = 0

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs
        self.capacity = self.DEPTH * jobs
        self._workers: list[_Worker] = []
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
        worker = min(self._workers, key=lambda w: len(w.pending), default=None)
        if worker is None or (worker.pending and len(self._workers) < self.jobs):
            worker = _Worker()
            self._workers.append(worker)
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

    # How long a cancelled pool waits for a worker's reader thread once the worker is dead.
    READER_GRACE_S = 2.0

    def close(self, cancel: bool = False) -> None:
        for w in self._workers:  # all at once: they exit in parallel
            w.stop(kill=cancel, wait=False)
        for w in self._workers:
            w.join(self.READER_GRACE_S if cancel else None)


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
            raise SweepError(f"cannot connect to the Dask scheduler at {scheduler}: {one_line(e)}") from None
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


WORKERS_PER_CPU = 2
"""Local worker processes (pool or LocalCluster) per CPU, at most.

A run is single-threaded and CPU-bound, so workers beyond one per CPU add no throughput, only
memory (an idle worker holds about 20 MB, a busy one its simulation's footprint, kept by the
malloc settings above). Two per CPU, not one, so that ``jobs=2`` still means two workers on a
one-CPU container (a crashed worker then leaves another running, as tests of crashes need).
"""


def _cpus() -> int:
    return os.cpu_count() or 1


def worker_bound() -> int:
    """The most local worker processes a sweep starts on this machine: :data:`WORKERS_PER_CPU` × CPUs."""
    return WORKERS_PER_CPU * _cpus()


def _check_jobs(jobs: int | None, what: str = "jobs = ") -> int:
    if jobs is None:
        return _cpus()
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 0:
        raise SweepError(f"{what}{jobs!r}: expected an integer ≥ 0 (0: run in this process)")
    return jobs


def jobs_note(jobs: int | None, what: str = "jobs = ") -> str | None:
    """The note to give when ``jobs`` exceeds :func:`worker_bound` (``what`` names the argument
    as the caller spelled it: ``"jobs = "`` or ``"--jobs "``), else None."""
    n, bound = _check_jobs(jobs, what), worker_bound()
    if n <= bound:
        return None
    cpus = _cpus()
    return (
        f"{what}{n} is more than this machine's bound of {bound} worker processes "
        f"({WORKERS_PER_CPU} per CPU, {cpus} CPU{'s' if cpus != 1 else ''}); using {bound}"
    )


INLINE_RUNS = 2
"""A sweep with at most this many runs to do and no ``jobs`` given runs in this process.

A pool starts one fresh Python per worker, which imports numaplace (0.1 s each on an idle
host, seconds on a loaded one) and gets its runs and results through pickles. With two runs
that start costs about what the parallelism can save on the sub-second runs a notebook
compares (baseline against a policy), and in-process runs raise no pool-process questions in a
notebook kernel. The results are the same either way (the same :func:`run_one`); ``jobs=N``
asks for a pool whatever the size, ``jobs=0`` for this process.
"""


def worker_count(jobs: int | None, runs: int | None = None, scheduler: str | None = None) -> int:
    """Local worker processes for ``jobs`` and ``runs`` runs still to do: ``jobs`` (default: the
    CPUs), bounded by :func:`worker_bound` and by ``runs``; 0 means this process, as does no
    ``jobs`` and no ``scheduler`` with at most :data:`INLINE_RUNS` runs."""
    if jobs is None and scheduler is None and runs is not None and runs <= INLINE_RUNS:
        return 0
    n = min(_check_jobs(jobs), worker_bound())
    return n if runs is None else min(n, runs)


_DASK_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
"""Address schemes of a Dask scheduler another process can reach (``inproc`` is this
process's own, which a sweep never has)."""

_ADDRESS = re.compile(r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://)?(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>[0-9]{1,5})")


def _check_scheduler(scheduler: str | None, what: str = "scheduler = ") -> str | None:
    """``scheduler`` if it is None, ``"local"`` or a Dask scheduler address
    ``[SCHEME://]HOST:PORT``; else a one-line :class:`SweepError` naming the valid forms.

    Checked here, before dask is imported or anything runs, so that a typo is not an
    exception from deep inside distributed (or a 10-second connection timeout) after the
    output directory was made.
    """
    if scheduler is None or scheduler == "local":
        return scheduler
    m = _ADDRESS.fullmatch(scheduler) if isinstance(scheduler, str) else None
    if m is None or (m["scheme"] or "tcp") not in _DASK_SCHEMES or not 1 <= int(m["port"]) <= 65535:
        raise SweepError(
            f"{what}{scheduler!r}: expected 'local' (a Dask LocalCluster on this machine) or a Dask "
            f"scheduler address tcp://HOST:PORT (schemes: {', '.join(_DASK_SCHEMES)}; port 1-65535); "
            "without a scheduler, runs go to a local process pool"
        )
    return scheduler


def make_backend(
    scheduler: str | None = None,
    jobs: int | None = None,
    simulate: Callable[..., Any] | None = None,
    runs: int | None = None,
) -> Backend:
    """The backend for a scheduler address (``"local"``: a LocalCluster), else a local pool.

    Local workers (pool or LocalCluster) number :func:`worker_count` ``(jobs, runs)``: ``jobs``
    (default ``os.cpu_count()``), at most :func:`worker_bound` and, when given, the ``runs``
    to do; a pool starts them only as runs need them. ``jobs=0``, or a custom ``simulate``
    (which cannot be sent to other processes), runs in this process, as does a sweep of at
    most :data:`INLINE_RUNS` runs without ``jobs``.
    """
    n = worker_count(jobs, runs, scheduler)
    if simulate is not None:
        if scheduler is not None:
            raise SweepError("a custom simulate function runs in this process only: pass no scheduler")
        return _InlineBackend(simulate)
    if _check_scheduler(scheduler) is not None:
        return _DaskBackend(scheduler, max(n, 1))
    return _InlineBackend() if n == 0 else _PoolBackend(n)
