"""The entry tree: roots, children, leaves, labels, the session name, and the damage
a hand-edited file can hold (dangling parents, duplicate ids, parent cycles).

Everything here works on positions in the entry list (ids can repeat or be missing)
and on the parent column of a ``context.EntryIndex``; ``entry_graph`` gives the same
tree as a ``networkx.DiGraph`` for drawing and analysis.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import compress, filterfalse, repeat
from operator import and_, eq, is_, lt, not_, or_, truth
from typing import TYPE_CHECKING, Any, Protocol, overload

from .errors import PisessionError
from .js.date import DateConversionError, js_time_ms
from .js.sort import v8_sort as v8_sort  # (its home was here: still importable)
from .js.value import (
    CANNOT_CONVERT,
    NO_KEY,
    UNDEFINED,
    field,
    js_key,
    js_trim,
    nullish,
    quoted,
    strict_equal,
    truthy,
)
from .piversions import pi_name

if TYPE_CHECKING:
    import networkx


class TreeIndex(Protocol):
    """The columns of an entry index the tree reads (``engine.context.EntryIndex`` has
    them; the engine sits above this layer): by position, each entry's type, id, role,
    ``parentId`` as written and parent position (-1: none); the id index; the entry."""

    @property
    def types(self) -> Sequence[object]: ...
    @property
    def ids(self) -> Sequence[object]: ...
    @property
    def roles(self) -> Sequence[object]: ...
    @property
    def parent_ids(self) -> Sequence[object]: ...
    @property
    def parents(self) -> Sequence[int]: ...
    @property
    def by_id(self) -> Mapping[object, int]: ...
    @property
    def unique_ids(self) -> bool: ...
    @property
    def decode(self) -> Callable[[int], object]: ...
    def __len__(self) -> int: ...


class NamedSession(Protocol):
    """What ``shown_name`` reads of a session: its ``name`` (which may raise)."""

    @property
    def name(self) -> str | None: ...


class _NoMessage:
    """The role column's mark for a ``message`` entry whose ``message`` is null or
    absent: reading its role throws in JavaScript. One object (also across pickling)."""

    def __repr__(self) -> str:
        return "NO_MESSAGE"

    def __reduce__(self) -> str:
        return "NO_MESSAGE"


NO_MESSAGE = _NoMessage()


def message_role(entry: object) -> object:
    """``entry.message.role`` as JavaScript reads it (``NO_MESSAGE`` where it throws).

    >>> message_role({"message": {"role": "user"}}), message_role({"message": None})
    ('user', NO_MESSAGE)
    """
    message = field(entry, "message")
    return NO_MESSAGE if nullish(message) else field(message, "role")


class Positions(Sequence[int]):
    """Ascending positions of entries held compactly: a ``range`` when they follow one
    another with no gap (every entry of a file of roots), else an ``array('q')`` (8
    bytes each, where a list holds a Python int each). Read as a list of ints: it
    compares equal to a list of the same positions, shows as one, and a slice of it is
    one.

    >>> roots = Positions.of([0, 1, 2])
    >>> roots, roots == [0, 1, 2], roots[-1], roots[:2], 5 in roots, list(reversed(roots))
    ([0, 1, 2], True, 2, [0, 1], False, [2, 1, 0])
    >>> Positions.of(p for p in range(6) if p % 2).items
    array('q', [1, 3, 5])
    """

    __slots__ = ("items",)

    def __init__(self, items: range | array[int]) -> None:
        self.items = items

    @classmethod
    def of(cls, positions: Iterable[int]) -> Positions:
        """``positions`` (ascending, each once) held compactly."""
        items = array("q", positions)
        if not items or items[-1] - items[0] + 1 == len(items):  # no gap: a range
            return cls(range(items[0], items[-1] + 1) if items else range(0))
        return cls(items)

    def __len__(self) -> int:
        return len(self.items)

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> list[int]: ...
    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            return list(self.items[index])
        return self.items[index]

    def __iter__(self) -> Iterator[int]:
        return iter(self.items)

    def __reversed__(self) -> Iterator[int]:
        return reversed(self.items)

    def __contains__(self, position: object) -> bool:
        return position in self.items

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Positions):
            other = other.items
        if not isinstance(other, (list, tuple, range, array)):
            return NotImplemented
        return len(other) == len(self.items) and all(map(eq, self.items, other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self.items))


#: ``bytes.translate`` table turning the bytes 0 and 1 into 1 and 0.
_NOT = bytes([1, 0, *range(2, 256)])


@dataclass(eq=False)
class Shape:
    """The tree's shape: roots, leaves, and every entry's children in Pi's ``getTree``
    order (by timestamp, then file order). An entry that is the child of the line before
    it (nearly every entry Pi writes) is marked by a byte (``follows``); only the other
    children are kept as one column sorted by parent, so a million-entry chain costs a
    million bytes. Not frozen: the straight runs (``chain``) are worked out once, when
    first asked for, and kept.

    >>> from pisession.engine.index import EntryIndex
    >>> shape = Shape.of(EntryIndex.of([{"id": "a"}, {"id": "b", "parentId": "a"},
    ...                                 {"id": "c", "parentId": "a"}]))
    >>> shape.roots, shape.leaves, shape.children(0), bytes(shape.follows)
    ([0], [1, 2], [1, 2], b'\\x00\\x01\\x00')
    """

    #: ``Positions``: a range when every entry is one (a file of roots), else an array
    roots: Positions
    leaves: Positions
    #: 1 at each entry that is the child of the entry just before it in the file
    follows: bytearray
    #: the other entries with a parent, sorted by parent position (file order among
    #: siblings)
    order: list[int]
    #: the parent position of each item of ``order`` (sorted)
    keys: list[int]
    #: timestamp of an entry (for siblings), when the index was built with one
    timestamp: Callable[[int], object] | None = None
    #: the error where Pi's ``getTree`` throws on an entry: ``failure(position, reason)``
    failure: Callable[[int, str], Exception] | None = None

    @classmethod
    def of(
        cls,
        index: TreeIndex,
        timestamp: Callable[[int], object] | None = None,
        parents: Sequence[int] | None = None,
        failure: Callable[[int, str], Exception] | None = None,
    ) -> Shape:
        """The shape of an ``EntryIndex`` as Pi's tree view links it (``tree_parents``;
        ``parents``: other links, such as the context's ``index.parents``);
        ``timestamp(position)`` orders siblings; ``failure`` makes the error where Pi
        throws (default ``index.fail``: a ``PiFailure`` naming the entry)."""
        parents = tree_parents(index) if parents is None else parents
        size = len(parents)
        jumps = getattr(index, "jumps", None)
        if jumps is not None and parents is index.parents:  # (known: the others follow)
            follows = bytearray(b"\1") * size
            for position in jumps:
                follows[position] = 0
        else:  # in C: the entries whose parent is the entry before
            follows = bytearray(map(eq, parents, range(-1, size - 1)))
        follows[:1] = b"\0" * min(size, 1)  # (the first has none)
        # the others, few in a session Pi wrote (in C): a root has no parent, or itself
        # (a cycle of one)
        others = array("q", compress(range(size), follows.translate(_NOT)))
        links = list(map(parents.__getitem__, others))
        rooted = bytes(map(or_, map(lt, links, repeat(0)), map(eq, links, others)))
        roots = Positions.of(compress(others, rooted))
        order = sorted(compress(others, rooted.translate(_NOT)), key=parents.__getitem__)
        keys = list(map(parents.__getitem__, order))
        # a leaf: no child follows it, and it is no other entry's parent
        ends = compress(range(size), (follows[1:] + b"\0").translate(_NOT))
        leaves = Positions.of(filterfalse(set(keys).__contains__, ends))
        made = failure or getattr(index, "fail", None)
        return cls(roots, leaves, follows, order, keys, timestamp, made)

    def __len__(self) -> int:
        return len(self.follows)

    def _others(self, position: int) -> list[int]:
        """The children of ``position`` that do not follow it, in file order."""
        low = bisect_left(self.keys, position)
        return self.order[low : bisect_right(self.keys, position, low)]

    def children_in_file_order(self, position: int) -> list[int]:
        """The children of the entry at ``position`` in file order (``children`` before
        Pi's sort by timestamp).

        >>> from pisession.engine.index import EntryIndex
        >>> Shape.of(EntryIndex.of([{"id": "a"}, {"id": "c", "parentId": "b"},
        ...                         {"id": "b", "parentId": "a"}])).children_in_file_order(2)
        [1]
        """
        kids = self._others(position)
        after = position + 1
        if after < len(self.follows) and self.follows[after]:
            insort(kids, after)
        return kids

    def children(self, position: int) -> list[int]:
        """The children of the entry at ``position``, in Pi's order. Where a child's
        timestamp has no primitive value (``{"toString": 1}``), Pi's sort throws: so does
        this (``failure``), as soon as there are two children to compare."""
        kids = self.children_in_file_order(position)
        if len(kids) > 1 and self.timestamp is not None:
            times = {p: self._when(p) for p in kids}
            kids = v8_sort(kids, lambda a, b: times[a] - times[b])
        return kids

    def is_leaf(self, position: int) -> bool:
        """Whether the entry at ``position`` has no child (is one of ``leaves``), asked
        of the columns, without a set of the leaves.

        >>> from pisession.engine.index import EntryIndex
        >>> shape = Shape.of(EntryIndex.of([{"id": "a"}, {"id": "b", "parentId": "a"}]))
        >>> shape.is_leaf(0), shape.is_leaf(1)
        (False, True)
        """
        after = position + 1
        if after < len(self.follows) and self.follows[after]:
            return False
        keys = self.keys
        low = bisect_left(keys, position)
        return low == len(keys) or keys[low] != position

    def only_child(self, position: int) -> int | None:
        """The one child of the entry at ``position`` (None: none, or several).

        >>> from pisession.engine.index import EntryIndex
        >>> index = EntryIndex.of([{"id": "a"}, {"id": "b", "parentId": "a"},
        ...                        {"id": "c", "parentId": "b"}, {"id": "d", "parentId": "b"}])
        >>> [Shape.of(index).only_child(p) for p in range(4)]
        [1, None, None, None]
        """
        kids = self.children_in_file_order(position)
        return kids[0] if len(kids) == 1 else None

    @cached_property
    def _straight(self) -> bytearray:
        """1 at each entry whose only child is the next entry of the file (found in C:
        the next entry follows it, and no other entry has it as parent)."""
        straight = self.follows[1:] + b"\0"
        for parent in set(self.keys):
            straight[parent] = 0
        return straight

    def chain(self, start: int) -> list[int]:
        """``start`` and its single-child descendants: one straight run of the tree.

        >>> from pisession.engine.index import EntryIndex
        >>> Shape.of(EntryIndex.of([{"id": "a"}, {"id": "b", "parentId": "a"},
        ...                         {"id": "c", "parentId": "b"}])).chain(0)
        [0, 1, 2]
        """
        straight = self._straight
        run: list[int] = []
        position: int | None = start
        while position is not None:
            # where the entries stop following one another in the file (found in C)
            end = straight.find(0, position)
            end = len(straight) - 1 if end < 0 else end
            run.extend(range(position, end + 1))
            position = self.only_child(end)
        return run

    def _when(self, position: int) -> float:
        try:
            return js_time_ms(self.timestamp(position))  # type: ignore[misc]
        except DateConversionError:
            reason = (
                "the entry has a timestamp JavaScript cannot turn into a date, and siblings: "
                f"{pi_name()}'s getTree throws TypeError: {CANNOT_CONVERT} sorting them"
            )
            if self.failure is None:
                raise DateConversionError(reason) from None
            raise self.failure(position, reason) from None

    def children_map(self) -> dict[int, list[int]]:
        """Children of every entry (a dict of lists: for small trees and drawings). Pi
        sorts only the children of entries reachable from a root; those caught in a
        parent cycle keep file order (and a timestamp Pi cannot convert does not fail).

        >>> from pisession.engine.index import EntryIndex
        >>> Shape.of(EntryIndex.of([{"id": "a"}, {"id": "b", "parentId": "a"}])).children_map()
        {0: [1], 1: []}
        """
        out: dict[int, list[int]] = {p: [] for p in range(len(self))}
        reachable = self._reachable()
        in_file = self.children_in_file_order
        for parent in sorted({*compress(range(-1, len(self) - 1), self.follows), *self.keys}):
            out[parent] = self.children(parent) if parent in reachable else in_file(parent)
        return out

    def _reachable(self) -> set[int]:
        """The entries a walk down from the roots reaches (not those in parent cycles)."""
        seen: set[int] = set()
        stack = list(self.roots)
        while stack:
            position = stack.pop()
            if position not in seen:
                seen.add(position)
                stack.extend(self.children_in_file_order(position))
        return seen

    def unreached(self) -> list[int]:
        """The entries no walk down from a root reaches (their parents loop), in file order.

        >>> from pisession.engine.index import EntryIndex
        >>> Shape.of(EntryIndex.of([{"id": "a"}, {"id": "b", "parentId": "c"},
        ...                         {"id": "c", "parentId": "b"}])).unreached()
        [1, 2]
        """
        reached = self._reachable()
        return [p for p in range(len(self)) if p not in reached]

    def preorder(self) -> Iterator[tuple[int, int]]:
        """``(position, depth)`` walking the tree as Pi's ``getTree`` orders it: roots in
        file order, children by timestamp. Entries caught in a parent cycle are not
        reachable from a root and are not yielded (``find_cycles`` reports them).

        >>> from pisession.engine.index import EntryIndex
        >>> list(Shape.of(EntryIndex.of([{"id": "a"}, {"id": "b", "parentId": "a"},
        ...                              {"id": "c"}])).preorder())
        [(0, 0), (1, 1), (2, 0)]
        """
        stack = [(p, 0) for p in reversed(self.roots)]
        while stack:
            position, depth = stack.pop()
            yield position, depth
            stack.extend((c, depth + 1) for c in reversed(self.children(position)))


#: The types of every ``parentId`` of a file as Pi writes them.
_STRING_OR_NULL = {str, type(None)}


def tree_parents(index: TreeIndex) -> Sequence[int]:
    """Each entry's parent as Pi's tree view (``getTree``) links it, -1 for a root: a
    ``parentId`` of ``null`` or equal to the entry's own id makes a root; any other is
    looked up among the entries' ids, falsy ones too (``""``, ``0``, ``false``, an absent
    one finding an entry without id), and a parent not found makes a root. Where the
    ``parentId`` is a non-empty string, as Pi writes it, this is the context's link
    (then the index's own column is given, not to be changed).

    >>> from pisession.engine.index import EntryIndex
    >>> tree_parents(EntryIndex.of([{"id": ""}, {"id": "b", "parentId": ""}]))
    [-1, 0]
    >>> EntryIndex.of([{"id": ""}, {"id": "b", "parentId": ""}]).parents
    [-1, -1]
    """
    parent_ids, ids = index.parent_ids, index.ids
    jumps = getattr(index, "jumps", None)
    # (where the index knows which parents are not the entry before: those alone; the
    # others are the ids before them, non-empty strings, and a first entry without a
    # parentId finds no entry among string ids)
    odd = parent_ids if jumps is None else [parent_ids[p] for p in jumps]
    if set(map(type, odd)) <= _STRING_OR_NULL and "" not in odd:
        return index.parents  # as Pi writes them: the context's links (null: a root)
    parents = list(index.parents)
    # in C: the entries whose parentId is not a non-empty string
    plain = map(and_, map(is_, map(type, parent_ids), repeat(str)), map(truth, parent_ids))
    for position in compress(range(len(parent_ids)), map(not_, plain)):  # (not a list)
        parent_id = parent_ids[position]
        if parent_id is None or strict_equal(parent_id, ids[position]):
            parents[position] = -1
        else:
            key = js_key(parent_id)
            parents[position] = -1 if key is NO_KEY else index.by_id.get(key, -1)
    return parents


def dangling_parents(index: TreeIndex) -> list[int]:
    """Entries whose ``parentId`` is set but names no entry (Pi treats them as roots).

    >>> from pisession.engine.index import EntryIndex
    >>> dangling_parents(EntryIndex.of([{"id": "a", "parentId": "gone"}, {"id": "b"}]))
    [0]
    """
    parents = index.parents
    unfound = [p for p in range(len(parents)) if parents[p] < 0]
    return [p for p in unfound if truthy(field(index.decode(p), "parentId"))]


def duplicate_ids(ids: Sequence[object]) -> dict[object, list[int]]:
    """Ids used by more than one entry, with their positions (the last one wins).

    >>> duplicate_ids(["a", "b", "a"])
    {'a': [0, 2]}
    """
    seen: dict[object, list[int]] = {}
    for position, value in enumerate(ids):
        key = js_key(value)
        if key is not NO_KEY and key is not UNDEFINED:
            seen.setdefault(key, []).append(position)
    return {k: v for k, v in seen.items() if len(v) > 1}


def find_cycles(parents: Sequence[int]) -> list[list[int]]:
    """Every parent cycle, as positions in walking order (child -> parent -> ...).

    >>> find_cycles([1, 0, 2])
    [[0, 1], [2]]
    """
    if all(map(lt, parents, range(len(parents)))):
        return []  # every parent stands before its child (the usual file): no loop possible
    state = bytearray(len(parents))  # 0 new, 1 on the current walk, 2 done
    cycles = []
    for start in range(len(parents)):
        if state[start]:
            continue
        walk = []
        current = start
        while current >= 0 and state[current] == 0:
            state[current] = 1
            walk.append(current)
            current = parents[current]
        if current >= 0 and state[current] == 1:
            cycles.append(walk[walk.index(current) :])
        for p in walk:
            state[p] = 2
    return cycles


def resolved_labels(label_entries: Sequence[object]) -> dict[object, object]:
    """Labels by target id (``js_key``): ``label`` entries in file order; an empty or
    missing label clears.

    >>> resolved_labels([{"type": "label", "targetId": "a", "label": "v1"},
    ...                  {"type": "label", "targetId": "a", "label": ""}])
    {}
    """
    labels: dict[object, object] = {}
    for entry in label_entries:
        if field(entry, "type") != "label":
            continue
        key = js_key(field(entry, "targetId"))
        if key is NO_KEY:
            continue
        label = field(entry, "label")
        if truthy(label):
            labels[key] = label
        else:
            labels.pop(key, None)
    return labels


#: V8's message where ``entry.name?.trim()`` meets a name that is not a string.
NAME_NOT_TEXT = "entry.name?.trim is not a function"


class NameNotText(PisessionError):
    """A ``session_info`` name that is neither a string nor null: Pi's
    ``getSessionName`` (and its session list) throws a TypeError on it."""


def trimmed_name(value: object) -> str | None:
    """``entry.name?.trim() || undefined``, as Pi reads a ``session_info`` name: a string
    trimmed as JavaScript trims (empty: no name), null or absent: no name, anything else
    (a number, ``false``, ``{}``, an array): JavaScript throws, and so does this
    (:class:`NameNotText`).

    >>> trimmed_name(" Fix the API "), trimmed_name(" "), trimmed_name(None)
    ('Fix the API', None, None)
    >>> trimmed_name({})
    Traceback (most recent call last):
    ...
    pisession.tree.NameNotText: TypeError: entry.name?.trim is not a function
    """
    if isinstance(value, str):
        return js_trim(value) or None
    if value is None or value is UNDEFINED:
        return None
    raise NameNotText(f"TypeError: {NAME_NOT_TEXT}")


def session_name(
    info_entries: Sequence[object], fail: Callable[[int, str], Exception] | None = None
) -> str | None:
    """Pi's ``getSessionName``: the latest ``session_info`` decides (an empty name
    clears; a name that is not a string throws, as in Pi: ``fail(k, reason)`` makes the
    error for the k-th of ``info_entries``, default :class:`NameNotText`).

    >>> session_name([{"type": "session_info", "name": " Fix the API "}])
    'Fix the API'
    >>> session_name([{"type": "session_info", "name": 42}, {"type": "session_info"}])
    """
    for number in range(len(info_entries) - 1, -1, -1):
        entry = info_entries[number]
        if field(entry, "type") == "session_info":
            name = field(entry, "name")
            try:
                return trimmed_name(name)
            except NameNotText:
                reason = (
                    f"the session_info entry's name {quoted(name)} is not a string: {pi_name()}'s "
                    f"getSessionName throws TypeError: {NAME_NOT_TEXT}"
                )
                raise (fail(number, reason) if fail else NameNotText(reason)) from None
    return None


def shown_name(session: NamedSession) -> str | None:
    """The session name as a view shows it: the name, None when there is none, or, where
    Pi's ``getSessionName`` throws, a note saying so (``Session.name`` raises there).

    >>> import pisession
    >>> shown_name(pisession.load(pisession.sample_path("tour")))
    'Tour of the session format'
    """
    try:
        return session.name
    except PisessionError as exc:
        line = getattr(exc, "line", None)
        where = f" (line {line})" if line else ""
        return f"(no name: {pi_name()}'s getSessionName throws{where}: {NAME_NOT_TEXT})"


def entry_graph(
    index: TreeIndex,
    lines: Sequence[int] | None = None,
    labels: Mapping[object, object] | None = None,
) -> networkx.DiGraph:
    """The entry tree as a ``networkx.DiGraph``: nodes are positions, edges parent -> child.

    Node attributes: ``id``, ``type``, ``role`` (message entries), ``label``, ``line``.

    >>> from pisession.engine.index import EntryIndex
    >>> g = entry_graph(EntryIndex.of([{"id": "a", "type": "message",
    ...     "message": {"role": "user"}}, {"id": "b", "parentId": "a", "type": "label"}]))
    >>> list(g.edges), g.nodes[0]["role"]
    ([(0, 1)], 'user')
    """
    import networkx as nx

    labels = labels or {}
    graph = nx.DiGraph()
    for position in range(len(index)):
        entry_id, kind = index.ids[position], index.types[position]
        role = index.roles[position] if kind == "message" else None
        key = js_key(entry_id)
        graph.add_node(
            position,
            id=None if entry_id is UNDEFINED else entry_id,
            type=None if kind is UNDEFINED else kind,
            role=None if role is UNDEFINED or role is NO_MESSAGE else role,
            label=None if key is NO_KEY else labels.get(key),
            line=lines[position] if lines is not None else None,
        )
    for child, parent in enumerate(index.parents):
        if parent >= 0 and parent != child:
            graph.add_edge(parent, child)
    return graph


def problems(index: TreeIndex) -> dict[str, Any]:
    """Structural damage of an index: dangling parents, duplicate ids and cycles, by
    position (``pisession check`` and ``Session.problems``).

    >>> from pisession.engine.index import EntryIndex
    >>> problems(EntryIndex.of([{"id": "a"}, {"id": "a", "parentId": "x"}]))
    {'dangling_parents': [1], 'duplicate_ids': {'a': [0, 1]}, 'cycles': []}
    """
    return {
        "dangling_parents": dangling_parents(index),
        "duplicate_ids": {} if index.unique_ids else duplicate_ids(index.ids),
        "cycles": find_cycles(index.parents),
    }
