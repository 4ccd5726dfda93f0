"""``python -m pisession.samples AGENT_DIR``: the bundled samples stored as Pi stores
sessions, so ``PI_CODING_AGENT_DIR=AGENT_DIR pisession ls --all`` has something to list."""

from __future__ import annotations

import sys

from . import store_samples


def main(argv: list[str]) -> int:
    """Store the samples under the one folder named; one line of output, or of error."""
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.stderr.write("usage: python -m pisession.samples AGENT_DIR  (for example demo/agent)\n")
        return 2
    try:
        stored = store_samples(argv[0])
    except OSError as exc:
        sys.stderr.write(f"pisession.samples: error: {exc.filename or argv[0]}: {exc.strerror}\n")
        return 2
    print(f"stored {len(stored)} sample sessions under {argv[0]}/sessions, as Pi stores them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
