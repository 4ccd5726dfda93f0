"""``pisession explain`` as text: which entries reached the model for a leaf, and why.

Pure functions from a ``Session`` to strings, so a notebook can print the same account
the command line shows:

>>> import pisession
>>> from pisession.explain import explain_text
>>> text = explain_text(pisession.load(pisession.sample_path("tour")))
>>> "9 of 26 entries reached the model" in text
True

Every piece of session text is passed through ``pisession.terminal.clean``.
"""

from __future__ import annotations

import re
import textwrap

from .jsvalue import UNDEFINED, map_key, strict_equal
from .jsvalue import field as js_field
from .provenance import FATES, REACHED, Fate
from .terminal import FATE_STYLES, clean, pad, paint, text_width, truncate

#: Marks for "reached the model" and "did not", in Unicode and in ASCII.
MARKS = {True: ("✓", "+"), False: ("✗", "-")}

_SGR = re.compile(r"\x1b\[[0-9;]*m")


def entry_id_text(value: object) -> str:
    """An entry id for display (``(no id)`` when it has none).

    >>> entry_id_text("a1b2c3d4"), entry_id_text(None), entry_id_text(7)
    ('a1b2c3d4', '(no id)', '7')
    """
    if value is None or value is UNDEFINED:
        return "(no id)"
    return clean(value)


def entry_kind(entry: object) -> str:
    """``type`` plus the role for message entries: ``message user``, ``compaction``.

    >>> entry_kind({"type": "message", "message": {"role": "toolResult"}})
    'message toolResult'
    >>> entry_kind({"type": "label"}), entry_kind(42)
    ('label', '(not an object)')
    """
    if not isinstance(entry, dict):
        return "(not an object)"
    kind = js_field(entry, "type")
    if kind is UNDEFINED:
        return "(no type)"
    if kind == "message":
        role = js_field(js_field(entry, "message"), "role")
        return "message" if role is UNDEFINED else f"message {clean(role)}"
    return clean(kind)


def model_text(model: object) -> str:
    """A context's model as ``provider/modelId`` (``none`` when unset).

    >>> model_text({"provider": "fake", "modelId": "fake-coder"}), model_text(None)
    ('fake/fake-coder', 'none')
    """
    if not isinstance(model, dict):
        return "none"
    provider = model.get("provider", "?")
    model_id = model.get("modelId", "?")
    return clean(f"{provider}/{model_id}")


def _where(session, position: int) -> str:
    ident = entry_id_text(js_field(session.view(position), "id"))
    return f"{ident} (line {session.line_of(position)})"


def kept_range(session, path: list[int], compaction: int) -> list[int]:
    """Path positions from the compaction's ``firstKeptEntryId`` up to (not including)
    the compaction: its kept range. Empty when the id is not on the path before it.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> p = s.projection()
    >>> [s.entry(i)["id"] for i in kept_range(s, p.path, p.compaction)][:2]
    ['u2000001', 'a3000001']
    """
    first_kept = js_field(session.entry(compaction), "firstKeptEntryId")
    cut = path.index(compaction)
    for rank, position in enumerate(path[:cut]):
        if strict_equal(js_field(session.view(position), "id"), first_kept):
            return path[rank:cut]
    return []


def header_lines(session, projection, leaf_id: object = None) -> list[tuple[str, str]]:
    """The header of an explanation as (field, value) pairs: file, session, leaf, path,
    compaction and kept range, context size, thinking level and model."""
    rows = [("file", clean(session.source))]
    name = f'  "{clean(session.name)}"' if session.name else ""
    rows.append(("session", f"{clean(session.id)}{name}"))
    version = clean(session.original_version)
    if session.migrated:
        version += " (migrated to 3 in memory; the file is unchanged)"
    if any(d.kind == "newer-version" for d in session.diagnostics):
        version += " (newer than version 3, the rules pisession knows; read as Pi reads it)"
    rows.append(("version", version))
    path = projection.path
    if not path:
        rows.append(("leaf", "none: the session has no entries"))
    else:
        how = "the default: the last entry in file order" if leaf_id is None else "chosen"
        rows.append(("leaf", f"{_where(session, path[-1])}, {how}"))
        rows.append(
            (
                "path",
                f"{len(path)} entries from root {_where(session, path[0])} to the leaf",
            )
        )
    compactions = [p for p in path if js_field(session.view(p), "type") == "compaction"]
    if projection.compaction is None:
        rows.append(("compaction", "none on the path: the whole path is selected"))
    else:
        older = len(compactions) - 1
        extra = f" (+{older} older on the path)" if older else ""
        rows.append(("compaction", f"{_where(session, projection.compaction)}, newest{extra}"))
        kept = kept_range(session, path, projection.compaction)
        if kept:
            first, last = session.view(kept[0]), session.view(kept[-1])
            rows.append(
                (
                    "kept range",
                    f"{entry_id_text(js_field(first, 'id'))} .. "
                    f"{entry_id_text(js_field(last, 'id'))}: {len(kept)} entries, lines "
                    f"{session.line_of(kept[0])}-{session.line_of(kept[-1])}",
                )
            )
        else:
            target = js_field(session.entry(projection.compaction), "firstKeptEntryId")
            shown = "missing" if target is UNDEFINED else repr(target)
            rows.append(
                (
                    "kept range",
                    f"empty: firstKeptEntryId {clean(shown)} is not on the path before "
                    "the compaction, so nothing before it is kept",
                )
            )
    context = projection.context
    thinking = context.thinking_level
    thinking_text = "missing (Pi omits the field)" if thinking is UNDEFINED else clean(thinking)
    rows.append(
        (
            "context",
            f"{len(context.messages)} messages; thinking level {thinking_text}; "
            f"model {model_text(context.model)}",
        )
    )
    skipped = [d for d in session.diagnostics if d.kind != "newer-version"]
    if skipped:
        lines = ", ".join(str(d.line) for d in skipped[:8])
        more = ", ..." if len(skipped) > 8 else ""
        rows.append(
            (
                "skipped",
                f"{len(skipped)} lines are not entries (line {lines}{more}); see pisession check",
            )
        )
    return rows


