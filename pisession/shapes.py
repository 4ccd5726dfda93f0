"""Message lines in the shapes Pi writes them, read into small structs and proven exact.

Writing a long context decodes every stored message and encodes it again. A message
decoded into a dict costs several Python objects per key; decoded into a struct of the
keys Pi writes, in Pi's order, it costs far fewer, but a struct forgets what it has no
field for, and writes its fields in its own order. So a block of lines is accepted only
when the structs, encoded again, give back the block's bytes exactly: then nothing was
lost or reordered (no other key, no duplicate key, no whitespace, no other escape or
number text), and what msgspec writes of the structs is the text ``JSON.stringify``
wrote and would write again (the writer still checks for long integers and
integer-like keys, as on its usual path). Anything else (another role, a missing
``content``, a key out of order, ``1.0``) is refused, and read the usual way.

>>> line = (b'{"type":"message","id":"a","parentId":null,"timestamp":"t",'
...         b'"message":{"role":"user","content":"hi","timestamp":1}}')
>>> [type(v.message).__name__ for v in LINES.decode_lines(line)]
['User']
>>> LINES.decode_lines(line.replace(b'"hi",', b'"hi", ')), LINES.decode(b"{}")
([None], None)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from .jsjson import js_number


@lru_cache(maxsize=4096)
def js_float(text: str) -> msgspec.Raw:
    """A JSON number with a fraction or exponent, as ``JSON.stringify`` prints the
    double ``JSON.parse`` makes of it (non-finite numbers print as ``null``): the
    ``float_hook`` of the decoders that read messages to write them again.

    >>> [bytes(js_float(text)) for text in ["1.50", "1e21", "1e400"]]
    [b'1.5', b'1e+21', b'null']
    """
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        return msgspec.Raw(b"null")
    return msgspec.Raw(js_number(repr(value)).encode())


class _Shape(msgspec.Struct, gc=False, omit_defaults=True):
    """Fields default to ``UNSET`` (left out when written): absent stays absent."""


# content blocks, by "type"
class Text(_Shape, tag_field="type", tag="text"):
    text: Any = UNSET
    textSignature: Any = UNSET


class Thinking(_Shape, tag_field="type", tag="thinking"):
    thinking: Any = UNSET
    thinkingSignature: Any = UNSET
    redacted: Any = UNSET


class ToolCall(_Shape, tag_field="type", tag="toolCall"):
    id: Any = UNSET
    name: Any = UNSET
    arguments: Any = UNSET
    argumentsError: Any = UNSET
    namespace: Any = UNSET
    thoughtSignature: Any = UNSET


class Image(_Shape, tag_field="type", tag="image"):
    data: Any = UNSET
    mimeType: Any = UNSET


_Blocks = list[Text | Thinking | ToolCall | Image]


class Cost(_Shape):
    input: Any = UNSET
    output: Any = UNSET
    cacheRead: Any = UNSET
    cacheWrite: Any = UNSET
    total: Any = UNSET
    totalFromProvider: Any = UNSET


class Usage(_Shape):
    input: Any = UNSET
    output: Any = UNSET
    cacheRead: Any = UNSET
    cacheWrite: Any = UNSET
    reasoning: Any = UNSET
    totalTokens: Any = UNSET
    cost: Cost | UnsetType = UNSET
    cacheWrite1h: Any = UNSET


# messages, by "role", with the keys Pi 0.87.1 writes and, where their order agrees, those
# of later versions (1.6.0 writes a tool result's details and a usage's reasoning later:
# such lines are read the usual way). Where Pi sends a missing or null content as empty,
# content is required (a message without one, or with a null one, is read the usual way).
class User(_Shape, tag_field="role", tag="user"):
    content: str | _Blocks
    timestamp: Any = UNSET


class Assistant(_Shape, tag_field="role", tag="assistant"):
    content: _Blocks
    api: Any = UNSET
    provider: Any = UNSET
    model: Any = UNSET
    usage: Usage | UnsetType = UNSET
    stopReason: Any = UNSET
    timestamp: Any = UNSET
    responseModel: Any = UNSET
    responseId: Any = UNSET
    thinkingLevel: Any = UNSET
    providerThinkingLevel: Any = UNSET
    durationMs: Any = UNSET
    endTurn: Any = UNSET
    rawStopReason: Any = UNSET
    errorMessage: Any = UNSET
    diagnostics: Any = UNSET
    deferred: Any = UNSET


class ToolResult(_Shape, tag_field="role", tag="toolResult", kw_only=True):
    toolCallId: Any = UNSET
    toolName: Any = UNSET
    content: _Blocks
    details: Any = UNSET
    isError: Any = UNSET
    timestamp: Any = UNSET
    durationMs: Any = UNSET
    nestedCalls: Any = UNSET
    usage: Usage | UnsetType = UNSET


class BashExecution(_Shape, tag_field="role", tag="bashExecution"):
    command: Any = UNSET
    output: Any = UNSET
    exitCode: Any = UNSET
    cancelled: Any = UNSET
    truncated: Any = UNSET
    timestamp: Any = UNSET
    excludeFromContext: Any = UNSET
    fullOutputPath: Any = UNSET


class Custom(_Shape, tag_field="role", tag="custom"):
    customType: Any = UNSET
    content: Any = UNSET
    display: Any = UNSET
    details: Any = UNSET
    timestamp: Any = UNSET


class System(_Shape, tag_field="role", tag="system"):
    content: str
    sections: Any = UNSET
    timestamp: Any = UNSET
    toolsAdded: Any = UNSET
    toolsRemoved: Any = UNSET


class Line(_Shape):
    """A message entry's line: ``.message`` is the stored message."""

    type: Any = UNSET
    id: Any = UNSET
    parentId: Any = UNSET
    timestamp: Any = UNSET
    message: User | Assistant | ToolResult | System | BashExecution | Custom | UnsetType = UNSET


class _Proven:
    """A decoder for ``Session.raw_lines``: lines it cannot prove exact come back None
    (a block at a time: one refused line refuses its block)."""

    def __init__(self) -> None:
        self._decoder = msgspec.json.Decoder(Line, float_hook=js_float)
        self._encode_lines = msgspec.json.Encoder().encode_lines

    def decode_lines(self, raw) -> list:
        """The lines of ``raw`` as ``Line`` structs, or a None for each of them."""
        try:
            lines = self._decoder.decode_lines(raw)
            messages = [line.message for line in lines]
            if self._encode_lines(lines)[:-1] == raw and UNSET not in messages:
                return lines
        except (msgspec.DecodeError, UnicodeEncodeError, RecursionError, TypeError):
            pass
        return [None] * (bytes(raw).count(b"\n") + 1)

    def decode(self, raw) -> Line | None:
        """One line as a ``Line``, or None."""
        lines = self.decode_lines(raw)
        return lines[0] if len(lines) == 1 else None


#: The decoder that proves lines exact (see the module's text).
LINES = _Proven()
