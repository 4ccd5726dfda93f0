"""``pisession explain`` and ``pisession tree`` as text and as data: which entries
reached the model for a leaf, and why; and the entry tree.

Pure functions from a ``Session`` to strings (or JSON-ready dicts), so a notebook can
print the same account the command line shows. They word the rule's outputs
(``Session.projection``, ``Session.fates``, ``Session.shape``); they decide nothing.

>>> import pisession
>>> text = explain_text(pisession.load(pisession.sample_path("tour")))
>>> "9 of 26 entries reached the model" in text
True

Every piece of session text is passed through ``pisession.views.text.visible``. The text
fits the ``width`` it is given without hiding an answer: a reason that does not fit
beside its row goes on the line below it (shared by the rows above that have the same
reason), and at a narrow width the fate joins it there.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress, groupby, islice, repeat
from operator import eq
from typing import cast

from ..engine.index import of_type
from ..js.value import UNDEFINED, quoted, value_text
from ..js.value import field as js_field
from ..projection import Selection
from ..tree import shown_name
from .provenance import FATE, FATES, OFF_PATH
from .terminal import Look, pad, text_width, wrap, wrap_path
from .text import entry_kind, entry_text, id_text, model_text, plural, visible

#: Marks for "reached the model" and "did not", in Unicode and in ASCII.
MARKS = {True: ("✓", "+"), False: ("✗", "-")}

#: Straight runs longer than this are shortened by default (``collapse``).
COLLAPSE = 12


def _where(session, position: int) -> str:
    return f"{id_text(session.index.ids[position])} (line {session.line_of(position)})"


# --- the header -----------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """What an explanation states about a leaf, read off the rule's outputs without
    building the context: the path, the selection, the settings, the message count."""

    path: list
    selection: Selection
    thinking_level: object
    model: object
    messages: int

    @property
    def compaction(self) -> int | None:
        """The newest compaction on the path (None: none)."""
        return self.selection.compaction


def reading_of(fates) -> Reading:
    """The ``Reading`` of a leaf from its fates (``Session.fates``).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> r = reading_of(s.fates())
    >>> len(r.path), r.thinking_level, r.messages
    (22, 'medium', 10)
    """
    settings = fates.steps.settings
    return Reading(
        fates.path, fates.selection, settings.thinking_level, settings.model, fates.message_count()
    )


def kept_range_text(session, projection) -> str:
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


def header_lines(session, reading, leaf_id: object = None) -> list[tuple[str, str]]:
    """The header of an explanation as (field, value) pairs: file, session, leaf, path,
    compaction and kept range, context size, thinking level and model (``reading``: a
    ``Reading``, or a ``Projection``)."""
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


def _settings(reading) -> tuple[object, object, int]:
    """Thinking level, model and message count of a ``Reading`` or a ``Projection``."""
    if isinstance(reading, Reading):
        return reading.thinking_level, reading.model, reading.messages
    context = reading.context
    return context.thinking_level, context.model, len(context.messages)


def _version_text(session) -> str:
    version = visible(session.original_version)
    if session.migrated:
        version += " (migrated to 3 in memory; the file is unchanged)"
    if any(d.kind == "newer-version" for d in session.diagnostics):
        version += " (newer than version 3, the rules pisession knows; read as Pi reads it)"
    return version


def _compaction_rows(session, projection) -> list[tuple[str, str]]:
    compaction = projection.compaction
    if compaction is None:
        return [("compaction", "none on the path: the whole path is selected")]
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

    def fates(self, names) -> list:
        """The fates of the entries left out, read off the fate column ``names``.

        >>> Gap(2, 3, 9, [3, 9]).fates(["sent"] * 3 + ["kept"] * 7)
        ['kept', 'kept']
        """
        hidden = self._hidden()
        if isinstance(hidden, range):
            return names[hidden.start : hidden.stop]
        return list(map(names.__getitem__, hidden))

    def lines(self, line_of) -> str:
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


def _shorten(out: list, run: Sequence[int], collapse: int) -> None:
    """``run`` into ``out``: its first two entries, a ``Gap`` and its last two when it is
    longer than ``collapse`` (0: never) and the gap hides at least two entries."""
    if collapse > 0 and len(run) > max(collapse, 5):
        out.extend(run[:2])
        out.append(Gap(len(run) - 4, run[2], run[-3], run[2:-2]))
        out.extend(run[-2:])
    else:
        out.extend(run)


def collapse_runs(chain: list[int], keep: set, fate_of, collapse: int) -> list:
    """``chain`` with each run of more than ``collapse`` entries of one fate (none of
    them in ``keep``) shortened to its first two, a ``Gap``, and its last two (when that
    hides at least two entries: a low ``collapse`` shortens runs of six or more).

    >>> collapse_runs(list(range(10)), {9}, lambda p: "sent", 4)
    [0, 1, Gap(hidden=5, first=2, last=6), 7, 8, 9]
    """
    if collapse <= 0:
        return list(chain)
    out: list = []
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


def file_order_items(names, keep: set, collapse: int, run_of: dict | None = None) -> list:
    """Every position in file order, with ``collapse_runs``' shortening, read off the
    fate column ``names`` (no entry decoded, no per-entry call). ``run_of`` maps a fate
    to its run (default: each fate its own).

    >>> file_order_items(["sent"] * 6 + ["kept"], set(), 4)
    [0, 1, Gap(hidden=2, first=2, last=3), 4, 5, 6]
    """
    if collapse <= 0:
        return list(range(len(names)))
    cuts = sorted(keep)
    out: list = []
    start = 0
    for _, group in groupby(names, None if run_of is None else run_of.__getitem__):
        end = start + sum(1 for _ in group)
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


def explain_keep(session, fates) -> set[int]:
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


class Leaves:
    """The tree's leaves as a set answers ``in``, asked of the shape (``Shape.is_leaf``):
    for a session of very many leaves, whose set would cost more than its columns.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> leaves = Leaves(s.shape)
    >>> [p for p in range(len(s)) if p in leaves] == s.shape.leaves
    True
    """

    def __init__(self, shape, also: set | frozenset = frozenset()):
        self.shape, self.also = shape, also

    def __contains__(self, position: object) -> bool:
        return position in self.also or (type(position) is int and self.shape.is_leaf(position))

    def isdisjoint(self, positions) -> bool:
        return not any(map(self.__contains__, positions))

    def __iter__(self) -> Iterator[int]:
        return iter(dict.fromkeys([*self.shape.leaves, *self.also]))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def leaf_set(shape) -> frozenset | Leaves:
    """The tree's leaves, for ``in``: a set, or (beyond ``LEAF_SET``) ``Leaves``."""
    leaves = shape.leaves
    return frozenset(leaves) if len(leaves) <= LEAF_SET else Leaves(shape)


