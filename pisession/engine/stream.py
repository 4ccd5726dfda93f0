"""The context written as JSON while it is built, in ``JSON.stringify``'s exact text.

``Context.to_json`` holds the whole context in memory; ``context_json`` yields the same
bytes a block of entries at a time, so a context of a million messages is written with
the memory of a few thousand. The entries still go through the rule's own steps
(``context.contributions``); only the way message entries are decoded differs: their
numbers are kept as the text JavaScript would print, so that they can be written back
without being turned into Python floats and formatted again, and a block of plain
message lines in the shapes Pi writes is read into structs when that is proven exact
(``pisession.engine.shapes``).

>>> import pisession
>>> s = pisession.load(pisession.sample_path("tour"))
>>> b"".join(context_json(s.index)) == s.context().to_json(2).encode()
True
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any, cast

import msgspec

from ..errors import SessionFormatError
from ..js import json as jsjson
from ..projection import Context, Selection, Settings
from ..rule import stored_messages
from . import context as engine
from . import schemas
from .index import EntryIndex, of_type
from .reader import paused_gc
from .shapes import LINES as _PROVEN
from .shapes import Line

#: Bytes a decoder reads (a line or a run of lines).
Buffer = bytes | memoryview

#: ``Session.raw_lines``: the lines of these entries through a msgspec decoder (None for a
#: line it cannot read).
RawLines = Callable[[Sequence[int], Any], list[Any]]

#: Entries decoded and written together.
BLOCK = engine.BLOCK

#: A context of this many selected entries or more is written in two halves at once.
LONG_CONTEXT = 16_384

#: Bytes of the helper's half read back at a time (cut at a character boundary: the
#: command line makes each piece terminal-safe on its own).
SPILL_PIECE = 1 << 20


#: Message lines with their numbers as JavaScript text (``schemas.WRITTEN``).
_message_lines = schemas.WRITTEN
_encode = msgspec.json.Encoder().encode

#: What msgspec writes differently from JavaScript and has no hook for: integers of 16
#: digits or more (JavaScript holds doubles) and integer-like object keys (JavaScript
#: writes them first). Found on a copy where every digit reads ``0``
#: (``jsjson.DIGITS_AS_ZERO``); a hit (also in a string) sends the block to the exact,
#: slower path.
_INTEGER_KEY = re.compile(rb'"0+":')


class _PlainLines:
    """The decoder of a plain run's lines (one read of them): structs where Pi's shapes
    prove them exact (``pisession.engine.shapes``), else ``schemas.WrittenLine`` values
    (None where neither can read a line)."""

    def decode_lines(self, raw: Buffer) -> list[Any]:
        """The lines of ``raw``: all structs Pi's shapes prove, else all ``WrittenLine``."""
        lines = _PROVEN.decode_lines(raw)
        return lines if None not in lines else _message_lines.decode_lines(raw)

    def decode(self, raw: Buffer) -> object:
        """One line: a proven struct, else a ``WrittenLine``."""
        line = _PROVEN.decode(raw)
        return line if line is not None else _message_lines.decode(raw)


_PLAIN = _PlainLines()


def _decoder(
    index: EntryIndex, raw_lines: RawLines | None, raw: set[int]
) -> Callable[[Sequence[int]], list[Any]]:
    """Decode entries for the writer: message entries through ``raw_lines`` (numbers as
    JavaScript text; their positions go into ``raw``), the rest as usual."""

    def decode(positions: Sequence[int]) -> list[Any]:
        messages = of_type(index, "message", positions)
        decoded: dict[int, Any] = {}
        if raw_lines is not None and messages:
            for position, value in zip(messages, raw_lines(messages, _message_lines)):
                if value is not None:
                    decoded[position] = {"type": "message", "message": value.message}
                    raw.add(position)
        others = [p for p in positions if p not in decoded]
        decoded.update(zip(others, index.entries(others)))
        return [decoded[p] for p in positions]

    return decode


