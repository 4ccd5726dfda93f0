"""The one switch on a context message's role for what it says: ``message_text(message,
mode)``. A message says its ``summary`` (``compactionSummary``, ``branchSummary``), its
command and output (``bashExecution``), its content with its sections and tool changes
(``system``), or its content (every other role). A ``TextMode`` says how each of these
becomes text, and each reader of messages has its own:

- ``pisession.llm``: Pi's ``convertToLlm`` (the user messages Pi writes for summaries and
  bash runs; other roles passed through or dropped);
- ``pisession.views.text``: a one-line preview (``message_text``);
- ``pisession.views.export_text``: the full text an export shows (``message_plain``).

(``pisession.folders.search.searched_texts`` still has a switch of its own: the texts a
search looks at, each named; it becomes a mode here when that module is split, as it
stands at the 800-line limit.)

>>> shout = TextMode(summary=lambda m: "S", bash=lambda m: "B", system=lambda m: "Y",
...                  content=lambda m: "C")
>>> [message_text({"role": r}, shout) for r in ("branchSummary", "bashExecution", "user")]
['S', 'B', 'C']
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from .js.value import field

T = TypeVar("T")

#: The roles whose message says its ``summary``.
SUMMARY_ROLES = ("compactionSummary", "branchSummary")


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