def remarkable(session, leaf: int | None) -> set[int]:
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
    for entry in session.entries_at(compactions):
        target = index.position_of(js_field(entry, "firstKeptEntryId"))
        if target is not None:
            keep.add(target)
    keep.update(index.by_id[k] for k in session.labels if k in index.by_id)
    return cast(set, Leaves(session.shape, keep)) if many else keep


# --- the table of fates ---------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    """One entry as the explanation shows it (every text already made visible)."""

    line: str
    id: str
    kind: str
    short: str
    label: str
    fate: str
    reason: str


def written_row(call_id: object, tool_name: object) -> Row:
    """The row of a tool result pi-ai writes into the request (no line of the file).

    >>> written_row("c1", "ls").reason
    'written by pi-ai (not in the file): "No result provided" (isError) for call c1 (ls)'
    """
    reason = (
        'written by pi-ai (not in the file): "No result provided" (isError) for call '
        f"{id_text(call_id)} ({value_text(tool_name)})"
    )
    return Row("+", "(pi-ai)", "toolResult", "toolResult", "", "sent", visible(reason))


def _fate_row(session, fate) -> Row:
    """The ``Row`` of one ``provenance.Fate``."""
    index = session.index
    kind, role = index.types[fate.position], index.roles[fate.position]
    label = session.label_of(fate.position)
    return Row(
        str(fate.line),
        id_text(fate.id),
        entry_kind(kind, role),
        entry_kind(kind, role, short=True),
        "" if label is None else visible(label),
        fate.fate,
        visible(fate.reason),
    )


@dataclass(frozen=True)
class Layout:
    """Which parts of a row share its line: the kind in full or short, the label, the
    fate. The rest, and the reason, make the row's *note*."""

    short: bool
    label: bool
    fate: bool
    #: spaces between columns
    gap: int = 2


#: Layouts from the widest to the narrowest; the first whose columns fit is used.
LAYOUTS = (
    Layout(False, True, True),
    Layout(False, False, True),
    Layout(True, False, True),
    Layout(True, False, True, 1),
    Layout(True, False, False),
)

_CAPS = {"id": 36, "kind": 40}

#: Room kept at the end of a row for a note's number (``[12]``).
KEY_ROOM = 6


def _kind_cell(row: Row, layout: Layout) -> str:
    kind = row.short if layout.short else row.kind
    return f"{kind} [{row.label}]" if layout.label and row.label else kind


def _head(layout: Layout) -> Row:
    """The header row (the tightest layout heads the line column ``#``)."""
    return _HEAD if layout.gap > 1 else Row("#", "id", "entry", "entry", "", "fate", "why")


def _widths(rows: list[Row], layout: Layout) -> tuple[int, int, int, int]:
    every = [_head(layout), *rows]
    return (
        max(len(r.line) for r in every),
        min(max(text_width(r.id) for r in every), _CAPS["id"]),
        min(max(text_width(_kind_cell(r, layout)) for r in every), _CAPS["kind"]),
        max([len("  fate")] + [2 + len(r.fate) for r in rows]),
    )


