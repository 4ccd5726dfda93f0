"""Step 1 of loading: bytes -> lines -> parsed values, exactly as Pi 0.87.1 reads a file.

Pi splits the file on ``\\n`` only, skips blank lines and lines ``JSON.parse`` rejects,
and drops values that are falsy in JavaScript. pisession does the same, but writes
down every line it skipped (``Diagnostic``) so that nothing goes missing silently.

What it keeps of each line is a row of columns (``ParsedLines``): line number, byte
range, and the four fields the context rule asks about (``type``, ``id``, ``parentId``,
``message.role``). Those are decoded many lines at a time, without the rest of the line;
a full entry is decoded only when asked for, from its byte range (``LineStore``). A big
file is read in chunks, and its bytes are read again from the file when needed, so
memory holds the columns, not the file.
"""

from __future__ import annotations

import gc
import io
import os
import pickle
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import islice
from operator import attrgetter, itemgetter, ne
from typing import TYPE_CHECKING, Any, BinaryIO, cast

import msgspec

from ..errors import Diagnostic, SessionFormatError
from ..js.json import LineDecodeError, dumps, line_bounds, loads
from ..js.value import UNDEFINED, js_falsy
from . import schemas
from .packing import packed, parents_packed, unpacked
from .store import BLOCK as _BLOCK
from .store import Buffer, LineStore

if TYPE_CHECKING:
    from .stats import Counted

#: Files up to this size are kept in memory; bigger ones are read a piece at a time.
CHUNK = 64 * 1024 * 1024

#: The piece of a big file read at once (at most ``CHUNK``), into one buffer used again
#: for every piece: small enough that its lines are parsed while it is still in the
#: processor's cache, and a buffer the size of ``CHUNK`` is not faulted in. On the 200k
#: session, 4 MB pieces take 0.36 s of CPU where 64 MB pieces took 0.45 s.
PIECE = 4 * 1024 * 1024

#: Whitespace ``String.prototype.trim`` removes, as bytes that can start a blank line.
_ASCII_BLANK = b" \t\r\n\x0b\x0c"


