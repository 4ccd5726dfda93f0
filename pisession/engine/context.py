"""The fast engine: the context rule of ``pisession.rule``, for files of any size.

``pisession.rule`` states the rule in the chapter's five steps over a list of entries;
this module takes the same steps under the same names, with the same results
(``pisession.projection``), over an ``EntryIndex`` (``pisession.engine.index``): a light
column per question the rule asks of every entry, and a function that decodes an entry
in full. Only the entries that decide the answer are decoded, so the same steps serve a
ten-line example and a million-line file. The tests run one suite on both
(``pisession.engine.seam`` picks). For one leaf:

1. ``path``            follow ``parentId`` from the leaf to a root, then reverse;
2. ``settings``        thinking level and model, from the *whole* path;
3. ``selection``       the newest compaction on the path, its kept range (system
                       messages dropped) and every entry after it;
4. ``context_edits``   the context edits among the selected entries, by target id;
5. ``project``         what each selected entry contributes, after its edit
                       (``rule.projected_entry``, the rule's own): the *projection*.

>>> from pisession.build import new_message as m
>>> index = EntryIndex.of([m("u1", None, "user", 1), m("a1", "u1", "assistant", 2)])
>>> [item.position for item in project(index).items]
[0, 1]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from operator import lt
from typing import Any

from ..errors import CycleError
from ..js.value import NO_KEY, UNDEFINED, js_key, quoted, strict_equal
from ..js.value import field as js_field
from ..projection import (
    ProjectedEntry,
    Projection,
    Selection,
    Settings,
    Steps,
    pi_throws,
)
from ..rule import Edits, message_messages, projected_entry
from ..tree import NO_MESSAGE
from .index import PATHS_KEPT, EntryIndex, default_leaf, last_rank, of_type

# --- 1. the path ------------------------------------------------------------------------


def path(index: EntryIndex, leaf: int | None = None) -> list[int]:
    """Positions from the root to ``leaf`` (None: Pi's default, ``default_leaf``).

    >>> path(EntryIndex.of([{"id": "a"}, {"id": "b", "parentId": "a"}]))
    [0, 1]
    """
    return walk_path(index, default_leaf(index) if leaf is None else leaf)


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
    while current >= 0:
        if len(path) > len(parents):  # a walk longer than the index is in a loop
            raise _cycle_error(index, path)
        start = current - _STRETCH
        if start >= 0 and parents[current] == current - 1:
            # a stretch of entries each of which is the child of the one before, taken in
            # C: their parents rise one by one from ``start`` (no new integers made)
            stretch = parents[start + 1 : current + 1]
            if stretch[0] == start and all(map(lt, stretch, islice(stretch, 1, None))):
                append(current)
                path.extend(stretch[:0:-1])
                current = start
                continue
        for _ in range(_STRETCH):  # else a stretch one by one
            append(current)
            current = parents[current]
            if current < 0:
                break
    path.reverse()
    if len(walked) >= PATHS_KEPT:
        del walked[next(iter(walked))]
    walked[leaf] = tuple(path)
    return path


#: The entries a path walk takes at once where each is the child of the one before.
_STRETCH = 1024


def _cycle_error(index: EntryIndex, walked: list[int]) -> CycleError:
    """The loop a walk entered: from the first entry seen twice, in walk order."""
    seen: dict[int, int] = {}
    for rank, position in enumerate(walked):
        if position in seen:
            loop = walked[seen[position] : rank]
            return CycleError(index.source, None, [index.ids[p] for p in loop], position=loop[0])
        seen[position] = rank
    raise AssertionError("a walk longer than the index without a repeat")


# --- 2. the settings ----------------------------------------------------------------------


def _check_messages(index: EntryIndex, path: Sequence[int]) -> None:
    """Pi reads ``entry.message.role`` for every message entry on the path: it throws
    on one without a message object. So does pisession, naming it."""
    types, roles = index.types, index.roles
    if NO_MESSAGE not in roles:  # (the usual case: a scan of the column, in C)
        return
    for position in path:
        if roles[position] is NO_MESSAGE and types[position] == "message":
            entry_id = index.ids[position]
            reason = f"message entry {quoted(entry_id)} has no message object"
            raise index.fail(position, pi_throws(reason))


def settings(index: EntryIndex, path: Sequence[int]) -> Settings:
    """Thinking level and model from the whole path (summarized part included): the
    last ``thinking_level_change`` and the last ``model_change`` or assistant message
    decide. Only those two entries are decoded.

    >>> from pisession.build import new_entry as e
    >>> index = EntryIndex.of([e("thinking_level_change", "t", None, 1, thinkingLevel="high"),
    ...                        e("model_change", "m", "t", 2, provider="p", modelId="x")])
    >>> settings(index, [0, 1])
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


def selection(index: EntryIndex, path: Sequence[int], stop: int | None = None) -> Selection:
    """The selection for a path (``path[:stop]``, with ``stop``); only the newest
    compaction is decoded.

    A ``firstKeptEntryId`` not found before the compaction keeps nothing before it
    (``retains_none`` when it is the compaction's own id, as Pi writes it on purpose).

    >>> from pisession.build import new_entry as e, new_message as m
    >>> index = EntryIndex.of([m("u1", None, "user", 1), m("s1", "u1", "system", 2),
    ...     m("u2", "s1", "user", 3), e("compaction", "c1", "u2", 4, firstKeptEntryId="s1"),
    ...     m("u3", "c1", "user", 5)])
    >>> sel = selection(index, [0, 1, 2, 3, 4])
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
        target = index.position_of(first_kept)
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


def context_edits(index: EntryIndex, selection: Selection) -> Edits:
    """The context edits among the selected entries, by target id (``js_key``); a later
    edit replaces an earlier one. An edit summarized away is not selected, so it is not
    applied.

    >>> from pisession.build import new_entry as e
    >>> index = EntryIndex.of([e("context_edit", "x", None, 1, targetId="a", replacement=None)])
    >>> context_edits(index, Selection([0]))
    {'a': (0, {'type': 'context_edit', 'id': 'x', 'parentId': None, \
'timestamp': '2026-01-01T00:01:00Z', 'targetId': 'a', 'replacement': None})}
    """
    positions = of_type(index, "context_edit", selection.positions)
    edits: Edits = {}
    for position, entry in zip(positions, index.entries(positions)):
        key = js_key(js_field(entry, "targetId"))
        if key is not NO_KEY:
            edits[key] = (position, entry)
    return edits


def steps(index: EntryIndex, leaf: int | None = None, edits: bool = True) -> Steps:
    """Steps 1 to 4 for one leaf (None: Pi's default, ``default_leaf``), in Pi's
    order, so a file Pi fails on fails at the same step. ``edits=False``: none collected.

    >>> from pisession.build import new_message as m
    >>> found = steps(EntryIndex.of([m("u1", None, "user", 1), m("a1", "u1", "assistant", 2)]))
    >>> found.path, found.selection.positions, found.settings.thinking_level, found.edits
    ([0, 1], [0, 1], 'off', {})
    """
    walked = walk_path(index, default_leaf(index) if leaf is None else leaf)
    found = settings(index, walked)
    chosen = selection(index, walked)
    return Steps(walked, found, chosen, context_edits(index, chosen) if edits else {})


# --- 5. the projection ----------------------------------------------------------------------


def _built(fields: list[tuple[Any, ...]]) -> dict[Any, Any]:
    """A message object as JavaScript builds it: absent (undefined) fields left out.
    A field is ``(name, value)`` or ``(name, object, key)`` (read with ``js_field``)."""
    out = {}
    for item in fields:
        value = item[1] if len(item) == 2 else js_field(item[1], item[2])
        if value is not UNDEFINED:
            out[item[0]] = value
    return out


#: How often each bypass of step 5 was taken, by name (``is_plain_run``'s ``route``:
#: ``"writer"``, ``stream``'s plain runs; ``"fates"``, ``provenance.entry_fates``;
#: ``"request"``, the fates' request step reading its turns from the lines, and among
#: those ``"request-runs"``, read as one run of plain turns): the benchmark reports it per
#: file (``benchmarks/bench.py``); clear it to count afresh.
BYPASSES: Counter[str] = Counter()


def is_plain_run(
    index: EntryIndex, edits: Edits, positions: Sequence[int], route: str | None = None
) -> bool:
    """True when every entry at ``positions`` is a message entry that no context edit
    targets: then each contributes its stored message (``rule.stored_messages``),
    whatever its rank in the selection. The one point where a caller may bypass step 5
    (``rule.projected_entry``): it names its ``route``, counted in ``BYPASSES``
    (``tests/test_one_route.py`` holds each route equal to the projection).

    >>> from pisession.build import new_message as m
    >>> index = EntryIndex.of([m("u1", None, "user", 1), m("a1", "u1", "assistant", 2)])
    >>> is_plain_run(index, {}, [0, 1]), is_plain_run(index, {"a1": (9, {})}, [0, 1])
    (True, False)
    """
    kinds = list(map(index.types.__getitem__, positions))
    if not positions or kinds.count("message") != len(kinds):  # (a type can be an object)
        return False
    if edits:
        ids = list(map(index.ids.__getitem__, positions))
        if set(map(type, ids)) != {str} or not edits.keys().isdisjoint(ids):
            return False
    if route is not None:
        BYPASSES[route] += 1
    return True


#: Selected entries decoded together (the writer's and the fates' blocks too): few
#: enough that a block's objects stay in the processor's caches from decoding to writing
#: (docs/performance.md, "How it is fast").
BLOCK = 256


def contribution_blocks(
    index: EntryIndex,
    selection: Selection,
    edits: dict[Any, Any],
    block: int = BLOCK,
    decode: Callable[[Sequence[int]], list[Any]] | None = None,
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
    edits: dict[Any, Any],
    block: int = BLOCK,
    decode: Callable[[Sequence[int]], list[Any]] | None = None,
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


def _block(
    index: EntryIndex,
    selection: Selection,
    edits: Edits,
    start: int,
    chunk: Sequence[int],
    entries: Sequence[object],
) -> list[ProjectedEntry]:
    """Step 5 for the selected entries ``chunk`` (from rank ``start``), decoded as
    ``entries``: each as ``rule.projected_entry`` makes it (an unedited message entry,
    the usual one, straight from its stored message, as that function would)."""
    ids, types, source = index.ids, index.types, index.source
    parts = selection.parts(start, start + len(chunk))
    out: list[ProjectedEntry] = []
    append = out.append
    for rank, position, entry, part in zip(range(start, start + len(chunk)), chunk, entries, parts):
        found = edits.get(js_key(ids[position])) if edits else None
        if found is None and types[position] == "message":
            messages = message_messages(entry.get("message"))  # type: ignore[attr-defined]
            append(ProjectedEntry(position, entry, messages, part))
        else:
            sends = selection.contributes(rank, types[position])
            append(projected_entry(position, entry, part, sends, found, source))
    return out


def selected_messages(
    index: EntryIndex, position: int, entry: object, first: bool = True
) -> list[object]:
    """What the selected entry at ``position`` contributes before any edit
    (``rule.projected_entry``). ``first``: the entry opens the selection; an older
    compaction, selected inside the newest one's kept range, contributes nothing
    (``Selection.contributes``).

    >>> from pisession.build import new_entry as e
    >>> c = e("compaction", "c1", None, 1, summary="s", tokensBefore=1)
    >>> index = EntryIndex.of([c])
    >>> [m["role"] for m in selected_messages(index, 0, c)], selected_messages(index, 0, c, False)
    (['compactionSummary'], [])
    """
    sends = Selection.contributes(0 if first else 1, index.types[position])
    return projected_entry(position, entry, "", sends, None, index.source).messages


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
    found = steps(index, leaf, edits)
    items = list(contributions(index, found.selection, found.edits))
    return Projection.of(items, found, leaf, index.source)
