"""``numaplace advise``'s diagnosis: which data objects lose locality, why, and what to change.

:func:`diagnose` reads the per-object tally of a trace (``_native.trace_objects``:
``crates/sim/src/trace/objects.rs``) — for each region (an allocation site or static symbol, as
``numaplace record`` names them) the lines its timed iterations fetch per node, who first
touched each page and in which phase, and when it was last written — and says, for the objects
that lose the most locality against the best static placement:

* its size, its share of the timed misses, its local share now (first touch, the threads bound
  as given) and under the bound (each page on the node that uses it most) and interleaved;
* who first touched it (thread, phase, serial code or a parallel region) and how its pages are
  used (each by one node's threads — *partitioned* — or by every node's — *shared*);
* the change in words: initialise it in parallel, interleave it, replicate it, move it once,
  or nothing.

The rules are declared here once (:data:`FINE_GAP`, :data:`PARTITIONED`, :data:`SHARED`,
:data:`ONE_THREAD`) and documented in ``docs/advise.md``, "The diagnosis".
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from numaplace import _native

if TYPE_CHECKING:
    from matplotlib.axes import Axes

FINE_GAP = 0.05
"""An object whose local share now is within this of its bound's is placed well: nothing to change."""
PARTITIONED = 0.8
"""An object whose bound keeps at least this share local is *partitioned*: each page is used
mostly by one node's threads, so some static placement makes it local."""
SHARED = 0.5
"""An object whose bound keeps less than this local is *shared*: every node's threads use its
pages, so no node can hold it locally, and spreading its traffic is what is left."""
ONE_THREAD = 0.9
"""First touched by one thread when that thread first touched at least this share of its pages."""
MIN_SHARE = 0.01
"""Objects with less than this share of the timed misses are not diagnosed one by one."""
TOP = 5
"""How many objects the diagnosis names, those that lose the most first."""


@dataclass
class ObjectDiagnosis:
    """One data object, diagnosed (the fields of ``Advice.to_dict()["diagnosis"]``)."""

    name: str
    bytes: int
    share: float
    """Its share of the run's timed misses (transactions of iterations 1 and up)."""
    local_now: float
    """Its local share under first touch, with the threads bound as advised on."""
    local_best: float
    """Its local share under the bound (each page on the node whose threads use it most)."""
    local_interleaved: float
    lost: float
    """Points of the whole run's local share it loses against its bound: share x (best - now)."""
    pattern: str
    """``partitioned``, ``shared`` or ``mixed`` (:data:`PARTITIONED`, :data:`SHARED`)."""
    first_touch: str
    """Who first touched it, in words."""
    first_touch_thread: int | None
    first_touch_serial: bool
    first_touch_phase: str
    read_only_after: str | None
    """The phase after which the timed iterations only read it (None: written in them)."""
    verdict: str
    """``fine``, ``initialise-in-parallel``, ``match-schedule``, ``interleave``, ``move-once``."""
    why: str
    change: list[str] = field(default_factory=list)


def tally(trace: str, machine: str, binding: str = "spread", oversubscribe: bool = False) -> dict[str, Any]:
    """The per-object tally of ``trace`` with its threads bound on ``machine`` (JSON as data)."""
    return json.loads(_native.trace_objects(trace, machine, binding, oversubscribe))


def _ratio(a: float, b: float) -> float:
    return a / b if b else 0.0


def _phase(t: dict[str, Any], epoch: int | None) -> str:
    """An epoch in words: `numaplace record` names an epoch after the boundary that ends it, so
    `fork SITE` is the serial code before the parallel region at SITE."""
    if epoch is None:
        return "never"
    e = t["epochs"][epoch]
    kind, _, site = e["phase"].partition(" ")
    if kind == "fork":
        return f"the serial code before {f'the parallel region at {site}' if site else 'a parallel region'} (iteration {e['iteration']})"
    if kind == "barrier":
        return f"the parallel code ending at {f'the barrier at {site}' if site else 'a barrier'} (iteration {e['iteration']})"
    return f"phase {e['phase']} (iteration {e['iteration']})"