@dataclass
class ParsedLines:
    """Every kept line (parsed value) of a file, as columns; the header is row 0.

    ``roles`` holds ``message.role`` (``tree.NO_MESSAGE`` when ``message`` is null or
    absent); ``values`` the full value of the rows the fast path did not read;
    ``counted``, when the lines were read counting, what the rows add to the session
    statistics and to Pi's usage breakdown (``stats.entry_contribution``): a
    ``stats.Counted``, which keeps only the rows that add more than their type and role
    say.
    """

    lines: array[int] = field(default_factory=lambda: array("q"))
    starts: array[int] = field(default_factory=lambda: array("q"))
    ends: array[int] = field(default_factory=lambda: array("q"))
    types: list[Any] = field(default_factory=list)
    ids: list[Any] = field(default_factory=list)
    parent_ids: list[Any] = field(default_factory=list)
    roles: list[Any] = field(default_factory=list)
    values: dict[int, Any] = field(default_factory=dict)
    counted: Counted | None = None
    #: the id index of the entries (id -> position among them: the header, row 0, is at
    #: -1) where every id is a string, made while a helper parses the rest of a big file
    #: (``index_ids``); None: not made (``EntryIndex.by_id`` makes it when asked)
    id_positions: dict[Any, int] | None = None
    #: the counted rows of the rest of a big file as its helper sent them (pickled), with
    #: the row here of their row 0: joined to ``counted`` when first asked for
    #: (``whole_counted``), by the process that asks (``export``: the usage table's)
    counted_later: tuple[int, bytes] | None = None

    def __len__(self) -> int:
        return len(self.types)

    def whole_counted(self) -> Counted | None:
        """``counted``, with the rows a helper sent joined to it first if they are not yet.

        >>> parsed, _ = parse_lines(b'{"type":"usage","usage":{"input":3}}\\n', counting=True)
        >>> list(parsed.whole_counted().rows)
        [0]
        """
        if self.counted_later is not None:
            from .stats import Counted

            base, sent = self.counted_later
            rest, self.counted_later = pickle.loads(sent), None
            if self.counted is None:  # (the helper's own columns, as they came)
                self.counted = Counted()
            self.counted.append(base, rest)
        return self.counted

    def __getstate__(self) -> dict[str, Any]:
        # sent from the helper process that parsed half a file: the id columns are
        # pickled as one text each, several times faster than as lists of strings
        # (and the parents as the rows whose parent is not the entry before: the others
        # are made of the ids again, no second string for each)
        state = dict(self.__dict__)
        state["ids"] = packed(self.ids)
        state["parent_ids"] = parents_packed(self.parent_ids, self.ids)
        if self.counted is not None:  # (pickled apart: unpickled where it is asked for)
            sent = pickle.dumps(self.whole_counted(), pickle.HIGHEST_PROTOCOL)
            state["counted"], state["counted_later"] = None, (0, sent)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["ids"] = ids = unpacked(state["ids"])
        state["parent_ids"] = unpacked(state["parent_ids"], ids)
        self.__dict__.update(state)

    def without(self, rows: Sequence[int], in_place: bool = False) -> ParsedLines:
        """The same columns without these rows (the header, and extra headers Pi does not
        count as entries), renumbered; ``in_place``: the header alone is cut from these
        very columns when it is all there is to drop (memory holds one copy of them).

        >>> parsed, _ = parse_lines(b'{"type":"session","id":"s"}\\n{"type":"a"}\\n')
        >>> parsed.without([0]).types
        ['a']
        """
        drop = sorted(set(rows))
        usual = drop == list(range(len(drop)))
        counted = self.counted if usual else self.whole_counted()  # (else renumbered here)
        if usual:  # the header only, sliced in C
            cut = len(drop)
            positions = self.id_positions if cut == 1 and in_place else None
            if positions is not None and positions.get(self.ids[0]) == -1:
                del positions[self.ids[0]]  # the header's id (no entry shares it)
            else:
                positions = None
            self.id_positions = None
            columns = self._columns()
            for k, column in enumerate(columns):
                if in_place:
                    del column[:cut]
                else:
                    columns[k] = column[cut:]
            values = {k - cut: v for k, v in self.values.items() if k >= cut}
            kept = None if counted is None else _counted_after(counted, cut, in_place)
            later = self.counted_later  # (the rest's rows, all after the cut)
            if later is not None:
                later = (later[0] - cut, later[1])
            return ParsedLines(*columns, values, kept, positions, later)  # type: ignore[call-arg]
        dropped = set(drop)
        keep = [k for k in range(len(self)) if k not in dropped]
        renumber = {old: new for new, old in enumerate(keep)}
        columns = [_pick(c, keep) for c in self._columns()]
        values = {renumber[k]: v for k, v in self.values.items() if k in renumber}
        kept = None
        if counted is not None:
            from .stats import Counted

            local = [k for k, row in enumerate(counted.rows) if row in renumber]
            rows = array("q", [renumber[counted.rows[k]] for k in local])
            kept = Counted(rows, [_pick(c, local) for c in counted.columns])
        return ParsedLines(*columns, values, kept)  # type: ignore[call-arg]

    def index_ids(self) -> None:
        """Make ``id_positions`` of these rows (the first rows of a file) where every id
        is a string and a parent will be looked up: an entry's ``parentId`` is not the id
        of the line before it (a chain needs no lookup, and no index is made for it).

        >>> parsed, _ = parse_lines(b'{"type":"session","id":"s"}\\n{"id":"a"}\\n'
        ...                         b'{"id":"b","parentId":"a"}\\n{"id":"c","parentId":"a"}\\n')
        >>> parsed.index_ids(); parsed.without([0], in_place=True).id_positions
        {'a': 0, 'b': 1, 'c': 2}
        """
        ids, parents = self.ids, self.parent_ids
        jumps = any(map(ne, islice(parents, 2, None), islice(ids, 1, None)))
        if jumps and set(map(type, ids)) <= {str}:
            self.id_positions = dict(zip(ids, range(-1, len(ids) - 1)))

    def _columns(self) -> list[Any]:
        """Every column but ``counted``."""
        return [
            self.lines,
            self.starts,
            self.ends,
            self.types,
            self.ids,
            self.parent_ids,
            self.roles,
        ]


