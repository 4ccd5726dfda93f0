"""``pisession explain`` and ``pisession tree`` as text: which entries reached the model
for a leaf, and why; and the entry tree.

Pure functions from a ``Session`` to strings, so a notebook can print the same account
the command line shows. They word the rule's outputs (``Session.projection``,
``Session.fates``); they decide nothing themselves.

>>> import pisession
>>> text = explain_text(pisession.load(pisession.sample_path("tour")))
>>> "9 of 26 entries reached the model" in text
True

Every piece of session text is passed through ``pisession.text.visible``.
"""

from __future__ import annotations

import re
import textwrap

from .jsvalue import UNDEFINED, strict_equal
from .jsvalue import field as js_field
from .provenance import FATE, FATES
from .terminal import pad, paint, text_width, truncate
from .text import entry_kind, entry_text, id_text, label_for, model_text, visible

#: Marks for "reached the model" and "did not", in Unicode and in ASCII.
MARKS = {True: ("✓", "+"), False: ("✗", "-")}

_SGR = re.compile(r"\x1b\[[0-9;]*m")


def _where(session, position: int) -> str:
    return f"{id_text(session.index.ids[position])} (line {session.line_of(position)})"


def kept_range_text(session, projection) -> str:
    """The kept range of the newest compaction, in words (from the rule's selection).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> kept_range_text(s, s.projection())
    'u2000001 .. a5000001: 10 entries, lines 11-24 (1 system message dropped)'
    """
    selection, path = projection.selection, projection.path
    compaction = selection.compaction
    if selection.first_kept is not None:
        kept = path[selection.start : selection.cut]
        dropped = len(selection.dropped_system)
        note = (
            f" ({dropped} system message{'s' if dropped != 1 else ''} dropped)" if dropped else ""
        )
        return (
            f"{id_text(session.index.ids[kept[0]])} .. {id_text(session.index.ids[kept[-1]])}: "
            f"{len(kept)} entries, lines {session.line_of(kept[0])}-{session.line_of(kept[-1])}"
            f"{note}"
        )
    target = js_field(session.entry(compaction), "firstKeptEntryId")
    if strict_equal(target, session.index.ids[compaction]):
        return (
            "none: the compaction names itself (retain-none), so only its summary stands "
            "for what came before"
        )
    shown = "missing" if target is UNDEFINED else repr(target)
    return (
        f"none: firstKeptEntryId {visible(shown)} is not on the path before the compaction, so "
        "nothing before it is kept"
    )


def header_lines(session, projection, leaf_id: object = None) -> list[tuple[str, str]]:
    """The header of an explanation as (field, value) pairs: file, session, leaf, path,
    compaction and kept range, context size, thinking level and model."""
    rows = [("file", visible(session.source))]
    name = f'  "{visible(session.name)}"' if session.name else ""
    rows.append(("session", f"{visible(session.id)}{name}"))
    version = visible(session.original_version)
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
            ("path", f"{len(path)} entries from root {_where(session, path[0])} to the leaf")
        )
    compaction = projection.compaction
    if compaction is None:
        rows.append(("compaction", "none on the path: the whole path is selected"))
    else:
        older = sum(1 for p in path if session.index.types[p] == "compaction") - 1
        extra = f" (+{older} older on the path)" if older else ""
        rows.append(("compaction", f"{_where(session, compaction)}, newest{extra}"))
        rows.append(("kept range", kept_range_text(session, projection)))
    context = projection.context
    thinking = context.thinking_level
    thinking_text = "missing (Pi omits the field)" if thinking is UNDEFINED else visible(thinking)
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
        count = len(skipped)
        rows.append(
            (
                "skipped",
                f"{count} line{'s are' if count != 1 else ' is'} not entries (line {lines}{more}); "
                "see pisession check",
            )
        )
    return rows


def fate_rows(session, fates, color: bool = False, ascii: bool = False) -> list:
    """One row per entry: line, id, entry kind (+ label), mark and fate, reason."""
    index = session.index
    rows = []
    for f in fates:
        kind = entry_kind(index.types[f.position], index.roles[f.position])
        label = label_for(session.labels, f.id)
        if label:
            kind += f" [{visible(label)}]"
        mark = MARKS[FATE[f.fate].reached][1 if ascii else 0]
        fate = paint(f"{mark} {f.fate}", FATE[f.fate].style, color=color)
        rows.append((str(f.line), id_text(f.id), kind, fate, visible(f.reason), f))
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


def summary_lines(fates, messages: int, color: bool = False) -> list[str]:
    """The closing account: how many entries reached the model, counts per fate.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> summary_lines(s.fates(), 10)[0]
    '9 of 26 entries reached the model, as 10 messages.'
    """
    counts = fates.counts()
    reached = sum(n for name, n in counts.items() if FATE[name].reached)
    plural = "" if messages == 1 else "s"
    lines = [f"{reached} of {len(fates)} entries reached the model, as {messages} message{plural}."]

    def part(reached_model: bool) -> str:
        shown = [
            paint(f"{k.name} {counts[k.name]}", k.style, color=color)
            for k in FATES
            if k.reached == reached_model and counts[k.name]
        ]
        return ", ".join(shown) or "none"

    lines.append(f"  reached:  {part(True)}")
    lines.append(f"  not sent: {part(False)}")
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
    if len(fates):
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