def _encode_block(messages: list[Any], exact: list[bool] | None, indent: int | None) -> bytes:
    """The messages as the inside of a JSON array (no brackets), indented for depth 2.
    ``exact`` says which messages msgspec may write (None: all)."""
    try:
        if exact is None or all(exact):
            compact = _encode(messages)
        else:
            compact = b"[" + b",".join(_parts(messages, exact)) + b"]"
        _refuse_too_deep_text(compact)
        probe = compact.translate(jsjson.DIGITS_AS_ZERO)
        if jsjson.long_integer_in(probe) or (b'0":' in probe and _INTEGER_KEY.search(probe)):
            raise ValueError("a long number or an integer-like key: the exact path")
        if not indent:
            return compact[1:-1]
        # nested once more, the messages come out indented for depth 2
        nested = msgspec.json.format(b"[" + compact + b"]", indent=indent)
        return nested[indent + 4 : -(indent + 4)]  # "[\n" pad "[\n" ... "\n" pad "]\n]"
    except (UnicodeEncodeError, ValueError, msgspec.DecodeError, TypeError, RecursionError):
        _refuse_too_deep(messages)
        compact = _exact(messages, indent)
    if not indent:
        return compact[1:-1]
    inner = compact[2:-2]  # "[\n" ... "\n]"
    pad = b" " * indent
    return pad + inner.replace(b"\n", b"\n" + pad)


class TooDeep(Exception):
    """A message nested deeper than ``JSON.stringify`` goes (``index`` in its block)."""

    def __init__(self, index: int, depth: int):
        super().__init__(index, depth)
        self.index, self.depth = index, depth


def _refuse_too_deep(messages: list[Any]) -> None:
    """Raises ``TooDeep`` for the first message that puts the context (an object, its
    ``messages`` array, the message) deeper than ``jsjson.STRINGIFY_DEPTH``: Pi throws
    there, and writing it indented would cost memory far beyond the file's size."""
    k = jsjson.too_deep_to_stringify(messages)
    if k is not None:
        raise TooDeep(k, jsjson.STRINGIFY_DEPTH + 1)


def _refuse_too_deep_text(compact: bytes) -> None:
    """``_refuse_too_deep`` for a block already written as JSON (its messages may be
    lines passed through as they are): read again only when it holds enough brackets to
    nest that deep."""
    if compact.count(b"[") + compact.count(b"{") + 2 > jsjson.STRINGIFY_DEPTH:
        _refuse_too_deep(cast("list[Any]", jsjson.loads(compact)))


def _parts(messages: list[Any], exact: list[bool]) -> Iterator[bytes]:
    """The messages' JSON texts, runs that msgspec may write written together."""
    run: list[Any] = []
    for message, is_fast in zip(messages, exact):
        if is_fast:
            run.append(message)
            continue
        if run:
            yield _encode(run)[1:-1]
            run = []
        yield jsjson.dumps(message).encode()
    if run:
        yield _encode(run)[1:-1]


def _exact(messages: list[Any], indent: int | None) -> bytes:
    """The slow, exact path: ``jsjson.dumps`` of the block, numbers kept as JavaScript
    text read back as Python numbers first."""
    return jsjson.dumps([_python_values(m) for m in messages], indent).encode("utf-8")


def _python_values(message: object) -> object:
    """A message with any JavaScript-text numbers turned back into Python numbers. (A
    message can hold both such numbers and lone surrogates, which msgspec cannot encode:
    a context edit puts the replacement of one line into the message of another.)"""
    try:
        return msgspec.json.decode(_encode(message))
    except (UnicodeEncodeError, msgspec.DecodeError, RecursionError):
        return _raw_numbers_read(message)


def _raw_numbers_read(value: object) -> object:
    """A copy of ``value`` with every ``msgspec.Raw`` number read back (not recursive).

    >>> _raw_numbers_read({"a": [msgspec.Raw(b"1.5"), "\\udfff"]})
    {'a': [1.5, '\\udfff']}
    """
    root = [value]
    stack: list[Any] = [(root, 0)]
    while stack:
        parent, key = stack.pop()
        item = parent[key]
        if isinstance(item, msgspec.Raw):
            parent[key] = msgspec.json.decode(item)
        elif isinstance(item, dict):
            parent[key] = copy = dict(item)
            stack.extend((copy, k) for k in copy)
        elif isinstance(item, list):
            parent[key] = items = list(item)
            stack.extend((items, i) for i in range(len(items)))
    return root[0]