_HEAD = Row("line", "id", "entry", "entry", "", "fate", "why")


def _choose_layout(rows: list[Row], width: int | None) -> tuple[Layout, tuple, bool]:
    """The widest ``Layout`` whose columns fit ``width`` (None: the widest), its column
    widths (line, id, entry, fate), and whether rows have room for a note's number
    (if not, every run of rows is followed by its note)."""
    options = [(layout, True) for layout in LAYOUTS[:3]]
    options += [(LAYOUTS[2], False), (LAYOUTS[3], False), (LAYOUTS[4], True), (LAYOUTS[4], False)]
    for layout, numbered in options:
        widths = _widths(rows, layout)
        gap = layout.gap
        used = (
            widths[0] + gap + widths[1] + gap + widths[2] + (gap + widths[3] if layout.fate else 0)
        )
        if width is None or used + (gap + KEY_ROOM if numbered else 0) <= width:
            return layout, widths, numbered
    return LAYOUTS[-1], _widths(rows, LAYOUTS[-1]), False


def _note(row: Row, layout: Layout, look: Look) -> str:
    """What the row says beyond its columns: its fate and label when the layout leaves
    them out, then its reason."""
    parts = []
    if not layout.fate:
        kind = FATE[row.fate]
        parts.append(look.paint(f"{look.mark(kind.reached)} {row.fate}", kind.style))
    if not layout.label and row.label:
        parts.append(f"#{row.label}")
    parts.append(row.reason)
    return ": ".join(parts)


def _columns(row: Row, layout: Layout, widths: tuple, look: Look) -> str:
    """The row's cells, padded, up to where its note starts."""
    w_line, w_id, w_kind, w_fate = widths
    cells = [
        pad(row.line, w_line, right=True),
        pad(look.cut(row.id, w_id), w_id),
        pad(look.cut(_kind_cell(row, layout), w_kind), w_kind),
    ]
    if layout.fate:
        kind = FATE.get(row.fate)
        fate = "  fate" if kind is None else f"{look.mark(kind.reached)} {row.fate}"
        painted = fate if kind is None else look.paint(fate, kind.style)
        cells.append(painted + " " * (w_fate - text_width(fate)))
    gap = " " * layout.gap
    return gap.join(cells) + gap


def gap_counts(names, gap: Gap) -> str:
    """The fates of a gap's entries in words: ``120 summarized, 4 off-path``.

    >>> gap_counts(["sent", "summarized", "off-path", "summarized"], Gap(3, 1, 3))
    '2 summarized, 1 off-path'
    """
    counts = Counter(gap.fates(names))
    return ", ".join(f"{counts[k.name]:,} {k.name}" for k in FATES if counts[k.name])


def _gap_lines(session, gap: Gap, names, indent: int, look: Look) -> list[str]:
    dots = look.symbol("┆", ":")
    where = gap.lines(session.line_of)
    text = f"{dots} {gap.hidden:,} more entries: {gap_counts(names, gap)} ({where})"
    lead = " " * indent
    return [look.paint(line, "dim") for line in wrap(text, look.width, lead + "  ", lead)]


class _Notes:
    """Notes too long for their rows, written under the first run of rows that has
    them: numbered (rows show ``[3]``, a note is written once), or, when rows have no
    room for a number, under every run."""

    def __init__(self, look: Look, indent: int, numbered: bool):
        self.look, self.indent, self.numbered = look, indent, numbered
        self.numbers: dict[str, int] = {}
        self.open: str | None = None  # the note whose text is owed after the current run

    def reference(self, note: str, out: list[str]) -> str:
        """What the row shows for its note (``[3]``, or nothing), closing the run before
        it if that one had another note."""
        if self.open is not None and self.open != note:
            self.close(out)
        if not self.numbered:
            self.open = note
            return ""
        if note not in self.numbers:
            self.numbers[note] = len(self.numbers) + 1
            self.open = note
        return f"[{self.numbers[note]}]"

    def close(self, out: list[str]) -> None:
        """Write the owed note (if any) under the rows above."""
        if self.open is None:
            return
        arrow = self.look.symbol("↳ ", "-> ")
        if self.numbered:
            arrow += f"[{self.numbers[self.open]}] "
        lead = " " * self.indent
        lines = wrap(self.open, self.look.width, lead + " " * len(arrow), lead + arrow)
        out.extend(self.look.fit(line) for line in lines)
        self.open = None