def _first_touch(t: dict[str, Any], o: dict[str, Any]) -> tuple[str, int | None, bool, str]:
    pages = o["first_touch_pages"]
    touched = sum(pages)
    if not touched:
        return "never touched", None, False, "never"
    top = max(range(len(pages)), key=lambda k: (pages[k], -k))
    serial = o["first_touch_serial_pages"] >= ONE_THREAD * touched
    first, last = o["first_touch_epochs"]
    phase = _phase(t, first)
    where = "" if serial else " in parallel regions"
    when = f"in {phase}" if first == last else f"from {phase} to {_phase(t, last)}"
    if pages[top] >= ONE_THREAD * touched:
        who = f"thread {top} (node {t['thread_nodes'][top]})"
        return f"first touched by {who}{where} {when}", top, serial, phase
    nodes = sorted({t["thread_nodes"][k] for k, n in enumerate(pages) if n})
    return (f"first touched by {sum(1 for n in pages if n)} threads on node{'s' if len(nodes) > 1 else ''}"
            f" {', '.join(map(str, nodes))}{where} {when}"), None, serial, phase


def _read_only_after(t: dict[str, Any], o: dict[str, Any]) -> str | None:
    """The phase after which the timed iterations only read the object, if they never write it."""
    timed_reads = sum(o["timed_lines"]) - o["timed_writes"]
    if o["timed_writes"] or not timed_reads:
        return None
    return _phase(t, o["last_write_epoch"]) if o["last_write_epoch"] is not None else "the start"


def diagnose(t: dict[str, Any], *, min_share: float = MIN_SHARE, top: int = TOP) -> list[ObjectDiagnosis]:
    """The objects of a tally (:func:`tally`) with at least ``min_share`` of the timed misses,
    diagnosed, those that lose the most locality first, at most ``top`` of them."""
    total = t["timed_lines"]
    found = []
    for o in t["objects"]:
        timed = sum(o["timed_lines"])
        if not total or timed < min_share * total:
            continue
        now, best = _ratio(o["local_first_touch"], timed), _ratio(o["local_bound"], timed)
        inter = _ratio(o["local_interleaved"], timed)
        pattern = "partitioned" if best >= PARTITIONED else "shared" if best < SHARED else "mixed"
        words, thread, serial, phase = _first_touch(t, o)
        ro = _read_only_after(t, o)
        d = ObjectDiagnosis(
            name=o["name"], bytes=o["pages"] * t["page_size"], share=timed / total, local_now=now, local_best=best,
            local_interleaved=inter, lost=(best - now) * timed / total, pattern=pattern, first_touch=words,
            first_touch_thread=thread, first_touch_serial=serial, first_touch_phase=phase, read_only_after=ro,
            verdict="", why="",
        )
        _verdict(d, t)
        found.append(d)
    found.sort(key=lambda d: (-d.lost, -d.share, d.name))
    return found[:top]


def _verdict(d: ObjectDiagnosis, t: dict[str, Any]) -> None:
    """Sets the verdict, why and the change of ``d`` (the rules of docs/advise.md, "The diagnosis")."""
    name, nodes = f"`{d.name}`", t["nodes"]
    one_node = d.first_touch_thread is not None
    if d.pattern == "shared" and one_node:
        d.verdict = "interleave"
        d.why = (f"every node's threads use its pages (the best static placement keeps only {d.local_best:.0%} local),"
                 f" so no node can hold it locally, and first touch put all of it, and all its traffic, on node"
                 f" {t['thread_nodes'][d.first_touch_thread]}'s memory controller")
        d.change = [f"interleave it over the {nodes} nodes: `numactl --interleave=all` for the whole program,"
                    " or `numaplace run --placement round-robin` for its large allocations"
                    f" ({d.local_interleaved:.0%} local, the traffic spread over every memory controller)"]
        if d.read_only_after is not None:
            d.change.append(f"or replicate it: the timed iterations only read it (last written in {d.read_only_after});"
                            " one copy per node makes every read local (in the code; the runtime does not replicate)")
        return
    if d.local_best - d.local_now < FINE_GAP:
        d.verdict, d.why = "fine", f"{d.local_now:.0%} of its misses are local, within {FINE_GAP:.0%} of the best static placement's {d.local_best:.0%}"
        d.change = ["nothing"]
        return
    if one_node and d.first_touch_serial:
        d.verdict = "initialise-in-parallel"
        d.why = (f"first touch puts all its pages on node {t['thread_nodes'][d.first_touch_thread]}, but each page is"
                 f" used mostly by one node's threads ({d.local_best:.0%} local when each sits with its user;"
                 f" {d.local_now:.0%} now)")
        d.change = [f"initialise {name} in parallel: make the loop that first writes it, in {d.first_touch_phase},"
                    " `#pragma omp parallel for` with the schedule of the loops that use it"]
        return
    if d.pattern == "partitioned":
        d.verdict = "match-schedule"
        d.why = (f"its pages are first touched by other threads than those that use each ({d.local_now:.0%} local,"
                 f" {d.local_best:.0%} when each page sits with its user)")
        d.change = [f"first touch {name} with the same loop schedule and thread count as the loops that use it"]
        return
    d.verdict = "move-once"
    d.why = (f"its pages are used by different nodes' threads in different phases ({d.local_best:.0%} local at best,"
             f" {d.local_now:.0%} now)")
    d.change = [f"interleave it (`numactl --interleave=all`: {d.local_interleaved:.0%} local), or move it where each"
                " phase uses it (below)"]


