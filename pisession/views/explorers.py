"""Interactive explorers for notebooks (ipywidgets 7.7 and 8), and the pure views behind them.

Each explorer is a small ``VBox`` whose controls are attributes (set ``.value`` from
code or a test and the outputs update). The work is done by pure functions a notebook
can call without widgets:

==========================  ==================================  ==========================
explorer                    pure functions                      shows
==========================  ==================================  ==========================
``branch_explorer``         ``leaf_options``, ``branch_view``   tree + context for a leaf
``compaction_stepper``      ``compaction_steps``                before/after each compaction
``migration_stepper``       ``migration_views``                 a v1/v2 file at each step
``context_edit_toggle``     ``context_without_edits``           Pi (edits) vs PiG (no edits)
``system_prompt_view``      ``system_prompt_html``              replayed prompt and tools
==========================  ==================================  ==========================

Figures (as ``<img>`` with alternative text) and tables are shown in ``HTML`` widgets
(no ``Output`` widget), so notebooks stay stable under nbval.
"""

from __future__ import annotations

import functools
import html
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from ..engine.opening import MigrationView, migration_views
from ..js.value import UNDEFINED
from ..js.value import field as js_field
from ..piversions import pi_versions
from ..projection import KEPT, Projection
from .display import (
    _esc,
    _id_cell,
    _table,
    details_html,
    fate_badge,
    markdown_html,
    projection_html,
    short_id,
    view,
)
from .prompt_steps import (
    PromptStep,
    system_prompt_html,
    system_prompt_step_html,
    system_prompt_steps,
)
from .text import entry_text, kind_of, one_line, strip_unsafe

if TYPE_CHECKING:
    from ipywidgets import HTML, Dropdown, VBox, Widget

    from ..migration import Change
    from .protocol import SessionLike

_Value = TypeVar("_Value")

_HIGHLIGHT = "#FFE08A"


def _id(entry: object) -> object:
    value = js_field(entry, "id")
    return None if value is UNDEFINED else value


def _selectable(value: object) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


# --- branches ---------------------------------------------------------------------------


def leaf_options(session: SessionLike) -> list[tuple[str, object]]:
    """``(text, leaf id)`` for every leaf that has an id, default leaf first.

    The text shows the id, the kind, the line, the label (if any) and the start of the
    entry's text, as a Dropdown lists them.

    >>> import pisession
    >>> [v for _, v in leaf_options(pisession.load(pisession.sample_path("tour")))]
    ['a6000001', 'cm000001']
    """
    default = session.default_leaf
    leaves = sorted(session.leaves(), key=lambda p: (p != default, p))
    options: list[tuple[str, object]] = []
    for position in leaves:
        entry = session.entry(position)
        entry_id = _id(entry)
        if not _selectable(entry_id):
            continue
        label = session.label_of(position)
        kind = kind_of(entry, short=True)
        parts = [short_id(entry_id), kind, f"line {session.line_of(position)}"]
        if label is not None:
            parts.append(f"“{one_line(label, 24)}”")
        if position == default:
            parts.append("(default)")
        text = one_line(entry_text(entry), 40)
        options.append((" · ".join(parts) + (f": {text}" if text else ""), entry_id))
    return options


def branch_view(session: SessionLike, leaf_id: object = None) -> tuple[bytes, str, int]:
    """The tree drawn for a leaf (PNG bytes at twice its natural size, and that natural
    width in px) and that leaf's context as an HTML table.

    >>> import pisession
    >>> png, table, width = branch_view(pisession.load(pisession.sample_path("tour")), "cm000001")
    >>> png[:4], "custom msg" in table, width
    (b'\\x89PNG', True, 562)
    """
    from .draw import draw_tree
    from .figure import HIDPI, NATURAL_DPI, figure_png, natural_size

    fig = draw_tree(session, leaf_id)
    png = figure_png(fig, dpi=NATURAL_DPI * HIDPI)
    return png, projection_html(session.projection(leaf_id)), natural_size(fig)[0]


