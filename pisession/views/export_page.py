"""The export's HTML page: what it shows of a leaf (``Export``: the fates, the context's
first and last messages, the settings), and the page built a piece at a time (the tree's
lines a block at a time, a long tree drawn by a helper process), so memory holds a
piece, not the page. ``pisession.views.export`` describes the export as a whole.

>>> import pisession
>>> page = export_html(pisession.load(pisession.sample_path("tour")))
>>> page.startswith("<!DOCTYPE html>") and "<script" not in page
True
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress, islice
from typing import IO, TYPE_CHECKING, Any, TypeVar

from ..engine import context as engine
from ..errors import PisessionError
from ..js.value import field as js_field
from ..js.value import plain, value_text
from ..piversions import __version__, pi_versions
from ..projection import COMPACTION, KEPT, ProjectedEntry
from ..system_prompt import SystemPrompt, replay_system_prompt
from ..tree import shown_name
from .explain import gap_counts
from .export_style import page_css
from .export_text import chip, esc, message_html, rules_text
from .export_usage import usage_meanwhile, usage_table
from .protocol import SessionLike
from .provenance import FATE, FATES, OFF_PATH
from .reasons import (
    RUN_OF,
    Gap,
    Leaves,
    explain_keep,
    file_order_items,
    header_lines,
    leaf_set,
    reading_of,
    remarkable,
)
from .redact import scanner, searches_meanwhile
from .text import entry_kind, entry_text, id_text, one_line, visible
from .tree_text import _BOX, TREE_BLOCK, decode_shown, replayable, tree_walk

if TYPE_CHECKING:
    from ..engine.parallel import _Pending
    from .provenance import Fates
    from .reasons import Reading

#: A shown entry: the number of its first message in the context, and its contribution.
Shown_item = tuple[int, ProjectedEntry]

#: What ``_tree_pieces`` makes meanwhile.
T = TypeVar("T")

#: How many messages at each end of a long context each format shows by default.
LIMITS = {"html": 200, "md": 25}

#: The most characters a GitHub issue or comment holds.
ISSUE_CHARS = 65_536

# --- what the export shows --------------------------------------------------------------


@dataclass
class Shown:
    """The context as the export shows it: how many messages it holds, the entries that
    sent its first and last ``limit`` (with the number of their first message), and the
    system messages (for the replay)."""

    total: int = 0
    head: list[Shown_item] = field(default_factory=list)
    tail: list[Shown_item] = field(default_factory=list)
    system: list[object] = field(default_factory=list)

    @property
    def hidden(self) -> int:
        """Messages neither in the head nor in the tail."""
        shown = sum(len(i.messages) for _, i in self.head) + sum(
            len(i.messages) for _, i in self.tail
        )
        return self.total - shown


def _kept(item: ProjectedEntry) -> bool:
    """Whether the context view shows a contributed entry: it sends messages, or a
    context edit removed what it would send."""
    return bool(item.messages) or item.edit is not None


def shown_context(session: SessionLike, fates: Fates, limit: int | None = 200) -> Shown:
    """The rule's contributions for the leaf (``context.contributions``, streamed) for
    the first and last ``limit`` messages (None: all), and every system message. Only
    the entries shown (and the system messages between) are decoded: the message count
    and where the last ``limit`` begin come from the fates.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> shown = shown_context(s, s.fates(), limit=2)
    >>> shown.total, [first for first, _ in shown.head], shown.hidden, len(shown.system)
    (10, [0], 6, 1)
    """
    index, selection, edits = session.index, fates.selection, fates.steps.edits
    shown = Shown(total=fates.message_count())
    if limit is None or shown.total <= 2 * limit:
        _take(session, engine.contributions(index, selection, edits), shown.head, 0, None)
        shown.system = _system_messages(shown.head)
        return shown
    head_end = _take(session, engine.contributions(index, selection, edits), shown.head, 0, limit)
    start = max(_tail_rank(fates, limit), head_end)
    tail: list[Shown_item] = []
    _take(session, engine.contributions(index, selection, edits, start=start), tail, 0, None)
    first = shown.total - sum(len(item.messages) for _, item in tail)
    shown.tail = [(first + k, item) for k, item in tail]
    middle = _middle_system(session, fates, head_end, start)
    shown.system = _system_messages(shown.head) + middle + _system_messages(shown.tail)
    return shown


def _take(
    session: SessionLike,
    items: Iterable[ProjectedEntry],
    into: list[Shown_item],
    first: int,
    limit: int | None,
) -> int:
    """Append shown entries (with the number of their first message) until ``limit``
    messages; returns how many selected entries were read."""
    count, read = first, 0
    for item in items:
        if limit is not None and count - first >= limit:
            break
        read += 1
        if not _kept(item):
            continue
        item.line = session.line_of(item.position)
        into.append((count, item))
        count += len(item.messages)
    return read


def _tail_rank(fates: Fates, limit: int) -> int:
    """The rank in the selection from which the entries send the last ``limit``
    messages (read off the fates: how many messages each sent)."""
    positions, names = fates.selection.positions, fates.names
    count = 0
    for rank in range(len(positions) - 1, -1, -1):
        if count >= limit:  # the entries after this one send them
            return rank + 1
        if FATE[names[positions[rank]]].reached:
            count += fates[positions[rank]].messages
    return 0


def _replayed(shown: Shown) -> tuple[SystemPrompt | None, str | None]:
    """The system prompt replayed from the context's system messages, or why not."""
    try:
        return replay_system_prompt(shown.system), None
    except PisessionError as exc:
        return None, str(exc)


