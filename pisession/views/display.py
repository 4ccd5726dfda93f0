"""Rich display: sessions, contexts, projections and fates as small HTML tables.

Jupyter calls these through ``Session._repr_html_``, ``Context._repr_html_`` and
``Projection._repr_html_``. Every piece of session text is cleaned (ANSI escapes and
control characters removed), shortened and HTML-escaped, so a session holding
``<script>`` shows it as text. No JavaScript, no external CSS.

Words come from ``pisession.views.text`` and fate colours from ``provenance.FATES``, as in
every other view.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, TypeVar

from ..js.value import field as js_field
from ..projection import Projection
from ..tree import shown_name
from .provenance import FATE, UNKNOWN_COLOUR
from .text import entry_text, id_text, kind_of, message_text, one_line, plural, strip_unsafe

if TYPE_CHECKING:
    from ..projection import Context
    from .protocol import SessionLike

_Item = TypeVar("_Item")

# --- HTML -------------------------------------------------------------------------------

#: One stylesheet for every pisession table, in a notebook's HTML output and inside a
#: widget alike: prose left-aligned, a compact line height (widgets otherwise inherit
#: a 28 px one), ids never wrapped, fixed column widths (``table-layout: fixed``) so a
#: toggle does not move them, and the row marks of the steppers.
_STYLE = (
    "<style>"
    "table.pisession{table-layout:fixed;border-collapse:collapse;width:100%;max-width:1100px;"
    "margin:2px 0 8px 0!important;font-size:12px;line-height:1.35}"
    "table.pisession th,table.pisession td{text-align:left!important;vertical-align:top;"
    "padding:2px 6px!important;line-height:1.35!important;white-space:normal;"
    "overflow-wrap:normal;word-break:normal;border-bottom:1px solid #E0E0E0}"
    "table.pisession th{font-weight:600;border-bottom:1px solid #999}"
    "table.pisession code,table.pisession .nowrap{white-space:nowrap;font-size:11px}"
    "table.pisession tr.added td{background:#DDF2E6}"
    "table.pisession tr.removed td{background:#FBE1E1;color:#5A1F1F}"
    "table.pisession tr.changed td{background:#FFF1C2}"
    ".pisession-view p,.pisession-view li,.pisession-view summary{line-height:1.35!important;"
    "margin:3px 0;font-size:12px;text-align:left}"
    ".pisession-view details{margin:2px 0}.pisession-view summary{cursor:pointer}"
    "table.pisession.one-line td{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}"
    ".pisession-view .md{border-left:3px solid #CCC;padding:2px 10px;max-width:900px}"
    ".pisession-view .md h4{font-size:12.5px;margin:6px 0 2px 0}"
    ".pisession-view .md ul{margin:2px 0;padding-left:20px}"
    ".pisession-view mark{background:#FFE08A}"
    ".pisession-view pre{white-space:pre-wrap;overflow-wrap:normal;word-break:normal;"
    "font-size:11px;line-height:1.35;margin:2px 0}"
    ".pisession .fate{border-radius:3px;padding:0 4px;border:1px solid #888;white-space:nowrap}"
    "</style>"
)


def view(body: str) -> str:
    """HTML wrapped with the shared stylesheet in one ``pisession-view`` block: what
    every table, explorer and static picture returns.

    >>> view("<p>x</p>").endswith('<div class="pisession-view"><p>x</p></div>')
    True
    """
    return f'{_STYLE}<div class="pisession-view">{body}</div>'


def _esc(value: object, width: int | None = None) -> str:
    text = strip_unsafe(value) if width is None else one_line(value, width)
    return html.escape(text, quote=True)


def short_id(value: object) -> str:
    """An entry id cut to 8 characters (Pi ids are 8 hex digits), or ``-``.

    >>> short_id("0199edge-0000-7000"), short_id(None)
    ('0199edge', '-')
    """
    return "-" if value is None else id_text(value, 8)


def fate_badge(fate: str | None, text: str | None = None) -> str:
    """A fate as a small coloured HTML label (``text`` instead of the fate's name).

    >>> fate_badge("kept")
    '<span class="fate" style="background:#56B4E9;color:#000000">kept</span>'
    """
    kind = FATE.get(fate or "")
    colour, ink = (kind.colour, kind.ink) if kind else (UNKNOWN_COLOUR, "#000000")
    return (
        f'<span class="fate" style="background:{colour};color:{ink}">'
        f"{html.escape(text or fate or '?')}</span>"
    )


#: The same rules inline, for views that drop ``<style>`` (an untrusted notebook in
#: JupyterLab sanitizes it away; GitHub too): prose left, compact lines, marks.
_CELL = ' style="text-align:left;vertical-align:top;line-height:1.35;padding:2px 6px"'
_TABLE = ' style="table-layout:fixed;border-collapse:collapse;width:100%;margin:2px 0 8px 0"'
_ROW = {
    "added": ' style="background:#DDF2E6"',
    "removed": ' style="background:#FBE1E1"',
    "changed": ' style="background:#FFF1C2"',
}


def _table(
    headers: list[str],
    rows: Sequence[list[str]],
    more: int = 0,
    widths: Sequence[int | None] | None = None,
    marks: list[str] | None = None,
) -> str:
    """An HTML table; ``widths`` in px per column (None: the rest of the width),
    ``marks`` a row class per row (``added``, ``removed``, ``changed`` or "")."""
    cols = ""
    if widths:
        cols = "".join(f'<col style="width:{w}px">' if w else "<col>" for w in widths)
        cols = f"<colgroup>{cols}</colgroup>"
    head = "".join(f"<th{_CELL}>{_breakable(h)}</th>" for h in headers)
    body = []
    for number, row in enumerate(rows):
        mark = marks[number] if marks and number < len(marks) else ""
        opening = f'<tr class="{mark}"{_ROW[mark]}>' if mark else "<tr>"
        body.append(opening + "".join(f"<td{_CELL}>{c}</td>" for c in row) + "</tr>")
    if more:
        body.append(f'<tr><td colspan="{len(headers)}"{_CELL}>… {more} more rows</td></tr>')
    return (
        f'<table class="pisession"{_TABLE}>{cols}<thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _breakable(name: str) -> str:
    """A column name escaped, breakable before each inner capital and after a dot
    (a narrow column wraps ``firstKeptEntryIndex`` instead of overprinting).

    >>> _breakable("firstKeptEntryIndex"), _breakable("message.role")
    ('first<wbr>Kept<wbr>Entry<wbr>Index', 'message.<wbr>role')
    """
    return re.sub(r"(?<=[a-z])(?=[A-Z])|(?<=\.)", "<wbr>", html.escape(name))


def _id_cell(value: object) -> str:
    return f'<code style="white-space:nowrap">{_esc(short_id(value))}</code>'


def _rows_limited(items: Sequence[_Item], max_rows: int | None) -> tuple[Sequence[_Item], int]:
    if max_rows is None or len(items) <= max_rows:
        return items, 0
    return items[:max_rows], len(items) - max_rows


#: Column widths (px) of the entry tables; None takes the rest of the width.
_ENTRY_WIDTHS = [44, 82, 86, None, 118, 300]


def fates_html(session: SessionLike, leaf_id: object = None, max_rows: int | None = 500) -> str:
    """Every entry with its fate for a leaf: line, id, kind, text, fate, reason.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> "dropped-system" in fates_html(s)
    True
    """
    fates = session.fates(leaf_id)
    shown, more = _rows_limited(fates, max_rows)
    rows = []
    for fate in shown:
        entry = session.entry(fate.position)
        label = session.label_of(fate.position)
        rows.append(
            [
                str(fate.line),
                _id_cell(fate.id),
                _esc(kind_of(entry, short=True), 20),
                _esc(entry_text(entry), 80)
                + (f" <b>[{_esc(label, 40)}]</b>" if label is not None else ""),
                fate_badge(fate.fate),
                _esc(fate.reason, 160),
            ]
        )
    headers = ["line", "id", "kind", "text", "fate", "why"]
    return view(_table(headers, rows, more, _ENTRY_WIDTHS))


def session_html(session: SessionLike, leaf_id: object = None, max_rows: int | None = 200) -> str:
    """A session at a glance: header facts, then every entry with its fate.

    A file whose context cannot be built (a parent cycle, an entry Pi fails on) still
    renders: the entries are listed without fates and the error is shown.

    >>> import pisession
    >>> html_text = session_html(pisession.load(pisession.sample_path("tour")))
    >>> "Tour of the session format" in html_text
    True
    """
    from ..errors import PisessionError

    version = session.original_version
    facts = [
        ("source", session.source),
        ("session id", session.header.get("id")),
        ("name", shown_name(session)),
        ("version", f"{version} (migrated to 3 in memory)" if session.migrated else version),
        ("entries", len(session)),
        ("leaves", len(session.leaves())),
        ("skipped lines", len(session.diagnostics)),
    ]
    head = _table(["fact", "value"], [[html.escape(k), _esc(v, 120)] for k, v in facts],
                  widths=[110, None])  # fmt: skip
    try:
        return view(head) + fates_html(session, leaf_id, max_rows)
    except PisessionError as exc:
        rows = []
        positions, more = _rows_limited(list(range(len(session))), max_rows)
        for position in positions:
            entry = session.entry(position)
            rows.append(
                [
                    str(session.line_of(position)),
                    _id_cell(session.index.ids[position]),
                    _esc(kind_of(entry, short=True), 20),
                    _esc(entry_text(entry), 80),
                ]
            )
        error = f"<p><b>no context:</b> {_esc(exc, 300)}</p>"
        table = _table(["line", "id", "kind", "text"], rows, more, _ENTRY_WIDTHS[:4])
        return view(head + error + table)


def context_html(context: Context, max_rows: int | None = 500) -> str:
    """The model context: thinking level, model, then one row per message.

    >>> import pisession
    >>> "compactionSummary" in context_html(pisession.load(pisession.sample_path("tour")).context())
    True
    """
    model = context.model or {}
    facts = (
        f"<p>thinking level <code>{_esc(context.thinking_level, 20)}</code>, model "
        f"<code>{_esc(js_field(model, 'provider'), 40)}/{_esc(js_field(model, 'modelId'), 40)}"
        f"</code>, {plural(len(context.messages), 'message')}</p>"
    )
    rows = [
        [str(i), _esc(js_field(m, "role"), 20), _esc(message_text(m), 120)]
        for i, m in enumerate(context.messages)
    ]
    shown, more = _rows_limited(rows, max_rows)
    return view(facts + _table(["#", "role", "text"], shown, more, [36, 156, None]))


#: Why an entry is selected (``context.Selection.parts``), in words.
PART_WORDS = {
    "path": "on the path",
    "compaction": "newest compaction on the path",
    "kept": "kept range of the compaction",
    "after": "after the compaction",
}

#: Column widths (px) of ``projection_html``.
_PROJECTION_WIDTHS = [32, 156, None, 44, 82, 80, 240]


def projection_rows(
    projection: Projection, marks: dict[int, str] | None = None
) -> tuple[list[list[str]], list[str]]:
    """The rows of ``projection_html`` and a row mark for each (``marks``: entry
    position -> ``added``, ``removed`` or ``changed``).

    >>> import pisession
    >>> rows, marks = projection_rows(pisession.load("tour").projection())
    >>> rows[0][1], marks[0]
    ('system', '')
    """
    rows: list[list[str]] = []
    row_marks: list[str] = []
    index = 0
    for item in projection.entries:
        mark = (marks or {}).get(item.position, "")
        entry_cells = [str(item.line), _id_cell(item.id), _esc(kind_of(item.entry, short=True), 20)]
        why = _esc(PART_WORDS[item.part])
        if item.edit is not None:
            why += f"; edited by {_id_cell(js_field(item.edit, 'id'))}"
        if not item.messages:
            rows.append(["", "", "<i>(no message)</i>", *entry_cells, why])
            row_marks.append(mark)
        for message in item.messages:
            text = _esc(message_text(message), 90)
            rows.append([str(index), _esc(js_field(message, "role"), 20), text, *entry_cells, why])
            row_marks.append(mark)
            index += 1
    return rows, row_marks


def projection_html(
    projection: Projection, max_rows: int | None = 500, marks: dict[int, str] | None = None
) -> str:
    """Every context message with the entry it came from and why that entry was selected.

    Selected entries that contribute nothing (settings, labels, edits, older compactions)
    appear as rows without a message, so the table shows the whole selection. ``marks``
    highlights rows by entry position (``added``, ``removed``, ``changed``).

    >>> import pisession
    >>> p = pisession.load(pisession.sample_path("tour")).projection()
    >>> "kept range of the compaction" in projection_html(p)
    True
    """
    rows, row_marks = projection_rows(projection, marks)
    shown, more = _rows_limited(rows, max_rows)
    headers = ["#", "role", "text", "line", "entry", "kind", "why"]
    return view(_table(headers, shown, more, _PROJECTION_WIDTHS, row_marks))


_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_MD_ITEM = re.compile(r"^\s*[-*]\s+(?:\[( |x|X)\]\s+)?(.*)$")
_MD_INLINE = re.compile(r"\*\*(.+?)\*\*|`([^`]+)`")


def _md_inline(text: str) -> str:
    out, last = [], 0
    for found in _MD_INLINE.finditer(text):
        out.append(html.escape(text[last : found.start()]))
        bold, code = found.groups()
        out.append(f"<b>{html.escape(bold)}</b>" if bold else f"<code>{html.escape(code)}</code>")
        last = found.end()
    out.append(html.escape(text[last:]))
    return "".join(out)


def markdown_html(text: object, marked: AbstractSet[int] = frozenset()) -> str:
    """A summary's Markdown (headings, bullet and check lists, bold, inline code) as
    HTML; everything else is escaped text. Line numbers in ``marked`` are highlighted.

    >>> markdown_html("## Goal\\n- [x] **done**\\nplain <b>", marked={2})[16:]
    '<h4>Goal</h4><ul><li>☑ <b>done</b></li></ul><p><mark>plain &lt;b&gt;</mark></p></div>'
    """
    parts, in_list = [], False
    for number, raw in enumerate(strip_unsafe(text).split("\n")):
        line = raw.rstrip()
        heading, item = _MD_HEADING.match(line), _MD_ITEM.match(line)
        if in_list and not item:
            parts.append("</ul>")
            in_list = False
        if not line:
            continue
        if heading:
            inner = _md_inline(heading.group(2))
        elif item:
            box = {" ": "☐ ", "x": "☑ ", "X": "☑ "}.get(item.group(1) or "", "")
            inner = box + _md_inline(item.group(2))
        else:
            inner = _md_inline(line)
        if number in marked:
            inner = f"<mark>{inner}</mark>"
        if heading:
            parts.append(f"<h4>{inner}</h4>")
        elif item:
            parts.append(("" if in_list else "<ul>") + f"<li>{inner}</li>")
            in_list = True
        else:
            parts.append(f"<p>{inner}</p>")
    if in_list:
        parts.append("</ul>")
    return f'<div class="md">{"".join(parts)}</div>'


def details_html(title: str, body: str, open_: bool = False) -> str:
    """A collapsible block (``<details>``): ``title`` always shown, ``body`` on demand.

    >>> details_html("summary", "<p>x</p>")
    '<details><summary>summary</summary><p>x</p></details>'
    """
    return f"<details{' open' if open_ else ''}><summary>{title}</summary>{body}</details>"


def notebook_html(value: Context | Projection) -> str:
    """What a notebook shows for a ``Context`` or a ``Projection`` (their ``_repr_html_``:
    the facade passes this function to the engine).

    >>> import pisession
    >>> notebook_html(pisession.load("tour").context()) == context_html(
    ...     pisession.load("tour").context())
    True
    """
    return projection_html(value) if isinstance(value, Projection) else context_html(value)
