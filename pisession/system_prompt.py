"""System prompt replay: the prompt and tools in force after a list of messages.

Real Pi files store the system prompt as *deltas*: a system message may append text
(``content``), patch named ``sections`` (null deletes one) and add or remove tools.
Replaying them in order gives the prompt the model saw at that point (pi-ai's
``getCurrentSystemMessage`` and ``getCurrentSystemPrompt``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .errors import PisessionError
from .js.json import js_keys
from .js.value import (
    CANNOT_CONVERT,
    UNDEFINED,
    ToPrimitiveError,
    js_key,
    js_string,
    nullish,
    quoted,
    to_number,
)
from .js.value import field as js_field
from .piversions import pi_name


def content_text(content: object, separator: str = "\n") -> str:
    """Text of message content: a string as is, or its text blocks joined.

    >>> content_text([{"type": "text", "text": "a"}, {"type": "image"},
    ...               {"type": "text", "text": "b"}])
    'a\\nb'
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list) or any(nullish(b) for b in content):
        raise PisessionError(
            f"system message content {_short(content)} is neither text nor a list of blocks"
        )
    texts = [js_field(b, "text") for b in content if js_field(b, "type") == "text"]
    try:
        return separator.join("" if nullish(t) else js_string(t) for t in texts)
    except ToPrimitiveError:
        raise ToPrimitiveError(
            f"a text block of the system message is not text JavaScript can convert "
            f"({pi_name()}'s getCurrentSystemMessage throws TypeError: {CANNOT_CONVERT})"
        ) from None


@dataclass
class SystemPrompt:
    """The replayed system prompt: base text parts, named sections and tools (by name,
    in Pi's order), plus ``timestamp`` of the first system message."""

    content: list[str] = field(default_factory=list)
    sections: dict[str, object] = field(default_factory=dict)
    tools: dict[str, object] = field(default_factory=dict)
    timestamp: object = UNDEFINED
    #: every tool in force, in Pi's order (``tools`` keys them by name as text, where
    #: names such as ``1`` and ``"1"``, which Pi keeps apart, would meet)
    tool_list: list[object] = field(default_factory=list)
    #: the message that set each section (its number in the replayed list)
    section_origins: dict[str, int] = field(default_factory=dict)
    #: turns an error on a message into one naming its file and line (``Context.located``)
    located: Callable[[ToPrimitiveError], Exception] | None = field(default=None, repr=False)

    @property
    def text(self) -> str:
        """The rendered prompt: content, then section values (in JavaScript's key order),
        empty parts dropped; empty when there is no system message (``to_message``).

        >>> SystemPrompt(["base"], {"b": "two", "a": ""}, timestamp=1).text.splitlines()
        ['base', '', 'two']
        """
        if self.to_message() is None:
            return ""
        names = [name for name in js_keys(self.sections) if _has_length(self.sections[name])]
        texts = ["\n\n".join(self.content)] if self.content else []
        for name in names:
            try:
                texts.append(js_string(self.sections[name]))
            except ToPrimitiveError:
                error = ToPrimitiveError(
                    f"system prompt section {name!r} is not text JavaScript can convert "
                    f"({pi_name()}'s getCurrentSystemPrompt throws TypeError: {CANNOT_CONVERT})",
                    self.section_origins.get(name),
                )
                raise (self.located(error) if self.located else error) from None
        return "\n\n".join(texts)

    def to_message(self) -> dict[str, object] | None:
        """As pi-ai's ``getCurrentSystemMessage``: one system message, or None when the
        messages held no system message and no tools.

        >>> SystemPrompt(["base"], timestamp=5).to_message(), SystemPrompt().to_message()
        ({'role': 'system', 'content': 'base', 'timestamp': 5}, None)
        """
        if self.timestamp is UNDEFINED and not self.tools:
            return None
        message: dict[str, object] = {"role": "system", "content": "\n\n".join(self.content)}
        if self.sections:
            message["sections"] = dict(self.sections)
        if self.tools:
            message["toolsAdded"] = self.tool_list or list(self.tools.values())
        message["timestamp"] = 0 if nullish(self.timestamp) else self.timestamp
        return message


