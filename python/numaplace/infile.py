"""Reading the input files numaplace reads whole in Python, each within a size cap.

A sweep spec and a runtime stats file are read into memory whole (TOML and JSON have no
streaming parser here). Read with no bound, ``/dev/zero`` (or a link to it, or an endless
pipe) given as one grew until the machine ran out of memory and ended in ``internal error:
MemoryError``. :func:`read_input` reads at most one byte more than the kind's cap
(:data:`INPUT_CAPS`, declared once here; docs/bounds.md states them and a test holds the two
equal) and refuses a larger input in one line naming the file and the cap. A FIFO is opened
without blocking and refused when nothing is written to it within :data:`FIFO_WAIT_S` (a
FIFO nobody opens for writing would otherwise hang the command forever); a directory is
refused as ``IsADirectoryError``, as opening and reading it would be. The files the Rust side
reads (traces, machine files, SWF job streams) have caps of their own there.
"""

from __future__ import annotations

import errno
import os
import select
import stat

from numaplace._native import NumaplaceError

INPUT_CAPS: dict[str, int] = {
    "sweep spec": 16 << 20,
    "stats file": 64 << 20,
}
"""The most bytes numaplace reads of each kind of input it reads whole in Python.

A sweep spec of a million values (the most configurations a sweep may have) is about 8 MB of
TOML; a stats file holds an epoch per policy decision, about 150 bytes each, so 64 MiB is
some 400,000 decisions (days of a program's run), and parsing it takes about 1 GB.
"""

FIFO_WAIT_S = 10.0
"""How long an input that is a FIFO (or pipe) may go without a writer's first byte or its
closing, in seconds, before it is refused."""

_CHUNK = 1 << 20


class InputError(NumaplaceError):
    """An input file is larger than its kind's cap, or a FIFO nobody writes to."""


def cap_text(n: int) -> str:
    """A byte count as docs/bounds.md writes it: ``16 MiB``."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n:,} bytes"


def read_input(path: str | os.PathLike[str], kind: str) -> bytes:
    """The bytes of the input file ``path`` of kind ``kind`` (a key of :data:`INPUT_CAPS`).

    Raises:
        OSError: as opening and reading it would (``FileNotFoundError``, ``PermissionError``;
            ``IsADirectoryError`` for a directory).
        InputError: it holds more than the kind's cap, or it is a FIFO nothing was written to
            within :data:`FIFO_WAIT_S` (one line naming the file and the bound).
    """
    cap = INPUT_CAPS[kind]
    name = os.fsdecode(path)
    # Non-blocking: opening a FIFO for reading would otherwise wait for a writer, forever.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
        if stat.S_ISFIFO(mode):
            poller = select.poll()
            poller.register(fd, select.POLLIN | select.POLLHUP)
            if not poller.poll(FIFO_WAIT_S * 1000):
                raise InputError(
                    f"{name}: a FIFO nothing was written to within {FIFO_WAIT_S:g} s (the {kind} is read from it)"
                )
        os.set_blocking(fd, True)
        chunks: list[bytes] = []
        size = 0
        while size <= cap:
            chunk = os.read(fd, min(_CHUNK, cap + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    raise InputError(f"{name}: larger than {cap_text(cap)}, the most numaplace reads of a {kind} (docs/bounds.md)")
