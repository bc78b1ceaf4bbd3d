"""The Python API: run a simulation and get a result object.

The run options are declared once, in Rust (:data:`OPTIONS` is that table); a call's
keyword arguments become a JSON run request that Rust resolves. Types and ranges are checked
here first from the same table, so a wrong type is a :class:`ConfigError` in Python's terms,
not a ``TypeError`` from the binding layer.
"""

from __future__ import annotations

import copy
import html
import json
import sys
from typing import TYPE_CHECKING, Any

from numaplace import _native
from numaplace._native import ConfigError, NumaplaceError
from numaplace.outfile import check_outputs
from numaplace.messages import shown_value

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_QUANTUM_NS: float = _native.DEFAULT_QUANTUM_NS

#: The run request's options, declared once in Rust (``numaplace_sim::run::request::OPTIONS``), by
#: name: ``kind`` (``type`` text, integer, number, bool or name, with ``min``/``max`` or
#: ``choices``), ``default`` (text, or None for an option unset unless given), ``doc``,
#: ``input`` (a sweep may vary it) and ``python`` (the keyword :func:`simulate` takes it as).
OPTIONS: dict[str, dict[str, Any]] = {o["name"]: o for o in json.loads(_native.run_options())}

#: A sweep's own columns, first in its table before the options (:mod:`numaplace.sweep.checkpoint`
#: writes them; :meth:`Result.from_row` leaves them out). Declared here, below the sweep.
SWEEP_LEAD = ("run", "run_id", "status", "error_type", "error", "attempts")


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
            raise ConfigError(f"{name} = {shown_value(repr(value))}: expected an integer")
        if not kind["min"] <= value <= kind["max"]:
            raise ConfigError(f"{name} = {shown_value(value)}: expected an integer in [{kind['min']}, {kind['max']}]")
    elif ty == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{name} = {shown_value(repr(value))}: expected a number")
        if not kind["min"] <= value <= kind["max"]:
            raise ConfigError(f"{name} = {shown_value(value)}: expected a number in [{kind['min']:g}, {kind['max']:g}]")
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


def in_notebook() -> bool:
    """Whether this process is a Jupyter (IPython) kernel, where output goes to a notebook."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # noqa: BLE001 - an IPython too old or half imported: not a notebook
        return False
    return shell is not None and getattr(shell, "kernel", None) is not None


def show_progress(progress: bool | None) -> bool:
    """Whether to draw a progress bar: ``progress`` if given, else (``None``) when someone can
    see it — in a notebook, or when standard error is a terminal (not when it is piped)."""
    if progress is not None:
        return bool(progress)
    if in_notebook():
        return True
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stderr
        return False


PROGRESS_PERIOD_S: float = _native.PROGRESS_PERIOD_S
"""How often, at most, a running simulation reports its progress (and checks for Ctrl-C):
seconds between reports at epoch boundaries, so that a run shorter than this draws no bar
(declared in Rust, ``crates/py``)."""


class ResultError(NumaplaceError, ValueError):
    """A question a result cannot answer: the jobs of a run that is not a system run, or the
    result of a sweep row whose run failed. Also a ValueError, as it was before it joined the
    NumaplaceError hierarchy, so that code catching ValueError keeps catching it."""


class _RunProgress:
    """A simulation's progress bar (``tqdm.auto``: a widget in a notebook, text on a terminal),
    fed by the Rust engine at epoch boundaries (at most every :data:`PROGRESS_PERIOD_S`, so a
    short run never draws one) through ``_native.simulate``'s ``progress`` callback."""

    def __init__(self, desc: str, unit: str = "iter") -> None:
        self.desc = desc
        self.unit = unit
        self.bar: Any = None

    def __call__(self, iteration: int, iterations: int, epochs: int, simulated_ns: float) -> None:
        if self.bar is None:
            from tqdm.auto import tqdm

            # Reports come at most every PROGRESS_PERIOD_S already: each is drawn (mininterval
            # 0). A notebook keeps the finished bar; a terminal clears it for the run's output.
            # iterations 0: the total is unknown — a protocol run, which counts its barriers.
            self.bar = tqdm(
                total=iterations or None,
                desc=self.desc,
                unit=self.unit if iterations else "barrier",
                dynamic_ncols=True,
                mininterval=0,
                leave=in_notebook(),
            )
        what = f"{epochs:,} epochs, " if iterations else ""
        self.bar.set_postfix_str(f"{what}{simulated_ns / 1e6:,.1f} ms simulated", refresh=False)
        self.bar.update((min(iteration, iterations) if iterations else iteration) - self.bar.n)  # also redraws

    def close(self, finished: bool) -> None:
        if self.bar is not None:
            if finished and self.bar.total is not None:
                self.bar.update(self.bar.total - self.bar.n)
            self.bar.close()


