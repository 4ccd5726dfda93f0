"""Layer 1: bytes -> lines -> parsed values, exactly as Pi 0.87.1 reads a session file.

Pi splits the file on ``\\n`` only, skips blank lines and lines ``JSON.parse`` rejects,
and drops values that are falsy in JavaScript. pisession does the same, but writes
down every line it skipped (``Diagnostic``) so that nothing goes missing silently.

For speed, the first pass decodes only the *core* of each line (type, id, parentId and
the message role: what finding a path and its selection needs), many lines at a time;
the *structural* view (a few more fields, for the tree) and the full entry are decoded
on demand from the byte range kept for each line.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass
from itertools import pairwise, repeat
from operator import itemgetter
from typing import Any, TypedDict

import msgspec

from .jsjson import LineDecodeError, dumps, loads
from .jsvalue import UNDEFINED, js_falsy


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


_structural_decoder = msgspec.json.Decoder(_StructuralFields)
_structural_decode = _structural_decoder.decode
_structural_decode_lines = _structural_decoder.decode_lines


class CoreMessage(msgspec.Struct, gc=False):
    """The part of ``entry.message`` the core view keeps."""

    role: Any = UNDEFINED


class Core(msgspec.Struct, gc=False):
    """The core view of an object line: fields absent from the line are ``UNDEFINED``;
    ``message`` is ``None`` for ``"message": null``. Small, and not tracked by the GC."""

    type: Any = UNDEFINED
    id: Any = UNDEFINED
    parentId: Any = UNDEFINED
    message: CoreMessage | None = UNDEFINED


_core_decode_lines = msgspec.json.Decoder(Core).decode_lines

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


class Record(msgspec.Struct, gc=False):
    """One parsed line: its number, byte range, and its structural view.

    ``skeleton`` is a dict with the structural fields only (or the full value, when
    the structural decode refuses the line). ``value`` is filled in on first full
    decode. ``core`` is the ``Core`` view when the fast path read the line (else None);
    such a record then decodes its ``skeleton`` from ``data`` on first use.

    Records never take part in reference cycles, so the garbage collector does not
    track them (a session file has hundreds of thousands).
    """

    line: int
    start: int
    end: int
    structural: object = None
    value: object = None
    core: Core | None = None
    data: bytes | None = None

    @property
    def skeleton(self) -> object:
        """The structural view (decoded on first use for a fast-path record)."""
        if self.structural is None:
            raw = memoryview(self.data)[self.start : self.end]
            try:
                self.structural = _structural_decode(raw)
            except (msgspec.DecodeError, RecursionError):
                self.structural = full_value(self.data, self)
        return self.structural


def line_bounds(data: bytes) -> tuple[list[int], list[int]]:
    """Start and end offsets of every ``\\n``-separated line (line ``n`` is at index
    ``n - 1``). A last line without a trailing newline counts; an empty tail does not.

    >>> line_bounds(b"a\\n\\nbc")
    ([0, 2, 3], [1, 2, 5])
    """
    ends: list[int] = []
    append, find = ends.append, data.find
    end = find(b"\n")
    while end >= 0:
        append(end)
        end = find(b"\n", end + 1)
    starts = [0, *(end + 1 for end in ends)]
    size = len(data)
    if starts[-1] >= size:
        starts.pop()
    else:
        ends.append(size)
    return starts, ends


#: Lines decoded together by ``msgspec``'s ``decode_lines`` in the fast path.
_BLOCK = 2048


def _bytes_at(data: bytes, offsets: list[int]) -> bytes:
    """The bytes at these offsets, as one bytes object.

    >>> _bytes_at(b"abc", [2, 0])
    b'ca'
    """
    if len(offsets) < 2:
        return bytes(data[i] for i in offsets)
    return bytes(itemgetter(*offsets)(data))


def parse_records(data: bytes) -> tuple[list[Record], list[Diagnostic]]:
    """Parse every line of a session file; return the kept records and the diagnostics.

    Fast path: blocks of lines that each start with ``{`` and end with ``}`` are decoded
    at once with ``decode_lines``. Such a block can only hold one JSON value per line
    (``}\\n{`` never occurs inside a JSON value), so when the value count equals the
    line count, every value is its line's. Any other block (a blank, malformed, CRLF or
    odd line, a line msgspec refuses) is parsed line by line, exactly as before.

    >>> records, diags = parse_records(b'{"type":"session","id":"s"}\\n\\nnot json\\n0\\n')
    >>> [r.line for r in records], [d.kind for d in diags]
    ([1], ['blank', 'malformed', 'falsy'])
    """
    starts, ends = line_bounds(data)
    count = len(starts)
    firsts = _bytes_at(data, starts)
    lasts = _bytes_at(data, [end - 1 for end in ends])  # -1 (empty first line): harmless
    view = memoryview(data)
    records: list[Record] = []
    diagnostics: list[Diagnostic] = []
    collecting = gc.isenabled()
    gc.disable()  # the skeletons are many small dicts that live on: no cycles to find
    try:
        for first in range(0, count, _BLOCK):
            last = min(count, first + _BLOCK)
            size = last - first
            if firsts.count(b"{", first, last) == size and lasts.count(b"}", first, last) == size:
                try:
                    cores = _core_decode_lines(view[starts[first] : ends[last - 1]])
                except (msgspec.DecodeError, RecursionError):
                    cores = None
                if cores is not None and len(cores) == size:
                    records.extend(
                        map(
                            Record,
                            range(first + 1, last + 1),
                            starts[first:last],
                            ends[first:last],
                            repeat(None),
                            repeat(None),
                            cores,
                            repeat(data),
                        )
                    )
                    continue
            for index in range(first, last):
                _parse_line(view, index + 1, starts[index], ends[index], records, diagnostics)
    finally:
        if collecting:
            gc.enable()
    return records, diagnostics


def _parse_line(
    view: memoryview,
    number: int,
    start: int,
    end: int,
    records: list[Record],
    diagnostics: list[Diagnostic],
) -> None:
    """Parse one line as Pi does: a record, or a diagnostic for a line Pi skips."""
    raw = view[start:end]
    try:
        records.append(Record(number, start, end, _structural_decode(raw)))
        return
    except (msgspec.DecodeError, RecursionError):
        pass
    if not bytes(raw).strip(_ASCII_BLANK):
        diagnostics.append(Diagnostic(number, "blank", "blank line (skipped, as Pi does)"))
        return
    try:
        value = loads(raw)
    except LineDecodeError as exc:
        diagnostics.append(Diagnostic(number, "malformed", _malformed(raw, end, view, exc)))
        return
    if js_falsy(value):
        diagnostics.append(
            Diagnostic(number, "falsy", f"JSON value {dumps(value)} is falsy (skipped, as Pi does)")
        )
        return
    if not isinstance(value, dict):
        diagnostics.append(
            Diagnostic(
                number,
                "not-an-object",
                f"JSON {type(value).__name__} is not an object; Pi keeps it as an id-less entry",
            )
        )
    records.append(Record(number, start, end, value, value))


def _malformed(raw: memoryview, end: int, view: memoryview, error: Exception) -> str:
    """The reason for a skipped malformed line, naming the usual culprits."""
    reason = str(error)
    if bytes(raw[:3]) == b"\xef\xbb\xbf":
        reason = "starts with a UTF-8 byte-order mark, which JSON.parse rejects"
    elif end == len(view) and not bytes(raw).rstrip().endswith((b"}", b"]", b'"')):
        reason += "; the last line has no newline: cut off by a crash?"
    return f"{reason} (skipped, as Pi does)"


def full_value(data: bytes, record: Record) -> object:
    """The fully decoded value of a record (decoded once, then cached on the record)."""
    if record.value is None:
        record.value = loads(memoryview(data)[record.start : record.end])
    return record.value


def structural_views(records: list[Record]) -> list:
    """The ``skeleton`` of every record, decoding those not decoded yet many at a time.

    Records the fast path read are decoded in blocks of consecutive lines with
    ``decode_lines`` (each such line starts with ``{`` and ends with ``}``, so a block
    holds one value per line when the counts agree); anything else falls back to
    ``Record.skeleton``, one line at a time.

    >>> records, _ = parse_records(b'{"type":"a","x":1}\\n{"type":"b","label":"L"}\\n')
    >>> structural_views(records)
    [{'type': 'a'}, {'type': 'b', 'label': 'L'}]
    """
    collecting = gc.isenabled()
    gc.disable()  # many small dicts that live on, and no cycles among them
    try:
        for first in range(0, len(records), _BLOCK):
            block = records[first : first + _BLOCK]
            head, tail = block[0], block[-1]
            if (
                len(block) > 1
                and head.data is not None
                and all(r.structural is None and r.data is head.data for r in block)
                and all(b.start == a.end + 1 for a, b in pairwise(block))
            ):
                try:
                    views = _structural_decode_lines(memoryview(head.data)[head.start : tail.end])
                except (msgspec.DecodeError, RecursionError):
                    views = []
                if len(views) == len(block):
                    for record, view in zip(block, views):
                        record.structural = view
        return [r.skeleton if r.structural is None else r.structural for r in records]
    finally:
        if collecting:
            gc.enable()


def complete_lines(data: bytes) -> tuple[bytes, Diagnostic | None]:
    """Split off a partial last line: the bytes up to the last ``\\n``, and a diagnostic
    (kind ``"partial-line"``) for the bytes after it, if there are any.

    For reading a file another process is appending to: a line is only complete once
    its ``\\n`` is written.

    >>> data, partial = complete_lines(b'{"a":1}\\n{"b":')
    >>> data, partial.line, partial.kind
    (b'{"a":1}\\n', 2, 'partial-line')
    >>> complete_lines(b'{"a":1}\\n')
    (b'{"a":1}\\n', None)
    """
    cut = data.rfind(b"\n") + 1
    if cut == len(data):
        return data, None
    line = data.count(b"\n", 0, cut) + 1
    message = (
        f"last line has no newline yet ({len(data) - cut} bytes): ignored, as it may "
        "still be being written"
    )
    return data[:cut], Diagnostic(line, "partial-line", message)


def read_complete_lines(path) -> tuple[bytes, Diagnostic | None]:
    """Read a file once and keep only its complete lines (see ``complete_lines``).

    >>> import tempfile, os
    >>> fd, name = tempfile.mkstemp()
    >>> _ = os.write(fd, b'{"type":"session"}\\n{"type":"mess'); os.close(fd)
    >>> data, partial = read_complete_lines(name)
    >>> data, partial.line, partial.kind
    (b'{"type":"session"}\\n', 2, 'partial-line')
    """
    with open(path, "rb") as handle:
        data = handle.read()
    return complete_lines(data)
