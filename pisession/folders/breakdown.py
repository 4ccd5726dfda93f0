"""Pi's usage breakdown of a list of entries (``getUsageCostBreakdown``), and the
JavaScript arithmetic it adds its figures with (``js_plus``: a string figure
concatenates, ``undefined`` gives NaN, integers beyond 2**53 round as doubles).

``pisession.folders.usage`` counts a session from the columns its reader filled, and a
folder session by session; this module holds the rows both give, and the breakdown of
full entries that the column route is tested against.

>>> rows = breakdown_of([{"type": "usage", "provider": "p", "model": "m", "usage": {
...     "input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.5}}}])
>>> rows.pi_rows()
[{'key': 'p/m', 'cost': 0.5, 'tokens': 3}]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ..engine.stats import attribution, usage_figures
from ..js.value import UNDEFINED, js_number_value, js_string, to_number

_SAFE = 2**53


# --- JavaScript's + ---------------------------------------------------------------------


def _primitive(value: object) -> object:
    """ToPrimitive of a JSON value: objects and arrays become their ``String()``."""
    return js_string(value) if isinstance(value, (dict, list)) else value


def js_plus(a: object, b: object) -> object:
    """``a + b`` in JavaScript for JSON values: numbers add as doubles, a string on either
    side concatenates, ``undefined`` gives NaN, ``null`` counts 0.

    >>> js_plus(1, 2), js_plus(0.1, 0.2), js_plus(0, "5"), js_plus(1, None)
    (3, 0.30000000000000004, '05', 1)
    >>> js_plus(2, UNDEFINED), js_plus(2**53, 1)
    (nan, 9007199254740992)
    """
    ta, tb = type(a), type(b)
    if (ta is int or ta is float) and (tb is int or tb is float):
        if ta is int and tb is int:
            total = a + b  # type: ignore[operator]
            if -_SAFE <= a <= _SAFE and -_SAFE <= b <= _SAFE and -_SAFE <= total <= _SAFE:  # type: ignore[operator]
                return total
        total = js_number_value(a) + js_number_value(b)  # type: ignore[arg-type]
        return int(total) if ta is int and tb is int and total.is_integer() else total
    a, b = _primitive(a), _primitive(b)
    if isinstance(a, str) or isinstance(b, str):
        return js_string(a) + js_string(b)
    return js_plus(_number(a), _number(b))


def _number(value: object) -> int | float:
    """ToNumber of a primitive (``null`` 0, ``true`` 1, ``undefined`` NaN)."""
    if type(value) is int or type(value) is float:
        return value
    if value is None or isinstance(value, bool):
        return int(bool(value))
    return to_number(value) if value is not UNDEFINED else float("nan")


def js_number(value: object) -> int | float:
    """``Number(value)`` of a JSON value (an object or an array through its ``String()``).

    >>> js_number("05"), js_number(None), js_number([3])
    (5.0, 0, 3.0)
    """
    return _number(_primitive(value))


def js_greater_than_zero(value: object) -> bool:
    """``value > 0`` in JavaScript (a string compares as its number).

    >>> js_greater_than_zero("05"), js_greater_than_zero(float("nan")), js_greater_than_zero(1)
    (True, False, True)
    """
    return js_number(value) > 0


def js_minus(a: object, b: object) -> float:
    """``a - b`` in JavaScript (both as numbers).

    >>> js_minus("3", 1), js_minus(0.3, 0.1)
    (2.0, 0.19999999999999998)
    """
    return cast(float, js_plus(js_number(a), -js_number(b)))


# --- one entry, one session --------------------------------------------------------------
# What one entry adds (``attribution``, ``usage_figures``, ``usage_record``) is worked out
# in ``pisession.engine.stats``, while the file is read; the sums are made here.


def add_figures(totals: list[Any], figures: tuple[object, ...]) -> None:
    """Add one usage's figures to ``totals`` (a list of five), as JavaScript's ``+=``."""
    for i, value in enumerate(figures):
        now = totals[i]
        if type(now) is float and type(value) is float:
            totals[i] = now + value
        else:
            totals[i] = js_plus(now, value)


def tokens_of(totals: Sequence[object]) -> object:
    """``input + output + cacheRead + cacheWrite``, added left to right as Pi adds them.

    >>> tokens_of([1, 2, 3, 4, 0.5])
    10
    """
    return js_plus(js_plus(js_plus(totals[0], totals[1]), totals[2]), totals[3])


@dataclass(frozen=True)
class UsageRow:
    """One key of a breakdown: Pi's ``key``, ``cost`` and ``tokens``, with the four token
    figures the tokens are the sum of."""

    key: str
    cost: Any
    tokens: Any
    input: Any = 0
    output: Any = 0
    cacheRead: Any = 0
    cacheWrite: Any = 0

    def to_dict(self) -> dict[str, Any]:
        """Pi's row (``key``, ``cost``, ``tokens``) and the four token figures."""
        return {
            "key": self.key,
            "cost": self.cost,
            "tokens": self.tokens,
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cacheRead,
            "cacheWrite": self.cacheWrite,
        }