def fate_table(session, fates, items: list, look: Look) -> list[str]:
    """The table of ``items`` (positions and ``Gap``s, file order): one line per entry
    and per gap. A row's note (its reason, and whatever its layout leaves out) stands
    at the end of the row when it fits; otherwise the row shows a number and the note
    is written once, wrapped, under the first rows that have it.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> print("\\n".join(fate_table(s, s.fates(), [0, 24, 25], Look(width=60))))
    line  id        entry                fate        why
       2  n0000001  session_info       ✗ summarized  [1]
          ↳ [1] before the kept range of compaction cp000001:
                replaced by its summary
      26  u4000001  message user       ✓ sent        [2]
          ↳ [2] sent as user
      27  a6000001  message assistant  ✓ sent        [3]
          ↳ [3] sent as assistant
    """
    rows = {p: _fate_row(session, fates[p]) for p in items if not isinstance(p, Gap)}
    inserted = fates.request.inserted if fates.request is not None else {}
    written = {p: [written_row(*call) for call in inserted[p]] for p in rows if p in inserted}
    every = list(rows.values()) + [r for extra in written.values() for r in extra]
    layout, widths, numbered = _choose_layout(every, look.width)
    head = _columns(_head(layout), layout, widths, look)
    if numbered:
        head += "why" if layout.fate else "fate, why"
    out = [look.paint(look.fit(head.rstrip()), "bold")]
    notes = _Notes(look, widths[0] + layout.gap, numbered)
    for item in items:
        if isinstance(item, Gap):
            notes.close(out)
            out.extend(
                look.fit(x) for x in _gap_lines(session, item, fates.names, widths[0] + 2, look)
            )
            continue
        for row in [rows[item], *written.get(item, ())]:
            left = _columns(row, layout, widths, look)
            note = _note(row, layout, look)
            room = None if look.width is None else look.width - look.visible_width(left)
            if room is None or look.visible_width(note) <= room:
                notes.close(out)
                out.append((left + note).rstrip())
            else:
                out.append((left + notes.reference(note, out)).rstrip())
    notes.close(out)
    return out


# --- the explanation ---------------------------------------------------------------------------


def summary_lines(fates, messages: int, color: bool = False) -> list[str]:
    """The closing account: how many entries reached the model, counts per fate.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> summary_lines(s.fates(), 10)[0]
    '9 of 26 entries reached the model, as 10 messages.'
    """
    look = Look(color=color)
    counts = fates.counts()
    reached = sum(n for name, n in counts.items() if FATE[name].reached)
    lines = [
        f"{reached:,} of {plural(len(fates), 'entry', 'entries')} reached the model, "
        f"as {plural(messages, 'message')}."
    ]

    def part(reached_model: bool) -> str:
        shown = [
            look.paint(f"{k.name} {counts[k.name]:,}", k.style)
            for k in FATES
            if k.reached == reached_model and counts[k.name]
        ]
        return ", ".join(shown) or "none"

    lines.append(f"  reached:  {part(True)}")
    lines.append(f"  not sent: {part(False)}")
    sentence = fates.request.sentence() if fates.request is not None else ""
    if sentence:
        lines.append(sentence[:-2] + "; pisession context --sent shows it).")
    return lines


def explain_text(
    session,
    leaf_id: object = None,
    color: bool = False,
    width: int | None = None,
    ascii: bool = False,
    collapse: int = COLLAPSE,
) -> str:
    """The full explanation for one leaf: header, one line per entry, summary.

    ``color`` adds ANSI colours (fates); ``width`` fits every line into that many
    columns (reasons move under their rows rather than being cut); ``ascii`` uses
    ``+``/``-`` and ``...``; runs of more than ``collapse`` entries with one fate are
    shortened to their first and last two (0: every entry).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> text = explain_text(s, "a7000001")
    >>> "u5000001" in text and "off-path" in text
    True
    """
    look = Look(color, width, ascii)
    fates = session.fates(leaf_id)
    reading = reading_of(fates)
    out = header_text(header_lines(session, reading, leaf_id), look)
    out.append("")
    if len(fates):
        items = file_order_items(fates.names, explain_keep(session, fates), collapse, RUN_OF)
        out.extend(fate_table(session, fates, items, look))
        out.append("")
    for line in summary_lines(fates, reading.messages, color):
        lead = line[: len(line) - len(line.lstrip(" "))]  # "  reached:  " wraps under itself
        out.extend(wrap(line[len(lead) :], width, " " * (12 if lead else 2), lead))
    return "\n".join(out) + "\n"


# --- the explanation as data ---------------------------------------------------------------


def leaf_data(session, chosen: int | None) -> list[dict]:
    """Every leaf (branch end) of the tree, in file order: id, line, label, and whether
    it is the one explained.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> [(leaf["id"], leaf["chosen"]) for leaf in leaf_data(s, s.default_leaf)]
    [('cm000001', False), ('a6000001', True)]
    """
    index = session.index
    return [
        {
            "id": json_id(index.ids[p]),
            "line": session.line_of(p),
            "label": session.label_of(p),
            "chosen": p == chosen,
        }
        for p in session.shape.leaves
    ]


