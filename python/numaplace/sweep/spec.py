"""Sweep specs: the options a sweep may set (:data:`OPTIONS`) and the TOML spec parser.

A spec names the options that vary (``[axes]``), those held constant (``[fixed]``) and
combinations to leave out (``[[exclude]]``); :func:`load_spec` parses and validates one into a
:class:`Sweep`, whose :meth:`Sweep.configurations` are the runs in cartesian order.
:func:`run_id` names a run by a hash of its options (the checkpoint's key).
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import os
from collections.abc import Mapping
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


@dataclasses.dataclass(frozen=True)
class Sweep:
    """A parsed, validated sweep spec.

    Attributes:
        source: How the spec is named in messages (its path, ``<string>`` or ``<dict>``).
        axes: Varied options, in spec order, each with its values in spec order.
        fixed: Options held constant.
        exclude: Each entry a mapping option → allowed values; a configuration matching every
            key of one entry is left out.
    """

    source: str
    axes: dict[str, list[Any]]
    fixed: dict[str, Any]
    exclude: list[dict[str, list[Any]]]

    @property
    def options(self) -> list[str]:
        """The options this sweep sets, in :data:`OPTIONS` (column) order."""
        return [name for name in OPTIONS if name in self.axes or name in self.fixed]

    def configurations(self) -> list[dict[str, Any]]:
        """Every configuration (option → value, in column order), in cartesian order."""
        order = self.options
        out = []
        for values in itertools.product(*self.axes.values()):
            config = dict(self.fixed)
            config.update(zip(self.axes, values))
            if any(all(config[k] in allowed for k, allowed in ex.items()) for ex in self.exclude):
                continue
            out.append({k: config[k] for k in order})
        return out


def _err(source: str, message: str) -> SweepError:
    return SweepError(f"{source}: {message}")


def _check_option_name(source: str, where: str, name: str) -> Option:
    if name in OPTIONS:
        return OPTIONS[name]
    import difflib

    close = difflib.get_close_matches(name, OPTIONS, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise _err(source, f"{where}: unknown option {name!r} ({hint}valid: {', '.join(OPTIONS)})")


def _check_value(source: str, where: str, opt: Option, value: Any) -> Any:
    try:
        check_option(opt.name, value, booleans="true or false")  # TOML's spelling
    except ConfigError as e:
        raise _err(source, f"{where} {e}") from None
    return _normalise(opt, value)


def _parse(data: Mapping[str, Any], source: str) -> Sweep:
    if not isinstance(data, Mapping):
        raise _err(source, "a sweep spec must be a table")
    unknown = [k for k in data if k not in ("axes", "fixed", "exclude")]
    if unknown:
        raise _err(source, f"unknown top-level key {unknown[0]!r} (valid: [axes], [fixed], [[exclude]])")
    axes_in = data.get("axes", {})
    fixed_in = data.get("fixed", {})
    exclude_in = data.get("exclude", [])
    if not isinstance(axes_in, Mapping):
        raise _err(source, "[axes] must be a table of option = [values]")
    if not isinstance(fixed_in, Mapping):
        raise _err(source, "[fixed] must be a table of option = value")
    if not isinstance(exclude_in, list) or not all(isinstance(e, Mapping) for e in exclude_in):
        raise _err(source, "exclude must be an array of tables ([[exclude]])")

    axes: dict[str, list[Any]] = {}
    for name, values in axes_in.items():
        opt = _check_option_name(source, "[axes]", name)
        if not isinstance(values, list):
            raise _err(source, f"[axes] {name} = {values!r}: expected a list of values (or move it to [fixed])")
        if not values:
            raise _err(source, f"[axes] {name}: empty list (a sweep needs at least one value per axis)")
        checked = [_check_value(source, "[axes]", opt, v) for v in values]
        seen: list[Any] = []
        for v in checked:
            if v in seen:
                raise _err(source, f"[axes] {name}: value {v!r} is listed twice")
            seen.append(v)
        axes[name] = checked

    fixed: dict[str, Any] = {}
    for name, value in fixed_in.items():
        opt = _check_option_name(source, "[fixed]", name)
        if name in axes:
            raise _err(source, f"option {name!r} is both in [axes] and in [fixed]")
        if isinstance(value, list):
            raise _err(source, f"[fixed] {name} = {value!r}: expected one value (lists belong in [axes])")
        fixed[name] = _check_value(source, "[fixed]", opt, value)

    exclude: list[dict[str, list[Any]]] = []
    for i, table in enumerate(exclude_in, 1):
        where = f"[[exclude]] #{i}"
        if not table:
            raise _err(source, f"{where} is empty (it would exclude every run)")
        entry: dict[str, list[Any]] = {}
        for name, value in table.items():
            opt = _check_option_name(source, where, name)
            if name not in axes and name not in fixed:
                raise _err(source, f"{where}: option {name!r} is set by neither [axes] nor [fixed]")
            values = value if isinstance(value, list) else [value]
            entry[name] = [_check_value(source, where, opt, v) for v in values]
        exclude.append(entry)

    size = math.prod(len(v) for v in axes.values())
    if size > MAX_CONFIGURATIONS:
        # Checked before the product is built: five axes of a thousand values would otherwise
        # take all the memory there is before the first run.
        raise _err(
            source,
            f"[axes] make {size} configurations ({' × '.join(str(len(v)) for v in axes.values())}); "
            f"at most {MAX_CONFIGURATIONS} are allowed in one sweep (split it into several --out)",
        )
    if not axes and not fixed:
        # Without this, an empty file (or a typo'd table emptied by a bad edit) would run one
        # simulation with every default, as though that had been asked for.
        raise _err(source, "the spec sets no option (give [axes] of option = [values] or [fixed] options)")
    sweep = Sweep(source=source, axes=axes, fixed=fixed, exclude=exclude)
    if not sweep.configurations():
        raise _err(source, "[[exclude]] leaves no configuration to run")
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
    source = str(path)
    try:
        data = path.read_bytes()
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
