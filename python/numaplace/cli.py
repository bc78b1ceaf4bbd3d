"""The ``numaplace`` command line.

Every command reports bad input as one line on stderr, ``numaplace: error: ...``, and exits
with status 2; an unexpected internal failure exits with status 1, also in one line (set
``NUMAPLACE_DEBUG=1`` for the traceback). Nothing is written when a run fails.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path
from typing import NoReturn, Sequence

from numaplace._native import NumaplaceError
from numaplace.grid import Grid
from numaplace.messages import error_line, shown as _shown

EXIT_USAGE = 2
EXIT_INTERNAL = 1


class UsageError(NumaplaceError):
    """Bad command-line input found by the CLI itself (a :class:`NumaplaceError`, as every
    error for bad input is)."""


class _Parser(argparse.ArgumentParser):
    """argparse, but errors are one line and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see --help)")


def _fmt_ms(ns: float) -> str:
    return f"{ns / 1e6:,.3f} ms"


def _print_table(rows: list[list[str]], header: list[str]) -> None:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for r in [header, *rows]:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())


def _positive_int(text: str) -> int:
    """An argparse type: an integer in [1, 2**63 - 1] (what the simulator's counters hold)."""
    return _int_in(text, 1)


def _count(text: str) -> int:
    """An argparse type: an integer in [0, 2**63 - 1]."""
    return _int_in(text, 0)


def _int_in(text: str, low: int) -> int:
    try:
        v = int(text)
    except ValueError:
        v = None
    if v is None or not low <= v < 2**63:
        raise argparse.ArgumentTypeError(f"'{text}': expected an integer in [{low}, 2^63 - 1]")
    return v


def _positive_number(text: str) -> float:
    """An argparse type: a finite number greater than 0."""
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"'{text}': expected a finite number greater than 0")
    return v


def cmd_machines(args: argparse.Namespace) -> None:
    import numaplace

    if args.name:
        print(numaplace._native.machine_toml(args.name), end="")
        return
    rows = [
        [m["name"], str(m["nodes"]), str(m["cpus"]), f"{m['page_size'] // 1024} KiB", m["description"]]
        for m in numaplace.machines()
    ]
    _print_table(rows, ["name", "nodes", "cpus", "page", "description"])


def _print_plugins(items: list[dict]) -> None:
    for it in items:
        print(f"{it['name']}: {it['doc']}")
        if "drivers" in it:  # a dynamic policy's capabilities
            print(f"    observes {it['observes']}; runs in: {', '.join(it['drivers'])}")
        for p in it["params"]:
            kind = p["kind"]
            ty = {"integer": "integer", "word": "word", "text": "text", "number": f"number in [{kind.get('min')}, {kind.get('max')}]"}.get(
                kind["type"], "|".join(kind.get("choices", []))
            )
            print(f"    {p['name']}={p['default']} ({ty}): {p['doc']}")


def cmd_workloads(args: argparse.Namespace) -> None:
    import numaplace

    _print_plugins(numaplace.workloads())


def cmd_programs(args: argparse.Namespace) -> None:
    import numaplace

    _print_plugins(numaplace.programs())


def cmd_schedulers(args: argparse.Namespace) -> None:
    import numaplace

    items = numaplace.schedulers()
    for it in items:
        reads = [w for w, on in (("efficiency", it["reads_efficiency"]), ("faults", it["reads_faults"])) if on]
        it["doc"] = f"{it['doc']} [{it['sharing']} sharing{'; reads ' + ', '.join(reads) if reads else ''}]"
    _print_plugins(items)


def cmd_placements(args: argparse.Namespace) -> None:
    import numaplace

    _print_plugins(numaplace.placements())


def cmd_policies(args: argparse.Namespace) -> None:
    import numaplace

    _print_plugins(numaplace.policies())


def cmd_policy_show(args: argparse.Namespace) -> None:
    import numaplace

    known = {p["name"]: p for p in numaplace.policies()}
    if args.name not in known:
        raise UsageError(f"unknown dynamic policy '{args.name}' (known: {', '.join(sorted(known))})")
    _print_plugins([known[args.name]])


