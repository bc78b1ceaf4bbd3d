"""A run's decision log: why each page moved, and what it cost.

``numaplace.simulate(..., dynamic=..., decisions=PATH)`` (``numaplace sim --decisions PATH``)
writes every action the dynamic policy took as it goes, one batch at a time (the simulator
holds one batch, never the whole log): CSV for a ``.csv`` path, Parquet for ``.parquet``
(through pyarrow, by the API), JSON Lines otherwise. Each record (:data:`COLUMNS`) says when
(``time_ns``), which page and region, ``from`` and ``to`` which node, the ``action``
(``migrate``, ``replicate``, ``collapse``, or ``failed``: a promotion that found no room), the
policy's ``reason``, the ``trigger`` that asked it (``timer``, ``hinting-fault``,
``counter-interrupt``, ``iteration-end``, ``epoch-boundary``, ``low-memory``,
``allocation-failure``), the ``tier`` move (``promotion``, ``demotion``,
``promotion-failure``), what the policy weighed (``measured`` = ``value`` against
``threshold`` = ``limit``, where it declares it), both nodes' memory-controller queueing delay
(``queue_from_ns``, ``queue_to_ns``), the move's ``cost_ns`` and whether a ``background``
thread paid it, and the page's ``counts`` per node (of a policy that counts).

:func:`read` loads a log of any of the three forms as a DataFrame; :func:`explain` answers for
one page, one region or the whole run, as a dict (``numaplace explain`` prints it; a notebook
can call both).
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import pandas as pd

from numaplace._native import NumaplaceError
from numaplace.messages import shown

__all__ = ["COLUMNS", "DecisionLogError", "explain", "read"]

#: The columns of a written log, in order (``counts`` last), as the simulator writes them.
COLUMNS = (
    "time_ns", "page", "region", "from", "to", "action", "reason", "trigger", "tier", "measured", "value", "threshold",
    "limit", "queue_from_ns", "queue_to_ns", "cost_ns", "background", "counts",
)  # fmt: skip

_TEXT = ("region", "action", "reason", "trigger", "tier", "measured", "threshold")
_FLOATS = ("time_ns", "value", "limit", "queue_from_ns", "queue_to_ns", "cost_ns")

#: How many moves of a page, or pages of a region, an answer lists one by one.
SHOWN = 8


class DecisionLogError(NumaplaceError):
    """A decision log is missing or malformed, or holds nothing for what was asked."""


def _fail(path: str | os.PathLike[str], why: str) -> DecisionLogError:
    return DecisionLogError(f"decision log {shown(path)}: {why}")


def read(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A decision log (CSV, JSON Lines or Parquet, told by its content) as a DataFrame of
    :data:`COLUMNS`: ``from``/``to`` nullable integers, missing numbers NaN, ``counts`` a
    tuple of ints per record.

    Raises:
        DecisionLogError: the file is missing, unreadable, or not a decision log.
    """
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError as e:
        raise _fail(path, e.strerror or str(e)) from None
    try:
        if head == b"PAR1":
            import pyarrow.parquet as pq

            df = pq.read_table(path).to_pandas()
        elif head.startswith(b"{"):
            df = pd.read_json(path, lines=True, dtype=False, precise_float=True)
        elif head == b"":
            raise _fail(path, "empty (not a decision log: it has no header)")
        else:
            df = pd.read_csv(path, dtype={c: str for c in (*_TEXT, "counts")}, keep_default_na=False, na_values={c: [""] for c in _FLOATS})
    except DecisionLogError:
        raise
    except Exception as e:  # noqa: BLE001 - any parser's failure is a malformed file
        raise _fail(path, f"not a decision log ({type(e).__name__}: {shown(str(e).splitlines()[0] if str(e) else '')})") from None
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise _fail(path, f"not a decision log (no column {', '.join(missing)})")
    return _typed(df, path)


def _typed(df: pd.DataFrame, path: str | os.PathLike[str]) -> pd.DataFrame:
    df = df[list(COLUMNS)].copy()
    try:
        for c in _TEXT:
            df[c] = df[c].fillna("").astype(str)
        for c in _FLOATS:
            df[c] = pd.to_numeric(df[c], errors="raise").astype(float)
        df["page"] = pd.to_numeric(df["page"], errors="raise").astype("int64")
        for c in ("from", "to"):
            df[c] = pd.to_numeric(df[c], errors="raise").astype("Int64")
        df["background"] = df["background"].map(lambda v: v in (True, "true", "True", 1))
        df["counts"] = df["counts"].map(_counts)
    except (ValueError, TypeError) as e:
        raise _fail(path, f"malformed ({shown(str(e).splitlines()[0])})") from None
    return df


def _counts(v: Any) -> tuple[int, ...]:
    if isinstance(v, str):
        return tuple(int(x) for x in v.split())
    if v is None or isinstance(v, float) and v != v:
        return ()
    return tuple(int(x) for x in v)


