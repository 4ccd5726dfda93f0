"""Where a session's lines are once it is read: its bytes held in memory, or a big
file kept open and its lines read again a window at a time when an entry is decoded.

>>> store = LineStore(b'{"type":"a"}\\n{"type":"b"}\\n')
>>> store.value(13, 25), store.values([(0, 12), (13, 25)])
({'type': 'b'}, [{'type': 'a'}, {'type': 'b'}])
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any, cast

import msgspec

from ..errors import SessionFormatError
from ..js.json import loads
from . import schemas

#: Bytes a line is read from: a file's bytes, a buffer, or a view of either.
Buffer = bytes | bytearray | memoryview

#: Lines decoded together by ``msgspec``'s ``decode_lines`` (when a file is read, and
#: when its lines are read again): few enough that a block's values stay in the
#: processor's caches until they are used (docs/performance.md).
BLOCK = 512


#: Lines read again from a big file come with their neighbours: the aligned window of
#: this many bytes around them is read at once and kept until a line outside it is asked
#: for, so lines near each other cost one read, never one each.
WINDOW = 1 << 16

#: A line far from the last one read (a sibling's timestamp, a label: lines asked for
#: one here, one there) comes with the aligned page around it only: a window read for
#: it would copy 16 times the bytes, and its next line is not in it either.
PAGE = 1 << 12


class LineStore:
    """The bytes of a session's lines: held in memory, or read again from the file.

    A big file is not kept in memory; its lines are read again when an entry is decoded
    (a ``WINDOW`` of bytes at a time, or a longer span at once).
    The file is kept open, so a rename does not swap it; a file truncated or rewritten
    meanwhile is noticed (a line no longer ends where it did) and reported.
    """

    def __init__(self, data: bytes | None = None, path: str | None = None, size: int = 0):
        self.data = data
        self.path = path
        self.size = len(data) if data is not None else size
        self._fd: int | None = None
        self._window: tuple[int, bytes] = (0, b"")  # the last bytes read, where they start

    def __del__(self) -> None:
        if self._fd is not None:
            os.close(self._fd)

    def _read(self, start: int, end: int) -> bytes | memoryview:
        if self.data is not None:
            return memoryview(self.data)[start:end]
        want = min(end + 1, self.size)  # the newline after, as a check
        at, held = self._window
        if not (at <= start and want <= at + len(held)):
            # a window where the reading walks on from the last one, else a page
            size = WINDOW if 0 <= start - (at + len(held)) < WINDOW else min(PAGE, WINDOW)
            at = start - start % size  # the aligned window around the line (or more)
            if want - at > size:  # a line longer than that: read as it is
                at = start
            held = self._pread(at, max(want, min(at + size, self.size)) - at)
            if want - start < WINDOW:  # (a span longer than a window is not kept)
                self._window = (at, held)
        got = memoryview(held)[start - at : want - at]
        if len(got) != want - start or (want > end and bytes(got[-1:]) != b"\n"):
            raise SessionFormatError(
                self.path, None, "the file changed since it was read (read it again)"
            )
        return got[: end - start]

    def _holds(self, start: int, end: int) -> bool:
        """Whether the bytes read last hold bytes ``start`` to ``end`` and the newline."""
        at, held = self._window
        return at <= start and min(end + 1, self.size) <= at + len(held)

    def _hold(self, start: int, end: int) -> None:
        """Read bytes ``start`` to ``end`` (and the newline after) exactly, and keep them
        for the lines asked for in them."""
        want = min(end + 1, self.size)
        self._window = (start, self._pread(start, want - start))

    def _pread(self, start: int, size: int) -> bytes:
        if self._fd is None:
            self._fd = os.open(cast(str, self.path), os.O_RDONLY | getattr(os, "O_BINARY", 0))
        if hasattr(os, "pread"):
            return os.pread(self._fd, size, start)
        os.lseek(self._fd, start, os.SEEK_SET)  # pragma: no cover - Windows
        return os.read(self._fd, size)  # pragma: no cover

    def whole(self) -> bytes:
        """Every byte that was read, exactly."""
        if self.data is not None:
            return self.data
        return bytes(self._read(0, self.size))

    def value(self, start: int, end: int) -> object:
        """The fully decoded value of the line at this byte range."""
        return loads(self._read(start, end))

    def span(self, start: int, end: int, count: int, decoder: Any) -> list[Any] | None:
        """The ``count`` lines that fill ``start:end`` decoded together with a msgspec
        ``decoder`` (None when it refuses one of them: read them one at a time)."""
        return _together(self._read(start, end), count, decoder)

    def values(self, ranges: Sequence[tuple[int, int]], decoder: Any = None) -> list[Any]:
        """Several lines decoded, consecutive ones together (``decode_lines``). With a
        msgspec ``decoder``, lines it refuses give None; without, ``JSON.parse``'s value."""
        out: list[Any] = []
        runs = list(_runs(ranges))
        for k, run in enumerate(runs):
            first, last = run[0][0], run[-1][1]
            if self.data is None and not self._holds(first, last):
                self._hold(first, _reach(runs, k))
            raw = self._read(first, last)
            decoded = _together(raw, len(run), decoder or schemas.ANY)
            if decoded is not None:
                out.extend(decoded)
            else:
                out.extend(_one(raw[s - first : e - first], decoder) for s, e in run)
        return out


def _together(raw: Buffer, count: int, decoder: Any) -> list[Any] | None:
    """``count`` consecutive lines decoded in one call (None when the decoder refuses one,
    or finds another number of lines)."""
    try:
        decoded: list[Any] = decoder.decode_lines(raw)
    except (msgspec.DecodeError, RecursionError):
        return None
    return decoded if len(decoded) == count else None


def _one(raw: bytes | memoryview, decoder: Any) -> object:
    """One line: ``JSON.parse``'s value, or the decoder's (None when it refuses)."""
    if decoder is None:
        return loads(raw)
    try:
        return decoder.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None


def _reach(runs: list[list[tuple[int, int]]], first: int) -> int:
    """Where one read from the start of ``runs[first]`` ends: with the runs after it
    that come less than a ``WINDOW`` after the one before (a read per run far from the
    others, its lines only; one read for runs near each other, the bytes between them
    too), at most ``REACH`` bytes.

    >>> _reach([[(0, 10)], [(20, 30)], [(100_000, 100_010)]], 0)
    30
    """
    start, end = runs[first][0][0], runs[first][-1][1]
    for run in islice(runs, first + 1, None):
        if not 0 <= run[0][0] - end < WINDOW or run[-1][1] - start > REACH:
            break
        end = run[-1][1]
    return end


#: The most bytes ``values`` reads at once for lines near each other.
REACH = 1 << 20


def _runs(ranges: Sequence[tuple[int, int]]) -> Iterator[list[tuple[int, int]]]:
    """Consecutive lines (each starting right after the previous one's newline) grouped."""
    run: list[tuple[int, int]] = []
    for item in ranges:
        if run and (item[0] != run[-1][1] + 1 or len(run) >= BLOCK):
            yield run
            run = []
        run.append(item)
    if run:
        yield run