def _system_messages(items: Iterable[Shown_item]) -> list[object]:
    return [m for _, item in items for m in item.messages if js_field(m, "role") == "system"]


def _middle_system(session: SessionLike, fates: Fates, low: int, high: int) -> list[object]:
    """The system messages the entries between ranks ``low`` and ``high`` send, each
    taken from the rule's contribution of its entry."""
    selection, edits = fates.selection, fates.steps.edits
    positions = selection.positions
    # ``Fates.sends_system`` asked only of the entries that may send one
    may = fates.may_send_system(positions[low:high])
    out: list[object] = []
    for rank in compress(range(low, high), may):
        if fates.sends_system(positions[rank]):
            item = next(engine.contributions(session.index, selection, edits, block=1, start=rank))
            out.extend(m for m in item.messages if js_field(m, "role") == "system")
    return out


@dataclass
class Export:
    """Everything an export of one leaf shows (built once for both formats)."""

    session: SessionLike
    leaf_id: object
    fates: Fates
    reading: Reading
    shown: Shown
    limit: int | None
    full_path: bool = False

    @classmethod
    def of(
        cls,
        session: SessionLike,
        leaf_id: object = None,
        limit: int | None = 200,
        full_path: bool = False,
    ) -> Export:
        """Read a leaf's fates, context and settings."""
        fates = session.fates(leaf_id)
        return cls(
            session,
            leaf_id,
            fates,
            reading_of(fates),
            shown_context(session, fates, limit),
            limit,
            full_path,
        )

    def facts(self) -> list[tuple[str, str]]:
        """The page's header rows (``explain``'s), the file named by its name only
        unless ``full_path``: a page to share does not tell where its author keeps files.

        >>> import pisession
        >>> Export.of(pisession.load(pisession.sample_path("tour"))).facts()[0]
        ('file', 'tour.jsonl')
        """
        rows = header_lines(self.session, self.reading, self.leaf_id)
        if self.full_path:
            return rows
        name = visible(re.split(r"[/\\]", str(self.session.source))[-1])
        return [(key, name if key == "file" else value) for key, value in rows]

    @cached_property
    def counts(self) -> dict[str, int]:
        """How many entries have each fate (``Fates.counts``), counted once for the
        summary and the tree's legend."""
        return self.fates.counts()

    @property
    def leaf(self) -> int | None:
        """Position of the leaf."""
        return self.reading.path[-1] if self.reading.path else None

    @property
    def title(self) -> str:
        """The session name, else its id."""
        return shown_name(self.session) or f"Session {self.session.id}"

    def _repr_html_(self) -> str:
        return html_fragment(self)


def _where(session: SessionLike, position: int | None) -> str:
    if position is None:
        return "none"
    return f"{id_text(session.index.ids[position])} (line {session.line_of(position)})"


# --- HTML -----------------------------------------------------------------------------------


def _message_card(ex: Export, number: int, message: object, item: ProjectedEntry) -> str:
    session = ex.session
    role = plain(js_field(message, "role"))
    fate = ex.fates.names[item.position]
    source = f"{esc(id_text(item.id))} (line {item.line})"
    head = f"<header><b>#{number} {esc(role)}</b> · from {source} · {chip(fate)}</header>"
    body = message_html(message)
    if item.edit is not None:
        body = _edited(session, item, message, body)
    return f'<article class="msg m-{fate}">{head}{body}</article>'


