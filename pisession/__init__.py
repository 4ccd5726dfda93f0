"""pisession: which lines of a Pi session file reached the model, and why.

Reads Pi 0.87.1 session files (JSON Lines) losslessly, migrates v1/v2 to v3 in memory,
builds the entry tree and the model context exactly as Pi does, with the source entry
of every message. Chapter 27 ("The Session File Format") of *Pi Agents*.

>>> import pisession
>>> session = pisession.load(pisession.sample_path("tour"))
>>> [m["role"] for m in session.context().messages][:3]
['system', 'compactionSummary', 'user']

The rule itself, readable top to bottom in the chapter's five steps, is
``pisession.rule``; ``Session`` answers the same through a fast engine.
"""

from . import rule
from .errors import CycleError, PisessionError, SessionFormatError, UnknownLeafError
from .folders.search import Pattern, search_folder
from .folders.usage import scan_folder, session_breakdown
from .llm import to_llm
from .migration import migrate, migrate_v1_to_v2, migrate_v2_to_v3, sequential_ids
from .piversions import __version__ as __version__
from .samples import sample_names, sample_path
from .session import Context, ProjectedEntry, Projection, Session, load, loads

__all__ = [
    "Context",
    "CycleError",
    "Pattern",
    "PisessionError",
    "ProjectedEntry",
    "Projection",
    "Session",
    "SessionFormatError",
    "UnknownLeafError",
    "load",
    "loads",
    "migrate",
    "migrate_v1_to_v2",
    "migrate_v2_to_v3",
    "rule",
    "sample_names",
    "sample_path",
    "scan_folder",
    "search_folder",
    "sequential_ids",
    "session_breakdown",
    "to_llm",
]