def context_json(
    index: EntryIndex,
    leaf: int | None = None,
    indent: int | None = 2,
    raw_lines: RawLines | None = None,
    block: int | None = None,
    parallel: bool = False,
) -> Iterator[bytes]:
    """``JSON.stringify(buildSessionContext(...), null, indent)``, yielded a block at a
    time (``indent`` None or 0: one line). Raises what ``context.project`` raises.

    ``raw_lines(positions, decoder)`` decodes the lines of those entries with a msgspec
    decoder (None for a line it cannot): ``Session.context_json`` passes its own. With
    ``parallel``, a long context's second half is written by a forked helper process into
    a temporary file while this one writes the first (``pisession.engine.parallel``).
    """
    block = BLOCK if block is None else block
    _, settings, selection, edits = engine.steps(index, leaf)
    nl, pad = (b"\n", b" " * indent) if indent else (b"", b"")
    yield b"{" + nl + pad + b'"messages":' + (b" " if indent else b"") + b"["
    bodies = _Bodies(index, selection, edits, raw_lines, indent, block)
    split = _middle(len(selection.positions), block) if parallel else None
    wrote = False
    for chunk in bodies.all(split):
        yield chunk if wrote else chunk[1:]  # a comma before every block but the first
        wrote = True
    yield (nl + pad if wrote else b"") + b"]" + _settings_tail(settings, indent)


