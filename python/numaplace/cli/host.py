"""The commands about this host and the runtime library: ``topo``, ``run``, ``where`` and
``report``."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from numaplace import topo
from numaplace.cli.common import UsageError, count, pid, positive_number, shown
from numaplace.messages import error_line


def cmd_topo(args: argparse.Namespace) -> None:
    from numaplace.outfile import check_outputs, write_output

    if not args.detect:
        raise UsageError("numaplace topo: nothing to do: pass --detect")
    check_outputs([(args.out, "--out")])
    text = topo.detect(args.sysfs, args.name, args.local_ns, args.bandwidth_gbps, args.mlp)
    # The file's leading comments say which figures the kernel did not publish (no HMAT).
    assumed = [line[2:] for line in text.splitlines() if line.startswith("# assumed ")]
    if args.out is not None:
        write_output(args.out, "--out", text)
        print(f"wrote {shown(args.out)}", file=sys.stderr)
    else:
        print(text, end="")
    if assumed:
        print(f"numaplace: note: {'; '.join(assumed)}; set them with --local-ns / --bandwidth-gbps", file=sys.stderr)


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
                raise UsageError(f"--stats {shown(args.stats)}: not a regular file (the library replaces its stats file"
                                 " by a rename; give a file name)")
        rt.build_library()
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
            slow_nodes=args.slow_nodes,
        )
        before = _file_id(stats)
        ended = rt.run_program(argv, env)
        killed = ended.killed_line(shown(argv[0]))
        if killed:
            print(killed, file=sys.stderr)
        if stats is not None:
            after = _file_id(stats)
            written = after is not None and after != before
            print(rt.stats_notice(shown(args.stats), written, args.min_bytes, ended.signal, ended.status), file=sys.stderr)
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
    from numaplace.outfile import check_outputs

    check_outputs([(args.plot, "--plot")], [(f, "input") for f in args.files])
    try:
        stats = [rt.load_stats(f) for f in args.files]
    except rt.RuntimeToolError as e:
        raise UsageError(str(e)) from None
    if args.plot is not None:
        from numaplace.plot import save_png

        fig = rt.plot_stats(stats)
        save_png(fig, args.plot, "--plot")
    if args.json:
        print(json.dumps([rt.summary(s, f) for s, f in zip(stats, args.files)], indent=2))
    else:
        print("\n\n".join(rt.format_summary(s, f) for s, f in zip(stats, args.files)))
        if len(stats) > 1:
            print()
            print(rt.format_comparison(stats))
    if args.plot is not None:
        print(f"wrote {shown(args.plot)}", file=sys.stderr)


def add_launcher_options(parser: argparse.ArgumentParser) -> None:
    """Adds ``numaplace run``'s flags: one per library setting the launcher passes on, generated
    from the settings' one declaration (``numaplace.runtime.RUNTIME_OPTIONS``)."""
    from numaplace.runtime import RUNTIME_OPTIONS

    for name, o in RUNTIME_OPTIONS.items():
        if o["launcher"] is None:
            continue
        flag = "--" + name.replace("_", "-")
        default = f" (default: {o['launcher']})" if o["launcher"] else ""
        if o["kind"] == "flag":
            parser.add_argument(flag, dest=name, action="store_true", help=o["doc"])
        elif o["kind"] == "choice":
            parser.add_argument(flag, dest=name, choices=o["choices"], default=o["launcher"], help=o["doc"] + default)
        elif o["kind"] == "bytes":
            # A byte count the library can hold (its u64), checked here: past exec, the library
            # could only refuse it in its own words.
            parser.add_argument(flag, dest=name, type=count, default=int(o["launcher"]), metavar="N", help=o["doc"] + default)
        elif o["kind"] == "node-list":
            parser.add_argument(flag, dest=name, default=o["launcher"] or None, metavar="LIST", help=o["doc"] + default)
        else:
            parser.add_argument(flag, dest=name, default=o["launcher"] or None, metavar=name.upper(), help=o["doc"] + default)


def add_topo(sub: Any) -> None:
    """``topo --detect``: its settings' defaults are :mod:`numaplace.topo`'s."""
    s = sub.add_parser("topo", help="describe this host as a machine file")
    s.add_argument("--detect", action="store_true", help=f"read {topo.SYSFS} (with HMAT where the kernel publishes it)")
    s.add_argument("--sysfs", default=topo.SYSFS, help="sysfs node directory")
    s.add_argument("--out", help="write the machine file here (default: stdout)")
    s.add_argument("--name", default=topo.NAME, help=f"machine name (default: {topo.NAME})")
    s.add_argument(
        "--local-ns",
        type=positive_number,
        default=topo.LOCAL_NS,
        help=f"local latency of a node without HMAT read_latency, ns (default {topo.LOCAL_NS:g})",
    )
    s.add_argument(
        "--bandwidth-gbps",
        type=positive_number,
        default=topo.BANDWIDTH_GBPS,
        help=f"memory bandwidth of a node without HMAT read_bandwidth, GB/s (default {topo.BANDWIDTH_GBPS:g})",
    )
    s.add_argument("--mlp", type=positive_number, default=topo.MLP, help=f"memory-level parallelism (default {topo.MLP:g})")
    s.set_defaults(func=cmd_topo)


def add_run(sub: Any) -> None:
    """``run [OPTIONS] -- PROGRAM [ARGS...]``."""
    s = sub.add_parser(
        "run",
        help="run a program under the runtime library (libnumaplace.so)",
        usage="numaplace run [--placement P] [--dynamic D] [--stats FILE] [--min-bytes N]"
        " [--source auto|faults|perf] [--verbose] [--force] [--slow-nodes LIST] -- PROGRAM [ARGS...]",
        description="Runs PROGRAM with libnumaplace.so preloaded and exits with its exit status (128 + N if"
        " signal N killed it; 127 if PROGRAM is not found, 126 if it cannot be executed; 2 for bad options)."
        " On a host with one NUMA node every access is local: nothing is sampled unless --force.",
    )
    add_launcher_options(s)
    s.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM [ARGS...]")
    s.set_defaults(func=cmd_run)


def add_where(sub: Any) -> None:
    """``where PID``."""
    s = sub.add_parser("where", help="how a running process's memory is spread over NUMA nodes")
    s.add_argument("pid", type=pid, metavar="PID")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--all", action="store_true", help="show every mapping, even small or empty ones")
    s.add_argument("--min-kib", type=count, default=256, help="show mappings with at least this much resident (default 256 KiB)")
    s.set_defaults(func=cmd_where)


def add_report(sub: Any) -> None:
    """``report FILE...``."""
    s = sub.add_parser("report", help="summarise stats files written by the runtime library")
    s.add_argument("files", nargs="+", metavar="FILE")
    s.add_argument("--plot", metavar="OUT.png", help="also draw pages per node and local share per epoch")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_report)
