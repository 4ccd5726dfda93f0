"""Why each entry has its fate, in words: the reading of a leaf (its path, compaction and
kept range), the header of ``pisession explain``, and which entries a view shows (runs
collapsed into gaps, the entries worth showing).

The text views (``explain``, ``tree``) and the HTML export word the same reasons from
these functions; they decide nothing, they read the rule's outputs
(``Session.projection``, ``Session.fates``).

>>> import pisession
>>> s = pisession.load(pisession.sample_path("tour"))
>>> reading_of(s.fates()).compaction is not None
True
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import groupby
from typing import TYPE_CHECKING, Protocol

from ..engine.index import of_type
from ..js.value import UNDEFINED, quoted
from ..projection import Projection, Selection
from ..tree import shown_name
from .provenance import FATES
from .terminal import Look, pad, wrap, wrap_path
from .text import id_text, model_text, plural, visible

if TYPE_CHECKING:
    from ..tree import Shape
    from .protocol import SessionLike
    from .provenance import Fates

#: Marks for "reached the model" and "did not", in Unicode and in ASCII.
MARKS = {True: ("✓", "+"), False: ("✗", "-")}

#: Straight runs longer than this are shortened by default (``collapse``).
COLLAPSE = 12


def _where(session: SessionLike, position: int) -> str:
    return f"{id_text(session.index.ids[position])} (line {session.line_of(position)})"


# --- the header -----------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """What an explanation states about a leaf, read off the rule's outputs without
    building the context: the path, the selection, the settings, the message count."""

    path: list[int]
    selection: Selection
    thinking_level: object
    model: object
    messages: int
    compactions: int  # how many the path holds

    @property
    def compaction(self) -> int | None:
        """The newest compaction on the path (None: none).

        >>> import pisession
        >>> s = pisession.load(pisession.sample_path("tour"))
        >>> s.line_of(reading_of(s.fates()).compaction)
        25
        """
        return self.selection.compaction


def reading_of(fates: Fates) -> Reading:
    """The ``Reading`` of a leaf from its fates (``Session.fates``).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> r = reading_of(s.fates())
    >>> len(r.path), r.thinking_level, r.messages
    (22, 'medium', 10)
    """
    settings = fates.steps.settings
    return Reading(
        fates.path,
        fates.selection,
        settings.thinking_level,
        settings.model,
        fates.message_count(),
        len(fates.on_path("compaction")),
    )


def kept_range_text(session: SessionLike, projection: Reading | Projection) -> str:
    """The kept range of the newest compaction, in words (from the rule's selection).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> kept_range_text(s, s.projection())
    'u2000001 .. a5000001: 10 entries, lines 11-24 (1 system message dropped)'
    """
    selection, path = projection.selection, projection.path
    if selection.first_kept is not None:
        kept = path[selection.start : selection.cut]
        dropped = len(selection.dropped_system)
        note = f" ({plural(dropped, 'system message')} dropped)" if dropped else ""
        return (
            f"{id_text(session.index.ids[kept[0]])} .. {id_text(session.index.ids[kept[-1]])}: "
            f"{plural(len(kept), 'entry', 'entries')}, lines {session.line_of(kept[0])}-"
            f"{session.line_of(kept[-1])}{note}"
        )
    if selection.retains_none:
        return (
            "none, by design: a retain-none compaction (its firstKeptEntryId is its own id, "
            "as Pi writes it when it keeps nothing); its summary stands for everything before it"
        )
    target = selection.first_kept_id
    shown = "missing" if target is UNDEFINED else quoted(target)
    return (
        f"none: firstKeptEntryId {visible(shown)} is not on the path before the compaction, so "
        "nothing before it is kept (see pisession check)"
    )


def header_lines(
    session: SessionLike, reading: Reading | Projection, leaf_id: object = None
) -> list[tuple[str, str]]:
    """The header of an explanation as (field, value) pairs: file, session, leaf, path,
    compaction and kept range, context size, thinking level and model (``reading``: a
    ``Reading``, or a ``Projection``).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> dict(header_lines(s, s.projection()))["context"]
    '10 messages; thinking level medium; model fake/fake-coder'
    """
    projection = reading
    rows = [("file", visible(session.source))]
    name = shown_name(session)
    name = f'  "{visible(name)}"' if name else ""
    rows.append(("session", f"{visible(session.id)}{name}"))
    rows.append(("version", _version_text(session)))
    path = projection.path
    if not path and leaf_id is None and len(session):
        last = session.line_of(len(session) - 1)
        rows.append(
            (
                "leaf",
                f"none: the last entry (line {last}) has id null; Pi's SessionManager takes "
                "the last entry's id as its leaf, and a null leaf has no path (an empty "
                "context)",
            )
        )
    elif not path:
        rows.append(("leaf", "none: the session has no entries"))
    else:
        how = "the default: the last entry in file order" if leaf_id is None else "chosen"
        rows.append(("leaf", f"{_where(session, path[-1])}, {how}"))
        rows.append(
            ("path", f"{len(path):,} entries from root {_where(session, path[0])} to the leaf")
        )
    rows.extend(_compaction_rows(session, projection))
    thinking, model, messages = _settings(projection)
    thinking_text = "missing (Pi omits the field)" if thinking is UNDEFINED else visible(thinking)
    rows.append(
        (
            "context",
            f"{plural(messages, 'message')}; thinking level {thinking_text}; "
            f"model {model_text(model)}",
        )
    )
    skipped = [d for d in session.diagnostics if d.kind != "newer-version"]
    if skipped:
        lines = ", ".join(str(d.line) for d in skipped[:8]) + (", ..." if len(skipped) > 8 else "")
        are = "is not an entry" if len(skipped) == 1 else "are not entries"
        where = f"line{'s' if len(skipped) > 1 else ''} {lines}"
        rows.append(
            ("skipped", f"{plural(len(skipped), 'line')} {are} ({where}); see pisession check")
        )
    return rows


def _settings(reading: Reading | Projection) -> tuple[object, object, int]:
    """Thinking level, model and message count of a ``Reading`` or a ``Projection``."""
    if isinstance(reading, Reading):
        return reading.thinking_level, reading.model, reading.messages
    context = reading.context
    return context.thinking_level, context.model, len(context.messages)


def _version_text(session: SessionLike) -> str:
    version = visible(session.original_version)
    if session.migrated:
        version += " (migrated to 3 in memory; the file is unchanged)"
    if any(d.kind == "newer-version" for d in session.diagnostics):
        version += " (newer than version 3, the rules pisession knows; read as Pi reads it)"
    return version


def _compaction_rows(
    session: SessionLike, projection: Reading | Projection
) -> list[tuple[str, str]]:
    compaction = projection.compaction
    if compaction is None:
        return [("compaction", "none on the path: the whole path is selected")]
    if isinstance(projection, Reading):
        older = projection.compactions - 1
    else:
        older = len(of_type(session.index, "compaction", projection.path)) - 1
    extra = f" (+{older} older on the path)" if older else ""
    return [
        ("compaction", f"{_where(session, compaction)}, newest{extra}"),
        ("kept range", kept_range_text(session, projection)),
    ]


def header_text(rows: list[tuple[str, str]], look: Look) -> list[str]:
    """``header_lines`` as aligned lines, long values wrapped under themselves.

    >>> header_text([("file", "a long name"), ("id", "x")], Look(width=12))
    ['file  a long', '      name', 'id    x']
    """
    key_width = max(len(k) for k, _ in rows)
    out: list[str] = []
    for key, value in rows:
        lead = " " * (key_width + 2)
        lines = (wrap_path if key == "file" else wrap)(value, look.width, lead, lead)
        lines[0] = look.paint(pad(key, key_width), "bold") + lines[0][key_width:]
        out.extend(look.fit(line) for line in lines)
    return out


# --- which entries a view shows -----------------------------------------------------------


@dataclass(frozen=True)
class Gap:
    """Entries a collapsed view leaves out: how many, the first and last of them, and
    which they are (a ``range`` in file order; in a tree, the positions of a straight
    run, which may jump over other branches' entries)."""

    hidden: int
    first: int
    last: int
    positions: Sequence[int] = field(default=(), repr=False, compare=False)

    def fates(self, names: Sequence[str]) -> list[str]:
        """The fates of the entries left out, read off the fate column ``names``.

        >>> Gap(2, 3, 9, [3, 9]).fates(["sent"] * 3 + ["kept"] * 7)
        ['kept', 'kept']
        """
        hidden = self._hidden()
        if isinstance(hidden, range):
            return list(names[hidden.start : hidden.stop])
        return list(map(names.__getitem__, hidden))

    def lines(self, line_of: Callable[[int], int]) -> str:
        """Where the entries left out are, in words: ``lines 7-40``, or, when the run
        jumps over other entries, each stretch: ``lines 7-9, 22-37``.

        >>> Gap(5, 2, 9, [2, 3, 4, 8, 9]).lines(lambda p: p + 1)
        'lines 3-5, 9-10'
        >>> Gap(4, 5, 8, [5, 9, 2, 8]).lines(lambda p: p + 1)
        'lines 6, 10, 3, 9'
        """
        hidden = self._hidden()
        if isinstance(hidden, range) or hidden == [*range(hidden[0], hidden[-1] + 1)]:
            return f"lines {line_of(self.first)}-{line_of(self.last)}"  # one stretch (in C)
        starts = [0, *(k for k in range(1, len(hidden)) if hidden[k] != hidden[k - 1] + 1)]
        ends = [*(k - 1 for k in starts[1:]), len(hidden) - 1]
        stretches = [
            f"{line_of(hidden[a])}-{line_of(hidden[b])}" if a != b else str(line_of(hidden[a]))
            for a, b in zip(starts, ends)
        ]
        return "lines " + ", ".join(stretches)

    def _hidden(self) -> Sequence[int]:
        """The positions left out (a gap made without them: ``first`` to ``last``)."""
        return self.positions or range(self.first, self.last + 1)


def _shorten(out: list[int | Gap], run: Sequence[int], collapse: int) -> None:
    """``run`` into ``out``: its first two entries, a ``Gap`` and its last two when it is
    longer than ``collapse`` (0: never) and the gap hides at least two entries."""
    if collapse > 0 and len(run) > max(collapse, 5):
        out.extend(run[:2])
        out.append(Gap(len(run) - 4, run[2], run[-3], run[2:-2]))
        out.extend(run[-2:])
    else:
        out.extend(run)


def collapse_runs(
    chain: list[int], keep: Positions, fate_of: Callable[[int], object], collapse: int
) -> list[int | Gap]:
    """``chain`` with each run of more than ``collapse`` entries of one fate (none of
    them in ``keep``) shortened to its first two, a ``Gap``, and its last two (when that
    hides at least two entries: a low ``collapse`` shortens runs of six or more).

    >>> collapse_runs(list(range(10)), {9}, lambda p: "sent", 4)
    [0, 1, Gap(hidden=5, first=2, last=6), 7, 8, 9]
    """
    if collapse <= 0:
        return list(chain)
    out: list[int | Gap] = []
    for _, group in groupby(chain, fate_of):
        whole = list(group)
        if keep.isdisjoint(whole):  # the usual run: nothing in it must show
            _shorten(out, whole, collapse)
            continue
        run: list[int] = []
        for position in whole:
            if position in keep:
                _shorten(out, run, collapse)
                out.append(position)
                run = []
            else:
                run.append(position)
        _shorten(out, run, collapse)
    return out


#: How ``explain`` groups fates into runs: each fate that reaches the model on its own,
#: every other one together (a run of them is the bulk a long session leaves behind).
RUN_OF = {kind.name: kind.name if kind.reached else "not sent" for kind in FATES}


def file_order_items(
    names: Sequence[str], keep: set[int], collapse: int, run_of: dict[str, str] | None = None
) -> list[int | Gap]:
    """Every position in file order, with ``collapse_runs``' shortening, read off the
    fate column ``names`` (no entry decoded, no per-entry call). ``run_of`` maps a fate
    to its run (default: each fate its own).

    >>> file_order_items(["sent"] * 6 + ["kept"], set(), 4)
    [0, 1, Gap(hidden=2, first=2, last=3), 4, 5, 6]
    """
    if collapse <= 0:
        return list(range(len(names)))
    cuts = sorted(keep)
    out: list[int | Gap] = []
    start = 0
    for _, group in groupby(names, None if run_of is None else run_of.__getitem__):
        end = start + len(list(group))  # (counted in C)
        low = start
        for k in range(bisect_left(cuts, start), len(cuts)):
            if cuts[k] >= end:
                break
            _shorten(out, range(low, cuts[k]), collapse)
            out.append(cuts[k])
            low = cuts[k] + 1
        _shorten(out, range(low, end), collapse)
        start = end
    return out


def explain_keep(session: SessionLike, fates: Fates) -> set[int]:
    """Entries ``explain`` always shows: the leaf, the newest compaction, the first
    entry of its kept range and the system messages it drops, the replies pi-ai leaves
    out of the request and the entries its written tool results follow.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> sorted(s.line_of(p) for p in explain_keep(s, s.fates()))
    [11, 22, 25, 27]
    """
    selection = fates.selection
    keep = {fates.path[-1]} if fates.path else set()
    if selection.compaction is not None:
        keep.add(selection.compaction)
        keep.update(selection.dropped_system)
    if selection.first_kept is not None:
        keep.add(selection.first_kept)
    if fates.request is not None:
        keep.update(fates.request.left_out)
        keep.update(fates.request.inserted)
    return keep


#: Up to this many leaves, the tree's views hold them as a set; beyond (a file of many
#: roots or branch ends), each position is asked of the shape (``Shape.is_leaf``).
LEAF_SET = 1 << 16


class Positions(Protocol):
    """Positions a view asks ``in`` and ``isdisjoint`` of: a set, or ``Leaves``."""

    def __contains__(self, position: object, /) -> bool: ...
    def isdisjoint(self, positions: Iterable[int], /) -> bool: ...


class Leaves:
    """The tree's leaves as a set answers ``in``, asked of the shape (``Shape.is_leaf``):
    for a session of very many leaves, whose set would cost more than its columns.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> leaves = Leaves(s.shape)
    >>> [p for p in range(len(s)) if p in leaves] == s.shape.leaves
    True
    """

    def __init__(self, shape: Shape, also: AbstractSet[int] = frozenset()):
        self.shape, self.also = shape, also

    def __contains__(self, position: object) -> bool:
        return position in self.also or (type(position) is int and self.shape.is_leaf(position))

    def isdisjoint(self, positions: Iterable[object], /) -> bool:
        """Whether none of ``positions`` is a leaf (as ``set.isdisjoint``).

        >>> import pisession
        >>> s = pisession.load(pisession.sample_path("tour"))
        >>> Leaves(s.shape).isdisjoint([0, 1]), Leaves(s.shape).isdisjoint(s.shape.leaves)
        (True, False)
        """
        return not any(map(self.__contains__, positions))

    def __iter__(self) -> Iterator[int]:
        return iter(dict.fromkeys([*self.shape.leaves, *self.also]))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def leaf_set(shape: Shape) -> frozenset[int] | Leaves:
    """The tree's leaves, for ``in``: a set, or (beyond ``LEAF_SET``) ``Leaves``.

    >>> import pisession
    >>> sorted(leaf_set(pisession.load(pisession.sample_path("tour")).shape))
    [19, 25]
    """
    leaves = shape.leaves
    return frozenset(leaves) if len(leaves) <= LEAF_SET else Leaves(shape)


def remarkable(session: SessionLike, leaf: int | None) -> set[int] | Leaves:
    """Entries a collapsed tree always shows: the leaf, every branch end, compactions,
    the first entry of every kept range and labelled entries (runs end at them).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> sorted(s.line_of(p) for p in remarkable(s, s.default_leaf))
    [9, 11, 21, 25, 27]
    """
    index = session.index
    keep = {leaf} if leaf is not None else set()
    many = len(session.shape.leaves) > LEAF_SET  # then asked of the shape (``Leaves``)
    if not many:
        keep.update(session.shape.leaves)
    compactions = of_type(index, "compaction")
    keep.update(compactions)
    for first_kept in session.field_of(compactions, "firstKeptEntryId"):
        target = index.position_of(first_kept)
        if target is not None:
            keep.add(target)
    keep.update(index.by_id[k] for k in session.labels if k in index.by_id)
    return Leaves(session.shape, keep) if many else keep