def _middle(count: int, block: int) -> int | None:
    """Where to split ``count`` selected entries in two (a block boundary), when long."""
    return None if count < max(LONG_CONTEXT, 2 * block) else (count // 2 // block) * block


class _Bodies:
    """The messages of part of a selection as JSON text, each block as ``,`` + body."""

    def __init__(
        self,
        index: EntryIndex,
        selection: Selection,
        edits: dict[Any, Any],
        raw_lines: RawLines | None,
        indent: int | None,
        block: int,
    ) -> None:
        self.index, self.selection, self.edits = index, selection, edits
        self.raw_lines, self.indent, self.block = raw_lines, indent, block
        self._owners: list[int] = []  # the entry of each message of the last general block

    def chunks(self, part: tuple[int, int | None]) -> Iterator[bytes]:
        start, stop = part
        positions = self.selection.positions
        stop = len(positions) if stop is None else min(stop, len(positions))
        nl = b"\n" if self.indent else b""
        with paused_gc():
            for first in range(start, stop, self.block):
                last = min(first + self.block, stop)
                plain = self._plain(positions[first:last])
                messages, exact = plain or self._block(first, last)
                if not messages:
                    continue
                try:
                    yield b"," + nl + _encode_block(messages, exact, self.indent)
                except TooDeep as deep:
                    raise self._too_deep(deep, positions[first:last], plain is None) from None

    def _too_deep(self, deep: TooDeep, chunk: Sequence[int], general: bool) -> SessionFormatError:
        """The error naming the entry whose message nests too deep (its position)."""
        owners = self._owners if general else chunk  # general: as the block found them
        position = owners[deep.index] if deep.index < len(owners) else None
        return SessionFormatError(None, None, jsjson.STRINGIFY_TOO_DEEP, position)

    def _plain(self, chunk: Sequence[int]) -> tuple[list[Any], None] | None:
        """A block of message entries no edit targets, read straight from their lines
        (None: the block is not one, or a line needs the general path)."""
        if self.raw_lines is None:
            return None
        if not engine.is_plain_run(self.index, self.edits, chunk, "writer"):
            return None
        lines = self.raw_lines(chunk, _PLAIN)
        if None in lines:
            return None
        messages = [line.message for line in lines]
        if set(map(type, lines)) == {Line}:  # structs: each with the content Pi sends
            return messages, None
        return stored_messages(messages), None

    def _block(self, first: int, last: int) -> tuple[list[Any], list[bool]]:
        """The messages of ranks ``first`` to ``last`` through the rule's contributions,
        with which of them msgspec may write."""
        raw: set[int] = set()
        decode = _decoder(self.index, self.raw_lines, raw)
        (items,) = engine.contribution_blocks(
            self.index, self.selection, self.edits, self.block, decode, first, last
        )
        messages = [m for item in items for m in item.messages]
        self._owners = [item.position for item in items for _ in item.messages]
        exact = [
            item.edit is None and item.position in raw for item in items for _ in item.messages
        ]
        return messages, exact

    def write(self, part: tuple[int, int | None], out: IO[bytes]) -> None:
        """``chunks`` written to a file (by the helper process)."""
        for chunk in self.chunks(part):
            out.write(chunk)
        out.flush()

    def all(self, split: int | None) -> Iterator[bytes]:
        """Every chunk; with ``split``, those from there on are made by a helper process
        into a temporary file meanwhile, then read back."""
        if split is None:
            yield from self.chunks((0, None))
            return
        from .parallel import in_child

        with tempfile.TemporaryFile() as spill:
            second = in_child(self.write, (split, None), spill)
            yield from self.chunks((0, split))
            second.result()
            spill.seek(0)
            held = b""
            while piece := spill.read(SPILL_PIECE):
                piece = held + piece
                cut = whole_characters(piece)
                held = piece[cut:]
                yield piece[:cut]
            if held:
                yield held  # (not reached: the helper writes whole characters)


def text_pieces(spill: IO[bytes]) -> Iterator[str]:
    """The UTF-8 text of a binary file object, a megabyte at a time (a character never
    cut in two).

    >>> import io
    >>> list(text_pieces(io.BytesIO("aé".encode())))
    ['aé']
    """
    held = b""
    while piece := spill.read(1 << 20):
        piece = held + piece
        cut = whole_characters(piece)
        held = piece[cut:]
        yield piece[:cut].decode("utf-8")
    if held:
        yield held.decode("utf-8", "replace")  # (only a file that ends mid-character)


def whole_characters(data: bytes) -> int:
    """How many bytes of UTF-8 ``data`` end on a character boundary (the rest is the
    start of a character cut off), so that a reader of pieces never splits one.

    >>> whole_characters("aé".encode()), whole_characters("aé".encode()[:2])
    (3, 1)
    """
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:  # ASCII
            return len(data)
        if byte >= 0xC0:  # the first byte of a character of 2, 3 or 4 bytes
            size = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return len(data) if back >= size else len(data) - back
    return len(data)


def _settings_tail(settings: Settings, indent: int | None) -> bytes:
    """``,"thinkingLevel":...,"model":...}`` in the same layout as the messages."""
    context = Context([], settings.thinking_level, settings.model)
    text = jsjson.dumps(context.to_dict(), indent or None).encode("utf-8")
    # the same object without messages: cut at the end of the empty array
    return text[text.index(b"[]") + 2 :]


def terminal_safe(data: bytes) -> bytes:
    """JSON bytes with characters that could steer a terminal written as ``\\uXXXX``
    escapes (they can only occur inside strings: the value is unchanged).

    >>> terminal_safe('{"a":"x\\u202e"}'.encode())
    b'{"a":"x\\\\u202e"}'
    """
    if (data.isascii() and b"\x7f" not in data) or not _MAYBE_UNSAFE.search(data):
        return data
    return jsjson.terminal_safe(data.decode("utf-8", "surrogatepass")).encode("utf-8")


#: The unsafe characters above U+007E, in UTF-8 (looked for when a block is not ASCII).
_MAYBE_UNSAFE = re.compile(
    rb"\x7f|\xc2[\x80-\x9f]|\xd8\x9c|\xe2\x80[\x8e\x8f\xa8-\xae]|\xe2\x81[\xa6-\xa9]|\xef\xbb\xbf"
)