def branch_html(session: SessionLike, leaf_id: object = None) -> str:
    """The branch explorer's picture as static HTML: the tree and the context table.

    >>> import pisession
    >>> branch_html(pisession.load(pisession.sample_path("tour")))[:6]
    '<style'
    """
    projection = session.projection(leaf_id)
    return view(f"<div>{branch_picture(session, leaf_id)}</div>") + projection_html(projection)


def branch_picture(session: SessionLike, leaf_id: object = None) -> str:
    """The tree drawn for a leaf as an HTML ``<img>`` (sharp at twice its natural size)
    whose alternative text says what it shows: the leaf, the path, the fates, and how
    many entries that leaf's context selects.

    >>> import pisession
    >>> picture = branch_picture(pisession.load(pisession.sample_path("tour")), "cm000001")
    >>> picture[:16], "leaf cm000001" in picture, "selected for its context" in picture
    ('<img width="562"', True, True)
    """
    from .draw import draw_tree
    from .figure import alt_text, figure_html

    fig = draw_tree(session, leaf_id)
    selected = len(session.projection(leaf_id).items)
    return figure_html(fig, f"{alt_text(fig)} {selected} entries selected for its context.")


# --- compactions ------------------------------------------------------------------------


@dataclass
class CompactionStep:
    """One compaction on a path: the context just before it and right after it."""

    position: int
    line: int
    id: object
    summary: str
    first_kept_id: object
    tokens_before: object
    before: Projection | None  # at the compaction's parent (None at a root)
    after: Projection  # with the compaction as leaf
    kept: list[int] = field(default_factory=list)
    replaced: list[int] = field(default_factory=list)
    #: each kept-range entry's fate with the compaction as leaf, as ``explain`` words it:
    #: ``kept`` (sent), ``state-only`` (e.g. an older compaction) or ``dropped-system``
    kept_fates: dict[int, str] = field(default_factory=dict)


def compaction_steps(session: SessionLike, leaf_id: object = None) -> list[CompactionStep]:
    """Every compaction on the path to ``leaf_id``, oldest first, with its effect.

    ``kept`` are the entries of its kept range and ``kept_fates`` their fates (the
    words ``explain`` uses); ``replaced`` the entries that were in the context just
    before it and are not after it (the summary replaced them, or they were system
    messages dropped from the kept range).

    >>> import pisession
    >>> [step] = compaction_steps(pisession.load(pisession.sample_path("tour")))
    >>> step.id, step.first_kept_id, len(step.kept), len(step.replaced)
    ('cp000001', 'u2000001', 9, 10)
    >>> sorted(set(step.kept_fates.values()))
    ['edited', 'kept', 'state-only']
    """
    path = session.path_positions(leaf_id)
    steps: list[CompactionStep] = []
    for index, position in enumerate(path):
        entry = session.entry(position)
        if js_field(entry, "type") != "compaction" or not _selectable(_id(entry)):
            continue
        parent_id = _id(session.entry(path[index - 1])) if index else None
        before = session.projection(parent_id) if _selectable(parent_id) else None
        after = session.projection(_id(entry))
        after_positions = {item.position for item in after.entries}
        replaced: list[int] = []
        if before is not None:
            replaced = [i.position for i in before.entries if i.position not in after_positions]
        kept = [item.position for item in after.entries if item.part == KEPT]
        fates = session.fates(_id(entry)).names
        steps.append(
            CompactionStep(
                position=position,
                line=session.line_of(position),
                id=_id(entry),
                summary=entry_text(entry),
                first_kept_id=after.selection.first_kept_id,
                tokens_before=js_field(entry, "tokensBefore"),
                before=before,
                after=after,
                kept=kept,
                replaced=replaced,
                kept_fates={position: fates[position] for position in kept},
            )
        )
    return steps


