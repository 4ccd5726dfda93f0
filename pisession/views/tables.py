"""Records (the ``to_records()`` of fates, projections, usage and search hits) shown as a
table in a notebook: a ``pandas.DataFrame`` when pandas is installed (Colab and Binder
have it), else a plain HTML table with pisession's styles. pandas is never required.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from .display import _table, view

if TYPE_CHECKING:
    from pandas import DataFrame

#: One record: a column name to its JSON-ready value (a number, a string, None...).
Record = dict[str, Any]


class RecordsTable:
    """Records as an HTML table (what ``table`` gives without pandas)."""

    def __init__(self, records: list[Record]):
        self.records = records

    @property
    def columns(self) -> list[str]:
        """The keys of the records, in first-seen order.

        >>> RecordsTable([{"a": 1}, {"b": 2, "a": 3}]).columns
        ['a', 'b']
        """
        return list(dict.fromkeys(k for r in self.records for k in r))

    def _repr_html_(self) -> str:
        columns = self.columns
        rows = [[_cell(r.get(c)) for c in columns] for r in self.records]
        return view(_table(columns, rows))

    def __repr__(self) -> str:
        return f"<RecordsTable: {len(self.records)} rows, columns {', '.join(self.columns)}>"


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:,.6g}" if abs(value) < 1e6 else f"{value:,.0f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    # a narrow column wraps "Tools/summaries" after its slash instead of overprinting
    return html.escape("" if value is None else str(value)).replace("/", "/<wbr>")


def table(records: list[Record], pandas: bool = True) -> DataFrame | RecordsTable:
    """``pandas.DataFrame(records)`` when pandas can be imported (and ``pandas``), else a
    ``RecordsTable`` that a notebook shows as HTML.

    >>> t = table([{"model": "p/m", "tokens": 12_345}], pandas=False)
    >>> t
    <RecordsTable: 1 rows, columns model, tokens>
    >>> "12,345" in t._repr_html_() and "<td" in t._repr_html_()
    True
    """
    if pandas:
        try:
            import pandas as pd
        except ImportError:
            pass
        else:
            return pd.DataFrame(records)
    return RecordsTable(records)
