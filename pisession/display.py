"""Rich display: sessions, contexts, projections and fates as small HTML tables.

Jupyter calls these through ``Session._repr_html_``, ``Context._repr_html_`` and
``Projection._repr_html_``. Every piece of session text is cleaned (ANSI escapes and
control characters removed), shortened and HTML-escaped, so a session holding
``<script>`` shows it as text. No JavaScript, no external CSS.

Words come from ``pisession.text`` and fate colours from ``provenance.FATES``, as in
every other view.
"""

from __future__ import annotations

import html

from .jsvalue import field as js_field
from .provenance import FATE, UNKNOWN_COLOUR
from .text import entry_text, id_text, kind_of, message_text, one_line, strip_unsafe

# --- HTML -------------------------------------------------------------------------------

_STYLE = (
    "<style>.pisession td,.pisession th{text-align:left;vertical-align:top;"
    "padding:2px 6px;font-size:12px}.pisession code{font-size:11px}"
    ".pisession .fate{border-radius:3px;padding:0 4px;border:1px solid #888;"
    "white-space:nowrap}</style>"
)


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


def _table(headers: list[str], rows: list[list[str]], more: int = 0) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    if more:
        body += f'<tr><td colspan="{len(headers)}">… {more} more rows</td></tr>'
    return f'<table class="pisession"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _rows_limited(items: list, max_rows: int | None) -> tuple[list, int]:
    if max_rows is None or len(items) <= max_rows:
        return items, 0
    return items[:max_rows], len(items) - max_rows


def fates_html(session, leaf_id: object = None, max_rows: int | None = 500) -> str:
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
                f"<code>{_esc(short_id(fate.id))}</code>",
                _esc(kind_of(entry, short=True), 20),
                _esc(entry_text(entry), 80) + (f" <b>[{_esc(label, 40)}]</b>" if label else ""),
                fate_badge(fate.fate),
                _esc(fate.reason, 120),
            ]
        )
    return _STYLE + _table(["line", "id", "kind", "text", "fate", "why"], rows, more)


def session_html(session, leaf_id: object = None, max_rows: int | None = 200) -> str:
    """A session at a glance: header facts, then every entry with its fate.

    A file whose context cannot be built (a parent cycle, an entry Pi fails on) still
    renders: the entries are listed without fates and the error is shown.

    >>> import pisession
    >>> html_text = session_html(pisession.load(pisession.sample_path("tour")))
    >>> "Tour of the session format" in html_text
    True
    """
    from .errors import PisessionError

    facts = [
        ("source", session.source),
        ("session id", session.header.get("id")),
        ("name", session.name),
        ("version", session.original_version)
        if not session.migrated
        else ("version", f"{session.original_version} (migrated to 3 in memory)"),
        ("entries", len(session)),
        ("leaves", len(session.leaves())),
        ("skipped lines", len(session.diagnostics)),
    ]
    head = "".join(f"<tr><th>{html.escape(k)}</th><td>{_esc(v, 120)}</td></tr>" for k, v in facts)
    out = _STYLE + f'<table class="pisession">{head}</table>'
    try:
        return out + fates_html(session, leaf_id, max_rows)
    except PisessionError as exc:
        rows = []
        positions, more = _rows_limited(list(range(len(session))), max_rows)
        for position in positions:
            entry = session.entry(position)
            rows.append(
                [
                    str(session.line_of(position)),
                    f"<code>{_esc(short_id(session.index.ids[position]))}</code>",
                    _esc(kind_of(entry, short=True), 20),
                    _esc(entry_text(entry), 80),
                ]
            )
        error = f"<p><b>no context:</b> {_esc(exc, 300)}</p>"
        return out + error + _table(["line", "id", "kind", "text"], rows, more)


def _message_rows(messages: list) -> list[list[str]]:
    return [
        [str(i), _esc(js_field(m, "role"), 20), _esc(message_text(m), 100)]
        for i, m in enumerate(messages)
    ]


def context_html(context, max_rows: int | None = 500) -> str:
    """The model context: thinking level, model, then one row per message.

    >>> import pisession
    >>> "compactionSummary" in context_html(pisession.load(pisession.sample_path("tour")).context())
    True
    """
    model = context.model or {}
    facts = (
        f"<p>thinking level <code>{_esc(context.thinking_level, 20)}</code>, model "
        f"<code>{_esc(js_field(model, 'provider'), 40)}/{_esc(js_field(model, 'modelId'), 40)}"
        f"</code>, {len(context.messages)} messages</p>"
    )
    rows, more = _rows_limited(_message_rows(context.messages), max_rows)
    return _STYLE + facts + _table(["#", "role", "text"], rows, more)


#: Why an entry is selected (``context.Selection.part_of``), in words.
PART_WORDS = {
    "path": "on the path",
    "compaction": "newest compaction on the path",
    "kept": "kept range of the compaction",
    "after": "after the compaction",
}


def projection_html(projection, max_rows: int | None = 500) -> str:
    """Every context message with the entry it came from and why that entry was selected.

    Selected entries that contribute nothing (settings, labels, edits, older compactions)
    appear as rows without a message, so the table shows the whole selection.

    >>> import pisession
    >>> p = pisession.load(pisession.sample_path("tour")).projection()
    >>> "kept range of the compaction" in projection_html(p)
    True
    """
    rows = []
    index = 0
    for item in projection.entries:
        entry_cells = [
            str(item.line),
            f"<code>{_esc(short_id(item.id))}</code>",
            _esc(kind_of(item.entry, short=True), 20),
        ]
        edit = ""
        if item.edit is not None:
            edit = f"edited by <code>{_esc(short_id(js_field(item.edit, 'id')))}</code>"
        why = _esc(PART_WORDS[item.part]) + (f"; {edit}" if edit else "")
        if not item.messages:
            rows.append(["", "", "<i>(no message)</i>", *entry_cells, why])
        for message in item.messages:
            rows.append(
                [
                    str(index),
                    _esc(js_field(message, "role"), 20),
                    _esc(message_text(message), 80),
                    *entry_cells,
                    why,
                ]
            )
            index += 1
    shown, more = _rows_limited(rows, max_rows)
    headers = ["#", "role", "text", "line", "entry", "kind", "why"]
    return _STYLE + _table(headers, shown, more)
