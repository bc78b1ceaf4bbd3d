"""``numaplace advise``: which placement and dynamic policy suit a trace on a machine.

:func:`advise` replays one trace under every placement and every dynamic policy the simulator
can run on it, discovered from their registries (``numaplace placements``, ``numaplace
policies``), never from a list written here:

* every placement; a placement that puts every page on one node (``PlacementCaps.one_node``:
  ``bind``) once per node of the machine; a placement computed from a profile of the run
  (``needs_profile``: ``oracle``) only without a dynamic policy — it is *the bound*, the best
  static placement for locality, which no other static placement beats on local share;
* with each placement but the bound: no dynamic policy, and every dynamic policy the
  simulator drives, each with its defaults and, for a policy that declares the cost-aware
  option (:data:`COST_AWARE`), once more with each other choice of it (``cost_aware=on`` for
  the seeds' policies, ``off`` for ``adaptive``).

A combination the simulator refuses for this trace (e.g. ``upmlib-recrep``, whose phase the
trace does not have) is left out of the table and named in a note with the simulator's reason.
The runs go through the sweep executor (:func:`numaplace.sweep.execute`: this process, a local
process pool, or a Dask cluster), after one run in this process — first touch, no policy —
whose failure (a bad trace, a machine too small for it) is the whole command's error.

The result, an :class:`Advice`, ranks the combinations by simulated time and says for each its
slowdown against the fastest, its local share and its gaps to the bound, and whether the Linux
runtime can run it (the launcher's own checks, ``numaplace.runtime.validate_placement`` and
``validate_dynamic``); it names the best combination overall and the best runnable one, with
the ``numaplace run`` command line that applies the latter. The same trace, machine and seed
give the same advice, byte for byte (``docs/advise.md``).

On a machine of more than one memory tier it also ranks the tiering policies against no policy
and an all-fast reference, draws their time against the fast tier's capacity (the run option
``fast_memory_mib``), and says how much fast memory the program needs and whether tiering is
worth turning on (:mod:`~numaplace.advice.tiers`).

``numaplace.advise(trace)`` is :func:`advise` (a plain function of the package ``numaplace``);
this package holds its parts: :mod:`~numaplace.advice.plan` (what to run, and whether the
runtime can run it), :mod:`~numaplace.advice.run` (running it and ranking the runs), :mod:`~numaplace.advice.tiers`
(the tiered part),
:mod:`~numaplace.advice.result` (the :class:`Advice` as data) and
:mod:`~numaplace.advice.render` (the advice as text and as a chart). The command line
(``numaplace advise``) is :mod:`numaplace.cli.advise`.
"""

from __future__ import annotations

from numaplace.advice.plan import BASELINE, COST_AWARE, NO_POLICY, AdviceError, Plan, plan, run_command, runnable
from numaplace.advice.result import COLUMNS, Advice
from numaplace.advice.run import advise, detect_host

__all__ = [
    "BASELINE",
    "COLUMNS",
    "COST_AWARE",
    "NO_POLICY",
    "Advice",
    "AdviceError",
    "Plan",
    "advise",
    "detect_host",
    "plan",
    "run_command",
    "runnable",
]
