"""``python -m pisession`` and the ``pisession`` command: ``cli.main``, then a quick exit.

Once the output is flushed, the process ends without freeing, one by one, the columns of
a session it has just read (hundreds of thousands of small objects): the operating
system takes the memory back at once.
"""

import os
import sys


def run() -> None:
    """Run the command line and exit with its status."""
    from .cli import main

    status = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError, OSError):
        status = status or 1
    os._exit(status)


if __name__ == "__main__":
    run()
