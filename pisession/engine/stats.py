"""Usage, cost and message counts, as Pi's session statistics (``/session``) count them.

All entries count, compacted history included: usage entries of any ``kind``, the
``usage`` of compaction and branch-summary entries, of assistant messages and of tool
results. Pass the entries of one path to get the figures for one branch.
"""

from __future__ import annotations

import sys
from array import array
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import reduce
from itertools import compress, islice, repeat
from operator import add, eq, is_not, lt
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from ..js.value import UNDEFINED, ToPrimitiveError, js_number_value, js_string, nullish, truthy
from ..js.value import field as js_field
from .schemas import Cost, Usage

if TYPE_CHECKING:
    from .index import EntryIndex


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


def usage_numbers(usage: object) -> tuple[Any, ...] | None:
    """input, output, cacheRead, cacheWrite and ``cost.total`` of a ``usage`` object, as
    Pi adds them (anything but a number counts 0); None when ``usage`` is no object.

    >>> usage_numbers({"input": 3, "output": "2", "cost": {"total": 0.5}})
    (3, 0, 0, 0, 0.5)
    """
    if type(usage) is Usage:  # read by counting.STATS_DECODER: numbers, absent ones UNDEFINED
        cost = usage.cost
        total = cost.total if type(cost) is Cost else 0
        read = (usage.input, usage.output, usage.cacheRead, usage.cacheWrite, total)
        return tuple(0 if v is UNDEFINED else v for v in read) if UNDEFINED in read else read
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

    def to_dict(self) -> dict[str, Any]:
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


def session_stats(entries: Iterable[object]) -> SessionStats:
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
) -> tuple[Any, ...]:
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


def entry_contribution(entry: object) -> tuple[Any, ...]:
    """``contribution`` of a full entry (any JSON value), followed by what Pi's usage
    breakdown adds for it (``entry_usage``): a row of the counted columns (``COLUMNS``).

    >>> entry_contribution({"type": "message", "message": {"role": "user"}})[5:7]
    (1, 1)
    """
    return (*contribution(*entry_facts(entry)), *entry_usage(entry))


# --- Pi 1.6.0's usage breakdown, entry by entry --------------------------------------------

#: Where Pi counts usage that no model answered for (tool results, summaries).
TOOLS_KEY = "Tools/summaries"

#: The counted columns of a session: ``COUNTED`` (the statistics), then for each entry
#: what Pi's usage breakdown adds (``usage_record``) and the entry's ``timestamp`` (only
#: where the breakdown adds something; None elsewhere).
COLUMNS = (*COUNTED, "usage", "timestamp")
USAGE, TIMESTAMP = len(COUNTED), len(COUNTED) + 1
NO_USAGE = (None, None)


class UsageFigures(NamedTuple):
    """An entry's usage as Pi's breakdown adds it, where its five figures are not all
    numbers (else the record is its key alone and the figures are the statistics'):
    each figure as Pi reads it (``UNDEFINED`` where absent, a string as it is)."""

    key: str
    figures: tuple[Any, ...]


class UsageThrows(NamedTuple):
    """An entry on which Pi's ``getUsageCostBreakdown`` throws, and why."""

    reason: str


def attribution(entry: object) -> tuple[str, object] | None:
    """The key an entry's usage counts under and that usage, as Pi attributes it; None
    for an entry that counts nothing. Raises ``TypeError`` where Pi's code throws (a
    message entry without a message).

    >>> attribution({"type": "message", "message": {"role": "assistant", "provider": "p",
    ...     "model": "auto", "responseModel": "m1", "usage": {"input": 1}}})
    ('p/m1', {'input': 1})
    >>> attribution({"type": "compaction", "usage": {"input": 3}})[0]
    'Tools/summaries'
    """
    kind = js_field(entry, "type")
    if kind == "message":
        message = js_field(entry, "message")
        if nullish(message):
            raise TypeError("Cannot read properties of undefined (reading 'role')")
        role = js_field(message, "role")
        if role == "assistant":
            model = js_field(message, "responseModel")
            if nullish(model):
                model = js_field(message, "model")
            key = f"{js_string(js_field(message, 'provider'))}/{js_string(model)}"
            return _counted(key, js_field(message, "usage"))
        if role == "toolResult" and truthy(js_field(message, "usage")):
            return TOOLS_KEY, js_field(message, "usage")
        return None
    if kind == "usage":
        key = f"{js_string(js_field(entry, 'provider'))}/{js_string(js_field(entry, 'model'))}"
        return _counted(key, js_field(entry, "usage"))
    if kind in ("branch_summary", "compaction") and truthy(js_field(entry, "usage")):
        return TOOLS_KEY, js_field(entry, "usage")
    return None


