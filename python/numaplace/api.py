"""The Python API: run a simulation and get a result object.

Arguments are checked here for type (so a wrong type is a :class:`ConfigError`, not a
``TypeError`` from the binding layer); everything else is validated once, in Rust.
"""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any

from numaplace import _native
from numaplace._native import ConfigError

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_QUANTUM_NS: float = _native.DEFAULT_QUANTUM_NS
BINDINGS = ("spread", "compact")
INITS = ("parallel", "sequential", "none")
_U64_MAX = 2**64 - 1


class Result:
    """The result of one simulation.

    Every field of the JSON result is an attribute (``r.total_time_ns``, ``r.local_fraction``,
    ``r.config``, ...). Times are in nanoseconds; traffic is counted in transactions (cache
    lines). ``total_time_ns`` covers the timed iterations; the initialisation (cold-start)
    epoch is reported separately as ``init_time_ns``.
    """

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    @classmethod
    def from_json(cls, text: str) -> Result:
        """A result from the JSON text ``numaplace sim --json`` writes."""
        return cls(json.loads(text))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(f"Result has no field {name!r}") from None

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._data))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and self._data == other._data

    def __repr__(self) -> str:
        c = self._data["config"]
        return (
            f"<Result {c['machine']} {c['workload']} {c['placement']} threads={c['threads']}: "
            f"{self._data['total_time_ns'] / 1e6:.3f} ms, local {self._data['local_fraction']:.1%}>"
        )

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the result as plain Python data."""
        return copy.deepcopy(self._data)

    def to_json(self) -> str:
        """The result as JSON text: identical for identical runs."""
        return json.dumps(self._data, indent=2, sort_keys=False)

    def to_row(self) -> dict[str, Any]:
        """A flat dict: ``config`` keys become ``config.<key>`` (the machine as its name only)."""
        row: dict[str, Any] = {}
        for k, v in self._data["config"].items():
            if k != "machine_spec":
                row[f"config.{k}"] = v
        for k, v in self._data.items():
            if k != "config":
                row[k] = v
        return row

    def to_pandas(self) -> pd.DataFrame:
        """A one-row DataFrame of :meth:`to_row` (list fields stay lists)."""
        import pandas as pd

        return pd.DataFrame([self.to_row()])


def _check_int(name: str, value: Any, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} = {value!r}: expected an integer")
    if not lo <= value <= hi:
        raise ConfigError(f"{name} = {value}: expected an integer in [{lo}, {hi}]")
    return value


def _check_str(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{name} = {value!r}: expected a string")
    return value


def _check_opt_str(name: str, value: Any) -> str | None:
    return None if value is None else _check_str(name, value)


def _problem_class(problem_class: str | None, extra: dict[str, Any]) -> str | None:
    """``problem_class=`` or its alias ``class`` (``simulate(**{"class": "A"})``, as sweep
    specs name it); any other extra keyword is an error."""
    alias = extra.pop("class", None)
    if extra:
        raise ConfigError(f"unknown option(s) {', '.join(sorted(extra))} for simulate")
    if alias is not None and problem_class is not None:
        raise ConfigError("the problem class is given twice (class and problem_class)")
    return _check_opt_str("class", alias if alias is not None else problem_class)


def simulate(
    machine: str = "origin2000",
    workload: str = "stream",
    placement: str = "first-touch",
    *,
    threads: int = 16,
    seed: int = 0,
    binding: str = "spread",
    init: str = "parallel",
    quantum_ns: float = DEFAULT_QUANTUM_NS,
    oversubscribe: bool = False,
    trace: str | None = None,
    problem_class: str | None = None,
    dynamic: str | None = None,
    decisions: str | None = None,
    **extra: Any,
) -> Result:
    """Simulates ``workload`` on ``machine`` under the ``placement`` policy.

    ``machine`` is a preset name (see :func:`machines`) or a path to a machine TOML file;
    ``workload`` and ``placement`` use the ``NAME:key=value,...`` syntax (see
    :func:`workloads`, :func:`placements`). ``problem_class`` (alias ``class``) adds
    ``class=...`` to a kernel's spec. ``trace`` replays a trace file instead of generating
    ``workload`` (its thread count must match ``threads``). ``dynamic`` names a dynamic
    policy (see :func:`policies`); ``decisions`` writes its every action to a file (``.csv``,
    else JSON Lines). Raises a subclass of
    :class:`NumaplaceError` for bad input; the same arguments always give the same result.
    """
    if not isinstance(quantum_ns, (int, float)) or isinstance(quantum_ns, bool):
        raise ConfigError(f"quantum_ns = {quantum_ns!r}: expected a number")
    if not isinstance(oversubscribe, bool):
        raise ConfigError(f"oversubscribe = {oversubscribe!r}: expected True or False")
    text = _native.simulate(
        _check_str("machine", machine),
        _check_str("workload", workload),
        _check_str("placement", placement),
        _check_int("threads", threads, 1, 65535),
        _check_str("binding", binding),
        _check_str("init", init),
        _check_int("seed", seed, 0, _U64_MAX),
        float(quantum_ns),
        oversubscribe,
        _check_opt_str("trace", trace),
        _problem_class(problem_class, extra),
        _check_opt_str("dynamic", dynamic),
        _check_opt_str("decisions", decisions),
    )
    return Result.from_json(text)


def trace_export(
    out: str,
    machine: str = "origin2000",
    workload: str = "stream",
    *,
    threads: int = 16,
    seed: int = 0,
    binding: str = "spread",
    init: str = "parallel",
    text: bool = False,
    problem_class: str | None = None,
) -> None:
    """Writes ``workload`` as it would run on ``machine`` to the trace file ``out`` (binary,
    or the text form if ``text``). Replaying it gives the same results as the workload."""
    _native.trace_export(
        _check_str("machine", machine),
        _check_str("workload", workload),
        _check_int("threads", threads, 1, 65535),
        _check_str("binding", binding),
        _check_str("init", init),
        _check_int("seed", seed, 0, _U64_MAX),
        _check_str("out", out),
        bool(text),
        _check_opt_str("class", problem_class),
    )


def trace_info(path: str) -> dict[str, Any]:
    """A summary of a trace file: header, regions, epochs, records, transactions per phase."""
    return json.loads(_native.trace_info(_check_str("path", path)))


def workload_show(
    workload: str,
    machine: str = "origin2000",
    *,
    threads: int = 16,
    seed: int = 0,
    binding: str = "spread",
    init: str = "parallel",
    problem_class: str | None = None,
) -> dict[str, Any]:
    """A workload's regions, footprint, and per phase its transactions and how much of its
    data it shares across nodes (initialisation and first iteration, untimed)."""
    return json.loads(
        _native.workload_show(
            _check_str("machine", machine),
            _check_str("workload", workload),
            _check_int("threads", threads, 1, 65535),
            _check_str("binding", binding),
            _check_str("init", init),
            _check_int("seed", seed, 0, _U64_MAX),
            _check_opt_str("class", problem_class),
        )
    )


def machines() -> list[dict[str, Any]]:
    """The shipped machine presets: name, description, nodes, CPUs, page size, memory."""
    return json.loads(_native.machines())


def machine(name_or_path: str) -> dict[str, Any]:
    """A machine (preset name or TOML file), validated, as a dict of its file's keys."""
    return json.loads(_native.machine(_check_str("machine", name_or_path)))


def workloads() -> list[dict[str, Any]]:
    """Every workload: name, one-line doc, parameters (name, default, doc, kind)."""
    return json.loads(_native.workloads())


def policies() -> list[dict[str, Any]]:
    """Every dynamic policy: name, one-line doc, parameters."""
    return json.loads(_native.policies())


def placements() -> list[dict[str, Any]]:
    """Every placement policy: name, one-line doc, parameters."""
    return json.loads(_native.placements())
