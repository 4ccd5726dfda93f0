"""The fast engine: the context rule of ``pisession.rule``, for files of any size.

``pisession.rule`` states the rule in the chapter's five steps over a list of entries;
this module gives the same answers (the tests hold the two equal on every file of the
corpus and on generated sessions) without decoding what the answer does not need. What
an entry contributes (``entry_messages``, ``apply_context_edit``) is the rule's own,
imported from there. For one leaf:

1. ``walk_path``       follow ``parentId`` from the leaf to a root, then reverse;
2. ``read_settings``   thinking level and model, from the *whole* path;
3. ``select``          the newest compaction on the path, its kept range (system
                       messages dropped) and every entry after it: the *selection*;
4. ``collect_edits``   the context edits among the selected entries, by target id;
5. ``project``         what each selected entry contributes, after its edit: the
                       *projection*, whose messages are the context.

The steps read an ``EntryIndex``: a light column per question the rule asks of every
entry (its type, its id, its parent's position, its message role), and a function that
decodes an entry in full. Only the entries that decide the answer are decoded, so the
same steps serve a ten-line example and a million-line file.

>>> from pisession.build import new_message as m
>>> index = EntryIndex.of([m("u1", None, "user", 1), m("a1", "u1", "assistant", 2)])
>>> [item.position for item in project(index).items]
[0, 1]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress, repeat
from operator import eq, ne
from typing import Any, NamedTuple, cast

from ..errors import CycleError, PisessionError
from ..js.date import DateConversionError
from ..js.value import (
    NO_KEY,
    UNDEFINED,
    ToPrimitiveError,
    js_key,
    quoted,
    strict_equal,
    truthy,
    value_text,
)
from ..js.value import field as js_field
from ..request import TargetModel
from ..rule import (  # the rule's own: what an entry contributes
    EDITABLE_ROLES,  # noqa: F401 (for the views)
    PiFailure,
    apply_context_edit,
    entry_messages,
    message_messages,
)
from ..tree import NO_MESSAGE, message_role

#: How a notebook shows a ``Context`` or a ``Projection`` (their ``_repr_html_``). Drawing
#: is the views' work, not the engine's: the facade (``pisession.session``) passes the
#: views' function in when it is imported; None shows the one-line ``repr``.
html_view: Callable[[Any], str] | None = None


# --- the index ------------------------------------------------------------------------


def id_index(ids: Sequence) -> dict:
    """Id -> position, as Pi's ``Map`` of entries (a later duplicate wins; ids compare
    as JavaScript ``Map`` keys do).

    >>> id_index(["a", "b", "a", None])
    {'a': 2, 'b': 1, None: 3}
    """
    if set(map(type, ids)) <= {str}:  # the usual case, in C
        return dict(zip(ids, range(len(ids))))
    index: dict = {}
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
    if positions is None:
        return list(compress(range(len(index.types)), map(eq, index.types, repeat(kind))))
    kinds = map(index.types.__getitem__, positions)
    return list(compress(positions, map(eq, kinds, repeat(kind))))


_PLAIN_PARENT_TYPES = {str, type(None), type(UNDEFINED)}


def parent_positions(
    parent_ids: Sequence,
    ids: Sequence,
    index_of: Callable[[], dict] | None = None,
    unique: Callable[[], bool] | None = None,
) -> list[int]:
    """The position of each entry's parent, or -1 where Pi's walk stops (``parentId``
    empty, null, absent or not found). ``index_of()`` gives the id index
    (``id_index(ids)`` by default) and ``unique()`` whether string ids are all different
    (worked out from ``ids`` by default); the index is asked for only when a parent must
    be looked up: where ids are all different strings, a parent that comes right before
    its child is known without one, and a long straight session needs no lookup at all.

    >>> parent_positions([None, "a", "zz", ""], ["a", "b", "", "d"])
    [-1, 0, -1, -1]
    """
    index_of = index_of or (lambda: id_index(ids))
    unique = unique or (lambda: len(set(ids)) == len(ids))
    plain = set(map(type, parent_ids)) <= _PLAIN_PARENT_TYPES and set(map(type, ids)) <= {str}
    if plain and "" not in ids:
        # string ids, none of them falsy: a plain lookup stops where Pi's walk stops
        if len(ids) > 1:
            previous = [UNDEFINED, *ids[:-1]]
            elsewhere = list(compress(range(len(ids)), map(ne, parent_ids, previous)))
            # a parent that is not the one before needs the index (made first: then
            # ``unique`` may read it); falsy ones stop
            lookup = index_of().get if any(parent_ids[p] for p in elsewhere) else {}.get
            if unique():
                out = list(range(-1, len(ids) - 1))
                for position in elsewhere:
                    out[position] = lookup(parent_ids[position], -1)
                return out
        return list(map(index_of().get, parent_ids, repeat(-1)))
    by_id = index_of()
    out = []
    for parent_id in parent_ids:
        key = js_key(parent_id) if truthy(parent_id) else NO_KEY
        out.append(-1 if key is NO_KEY else by_id.get(key, -1))
    return out


#: How many paths an index keeps (``walk_path``): the few leaves one command asks about
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
    ``PATHS_KEPT`` leaves ``walk_path`` walked.
    """

    types: Sequence
    ids: Sequence
    parents: Sequence[int]
    roles: Sequence
    decode: Callable[[int], object]
    decode_many: Callable[[Sequence[int]], list] | None = None
    source: str = "<session>"
    #: ``entry.parentId`` as written (the tree view links some the context does not)
    parent_ids: Sequence = ()
    #: the last ``PATHS_KEPT`` paths walked, by leaf (``walk_path``)
    walked: dict = field(default_factory=dict, init=False, repr=False)

    @cached_property
    def by_id(self) -> dict:
        """The id index (``id_index``), made when first asked for."""
        return id_index(self.ids)

    @cached_property
    def unique_ids(self) -> bool:
        """No two entries share an id (then an id names exactly one entry)."""
        if "by_id" not in self.__dict__ and set(map(type, self.ids)) <= {str}:
            return len(set(self.ids)) == len(self.ids)
        return len(self.by_id) == len(self.ids)

    @classmethod
    def of(cls, entries: Sequence, source: str = "<session>") -> EntryIndex:
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
        types: Sequence,
        ids: Sequence,
        parent_ids: Sequence,
        roles: Sequence,
        decode: Callable[[int], object],
        decode_many: Callable[[Sequence[int]], list] | None = None,
        source: str = "<session>",
    ) -> EntryIndex:
        """The index from its columns (``parent_ids`` as written; resolved here)."""
        index = cls(types, ids, [], roles, decode, decode_many, source, parent_ids)
        found = parent_positions(parent_ids, ids, lambda: index.by_id, lambda: index.unique_ids)
        cast(list, index.parents).extend(found)
        return index

    def __len__(self) -> int:
        return len(self.types)

    def entries(self, positions: Sequence[int]) -> list:
        """The full entries at these positions (decoded together when possible)."""
        if self.decode_many is not None:
            return self.decode_many(positions)
        return [self.decode(p) for p in positions]

    def position_of(self, entry_id: object) -> int | None:
        """Position of the entry with this id (the later one when ids repeat), or None."""
        key = js_key(entry_id)
        return None if key is NO_KEY else self.by_id.get(key)

    def fail(self, position: int, reason: str) -> PiFailure:
        """A ``PiFailure`` naming the entry at ``position``."""
        return PiFailure(self.source, None, reason, position=position)


