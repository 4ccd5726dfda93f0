"""The one seam between the context rule's two implementations, in the spirit of
CPython's ``json.scanner`` (``make_scanner = c_make_scanner or py_make_scanner``).

``pisession.rule`` (readable, over a list of entries) and ``pisession.engine.context``
(fast, over an ``EntryIndex``) take the same steps under the same names (``path``,
``settings``, ``selection``, ``context_edits``, ``steps``, ``project``) and return the
same types (``pisession.projection``). ``implementation`` picks the one for a source:
the engine for an index, the rule for plain entries. ``Session`` asks through here.

``fast`` is the engine, or None: then the rule answers for an index too, reading every
entry in full (the tests run their one suite both ways, as CPython runs ``test_json``
with and without ``_json``).

>>> from pisession.engine.index import EntryIndex
>>> entries = [{"id": "a", "type": "label"}, {"id": "b", "parentId": "a"}]
>>> implementation(entries).__name__, implementation(EntryIndex.of(entries)).__name__
('pisession.rule', 'pisession.engine.context')
>>> project(entries).path == project(EntryIndex.of(entries)).path == [0, 1]
True
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

from .. import rule
from ..projection import Projection, Steps
from . import context
from .index import EntryIndex

#: The fast implementation (None: the rule answers everywhere).
fast: ModuleType | None = context

#: What the steps read: an engine's index, or a session's entries (file order, no header).
Source = EntryIndex | Sequence[object]


def implementation(source: Source) -> ModuleType:
    """The module whose steps answer for ``source``: the engine for an index (unless
    ``fast`` is None), the rule for a list of entries."""
    return fast if isinstance(source, EntryIndex) and fast is not None else rule


def _argument(module: ModuleType, source: Source) -> object:
    """``source`` as ``module`` takes it: the rule takes the entries themselves."""
    if module is rule and isinstance(source, EntryIndex):
        return source.entries(range(len(source)))
    return source


def path(source: Source, leaf: int | None = None) -> list[int]:
    """Step 1 (``path``) by the implementation for ``source``."""
    module = implementation(source)
    return module.path(_argument(module, source), leaf)  # type: ignore[no-any-return]


def steps(source: Source, leaf: int | None = None, edits: bool = True) -> Steps:
    """Steps 1 to 4 (``steps``) by the implementation for ``source``."""
    module = implementation(source)
    return module.steps(_argument(module, source), leaf, edits)  # type: ignore[no-any-return]


def project(source: Source, leaf: int | None = None, edits: bool = True) -> Projection:
    """The five steps (``project``) by the implementation for ``source``; the answer
    names the index's file (the rule's own errors name ``<entries>``)."""
    module = implementation(source)
    found: Projection = module.project(_argument(module, source), leaf, edits)
    if isinstance(source, EntryIndex):
        found.context.source = source.source
    return found