def cmd_topo(args: argparse.Namespace) -> None:
    from numaplace import _native

    from numaplace.outfile import check_outputs, write_output

    if not args.detect:
        raise UsageError("numaplace topo: nothing to do: pass --detect")
    check_outputs([(args.out, "--out")])
    text = _native.detect(
        args.sysfs, args.name, args.local_ns, args.bandwidth_gbps, args.mlp, os.sysconf("SC_PAGE_SIZE")
    )
    # The file's leading comments say which figures the kernel did not publish (no HMAT).
    assumed = [line[2:] for line in text.splitlines() if line.startswith("# assumed ")]
    if args.out is not None:
        write_output(args.out, "--out", text)
        print(f"wrote {_shown(args.out)}", file=sys.stderr)
    else:
        print(text, end="")
    if assumed:
        print(f"numaplace: note: {'; '.join(assumed)}; set them with --local-ns / --bandwidth-gbps", file=sys.stderr)


def _decided(r) -> str:  # noqa: ANN001 - a numaplace.Result
    """How often the run's policy was asked to decide and acted ("" without a policy)."""
    if not r.config.get("dynamic"):
        return ""
    if r.policy_decision_points == 0:
        return "; never asked to decide (no decision point in the run: its period is longer, or one iteration)"
    refused = r.policy_refused_unstable + r.policy_refused_costly + r.policy_refused_probation
    held = (
        f"; the cost model held back {refused:,} moves ({r.policy_refused_unstable:,} unstable,"
        f" {r.policy_refused_costly:,} not worth their cost, {r.policy_refused_probation:,} while its first moves were measured)"
        if refused
        else ""
    )
    if r.policy_undone or r.policy_refused_withdrawn:
        held += (
            f"; its moves did not pay in measured time per line, so it withdrew: {r.policy_undone:,} pages moved back,"
            f" {r.policy_refused_withdrawn:,} moves refused since"
        )
    return f"; acted at {r.policy_decisions_acted:,} of {r.policy_decision_points:,} decision points{held}"


def _protocol_summary(r) -> str:  # noqa: ANN001 - a numaplace.Result of the protocol engine
    c = r.config
    lines = [
        f"machine       {c['machine']} ({c['threads']} nodes), protocol engine",
        f"workload      {c['workload']}",
        f"placement     {c['placement']}; proxies {c['proxies']}; buffers {c['buffers']}, seed {c['seed']}",
        f"time          {_fmt_ms(r.total_time_ns)} ({r.cycles:,} cycles)",
        f"accesses      {r.line_accesses:,}; FLC miss rate {r.flc_miss_rate:.1%}, SLC miss rate {r.slc_miss_rate:.1%}",
        f"messages      {r.messages:,}; bounces {r.bounces:,}; proxy reads {r.proxy_reads:,} ({r.requests_combined:,} combined)",
        f"remote reads  {r.remote_reads:,}, response mean {r.remote_read_mean_cycles:,.0f} cycles"
        f" (p50 {r.remote_read_p50_cycles:,}, p99 {r.remote_read_p99_cycles:,})",
        f"input queues  {r.queue_cycles_mean:,.1f} cycles mean wait, length mean {r.queue_len_mean:.2f}, max {r.queue_len_max}",
        f"controllers   utilisation mean {r.ctrl_util_mean:.1%}, max {r.ctrl_util_max:.1%}",
    ]
    return "\n".join(lines)


def _system_summary(r) -> str:  # noqa: ANN001 - a numaplace.Result of a system run
    c, s = r.config, r.system
    load = f" at load {c['load']:g}" if "load" in c else ""
    lines = [
        f"machine       {c['machine']} ({s['cpus']} CPUs)",
        f"jobs          {c['job_stream']}{load}: {s['jobs']} jobs ({c['apps']})",
        *([f"clamped       {c['clamped_jobs']}"] if c.get("clamped_jobs") else []),
        f"scheduler     {s['scheduler']}",
        f"placement     {s['placement']}; dynamic {s['dynamic'] or 'none'}; init {s['init']}, seed {s['seed']}",
        f"makespan      {s['makespan_ns'] / 1e9:,.3f} s; utilisation {s['utilisation']:.1%}; mean response {s['mean_response_ns'] / 1e9:,.3f} s",
        f"CPU time      {s['cpu_time_ns'] / 1e9:,.3f} s; local share {s['local_fraction']:.1%}; pages migrated {s['pages_migrated']:,}",
        f"threads       {s['process_migrations']:,} process migrations; mean burst {s['mean_burst_ns'] / 1e9:,.3f} s"
        f" ({s['bursts_per_cpu']:,.1f} bursts per CPU); at most {s['max_running']} jobs running",
        "",
    ]
    jobs = r.per_job()
    per_app = jobs.assign(app=jobs["workload"].str.split(":").str[0]).groupby("app", sort=True)
    rows = [
        [app, str(len(g)), f"{g['response_ns'].mean() / 1e9:,.3f}", f"{g['cpu_time_ns'].mean() / 1e9:,.3f}",
         f"{g['speedup'].mean():.2f}", f"{g['mean_cpus'].mean():.1f}", f"{g['local_fraction'].mean():.1%}"]
        for app, g in per_app
    ]  # fmt: skip
    head = ["workload", "jobs", "response s", "CPU time s", "speedup", "CPUs", "local"]
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    for row in [head, *rows]:
        lines.append("  ".join(v.rjust(w) for v, w in zip(row, widths)))
    return "\n".join(lines)


