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

from typing import Any, Union

import msgspec
from msgspec import UNSET

from ..js.json import js_float
from ..piversions import block_types, empty_content, key_order, roles
from .schemas import shaped


def _shape(name: str, keys: str, tag: tuple[str, str] | None = None, **types: Any) -> type:
    """``schemas.shaped``, named in this module.

    >>> _shape("Pair", "a b!", b=int)(b=1)
    Pair(a=UNSET, b=1)
    """
    return shaped(name, keys, tag, module=__name__, **types)


# What each role, block and object carries comes from Pi's data (``pisession/pi/*.json``,
# merged over the checked releases by ``piversions.key_order``): a new Pi field goes there,
# not here. Only the nested shapes are this module's: blocks in a content, a usage's cost.


def _block(kind: str) -> type:
    """The struct of one content block type, from the data.

    >>> _block("image").__struct_fields__, _block("image").__name__
    (('data', 'mimeType'), 'Image')
    """
    return _shape(kind[0].upper() + kind[1:], " ".join(key_order("blocks", kind)), ("type", kind))


#: The struct of every content block type the data describes.
BLOCKS = {kind: _block(kind) for kind in block_types()}
_Blocks: Any = list[Union[tuple(BLOCKS.values())]]  # type: ignore[misc]  # noqa: UP007

Cost = _shape("Cost", " ".join(key_order("objects", "cost")))
Usage = _shape("Usage", " ".join(key_order("objects", "usage")), cost=Cost)

#: How a content Pi sends as empty when missing is typed (other roles: ``Any``).
_CONTENT: dict[str, Any] = {"text": str, "blocks": _Blocks, "text or blocks": str | _Blocks}


def _role(role: str) -> type:
    """The struct of one message role, from the data: its keys in order, its content
    required (and typed) where Pi sends a missing one as empty, its usage a ``Usage``.

    >>> _role("user").__struct_fields__, _role("user").__struct_config__.tag
    (('content', 'timestamp'), 'user')
    """
    shape = empty_content(role)
    keys = [f"{k}!" if k == "content" and shape else k for k in key_order("roles", role)]
    types = {"content": _CONTENT[shape]} if shape else {}
    name = role[0].upper() + role[1:]
    return _shape(name, " ".join(keys), ("role", role), usage=Usage, **types)


#: The struct of every role the data describes.
MESSAGES = {role: _role(role) for role in roles()}

#: A message entry's line: ``.message`` is the stored message.
Line = _shape(
    "Line",
    " ".join(key_order("messageLine", "")),
    message=Union[tuple(MESSAGES.values())],  # noqa: UP007  (a tuple of types: no | spelling)
)


class _Proven:
    """A decoder for ``Session.raw_lines``: lines it cannot prove exact come back None
    (a block at a time: one refused line refuses its block)."""

    def __init__(self) -> None:
        self._decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(Line, float_hook=js_float)
        self._encode_lines = msgspec.json.Encoder().encode_lines

    def decode_lines(self, raw: bytes | memoryview) -> list[Any]:
        """The lines of ``raw`` as ``Line`` structs, or a None for each of them.

        >>> [l.message for l in LINES.decode_lines(b'{"message":{"role":"user","content":""}}')]
        [User(content='', timestamp=UNSET)]
        """
        try:
            lines = self._decoder.decode_lines(raw)
            messages = [line.message for line in lines]
            if self._encode_lines(lines)[:-1] == raw and UNSET not in messages:
                return lines
        except (msgspec.DecodeError, UnicodeEncodeError, RecursionError, TypeError):
            pass
        return [None] * (bytes(raw).count(b"\n") + 1)

    def decode(self, raw: bytes | memoryview) -> Any:
        """One line as a ``Line``, or None (two lines, or a line it cannot prove exact).

        >>> LINES.decode(b'{"type":"message","message":{"role":"user"}}') is None
        True
        """
        lines = self.decode_lines(raw)
        return lines[0] if len(lines) == 1 else None


#: The decoder that proves lines exact (see the module's text).
LINES = _Proven()
