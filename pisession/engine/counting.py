"""Counting while a file is read: what each line adds to the statistics and to Pi's
usage breakdown, read from a few fields of it (``STATS_DECODER``), kept for the rows
that add more than their type and role say (``stats.Counted``) a block at a time.

The rule is ``stats.entry_contribution`` over full entries; ``line_contribution`` and
``assistant_columns`` give the same from the decoded fields (tests/test_stats_reading.py,
tests/test_stats_columns.py).

>>> line_contribution(STATS_DECODER.decode(b'{"type":"usage","usage":{"input":5}}'))[:6]
(5, 0, 0, 0, 0, 0)
"""

from __future__ import annotations

import sys
from bisect import bisect_left
from collections.abc import Sequence
from itertools import accumulate, chain, count, repeat
from operator import attrgetter, eq, sub
from typing import Any

import msgspec
from msgspec.structs import astuple

from ..js.value import UNDEFINED
from . import schemas
from .schemas import Cost, CountedLine, CountedMessage, Usage
from .stats import (
    COLUMNS,
    COUNTING_KINDS,
    NO_USAGE,
    USAGE_KINDS,
    Counted,
    contribution,
    usage_record,
)

#: Decodes the fields ``totals`` reads (and the reader's columns) and skips the rest of a
#: line (``schemas.COUNTED``: the one definition of what a line's totals read).
STATS_DECODER = schemas.COUNTED


_TYPE = attrgetter("type")

#: What a message entry of these roles adds when its message has no ``usage``.
_SAME_FOR_ALL = {
    role: (*contribution("message", UNDEFINED, role), *NO_USAGE) for role in ("user", "toolResult")
}


def line_contribution(line: CountedLine) -> tuple[Any, ...]:
    """``entry_contribution`` of a line decoded by ``STATS_DECODER``.

    >>> line_contribution(STATS_DECODER.decode(b'{"type":"message","message":{"role":"user"}}'))
    (0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, None, None)
    """
    message = line.message
    if type(message) is not CountedMessage:  # absent or null
        return (*contribution(line.type, line.usage), *line_usage(line))
    role, usage, content = message.role, message.usage, message.content
    calls = 0
    if type(content) is list and role == "assistant" and line.type == "message":
        calls = list(map(_TYPE, content)).count("toolCall")
        if type(usage) is Usage and type(cost := usage.cost) is Cost:
            # most lines of a long session: ``contribution`` and ``line_usage``, inlined
            found = (usage.input, usage.output, usage.cacheRead, usage.cacheWrite, cost.total)
            if UNDEFINED not in found:
                model = message.responseModel
                if model is None or model is UNDEFINED:
                    model = message.model
                provider = message.provider
                if type(provider) is str and type(model) is str:
                    key = sys.intern(f"{provider}/{model}")
                    return (*found, 1, 0, 1, 0, calls, 0, key, line.timestamp)
    elif (
        usage is UNDEFINED
        and type(role) is str
        and role in _SAME_FOR_ALL
        and line.type == "message"
    ):
        return _SAME_FOR_ALL[role]
    return (*contribution(line.type, line.usage, role, usage, calls), *line_usage(line))


_MESSAGE, _TOTAL, _TIMESTAMP = attrgetter("message"), attrgetter("total"), attrgetter("timestamp")
_TOKEN_NAMES = ("input", "output", "cacheRead", "cacheWrite")


def assistant_columns(lines: Sequence[CountedLine]) -> list[list[Any]] | None:
    """``line_contribution`` of assistant-message lines (``STATS_DECODER``'s, each of
    type ``message`` with a message of role ``assistant``), a list per ``COLUMNS``
    figure, made a column at a time in C: where every line takes the usual route (a
    content list, a usage whose five figures are numbers, a provider and model that are
    strings); None otherwise (then they are counted line by line).

    >>> line = STATS_DECODER.decode(b'{"type":"message","timestamp":"t","message":{'
    ...     b'"role":"assistant","provider":"p","model":"m","content":[{"type":"toolCall"}],'
    ...     b'"usage":{"input":3,"output":1,"cacheRead":0,"cacheWrite":0,"cost":{"total":0.5}}}}')
    >>> [column[0] for column in assistant_columns([line])] == list(line_contribution(line))
    True
    """
    if not lines:
        return [[] for _ in COLUMNS]
    messages = list(map(_MESSAGE, lines))
    # every field of every message at once (in C), a column each
    fields = dict(zip(CountedMessage.__struct_fields__, zip(*map(astuple, messages))))
    contents = fields["content"]
    if set(map(type, contents)) != {list}:
        return None
    try:  # (a usage that is null or absent is no struct; a cost, no attribute)
        usages = dict(zip(Usage.__struct_fields__, zip(*map(astuple, fields["usage"]))))
        figures = [list(usages[name]) for name in _TOKEN_NAMES]
        figures.append(list(map(_TOTAL, usages["cost"])))
        for column in figures:
            sum(column)  # (numbers, or undefined where absent: which cannot be added)
    except (AttributeError, TypeError, OverflowError):
        return None
    size = len(lines)
    keys = _model_keys(fields["provider"], fields["model"], fields["responseModel"])
    if keys is None:
        return None
    blocks = list(map(_TYPE, chain.from_iterable(contents)))
    calls = [0] * size
    if "toolCall" in blocks:  # each message's share of the running count, in C
        running = list(accumulate(map(eq, blocks, repeat("toolCall")), initial=0))
        ends = list(accumulate(map(len, contents)))
        calls = list(
            map(sub, map(running.__getitem__, ends), map(running.__getitem__, [0, *ends[:-1]]))
        )
    ones, zeros = [1] * size, [0] * size
    return [
        *figures,
        ones,
        zeros,
        list(ones),
        list(zeros),
        calls,
        list(zeros),
        keys,
        list(map(_TIMESTAMP, lines)),
    ]


