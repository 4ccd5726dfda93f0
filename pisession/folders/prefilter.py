"""Where in a file's bytes a search's match may be, found without decoding the file.

Every match of a pattern in a session's decoded text holds a text (the pattern, or for a
regular expression the longest plain run at its top level: ``required_text``), and that
text shows in the file's bytes as JSON writes it (``JSON.stringify``), in its forms when
case is ignored (``same_ignoring_case``: KELVIN SIGN is a ``k``), or else hides behind an
escape (``hiding_escapes``: ``\\uXXXX`` of one of its characters, ``\\/`` for a slash).
``byte_filter`` gives the ``ByteFilter`` that finds those places; ``folders.search``
reads only the entries on lines with one, and no file without one.

>>> f = byte_filter("port", False, False)
>>> f.offsets(b'{"text":"a port"}\\n{"text":"none"}\\n{"text":"p\\\\u006frt"}')
[11, 44]
"""

from __future__ import annotations

import json
import mmap
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

#: What a file's bytes are searched in: the bytes, or a memory map of a big file.
Searched = bytes | mmap.mmap


def _written(text: str) -> bytes:
    """``text`` as JSON writes it inside a string (``JSON.stringify``), in UTF-8."""
    return json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass")


def hiding_escapes(chars: Iterable[str]) -> re.Pattern[bytes]:
    """The JSON escapes through which a string can hold one of ``chars`` without its bytes
    showing it as ``JSON.stringify`` writes it: ``\\uXXXX`` of the character (hex digits
    in either case; a character beyond U+FFFF by the high half of its surrogate pair),
    and ``\\/`` when one is a slash (``JSON.stringify`` never escapes a slash, but
    ``JSON.parse`` reads ``\\/`` as one). Other escapes cannot hide them: a file whose
    ``\\u`` escapes are all terminal colours (``\\u001b``) is not read for "index".

    >>> escapes = hiding_escapes("ix")
    >>> [bool(escapes.search(raw)) for raw in (rb"\\u0069", rb"\\u0078", rb"\\u001b[0m")]
    [True, True, False]
    >>> bool(hiding_escapes("\\U0001f600").search(rb"\\uD83D\\uDE00"))
    True
    """
    hexes = set()
    for char in chars:
        code = ord(char)
        if code > 0xFFFF:
            code = 0xD800 + ((code - 0x10000) >> 10)
        hexes.add("".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in f"{code:04x}"))
    forms = "|".join(sorted(hexes))
    if "/" in chars:
        return re.compile(rf"\\(?:u(?:{forms})|/)".encode())
    return re.compile(rf"\\u(?:{forms})".encode())  # the prefix \u, found fastest


@dataclass(frozen=True)
class ByteFilter:
    """Where a match may be in a file's bytes: every match of the pattern in a decoded
    text lies on a line whose bytes hold ``literal`` (ignoring case: ``folded`` in the
    bytes with ASCII letters made small, or one of ``others``), or an escape
    (``escapes``) through which the text can hold what the bytes do not show."""

    literal: bytes | None  # the text every match holds, as JSON writes it (case kept)
    folded: bytes | None  # ignoring case: that text in ASCII forms, small letters
    others: tuple[re.Pattern[bytes], ...]  # ignoring case: its characters' forms beyond ASCII
    escapes: re.Pattern[bytes]

    def offsets(self, data: Searched) -> list[int]:
        """The offset of the first such place on each line of ``data`` that holds one
        (a few more where several kinds of place share a line), in order: as many as
        there are lines, however many places each line holds."""
        if self.literal is not None:
            found = list(_found(data, self.literal))
        else:
            found = [] if self.folded is None else list(_found_folded(data, self.folded))
            for other in self.others:
                found += _searched(data, other)
        found += _searched(data, self.escapes)
        return sorted(found)


#: Bytes made small at a time when a file is searched ignoring case.
_FOLD_STEP = 1 << 24


def _found_folded(data: Searched, needle: bytes) -> Iterator[int]:
    r"""``_found`` (the first offset on each line) of ``needle`` (small letters) in
    ``data`` with its ASCII letters made small, a stretch of ``_FOLD_STEP`` bytes at a
    time (the next stretch's start added so that a needle across the border is found once).

    >>> list(_found_folded(b"Index INDEX\nindex", b"index"))
    [0, 12]
    """
    for start in range(0, len(data), _FOLD_STEP):
        piece = data[start : start + _FOLD_STEP + len(needle) - 1].lower()
        for at in _found(piece, needle):
            if at < _FOLD_STEP:
                yield start + at


def _found(data: Searched, needle: bytes) -> Iterator[int]:
    r"""The first offset of ``needle`` on each line of ``data`` that holds it (the rest of
    a line is not looked at: a line with a million matches costs one offset).

    >>> list(_found(b"ab ab\nx\nab", b"ab"))
    [0, 8]
    """
    at = data.find(needle)
    while at != -1:
        yield at
        end = data.find(b"\n", at)
        if end == -1:
            return
        at = data.find(needle, end + 1)


