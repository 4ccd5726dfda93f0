"""Tiny builders for session files in tests: ids a reader can follow."""

from __future__ import annotations

import json

import pisession

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


def stamp(n: int) -> str:
    return f"2026-01-01T00:{n // 60:02d}:{n % 60:02d}.000Z"


_clock = iter(range(1, 10**6))


def entry(kind: str, eid: str, parent: str | None, /, **fields) -> dict:
    return {"type": kind, "id": eid, "parentId": parent, "timestamp": stamp(next(_clock)), **fields}


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
    lines = [json.dumps(header or HEADER)] + [
        e if isinstance(e, str) else json.dumps(e, ensure_ascii=False) for e in entries
    ]
    return ("\n".join(lines) + "\n").encode()


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
