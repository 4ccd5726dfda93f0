"""Usage, cost and message counts, as Pi's session statistics (``/session``) count them.

All entries count, compacted history included: usage entries of any ``kind``, the
``usage`` of compaction and branch-summary entries, of assistant messages and of tool
results. Pass the entries of one path to get the figures for one branch.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import reduce
from itertools import compress, islice, repeat
from operator import add, attrgetter, lt
from typing import Any, NamedTuple

import msgspec

from ..js.value import UNDEFINED, js_number_value
from ..js.value import field as js_field


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
    if type(usage) is _Usage:  # read by STATS_DECODER: numbers, absent ones 0
        cost = usage.cost
        total = 0 if cost is None else cost.total
        return (usage.input, usage.output, usage.cacheRead, usage.cacheWrite, total)
    if not isinstance(usage, dict):
        return None
    get = usage.get
    found: tuple[object, ...] = (get("input"), get("output"), get("cacheRead"), get("cacheWrite"))
    found += (js_field(get("cost"), "total"),)
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


def contribution(
    kind: object,
    usage: object,
    role: object = UNDEFINED,
    message_usage: object = UNDEFINED,
    tool_calls: int = 0,
) -> tuple:
    """What one entry adds to Pi's session statistics (``COUNTED``), from its ``Facts``:
    the usage of usage, compaction and branch-summary entries, of tool results and
    assistant messages, and the message counts.

    >>> contribution("message", UNDEFINED, "user")[5:7]
    (1, 1)
    """
    if kind != "message":
        if kind == "usage" or (kind in ("branch_summary", "compaction") and usage):
            numbers = usage_numbers(usage)
            return _NOTHING if numbers is None else (*numbers, 0, 0, 0, 0, 0, 0)
        return _NOTHING
    if role == "user":
        return (0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0)
    if role == "toolResult":
        numbers = usage_numbers(message_usage) if message_usage else None
        return (*(numbers or _NOTHING[:5]), 1, 0, 0, 1, 0, 0)
    if role == "assistant":
        numbers = usage_numbers(message_usage)
        missing = int(numbers is None)
        return (*(numbers or _NOTHING[:5]), 1, 0, 1, 0, tool_calls, missing)
    return (0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0)


def entry_contribution(entry: object) -> tuple:
    """``contribution`` of a full entry (any JSON value).

    >>> entry_contribution({"type": "message", "message": {"role": "user"}})[5:7]
    (1, 1)
    """
    return contribution(*entry_facts(entry))


def totals(facts) -> SessionStats:
    """Pi's session statistics over the ``Facts`` of entries."""
    return summed(contribution(*f) for f in facts)


def js_total(numbers) -> int | float:
    """Numbers added in order as JavaScript adds them: each one a double, no compensated
    summation (which ``sum`` does from Python 3.12). An integer when every number is one
    and the total is exact. (A total that starts at 0 is never -0.)

    >>> js_total([0.1, 0, 0.2]), js_total([3, 4]), js_total([2**53, 1])
    (0.30000000000000004, 7, 9007199254740992)
    """
    numbers = numbers if isinstance(numbers, list) else list(numbers)
    try:
        exact = sum(numbers)  # an int only when every number is one (then exact)
    except OverflowError:  # an integer beyond the doubles met a float
        exact = None
    if type(exact) is int and exact <= 2**53 and (not numbers or min(numbers) >= 0):
        return exact  # every partial sum is an integer up to 2**53: a double holds it
    try:  # a float plus an int adds the int's double, as JavaScript holds it
        total = reduce(add, numbers, 0.0)
    except OverflowError:  # an integer beyond the doubles: JavaScript's infinity
        total = reduce(add, map(js_number_value, numbers), 0.0)
    if type(exact) is int and total.is_integer() and abs(total) <= 2**53:
        return int(total)
    return total


def summed(contributions) -> SessionStats:
    """The statistics of entries from their ``contribution``s: each column added up in
    order, as JavaScript adds (``js_total``; the counts are small integers).

    >>> summed([(1, 0, 0, 0, 0.1, 1, 0, 1, 0, 2, 0), (2, 0, 0, 0, 0.2, 1, 1, 0, 0, 0, 0)]).usage
    UsageTotals(input=3, output=0, cacheRead=0, cacheWrite=0, cost=0.30000000000000004)
    """
    rows = contributions if isinstance(contributions, list) else list(contributions)
    return summed_columns(list(zip(*rows)) or [()] * len(COUNTED))


def summed_columns(columns: list) -> SessionStats:
    """``summed`` of contributions held as columns (or iterables), one per ``COUNTED``
    figure.

    >>> summed_columns([[1, 2], [0, 0], [0, 0], [0, 0], [0.1, 0.2], *[[1, 1]] * 6]).usage.cost
    0.30000000000000004
    """
    usage = list(map(js_total, columns[:5]))
    figures: dict[str, Any] = dict(zip(COUNTED, usage + list(map(sum, columns[5:]))))
    return SessionStats(
        user_messages=figures["user"],
        assistant_messages=figures["assistant"],
        tool_results=figures["toolResult"],
        total_messages=figures["messages"],
        tool_calls=figures["toolCalls"],
        usage=UsageTotals(*usage),
        assistant_without_usage=figures["withoutUsage"],
    )


# --- reading only what the totals need ----------------------------------------------------


class _Block(msgspec.Struct, gc=False):
    type: Any = UNDEFINED


class _Cost(msgspec.Struct, gc=False):
    total: int | float = 0


