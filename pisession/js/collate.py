"""``a.localeCompare(b)`` as Node (ICU, root collation, locale ``en-US``) orders the file
names Pi sorts its session list by.

ICU compares the characters' primary weights first (punctuation, then digits, then letters
without regard to case), then their case (lower before upper). This module holds that order
for ASCII, as ``node -e`` prints it; any other character sorts after ASCII by code point (an
approximation: Pi's own file names are ASCII).
"""

from __future__ import annotations

#: ASCII in ICU's root order, from Node 20: printable characters sorted with localeCompare.
_ORDER = (
    "\t\n\x0b\x0c\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789"
    "aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ"
)
_PRIMARY: dict[str, int] = {}
for _rank, _char in enumerate(_ORDER):
    _PRIMARY[_char] = _PRIMARY.get(_char.lower(), _rank)


def _weights(text: str) -> tuple[list[int], list[int]]:
    primary = [_PRIMARY.get(c, 0x10000 + ord(c)) for c in text]
    case = [1 if c.isupper() else 0 for c in text]
    return primary, case


def locale_compare(a: str, b: str) -> int:
    """``a.localeCompare(b)``: -1, 0 or 1.

    >>> sorted_names = ["a_b", "a-b", "a.b", "a1", "ab", "aB", "Ab"]
    >>> [locale_compare(x, y) for x, y in zip(sorted_names, sorted_names[1:])]
    [-1, -1, -1, -1, -1, -1]
    >>> locale_compare("a-c", "ab"), locale_compare("x", "x")
    (-1, 0)
    """
    if a == b:
        return 0
    (pa, ca), (pb, cb) = _weights(a), _weights(b)
    if pa != pb:
        return -1 if pa < pb else 1
    if ca != cb:
        return -1 if ca < cb else 1
    return -1 if a < b else 1