def json_id(value: object) -> object:
    """A value read from the file as JSON: ``None`` for one that is absent.

    >>> json_id(UNDEFINED), json_id("a1")
    (None, 'a1')
    """
    return None if value is UNDEFINED else value


def _kept_range_data(session, projection) -> dict | None:
    selection = projection.selection
    if selection.compaction is None:
        return None
    index = session.index
    data: dict = {"text": kept_range_text(session, projection)}
    if selection.first_kept is None:
        data.update(entries=0, retainNone=selection.retains_none)
        return data
    kept = projection.path[selection.start : selection.cut]
    data.update(
        entries=len(kept),
        first=json_id(index.ids[kept[0]]),
        last=json_id(index.ids[kept[-1]]),
        lines=[session.line_of(kept[0]), session.line_of(kept[-1])],
        droppedSystem=[json_id(index.ids[p]) for p in selection.dropped_system],
        retainNone=False,
    )
    return data


def _place(session, position: int) -> dict:
    return {"id": json_id(session.index.ids[position]), "line": session.line_of(position)}


def explain_head(session, fates, leaf_id: object = None) -> dict:
    """The explanation without its entries, as JSON-ready data (``explain --json``).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> head = explain_head(s, s.fates())
    >>> head["leaf"], head["counts"]["kept"]
    ({'id': 'a6000001', 'line': 27, 'default': True}, 5)
    """
    reading = reading_of(fates)
    index, path = session.index, reading.path
    compaction = reading.compaction
    leaf = path[-1] if path else None
    return {
        "file": session.source,
        "session": {
            "id": session.id,
            "name": shown_name(session),
            "version": session.original_version,
            "migrated": session.migrated,
        },
        "leaf": None if leaf is None else {**_place(session, leaf), "default": leaf_id is None},
        "path": {"entries": len(path), "root": json_id(index.ids[path[0]]) if path else None},
        "compaction": None if compaction is None else _place(session, compaction),
        "keptRange": _kept_range_data(session, reading),
        "context": {
            "messages": reading.messages,
            "thinkingLevel": None
            if reading.thinking_level is UNDEFINED
            else reading.thinking_level,
            "model": reading.model,
        },
        "reached": fates.reached(),
        "counts": fates.counts(),
        "skippedLines": [d.line for d in session.diagnostics if d.kind != "newer-version"],
        "leaves": leaf_data(session, leaf),
    }


def entry_data(session, fates) -> Iterator[dict]:
    """Every entry's fate and reason, in file order, one dict at a time.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> next(entry_data(s, s.fates()))["reason"]
    'before the kept range of compaction cp000001: replaced by its summary'
    """
    index = session.index
    texts: dict = {}
    for fate in fates:
        p = fate.position
        role = index.roles[p] if index.types[p] == "message" else None
        try:  # many entries share a reason: its words are made once
            reason = texts.get(fate.why) or texts.setdefault(fate.why, fate.reason)
        except TypeError:  # a reason holding an object (an entry type that is one)
            reason = fate.reason
        yield {
            "line": fate.line,
            "id": fate.id,
            "type": fate.type,
            "role": role if isinstance(role, str) else None,
            "label": session.label_of(p),
            "fate": fate.fate,
            "reached": FATE[fate.fate].reached,
            "messages": fate.messages,
            "reason": reason,
        }


# --- the tree as text ---------------------------------------------------------------


@dataclass(frozen=True)
class _Pieces:
    branch: str
    last: str
    through: str
    space: str
    on_path: str
    off_path: str
    leaf: str
    other_leaf: str
    dots: str


_BOX = _Pieces("├─ ", "└─ ", "│  ", "   ", "●", "○", "◀ leaf", "◁ leaf", "┆")
_ASCII = _Pieces("|- ", "`- ", "|  ", "   ", "*", "o", "<- leaf", "< leaf", ":")


@dataclass(frozen=True)
class _TreeView:
    look: Look
    pieces: _Pieces
    names: list | None
    leaf: int | None
    leaves: frozenset | Leaves
    line_width: int

    def fate_of(self, position: int) -> str | None:
        return None if self.names is None else self.names[position]


def _tags(session, position: int, view: _TreeView) -> list[str]:
    """Fate, label and leaf marks of a tree line."""
    look, tags = view.look, []
    fate = view.fate_of(position)
    if fate:
        tags.append(look.paint(f"[{fate}]", FATE[fate].style))
    label = session.label_of(position)
    if label is not None:
        tags.append(look.paint(f"#{visible(label)}", "bold"))
    if position == view.leaf:
        tags.append(look.paint(view.pieces.leaf, "bold"))
    elif position in view.leaves:
        tags.append(view.pieces.other_leaf)
    return tags