def _edited(session: SessionLike, item: ProjectedEntry, message: object, body: str) -> str:
    """The content as sent beside the content the entry holds (before the edit)."""
    originals = item.unedited or []
    original = next(
        (m for m in originals if js_field(m, "role") == js_field(message, "role")), None
    )
    edit = f"context edit {esc(id_text(js_field(item.edit, 'id')))}"
    was = message_html(original) if original is not None else "<i>(nothing)</i>"
    return (
        f'<div class="edit"><div><small>as sent, after {edit}</small>{body}</div>'
        f'<div class="was"><small>as stored in the file</small>{was}</div></div>'
    )


def _omitted_card(ex: Export, item: ProjectedEntry) -> str:
    originals = item.unedited or []
    edit = esc(id_text(js_field(item.edit, "id")))
    was = "".join(message_html(m) for m in originals) or "<i>(nothing)</i>"
    return (
        f'<article class="msg m-omitted"><header><b>omitted</b> · {esc(id_text(item.id))} '
        f"(line {item.line}) · {chip('omitted')} by context edit {edit}</header>"
        f'<details><summary>what the file holds</summary><div class="was">{was}</div>'
        "</details></article>"
    )


def _items_html(ex: Export, items: Iterable[Shown_item], state: dict[str, bool]) -> list[str]:
    """Context messages of these entries, with the kept range's start and end marked."""
    out = []
    for first, item in items:
        if item.part == KEPT and not state["in_kept"]:
            out.append(_kept_band(ex, start=True))
            state["in_kept"] = True
        elif item.part != KEPT and state["in_kept"]:
            out.append('<div class="band">end of the kept range</div>')
            state["in_kept"] = False
        if item.part == COMPACTION:
            out.append(_compaction_band(ex))
        if not item.messages:
            out.append(_omitted_card(ex, item))
        for k, message in enumerate(item.messages):
            out.append(_message_card(ex, first + k + 1, message, item))
        out.extend(_written_card(call, name) for call, name in _inserted(ex, item))
    return out


def _inserted(ex: Export, item: ProjectedEntry) -> list[tuple[object, object]]:
    """The tool results pi-ai writes into the request after this entry's messages."""
    step = ex.fates.request
    return [] if step is None else step.inserted.get(item.position, [])


def _written_card(call_id: object, tool_name: object) -> str:
    """A tool result pi-ai writes for a call without one: not in the file, but sent."""
    call = f"{esc(id_text(call_id))} ({esc(value_text(tool_name))})"
    return (
        f'<article class="msg m-sent"><header><b>+ toolResult</b> · written by pi-ai, not '
        f"in the file · {chip('sent')}</header><p>&quot;No result provided&quot; (isError) "
        f"for call {call}, which has no result</p></article>"
    )


def _kept_band(ex: Export, start: bool) -> str:
    session, selection, path = ex.session, ex.reading.selection, ex.reading.path
    kept = path[selection.start : selection.cut]
    lines = f"lines {session.line_of(kept[0])}-{session.line_of(kept[-1])}" if kept else ""
    dropped = ", ".join(_where(session, p) for p in selection.dropped_system)
    note = f"; system messages dropped there: {esc(dropped)}" if dropped else ""
    c = esc(_where(session, selection.compaction))
    return f'<div class="band">the kept range of compaction {c}: {lines}{note}</div>'


def _compaction_band(ex: Export) -> str:
    session, selection, path = ex.session, ex.reading.selection, ex.reading.path
    before = path[: selection.start]
    where = esc(_where(session, selection.compaction))
    span = ""
    if before:
        span = f" for lines {session.line_of(before[0])}-{session.line_of(before[-1])}"
    return (
        f'<div class="band">compaction {where}: its summary stands{span} '
        "(and its stored system message, if any, comes first)</div>"
    )


