"""A source checkout's Rust programs, built by cargo when a command first needs them.

``make run`` builds the Python extension only. ``libnumaplace.so`` (``numaplace run``) and
``numaplace-record-convert`` (``numaplace record``) are built by ``cargo build --release`` the
first time a command needs them in a checkout, which took about 30 s each on the two-core
machine, and checked again by cargo on every later use (a tenth of a second when nothing
changed), so that a ``git pull`` never leaves a stale one in use. An installed copy, a path
given in the environment (``$NUMAPLACE_LIB``, ``$NUMAPLACE_RECORD_CONVERT``), a missing
``cargo`` or ``$NUMAPLACE_NO_BUILD=1`` leave the lookup as it is: a missing program is then
reported by the command, with where it looked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

#: The repository (this file is python/numaplace/checkout.py).
REPO = Path(__file__).resolve().parents[2]

#: Set (to anything but ``0`` or empty) to never run cargo from a command.
NO_BUILD_ENV = "NUMAPLACE_NO_BUILD"


def release_build(name: str) -> Path:
    """Where cargo's release build of this checkout puts the program or library ``name``."""
    return REPO / "target" / "release" / name


def build(package: str, name: str, error: type[Exception], repo: Path = REPO) -> None:
    """Runs ``cargo build --release -p PACKAGE`` in the checkout ``repo``, which makes (or finds
    fresh) ``target/release/NAME``; a first build says so on stderr and shows cargo's progress.
    Nothing is run outside a checkout, without cargo, or with ``$NUMAPLACE_NO_BUILD`` set.

    Raises:
        error: cargo failed, or left no ``NAME``; the message names the command.
    """
    flag = os.environ.get(NO_BUILD_ENV, "")
    cargo = shutil.which("cargo")
    if (flag and flag != "0") or cargo is None or not (repo / "Cargo.toml").is_file():
        return
    artefact = repo / "target" / "release" / name
    cmd = [cargo, "build", "--release", "-p", package]
    first = not artefact.exists()
    if first:
        print(f"numaplace: building {name} ({' '.join(cmd[1:])} in {repo}; the first time only,"
              " about 30 s)...", file=sys.stderr, flush=True)
        r = subprocess.run(cmd, cwd=repo)
        said = ""
    else:
        r = subprocess.run([*cmd, "--quiet"], cwd=repo, capture_output=True, text=True)
        lines = (r.stderr or "").strip().splitlines()
        said = f": {lines[-1]}" if lines else ""
    if r.returncode != 0:
        raise error(f"building {name} failed: `cargo {' '.join(cmd[1:])}` in {repo} exited with status"
                    f" {r.returncode}{said}")
    if not artefact.is_file():
        raise error(f"building {name}: `cargo {' '.join(cmd[1:])}` left no {artefact}")
