"""``python -m numaplace`` runs the command line."""

import sys

from numaplace.cli import main

sys.exit(main())