def _evidence(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """What the policy weighed, per (measured, threshold): how often, the values' range and the
    limits in force."""
    out = []
    weighed = rows[rows["threshold"] != ""]
    for (measured, threshold), g in weighed.groupby(["measured", "threshold"], sort=True):
        v, lim = g["value"].dropna(), g["limit"].dropna()
        out.append({
            "measured": measured, "threshold": threshold, "moves": len(g),
            "value_min": _num(v.min()) if len(v) else None, "value_max": _num(v.max()) if len(v) else None,
            "limit_min": _num(lim.min()) if len(lim) else None, "limit_max": _num(lim.max()) if len(lim) else None,
        })  # fmt: skip
    return out


def _num(x: Any) -> float | int:
    f = float(x)
    return int(f) if f.is_integer() and abs(f) < 2**53 else f


def _returns(moves: pd.DataFrame) -> tuple[int, int]:
    """Moves that took a page back to the node it left on its previous move, and how many
    pages did so (ping-pong)."""
    back, pages = 0, 0
    for _, g in moves.groupby("page", sort=False):
        left = None
        hit = False
        for f, t in zip(g["from"], g["to"]):
            if left is not None and t == left:
                back += 1
                hit = True
            left = f
        pages += hit
    return back, pages


def _summary(rows: pd.DataFrame) -> dict[str, Any]:
    migrations = rows[(rows["action"] == "migrate") & rows["from"].notna() & (rows["from"] != rows["to"])]
    back, pages_back = _returns(migrations)
    tiers = Counter(rows["tier"])
    why = Counter(zip(rows["trigger"], rows["reason"], rows["action"]))
    return {
        "moves": len(rows),
        "pages": int(rows["page"].nunique()),
        "first_ns": _num(rows["time_ns"].min()),
        "last_ns": _num(rows["time_ns"].max()),
        "cost_ns": _num(rows["cost_ns"].sum()),
        "background_cost_ns": _num(rows.loc[rows["background"], "cost_ns"].sum()),
        "promotions": tiers["promotion"],
        "demotions": tiers["demotion"],
        "promotion_failures": tiers["promotion-failure"],
        "returns": back,
        "pages_returned": pages_back,
        "queue_from_ns_mean": _mean(rows["queue_from_ns"]),
        "queue_to_ns_mean": _mean(rows["queue_to_ns"]),
        "why": [{"trigger": t, "reason": r, "action": a, "moves": n} for (t, r, a), n in sorted(why.items(), key=lambda kv: (-kv[1], kv[0]))],
        "evidence": _evidence(rows),
    }


def _mean(col: pd.Series) -> float | None:
    v = col.dropna()
    return _num(round(float(v.mean()), 3)) if len(v) else None


def _move(r: dict[str, Any]) -> dict[str, Any]:
    def node(v: Any) -> int | None:
        return None if pd.isna(v) else int(v)

    def num(v: float) -> float | None:
        return None if v != v else _num(v)

    return {
        "time_ns": _num(r["time_ns"]), "action": r["action"], "from": node(r["from"]), "to": node(r["to"]), "tier": r["tier"],
        "trigger": r["trigger"], "reason": r["reason"], "measured": r["measured"] or None, "value": num(r["value"]),
        "threshold": r["threshold"] or None, "limit": num(r["limit"]), "queue_from_ns": num(r["queue_from_ns"]),
        "queue_to_ns": num(r["queue_to_ns"]), "cost_ns": _num(r["cost_ns"]), "background": bool(r["background"]),
        "counts": list(r["counts"]),
    }  # fmt: skip


def explain(log: pd.DataFrame | str | os.PathLike[str], *, page: int | None = None, region: str | None = None) -> dict[str, Any]:
    """Why a page, a region, or (neither given) the whole run's pages moved, from a decision
    log (a path or :func:`read`'s frame): the moves, by trigger and reason, what the policy
    weighed, the tier moves, the returns (a page moved back to the node it left: ping-pong),
    and what it cost; a page's first moves one by one, a region's or the run's most-moved
    pages.

    Raises:
        DecisionLogError: a bad log (:func:`read`), or a page or region with no move in it.
    """
    name = log if not isinstance(log, pd.DataFrame) else "(frame)"
    df = read(log) if not isinstance(log, pd.DataFrame) else log
    if page is not None and region is not None:
        raise DecisionLogError("explain: give a page or a region, not both")
    if page is not None:
        rows = df[df["page"] == page]
        if rows.empty:
            raise _fail(name, f"page {page} never moved ({df['page'].nunique():,} pages did{_range(df['page'])})")
        out = {"page": int(page), "region": str(rows["region"].iloc[0]), **_summary(rows)}
        out["first_moves"] = [_move(r) for r in rows.head(SHOWN).to_dict("records")]
        return out
    if region is not None:
        rows = df[df["region"] == region]
        if rows.empty:
            moved = sorted(set(df["region"]))
            raise _fail(name, f"region '{shown(region)}' has no move (regions with moves: {', '.join(map(shown, moved)) or 'none'})")
        return {"region": region, **_summary(rows), "top_pages": _top(rows)}
    if df.empty:
        return {"moves": 0, "pages": 0}
    return {**_summary(df), "top_pages": _top(df), "regions": {k: int(v) for k, v in df["region"].value_counts().sort_index().items()}}


def _range(pages: pd.Series) -> str:
    return f", pages {pages.min():,} to {pages.max():,}" if len(pages) else ""


def _top(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """The most-moved pages (ties by page number), with how many times each moved back."""
    counts = rows.groupby("page", sort=True).size().sort_values(ascending=False, kind="stable").head(SHOWN)
    out = []
    for p, n in counts.items():
        mine = rows[rows["page"] == p]
        migrations = mine[(mine["action"] == "migrate") & mine["from"].notna() & (mine["from"] != mine["to"])]
        back, _ = _returns(migrations)
        out.append({"page": int(p), "moves": int(n), "returns": back, "cost_ns": _num(mine["cost_ns"].sum())})
    return out
