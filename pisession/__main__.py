"""``python -m pisession`` and the ``pisession`` command: ``cli.main``, then a quick exit.

Once the output is flushed, the process ends without freeing, one by one, the columns of
a session it has just read (hundreds of thousands of small objects): the operating
system takes the memory back at once. In Pyodide (``sys.platform == "emscripten"``)
the process is the browser tab or Node's runtime, which must go on: there ``run`` returns
the status instead.
"""

import os
import sys


def run() -> int:
    """Run the command line and exit with its status (in Pyodide: return it)."""
    from .cli import main

    status = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError, OSError):
        status = status or 1
    if sys.platform == "emscripten":
        return status
    os._exit(status)


if __name__ == "__main__":
    run()