class Result:
    """The result of one simulation.

    Every field of the JSON result is an attribute (``r.total_time_ns``, ``r.local_fraction``,
    ``r.config``, ...). Times are in nanoseconds; traffic is counted in transactions (cache
    lines). ``total_time_ns`` covers the timed iterations; the initialisation (cold-start)
    epoch is reported separately as ``init_time_ns``.

    In a notebook a result displays as an HTML summary (:meth:`_repr_html_`). Tidy frames,
    one row per thing, are :meth:`per_node`, :meth:`per_iteration` and :meth:`per_epoch`;
    :meth:`to_pandas` is the one-row form a sweep's table is made of.
    """

    __slots__ = ("_data",)

    def __init__(self, data: dict[str, Any]) -> None:
        self._data = data

    @classmethod
    def from_json(cls, text: str) -> Result:
        """A result from the JSON text ``numaplace sim --json`` writes."""
        return cls(json.loads(text))

    @classmethod
    def from_row(cls, row: Any) -> Result:
        """The result of one row of a sweep's table (a dict or a pandas row): the inverse of
        :meth:`to_row` (``config.*`` columns become ``config``; the sweep's own columns —
        ``run``, ``status``, the options and parameter keys — are left out). The machine is
        known by name only (``to_row`` drops ``config.machine_spec``).

        Raises:
            ResultError: the row is of a run that failed (it has no result).
        """
        items = dict(row.items() if hasattr(row, "items") else row)
        if items.get("status", "ok") != "ok":
            raise ResultError(f"run {items.get('run')} failed ({items.get('error_type')}: {items.get('error')}): it has no result")
        def value(v: Any) -> Any:
            return None if v is None or (isinstance(v, float) and v != v) else v  # NaN: a null

        config = {k.removeprefix("config."): value(v) for k, v in items.items() if k.startswith("config.")}
        sweep_columns = set(SWEEP_LEAD) | set(OPTIONS)
        data: dict[str, Any] = {"config": config}
        data.update((k, value(v)) for k, v in items.items() if "." not in k and k not in sweep_columns)
        # A nested record (a system run's `system`, a policy's `policy`), flattened by to_row as
        # <record>.<key>. In a table of several runs a record's columns are the union of the
        # runs' records: a record whose every column is missing in this row was empty or absent
        # in this run (a run without a policy has an empty `policy`).
        nested: dict[str, dict[str, Any]] = {}
        for k, v in items.items():
            head, dot, sub = k.partition(".")
            if dot and head != "config" and head not in sweep_columns:
                nested.setdefault(head, {})[sub] = value(v)
        for head, record in nested.items():
            if all(v is None for v in record.values()) and head != "system":
                record = {}
            if record or head not in data:
                data[head] = record
        return cls(data)

    def __getattr__(self, name: str) -> Any:
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(f"Result has no field {name!r}") from None

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._data))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and self._data == other._data

    @property
    def kind(self) -> str:
        """What the run simulated: ``"page"`` (one program, page-level engine), ``"protocol"``
        (one line-level program on the protocol engine) or ``"system"`` (a job stream)."""
        return self._data["config"].get("engine", "page")

    def per_job(self) -> pd.DataFrame:
        """A system run's jobs, one row each (``job``, ``workload``, ``request``, times in ns,
        ``cpu_time_ns``, ``speedup``, ``mean_cpus``, ``process_migrations``, ``bursts``,
        ``local_fraction``, ``pages_migrated``, ...; docs/multiprogramming.md).

        Raises:
            ResultError: the result is not of a system run.
        """
        import pandas as pd

        return pd.DataFrame(self._system_field("jobs"))

    def timeline(self) -> pd.DataFrame:
        """A system run's allocation timeline: ``time_ns``, ``job``, ``cpus`` (the job's
        thread count from that time on; 0 at its end).

        Raises:
            ResultError: the result is not of a system run.
        """
        import pandas as pd

        return pd.DataFrame(self._system_field("timeline"), columns=["time_ns", "job", "cpus"])

    def _system_field(self, name: str) -> Any:
        if self.kind != "system":
            raise ResultError(f"Result.{'per_job' if name == 'jobs' else name}: a {self.kind} run has no jobs (give job_stream= for a system run)")
        return self._data[name]

    def __repr__(self) -> str:
        c = self._data["config"]
        if self.kind == "system":
            s = self._data["system"]
            return f"<Result {c['machine']} job_stream={c['job_stream']} {s['scheduler']}: makespan {s['makespan_ns'] / 1e9:.3f} s, {s['jobs']} jobs>"
        if self.kind == "protocol":
            return f"<Result {c['machine']} protocol {c['workload']} {c['placement']} proxies={c['proxies']} buffers={c['buffers']}: {self._data['total_time_ns'] / 1e6:.3f} ms>"
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
        """A flat dict: ``config`` keys become ``config.<key>`` (the machine as its name only),
        and a system run's ``system`` record ``system.<key>``; list fields stay lists."""
        row: dict[str, Any] = {}
        for k, v in self._data["config"].items():
            if k != "machine_spec":
                row[f"config.{k}"] = v
        for k, v in self._data.items():
            if k == "config":
                continue
            if isinstance(v, dict):
                row.update((f"{k}.{sub}", x) for sub, x in v.items())
            else:
                row[k] = v
        return row

    def to_pandas(self) -> pd.DataFrame:
        """A one-row DataFrame of :meth:`to_row` (list fields stay lists)."""
        import pandas as pd

        return pd.DataFrame([self.to_row()])

    def per_node(self) -> pd.DataFrame:
        """One row per NUMA node: ``node``, ``threads`` (bound to it), ``pages`` (of the
        workload on it at the end), ``transactions`` (timed, served by its memory), their
        ``share`` of all timed transactions, ``utilisation`` of its memory controller, and
        ``queue_ns``, the mean queueing delay a line it served waited there (its loaded
        latency is the unloaded one plus this)."""
        import pandas as pd

        d = self._data
        nodes = len(d["per_node_pages"])
        bound = [0] * nodes
        for n in d["config"]["thread_nodes"]:
            bound[n] += 1
        total = sum(d["per_node_transactions"])
        return pd.DataFrame(
            {
                "node": range(nodes),
                "threads": bound,
                "pages": d["per_node_pages"],
                "transactions": d["per_node_transactions"],
                "share": [t / total if total else 0.0 for t in d["per_node_transactions"]],
                "utilisation": d["per_node_utilisation"],
                "queue_ns": d["per_node_queue_ns"],
            }
        )

    def per_iteration(self) -> pd.DataFrame:
        """One row per timed iteration (1, 2, ...): ``iteration``, ``time_ns``, ``end_ns``
        (time from the start of the timed part to its end), ``local_fraction`` (its local
        share of transactions) and ``epochs`` (how many it has)."""
        import pandas as pd

        d = self._data
        times = d["per_iteration_time_ns"]
        counts = [0] * len(times)
        for e in d["epochs"]:
            if e["iteration"] > 0:
                counts[e["iteration"] - 1] += 1
        end, ends = 0.0, []
        for t in times:
            end += t
            ends.append(end)
        return pd.DataFrame(
            {
                "iteration": range(1, len(times) + 1),
                "time_ns": times,
                "end_ns": ends,
                "local_fraction": d["per_iteration_local_fraction"],
                "epochs": counts,
            }
        )

    def per_epoch(self) -> pd.DataFrame:
        """One row per epoch, the initialisation (iteration 0) first: ``epoch`` (its index),
        ``iteration``, ``phase``, ``time_ns`` and ``start_ns`` (its start, from the start of
        the run, initialisation included)."""
        import pandas as pd

        epochs = self._data["epochs"]
        start, starts = 0.0, []
        for e in epochs:
            starts.append(start)
            start += e["time_ns"]
        return pd.DataFrame(
            {
                "epoch": range(len(epochs)),
                "iteration": [e["iteration"] for e in epochs],
                "phase": [e["phase"] for e in epochs],
                "time_ns": [e["time_ns"] for e in epochs],
                "start_ns": starts,
            }
        )

    #: The most per-iteration rows the HTML display lists (the rest are summarised).
    HTML_ITERATIONS = 10

    #: The headline fields of a protocol run's notebook display.
    HTML_PROTOCOL_FIELDS = (
        "total_time_ns", "line_accesses", "messages", "bounces", "proxy_reads", "requests_combined",
        "remote_read_mean_cycles", "queue_cycles_mean", "flc_miss_rate", "slc_miss_rate", "ctrl_util_mean",
    )  # fmt: skip

    def _other_html(self, table: Any) -> str:
        """The notebook display of a protocol or system run: its configuration (scalars) and
        headline numbers; a system run's jobs as their first :attr:`HTML_ITERATIONS` rows."""
        d, c, e = self._data, self._data["config"], html.escape
        what = [[k, str(v)] for k, v in c.items() if k != "machine_spec" and not isinstance(v, (list, dict))]
        if self.kind == "system":
            headline = [[k, f"{v:,.4g}" if isinstance(v, float) else str(v)] for k, v in d["system"].items()]
            jobs = self.per_job().head(self.HTML_ITERATIONS)
            cols = ["job", "workload", "request", "response_ns", "cpu_time_ns", "speedup", "mean_cpus", "local_fraction"]
            rows = [[f"{getattr(r, k):,.4g}" if isinstance(getattr(r, k), float) else str(getattr(r, k)) for k in cols] for r in jobs.itertuples()]
            extra = table(cols, rows)
        else:
            headline = [[k, f"{d[k]:,.4g}" if isinstance(d[k], float) else f"{d[k]:,}"] for k in self.HTML_PROTOCOL_FIELDS]
            extra = ""
        return (
            '<div class="numaplace-result">'
            f"<strong>numaplace result</strong>, {e(self.kind)} run (numaplace {e(c['numaplace_version'])})"
            f"{table(['run', ''], what)}{table(['result', ''], headline)}{extra}</div>"
        )

    def _repr_html_(self) -> str:
        """The notebook display: what ran, the headline numbers, then small tables per node and
        per iteration (at most :attr:`HTML_ITERATIONS` rows). Text is escaped."""
        d = self._data
        c = d["config"]
        e = html.escape

        def table(head: list[str], rows: list[list[str]]) -> str:
            th = "".join(f"<th>{e(h)}</th>" for h in head)
            body = "".join("<tr>" + "".join(f"<td>{e(v)}</td>" for v in r) + "</tr>" for r in rows)
            return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"

        if self.kind != "page":
            return self._other_html(table)
        what = [
            ["machine", c["machine"]],
            ["workload", c["workload"]],
            ["placement", c["placement"]],
            ["dynamic", c["dynamic"] or "none"],
            ["threads", f"{c['threads']} ({c['binding']})"],
        ]
        headline = [
            ["time (timed iterations)", f"{d['total_time_ns'] / 1e6:,.3f} ms"],
            ["initialisation", f"{d['init_time_ns'] / 1e6:,.3f} ms"],
            ["local share", f"{d['local_fraction']:.1%}"],
            ["transactions", f"{d['transactions']:,}"],
            ["migrations / replications", f"{d['migrations']:,} / {d['replications']:,}"],
        ]
        nodes = self.per_node()
        node_rows = [
            [str(r.node), str(r.threads), f"{r.pages:,}", f"{r.transactions:,}", f"{r.share:.1%}", f"{r.utilisation:.1%}"]
            for r in nodes.itertuples()
        ]
        its = self.per_iteration()
        shown = its.head(self.HTML_ITERATIONS)
        it_rows = [[str(r.iteration), f"{r.time_ns / 1e6:,.3f}", f"{r.local_fraction:.1%}"] for r in shown.itertuples()]
        more = len(its) - len(shown)
        tail = f"<p>… and {more} more iterations (<code>per_iteration()</code>)</p>" if more > 0 else ""
        cell = 'style="vertical-align:top; padding-right:2em"'
        return (
            '<div class="numaplace-result">'
            f"<strong>numaplace result</strong> (numaplace {e(c['numaplace_version'])})"
            f"<table><tr><td {cell}>{table(['run', ''], what)}</td><td {cell}>{table(['result', ''], headline)}</td></tr>"
            f"<tr><td {cell}>{table(['node', 'threads', 'pages', 'transactions', 'share', 'utilisation'], node_rows)}</td>"
            f"<td {cell}>{table(['iteration', 'time (ms)', 'local'], it_rows)}{tail}</td></tr></table>"
            "</div>"
        )


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
    fast_memory_mib: float | None = None,
    trace: str | None = None,
    problem_class: str | None = None,
    dynamic: str | None = None,
    decisions: str | None = None,
    engine: str = "auto",
    proxies: str = "none",
    buffers: str = "infinite",
    job_stream: str | None = None,
    load: float = 1.0,
    job_count: int | None = None,
    apps: str | None = None,
    scheduler: str = "equipartition",
    progress: bool | None = None,
    **extra: Any,
) -> Result:
    """Simulates ``workload`` on ``machine`` under the ``placement`` policy.

    The keyword arguments are the run options (:data:`OPTIONS`, ``numaplace sim --help``;
    a test keeps this signature equal to them). ``machine`` is a preset name (see
    :func:`machines`) or a path to a machine TOML file, either optionally ending in
    ``:time_scale=K`` (every page-migration cost divided by K, for a policy whose periods and
    fault costs are divided by K: ``docs/tiering.md``, "Time scale"); ``workload`` and ``placement`` use the
    ``NAME:key=value,...`` syntax (see :func:`workloads`, :func:`placements`).
    ``problem_class`` (alias ``class``) adds ``class=...`` to a kernel's spec. ``trace``
    replays a trace file, as the workload ``trace:file=PATH`` does. ``threads`` (default 16)
    is a trace's own count when the workload is a trace and no count is given. ``dynamic`` names a dynamic policy (see
    :func:`policies`; ``None`` or ``"none"`` for none); ``decisions`` writes its every action
    to a file as the run goes (``.csv``, ``.parquet``, else JSON Lines; ``numaplace explain`` reads
    them back: ``docs/explain.md``). ``fast_memory_mib`` resizes a tiered machine's fast
    tier for the run (MiB, fractions allowed; ``docs/tiering.md``). Raises a subclass of
    :class:`NumaplaceError` for bad input; the same arguments always give the same result.

    Three kinds of run take the same options (each option says which it applies to; setting
    one to another value than its default on a kind it does not apply to is a
    :class:`ConfigError`):

    * one program on the page-level engine (the default);
    * one line-level program (:func:`programs`) on the protocol engine (seed 004;
      ``engine="protocol"``, or a machine such as ``talbot64`` whose engine it is), with
      ``proxies`` (``none``, ``basic``, ``reactive``) and ``buffers`` (``infinite``,
      ``finite``); the result's fields are the engine's (``docs/protocol.md``);
    * a multiprogrammed system (seed 002) when ``job_stream`` names one: ``W1`` ... ``W4``
      (seed 002's mixes, generated at ``load``) or an SWF file, with ``job_count``, ``apps``
      (what the jobs run) and a ``scheduler`` (:func:`schedulers`); the result has a
      ``system`` record, ``jobs`` (:meth:`Result.per_job`) and an allocation ``timeline``
      (:meth:`Result.timeline`).

    ``progress`` is not a run option: it draws a progress bar (``tqdm.auto``) of a run that
    takes more than :data:`PROGRESS_PERIOD_S` (a tenth of a second), reported by the engine at
    epoch boundaries. ``None`` (the default) shows it in a notebook or when standard error is a
    terminal, not when it is piped; ``True`` or ``False`` force it. It never changes the
    result. Ctrl-C stops a run (``KeyboardInterrupt``) within about that period after its
    current epoch.
    """
    given = dict(
        machine=machine, workload=workload, placement=placement, threads=threads, seed=seed, binding=binding,
        init=init, quantum_ns=quantum_ns, oversubscribe=oversubscribe, fast_memory_mib=fast_memory_mib, trace=trace,
        problem_class=problem_class,
        dynamic=dynamic, decisions=decisions, engine=engine, proxies=proxies, buffers=buffers, job_stream=job_stream, load=load,
        job_count=job_count, apps=apps, scheduler=scheduler,
    )  # fmt: skip
    request = request_json("simulate", given, extra)
    if progress is not None and not isinstance(progress, bool):
        raise ConfigError(f"progress = {progress!r}: expected True, False or None")
    if decisions is not None:  # the one output of a run: not a file the run reads
        check_outputs([(decisions, "decisions")], [(trace, "trace"), (machine, "machine"), (job_stream, "job_stream")])

    def run(sink: Any = None) -> Result:
        if not show_progress(progress):
            return Result.from_json(_native.simulate(request, None, None, sink))
        bar = _RunProgress(f"simulate {job_stream or trace or workload}", unit="job" if job_stream else "iter")
        finished = False
        try:
            result = Result.from_json(_native.simulate(request, bar, PROGRESS_PERIOD_S, sink))
            finished = True
            return result
        finally:
            bar.close(finished)

    if decisions is not None and decisions.endswith(".parquet"):
        return _write_parquet_log(decisions, run)
    return run()


