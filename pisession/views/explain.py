"""``pisession explain`` as text: which entries reached the model for a leaf, and why (a
table of fates between a header and a summary).

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

The reasons it words are ``reasons``; the same account as data is ``explain_json``;
``pisession tree`` is ``tree_text`` and ``pisession stats`` ``stats_text``. The names
the command line, notebooks and tests have always imported from here still are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING

from ..js.value import value_text
from .explain_json import entry_data, explain_head, json_id, leaf_data
from .provenance import FATE, FATES
from .reasons import (
    COLLAPSE,
    RUN_OF,
    Gap,
    collapse_runs,
    explain_keep,
    file_order_items,
    header_lines,
    header_text,
    reading_of,
    remarkable,
)
from .stats_text import role_counts, stats_rows
from .terminal import Look, pad, text_width, wrap
from .text import entry_kind, id_text, plural, visible
from .tree_text import tree_chunks, tree_entries, tree_text, tree_walk

if TYPE_CHECKING:
    from .protocol import SessionLike
    from .provenance import Fate, Fates

#: Column widths of the table: line, id, entry, fate.
_Widths = tuple[int, int, int, int]

#: What the command line, notebooks and tests import from here: the explanation as text,
#: and the names of ``reasons``, ``explain_json``, ``tree_text`` and ``stats_text`` they
#: have always imported from ``explain``.
__all__ = [
    "Gap",
    "collapse_runs",
    "entry_data",
    "explain_head",
    "explain_text",
    "fate_table",
    "gap_counts",
    "json_id",
    "leaf_data",
    "remarkable",
    "role_counts",
    "stats_rows",
    "summary_lines",
    "tree_chunks",
    "tree_entries",
    "tree_text",
    "tree_walk",
]

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


def _fate_row(session: SessionLike, fate: Fate) -> Row:
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


def _choose_layout(rows: list[Row], width: int | None) -> tuple[Layout, _Widths, bool]:
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


def _columns(row: Row, layout: Layout, widths: _Widths, look: Look) -> str:
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


def gap_counts(names: Sequence[str], gap: Gap) -> str:
    """The fates of a gap's entries in words: ``120 summarized, 4 off-path``.

    >>> gap_counts(["sent", "summarized", "off-path", "summarized"], Gap(3, 1, 3))
    '2 summarized, 1 off-path'
    """
    fates = gap.fates(names)
    counts: dict[str, int] = {}
    if fates and fates.count(fates[0]) == len(fates):  # one fate (a run of the tree), in C
        counts[fates[0]] = len(fates)
    else:  # runs of one fate, each counted in C
        for fate, run in groupby(fates):
            counts[fate] = counts.get(fate, 0) + len(list(run))
    return ", ".join(f"{counts[k.name]:,} {k.name}" for k in FATES if counts.get(k.name))


def _gap_lines(
    session: SessionLike, gap: Gap, names: Sequence[str], indent: int, look: Look
) -> list[str]:
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


def fate_table(
    session: SessionLike, fates: Fates, items: Sequence[int | Gap], look: Look
) -> list[str]:
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


def summary_lines(fates: Fates, messages: int, color: bool = False) -> list[str]:
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
    session: SessionLike,
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