def _summary(r) -> str:  # noqa: ANN001 - a numaplace.Result
    c = r.config
    if r.kind == "system":
        return _system_summary(r)
    if r.kind == "protocol":
        return _protocol_summary(r)
    spec = c["machine_spec"]
    nodes = len(spec["nodes"])
    per_iter = r.total_time_ns / r.iterations if r.iterations else 0.0
    lines = [
        f"machine       {c['machine']} ({nodes} nodes, {sum(n['cpus'] for n in spec['nodes'])} CPUs)",
        f"workload      {c['workload']}",
        f"placement     {c['placement']}",
        f"threads       {c['threads']} ({c['binding']}), init {c['init']}, seed {c['seed']}",
        f"time          {_fmt_ms(r.total_time_ns)} for {r.iterations} iterations"
        f" ({_fmt_ms(per_iter)} each); init {_fmt_ms(r.init_time_ns)}",
        f"transactions  {r.transactions:,} ({r.local_fraction:.1%} local, {r.writes:,} writes)",
        f"dynamic       {c.get('dynamic') or 'none'}: {r.migrations} migrations, {r.replications} replications,"
        f" overhead {_fmt_ms(r.policy_overhead_ns)}{_decided(r)}",
        "",
    ]
    rows = [
        [str(n), f"{r.per_node_pages[n]:,}", f"{r.per_node_transactions[n]:,}", f"{r.per_node_utilisation[n]:.1%}"]
        for n in range(nodes)
    ]
    widths = [4, 12, 14, 11]
    head = ["node", "pages", "transactions", "utilisation"]
    for row in [head, *rows]:
        lines.append("  ".join(v.rjust(w) for v, w in zip(row, widths)))
    return "\n".join(lines)


def _run_kwargs(args: argparse.Namespace, names: Sequence[str]) -> dict:
    """The ``numaplace.simulate``-style keyword arguments of the run options ``names`` given on
    the command line (an option not given is left to its declared default)."""
    from numaplace.api import OPTIONS

    return {OPTIONS[n]["python"]: getattr(args, n) for n in names if getattr(args, n, None) is not None}


def cmd_sim(args: argparse.Namespace) -> None:
    import numaplace

    from numaplace.outfile import check_outputs, write_output

    if args.trace and (args.workload is not None or getattr(args, "class") is not None):
        raise UsageError("numaplace sim: --trace replays a recorded workload: drop --workload and --class")
    if args.decisions is not None and (args.dynamic is None or args.dynamic.strip() == "none"):
        raise UsageError("numaplace sim: --decisions needs --dynamic (only a dynamic policy makes decisions)")
    if args.timeline is not None and args.job_stream is None:
        raise UsageError("numaplace sim: --timeline plots a system run's allocation: give --job-stream")
    # The outputs are checked before the run, so a bad path does not cost a run, and none may
    # be another or one of the files the run reads.
    check_outputs(
        [(args.json, "--json"), (args.decisions, "--decisions"), (args.timeline, "--timeline")],
        [(args.trace, "--trace"), (args.machine, "--machine"), (args.job_stream, "--job-stream")],
    )
    r = numaplace.simulate(**_run_kwargs(args, list(numaplace.api.OPTIONS)), progress=False if args.no_progress else None)
    if args.json is not None:
        write_output(args.json, "--json", r.to_json() + "\n")
    if args.timeline is not None:
        from numaplace import plot

        fig = plot.allocation_timeline(r.timeline(), cpus=r.system["cpus"])
        write_output(args.timeline, "--timeline", plot.png_bytes(fig))
    print(_summary(r))


