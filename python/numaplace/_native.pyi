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

def simulate(
    machine: str,
    workload: str,
    placement: str,
    threads: int,
    binding: str,
    init: str,
    seed: int,
    quantum_ns: float,
    oversubscribe: bool,
    trace: str | None = None,
    class_: str | None = None,
    dynamic: str | None = None,
    decisions: str | None = None,
) -> str:
    """Runs one simulation and returns its result as JSON text (the GIL is released).

    ``trace`` replays a trace file instead of generating ``workload``; ``class_`` is a kernel's
    problem class; ``dynamic`` a dynamic (migration/replication) policy spec; ``decisions`` a
    file the dynamic policy's every action is written to.
    """

def trace_export(
    machine: str,
    workload: str,
    threads: int,
    binding: str,
    init: str,
    seed: int,
    out: str,
    text: bool = False,
    class_: str | None = None,
) -> None:
    """Writes a workload as a trace file at ``out`` (binary, or the text form if ``text``)."""

def trace_info(path: str) -> str:
    """A summary of a trace file, as a JSON object."""

def workload_show(
    machine: str,
    workload: str,
    threads: int,
    binding: str,
    init: str,
    seed: int,
    class_: str | None = None,
) -> str:
    """A workload's regions, phases, footprint and sharing, as a JSON object."""

def machines() -> str:
    """The shipped machine presets as a JSON array: name, description, nodes, cpus, page_size, memory_mib."""

def machine(arg: str) -> str:
    """The validated machine (preset name or file path) as a JSON object of its file's keys."""

def machine_toml(arg: str) -> str:
    """The TOML text of a preset, or of a validated machine file."""

def workloads() -> str:
    """Every workload as a JSON array: name, doc, params (name, default, doc, kind)."""

def placements() -> str:
    """Every placement policy as a JSON array: name, doc, params."""

def policies() -> str:
    """Every dynamic policy as a JSON array: name, doc, params."""

def check_spec(kind: str, text: str) -> str:
    """Checks a ``placement`` or ``dynamic`` spec as a run would, without a machine; returns
    ``{"name", "values"}`` as JSON. Raises UnknownNameError or SpecError."""

def detect(root: str, name: str, local_ns: float, bandwidth_gbps: float, mlp: float, page_size: int) -> str:
    """Describes a host from a sysfs node directory (``root``); returns machine TOML text."""

def bench_speed(transactions: int, pages: int, repetitions: int) -> str:
    """The speed benchmark, as a JSON object."""

def bench_footprint(pages: int) -> str:
    """The footprint (peak memory) benchmark, as a JSON object."""

def stats_schema() -> str:
    """The runtime's stats-file schema as JSON: ``version`` and ``fields`` (name, kind,
    nullable, doc; a ``list`` has the ``fields`` of its objects)."""

def placement_caps() -> str:
    """Every placement's capabilities as JSON: ``{name: {"kernel_default", "one_node"}}``."""
