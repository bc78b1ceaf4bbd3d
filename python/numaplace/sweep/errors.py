"""The sweep's exceptions and its one-line message rule.

Every exception here derives from :class:`numaplace.NumaplaceError`, so a caller catching the
package's base class catches sweep failures too.
"""

from __future__ import annotations

from numaplace._native import NumaplaceError


class SweepError(NumaplaceError):
    """A sweep spec is invalid, or a sweep cannot be run as asked. The message is one line."""


class UnsupportedOptionError(SweepError):
    """A run uses an option (e.g. ``class``) that this version's ``simulate()`` does not take."""


class WorkerLostError(NumaplaceError, RuntimeError):
    """The local worker process running a configuration exited before answering.

    Also a RuntimeError, as it was before it joined the NumaplaceError hierarchy, so that code
    catching RuntimeError keeps catching it.
    """


def one_line(text: object) -> str:
    """``text`` with every run of whitespace made one space: messages and table cells are one line."""
    return " ".join(str(text).split())
