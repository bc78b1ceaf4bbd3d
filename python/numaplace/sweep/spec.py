"""Sweep specs: the options a sweep may set (:data:`OPTIONS`) and the TOML spec parser.

A spec names the options that vary (``[axes]``), those held constant (``[fixed]``), those
varied together (``[[zip]]``) and combinations to leave out (``[[exclude]]``); a key is an
option or a parameter of one (``workload.pages``, :data:`PARAM_OPTIONS`). :func:`load_spec`
parses and validates one into a :class:`Sweep`, whose :meth:`Sweep.points` are the runs as
the spec writes them and :meth:`Sweep.configurations` the same runs as run options.
:func:`run_id` names a run by a hash of its options (the checkpoint's key).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from numaplace._native import ConfigError
from numaplace.api import OPTIONS as API_OPTIONS
from numaplace.api import check_option
from numaplace.sweep.errors import SweepError

# --- options ---------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Option:
    """One option a sweep can set: its name, value type and meaning (from the run request's
    declaration, :data:`numaplace.api.OPTIONS`)."""

    name: str
    kind: str  # "string", "integer", "number" or "boolean"
    doc: str
    lo: int | float | None = None
    hi: int | float | None = None


_KINDS = {"text": "string", "name": "string", "integer": "integer", "number": "number", "bool": "boolean"}

OPTIONS: dict[str, Option] = {
    name: Option(name, _KINDS[o["kind"]["type"]], o["doc"], o["kind"].get("min"), o["kind"].get("max"))
    for name, o in API_OPTIONS.items()
    if o["input"]
}
"""Every option a sweep spec may name — the run request's inputs (outputs such as
``decisions`` are not swept) — in the order of the table's input columns."""

OPTIONS_DEFAULTS: dict[str, Any] = {name: API_OPTIONS[name]["default"] for name in OPTIONS}
"""Each sweep option's declared default, as text (None where unset unless given)."""

KEYWORD_ALIASES: dict[str, tuple[str, ...]] = {
    name: (o["python"], name) for name, o in API_OPTIONS.items() if o["python"] != name
}
"""simulate() keyword names an option may be passed as, first match wins: the declared Python
keyword (``class`` is a Python keyword: simulate() spells it ``problem_class``), then the
option's own name (which a custom simulate may take through ``**kwargs``)."""


def _normalise(opt: Option, value: Any) -> Any:
    return float(value) if opt.kind == "number" else value


# --- the spec --------------------------------------------------------------------------------

MAX_CONFIGURATIONS = 1_000_000
"""The most configurations (the axes' product, before [[exclude]]) one sweep may have.

Every configuration is planned in memory (a dict, its run id, later its record and row: a
few kilobytes), so a million is a few gigabytes at most; at a millisecond for the smallest
run it is also a quarter of an hour of runs, and real runs take far longer.
"""


PARAM_OPTIONS: tuple[str, ...] = tuple(name for name, o in API_OPTIONS.items() if o["registry"])
"""The options whose values are ``NAME:key=value,...`` specs of a registry (the run request
declares which, ``registry``), so that a spec may vary one parameter at a time
(``"workload.pages" = [1024, 4096]``, ``"scheduler.mpl" = [1, 2]``)."""

#: Where a key of the spec was set, for messages: ``[axes]``, ``[fixed]`` or ``[[zip]] #N``.
_Where = str