def _node_lines(session, position: int, lead: str, cont: str, view: _TreeView) -> list[str]:
    """One entry of the tree: line, marks, id, kind, fate, label, leaf, a preview; on a
    narrow terminal the marks after the kind go on a second line rather than off the edge."""
    look, index = view.look, session.index
    if view.names is None:
        mark = " "
    else:
        mark = view.pieces.off_path if view.fate_of(position) == OFF_PATH else view.pieces.on_path
    head = f"{pad(str(session.line_of(position)), view.line_width, right=True)} {lead}{mark} "
    head += id_text(index.ids[position])
    kind, role = index.types[position], index.roles[position]
    tail = " ".join(_tags(session, position, view))
    line = f"{head} {entry_kind(kind, role)}" + (f" {tail}" if tail else "")
    width = look.width
    used = 0 if width is None else look.visible_width(line)
    if width is not None and used > width:
        line = f"{head} {entry_kind(kind, role, short=True)}" + (f" {tail}" if tail else "")
        used = look.visible_width(line)
    if width is not None and used > width and tail:
        first = look.fit(f"{head} {entry_kind(kind, role, short=True)}")
        more = f"{' ' * view.line_width} {cont}{' ' * (len(mark) + 1)}{tail}"
        return [first, look.fit(more)]
    room = 60 if width is None else width - used - 4
    if room >= 8:
        entry = session.entry(position)
        start = room * 4 + 16  # enough for the cut below
        snippet = visible(entry_text(entry, start)[:start])
        if snippet:
            line += f'  "{look.cut(snippet, room)}"'
    return [line]


def _tree_gap(session, gap: Gap, lead: str, view: _TreeView) -> str:
    lines = gap.lines(session.line_of)
    text = f"{' ' * view.line_width} {lead}{view.pieces.dots} {gap.hidden:,} more entries ({lines})"
    return view.look.fit(view.look.paint(text, "dim"))


def tree_text(
    session,
    leaf_id: object = None,
    color: bool = False,
    width: int | None = None,
    ascii: bool = False,
    collapse: int = COLLAPSE,
    with_fates: bool = True,
) -> str:
    """The entry tree in Pi's order, one line per entry: line number, ``●`` on the path
    to the leaf (``○`` elsewhere), id, kind, fate, label, ``◀ leaf`` for the leaf shown
    and ``◁ leaf`` for every other branch end, a preview of the text.

    Straight runs stay in one column; branches are drawn with ``├─``/``└─``. Runs of
    more than ``collapse`` unremarkable entries with the same fate are shortened to
    their first and last two (``collapse=0`` shows everything). ``with_fates=False``
    draws the tree alone (for files whose path cannot be built).

    >>> import pisession
    >>> text = tree_text(pisession.load(pisession.sample_path("tour")), ascii=True, width=72)
    >>> print(text.splitlines()[8])
    18 |- o bs000001 branch_summary [off-path]  "The user read util.py (..."
    """
    return "".join(tree_chunks(session, leaf_id, color, width, ascii, collapse, with_fates))


def tree_chunks(
    session,
    leaf_id: object = None,
    color: bool = False,
    width: int | None = None,
    ascii: bool = False,
    collapse: int = COLLAPSE,
    with_fates: bool = True,
) -> Iterator[str]:
    """``tree_text`` a block of lines at a time, each written as it is drawn: memory
    holds one block, never the whole tree (a big session's second half is drawn by a
    helper process into a temporary file meanwhile, then copied out).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> "".join(tree_chunks(s)) == tree_text(s)
    True
    """
    if not len(session):
        yield "(no entries)\n"
        return
    leaf = session.default_leaf if leaf_id is None else session.position_of(leaf_id)
    view = _TreeView(
        Look(color, width, ascii),
        _ASCII if ascii else _BOX,
        session.fates(leaf_id).names if with_fates else None,
        leaf,
        leaf_set(session.shape),
        len(str(session.line_of(len(session) - 1))),
    )
    yield from _tree_blocks(session, view, remarkable(session, leaf), collapse)


#: Lines of the tree drawn and written together.
TREE_BLOCK = 4096


def _tree_blocks(session, view: _TreeView, keep: set, collapse: int) -> Iterator[str]:
    import tempfile

    from ..engine.parallel import BIG_SESSION, in_child
    from ..engine.stream import text_pieces

    walk, count, seen = replayable(
        lambda: tree_walk(session, view.names, keep, collapse, view.pieces)
    )
    split = count // 2 if len(session) >= BIG_SESSION else count
    with tempfile.TemporaryFile() if split < count else _no_file() as spill:
        second = None
        if split < count:  # the second half by a helper process meanwhile
            second = in_child(_draw_into, session, view, walk, split, spill)
        yield from _drawn_blocks(session, view, islice(walk(), split))
        if second is not None:
            second.result()
            spill.seek(0)
            yield from text_pieces(spill)
    if seen < len(session):
        yield "\n".join(wrap(_unreached_text(session), view.look.width, " ")) + "\n"


