"""What the runtime library declares that the Python side reads (the stats file's schema, the
library's settings) and the error type of the runtime tools. Declared once, in Rust; read here
through the extension."""

from __future__ import annotations

import json
from typing import Any

from numaplace import _native
from numaplace._native import NumaplaceError

STATS_SCHEMA: dict[str, Any] = json.loads(_native.stats_schema())
"""The stats file's schema, declared once in Rust (``numaplace_model::stats``): ``version`` and
``fields``, the file's keys in order, each with ``name``, ``kind`` (``text``, ``integer``,
``number``, ``share``, ``per-node``, ``list``), ``nullable`` and ``doc``; a ``list`` has the
``fields`` of its objects."""

STATS_VERSION: int = STATS_SCHEMA["version"]
"""The stats-file schema version this module reads."""

_RUNTIME = json.loads(_native.runtime_options())
RUNTIME_OPTIONS: dict[str, dict[str, Any]] = {o["name"]: o for o in _RUNTIME["options"]}
"""The library's settings, declared once in Rust (``numaplace_model::rtconfig``): ``env`` (its
``NUMAPLACE_*`` variable), ``kind``, ``default``, ``launcher`` (``numaplace run``'s default, or
None where it has no flag), ``doc``."""

LIB_NAME = "libnumaplace.so"
DEFAULT_DYNAMIC: str = RUNTIME_OPTIONS["dynamic"]["launcher"]
DEFAULT_MIN_BYTES: int = int(RUNTIME_OPTIONS["min_bytes"]["launcher"])
SOURCES: tuple[str, ...] = tuple(RUNTIME_OPTIONS["source"]["choices"])
EPOCH_KINDS = ("migrate", "timer", "record", "replay", "undo")
EXIT_NOT_FOUND = 127
"""``numaplace run``'s status when the program does not exist (as ``env`` and shells)."""
EXIT_CANNOT_EXECUTE = 126
"""``numaplace run``'s status when the program exists but cannot be executed."""

# The variables the launcher sets or clears on every launch: the preload marker and those of
# the settings it has flags for (the others, such as NUMAPLACE_SAMPLE_PERIOD_MS, pass through).
ENV_VARS: tuple[str, ...] = (_RUNTIME["preload_env"], *(o["env"] for o in RUNTIME_OPTIONS.values() if o["launcher"] is not None))


class RuntimeToolError(NumaplaceError):
    """Bad input to the runtime tools: a spec, a library path, a pid, a stats file. A
    :class:`numaplace.NumaplaceError`, as every error numaplace raises for bad input."""
