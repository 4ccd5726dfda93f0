"""``python -m pisession``: the same command line as ``pisession``."""

import sys

from .cli import main

sys.exit(main())
