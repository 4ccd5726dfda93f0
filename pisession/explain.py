"""``pisession explain`` as text: which entries reached the model for a leaf, and why.

Pure functions from a ``Session`` to strings, so a notebook can print the same account
the command line shows:

>>> import pisession
>>> from pisession.explain import explain_text
>>> text = explain_text(pisession.load(pisession.sample_path("tour")))
>>> "10 of 26 entries reached the model" in text
True

Every piece of session text is passed through ``pisession.terminal.clean``.
"""

from __future__ import annotations

import re

from .jsvalue import UNDEFINED, strict_equal
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
    return f"{entry_id_text(js_field(session.entry(position), 'id'))} (line {session.line_of(position)})"


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
        if strict_equal(js_field(session.entry(position), "id"), first_kept):
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
    compactions = [p for p in path if js_field(session.entry(p), "type") == "compaction"]
    if projection.compaction is None:
        rows.append(("compaction", "none on the path: the whole path is selected"))
    else:
        older = len(compactions) - 1
        extra = f" (+{older} older on the path)" if older else ""
        rows.append(("compaction", f"{_where(session, projection.compaction)}, newest{extra}"))
        kept = kept_range(session, path, projection.compaction)
        if kept:
            first, last = session.entry(kept[0]), session.entry(kept[-1])
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
    if session.diagnostics:
        lines = ", ".join(str(d.line) for d in session.diagnostics[:8])
        more = ", ..." if len(session.diagnostics) > 8 else ""
        rows.append(
            (
                "skipped",
                f"{len(session.diagnostics)} lines are not entries (line {lines}{more}); "
                "see pisession check",
            )
        )
    return rows


def fate_rows(session, fates: list[Fate], color: bool = False, ascii: bool = False) -> list:
    """One row per entry: line, id, entry kind (+ label), mark and fate, reason."""
    rows = []
    for f in fates:
        entry = session.entry(f.position)
        kind = entry_kind(entry)
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
    lines = [
        f"{reached} of {len(fates)} entries reached the model, as {messages} message{plural}."
    ]

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
    out.extend(summary_lines(fates, len(projection.context.messages), color))
    return "\n".join(out) + "\n"
