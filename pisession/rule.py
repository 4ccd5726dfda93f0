"""The context rule: which entries of a session reach the model, and as what.

Five steps over plain decoded entries (file order, no header), as Pi 0.87.1 to 1.6.0 take them
(``buildSessionPath``, ``getSessionContextSettings``, ``buildContextEntries``,
``buildSessionProjection``; the five are pisession's reading of that code, not a list of chapter
27's excerpt or of PiG's page): the **path** from the leaf to a root, the **settings** on it, the
**selection** (the newest compaction, its kept range and what follows), the **context edits**,
the **projection**. No cache, no shortcut: ``pisession.engine.context`` is the fast engine, held
equal to this by the tests. JavaScript's value rules come from ``js.value`` (``truthy``: ``if
(x)``; ``nullish``: ``x == null``; ``js_key``: a ``Map`` key; ``strict_equal``: ``===``).

>>> from pisession.samples import sample_path
>>> len(project(load_entries(sample_path("tour"))).messages)
10
"""

from __future__ import annotations

from contextlib import suppress
from itertools import repeat
from pathlib import Path
from typing import Any, cast

from .errors import CycleError
from .js.date import DateConversionError, js_time_ms
from .js.json import loads
from .js.value import (
    NO_KEY,
    UNDEFINED,
    JsObject,
    field,
    js_key,
    nullish,
    quoted,
    strict_equal,
    truthy,
)
from .projection import PiFailure, ProjectedEntry, Projection, Selection, Settings, Steps, pi_throws

#: A session's entries (no header) as ``JSON.parse`` reads them: mostly objects.
Entries = list[object]

#: The context edits in force, by target id (``js_key``): the edit's position and entry.
Edits = dict[object, tuple[int, object]]

#: The roles a context edit replaces the content of; other messages pass unchanged.
EDITABLE_ROLES = ("user", "assistant", "toolResult", "custom")

_SOURCE = "<entries>"  # the file the rule's errors name: it is given entries, not a file


# --- 1. the path ---------------------------------------------------------------------
def default_leaf(entries: Entries) -> int | None:
    """Pi's leaf after loading: the last entry (None: no entries, or its id is null).

    >>> default_leaf([{"id": "a"}, {"id": None}]), default_leaf([{"id": "a"}, {}])
    (None, 1)
    """
    return len(entries) - 1 if entries and field(entries[-1], "id") is not None else None


def path(entries: Entries, leaf: int | None = None) -> list[int]:
    """Positions from a root down to ``leaf`` (a position; None: Pi's default, the last
    entry's id as ``SessionManager`` keeps it: a null id is no leaf, no path). A falsy or
    unknown ``parentId`` ends the walk at a root; ids are looked up as JavaScript ``Map``
    keys (the last entry with an id wins). A walk that returns to an entry is a cycle.

    >>> path([{"id": "a", "parentId": None}, {"id": "b", "parentId": "a"}])
    [0, 1]
    """
    by_id = {js_key(field(entry, "id")): position for position, entry in enumerate(entries)}
    by_id.pop(NO_KEY, None)  # an object or array id: no Map key finds it
    current = default_leaf(entries) if leaf is None else leaf
    walked: list[int] = []
    seen: set[int] = set()
    while current is not None and current >= 0:
        if current in seen:
            loop = [field(entries[p], "id") for p in walked[walked.index(current) :]]
            raise CycleError(_SOURCE, None, loop, position=current)
        seen.add(current)
        walked.append(current)
        parent_id = field(entries[current], "parentId")
        current = by_id.get(js_key(parent_id)) if truthy(parent_id) else None
    return walked[::-1]