# --- 1. the path ------------------------------------------------------------------------


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


def walk_path(index: EntryIndex, leaf: int | None) -> list[int]:
    """Positions from the root to ``leaf`` (inclusive), following ``parentId``; no
    entries (``leaf`` None, as ``default_leaf`` gives for an empty session): no path.

    Raises ``CycleError`` (naming the loop) where Pi 0.87.1 would loop forever.

    >>> index = EntryIndex.of([{"id": "a"}, {"id": "b", "parentId": "a"},
    ...                        {"id": "c", "parentId": "a"}])
    >>> walk_path(index, 2)
    [0, 2]
    """
    walked = index.walked
    if leaf in walked:
        return list(walked[leaf])
    parents = index.parents
    path: list[int] = []
    append = path.append
    current = -1 if leaf is None else leaf
    for _ in range(len(parents) + 1):
        if current < 0:
            path.reverse()
            if len(walked) >= PATHS_KEPT:
                del walked[next(iter(walked))]
            walked[leaf] = tuple(path)
            return path
        append(current)
        current = parents[current]
    raise _cycle_error(index, path)


def _cycle_error(index: EntryIndex, walked: list[int]) -> CycleError:
    """The loop a walk entered: from the first entry seen twice, in walk order."""
    seen: dict[int, int] = {}
    for rank, position in enumerate(walked):
        if position in seen:
            loop = walked[seen[position] : rank]
            return CycleError(index.source, None, [index.ids[p] for p in loop], position=loop[0])
        seen[position] = rank
    raise AssertionError("a walk longer than the index without a repeat")


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


# --- 2. the settings ----------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """Thinking level and model in force at a leaf (``UNDEFINED`` marks a field that
    the deciding entry lacks, which Pi's JSON output then omits)."""

    thinking_level: object = "off"
    model: dict | None = None


