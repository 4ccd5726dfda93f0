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

from typing import TYPE_CHECKING, Any

from .errors import CycleError, PisessionError, SessionFormatError, UnknownLeafError
from .migration import migrate, migrate_v1_to_v2, migrate_v2_to_v3, sequential_ids
from .piversions import __version__ as __version__
from .samples import sample_names, sample_path
from .session import Context, ProjectedEntry, Projection, Session, load, loads

if TYPE_CHECKING:  # imported when first used (``__getattr__``): a command needs none of them
    from . import rule
    from .folders.search import Pattern, search_folder
    from .folders.usage import scan_folder, session_breakdown
    from .llm import to_llm

#: Public names whose modules load when first asked for: each command of the CLI loads
#: what it uses, and ``python -m pisession context`` starts without the folder tools.
_LAZY = {
    "rule": (".rule", None),
    "Pattern": (".folders.search", "Pattern"),
    "search_folder": (".folders.search", "search_folder"),
    "scan_folder": (".folders.usage", "scan_folder"),
    "session_breakdown": (".folders.usage", "session_breakdown"),
    "to_llm": (".llm", "to_llm"),
}


def __getattr__(name: str) -> Any:
    """A public name of ``_LAZY``, imported on first use (PEP 562).

    >>> import pisession
    >>> pisession.to_llm.__module__, pisession.rule.__name__
    ('pisession.llm', 'pisession.rule')
    """
    if name not in _LAZY:
        raise AttributeError(f"module 'pisession' has no attribute {name!r}")
    import importlib

    module_name, attribute = _LAZY[name]
    module = importlib.import_module(module_name, __name__)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
