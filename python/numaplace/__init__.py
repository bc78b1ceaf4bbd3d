"""numaplace: where should each page of a parallel program live, and when should it move?

The Python face of the numaplace simulator. Quick start::

    import numaplace
    r = numaplace.simulate(machine="origin2000", workload="stream", placement="round-robin")
    print(r.total_time_ns, r.local_fraction)

:func:`simulate` runs one simulation; :func:`machines`, :func:`workloads` and
:func:`placements` list what can be named; :func:`sweep` runs many configurations (on local
cores or a Dask cluster) into a pandas DataFrame. :func:`advise` replays a trace under every
placement and dynamic policy and ranks them against the best static placement. In a notebook a :class:`Result` displays as
a summary and has tidy frames (``per_node()``, ``per_iteration()``, ``per_epoch()``); long
runs and sweeps show ``tqdm`` progress bars there and on terminals (``examples/tour.ipynb``). Every error raised for bad input derives from
:class:`NumaplaceError`. The report (``numaplace.report``) and plotting helpers
(``numaplace.plot``) are imported on demand, since they pull in pandas and matplotlib.
"""

from numaplace._native import (
    ConfigError,
    FileError,
    MachineError,
    NumaplaceError,
    OutOfMemoryError,
    SpecError,
    TraceError,
    UnknownNameError,
    __version__,
)
from numaplace.api import (
    Result,
    machine,
    machines,
    placements,
    policies,
    programs,
    schedulers,
    simulate,
    trace_export,
    trace_info,
    workload_show,
    workloads,
)
# The package itself, which is callable (numaplace.sweep(spec) runs a sweep): importing a
# function named sweep from it here would bind numaplace.sweep to the function and hide the
# package, as it once did.
import numaplace.sweep as sweep
from numaplace.sweep import SweepError
# A plain function; its package is numaplace.advice.
from numaplace.advice import Advice, advise

__all__ = [
    "Advice",
    "ConfigError",
    "FileError",
    "MachineError",
    "NumaplaceError",
    "OutOfMemoryError",
    "Result",
    "SpecError",
    "SweepError",
    "TraceError",
    "UnknownNameError",
    "__version__",
    "advise",
    "machine",
    "machines",
    "placements",
    "policies",
    "programs",
    "schedulers",
    "simulate",
    "sweep",
    "trace_export",
    "trace_info",
    "workload_show",
    "workloads",
]
