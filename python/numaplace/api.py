"""The Python API: run a simulation and get a result object.

The run options are declared once, in Rust (:data:`OPTIONS` is that table); a call's
keyword arguments become a JSON run request that Rust resolves. Types and ranges are checked
here first from the same table, so a wrong type is a :class:`ConfigError` in Python's terms,
not a ``TypeError`` from the binding layer.
"""

from __future__ import annotations

import copy
import json
from typing import TYPE_CHECKING, Any

from numaplace import _native
from numaplace._native import ConfigError
from numaplace.outfile import check_output

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_QUANTUM_NS: float = _native.DEFAULT_QUANTUM_NS

#: The run request's options, declared once in Rust (``numaplace_sim::request::OPTIONS``), by
#: name: ``kind`` (``type`` text, integer, number, bool or name, with ``min``/``max`` or
#: ``choices``), ``default`` (text, or None for an option unset unless given), ``doc``,
#: ``input`` (a sweep may vary it) and ``python`` (the keyword :func:`simulate` takes it as).
OPTIONS: dict[str, dict[str, Any]] = {o["name"]: o for o in json.loads(_native.run_options())}


def option_default(name: str) -> Any:
    """The declared default of run option ``name`` as a Python value (None if unset)."""
    o = OPTIONS[name]
    text, ty = o["default"], o["kind"]["type"]
    if text is None:
        return None
    return {"integer": int, "number": float, "bool": lambda t: t == "true"}.get(ty, str)(text)


def check_option(name: str, value: Any, *, booleans: str = "True or False") -> Any:
    """Checks a value's type and range for run option ``name`` from its declaration, with a
    message in Python's terms (``threads = '4': expected an integer``); returns the value.
    Names inside values (a machine, a workload's parameters) are checked when the run is built.
    ``booleans`` is how the message spells the two booleans (a TOML spec writes ``true``).

    Raises:
        ConfigError: a value of the wrong type or out of range.
    """
    kind = OPTIONS[name]["kind"]
    ty = kind["type"]
    if ty in ("text", "name"):
        check_text(name, value)
    elif ty == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{name} = {value!r}: expected an integer")
        if not kind["min"] <= value <= kind["max"]:
            raise ConfigError(f"{name} = {value}: expected an integer in [{kind['min']}, {kind['max']}]")
    elif ty == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{name} = {value!r}: expected a number")
        if not kind["min"] <= value <= kind["max"]:
            raise ConfigError(f"{name} = {value}: expected a number in [{kind['min']:g}, {kind['max']:g}]")
    elif ty == "bool":
        if not isinstance(value, bool):
            raise ConfigError(f"{name} = {value!r}: expected {booleans}")
    return value