@dataclasses.dataclass(frozen=True)
class Sweep:
    """A parsed, validated sweep spec.

    A *key* is an option (``workload``) or a parameter of one (``workload.pages``: see
    :data:`PARAM_OPTIONS`); a parameter key adds ``pages=VALUE`` to its option's spec string,
    whose base is the option's value (or its default when the spec does not set it).

    Attributes:
        source: How the spec is named in messages (its path, ``<string>`` or ``<dict>``).
        axes: Varied keys, in spec order, each with its values in spec order.
        fixed: Keys held constant.
        exclude: Each entry a mapping key → allowed values; a configuration matching every
            key of one entry is left out.
        zips: Groups of keys varied together (``[[zip]]``): in each, every key has a list of
            the same length and the i-th values go together. Each group is one more axis of
            the product, after ``axes``, in spec order.
    """

    source: str
    axes: dict[str, list[Any]]
    fixed: dict[str, Any]
    exclude: list[dict[str, list[Any]]]
    zips: list[dict[str, list[Any]]] = dataclasses.field(default_factory=list)

    @property
    def keys(self) -> list[str]:
        """Every key the spec sets, in column order: the options in :data:`OPTIONS` order,
        each followed by its parameter keys in the order the spec first writes them."""
        seen = [*self.fixed, *self.axes, *(k for z in self.zips for k in z)]
        order = {name: i for i, name in enumerate(OPTIONS)}
        return sorted(seen, key=lambda k: (order[k.split(".", 1)[0]], "." in k, seen.index(k)))

    @property
    def options(self) -> list[str]:
        """The run options this sweep sets (directly or through a parameter), in :data:`OPTIONS`
        (column) order."""
        set_ = {k.split(".", 1)[0] for k in self.keys}
        return [name for name in OPTIONS if name in set_]

    @property
    def size(self) -> int:
        """Configurations before ``[[exclude]]``: the product of the axes' and zips' lengths."""
        return math.prod(len(v) for v in self.axes.values()) * math.prod(_zip_length(z) for z in self.zips)

    def points(self) -> list[dict[str, Any]]:
        """Every configuration as the spec writes it (key → value, in :attr:`keys` order), in
        product order (the last axis, or zip group, varying fastest), minus the excluded."""
        keys = self.keys
        dims: list[list[dict[str, Any]]] = [[{k: v} for v in values] for k, values in self.axes.items()]
        dims += [[{k: z[k][i] for k in z} for i in range(_zip_length(z))] for z in self.zips]
        out = []
        for parts in itertools.product(*dims):
            point = dict(self.fixed)
            for part in parts:
                point.update(part)
            if any(all(point[k] in allowed for k, allowed in ex.items()) for ex in self.exclude):
                continue
            out.append({k: point[k] for k in keys})
        return out

    def configurations(self) -> list[dict[str, Any]]:
        """Every configuration as run options (option → value, in column order; parameter keys
        folded into their option's spec string), in the order of :meth:`points`."""
        return [run_options(p) for p in self.points()]


def _zip_length(z: Mapping[str, list[Any]]) -> int:
    return len(next(iter(z.values())))


