"""Running real programs under the numaplace runtime library, and reading what it reports.

The runtime is ``libnumaplace.so`` (crate ``crates/runtime``): preloaded into a program, it
manages the program's large allocations, places their pages and moves them while it runs, and
writes a stats file at exit. This package is the Python side of it, one module per concern,
every public name re-exported here (``from numaplace.runtime import X`` and
``numaplace.runtime.X`` as before):

* ``base`` — the library's declarations read from Rust (:data:`STATS_SCHEMA`,
  :data:`RUNTIME_OPTIONS`) and :class:`RuntimeToolError`.
* ``library`` — :func:`find_library`: where the library is (``$NUMAPLACE_LIB``, the venv,
  ``target/release``); :func:`build_library`: cargo builds a checkout's on first use;
  :func:`built_library`: the one a checkout's tests and tools run.
* ``specs`` — :func:`validate_placement`, :func:`validate_dynamic`: check a spec as the
  simulator would.
* ``launcher`` — :func:`launch_env`, :func:`run_program`: the environment the library reads,
  and a launcher that returns the program's exit status (128 + signal for a signal death, as
  shells do).
* ``numa_maps`` — :func:`parse_numa_maps`, :func:`read_numa_maps`, :func:`where`: how a running
  process's memory is spread over NUMA nodes, from ``/proc/PID/numa_maps``.
* ``stats`` — :func:`load_stats`, :func:`stats_frame`, :func:`summary`, :func:`sampling_cost`:
  the stats files the library writes (schema version :data:`STATS_VERSION`), checked against
  the schema the library itself is written from (:data:`STATS_SCHEMA`, Rust's
  ``numaplace_model::stats``), and the figures a report states.
* ``report`` — :func:`format_summary`, :func:`format_comparison`, :func:`plot_stats`,
  :func:`stats_notice`: what ``numaplace report`` and ``numaplace run`` print.

Every error for bad input is a :class:`RuntimeToolError` with a one-line message.
"""

from __future__ import annotations

from numaplace.runtime.base import (  # noqa: F401
    DEFAULT_DYNAMIC,
    DEFAULT_MIN_BYTES,
    ENV_VARS,
    EPOCH_KINDS,
    EXIT_CANNOT_EXECUTE,
    EXIT_NOT_FOUND,
    LIB_NAME,
    RUNTIME_OPTIONS,
    RuntimeToolError,
    SOURCES,
    STATS_SCHEMA,
    STATS_VERSION,
)
from numaplace.runtime.library import (  # noqa: F401
    build_library,
    built_library,
    find_library,
    library_candidates,
)
from numaplace.runtime.specs import (  # noqa: F401
    host_nodes,
    validate_dynamic,
    validate_placement,
)
from numaplace.runtime.launcher import (  # noqa: F401
    ProgramExit,
    ProgramNotExecutable,
    ProgramNotFound,
    ProgramNotPreloadable,
    check_preloadable,
    elf_kind,
    exit_status,
    launch_env,
    resolve_program,
    run_program,
)
from numaplace.runtime.numa_maps import (  # noqa: F401
    NumaMapping,
    parse_numa_maps,
    read_numa_maps,
    where,
)
from numaplace.runtime.stats import (  # noqa: F401
    STATS_FRAME_COLUMNS,
    epoch_local_share,
    labels,
    load_stats,
    local_share_reason,
    overall_local_share,
    samples_seen,
    sampling_cost,
    stats_frame,
    summary,
    thread_costs,
)
from numaplace.runtime.report import (  # noqa: F401
    RUN_HINT,
    format_comparison,
    format_summary,
    plot_stats,
    stats_notice,
)

__all__ = [
    "STATS_SCHEMA",
    "STATS_VERSION",
    "RUNTIME_OPTIONS",
    "LIB_NAME",
    "DEFAULT_DYNAMIC",
    "DEFAULT_MIN_BYTES",
    "SOURCES",
    "EPOCH_KINDS",
    "EXIT_NOT_FOUND",
    "EXIT_CANNOT_EXECUTE",
    "ENV_VARS",
    "RuntimeToolError",
    "library_candidates",
    "build_library",
    "built_library",
    "find_library",
    "host_nodes",
    "validate_placement",
    "validate_dynamic",
    "launch_env",
    "resolve_program",
    "elf_kind",
    "check_preloadable",
    "ProgramNotPreloadable",
    "ProgramNotFound",
    "ProgramNotExecutable",
    "exit_status",
    "ProgramExit",
    "run_program",
    "NumaMapping",
    "parse_numa_maps",
    "read_numa_maps",
    "where",
    "load_stats",
    "labels",
    "STATS_FRAME_COLUMNS",
    "stats_frame",
    "samples_seen",
    "local_share_reason",
    "overall_local_share",
    "epoch_local_share",
    "thread_costs",
    "sampling_cost",
    "summary",
    "format_summary",
    "format_comparison",
    "plot_stats",
    "stats_notice",
    "RUN_HINT",
]
