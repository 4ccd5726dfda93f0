"""The context rule: which entries of a session reach the model, and as what.

This is the rule as chapter 27 tells it, in five steps, over plain decoded entries (the
header left out, the rest in file order), the way Pi 0.87.1 writes it
(``buildSessionPath``, ``getSessionContextSettings``, ``buildContextEntries``,
``buildSessionProjection``; the same through Pi 1.6.0):

1. **path**: from the leaf, follow ``parentId`` up to a root;
2. **settings**: the thinking level and the model, read from the whole path;
3. **selection**: after the newest compaction on the path, the compaction itself, its
   kept range (from ``firstKeptEntryId`` up to the compaction, system messages
   dropped) and every entry that follows it; with no compaction, the whole path;
4. **context edits**: the newest edit of each entry, among the selected entries;
5. **projection**: each selected entry's messages, an edit applied, in order.

It is short on purpose and has no cache and no shortcut. ``pisession.engine.context`` is the
fast engine that gives the same answers on big files (columns, chunked reading,
decoding only what is selected); the tests hold the two equal on every file of the
conformance corpus and on generated sessions. JavaScript's value rules come from
``jsvalue`` (``truthy``: JavaScript's ``if (x)``; ``nullish``: ``x == null``;
``js_key``: how a ``Map`` keys a value; ``strict_equal``: ``===``), dates from ``jsdate``.

>>> from pisession.samples import sample_path
>>> entries = load_entries(sample_path("tour"))
>>> len(project(entries).messages)
10
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import cast

from .errors import CycleError, SessionFormatError
from .js.date import js_time_ms
from .js.json import loads
from .js.value import NO_KEY, UNDEFINED, field, js_key, nullish, strict_equal, truthy

#: The entries of a session (the header left out), decoded as ``JSON.parse`` reads
#: them: objects as a rule, but a line may hold any truthy JSON value.
Entries = list[object]

#: The roles a context edit replaces the content of; other messages pass unchanged.
EDITABLE_ROLES = ("user", "assistant", "toolResult", "custom")


class PiFailure(SessionFormatError):
    """An entry on which Pi itself throws (for example a message entry with no
    ``message`` object). pisession stops with this error instead of guessing."""


#: How the rule's errors name their file: it is given entries, not a file.
_SOURCE = "<entries>"


# --- 1. the path ---------------------------------------------------------------------


def path(entries: Entries, leaf: int | None = None) -> list[int]:
    """Positions from a root down to ``leaf`` (a position; None: Pi's default leaf, the
    last entry in file order). A ``parentId`` that is falsy or names no entry ends the
    walk at a root; ids are looked up as a JavaScript ``Map`` keys them (the last entry
    with an id wins). A walk that comes back to an entry is a cycle: Pi loops forever.

    >>> path([{"id": "a", "parentId": None}, {"id": "b", "parentId": "a"}])
    [0, 1]
    """
    by_id = {}
    for position, entry in enumerate(entries):
        key = js_key(field(entry, "id"))
        if key is not NO_KEY:
            by_id[key] = position
    current: int | None = len(entries) - 1 if leaf is None else leaf
    walked: list[int] = []
    seen: set[int] = set()
    while current is not None and current >= 0:
        if current in seen:
            loop = walked[walked.index(current) :]
            ids = [field(entries[p], "id") for p in loop]
            raise CycleError(_SOURCE, None, ids, position=current)
        seen.add(current)
        walked.append(current)
        parent_id = field(entries[current], "parentId")
        current = by_id.get(js_key(parent_id)) if truthy(parent_id) else None
    return walked[::-1]


# --- 2. the settings -------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """The thinking level and the model in force at the leaf."""

    thinking_level: object
    model: object


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
    model: object = None
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
                raise PiFailure(_SOURCE, None, "a message entry has no message", position)
            if field(message, "role") == "assistant":
                # the model Pi asked for (``model``), not the one that answered
                asked = field(message, "model")
                model = _defined(provider=field(message, "provider"), modelId=asked)
    return Settings(thinking, model)


# --- 3. the selection: compaction and kept range ---------------------------------------


def selection(entries: Entries, positions: list[int]) -> list[int]:
    """The path's entries that are sent. After the newest compaction: the compaction,
    then the kept range (the path's entries from the one whose id is
    ``firstKeptEntryId`` up to the compaction, system messages dropped: a compaction
    drops every earlier system prompt), then all that follows the compaction. A
    ``firstKeptEntryId`` that names no earlier entry of the path keeps nothing.

    >>> entries = [{"id": "u"}, {"id": "a"}, {"type": "compaction", "id": "c",
    ...            "firstKeptEntryId": "a"}, {"id": "n"}]
    >>> selection(entries, [0, 1, 2, 3])
    [2, 1, 3]
    """
    compactions = [i for i, p in enumerate(positions) if field(entries[p], "type") == "compaction"]
    if not compactions:
        return list(positions)
    newest = positions[compactions[-1]]
    # Pi finds the compaction again by its id (===): the first entry of the path with it
    own_id = field(entries[newest], "id")
    cut = next(i for i, p in enumerate(positions) if strict_equal(field(entries[p], "id"), own_id))
    first_kept = field(entries[newest], "firstKeptEntryId")
    chosen, keeping = [newest], False
    for p in positions[:cut]:
        keeping = keeping or strict_equal(field(entries[p], "id"), first_kept)
        if keeping and not _is_system_message(entries[p]):
            chosen.append(p)
    return chosen + list(positions[cut + 1 :])


def _is_system_message(entry: object) -> bool:
    return field(entry, "type") == "message" and field(field(entry, "message"), "role") == "system"


# --- 4. the context edits ---------------------------------------------------------------


def context_edits(entries: Entries, chosen: list[int]) -> dict[object, object]:
    """The edit in force for each edited entry, keyed by its id as a ``Map`` keys it:
    every ``context_edit`` among the selected entries counts, the last one for a target
    wins, wherever it stands (an edit may come before its target).

    >>> context_edits([{"type": "context_edit", "targetId": "u", "replacement": None}], [0])
    {'u': {'type': 'context_edit', 'targetId': 'u', 'replacement': None}}
    """
    edits: dict[object, object] = {}
    for p in chosen:
        if field(entries[p], "type") == "context_edit":
            key = js_key(field(entries[p], "targetId"))
            if key is not NO_KEY:
                edits[key] = entries[p]
    return edits


# --- 5. the projection -----------------------------------------------------------------


def entry_messages(entry: object) -> list[object]:
    """What one selected entry contributes, before any edit: a message entry its
    message (no content becomes ``""`` for a system message, ``[]`` for a user,
    assistant or tool result); a custom message, a branch summary (when its summary is
    truthy) and a compaction their message forms, the compaction's system-prompt
    checkpoint before its summary; any other entry nothing.

    >>> entry_messages({"type": "branch_summary", "summary": "s", "fromId": "x",
    ...                 "timestamp": "2026-01-01T00:00:00Z"})
    [{'role': 'branchSummary', 'summary': 's', 'fromId': 'x', 'timestamp': 1767225600000}]
    >>> entry_messages({"type": "label", "targetId": "x", "label": "L"})
    []
    """
    kind = field(entry, "type")
    if kind == "message":
        return message_messages(field(entry, "message"))
    if kind == "custom_message":
        content = field(entry, "content")
        return [
            _defined(
                role="custom",
                customType=field(entry, "customType"),
                content=[] if nullish(content) else content,
                display=field(entry, "display"),
                details=field(entry, "details"),
                timestamp=_time(entry),
            )
        ]
    if kind == "branch_summary" and truthy(field(entry, "summary")):
        return [
            _defined(
                role="branchSummary",
                summary=field(entry, "summary"),
                fromId=field(entry, "fromId"),
                timestamp=_time(entry),
            )
        ]
    if kind == "compaction":
        summary = _defined(
            role="compactionSummary",
            summary=field(entry, "summary"),
            tokensBefore=field(entry, "tokensBefore"),
            timestamp=_time(entry),
        )
        checkpoint = field(entry, "systemMessage")
        return [checkpoint, summary] if truthy(checkpoint) else [summary]
    return []


def _time(entry: object) -> object:
    """The entry's time as the message Pi makes from it holds it (milliseconds), read
    only when that message is made: a time JavaScript cannot convert fails only then."""
    return js_time_ms(field(entry, "timestamp"))


def message_messages(message: object) -> list[object]:
    """What a ``message`` entry contributes: its message as stored, except that no
    content (null or absent) becomes ``""`` for a system message and ``[]`` for a user,
    assistant or tool result (copies: the entry is not modified).

    >>> message_messages({"role": "user", "content": None})
    [{'role': 'user', 'content': []}]
    """
    if type(message) is dict and message.get("content") is None:
        role = message.get("role")
        if role == "system":
            return [{**message, "content": ""}]
        if role in ("user", "assistant", "toolResult"):
            return [{**message, "content": []}]
    return [message]


def apply_context_edit(messages: list[object], edit: object) -> list[object]:
    """Messages after a context edit: ``replacement: null`` omits them all; otherwise
    user, assistant, tool-result and custom messages take the replacement's content (a
    string becomes one text block for assistant and tool result), the rest pass. The
    inputs are not modified. An edit without a replacement object makes Pi throw.

    >>> apply_context_edit([{"role": "assistant", "content": []}],
    ...                    {"replacement": {"content": "short"}})
    [{'role': 'assistant', 'content': [{'type': 'text', 'text': 'short'}]}]
    """
    replacement = field(edit, "replacement")
    if replacement is None:
        return []
    out: list[object] = []
    for message in messages:
        role = field(message, "role")
        if role not in EDITABLE_ROLES:
            out.append(message)
            continue
        if nullish(replacement):
            raise TypeError("the context edit has no replacement")
        content = field(replacement, "content")
        if role in ("assistant", "toolResult") and isinstance(content, str):
            content = [{"type": "text", "text": content}]
        copy = {**cast(dict[str, object], message), "content": content}  # an object: it has a role
        if content is UNDEFINED:
            del copy["content"]  # JavaScript keeps an undefined key; its JSON drops it
        out.append(copy)
    return out


@dataclass(frozen=True)
class RuleProjection:
    """The rule's answer at one leaf: the path, the settings, the selected positions
    and, for each, the messages it contributed (``messages`` flattens them)."""

    path: list[int]
    settings: Settings
    positions: list[int]
    contributed: list[list[object]]

    @property
    def messages(self) -> list[object]:
        """Every message sent, in order."""
        return [m for each in self.contributed for m in each]


def project(entries: Entries, leaf: int | None = None) -> RuleProjection:
    """The five steps at ``leaf`` (a position; None: Pi's default leaf). A compaction
    that is not the first selected entry (an older one inside the kept range)
    contributes nothing.

    >>> entries = [{"type": "message", "id": "u", "parentId": None,
    ...             "message": {"role": "user", "content": "hi"}},
    ...            {"type": "context_edit", "id": "e", "parentId": "u", "targetId": "u",
    ...             "replacement": {"content": "short"}}]
    >>> project(entries).messages
    [{'role': 'user', 'content': 'short'}]
    """
    walked = path(entries, leaf)
    found = settings(entries, walked)
    chosen = selection(entries, walked)
    edits = context_edits(entries, chosen)
    contributed: list[list[object]] = []
    for rank, p in enumerate(chosen):
        entry = entries[p]
        if rank > 0 and field(entry, "type") == "compaction":
            contributed.append([])
            continue
        key = js_key(field(entry, "id"))
        edit = edits.get(key) if key is not NO_KEY else None
        messages = entry_messages(entry)
        try:
            contributed.append(messages if edit is None else apply_context_edit(messages, edit))
        except TypeError as exc:
            raise PiFailure(_SOURCE, None, str(exc), p) from None
    return RuleProjection(walked, found, chosen, contributed)


def _defined(**fields: object) -> dict[str, object]:
    """An object as JavaScript builds it from these fields: undefined ones left out."""
    return {key: value for key, value in fields.items() if value is not UNDEFINED}


def load_entries(file: str | Path) -> list[object]:
    """The entries of a v3 session file for the rule: every line after the header that
    ``JSON.parse`` reads as a truthy value, as Pi keeps them (a plain reader;
    ``pisession.load`` reads any file, big, legacy or damaged).

    >>> from pisession.samples import sample_path
    >>> len(load_entries(sample_path("tour")))
    26
    """
    values: list[object] = []
    for line in Path(file).read_bytes().split(b"\n"):
        try:
            value = loads(line)
        except ValueError:
            continue
        if truthy(value):
            values.append(value)
    return values[1:]
