"""Layer 3: the model context, as Pi 0.87.1's ``buildSessionContext`` builds it.

The chain of small pure functions, in the chapter's words:

1. ``entry_index``      id -> position (a later duplicate wins)
2. ``path_to``          walk ``parentId`` from the leaf to the root, then reverse
3. ``context_settings`` thinking level and model, from the *whole* path
4. ``kept_range``       the selection: the newest compaction, the kept entries before
                        it (system messages dropped), and everything after it
5. ``context_edits``    the edits among the selected entries, by target id
6. ``entry_messages``   what one selected entry contributes, after its edit

Functions take ``entries`` (a list of entry dicts in file order, header excluded) and
work with *positions* in that list, so a caller can pass light structural views of the
entries for steps 1-4 and decode full entries only for the selected ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .errors import CycleError, SessionFormatError
from .jsdate import js_time_ms
from .jsvalue import UNDEFINED, field, map_key, nullish, strict_equal, truthy

EDITABLE_ROLES = ("user", "assistant", "toolResult", "custom")


class PiFailure(SessionFormatError):
    """An entry on which Pi 0.87.1 itself throws (for example a message entry with no
    ``message`` object). pisession stops with this error instead of guessing."""


def entry_index(entries: Sequence) -> dict:
    """Map each entry id to its position; a later entry with the same id wins.

    >>> entry_index([{"id": "a"}, {"id": "b"}, {"id": "a"}])
    {'a': 2, 'b': 1}
    """
    index: dict = {}
    for position, entry in enumerate(entries):
        key = map_key(field(entry, "id"))
        if key is not None:
            index[key] = position
    return index


def parent_position(entries: Sequence, position: int, index: dict) -> int | None:
    """Position of an entry's parent, or None when ``parentId`` is empty or not found."""
    parent_id = field(entries[position], "parentId")
    if not truthy(parent_id):
        return None
    key = map_key(parent_id)
    return None if key is None else index.get(key)


def path_to(entries: Sequence, leaf: int, index: dict | None = None, source: str = "<session>"):
    """Positions from the root to ``leaf`` (inclusive), following ``parentId``.

    Raises ``CycleError`` (naming the loop) where Pi 0.87.1 would loop forever.

    >>> es = [{"id": "a", "parentId": None}, {"id": "b", "parentId": "a"},
    ...       {"id": "c", "parentId": "a"}]
    >>> path_to(es, 2)
    [0, 2]
    """
    index = entry_index(entries) if index is None else index
    path: list[int] = []
    seen: dict[int, int] = {}
    current: int | None = leaf
    while current is not None:
        if current in seen:
            loop = path[seen[current] :]
            ids = [field(entries[p], "id") for p in loop]
            raise CycleError(source, None, ids)
        seen[current] = len(path)
        path.append(current)
        current = parent_position(entries, current, index)
    path.reverse()
    return path


def _is_type(entry: object, name: str) -> bool:
    return field(entry, "type") == name


def _message_role(entry: object, source: str) -> object:
    """``entry.message.role`` as Pi reads it; Pi throws when ``message`` is null/absent."""
    message = field(entry, "message")
    if nullish(message):
        raise PiFailure(
            source,
            None,
            f"message entry {field(entry, 'id')!r} has no message object "
            "(Pi 0.87.1 throws a TypeError here)",
        )
    return field(message, "role")


@dataclass(frozen=True)
class Settings:
    """Thinking level and model in force at a leaf (``UNDEFINED`` marks a field that
    the deciding entry lacks, which Pi's JSON output then omits)."""

    thinking_level: object = "off"
    model: dict | None = None


def context_settings(entries: Sequence, path: Sequence[int], source: str = "<session>") -> Settings:
    """Scan the whole path (summarized part included); later entries win.

    >>> es = [{"type": "thinking_level_change", "thinkingLevel": "high"},
    ...       {"type": "model_change", "provider": "p", "modelId": "m"}]
    >>> context_settings(es, [0, 1])
    Settings(thinking_level='high', model={'provider': 'p', 'modelId': 'm'})
    """
    thinking: object = "off"
    model: dict | None = None
    for position in path:
        entry = entries[position]
        kind = field(entry, "type")
        if kind == "thinking_level_change":
            thinking = field(entry, "thinkingLevel")
        elif kind == "model_change":
            model = _built(
                [("provider", field(entry, "provider")), ("modelId", field(entry, "modelId"))]
            )
        elif kind == "message" and _message_role(entry, source) == "assistant":
            message = field(entry, "message")
            model = _built(
                [("provider", field(message, "provider")), ("modelId", field(message, "model"))]
            )
    return Settings(thinking, model)


def latest_compaction(entries: Sequence, path: Sequence[int]) -> int | None:
    """Position of the newest compaction on the path, or None."""
    for position in reversed(path):
        if _is_type(entries[position], "compaction"):
            return position
    return None


