"""Session values as text a reader can see: what an entry or a message says, entry
kinds, ids, labels, and the one set of characters that must never reach a screen raw.

Every view (terminal, HTML, drawings, exports) takes its words from here, so a label,
a kind or a summary reads the same everywhere. Nothing here escapes for a particular
medium except through the two functions that share ``UNSAFE``: ``visible`` (terminal:
show them as escapes) and ``strip_unsafe`` (HTML and pictures: leave them out).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from ..engine.schemas import PreviewLine, PreviewMessage
from ..js.json import UNSAFE_CHARS as _UNSAFE_CHARS
from ..js.value import UNDEFINED, plain
from ..js.value import field as js_field
from ..message_text import MORE_THAN_CONTENT, TextMode
from ..message_text import message_text as switch_text

UNSAFE = re.compile(f"[{_UNSAFE_CHARS}]")

#: ``UNSAFE`` without the newline (which pages and pictures may keep as a line break).
_UNSAFE_IN_TEXT = re.compile(f"(?!\n)[{_UNSAFE_CHARS}]")

ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]")

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object) -> str:
    """``text`` with every ``UNSAFE`` character shown as an escape (for terminals):
    what the file holds is what the reader sees, and nothing steers the screen.

    >>> visible("red \\x1b[31mALERT\\x1b[0m\\nnext")
    'red \\\\x1b[31mALERT\\\\x1b[0m\\\\nnext'
    >>> visible("caf\\u00e9 \\u202e\\u061c")
    'café \\\\u202e\\\\u061c'
    """
    if not isinstance(text, str):  # a JSON object or array may be nested thousands deep
        text = plain(text) if isinstance(text, (dict, list)) else str(text)
    if text.isprintable():  # the usual case: no UNSAFE character is printable
        return text
    return UNSAFE.sub(_escape, text)


def plural(count: int, word: str, many: str | None = None) -> str:
    """A count with its noun: ``1 line``, ``2 lines``, ``1,234 entries``.

    >>> plural(1, "line"), plural(3, "entry", "entries"), plural(1234, "message")
    ('1 line', '3 entries', '1,234 messages')
    """
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


def strip_unsafe(text: object) -> str:
    """Text safe for any picture or page: ANSI sequences and ``UNSAFE`` characters
    removed (tabs become spaces; newlines stay).

    >>> strip_unsafe("\\x1b[31mred\\x1b[0m\\x07 bell\\u202e\\nnext")
    'red bell\\nnext'
    """
    value = plain(text)
    if value.isprintable():  # no escape, tab or UNSAFE character is printable
        return value
    value = ANSI.sub("", value)
    return _UNSAFE_IN_TEXT.sub("", value.replace("\t", " "))


def one_line(text: object, width: int | None = 80, ellipsis: str = "…") -> str:
    """One cleaned line of at most ``width`` characters (whitespace runs become one space).

    >>> one_line("a  long\\n\\ntext that goes on", 12)
    'a long text…'
    """
    value = plain(text)
    start_length = None if width is None else 2 * width + 16
    if width is not None and start_length is not None and len(value) > start_length:  # long
        head = value[:start_length]
        if "\x1b" not in head:  # then the cleaned start is the start of the cleaned text
            start = _cleaned(head)
            if len(start) > width:
                return start[: max(width - len(ellipsis), 0)].rstrip() + ellipsis
    value = _cleaned(value)
    if width is None or len(value) <= width:
        return value
    return value[: max(width - len(ellipsis), 0)].rstrip() + ellipsis


def _cleaned(value: str) -> str:
    """Whitespace runs as one space, ANSI sequences and ``UNSAFE`` characters removed,
    whitespace at the ends too.

    >>> _cleaned(" a \\t b\\u202e \\n")
    'a b'
    """
    if not value.isprintable() or "  " in value:  # else the only space is " ", alone
        # (``split`` cuts at the runs of whitespace that ``\s+`` matches, in C; what
        # a substitution of them would leave at the ends, the strip takes)
        value = strip_unsafe(" ".join(value.split()))
    return value.strip()


def _block_text(block: object, get: Callable[[Any, str], object] = js_field) -> str:
    kind = get(block, "type")
    if kind == "text":
        return plain(get(block, "text"))
    if kind == "thinking":
        return "[thinking] " + plain(get(block, "thinking"))
    if kind == "toolCall":
        arguments = get(block, "arguments")
        inner = ""
        if isinstance(arguments, dict):
            inner = ", ".join(f"{k}={one_line(v, 40)}" for k, v in arguments.items())
        return f"[call] {plain(get(block, 'name'))}({inner})"
    if kind == "image":
        return "[image]"
    return f"[{plain(kind)}]"


def content_summary(
    content: object, enough: int | None = None, get: Callable[[Any, str], object] = js_field
) -> str:
    """Plain text of message content: a string, or its blocks described one by one.
    With ``enough``, blocks stop once the text is that long (for a preview: its start is
    the same). ``get`` reads a block's field (``getattr``: the blocks of a line as
    ``schemas.PREVIEW`` reads it).

    >>> content_summary([{"type": "text", "text": "hi"}, {"type": "toolCall",
    ...     "name": "bash", "arguments": {"command": "ls"}}])
    'hi [call] bash(command=ls)'
    >>> content_summary([{"type": "text", "text": "hi"}, {"type": "image"}], enough=2)
    'hi'
    """
    if content is UNDEFINED or content is None:
        return ""
    if not isinstance(content, list):
        return plain(content)
    parts, size = [], -1
    for block in content:
        parts.append(_block_text(block, get))
        size += len(parts[-1]) + 1
        if enough is not None and size >= enough:
            break
    return " ".join(parts)


def message_text(message: object, enough: int | None = None) -> str:
    """What a context message says, as one plain string (uncut, uncleaned; ``enough``:
    as ``content_summary``): ``pisession.message_text`` in the preview mode.

    >>> message_text({"role": "compactionSummary", "summary": "We read util.py."})
    'We read util.py.'
    """
    return switch_text(message, PREVIEW if enough is None else _preview_of(enough))


@lru_cache(maxsize=16)
def _preview_of(enough: int) -> TextMode[str]:
    """``PREVIEW`` with content cut once it is ``enough`` characters long (made once)."""
    return TextMode(
        PREVIEW.summary,
        PREVIEW.bash,
        PREVIEW.system,
        lambda m: content_summary(js_field(m, "content"), enough),
    )


def _system_preview(message: object) -> str:
    sections = js_field(message, "sections")
    parts = [content_summary(js_field(message, "content"))]
    if isinstance(sections, dict):
        parts += [f"[{k}] {'(removed)' if v is None else plain(v)}" for k, v in sections.items()]
    for key, sign in (("toolsAdded", "+"), ("toolsRemoved", "-")):
        tools = js_field(message, key)
        if isinstance(tools, list):
            parts += [f"{sign}tool {plain(js_field(t, 'name'))}" for t in tools]
    return " ".join(p for p in parts if p)


#: ``message_text``'s mode: a message as one line of preview text.
PREVIEW: TextMode[str] = TextMode(
    summary=lambda m: plain(js_field(m, "summary")),
    bash=lambda m: f"$ {plain(js_field(m, 'command'))} {plain(js_field(m, 'output'))}",
    system=_system_preview,
    content=lambda m: content_summary(js_field(m, "content")),
)


def preview_entry(line: PreviewLine) -> PreviewLine | None:
    """The line itself where ``entry_text`` can read a message entry's preview off it, as
    ``schemas.PREVIEW`` read it (its type, its message's role, its content's blocks):
    ``entry_text`` of it is then ``entry_text`` of the full entry. None for another line
    (of another type, or whose message says more than its content): its preview needs
    the full entry.

    >>> from pisession.engine.schemas import PREVIEW
    >>> line = PREVIEW.decode(b'{"type":"message","id":"a","message":{"role":"user",'
    ...     b'"content":[{"type":"text","text":"hi"}],"timestamp":1}}')
    >>> entry_text(preview_entry(line))
    'hi'
    """
    message = line.message
    if (
        line.type != "message"
        or type(message) is not PreviewMessage
        or message.role in MORE_THAN_CONTENT
    ):
        return None
    return line


def entry_text(entry: object, enough: int | None = None) -> str:
    """What an entry holds or does, as one plain string (uncut, uncleaned; ``enough``:
    as ``content_summary``, for a preview of that many characters). ``entry`` may also
    be a line ``preview_entry`` gave: what its full entry says is read off it.

    >>> entry_text({"type": "label", "targetId": "a1", "label": "first answer"})
    'a1 = first answer'
    >>> entry_text({"type": "context_edit", "targetId": "t1", "replacement": None})
    'omit t1'
    """
    if type(entry) is PreviewLine:  # (``preview_entry``'s: a message of its content alone)
        return content_summary(entry.message.content, enough, getattr)  # type: ignore[union-attr]
    kind = js_field(entry, "type")
    if kind == "message":
        return message_text(js_field(entry, "message"), enough)
    if kind in ("compaction", "branch_summary"):
        return plain(js_field(entry, "summary"))
    if kind == "custom_message":
        return content_summary(js_field(entry, "content"), enough)
    if kind == "model_change":
        return f"{plain(js_field(entry, 'provider'))}/{plain(js_field(entry, 'modelId'))}"
    if kind == "thinking_level_change":
        return plain(js_field(entry, "thinkingLevel"))
    if kind == "label":
        return f"{plain(js_field(entry, 'targetId'))} = {plain(js_field(entry, 'label'))}"
    if kind == "session_info":
        return plain(js_field(entry, "name"))
    if kind == "context_edit":
        replacement = js_field(entry, "replacement")
        target = plain(js_field(entry, "targetId"))
        if replacement is None:
            return f"omit {target}"
        return f"replace {target}: {content_summary(js_field(replacement, 'content'))}"
    if kind == "custom":
        return plain(js_field(entry, "customType"))
    if kind == "usage":
        return plain(js_field(entry, "kind"))
    if not isinstance(entry, dict):
        return plain(entry)
    return ""


#: Short words for entry types and message roles (node text, narrow tables).
KIND_WORDS = {
    "user": "user",
    "assistant": "asst",
    "toolResult": "tool",
    "system": "sys",
    "custom": "custom",
    "bashExecution": "bash",
    "hookMessage": "hook",
    "compaction": "compact",
    "branch_summary": "branch sum",
    "custom_message": "custom msg",
    "model_change": "model",
    "thinking_level_change": "thinking",
    "label": "label",
    "session_info": "name",
    "usage": "usage",
    "context_edit": "edit",
}


def entry_kind(kind: object, role: object = UNDEFINED, short: bool = False) -> str:
    """An entry's kind from its type (and message role): ``message user``, ``label``;
    ``short`` gives one word (``user``, ``compact``) for narrow places.

    >>> entry_kind("message", "toolResult"), entry_kind("message", "toolResult", short=True)
    ('message toolResult', 'tool')
    >>> entry_kind(UNDEFINED), entry_kind("compaction", short=True)
    ('(no type)', 'compact')
    """
    if kind == "message":
        known = isinstance(role, str)
        if short:
            return KIND_WORDS.get(role, visible(role)) if isinstance(role, str) else "message"
        return f"message {visible(role)}" if known else "message"
    if kind is UNDEFINED:
        return "(no type)"
    name = visible(plain(kind))
    return KIND_WORDS.get(name, name) if short else name


def kind_of(entry: object, short: bool = False) -> str:
    """``entry_kind`` of a whole entry (``(not an object)`` for other JSON values).

    >>> kind_of({"type": "message", "message": {"role": "user"}}), kind_of(5)
    ('message user', '(not an object)')
    """
    if not isinstance(entry, dict):
        return "(not an object)"
    role = js_field(js_field(entry, "message"), "role")
    return entry_kind(js_field(entry, "type"), role, short)


def id_text(value: object, width: int | None = None) -> str:
    """An entry id for display (``(no id)`` when it has none), cut to ``width``.

    >>> id_text("0199edge-0000-7000", 8), id_text(None), id_text(12)
    ('0199edge', '(no id)', '12')
    """
    if value is None or value is UNDEFINED:
        return "(no id)"
    text = visible(plain(value))
    return text if width is None else text[:width]


def model_text(model: object) -> str:
    """A context's model as ``provider/modelId`` (``none`` when unset).

    >>> model_text({"provider": "fake", "modelId": "fake-coder"}), model_text(None)
    ('fake/fake-coder', 'none')
    """
    if not isinstance(model, dict):
        return "none"
    return visible(f"{plain(model.get('provider', '?'))}/{plain(model.get('modelId', '?'))}")
