"""Small session files made in memory, for examples, exercises and tests.

Notebooks 02-04 and 08 use these to show one rule on the smallest possible file; the
workshop checkers use them for the corners the bundled samples do not cover.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from .js.json import dumps
from .session import Session, loads

#: One entry (or header) as JSON: any value a field may hold.
Entry = dict[str, Any]

TINY_HEADER: Entry = {
    "type": "session",
    "version": 3,
    "id": "s",
    "timestamp": "2026-01-01T00:00:00Z",
    "cwd": "/w",
}


def new_entry(
    entry_type: str, entry_id: str, parent: str | None, minute: int, **fields: Any
) -> Entry:
    """One entry as a dict; ``minute`` gives its timestamp (one minute apart).

    >>> new_entry("label", "l1", "u1", 3, targetId="u1", label="start")["timestamp"]
    '2026-01-01T00:03:00Z'
    """
    when = datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=minute)
    stamp = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    return {"type": entry_type, "id": entry_id, "parentId": parent, "timestamp": stamp, **fields}


def new_message(
    entry_id: str, parent: str | None, role: str, minute: int, text: str = "x"
) -> Entry:
    """A ``message`` entry whose content is one text block.

    >>> new_message("u1", None, "user", 1, "hi")["message"]["content"]
    [{'type': 'text', 'text': 'hi'}]
    """
    content = [{"type": "text", "text": text}]
    return new_entry(
        "message",
        entry_id,
        parent,
        minute,
        message={"role": role, "content": content, "timestamp": minute},
    )


def session_bytes(*entries: Entry | str, header: Entry | None = None) -> bytes:
    """A session file's bytes: the header, then one JSON line per entry (a string is
    written as it is: a damaged line, for tests).

    >>> session_bytes(new_entry("label", "l1", None, 1), "not json").count(b"\\n")
    3
    """
    values = (header or TINY_HEADER, *entries)
    lines = [v if isinstance(v, str) else dumps(v) for v in values]
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


def tiny_session(*entries: Entry, name: str = "tiny.jsonl", header: Entry | None = None) -> Session:
    """A small session made in memory (nothing is written to disk).

    >>> s = tiny_session(new_message("u1", None, "user", 1), new_message("u2", None, "user", 2))
    >>> s.roots()
    [0, 1]
    """
    return loads(session_bytes(*entries, header=header), name)
