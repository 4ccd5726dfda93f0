"""Usage, cost and message counts, as Pi's session statistics (``/session``) count them.

All entries count, compacted history included: usage entries of any ``kind``, the
``usage`` of compaction and branch-summary entries, of assistant messages and of tool
results. Pass the entries of one path to get the figures for one branch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from operator import add, itemgetter
from typing import Any, NamedTuple

import msgspec

from .jsvalue import UNDEFINED
from .jsvalue import field as js_field


@dataclass
class UsageTotals:
    """Summed token counts and cost (``cost`` is the sum of ``usage.cost.total``)."""

    input: float = 0
    output: float = 0
    cacheRead: float = 0
    cacheWrite: float = 0
    cost: float = 0

    @property
    def total_tokens(self) -> float:
        """input + output + cacheRead + cacheWrite, as Pi's ``tokens.total``."""
        return self.input + self.output + self.cacheRead + self.cacheWrite


def usage_numbers(usage: object) -> tuple | None:
    """input, output, cacheRead, cacheWrite and ``cost.total`` of a ``usage`` object, as
    Pi adds them (anything but a number counts 0); None when ``usage`` is no object.

    >>> usage_numbers({"input": 3, "output": "2", "cost": {"total": 0.5}})
    (3, 0, 0, 0, 0.5)
    """
    if type(usage) is _Usage:  # read by STATS_DECODER: the same fields
        cost = usage.cost
        total = cost.total if type(cost) is _Cost else js_field(cost, "total")
        found = (usage.input, usage.output, usage.cacheRead, usage.cacheWrite, total)
    elif isinstance(usage, dict):
        get = usage.get
        found = (get("input"), get("output"), get("cacheRead"), get("cacheWrite"))
        found += (js_field(get("cost"), "total"),)
    else:
        return None
    return tuple(v if type(v) is int or type(v) is float else 0 for v in found)


@dataclass
class SessionStats:
    """Message counts and usage totals for a list of entries."""

    user_messages: int = 0
    assistant_messages: int = 0
    tool_results: int = 0
    total_messages: int = 0
    tool_calls: int = 0
    usage: UsageTotals = field(default_factory=UsageTotals)
    #: assistant messages with no usage object (Pi 0.87.1 would throw on these)
    assistant_without_usage: int = 0

    def to_dict(self) -> dict:
        """The figures in the shape of Pi's ``getSessionStats()`` (without file/id)."""
        u = self.usage
        return {
            "userMessages": self.user_messages,
            "assistantMessages": self.assistant_messages,
            "toolCalls": self.tool_calls,
            "toolResults": self.tool_results,
            "totalMessages": self.total_messages,
            "tokens": {
                "input": u.input,
                "output": u.output,
                "cacheRead": u.cacheRead,
                "cacheWrite": u.cacheWrite,
                "total": u.total_tokens,
            },
            "cost": u.cost,
        }


class Facts(NamedTuple):
    """What the totals read of one entry: its type, its own ``usage``, and for a message
    entry the role, the message's ``usage`` and its number of tool-call blocks."""

    type: object
    usage: object
    role: object = UNDEFINED
    message_usage: object = UNDEFINED
    tool_calls: int = 0


def needs_decoding(kind: object, role: object) -> bool:
    """Whether ``totals`` reads more of an entry than its type and message role: usage
    of usage, compaction and branch-summary entries, of assistant messages and tool
    results, and assistant tool calls. (A user message, say, is counted from its role.)

    >>> needs_decoding("message", "user"), needs_decoding("message", "assistant")
    (False, True)
    """
    if kind == "message":
        return role in ("assistant", "toolResult")
    return kind in ("usage", "compaction", "branch_summary")


def entry_facts(entry: object) -> Facts:
    """The ``Facts`` of an entry (a full entry dict, or any JSON value).

    >>> entry_facts({"type": "message", "message": {"role": "assistant",
    ...     "content": [{"type": "toolCall"}]}}).tool_calls
    1
    """
    message = js_field(entry, "message")
    content = js_field(message, "content")
    calls = 0
    if isinstance(content, list):
        calls = sum(1 for block in content if js_field(block, "type") == "toolCall")
    return Facts(
        js_field(entry, "type"),
        js_field(entry, "usage"),
        js_field(message, "role"),
        js_field(message, "usage"),
        calls,
    )