def _model_keys(
    providers: Sequence[Any], models: Sequence[Any], answered: Sequence[Any]
) -> list[str] | None:
    """The key each assistant message's usage counts under (``provider/model``, the
    ``responseModel`` where it is not nullish), one string per key; None where a
    provider or model is no string (then the lines are counted one by one)."""
    size = len(models)
    if answered.count(UNDEFINED) != size:  # responseModel, where it is not nullish
        models = [m if a is None or a is UNDEFINED else a for a, m in zip(answered, models)]
    provider, model = providers[0], models[0]
    if (
        type(provider) is str
        and type(model) is str
        and providers.count(provider) == size
        and models.count(model) == size
    ):  # one model answered them all (the usual block): its key
        return [sys.intern(f"{provider}/{model}")] * size
    if set(map(type, providers)) != {str} or set(map(type, models)) != {str}:
        return None
    pairs = list(zip(providers, models))
    made = {pair: sys.intern(f"{pair[0]}/{pair[1]}") for pair in set(pairs)}
    return list(map(made.__getitem__, pairs))


def line_usage(line: CountedLine) -> tuple[Any, ...]:
    """``entry_usage`` of a line decoded by ``STATS_DECODER``.

    >>> line_usage(STATS_DECODER.decode(b'{"type":"usage","provider":"p","model":"m",'
    ...     b'"timestamp":"t","usage":{"input":1,"output":0,"cacheRead":0,"cacheWrite":0,'
    ...     b'"cost":{"total":0.5}}}'))
    ('p/m', 't')
    """
    kind, message = line.type, line.message
    if kind == "message":
        if type(message) is CountedMessage and message.role not in ("assistant", "toolResult"):
            return NO_USAGE
    elif type(kind) is str and kind not in USAGE_KINDS:
        return NO_USAGE
    record = usage_record(_line_entry(line))
    return record, (None if record is None else line.timestamp)


def _present(struct: msgspec.Struct) -> dict[str, Any]:
    """A decoded struct as the entry's object (absent fields left out)."""
    out = {}
    for name in struct.__struct_fields__:
        value = getattr(struct, name)
        if value is UNDEFINED:
            continue
        out[name] = _present(value) if isinstance(value, msgspec.Struct) else value
    return out


def _line_entry(line: CountedLine) -> dict[str, Any]:
    """The fields of a line that ``attribution`` reads, as its full entry holds them."""
    entry = _present(line)
    message = entry.get("message")
    if type(message) is dict:
        message.pop("content", None)  # not read by the breakdown (nor kept whole here)
    return entry


def count_block(
    counted: Counted,
    first: int,
    types: list[Any],
    roles: list[Any],
    lines: Sequence[CountedLine],
    no_message: object,
) -> None:
    """Keep in ``counted`` what the rows of a block of lines read by ``STATS_DECODER``
    (with their ``types`` and ``roles`` columns; the first is row ``first``) add beyond
    what their type and role say (``plain_row``): the usual assistant messages a column
    at a time (``assistant_columns``), the others line by line, in row order.
    ``no_message`` is the roles column's mark for a message entry without a message.

    >>> counted = Counted()
    >>> block = [STATS_DECODER.decode(b'{"type":"message","message":{"role":"user"}}'),
    ...          STATS_DECODER.decode(b'{"type":"usage","usage":{"input":5}}')]
    >>> count_block(counted, 10, ["message", "usage"], ["user", None], block, object())
    >>> list(counted.rows), counted.columns[0]
    ([11], [5])
    """
    kept = _counting_rows(types, roles, lines, no_message)
    if not kept:
        return
    mine = [k for k in kept if roles[k] == "assistant" and types[k] == "message"]
    columns = assistant_columns(list(map(lines.__getitem__, mine))) if mine else None
    if columns is None:  # line by line
        counted.extend(
            map(first.__add__, kept), map(line_contribution, map(lines.__getitem__, kept))
        )
        return
    if len(mine) < len(kept):  # a few others among them: counted line by line, put in
        mine_set = set(mine)
        others = [k for k in kept if k not in mine_set]
        for k, figures in zip(others, map(line_contribution, map(lines.__getitem__, others))):
            at = bisect_left(mine, k)
            mine.insert(at, k)
            for column, value in zip(columns, figures):
                column.insert(at, value)
    counted.rows.extend(map(first.__add__, mine))
    for column, values in zip(counted.columns, columns):
        column.extend(values)


def _counting_rows(
    types: list[Any], roles: list[Any], lines: Sequence[CountedLine], no_message: object
) -> list[int]:
    """The rows of a block that can add more than their type and role say
    (``plain_row``): entries of the types that count (``COUNTING_KINDS``, or a type that
    is no string), but not message entries with a message whose role counts nothing more
    (all but assistant messages and tool results with usage)."""
    asks = ("assistant", "toolResult")
    return [
        k
        for k, kind, role in zip(count(), types, roles)
        if (type(kind) is not str or kind in COUNTING_KINDS)
        and not (
            kind == "message"
            and role is not no_message
            and (
                role not in asks
                or (
                    role == "toolResult"
                    and ((u := lines[k].message.usage) is None or u is UNDEFINED)  # type: ignore[union-attr]
                )
            )
        )
    ]
