"""This host as a machine file: what ``numaplace topo --detect`` writes and ``numaplace advise``
advises for when no machine is given. The settings' defaults are declared here, once: the
command line's flags (:mod:`numaplace.cli.host`) show and use them, and :func:`detect` takes
them."""

from __future__ import annotations

import os

from numaplace import _native

SYSFS = "/sys/devices/system/node"
"""The sysfs node directory read (with HMAT where the kernel publishes it)."""

NAME = "this-host"
"""The machine's name in the file."""

LOCAL_NS = 90.0
"""The local latency of a node without HMAT ``read_latency``, ns."""

BANDWIDTH_GBPS = 20.0
"""The memory bandwidth of a node without HMAT ``read_bandwidth``, GB/s."""

MLP = 10.0
"""The memory-level parallelism."""


def detect(
    sysfs: str = SYSFS,
    name: str = NAME,
    local_ns: float = LOCAL_NS,
    bandwidth_gbps: float = BANDWIDTH_GBPS,
    mlp: float = MLP,
) -> str:
    """This host (read from ``sysfs``) as machine TOML text; its leading comments say which
    figures the kernel did not publish."""
    return _native.detect(sysfs, name, local_ns, bandwidth_gbps, mlp, os.sysconf("SC_PAGE_SIZE"))
