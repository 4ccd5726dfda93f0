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

from typing import Any

import msgspec
from msgspec import UNSET

from ..js.json import js_float
from .schemas import shaped


def _shape(name: str, keys: str, tag: tuple[str, str] | None = None, **types: Any) -> type:
    """``schemas.shaped``, named in this module.

    >>> _shape("Pair", "a b!", b=int)(b=1)
    Pair(a=UNSET, b=1)
    """
    return shaped(name, keys, tag, module=__name__, **types)


# The keys Pi 0.87.1 writes and, where their order agrees, those later versions add (1.6.0
# writes a tool result's details and a usage's reasoning later: such lines are read the
# usual way). Where Pi sends a missing or null content as empty, content is required.
Text = _shape("Text", "text textSignature", ("type", "text"))
Thinking = _shape("Thinking", "thinking thinkingSignature redacted", ("type", "thinking"))
ToolCall = _shape(
    "ToolCall", "id name arguments argumentsError namespace thoughtSignature", ("type", "toolCall")
)
Image = _shape("Image", "data mimeType", ("type", "image"))
_Blocks = list[Text | Thinking | ToolCall | Image]  # type: ignore[valid-type]

Cost = _shape("Cost", "input output cacheRead cacheWrite total totalFromProvider")
Usage = _shape(
    "Usage", "input output cacheRead cacheWrite reasoning totalTokens cost cacheWrite1h", cost=Cost
)

User = _shape("User", "content! timestamp", ("role", "user"), content=str | _Blocks)
Assistant = _shape(
    "Assistant",
    "content! api provider model usage stopReason timestamp responseModel responseId"
    " thinkingLevel providerThinkingLevel durationMs endTurn rawStopReason errorMessage"
    " diagnostics deferred",
    ("role", "assistant"),
    content=_Blocks,
    usage=Usage,
)
ToolResult = _shape(
    "ToolResult",
    "toolCallId toolName content! details isError timestamp durationMs nestedCalls usage",
    ("role", "toolResult"),
    content=_Blocks,
    usage=Usage,
)
System = _shape(
    "System", "content! sections timestamp toolsAdded toolsRemoved", ("role", "system"), content=str
)
BashExecution = _shape(
    "BashExecution",
    "command output exitCode cancelled truncated timestamp excludeFromContext fullOutputPath",
    ("role", "bashExecution"),
)
Custom = _shape("Custom", "customType content display details timestamp", ("role", "custom"))

#: A message entry's line: ``.message`` is the stored message.
Line = _shape(
    "Line",
    "type id parentId timestamp message",
    message=User | Assistant | ToolResult | System | BashExecution | Custom,
)


class _Proven:
    """A decoder for ``Session.raw_lines``: lines it cannot prove exact come back None
    (a block at a time: one refused line refuses its block)."""

    def __init__(self) -> None:
        self._decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(Line, float_hook=js_float)
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

    def decode(self, raw) -> Line | None:  # type: ignore[valid-type]
        """One line as a ``Line``, or None."""
        lines = self.decode_lines(raw)
        return lines[0] if len(lines) == 1 else None


#: The decoder that proves lines exact (see the module's text).
LINES = _Proven()