def cmd_trace_export(args: argparse.Namespace) -> None:
    import numaplace

    from numaplace.outfile import check_outputs, destination

    check_outputs([(args.out, "--out")], [(args.machine, "--machine")])
    numaplace.trace_export(args.out, workload=args.workload, text=args.text, **_run_kwargs(args, EXPORT_OPTIONS))
    if destination(args.out, "--out")[1]:  # a device or FIFO: nothing to read back
        print(f"wrote {_shown(args.out)}")
        return
    i = numaplace.trace_info(args.out)
    if i["format"] == "line":
        print(f"wrote {_shown(args.out)}: {i['operations']:,} operations ({i['reads']:,} reads, {i['writes']:,} writes), {i['barriers']:,} barriers")
        return
    print(f"wrote {_shown(args.out)}: {i['epochs']:,} epochs, {i['records']:,} records, {i['transactions']:,} transactions")


def cmd_trace_info(args: argparse.Namespace) -> None:
    import numaplace

    i = numaplace.trace_info(args.file)
    if args.json:
        print(json.dumps(i, indent=2))
        return
    print(f"format        {i['format']}, page size {i['page_size']}, line size {i['line_size']}")
    print(f"threads       {i['threads']}")
    if i["format"] == "line":
        for k, v in i["meta"]:
            print(f"meta          {k} = {v}")
        print(f"operations    {i['operations']:,}: {i['reads']:,} reads, {i['writes']:,} writes, {i['locks']:,} locks")
        print(f"compute       {i['compute_cycles']:,} cycles; {i['barriers']:,} barriers")
        print()
        rows = [[n, f"{b:#x}", f"{size:,}", "yes" if proxy else ""] for n, b, size, proxy in i["regions"]]
        _print_table(rows, ["region", "base", "bytes", "proxied"])
        return
    print(f"footprint     {i['pages']:,} pages ({i['pages'] * i['page_size'] / 2**20:,.1f} MiB)")
    for k, v in i["meta"]:
        print(f"meta          {k} = {v}")
    print(f"epochs        {i['epochs']:,} ({i['iterations']} iterations)")
    print(f"records       {i['records']:,}; transactions {i['transactions']:,} ({i['writes']:,} writes)")
    print()
    _print_table([[n, str(f), f"{p:,}"] for n, f, p in i["regions"]], ["region", "first page", "pages"])
    print()
    _print_table([[p, f"{e:,}", f"{t:,}"] for p, e, t in i["phases"]], ["phase", "epochs", "transactions"])


def cmd_workload_show(args: argparse.Namespace) -> None:
    import numaplace

    from numaplace.api import option_default

    i = numaplace.workload_show(args.name, **_run_kwargs(args, SHAPE_OPTIONS))
    if args.json:
        print(json.dumps(i, indent=2))
        return
    print(f"workload      {i['workload']}")
    print(f"threads       {i['threads']} on {args.machine or option_default('machine')}")
    print(f"footprint     {i['footprint_pages']:,} pages of {i['page_size'] // 1024} KiB ({i['footprint_bytes'] / 2**20:,.1f} MiB)")
    print(f"iterations    {i['iterations']}; {i['transactions_per_iteration']:,} transactions per iteration")
    print()
    _print_table([[n, str(f), f"{p:,}"] for n, f, p in i["regions"]], ["region", "first page", "pages"])
    print()
    rows = [
        [str(p["iteration"]), p["phase"], f"{p['transactions']:,}", f"{p['pages_touched']:,}", f"{p['pages_shared']:,}",
         f"{p['shared_transactions_fraction']:.1%}"]
        for p in i["phases"]
    ]
    _print_table(rows, ["iteration", "phase", "transactions", "pages", "shared pages", "to shared pages"])


def cmd_bench(args: argparse.Namespace) -> None:
    from numaplace import _native

    if args.footprint:
        out = _native.bench_footprint(args.pages if args.pages is not None else 16 * 1024 * 1024)
    elif args.protocol:
        out = _native.bench_protocol(args.sweeps, args.repetitions)
    else:
        pages = args.pages if args.pages is not None else 256 * 1024
        out = _native.bench_speed(args.transactions, pages, args.repetitions)
    print(json.dumps(json.loads(out), indent=2))


def cmd_reproduce(args: argparse.Namespace) -> None:
    from numaplace import report

    try:
        out = report.reproduce(
            out_dir=args.out,
            grid=args.grid,
            progress=not args.no_progress,
            experiments=args.experiment or None,
            scheduler=args.scheduler,
            jobs=args.jobs,
        )
    except report.UnknownExperimentError as e:
        raise UsageError(str(e)) from None
    print(f"wrote {_shown(Path(out) / 'index.html')}")


