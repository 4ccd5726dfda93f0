"""The entry index: what the context rule needs to know about every entry, as columns.

An ``EntryIndex`` holds a light column per question the rule asks of every entry (its
type, its id, its parent's position, its message role) and a function that decodes an
entry in full; the fast engine's steps (``pisession.engine.context``) read it, so only
the entries that decide an answer are decoded.

>>> index = EntryIndex.of([{"id": "a", "type": "label"}, {"id": "b", "parentId": "a"}])
>>> index.parents, default_leaf(index)
([-1, 0], 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress, islice, repeat
from operator import eq, ne
from typing import Any, NamedTuple

from ..js.value import NO_KEY, UNDEFINED, js_key, truthy
from ..js.value import field as js_field
from ..projection import PiFailure
from ..tree import message_role


def id_index(ids: Sequence[object]) -> dict[Any, Any]:
    """Id -> position, as Pi's ``Map`` of entries (a later duplicate wins; ids compare
    as JavaScript ``Map`` keys do).

    >>> id_index(["a", "b", "a", None])
    {'a': 2, 'b': 1, None: 3}
    """
    if set(map(type, ids)) <= {str}:  # the usual case, in C
        return dict(zip(ids, range(len(ids))))
    index: dict[Any, Any] = {}
    for position, value in enumerate(ids):
        key = js_key(value)
        if key is not NO_KEY:
            index[key] = position
    return index


def of_type(index: EntryIndex, kind: str, positions: Sequence[int] | None = None) -> list[int]:
    """The positions (among ``positions``; default: every entry) whose entry is of type
    ``kind``, found in C.

    >>> of_type(EntryIndex.of([{"type": "label"}, {"type": "compaction"}]), "compaction")
    [1]
    """
    types = index.types
    if positions is None:
        found = types.count(kind)  # (most kinds are rare: a scan of the column, in C)
        if found * 64 > len(types):
            return list(compress(range(len(types)), map(eq, types, repeat(kind))))
        out, at = [], -1
        for _ in range(found):  # each one found by a scan in C from the one before
            at = types.index(kind, at + 1)
            out.append(at)
        return out
    if kind not in types:
        return []
    kinds = map(index.types.__getitem__, positions)
    return list(compress(positions, map(eq, kinds, repeat(kind))))


_PLAIN_PARENT_TYPES = {str, type(None), type(UNDEFINED)}


def parent_positions(
    parent_ids: Sequence[object],
    ids: Sequence[object],
    index_of: Callable[[], dict[Any, Any]] | None = None,
) -> list[int]:
    """The position of each entry's parent, or -1 where Pi's walk stops (``parentId``
    empty, null, absent or not found): ``parent_links``' parents.

    >>> parent_positions([None, "a", "zz", ""], ["a", "b", "", "d"])
    [-1, 0, -1, -1]
    """
    return parent_links(parent_ids, ids, index_of).parents


class Links(NamedTuple):
    """Each entry's parent position (``parent_positions``), and the ``jumps``: where ids
    are all different non-empty strings, the entries whose ``parentId`` is not the id of
    the entry before (and the first entry, unless its ``parentId`` is absent), in file
    order: every other entry's parent is the entry before it. None where ids are not
    such."""

    parents: list[int]
    jumps: list[int] | None


def rows_after_others(parent_ids: Sequence[object], ids: Sequence[object]) -> Iterator[int]:
    """The rows, from the second, whose ``parentId`` is not the id of the row before,
    found in C (the ids not copied); ``packing.parents_packed`` sends only those.

    >>> list(rows_after_others([None, "a", "a", "c"], ["a", "b", "c", "d"]))
    [2]
    """
    return compress(range(1, len(ids)), map(ne, islice(parent_ids, 1, None), ids))


def parent_links(
    parent_ids: Sequence[object],
    ids: Sequence[object],
    index_of: Callable[[], dict[Any, Any]] | None = None,
    unique: Callable[[], bool] | None = None,
    string_ids: bool | None = None,
    made: dict[Any, Any] | None = None,
) -> Links:
    """Each entry's parent position, and the entries whose parent is not the entry
    before (``Links``). ``index_of()`` gives the id index (``id_index(ids)`` by default)
    and ``unique()`` whether string ids are all different (worked out from ``ids`` by
    default); the index is asked for only when a parent must be looked up: where ids
    are all different strings, a parent that comes right before its child is known
    without one, and a long straight session needs no lookup at all. ``string_ids``:
    whether every id is a string, when the caller knows; ``made``: the id index, when
    already made.

    >>> parent_links([None, "a", "a"], ["a", "b", "c"])
    Links(parents=[-1, 0, 0], jumps=[0, 2])
    """
    index_of = index_of or (lambda: id_index(ids))
    unique = unique or (lambda: len(set(ids)) == len(ids))
    if string_ids is None:
        string_ids = set(map(type, ids)) <= {str}
    # (an empty id: asked of the id index when it is made, else of the ids, in C)
    if string_ids and len(ids) > 1 and "" not in (ids if made is None else made):
        # each parentId against the id before it (the first's: none), in C, the ids not
        # copied: the others are strings, those ids
        elsewhere = [0] if ne(parent_ids[0], UNDEFINED) else []
        elsewhere += rows_after_others(parent_ids, ids)
        if all(type(parent_ids[p]) in _PLAIN_PARENT_TYPES for p in elsewhere):
            # string ids, none of them falsy: a plain lookup stops where Pi's walk
            # stops; a parent that is not the one before needs the index (made first:
            # then ``unique`` may read it; the commands that draw the tree ask for it
            # anyway); falsy ones stop
            lookup = index_of().get if any(parent_ids[p] for p in elsewhere) else {}.get
            if unique():
                out = list(range(-1, len(ids) - 1))
                for position in elsewhere:
                    out[position] = lookup(parent_ids[position], -1)
                return Links(out, elsewhere)
            return Links(list(map(index_of().get, parent_ids, repeat(-1))), None)
    plain = string_ids and set(map(type, parent_ids)) <= _PLAIN_PARENT_TYPES
    if plain and "" not in ids:
        return Links(list(map(index_of().get, parent_ids, repeat(-1))), None)
    by_id = index_of()
    out = []
    for parent_id in parent_ids:
        key = js_key(parent_id) if truthy(parent_id) else NO_KEY
        out.append(-1 if key is NO_KEY else by_id.get(key, -1))
    return Links(out, None)


#: How many ids ``EntryIndex.position_of`` looks for by scanning the ids (in C, about a
#: millisecond for 200,000 of them) before it makes the whole id index: a command asks
#: for a few (its ``--leaf``, the first entry a compaction keeps).
SCANS_BEFORE_INDEX = 8

#: How many paths an index keeps (``context.path``): the few leaves one command asks about
#: (the default leaf, its fates, a diff's two leaves), each walked once.
PATHS_KEPT = 4


@dataclass(eq=False)
class EntryIndex:
    """What the rule needs to know about every entry, as columns, plus full decoding.

    ``types``, ``ids`` and ``roles`` hold ``entry.type``, ``entry.id`` and
    ``entry.message.role`` as JavaScript reads them (``UNDEFINED`` when absent,
    ``NO_MESSAGE`` for a message entry without a message); ``parents`` the position of
    each entry's parent (-1: none); ``by_id`` the id index. ``decode(position)`` gives
    the full entry, ``decode_many(positions)`` several at once.

    Not frozen: besides its columns it keeps state, made when first asked for and never
    changed after: ``by_id``, ``unique_ids`` and ``walked``, the paths of the last
    ``PATHS_KEPT`` leaves ``context.path`` walked.
    """

    types: Sequence[object]
    ids: Sequence[object]
    parents: Sequence[int]
    roles: Sequence[object]
    decode: Callable[[int], object]
    decode_many: Callable[[Sequence[int]], list[Any]] | None = None
    source: str = "<session>"
    #: ``entry.parentId`` as written (the tree view links some the context does not)
    parent_ids: Sequence[object] = ()
    #: the last ``PATHS_KEPT`` paths walked, by leaf (``context.path``)
    walked: dict[Any, Any] = field(default_factory=dict[Any, Any], init=False, repr=False)
    #: how many more ids ``position_of`` may look for by a scan before making ``by_id``
    scans: int = field(default=SCANS_BEFORE_INDEX, init=False, repr=False)
    #: the entries whose parent is not the entry before (``Links.jumps``; None: not known)
    jumps: list[int] | None = field(default=None, init=False, repr=False)

    @cached_property
    def by_id(self) -> dict[Any, Any]:
        """The id index (``id_index``), made when first asked for."""
        return id_index(self.ids)

    @cached_property
    def string_ids(self) -> bool:
        """Every id is a string (then ``==`` between ids is JavaScript's ``===``)."""
        return set(map(type, self.ids)) <= {str}

    @cached_property
    def unique_ids(self) -> bool:
        """No two entries share an id (then an id names exactly one entry)."""
        if "by_id" not in self.__dict__ and self.string_ids:
            return len(set(self.ids)) == len(self.ids)
        return len(self.by_id) == len(self.ids)

    @classmethod
    def of(cls, entries: Sequence[object], source: str = "<session>") -> EntryIndex:
        """The index of a list of entries (dicts, or any JSON values, in file order).

        >>> index = EntryIndex.of([{"id": "a", "type": "label"}, {"id": "b", "parentId": "a"}])
        >>> index.parents, index.types
        ([-1, 0], ['label', undefined])
        """
        return cls.of_columns(
            [js_field(e, "type") for e in entries],
            [js_field(e, "id") for e in entries],
            [js_field(e, "parentId") for e in entries],
            [message_role(e) for e in entries],
            entries.__getitem__,
            source=source,
        )

    @classmethod
    def of_columns(
        cls,
        types: Sequence[object],
        ids: Sequence[object],
        parent_ids: Sequence[object],
        roles: Sequence[object],
        decode: Callable[[int], object],
        decode_many: Callable[[Sequence[int]], list[Any]] | None = None,
        source: str = "<session>",
        by_id: dict[Any, Any] | None = None,
    ) -> EntryIndex:
        """The index from its columns (``parent_ids`` as written; resolved here);
        ``by_id``: the id index of string ids, when the reader made it."""
        index = cls(types, ids, [], roles, decode, decode_many, source, parent_ids)
        if by_id is not None:  # (every id a string, as ``by_id`` was made only then)
            index.__dict__.update(by_id=by_id, string_ids=True)
        index.parents, index.jumps = parent_links(
            parent_ids, ids, lambda: index.by_id, lambda: index.unique_ids, index.string_ids, by_id
        )
        return index

    def __len__(self) -> int:
        return len(self.types)

    def entries(self, positions: Sequence[int]) -> list[Any]:
        """The full entries at these positions (decoded together when possible)."""
        if self.decode_many is not None:
            return self.decode_many(positions)
        return [self.decode(p) for p in positions]

    def position_of(self, entry_id: object) -> int | None:
        """Position of the entry with this id (the later one when ids repeat), or None.
        The first ``SCANS_BEFORE_INDEX`` questions about a string id among all-different
        string ids are answered by a scan in C; later ones make the id index.

        >>> index = EntryIndex.of([{"id": "a"}, {"id": "b", "parentId": "a"}])
        >>> index.position_of("b"), index.position_of("zz"), "by_id" in index.__dict__
        (1, None, False)
        """
        key = js_key(entry_id)
        if key is NO_KEY:
            return None
        scan = self.scans and "by_id" not in self.__dict__ and type(key) is str
        if scan and self.string_ids and self.unique_ids:
            self.scans -= 1
            try:
                return self.ids.index(key)
            except ValueError:
                return None
        return self.by_id.get(key)

    def fail(self, position: int, reason: str) -> PiFailure:
        """A ``PiFailure`` naming the entry at ``position``."""
        return PiFailure(self.source, None, reason, position=position)


def default_leaf(index: EntryIndex) -> int | None:
    """Pi's leaf after loading: the last entry in file order, whatever its type; none
    (an empty path, an empty context) when that entry's ``id`` is ``null``.

    Pi's ``SessionManager`` sets its leaf to the last entry's ``id``, and
    ``buildSessionPath`` returns no path for a leaf that is ``null``; an ``id`` that is
    missing (undefined) falls back to the last entry itself.

    >>> default_leaf(EntryIndex.of([{"id": "a"}, {"id": "b", "parentId": "a"}]))
    1
    >>> default_leaf(EntryIndex.of([{"id": "a"}, {"id": None, "parentId": "a"}])) is None
    True
    >>> default_leaf(EntryIndex.of([{"id": "a"}, {"parentId": "a"}]))
    1
    """
    if not len(index):
        return None
    last = len(index) - 1
    return None if index.ids[last] is None else last


def last_rank(
    index: EntryIndex, path: Sequence[int], kind: str, stop: int | None = None
) -> int | None:
    """The rank of the last entry of type ``kind`` in ``path[:stop]`` (None: none), found
    in C, a stretch at a time going back from ``stop`` (the nearer, the sooner).

    >>> index = EntryIndex.of([{"type": "compaction"}, {"type": "label"}])
    >>> last_rank(index, [0, 1], "compaction"), last_rank(index, [0, 1], "label", 1)
    (0, None)
    """
    types = index.types
    if kind not in types:  # (a scan of the column, in C: most kinds are rare)
        return None
    end = len(path) if stop is None else stop
    width = 64
    while end > 0:
        start = max(0, end - width)
        kinds = list(map(types.__getitem__, path[start:end]))
        kinds.reverse()
        try:
            return end - 1 - kinds.index(kind)
        except ValueError:
            end, width = start, width * 8
    return None