def _check_messages(index: EntryIndex, path: Sequence[int]) -> None:
    """Pi reads ``entry.message.role`` for every message entry on the path: it throws
    on one without a message object. So does pisession, naming it."""
    types, roles = index.types, index.roles
    for position in path:
        if roles[position] is NO_MESSAGE and types[position] == "message":
            entry_id = index.ids[position]
            raise index.fail(
                position,
                f"message entry {quoted(entry_id)} has no message object "
                "(Pi 0.87.1 throws a TypeError here)",
            )


def read_settings(index: EntryIndex, path: Sequence[int]) -> Settings:
    """Thinking level and model from the whole path (summarized part included): the
    last ``thinking_level_change`` and the last ``model_change`` or assistant message
    decide. Only those two entries are decoded.

    >>> from pisession.build import new_entry as e
    >>> index = EntryIndex.of([e("thinking_level_change", "t", None, 1, thinkingLevel="high"),
    ...                        e("model_change", "m", "t", 2, provider="p", modelId="x")])
    >>> read_settings(index, [0, 1])
    Settings(thinking_level='high', model={'provider': 'p', 'modelId': 'x'})
    """
    _check_messages(index, path)
    types, roles = index.types, index.roles
    rank = last_rank(index, path, "thinking_level_change")
    thinking_at = None if rank is None else path[rank]
    model_at = None
    for position in reversed(path):  # the model is decided near the leaf, as a rule
        kind = types[position]
        if kind == "model_change" or (kind == "message" and roles[position] == "assistant"):
            model_at = position
            break
    thinking: object = "off"
    if thinking_at is not None:
        thinking = js_field(index.decode(thinking_at), "thinkingLevel")
    model = None
    if model_at is not None:
        entry = index.decode(model_at)
        if types[model_at] == "model_change":
            model = _built(
                [("provider", js_field(entry, "provider")), ("modelId", entry, "modelId")]
            )
        else:
            message = js_field(entry, "message")
            model = _built(
                [("provider", js_field(message, "provider")), ("modelId", message, "model")]
            )
    return Settings(thinking, model)


# --- 3. the selection ---------------------------------------------------------------------

#: Why an entry is selected (``Selection.parts``).
PATH, COMPACTION, KEPT, AFTER = "path", "compaction", "kept", "after"


@dataclass(frozen=True)
class Selection:
    """The selected entries of a path, in context order (Pi's ``buildContextEntries``).

    With no compaction on the path: the whole path. Otherwise the newest compaction
    first, then its *kept range* (the path entries before it from the one whose id is
    its ``firstKeptEntryId``, without system messages), then every entry after it.
    """

    positions: list[int]
    #: the newest compaction on the path (None: none)
    compaction: int | None = None
    #: how many selected entries, after the compaction, come from its kept range
    kept: int = 0
    #: the first entry of the kept range (None: nothing kept before the compaction)
    first_kept: int | None = None
    #: system messages inside the kept range: Pi drops them, whatever the compaction holds
    dropped_system: tuple[int, ...] = ()
    #: ranks in the path: where the kept range starts, and where Pi finds the compaction
    start: int = 0
    cut: int = 0
    #: the compaction's ``firstKeptEntryId`` as written (``UNDEFINED``: absent)
    first_kept_id: object = UNDEFINED
    #: nothing kept, by design: the compaction's ``firstKeptEntryId`` is its own id, as Pi
    #: writes a compaction that keeps nothing (any other empty kept range is a finding)
    retains_none: bool = False

    def holds(self, rank: int, position: int) -> bool:
        """Whether the path entry at this rank (and position) is selected.

        >>> Selection([3, 1, 4], compaction=3, kept=1, first_kept=1, start=1, cut=3).holds(0, 0)
        False
        """
        if self.compaction is None:
            return True
        if rank > self.cut or position == self.compaction:
            return True
        return self.start <= rank < self.cut and position not in self.dropped_system

    def parts(self, start: int, stop: int) -> list[str]:
        """Why the entries at ranks ``start`` to ``stop`` of the selection are there:
        ``PATH`` (no compaction), ``COMPACTION``, ``KEPT`` (its kept range) or ``AFTER`` it.

        >>> Selection([3, 1, 4], compaction=3, kept=1).parts(0, 3)
        ['compaction', 'kept', 'after']
        """
        if self.compaction is None:
            return [PATH] * (stop - start)
        head = [COMPACTION] if start == 0 < stop else []
        kept = max(0, min(stop, self.kept + 1) - max(start, 1))
        return head + [KEPT] * kept + [AFTER] * (stop - start - len(head) - kept)


