"""The text of ``pisession stats`` and ``pisession check``: the statistics table, the
usage breakdown by model under it, and one line per finding. Pure functions of a session,
their rows and a ``Look`` (colour, width, ASCII); the command line only prints them.

>>> figure(11277), figure(0.02568, cost=True)
('11,277', '$0.0257')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from ..js.value import js_string
from ..tree import shown_name
from .findings import Finding
from .protocol import SessionLike
from .terminal import Look, clean, pad, text_width, wrap


def figure(value: object, cost: bool = False) -> str:
    """A usage figure as a table shows it: a number with thousands separators (a cost in
    dollars to four places), anything else as JavaScript prints it.

    >>> figure(9417), figure(0.0209, cost=True), figure("12"), figure(float("nan"))
    ('9,417', '$0.0209', '12', 'NaN')
    """
    if type(value) in (int, float) and value == value and abs(cast(float, value)) != float("inf"):
        return f"${value:,.4f}" if cost else f"{value:,}"
    return clean(js_string(value))  # Pi's odd figure, as JavaScript prints it


def finding_text(session: SessionLike, finding: Finding, look: Look) -> str:
    """One finding as ``file:line: kind: message`` (one line, as compilers write them);
    on a terminal too narrow for it, the message wraps under an indent.

    >>> import pisession
    >>> from pisession.views.findings import check
    >>> s = pisession.load(pisession.sample_path("legacy-v2"))
    >>> s.source = "legacy-v2.jsonl"
    >>> print(finding_text(s, check(s)[0], Look(width=70)), end="")
    legacy-v2.jsonl: note: legacy-version: version 2: Pi migrates the file
        to version 3 when it opens it (and rewrites it); `pisession
        migrate` writes a copy
    """
    where = session.source if finding.line is None else f"{session.source}:{finding.line}"
    label = f"note: {finding.kind}" if finding.note else finding.kind
    text = f"{clean(where)}: {label}: {clean(finding.message)}"
    lines = wrap(text, look.width, "    ")
    style = "dim" if finding.note else "magenta"
    head = f"{clean(where)}: "
    if lines[0].startswith(head + label):  # colour the kind where it stands
        lines[0] = head + look.paint(label, style) + lines[0][len(head) + len(label) :]
    return "\n".join(lines) + "\n"


def breakdown_text(by_model: Mapping[str, Any], look: Look) -> str:
    """The breakdown's lines under the ``stats`` table (``pisession usage``'s columns):
    ``by_model["session"]`` is Pi's rows (``Breakdown.pi_rows``) or ``{"error": ...}``.

    >>> rows = [{"key": "fake/fake-coder", "tokens": 9417, "cost": 0.02088}]
    >>> print(breakdown_text({"session": rows}, Look(width=60)))
    <BLANKLINE>
    by model, every entry (as Pi's /session)
    model            tokens     cost
    fake/fake-coder   9,417  $0.0209
    <BLANKLINE>
    """
    rows = by_model["session"]
    if isinstance(rows, dict):
        return "\n".join(wrap(f"by model: {clean(rows['error'])}", look.width)) + "\n"
    if not rows:
        return ""
    cells = [(clean(r["key"]), figure(r["tokens"]), figure(r["cost"], True)) for r in rows]
    widths = [
        max(text_width(c[k]) for c in [("model", "tokens", "cost"), *cells]) for k in range(3)
    ]
    lines = ["", look.paint("by model, every entry (as Pi's /session)", "bold")]
    for c in [("model", "tokens", "cost"), *cells]:
        lines.append(
            f"{pad(c[0], widths[0])}  {pad(c[1], widths[1], True)}  {pad(c[2], widths[2], True)}"
        )
    return "\n".join(look.fit(line) for line in lines) + "\n"


def stats_table(
    session: SessionLike, cells: Sequence[tuple[str, str, str]], heads: tuple[str, str, str],
    look: Look,
) -> str:  # fmt: skip
    """``pisession stats``' table: the file, the session's id and name, then the rows
    (``explain.stats_rows``) under the headings ``heads``.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> s.source = "tour.jsonl"
    >>> print(stats_table(s, [("entries", "26", "12")], ("", "whole", "branch"), Look()))
    tour.jsonl
    session 0b5e55ed-7011-4a2c-9d2e-70a15e55104e  "Tour of the session format"
    <BLANKLINE>
             whole  branch
    entries     26      12
    <BLANKLINE>
    """
    w0 = max(text_width(r[0]) for r in cells)
    w1 = max(text_width(heads[1]), *(text_width(r[1]) for r in cells))
    w2 = max(text_width(heads[2]), *(text_width(r[2]) for r in cells))
    name = f'  "{clean(shown)}"' if (shown := shown_name(session)) else ""
    out = [f"{clean(session.source)}", f"session {clean(session.id)}{name}", ""]
    head = f"{pad('', w0)}  {pad(heads[1], w1, right=True)}  {pad(heads[2], w2, right=True)}"
    out.append(look.paint(head, "bold"))
    for a, b, c in cells:
        out.append(f"{pad(a, w0)}  {pad(b, w1, right=True)}  {pad(c, w2, right=True)}")
    return "\n".join(look.fit(line) for line in out) + "\n"