MOVABLE = ("initialise-in-parallel", "match-schedule", "move-once")
"""Verdicts for which a runtime policy that moves pages is an alternative to changing the code."""


def add_mover(found: list[ObjectDiagnosis], mover: tuple[str, float] | None) -> None:
    """Adds the runtime alternative to the code change of each movable object: the dynamic
    policy (``mover``: its spec and the share of the current set-up's simulated time it saves,
    from first touch, as the table ranks it) if it saves at least :data:`WORTH_IT`, else that
    no runtime policy pays on this trace."""
    for d in found:
        if d.verdict not in MOVABLE:
            continue
        if mover is not None and mover[1] >= WORTH_IT:
            d.change.append(f"or let the runtime move it: `numaplace run --dynamic {mover[0]}` (simulated: the run"
                            f" {mover[1]:.0%} faster than now)")
        else:
            d.change.append("(no policy the runtime runs moves it profitably on this trace: change the code)")


def as_rows(found: list[ObjectDiagnosis]) -> list[dict[str, Any]]:
    """The diagnoses as plain data (one dict per object)."""
    return [asdict(d) for d in found]


def heatmap(ax: Axes, t: dict[str, Any], name: str, legend: bool = True) -> None:
    """Where the object ``name``'s accesses come from over the run: page (rows) by epoch (columns),
    each cell coloured by the node that made most of its lines and shaded by how many (damo's
    access heatmap, coloured by node)."""
    import numpy as np
    from matplotlib.colors import to_rgba

    from numaplace.plot import PALETTE

    o = next(o for o in t["objects"] if o["name"] == name)
    heat = np.array(o["heat"], dtype=float)  # epochs x page buckets x nodes
    if heat.size == 0:
        ax.set_axis_off()
        return
    lines = heat.sum(axis=2)
    dominant = heat.argmax(axis=2)
    peak = lines.max() or 1.0
    img = np.ones((heat.shape[1], heat.shape[0], 4))
    for e in range(heat.shape[0]):
        for p in range(heat.shape[1]):
            if lines[e, p] > 0:
                r, g, b, _ = to_rgba(PALETTE[int(dominant[e, p]) % len(PALETTE)])
                img[p, e] = (r, g, b, 0.25 + 0.75 * lines[e, p] / peak)
    ax.imshow(img, aspect="auto", origin="lower", interpolation="nearest")
    width = t["heat_epoch_width"]
    ax.set_xlabel(f"epoch{'s' if width == 1 else f' (buckets of {width})'}", fontsize="small")
    ax.set_ylabel("pages (low to high)", fontsize="small")
    ax.set_yticks([])
    ax.set_title(name, fontsize="small")
    if legend:
        from matplotlib.patches import Patch

        used = sorted({int(n) for n in np.unique(dominant[lines > 0])})
        ax.legend([Patch(color=PALETTE[n % len(PALETTE)]) for n in used], [f"node {n}" for n in used], fontsize="x-small",
                  loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, handlelength=1.0)


# --- bindings, the program, and the commands that apply a combination ----------------------------

WORTH_IT = 0.03
"""A combination that saves less than this share of the current set-up's simulated time is not
worth a change: the advice is then "change nothing"."""

#: How each binding of the simulator is asked of an OpenMP runtime (OpenMP 4.0's affinity
#: variables, which libgomp and libomp both read).
OMP_BINDING = {"spread": "OMP_PROC_BIND=spread OMP_PLACES=cores", "compact": "OMP_PROC_BIND=close OMP_PLACES=cores"}


def bindings() -> tuple[list[str], str]:
    """The simulator's bindings and its default (the ``binding`` run option's declaration)."""
    opt = next(o for o in json.loads(_native.run_options()) if o["name"] == "binding")
    return list(opt["kind"]["choices"]), str(opt["default"])


def recorded_program(meta: dict[str, str]) -> list[str] | None:
    """The command line a trace was recorded from (``numaplace record`` writes ``source =
    record:COMMAND``), or None for a trace made otherwise."""
    import shlex

    source = meta.get("source", "")
    if not source.startswith("record:"):
        return None
    try:
        argv = shlex.split(source.removeprefix("record:"))
    except ValueError:
        return None
    return argv or None


