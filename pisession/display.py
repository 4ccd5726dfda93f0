"""Rich display: sessions, contexts, projections and fates as small HTML tables.

Jupyter calls these through ``Session._repr_html_``, ``Context._repr_html_`` and
``Projection._repr_html_``. Every piece of session text is cleaned (ANSI escapes and
control characters removed), shortened and HTML-escaped, so a session holding
``<script>`` shows it as text. No JavaScript, no external CSS.

The text helpers (``clean_text``, ``shorten``, ``message_text``, ``entry_text``,
``kind_of``) are shared with the drawings and the explorers.
"""

from __future__ import annotations

import html
import re

from .jsvalue import UNDEFINED, js_string
from .jsvalue import field as js_field

#: One colour per fate (Okabe-Ito, colour-blind friendly), with its meaning.
FATE_COLOURS = {
    "sent": "#009E73",
    "kept": "#56B4E9",
    "compaction": "#0072B2",
    "summarized": "#F0E442",
    "dropped-system": "#D55E00",
    "edited": "#E69F00",
    "omitted": "#CC79A7",
    "state-only": "#FFFFFF",
    "off-path": "#E4E4E4",
}

#: What each fate means, in the chapter's words (legends and docs use these).
FATE_MEANINGS = {
    "sent": "on the path (after the compaction, if any): sent to the model",
    "kept": "in the kept range of the newest compaction: sent",
    "compaction": "the newest compaction: sends its summary (and system checkpoint)",
    "summarized": "before the kept range: replaced by the compaction summary",
    "dropped-system": "system message inside the kept range: dropped",
    "edited": "sent, with content replaced by a context edit",
    "omitted": "removed by a context edit (replacement null)",
    "state-only": "selected but contributes no message (settings, labels, ...)",
    "off-path": "on another branch: not in this context",
}

#: Colour used when no fate is known (a damaged file whose context cannot be built).
UNKNOWN_COLOUR = "#BBBBBB"

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_SPACES = re.compile(r"\s+")

#: Short words for entry types and message roles (node text, tables).
KIND_WORDS = {
    "user": "user",
    "assistant": "asst",
    "toolResult": "tool",
    "system": "sys",
    "custom": "custom",
    "bashExecution": "bash",
    "hookMessage": "hook",
    "compaction": "compact",
    "branch_summary": "branch sum",
    "custom_message": "custom msg",
    "model_change": "model",
    "thinking_level_change": "thinking",
    "label": "label",
    "session_info": "name",
    "usage": "usage",
    "context_edit": "edit",
}