def _file_id(path: str | os.PathLike | None) -> tuple[int, int, int] | None:
    """What tells a file rewritten since (the library renames a new one into place)."""
    try:
        st = os.stat(path) if path is not None else None
    except OSError:
        return None
    return None if st is None else (st.st_ino, st.st_mtime_ns, st.st_size)


def cmd_run(args: argparse.Namespace) -> int:
    """Runs a program under libnumaplace.so; returns the program's exit status. After the
    program exits, one line on stderr: with ``--stats``, where the stats went and the command
    that reads them (or why none were written); without, on a terminal only, how to get them
    (a script's or a pipeline's stderr is the program's alone)."""
    from numaplace import runtime as rt

    argv = list(args.program)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise UsageError("numaplace run: no program given (usage: numaplace run [OPTIONS] -- PROGRAM [ARGS...])")
    try:
        placement = rt.validate_placement(args.placement, rt.host_nodes())
        dynamic = rt.validate_dynamic(args.dynamic)
        stats = None
        if args.stats is not None:
            from numaplace.outfile import check_outputs, destination

            # The library writes the file by renaming a finished one into place: it is given the
            # link's target (so a link is written through, not replaced), and a device or FIFO,
            # which a rename would replace, is refused.
            try:
                exe: str | None = rt.resolve_program(argv[0], os.environ)
            except (rt.ProgramNotFound, rt.ProgramNotExecutable):
                exe = None  # said when it is run, below
            check_outputs([(args.stats, "--stats")], [(exe, "the program")])
            stats, special = destination(args.stats, "--stats")
            if special:
                raise UsageError(f"--stats {_shown(args.stats)}: not a regular file (the library replaces its stats file"
                                 " by a rename; give a file name)")
        lib = rt.find_library()
        env = rt.launch_env(
            lib,
            placement=placement,
            dynamic=dynamic,
            stats=stats,
            min_bytes=args.min_bytes,
            source=args.source,
            verbose=args.verbose,
            force=args.force,
        )
        before = _file_id(stats)
        ended = rt.run_program(argv, env)
        killed = ended.killed_line(_shown(argv[0]))
        if killed:
            print(killed, file=sys.stderr)
        if stats is not None:
            after = _file_id(stats)
            written = after is not None and after != before
            print(rt.stats_notice(_shown(args.stats), written, args.min_bytes, ended.signal, ended.status), file=sys.stderr)
        elif sys.stderr.isatty() and not killed:
            print(rt.RUN_HINT, file=sys.stderr)
        return ended.status
    except rt.ProgramNotFound as e:
        print(error_line(e), file=sys.stderr)
        return rt.EXIT_NOT_FOUND
    except rt.ProgramNotExecutable as e:
        print(error_line(e), file=sys.stderr)
        return rt.EXIT_CANNOT_EXECUTE
    except rt.RuntimeToolError as e:
        raise UsageError(str(e)) from None


