"""The export as Markdown to paste into an issue: the sections of the HTML page
(``pisession.views.export_page``), session text in code fences and escaped cells
(``pisession.views.export_text``), long text folded in ``<details>``.

>>> import pisession
>>> export_markdown(pisession.load(pisession.sample_path("tour"))).splitlines()[0]
'# Tour of the session format'
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from ..js.value import field as js_field
from ..js.value import plain, value_text
from ..piversions import __version__
from ..projection import COMPACTION, KEPT, ProjectedEntry
from .explain import gap_counts
from .export_page import (
    LIMITS,
    Export,
    Shown_item,
    _compaction_band,
    _inserted,
    _kept_band,
    _replayed,
    _rows,
    _where,
)
from .export_text import (
    FOLD_LINES,
    _details,
    fence,
    html_text,
    md_cell,
    message_plain,
    rules_text,
)
from .export_usage import usage_rows
from .protocol import SessionLike
from .provenance import FATES
from .reasons import Gap
from .text import entry_kind, id_text

if TYPE_CHECKING:
    pass


def _md_message(ex: Export, number: int, message: object, item: ProjectedEntry) -> str:
    role = plain(js_field(message, "role"))
    fate = ex.fates.names[item.position]
    source = f"{md_cell(id_text(item.id))} (line {item.line})"
    head = f"**#{number} {md_cell(role)}** · from {source} · {fate}"
    text = message_plain(message)
    body = fence(text)
    if role in ("toolResult", "system") or text.count("\n") >= FOLD_LINES:
        body = _details(f"{text.count(chr(10)) + 1:,} lines", body)
    if item.edit is not None:
        originals = item.unedited or []
        original = next((m for m in originals if js_field(m, "role") == role), None)
        edit = md_cell(id_text(js_field(item.edit, "id")))
        was = fence(message_plain(original)) if original is not None else "(nothing)"
        body = f"As sent, after context edit {edit}:\n\n{body}\n\n" + _details(
            "As stored in the file", was
        )
    return f"{head}\n\n{body}"


def _md_items(ex: Export, items: Iterable[Shown_item], state: dict[str, bool]) -> list[str]:
    out = []
    for first, item in items:
        if item.part == KEPT and not state["in_kept"]:
            out.append("> " + _md_band(_kept_band(ex, True)))
            state["in_kept"] = True
        elif item.part != KEPT and state["in_kept"]:
            out.append("> end of the kept range")
            state["in_kept"] = False
        if item.part == COMPACTION:
            out.append("> " + _md_band(_compaction_band(ex)))
        if not item.messages:
            edit = md_cell(id_text(js_field(item.edit, "id")))
            was = "\n".join(message_plain(m) for m in (item.unedited or []))
            out.append(
                f"**omitted** · {md_cell(id_text(item.id))} (line {item.line}) by context "
                f"edit {edit}\n\n" + _details("What the file holds", fence(was))
            )
        for k, message in enumerate(item.messages):
            out.append(_md_message(ex, first + k + 1, message, item))
        for call, name in _inserted(ex, item):
            out.append(
                "**+ toolResult** · written by pi-ai, not in the file · sent\n\n"
                f'"No result provided" (isError) for call {md_cell(id_text(call))} '
                f"({md_cell(value_text(name))}), which has no result"
            )
    return out


def _md_band(band_html: str) -> str:
    """A band of the HTML page as one Markdown line: its text, escaped again."""
    return md_cell(html.unescape(re.sub("<[^>]+>", "", band_html)))


def _md_table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _md_entries(ex: Export, collapse: int) -> str:
    session, fates, index = ex.session, ex.fates, ex.session.index
    rows = []
    for item in _rows(ex, collapse):
        if isinstance(item, Gap):
            lines = item.lines(session.line_of)
            counts = gap_counts(fates.names, item)
            rows.append(["", "", f"*{item.hidden:,} more entries: {counts} ({lines})*", "", ""])
            continue
        fate = fates[item]
        kind = entry_kind(index.types[item], index.roles[item])
        label = session.label_of(item)
        kind += f" #{plain(label)}" if label is not None else ""
        rows.append(
            [
                str(fate.line),
                md_cell(id_text(fate.id)),
                md_cell(kind),
                fate.fate,
                md_cell(fate.reason),
            ]
        )
    return _md_table(["line", "id", "entry", "fate", "why"], rows)


#: The most tree lines Markdown shows (an issue comment holds 65,536 characters).
MARKDOWN_TREE_LINES = 300


def _md_tree(tree: str) -> str:
    lines = tree.rstrip("\n").split("\n")
    if len(lines) > MARKDOWN_TREE_LINES:
        head, tail = MARKDOWN_TREE_LINES // 3, MARKDOWN_TREE_LINES - MARKDOWN_TREE_LINES // 3
        hidden = len(lines) - head - tail
        note = f"[... {hidden:,} more lines: pisession tree FILE shows them all]"
        lines = [*lines[:head], note, *lines[-tail:]]
    return _details(f"{len(lines):,} lines", fence("\n".join(lines), limit=None))


def export_markdown(
    session: SessionLike,
    leaf_id: object = None,
    limit: int | None = LIMITS["md"],
    full_path: bool = False,
) -> str:
    """The session as Markdown to paste into an issue: the same sections as the HTML
    page; tool output and long text folded in ``<details>``; the file by its name only
    unless ``full_path``.

    >>> import pisession
    >>> export_markdown(pisession.load(pisession.sample_path("tour"))).splitlines()[0]
    '# Tour of the session format'
    """
    from .tree_text import tree_text

    ex = Export.of(session, leaf_id, limit, full_path)
    table = [[md_cell(k), md_cell(v)] for k, v in ex.facts()]
    out = [f"# {md_cell(ex.title)}", _md_table(["", ""], table)]
    counts = ex.fates.counts()
    shown = ", ".join(f"{k.name} {counts[k.name]:,}" for k in FATES if counts[k.name])
    out.append(
        f"**{ex.fates.reached():,} of {len(ex.fates):,} entries reached the model**, as "
        f"{ex.reading.messages:,} messages ({shown})."
        + (f" {ex.fates.request.sentence()}" if ex.fates.request is not None else "")
    )
    out += ["## The entry tree", _md_tree(tree_text(session, leaf_id))]
    out += _md_context(ex)
    usage = usage_rows(session, leaf_id)
    out += [
        "## Usage and cost",
        _md_table(["", "whole session", "this branch"], [list(map(md_cell, r)) for r in usage]),
    ]
    out += ["## Every entry, with its fate", _md_entries(ex, 12)]
    rules = rules_text()
    out.append(f"*Written by pisession {__version__} with {rules}.*")
    return "\n\n".join(out) + "\n"


def _md_context(ex: Export) -> list[str]:
    shown = ex.shown
    out = [
        f"## The context at {md_cell(_where(ex.session, ex.leaf))}",
        f"{shown.total:,} messages, as Pi builds them: what the model was sent.",
    ]
    prompt, problem = _replayed(shown)
    if problem:
        out.append(f"*The system prompt cannot be replayed: {md_cell(problem)}*")
    elif prompt is not None and (prompt.text or prompt.tools):
        tools = ", ".join(html_text(name) for name in prompt.tools) or "none"  # HTML: a <summary>
        out.append(_details(f"The system prompt in force (tools: {tools})", fence(prompt.text)))
    state = {"in_kept": False}
    out += _md_items(ex, shown.head, state)
    if shown.hidden:
        out.append(
            f"*{shown.hidden:,} more messages not shown (`pisession export --all` has them).*"
        )
    out += _md_items(ex, shown.tail, state)
    if state["in_kept"]:
        out.append("> end of the kept range")
    return out
