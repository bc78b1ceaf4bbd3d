"""The ``numaplace`` command line.

Every command reports bad input as one line on stderr, ``numaplace: error: ...``, and exits
with status 2; an unexpected internal failure exits with status 1, also in one line (set
``NUMAPLACE_DEBUG=1`` for the traceback). Nothing is written when a run fails.

A package by group of commands: :mod:`~numaplace.cli.listings` (what can be named),
:mod:`~numaplace.cli.simulate` (``sim``, ``trace``, ``workload``), :mod:`~numaplace.cli.explain`
(``explain``: a run's decision log), :mod:`~numaplace.cli.host`
(``topo``, ``run``, ``where``, ``report``), :mod:`~numaplace.cli.experiments` (``reproduce``,
``bench``), :mod:`~numaplace.cli.advise`, with ``sweep`` and ``record`` registered by their own
packages; :mod:`~numaplace.cli.parser` declares the commands in order and
:mod:`~numaplace.cli.common` holds what they share. Nothing below the command line imports it.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

from numaplace._native import NumaplaceError, __version__
from numaplace.cli.common import EXIT_INTERNAL, EXIT_USAGE, UsageError, shown
from numaplace.cli.parser import build_parser
from numaplace.messages import error_line

__all__ = ["EXIT_INTERNAL", "EXIT_USAGE", "UsageError", "build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the CLI; returns the exit status."""
    # File names are printed as the bytes they are (as ls does), whatever the locale's
    # encoding of stdout: a name that is not UTF-8 is no reason to fail after the work.
    if getattr(sys.stdout, "errors", None) == "strict" and hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="surrogateescape")
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.version:
            print(f"numaplace {__version__}")
            return 0
        if not getattr(args, "command", None):
            parser.print_help()
            return EXIT_USAGE
        status = args.func(args)  # `run` returns its program's exit status
        return status if isinstance(status, int) else 0
    except UsageError as e:
        print(error_line(e), file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("numaplace: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except UnicodeEncodeError as e:
        # A non-UTF-8 argument (bytes decoded with surrogateescape) reached a function that takes
        # UTF-8 text (the Rust side): name the argument, as any bad input.
        text = e.object if isinstance(e.object, str) else ""
        bad = [a for a in (sys.argv[1:] if argv is None else argv) if text and text in a]
        what = f"argument '{shown(bad[0])}'" if bad else "a name or path"
        print(error_line(f"{what} is not valid UTF-8 (numaplace takes UTF-8 names and paths)"), file=sys.stderr)
        return EXIT_USAGE
    except Exception as e:  # noqa: BLE001 - the CLI's last line of defence
        if isinstance(e, NumaplaceError):
            print(error_line(e), file=sys.stderr)
            return EXIT_USAGE
        if os.environ.get("NUMAPLACE_DEBUG"):
            raise
        print(f"numaplace: internal error: {type(e).__name__}: {shown(e)} (set NUMAPLACE_DEBUG=1 for details)", file=sys.stderr)
        return EXIT_INTERNAL