def select(index: EntryIndex, path: Sequence[int], stop: int | None = None) -> Selection:
    """The selection for a path (``path[:stop]``, with ``stop``); only the newest
    compaction is decoded.

    A ``firstKeptEntryId`` not found before the compaction keeps nothing before it
    (``retains_none`` when it is the compaction's own id, as Pi writes it on purpose).

    >>> from pisession.build import new_entry as e, new_message as m
    >>> index = EntryIndex.of([m("u1", None, "user", 1), m("s1", "u1", "system", 2),
    ...     m("u2", "s1", "user", 3), e("compaction", "c1", "u2", 4, firstKeptEntryId="s1"),
    ...     m("u3", "c1", "user", 5)])
    >>> sel = select(index, [0, 1, 2, 3, 4])
    >>> sel.positions, sel.first_kept, sel.dropped_system
    ([3, 2, 4], 1, (1,))
    """
    types = index.types
    stop = len(path) if stop is None else stop
    rank = last_rank(index, path, "compaction", stop)
    if rank is None:
        return Selection(list(path[:stop]))
    newest, ids = path[rank], index.ids
    # Pi finds the compaction again by id (the first path entry whose id === its id)
    newest_id = ids[newest]
    if index.unique_ids:
        cut = rank
    else:
        cut = next(r for r, p in enumerate(path) if p == newest or strict_equal(ids[p], newest_id))
    first_kept_id = js_field(index.decode(newest), "firstKeptEntryId")
    start = _first_kept_rank(index, path, cut, first_kept_id)
    kept, dropped = [], []
    roles = index.roles
    for position in path[start:cut]:
        if types[position] == "message":
            role = roles[position]
            if role is NO_MESSAGE:
                _check_messages(index, [position])
            if role == "system":
                dropped.append(position)
                continue
        kept.append(position)
    return Selection(
        [newest, *kept, *path[cut + 1 : stop]],
        newest,
        len(kept),
        path[start] if start < cut else None,
        tuple(dropped),
        start,
        cut,
        first_kept_id,
        start == cut and strict_equal(first_kept_id, newest_id),
    )


def _first_kept_rank(index: EntryIndex, path: Sequence[int], cut: int, first_kept: object) -> int:
    """Rank in the path of the first entry before ``cut`` whose id === ``first_kept``
    (``cut`` when there is none)."""
    ids = index.ids
    if type(first_kept) is str and index.unique_ids:  # one entry can have that id
        target = index.by_id.get(first_kept)
        # the compaction's own id (it keeps none) is not before it: a path holds an entry
        # once (searching would go back to the root for nothing)
        if target is None or target == path[cut]:
            return cut
        return _rank_before(path, target, cut)
    if type(first_kept) is str:  # === with a string is ==
        return next((r for r in range(cut) if ids[path[r]] == first_kept), cut)
    return next((r for r in range(cut) if strict_equal(ids[path[r]], first_kept)), cut)


def _rank_before(path: Sequence[int], target: int, cut: int, near: int = 1024) -> int:
    """The rank of ``target`` in ``path[:cut]`` (``cut`` if absent), looked for in C in
    ever wider stretches going back from ``cut`` (kept ranges are short; a path holds an
    entry at most once).

    >>> _rank_before([5, 6, 7, 8], 6, 3, near=1), _rank_before([5, 6, 7, 8], 8, 3)
    (1, 3)
    """
    high, width = cut, near
    while high > 0:
        low = max(high - width, 0)
        try:
            return path.index(target, low, high)
        except ValueError:
            high, width = low, width * 4
    return cut


# --- 4. the edits ---------------------------------------------------------------------------


def collect_edits(index: EntryIndex, selection: Selection) -> dict:
    """The context edits among the selected entries, by target id (``js_key``); a later
    edit replaces an earlier one. An edit summarized away is not selected, so it is not
    applied.

    >>> from pisession.build import new_entry as e
    >>> index = EntryIndex.of([e("context_edit", "x", None, 1, targetId="a", replacement=None)])
    >>> collect_edits(index, Selection([0]))
    {'a': (0, {'type': 'context_edit', 'id': 'x', 'parentId': None, \
'timestamp': '2026-01-01T00:01:00Z', 'targetId': 'a', 'replacement': None})}
    """
    positions = of_type(index, "context_edit", selection.positions)
    edits: dict = {}
    for position, entry in zip(positions, index.entries(positions)):
        key = js_key(js_field(entry, "targetId"))
        if key is not NO_KEY:
            edits[key] = (position, entry)
    return edits


# --- 5. the projection ----------------------------------------------------------------------


def _built(fields: list[tuple]) -> dict:
    """A message object as JavaScript builds it: absent (undefined) fields left out.
    A field is ``(name, value)`` or ``(name, object, key)`` (read with ``js_field``)."""
    out = {}
    for item in fields:
        value = item[1] if len(item) == 2 else js_field(item[1], item[2])
        if value is not UNDEFINED:
            out[item[0]] = value
    return out


