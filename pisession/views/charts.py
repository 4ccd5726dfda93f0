"""The context rule as column charts: the pipeline, context-edit and migration figures.

Each chart is data first (``pipeline_chart``, ``edits_chart``, ``migration_chart``: a
``ColumnChart`` read off the rule's own outputs), then a figure (``pipeline_figure``,
``edits_figure``, ``migration_figure``) drawn with the shared pieces of
``pisession.views.figure``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..js.value import UNDEFINED, js_key
from ..js.value import field as js_field
from ..tree import shown_name
from .display import short_id
from .figure import (
    _BOX_EDGE,
    _CHANGED,
    _CUT_COLOUR,
    _EDGE_COLOUR,
    _LEFT,
    _MUTED,
    FONT,
    SMALL,
    _box_inches,
    _describe,
    _heading,
    _heading_inches,
    _mpl_text,
    _new_figure,
    _text_inches,
)
from .provenance import FATE, FATES, ink_on
from .text import entry_kind, plural
from .text import one_line as shorten
from .text import strip_unsafe as clean_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..projection import ProjectedEntry, Selection
    from .protocol import SessionLike

#: Where a box is: ``(column number, box key)``.
_Spot = tuple[int, object]
#: Every box's top left corner, in inches from the chart's top left.
_Places = dict[_Spot, tuple[float, float]]


@dataclass
class Box:
    """One row of a column chart: ``text`` on a ``fill`` (text colour chosen for contrast).
    ``row`` places it (default: after the previous box); ``note`` is small text right
    of it."""

    key: object
    text: str
    fill: str = "#FFFFFF"
    row: float | None = None
    note: str = ""
    edge: str = _BOX_EDGE
    bold: bool = False


@dataclass
class Column:
    """A titled column of boxes (``caption``: a second, smaller title line)."""

    title: str
    boxes: list[Box]
    caption: str = ""


@dataclass
class Link:
    """A line from a box of one column to a box of the next (``(column, key)`` each)."""

    start: _Spot
    end: _Spot
    colour: str = _EDGE_COLOUR
    dashed: bool = False


@dataclass
class Jump:
    """A bracket inside one column, from one box back to another, with a label."""

    column: int
    start: object
    end: object
    label: str


@dataclass
class ColumnChart:
    """A figure as data: columns of boxes, links between neighbours, jumps inside a
    column, and a legend of ``(fill, words)`` drawn beside the columns."""

    title: str
    subtitle: str
    columns: list[Column]
    links: list[Link] = field(default_factory=list)
    jumps: list[Jump] = field(default_factory=list)
    legend: list[tuple[str, str]] = field(default_factory=list)
    legend_title: str = ""


_CHART_ROW, _CHART_BOX, _CHART_GAP, _CHART_HEAD = 0.27, 0.21, 0.4, 1.05


def _column_widths(chart: ColumnChart) -> list[float]:
    """Each column's box width (its widest text), and room for its notes."""
    widths = []
    for column in chart.columns:
        text = max((_box_inches(b.text) + 0.15 for b in column.boxes), default=1.0)
        widths.append(max(text, _text_inches(column.title, FONT), 1.0))
    return widths


def _chart_places(chart: ColumnChart) -> tuple[_Places, list[float], float]:
    """Where every box goes, in inches from the top left: ``(column, key) -> (x, y)``
    (its top left corner), the left edge of every column, and the chart's height."""
    widths = _column_widths(chart)
    places: _Places = {}
    lefts: list[float] = []
    rows = 0.0
    x = _LEFT + (0.3 if any(j.column == 0 for j in chart.jumps) else 0.0)
    for number, column in enumerate(chart.columns):
        lefts.append(x)
        row = 0.0
        for box in column.boxes:
            row = row if box.row is None else box.row
            places[(number, box.key)] = (x, _CHART_HEAD + row * _CHART_ROW)
            row += 1
        rows = max(rows, row)
        notes = max((_text_inches(b.note, SMALL) for b in column.boxes if b.note), default=0)
        x += widths[number] + max(_CHART_GAP, notes + 0.25)
    return places, lefts, _CHART_HEAD + rows * _CHART_ROW + 0.2


#: The widest a chart is drawn (inches; 8.4 in is 840 px, a notebook column at 100 %).
MAX_CHART_WIDTH = 8.4