def _counted_after(counted: Counted, cut: int, in_place: bool) -> Counted:
    """``counted`` without its first ``cut`` rows, renumbered from 0."""
    from bisect import bisect_left

    from .stats import Counted

    first = bisect_left(counted.rows, cut)
    rows = array("q", map((-cut).__add__, islice(counted.rows, first, None)))
    if not in_place:
        return Counted(rows, [column[first:] for column in counted.columns])
    for column in counted.columns:
        del column[:first]
    counted.rows = rows
    return counted


def _pick(column: Any, keep: list[int]) -> Any:
    """The items of a column at these rows, as the same kind of column."""
    picked = [column[k] for k in keep]
    return array(column.typecode, picked) if isinstance(column, array) else picked


#: A ``CoreLine``'s four fields at once.
_CORE_FIELDS = attrgetter("type", "id", "parentId", "message")


def _no_message() -> object:
    from ..tree import NO_MESSAGE

    return NO_MESSAGE


def _bytes_at(data: Buffer, offsets: list[int]) -> bytes:
    """The bytes at these offsets, as one bytes object.

    >>> _bytes_at(b"abc", [2, 0])
    b'ca'
    """
    if len(offsets) < 2:
        return bytes(data[i] for i in offsets)
    return bytes(itemgetter(*offsets)(data))


class _Columns:
    """Appends rows to a ``ParsedLines`` (interning the few distinct types and roles).

    ``counting``: read each line with ``schemas.COUNTED`` instead, which also reads
    the usage figures, and keep in ``counted`` what the rows that add more than their
    type and role say add (``stats.Counted``), as the rows come.
    """

    def __init__(
        self, parsed: ParsedLines, diagnostics: list[Diagnostic], counting: bool = False
    ) -> None:
        self.parsed = parsed
        self.diagnostics = diagnostics
        self.no_message = _no_message()
        self.names: dict[Any, Any] = {}
        self.decoder: msgspec.json.Decoder[Any] = schemas.CORE
        self.count_block: Callable[..., None] | None = None
        self.entry_counter: Callable[[object], tuple[Any, ...]] | None = None
        if counting:
            from .counting import count_block
            from .stats import Counted, entry_contribution

            self.decoder, self.count_block = schemas.COUNTED, count_block
            self.entry_counter = entry_contribution  # for lines read in full
            parsed.counted = Counted()

    def _name(self, value: object) -> object:
        if type(value) is str:
            return self.names.setdefault(value, value)
        return value

    def add_cores(
        self, numbers: range, starts: list[int], ends: list[int], cores: Sequence[Any]
    ) -> None:
        p = self.parsed
        first = len(p.types)
        p.lines.fromlist(list(numbers))  # (from a list: faster than extend, in C)
        p.starts.fromlist(starts)
        p.ends.fromlist(ends)
        gap = self.no_message
        # the four fields of every line taken in one pass over the lines (in C)
        kinds, ids, parent_ids, messages = zip(*map(_CORE_FIELDS, cores)) if cores else ((),) * 4
        types = self._names(kinds)
        p.types.extend(types)
        p.ids.extend(ids)
        p.parent_ids.extend(parent_ids)
        roles = self._names([gap if m is None or m is UNDEFINED else m.role for m in messages])
        p.roles.extend(roles)
        if self.count_block is not None:
            self.count_block(p.counted, first, types, roles, cores, self.no_message)

    def _names(self, values: Sequence[Any]) -> list[Any]:
        """The values with one string object per distinct name (in C when all hash)."""
        try:
            return list(map(self.names.setdefault, values, values))
        except TypeError:  # an unhashable type or role (an object): one at a time
            return [self._name(v) for v in values]

    def add_value(self, number: int, start: int, end: int, value: object, keep: bool) -> None:
        from ..js.value import field
        from ..tree import message_role

        p = self.parsed
        if keep:
            p.values[len(p.types)] = value
        p.lines.append(number)
        p.starts.append(start)
        p.ends.append(end)
        p.types.append(self._name(field(value, "type")))
        p.ids.append(field(value, "id"))
        p.parent_ids.append(field(value, "parentId"))
        p.roles.append(self._name(message_role(value)))
        if self.entry_counter is not None:  # a line read in full: always kept
            cast("Counted", p.counted).extend((len(p.types) - 1,), (self.entry_counter(value),))

    def add_line(
        self, view: memoryview, number: int, start: int, end: int, offset: int, last: bool
    ) -> None:
        """One line read on its own, as Pi reads it: a row, or a diagnostic. ``offset``
        is where ``view`` starts in the file; ``last``: the file's last line."""
        raw = view[start:end]
        try:
            core = self.decoder.decode(raw)
        except (msgspec.DecodeError, RecursionError):
            core = None
        if core is not None:
            self.add_cores(range(number, number + 1), [start + offset], [end + offset], (core,))
            return
        if not bytes(raw).strip(_ASCII_BLANK):
            self.diagnostics.append(Diagnostic(number, "blank", "blank line (skipped, as Pi does)"))
            return
        try:
            value = loads(raw)
        except LineDecodeError as exc:
            self.diagnostics.append(Diagnostic(number, "malformed", _malformed(raw, last, exc)))
            return
        if js_falsy(value):
            self.diagnostics.append(
                Diagnostic(
                    number, "falsy", f"JSON value {dumps(value)} is falsy (skipped, as Pi does)"
                )
            )
            return
        if not isinstance(value, dict):
            self.diagnostics.append(
                Diagnostic(
                    number,
                    "not-an-object",
                    f"JSON {type(value).__name__} is not an object; Pi keeps it as an "
                    "id-less entry",
                )
            )
        self.add_value(number, start + offset, end + offset, value, keep=True)


