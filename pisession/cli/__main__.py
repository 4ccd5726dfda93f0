"""``python -m pisession.cli``: the same as ``python -m pisession``."""

import sys

from . import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
