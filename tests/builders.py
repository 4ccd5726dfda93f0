"""Tiny builders for session files in tests (ids a reader can follow), on top of
``pisession.build``, the package's one set of session builders."""

from __future__ import annotations

import json
from itertools import count

import pisession
from pisession.build import new_entry, session_bytes

HEADER = {
    "type": "session",
    "version": 3,
    "id": "test-session",
    "timestamp": "2026-01-01T00:00:00.000Z",
    "cwd": "/work/api",
}


V1_HEADER = {
    "type": "session",
    "version": 1,
    "id": "old",
    "timestamp": "2025-01-01T00:00:00Z",
    "cwd": "/",
}

_minutes = count(1)


def entry(kind: str, eid: str, parent: str | None, /, **fields) -> dict:
    """``new_entry`` with the next minute of a test-wide clock (distinct timestamps)."""
    return new_entry(kind, eid, parent, next(_minutes), **fields)


def msg(eid: str, parent: str | None, role: str = "user", content="hi", **extra) -> dict:
    message = {"role": role, "content": content, **extra}
    if role == "assistant":
        message = {"provider": "p", "model": "m", **message}
    return entry("message", eid, parent, message=message)


def compaction(eid: str, parent: str, first_kept: str | None, summary="S", **extra) -> dict:
    fields = {"summary": summary, "tokensBefore": 100, **extra}
    if first_kept is not None:
        fields["firstKeptEntryId"] = first_kept
    return entry("compaction", eid, parent, **fields)


def edit(eid: str, parent: str, target: str, replacement) -> dict:
    return entry("context_edit", eid, parent, targetId=target, replacement=replacement)


def jsonl(*entries, header: dict | None = None) -> bytes:
    return session_bytes(*entries, header=header or HEADER)


def session(*entries, header: dict | None = None) -> pisession.Session:
    return pisession.loads(jsonl(*entries, header=header), "test.jsonl")


def roles(context) -> list:
    return [m.get("role") for m in context.messages]


def texts(context) -> list:
    out = []
    for m in context.messages:
        content = m.get("content", m.get("summary"))
        out.append(content if isinstance(content, str) else json.dumps(content))
    return out
