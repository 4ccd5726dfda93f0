"""How a helper process sends the columns of the half of a file it parsed
(``reader.ParsedLines``' pickled state): a column of strings as one text, a parent
column as the parents that are not the id of the row before. Unpickling a text and
splitting it is several times faster than unpickling a list of strings, and a parent
that is the id before it costs no second string.

>>> unpacked(packed(["a", None, "b"]))
['a', None, 'b']
"""

from __future__ import annotations

from itertools import compress, islice, repeat
from operator import is_not
from typing import Any, NamedTuple, cast

from .index import rows_after_others


def packed(column: list[Any]) -> object:
    """A column of strings (a few other values allowed) as one text joined by ``\\n``
    and the other values by row; the column itself when that cannot be undone.

    >>> packed(["a", None, "b"])
    ('a\\n\\nb', {1: None})
    >>> packed(["a\\nb", "c"])
    ['a\\nb', 'c']
    """
    others: list[int] = []
    try:
        text = "\n".join(column)  # in C, when every value is a string
    except TypeError:
        others = list(compress(range(len(column)), map(is_not, map(type, column), repeat(str))))
        if len(others) > len(column) // 2:
            return column
        strings = list(column)
        for row in others:
            strings[row] = ""
        text = "\n".join(strings)
    if not column or text.count("\n") != len(column) - 1:  # a string holds a newline
        return column
    return text, {row: column[row] for row in others}


class AfterIds(NamedTuple):
    """A parent column sent as the parents that are not the id of the row before."""

    others: dict[int, object]


def parents_packed(parents: list[Any], ids: list[Any]) -> object:
    """A parent column (``parent_ids``) packed against its rows' ``ids``: where every id
    is a string, the rows whose parent is not the id of the row before (the first row
    always), as ``AfterIds``; else as ``packed`` packs any column.

    >>> parents_packed([None, "a", "b", "a"], ["a", "b", "c", "d"])
    AfterIds(others={0: None, 3: 'a'})
    >>> unpacked(_, ["a", "b", "c", "d"])
    [None, 'a', 'b', 'a']
    """
    if not parents or len(parents) != len(ids) or not set(map(type, ids)) <= {str}:
        return packed(parents)
    # (a parent equal to a string id is that string)
    jumps = rows_after_others(parents, ids)
    return AfterIds({0: parents[0], **{row: parents[row] for row in jumps}})


def unpacked(
    sent: list[object] | tuple[str, dict[int, object]] | AfterIds,
    ids: list[object] | None = None,
) -> list[object]:
    """The column ``packed`` made this of (or ``parents_packed``, with the ``ids``).

    >>> unpacked(packed(["a", None, "", "b"]))
    ['a', None, '', 'b']
    """
    if type(sent) is list:
        return sent
    if type(sent) is AfterIds:
        column = [None, *islice(cast(list[object], ids), len(cast(list[object], ids)) - 1)]
        for row, value in sent.others.items():
            column[row] = value
        return column
    text, others = cast(tuple[str, dict[int, object]], sent)
    column = cast(list[object], text.split("\n"))
    for row, value in others.items():
        column[row] = value
    return column