def _param_text(value: Any) -> str:
    """A parameter value as a spec string writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def _base_params(base: str) -> list[str]:
    """The parameter names a ``NAME:key=value,...`` spec string already sets."""
    _, _, params = base.partition(":")
    return [p.split("=", 1)[0].strip() for p in params.split(",") if p.strip()]


def run_options(point: Mapping[str, Any]) -> dict[str, Any]:
    """The run options of one configuration as the spec writes it: each parameter key
    ``option.param`` is appended to its option's spec string (the option's own value, else
    its default) as ``param=value``, in the order of ``point``."""
    options: dict[str, Any] = {}
    for key, value in point.items():
        name, dot, param = key.partition(".")
        if not dot:
            options[key] = value
            continue
        base = options.get(name, point.get(name))
        if base is None:
            base = OPTIONS_DEFAULTS[name]
        options[name] = f"{base}{',' if ':' in base else ':'}{param}={_param_text(value)}"
    return options


def _err(source: str, message: str) -> SweepError:
    return SweepError(f"{source}: {message}")


def _check_option_name(source: str, where: str, name: str) -> Option:
    if name in OPTIONS:
        return OPTIONS[name]
    import difflib

    close = difflib.get_close_matches(name, OPTIONS, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise _err(source, f"{where}: unknown option {name!r} ({hint}valid: {', '.join(OPTIONS)})")


def _check_key(source: str, where: str, key: str) -> Option | None:
    """The option of a key, or None for a parameter key (``option.param``), whose value is
    checked once the spec strings are built (:func:`_check_params`)."""
    if not isinstance(key, str) or "." not in key:
        return _check_option_name(source, where, key)
    name, _, param = key.partition(".")
    _check_option_name(source, where, name)
    if name not in PARAM_OPTIONS:
        raise _err(source, f"{where}: {key!r}: {name} has no parameters (parameter keys: {', '.join(p + '.NAME' for p in PARAM_OPTIONS)})")
    if not param or not all(c.isalnum() or c in "_-" for c in param):
        raise _err(source, f"{where}: {key!r}: expected {name}.PARAMETER (a parameter name of letters, digits, - or _)")
    return None


def _check_value(source: str, where: str, opt: Option | None, value: Any, key: str = "") -> Any:
    if opt is None:  # a parameter: a TOML scalar that cannot break the spec string it joins
        if isinstance(value, (bool, int, float, str)):
            text = _param_text(value)
            if isinstance(value, float) and not math.isfinite(value):
                raise _err(source, f"{where} {key} = {value!r}: expected a finite number")
            if not text or any(c in text for c in ",=:") or text != text.strip():
                raise _err(source, f"{where} {key} = {value!r}: a parameter value cannot be empty or hold , = : or surrounding spaces")
            return value
        raise _err(source, f"{where} {key} = {value!r}: expected a number or a string")
    try:
        check_option(opt.name, value, booleans="true or false")  # TOML's spelling
    except ConfigError as e:
        raise _err(source, f"{where} {e}") from None
    return _normalise(opt, value)


def _check_list(source: str, where: str, key: str, values: Any, hint: str) -> list[Any]:
    opt = _check_key(source, where, key)
    if not isinstance(values, list):
        raise _err(source, f"{where} {key} = {values!r}: expected a list of values ({hint})")
    if not values:
        raise _err(source, f"{where} {key}: empty list (a sweep needs at least one value per axis)")
    return [_check_value(source, where, opt, v, key) for v in values]


def _check_params(sweep: Sweep, where: Mapping[str, _Where]) -> None:
    """Checks every spec string a parameter key makes, against its registry's declared
    parameters (``numaplace._native.check_spec``: an unknown parameter is named with the valid
    ones), once per distinct string; and that no base already sets the parameter."""
    from numaplace import _native
    from numaplace._native import NumaplaceError

    params = [k for k in sweep.keys if "." in k]
    if not params:
        return
    checked: set[tuple[str, str]] = set()
    for point in sweep.points():
        options = run_options(point)
        for key in params:
            name, _, param = key.partition(".")
            base = point.get(name)
            if base is None:
                base = OPTIONS_DEFAULTS[name]
            if (key, base) not in checked:
                checked.add((key, base))
                if name == "dynamic" and base.strip() == "none":
                    raise _err(
                        sweep.source,
                        f"{where[key]} {key}: a parameter of no policy (dynamic = \"none\"); "
                        "pair parameters with policies in a [[zip]], or [[exclude]] the none runs",
                    )
                if param in _base_params(base):
                    raise _err(sweep.source, f"{where[key]} {key}: {name} = {base!r} already sets {param}")
            text = options[name]
            if (name, text) in checked:
                continue
            checked.add((name, text))
            try:
                _native.check_spec(name, text)
            except NumaplaceError as e:
                raise _err(sweep.source, f"{where[key]} {key}: {e}") from None


def _key(value: Any) -> Any:
    """``value`` as a dict key that is equal where the values are (``==``): itself if hashable."""
    try:
        hash(value)
    except TypeError:
        return ("unhashable", json.dumps(value, sort_keys=True, default=repr))
    return value


def _first_repeat(values: Sequence[Any]) -> tuple[int, int] | None:
    """The indices of the first value listed again and of that repeat (by ``==``), or None; in
    time linear in the values (a spec's axis may hold up to :data:`MAX_CONFIGURATIONS`)."""
    first: dict[Any, int] = {}
    for i, v in enumerate(values):
        j = first.setdefault(_key(v), i)
        if j != i:
            return j, i
    return None


def _check_size(source: str, axes_in: Mapping[str, Any], zip_in: Sequence[Any]) -> None:
    """Refuses a spec of more than :data:`MAX_CONFIGURATIONS` from its lists' lengths alone,
    before any value is checked or any configuration built (a list that is not one, or a zip
    group that is not a table, counts for one here and is refused later in its own words)."""
    lengths = [len(v) if isinstance(v, list) else 1 for v in axes_in.values()]
    for z in zip_in:
        lists = [v for v in z.values() if isinstance(v, list)] if isinstance(z, Mapping) else []
        lengths.append(max(map(len, lists), default=1))
    size = math.prod(lengths)
    if size > MAX_CONFIGURATIONS:
        # Checked before the product is built: five axes of a thousand values would otherwise
        # take all the memory there is before the first run.
        raise _err(
            source,
            f"[axes] make {size} configurations ({' × '.join(map(str, lengths))}); "
            f"at most {MAX_CONFIGURATIONS} are allowed in one sweep (split it into several --out)",
        )


def _parse(data: Mapping[str, Any], source: str) -> Sweep:
    if not isinstance(data, Mapping):
        raise _err(source, "a sweep spec must be a table")
    unknown = [k for k in data if k not in ("axes", "fixed", "exclude", "zip")]
    if unknown:
        raise _err(source, f"unknown top-level key {unknown[0]!r} (valid: [axes], [fixed], [[zip]], [[exclude]])")
    axes_in = data.get("axes", {})
    fixed_in = data.get("fixed", {})
    exclude_in = data.get("exclude", [])
    zip_in = data.get("zip", [])
    if not isinstance(axes_in, Mapping):
        raise _err(source, "[axes] must be a table of option = [values]")
    if not isinstance(fixed_in, Mapping):
        raise _err(source, "[fixed] must be a table of option = value")
    if not isinstance(exclude_in, list) or not all(isinstance(e, Mapping) for e in exclude_in):
        raise _err(source, "exclude must be an array of tables ([[exclude]])")
    if not isinstance(zip_in, list) or not all(isinstance(z, Mapping) for z in zip_in):
        raise _err(source, "zip must be an array of tables ([[zip]] of option = [values], the lists of one length)")

    _check_size(source, axes_in, zip_in)
    where: dict[str, _Where] = {}

    def claim(key: str, here: _Where) -> None:
        if key in where:
            raise _err(source, f"{key!r} is set twice (in {where[key]} and in {here})")
        where[key] = here

    axes: dict[str, list[Any]] = {}
    for name, values in axes_in.items():
        checked = _check_list(source, "[axes]", name, values, "or move it to [fixed]")
        repeat = _first_repeat(checked)
        if repeat is not None:
            raise _err(source, f"[axes] {name}: value {checked[repeat[1]]!r} is listed twice")
        claim(name, "[axes]")
        axes[name] = checked

    fixed: dict[str, Any] = {}
    for name, value in fixed_in.items():
        opt = _check_key(source, "[fixed]", name)
        if name in axes:
            raise _err(source, f"option {name!r} is both in [axes] and in [fixed]")
        if isinstance(value, list):
            raise _err(source, f"[fixed] {name} = {value!r}: expected one value (lists belong in [axes])")
        claim(name, "[fixed]")
        fixed[name] = _check_value(source, "[fixed]", opt, value, name)

    zips: list[dict[str, list[Any]]] = []
    for i, table in enumerate(zip_in, 1):
        here = f"[[zip]] #{i}"
        if not table:
            raise _err(source, f"{here} is empty (give two or more option = [values], the lists of one length)")
        group = {name: _check_list(source, here, name, values, "the keys of a [[zip]] vary together") for name, values in table.items()}
        lengths = {name: len(v) for name, v in group.items()}
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f"{k} has {n}" for k, n in lengths.items())
            raise _err(source, f"{here}: the lists must have one length, to go together ({shown})")
        repeat = _first_repeat([tuple(map(_key, row)) for row in zip(*group.values())])
        if repeat is not None:
            raise _err(source, f"{here}: values #{repeat[0] + 1} and #{repeat[1] + 1} are the same")
        for name in group:
            claim(name, here)
        zips.append(group)

    exclude: list[dict[str, list[Any]]] = []
    for i, table in enumerate(exclude_in, 1):
        here = f"[[exclude]] #{i}"
        if not table:
            raise _err(source, f"{here} is empty (it would exclude every run)")
        entry: dict[str, list[Any]] = {}
        for name, value in table.items():
            opt = _check_key(source, here, name)
            if name not in where:
                raise _err(source, f"{here}: option {name!r} is set by neither [axes], [fixed] nor a [[zip]]")
            values = value if isinstance(value, list) else [value]
            entry[name] = [_check_value(source, here, opt, v, name) for v in values]
        exclude.append(entry)

    sweep = Sweep(source=source, axes=axes, fixed=fixed, exclude=exclude, zips=zips)
    if not axes and not fixed and not zips:
        # Without this, an empty file (or a typo'd table emptied by a bad edit) would run one
        # simulation with every default, as though that had been asked for.
        raise _err(source, "the spec sets no option (give [axes] of option = [values] or [fixed] options)")
    if not sweep.points():
        raise _err(source, "[[exclude]] leaves no configuration to run")
    _check_params(sweep, where)
    return sweep


