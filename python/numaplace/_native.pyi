"""Type stubs for ``numaplace._native``, the PyO3 extension built from ``crates/py/src/lib.rs``.

Functions take plain strings and numbers and return JSON text (parsed by ``numaplace.api``).
Every error for bad input is raised as a subclass of :class:`NumaplaceError`.
``python/tests/test_sweep.py`` checks that this file names exactly what the module exports,
with the same parameters: update it with ``lib.rs``.
"""

__version__: str
"""The crate version, e.g. ``"0.1.0"``."""

DEFAULT_QUANTUM_NS: float
"""Default simulated time between timing-model solves, in nanoseconds."""

TIME_SCALE_SUFFIX: str
"""The suffix of a machine argument that compresses its page-migration costs (``":time_scale="``,
then a factor from 1 to 10^6; ``numaplace_sim::presets::load_machine``)."""

ANTAGONIST_SUFFIX: str
"""The suffix of a machine argument that runs a memory antagonist beside the program
(``":antagonist_gbps="``, then GB/s at every node with CPUs and memory, before any time scale;
``numaplace_sim::presets::load_machine``)."""

PROGRESS_PERIOD_S: float
"""How often, at most, :func:`simulate` reports progress and checks for Ctrl-C, in seconds."""

class NumaplaceError(Exception):
    """Base class of every numaplace error."""

class MachineError(NumaplaceError):
    """A machine file is malformed or invalid."""

class UnknownNameError(NumaplaceError):
    """A machine, workload, policy or option name is not known."""

class SpecError(NumaplaceError):
    """A NAME:key=value specification has a bad key or value."""

class ConfigError(NumaplaceError):
    """A run configuration contradicts the machine."""

class OutOfMemoryError(NumaplaceError):
    """The workload does not fit in the machine's memory."""

class FileError(NumaplaceError):
    """A file could not be read or written."""

class TraceError(NumaplaceError):
    """A trace file is malformed (the message names the byte or line)."""

def run_options() -> str:
    """The run options as a JSON array, declared once in Rust: name, kind (type text, integer,
    number, bool or name, with min/max or choices), default (text or null), doc, input (a
    sweep may vary it), python (the keyword ``numaplace.simulate`` takes it as)."""

from collections.abc import Callable

def simulate(
    request_json: str,
    progress: Callable[[int, int, int, float], object] | None = None,
    period: float | None = None,
    decisions: Callable[[dict[str, list[Any]]], object] | None = None,
) -> str:
    """Runs one simulation of a run request (a JSON object of run options; a missing or null
    option takes its default) and returns its result as JSON text. The GIL is released; at an
    epoch boundary, at most every ``period`` seconds (default :data:`PROGRESS_PERIOD_S`; 0:
    every epoch), it is taken back to check for signals (Ctrl-C raises
    KeyboardInterrupt and stops the run) and to call ``progress(iteration, iterations,
    epochs, simulated_ns)`` if given (iteration 0 is the initialisation). An exception from
    either stops the run and is raised; neither changes the result.

    The request's ``decisions`` log is written as the run goes, a batch of records at a time:
    to its ``.csv`` or JSON Lines file, or, when ``decisions`` is given, to that callable (a
    dict of columns per batch; ``numaplace.simulate`` writes Parquet so). A
    ``.parquet`` path without a callable is a :class:`FileError`."""

def trace_export(request_json: str, out: str, text: bool = False) -> None:
    """Writes a run request's workload as a trace file at ``out`` (binary, or the text form
    if ``text``)."""

def trace_info(path: str) -> str:
    """A summary of a trace file, as a JSON object (of a line-level trace: format "line",
    operations, reads, writes, compute cycles, barriers, locks)."""

def thread_nodes(machine: str, threads: int, binding: str = "spread", oversubscribe: bool = False) -> str:
    """The node of each thread bound on the machine as a run binds them, as a JSON list."""

def trace_objects(path: str, machine: str, binding: str = "spread", oversubscribe: bool = False) -> str:
    """The regions of a page-level trace diagnosed for placement with its threads bound on the
    machine (first touch, timed lines per thread, local lines under first touch, interleaving and
    the bound, writes, a heat map), as a JSON object (crates/sim/src/trace/objects.rs)."""

def workload_show(request_json: str) -> str:
    """A run request's workload: regions, phases, footprint and sharing, as a JSON object."""

def machines() -> str:
    """The shipped machine presets as a JSON array: name, description, nodes, cpus, page_size, memory_mib."""

def machine(arg: str) -> str:
    """The validated machine (preset name or file path) as a JSON object of its file's keys."""

def machine_tiers(arg: str) -> str:
    """A machine's memory tiers as JSON: tier and capacity_pages per node, page_size, tiered, fast_pages, total_pages."""

def machine_toml(arg: str) -> str:
    """The TOML text of a preset, or of a validated machine file."""

def workloads() -> str:
    """Every workload as a JSON array: name, doc, params (name, default, doc, kind)."""

def bench_protocol(sweeps: int, repetitions: int) -> str:
    """The protocol engine's speed on a fixed line-level program against a limit loop, as a
    JSON object (accesses_after_flc_per_second, ratio, ...)."""

def programs() -> str:
    """Every line-level program (the protocol engine's workloads) as a JSON array: name, doc,
    params."""

def schedulers() -> str:
    """Every processor scheduler of system runs as a JSON array: name, doc, params, sharing
    (space or time), reads_efficiency, reads_faults."""

def placements() -> str:
    """Every placement policy as a JSON array: name, doc, params, and its capabilities
    kernel_default (the kernel's own first touch), one_node (every page on the node of its
    ``node`` parameter) and needs_profile (computed from a profile of the whole run: the
    simulator only)."""

def policies() -> str:
    """Every dynamic policy as a JSON array: name, doc, params, and its capabilities: observes
    (counters, samples, hinting-faults or replicas), drivers (simulator, runtime) and why_not
    (why the drivers not listed cannot run it)."""

def check_spec(kind: str, text: str, driver: str | None = None) -> str:
    """Checks a ``workload``, ``placement`` or ``dynamic`` spec as a run would, without a
    machine (a workload's checks that need one are left to the run); returns
    ``{"name", "values"}`` as JSON. With ``driver`` (``simulator`` or ``runtime``), a dynamic
    policy or placement that driver cannot run is refused with the reason. Raises UnknownNameError,
    SpecError or ConfigError."""

def detect(root: str, name: str, local_ns: float, bandwidth_gbps: float, mlp: float, page_size: int) -> str:
    """Describes a host from a sysfs node directory (``root``); returns machine TOML text."""

def bench_speed(transactions: int, pages: int, repetitions: int) -> str:
    """The speed benchmark, as a JSON object."""

def bench_footprint(pages: int) -> str:
    """The footprint (peak memory) benchmark, as a JSON object."""

def bench_tiered(pages: int, sweeps: int, repetitions: int) -> str:
    """The tiered benchmark (a 1 TiB DRAM+CXL machine under tpp), as a JSON object."""

def runtime_options() -> str:
    """The runtime library's settings as JSON: ``preload_env`` and ``options``, each with
    name, env (its NUMAPLACE_* variable), kind (and choices), default, launcher (``numaplace
    run``'s default, or null where it has no flag) and doc."""

def stats_schema() -> str:
    """The runtime's stats-file schema as JSON: ``version`` and ``fields`` (name, kind,
    nullable, doc; a ``list`` has the ``fields`` of its objects)."""
