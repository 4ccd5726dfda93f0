"""The text of the folder commands: ``pisession ls``'s table, ``usage``'s table and CSV,
``search``'s hit lines. Pure functions of what ``files.list_sessions``,
``usage.scan_folder`` and ``search.search_folder`` answer and a ``Look`` (colour, width,
ASCII); the command line (``pisession.cli``) only prints them.

>>> when_text("2026-11-30T09:02:00Z")[:4]
'2026'
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from ..files import SessionInfo, _iso
from ..js.date import DateConversionError, js_time_ms
from ..locate import short_ids
from ..views.provenance import FATE
from ..views.reports import figure
from ..views.terminal import Look, clean, pad, text_width, truncate_left, wrap
from ..views.text import plural
from .search import FolderHits, Hit, Neighbour
from .usage import FolderRow, FolderUsage

#: The figures of a usage row, in the columns of the table and the CSV.
USAGE_FIGURES = ("tokens", "input", "output", "cacheRead", "cacheWrite", "cost")

#: A row of ``ls``: modified, messages, short id, title, cwd, file, and whether it is named.
LsRow = tuple[str, str, str, str, str, str, bool]


# --- ls -------------------------------------------------------------------------------


def _ls_rows(infos: Sequence[SessionInfo], shorts: list[str]) -> list[LsRow]:
    return [
        (
            i.modified.astimezone().strftime("%Y-%m-%d %H:%M") if i.modified else "Invalid Date",
            f"{i.message_count:,}",
            clean(short),
            clean(i.name) if i.name else clean(i.first_message),
            clean(i.cwd),
            clean(str(i.path)),
            bool(i.name),
        )
        for i, short in zip(infos, shorts)
    ]


def _ls_widths(rows: list[LsRow], width: int | None) -> tuple[list[int], int, int, int | None]:
    """Column widths: the fixed three, the title (at most 40), the cwd and the file
    (None: no file column). In a pipe nothing but the title is shortened; on a terminal
    the file column goes first, then the title and the cwd shrink."""
    heads = ("modified", "msgs", "id", "name / first message", "cwd", "file")
    fixed = [max(len(heads[k]), *(text_width(str(r[k])) for r in rows)) for k in range(3)]
    title_w = min(max(len(heads[3]), *(text_width(r[3]) for r in rows)), 40)
    cwd_w = max(len(heads[4]), *(text_width(r[4]) for r in rows))
    file_w = max(len(heads[5]), *(text_width(r[5]) for r in rows))
    if width is None:
        return fixed, title_w, cwd_w, file_w
    room = width - (sum(fixed) + 2 * 3)
    if title_w + 2 + cwd_w + 2 + min(file_w, 30) <= room:
        return fixed, title_w, cwd_w, min(file_w, room - title_w - cwd_w - 4)
    both = room - 2  # for the title and the cwd
    title_w = min(title_w, max(20, both - cwd_w), max(8, both - min(cwd_w, 16)))
    cwd_w = min(cwd_w, max(both - title_w, 4))
    return fixed, title_w, cwd_w, None


def ls_table(infos: Sequence[SessionInfo], shorts: list[str], look: Look) -> str:
    """Rows: modified, messages, the id's telling part, name (or first message), cwd,
    file (left out on a narrow terminal: the id opens the session as well).

    >>> from pisession.files import session_info
    >>> from pisession.samples import sample_path
    >>> info = session_info(sample_path("tour"))
    >>> print(ls_table([info], ["0b5e55ed"], Look(width=60)).splitlines()[1][16:])
        16  0b5e55ed  Tour of…  …ojects/demo-app
    """
    rows = _ls_rows(infos, shorts)
    fixed, title_w, cwd_w, file_w = _ls_widths(rows, look.width)
    heads: LsRow = ("modified", "msgs", "id", "name / first message", "cwd", "file", True)
    lines = []
    for k, r in enumerate([heads, *rows]):
        title = pad(look.cut(r[3], title_w), title_w)
        if k and not r[6]:
            title = look.paint(title, "dim")
        cells = [pad(r[0], fixed[0]), pad(r[1], fixed[1], right=True), pad(r[2], fixed[2]), title]
        cells.append(pad(truncate_left(r[4], cwd_w, look.ellipsis), cwd_w))
        if file_w is not None:
            cells.append(truncate_left(r[5], file_w, look.ellipsis))
        text = "  ".join(cells).rstrip()
        lines.append(look.paint(text, "bold") if k == 0 else text)
    if file_w is None:
        lines.append(
            "open one with: pisession explain ID (the id column; ls --json lists the files)"
        )
    return "\n".join(look.fit(line) for line in lines) + "\n"


# --- usage ----------------------------------------------------------------------------


def usage_table(usage: FolderUsage, names: list[str], root: Path, look: Look) -> str:
    """``pisession usage``'s table: a row per group and the total; the token splits
    are left out when the width cannot hold them.

    >>> from pisession.folders.usage import scan_folder
    >>> from pisession.samples import sample_path
    >>> u = scan_folder([sample_path("tour")], by="model", workers=1)
    >>> print(usage_table(u, ["fake/fake-coder", "Tools/summaries"], Path("x"), Look(width=60)),
    ...     end="")
    model            sessions  tokens     cost
    fake/fake-coder         1   9,417  $0.0209
    Tools/summaries         1   1,860  $0.0048
    total                   1  11,277  $0.0257
    every entry of 1 session, abandoned branches and compacted
    history too (as Pi's /session); --branch: the default leaf's
    path only
    """
    heads = (usage.by, "sessions", "tokens", "input", "output", "cache read", "cache write", "cost")
    rows = [_usage_cells(clean(name), r) for name, r in zip(names, usage.rows)]
    rows.append(_usage_cells("total", usage.total))
    keep = list(range(len(heads)))
    widths = [max(text_width(heads[k]), *(text_width(r[k]) for r in rows)) for k in keep]
    if look.width is not None and sum(widths) + 2 * (len(widths) - 1) > look.width:
        keep = [0, 1, 2, 7]  # group, sessions, tokens, cost
        room = look.width - sum(widths[k] for k in keep[1:]) - 2 * (len(keep) - 1)
        widths[0] = max(min(widths[0], room), 8)
    lines = []
    for n, row in enumerate([heads, *rows]):
        cells = [pad(look.cut(row[0], widths[0]), widths[0])]
        cells += [pad(row[k], widths[k], right=True) for k in keep[1:]]
        line = "  ".join(cells)
        lines.append(look.paint(line, "bold") if n in (0, len(rows)) else line)
    if not usage.rows:
        lines = [f"no usage in {clean(str(root))}"]
    note = usage_note(usage)
    return "\n".join([*(look.fit(line) for line in lines), *wrap(note, look.width)]) + "\n"


def _usage_cells(name: str, row: FolderRow) -> tuple[str, ...]:
    """A row of the usage table: the group, its sessions, then its figures."""
    return (
        name,
        f"{row.sessions:,}",
        *(figure(getattr(row, f), f == "cost") for f in USAGE_FIGURES),
    )


def usage_note(usage: FolderUsage) -> str:
    """The sentence under ``usage``'s table: what was counted, and how.

    >>> from pisession.folders.usage import scan_folder
    >>> from pisession.samples import sample_path
    >>> usage_note(scan_folder([sample_path("tour")], branch=True, workers=1))
    "the default leaf's path of 1 session"
    """
    counted = "the default leaf's path of" if usage.branch else "every entry of"
    note = f"{counted} {plural(usage.sessions, 'session')}"
    if not usage.branch:
        note += (
            ", abandoned branches and compacted history too (as Pi's /session); "
            "--branch: the default leaf's path only"
        )
    if usage.left_out:
        note += (
            f"; {plural(usage.left_out, 'copied entry', 'copied entries')} of "
            f"{plural(usage.files_with_copies, 'fork or clone', 'forks and clones')} counted "
            "once, in the session that wrote them first (--per-file: Pi's per-session figures)"
        )
    elif usage.per_file:
        note += "; each file counted as Pi's /session counts it, a fork's copies again"
    if usage.by in ("day", "week", "month") or usage.dated:
        note += f"; days in {clean(usage.zone)}"
    if usage.skipped:
        note += f"; {plural(len(usage.skipped), 'file')} skipped (see above)"
    return note


def usage_csv(usage: FolderUsage, names: list[str]) -> str:
    """``pisession usage --csv``: a row per group, the figures as they are (no total).

    >>> from pisession.folders.usage import scan_folder
    >>> from pisession.samples import sample_path
    >>> print(usage_csv(scan_folder([sample_path("tour")], workers=1), ["m", "t"]), end="")
    model,sessions,tokens,input,output,cacheRead,cacheWrite,cost
    m,1,9417,8060,157,1200,0,0.020880000000000003
    t,1,1860,1800,60,0,0,0.0048
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([usage.by, "sessions", *USAGE_FIGURES])
    for name, r in zip(names, usage.rows):
        writer.writerow([name, r.sessions, *(getattr(r, f) for f in USAGE_FIGURES)])
    return buffer.getvalue()


# --- search ---------------------------------------------------------------------------


def search_text(found: FolderHits, look: Look) -> str:
    """``pisession search``'s lines: a heading per session, then one line per hit (line,
    the entry's local time, entry id, type or role, fate, excerpt with the match marked)
    with the entries around it (``search -C``), and a count.

    >>> from pisession.folders.search import Pattern, search_folder
    >>> from pisession.samples import sample_path
    >>> print(search_text(search_folder([sample_path("tour")], Pattern("tests/"), workers=1),
    ...     Look(width=100)), end="")  # doctest: +ELLIPSIS
    0b5e55ed  "Tour of the session format"  ...
        21  2026-11-... cm000001  custom_message  off-path  Remember: tests live in «tests/».
        24  2026-11-... a5000001  assistant       kept      Added «tests/»test_util.py with test_…
    2 hits in 1 session: 1 reached the model, 1 did not (fates at each session's default leaf)
    """
    hits = found.hits
    sessions = list(dict.fromkeys(h.file for h in hits))
    shorts = dict(
        zip(sessions, short_ids([next(h.session for h in hits if h.file == f) for f in sessions]))
    )
    kinds = [clean(str(hit_kind(h))) for h in hits]
    widths = _hit_widths(hits, kinds)
    # the time column only where an excerpt of 24 columns still fits beside it
    head = 2 + max(widths[0], 4) + 2 + widths[1] + 2 + widths[2] + 2 + widths[3] + 2
    timed = look.width is None or head + 18 + 24 <= look.width
    lines: list[str] = []
    current = None
    for h, kind in zip(hits, kinds):
        if h.file != current:
            current = h.file
            name = f'  "{clean(h.name)}"' if h.name else ""
            lines.append(
                look.fit(look.paint(f"{clean(shorts[h.file])}{name}  {clean(h.file)}", "bold"))
            )
        lines += [_neighbour_line(n, look) for n in h.before]
        lines.append(_hit_line(h, kind, widths, timed, look))
        lines += [_neighbour_line(n, look) for n in h.after]
        if h.before or h.after:
            lines.append("  --")
    return "\n".join([*lines, *wrap(_search_count(found, len(sessions)), look.width)]) + "\n"


def _hit_widths(hits: Sequence[Hit], kinds: list[str]) -> tuple[int, int, int, int]:
    """The widths of the line, id, kind and fate columns."""
    return (
        max((len(str(h.line)) for h in hits), default=4),
        max((text_width(clean(str(h.id))) for h in hits), default=0),
        max((text_width(k) for k in kinds), default=0),
        max((len(h.fate) for h in hits), default=0),
    )


def _hit_line(h: Hit, kind: str, widths: tuple[int, int, int, int], timed: bool, look: Look) -> str:
    """One hit: line, time (when ``timed``), id, kind, fate, and its excerpt with the
    match marked, cut around the match to fit the width."""
    w_line, w_id, w_kind, w_fate = widths
    when = f"{when_text(h.timestamp)}  " if timed else ""
    where = f"  {h.line:>{max(w_line, 4)}}  {when}"
    where += f"{pad(clean(str(h.id)), w_id)}  {pad(kind, w_kind)}  "
    fate = look.paint(h.fate, FATE[h.fate].style) + " " * (w_fate - len(h.fate))
    text = clean(h.excerpt)
    start, end = len(clean(h.excerpt[: h.start])), len(clean(h.excerpt[: h.end]))
    room = None if look.width is None else look.width - text_width(where) - w_fate - 2
    if room is not None and text_width(text) + 2 > room:
        keep = max(room - 2, 8)
        shift = max(0, min(start - keep // 3, len(text) - keep))
        cut = text[shift : shift + keep]
        if shift > 0 and not cut.startswith(look.ellipsis):  # say where it was cut
            cut = look.ellipsis + cut[len(look.ellipsis) :]
        if shift + keep < len(text):
            cut = cut[: -len(look.ellipsis)] + look.ellipsis
        text, start, end = cut, start - shift, end - shift
        start, end = max(start, 0), max(min(end, len(text)), 0)
    left, right = look.symbol("«", "<<"), look.symbol("»", ">>")
    marked = text[:start] + look.paint(left + text[start:end] + right, "bold") + text[end:]
    return f"{where}{fate}  {marked}".rstrip()


def _search_count(found: FolderHits, sessions: int) -> str:
    """The last line of ``search``: how many hits, how many reached the model."""
    hits = found.hits
    reached = sum(1 for h in hits if h.reached)
    count = f"{plural(len(hits), 'hit')} in {plural(sessions, 'session')}"
    if hits:
        count += f": {reached:,} reached the model, {len(hits) - reached:,} did not"
        count += " (fates at each session's default leaf)"
    else:
        count = f"no hits in {plural(found.files, 'session')}"
    if found.skipped:
        count += f"; {plural(len(found.skipped), 'file')} skipped (see above)"
    return count


def hit_kind(hit: Hit | Neighbour) -> object:
    """A search hit's kind column: the role of a message, else the entry's type.

    >>> from pisession.folders.search import Neighbour
    >>> hit_kind(Neighbour(1, "a", "message", "user", None, "hi"))
    'user'
    """
    return hit.role if hit.type == "message" and isinstance(hit.role, str) else hit.type


def when_text(stamp: object) -> str:
    """An entry's timestamp as a local ``YYYY-MM-DD HH:MM`` (``?`` when it has none).

    >>> when_text(None), when_text("not a date")
    ('?', '?')
    """
    moment: datetime | None
    try:
        moment = _iso(js_time_ms(stamp)) if isinstance(stamp, str) else None
    except DateConversionError:
        moment = None
    return moment.astimezone().strftime("%Y-%m-%d %H:%M") if moment else "?"


def _neighbour_line(n: Neighbour, look: Look) -> str:
    """A neighbour of a hit (``search -C``): its line, time, id, role or type, and text."""
    line = f"  {n.line:>4}  {when_text(n.timestamp)}  {clean(str(n.id))}  "
    line += f"{clean(str(hit_kind(n)))}  " + look.symbol("·", "-") + f"  {clean(n.text)}"
    return look.paint(look.fit(line.rstrip()), "dim")