def _legend_place(
    chart: ColumnChart, lefts: list[float], widths: list[float], rows: list[float]
) -> tuple[float, float]:
    """Where the legend goes: under the last columns when they end early enough to
    leave room, else right of the columns when the chart stays narrower than
    ``MAX_CHART_WIDTH``, else under all of them. Returns ``(x, y)`` in inches."""
    need = len(chart.legend) + 2
    tallest = max(rows, default=0)
    for start in range(1, len(rows)):
        if all(r + need <= tallest for r in rows[start:]):
            return lefts[start], _CHART_HEAD + (max(rows[start:]) + 1.2) * _CHART_ROW
    beside = lefts[-1] + widths[-1] + _last_notes(chart) + 0.35
    legend_w = max((_text_inches(w, SMALL) for _, w in chart.legend), default=0) + 0.5
    if beside + legend_w <= MAX_CHART_WIDTH:
        return beside, _CHART_HEAD
    return lefts[0], _CHART_HEAD + (tallest + 1.0) * _CHART_ROW


def _last_notes(chart: ColumnChart) -> float:
    """Room the notes of the last column take."""
    return max((_text_inches(b.note, SMALL) for b in chart.columns[-1].boxes), default=0)


def _column_rows(chart: ColumnChart) -> list[float]:
    """How many rows each column fills (its last box's row + 1)."""
    out = []
    for column in chart.columns:
        row = 0.0
        for box in column.boxes:
            row = (row if box.row is None else box.row) + 1
        out.append(row)
    return out


def draw_chart(chart: ColumnChart) -> Figure:
    """Draw a ``ColumnChart`` as a Figure sized to it (text at full size).

    >>> chart = ColumnChart("Two boxes", "a sketch", [Column("one", [Box(0, "a"), Box(1, "b")])])
    >>> from pisession.views.figure import alt_text
    >>> alt_text(draw_chart(chart))
    'Two boxes: a sketch; columns from left to right: one (2 rows).'
    """
    places, lefts, height = _chart_places(chart)
    widths = _column_widths(chart)
    legend_at = _legend_place(chart, lefts, widths, _column_rows(chart))
    legend_w = max((_text_inches(w, SMALL) for _, w in chart.legend), default=0) + 0.5
    last = chart.columns[-1]
    heading = max(_text_inches(last.title, FONT) * 1.1, _text_inches(last.caption, SMALL))
    right = max(legend_at[0] + legend_w, lefts[-1] + widths[-1] + _last_notes(chart) + 0.25)
    right = max(right, lefts[-1] + heading + 0.25)
    width = max(right, _heading_inches(chart.title, chart.subtitle))
    height = max(height, legend_at[1] + 0.22 * (len(chart.legend) + 1))
    fig = _new_figure(width, height)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.set_axis_off()
    _heading(fig, chart.title, chart.subtitle)
    for number, column in enumerate(chart.columns):
        _draw_column(ax, column, number, places, lefts[number], widths[number])
    _draw_links(ax, chart, places, widths)
    _draw_jumps(ax, chart, places, widths)
    _draw_chart_legend(ax, chart, legend_at)
    _describe(fig, chart_alt(chart))
    return fig


def _draw_column(
    ax: Axes, column: Column, number: int, places: _Places, x: float, width: float
) -> None:
    """A column's title, caption and boxes (with their notes)."""
    from matplotlib.patches import FancyBboxPatch

    ax.text(x, 0.72, _mpl_text(column.title), fontsize=FONT, weight="bold", va="bottom")
    ax.text(x, 0.76, _mpl_text(column.caption), fontsize=SMALL, color=_MUTED, va="top")
    for box in column.boxes:
        bx, by = places[(number, box.key)]
        patch = FancyBboxPatch((bx, by), width, _CHART_BOX, linewidth=0.8, fc=box.fill,
                               boxstyle="round,pad=0,rounding_size=0.04", ec=box.edge,
                               zorder=3)  # fmt: skip
        ax.add_patch(patch)
        ax.text(bx + 0.06, by + _CHART_BOX / 2, _mpl_text(box.text), fontsize=FONT,
                color=ink_on(box.fill), va="center", zorder=4,
                weight="bold" if box.bold else "normal")  # fmt: skip
        if box.note:
            ax.text(bx + width + 0.06, by + _CHART_BOX / 2, _mpl_text(box.note),
                    fontsize=SMALL, color=_MUTED, va="center", style="italic")  # fmt: skip


def _draw_links(ax: Axes, chart: ColumnChart, places: _Places, widths: list[float]) -> None:
    """Each link as a smooth S-curve from the right edge of one box to the next column."""
    from matplotlib.patches import PathPatch
    from matplotlib.path import Path as CurvePath

    for link in chart.links:
        (sx, sy), (ex, ey) = places[link.start], places[link.end]
        sx, sy = sx + widths[link.start[0]], sy + _CHART_BOX / 2
        ey += _CHART_BOX / 2
        middle = (sx + ex) / 2
        curve = CurvePath(
            [(sx, sy), (middle, sy), (middle, ey), (ex, ey)],
            [CurvePath.MOVETO, CurvePath.CURVE4, CurvePath.CURVE4, CurvePath.CURVE4],
        )
        ax.add_patch(PathPatch(curve, fc="none", ec=link.colour, lw=1.1, zorder=2,
                               ls=(0, (3, 2)) if link.dashed else "-"))  # fmt: skip