# --- 2. the settings -------------------------------------------------------------------
def settings(entries: Entries, positions: list[int]) -> Settings:
    """Read along the whole path, the last of each wins: a ``thinking_level_change``
    sets the level ("off" before any), a ``model_change`` or an assistant message the
    model (None before any). A message entry without a message makes Pi throw.

    >>> settings([{"type": "thinking_level_change", "thinkingLevel": "high"},
    ...           {"type": "message", "message": {"role": "assistant",
    ...            "provider": "p", "model": "m"}}], [0, 1])
    Settings(thinking_level='high', model={'provider': 'p', 'modelId': 'm'})
    """
    thinking: object = "off"
    model: dict[str, object] | None = None
    for position in positions:
        entry = entries[position]
        kind = field(entry, "type")
        if kind == "thinking_level_change":
            thinking = field(entry, "thinkingLevel")
        elif kind == "model_change":
            model = _defined(provider=field(entry, "provider"), modelId=field(entry, "modelId"))
        elif kind == "message":
            message = field(entry, "message")
            if nullish(message):
                reason = f"message entry {quoted(field(entry, 'id'))} has no message object"
                raise PiFailure(_SOURCE, None, pi_throws(reason), position)
            if field(message, "role") == "assistant":  # the model asked for, not the answering one
                asked = field(message, "model")
                model = _defined(provider=field(message, "provider"), modelId=asked)
    return Settings(thinking, model)


# --- 3. the selection: compaction and kept range ---------------------------------------
def selection(entries: Entries, positions: list[int]) -> Selection:
    """The path's entries that are sent. After the newest compaction: the compaction,
    its kept range (the path's entries from the one whose id is ``firstKeptEntryId`` up
    to it, system messages dropped), then all that follows it. A ``firstKeptEntryId``
    that names no earlier entry of the path keeps nothing.

    >>> entries = [{"id": "u"}, {"id": "a"}, {"type": "compaction", "id": "c",
    ...            "firstKeptEntryId": "a"}, {"id": "n"}]
    >>> selection(entries, [0, 1, 2, 3]).positions
    [2, 1, 3]
    """
    compactions = [i for i, p in enumerate(positions) if field(entries[p], "type") == "compaction"]
    if not compactions:
        return Selection(list(positions))
    newest = positions[compactions[-1]]
    # Pi finds the compaction again by its id (===): the first entry of the path with it
    own_id = field(entries[newest], "id")
    ids = [field(entries[p], "id") for p in positions]
    cut = next(i for i, p in enumerate(positions) if p == newest or strict_equal(ids[i], own_id))
    first_kept = field(entries[newest], "firstKeptEntryId")
    start = next((i for i in range(cut) if strict_equal(ids[i], first_kept)), cut)
    system = [_is_system_message(entries[p]) for p in positions[start:cut]]
    kept = [p for p, dropped in zip(positions[start:cut], system) if not dropped]
    return Selection(
        [newest, *kept, *positions[cut + 1 :]],
        newest,
        len(kept),
        positions[start] if start < cut else None,
        tuple(p for p, dropped in zip(positions[start:cut], system) if dropped),
        start,
        cut,
        first_kept,
        start == cut and strict_equal(first_kept, own_id),
    )


def _is_system_message(entry: object) -> bool:
    return field(entry, "type") == "message" and field(field(entry, "message"), "role") == "system"


# --- 4. the context edits ---------------------------------------------------------------
def context_edits(entries: Entries, chosen: Selection) -> Edits:
    """The edit in force for each edited entry, keyed by its id as a ``Map`` keys it:
    every ``context_edit`` among the selected entries counts, the last one for a target
    wins, wherever it stands (an edit may come before its target).

    >>> edit = {"type": "context_edit", "targetId": "u", "replacement": None}
    >>> context_edits([edit], Selection([0]))
    {'u': (0, {'type': 'context_edit', 'targetId': 'u', 'replacement': None})}
    """
    edits: Edits = {}
    for p in chosen.positions:
        if field(entries[p], "type") == "context_edit":
            key = js_key(field(entries[p], "targetId"))
            if key is not NO_KEY:
                edits[key] = (p, entries[p])
    return edits