def check_text(name: str, value: Any) -> str:
    """Checks that ``value`` is a string Rust can take: UTF-8 text (a name or path decoded from
    bytes that are not UTF-8 holds surrogates, which no JSON or Rust string can carry).

    Raises:
        ConfigError: not a string, or not valid UTF-8 (the message shows the bytes as ``\\xff``).
    """
    if not isinstance(value, str):
        raise ConfigError(f"{name} = {value!r}: expected a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        shown = value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise ConfigError(f"{name} = '{shown}': not valid UTF-8 (numaplace takes UTF-8 names and paths)") from None
    return value


def request_json(who: str, given: dict[str, Any], extra: dict[str, Any]) -> str:
    """The JSON run request of a call's keyword arguments: ``given`` by Python keyword,
    ``extra`` the call's ``**extra`` (option names such as ``class``, as sweep specs write
    them). None means "not given"; every value is checked by :func:`check_option`.

    Raises:
        ConfigError: an unknown option, an option given twice, or a bad value.
    """
    by_keyword = {o["python"]: name for name, o in OPTIONS.items()}
    request: dict[str, Any] = {}
    for key, value in given.items():
        request[by_keyword[key]] = value
    unknown = sorted(k for k in extra if k not in OPTIONS)
    if unknown:
        raise ConfigError(f"unknown option(s) {', '.join(unknown)} for {who}")
    for name, value in extra.items():
        if value is not None and request.get(name) is not None:
            raise ConfigError(f"the option {name} is given twice ({name} and {OPTIONS[name]['python']})")
        if value is not None:
            request[name] = value
    clean = {k: check_option(k, v) for k, v in request.items() if v is not None}
    return json.dumps(clean)


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


def simulate(
    machine: str = "origin2000",
    workload: str = "stream",
    placement: str = "first-touch",
    *,
    threads: int | None = None,
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

    The keyword arguments are the run options (:data:`OPTIONS`, ``numaplace sim --help``;
    a test keeps this signature equal to them). ``machine`` is a preset name (see
    :func:`machines`) or a path to a machine TOML file; ``workload`` and ``placement`` use the
    ``NAME:key=value,...`` syntax (see :func:`workloads`, :func:`placements`).
    ``problem_class`` (alias ``class``) adds ``class=...`` to a kernel's spec. ``trace``
    replays a trace file, as the workload ``trace:file=PATH`` does. ``threads`` (default 16)
    is a trace's own count when the workload is a trace and no count is given. ``dynamic`` names a dynamic policy (see
    :func:`policies`; ``None`` or ``"none"`` for none); ``decisions`` writes its every action
    to a file (``.csv``, else JSON Lines). Raises a subclass of :class:`NumaplaceError` for
    bad input; the same arguments always give the same result.
    """
    given = dict(
        machine=machine, workload=workload, placement=placement, threads=threads, seed=seed, binding=binding,
        init=init, quantum_ns=quantum_ns, oversubscribe=oversubscribe, trace=trace, problem_class=problem_class,
        dynamic=dynamic, decisions=decisions,
    )  # fmt: skip
    return Result.from_json(_native.simulate(request_json("simulate", given, extra)))


def trace_export(
    out: str,
    machine: str = "origin2000",
    workload: str = "stream",
    *,
    threads: int | None = None,
    seed: int = 0,
    binding: str = "spread",
    init: str = "parallel",
    text: bool = False,
    problem_class: str | None = None,
) -> None:
    """Writes ``workload`` as it would run on ``machine`` to the trace file ``out`` (binary,
    or the text form if ``text``). Replaying it gives the same results as the workload."""
    check_text("out", out)
    given = dict(machine=machine, workload=workload, threads=threads, seed=seed, binding=binding, init=init, problem_class=problem_class)
    request = request_json("trace_export", given, {})
    # Checked before the workload is built, so a bad path costs nothing; the Rust writer
    # follows the same rule (sim::output: links followed, devices written through).
    check_output(out, "out")
    _native.trace_export(request, out, bool(text))


def trace_info(path: str) -> dict[str, Any]:
    """A summary of a trace file: header, regions, epochs, records, transactions per phase."""
    check_text("path", path)
    return json.loads(_native.trace_info(path))


def workload_show(
    workload: str,
    machine: str = "origin2000",
    *,
    threads: int | None = None,
    seed: int = 0,
    binding: str = "spread",
    init: str = "parallel",
    problem_class: str | None = None,
) -> dict[str, Any]:
    """A workload's regions, footprint, and per phase its transactions and how much of its
    data it shares across nodes (initialisation and first iteration, untimed)."""
    given = dict(machine=machine, workload=workload, threads=threads, seed=seed, binding=binding, init=init, problem_class=problem_class)
    return json.loads(_native.workload_show(request_json("workload_show", given, {})))


def machines() -> list[dict[str, Any]]:
    """The shipped machine presets: name, description, nodes, CPUs, page size, memory."""
    return json.loads(_native.machines())


def machine(name_or_path: str) -> dict[str, Any]:
    """A machine (preset name or TOML file), validated, as a dict of its file's keys."""
    return json.loads(_native.machine(check_option("machine", name_or_path)))


def workloads() -> list[dict[str, Any]]:
    """Every workload: name, one-line doc, parameters (name, default, doc, kind)."""
    return json.loads(_native.workloads())


def policies() -> list[dict[str, Any]]:
    """Every dynamic policy: name, one-line doc, parameters."""
    return json.loads(_native.policies())


def placements() -> list[dict[str, Any]]:
    """Every placement policy: name, one-line doc, parameters."""
    return json.loads(_native.placements())