def context_html(ex: Export) -> str:
    """The context section: the replayed system prompt, then every message shown.

    >>> import pisession
    >>> html_text = context_html(Export.of(pisession.load(pisession.sample_path("tour"))))
    >>> html_text.count('<article class="msg'), "end of the kept range" in html_text
    (10, True)
    """
    shown, session = ex.shown, ex.session
    prompt, problem = _replayed(shown)
    out = [f"<h2 id=context>The context at {esc(_where(session, ex.leaf))}</h2>"]
    out.append(
        f"<p>{shown.total:,} messages, as Pi {pi_versions()['primary']} builds them "
        "(<code>buildSessionContext</code>): what the model was sent.</p>"
    )
    if problem:
        out.append(f"<p><i>The system prompt cannot be replayed: {esc(problem)}</i></p>")
    elif prompt is not None and (prompt.text or prompt.tools):
        tools = ", ".join(esc(name) for name in prompt.tools) or "none"
        out.append(
            "<details><summary>The system prompt in force (replayed from the system messages; "
            f"tools: {tools})</summary><pre>{esc(prompt.text)}</pre></details>"
        )
    state = {"in_kept": False}
    out.extend(_items_html(ex, shown.head, state))
    if shown.hidden:
        out.append(
            f'<p class="gap">{shown.hidden:,} more messages not shown here '
            "(<code>pisession export --all</code> or <code>pisession context</code> has them)</p>"
        )
    out.extend(_items_html(ex, shown.tail, state))
    if state["in_kept"]:
        out.append('<div class="band">end of the kept range</div>')
    return "\n".join(out)


class _TreeDrawing:
    """How the tree's lines are drawn as HTML (``tree_lines``): an entry's line is its
    line number, the drawing before it, the mark and fate, its id and kind, label and
    leaf marks, and a preview of its text. What many lines share (a fate's chip, a
    kind's words) is made once."""

    def __init__(self, ex: Export, width: int, shown: dict[int, object]) -> None:
        self.width, self.shown = width, shown  # (``decode_shown``'s entries)
        self.session, self.index, self.names = ex.session, ex.session.index, ex.fates.names
        self.leaf, self.leaves = ex.leaf, _leaves(ex)
        self.labelled = bool(ex.session.labels)
        self.marks: dict[str, str] = {}  # fate -> mark and chip
        self.kinds: dict[tuple[object, object], str] = {}  # (type, role) -> kind

    def line(self, item: int | Gap, lead: str) -> str:
        """The line of one of ``tree_walk``'s items."""
        if isinstance(item, Gap):
            counts = gap_counts(self.names, item)
            gap = f"┆ {item.hidden:,} more entries: {counts}"
            return f'{" " * self.width} {lead}<span class="gap">{gap}</span>'
        number = str(self.session.line_of(item)).rjust(self.width)
        return self.node(item, lead, f'<span class="n">{number}</span>')

    def node(self, position: int, lead: str, number: str) -> str:
        """An entry's line, after its ``number``."""
        session = self.session
        fate = self.names[position]
        marked = self.marks.get(fate)
        if marked is None:
            marked = self.marks[fate] = f"{'○' if fate == OFF_PATH else '●'} {chip(fate)}"
        entry_id = self.index.ids[position]
        if type(entry_id) is str and entry_id.isalnum():  # (the usual id: nothing to escape)
            shown_id = entry_id
        elif type(entry_id) is str and entry_id.isprintable():  # esc(id_text(...)) of it
            shown_id = html.escape(entry_id)
        else:
            shown_id = esc(id_text(entry_id))
        parts = [f"{number} {lead}{marked} {shown_id} {self.kind(position)}"]
        if self.labelled:
            label = session.label_of(position)
            if label is not None:
                parts.append(f"<b>#{esc(label)}</b>")
        if position == self.leaf:
            parts.append('<span class="leaf">◀ leaf</span>')
        elif position in self.leaves:
            parts.append("◁ leaf")
        snippet = one_line(entry_text(self.shown[position], 400)[:400], 60)
        if snippet:
            parts.append(f'<span class="n">“{esc(snippet)}”</span>')
        return " ".join(parts)

    def kind(self, position: int) -> str:
        """The entry's kind, escaped (made once for each type and role that are text)."""
        key = (self.index.types[position], self.index.roles[position])
        if type(key[0]) is not str or type(key[1]) is not str:
            return esc(entry_kind(*key))
        kind = self.kinds.get(key)
        if kind is None:
            kind = self.kinds[key] = esc(entry_kind(*key))
        return kind


def _leaves(ex: Export) -> frozenset[int] | Leaves:
    """The tree's leaves (cached on the export)."""
    cached = getattr(ex, "_leaves", None)
    if cached is None:
        cached = leaf_set(ex.session.shape)
        ex._leaves = cached  # type: ignore[attr-defined]
    return cached