#: The marks of the compaction stepper: word -> (fate whose colour the badge takes,
#: row class: ``removed`` rows left the context, ``added`` rows entered it). A kept-range
#: entry is marked with its fate, in ``explain``'s words: ``kept`` when it is sent,
#: ``state-only`` when it sends nothing (an older compaction, a setting), ``edited`` or
#: ``omitted`` by a context edit, ``dropped-system`` for a system message Pi drops there.
_MARKS = {
    "replaced": ("summarized", "removed"),
    "kept": ("kept", ""),
    "dropped-system": ("dropped-system", "removed"),
    "compaction": ("compaction", "added"),
}


def _mark(word: str) -> tuple[str, str]:
    """(badge colour's fate, row class) of a stepper mark; any other fate marks itself.

    >>> _mark("replaced"), _mark("state-only")
    (('summarized', 'removed'), ('state-only', ''))
    """
    return _MARKS.get(word, (word, ""))


def _selection_table(projection: Projection | None, marks: dict[int, str]) -> str:
    """The entries a projection selected, marked: replaced, kept (or the fate of a
    kept-range entry that is not sent) or new."""
    rows: list[list[str]] = []
    row_marks: list[str] = []
    for item in projection.entries if projection is not None else []:
        mark = marks.get(item.position, "")
        badge = fate_badge(_mark(mark)[0], text=mark) if mark else ""
        rows.append(
            [
                str(item.line),
                _id_cell(item.id),
                _esc(kind_of(item.entry, short=True), 20),
                _esc(entry_text(item.entry), 48),
                str(len(item.messages)),
                badge,
            ]
        )
        row_marks.append(_mark(mark)[1] if mark else "")
    headers = ["line", "entry", "kind", "text", "msgs", ""]
    table = _table(headers, rows, widths=[38, 76, 72, None, 48, 104], marks=row_marks)
    return table.replace('<table class="pisession"', '<table class="pisession one-line"', 1)


def summary_html(summary: object, previous: object = None) -> str:
    """A compaction summary in full, as Markdown, in a collapsible block; lines not in
    the ``previous`` summary are highlighted (and counted in the block's title).

    >>> summary_html("## Goal\\n- a\\n- b", previous="## Goal\\n- a")[:60]
    '<details><summary>summary: 3 lines, 1 new since the previous'
    """
    lines = strip_unsafe(summary).split("\n")
    old = set(strip_unsafe(previous).split("\n")) if previous is not None else None
    marked = (
        set() if old is None else {i for i, s in enumerate(lines) if s.strip() and s not in old}
    )
    count = sum(1 for line in lines if line.strip())
    title = f"summary: {count} lines"
    if old is not None:
        title += f", {len(marked)} new since the previous compaction (highlighted)"
    return details_html(html.escape(title) + " (click to open)", markdown_html(summary, marked))


def compaction_step_html(
    session: SessionLike,
    step: CompactionStep,
    number: int = 0,
    total: int = 1,
    previous: object = None,
) -> str:
    """One compaction step as HTML: facts, the summary (full, as Markdown, new lines
    highlighted against ``previous``), then the selection before and after it with the
    rows that left (red) and entered (green) the context marked.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> "compaction 1 of 1" in compaction_step_html(s, compaction_steps(s)[0])
    True
    """
    kept = {position: step.kept_fates.get(position, "kept") for position in step.kept}
    before_marks = dict.fromkeys(step.replaced, "replaced")
    before_marks.update(kept)
    after_marks = dict(kept)
    after_marks[step.position] = "compaction"
    count = len(step.before.messages) if step.before is not None else 0
    facts = (
        f"<p><b>compaction {number + 1} of {total}</b>: {_id_cell(step.id)}"
        f" (line {step.line}), firstKeptEntryId <code>{_esc(step.first_kept_id, 40)}</code>,"
        f" tokensBefore {_esc(step.tokens_before, 20)}; kept range {len(step.kept)} entries,"
        f" the summary replaced {len(step.replaced)} entries (red rows)</p>"
    )
    before = _selection_table(step.before, before_marks)
    after = _selection_table(step.after, after_marks)
    # side by side only where each table gets 560 px (a text column of about 40
    # characters); stacked, each the full width, in a narrower notebook
    side = "flex:1 1 560px;min-width:0"
    columns = (
        '<div style="display:flex;flex-wrap:wrap;gap:8px 16px;align-items:flex-start">'
        f'<div style="{side}"><p><b>before</b> ({count} messages)</p>{before}</div>'
        f'<div style="{side}"><p><b>after</b> ({len(step.after.messages)}'
        f" messages)</p>{after}</div></div>"
    )
    return view(facts + summary_html(step.summary, previous) + columns)