def _draw_jumps(ax: Axes, chart: ColumnChart, places: _Places, widths: list[float]) -> None:
    """Each jump as a dashed bracket left of its column, arrow at the target box."""
    for jump in chart.jumps:
        (sx, sy), (_, ey) = places[(jump.column, jump.start)], places[(jump.column, jump.end)]
        sy, ey = sy + _CHART_BOX / 2, ey + _CHART_BOX / 2
        rail = sx - 0.12
        ax.plot([sx, rail, rail], [sy, sy, ey], color=_CUT_COLOUR, lw=1.0, ls=(0, (4, 3)), zorder=2)
        arrow = {"arrowstyle": "-|>", "color": _CUT_COLOUR, "lw": 1.0, "shrinkA": 0}
        arrow.update(shrinkB=0, mutation_scale=9)
        ax.annotate("", xy=(sx, ey), xytext=(rail, ey), zorder=2, arrowprops=arrow)
        ax.text(rail - 0.04, (sy + ey) / 2, _mpl_text(jump.label), rotation=90, ha="right",
                va="center", fontsize=SMALL, color=_CUT_COLOUR, style="italic")  # fmt: skip


def _draw_chart_legend(ax: Axes, chart: ColumnChart, at: tuple[float, float]) -> None:
    """The legend at ``at`` (see ``_legend_place``)."""
    from matplotlib.patches import Rectangle

    if not chart.legend:
        return
    x, y = at
    ax.text(x, y - 0.05, _mpl_text(chart.legend_title), fontsize=FONT, weight="bold")
    for fill, words in chart.legend:
        y += 0.22
        ax.add_patch(Rectangle((x, y - 0.07), 0.25, 0.14, fc=fill, ec=_BOX_EDGE, lw=0.8))
        ax.text(x + 0.33, y, _mpl_text(words), fontsize=SMALL, va="center")


def _fate_legend(names: Iterable[str]) -> list[tuple[str, str]]:
    present = set(names)
    return [(kind.colour, kind.legend) for kind in FATES if kind.name in present]


def _entry_box(
    session: SessionLike, fates: Sequence[str], position: int, key: object = None
) -> Box:
    """An entry as a box: short kind and id, filled with its fate's colour."""
    index = session.index
    kind = entry_kind(index.types[position], index.roles[position], short=True)
    entry_id = index.ids[position]
    text = f"{shorten(kind, 10)} {short_id(None if entry_id is UNDEFINED else entry_id)}"
    fill = FATE[fates[position]].colour
    return Box(position if key is None else key, text, fill)


def pipeline_chart(session: SessionLike, leaf_id: object = None) -> ColumnChart:
    """The context rule as a picture (data): the file, the path to the leaf, the
    selection, the messages after context edits, and the provider messages
    (``convertToLlm``), each column read off the rule's own outputs.

    >>> import pisession
    >>> chart = pipeline_chart(pisession.load(pisession.sample_path("tour")))
    >>> [len(c.boxes) for c in chart.columns]
    [26, 22, 12, 10, 10]
    """
    from ..llm import to_llm_message
    from .text import model_text

    projection, fates = session.projection(leaf_id), session.fates(leaf_id).names
    path, selected = projection.path, projection.selection.positions
    file_boxes = [_entry_box(session, fates, p) for p in range(len(session))]
    path_boxes = [_entry_box(session, fates, p) for p in path]
    chosen = [_entry_box(session, fates, p, key=rank) for rank, p in enumerate(selected)]
    links = [Link((0, p), (1, p)) for p in path]
    links += [Link((1, p), (2, rank)) for rank, p in enumerate(selected)]
    messages: list[Box] = []
    provider: list[Box] = []
    for rank, item in enumerate(projection.items):
        for k, message in enumerate(item.messages):
            role = shorten(js_field(message, "role"), 18)
            messages.append(Box((rank, k), role, FATE[fates[item.position]].colour))
            links.append(Link((2, rank), (3, (rank, k))))
            converted = to_llm_message(message)
            if converted is None:
                continue
            new_role = shorten(js_field(converted, "role"), 18)
            changed = new_role != role
            provider.append(Box((rank, k), new_role, _CHANGED if changed else "#FFFFFF"))
            links.append(Link((3, (rank, k)), (4, (rank, k))))
    settings = projection.context
    columns = [
        Column("the file", file_boxes, f"{plural(len(session), 'entry', 'entries')}, file order"),
        Column("1 · path", path_boxes, f"{plural(len(path), 'entry', 'entries')}, root → leaf"),
        Column("3 · selection", chosen, _selection_caption(projection.selection)),
        Column("4–5 · messages", messages, "after context edits"),
        Column("convertToLlm", provider, "for the provider"),
    ]
    leaf = short_id(session.index.ids[path[-1]]) if path else "-"
    subtitle = (
        f"leaf {leaf} · 2 · settings: thinking {clean_text(settings.thinking_level)},"
        f" model {model_text(settings.model)}"
    )
    legend = [*_fate_legend(fates), (_CHANGED, "converted to a user message")]
    title = f"From file to model: {shown_name(session) or os.path.basename(str(session.source))}"
    return ColumnChart(clean_text(title), subtitle, columns, links, [], legend, "fate at the leaf")