def tree_items(ex: Export, collapse: int = 12) -> list[tuple[Any, ...]]:
    """The tree's lines before drawing: ``explain.tree_walk``'s ``(item, lead, cont)``.

    >>> import pisession
    >>> len(tree_items(Export.of(pisession.load(pisession.sample_path("tour")))))
    26
    """
    keep = remarkable(ex.session, ex.leaf)
    return list(tree_walk(ex.session, ex.fates.names, keep, collapse, _BOX))


def tree_lines(ex: Export, items: list[tuple[Any, ...]]) -> list[str]:
    """Some of the tree's lines as HTML (the entries they show decoded together first).

    >>> import pisession
    >>> ex = Export.of(pisession.load(pisession.sample_path("tour")))
    >>> tree_lines(ex, tree_items(ex)[:1])[0].split("</span>")[:2]
    ['<span class="n"> 2', ' ● <span class="chip f-summarized">summarized']
    """
    session = ex.session
    width = len(str(session.line_of(len(session) - 1))) if len(session) else 1
    line = _TreeDrawing(ex, width, decode_shown(session, items)).line
    return [line(item, lead) for item, lead, _ in items]


def tree_section(ex: Export, lines: list[str], collapse: int) -> str:
    """The tree's section of the page around its ``lines``: heading, legend, how to
    read it; folded when long."""
    head, tail = _tree_section_ends(ex, len(lines), collapse)
    return head + "\n".join(lines) + tail


def _tree_section_ends(ex: Export, count: int, collapse: int) -> tuple[str, str]:
    """What ``tree_section`` writes before and after the tree's ``count`` lines."""
    counts = ex.counts
    legend = " ".join(chip(k.name, k.legend) for k in FATES if counts[k.name])
    head = (
        f"<h2 id=tree>The entry tree</h2><p class=legend>{legend}</p>"
        f"<p>● on the path to the leaf, ○ on other branches; ◀ the leaf shown, ◁ other "
        f"branch ends. Runs of more than {collapse} entries of one fate are shortened.</p>"
    )
    if count > 400:
        return f"{head}<details><summary>{count:,} lines (open)</summary>" + (
            '<div class="tree mono">'
        ), "</div></details>"
    return head + '<div class="tree mono">', "</div>"


def _rows(ex: Export, collapse: int) -> list[int | Gap]:
    """The entries the tables show (file order, runs collapsed as ``explain`` does)."""
    keep = explain_keep(ex.session, ex.fates)
    return file_order_items(ex.fates.names, keep, collapse, RUN_OF)


def entries_html(ex: Export, collapse: int = 12) -> str:
    """Every entry with its fate and reason (runs collapsed).

    >>> import pisession
    >>> entries_html(Export.of(pisession.load(pisession.sample_path("tour")))).count("<tr>")
    27
    """
    session, fates = ex.session, ex.fates
    index = session.index
    body = []
    for item in _rows(ex, collapse):
        if isinstance(item, Gap):
            lines = item.lines(session.line_of)
            body.append(
                f'<tr><td colspan=5 class="gap">┆ {item.hidden:,} more entries: '
                f"{gap_counts(fates.names, item)} ({lines})</td></tr>"
            )
            continue
        fate = fates[item]
        kind = entry_kind(index.types[item], index.roles[item])
        label = session.label_of(item)
        kind_cell = esc(kind) + (f" <b>#{esc(label)}</b>" if label is not None else "")
        body.append(
            f'<tr><td class="num">{fate.line}</td><td class="mono key">{esc(id_text(fate.id))}'
            f'</td><td class="key">{kind_cell}</td><td>{chip(fate.fate)}</td>'
            f'<td class="why">{esc(fate.reason)}</td></tr>'
        )
    head = "<tr><th class=num>line</th><th>id</th><th>entry</th><th>fate</th><th>why</th></tr>"
    return (
        "<h2 id=entries>Every entry, with its fate</h2>"
        f'<div class="scroll"><table class=entries><thead>{head}</thead>'
        f"<tbody>{''.join(body)}</tbody>"
        "</table></div>"
    )


def usage_html(ex: Export) -> str:
    """Usage and cost for the whole session and for the branch to the leaf.

    >>> import pisession
    >>> "$0.0257" in usage_html(Export.of(pisession.load(pisession.sample_path("tour"))))
    True
    """
    return usage_table(ex.session, ex.leaf_id)


