"""``python -m numaplace.cli``: the command line, as ``numaplace`` and ``python -m numaplace`` run it."""

import sys

from numaplace.cli import main

sys.exit(main())