def fate_rows(session, fates: list[Fate], color: bool = False, ascii: bool = False) -> list:
    """One row per entry: line, id, entry kind (+ label), mark and fate, reason."""
    rows = []
    for f in fates:
        kind = entry_kind(session.view(f.position))
        label = session.labels.get(f.id) if isinstance(f.id, (str, int, float)) else None
        if label:
            kind += f" [{clean(label)}]"
        reached = REACHED.get(f.fate, False)
        mark = MARKS[reached][1 if ascii else 0]
        fate = paint(f"{mark} {f.fate}", FATE_STYLES.get(f.fate, ""), color=color)
        rows.append((str(f.line), entry_id_text(f.id), kind, fate, clean(f.reason), f))
    return rows


def _visible_width(text: str) -> int:
    return text_width(_SGR.sub("", text))


def fate_table(rows: list, width: int | None = None, color: bool = False) -> list[str]:
    """Align ``fate_rows`` into lines that fit ``width`` columns (None: no limit)."""
    head = ("line", "id", "entry", "  fate", "why")
    w_line = max([len(head[0])] + [len(r[0]) for r in rows])
    w_id = min(max([len(head[1])] + [text_width(r[1]) for r in rows]), 36)
    w_kind = min(max([len(head[2])] + [text_width(r[2]) for r in rows]), 32)
    w_fate = max([len(head[3])] + [_visible_width(r[3]) for r in rows])
    out = []
    for line, ident, kind, fate, why in [head, *[r[:5] for r in rows]]:
        left = (
            f"{pad(line, w_line, right=True)}  {pad(truncate(ident, w_id), w_id)}  "
            f"{pad(truncate(kind, w_kind), w_kind)}  "
        )
        fate_cell = fate + " " * (w_fate - _visible_width(fate))
        room = None if width is None else max(width - text_width(left) - w_fate - 2, 10)
        text = f"{left}{fate_cell}  {truncate(why, room)}".rstrip()
        if width is not None and _visible_width(text) > width:
            text = _cut(text, width)  # a very narrow terminal: plain text, cut
        out.append(paint(text, "bold", color=color) if line == "line" else text)
    return out


def summary_lines(fates: list[Fate], messages: int, color: bool = False) -> list[str]:
    """The closing account: how many entries reached the model, counts per fate.

    >>> from pisession.provenance import Fate
    >>> summary_lines([Fate(0, 2, "a", "message", "sent", "sent as user", 1),
    ...                Fate(1, 3, "b", "label", "state-only", "state only", 0)], 1)[0]
    '1 of 2 entries reached the model, as 1 message.'
    """
    reached = sum(1 for f in fates if REACHED.get(f.fate, False))
    counts = {fate: 0 for fate in FATES}
    for f in fates:
        counts[f.fate] = counts.get(f.fate, 0) + 1
    plural = "" if messages == 1 else "s"
    lines = [f"{reached} of {len(fates)} entries reached the model, as {messages} message{plural}."]

    def part(names):
        shown = [
            paint(f"{name} {counts[name]}", FATE_STYLES.get(name, ""), color=color)
            for name in names
            if counts.get(name)
        ]
        return ", ".join(shown) or "none"

    lines.append(f"  reached:  {part([n for n in FATES if REACHED.get(n)])}")
    lines.append(f"  not sent: {part([n for n in FATES if not REACHED.get(n)])}")
    return lines


