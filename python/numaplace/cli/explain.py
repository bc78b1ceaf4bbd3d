"""``numaplace explain LOG [--page N | --region NAME] [--json]``: why a page, a region or the
run's pages moved, and what it cost, from a run's decision log (``sim --decisions``), in one
screen (:func:`numaplace.cli.decisions.explain` gives the answer as data)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from numaplace.cli.common import count, shown


def add_explain(sub: Any) -> None:
    """``explain``: one answer from a decision log."""
    s = sub.add_parser(
        "explain",
        help="why a page or region moved, and what it cost, from a run's decision log",
        description="Reads a decision log (numaplace sim --dynamic P --decisions LOG; CSV, JSON Lines or Parquet) and"
        " answers, in one screen, why a page (--page), a region (--region) or the run's pages moved: how many moves, by"
        " which trigger and reason, what the policy weighed (the measured value and the threshold in force), the tier"
        " moves, the pages that moved back to a node they had left (ping-pong), and what the moves cost (docs/explain.md).",
    )
    s.add_argument("log", metavar="LOG", help="a decision log written by numaplace sim --decisions")
    which = s.add_mutually_exclusive_group()
    which.add_argument("--page", type=count, metavar="N", help="the page to explain (its number in the run's footprint)")
    which.add_argument("--region", metavar="NAME", help="the region to explain (its workload's name for it)")
    s.add_argument("--json", action="store_true", help="print the answer as JSON")
    s.set_defaults(func=cmd_explain)


def cmd_explain(args: argparse.Namespace) -> None:
    from numaplace.cli.decisions import explain

    a = explain(args.log, page=args.page, region=args.region)
    if args.json:
        print(json.dumps(a, indent=2))
        return
    print("\n".join(format_answer(a)))


def _n(x: float | int | None) -> str:
    """A measured value or limit: integers with separators, others to four figures."""
    if x is None:
        return "?"
    if float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:.4g}"


def _count(n: int, word: str) -> str:
    """``n`` and ``word``, plural unless one."""
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


def _ms(ns: float) -> str:
    return f"{ns / 1e6:,.3f} ms"


def _us(ns: float) -> str:
    return f"{ns / 1e3:,.1f} µs"


def _head(a: dict[str, Any]) -> list[str]:
    if "page" in a:
        what = f"page {a['page']:,} (region {shown(a['region'])}): {_count(a['moves'], 'move')}"
    elif "region" in a:
        what = f"region {shown(a['region'])}: {_count(a['moves'], 'move')} of {_count(a['pages'], 'page')}"
    else:
        what = f"the run: {_count(a['moves'], 'move')} of {_count(a['pages'], 'page')}"
    back = f" ({_us(a['background_cost_ns'])} in the background)" if a["background_cost_ns"] else ""
    when = _ms(a["first_ns"]) if a["first_ns"] == a["last_ns"] else f"{_ms(a['first_ns'])} to {_ms(a['last_ns'])}"
    lines = [f"{what}, {when}; cost {_us(a['cost_ns'])}{back}"]
    if a["promotions"] or a["demotions"] or a["promotion_failures"]:
        tiers = [_count(a["promotions"], "promotion"), _count(a["demotions"], "demotion"), _count(a["promotion_failures"], "promotion failure")]
        lines.append(f"tiers         {', '.join(tiers)}")
    if a["returns"]:
        who = "moved back to the node it had just left" if "page" in a else f"{_count(a['pages_returned'], 'page')} moved back to the node they had just left"
        lines.append(f"ping-pong     {who}: {_count(a['returns'], 'time')}")
    else:
        lines.append("ping-pong     none (no page moved back to the node it had just left)")
    q_from, q_to = a.get("queue_from_ns_mean"), a.get("queue_to_ns_mean")
    if q_from is not None or q_to is not None:
        lines.append(f"queueing      memory-controller delay when decided, mean: {_n(q_from)} ns at the source, {_n(q_to)} ns at the target")
    return lines


def _why(a: dict[str, Any], limit: int = 4) -> list[str]:
    lines = ["why             moves  trigger            action    reason"]
    for w in a["why"][:limit]:
        lines.append(f"          {w['moves']:>11,}  {w['trigger']:<17}  {w['action']:<8}  {shown(w['reason'])}")
    if len(a["why"]) > limit:
        rest = sum(w["moves"] for w in a["why"][limit:])
        lines.append(f"          {rest:>11,}  (and {len(a['why']) - limit} more triggers and reasons)")
    return lines


def _evidence(a: dict[str, Any], limit: int = 3) -> list[str]:
    if not a["evidence"]:
        return ["weighed       no evidence declared by the policy beyond the page's counts"]
    lines = []
    for i, e in enumerate(a["evidence"][:limit]):
        value = _n(e["value_min"]) if e["value_min"] == e["value_max"] else f"{_n(e['value_min'])} to {_n(e['value_max'])}"
        lim = _n(e["limit_min"]) if e["limit_min"] == e["limit_max"] else f"{_n(e['limit_min'])} to {_n(e['limit_max'])}"
        head = "weighed       " if i == 0 else "              "
        lines.append(f"{head}{e['measured']} {value} against {e['threshold']} {lim} ({_count(e['moves'], 'move')})")
    return lines


def _moves(a: dict[str, Any]) -> list[str]:
    shown_moves = a["first_moves"]
    title = f"first {len(shown_moves)} of {a['moves']:,} moves" if a["moves"] > len(shown_moves) else "moves"
    lines = ["", title, "  time ms      action    from  to  tier                trigger          weighed                        cost µs  counts"]
    for m in shown_moves:
        weighed = f"{m['measured']}={_n(m['value'])} vs {_n(m['limit'])}" if m["threshold"] else "-"
        node = lambda v: "-" if v is None else str(v)  # noqa: E731
        counts = " ".join(map(str, m["counts"])) or "-"
        tier = m["tier"] or "-"
        lines.append(
            f"  {m['time_ns'] / 1e6:<11,.3f}  {m['action']:<8}  {node(m['from']):>4}  {node(m['to']):>2}  {tier:<18}  {m['trigger']:<15}"
            f"  {weighed:<29}  {m['cost_ns'] / 1e3:>7,.1f}  {counts}"
        )
    return lines


def _top(a: dict[str, Any]) -> list[str]:
    lines = ["", "most-moved pages", "  page          moves  moved back  cost µs"]
    for t in a["top_pages"]:
        lines.append(f"  {t['page']:<12,}  {t['moves']:>5,}  {t['returns']:>10,}  {t['cost_ns'] / 1e3:>7,.1f}")
    return lines


def format_answer(a: dict[str, Any]) -> list[str]:
    """The answer of :func:`numaplace.cli.decisions.explain` as at most about 25 lines."""
    if a["moves"] == 0:
        return ["the run: no moves (the log is empty)"]
    lines = _head(a) + _why(a) + _evidence(a)
    if "first_moves" in a:
        lines += _moves(a)
    else:
        lines += _top(a)
    if "regions" in a:
        by_moves = sorted(a["regions"].items(), key=lambda kv: (-kv[1], kv[0]))
        regions = ", ".join(f"{shown(k)} {v:,}" for k, v in by_moves[:6])
        more = f" and {len(a['regions']) - 6} more" if len(a["regions"]) > 6 else ""
        lines.append(f"regions       moves by region: {regions}{more}")
    return lines