def _counted(key: str, usage: object) -> tuple[str, object] | None:
    return (key, usage) if truthy(usage) else None  # Pi: if (!key || !usage) continue


def usage_figures(usage: object) -> tuple[Any, ...]:
    """input, output, cacheRead, cacheWrite and ``cost.total`` of a truthy ``usage``, as
    Pi reads them; raises ``TypeError`` where Pi's ``usage.cost.total`` throws.

    >>> usage_figures({"input": 3, "output": 1, "cacheRead": 0, "cacheWrite": 0,
    ...     "cost": {"total": 0.5}})
    (3, 1, 0, 0, 0.5)
    """
    if type(usage) is dict:
        get = usage.get
        cost = get("cost", UNDEFINED)
        figures: tuple[object, ...] = (get("input", UNDEFINED), get("output", UNDEFINED))
        figures += (get("cacheRead", UNDEFINED), get("cacheWrite", UNDEFINED))
    else:  # a number or a string: every field undefined
        cost, figures = UNDEFINED, (UNDEFINED,) * 4
    if cost is None or cost is UNDEFINED:
        raise TypeError("Cannot read properties of undefined (reading 'total')")
    return (*figures, js_field(cost, "total"))


def usage_record(entry: object) -> object:
    """What Pi's usage breakdown adds for one entry (a full entry, any JSON value): None
    (nothing), its key (a string: the five figures are numbers, the very ones its
    statistics add: ``contribution``), ``UsageFigures`` (figures that are not all
    numbers) or ``UsageThrows`` (where Pi's function throws).

    >>> usage_record({"type": "compaction", "usage": {"input": 1, "output": 0,
    ...     "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.5}}})
    'Tools/summaries'
    >>> usage_record({"type": "usage", "provider": "p", "model": "m", "usage": {"cost": {}}})
    UsageFigures(key='p/m', figures=(undefined, undefined, undefined, undefined, undefined))
    >>> usage_record({"type": "message"})
    UsageThrows(reason="Cannot read properties of undefined (reading 'role')")
    """
    try:
        found = attribution(entry)
        if found is None:
            return None
        key, usage = found
        figures = usage_figures(usage)
    except (TypeError, ToPrimitiveError) as exc:
        return UsageThrows(str(exc))
    if all(type(v) is int or type(v) is float for v in figures):
        return sys.intern(key)
    return UsageFigures(key, figures)


def entry_usage(entry: object) -> tuple[Any, ...]:
    """``usage_record`` of an entry and its ``timestamp`` (None where the record is).

    >>> entry_usage({"type": "message", "timestamp": "t", "message": {"role": "user"}})
    (None, None)
    """
    record = usage_record(entry)
    return record, (None if record is None else js_field(entry, "timestamp"))


def totals(facts: Iterable[Facts]) -> SessionStats:
    """Pi's session statistics over the ``Facts`` of entries."""
    return summed(contribution(*f) for f in facts)


def js_total(numbers: Iterable[Any]) -> int | float:
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


def summed(contributions: Iterable[tuple[Any, ...]]) -> SessionStats:
    """The statistics of entries from their ``contribution``s: each column added up in
    order, as JavaScript adds (``js_total``; the counts are small integers).

    >>> summed([(1, 0, 0, 0, 0.1, 1, 0, 1, 0, 2, 0), (2, 0, 0, 0, 0.2, 1, 1, 0, 0, 0, 0)]).usage
    UsageTotals(input=3, output=0, cacheRead=0, cacheWrite=0, cost=0.30000000000000004)
    """
    rows = contributions if isinstance(contributions, list) else list(contributions)
    return summed_columns(list(zip(*rows)) or [()] * len(COUNTED))


def summed_columns(columns: Sequence[Iterable[Any]]) -> SessionStats:
    """``summed`` of contributions held as columns (or iterables), one per ``COUNTED``
    figure.

    >>> summed_columns([[1, 2], [0, 0], [0, 0], [0, 0], [0.1, 0.2], *[[1, 1]] * 6]).usage.cost
    0.30000000000000004
    """
    usage: list[Any] = list(map(js_total, columns[:5]))
    return _stats(usage, list(map(sum, columns[5 : len(COUNTED)])))


def _stats(usage: list[Any], counts: list[int]) -> SessionStats:
    """The statistics of the five usage totals and the six counts, in ``COUNTED`` order."""
    figures: dict[str, Any] = dict(zip(COUNTED, usage + counts))
    return SessionStats(
        user_messages=figures["user"],
        assistant_messages=figures["assistant"],
        tool_results=figures["toolResult"],
        total_messages=figures["messages"],
        tool_calls=figures["toolCalls"],
        usage=UsageTotals(*usage),
        assistant_without_usage=figures["withoutUsage"],
    )


