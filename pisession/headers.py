"""A session file's header: reading it from the file's first line, and Pi's test of it.

Pi takes a file as a session when its first entry is a header: an object whose ``type``
is ``"session"`` and whose ``id`` is a string (``loadEntriesFromFile`` returns no entries
otherwise). Loading a file finds that entry among the parsed lines
(``engine.opening``); the commands that only list, locate or sort files read the first
line alone (``first_value``), at most ``FIRST_LINE`` bytes of it, as Pi's header scan
does. Both ask ``header_fault`` whether Pi takes what they found.

>>> session_header(b'{"type":"session","id":"s","cwd":"/w"}\\n{"type":"message"}\\n')
{'type': 'session', 'id': 's', 'cwd': '/w'}
>>> header_fault({"type": "session", "id": 7}), header_fault([]), header_fault(None)
('no-id', 'not-session', 'not-session')
"""

from __future__ import annotations

import os
from typing import cast

from .js.json import LineDecodeError, loads
from .js.value import field

#: Bytes of a file read to find its first line (Pi's ``MAX_SESSION_HEADER_SCAN_BYTES``).
FIRST_LINE = 1 << 20

#: ``header_fault``'s answers: the value is no session header, or one without a string id.
NOT_SESSION, NO_ID = "not-session", "no-id"

_BOM = b"\xef\xbb\xbf"


def first_line(source: str | os.PathLike[str] | bytes) -> bytes | None:
    """The first line of a file (a path) or of ``bytes``, its newline left on, at most
    ``FIRST_LINE`` bytes of it; None when the file cannot be read.

    >>> first_line(b'{"a":1}\\n{"b":2}'), first_line("/no/such/file")
    (b'{"a":1}\\n', None)
    """
    if isinstance(source, bytes):
        end = source.find(b"\n", 0, FIRST_LINE)
        return source[: end + 1 if end != -1 else FIRST_LINE]
    try:
        with open(source, "rb") as handle:
            return handle.readline(FIRST_LINE)
    except OSError:
        return None


def first_value(source: str | os.PathLike[str] | bytes, bom: bool = False) -> object:
    """The JSON value of the first line of a file or of ``bytes``, as ``JSON.parse``
    reads it (``js.json.loads``); None where there is none (an unreadable file, a line
    that is not JSON). ``bom``: a leading UTF-8 byte order mark is skipped (the folder
    commands take such a file, so that loading it says what is wrong with it); without,
    it makes the line no JSON, as in Pi.

    >>> marked = b'\\xef\\xbb\\xbf{"type":"session"}'
    >>> first_value(marked), first_value(marked, bom=True)
    (None, {'type': 'session'})
    """
    line = first_line(source)
    if line is None:
        return None
    if bom and line.startswith(_BOM):
        line = line[len(_BOM) :]
    try:
        return loads(line)
    except LineDecodeError:
        return None


def header_fault(value: object) -> str | None:
    """Why Pi does not take ``value`` as a session's header: ``NOT_SESSION`` (not an
    object of type ``"session"``) or ``NO_ID`` (its ``id`` is not a string); None when
    it does.

    >>> header_fault({"type": "session", "id": "s"}), header_fault({"type": "message"})
    (None, 'not-session')
    """
    if not isinstance(value, dict) or value.get("type") != "session":
        return NOT_SESSION
    if not isinstance(value.get("id"), str):
        return NO_ID
    return None


def session_header(
    source: str | os.PathLike[str] | bytes, bom: bool = False
) -> dict[str, object] | None:
    """The header on the first line of a file or of ``bytes`` when Pi takes it
    (``header_fault``), else None. ``bom`` as for ``first_value``.

    >>> from pisession.samples import sample_path
    >>> session_header(sample_path("tour"))["id"]
    '0b5e55ed-7011-4a2c-9d2e-70a15e55104e'
    """
    value = first_value(source, bom)
    return cast("dict[str, object]", value) if header_fault(value) is None else None


def header_field(source: str | os.PathLike[str] | bytes, name: str, bom: bool = False) -> object:
    """A field of the value on a file's first line, read as JavaScript reads
    ``header.name`` (``UNDEFINED`` where it has none: no object, no such key).

    >>> header_field(b'{"type":"session","cwd":"/w"}', "cwd"), header_field(b"[]", "cwd")
    ('/w', undefined)
    """
    return field(first_value(source, bom), name)