class _Usage(msgspec.Struct, gc=False):
    input: int | float = 0
    output: int | float = 0
    cacheRead: int | float = 0
    cacheWrite: int | float = 0
    cost: _Cost | None = None


class _Message(msgspec.Struct, gc=False):
    role: Any = UNDEFINED
    # UNDEFINED where absent: msgspec leaves a default as it is, whatever the type says
    usage: _Usage | None = UNDEFINED  # type: ignore[assignment]
    content: list[_Block] | str | None = UNDEFINED  # type: ignore[assignment]


class CountedLine(msgspec.Struct, gc=False):
    """A line as the totals read it: the four fields the rule reads (as the reader's
    columns hold them) and the usage and tool-call blocks; absent ones are ``UNDEFINED``."""

    type: Any = UNDEFINED
    id: Any = UNDEFINED
    parentId: Any = UNDEFINED
    usage: _Usage | None = UNDEFINED  # type: ignore[assignment]
    message: _Message | None = UNDEFINED  # type: ignore[assignment]


#: Decodes the fields ``totals`` reads (and the reader's columns) and skips the rest of a
#: line (message text, tool output). A line whose fields have other shapes (a usage
#: figure that is not a number, content that is neither text nor a list of objects) is
#: refused, and then decoded in full.
STATS_DECODER = msgspec.json.Decoder(CountedLine)


_TYPE = attrgetter("type")

#: What a message entry of these roles adds when its message has no ``usage``.
_SAME_FOR_ALL = {role: contribution("message", UNDEFINED, role) for role in ("user", "toolResult")}


def line_contribution(line: CountedLine) -> tuple:
    """``contribution`` of a line decoded by ``STATS_DECODER``.

    >>> line_contribution(STATS_DECODER.decode(b'{"type":"message","message":{"role":"user"}}'))
    (0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0)
    """
    message = line.message
    if type(message) is not _Message:  # absent or null
        return contribution(line.type, line.usage)
    role, usage, content = message.role, message.usage, message.content
    calls = 0
    if type(content) is list and role == "assistant" and line.type == "message":
        calls = list(map(_TYPE, content)).count("toolCall")
        if type(usage) is _Usage:  # most lines of a long session: ``contribution``, inlined
            return (*usage_numbers(usage), 1, 0, 1, 0, calls, 0)  # type: ignore[misc]
    elif (
        usage is UNDEFINED
        and type(role) is str
        and role in _SAME_FOR_ALL
        and line.type == "message"
    ):
        return _SAME_FOR_ALL[role]
    return contribution(line.type, line.usage, role, usage, calls)


# --- the columns a session's statistics are summed from ----------------------------------

#: Sessions with this many entries or more have their second half counted by a helper
#: process when they were not counted while reading.
COUNT_IN_HALVES = 50_000

#: Entries whose lines are read together when counted after loading (their views hold
#: the bytes of the block).
_READ_TOGETHER = 4096


def counted_columns(index, raw_lines=None) -> list[list]:
    """What every entry of ``index`` adds to the statistics (``contribution``), a column
    per ``COUNTED`` figure: from the index where its type and role say all, else from the
    fields ``STATS_DECODER`` reads of its line through ``raw_lines(positions, decoder)``
    (the entry decoded in full where that gives None, or without ``raw_lines``). A big
    session's second half is counted by a helper process meanwhile.

    >>> from pisession.engine.context import EntryIndex
    >>> index = EntryIndex.of([{"type": "message", "message": {"role": "user"}},
    ...     {"type": "usage", "usage": {"input": 5}}])
    >>> dict(zip(COUNTED, counted_columns(index)))["input"]
    [0, 5]
    """
    from .parallel import in_child

    size = len(index.types)
    if raw_lines is None or size < COUNT_IN_HALVES:
        rows = _counted_rows(index, raw_lines, 0, size)
    else:
        second = in_child(_counted_rows, index, raw_lines, size // 2, size)
        rows = _counted_rows(index, raw_lines, 0, size // 2) + second.result()
    return [list(column) for column in zip(*rows)] or [[] for _ in COUNTED]


def _counted_rows(index, raw_lines, start: int, stop: int) -> list:
    """``contribution`` of each entry at positions ``start`` to ``stop``."""
    if raw_lines is None:
        return list(map(entry_contribution, index.entries(range(start, stop))))
    types, roles = index.types[start:stop], index.roles[start:stop]
    counted = list(map(contribution, types, repeat(UNDEFINED), roles))
    wanted = [start + i for i in range(len(types)) if needs_decoding(types[i], roles[i])]
    for first in range(0, len(wanted), _READ_TOGETHER):
        block = wanted[first : first + _READ_TOGETHER]
        views = raw_lines(block, STATS_DECODER)
        missing = [p for p, view in zip(block, views) if view is None]
        full = dict(zip(missing, index.entries(missing)))
        for p, view in zip(block, views):
            found = entry_contribution(full[p]) if view is None else line_contribution(view)
            counted[p - start] = found
    return counted


def on_path(columns: list, path: list[int]) -> list:
    """The rows of ``columns`` that belong to the entries of ``path``, in path order, as
    an iterable per column (picked in C when the path runs in file order, as nearly
    every path does; ``summed_columns`` reads each once).

    >>> list(on_path([[10, 11, 12, 13]], [0, 2, 3])[0])
    [10, 12, 13]
    """
    if all(map(lt, path, islice(path, 1, None))):
        on = bytearray(len(columns[0]) if columns else 0)
        for position in path:
            on[position] = 1
        return [compress(column, on) for column in columns]
    return [[column[p] for p in path] for column in columns]