def explain_text(
    session,
    leaf_id: object = None,
    color: bool = False,
    width: int | None = None,
    ascii: bool = False,
) -> str:
    """The full explanation for one leaf: header, one line per entry, summary.

    ``color`` adds ANSI colours (fates), ``width`` truncates lines to that many
    columns, ``ascii`` uses ``+``/``-`` instead of ``✓``/``✗``.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> text = explain_text(s, "a7000001")
    >>> "u5000001" in text and "off-path" in text
    True
    """
    projection = session.projection(leaf_id)
    fates = session.fates(leaf_id)
    header = header_lines(session, projection, leaf_id)
    key_width = max(len(k) for k, _ in header)
    out = []
    for key, value in header:
        room = None if width is None else width - key_width - 2
        out.append(f"{paint(pad(key, key_width), 'bold', color=color)}  {truncate(value, room)}")
    out.append("")
    if fates:
        out.extend(fate_table(fate_rows(session, fates, color, ascii), width, color))
        out.append("")
    for line in summary_lines(fates, len(projection.context.messages), color):
        if width is not None and _visible_width(line) > width:
            plain = _SGR.sub("", line)
            out.extend(textwrap.wrap(plain, width, subsequent_indent="            "))
        else:
            out.append(line)
    return "\n".join(out) + "\n"


# --- the tree as text ---------------------------------------------------------------

#: Tree drawing pieces: (branch, last branch, through, space, on path, off path, leaf).
_BOX = ("├─ ", "└─ ", "│  ", "   ", "●", "○", "◀ leaf")
_ASCII = ("|- ", "`- ", "|  ", "   ", "*", "o", "<- leaf")


def _text_of_content(content: object) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    for block in content:
        kind = js_field(block, "type")
        if kind == "text" and isinstance(js_field(block, "text"), str):
            return block["text"]
        if kind == "toolCall":
            return f"(tool call {js_field(block, 'name')})"
        if kind == "image":
            return "(image)"
        if kind == "thinking":
            continue
    return ""


def entry_snippet(entry: object) -> str:
    """A short, raw (not yet cleaned) preview of what an entry says or does.

    >>> entry_snippet({"type": "message", "message": {"role": "user",
    ...     "content": [{"type": "text", "text": "List the files."}]}})
    'List the files.'
    >>> entry_snippet({"type": "label", "targetId": "a2", "label": "first answer"})
    'a2 = first answer'
    """
    if not isinstance(entry, dict):
        return str(entry)
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        if not isinstance(message, dict):
            return "(no message object)"
        text = _text_of_content(message.get("content"))
        if not text and message.get("role") == "system":
            sections = message.get("sections")
            if isinstance(sections, dict) and sections:
                return "sections: " + ", ".join(map(str, sections))
        return text
    if kind in ("compaction", "branch_summary"):
        return str(entry.get("summary", ""))
    if kind == "custom_message":
        return _text_of_content(entry.get("content"))
    if kind == "session_info":
        return str(entry.get("name", ""))
    if kind == "model_change":
        return f"{entry.get('provider', '?')}/{entry.get('modelId', '?')}"
    if kind == "thinking_level_change":
        return str(entry.get("thinkingLevel", ""))
    if kind == "label":
        return f"{entry.get('targetId')} = {entry.get('label', '')}"
    if kind == "context_edit":
        action = "remove" if entry.get("replacement", 0) is None else "replace content of"
        return f"{action} {entry.get('targetId')}"
    if kind == "custom":
        return str(entry.get("customType", ""))
    if kind == "usage":
        return str(entry.get("kind", ""))
    return ""


def _chains(session, children: dict, start: int) -> list[int]:
    """``start`` and its single-child descendants: one straight run of the tree."""
    chain = [start]
    while len(children[chain[-1]]) == 1:
        chain.append(children[chain[-1]][0])
    return chain


def _collapsed(chain: list[int], keep: set, fate_of: dict, collapse: int) -> list:
    """Replace long runs of unremarkable entries (same fate) by ``("gap", n, a, b)``."""
    if collapse <= 0:
        return list(chain)
    out: list = []
    run: list[int] = []

    def flush():
        if len(run) > collapse:
            out.extend(run[:2])
            out.append(("gap", len(run) - 4, run[2], run[-3]))
            out.extend(run[-2:])
        else:
            out.extend(run)
        run.clear()

    for position in chain:
        if position in keep or (run and fate_of.get(run[-1]) != fate_of.get(position)):
            flush()
        if position in keep:
            out.append(position)
        else:
            run.append(position)
    flush()
    return out


