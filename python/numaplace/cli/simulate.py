"""The commands that simulate or describe a workload: ``sim`` (and its printed summary),
``trace export``, ``trace info`` and ``workload show``."""

from __future__ import annotations

import argparse
import json
from typing import Any

from numaplace.cli.common import (
    EXPORT_OPTIONS,
    SHAPE_OPTIONS,
    Parser,
    UsageError,
    add_run_options,
    fmt_ms,
    print_table,
    run_kwargs,
    shown,
)

def _decided(r) -> str:  # noqa: ANN001 - a numaplace.Result
    """How often the run's policy was asked to decide and acted ("" without a policy)."""
    if not r.config.get("dynamic"):
        return ""
    if r.policy_decision_points == 0:
        return "; never asked to decide (no decision point in the run: its period is longer, or one iteration)"
    # The cost gate's statistics, where the policy has one (its record: `numaplace policies`).
    p = r.policy
    unstable, costly, probation = (p.get(k, 0) for k in ("refused_unstable", "refused_costly", "refused_probation"))
    refused = unstable + costly + probation
    held = (
        f"; the cost model held back {refused:,} moves ({unstable:,} unstable,"
        f" {costly:,} not worth their cost, {probation:,} while its first moves were measured)"
        if refused
        else ""
    )
    undone, withdrawn = p.get("undone", 0), p.get("refused_withdrawn", 0)
    if undone or withdrawn:
        held += (
            f"; its moves did not pay in measured time per line, so it withdrew: {undone:,} pages moved back,"
            f" {withdrawn:,} moves refused since"
        )
    return f"; acted at {r.policy_decisions_acted:,} of {r.policy_decision_points:,} decision points{held}"


def _logged(r, path: str | None) -> list[str]:  # noqa: ANN001 - a numaplace.Result
    """The decision log's line, for a run that wrote one (``--decisions``)."""
    log = getattr(r, "decision_log", None)
    if log is None or path is None:
        return []
    dropped = f" ({log['dropped']:,} dropped)" if log["dropped"] else ""
    tiers = f", {log['promotions']:,} promotions, {log['demotions']:,} demotions" if log["promotions"] or log["demotions"] else ""
    return [f"decisions     {log['written']:,} written to {shown(path)}{dropped}{tiers}, {log['returns']:,} moves back: numaplace explain {shown(path)}"]