def stored_messages(messages: list) -> list:
    """``message_messages`` of several message entries at once (each contributes exactly
    one message): the list itself when every message is stored with its content, as
    nearly all are.

    >>> stored_messages([{"role": "user", "content": "hi"}, {"role": "system"}])
    [{'role': 'user', 'content': 'hi'}, {'role': 'system', 'content': ''}]
    """
    try:
        complete = None not in map(dict.get, messages, repeat("content"))  # in C
    except TypeError:  # a message that is not an object
        complete = not any(type(m) is dict and m.get("content") is None for m in messages)
    return messages if complete else [message_messages(m)[0] for m in messages]


def is_plain_run(index: EntryIndex, edits: dict, positions: Sequence[int]) -> bool:
    """True when every entry at ``positions`` is a message entry that no context edit
    targets: then each contributes its stored message (``stored_messages``), whatever
    its rank in the selection.

    >>> from pisession.build import new_message as m
    >>> index = EntryIndex.of([m("u1", None, "user", 1), m("a1", "u1", "assistant", 2)])
    >>> is_plain_run(index, {}, [0, 1]), is_plain_run(index, {"a1": (9, {})}, [0, 1])
    (True, False)
    """
    kinds = list(map(index.types.__getitem__, positions))
    if not positions or kinds.count("message") != len(kinds):  # (a type can be an object)
        return False
    if not edits:
        return True
    ids = list(map(index.ids.__getitem__, positions))
    return set(map(type, ids)) == {str} and edits.keys().isdisjoint(ids)


def record_value(value: object) -> object:
    """A JSON value as a table cell: strings, numbers, booleans and null as they are,
    undefined as None, anything else as its text (``value_text``).

    >>> record_value("a1"), record_value(UNDEFINED), record_value({"odd": 1})
    ('a1', None, '{"odd":1}')
    """
    if value is None or value is UNDEFINED:
        return None
    return value if type(value) in (str, int, float, bool) else value_text(value)


@dataclass(slots=True)
class ProjectedEntry:
    """One selected entry and the messages it contributed (after its context edit).

    ``part`` says why it is selected (``PATH``, ``COMPACTION``, ``KEPT``, ``AFTER``);
    ``edit`` is the context edit applied to its messages, and ``edit_position`` where
    that is (None: no edit targets it, or it contributes no message for one to change).
    """

    position: int
    entry: object
    messages: list
    part: str
    edit: dict | None = None
    edit_position: int | None = None
    line: int | None = None

    @property
    def id(self) -> object:
        """The entry's id (None when it has none)."""
        value = js_field(self.entry, "id")
        return None if value is UNDEFINED else value

    @property
    def why(self) -> str:
        """``part``, under its older name."""
        return self.part

    def __repr__(self) -> str:
        """A one-line summary (the entry itself is ``.entry``, its messages ``.messages``).

        >>> import pisession
        >>> pisession.load(pisession.sample_path("tour")).projection().items[0]
        <ProjectedEntry at position 23 (line 25), 'cp000001', compaction: 2 messages>
        """
        line = "" if self.line is None else f" (line {self.line})"
        count = len(self.messages)
        edited = ", edited" if self.edit is not None else ""
        return (
            f"<ProjectedEntry at position {self.position}{line}, {quoted(self.id)}, "
            f"{self.part}: {count} message{'' if count == 1 else 's'}{edited}>"
        )


#: Selected entries decoded together (the writer's and the fates' blocks too): few
#: enough that a block's objects stay in the processor's caches from decoding to writing
#: (docs/performance.md, "How it is fast").
BLOCK = 256


def contribution_blocks(
    index: EntryIndex,
    selection: Selection,
    edits: dict,
    block: int = BLOCK,
    decode: Callable[[Sequence[int]], list] | None = None,
    start: int = 0,
    stop: int | None = None,
) -> Iterator[list[ProjectedEntry]]:
    """Step 5 a block of selected entries at a time (decoded together with ``decode``,
    default ``index.entries``): a caller that writes as it goes never holds the whole
    context. ``start`` and ``stop`` limit it to those ranks of the selection (the entries
    outside are not decoded).

    Only the newest compaction (first in the selection) contributes its checkpoint and
    summary; an older compaction kept inside its range contributes nothing.
    """
    decode = index.entries if decode is None else decode
    positions = selection.positions
    stop = len(positions) if stop is None else min(stop, len(positions))
    for first in range(start, stop, block):
        chunk = positions[first : min(first + block, stop)]
        yield _block(index, selection, edits, first, chunk, decode(chunk))