def _parse_window(
    columns: _Columns,
    data: Buffer,
    lo: int,
    hi: int,
    base: int,
    first_line: int,
    fast: bool,
    final: bool,
) -> int:
    """Parse the whole lines of ``data[lo:hi]`` (``data[i]`` is byte ``i + base`` of the
    file, ``first_line`` the number of the first line, ``final``: the window ends the file
    without a newline). Returns the number of lines.

    Fast path: a block of lines that each start with ``{`` and end with ``}`` is decoded
    at once. Such a block can only hold one JSON value per line (``}\\n{`` never occurs
    inside a JSON value), so when the value count equals the line count every value is
    its line's. Any other block is read line by line.

    The window is taken a span of about ``_SPAN`` bytes of whole lines at a time, so the
    offsets of its lines are never all held at once (a file of tiny lines has many).
    """
    count, text = 0, cast(bytes, data)  # (a bytes or bytearray buffer)
    while lo < hi:
        cut = hi if hi - lo <= _SPAN else text.rfind(b"\n", lo, lo + _SPAN) + 1
        if cut <= lo:  # one line longer than the span
            cut = text.find(b"\n", lo + _SPAN, hi) + 1 or hi
        last = final and cut == hi
        count += _parse_span(columns, data, lo, cut, base, first_line + count, fast, last)
        lo = cut
    return count


#: Bytes of a window whose lines are found and parsed together (``_parse_window``).
_SPAN = 1 << 20


def _parse_span(
    columns: _Columns,
    data: Buffer,
    lo: int,
    hi: int,
    base: int,
    first_line: int,
    fast: bool,
    final: bool,
) -> int:
    """``_parse_window`` of a span of whole lines."""
    starts, ends = line_bounds(cast(bytes, data), lo, hi)  # (any buffer)
    count = len(starts)
    view = memoryview(data)
    firsts = _bytes_at(data, starts)
    lasts = _bytes_at(data, [end - 1 for end in ends])  # -1 (empty first line): harmless
    for first in range(0, count, _BLOCK):
        last = min(count, first + _BLOCK)
        size = last - first
        numbers = range(first_line + first, first_line + last)
        begin, end = starts[first], ends[last - 1]
        if (
            fast
            and firsts.count(b"{", first, last) == size  # every line is {...}
            and lasts.count(b"}", first, last) == size
        ):
            try:
                cores = columns.decoder.decode_lines(view[begin:end])
            except (msgspec.DecodeError, RecursionError):
                cores = None
            if cores is not None and len(cores) == size:
                at, to = starts[first:last], ends[first:last]
                if base:
                    at, to = list(map(base.__add__, at)), list(map(base.__add__, to))
                columns.add_cores(numbers, at, to, cores)
                continue
        for index in range(first, last):
            is_last = final and index == count - 1
            columns.add_line(view, first_line + index, starts[index], ends[index], base, is_last)
    view.release()
    return count