#: Items of a tree's walk kept from its first pass; beyond, it is walked again when
#: drawn (the walk alone is cheap next to drawing) and kept nowhere.
WALK_HELD = 1 << 17


def replayable(make) -> tuple:
    """(a function that gives the walk ``make()`` gives, its number of items, the
    entries they show or hide): its items kept when there are at most ``WALK_HELD``,
    else walked again each time.

    >>> again, count, seen = replayable(lambda: iter([(1, "", ""), (2, "", "")]))
    >>> list(again()) == list(again()), count, seen
    (True, 2, 2)
    """
    first = make()
    held = list(islice(first, WALK_HELD))
    count = len(held)
    seen = sum(item.hidden if isinstance(item, Gap) else 1 for item, _, _ in held)
    if count < WALK_HELD:
        return (lambda: iter(held)), count, seen
    held.clear()  # kept nowhere: walked again when drawn
    for item, _, _ in first:
        count += 1
        seen += item.hidden if isinstance(item, Gap) else 1
    return make, count, seen


class _no_file:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _draw_into(session, view: _TreeView, walk, start: int, out) -> None:
    """The tree's lines from item ``start`` on, written to the file ``out`` (by the
    helper process; again from the start of the file if it has to be done here)."""
    out.seek(0)
    out.truncate()
    for block in _drawn_blocks(session, view, islice(walk(), start, None)):
        out.write(block.encode("utf-8"))
    out.flush()


def _drawn_blocks(session, view: _TreeView, items) -> Iterator[str]:
    """``TREE_BLOCK`` of ``tree_walk``'s items at a time, drawn, as text."""
    while block := list(islice(items, TREE_BLOCK)):
        yield "\n".join(_drawn(session, view, block)) + "\n"
        session.forget(item for item, _, _ in block if not isinstance(item, Gap))


def tree_walk(session, names, keep: set, collapse: int, pieces=None) -> Iterator[tuple]:
    """The lines of the tree as ``(item, lead, cont)``: ``item`` a position or a
    ``Gap``, ``lead`` the drawing before it (``├─ ``...), ``cont`` the drawing under it.

    Roots in file order, children in Pi's order (by timestamp), with one change that
    keeps a long session's tree from drifting right: at a branch point the child on the
    path to the leaf (without fates: the last child) comes last and continues in its
    parent's column; the other children are drawn before it as side branches. Straight
    runs stay in one column. ``names`` (the fate column, or None) shortens runs of one
    fate and finds the path.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> rows = [(s.line_of(p), lead) for p, lead, _ in tree_walk(s, s.fates().names, set(), 0)]
    >>> rows[7:10]
    [(9, ''), (18, '├─ '), (19, '│  ')]
    """
    shape, pieces = session.shape, pieces or _BOX
    fate_of = (lambda p: None) if names is None else names.__getitem__
    for root in shape.roots:  # one root's tree at a time: the stack holds one branch
        yield from _root_walk(shape, names, keep, collapse, pieces, root, fate_of)


def _root_walk(shape, names, keep, collapse: int, pieces, root: int, fate_of) -> Iterator[tuple]:
    """``tree_walk`` of the tree under one root."""
    stack = [(root, "", "")]
    while stack:
        start, lead, cont = stack.pop()
        chain = shape.chain(start)
        for rank, item in enumerate(collapse_runs(chain, keep, fate_of, collapse)):
            yield item, lead if rank == 0 else cont, cont
        kids = shape.children(chain[-1])
        if not kids:
            continue
        straight = next((k for k in kids if names is not None and names[k] != OFF_PATH), kids[-1])
        stack.append((straight, cont, cont))
        for kid in reversed([k for k in kids if k != straight]):
            stack.append((kid, cont + pieces.branch, cont + pieces.through))


def decode_shown(session, items: list) -> None:
    """Decode together the entries that ``tree_walk``'s items show (one read of the file
    for neighbouring lines), so that drawing them reads nothing more.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> items = list(tree_walk(s, s.fates().names, set(), 0))
    >>> decode_shown(s, items)  # then s.entry(position) reads nothing
    >>> s.entry(items[0][0])["type"]
    'session_info'
    """
    session.entries_at([item for item, _, _ in items if not isinstance(item, Gap)])


def _drawn(session, view: _TreeView, items: list) -> list[str]:
    """The lines of some of ``tree_walk``'s items."""
    decode_shown(session, items)
    lines: list[str] = []
    for item, lead, cont in items:
        if isinstance(item, Gap):
            lines.append(_tree_gap(session, item, lead, view))
        else:
            lines.extend(_node_lines(session, item, lead, cont, view))
    return lines