def summary_html(ex: Export) -> str:
    """The header: what the session is, the leaf, the kept range, the counts.

    >>> import pisession
    >>> summary_html(Export.of(pisession.load(pisession.sample_path("tour"))))[:39]
    '<h1>Tour of the session format</h1><dl>'
    """
    facts = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in ex.facts())
    counts = ex.counts
    reached = ex.fates.reached()
    chips = " ".join(chip(k.name, f"{k.name} {counts[k.name]:,}") for k in FATES if counts[k.name])
    return (
        f"<h1>{esc(ex.title)}</h1><dl>{facts}</dl>"
        f"<p><b>{reached:,} of {len(ex.fates):,} entries reached the model</b>, as "
        f"{ex.reading.messages:,} messages. {chips}</p>{_request_html(ex)}"
        '<nav><a href="#tree">tree</a> · <a href="#context">context</a> · '
        '<a href="#usage">usage and cost</a> · <a href="#entries">every entry</a></nav>'
    )


def _request_html(ex: Export) -> str:
    sentence = ex.fates.request.sentence() if ex.fates.request is not None else ""
    return f"<p>{esc(sentence)}</p>" if sentence else ""


def html_fragment(ex: Export, collapse: int = 12) -> str:
    """The export as an HTML fragment (styles scoped to ``.pe``): for a notebook cell, or
    the body of ``export_html``'s page.

    >>> import pisession
    >>> html_fragment(Export.of(pisession.load(pisession.sample_path("tour"))))[:7]
    '<style>'
    """
    return "".join(fragment_chunks(ex, collapse))


def fragment_chunks(
    ex: Export, collapse: int = 12, showing: list[str] | None = None
) -> Iterator[str]:
    """``html_fragment`` a piece at a time, the tree's lines a block at a time, each
    written as it is drawn: memory holds a block, not the page. With a list
    ``showing``, each piece (each block of the tree's lines) is looked at for likely
    secrets as it is made (``redact.shows_secrets``), and those that show some are
    appended to it in page order.

    >>> import pisession
    >>> ex = Export.of(pisession.load(pisession.sample_path("tour")))
    >>> showing: list[str] = []
    >>> "".join(fragment_chunks(ex, showing=showing)) == html_fragment(ex), showing
    (True, [])
    """
    return _pieces(ex, collapse, showing)


def _pieces(
    ex: Export,
    collapse: int,
    showing: list[str] | None,
    before: str = "",
    after: str = "",
    usage: _Pending[str] | None = None,
) -> Iterator[str]:
    """``fragment_chunks``, with ``before`` and ``after`` written with its first and
    last piece (the page's ends); ``usage``: the usage table, when already asked for
    (``export_usage.usage_meanwhile``)."""
    from ..engine.parallel import BIG_SESSION

    # when the session is big, helper processes make the usage table and the last part
    # of the tree's lines (into a temporary file) meanwhile, while this one writes the
    # first part as it draws it and makes the other parts
    big = len(ex.session) >= BIG_SESSION
    usage = usage or usage_meanwhile(ex.session, ex.leaf_id)
    walk, count, _ = replayable(lambda: _tree_walk(ex, collapse))
    split = count * MAIN_SHARE // 100 if big else count
    head, tail = _tree_section_ends(ex, count, collapse)
    scan = scanner(showing)  # (the secret shapes taken here, before a helper is forked)

    def lead() -> tuple[str, str]:
        css = f"<style>{page_css()}</style>\n"
        return before + css + '<div class="pe">\n' + summary_html(ex) + "\n", head

    def rest() -> tuple[str, str]:
        return context_html(ex), entries_html(ex, collapse)

    context, entries = yield from _tree_pieces(ex, walk, (count, split), scan, showing, lead, rest)
    yield scan(tail)
    for part in (context, usage.result(), entries):
        yield "\n" + scan(part)
    yield scan(
        f"\n<footer>Written by pisession {__version__} with {rules_text()}. This page "
        "loads nothing: no script, font or picture comes "
        "from elsewhere.</footer>\n</div>" + after
    )


