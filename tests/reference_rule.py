"""A deliberately naive, obviously-correct transcription of Pi 0.87.1's context rule.

``buildSessionPath`` -> ``getSessionContextSettings`` -> ``buildContextEntries`` ->
``buildSessionProjection``, written out line by line over a plain list of entries, with
none of pisession's columns, shortcuts or shared helpers (only JavaScript's value rules
from ``pisession.jsvalue`` and V8's date parsing from ``pisession.jsdate``). Slow on
purpose: ``tests/test_projection_reference.py`` checks the real rule against it.
"""

from __future__ import annotations

from pisession.jsdate import js_time_ms
from pisession.jsvalue import NO_KEY, UNDEFINED, field, js_key, nullish, strict_equal, truthy


class Cycle(Exception):
    """Pi would loop forever."""


class PiThrows(Exception):
    """Pi would throw a TypeError."""


def _without_undefined(pairs: list[tuple[str, object]]) -> dict:
    return {k: v for k, v in pairs if v is not UNDEFINED}


def _timestamp(entry: object) -> object:
    return js_time_ms(field(entry, "timestamp"))


def _entry_messages(entry: object) -> list:
    """``sessionEntryToContextMessages``."""
    kind = field(entry, "type")
    if kind == "message":
        message = field(entry, "message")
        role = field(message, "role")
        if role == "system" and nullish(field(message, "content")):
            return [{**message, "content": ""}]
        if role in ("user", "assistant", "toolResult") and nullish(field(message, "content")):
            return [{**message, "content": []}]
        return [message]
    if kind == "custom_message":
        content = field(entry, "content")
        return [
            _without_undefined(
                [
                    ("role", "custom"),
                    ("customType", field(entry, "customType")),
                    ("content", [] if nullish(content) else content),
                    ("display", field(entry, "display")),
                    ("details", field(entry, "details")),
                    ("timestamp", _timestamp(entry)),
                ]
            )
        ]
    if kind == "branch_summary" and truthy(field(entry, "summary")):
        return [
            _without_undefined(
                [
                    ("role", "branchSummary"),
                    ("summary", field(entry, "summary")),
                    ("fromId", field(entry, "fromId")),
                    ("timestamp", _timestamp(entry)),
                ]
            )
        ]
    if kind == "compaction":
        summary = _without_undefined(
            [
                ("role", "compactionSummary"),
                ("summary", field(entry, "summary")),
                ("tokensBefore", field(entry, "tokensBefore")),
                ("timestamp", _timestamp(entry)),
            ]
        )
        checkpoint = field(entry, "systemMessage")
        return [checkpoint, summary] if truthy(checkpoint) else [summary]
    return []


def _project(entry: object, edit: object) -> list:
    """``projectContextEntry``."""
    messages = _entry_messages(entry)
    if edit is None:
        return messages
    replacement = field(edit, "replacement")
    if replacement is None:
        return []
    out = []
    for message in messages:
        role = field(message, "role")
        if role not in ("user", "assistant", "toolResult", "custom"):
            out.append(message)
            continue
        if nullish(replacement):
            raise PiThrows("replacement.content of undefined")
        content = field(replacement, "content")
        if role in ("assistant", "toolResult") and isinstance(content, str):
            content = [{"type": "text", "text": content}]
        copy = dict(message)
        if content is UNDEFINED:
            copy.pop("content", None)
        else:
            copy["content"] = content
        out.append(copy)
    return out


def reference_projection(entries: list, leaf: int | None) -> dict:
    """Pi's projection for the entry at position ``leaf`` (None: Pi's default leaf):
    ``{"positions": [...], "counts": [...], "messages": [...], "thinkingLevel", "model"}``.
    """
    by_id: dict = {}
    for position, entry in enumerate(entries):
        key = js_key(field(entry, "id"))
        if key is not NO_KEY:
            by_id[key] = position
    current = len(entries) - 1 if leaf is None else leaf
    path: list[int] = []
    while current is not None and current >= 0:
        if current in path:
            raise Cycle(current)
        path.append(current)
        parent_id = field(entries[current], "parentId")
        current = by_id.get(js_key(parent_id)) if truthy(parent_id) else None
    path.reverse()

    thinking: object = "off"
    model: object = None
    for position in path:
        entry = entries[position]
        kind = field(entry, "type")
        if kind == "thinking_level_change":
            thinking = field(entry, "thinkingLevel")
        elif kind == "model_change":
            model = _without_undefined(
                [("provider", field(entry, "provider")), ("modelId", field(entry, "modelId"))]
            )
        elif kind == "message":
            message = field(entry, "message")
            if nullish(message):
                raise PiThrows("message of a message entry is null")
            if field(message, "role") == "assistant":
                model = _without_undefined(
                    [("provider", field(message, "provider")), ("modelId", field(message, "model"))]
                )

    compaction = None
    for position in path:
        if field(entries[position], "type") == "compaction":
            compaction = position
    if compaction is None:
        chosen = list(path)
    else:
        own_id = field(entries[compaction], "id")
        cut = next(i for i, p in enumerate(path) if strict_equal(field(entries[p], "id"), own_id))
        first_kept = field(entries[compaction], "firstKeptEntryId")
        chosen = [compaction]
        found = False
        for position in path[:cut]:
            entry = entries[position]
            if strict_equal(field(entry, "id"), first_kept):
                found = True
            is_system = field(entry, "type") == "message" and (
                field(field(entry, "message"), "role") == "system"
            )
            if found and not is_system:
                chosen.append(position)
        chosen += path[cut + 1 :]

    edits: dict = {}
    for position in chosen:
        entry = entries[position]
        if field(entry, "type") == "context_edit":
            key = js_key(field(entry, "targetId"))
            if key is not NO_KEY:
                edits[key] = entry
    counts, messages = [], []
    for rank, position in enumerate(chosen):
        entry = entries[position]
        if field(entry, "type") == "compaction" and rank > 0:
            contributed = []
        else:
            key = js_key(field(entry, "id"))
            edit = None if key is NO_KEY else edits.get(key)
            contributed = _project(entry, edit)
        counts.append(len(contributed))
        messages.extend(contributed)
    return {
        "positions": chosen,
        "counts": counts,
        "messages": messages,
        "thinkingLevel": thinking,
        "model": model,
    }