def kept_range(entries: Sequence, path: Sequence[int], source: str = "<session>") -> list[int]:
    """The selected ("context") entries for a path, as Pi's ``buildContextEntries``.

    With no compaction: the whole path. Otherwise: the newest compaction C, then the
    entries before C from the one whose id is ``C.firstKeptEntryId`` on (system
    messages dropped), then every entry after C. A ``firstKeptEntryId`` not found
    before C (retain-none compactions store their own id) keeps nothing before C.

    >>> es = [{"id": "u1", "type": "message", "message": {"role": "user"}},
    ...       {"id": "s1", "type": "message", "message": {"role": "system"}},
    ...       {"id": "u2", "type": "message", "message": {"role": "user"}},
    ...       {"id": "c1", "type": "compaction", "firstKeptEntryId": "s1"},
    ...       {"id": "u3", "type": "message", "message": {"role": "user"}}]
    >>> kept_range(es, [0, 1, 2, 3, 4])
    [3, 2, 4]
    """
    compaction = latest_compaction(entries, path)
    if compaction is None:
        return list(path)
    cut = path.index(compaction)
    first_kept = field(entries[compaction], "firstKeptEntryId")
    selected = [compaction]
    found = False
    for position in path[:cut]:
        entry = entries[position]
        if not found and strict_equal(field(entry, "id"), first_kept):
            found = True
        if found and not (_is_type(entry, "message") and _message_role(entry, source) == "system"):
            selected.append(position)
    selected.extend(path[cut + 1 :])
    return selected


def context_edits(selected_entries: Sequence) -> dict:
    """Edits among the selected entries, keyed by target id; a later edit replaces an
    earlier one. (An edit summarized away is not selected, so it is not applied.)

    >>> context_edits([{"type": "context_edit", "targetId": "a", "replacement": None}])
    {'a': {'type': 'context_edit', 'targetId': 'a', 'replacement': None}}
    """
    edits: dict = {}
    for entry in selected_entries:
        if _is_type(entry, "context_edit"):
            key = map_key(field(entry, "targetId"))
            if key is not None:
                edits[key] = entry
    return edits


def edit_for(edits: dict, entry: object) -> dict | None:
    """The context edit that targets this entry, if any."""
    key = map_key(field(entry, "id"))
    return None if key is None else edits.get(key)


def _built(fields: list[tuple[str, object]]) -> dict:
    """A message object as JavaScript builds it: absent (undefined) fields left out."""
    return {k: v for k, v in fields if v is not UNDEFINED}


def entry_messages(entry: object, source: str = "<session>") -> list:
    """What one selected entry contributes to the context, before any edit.

    >>> entry_messages({"type": "branch_summary", "summary": "s", "fromId": "x",
    ...                 "timestamp": "2026-01-01T00:00:00Z"})
    [{'role': 'branchSummary', 'summary': 's', 'fromId': 'x', 'timestamp': 1767225600000}]
    >>> entry_messages({"type": "label", "targetId": "x", "label": "L"})
    []
    """
    kind = field(entry, "type")
    if kind == "message":
        message = field(entry, "message")
        role = _message_role(entry, source)
        if role == "system" and nullish(field(message, "content")):
            return [{**message, "content": ""}]
        if role in ("user", "assistant", "toolResult") and nullish(field(message, "content")):
            return [{**message, "content": []}]
        return [message]
    millis = js_time_ms(field(entry, "timestamp"))
    if kind == "custom_message":
        content = field(entry, "content")
        return [
            _built(
                [
                    ("role", "custom"),
                    ("customType", field(entry, "customType")),
                    ("content", [] if nullish(content) else content),
                    ("display", field(entry, "display")),
                    ("details", field(entry, "details")),
                    ("timestamp", millis),
                ]
            )
        ]
    if kind == "branch_summary" and truthy(field(entry, "summary")):
        return [
            _built(
                [
                    ("role", "branchSummary"),
                    ("summary", field(entry, "summary")),
                    ("fromId", field(entry, "fromId")),
                    ("timestamp", millis),
                ]
            )
        ]
    if kind == "compaction":
        summary = _built(
            [
                ("role", "compactionSummary"),
                ("summary", field(entry, "summary")),
                ("tokensBefore", field(entry, "tokensBefore")),
                ("timestamp", millis),
            ]
        )
        checkpoint = field(entry, "systemMessage")
        return [checkpoint, summary] if truthy(checkpoint) else [summary]
    return []


def apply_context_edit(messages: list, edit: dict | None, source: str = "<session>") -> list:
    """Messages after a context edit: ``replacement: null`` removes them all; otherwise
    user/assistant/toolResult/custom messages get the replacement content (a string
    becomes one text block for assistant and toolResult). Inputs are not modified.

    >>> apply_context_edit([{"role": "assistant", "content": []}],
    ...                    {"replacement": {"content": "short"}})
    [{'role': 'assistant', 'content': [{'type': 'text', 'text': 'short'}]}]
    """
    if edit is None:
        return messages
    replacement = field(edit, "replacement")
    if replacement is None:
        return []
    out = []
    for message in messages:
        role = field(message, "role")
        if role not in EDITABLE_ROLES:
            out.append(message)
            continue
        if nullish(replacement):
            raise PiFailure(
                source,
                None,
                f"context edit {field(edit, 'id')!r} has no replacement "
                "(Pi 0.87.1 throws a TypeError here)",
            )
        content = field(replacement, "content")
        if role in ("assistant", "toolResult") and isinstance(content, str):
            content = [{"type": "text", "text": content}]
        copy = dict(message)
        copy["content"] = content
        if content is UNDEFINED:
            del copy["content"]  # JavaScript keeps an undefined key; its JSON drops it
        out.append(copy)
    return out