def steps(entries: Entries, leaf: int | None = None, edits: bool = True) -> Steps:
    """Steps 1 to 4 at ``leaf`` (None: Pi's default), in Pi's order (``edits=False``:
    no context edits collected).

    >>> steps([{"id": "a"}]).path
    [0]
    """
    walked = path(entries, leaf)
    found = settings(entries, walked)
    chosen = selection(entries, walked)
    return Steps(walked, found, chosen, context_edits(entries, chosen) if edits else {})


# --- 5. the projection -----------------------------------------------------------------
def entry_messages(entry: object) -> list[object]:
    """What one selected entry contributes, before any edit: a message entry its message
    (``message_messages``); a custom message, a branch summary (when its summary is
    truthy) and a compaction the message Pi makes of them, the compaction's system-prompt
    checkpoint before its summary; any other entry nothing.

    >>> entry_messages({"type": "branch_summary", "summary": "s", "fromId": "x",
    ...                 "timestamp": "2026-01-01T00:00:00Z"})
    [{'role': 'branchSummary', 'summary': 's', 'fromId': 'x', 'timestamp': 1767225600000}]
    """
    kind = field(entry, "type")
    if kind == "message":
        return message_messages(field(entry, "message"))
    if kind == "custom_message":
        content = field(entry, "content")
        content = [] if nullish(content) else content
        keys = ("customType", "content", "display", "details")
        return [_message(entry, "custom", keys, content=content)]
    if kind == "branch_summary" and truthy(field(entry, "summary")):
        return [_message(entry, "branchSummary", ("summary", "fromId"))]
    if kind == "compaction":
        summary = _message(entry, "compactionSummary", ("summary", "tokensBefore"))
        checkpoint = field(entry, "systemMessage")
        return [checkpoint, summary] if truthy(checkpoint) else [summary]
    return []


def _message(entry: object, role: str, keys: tuple[str, ...], **given: object) -> object:
    """The message Pi makes of an entry: the role, its ``keys`` (or ``given``), its time in
    milliseconds, read only now (a time JavaScript cannot convert fails only here)."""
    fields = {key: given[key] if key in given else field(entry, key) for key in keys}
    return _defined(role=role, **fields, timestamp=js_time_ms(field(entry, "timestamp")))


def message_messages(message: object) -> list[object]:
    """What a ``message`` entry contributes: its message, but a missing or null content
    is sent as ``""`` (system) or ``[]`` (user, assistant, tool result), in a copy.

    >>> message_messages({"role": "user", "content": None})
    [{'role': 'user', 'content': []}]
    """
    return [_with_content(message)]


def stored_messages(messages: list[object]) -> list[object]:
    """``message_messages`` of several message entries (one message each): the list
    itself when every message is stored with its content, as nearly all are.

    >>> stored_messages([{"role": "user", "content": "hi"}, {"role": "system"}])
    [{'role': 'user', 'content': 'hi'}, {'role': 'system', 'content': ''}]
    """
    try:
        complete = None not in map(dict.get, messages, repeat("content"))  # type: ignore[arg-type]
    except TypeError:  # a message that is not an object
        complete = False
    return messages if complete else [_with_content(m) for m in messages]


def _with_content(message: object) -> object:
    if type(message) is dict and message.get("content") is None:
        role = message.get("role")
        if role in ("system", "user", "assistant", "toolResult"):
            return {**message, "content": "" if role == "system" else []}
    return message


def apply_context_edit(messages: list[object], edit: object) -> list[object]:
    """Messages after a context edit (copies): ``replacement: null`` omits them all, else
    user, assistant, tool-result and custom messages take its content (a string becomes
    one text block for assistant and tool result). Pi throws on a missing replacement.

    >>> apply_context_edit([{"role": "assistant", "content": []}],
    ...                    {"replacement": {"content": "short"}})
    [{'role': 'assistant', 'content': [{'type': 'text', 'text': 'short'}]}]
    """
    replacement = field(edit, "replacement")
    if replacement is None:
        return []
    out: list[object] = []
    for message in messages:
        if (role := field(message, "role")) not in EDITABLE_ROLES:
            out.append(message)
            continue
        if nullish(replacement):
            raise TypeError("the context edit has no replacement")
        content = field(replacement, "content")
        if role in ("assistant", "toolResult") and isinstance(content, str):
            content = [{"type": "text", "text": content}]
        copy = {**cast(dict[str, object], message), "content": content}  # an object: it has a role
        if content is UNDEFINED:  # JavaScript keeps an undefined key; its JSON drops it
            copy = JsObject({k: v for k, v in copy.items() if k != "content"}, tuple(copy))
        out.append(copy)
    return out