class Breakdown(list[UsageRow]):
    """A list of ``UsageRow`` in Pi's order; ``to_records()`` for a data frame."""

    def to_records(self) -> list[dict[str, Any]]:
        """One plain dict per row (``pandas.DataFrame(b.to_records())``).

        >>> breakdown_of([{"type": "usage", "provider": "p", "model": "m", "usage": {
        ...     "input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0,
        ...     "cost": {"total": 0.5}}}]).to_records()[0]["tokens"]
        3
        """
        return [row.to_dict() for row in self]

    def pi_rows(self) -> list[dict[str, Any]]:
        """The rows exactly as Pi's function returns them: ``{key, cost, tokens}``."""
        return [{"key": r.key, "cost": r.cost, "tokens": r.tokens} for r in self]


def breakdown_from_totals(totals: dict[str, list[Any]]) -> Breakdown:
    """Pi's last step: rows with cost or tokens above 0, by cost, highest first (stable).

    >>> [r.key for r in breakdown_from_totals({"a": [1, 0, 0, 0, 0.1], "b": [0, 0, 0, 0, 0],
    ...     "c": [1, 0, 0, 0, 0.2]})]
    ['c', 'a']
    """
    from ..tree import v8_sort

    rows = [UsageRow(key, t[4], tokens_of(t), t[0], t[1], t[2], t[3]) for key, t in totals.items()]
    rows = [r for r in rows if js_greater_than_zero(r.cost) or js_greater_than_zero(r.tokens)]
    if all(type(r.cost) in (int, float) and r.cost == r.cost for r in rows):
        return Breakdown(sorted(rows, key=lambda r: -r.cost))  # stable, as V8's
    return Breakdown(v8_sort(rows, lambda a, b: js_minus(b.cost, a.cost)))


def breakdown_of(entries: Iterable[object]) -> Breakdown:
    """Pi's ``getUsageCostBreakdown`` over ``entries`` (full entry dicts, file order).

    >>> rows = breakdown_of([
    ...     {"type": "message", "message": {"role": "assistant", "provider": "anthropic",
    ...      "model": "claude", "usage": {"input": 10, "output": 2, "cacheRead": 0,
    ...      "cacheWrite": 0, "cost": {"total": 0.25}}}},
    ...     {"type": "compaction", "usage": {"input": 5, "output": 1, "cacheRead": 0,
    ...      "cacheWrite": 0, "cost": {"total": 0.5}}}])
    >>> [(r.key, r.tokens, r.cost) for r in rows]
    [('Tools/summaries', 6, 0.5), ('anthropic/claude', 12, 0.25)]
    """
    totals: dict[str, list[Any]] = {}
    for entry in entries:
        found = attribution(entry)
        if found is not None:
            key, usage = found
            add_figures(totals.setdefault(key, [0, 0, 0, 0, 0]), usage_figures(usage))
    return breakdown_from_totals(totals)
