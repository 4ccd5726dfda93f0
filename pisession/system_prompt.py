"""System prompt replay: the prompt and tools in force after a list of messages.

Real Pi files store the system prompt as *deltas*: a system message may append text
(``content``), patch named ``sections`` (null deletes one) and add or remove tools.
Replaying them in order gives the prompt the model saw at that point (pi-ai's
``getCurrentSystemMessage`` and ``getCurrentSystemPrompt``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import PisessionError
from .jsvalue import UNDEFINED, js_string, nullish
from .jsvalue import field as js_field


def content_text(content: object, separator: str = "\n") -> str:
    """Text of message content: a string as is, or its text blocks joined.

    >>> content_text([{"type": "text", "text": "a"}, {"type": "image"},
    ...               {"type": "text", "text": "b"}])
    'a\\nb'
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise PisessionError(f"system message content {content!r} is neither text nor a list")
    texts = [js_field(b, "text") for b in content if js_field(b, "type") == "text"]
    return separator.join("" if nullish(t) else js_string(t) for t in texts)


@dataclass
class SystemPrompt:
    """The replayed system prompt: base text parts, named sections and tools (by name,
    in Pi's order), plus ``timestamp`` of the first system message."""

    content: list[str] = field(default_factory=list)
    sections: dict[str, object] = field(default_factory=dict)
    tools: dict[str, dict] = field(default_factory=dict)
    timestamp: object = UNDEFINED

    @property
    def text(self) -> str:
        """The rendered prompt: content, then section values, empty parts dropped."""
        parts = ["\n\n".join(self.content), *self.sections.values()]
        rendered = [js_string(p) for p in parts if isinstance(p, (str, list)) and len(p) > 0]
        return "\n\n".join(rendered)

    def to_message(self) -> dict | None:
        """As pi-ai's ``getCurrentSystemMessage``: one system message, or None when the
        messages held no system message and no tools."""
        if self.timestamp is UNDEFINED and not self.tools:
            return None
        message: dict = {"role": "system", "content": "\n\n".join(self.content)}
        if self.sections:
            message["sections"] = dict(self.sections)
        if self.tools:
            message["toolsAdded"] = list(self.tools.values())
        message["timestamp"] = 0 if nullish(self.timestamp) else self.timestamp
        return message


def replay_system_prompt(messages: list) -> SystemPrompt:
    """Replay every system message in order (other roles are ignored).

    >>> p = replay_system_prompt([
    ...     {"role": "system", "content": "", "sections": {"a": "A", "b": "B"},
    ...      "toolsAdded": [{"name": "read"}, {"name": "bash"}]},
    ...     {"role": "user", "content": "hi"},
    ...     {"role": "system", "content": "Be brief.", "sections": {"a": None},
    ...      "toolsRemoved": [{"name": "read"}]}])
    >>> p.text, list(p.tools)
    ('Be brief.\\n\\nB', ['bash'])
    """
    prompt = SystemPrompt()
    for message in messages:
        if js_field(message, "role") != "system":
            continue
        if nullish(prompt.timestamp):
            prompt.timestamp = js_field(message, "timestamp")
        text = content_text(js_field(message, "content"))
        if text:
            prompt.content.append(text)
        sections = js_field(message, "sections")
        if isinstance(sections, dict):
            for name, value in sections.items():
                if value is None:
                    prompt.sections.pop(name, None)
                else:
                    prompt.sections[name] = value
    for message in messages:
        if js_field(message, "role") != "system":
            continue
        for tool in _tool_list(message, "toolsRemoved"):
            prompt.tools.pop(js_string(js_field(tool, "name")), None)
        for tool in _tool_list(message, "toolsAdded"):
            prompt.tools[js_string(js_field(tool, "name"))] = tool
    return prompt


def _tool_list(message: object, name: str) -> list:
    """``message[name] ?? []`` iterated as JavaScript would; Pi throws where it cannot."""
    tools = js_field(message, name)
    if nullish(tools):
        return []
    if isinstance(tools, str):
        tools = list(tools)  # a string iterates its characters
    if not isinstance(tools, list) or any(nullish(t) for t in tools):
        raise PisessionError(
            f"system message {name} {tools!r} cannot be replayed (Pi 0.87.1 throws a TypeError)"
        )
    return tools
