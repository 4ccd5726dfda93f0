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

Figures are shown as PNG ``Image`` widgets and tables as ``HTML`` widgets (no
``Output`` widget), so notebooks stay stable under nbval.
"""

from __future__ import annotations

import functools
import html
from dataclasses import dataclass, field

from .display import _esc, _table, fate_badge, projection_html, short_id
from .jsvalue import UNDEFINED
from .jsvalue import field as js_field
from .text import entry_text, kind_of, one_line, strip_unsafe

_HIGHLIGHT = "#FFE08A"


def _id(entry: object) -> object:
    value = js_field(entry, "id")
    return None if value is UNDEFINED else value


def _selectable(value: object) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


# --- branches ---------------------------------------------------------------------------


def leaf_options(session) -> list[tuple[str, object]]:
    """``(text, leaf id)`` for every leaf that has an id, default leaf first.

    The text shows the id, the kind, the line, the label (if any) and the start of the
    entry's text, as a Dropdown lists them.

    >>> import pisession
    >>> [v for _, v in leaf_options(pisession.load(pisession.sample_path("tour")))]
    ['a6000001', 'cm000001']
    """
    default = session.default_leaf
    leaves = sorted(session.leaves(), key=lambda p: (p != default, p))
    options = []
    for position in leaves:
        entry = session.entry(position)
        entry_id = _id(entry)
        if not _selectable(entry_id):
            continue
        label = session.label_of(position)
        kind = kind_of(entry, short=True)
        parts = [short_id(entry_id), kind, f"line {session.line_of(position)}"]
        if label:
            parts.append(f"“{one_line(label, 24)}”")
        if position == default:
            parts.append("(default)")
        text = one_line(entry_text(entry), 40)
        options.append((" · ".join(parts) + (f": {text}" if text else ""), entry_id))
    return options


def branch_view(session, leaf_id: object = None, dpi: int = 80) -> tuple[bytes, str]:
    """The tree drawn for a leaf (PNG bytes) and that leaf's context as an HTML table.

    >>> import pisession
    >>> png, table = branch_view(pisession.load(pisession.sample_path("tour")), "cm000001")
    >>> png[:4], "custom msg" in table
    (b'\\x89PNG', True)
    """
    from .draw import draw_tree, figure_png

    png = figure_png(draw_tree(session, leaf_id), dpi=dpi)
    return png, projection_html(session.projection(leaf_id))


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
    before: object  # Projection at the compaction's parent, or None at a root
    after: object  # Projection with the compaction as leaf
    kept: list[int] = field(default_factory=list)
    replaced: list[int] = field(default_factory=list)


def compaction_steps(session, leaf_id: object = None) -> list[CompactionStep]:
    """Every compaction on the path to ``leaf_id``, oldest first, with its effect.

    ``kept`` are the entries of its kept range; ``replaced`` the entries that were in the
    context just before it and are not after it (the summary replaced them, or they
    were system messages dropped from the kept range).

    >>> import pisession
    >>> [step] = compaction_steps(pisession.load(pisession.sample_path("tour")))
    >>> step.id, step.first_kept_id, len(step.kept), len(step.replaced)
    ('cp000001', 'u2000001', 9, 10)
    """
    path = session.path_positions(leaf_id)
    steps = []
    for index, position in enumerate(path):
        entry = session.entry(position)
        if js_field(entry, "type") != "compaction" or not _selectable(_id(entry)):
            continue
        parent_id = _id(session.entry(path[index - 1])) if index else None
        before = session.projection(parent_id) if _selectable(parent_id) else None
        after = session.projection(_id(entry))
        after_positions = {item.position for item in after.entries}
        replaced = []
        if before is not None:
            replaced = [i.position for i in before.entries if i.position not in after_positions]
        steps.append(
            CompactionStep(
                position=position,
                line=session.line_of(position),
                id=_id(entry),
                summary=entry_text(entry),
                first_kept_id=js_field(entry, "firstKeptEntryId"),
                tokens_before=js_field(entry, "tokensBefore"),
                before=before,
                after=after,
                kept=[item.position for item in after.entries[1:]],
                replaced=replaced,
            )
        )
    return steps


#: The marks of the compaction stepper, as ``(word, fate whose colour it takes)``.
_MARKS = {"replaced": "summarized", "kept": "kept", "compaction": "compaction"}


def _selection_table(session, projection, marks: dict[int, str]) -> str:
    rows = []
    for item in projection.entries if projection is not None else []:
        mark = marks.get(item.position, "")
        badge = fate_badge(_MARKS[mark], text=mark) if mark else ""
        rows.append(
            [
                str(item.line),
                f"<code>{_esc(short_id(item.id))}</code>",
                _esc(kind_of(item.entry, short=True), 20),
                _esc(entry_text(item.entry), 60),
                str(len(item.messages)),
                badge,
            ]
        )
    return _table(["line", "entry", "kind", "text", "msgs", ""], rows)


def compaction_step_html(session, step: CompactionStep, number: int = 0, total: int = 1) -> str:
    """One compaction step as HTML: facts, then the selection before and after it."""
    from .display import _STYLE

    before_marks = dict.fromkeys(step.replaced, "replaced")
    before_marks.update(dict.fromkeys(step.kept, "kept"))
    after_marks = dict.fromkeys(step.kept, "kept")
    after_marks[step.position] = "compaction"
    count = len(step.before.messages) if step.before is not None else 0
    facts = (
        f"<p><b>compaction {number + 1} of {total}</b>: <code>{_esc(short_id(step.id))}</code>"
        f" (line {step.line}), firstKeptEntryId <code>{_esc(step.first_kept_id, 40)}</code>,"
        f" tokensBefore {_esc(step.tokens_before, 20)}; kept range {len(step.kept)} entries,"
        f" summary replaced {len(step.replaced)} entries</p>"
        f"<p><i>summary:</i> {_esc(step.summary, 300)}</p>"
    )
    before = _selection_table(session, step.before, before_marks)
    after = _selection_table(session, step.after, after_marks)
    columns = (
        '<div style="display:flex;gap:16px;align-items:flex-start">'
        f"<div><b>before</b> ({count} messages)<br>{before}</div>"
        f"<div><b>after</b> ({len(step.after.messages)} messages)<br>{after}</div></div>"
    )
    return _STYLE + facts + columns


# --- migrations -------------------------------------------------------------------------

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


@dataclass
class MigrationView:
    """A file at one migration step: ``values`` (header at index 0) and what changed."""

    title: str
    version: object
    values: list
    lines: list[int]
    changes: list = field(default_factory=list)

    @property
    def changed(self) -> set[tuple[int, str]]:
        """``(index, field)`` pairs the step changed."""
        return {(c.index, c.field) for c in self.changes}


def migration_views(path_or_bytes) -> list[MigrationView]:
    """The file as read, then after each migration step Pi would run (deterministic ids).

    >>> views = migration_views(b'{"type":"session","version":1,"id":"s"}\\n'
    ...                         b'{"type":"message","message":{"role":"hookMessage"}}\\n')
    >>> [v.title for v in views]
    ['as read (v1)', 'after v1 -> v2', 'after v2 -> v3']
    >>> views[1].values[1]["id"], views[2].values[1]["message"]["role"]
    ('m0000001', 'custom')
    """
    from .migration import header_version, migrate_v1_to_v2, migrate_v2_to_v3, sequential_ids
    from .session import read_values

    values, lines = read_values(path_or_bytes)
    header = values[0] if values and isinstance(values[0], dict) else {}
    version = header_version(header)
    views = [
        MigrationView(f"as read (v{header.get('version')})", header.get("version"), values, lines)
    ]
    if version < 2:
        values, step = migrate_v1_to_v2(values, sequential_ids())
        views.append(MigrationView("after v1 -> v2", 2, values, lines, step.changes))
    if version < 3:
        values, step = migrate_v2_to_v3(values)
        views.append(MigrationView("after v2 -> v3", 3, values, lines, step.changes))
    return views


def _dotted(value: object, name: str) -> object:
    for part in name.split("."):
        value = js_field(value, part)
    return value


def migration_view_html(view: MigrationView, max_rows: int = 200) -> str:
    """One migration view as a table; cells the step changed are highlighted."""
    from .display import _STYLE

    names = list(MIGRATION_FIELDS)
    names += sorted({c.field for c in view.changes} - set(names))
    changes = {(c.index, c.field): c for c in view.changes}
    rows = []
    for index, value in enumerate(view.values[:max_rows]):
        cells = [str(index), str(view.lines[index])]
        for name in names:
            current = _dotted(value, name)
            change = changes.get((index, name))
            text = "" if current is UNDEFINED else "null" if current is None else _esc(current, 40)
            if change is not None:
                before = "(none)" if change.before is UNDEFINED else _esc(change.before, 30)
                before = "null" if change.before is None else before
                after = "(deleted)" if change.after is UNDEFINED else text
                cells.append(
                    f'<span style="background:{_HIGHLIGHT}" title="{_esc(change.note)}">'
                    f"<s>{before}</s> → <b>{after}</b></span>"
                )
            else:
                cells.append(text)
        rows.append(cells)
    more = max(len(view.values) - max_rows, 0)
    summary = f"<p><b>{html.escape(view.title)}</b>: {len(view.changes)} changed fields</p>"
    return _STYLE + summary + _table(["#", "line", *names], rows, more)


# --- context edits ----------------------------------------------------------------------


def context_without_edits(session, leaf_id: object = None):
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


def context_edit_html(session, leaf_id: object = None, apply_edits: bool = True) -> str:
    """The context with edits applied (Pi) or ignored (PiG), and which entries differ."""
    from .display import _STYLE

    pi = session.projection(leaf_id)
    pig = context_without_edits(session, leaf_id)
    differ = [a for a, b in zip(pi.entries, pig.entries) if a.messages != b.messages]
    names = ", ".join(f"<code>{_esc(short_id(i.id))}</code> (line {i.line})" for i in differ)
    who = "Pi 0.87.1: context edits applied" if apply_edits else "PiG: context edits ignored"
    facts = (
        f"<p><b>{who}</b>. Pi sends {len(pi.messages)} messages, PiG {len(pig.messages)};"
        f" entries whose messages differ: {names or 'none'}</p>"
    )
    return _STYLE + facts + projection_html(pi if apply_edits else pig)


# --- system prompt ----------------------------------------------------------------------


def system_prompt_html(session, leaf_id: object = None, width: int = 600) -> str:
    """The system prompt replayed at a leaf: content parts, sections, then tools.

    >>> import pisession
    >>> "Run the tests after every change" in system_prompt_html(
    ...     pisession.load(pisession.sample_path("tour")))
    True
    """
    from .display import _STYLE

    prompt = session.system_prompt(leaf_id)
    rows = [["content", f"<pre>{_esc(one_line(p, width))}</pre>"] for p in prompt.content if p]
    rows += [
        [f"section <code>{_esc(name, 40)}</code>", f"<pre>{_esc(_text(value)[:width])}</pre>"]
        for name, value in prompt.sections.items()
    ]
    tools = [
        [f"<code>{_esc(name, 40)}</code>", _esc(js_field(tool, "description"), 120)]
        for name, tool in prompt.tools.items()
    ]
    facts = (
        f"<p>{len(prompt.content)} content parts, {len(prompt.sections)} sections,"
        f" {len(prompt.tools)} tools; prompt text {len(prompt.text):,} characters</p>"
    )
    return (
        _STYLE
        + facts
        + _table(["part", "text"], rows)
        + "<p><b>tools</b></p>"
        + _table(["tool", "description"], tools)
    )


def _text(value: object) -> str:
    return strip_unsafe(value)


# --- widgets ----------------------------------------------------------------------------


@functools.cache
def _explorer_class():
    import ipywidgets as widgets

    class Explorer(widgets.VBox):
        """A VBox with a short, stable text form (what nbval compares)."""

        _title = "Explorer"

        def __repr__(self) -> str:
            return f"<{self._title}>"

    return Explorer


def _explorer(title: str, children: list):
    box = _explorer_class()(children=children)
    box._title = title
    return box


def _html(value: str = ""):
    import ipywidgets as widgets

    return widgets.HTML(value=value)


def branch_explorer(session, leaf_id: object = None):
    """Pick a leaf; see the tree (path, fates, cut) and the context that leaf sends.

    Controls: ``.leaf`` (Dropdown), ``.image`` (PNG Image), ``.table`` (HTML).
    """
    import ipywidgets as widgets

    options = leaf_options(session)
    values = [v for _, v in options]
    start = leaf_id if leaf_id in values else (values[0] if values else None)
    leaf = widgets.Dropdown(
        options=options, value=start, description="leaf", layout=widgets.Layout(width="95%")
    )
    image = widgets.Image(format="png")
    table = _html()

    def show(change=None):
        png, html_text = branch_view(session, leaf.value)
        image.value = png
        table.value = html_text

    leaf.observe(show, names="value")
    show()
    box = _explorer(f"branch explorer: {len(options)} leaves", [leaf, image, table])
    box.leaf, box.image, box.table = leaf, image, table
    return box


def compaction_stepper(session, leaf_id: object = None):
    """Step through the compactions on a path: context before and after each one.

    Controls: ``.step`` (IntSlider, 1 = the first compaction), ``.table`` (HTML);
    ``.steps`` holds the data.
    """
    import ipywidgets as widgets

    steps = compaction_steps(session, leaf_id)
    step = widgets.IntSlider(  # counts from 1, as "compaction 2 of 3" does
        min=1,
        max=max(len(steps), 1),
        value=1,
        description="compaction",
        disabled=len(steps) < 2,
    )
    table = _html()

    def show(change=None):
        if not steps:
            table.value = "<p>No compaction on this path.</p>"
            return
        rank = step.value - 1
        table.value = compaction_step_html(session, steps[rank], rank, len(steps))

    step.observe(show, names="value")
    show()
    box = _explorer(f"compaction stepper: {len(steps)} compactions", [step, table])
    box.step, box.table, box.steps = step, table, steps
    return box


def migration_stepper(path_or_bytes):
    """A v1/v2 file at each migration step, changed fields highlighted.

    Controls: ``.step`` (IntSlider: 0 = as read), ``.table`` (HTML); ``.views``.
    """
    import ipywidgets as widgets

    views = migration_views(path_or_bytes)
    step = widgets.IntSlider(
        min=0, max=len(views) - 1, value=0, description="step", disabled=len(views) < 2
    )
    table = _html()

    def show(change=None):
        table.value = migration_view_html(views[step.value])

    step.observe(show, names="value")
    show()
    box = _explorer(f"migration stepper: {len(views) - 1} steps", [step, table])
    box.step, box.table, box.views = step, table, views
    return box


#: The two readings ``context_edit_toggle`` switches between.
EDIT_MODES = ("Pi: edits applied", "PiG: edits ignored")


def context_edit_toggle(session, leaf_id: object = None):
    """The same file read by Pi (context edits applied) and by PiG (ignored).

    Controls: ``.mode`` (ToggleButtons with ``EDIT_MODES``), ``.table`` (HTML).
    """
    import ipywidgets as widgets

    mode = widgets.ToggleButtons(options=list(EDIT_MODES), value=EDIT_MODES[0])
    table = _html()

    def show(change=None):
        table.value = context_edit_html(session, leaf_id, mode.value == EDIT_MODES[0])

    mode.observe(show, names="value")
    show()
    box = _explorer("context edit toggle", [mode, table])
    box.mode, box.table = mode, table
    return box


def system_prompt_view(session, leaf_id: object = None):
    """Pick a leaf; see the system prompt sections and tools replayed for it.

    Controls: ``.leaf`` (Dropdown), ``.table`` (HTML).
    """
    import ipywidgets as widgets

    options = leaf_options(session)
    values = [v for _, v in options]
    start = leaf_id if leaf_id in values else (values[0] if values else None)
    leaf = widgets.Dropdown(
        options=options, value=start, description="leaf", layout=widgets.Layout(width="95%")
    )
    table = _html()

    def show(change=None):
        table.value = system_prompt_html(session, leaf.value)

    leaf.observe(show, names="value")
    show()
    box = _explorer("system prompt view", [leaf, table])
    box.leaf, box.table = leaf, table
    return box


__all__ = [
    "EDIT_MODES",
    "CompactionStep",
    "MigrationView",
    "branch_explorer",
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
    "system_prompt_html",
    "system_prompt_view",
]
