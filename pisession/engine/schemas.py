"""The msgspec schemas of a session line: what each reader decodes of a line, in one place.

A line is decoded into a struct of the fields a reader asks about; the rest of the line
is skipped without being built. Each schema is a view of one line, and a wider view is a
narrower one with fields added (a subclass), so each field is defined once:

- ``CoreLine``: the four fields the rule reads (``type``, ``id``, ``parentId``,
  ``message.role``), for every line (the reader's columns, ``engine.reader``);
- ``CountedLine``: ``CoreLine`` and what the session statistics and Pi's usage breakdown
  read (the usage figures, the content blocks' types, provider, model, timestamp:
  ``engine.stats``);
- ``WrittenLine``: a message entry's whole ``message``, its numbers kept as the text
  JavaScript prints (the context writer, ``engine.stream``);
- ``shaped``: a struct of exactly the keys Pi writes, in Pi's order (``engine.shapes``
  makes the message shapes it proves exact with it);
- ``TurnLine``: what pi-ai's second pass reads of a message entry's line (its role, a
  reply's ``stopReason``, ``api`` and tool calls' ids and names, a tool result's
  ``toolCallId``: ``request.second_pass``, through ``line_turns``).

In ``CoreLine`` and ``CountedLine`` an absent field is ``UNDEFINED`` (msgspec leaves a
default as it is, whatever the type says), so a reader tells an absent field from a
null one as JavaScript does. A line whose fields have other shapes (a usage figure that
is not a number) is refused by the decoder, and read in full by the caller.

>>> CORE.decode(b'{"type":"message","id":"a","message":{"role":"user","content":"hi"}}')
CoreLine(type='message', id='a', parentId=undefined, message=CoreMessage(role='user'))
>>> COUNTED.decode(b'{"type":"usage","usage":{"input":5}}').usage.input
5
>>> bytes(WRITTEN.decode(b'{"type":"message","message":{"n":1.50}}').message["n"])
b'1.5'
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, cast

import msgspec
from msgspec import UNSET, UnsetType

from ..js.json import js_float
from ..js.value import NO_KEY, UNDEFINED, js_key
from ..request import Calls, Turn, turn_of

if TYPE_CHECKING:  # what a field holds; msgspec reads the types below (absent: UNDEFINED)
    from ..js.value import _Undefined

    Number = int | float | _Undefined
    Absent = _Undefined
else:
    Number = int | float
    Absent = None.__class__  # (never decoded: only absent fields hold UNDEFINED)

# --- what the rule reads: every line -----------------------------------------------------


class CoreMessage(msgspec.Struct, gc=False):
    """A line's ``message`` as the rule reads it: its role."""

    role: Any = UNDEFINED


class CoreLine(msgspec.Struct, gc=False):
    """The fields of a line the rule reads; absent ones are ``UNDEFINED``."""

    type: Any = UNDEFINED
    id: Any = UNDEFINED
    parentId: Any = UNDEFINED
    message: CoreMessage | Absent | None = UNDEFINED


# --- what the totals read: the core and the usage -----------------------------------------


class Block(msgspec.Struct, gc=False):
    """A content block as the totals read it: its type (tool calls are counted)."""

    type: Any = UNDEFINED


# UNDEFINED where absent: the statistics count an absent figure 0, the usage breakdown as
# undefined
class Cost(msgspec.Struct, gc=False):
    """A usage's ``cost``: its total."""

    total: Number = UNDEFINED


class Usage(msgspec.Struct, gc=False):
    """A ``usage`` object: the four token counts and the cost."""

    input: Number = UNDEFINED
    output: Number = UNDEFINED
    cacheRead: Number = UNDEFINED
    cacheWrite: Number = UNDEFINED
    cost: Cost | Absent | None = UNDEFINED


class CountedMessage(CoreMessage, gc=False):
    """A line's ``message`` as the totals read it: the role, the usage, the content's
    block types, and the provider and models Pi's breakdown keys it by."""

    usage: Usage | Absent | None = UNDEFINED
    content: list[Block] | str | Absent | None = UNDEFINED
    provider: Any = UNDEFINED
    model: Any = UNDEFINED
    responseModel: Any = UNDEFINED


class CountedLine(CoreLine, gc=False):
    """A line as the totals read it: the four fields the rule reads (as the reader's
    columns hold them), the usage and tool-call blocks, and what Pi's usage breakdown
    reads (provider, model, timestamp); absent ones are ``UNDEFINED``."""

    message: CountedMessage | Absent | None = UNDEFINED
    usage: Usage | Absent | None = UNDEFINED
    provider: Any = UNDEFINED
    model: Any = UNDEFINED
    timestamp: Any = UNDEFINED