# --- migrations -------------------------------------------------------------------------

#: Column widths (px) of the migration table: ``#``, ``line``, then each field (ids are
#: cut to 8 characters; a changed cell stacks ~~before~~ over -> after).
_MIGRATION_WIDTHS = {"#": 30, "line": 40, "type": 92, "version": 70, "message.role": 104}
_MIGRATION_WIDTH = 96

#: Fields the migration table shows (a change to any other field adds a column).
MIGRATION_FIELDS = [
    "type",
    "id",
    "parentId",
    "version",
    "message.role",
    "firstKeptEntryIndex",
    "firstKeptEntryId",
]


def _dotted(value: object, name: str) -> object:
    for part in name.split("."):
        value = js_field(value, part)
    return value


def migration_view_html(step: MigrationView, max_rows: int = 200) -> str:
    """One migration view as a table; cells the step changed are highlighted.

    >>> views = migration_views(b'{"type":"session","version":1,"id":"s"}\\n')
    >>> "changed fields" in migration_view_html(views[1])
    True
    """
    names = list(MIGRATION_FIELDS)
    names += sorted({c.field for c in step.changes} - set(names))
    changes = {(c.index, c.field): c for c in step.changes}
    rows: list[list[str]] = []
    marks: list[str] = []
    for index, value in enumerate(step.values[:max_rows]):
        cells = [str(index), str(step.lines[index])]
        cells += [_migration_cell(value, name, changes.get((index, name))) for name in names]
        rows.append(cells)
        marks.append("changed" if any((index, n) in changes for n in names) else "")
    more = max(len(step.values) - max_rows, 0)
    summary = f"<p><b>{html.escape(step.title)}</b>: {len(step.changes)} changed fields</p>"
    headers = ["#", "line", *names]
    widths = [_MIGRATION_WIDTHS.get(name, _MIGRATION_WIDTH) for name in headers]
    table = _table(headers, rows, more, widths, marks)
    table = table.replace("width:100%", f"width:{sum(widths)}px", 1)
    scroll = f'<div style="overflow-x:auto;max-width:100%">{table}</div>'
    return view(summary + scroll)


def telling_view(views: list[MigrationView]) -> int:
    """The index of the view that changes the most fields (the first of them): the
    state a stored preview shows.

    >>> views = migration_views(b'{"type":"session","version":1,"id":"s"}\\n'
    ...                         b'{"type":"message","message":{"role":"user"}}\\n')
    >>> telling_view(views), [len(v.changes) for v in views]
    (1, [0, 3, 1])
    """
    counts = [len(v.changes) for v in views]
    return counts.index(max(counts))


def _migration_cell(value: object, name: str, change: Change | None) -> str:
    """A field's value; a changed one as ~~before~~ -> after, highlighted."""
    current = _dotted(value, name)
    text = _migration_value(current)
    if change is None:
        full = "" if current is UNDEFINED else _esc(current)
        return f'<span class="nowrap" title="{full}">{text}</span>'
    before = "(none)" if change.before is UNDEFINED else _migration_value(change.before)
    after = "(deleted)" if change.after is UNDEFINED else text
    return (
        f'<span style="background:{_HIGHLIGHT}" title="{_esc(change.note)}">'
        f'<s class="nowrap">{before}</s><br>→ <b class="nowrap">{after}</b></span>'
    )