# --- the columns a session's statistics are summed from ----------------------------------


def counted_columns(index: EntryIndex) -> Counted:
    """What every entry of ``index`` adds (``entry_contribution``), every row kept, from
    its full entries: for a session whose entries are not its file's lines (a migrated
    one). Any other session is counted while its file is read
    (``reader.read_source(..., counting=True)``), or read again that way when first asked.

    >>> from pisession.engine.index import EntryIndex
    >>> index = EntryIndex.of([{"type": "message", "message": {"role": "user"}},
    ...     {"type": "usage", "usage": {"input": 5}}])
    >>> counted = counted_columns(index)
    >>> list(counted.rows), dict(zip(COLUMNS, counted.columns))["input"]
    ([0, 1], [0, 5])
    """
    rows = list(map(entry_contribution, index.entries(range(len(index.types)))))
    columns = [list(column) for column in zip(*rows)] or [[] for _ in COLUMNS]
    return Counted(array("q", range(len(rows))), columns)


#: The types of entry that carry a ``usage`` of their own.
USAGE_KINDS = ("usage", "compaction", "branch_summary")

#: The types of entry whose rows can add more than their type and role say.
COUNTING_KINDS = frozenset({"message", *USAGE_KINDS})


def plain_row(kind: object, role: object) -> tuple[Any, ...]:
    """What an entry adds when it adds only what its type and message role say (a
    ``COLUMNS`` row): one message of its role for a message entry, nothing otherwise.
    ``Counted`` keeps the rows that differ from this.

    >>> plain_row("message", "user")[5:9], plain_row("label", None) == _PLAIN
    ((1, 1, 0, 0), True)
    """
    if kind != "message":
        return _PLAIN
    said = (int(role == "user"), int(role == "assistant"), int(role == "toolResult"))
    return (0, 0, 0, 0, 0, 1, *said, 0, 0, None, None)


_PLAIN = (*_NOTHING, *NO_USAGE)


@dataclass
class Counted:
    """What a session's entries add to the statistics and to Pi's usage breakdown, kept
    only for the rows that add more than their type and role say (``plain_row``): the
    positions of those rows (``rows``, ascending) and a column per ``COLUMNS`` figure
    with a value per kept row. Any row may be kept (its own figures are used); a row
    left out must be plain. Most rows of a session are plain (user messages, labels,
    model changes...), so most cost nothing here.

    >>> counted = Counted(array("q", [1]), [[v] for v in
    ...     (*_NOTHING[:5], 1, 0, 1, 0, 2, 0, "p/m", "t")])
    >>> counted.dense(["message", "message"], ["user", "assistant"])[9]
    [0, 2]
    """

    rows: array[int] = field(default_factory=lambda: array("q"))
    columns: list[list[Any]] = field(default_factory=lambda: [[] for _ in COLUMNS])

    def __len__(self) -> int:
        return len(self.rows)

    def extend(self, rows: Iterable[int], figures: Iterable[tuple[Any, ...]]) -> None:
        """Keep these rows (ascending, after those kept) with their ``COLUMNS`` rows."""
        self.rows.extend(rows)
        for column, values in zip(self.columns, zip(*figures)):
            column.extend(values)

    def append(self, base: int, more: Counted) -> None:
        """Keep ``more``'s rows after those kept, its row 0 at row ``base`` here.

        >>> counted, more = Counted(array("q", [1]), [[0] for _ in COLUMNS]), Counted()
        >>> more.extend([0], [(5, *[0] * (len(COLUMNS) - 1))])
        >>> counted.append(3, more); list(counted.rows), counted.columns[0]
        ([1, 3], [0, 5])
        """
        self.rows.extend(array("q", map(base.__add__, more.rows)))
        for column, values in zip(self.columns, more.columns):
            column.extend(values)

    def local(self, positions: Sequence[int]) -> list[int]:
        """Where the kept rows among ``positions`` are in ``columns``, in the order of
        ``positions``.

        >>> Counted(array("q", [2, 5]), [[] for _ in COLUMNS]).local([5, 3, 2])
        [1, 0]
        """
        where = dict(zip(self.rows, range(len(self.rows))))
        found = list(map(where.get, positions))  # None where a position is not kept
        return cast("list[int]", list(compress(found, map(is_not, found, repeat(None)))))

    def dense(self, types: Sequence[object], roles: Sequence[object]) -> list[list[Any]]:
        """Every row's figures, a full column per ``COLUMNS`` figure (``plain_row`` where
        a row is not kept): what ``entry_contribution`` gives entry by entry."""
        rows = list(map(plain_row, types, roles))
        for k, position in enumerate(self.rows):
            rows[position] = tuple(column[k] for column in self.columns)
        return [list(column) for column in zip(*rows)] or [[] for _ in COLUMNS]