# --- what the context writer reads: a message entry's message -----------------------------


class WrittenLine(msgspec.Struct, gc=False):
    """A message entry's line as the context writer reads it: its whole ``message``.
    Unlike the views above, an absent field reads as None here, as the writer has always
    read it (a message entry without a message object never gets this far: Pi throws on
    it, and so does the rule)."""

    type: object = None
    message: object = None


# --- the shapes Pi writes -----------------------------------------------------------------


def shaped(
    name: str,
    keys: str,
    tag: tuple[str, str] | None = None,
    *,
    module: str = __name__,
    **types: Any,
) -> type:
    """A struct of ``keys``, in that order: each of type ``Any`` unless ``types`` says,
    and absent unless written (``UNSET``, left out when encoded) but for a key marked
    ``!``, which must be there. ``tag``: the key and value that pick it in a union;
    ``module``: the module that names it (for pickling).

    >>> shaped("Pair", "a b!", b=int)(b=1)
    Pair(a=UNSET, b=1)
    """
    fields: list[tuple[Any, ...]] = []
    for key in keys.split():
        field = key.rstrip("!")
        kind = types.get(field, Any)
        if key.endswith("!"):
            fields.append((field, kind))
        else:
            fields.append((field, Any if kind is Any else kind | UnsetType, UNSET))
    tag_field, tag_value = tag or (None, None)
    return msgspec.defstruct(
        name, fields, tag_field=tag_field, tag=tag_value, kw_only=True, omit_defaults=True,
        gc=False, module=module,
    )  # fmt: skip


#: The reader's decoder: the rule's four fields of each line, the rest skipped.
CORE: msgspec.json.Decoder[CoreLine] = msgspec.json.Decoder(CoreLine)


@cache
def field_decoder(name: str) -> msgspec.json.Decoder[Any]:
    """Reads one field of a line (``SessionFile.field_of``), the rest skipped: a struct
    whose ``value`` is the field (``UNDEFINED`` where absent; the last of repeated keys,
    as ``JSON.parse`` keeps it).

    >>> field_decoder("timestamp").decode(b'{"a":{"timestamp":1},"timestamp":"t"}').value
    't'
    """
    line = msgspec.defstruct(
        "FieldLine", [("value", Any, UNDEFINED)], rename={"value": name}, gc=False
    )
    return msgspec.json.Decoder(line)


#: Decodes the fields the totals read (and the reader's columns) and skips the rest of a
#: line (message text, tool output). A line whose fields have other shapes (a usage
#: figure that is not a number, content that is neither text nor a list of objects) is
#: refused, and then decoded in full.
COUNTED: msgspec.json.Decoder[CountedLine] = msgspec.json.Decoder(CountedLine)

#: The writer's decoder: numbers kept as the text JavaScript prints (``js_float``).
WRITTEN: msgspec.json.Decoder[WrittenLine] = msgspec.json.Decoder(WrittenLine, float_hook=js_float)

#: Any JSON value (a line read in full, where no schema applies).
ANY: msgspec.json.Decoder[Any] = msgspec.json.Decoder()


# --- what a preview reads: a message's role and content (``views.text.preview_entry``) ---
# Each field is decoded as ``ANY`` decodes it (the last of duplicate keys wins in both);
# every other field of the line is skipped. A line whose message or content is of
# another type is refused (then the preview reads the full entry).


class PreviewBlock(msgspec.Struct, gc=False):
    """A content block as a preview reads it (``views.text``'s ``_block_text``)."""

    type: Any = UNDEFINED
    text: Any = UNDEFINED
    thinking: Any = UNDEFINED
    name: Any = UNDEFINED
    arguments: Any = UNDEFINED


class PreviewMessage(msgspec.Struct, gc=False):
    """A message as a preview of its content reads it: its role and its content."""

    role: Any = UNDEFINED
    content: list[PreviewBlock] | str | Absent | None = UNDEFINED


class PreviewLine(msgspec.Struct, gc=False):
    """A line as a message entry's preview reads it: its type and its message."""

    type: Any = UNDEFINED
    message: PreviewMessage | Absent | None = UNDEFINED


#: The preview's decoder (a tree line's text, read without decoding the rest of the line:
#: a reply's usage, a tool result's details, a thinking block's signature).
PREVIEW: msgspec.json.Decoder[PreviewLine] = msgspec.json.Decoder(PreviewLine)


# --- what pi-ai's second pass reads: a message entry's line (``request.second_pass``) ---