def tree_text(
    session,
    leaf_id: object = None,
    color: bool = False,
    width: int | None = None,
    ascii: bool = False,
    collapse: int = 12,
    with_fates: bool = True,
) -> str:
    """The entry tree in Pi's order, one line per entry: line number, ``●`` on the path
    to the leaf (``○`` elsewhere), id, kind, fate, label, a preview of the text.

    Straight runs stay in one column; branches are drawn with ``├─``/``└─``. Runs of
    more than ``collapse`` unremarkable entries with the same fate are shortened to
    their first and last two (``collapse=0`` shows everything). ``with_fates=False``
    draws the tree alone (for files whose path cannot be built).

    >>> import pisession
    >>> text = tree_text(pisession.load(pisession.sample_path("tour")), ascii=True)
    >>> print(text.splitlines()[8])
    10 |- * lb000001 label [summarized]  "a2000001 = first answer"
    """
    pieces = _ASCII if ascii else _BOX
    children = session.children()
    count = len(session)
    if count == 0:
        return "(no entries)\n"
    leaf = session.default_leaf if leaf_id is None else session.position_of(leaf_id)
    fate_of: dict = {}
    on_path: set = set()
    if with_fates:
        for f in session.fates(leaf_id):
            fate_of[f.position] = f.fate
        on_path = {p for p, fate in fate_of.items() if fate != "off-path"}
    keep = {leaf}
    first_kept_ids = []
    for position in range(count):
        entry = session.view(position)
        if js_field(entry, "type") == "compaction":
            keep.add(position)
            first_kept_ids.append(js_field(entry, "firstKeptEntryId"))
        ident = js_field(entry, "id")
        if isinstance(ident, (str, int, float)) and session.labels.get(ident):
            keep.add(position)
    starts = {map_key(target) for target in first_kept_ids} - {None}
    if starts:  # every entry a kept range may start at (one pass, not one per compaction)
        keep.update(p for p in range(count) if map_key(js_field(session.view(p), "id")) in starts)
    line_width = len(str(session.line_of(count - 1)))

    def node_line(position: int, lead: str) -> str:
        entry = session.entry(position)  # its text is shown too: the full entry
        mark = (pieces[4] if position in on_path else pieces[5]) if with_fates else " "
        ident = js_field(entry, "id")
        parts = [entry_id_text(ident), entry_kind(entry)]
        fate = fate_of.get(position)
        if fate:
            parts.append(paint(f"[{fate}]", FATE_STYLES.get(fate, ""), color=color))
        label = session.labels.get(ident) if isinstance(ident, (str, int, float)) else None
        if label:
            parts.append(paint(f"#{clean(label)}", "bold", color=color))
        if position == leaf:
            parts.append(paint(pieces[6], "bold", color=color))
        head = f"{pad(str(session.line_of(position)), line_width, right=True)} {lead}{mark} "
        text = head + " ".join(parts)
        snippet = clean(entry_snippet(entry))
        if snippet:
            room = 60 if width is None else width - _visible_width(text) - 4
            if room >= 8:
                text += f'  "{truncate(snippet, room)}"'
        return text

    def gap_line(item: tuple, lead: str) -> str:
        _, hidden, first, last = item
        blank = " " * line_width
        dots = "┆" if not ascii else ":"
        return paint(
            f"{blank} {lead}{dots} {hidden} more entries (lines {session.line_of(first)}-"
            f"{session.line_of(last)})",
            "dim",
            color=color,
        )

    lines: list[str] = []
    seen: set = set()
    stack = [(root, "", "") for root in reversed(session.roots())]
    while stack:
        start, lead, cont = stack.pop()
        chain = _chains(session, children, start)
        seen.update(chain)
        for rank, item in enumerate(_collapsed(chain, keep, fate_of, collapse)):
            prefix = lead if rank == 0 else cont
            if isinstance(item, tuple):
                lines.append(gap_line(item, prefix))
            else:
                lines.append(node_line(item, prefix))
        kids = children[chain[-1]]
        for rank in reversed(range(len(kids))):
            last = rank == len(kids) - 1
            stack.append(
                (kids[rank], cont + pieces[1 if last else 0], cont + pieces[3 if last else 2])
            )
    unreached = [p for p in range(count) if p not in seen]
    if unreached:
        shown = ", ".join(str(session.line_of(p)) for p in unreached[:10])
        more = ", ..." if len(unreached) > 10 else ""
        lines.append(
            f"(not in the tree: {len(unreached)} entries in parent cycles, "
            f"line {shown}{more}; see pisession check)"
        )
    if width is not None:
        lines = [ln if _visible_width(ln) <= width else _cut(ln, width) for ln in lines]
    return "\n".join(lines) + "\n"


def _cut(line: str, width: int) -> str:
    """Truncate a line that may hold ANSI colour codes (drops the colours)."""
    return truncate(_SGR.sub("", line), width)