def _tree_pieces(
    ex: Export,
    walk: Callable[[], Iterator[tuple[Any, ...]]],
    split: tuple[int, int],
    scan: Callable[[str], str],
    showing: list[str] | None,
    lead: Callable[[], tuple[str, ...]],
    meanwhile: Callable[[], T],
) -> Generator[str, None, T]:
    """The pieces ``lead()`` makes, then the tree's lines (``split``: how many, and how
    many of them are drawn here): the first drawn here as they are written, the rest
    drawn by a helper process into a temporary file and copied out after them (the
    blocks it found showing likely secrets added to ``showing``). Returns what
    ``meanwhile()`` makes here while the helper draws (both made once it is started)."""
    import tempfile

    from ..engine.parallel import in_child
    from ..engine.stream import text_pieces

    count, here = split
    with tempfile.TemporaryFile() as spill:
        drawn = in_child(
            _tree_into, ex, walk, here, None, spill, showing is not None, fork=here < count
        )
        yield from map(scan, lead())
        for first, block in _tree_blocks(ex, islice(walk(), here)):
            yield ("" if first else "\n") + scan(block)
        made = meanwhile()
        if here < count:
            found = drawn.result()
            if showing is not None:
                showing.extend(found)
            spill.seek(0)
            yield from text_pieces(spill)
    return made


#: The share of a big tree's lines (in percent) this process draws; a helper draws the
#: rest meanwhile. This process also makes and writes every other part of the page.
MAIN_SHARE = 43


def _tree_walk(ex: Export, collapse: int) -> Iterator[tuple[Any, ...]]:
    """``tree_items``, one at a time."""
    return tree_walk(ex.session, ex.fates.names, remarkable(ex.session, ex.leaf), collapse, _BOX)


def _tree_blocks(ex: Export, items: Iterator[tuple[Any, ...]]) -> Iterator[tuple[bool, str]]:
    """(first block?, its lines as HTML joined by newlines), ``TREE_BLOCK`` items at a
    time; the entries of a block are forgotten once drawn."""
    first = True
    while block := list(islice(items, TREE_BLOCK)):
        yield first, "\n".join(tree_lines(ex, block))
        ex.session.forget([item for item, _, _ in block if not isinstance(item, Gap)])
        first = False


def _tree_into(
    ex: Export,
    walk: Callable[[], Iterator[tuple[Any, ...]]],
    start: int,
    stop: int | None,
    out: IO[bytes],
    scan: bool = False,
) -> list[str]:
    """The tree's lines from item ``start`` to ``stop`` (of the items ``walk()`` gives),
    written to the file ``out``, each after a newline but the page's first; with
    ``scan``, the blocks that show likely secrets (by a helper process, or here: again
    from the start of the file if it has to be done here)."""
    out.seek(0)
    out.truncate()
    showing: list[str] = []
    keep = scanner(showing if scan else None)
    for first, block in _tree_blocks(ex, islice(walk(), start, stop)):
        out.write((("" if first and not start else "\n") + keep(block)).encode("utf-8"))
    out.flush()
    return showing


#: The page forbids every request: styles are inline, pictures are data: URIs.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; form-action 'none'"


def export_html(
    session: SessionLike,
    leaf_id: object = None,
    limit: int | None = LIMITS["html"],
    full_path: bool = False,
) -> str:
    """The session as one self-contained HTML page for the leaf ``leaf_id`` (None:
    Pi's default), showing the first and last ``limit`` context messages (None: all);
    the file by its name only unless ``full_path``.

    >>> import pisession
    >>> page = export_html(pisession.load(pisession.sample_path("tour")), "a7000001")
    >>> "The context at a7000001 (line 20)" in page
    True
    """
    return "".join(export_html_chunks(session, leaf_id, limit, full_path))


def export_html_chunks(
    session: SessionLike,
    leaf_id: object = None,
    limit: int | None = LIMITS["html"],
    full_path: bool = False,
    showing: list[str] | None = None,
) -> Iterator[str]:
    """``export_html`` a piece at a time (``fragment_chunks``), to write as it comes;
    the pieces that show likely secrets appended to ``showing`` when it is a list.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> "".join(export_html_chunks(s)) == export_html(s)
    True
    """
    from ..engine.parallel import BIG_SESSION

    # the secret shapes' helper (at the lowest priority) starts first: it needs no fates
    if showing is not None and len(session) >= BIG_SESSION:
        searches_meanwhile()
    # and the usage table's before the fates (which take 1 s of the 1M chain's page)
    usage = usage_meanwhile(session, leaf_id)
    ex = Export.of(session, leaf_id, limit, full_path)
    start = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{esc(ex.title)} - pisession</title>\n</head><body>\n"
    )
    return _pieces(ex, 12, showing, start, "\n</body></html>\n", usage)


# --- Markdown ----------------------------------------------------------------------------