def contributions(
    index: EntryIndex,
    selection: Selection,
    edits: dict,
    block: int = BLOCK,
    decode: Callable[[Sequence[int]], list] | None = None,
    start: int = 0,
) -> Iterator[ProjectedEntry]:
    """``contribution_blocks``, one entry at a time (from rank ``start`` of the selection).

    >>> from pisession.build import new_message as m
    >>> index = EntryIndex.of([m("u1", None, "user", 1), m("a1", "u1", "assistant", 2)])
    >>> [item.position for item in contributions(index, Selection([0, 1]), {}, start=1)]
    [1]
    """
    for items in contribution_blocks(index, selection, edits, block, decode, start):
        yield from items


def _block(index: EntryIndex, selection: Selection, edits: dict, start: int, chunk, entries):
    ids = index.ids
    parts = selection.parts(start, start + len(chunk))
    out: list[ProjectedEntry] = []
    append = out.append
    for rank, position, entry, part in zip(range(start, start + len(chunk)), chunk, entries, parts):
        messages = selected_messages(index, position, entry, rank == 0)
        # an edit of an entry that contributes nothing changes nothing: not applied
        found = edits.get(js_key(ids[position])) if edits and messages else None
        if found is None:
            append(ProjectedEntry(position, entry, messages, part))
        else:
            edited = _edited(index, messages, *found)
            append(ProjectedEntry(position, entry, edited, part, found[1], found[0]))
    return out


def selected_messages(index: EntryIndex, position: int, entry: object, first: bool = True) -> list:
    """What the selected entry at ``position`` contributes before any edit
    (``entry_messages``; a timestamp JavaScript cannot read fails as in Pi). ``first``:
    the entry opens the selection, the only place where a compaction (the newest)
    contributes; an older one, selected because its id lies in the newest one's kept
    range, contributes nothing.

    >>> from pisession.build import new_entry as e
    >>> c = e("compaction", "c1", None, 1, summary="s", tokensBefore=1)
    >>> index = EntryIndex.of([c])
    >>> [m["role"] for m in selected_messages(index, 0, c)], selected_messages(index, 0, c, False)
    (['compactionSummary'], [])
    """
    kind = index.types[position]
    if kind == "message":  # the usual entry: its message, as stored
        return message_messages(entry.get("message"))  # type: ignore[attr-defined]
    if kind == "compaction" and not first:
        return []
    try:
        return entry_messages(entry)
    except DateConversionError:
        raise index.fail(
            position,
            f"entry {quoted(index.ids[position])} has a timestamp JavaScript cannot turn into a "
            "date (Pi 0.87.1 throws a TypeError here)",
        ) from None


def _edited(index: EntryIndex, messages: list, edit_position: int, edit: object) -> list:
    """``apply_context_edit``, failing as Pi does (naming the edit)."""
    try:
        return apply_context_edit(messages, edit)
    except TypeError:
        raise index.fail(
            edit_position,
            f"context edit {quoted(js_field(edit, 'id'))} has no replacement "
            "(Pi 0.87.1 throws a TypeError here)",
        ) from None


def _counted(values) -> str:
    """``values`` counted, in order of first appearance: ``'user 2, assistant 1'``.

    >>> _counted(["user", "assistant", "user"])
    'user 2, assistant 1'
    """
    counts: dict = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return ", ".join(f"{value} {n}" for value, n in counts.items())