def _as_str(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None or value is UNDEFINED:
        return ""
    if isinstance(value, (dict, list)):
        from .jsjson import dumps

        return dumps(value)
    if isinstance(value, (bool, int, float)):
        return js_string(value)
    return str(value)


def clean_text(text: object) -> str:
    """Text safe for any display: ANSI escapes and control characters removed.

    >>> clean_text("\\x1b[31mred\\x1b[0m\\x07 bell")
    'red bell'
    """
    value = _as_str(text)
    value = _ANSI.sub("", value)
    return _CONTROL.sub("", value.replace("\t", " "))


def shorten(text: object, width: int = 80) -> str:
    """One cleaned line of at most ``width`` characters (whitespace runs become one space).

    >>> shorten("a  long\\n\\ntext that goes on", 12)
    'a long text…'
    """
    value = _SPACES.sub(" ", clean_text(text)).strip()
    return value if len(value) <= width else value[: max(width - 1, 0)].rstrip() + "…"


def _block_text(block: object) -> str:
    kind = js_field(block, "type")
    if kind == "text":
        return _as_str(js_field(block, "text"))
    if kind == "thinking":
        return "[thinking] " + _as_str(js_field(block, "thinking"))
    if kind == "toolCall":
        arguments = js_field(block, "arguments")
        inner = ""
        if isinstance(arguments, dict):
            inner = ", ".join(f"{k}={shorten(v, 40)}" for k, v in arguments.items())
        return f"→ {_as_str(js_field(block, 'name'))}({inner})"
    if kind == "image":
        return "[image]"
    return f"[{_as_str(kind)}]"


def content_summary(content: object) -> str:
    """Plain text of message content: a string, or its blocks described one by one.

    >>> content_summary([{"type": "text", "text": "hi"}, {"type": "toolCall",
    ...     "name": "bash", "arguments": {"command": "ls"}}])
    'hi → bash(command=ls)'
    """
    if content is UNDEFINED or content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(_block_text(b) for b in content)
    return _as_str(content)


def message_text(message: object) -> str:
    """What a context message says, as one plain string (uncut, uncleaned).

    >>> message_text({"role": "compactionSummary", "summary": "We read util.py."})
    'We read util.py.'
    """
    role = js_field(message, "role")
    if role in ("compactionSummary", "branchSummary"):
        return _as_str(js_field(message, "summary"))
    if role == "bashExecution":
        return f"$ {_as_str(js_field(message, 'command'))} {_as_str(js_field(message, 'output'))}"
    if role == "system":
        sections = js_field(message, "sections")
        parts = [content_summary(js_field(message, "content"))]
        if isinstance(sections, dict):
            parts += [
                f"[{k}] {'(removed)' if v is None else _as_str(v)}" for k, v in sections.items()
            ]
        for key, sign in (("toolsAdded", "+"), ("toolsRemoved", "-")):
            tools = js_field(message, key)
            if isinstance(tools, list):
                parts += [f"{sign}tool {_as_str(js_field(t, 'name'))}" for t in tools]
        return " ".join(p for p in parts if p)
    return content_summary(js_field(message, "content"))


def entry_text(entry: object) -> str:
    """What an entry holds, as one plain string (uncut, uncleaned).

    >>> entry_text({"type": "label", "targetId": "a1", "label": "first answer"})
    'a1 ← first answer'
    """
    kind = js_field(entry, "type")
    if kind == "message":
        return message_text(js_field(entry, "message"))
    if kind in ("compaction", "branch_summary"):
        return _as_str(js_field(entry, "summary"))
    if kind == "custom_message":
        return content_summary(js_field(entry, "content"))
    if kind == "model_change":
        return f"{_as_str(js_field(entry, 'provider'))}/{_as_str(js_field(entry, 'modelId'))}"
    if kind == "thinking_level_change":
        return _as_str(js_field(entry, "thinkingLevel"))
    if kind == "label":
        return f"{_as_str(js_field(entry, 'targetId'))} ← {_as_str(js_field(entry, 'label'))}"
    if kind == "session_info":
        return _as_str(js_field(entry, "name"))
    if kind == "context_edit":
        replacement = js_field(entry, "replacement")
        target = _as_str(js_field(entry, "targetId"))
        if replacement is None:
            return f"{target} → (omitted)"
        return f"{target} → {content_summary(js_field(replacement, 'content'))}"
    if kind == "custom":
        return _as_str(js_field(entry, "customType"))
    if not isinstance(entry, dict):
        return _as_str(entry)
    return ""


def kind_of(entry: object) -> str:
    """The entry's type, or its message role for message entries.

    >>> kind_of({"type": "message", "message": {"role": "toolResult"}}), kind_of(5)
    ('toolResult', '(not an object)')
    """
    if not isinstance(entry, dict):
        return "(not an object)"
    kind = js_field(entry, "type")
    if kind == "message":
        role = js_field(js_field(entry, "message"), "role")
        return _as_str(role) if role is not UNDEFINED else "message"
    return "(no type)" if kind is UNDEFINED else _as_str(kind)


def short_id(value: object, width: int = 8) -> str:
    """An entry id cut to ``width`` characters (Pi ids are 8 hex digits).

    >>> short_id("0199edge-0000-7000"), short_id(None), short_id(12)
    ('0199edge', '-', '12')
    """
    if value is None or value is UNDEFINED:
        return "-"
    return clean_text(value)[:width]


def text_colour(background: str) -> str:
    """Black or white, whichever reads better on ``background`` (``#RRGGBB``).

    >>> text_colour("#0072B2"), text_colour("#F0E442")
    ('#FFFFFF', '#000000')
    """
    red, green, blue = (int(background[i : i + 2], 16) / 255 for i in (1, 3, 5))

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    luminance = 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    return "#000000" if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else "#FFFFFF"


# --- HTML -------------------------------------------------------------------------------

_STYLE = (
    "<style>.pisession td,.pisession th{text-align:left;vertical-align:top;"
    "padding:2px 6px;font-size:12px}.pisession code{font-size:11px}"
    ".pisession .fate{border-radius:3px;padding:0 4px;border:1px solid #888;"
    "white-space:nowrap}</style>"
)


def _esc(value: object, width: int | None = None) -> str:
    text = clean_text(value) if width is None else shorten(value, width)
    return html.escape(text, quote=True)


def fate_badge(fate: str | None) -> str:
    """A fate as a small coloured HTML label.

    >>> fate_badge("kept")
    '<span class="fate" style="background:#56B4E9;color:#000000">kept</span>'
    """
    colour = FATE_COLOURS.get(fate or "", UNKNOWN_COLOUR)
    return (
        f'<span class="fate" style="background:{colour};color:{text_colour(colour)}">'
        f"{html.escape(fate or '?')}</span>"
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
        label = session.labels.get(fate.id) if isinstance(fate.id, str) else None
        rows.append(
            [
                str(fate.line),
                f"<code>{_esc(short_id(fate.id))}</code>",
                _esc(KIND_WORDS.get(kind_of(entry), kind_of(entry)), 20),
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
                    f"<code>{_esc(short_id(js_field(entry, 'id')))}</code>",
                    _esc(kind_of(entry), 20),
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
            _esc(KIND_WORDS.get(kind_of(item.entry), kind_of(item.entry)), 20),
        ]
        edit = ""
        if item.edit is not None:
            edit = f"edited by <code>{_esc(short_id(js_field(item.edit, 'id')))}</code>"
        why = _esc(item.why) + (f"; {edit}" if edit else "")
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