def counted_stats(
    counted: Counted,
    types: Sequence[object],
    roles: Sequence[object],
    path: Sequence[int] | None = None,
) -> SessionStats:
    """The statistics of every entry (or of the entries of ``path``, in its order), from
    their ``Counted`` rows and the ``types`` and ``roles`` columns: the same figures as
    ``summed_columns`` of every row (the rows left out add integer zeros to the usage,
    which change no total, and their messages are counted from the two columns).

    >>> from pisession.engine.index import EntryIndex
    >>> index = EntryIndex.of([{"type": "message", "message": {"role": "user"}},
    ...     {"type": "usage", "usage": {"input": 5, "cost": {"total": 0.5}}}])
    >>> s = counted_stats(counted_columns(index), index.types, index.roles)
    >>> s.user_messages, s.usage.input, s.usage.cost
    (1, 5, 0.5)
    """
    rows, columns = counted.rows, counted.columns[: len(COUNTED)]
    kept: Sequence[int] = rows
    on_types, on_roles = types, roles
    if path is not None and not every_row(path, len(types)) and _ascending(path):
        # (nearly every path) its rows picked in C, by a byte per row
        on = path_marks(path, len(types))
        picked = bytes(map(on.__getitem__, rows))
        columns = [list(compress(column, picked)) for column in columns]
        kept = list(compress(rows, picked))
        on_types, on_roles = list(compress(types, on)), list(compress(roles, on))
    elif path is not None and not every_row(path, len(types)):
        local = counted.local(path)
        columns = [list(map(column.__getitem__, local)) for column in columns]
        kept = list(map(rows.__getitem__, local))
        on_types, on_roles = list(map(types.__getitem__, path)), list(map(roles.__getitem__, path))
    usage: list[Any] = list(map(js_total, columns[:5]))
    counts = list(map(sum, columns[5:]))
    # messages from the types and roles, with the kept rows' own counts instead of theirs
    every = _message_counts(on_types, on_roles)
    own = _message_counts(list(map(types.__getitem__, kept)), list(map(roles.__getitem__, kept)))
    return _stats(usage, [c + e - o for c, e, o in zip(counts, every, own)] + counts[4:])


def _message_counts(types: Sequence[object], roles: Sequence[object]) -> tuple[int, ...]:
    """The messages, user messages, assistant messages and tool results ``plain_row``
    counts for these rows (found in C).

    >>> _message_counts(["message", "label", "message"], ["user", "user", "toolResult"])
    (2, 1, 0, 1)
    """
    said = list(compress(roles, map(eq, types, repeat("message"))))
    return len(said), said.count("user"), said.count("assistant"), said.count("toolResult")


def every_row(path: Sequence[int], count: int) -> bool:
    """Whether ``path`` is every one of ``count`` rows in file order (a session without
    branches: its default branch is the whole session, counted once).

    >>> every_row([0, 1, 2], 3), every_row([0, 2], 3), every_row([1, 0], 2), every_row([], 0)
    (True, False, False, True)
    """
    if len(path) != count:
        return False
    return not count or (path[0] == 0 and path[-1] == count - 1 and _ascending(path))


def _ascending(path: Sequence[int]) -> bool:
    return all(map(lt, path, islice(path, 1, None)))


def on_path(columns: Sequence[list[Any]], path: list[int]) -> list[Iterable[Any]]:
    """The rows of ``columns`` that belong to the entries of ``path``, in path order, as
    an iterable per column (picked in C when the path runs in file order, as nearly
    every path does; ``summed_columns`` reads each once; every row: the columns).

    >>> list(on_path([[10, 11, 12, 13]], [0, 2, 3])[0])
    [10, 12, 13]
    """
    if every_row(path, len(columns[0]) if columns else 0):
        return list(columns)
    if _ascending(path):
        on = path_marks(path, len(columns[0]) if columns else 0)
        return [compress(column, on) for column in columns]
    return [[column[p] for p in path] for column in columns]


def path_marks(path: Iterable[int], count: int) -> bytearray:
    """A byte for each of ``count`` rows: 1 for the rows of ``path``, else 0 (marked in
    C): what ``itertools.compress`` picks a path's rows of a column by, in file order.

    >>> path_marks([0, 2], 4)
    bytearray(b'\\x01\\x00\\x01\\x00')
    """
    on = bytearray(count)
    deque(map(on.__setitem__, path, repeat(1)), maxlen=0)
    return on
