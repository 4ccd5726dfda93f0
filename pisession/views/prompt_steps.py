"""The system prompt at each system message of a context: the pure views behind
``explorers.system_prompt_view`` (which step added, changed or removed which sections and
tools, and the prompt after it), as data and as HTML.

>>> import pisession
>>> steps = system_prompt_steps(pisession.load(pisession.sample_path("tour")))
>>> [step.message for step in steps]
[0]
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..js.value import field as js_field
from .display import _esc, _id_cell, _table, details_html, view
from .text import one_line, strip_unsafe

if TYPE_CHECKING:
    from ..system_prompt import SystemPrompt
    from .protocol import SessionLike


@dataclass
class PromptStep:
    """One system message of a context and the prompt replayed up to it (``previous``:
    up to the system message before it)."""

    message: int
    position: int
    id: object
    line: int | None
    prompt: SystemPrompt
    previous: SystemPrompt


def system_prompt_steps(session: SessionLike, leaf_id: object = None) -> list[PromptStep]:
    """Every system message in the context of a leaf, with the prompt after it: the
    steps through which tools and sections are added, changed and removed.

    >>> import pisession
    >>> a = pisession.load(pisession.sample_path("pi-0.87.1-a-print-multiturn-tools"))
    >>> [sorted(s.prompt.tools) for s in system_prompt_steps(a)][1:]
    [['bash', 'edit', 'ls', 'read', 'write'], ['bash', 'edit', 'read', 'write']]
    """
    from ..system_prompt import replay_system_prompt

    projection = session.projection(leaf_id)
    messages = projection.messages
    steps: list[PromptStep] = []
    previous = replay_system_prompt([])
    for number, message in enumerate(messages):
        if js_field(message, "role") != "system":
            continue
        prompt = replay_system_prompt(messages[: number + 1])
        source = projection.source_of(number)
        steps.append(PromptStep(number, source.position, source.id, source.line, prompt, previous))
        previous = prompt
    return steps


def _change(name: str, now: Mapping[str, object], before: Mapping[str, object]) -> str:
    if name not in before:
        return "added"
    if name not in now:
        return "removed"
    return "changed" if now[name] != before[name] else ""


def _section_cell(value: object) -> str:
    """A section's start (with an ellipsis when cut) and its full text on demand."""
    text = strip_unsafe(value)
    head = _esc(one_line(text, 140))
    if len(text) <= 140 and "\n" not in text:
        return head
    return details_html(head, f"<pre>{html.escape(text)}</pre>")


def _prompt_tables(prompt: SystemPrompt, previous: SystemPrompt) -> str:
    """Content, sections and tools of a prompt; rows added, changed or removed since
    ``previous`` are marked."""
    rows = [["content", _section_cell(p)] for p in prompt.content if p]
    marks = ["added" if p not in previous.content else "" for p in prompt.content if p]
    names = list(prompt.sections) + [n for n in previous.sections if n not in prompt.sections]
    for name in names:
        mark = _change(name, prompt.sections, previous.sections)
        value = prompt.sections.get(name, previous.sections.get(name))
        rows.append([f"section <code>{_esc(name, 40)}</code>", _section_cell(value)])
        marks.append(mark)
    tools: list[list[str]] = []
    tool_marks: list[str] = []
    for name in list(prompt.tools) + [n for n in previous.tools if n not in prompt.tools]:
        tool = prompt.tools.get(name, previous.tools.get(name))
        tools.append([f"<code>{_esc(name, 40)}</code>", _esc(js_field(tool, "description"), 160)])
        tool_marks.append(_change(name, prompt.tools, previous.tools))
    return (
        _table(["part", "text"], rows, widths=[170, None], marks=marks)
        + "<p><b>tools</b></p>"
        + _table(["tool", "description"], tools, widths=[170, None], marks=tool_marks)
    )


def _prompt_changes(prompt: SystemPrompt, previous: SystemPrompt) -> str:
    """What a system message changed, in words."""
    words: list[str] = []
    for kind, now, before in (
        ("section", prompt.sections, previous.sections),
        ("tool", prompt.tools, previous.tools),
    ):
        for name in list(now) + [n for n in before if n not in now]:
            change = _change(name, now, before)
            if change:
                words.append(f"{kind} <code>{_esc(name, 40)}</code> {change}")
    added = [p for p in prompt.content if p and p not in previous.content]
    if added:
        words.append(f"{len(added)} content part(s) added")
    return "; ".join(words) or "nothing"


def system_prompt_step_html(step: PromptStep, number: int = 0, total: int = 1) -> str:
    """One system message: where it is, what it changed, and the prompt after it
    (green rows added, yellow changed, red removed).

    >>> import pisession
    >>> steps = system_prompt_steps(pisession.load(pisession.sample_path("tour")))
    >>> "system message 1 of" in system_prompt_step_html(steps[0], 0, len(steps))
    True
    """
    prompt = step.prompt
    facts = (
        f"<p><b>system message {number + 1} of {total}</b>: context message #{step.message},"
        f" entry {_id_cell(step.id)} (line {step.line}). Changed: "
        f"{_prompt_changes(prompt, step.previous)}.</p><p>{len(prompt.sections)} sections,"
        f" {len(prompt.tools)} tools; prompt text {len(prompt.text):,} characters</p>"
    )
    return view(facts + _prompt_tables(prompt, step.previous))


def system_prompt_html(session: SessionLike, leaf_id: object = None) -> str:
    """The system prompt replayed at a leaf: content parts, sections, then tools.

    >>> import pisession
    >>> "Run the tests after every change" in system_prompt_html(
    ...     pisession.load(pisession.sample_path("tour")))
    True
    """
    prompt = session.system_prompt(leaf_id)
    facts = (
        f"<p>{len(prompt.content)} content parts, {len(prompt.sections)} sections,"
        f" {len(prompt.tools)} tools; prompt text {len(prompt.text):,} characters</p>"
    )
    return view(facts + _prompt_tables(prompt, prompt))