def _migration_value(value: object) -> str:
    """A field's value cut to fit a column: 11 characters (an id: its first 8)."""
    if value is UNDEFINED:
        return ""
    if value is None:
        return "null"
    return _esc(value, 11)


# --- context edits ----------------------------------------------------------------------


def context_without_edits(session: SessionLike, leaf_id: object = None) -> Projection:
    """The projection with context edits ignored: a model of PiG (the Go port) as its
    format page documents it, not PiG's own output. The selection is Pi's; only the
    messages differ.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> "40 one-line helpers" in str(s.context().messages)
    True
    >>> "40 one-line helpers" in str(context_without_edits(s).messages)
    False
    """
    return session.projection(leaf_id, edits=False)


def context_edit_html(
    session: SessionLike, leaf_id: object = None, apply_edits: bool = True
) -> str:
    """The context with edits applied (Pi) or ignored (PiG); the rows of the entries
    whose messages differ are highlighted in both readings (same columns in both).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> "PiG: context edits ignored" in context_edit_html(s, apply_edits=False)
    True
    """
    pi = session.projection(leaf_id)
    pig = context_without_edits(session, leaf_id)
    differ = [a for a, b in zip(pi.entries, pig.entries) if a.messages != b.messages]
    names = ", ".join(f"{_id_cell(i.id)} (line {i.line})" for i in differ)
    pi_name = f"Pi {pi_versions()['primary']}"
    who = f"{pi_name}: context edits applied" if apply_edits else "PiG: context edits ignored"
    facts = (
        f"<p><b>{who}</b>. Pi sends {len(pi.messages)} messages, PiG {len(pig.messages)};"
        f" entries whose messages differ (highlighted): {names or 'none'}</p>"
    )
    marks = dict.fromkeys((i.position for i in differ), "changed")
    return view(facts) + projection_html(pi if apply_edits else pig, marks=marks)


# --- widgets ----------------------------------------------------------------------------

_WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@functools.cache
def _explorer_class() -> type[VBox]:
    import ipywidgets as widgets

    class Explorer(widgets.VBox):  # type: ignore[misc]  # ipywidgets has no types
        """A VBox with a short text form and a static HTML picture of its first state,
        stored with the widget in a notebook: a reader who opens the notebook without
        running it (GitHub, nbviewer, an untrusted JupyterLab) sees the picture."""

        _title = "Explorer"
        static_html = ""

        def __repr__(self) -> str:
            return f"<{self._title}>"

        def _repr_mimebundle_(self, **kwargs: object) -> dict[str, object]:  # ipywidgets 8
            parent = getattr(super(), "_repr_mimebundle_", None)
            data = parent(**kwargs) if parent else {}
            data = dict(data or {})
            data["text/plain"] = repr(self)
            if self.static_html:
                data["text/html"] = self.static_html
            return data

        if hasattr(widgets.VBox, "_ipython_display_"):  # ipywidgets 7

            def _ipython_display_(self, **kwargs: object) -> None:
                from IPython.display import display

                view = {"version_major": 2, "version_minor": 0, "model_id": self._model_id}
                data = {"text/plain": repr(self), _WIDGET_VIEW: view}
                if self.static_html:
                    data["text/html"] = self.static_html
                display(data, raw=True)  # type: ignore[no-untyped-call]

    return Explorer


def _explorer(title: str, children: list[Widget], static_html: str = "") -> VBox:
    box = _explorer_class()(children=children)
    box._title = title
    box.static_html = static_html
    return box


def _html(value: str = "") -> HTML:
    import ipywidgets as widgets

    return widgets.HTML(value=value)