def replay_system_prompt(
    messages: list[object], located: Callable[[ToPrimitiveError], Exception] | None = None
) -> SystemPrompt:
    """Replay every system message in order (other roles are ignored). Where Pi throws
    on a message, ``located`` (``Context.located``) names its file and line.

    >>> p = replay_system_prompt([
    ...     {"role": "system", "content": "", "sections": {"a": "A", "b": "B"},
    ...      "toolsAdded": [{"name": "read"}, {"name": "bash"}]},
    ...     {"role": "user", "content": "hi"},
    ...     {"role": "system", "content": "Be brief.", "sections": {"a": None},
    ...      "toolsRemoved": [{"name": "read"}]}])
    >>> p.text, list(p.tools)
    ('Be brief.\\n\\nB', ['bash'])
    """
    prompt = SystemPrompt(located=located)
    for number, message in enumerate(messages):
        if js_field(message, "role") != "system":
            continue
        if nullish(prompt.timestamp):
            prompt.timestamp = js_field(message, "timestamp")
        try:
            text = content_text(js_field(message, "content"))
        except ToPrimitiveError as exc:
            error = ToPrimitiveError(exc.reason, number)
            raise (located(error) if located else error) from None
        if text:
            prompt.content.append(text)
        for name, value in _entries(js_field(message, "sections")):
            if value is None:
                prompt.sections.pop(name, None)
                prompt.section_origins.pop(name, None)
            else:
                prompt.sections[name] = value
                prompt.section_origins[name] = number
    tools: dict[object, object] = {}
    for message in messages:
        if js_field(message, "role") != "system":
            continue
        for tool in _tool_list(message, "toolsRemoved"):
            tools.pop(_map_key(js_field(tool, "name")), None)
        for tool in _tool_list(message, "toolsAdded"):
            tools[_map_key(js_field(tool, "name"))] = tool
    prompt.tool_list = list(tools.values())
    prompt.tools = {_name_text(js_field(tool, "name")): tool for tool in prompt.tool_list}
    return prompt


def _name_text(name: object) -> str:
    """A tool's name as text for the views (Pi keys its tools by the value itself and
    never converts it, so a name JavaScript cannot convert is shown as JSON).

    >>> _name_text("read"), _name_text([1, 2]), _name_text({"toString": 1})
    ('read', '1,2', '{"toString":1}')
    """
    try:
        return js_string(name)
    except ToPrimitiveError:
        from .js.json import dumps

        return dumps(name)


def _entries(value: object) -> list[tuple[str, object]]:
    """``Object.entries(value ?? {})``: an object's members in JavaScript's key order, a
    string's characters and an array's elements under their index, nothing for others.

    >>> _entries({"b": 1, "0": 2}), _entries("ab"), _entries([None]), _entries(5)
    ([('0', 2), ('b', 1)], [('0', 'a'), ('1', 'b')], [('0', None)], [])
    """
    if isinstance(value, dict):
        return [(k, value[k]) for k in js_keys(value)]
    if isinstance(value, (str, list)):
        return [(str(i), item) for i, item in enumerate(_code_units(value))]
    return []


def _code_units(value: str | list[object]) -> list[object]:
    """A string as JavaScript indexes it (UTF-16 code units), or the list itself."""
    if isinstance(value, list):
        return value
    data = value.encode("utf-16-le", "surrogatepass")
    return [data[i : i + 2].decode("utf-16-le", "surrogatepass") for i in range(0, len(data), 2)]


def _map_key(name: object) -> object:
    """A ``Map`` key with JavaScript's SameValueZero (``js_key``): ``1`` and ``"1"``
    differ, ``true`` is not ``1``, and every object is a key of its own."""
    if isinstance(name, (dict, list)):
        return ("object", id(name))
    return js_key(name)


def _has_length(part: object) -> bool:
    """``part.length > 0`` in JavaScript."""
    if isinstance(part, (str, list)):
        return len(part) > 0
    if isinstance(part, dict):
        length = part.get("length", UNDEFINED)
        return (
            not nullish(length) and not isinstance(length, (dict, list)) and to_number(length) > 0
        )
    return False


def _short(value: object) -> str:
    text = js_string(value) if not isinstance(value, (dict, list)) else type(value).__name__
    return repr(text[:60])


def _tool_list(message: object, name: str) -> list[object]:
    """``message[name] ?? []`` iterated as JavaScript would; Pi throws where it cannot."""
    tools = js_field(message, name)
    if nullish(tools):
        return []
    if isinstance(tools, str):
        tools = list(tools)  # a string iterates its characters
    if not isinstance(tools, list) or any(nullish(t) for t in tools):
        raise PisessionError(
            f"system message {name} {quoted(tools)} cannot be replayed "
            f"({pi_name()} throws a TypeError)"
        )
    return tools
