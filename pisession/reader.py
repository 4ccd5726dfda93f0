"""Layer 1: bytes -> lines -> parsed values, exactly as Pi 0.87.1 reads a session file.

Pi splits the file on ``\\n`` only, skips blank lines and lines ``JSON.parse`` rejects,
and drops values that are falsy in JavaScript. pisession does the same, but writes
down every line it skipped (``Diagnostic``) so that nothing goes missing silently.

For speed, the first pass decodes only the *structural* fields of each line (type, id,
parentId, the message role and model, and the few fields that steer the context);
the full entry is decoded on demand from the byte range kept for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

import msgspec

from .jsjson import LineDecodeError, loads
from .jsvalue import js_falsy


class _MessageFields(TypedDict, total=False):
    role: Any
    provider: Any
    model: Any


class _StructuralFields(TypedDict, total=False):
    type: Any
    id: Any
    parentId: Any
    timestamp: Any
    message: _MessageFields
    firstKeptEntryId: Any
    targetId: Any
    thinkingLevel: Any
    provider: Any
    modelId: Any
    label: Any
    name: Any
    version: Any
    cwd: Any


_structural_decode = msgspec.json.Decoder(_StructuralFields).decode

#: Whitespace ``String.prototype.trim`` removes, as bytes that can start a blank line.
_ASCII_BLANK = b" \t\r\n\x0b\x0c"


@dataclass(frozen=True)
class Diagnostic:
    """One line pisession (and Pi) did not use, or used in a surprising way."""

    line: int
    kind: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


class Record:
    """One parsed line: its number, byte range, and its structural view.

    ``skeleton`` is a dict with the structural fields only (or the full value, when
    the fast path could not be used). ``value`` is filled in on first full decode.
    """

    __slots__ = ("end", "line", "skeleton", "start", "value")

    def __init__(self, line: int, start: int, end: int, skeleton: object, value: object = None):
        self.line = line
        self.start = start
        self.end = end
        self.skeleton = skeleton
        self.value = value


def iter_line_ranges(data: bytes):
    """Yield ``(line_number, start, end)`` for every ``\\n``-separated line.

    A last line without a trailing newline is included; an empty tail is not.

    >>> list(iter_line_ranges(b"a\\n\\nbc"))
    [(1, 0, 1), (2, 2, 2), (3, 3, 5)]
    """
    start, number, find, size = 0, 1, data.find, len(data)
    while start < size:
        end = find(b"\n", start)
        if end < 0:
            end = size
        yield number, start, end
        start, number = end + 1, number + 1


def parse_records(data: bytes) -> tuple[list[Record], list[Diagnostic]]:
    """Parse every line of a session file; return the kept records and the diagnostics.

    >>> records, diags = parse_records(b'{"type":"session","id":"s"}\\n\\nnot json\\n0\\n')
    >>> [r.line for r in records], [d.kind for d in diags]
    ([1], ['blank', 'malformed', 'falsy'])
    """
    view = memoryview(data)
    records: list[Record] = []
    diagnostics: list[Diagnostic] = []
    for number, start, end in iter_line_ranges(data):
        raw = view[start:end]
        try:
            records.append(Record(number, start, end, _structural_decode(raw)))
            continue
        except msgspec.DecodeError:
            pass
        if not bytes(raw).strip(_ASCII_BLANK):
            diagnostics.append(Diagnostic(number, "blank", "blank line (skipped, as Pi does)"))
            continue
        try:
            value = loads(raw)
        except LineDecodeError as exc:
            diagnostics.append(Diagnostic(number, "malformed", f"{exc} (skipped, as Pi does)"))
            continue
        if js_falsy(value):
            diagnostics.append(
                Diagnostic(number, "falsy", f"JSON value {value!r} is falsy (skipped, as Pi does)")
            )
            continue
        if not isinstance(value, dict):
            diagnostics.append(
                Diagnostic(
                    number,
                    "not-an-object",
                    f"JSON {type(value).__name__} is not an object; Pi keeps it as an id-less entry",
                )
            )
        records.append(Record(number, start, end, value, value))
    return records, diagnostics


def full_value(data: bytes, record: Record) -> object:
    """The fully decoded value of a record (decoded once, then cached on the record)."""
    if record.value is None:
        record.value = loads(memoryview(data)[record.start : record.end])
    return record.value