def _control_and_table(title: str, control: Widget, render: Callable[[_Value], str]) -> VBox:
    """An explorer of one control above an HTML table: ``render(control.value)`` fills the
    table now and whenever the control changes. The table is ``.table``."""
    table = _html()

    def show(change: object = None) -> None:
        table.value = render(control.value)

    control.observe(show, names="value")
    show()
    box = _explorer(title, [control, table], table.value)
    box.table = table
    return box


def _leaf_dropdown(session: SessionLike, leaf_id: object) -> Dropdown:
    import ipywidgets as widgets

    options = leaf_options(session)
    values = [v for _, v in options]
    start = leaf_id if leaf_id in values else (values[0] if values else None)
    layout = widgets.Layout(width="95%", max_width="900px")
    return widgets.Dropdown(options=options, value=start, description="leaf", layout=layout)


def branch_explorer(session: SessionLike, leaf_id: object = None) -> VBox:
    """Pick a leaf; see the tree (path, fates, cut) and the context that leaf sends.

    Controls: ``.leaf`` (Dropdown), ``.image`` (HTML: the tree as an ``<img>`` with
    alternative text, sharp at twice its natural size; an ipywidgets ``Image`` has no
    ``alt``), ``.table`` (HTML).

    >>> import pisession
    >>> box = branch_explorer(pisession.load(pisession.sample_path("tour")))
    >>> box, box.leaf.value
    (<branch explorer: 2 leaves>, 'a6000001')
    """
    leaf = _leaf_dropdown(session, leaf_id)
    image = _html()
    table = _html()

    def show(change: object = None) -> None:
        image.value = branch_picture(session, leaf.value)
        table.value = projection_html(session.projection(leaf.value))

    leaf.observe(show, names="value")
    show()
    title = f"branch explorer: {len(leaf.options)} leaves"
    box = _explorer(title, [leaf, image, table], branch_html(session, leaf.value))
    box.leaf, box.image, box.table = leaf, image, table
    return box


def compaction_stepper(session: SessionLike, leaf_id: object = None) -> VBox:
    """Step through the compactions on a path: context before and after each one, the
    rows that left and entered it, the summary in full with its new lines highlighted.

    Controls: ``.step`` (IntSlider, 1 = the first compaction), ``.table`` (HTML);
    ``.steps`` holds the data.

    >>> import pisession
    >>> box = compaction_stepper(pisession.load(pisession.sample_path("tour")))
    >>> box, [step.id for step in box.steps]
    (<compaction stepper: 1 compactions>, ['cp000001'])
    """
    import ipywidgets as widgets

    steps = compaction_steps(session, leaf_id)
    step = widgets.IntSlider(  # counts from 1, as "compaction 2 of 3" does
        min=1, max=max(len(steps), 1), value=1, description="compaction", disabled=len(steps) < 2
    )

    def render(number: int) -> str:
        if not steps:
            return view("<p>No compaction on this path.</p>")
        rank = number - 1
        previous = steps[rank - 1].summary if rank else None
        return compaction_step_html(session, steps[rank], rank, len(steps), previous)

    box = _control_and_table(f"compaction stepper: {len(steps)} compactions", step, render)
    box.step, box.steps = step, steps
    return box


def migration_stepper(path_or_bytes: str | os.PathLike[str] | bytes) -> VBox:
    """A v1/v2 file at each migration step, changed fields highlighted.

    Controls: ``.step`` (IntSlider: 0 = as read; it opens at the step that changes the
    most fields), ``.table`` (HTML); ``.views``.

    >>> import pisession
    >>> box = migration_stepper(pisession.sample_path("legacy-v1"))
    >>> box, box.step.value
    (<migration stepper: 2 steps>, 1)
    """
    import ipywidgets as widgets

    views = migration_views(path_or_bytes)
    step = widgets.IntSlider(  # opens at the step that changes the most (the preview)
        min=0,
        max=len(views) - 1,
        value=telling_view(views),
        description="step",
        disabled=len(views) < 2,
    )

    def render(number: int) -> str:
        return migration_view_html(views[number])

    box = _control_and_table(f"migration stepper: {len(views) - 1} steps", step, render)
    box.step, box.views = step, views
    return box