@dataclass
class Context:
    """The model context at a leaf: Pi's ``buildSessionContext`` result."""

    messages: list
    thinking_level: object
    model: dict | None
    leaf: int | None = None
    #: the projected entry each message came from, and the file: where Pi throws on a
    #: message, ``located`` names its entry's line
    origins: list = field(default_factory=list, compare=False, repr=False)
    source: str = field(default="", compare=False, repr=False)

    def located(self, error: ToPrimitiveError) -> PisessionError:
        """``error`` (Pi throws on message ``error.index``) as a ``PiFailure`` naming the
        file and the line of the entry that message came from.

        >>> import pisession
        >>> from pisession.js.value import ToPrimitiveError
        >>> context = pisession.load(pisession.sample_path("tour")).context()
        >>> str(context.located(ToPrimitiveError("Pi throws here", 0))).split("/")[-1]
        "tour.jsonl:25: entry 'cp000001': Pi throws here"
        """
        if error.index is None or not 0 <= error.index < len(self.origins):
            return error
        item = self.origins[error.index]
        reason = f"entry {quoted(item.id)}: {error.reason}"
        return PiFailure(self.source, item.line, reason, position=item.position)

    def to_dict(self) -> dict:
        """Exactly Pi's JSON shape: ``{"messages", "thinkingLevel", "model"}``."""
        out: dict = {"messages": self.messages}
        if self.thinking_level is not UNDEFINED:
            out["thinkingLevel"] = self.thinking_level
        out["model"] = self.model
        return out

    def to_llm(self) -> list:
        """The provider messages (Pi's ``convertToLlm``); ``PiFailure`` where Pi throws."""
        from ..llm import to_llm

        try:
            return to_llm(self.messages)
        except ToPrimitiveError as exc:
            raise self.located(exc) from None

    def sent(
        self,
        model: object = None,
        now: int | None = None,
        version: str | None = None,
        replies: Callable[[], list] | None = None,
    ):
        """What the request carries (``pisession.request.sent`` of ``to_llm()``) for a
        target ``model``: a ``request.TargetModel``, ``"provider/id"``, or None for the
        model in force here (``request.target_model``: its API from its latest reply on the
        path, else from ``replies()``: more replies, file order). ``sources`` gives each
        provider message's projected entry; where pi-ai throws, ``PiFailure`` names the
        entry's line.

        >>> import pisession
        >>> done = pisession.load(pisession.sample_path("tour")).context().sent(now=0)
        >>> len(done.messages), done.left_out, done.model.id
        (10, {}, 'fake-coder')
        """
        from ..request import TransformError, sent, target_model

        llm, sources = self.llm_sources()
        if not isinstance(model, TargetModel):
            provider, model_id = self._named_model(model)
            on_path = [m for m in llm if js_field(m, "role") == "assistant"]
            if replies is not None and not any(
                strict_equal(js_field(m, "provider"), provider)
                and strict_equal(js_field(m, "model"), model_id)
                for m in on_path
            ):
                on_path = replies() + on_path
            model = target_model(provider, model_id, on_path, version)
            if model.api is UNDEFINED:
                raise PisessionError(
                    f"{self.source}: the target model {value_text(model.provider)}/"
                    f"{value_text(model.id)} is in no reply on this path nor in Pi's model "
                    "catalog: its API is unknown"
                )
        try:
            out = sent(llm, model, now, version)  # type: ignore[arg-type]
        except TransformError as exc:
            item = (
                sources[exc.index] if exc.index is not None and exc.index < len(sources) else None
            )
            if item is None:
                raise
            reason = f"entry {quoted(item.id)}: {exc}"
            raise PiFailure(self.source, item.line, reason, position=item.position) from None
        out.sources = [item.position for item in sources]
        return out

    def llm_sources(self) -> tuple[list, list]:
        """``to_llm()``, and for each provider message the projected entry it came from.

        >>> import pisession
        >>> llm, sources = pisession.load(pisession.sample_path("tour")).context().llm_sources()
        >>> len(llm) == len(sources), sources[0].id
        (True, 'cp000001')
        """
        from ..llm import to_llm_message

        llm, sources = [], []
        for number, (message, origin) in enumerate(zip(self.messages, self.origins)):
            try:
                converted = to_llm_message(message)
            except ToPrimitiveError as exc:
                raise self.located(ToPrimitiveError(exc.reason, number)) from None
            if converted is not None:
                llm.append(converted)
                sources.append(origin)
        return llm, sources

    def _named_model(self, name: object) -> tuple[object, object]:
        """Provider and id of the target: ``"provider/id"``, or (None) the model in force."""
        if name is not None:
            provider, _, model_id = str(name).partition("/")
            if not provider or not model_id:
                raise PisessionError(f"the target model {name!r} is not provider/id")
            return provider, model_id
        if not isinstance(self.model, dict):
            raise PisessionError(
                f"{self.source}: no model in force at this leaf (no model_change or reply on "
                "its path): name the target model as provider/id"
            )
        return self.model.get("provider", UNDEFINED), self.model.get("modelId", UNDEFINED)

    def to_json(self, indent: int | None = None) -> str:
        """``to_dict()`` serialised as ``JSON.stringify`` would."""
        from ..js import json as jsjson

        return jsjson.dumps(self.to_dict(), indent)

    def __repr__(self) -> str:
        """A one-line summary (``print(context.to_json(2))`` or the HTML view for all of it).

        >>> import pisession
        >>> pisession.load(pisession.sample_path("tour")).context()  # doctest: +ELLIPSIS
        <Context at position 25: 10 messages (system 1, ...), model fake/fake-coder, thinking ...>
        """
        roles = _counted(value_text(js_field(m, "role")) for m in self.messages)
        model = self.model or {}
        name = "/".join(value_text(model[k]) for k in ("provider", "modelId") if k in model)
        parts = [f"{len(self.messages)} messages" + (f" ({roles})" if roles else "")]
        parts.append(f"model {name or 'none'}")
        if self.thinking_level is not UNDEFINED:
            parts.append(f"thinking {value_text(self.thinking_level)}")
        return f"<Context at position {self.leaf}: {', '.join(parts)}>"

    def _repr_html_(self) -> str | None:
        return None if html_view is None else html_view(self)


