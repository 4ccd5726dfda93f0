"""``pisession explain --json`` and ``pisession tree --json``' pieces: the explanation and
the leaves as JSON-ready data (ids as Pi wrote them, lines, fates and reasons).

>>> import pisession
>>> s = pisession.load(pisession.sample_path("tour"))
>>> explain_head(s, s.fates())["counts"]["kept"]
5
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ..js.value import UNDEFINED
from ..tree import shown_name
from .provenance import FATE
from .reasons import Reading, kept_range_text, reading_of

if TYPE_CHECKING:
    from .protocol import SessionLike
    from .provenance import Fates

#: A JSON object as the command line prints it (any JSON values).
JSONObject = dict[str, Any]


def leaf_data(session: SessionLike, chosen: int | None) -> list[JSONObject]:
    """Every leaf (branch end) of the tree, in file order: id, line, label, and whether
    it is the one explained.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> [(leaf["id"], leaf["chosen"]) for leaf in leaf_data(s, s.default_leaf)]
    [('cm000001', False), ('a6000001', True)]
    """
    index = session.index
    return [
        {
            "id": json_id(index.ids[p]),
            "line": session.line_of(p),
            "label": session.label_of(p),
            "chosen": p == chosen,
        }
        for p in session.shape.leaves
    ]


def json_id(value: object) -> object:
    """A value read from the file as JSON: ``None`` for one that is absent.

    >>> json_id(UNDEFINED), json_id("a1")
    (None, 'a1')
    """
    return None if value is UNDEFINED else value


def _kept_range_data(session: SessionLike, projection: Reading) -> JSONObject | None:
    selection = projection.selection
    if selection.compaction is None:
        return None
    index = session.index
    data: JSONObject = {"text": kept_range_text(session, projection)}
    if selection.first_kept is None:
        data.update(entries=0, retainNone=selection.retains_none)
        return data
    kept = projection.path[selection.start : selection.cut]
    data.update(
        entries=len(kept),
        first=json_id(index.ids[kept[0]]),
        last=json_id(index.ids[kept[-1]]),
        lines=[session.line_of(kept[0]), session.line_of(kept[-1])],
        droppedSystem=[json_id(index.ids[p]) for p in selection.dropped_system],
        retainNone=False,
    )
    return data


def _place(session: SessionLike, position: int) -> JSONObject:
    return {"id": json_id(session.index.ids[position]), "line": session.line_of(position)}


def explain_head(session: SessionLike, fates: Fates, leaf_id: object = None) -> JSONObject:
    """The explanation without its entries, as JSON-ready data (``explain --json``).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> head = explain_head(s, s.fates())
    >>> head["leaf"], head["counts"]["kept"]
    ({'id': 'a6000001', 'line': 27, 'default': True}, 5)
    """
    reading = reading_of(fates)
    index, path = session.index, reading.path
    compaction = reading.compaction
    leaf = path[-1] if path else None
    return {
        "file": session.source,
        "session": {
            "id": session.id,
            "name": shown_name(session),
            "version": session.original_version,
            "migrated": session.migrated,
        },
        "leaf": None if leaf is None else {**_place(session, leaf), "default": leaf_id is None},
        "path": {"entries": len(path), "root": json_id(index.ids[path[0]]) if path else None},
        "compaction": None if compaction is None else _place(session, compaction),
        "keptRange": _kept_range_data(session, reading),
        "context": {
            "messages": reading.messages,
            "thinkingLevel": None
            if reading.thinking_level is UNDEFINED
            else reading.thinking_level,
            "model": reading.model,
        },
        "reached": fates.reached(),
        "counts": fates.counts(),
        "skippedLines": [d.line for d in session.diagnostics if d.kind != "newer-version"],
        "leaves": leaf_data(session, leaf),
    }


def entry_data(session: SessionLike, fates: Fates) -> Iterator[JSONObject]:
    """Every entry's fate and reason, in file order, one dict at a time.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> next(entry_data(s, s.fates()))["reason"]
    'before the kept range of compaction cp000001: replaced by its summary'
    """
    index = session.index
    texts: dict[object, str] = {}
    for fate in fates:
        p = fate.position
        role = index.roles[p] if index.types[p] == "message" else None
        try:  # many entries share a reason: its words are made once
            reason = texts.get(fate.why) or texts.setdefault(fate.why, fate.reason)
        except TypeError:  # a reason holding an object (an entry type that is one)
            reason = fate.reason
        yield {
            "line": fate.line,
            "id": fate.id,
            "type": fate.type,
            "role": role if isinstance(role, str) else None,
            "label": session.label_of(p),
            "fate": fate.fate,
            "reached": FATE[fate.fate].reached,
            "messages": fate.messages,
            "reason": reason,
        }