#: Dynamic symbols whose presence says a program calls the runtime's migration entry points.
API_SYMBOLS = (b"numaplace_migrate", b"upmlib_migrate_memory")


def calls_the_api(program: str) -> bool | None:
    """Whether the binary ``program`` names numaplace's migration entry points (None: unreadable)."""
    try:
        with open(program, "rb") as f:
            data = f.read(256 << 20)
    except OSError:
        return None
    return any(s in data for s in API_SYMBOLS)


def program_words(argv: list[str] | None) -> str:
    import shlex

    return shlex.join(argv) if argv else "PROGRAM [ARGS...]"


def run_command(placement: str, dynamic: str, binding: str, argv: list[str] | None) -> str:
    """The command line that applies a combination to the program: the binding as OpenMP's
    affinity variables, then ``numaplace run`` with both flags (the launcher's own default
    policy is not ``none``)."""
    import shlex

    return (f"{OMP_BINDING.get(binding, '')} numaplace run --placement {shlex.quote(placement)}"
            f" --dynamic {shlex.quote(dynamic)} -- {program_words(argv)}").strip()


def numactl_command(placement: str, dynamic: str, binding: str, thread_nodes: list[int], argv: list[str] | None) -> str | None:
    """The same combination with plain ``numactl`` where that does it (no dynamic policy, and a
    placement numactl has: first touch, interleaving, one node), else None."""
    if dynamic != "none":
        return None
    name, _, params = placement.partition(":")
    mem = {"first-touch": "--localalloc", "round-robin": "--interleave=all"}.get(name)
    if name == "bind":
        mem = f"--membind={params.split('=', 1)[1]}"
    if mem is None:
        return None
    used = sorted(set(thread_nodes))
    cpu = f" --cpunodebind={','.join(map(str, used))}" if binding == "compact" and len(used) == 1 else ""
    return f"{OMP_BINDING.get(binding, '')} numactl{cpu} {mem} {program_words(argv)}".strip()


def combo(r: dict[str, Any]) -> str:
    """A row's placement and dynamic policy in words (``none``: the placement alone)."""
    return r["placement"] if r["dynamic"] == "none" else f"{r['placement']} + {r['dynamic']}"


def depends(trace_info: dict[str, Any], table: Any) -> list[str]:
    """What an advice depends on beyond the machine: the thread count, the recording mode, the
    cache model and the binding, in words (``table``: the advice's ranked rows)."""
    meta = dict(trace_info.get("meta", []))
    out = [f"the thread count: recorded with {trace_info['threads']} threads; each thread's share of the"
           " data changes with their number: record again with OMP_NUM_THREADS=N to advise for N"]
    if meta.get("counts") == "sampled":
        out.append(f"the recording mode: counts are estimates from page samples ({meta.get('sampling_rate', '?')});"
                   " each page's busiest thread is right but totals may be off: record exactly (numaplace cc) to confirm")
    elif "cache" in meta:
        size, _, ways = meta["cache"].partition(",")
        out.append(f"the cache model: misses of a {int(size) >> 10} KiB {ways}-way per-thread cache"
                   " (numaplace record --cache): a larger cache leaves fewer misses to place")
    if len(table) and table["binding"].nunique() > 1:
        picks = {b: combo(g.iloc[0].to_dict()) for b, g in table.groupby("binding", sort=False)}
        if len(set(picks.values())) > 1:
            out.append("the binding: the best combination is " + "; ".join(f"{p} with {b}" for b, p in picks.items()))
    return out


def size_words(n: int) -> str:
    for unit, k in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << k:
            return f"{n / (1 << k):,.1f} {unit}"
    return f"{n} B"


def lines(found: list[ObjectDiagnosis]) -> list[str]:
    """The diagnosis as printed lines (empty when there is none)."""
    if not found:
        return []
    out = ["data objects that lose the most locality (share of the timed misses; local now / at best):"]
    for k, d in enumerate(found, 1):
        out.append(f"{k}. {d.name}: {size_words(d.bytes)}, {d.share:.1%} of the misses, {d.local_now:.0%} local now,"
                   f" {d.local_best:.0%} at best ({d.pattern})")
        out.append(f"   {d.first_touch}")
        out.append(f"   why: {d.why}")
        out += [f"   change: {c}" if i == 0 else f"           {c}" for i, c in enumerate(d.change)]
    return out + [""]