def _searched(data: Searched, pattern: re.Pattern[bytes]) -> list[int]:
    """``_found`` for a regular expression over bytes."""
    found = []
    match = pattern.search(data)
    while match is not None:
        found.append(match.start())
        end = data.find(b"\n", match.start())
        if end == -1:
            break
        match = pattern.search(data, end + 1)
    return found


def required_text(text: str, regex: bool, ignore_case: bool) -> tuple[str, bool] | None:
    """A text every match holds, and whether case is ignored there; None when there is
    none: for a regular expression, the longest run of plain characters at its top level
    (groups without flags of their own opened), ``(?i)`` read from the expression.

    >>> required_text("port", False, False)
    ('port', False)
    >>> required_text("(?i)index (cache)+ leaf|x", True, False), required_text("a.c", True, True)
    (None, ('a', True))
    >>> required_text("(?i)in (dex) c", True, False)
    ('in dex c', True)
    """
    if not regex:
        return (text, ignore_case) if text else None
    parser = _sre_parser()
    parsed = parser.parse(text, re.IGNORECASE if ignore_case else 0)
    best = run = ""
    for op, argument in _top_level(parsed, parser.SUBPATTERN):
        run = run + chr(argument) if op is parser.LITERAL else ""
        best = max(best, run, key=len)
    return (best, bool(parsed.state.flags & re.IGNORECASE)) if best else None


def _sre_parser() -> Any:
    """The parser ``re`` compiles with (``re._parser``; ``sre_parse`` before 3.11)."""
    try:
        from re import _parser  # type: ignore[attr-defined]
    except ImportError:  # Python 3.10
        import sre_parse as _parser
    return _parser


def _top_level(parsed: Any, subpattern: object) -> Iterator[tuple[Any, Any]]:
    """The items every match goes through in order, groups without flags of their own
    opened."""
    for op, argument in parsed:
        if op is subpattern and not argument[1] and not argument[2]:
            yield from _top_level(argument[3], subpattern)
        else:
            yield op, argument


@lru_cache(maxsize=1)
def _every_character() -> str:
    return "".join(map(chr, range(0x110000)))


@lru_cache(maxsize=512)
def same_ignoring_case(char: str) -> tuple[str, ...]:
    """Every character that ``re`` matches with ``char`` when case is ignored.

    >>> [f"U+{ord(c):04X}" for c in same_ignoring_case("k")], same_ignoring_case("1")
    (['U+004B', 'U+006B', 'U+212A'], ('1',))
    """
    return tuple(re.findall(re.escape(char), _every_character(), re.IGNORECASE))


def _folded_forms(text: str) -> tuple[bytes | None, tuple[bytes, ...]]:
    """``text`` ignoring case, as bytes to look for: JSON's text of its ASCII forms with
    small letters (None when a character has no ASCII form), and every form of its
    characters beyond ASCII in UTF-8.

    >>> _folded_forms("Kit")
    (b'kit', (b'\\xc4\\xb0', b'\\xc4\\xb1', b'\\xe2\\x84\\xaa'))
    >>> _folded_forms("\u00fc")
    (None, (b'\\xc3\\x9c', b'\\xc3\\xbc'))
    """
    ascii_forms: list[set[str]] = []
    others: set[bytes] = set()
    for char in text:
        forms = same_ignoring_case(char)
        ascii_forms.append({c.lower() for c in forms if c.isascii()})
        others.update(c.encode("utf-8") for c in forms if not c.isascii())
    if all(ascii_forms):
        folded = _written("".join(min(forms) for forms in ascii_forms)).lower()
    else:
        folded = None
    return folded, tuple(sorted(others))


def _by_first_byte(needles: tuple[bytes, ...]) -> tuple[re.Pattern[bytes], ...]:
    """One pattern for the needles of each first byte (``re`` looks for a common start
    fast, and for alternatives with different starts slowly).

    >>> [p.pattern for p in _by_first_byte((b"\\xc4\\xb0", b"\\xc4\\xb1", b"\\xe2\\x84\\xaa"))]
    [b'\\xc4\\xb0|\\xc4\\xb1', b'\\xe2\\x84\\xaa']
    """
    groups: dict[int, list[bytes]] = {}
    for needle in needles:
        groups.setdefault(needle[0], []).append(needle)
    return tuple(re.compile(b"|".join(map(re.escape, g))) for g in groups.values())


@lru_cache(maxsize=64)
def byte_filter(text: str, regex: bool, ignore_case: bool) -> ByteFilter | None:
    """How to find, in a file's bytes, every place a match of the pattern may be (None:
    anywhere, as for a regular expression without a text every match holds).

    >>> byte_filter(".*", True, False) is None, byte_filter("ab", False, True).folded
    (True, b'ab')
    """
    required = required_text(text, regex, ignore_case)
    if required is None:
        return None
    needed, fold = required
    chars = {c for char in needed for c in (same_ignoring_case(char) if fold else (char,))}
    if any("\ud800" <= c <= "\udfff" or c == "\ufffd" for c in chars):
        return None  # bytes a decoder replaces or JSON must escape: no byte search
    escapes = hiding_escapes(chars)
    if fold:
        folded, others = _folded_forms(needed)
        return ByteFilter(None, folded, _by_first_byte(others), escapes)
    return ByteFilter(_written(needed), None, (), escapes)