#: The two readings ``context_edit_toggle`` switches between.
EDIT_MODES = ("Pi: edits applied", "PiG: edits ignored")


def context_edit_toggle(session: SessionLike, leaf_id: object = None) -> VBox:
    """The same file read by Pi (context edits applied) and by PiG (ignored); the
    entries whose messages differ are highlighted in both.

    Controls: ``.mode`` (ToggleButtons with ``EDIT_MODES``), ``.table`` (HTML).

    >>> import pisession
    >>> box = context_edit_toggle(pisession.load(pisession.sample_path("tour")))
    >>> box.mode.value = EDIT_MODES[1]
    >>> "PiG: context edits ignored" in box.table.value
    True
    """
    import ipywidgets as widgets

    mode = widgets.ToggleButtons(options=list(EDIT_MODES), value=EDIT_MODES[0])

    def render(value: str) -> str:
        return context_edit_html(session, leaf_id, value == EDIT_MODES[0])

    box = _control_and_table("context edit toggle", mode, render)
    box.mode = mode
    return box


def system_prompt_view(session: SessionLike, leaf_id: object = None) -> VBox:
    """Pick a leaf, then step through every system message in its context: what each
    one added, changed or removed (sections, tools), and the prompt after it.

    Controls: ``.leaf`` (Dropdown; hidden, with the leaf as a label, when there is one
    leaf), ``.step`` (IntSlider, 1 = the first system message), ``.table`` (HTML);
    ``.steps`` holds the current leaf's steps.

    >>> import pisession
    >>> box = system_prompt_view(pisession.load(pisession.sample_path("tour")))
    >>> box, len(box.steps)
    (<system prompt view>, 1)
    """
    import ipywidgets as widgets

    leaf = _leaf_dropdown(session, leaf_id)
    step = widgets.IntSlider(min=1, max=1, value=1, description="system msg")
    table = _html()
    controls = [leaf]
    if len(leaf.options) == 1:  # nothing to pick: a label, not a one-option dropdown
        leaf.layout.display = "none"
        controls.append(_html(f"<b>leaf</b> {html.escape(leaf.options[0][0])}"))
    box = _explorer("system prompt view", [*controls, step, table])

    def show(change: object = None) -> None:
        steps = box.steps
        if not steps:
            table.value = view("<p>No system message in this context.</p>")
            return
        rank = min(step.value, len(steps)) - 1
        table.value = system_prompt_step_html(steps[rank], rank, len(steps))

    def pick(change: object = None) -> None:
        box.steps = system_prompt_steps(session, leaf.value)
        step.unobserve(show, names="value")
        step.max, step.value = max(len(box.steps), 1), 1
        step.disabled = len(box.steps) < 2
        step.observe(show, names="value")
        show()

    leaf.observe(pick, names="value")
    step.observe(show, names="value")
    box.leaf, box.step, box.table = leaf, step, table
    pick()
    box.static_html = table.value
    return box


__all__ = [
    "EDIT_MODES",
    "CompactionStep",
    "MigrationView",
    "PromptStep",
    "branch_explorer",
    "branch_html",
    "branch_picture",
    "branch_view",
    "compaction_step_html",
    "compaction_stepper",
    "compaction_steps",
    "context_edit_html",
    "context_edit_toggle",
    "context_without_edits",
    "leaf_options",
    "migration_stepper",
    "migration_view_html",
    "migration_views",
    "summary_html",
    "system_prompt_html",
    "system_prompt_step_html",
    "system_prompt_steps",
    "system_prompt_view",
    "telling_view",
]