def session_stats(entries: list) -> SessionStats:
    """Count messages and sum usage over ``entries`` (full entry dicts).

    >>> s = session_stats([
    ...     {"type": "usage", "kind": "cache_warm", "usage": {"input": 5, "output": 1,
    ...      "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.5}}},
    ...     {"type": "message", "message": {"role": "assistant", "content": [
    ...      {"type": "toolCall"}, {"type": "text"}], "usage": {"input": 10, "output": 2,
    ...      "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.25}}}}])
    >>> s.tool_calls, s.usage.total_tokens, s.usage.cost
    (1, 18, 0.75)
    """
    return totals(map(entry_facts, entries))


#: What ``contribution`` gives for one entry, in this order.
COUNTED = (
    "input", "output", "cacheRead", "cacheWrite", "cost",
    "messages", "user", "assistant", "toolResult", "toolCalls", "withoutUsage",
)  # fmt: skip
_NOTHING = (0,) * len(COUNTED)


def contribution(f: Facts) -> tuple:
    """What one entry adds to Pi's session statistics (``COUNTED``): the usage of usage,
    compaction and branch-summary entries, of tool results and assistant messages, and
    the message counts.

    >>> contribution(Facts("message", UNDEFINED, "user"))[5:7]
    (1, 1)
    """
    kind = f.type
    if kind != "message":
        if kind == "usage" or (kind in ("branch_summary", "compaction") and f.usage):
            numbers = usage_numbers(f.usage)
            return _NOTHING if numbers is None else (*numbers, 0, 0, 0, 0, 0, 0)
        return _NOTHING
    role = f.role
    if role == "user":
        return (0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0)
    if role == "toolResult":
        numbers = usage_numbers(f.message_usage) if f.message_usage else None
        return (*(numbers or _NOTHING[:5]), 1, 0, 0, 1, 0, 0)
    if role == "assistant":
        numbers = usage_numbers(f.message_usage)
        missing = int(numbers is None)
        return (*(numbers or _NOTHING[:5]), 1, 0, 1, 0, f.tool_calls, missing)
    return (0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0)


def totals(facts) -> SessionStats:
    """Pi's session statistics over the ``Facts`` of entries."""
    return summed(map(contribution, facts))


def summed(contributions) -> SessionStats:
    """The statistics of entries from their ``contribution``s: each column added up in
    order, as JavaScript adds (``reduce``: no compensated float summation)."""
    rows = contributions if isinstance(contributions, list) else list(contributions)
    columns = [reduce(add, map(itemgetter(k), rows), 0) for k in range(len(COUNTED))]
    figures = dict(zip(COUNTED, columns))
    usage = UsageTotals(*columns[:5])
    return SessionStats(
        user_messages=figures["user"],
        assistant_messages=figures["assistant"],
        tool_results=figures["toolResult"],
        total_messages=figures["messages"],
        tool_calls=figures["toolCalls"],
        usage=usage,
        assistant_without_usage=figures["withoutUsage"],
    )


# --- reading only what the totals need ----------------------------------------------------


class _Block(msgspec.Struct, gc=False):
    type: Any = UNDEFINED


class _Cost(msgspec.Struct, gc=False):
    total: Any = UNDEFINED


class _Usage(msgspec.Struct, gc=False):
    input: Any = UNDEFINED
    output: Any = UNDEFINED
    cacheRead: Any = UNDEFINED
    cacheWrite: Any = UNDEFINED
    cost: _Cost | None = UNDEFINED


class _Message(msgspec.Struct, gc=False):
    role: Any = UNDEFINED
    usage: _Usage | None = UNDEFINED
    content: list[_Block] | str | None = UNDEFINED


class _Entry(msgspec.Struct, gc=False):
    type: Any = UNDEFINED
    usage: _Usage | None = UNDEFINED
    message: _Message | None = UNDEFINED


#: Decodes the fields ``totals`` reads and skips the rest of a line (message text, tool
#: output); a line whose fields have other shapes (content that is neither text nor a
#: list of objects, say) is refused, and then decoded in full.
STATS_DECODER = msgspec.json.Decoder(_Entry)


def view_facts(entry: _Entry) -> Facts:
    """The ``Facts`` of a line decoded by ``STATS_DECODER``."""
    message = entry.message
    if type(message) is not _Message:  # absent or null
        return Facts(entry.type, entry.usage)
    calls = 0
    content = message.content
    if message.role == "assistant" and entry.type == "message" and type(content) is list:
        calls = [block.type for block in content].count("toolCall")
    return Facts(entry.type, entry.usage, message.role, message.usage, calls)