def _selection_caption(selection: Selection) -> str:
    if selection.compaction is None:
        return "no compaction: the whole path"
    return f"compaction, {selection.kept} kept, rest"


def pipeline_figure(session: SessionLike, leaf_id: object = None) -> Figure:
    """Draw ``pipeline_chart``: how the lines of a file become the model's context.

    >>> import pisession
    >>> from pisession.views.figure import natural_size
    >>> natural_size(pipeline_figure(pisession.load(pisession.sample_path("tour"))))[0] > 600
    True
    """
    return draw_chart(pipeline_chart(session, leaf_id))


def _message_box(
    fates: Sequence[str],
    item: ProjectedEntry,
    k: int,
    message: object,
    touched: bool,
    words: str = "",
) -> Box:
    """A context message as a box: role, source entry, its text (or ``words``), filled
    with its entry's fate when a context edit changed it."""
    from .text import message_text

    # the role in full (compactionSummary is the longest: 17), its text gets the rest of
    # the 34 characters a box holds at the figure's width
    role = shorten(entry_kind("message", js_field(message, "role"), short=True), 17)
    rest = max(34 - len(role), 16)
    text = f"{role} · {short_id(item.id)} · {shorten(words or message_text(message), rest)}"
    fill = FATE[fates[item.position]].colour if touched else "#FFFFFF"
    return Box((item.position, k), text, fill)


def edits_chart(session: SessionLike, leaf_id: object = None) -> ColumnChart:
    """Context edits before and after (data): the messages of a leaf with edits ignored
    (as PiG reads the file) and as Pi sends them; a message an edit removes says which
    edit, one it rewrites is linked to its new text.

    >>> import pisession
    >>> b = pisession.load(pisession.sample_path(
    ...     "pi-0.87.1-b-rpc-compaction-manual-threshold-overflow"))
    >>> [len(c.boxes) for c in edits_chart(b).columns]
    [12, 11]
    """
    edited = session.projection(leaf_id)
    plain = session.projection(leaf_id, edits=False)
    fates = session.fates(leaf_id).names
    before: list[Box] = []
    after: list[Box] = []
    links: list[Link] = []
    for item, same in zip(plain.items, edited.items):
        for k, message in enumerate(item.messages):
            gone = same.edit is not None and k >= len(same.messages)
            words = f"✕ omitted by {short_id(js_field(same.edit, 'id'))}" if gone else ""
            before.append(_message_box(fates, item, k, message, same.edit is not None, words))
        for k, message in enumerate(same.messages):
            box = _message_box(fates, same, k, message, same.edit is not None)
            if same.edit is not None:
                box.note = f"✎ edit {short_id(js_field(same.edit, 'id'))}"
            after.append(box)
            links.append(Link((0, (item.position, k)), (1, (item.position, k))))
    columns = [
        Column("context edits ignored", before, f"{plural(len(plain.messages), 'message')} (PiG)"),
        Column("context edits applied", after, f"{plural(len(edited.messages), 'message')} (Pi)"),
    ]
    leaf = short_id(session.index.ids[edited.path[-1]]) if edited.path else "-"
    title = f"Context edits: {shown_name(session) or os.path.basename(str(session.source))}"
    touched = [fates[i.position] for i in edited.items if i.edit is not None]
    legend = [*_fate_legend(touched), ("#FFFFFF", "message unchanged")]
    subtitle = f"leaf {leaf} · the same selection, read without and with its context edits"
    return ColumnChart(clean_text(title), subtitle, columns, links, [], legend, "what changed")