def _chain(shape, start: int) -> list[int]:
    """``start`` and its single-child descendants: one straight run of the tree."""
    chain = [start]
    kids = shape.children(start)
    while len(kids) == 1:
        chain.append(kids[0])
        kids = shape.children(kids[0])
    return chain


def collapse_runs(chain: list[int], keep: set, fate_of, collapse: int) -> list:
    """Replace long runs of unremarkable entries (same fate) by ``("gap", n, a, b)``.

    >>> collapse_runs(list(range(10)), {9}, lambda p: "sent", 4)
    [0, 1, ('gap', 5, 2, 6), 7, 8, 9]
    """
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
        if position in keep or (run and fate_of(run[-1]) != fate_of(position)):
            flush()
        if position in keep:
            out.append(position)
        else:
            run.append(position)
    flush()
    return out


def remarkable(session, leaf: int | None) -> set[int]:
    """Entries a collapsed view always shows: the leaf, compactions, the first entry of
    every kept range, labelled entries, roots and branch points are kept by their runs."""
    index = session.index
    keep = {leaf} if leaf is not None else set()
    compactions = [p for p in range(len(index)) if index.types[p] == "compaction"]
    keep.update(compactions)
    for c in compactions:
        target = session.index.position_of(js_field(session.entry(c), "firstKeptEntryId"))
        if target is not None:
            keep.add(target)
    keep.update(index.by_id[k] for k in session.labels if k in index.by_id)
    return keep


def _node_line(session, position: int, lead: str, view: dict) -> str:
    """One entry of the tree: line, marks, id, kind, fate, label, what it says."""
    pieces, fate_of, color, width = view["pieces"], view["fate_of"], view["color"], view["width"]
    index = session.index
    mark = (pieces[4] if fate_of(position) != "off-path" else pieces[5]) if view["fates"] else " "
    parts = [id_text(index.ids[position]), entry_kind(index.types[position], index.roles[position])]
    fate = fate_of(position)
    if fate:
        parts.append(paint(f"[{fate}]", FATE[fate].style, color=color))
    label = label_for(session.labels, index.ids[position])
    if label:
        parts.append(paint(f"#{visible(label)}", "bold", color=color))
    if position == view["leaf"]:
        parts.append(paint(pieces[6], "bold", color=color))
    number = pad(str(session.line_of(position)), view["line_width"], right=True)
    text = f"{number} {lead}{mark} " + " ".join(parts)
    snippet = visible(entry_text(session.entry(position)))
    room = 60 if width is None else width - _visible_width(text) - 4
    if snippet and room >= 8:
        text += f'  "{truncate(snippet, room)}"'
    return text


def _gap_line(session, item: tuple, lead: str, view: dict) -> str:
    _, hidden, first, last = item
    dots = ":" if view["pieces"] is _ASCII else "┆"
    return paint(
        f"{' ' * view['line_width']} {lead}{dots} {hidden} more entries (lines "
        f"{session.line_of(first)}-{session.line_of(last)})",
        "dim",
        color=view["color"],
    )


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
    if not len(session):
        return "(no entries)\n"
    leaf = session.default_leaf if leaf_id is None else session.position_of(leaf_id)
    names = session.fates(leaf_id).names if with_fates else None
    view = {
        "pieces": _ASCII if ascii else _BOX,
        "fate_of": (lambda p: names[p]) if names is not None else (lambda p: None),
        "fates": names is not None,
        "color": color,
        "width": width,
        "leaf": leaf,
        "line_width": len(str(session.line_of(len(session) - 1))),
    }
    lines = _tree_lines(session, view, remarkable(session, leaf), collapse)
    if width is not None:
        lines = [ln if _visible_width(ln) <= width else _cut(ln, width) for ln in lines]
    return "\n".join(lines) + "\n"


def _tree_lines(session, view: dict, keep: set, collapse: int) -> list[str]:
    shape, pieces = session.shape, view["pieces"]
    lines: list[str] = []
    seen = 0
    stack = [(root, "", "") for root in reversed(shape.roots)]
    while stack:
        start, lead, cont = stack.pop()
        chain = _chain(shape, start)
        seen += len(chain)
        for rank, item in enumerate(collapse_runs(chain, keep, view["fate_of"], collapse)):
            prefix = lead if rank == 0 else cont
            if isinstance(item, tuple):
                lines.append(_gap_line(session, item, prefix, view))
            else:
                lines.append(_node_line(session, item, prefix, view))
        kids = shape.children(chain[-1])
        for rank in reversed(range(len(kids))):
            last = rank == len(kids) - 1
            stack.append(
                (kids[rank], cont + pieces[1 if last else 0], cont + pieces[3 if last else 2])
            )
    if seen < len(session):
        cycles = sorted(p for loop in session.problems()["cycles"] for p in loop)
        shown = ", ".join(str(session.line_of(p)) for p in cycles[:10])
        more = ", ..." if len(cycles) > 10 else ""
        lines.append(
            f"(not in the tree: {len(session) - seen} entries in or under parent cycles, "
            f"line {shown}{more}; see pisession check)"
        )
    return lines


def _cut(line: str, width: int) -> str:
    """Truncate a line that may hold ANSI colour codes (drops the colours)."""
    return truncate(_SGR.sub("", line), width)
