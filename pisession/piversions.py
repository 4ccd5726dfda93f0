"""pisession's own version, and which Pi releases it is checked against (read from
``pi_versions.json``).

That file is the one place the list lives: ``conformance/check.sh`` re-records every
golden with each ``checked`` version (and fails on any difference), and pisession reads
it here for ``pisession --version`` and its messages.

>>> checked_range()
'Pi 0.87.1 to 1.6.0'
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files

#: pisession's version (``pisession.__version__``, ``pisession --version``, exported pages).
__version__ = "0.1.0"


@cache
def pi_versions() -> dict:
    """The parsed ``pisession/pi_versions.json``: ``primary``, ``checked``, ``sessionFormat``.

    >>> pi_versions()["primary"], pi_versions()["sessionFormat"]
    ('0.87.1', 3)
    """
    return json.loads(files(__package__).joinpath("pi_versions.json").read_text("utf-8"))


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def checked_range() -> str:
    """The oldest and newest checked Pi release, e.g. ``Pi 0.87.1 to 1.6.0``."""
    checked = sorted(pi_versions()["checked"], key=_release)
    if len(checked) == 1:
        return f"Pi {checked[0]}"
    return f"Pi {checked[0]} to {checked[-1]}"


def version_text() -> str:
    """What ``pisession --version`` adds after its own version.

    >>> version_text()
    '(session format v3; the rules of Pi 0.87.1 to 1.6.0)'
    """
    session_format = pi_versions()["sessionFormat"]
    return f"(session format v{session_format}; the rules of {checked_range()})"