def _decision_log_schema() -> Any:
    """The Parquet schema of a decision log (the simulator's columns, ``docs/explain.md``)."""
    import pyarrow as pa

    text = pa.string()
    fields = [
        ("time_ns", pa.float64()), ("page", pa.uint32()), ("region", text), ("from", pa.uint8()), ("to", pa.uint8()),
        ("action", text), ("reason", text), ("trigger", text), ("tier", text), ("measured", text), ("value", pa.float64()),
        ("threshold", text), ("limit", pa.float64()), ("queue_from_ns", pa.float64()), ("queue_to_ns", pa.float64()),
        ("cost_ns", pa.float64()), ("background", pa.bool_()), ("counts", pa.list_(pa.uint16())),
    ]  # fmt: skip
    return pa.schema(fields)


def _write_parquet_log(path: str, run: Any) -> Any:
    """Runs ``run(sink)`` with a sink that appends each batch of decisions the simulator hands
    it (a dict of columns) to a Parquet file at ``path`` as one row group, written by the
    output rule (a temporary renamed into place once the run has finished, removed if it
    fails). Returns what ``run`` returns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from numaplace.outfile import write_with

    schema = _decision_log_schema()
    out: dict[str, Any] = {}

    def write(p: Any) -> None:
        with pq.ParquetWriter(p, schema) as w:
            out["result"] = run(lambda cols: w.write_batch(pa.RecordBatch.from_pydict(cols, schema=schema)))

    write_with(path, "decisions", write)
    return out["result"]


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
    engine: str = "auto",
) -> None:
    """Writes ``workload`` as it would run on ``machine`` to the trace file ``out`` (binary,
    or the text form if ``text``). Replaying it gives the same results as the workload. On the
    protocol engine (``engine``, or a machine whose engine it is) the workload is a line-level
    program and the trace is a line-level one (format version 2, binary only)."""
    check_text("out", out)
    given = dict(
        machine=machine, workload=workload, threads=threads, seed=seed, binding=binding, init=init, problem_class=problem_class,
        engine=engine,
    )  # fmt: skip
    request = request_json("trace_export", given, {})
    # Checked before the workload is built, so a bad path costs nothing; the Rust writer
    # follows the same rule (sim::output: links followed, devices written through).
    check_outputs([(out, "out")], [(machine, "machine")])
    _native.trace_export(request, out, bool(text))


def trace_info(path: str) -> dict[str, Any]:
    """A summary of a trace file: header, regions, epochs, records, transactions per phase; of
    a line-level trace (``format`` = ``"line"``): regions, operations, reads, writes, compute
    cycles, barriers and locks."""
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


def programs() -> list[dict[str, Any]]:
    """Every line-level program (the protocol engine's workloads, seed 004): name, one-line
    doc, parameters."""
    return json.loads(_native.programs())


def schedulers() -> list[dict[str, Any]]:
    """Every processor scheduler of system runs (seed 002): name, one-line doc, parameters,
    ``sharing`` (space or time) and what it reads."""
    return json.loads(_native.schedulers())


def policies() -> list[dict[str, Any]]:
    """Every dynamic policy: name, one-line doc, parameters."""
    return json.loads(_native.policies())


def placements() -> list[dict[str, Any]]:
    """Every placement policy: name, one-line doc, parameters."""
    return json.loads(_native.placements())