# What the second pass reads, straight from a message entry's line: the role picks the
# struct, and a reply's content is read as its blocks' type, id and name (the text, the
# arguments and every other field are skipped, not decoded). A line these structs refuse
# (a value of another type, an unknown role, a duplicate role key) is decoded in full.
class _Block(msgspec.Struct, gc=False):
    type: str | None = UNDEFINED  # type: ignore[assignment]
    id: str | None = UNDEFINED  # type: ignore[assignment]
    name: str | None = UNDEFINED  # type: ignore[assignment]


class _User(msgspec.Struct, tag_field="role", tag="user", gc=False):
    pass


class _System(msgspec.Struct, tag_field="role", tag="system", gc=False):
    pass


class _Reply(msgspec.Struct, tag_field="role", tag="assistant", gc=False):
    stopReason: str | None = UNDEFINED  # type: ignore[assignment]
    api: str | None = UNDEFINED  # type: ignore[assignment]
    content: list[_Block | None] | str | None = UNDEFINED  # type: ignore[assignment]


class _Result(msgspec.Struct, tag_field="role", tag="toolResult", gc=False):
    toolCallId: str | None = UNDEFINED  # type: ignore[assignment]


class TurnLine(msgspec.Struct, gc=False):
    """A message entry's line as the second pass reads it (``TURN_LINES``)."""

    message: _User | _System | _Reply | _Result


#: Decodes a message entry's line into a ``TurnLine`` (``line_turn`` makes its ``Turn``).
TURN_LINES = msgspec.json.Decoder(TurnLine)


# A message entry's line that is a *plain* turn (``request.second_pass``, an int among its
# turns): a user message (whatever its content), or a reply whose ``stopReason`` is none
# of those pi-ai leaves out and whose content is missing, null or a list of text,
# thinking and image blocks (no tool call, no null block). Every value of a repeated key
# must fit, and a repeated role is refused (msgspec checks each ``role`` and ``type``
# against the struct's tag), so what ``JSON.parse`` keeps fits too. Any other line is
# refused, and read through ``TURN_LINES``.
class _PlainText(msgspec.Struct, tag_field="type", tag="text", gc=False):
    pass


class _PlainThinking(msgspec.Struct, tag_field="type", tag="thinking", gc=False):
    pass


class _PlainImage(msgspec.Struct, tag_field="type", tag="image", gc=False):
    pass


class _PlainReply(msgspec.Struct, tag_field="role", tag="assistant", gc=False):
    stopReason: Literal["stop", "length", "toolUse"] | None = None
    content: list[_PlainText | _PlainThinking | _PlainImage] | None = None


class PlainTurnLine(msgspec.Struct, gc=False):
    """A message entry's line whose turn is plain (``PLAIN_TURN_LINES``)."""

    message: _User | _PlainReply


#: Decodes a message entry's line whose turn is plain, and refuses any other: a block of
#: lines it reads whole is one run of plain turns (``request.second_pass``).
PLAIN_TURN_LINES = msgspec.json.Decoder(PlainTurnLine)


def line_turns(lines: Iterable[TurnLine]) -> list[Turn]:
    """The ``Turn`` of each message entry's line read by ``TURN_LINES``: the one
    ``request.turn_of`` gives its message (tests/test_request_turns.py holds them equal
    on every file of the corpus).

    >>> line_turns([TURN_LINES.decode(b'{"message":{"role":"assistant","content":'
    ...     b'[{"type":"toolCall","id":"c1","name":"ls","arguments":{}}],"api":"a"}}')])
    [('assistant', undefined, (('c1', 'ls'),), NO_KEY, 'a')]
    """
    out: list[Turn] = []
    append = out.append
    user, system = turn_of({"role": "user"}), turn_of({"role": "system"})
    for line in lines:
        message = line.message
        kind = type(message)
        if kind is _Result:
            call_id = cast(_Result, message).toolCallId
            append(("toolResult", UNDEFINED, (), js_key(call_id), UNDEFINED))
        elif kind is _Reply:
            reply = cast(_Reply, message)
            append(("assistant", reply.stopReason, _line_calls(reply.content), NO_KEY, reply.api))
        else:
            append(user if kind is _User else system)
    return out


def _line_calls(content: list[_Block | None] | str | None) -> Calls:
    """``_calls`` of a reply's content read by ``TURN_LINES``."""
    if type(content) is list:
        if None in content:
            return "Cannot read properties of null (reading 'type')"
        return tuple([(b.id, b.name) for b in content if b.type == "toolCall"])  # type: ignore[union-attr]
    if type(content) is str:
        return "assistantMsg.content.filter is not a function"
    return ()
