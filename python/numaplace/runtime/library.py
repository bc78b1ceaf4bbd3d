"""Where ``libnumaplace.so`` is (``$NUMAPLACE_LIB``, the venv, ``target/release``)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Mapping

from numaplace import checkout
from numaplace.runtime.base import LIB_NAME, RuntimeToolError


def library_candidates(prefix: str | Path | None = None, repo: str | Path | None = None) -> list[Path]:
    """The default places of the library, in search order: ``<prefix>/lib/numaplace/`` (the
    installed copy; ``prefix`` defaults to ``sys.prefix``), then ``<repo>/target/release/``
    (a checkout's build; ``repo`` defaults to two directories above the ``numaplace`` package)."""
    prefix = Path(sys.prefix if prefix is None else prefix)
    repo = checkout.REPO if repo is None else Path(repo)
    return [prefix / "lib" / "numaplace" / LIB_NAME, repo / "target" / "release" / LIB_NAME]


def built_library(env: Mapping[str, str] | None = None) -> Path:
    """The library a checkout's own tests and tools run: ``$NUMAPLACE_LIB`` if set (``make test``
    points it at the Rust tests' build, ``target/tests/``, which compiled it already), else the
    checkout's release build (``library_candidates()[1]``). It may not exist."""
    given = (os.environ if env is None else env).get("NUMAPLACE_LIB")
    return Path(given) if given else library_candidates()[1]


def build_library(env: Mapping[str, str] | None = None) -> None:
    """Builds (or checks fresh) this checkout's library for :func:`find_library`, unless
    ``$NUMAPLACE_LIB`` or an installed copy (``library_candidates()[0]``) is what it finds:
    :func:`numaplace.checkout.build`.

    Raises:
        RuntimeToolError: cargo failed.
    """
    if (os.environ if env is None else env).get("NUMAPLACE_LIB") or library_candidates()[0].is_file():
        return
    checkout.build("numaplace-runtime", LIB_NAME, RuntimeToolError)


def find_library(
    env: Mapping[str, str] | None = None, prefix: str | Path | None = None, repo: str | Path | None = None
) -> Path:
    """The absolute path of ``libnumaplace.so``: ``$NUMAPLACE_LIB`` if set (it must exist),
    else the first of :func:`library_candidates` that exists.

    Raises:
        RuntimeToolError: ``$NUMAPLACE_LIB`` names no file, or no candidate exists.
    """
    env = os.environ if env is None else env
    given = env.get("NUMAPLACE_LIB")
    if given:
        p = Path(given)
        if p.is_dir():
            raise RuntimeToolError(f"NUMAPLACE_LIB={given}: is a directory (give the path of {LIB_NAME})")
        if not p.is_file():
            raise RuntimeToolError(f"NUMAPLACE_LIB={given}: no such file")
        return _preloadable(p)
    tried = library_candidates(prefix, repo)
    for p in tried:
        if p.is_file():
            return _preloadable(p)
    raise RuntimeToolError(
        f"runtime library {LIB_NAME} not found (tried {', '.join(map(str, tried))}); "
        "`cargo build --release -p numaplace-runtime` builds it in a checkout, or set NUMAPLACE_LIB to its path"
    )


def _preloadable(p: Path) -> Path:
    p = p.resolve()
    if any(c in str(p) for c in ": \t\n"):
        # ld.so splits LD_PRELOAD at colons and white space.
        raise RuntimeToolError(f"{p}: a library path in LD_PRELOAD cannot contain ':' or white space")
    return p
