"""Which entries of which session files count, when forks and clones copy entries.

Pi's forks and clones copy their parent's entries into a new file: ``/clone`` and RPC
``clone`` (``createBranchedSession(leaf)``), ``/fork`` and RPC ``fork``
(``createBranchedSession`` at the chosen user message's parent), ``pi --fork``
(``SessionManager.forkFrom``, every entry of every branch). The copies keep each
entry's ``id``, ``timestamp`` and usage; only a ``parentId`` may change (labels are
taken out of the path and written again, with new ids, at its end), and ``pi --fork``
writes numbers again as ``JSON.stringify`` does (``2e-05`` becomes ``0.00002``). Summing
Pi's ``getUsageCostBreakdown`` file by file counts every copied charge once per copy
(ccusage issue 1634, "forked sessions replay parent token history and are
double-counted").

The rule: an entry that counts usage is *the same entry* in two files when its ``id``,
its ``timestamp`` and what it counts (the key and the five figures, numbers as the
doubles they are) are the same (``identity``). It counts once, in the file that
holds it first: files are ordered by their header's ``timestamp`` (the time the session
was made; a fork is made after the entries it copies were written), then by their
order in the scan (``file_order``). Only the entries of files that may hold copies are
compared (``may_hold_copies``): a file whose header names a ``parentSession`` (every file
Pi's fork routes write does, even when the parent has moved since), or whose header id
another file of the scan has too (the same session found twice). A fork whose parent is not in
the scan still counts what it copied, once.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..js.value import js_string

#: Bytes of an entry's identity digest.
DIGEST = 8


def identity(entry_id: object, timestamp: object, key: str, figures: tuple[object, ...]) -> bytes:
    """The digest that says two entries are the same charge: ``id``, ``timestamp``, the
    key the usage counts under and its five figures, numbers as the doubles they are
    (so ``1.0`` and ``1``, ``2e-05`` and ``0.00002`` are the same; ``"1"`` is not ``1``).

    >>> identity("a1", "2026-01-01T00:00:00Z", "p/m", (1, 2, 0, 0, 2e-05)) == identity(
    ...     "a1", "2026-01-01T00:00:00Z", "p/m", (1.0, 2, 0, 0, 0.00002))
    True
    >>> one = identity("a1", "t", "p/m", (1, 2, 0, 0, 0.5))
    >>> one == identity("a1", "t", "p/m", (1, 3, 0, 0, 0.5))
    False
    >>> one == identity("a1", "t", "p/m", ("1", 2, 0, 0, 0.5))  # a string is not a number
    False
    """
    if type(entry_id) is str and type(timestamp) is str:  # the usual case, fast
        text = f"s{entry_id}\x00s{timestamp}\x00{key}\x00"
    else:
        text = f"{_text(entry_id)}\x00{_text(timestamp)}\x00{key}\x00"
    try:
        tail = b"N" + _DOUBLES.pack(*[_double(f) for f in figures])
    except (TypeError, OverflowError, struct.error):  # a figure that is not a number
        tail = b"T" + "\x00".join(map(_text, figures)).encode("utf-8", "surrogatepass")
    data = text.encode("utf-8", "surrogatepass") + tail
    return hashlib.blake2b(data, digest_size=DIGEST).digest()


def _double(value: object) -> float:
    kind = type(value)
    if kind is float:
        return value + 0.0  # type: ignore[operator]
    if kind is int:
        return float(value)  # type: ignore[arg-type]
    raise TypeError("not a number")


_DOUBLES = struct.Struct("<5d")


def _text(value: object) -> str:
    """A figure's text, the same exactly when the figures are: a number as the double it
    is (``1`` and ``1.0``, ``-0`` and ``0`` alike), a string as itself, anything else as
    JavaScript's ``String`` writes it.

    >>> _text(1) == _text(1.0) == _text(1.0 - 0.0), _text(2e-05) == _text(0.00002)
    (True, True)
    >>> _text("1") == _text(1), _text(None)
    (False, 'null')
    """
    kind = type(value)
    if kind is int or kind is float:
        return f"n{float(value) + 0.0!r}"  # type: ignore[arg-type]
    if kind is str:
        return f"s{value}"
    try:
        return js_string(value)
    except Exception:  # an object with its own toString: never the same as another
        return repr(value)


@dataclass
class FileHeader:
    """What the rule reads of a file's header: its id, the session's start time (ms
    since 1970, NaN when there is none) and the parent it names (None: no parent)."""

    id: str | None
    time: float
    parent: str | None


@dataclass
class FileEntries:
    """The entries of one file that count usage: their positions and identities, in
    file order."""

    positions: list[int] = field(default_factory=list)
    digests: list[bytes] = field(default_factory=list)


def may_hold_copies(headers: Sequence[FileHeader | None]) -> set[int]:
    """The files (by index) that may hold entries copied from another: a header that
    names a ``parentSession``, or a header id another file has too.

    >>> nan = float("nan")
    >>> may_hold_copies([FileHeader("a", 1, None), FileHeader("b", 2, "/x/a.jsonl"),
    ...     FileHeader("c", 3, None), FileHeader("c", 3, None), None])
    {1, 2, 3}
    """
    seen: dict[str, list[int]] = {}
    for index, header in enumerate(headers):
        if header is not None and header.id is not None:
            seen.setdefault(header.id, []).append(index)
    out = {i for i, h in enumerate(headers) if h is not None and h.parent is not None}
    out.update(i for same in seen.values() if len(same) > 1 for i in same)
    return out


def file_order(headers: Sequence[FileHeader | None]) -> list[int]:
    """The files (by index) in the order the rule gives their entries a home: by the
    header's time, earliest first; a file without one after those, then by scan order.

    >>> file_order([FileHeader("b", 20, "a"), FileHeader("a", 10, None), None,
    ...     FileHeader("c", 20, None)])
    [1, 0, 3, 2]
    """

    def key(index: int) -> tuple[bool, float, int]:
        header = headers[index]
        time = header.time if header is not None else float("nan")
        return (time != time, time if time == time else 0, index)

    return sorted(range(len(headers)), key=key)


def left_out(
    headers: Sequence[FileHeader | None], entries: Sequence[FileEntries | None]
) -> dict[int, list[int]]:
    """The positions, by file index, of the entries that do not count there because a
    file earlier in ``file_order`` holds the same entry. Only the entries that a file
    which ``may_hold_copies`` holds are compared (a folder without forks costs nothing).
    ``entries[i]`` is None for a file that was not read.

    >>> a, b = FileEntries([1, 2], [b"x", b"y"]), FileEntries([1, 2, 5], [b"x", b"y", b"z"])
    >>> left_out([FileHeader("a", 1, None), FileHeader("b", 2, "/gone/a.jsonl")], [a, b])
    {1: [1, 2]}
    >>> left_out([FileHeader("b", 2, "/gone/a.jsonl"), FileHeader("c", 3, "/gone/a.jsonl")],
    ...     [FileEntries([1], [b"x"]), FileEntries([1, 2], [b"x", b"w"])])
    {1: [1]}
    """
    copies = may_hold_copies(headers)
    wanted: set[bytes] = set()
    for index in copies:
        found = entries[index]
        if found is not None:
            wanted.update(found.digests)
    if not wanted:
        return {}
    homed: set[bytes] = set()
    out: dict[int, list[int]] = {}
    for index in file_order(headers):
        found = entries[index]
        if found is None:
            continue
        for position, digest in zip(found.positions, found.digests):
            if digest not in wanted:
                continue
            if digest in homed:
                out.setdefault(index, []).append(position)
            else:
                homed.add(digest)
    return out