def _unreached_text(session) -> str:
    """The note under a tree that leaves entries out: how many, and their lines."""
    unreached = session.shape.unreached()
    lines = ", ".join(str(session.line_of(p)) for p in unreached[:10])
    more = ", ..." if len(unreached) > 10 else ""
    check = "; see pisession check" if session.problems()["cycles"] else ""
    return (
        f"(not in the tree: {plural(len(unreached), 'entry', 'entries')} in or under a loop "
        f"of parents, which no root leads to: line{'' if len(unreached) == 1 else 's'} "
        f"{lines}{more}{check})"
    )


# --- the tree as data -----------------------------------------------------------------------


def tree_entries(session, leaf_id: object = None, with_fates: bool = True) -> Iterator[dict]:
    """Every entry of the tree in Pi's order (``Shape.preorder``), one dict at a time:
    line, id, the parent's id, depth, type, role, label, fate at the leaf, whether it
    is a leaf (a branch end).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> row = next(e for e in tree_entries(s) if e["id"] == "bs000001")
    >>> row["parentId"], row["depth"], row["fate"]
    ('a2000001', 8, 'off-path')
    """
    index = session.index
    names = session.fates(leaf_id).names if with_fates else None
    leaves = set(session.shape.leaves)
    for p, depth in session.shape.preorder():
        parent = index.parents[p]
        role = index.roles[p] if index.types[p] == "message" else None
        yield {
            "line": session.line_of(p),
            "id": json_id(index.ids[p]),
            "parentId": json_id(index.ids[parent]) if parent >= 0 else None,
            "depth": depth,
            "type": json_id(index.types[p]),
            "role": role if isinstance(role, str) else None,
            "label": session.label_of(p),
            "fate": None if names is None else names[p],
            "leaf": p in leaves,
        }


# --- usage and counts ------------------------------------------------------------------------

#: Message roles in the order ``stats`` lists them, with their row names.
ROLE_ROWS = (
    ("user", "user"),
    ("assistant", "assistant"),
    ("toolResult", "tool results"),
    ("system", "system"),
    ("bashExecution", "bash executions"),
    ("custom", "custom"),
)


def role_counts(session, positions) -> Counter:
    """Message entries by role among ``positions`` (``(no role)`` for a message without
    one), from the index alone: no entry decoded.

    >>> import pisession
    >>> role_counts(pisession.load(pisession.sample_path("tour")), range(5))
    Counter({'system': 1, 'user': 1})
    """
    types, roles = session.index.types, session.index.roles
    every = positions == range(len(types))
    kinds = types if every else map(types.__getitem__, positions)
    messages = map(eq, kinds, repeat("message"))
    try:  # the usual case, counted in C: every role a string
        counts = Counter(compress(roles if every else map(roles.__getitem__, positions), messages))
        if all(type(role) is str for role in counts):
            return counts
    except TypeError:  # an object as role
        pass
    counts = Counter()
    for p in positions:
        if types[p] == "message":
            role = roles[p]
            counts[role if isinstance(role, str) else "(no role)"] += 1
    return counts


def _number(value: float) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value:,}" if isinstance(value, int) else f"{value:,.2f}"


def stats_rows(session, leaf_id: object = None, whole=None, branch=None) -> list[tuple]:
    """``pisession stats``' rows as text: (row, whole session, branch to the leaf).
    The message rows by role add up to the messages row; a role other than user,
    assistant and tool result is listed when it occurs.

    >>> import pisession
    >>> rows = stats_rows(pisession.load(pisession.sample_path("tour")))
    >>> [r for r in rows if r[0].strip() in ("messages", "user", "system")]
    [('messages', '16', '14'), ('  user', '5', '4'), ('  system', '2', '2')]
    """
    whole = session.stats() if whole is None else whole
    branch = session.stats(leaf_id, branch=True) if branch is None else branch
    path = session.path_positions(leaf_id)
    counts = role_counts(session, range(len(session))), role_counts(session, path)
    known = dict(ROLE_ROWS)
    rows = [
        ("entries", len(session), len(path)),
        ("messages", sum(counts[0].values()), sum(counts[1].values())),
    ]
    for role, name in ROLE_ROWS:
        if role in ("user", "assistant", "toolResult") or counts[0][role]:
            rows.append((f"  {name}", counts[0][role], counts[1][role]))
    for role in sorted(set(counts[0]) - set(known)):
        rows.append((f"  {visible(role)}", counts[0][role], counts[1][role]))
    w, b = whole.usage, branch.usage
    rows += [
        ("tool calls", whole.tool_calls, branch.tool_calls),
        ("tokens", w.total_tokens, b.total_tokens),
        ("  input", w.input, b.input),
        ("  output", w.output, b.output),
        ("  cache read", w.cacheRead, b.cacheRead),
        ("  cache write", w.cacheWrite, b.cacheWrite),
    ]
    out = [(name, _number(x), _number(y)) for name, x, y in rows]
    return [*out, ("cost", f"${w.cost:,.4f}", f"${b.cost:,.4f}")]