def _protocol_summary(r) -> str:  # noqa: ANN001 - a numaplace.Result of the protocol engine
    c = r.config
    lines = [
        f"machine       {c['machine']} ({c['threads']} nodes), protocol engine",
        f"workload      {c['workload']}",
        f"placement     {c['placement']}; proxies {c['proxies']}; buffers {c['buffers']}, seed {c['seed']}",
        f"time          {fmt_ms(r.total_time_ns)} ({r.cycles:,} cycles)",
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


def _summary(r, decisions: str | None = None) -> str:  # noqa: ANN001 - a numaplace.Result
    c = r.config
    if r.kind == "system":
        return _system_summary(r)
    if r.kind == "protocol":
        return _protocol_summary(r)
    spec = c["machine_spec"]
    nodes = len(spec["nodes"])
    per_iter = r.total_time_ns / r.iterations if r.iterations else 0.0
    lines = [
        f"machine       {c['machine']} ({nodes} nodes, {sum(n['cpus'] for n in spec['nodes'])} CPUs)"
        + (f", fast tier resized to {c['fast_memory_mib']:g} MiB" if c.get("fast_memory_mib") is not None else ""),
        f"workload      {c['workload']}",
        f"placement     {c['placement']}",
        f"threads       {c['threads']} ({c['binding']}), init {c['init']}, seed {c['seed']}",
        f"time          {fmt_ms(r.total_time_ns)} for {r.iterations} iterations"
        f" ({fmt_ms(per_iter)} each); init {fmt_ms(r.init_time_ns)}",
        f"transactions  {r.transactions:,} ({r.local_fraction:.1%} local, {r.writes:,} writes)",
        f"dynamic       {c.get('dynamic') or 'none'}: {r.migrations} migrations, {r.replications} replications,"
        f" overhead {fmt_ms(r.policy_overhead_ns)}{_decided(r)}",
        *_logged(r, decisions),
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
    r = numaplace.simulate(**run_kwargs(args, list(numaplace.api.OPTIONS)), progress=False if args.no_progress else None)
    if args.json is not None:
        write_output(args.json, "--json", r.to_json() + "\n")
    if args.timeline is not None:
        from numaplace import plot

        fig = plot.allocation_timeline(r.timeline(), cpus=r.system["cpus"])
        write_output(args.timeline, "--timeline", plot.png_bytes(fig))
    print(_summary(r, args.decisions))


def cmd_trace_export(args: argparse.Namespace) -> None:
    import numaplace

    from numaplace.outfile import check_outputs, destination

    check_outputs([(args.out, "--out")], [(args.machine, "--machine")])
    numaplace.trace_export(args.out, workload=args.workload, text=args.text, **run_kwargs(args, EXPORT_OPTIONS))
    if destination(args.out, "--out")[1]:  # a device or FIFO: nothing to read back
        print(f"wrote {shown(args.out)}")
        return
    i = numaplace.trace_info(args.out)
    if i["format"] == "line":
        print(f"wrote {shown(args.out)}: {i['operations']:,} operations ({i['reads']:,} reads, {i['writes']:,} writes), {i['barriers']:,} barriers")
        return
    print(f"wrote {shown(args.out)}: {i['epochs']:,} epochs, {i['records']:,} records, {i['transactions']:,} transactions")


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
        print_table(rows, ["region", "base", "bytes", "proxied"])
        return
    print(f"footprint     {i['pages']:,} pages ({i['pages'] * i['page_size'] / 2**20:,.1f} MiB)")
    for k, v in i["meta"]:
        print(f"meta          {k} = {v}")
    print(f"epochs        {i['epochs']:,} ({i['iterations']} iterations)")
    print(f"records       {i['records']:,}; transactions {i['transactions']:,} ({i['writes']:,} writes)")
    print()
    print_table([[n, str(f), f"{p:,}"] for n, f, p in i["regions"]], ["region", "first page", "pages"])
    print()
    print_table([[p, f"{e:,}", f"{t:,}"] for p, e, t in i["phases"]], ["phase", "epochs", "transactions"])


def cmd_workload_show(args: argparse.Namespace) -> None:
    import numaplace

    from numaplace.api import option_default

    i = numaplace.workload_show(args.name, **run_kwargs(args, SHAPE_OPTIONS))
    if args.json:
        print(json.dumps(i, indent=2))
        return
    print(f"workload      {i['workload']}")
    print(f"threads       {i['threads']} on {args.machine or option_default('machine')}")
    print(f"footprint     {i['footprint_pages']:,} pages of {i['page_size'] // 1024} KiB ({i['footprint_bytes'] / 2**20:,.1f} MiB)")
    print(f"iterations    {i['iterations']}; {i['transactions_per_iteration']:,} transactions per iteration")
    print()
    print_table([[n, str(f), f"{p:,}"] for n, f, p in i["regions"]], ["region", "first page", "pages"])
    print()
    rows = [
        [str(p["iteration"]), p["phase"], f"{p['transactions']:,}", f"{p['pages_touched']:,}", f"{p['pages_shared']:,}",
         f"{p['shared_transactions_fraction']:.1%}"]
        for p in i["phases"]
    ]
    print_table(rows, ["iteration", "phase", "transactions", "pages", "shared pages", "to shared pages"])

def add_sim(sub: Any) -> None:
    """``sim``: every run option, and the files a run writes."""
    from numaplace.api import OPTIONS

    s = sub.add_parser("sim", help="run one simulation")
    add_run_options(s, list(OPTIONS))  # every run option
    s.add_argument("--json", help="write the full result as JSON to this file")
    s.add_argument("--timeline", help="a system run (--job-stream): plot the processor allocation over time to this PNG file")
    s.add_argument(
        "--no-progress", action="store_true", help="no progress bar (by default one is drawn on stderr when it is a terminal)"
    )
    s.set_defaults(func=cmd_sim)


def add_trace(sub: Any) -> None:
    """``trace export`` and ``trace info``."""
    s = sub.add_parser("trace", help="write or summarise trace files")
    tsub = s.add_subparsers(dest="trace_command", metavar="SUBCOMMAND", parser_class=Parser, required=True)
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


def add_workload(sub: Any) -> None:
    """``workload show NAME``."""
    s = sub.add_parser("workload", help="inspect a workload")
    wsub = s.add_subparsers(dest="workload_command", metavar="SUBCOMMAND", parser_class=Parser, required=True)
    w = wsub.add_parser("show", help="regions, phases, footprint and sharing of a workload")
    w.add_argument("name", help="NAME[:key=value,...]")
    add_run_options(w, SHAPE_OPTIONS)
    w.add_argument("--json", action="store_true", help="print JSON")
    w.set_defaults(func=cmd_workload_show)