def _toml_loads(text: str, source: str) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _err(source, f"not valid TOML: {' '.join(str(e).split())}") from None
    except RecursionError:  # tomllib parses nested arrays and tables recursively
        raise _err(source, "not valid TOML: nested too deeply") from None


def _looks_like_toml(text: str) -> bool:
    """Whether a ``str`` spec is TOML text rather than a path.

    A spec that sets anything has a ``=`` (a key) or a ``[`` (a table); a one-line string with
    neither, or ending in ``.toml``, is a file name, so that ``numaplace sweep missing`` says
    the file does not exist rather than "not valid TOML".
    """
    if "\n" in text:
        return True
    return not text.endswith(".toml") and ("=" in text or "[" in text) and not Path(text).is_file()


def _read_spec_file(path: Path) -> str:
    """The text of a spec file, or a one-line error saying why it cannot be had."""
    from numaplace.infile import InputError, read_input

    source = str(path)
    try:
        data = read_input(path, "sweep spec")
    except InputError as e:
        raise SweepError(str(e)) from None
    except FileNotFoundError:
        raise _err(source, "the sweep spec does not exist") from None
    except IsADirectoryError:
        raise _err(source, "the sweep spec is a directory") from None
    except OSError as e:
        raise _err(source, f"cannot read the sweep spec: {e.strerror or e}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _err(source, f"the sweep spec is not UTF-8 text (byte {e.start} is 0x{data[e.start]:02x})") from None


def load_spec(spec: str | os.PathLike[str] | Mapping[str, Any] | Sweep) -> Sweep:
    """Parses and validates a sweep spec: a path to a TOML file, TOML text, or a dict.

    A ``str`` is TOML text when it has a newline, or a ``=`` or ``[`` and does not name a file
    or end in ``.toml``; any other ``str`` is a path.

    Raises:
        SweepError: the spec does not exist, cannot be read, is not UTF-8 or valid TOML, sets
            no option, names an unknown option (the message lists the valid ones), or has a
            value of the wrong type. The message is one line and starts with the spec's name.
    """
    if isinstance(spec, Sweep):
        return spec
    if isinstance(spec, Mapping):
        return _parse(spec, "<dict>")
    if isinstance(spec, os.PathLike) or (isinstance(spec, str) and not _looks_like_toml(spec)):
        try:
            path = Path(spec)
        except TypeError:  # a PathLike whose __fspath__ returns bytes
            raise SweepError(f"a sweep spec path must be text, not {spec!r}") from None
        return _parse(_toml_loads(_read_spec_file(path), str(path)), str(path))
    if isinstance(spec, str):
        return _parse(_toml_loads(spec, "<string>"), "<string>")
    raise SweepError(f"a sweep spec is a path, TOML text or a dict, not {type(spec).__name__}")


def run_id(options: Mapping[str, Any]) -> str:
    """A stable identifier of a run: a hash of its option dict (independent of key order)."""
    text = json.dumps(dict(options), sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
