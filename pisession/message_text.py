"""The one switch on a context message's role for what it says: ``message_text(message,
mode)``. A message says its ``summary`` (``compactionSummary``, ``branchSummary``), its
command and output (``bashExecution``), its content with its sections and tool changes
(``system``), or its content (every other role). A ``TextMode`` says how each of these
becomes text, and each reader of messages has its own:

- ``pisession.llm``: Pi's ``convertToLlm`` (the user messages Pi writes for summaries and
  bash runs; other roles passed through or dropped);
- ``pisession.views.text``: a one-line preview (``message_text``);
- ``pisession.views.export_text``: the full text an export shows (``message_plain``);
- ``NAMED`` here: each text a message holds with what it is, which
  ``pisession.folders.search`` looks in (``searched_texts``).

>>> shout = TextMode(summary=lambda m: "S", bash=lambda m: "B", system=lambda m: "Y",
...                  content=lambda m: "C")
>>> [message_text({"role": r}, shout) for r in ("branchSummary", "bashExecution", "user")]
['S', 'B', 'C']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from .js.value import field

T = TypeVar("T")

#: The roles whose message says its ``summary``.
SUMMARY_ROLES = ("compactionSummary", "branchSummary")

#: The roles whose message says more than its content (``message_text``'s switch): a
#: message of any other role says its content alone.
MORE_THAN_CONTENT = (*SUMMARY_ROLES, "bashExecution", "system")


@dataclass(frozen=True)
class TextMode(Generic[T]):
    """How each kind of message becomes text (or whatever a reader makes of it): one
    function per branch of ``message_text``'s switch, each given the whole message."""

    summary: Callable[[object], T]
    bash: Callable[[object], T]
    system: Callable[[object], T]
    content: Callable[[object], T]


def message_text(message: object, mode: TextMode[T]) -> T:
    """What ``message`` says, as ``mode`` writes it: the one switch on its role.

    >>> words = TextMode(summary=lambda m: field(m, "summary"), bash=lambda m: "$",
    ...                  system=lambda m: "system", content=lambda m: field(m, "content"))
    >>> message_text({"role": "compactionSummary", "summary": "done"}, words)
    'done'
    """
    role = field(message, "role")
    if role in SUMMARY_ROLES:
        return mode.summary(message)
    if role == "bashExecution":
        return mode.bash(message)
    if role == "system":
        return mode.system(message)
    return mode.content(message)


def json_strings(value: object) -> Iterator[str]:
    """Every string inside a JSON value (object keys left out), in order.

    >>> list(json_strings({"a": ["x", {"b": "y"}, 3]}))
    ['x', 'y']
    """
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from json_strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from json_strings(item)


def content_texts(content: object) -> Iterator[tuple[str, str]]:
    """The texts of message content, each with what it is: a string, text and thinking
    blocks, a tool call's name and every string of its arguments.

    >>> list(content_texts([{"type": "toolCall", "name": "ls", "arguments": {"p": "."}}]))
    [('tool call', 'ls'), ('tool call', '.')]
    """
    if isinstance(content, str):
        yield "text", content
        return
    if not isinstance(content, list):
        return
    for block in content:
        kind = field(block, "type")
        if kind == "text" and isinstance(text := field(block, "text"), str):
            yield "text", text
        elif kind == "thinking" and isinstance(thought := field(block, "thinking"), str):
            yield "thinking", thought
        elif kind == "toolCall":
            name = field(block, "name")
            if isinstance(name, str):
                yield "tool call", name
            for text in json_strings(field(block, "arguments")):
                yield "tool call", text


def _strings_of(message: object, *names: str) -> list[tuple[str, str]]:
    """The fields ``names`` of ``message`` that are strings, each named (its last word)."""
    found = [(name, field(message, name.split()[-1])) for name in names]
    return [(what, text) for what, text in found if isinstance(text, str)]


def _named_content(message: object) -> list[tuple[str, str]]:
    role = field(message, "role")
    what = {"toolResult": "tool result", "custom": "custom message"}.get(cast(str, role))
    return [(what or part, text) for part, text in content_texts(field(message, "content"))]


#: Each text of a message with what it is (what a search looks in): a summary and the
#: texts of its content; a bash run's command and output; a system message's content and
#: sections; any other message's content, a tool result's and a custom message's named so.
NAMED: TextMode[list[tuple[str, str]]] = TextMode(
    summary=lambda m: [*content_texts(field(m, "content")), *_strings_of(m, "summary")],
    bash=lambda m: _strings_of(m, "bash command", "bash output"),
    system=lambda m: [
        *(("system", text) for _, text in content_texts(field(m, "content"))),
        *(("system", text) for text in json_strings(field(m, "sections"))),
    ],
    content=_named_content,
)
