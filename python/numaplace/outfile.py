"""Writing the CLI's output files without harming what is already there.

One rule for every file a command writes (``sim --json``, ``topo --out``, ``report --plot``,
``trace export --out``): a regular file or a new path is written to a uniquely named temporary
file beside it and renamed over it (atomic: nothing partial is left on failure, and the
temporary is removed); a symbolic link is followed and its target written the same way (the
link stays); a character device, FIFO or socket is written through directly, never renamed
over (so ``--json /dev/null`` works for every user and, as root, leaves the device node in
place); a directory or an empty path is refused. No command replaces or removes a file it was
not asked to write. Rust's ``numaplace_sim::run::write_decisions`` follows the same rule.

Before any work, every command hands its outputs and the files it reads to
:func:`check_outputs`, which refuses an output that cannot be created (its directory missing,
read-only, or refusing new files: found by creating and removing a temporary there), two
outputs that are one file, and an output that is one of the inputs (by path, through links,
or as a hard link: the same device and inode) — so a run never ends by failing to write, and
never overwrites what it read.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Callable, Iterable

from numaplace._native import NumaplaceError
from numaplace.messages import shown


class OutputError(NumaplaceError):
    """An output file cannot be written (a directory, an empty path, a failed write)."""


def destination(path: str | os.PathLike[str], what: str) -> tuple[Path, bool]:
    """Where writing ``path`` goes: the path with every symbolic link resolved (a dangling
    link's target is created), and whether it is a special file written through in place.

    Raises:
        OutputError: an empty path, a directory, or a link loop.
    """
    if os.fspath(path) == "":
        raise OutputError(f"{what}: an empty path (give a file name)")
    try:
        # strict=False resolves every link that exists and keeps the rest of the path, so a
        # dangling link names the file it would create.
        real = Path(path).resolve(strict=False)
    except (OSError, RuntimeError) as e:  # RuntimeError: a symlink loop (Python < 3.13)
        raise OutputError(f"{what} {os.fsdecode(path)}: cannot resolve: {getattr(e, 'strerror', None) or e}") from None
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return real, False
    except OSError as e:
        raise OutputError(f"{what} {os.fsdecode(path)}: {e.strerror or e}") from None
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{what} {os.fsdecode(path)}: is a directory (give a file name)")
    return real, not stat.S_ISREG(st.st_mode)


def check_output(path: str | os.PathLike[str], what: str) -> None:
    """Checks before a run that ``path`` can be a destination (see :func:`destination`) and
    that a file can be created beside it (a temporary, created and removed at once), so a bad
    output path, a read-only directory or one nothing can be created in fails before the
    work, not after it."""
    real, special = destination(path, what)
    if special:
        return
    if not real.parent.is_dir():
        raise OutputError(f"{what} {os.fsdecode(path)}: directory {real.parent} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    except OSError as e:
        raise OutputError(f"cannot write {what} {os.fsdecode(path)}: {e.strerror or e}") from None
    os.close(fd)
    os.unlink(tmp)


def check_output_dir(path: str | os.PathLike[str], what: str) -> None:
    """Checks before a run that ``path`` can be the directory a command writes its files into:
    a directory, or a path whose nearest existing ancestor is one, where something can be
    created (a temporary directory, created and removed at once). Nothing is created.

    Raises:
        OutputError: a file (or a special file) at the path or an ancestor, or a directory
            nothing can be created in.
    """
    name = os.fsdecode(path)
    target = Path(name or ".")
    probe = target
    while True:
        try:
            st = os.stat(probe)
            break
        except (FileNotFoundError, NotADirectoryError):  # missing, or under a file: look above
            if probe.parent == probe:
                raise OutputError(f"{what} {name}: no such directory") from None
            probe = probe.parent
        except OSError as e:
            raise OutputError(f"{what} {name}: {e.strerror or e}") from None
    if not stat.S_ISDIR(st.st_mode):
        if probe != target:
            raise OutputError(f"{what} {name}: {os.fsdecode(probe)} is not a directory")
        raise OutputError(f"{what} {name}: not a directory (give a directory for the files)")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".numaplace-", dir=probe))
    except OSError as e:
        raise OutputError(f"cannot write {what} {name}: {e.strerror or e}") from None


def _identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """The (device, inode) of the file ``path`` names, through links; None if there is none."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None
    return st.st_dev, st.st_ino


def check_outputs(
    outputs: Iterable[tuple[str | os.PathLike[str] | None, str]],
    inputs: Iterable[tuple[str | os.PathLike[str] | None, str]] = (),
) -> None:
    """Checks, before anything is read or written, every output ``(path, option)`` of a
    command (None: not asked for) by :func:`check_output`, and that no two outputs are one
    file and no output is one of the ``inputs`` ``(path, what)`` — the same path once links
    are resolved, or the same device and inode (a hard link). A device or FIFO written
    through (``/dev/null``) may be named more than once. An input that names no file (a
    preset's name, or missing: its reader says so) is not compared.

    Raises:
        OutputError: one line naming both options and the file.
    """
    seen: list[tuple[str, str | os.PathLike[str], Path, tuple[int, int] | None]] = []
    for path, what in outputs:
        if path is None:
            continue
        check_output(path, what)
        real, special = destination(path, what)
        if special:
            continue
        ident = _identity(real)
        for other_what, _, other_real, other_ident in seen:
            if real == other_real or (ident is not None and ident == other_ident):
                raise OutputError(f"{other_what} and {what} name one file ({shown(path)}): give each its own")
        seen.append((what, path, real, ident))
    for path, what in inputs:
        if path is None:
            continue
        ident = _identity(path)
        if ident is None:
            continue
        for out_what, out_path, _, out_ident in seen:
            if ident == out_ident:
                raise OutputError(
                    f"{out_what} {shown(out_path)} is {what} {shown(path)}: writing it would destroy what is read"
                    " (give another file)"
                )


def write_with(path: str | os.PathLike[str], what: str, write: Callable[[Path], None]) -> None:
    """Writes ``path`` by the module's rule: ``write(p)`` writes the complete file at ``p`` (a
    temporary beside the destination, or the special file itself).

    Raises:
        OutputError: as :func:`destination`, or the write fails (the temporary is removed).
    """
    real, special = destination(path, what)
    name = os.fsdecode(path)
    if special:
        try:
            write(real)
        except OSError as e:
            raise OutputError(f"cannot write {what} {name}: {e.strerror or e}") from None
        return
    try:
        # mkstemp: a unique name (O_EXCL) in the destination's directory, so the rename is atomic
        # and two writers, or two outputs of one run, never share a temporary.
        fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    except OSError as e:
        raise OutputError(f"cannot write {what} {name}: {e.strerror or e}") from None
    os.close(fd)
    try:
        write(Path(tmp))
        if real.exists():  # keep the existing file's permissions, as writing it in place would
            os.chmod(tmp, stat.S_IMODE(os.stat(real).st_mode))
        else:  # mkstemp makes 0600; a new output gets the usual mode under the umask
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, real)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise OutputError(f"cannot write {what} {name}: {e.strerror or e}") from None
        raise


def write_output(path: str | os.PathLike[str], what: str, data: str | bytes) -> None:
    """Writes ``data`` (text as UTF-8) to ``path`` by the module's rule (:func:`write_with`)."""
    raw = data.encode() if isinstance(data, str) else data

    def write(p: Path) -> None:
        with open(p, "wb") as f:
            f.write(raw)

    write_with(path, what, write)