@dataclass
class Projection:
    """Every selected entry with its messages: the provenance of each context message,
    with the path and the selection it came from."""

    items: list[ProjectedEntry]
    context: Context
    path: list[int] = field(default_factory=list)
    selection: Selection = field(default_factory=lambda: Selection([]))

    @property
    def entries(self) -> list[ProjectedEntry]:
        """The projected entries (``items``)."""
        return self.items

    @property
    def messages(self) -> list:
        """All context messages in order (the same list as ``context.messages``)."""
        return self.context.messages

    @property
    def compaction(self) -> int | None:
        """Position of the newest compaction on the path (None: none)."""
        return self.selection.compaction

    @property
    def first_kept(self) -> int | None:
        """Position of the first entry of the compaction's kept range (None: none)."""
        return self.selection.first_kept

    def to_records(self) -> list[dict]:
        """One plain dict per selected entry (position, line, id, type, part, how many
        messages it sent, their roles, whether a context edit changed them), as
        ``pandas.DataFrame(...)`` and ``polars.DataFrame(...)`` take them.

        >>> import pisession
        >>> pisession.load(pisession.sample_path("tour")).projection().to_records()[0]["part"]
        'compaction'
        """
        return [
            {
                "position": item.position,
                "line": item.line,
                "id": record_value(item.id),
                "type": record_value(js_field(item.entry, "type")),
                "part": item.part,
                "messages": len(item.messages),
                "roles": ",".join(value_text(js_field(m, "role")) for m in item.messages),
                "edited": item.edit is not None,
            }
            for item in self.items
        ]

    def source_of(self, message_index: int) -> ProjectedEntry:
        """The selected entry that contributed context message number ``message_index``."""
        seen = 0
        for item in self.items:
            seen += len(item.messages)
            if message_index < seen:
                return item
        raise IndexError(message_index)

    def __repr__(self) -> str:
        """A one-line summary (``to_records()`` or the HTML view for every entry).

        >>> import pisession
        >>> pisession.load(pisession.sample_path("tour")).projection()  # doctest: +ELLIPSIS
        <Projection at position 25: 12 entries selected (...), 10 messages, compaction at ...>
        """
        parts = [f"{len(self.items)} entries selected"]
        if self.items:
            parts[0] += f" ({_counted(item.part for item in self.items)})"
        parts.append(f"{len(self.context.messages)} messages")
        if self.compaction is not None:
            parts.append(f"compaction at position {self.compaction}")
        edited = sum(item.edit is not None for item in self.items)
        if edited:
            parts.append(f"{edited} edited")
        return f"<Projection at position {self.context.leaf}: {', '.join(parts)}>"

    def _repr_html_(self) -> str | None:
        return None if html_view is None else html_view(self)


class Steps(NamedTuple):
    """Steps 1 to 4 of the rule for one leaf: its path, the settings in force, the
    selection, and the context edits among the selected entries (by target)."""

    path: list[int]
    settings: Settings
    selection: Selection
    edits: dict


def leaf_steps(index: EntryIndex, leaf: int | None = None, edits: bool = True) -> Steps:
    """Steps 1 to 4 for one leaf (None: Pi's default, ``default_leaf``), in Pi's
    order, so a file Pi fails on fails at the same step. ``edits=False``: none collected.

    >>> from pisession.build import new_message as m
    >>> steps = leaf_steps(EntryIndex.of([m("u1", None, "user", 1), m("a1", "u1", "assistant", 2)]))
    >>> steps.path, steps.selection.positions, steps.settings.thinking_level, steps.edits
    ([0, 1], [0, 1], 'off', {})
    """
    leaf = default_leaf(index) if leaf is None else leaf
    path = walk_path(index, leaf)
    settings = read_settings(index, path)
    selection = select(index, path)
    return Steps(path, settings, selection, collect_edits(index, selection) if edits else {})


def project(index: EntryIndex, leaf: int | None = None, edits: bool = True) -> Projection:
    """The five steps for one leaf (None: Pi's default, ``default_leaf``).
    ``edits=False`` leaves step 4 out: what a reader that ignores context edits builds.

    >>> from pisession.build import new_entry as e, new_message as m
    >>> index = EntryIndex.of([m("u1", None, "user", 1), m("a1", "u1", "assistant", 2),
    ...     e("context_edit", "x1", "a1", 3, targetId="a1", replacement=None)])
    >>> p = project(index)
    >>> [len(item.messages) for item in p.items], [m["role"] for m in p.messages]
    ([1, 0, 0], ['user'])
    """
    leaf = default_leaf(index) if leaf is None else leaf
    path, settings, selection, found = leaf_steps(index, leaf, edits)
    items = list(contributions(index, selection, found))
    messages = [m for item in items for m in item.messages]
    origins = [item for item in items for _ in item.messages]
    context = Context(
        messages, settings.thinking_level, settings.model, leaf, origins, index.source
    )
    return Projection(items, context, path, selection)
