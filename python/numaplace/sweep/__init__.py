"""Sweeps: many simulations from one TOML spec, on local cores or a Dask cluster.

A *sweep spec* names the options that vary (``[axes]``, each a list of values), the options
held constant (``[fixed]``), options varied together (``[[zip]]``, lists of one length) and,
optionally, combinations to leave out (``[[exclude]]``). The sweep is the cartesian product of
the axes, then the zip groups, in the order the spec lists them (the last varies fastest),
minus the excluded combinations. A key may be a parameter of a spec-string option
(``"workload.pages" = [1024, 4096]``), joined to that option's spec and given a column.
``docs/sweeps.md`` is the user's guide; in short::

    [axes]
    workload  = ["stream:pages=32,iterations=1", "random:accesses=200,pages=256"]
    placement = ["first-touch", "round-robin"]
    threads   = [1, 2]

    [fixed]
    machine = "origin2000"

    [[exclude]]                  # drop every run that matches all keys of one table
    placement = "round-robin"
    threads = 1

    [[zip]]                      # varied together: (none, seed 1), (upmlib, seed 2)
    dynamic = ["none", "upmlib"]
    seed = [1, 2]

Every configuration is run by one function, :func:`run_one` (options dict → outcome dict),
whichever *backend* executes it: in this process (``jobs=0``, or a sweep of at most
:data:`~numaplace.sweep.backends.INLINE_RUNS` runs without ``jobs``), on a local process pool
(``jobs=N``), or as one task per run on a Dask distributed cluster (``scheduler=ADDR`` or
``"local"``). The driver that submits runs, retries transient failures and records outcomes is
the same for every backend; so is the table it produces. :mod:`numaplace.experiments` runs
its experiments through the same executor.

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
* Local workers (pool processes, or a LocalCluster's) number at most the runs still to do
  and at most 2 per CPU (:func:`~numaplace.sweep.backends.worker_bound`); a larger ``jobs``
  gets the bound, noted in the frame's ``attrs["workers_note"]``. Pool workers are in the
  sweep's process group and die with the sweep's process, however it ends (kill -9, a crash,
  ``timeout``): on Linux the kernel kills them (``PR_SET_PDEATHSIG``). Ctrl-C reaches the sweep,
  which stops its workers.
* One sweep at a time writes to a directory: it holds an exclusive ``flock`` on
  ``DIR/sweep.lock`` (holding its pid) from before reading the checkpoint until the table is
  written, and a second sweep fails at once naming that pid. A link, a directory or a special
  file at one of the sweep's file names, or a file there that is not what a sweep writes, is
  refused before anything runs and left as it is.

Modules
-------
* :mod:`~numaplace.sweep.spec` — :data:`OPTIONS`, the spec parser (:func:`load_spec`), :func:`run_id`;
* :mod:`~numaplace.sweep.executor` — :func:`run_one` and :func:`execute` (retries of lost runs);
* :mod:`~numaplace.sweep.backends` — in-process, local process pool and Dask (:func:`make_backend`);
* :mod:`~numaplace.sweep.checkpoint` — the checkpoint and the atomically written table;
* :mod:`~numaplace.sweep.driver` — :func:`run_sweep`, which ties them together;
* :mod:`~numaplace.sweep.cli` — the ``numaplace sweep`` subcommand;
* :mod:`~numaplace.sweep.errors` — :class:`SweepError` and the other exceptions.

This package is also callable: ``numaplace.sweep(spec, jobs=2)`` is :func:`run_sweep`, while
``numaplace.sweep.SweepError`` and ``from numaplace.sweep import SweepError`` name the
package's contents (``numaplace.sweep`` is the package, not a function hiding it).

Nothing here imports pandas, pyarrow, tqdm or dask at module level, so that pool workers,
which import :mod:`~numaplace.sweep.backends` to find their main loop, start quickly.
"""

from __future__ import annotations

import inspect
import sys
import types

from numaplace.sweep.backends import make_backend
from numaplace.sweep.checkpoint import CHECKPOINT_FILE, RESULTS_CSV, RESULTS_FILE, load_results
from numaplace.sweep.cli import add_execution_args, add_parser, cmd_sweep, main
from numaplace.sweep.driver import run_sweep
from numaplace.sweep.errors import SweepError, UnsupportedOptionError, WorkerLostError
from numaplace.sweep.executor import execute, run_one
from numaplace.sweep.spec import OPTIONS, Option, Sweep, load_spec, run_id

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
]


class _CallableModule(types.ModuleType):
    """The type of this package's module object: a module that, called, runs a sweep.

    ``numaplace.sweep`` was once a module and a function of the same name, the function (bound
    in ``numaplace/__init__.py``) hiding the module, so ``numaplace.sweep.SweepError`` failed.
    Making the module itself callable keeps ``numaplace.sweep(spec, jobs=2)`` working while
    the name stays bound to the module. ``__call__`` is :func:`run_sweep` itself (a
    staticmethod, so the module is not passed as an argument): one signature, declared once.
    """

    __call__ = staticmethod(run_sweep)

    def __repr__(self) -> str:
        return f"<callable module {self.__name__!r} (calling it runs run_sweep)>"


sys.modules[__name__].__class__ = _CallableModule

__signature__ = inspect.signature(run_sweep)
"""What ``inspect.signature(numaplace.sweep)`` reports; without it, inspect takes ``__call__``
for a method of the module and drops ``run_sweep``'s first parameter."""