def _pid(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a process id (a positive integer)")
    return int(text)


def _mib(n: int) -> str:
    return f"{n / 2**20:,.1f}"


def _page(size: int) -> str:
    return f"{size // 2**20}M" if size >= 2**20 and size % 2**20 == 0 else f"{size // 1024}K"


def cmd_where(args: argparse.Namespace) -> None:
    from numaplace import runtime as rt

    try:
        host = rt.host_nodes()
        w = rt.where(args.pid, min_bytes=args.min_kib * 1024, show_all=args.all, min_nodes=max(host) + 1 if host else 1)
    except rt.RuntimeToolError as e:
        raise UsageError(str(e)) from None
    if args.json:
        print(json.dumps(w, indent=2))
        return
    nodes = range(w["nodes"])
    rows = []
    for m in w["mappings"]:
        share = "-" if m["local_share"] is None else f"{m['local_share']:.0%} on N{m['largest_node']}"
        rows.append(
            [m["address"], m["name"], _page(m["page_size"]), _mib(m["bytes"]), *(f"{p:,}" for p in m["pages"]), share]
        )
    rows.append(["total (MiB)", "", "", _mib(sum(w["total_bytes"])), *(_mib(b) for b in w["total_bytes"]), ""])
    header = ["address", "mapping", "page", "MiB", *(f"N{n} pages" for n in nodes), "largest node"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    right = {0, 2, 3, *(4 + n for n in nodes)}
    for r in [header, *rows]:
        print("  ".join(c.rjust(wd) if i in right else c.ljust(wd) for i, (c, wd) in enumerate(zip(r, widths))).rstrip())
    h = w["hidden"]
    if h["mappings"]:
        print(
            f"({h['mappings']} mappings with less than {args.min_kib:,} KiB resident not shown, {_mib(h['bytes'])} MiB"
            " in all; --all shows them)"
        )


def cmd_report(args: argparse.Namespace) -> None:
    from numaplace import runtime as rt
    from numaplace.outfile import check_outputs, write_with

    check_outputs([(args.plot, "--plot")], [(f, "input") for f in args.files])
    try:
        stats = [rt.load_stats(f) for f in args.files]
    except rt.RuntimeToolError as e:
        raise UsageError(str(e)) from None
    if args.plot is not None:
        from numaplace.plot import save_png

        fig = rt.plot_stats(stats)
        write_with(args.plot, "--plot", lambda p: save_png(fig, p))
    if args.json:
        print(json.dumps([rt.summary(s, f) for s, f in zip(stats, args.files)], indent=2))
    else:
        print("\n\n".join(rt.format_summary(s, f) for s, f in zip(stats, args.files)))
        if len(stats) > 1:
            print()
            print(rt.format_comparison(stats))
    if args.plot is not None:
        print(f"wrote {_shown(args.plot)}", file=sys.stderr)


#: The run options that that shape a workload without running it (``trace export``, ``workload show``).
SHAPE_OPTIONS = ("machine", "class", "threads", "init", "binding", "seed")
#: ``trace export``'s: a workload's shape, and the engine (a line-level program's trace).
EXPORT_OPTIONS = (*SHAPE_OPTIONS, "engine")


def add_run_options(parser: argparse.ArgumentParser, names: Sequence[str]) -> None:
    """Adds the run options ``names`` to ``parser``, generated from their one declaration
    (``numaplace.api.OPTIONS``): flag, type, choices, help and default. Defaults are left to
    the run (an option not given is not sent), so a trace's own thread count can stand."""
    from numaplace.api import OPTIONS

    for name in names:
        o = OPTIONS[name]
        kind = o["kind"]
        default = f" (default: {o['default']})" if o["default"] is not None else ""
        flag = "--" + name.replace("_", "-")
        doc = o["doc"].replace("%", "%%")  # argparse formats help with %
        if kind["type"] == "bool":
            parser.add_argument(flag, dest=name, action="store_const", const=True, default=None, help=doc)
            continue
        extra: dict = {"type": {"integer": int, "number": float}.get(kind["type"], str)}
        if kind["type"] == "name":
            extra["choices"] = kind["choices"]
        parser.add_argument(flag, dest=name, metavar=name.upper(), default=None, help=doc + default, **extra)


def add_launcher_options(parser: argparse.ArgumentParser) -> None:
    """Adds ``numaplace run``'s flags: one per library setting the launcher passes on, generated
    from the settings' one declaration (``numaplace.runtime.RUNTIME_OPTIONS``)."""
    from numaplace.runtime import RUNTIME_OPTIONS

    for name, o in RUNTIME_OPTIONS.items():
        if o["launcher"] is None:
            continue
        flag = "--" + name.replace("_", "-")
        shown = f" (default: {o['launcher']})" if o["launcher"] else ""
        if o["kind"] == "flag":
            parser.add_argument(flag, dest=name, action="store_true", help=o["doc"])
        elif o["kind"] == "choice":
            parser.add_argument(flag, dest=name, choices=o["choices"], default=o["launcher"], help=o["doc"] + shown)
        elif o["kind"] == "bytes":
            # A byte count the library can hold (its u64), checked here: past exec, the library
            # could only refuse it in its own words.
            parser.add_argument(flag, dest=name, type=_count, default=int(o["launcher"]), metavar="N", help=o["doc"] + shown)
        else:
            parser.add_argument(flag, dest=name, default=o["launcher"] or None, metavar=name.upper(), help=o["doc"] + shown)


def build_parser() -> argparse.ArgumentParser:
    from numaplace.advise import register as add_advise_parser
    from numaplace.record import register as add_record_parser
    from numaplace.sweep import add_execution_args, add_parser as add_sweep_parser

    p = _Parser(prog="numaplace", description="NUMA page placement: simulate, compare, reproduce.")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    s = sub.add_parser("machines", help="list machine presets, or print one as TOML")
    s.add_argument("name", nargs="?", help="a preset name or machine file to print")
    s.set_defaults(func=cmd_machines)

    s = sub.add_parser("workloads", help="list workloads and their parameters")
    s.set_defaults(func=cmd_workloads)
    s = sub.add_parser("placements", help="list placement policies and their parameters")
    s.set_defaults(func=cmd_placements)

    s = sub.add_parser("topo", help="describe this host as a machine file")
    s.add_argument("--detect", action="store_true", help="read /sys/devices/system/node (with HMAT where the kernel publishes it)")
    s.add_argument("--sysfs", default="/sys/devices/system/node", help="sysfs node directory")
    s.add_argument("--out", help="write the machine file here (default: stdout)")
    s.add_argument("--name", default="this-host", help="machine name (default: this-host)")
    s.add_argument(
        "--local-ns", type=_positive_number, default=90.0, help="local latency of a node without HMAT read_latency, ns (default 90)"
    )
    s.add_argument(
        "--bandwidth-gbps",
        type=_positive_number,
        default=20.0,
        help="memory bandwidth of a node without HMAT read_bandwidth, GB/s (default 20)",
    )
    s.add_argument("--mlp", type=_positive_number, default=10.0, help="memory-level parallelism (default 10)")
    s.set_defaults(func=cmd_topo)

    from numaplace.api import OPTIONS

    s = sub.add_parser("sim", help="run one simulation")
    add_run_options(s, list(OPTIONS))  # every run option
    s.add_argument("--json", help="write the full result as JSON to this file")
    s.add_argument("--timeline", help="a system run (--job-stream): plot the processor allocation over time to this PNG file")
    s.add_argument(
        "--no-progress", action="store_true", help="no progress bar (by default one is drawn on stderr when it is a terminal)"
    )
    s.set_defaults(func=cmd_sim)

    s = sub.add_parser("programs", help="list line-level programs (the protocol engine's workloads) and their parameters")
    s.set_defaults(func=cmd_programs)
    s = sub.add_parser("schedulers", help="list processor schedulers (system runs) and their parameters")
    s.set_defaults(func=cmd_schedulers)

    s = sub.add_parser("policies", help="list dynamic policies and their parameters")
    s.set_defaults(func=cmd_policies)
    s = sub.add_parser("policy", help="describe a dynamic policy")
    psub = s.add_subparsers(dest="policy_command", metavar="SUBCOMMAND", parser_class=_Parser, required=True)
    p2 = psub.add_parser("show", help="a policy's parameters, defaults and sources")
    p2.add_argument("name")
    p2.set_defaults(func=cmd_policy_show)

    s = sub.add_parser("trace", help="write or summarise trace files")
    tsub = s.add_subparsers(dest="trace_command", metavar="SUBCOMMAND", parser_class=_Parser, required=True)
    t = tsub.add_parser("export", help="write a workload as a trace file")
    add_run_options(t, EXPORT_OPTIONS)
    t.add_argument("--workload", required=True, help="NAME[:key=value,...]")
    t.add_argument("--out", required=True, help="the trace file to write")
    t.add_argument("--text", action="store_true", help="write the text form (for small cases)")
    t.set_defaults(func=cmd_trace_export)
    t = tsub.add_parser("info", help="summarise a trace file")
    t.add_argument("file")
    t.add_argument("--json", action="store_true", help="print JSON")
    t.set_defaults(func=cmd_trace_info)

    s = sub.add_parser("workload", help="inspect a workload")
    wsub = s.add_subparsers(dest="workload_command", metavar="SUBCOMMAND", parser_class=_Parser, required=True)
    w = wsub.add_parser("show", help="regions, phases, footprint and sharing of a workload")
    w.add_argument("name", help="NAME[:key=value,...]")
    add_run_options(w, SHAPE_OPTIONS)
    w.add_argument("--json", action="store_true", help="print JSON")
    w.set_defaults(func=cmd_workload_show)

    s = sub.add_parser("bench", help="measure simulator speed (or memory footprint) as JSON")
    kind = s.add_mutually_exclusive_group()
    kind.add_argument("--footprint", action="store_true", help="16 M-page footprint run: peak RSS")
    kind.add_argument(
        "--protocol", action="store_true", help="the protocol engine (seed 004) on talbot64: line accesses after the FLC per second, and the ratio to a limit loop"
    )
    s.add_argument("--sweeps", type=_positive_int, default=16, help="--protocol: sweeps of the fixed line-level program (default 16)")
    s.add_argument("--transactions", type=_positive_int, default=64 * 1024 * 1024)
    s.add_argument("--pages", type=_positive_int, default=None, help="pages (default 256 Ki; 16 Mi with --footprint)")
    s.add_argument("--repetitions", type=_positive_int, default=3)
    s.set_defaults(func=cmd_bench)

    s = sub.add_parser("reproduce", help="re-run the seeds' experiments and write report/")
    s.add_argument("--out", default="report", help="output directory (default: report)")
    mode = s.add_mutually_exclusive_group()
    mode.add_argument(
        "--grid",
        choices=[g.value for g in Grid],
        default=Grid.QUICK.value,
        help="how large the runs are: quick (small problem sizes, the default), full (the seeds' sizes) "
        "or test (smaller than quick: the project's tests; its verdicts mean nothing)",
    )
    mode.add_argument("--quick", dest="grid", action="store_const", const=Grid.QUICK.value, help="--grid quick")
    mode.add_argument("--full", dest="grid", action="store_const", const=Grid.FULL.value, help="--grid full: the seeds' full problem sizes")
    s.add_argument("--experiment", action="append", help="run only this experiment (repeatable)")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_execution_args(s)
    s.set_defaults(func=cmd_reproduce)

    s = sub.add_parser(
        "run",
        help="run a program under the runtime library (libnumaplace.so)",
        usage="numaplace run [--placement P] [--dynamic D] [--stats FILE] [--min-bytes N]"
        " [--source auto|faults|perf] [--verbose] [--force] -- PROGRAM [ARGS...]",
        description="Runs PROGRAM with libnumaplace.so preloaded and exits with its exit status (128 + N if"
        " signal N killed it; 127 if PROGRAM is not found, 126 if it cannot be executed; 2 for bad options)."
        " On a host with one NUMA node every access is local: nothing is sampled unless --force.",
    )
    add_launcher_options(s)
    s.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM [ARGS...]")
    s.set_defaults(func=cmd_run)

    s = sub.add_parser("where", help="how a running process's memory is spread over NUMA nodes")
    s.add_argument("pid", type=_pid, metavar="PID")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--all", action="store_true", help="show every mapping, even small or empty ones")
    s.add_argument("--min-kib", type=_count, default=256, help="show mappings with at least this much resident (default 256 KiB)")
    s.set_defaults(func=cmd_where)

    s = sub.add_parser("report", help="summarise stats files written by the runtime library")
    s.add_argument("files", nargs="+", metavar="FILE")
    s.add_argument("--plot", metavar="OUT.png", help="also draw pages per node and local share per epoch")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_report)

    add_sweep_parser(sub)
    add_advise_parser(sub)
    add_record_parser(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the CLI; returns the exit status."""
    # File names are printed as the bytes they are (as ls does), whatever the locale's
    # encoding of stdout: a name that is not UTF-8 is no reason to fail after the work.
    if getattr(sys.stdout, "errors", None) == "strict" and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="surrogateescape")
    try:
        import numaplace

        parser = build_parser()
        args = parser.parse_args(argv)
        if args.version:
            print(f"numaplace {numaplace.__version__}")
            return 0
        if not getattr(args, "command", None):
            parser.print_help()
            return EXIT_USAGE
        status = args.func(args)  # `run` returns its program's exit status
        return status if isinstance(status, int) else 0
    except UsageError as e:
        print(error_line(e), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("numaplace: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except UnicodeEncodeError as e:
        # A non-UTF-8 argument (bytes decoded with surrogateescape) reached a function that takes
        # UTF-8 text (the Rust side): name the argument, as any bad input.
        text = e.object if isinstance(e.object, str) else ""
        bad = [a for a in (sys.argv[1:] if argv is None else argv) if text and text in a]
        what = f"argument '{_shown(bad[0])}'" if bad else "a name or path"
        print(error_line(f"{what} is not valid UTF-8 (numaplace takes UTF-8 names and paths)"), file=sys.stderr)
        return EXIT_USAGE
    except Exception as e:  # noqa: BLE001 - the CLI's last line of defence
        if isinstance(e, NumaplaceError):
            print(error_line(e), file=sys.stderr)
            return EXIT_USAGE
        if os.environ.get("NUMAPLACE_DEBUG"):
            raise
        print(f"numaplace: internal error: {type(e).__name__}: {_shown(e)} (set NUMAPLACE_DEBUG=1 for details)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