def project(entries: Entries, leaf: int | None = None, edits: bool = True) -> Projection:
    """The five steps at ``leaf`` (a position; None: Pi's default leaf; ``edits=False``:
    as a reader that ignores context edits builds it).

    >>> entries = [{"type": "message", "id": "u", "parentId": None,
    ...             "message": {"role": "user", "content": "hi"}},
    ...            {"type": "context_edit", "id": "e", "parentId": "u", "targetId": "u",
    ...             "replacement": {"content": "short"}}]
    >>> project(entries).messages
    [{'role': 'user', 'content': 'short'}]
    """
    found = steps(entries, leaf, edits)
    chosen = found.selection
    items = []
    for rank, (p, part) in enumerate(zip(chosen.positions, chosen.parts(0, len(chosen.positions)))):
        entry = entries[p]
        sends = chosen.contributes(rank, field(entry, "type"))
        edit = found.edits.get(js_key(field(entry, "id")))  # (edits has no NO_KEY key)
        items.append(projected_entry(p, entry, part, sends, edit))
    at = default_leaf(entries) if leaf is None else leaf
    return Projection.of(items, found, at, _SOURCE)


def projected_entry(
    position: int,
    entry: object,
    part: str,
    sends: bool = True,
    edit: tuple[int, object] | None = None,
    source: str = _SOURCE,
) -> ProjectedEntry:
    """Step 5 for one selected entry (both implementations take it here): what it
    contributes (nothing unless it ``sends``: ``Selection.contributes``), after its
    context ``edit`` (position, entry); an edit of an entry that contributes nothing
    changes nothing. Where Pi throws, ``PiFailure`` names the entry (or the edit).

    >>> projected_entry(0, {"type": "label"}, "path")
    <ProjectedEntry at position 0, null, path: 0 messages>
    """
    try:
        messages = entry_messages(entry) if sends else []
    except DateConversionError:
        when = "a timestamp JavaScript cannot turn into a date"
        reason = f"entry {quoted(field(entry, 'id'))} has {when}"
        raise PiFailure(source, None, pi_throws(reason), position) from None
    if edit is None or not messages:
        return ProjectedEntry(position, entry, messages, part)
    try:
        edited = apply_context_edit(messages, edit[1])
    except TypeError:
        reason = f"context edit {quoted(field(edit[1], 'id'))} has no replacement"
        raise PiFailure(source, None, pi_throws(reason), edit[0]) from None
    applied = cast("dict[Any, Any]", edit[1])  # a context_edit entry: an object
    return ProjectedEntry(
        position, entry, edited, part, applied, edit_position=edit[0], unedited=messages
    )


def _defined(**fields: object) -> dict[str, object]:
    """An object as JavaScript builds it from these fields: undefined ones left out."""
    return {key: value for key, value in fields.items() if value is not UNDEFINED}


def load_entries(file: str | Path) -> list[object]:
    """The entries of a v3 session file: each line after the header that ``JSON.parse``
    reads as a truthy value but a later session header, as Pi keeps them (``pisession.load``
    reads any file; the tests hold the two equal on every v3 file of the corpus).

    >>> from pisession.samples import sample_path
    >>> len(load_entries(sample_path("tour")))
    26
    """
    values: list[object] = []
    for line in Path(file).read_bytes().split(b"\n"):
        with suppress(ValueError):  # a line JSON.parse cannot read is skipped
            values.append(loads(line))
    kept = [value for value in values if truthy(value)][1:]
    return [value for value in kept if field(value, "type") != "session"]