def _malformed(raw: Buffer, last: bool, error: Exception) -> str:
    """The reason for a skipped malformed line, naming the usual culprits."""
    reason = str(error)
    if bytes(raw[:3]) == b"\xef\xbb\xbf":
        reason = "starts with a UTF-8 byte-order mark, which JSON.parse rejects"
    elif last and not bytes(raw).rstrip().endswith((b"}", b"]", b'"')):
        reason += "; the last line has no newline: cut off by a crash?"
    return f"{reason} (skipped, as Pi does)"


def parse_lines(
    data: bytes, fast: bool = True, counting: bool = False
) -> tuple[ParsedLines, list[Diagnostic]]:
    """Parse every line of a session file held in memory: the kept rows, and a
    diagnostic for every line Pi skips (``fast=False`` reads line by line: the
    reference the fast path is tested against; ``counting`` fills ``counted`` too).

    >>> parsed, diags = parse_lines(b'{"type":"session","id":"s"}\\n\\nnot json\\n0\\n')
    >>> list(parsed.lines), parsed.types, [d.kind for d in diags]
    ([1], ['session'], ['blank', 'malformed', 'falsy'])
    """
    parsed, diagnostics = ParsedLines(), cast(list[Diagnostic], [])
    columns = _Columns(parsed, diagnostics, counting)
    final = not data.endswith(b"\n")
    with paused_gc():
        _parse_window(columns, data, 0, len(data), 0, 1, fast, final)
    return parsed, diagnostics


def parse_file(
    handle: io.BufferedIOBase, size: int, chunk: int | None = None, counting: bool = False
) -> tuple[ParsedLines, list[Diagnostic]]:
    """``parse_lines`` over the first ``size`` bytes of an open binary file, read
    ``chunk`` bytes at a time (default: ``PIECE``, at most ``CHUNK``) into one buffer:
    memory holds the buffer and the columns, never the whole file. (A line longer than
    the buffer makes it grow.)"""
    chunk = chunk or min(CHUNK, PIECE)
    parsed, diagnostics, _ = _parse_range(handle, 0, size, chunk, counting)
    return parsed, diagnostics


def _parse_range(
    handle: io.BufferedIOBase, begin: int, size: int, chunk: int = CHUNK, counting: bool = False
) -> tuple[ParsedLines, list[Diagnostic], int]:
    """``parse_file`` of bytes ``begin`` (the start of a line) to ``size``, numbering
    lines from 1 there; also returns how many lines it read."""
    parsed, diagnostics = ParsedLines(), cast(list[Diagnostic], [])
    columns = _Columns(parsed, diagnostics, counting)
    buffer = bytearray(min(chunk, size - begin) or 1)
    handle.seek(begin)
    offset, line, held = begin, 1, 0  # file offset of buffer[0]; next line; bytes held
    with paused_gc():
        while offset + held < size:
            if held == len(buffer):  # one line fills the buffer: make room
                buffer.extend(bytes(len(buffer)))
            with memoryview(buffer) as free:
                got = handle.readinto(free[held : min(len(buffer), size - offset)])
            if not got:  # the file shrank while being read
                size = offset + held
                break
            held += got
            final = offset + held >= size
            end = held if final else buffer.rfind(b"\n", 0, held) + 1
            if end == 0:
                continue
            ragged = final and buffer[held - 1 : held] != b"\n"
            line += _parse_window(columns, buffer, 0, end, offset, line, True, ragged)
            buffer[: held - end] = buffer[end:held]
            offset, held = offset + end, held - end
    return parsed, diagnostics, line - 1


def _parse_part(
    path: str, begin: int, end: int, counting: bool
) -> tuple[ParsedLines, list[Diagnostic], int]:
    with open(path, "rb") as handle:
        return _parse_range(handle, begin, end, min(CHUNK, PIECE), counting)


#: The share of a big file's bytes (in percent) this process parses while a helper
#: parses the rest (``parse_halves``): the helper's columns are pickled, sent and
#: unpickled after, and at half each this process waited 0.07 s for them on the 200k
#: session (reading counting).
FIRST_SHARE = 54