def edits_figure(session: SessionLike, leaf_id: object = None) -> Figure:
    """Draw ``edits_chart``: the context of a leaf without and with its context edits.

    >>> import pisession
    >>> from pisession.views.figure import alt_text
    >>> alt_text(edits_figure(pisession.load(pisession.sample_path("tour"))))[:14]
    'Context edits:'
    """
    return draw_chart(edits_chart(session, leaf_id))


def _migration_text(value: object, number: int, step: int) -> str:
    """A row of the migration chart: the header, or an entry's kind with its ids."""
    from .text import kind_of

    if number == 0:
        return f"header · version {clean_text(js_field(value, 'version'))}"
    kind = shorten(kind_of(value, short=True), 10)
    if step == 0:
        return f"{number:>2} · {kind}" + (" (no id)" if js_field(value, "id") is UNDEFINED else "")
    parent = js_field(value, "parentId")
    parent_text = "null" if parent is None else short_id(None if parent is UNDEFINED else parent)
    return f"{kind} {short_id(js_field(value, 'id'))} ← {parent_text}"


def migration_chart(path_or_bytes: str | os.PathLike[str] | bytes) -> ColumnChart:
    """A legacy file before and after each migration step Pi runs (data): rows a step
    changed are highlighted, and a compaction's pointer to its first kept entry is drawn
    (an index that counts the header in v1, an id from v2 on).

    >>> import pisession
    >>> chart = migration_chart(pisession.sample_path("legacy-v1"))
    >>> [c.title for c in chart.columns], [j.label for j in chart.jumps][:1]
    (['as read (v1)', 'after v1 -> v2', 'after v2 -> v3'], ['firstKeptEntryIndex 5 (header = 0)'])
    """
    from ..engine.opening import migration_views

    views = migration_views(path_or_bytes)
    columns: list[Column] = []
    links: list[Link] = []
    jumps: list[Jump] = []
    for step, view in enumerate(views):
        changed = {index for index, _ in view.changed}
        boxes = [
            Box(
                n, _migration_text(v, n, step), _CHANGED if n in changed else "#FFFFFF", bold=n == 0
            )
            for n, v in enumerate(view.values)
        ]
        caption = f"{len(view.changes)} fields changed" if step else "the file as written"
        columns.append(Column(view.title, boxes, caption))
        if step:
            links += [Link((step - 1, n), (step, n)) for n in range(len(view.values))]
        jumps += _first_kept_jumps(view.values, step)
    name = os.path.basename(str(path_or_bytes)) if not isinstance(path_or_bytes, bytes) else ""
    subtitle = "each row is one line of the file; highlighted: what the step changed"
    legend = [(_CHANGED, "changed by this step"), ("#FFFFFF", "unchanged")]
    return ColumnChart(clean_text(f"Migration: {name}".rstrip(": ")), subtitle, columns, links,
                       jumps, legend, "rows")  # fmt: skip


def _first_kept_jumps(values: list[object], step: int) -> list[Jump]:
    """Brackets from each compaction to the row its first-kept pointer names."""
    ids = {js_key(js_field(v, "id")): n for n, v in enumerate(values) if n}
    jumps = []
    for n, value in enumerate(values):
        if not n or js_field(value, "type") != "compaction":
            continue
        index, kept_id = js_field(value, "firstKeptEntryIndex"), js_field(value, "firstKeptEntryId")
        if isinstance(index, int) and 0 < index < len(values):
            jumps.append(Jump(step, n, index, f"firstKeptEntryIndex {index} (header = 0)"))
        elif js_key(kept_id) in ids:
            jumps.append(Jump(step, n, ids[js_key(kept_id)], "firstKeptEntryId"))
    return jumps


def migration_figure(path_or_bytes: str | os.PathLike[str] | bytes) -> Figure:
    """Draw ``migration_chart``: a v1/v2 file as read and after each migration step.

    >>> import pisession
    >>> from pisession.views.figure import alt_text
    >>> alt_text(migration_figure(pisession.sample_path("legacy-v1")))[:10]
    'Migration:'
    """
    return draw_chart(migration_chart(path_or_bytes))


def chart_alt(chart: ColumnChart) -> str:
    """A column chart in words: its titles, then each column with how many rows it has
    (the picture's point is how the columns differ).

    >>> chart_alt(ColumnChart("A", "b", [Column("one", [Box(0, "x")])]))
    'A: b; columns from left to right: one (1 row).'
    """
    columns = "; ".join(f"{c.title} ({plural(len(c.boxes), 'row')})" for c in chart.columns)
    return clean_text(f"{chart.title}: {chart.subtitle}; columns from left to right: {columns}.")