def parse_halves(
    path: str, size: int, counting: bool = False
) -> tuple[ParsedLines, list[Diagnostic]]:
    """``parse_file`` of a big file, its second part parsed by a second process when one
    can help (``pisession.engine.parallel``); the same result either way. This process
    takes ``FIRST_SHARE`` of the bytes: the helper also pickles and sends its columns."""
    from .parallel import can_fork, in_child

    with open(path, "rb") as handle:
        handle.seek(size * FIRST_SHARE // 100)
        handle.readline()  # to the start of the next line
        split = min(handle.tell(), size)
    if not can_fork() or split >= size:
        parsed, diagnostics, _ = _parse_part(path, 0, size, counting)
        return parsed, diagnostics
    second = in_child(_parse_part, path, split, size, counting)
    first, diagnostics, lines_before = _parse_part(path, 0, split, counting)
    first.index_ids()  # (while the helper parses: the id index need not wait for its rows)
    rest, rest_diagnostics, _ = second.result()
    return _joined(first, diagnostics, rest, rest_diagnostics, lines_before)


def _joined(
    first: ParsedLines,
    diagnostics: list[Diagnostic],
    rest: ParsedLines,
    rest_diagnostics: list[Diagnostic],
    shift: int,
) -> tuple[ParsedLines, list[Diagnostic]]:
    """The two halves' rows as one ``ParsedLines`` (the second half's line numbers and
    rows shifted after the first's ``shift`` lines)."""
    base = len(first.types)
    positions = first.id_positions
    if positions is not None and set(map(type, rest.ids)) <= {str}:
        positions.update(zip(rest.ids, range(base - 1, base - 1 + len(rest.ids))))
    else:
        first.id_positions = None
    lines = rest.lines
    if lines and lines[-1] - lines[0] + 1 == len(lines):  # one line after another: a range
        first.lines.extend(array("q", range(lines[0] + shift, lines[-1] + shift + 1)))
    else:
        first.lines.extend(array("q", map(shift.__add__, lines)))
    for name in ("starts", "ends", "types", "ids", "parent_ids", "roles"):
        getattr(first, name).extend(getattr(rest, name))
    if first.counted is not None and rest.counted_later is not None:  # (sent: joined later)
        first.counted_later = (base + rest.counted_later[0], rest.counted_later[1])
    elif first.counted is not None and rest.counted is not None:  # (made here)
        first.counted.append(base, rest.counted)
    first.values.update((k + base, v) for k, v in rest.values.items())
    diagnostics += [Diagnostic(d.line + shift, d.kind, d.message) for d in rest_diagnostics]
    return first, diagnostics


class paused_gc:
    """Pause the collector: the columns are many small objects with no cycles."""

    def __enter__(self) -> None:
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was:
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
    return data[:cut], _partial(line, len(data) - cut)


def _partial(line: int, size: int) -> Diagnostic:
    message = (
        f"last line has no newline yet ({size} bytes): ignored, as it may still be being written"
    )
    return Diagnostic(line, "partial-line", message)


# --- where the bytes are --------------------------------------------------------------------


def read_source(
    path_or_bytes: str | os.PathLike[str] | Buffer,
    complete_lines_only: bool = False,
    counting: bool = False,
) -> tuple[LineStore, ParsedLines, list[Diagnostic], str]:
    """Read a session from a path or bytes: where its bytes are, its rows, diagnostics
    and a name for messages. Never writes; a file bigger than ``CHUNK`` is read in
    chunks and not kept in memory. ``counting``: fill the rows' ``counted`` column."""
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        data, source = bytes(path_or_bytes), "<bytes>"
        return _from_bytes(data, source, complete_lines_only, counting)
    path = os.path.expanduser(os.fspath(path_or_bytes))
    try:
        handle = open_input(path)
    except OSError as exc:
        raise SessionFormatError(path, None, f"cannot read: {exc.strerror}") from None
    with handle:
        try:
            size = os.fstat(handle.fileno()).st_size
            if not _regular(handle):
                data = read_stream(handle, path)
                return _from_bytes(data, path, complete_lines_only, counting)
            if size <= CHUNK:
                return _from_bytes(handle.read(), path, complete_lines_only, counting)
            partial = None
            if complete_lines_only:
                size, partial = _complete_size(handle, size)
            parsed, diagnostics = parse_halves(path, size, counting)
        except OSError as exc:
            raise SessionFormatError(path, None, f"cannot read: {exc.strerror}") from None
    if partial is not None:
        diagnostics.append(partial)
    return LineStore(path=path, size=size), parsed, diagnostics, path


#: Seconds a FIFO may go without a program writing to it before reading it fails.
FIFO_WAIT = 10.0


def open_input(path: str, wait: float | None = None) -> BinaryIO:
    """``path`` opened for reading in binary mode. A FIFO (a named pipe) is opened without
    blocking and read once a program writes to it (process substitution, ``/dev/stdin``
    in a pipe); one that no program writes to in ``wait`` seconds (``FIFO_WAIT``) raises
    ``OSError`` saying so, where a plain ``open`` would wait forever.

    >>> import tempfile; folder = tempfile.mkdtemp(); fifo = folder + "/f"; os.mkfifo(fifo)
    >>> open_input(fifo, wait=0.01)
    Traceback (most recent call last):
    TimeoutError: [Errno 110] a FIFO no program writes to (waited 0.01 s)
    """
    import select
    import stat

    try:
        fifo = stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        fifo = False
    if not fifo:
        return open(path, "rb")  # the caller closes it
    wait = FIFO_WAIT if wait is None else wait
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    poll = select.poll()
    poll.register(fd, select.POLLIN | select.POLLHUP)
    if not poll.poll(wait * 1000):
        os.close(fd)
        raise TimeoutError(110, f"a FIFO no program writes to (waited {wait:g} s)")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


#: The most bytes read from what is not a regular file (a pipe, a FIFO, standard
#: input): such input is held in memory whole, so ``/dev/zero`` or an endless writer is
#: stopped here, with the file named, instead of at the memory limit.
STREAM_LIMIT = 256 * 1024 * 1024


def read_stream(handle: BinaryIO, source: str, limit: int | None = None) -> bytes:
    """Everything a pipe, a FIFO or standard input gives, up to ``limit`` bytes
    (``STREAM_LIMIT``); a device that is not a terminal (``/dev/zero``, a disk) is
    refused before reading. Raises ``SessionFormatError`` naming ``source``.

    >>> import io
    >>> read_stream(io.BytesIO(b"{}"), "-", limit=2)
    b'{}'
    >>> read_stream(io.BytesIO(b"{} "), "-", limit=2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    pisession.errors.SessionFormatError: -: more than 2 bytes come from it, and it is not ...
    """
    import stat

    limit = STREAM_LIMIT if limit is None else limit
    try:
        mode = os.fstat(handle.fileno()).st_mode
    except (OSError, AttributeError, ValueError):
        mode = 0
    if (stat.S_ISCHR(mode) and not os.isatty(handle.fileno())) or stat.S_ISBLK(mode):
        raise SessionFormatError(
            source, None, "is a device, not a session file (pass a file, a pipe or -)"
        )
    data = handle.read(limit + 1)
    if len(data) > limit:
        raise SessionFormatError(
            source,
            None,
            f"more than {limit:,} bytes come from it, and it is not a regular file (a pipe "
            "or a device): save the session to a file and pass that",
        )
    return data


def _regular(handle: BinaryIO) -> bool:
    import stat

    return stat.S_ISREG(os.fstat(handle.fileno()).st_mode)


def _complete_size(handle: BinaryIO, size: int) -> tuple[int, Diagnostic | None]:
    """The size up to the last newline of a file, and the partial-line diagnostic."""
    step, end = 1 << 16, size
    while end > 0:
        start = max(0, end - step)
        handle.seek(start)
        found = handle.read(end - start).rfind(b"\n")
        if found >= 0:
            cut = start + found + 1
            break
        end = start
    else:
        cut = 0
    handle.seek(0)
    if cut == size:
        return size, None
    lines = sum(block.count(b"\n") for block in iter(lambda: handle.read(1 << 20), b""))
    handle.seek(0)
    return cut, _partial(lines + 1, size - cut)


def _from_bytes(
    data: bytes, source: str, complete_lines_only: bool, counting: bool
) -> tuple[LineStore, ParsedLines, list[Diagnostic], str]:
    partial = None
    if complete_lines_only:
        data, partial = complete_lines(data)
    parsed, diagnostics = parse_lines(data, counting=counting)
    if partial is not None:
        diagnostics.append(partial)
    return LineStore(data=data), parsed, diagnostics, source


__all__ = [
    "CHUNK",
    "Diagnostic",
    "LineStore",
    "ParsedLines",
    "complete_lines",
    "parse_file",
    "parse_lines",
    "read_source",
]
