"""Two leaves of one session compared: where their paths part, and which messages of
their two contexts are shared, only in one of them, or sent by both with different
content (a context edit applied on one branch only, or different edits).

``compare`` is a pure function of two projections (``Session.projection``); it reads
what the rule built and decides nothing about what reaches the model.
``Session.diff(a, b)`` calls it for two leaf ids.

>>> import pisession
>>> d = pisession.load(pisession.sample_path("tour")).diff("a6000001", "a7000001")
>>> d.counts()
{'shared': 0, 'only-a': 10, 'only-b': 8, 'edited-differently': 0}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

from ..js.value import UNDEFINED
from ..js.value import field as js_field
from .explain_json import json_id
from .reasons import header_text
from .terminal import Look, pad, text_width
from .text import id_text, kind_of, message_text, plural, visible

if TYPE_CHECKING:
    from ..projection import ProjectedEntry, Projection
    from .protocol import SessionLike
    from .request_entries import RequestStep

#: A JSON object as ``pisession diff --json`` prints it (any JSON values).
JSONObject = dict[str, Any]
#: Where an entry's messages are in a context: ``(start, stop)``.
Span = tuple[int, int]

#: Column widths of the rows: line, id, A's messages, B's messages.
_Widths = tuple[int, int, int, int]

SHARED, ONLY_A, ONLY_B, CHANGED = "shared", "only-a", "only-b", "edited-differently"

#: Marks of the four kinds of row, as ``diff -u`` marks lines.
MARKS = {SHARED: "=", ONLY_A: "-", ONLY_B: "+", CHANGED: "~"}

#: The kinds in the order counts list them.
KINDS = (SHARED, ONLY_A, ONLY_B, CHANGED)


@dataclass(frozen=True)
class Part:
    """One selected entry that sends messages in A, in B or in both: which of the four
    kinds it is, and the range of its messages in each context (``(start, stop)``,
    None where it sends nothing)."""

    kind: str
    position: int
    line: int | None
    id: object
    entry: object
    a: tuple[int, int] | None
    b: tuple[int, int] | None
    first_message: object = None

    @property
    def messages(self) -> int:
        """How many messages the entry sends (in A, or in B for an only-B entry).

        >>> Part("only-b", 3, 4, "a1", {}, None, (2, 5)).messages
        3
        """
        span = self.a or self.b
        return 0 if span is None else span[1] - span[0]


@dataclass(frozen=True)
class Fork:
    """Where the two paths part: how many entries they share from the root, the last of
    them (None: no shared entry), and the two path lengths."""

    shared: int
    last_shared: int | None
    a_length: int
    b_length: int

    @property
    def relation(self) -> str:
        """``same``, ``a-on-b`` (A's leaf is on B's path), ``b-on-a``, ``branches`` (they
        part after a shared entry) or ``separate`` (no shared entry: two roots).

        >>> Fork(2, 1, 4, 3).relation, Fork(0, None, 2, 2).relation
        ('branches', 'separate')
        """
        if self.shared == self.a_length == self.b_length:
            return "same"
        if self.shared == self.a_length:
            return "a-on-b"
        if self.shared == self.b_length:
            return "b-on-a"
        return "branches" if self.shared else "separate"


@dataclass
class LeafDiff:
    """Two contexts compared, entry by entry (``parts``, in context order)."""

    leaf_a: int | None
    leaf_b: int | None
    fork: Fork
    parts: list[Part] = field(default_factory=list)
    messages_a: int = 0
    messages_b: int = 0
    #: pi-ai's request step at each leaf (``request_entries.RequestStep``; None: not known)
    request_a: RequestStep | None = None
    request_b: RequestStep | None = None

    def __repr__(self) -> str:
        """A one-line summary (``to_dict()`` or the HTML view for every entry).

        >>> import pisession
        >>> session = pisession.load(pisession.sample_path("tour"))
        >>> session.diff(*[session.index.ids[leaf] for leaf in session.leaves()])
        ... # doctest: +ELLIPSIS
        <LeafDiff of positions 19 and 25: branches, ... entries shared; messages: ...>
        """
        counts = ", ".join(f"{kind} {n}" for kind, n in self.counts().items() if n)
        return (
            f"<LeafDiff of positions {self.leaf_a} and {self.leaf_b}: {self.fork.relation}, "
            f"{self.fork.shared} entries shared; messages: {counts or 'none'}>"
        )

    def counts(self) -> dict[str, int]:
        """Messages of each kind (shared and edited-differently counted once, as in A).

        >>> LeafDiff(1, 2, Fork(1, 0, 2, 2), [Part("only-a", 1, 2, "a", {}, (0, 2), None)]).counts()
        {'shared': 0, 'only-a': 2, 'only-b': 0, 'edited-differently': 0}
        """
        counts = dict.fromkeys(KINDS, 0)
        for part in self.parts:
            counts[part.kind] += part.messages
        return counts

    def to_dict(self, session: SessionLike | None = None) -> JSONObject:
        """JSON-ready data (``pisession diff --json``); ``session`` adds ids and lines.

        >>> import pisession
        >>> s = pisession.load(pisession.sample_path("tour"))
        >>> s.diff("a6000001", "a7000001").to_dict(s)["fork"]["relation"]
        'branches'
        """
        return {
            "a": _side(session, self.leaf_a, self.fork.a_length, self.messages_a),
            "b": _side(session, self.leaf_b, self.fork.b_length, self.messages_b),
            "fork": {
                "sharedEntries": self.fork.shared,
                "lastShared": _entry_ref(session, self.fork.last_shared),
                "relation": self.fork.relation,
            },
            "counts": self.counts(),
            "request": {"a": _request_data(self.request_a), "b": _request_data(self.request_b)},
            "entries": [_part_data(part) for part in self.parts],
        }


def _request_data(step: RequestStep | None) -> JSONObject | None:
    """What pi-ai's request step does at a leaf, as JSON-ready data."""
    if step is None:
        return None
    written = sum(len(calls) for calls in step.written.values())
    return {"messages": step.messages, "leftOut": len(step.left_out), "written": written}


def _entry_ref(session: SessionLike | None, position: int | None) -> JSONObject | None:
    if position is None:
        return None
    if session is None:
        return {"position": position}
    value = session.index.ids[position]
    return {"id": None if value is UNDEFINED else value, "line": session.line_of(position)}


def _side(session: SessionLike | None, leaf: int | None, path: int, messages: int) -> JSONObject:
    return {"leaf": _entry_ref(session, leaf), "pathEntries": path, "messages": messages}


def _part_data(part: Part) -> JSONObject:
    return {
        "kind": part.kind,
        "line": part.line,
        "id": part.id,
        "type": json_id(js_field(part.entry, "type")) if isinstance(part.entry, dict) else None,
        "a": list(part.a) if part.a else None,
        "b": list(part.b) if part.b else None,
    }


def fork_of(path_a: list[int], path_b: list[int]) -> Fork:
    """Where two paths (root first) part.

    >>> fork_of([0, 1, 2, 5], [0, 1, 3])
    Fork(shared=2, last_shared=1, a_length=4, b_length=3)
    """
    shared = 0
    for x, y in zip(path_a, path_b):
        if x != y:
            break
        shared += 1
    last = path_a[shared - 1] if shared else None
    return Fork(shared, last, len(path_a), len(path_b))


def _senders(
    projection: Projection,
) -> tuple[list[int], dict[int, Span], dict[int, ProjectedEntry]]:
    """Positions of the entries that send messages (context order), their message
    ranges, and the items themselves."""
    order: list[int] = []
    spans: dict[int, Span] = {}
    items: dict[int, ProjectedEntry] = {}
    count = 0
    for item in projection.items:
        if not item.messages or item.position in spans:
            continue
        order.append(item.position)
        spans[item.position] = (count, count + len(item.messages))
        items[item.position] = item
        count += len(item.messages)
    return order, spans, items


def _part(kind: str, item: ProjectedEntry, a: Span | None, b: Span | None) -> Part:
    return Part(kind, item.position, item.line, item.id, item.entry, a, b, item.messages[0])


def compare(a: Projection, b: Projection) -> LeafDiff:
    """Compare two projections (``Session.projection``) of one session.

    Entries are matched by position, in context order (a longest common subsequence,
    so an entry both contexts send is one row); a matched entry is ``shared`` when it
    sends equal messages in both, ``edited-differently`` otherwise.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> d = compare(s.projection("a2000001"), s.projection("a7000001"))
    >>> d.fork.relation, d.counts()["shared"], d.counts()["only-b"]
    ('a-on-b', 5, 3)
    """
    order_a, spans_a, items_a = _senders(a)
    order_b, spans_b, items_b = _senders(b)
    parts: list[Part] = []
    matcher = SequenceMatcher(None, order_a, order_b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for p in order_a[i1:i2]:
                same = items_a[p].messages == items_b[p].messages
                parts.append(_part(SHARED if same else CHANGED, items_a[p], spans_a[p], spans_b[p]))
            continue
        parts.extend(_part(ONLY_A, items_a[p], spans_a[p], None) for p in order_a[i1:i2])
        parts.extend(_part(ONLY_B, items_b[p], None, spans_b[p]) for p in order_b[j1:j2])
    leaf_a = a.path[-1] if a.path else None
    leaf_b = b.path[-1] if b.path else None
    fork = fork_of(a.path, b.path)
    return LeafDiff(leaf_a, leaf_b, fork, parts, len(a.messages), len(b.messages))


def diff_leaves(session: SessionLike, leaf_a: object, leaf_b: object) -> LeafDiff:
    """``compare`` the projections of two leaves (entry ids; None: Pi's default leaf).

    >>> import pisession
    >>> diff_leaves(pisession.load(pisession.sample_path("tour")), None, "a7000001").fork.shared
    8
    """
    from .request_entries import request_step

    result = compare(session.projection(leaf_a), session.projection(leaf_b))
    result.request_a = request_step(session, leaf_a)
    result.request_b = request_step(session, leaf_b)
    return result


# --- as text ----------------------------------------------------------------------------


def _where(session: SessionLike, position: int | None) -> str:
    if position is None:
        return "(none)"
    return f"{id_text(session.index.ids[position])} (line {session.line_of(position)})"


def fork_text(session: SessionLike | None, fork: Fork) -> str:
    """Where the paths part, in words (``session`` names the last shared entry by id and
    line; without one, by position).

    >>> fork_text(None, Fork(3, 2, 3, 5))
    "A's leaf is on B's path; B goes on for 2 entries"
    """
    relation = fork.relation
    if relation == "same":
        return "the same leaf: the two contexts are one"
    if relation == "separate":
        return "the paths share no entry (they start at different roots)"
    a_more = plural(fork.a_length - fork.shared, "entry", "entries")
    b_more = plural(fork.b_length - fork.shared, "entry", "entries")
    if relation == "a-on-b":
        return f"A's leaf is on B's path; B goes on for {b_more}"
    if relation == "b-on-a":
        return f"B's leaf is on A's path; A goes on for {a_more}"
    at = f"position {fork.last_shared}" if session is None else _where(session, fork.last_shared)
    return (
        f"after {fork.shared:,} shared entries, at {at}; then A goes on for "
        f"{a_more} and B for {fork.b_length - fork.shared:,}"
    )


def _head(session: SessionLike, result: LeafDiff) -> list[tuple[str, str]]:
    counts = result.counts()
    words = {SHARED: "shared", ONLY_A: "only in A", ONLY_B: "only in B"}
    words[CHANGED] = "edited differently"
    return [
        ("file", visible(session.source)),
        ("A", f"{_where(session, result.leaf_a)}: {plural(result.messages_a, 'message')}"),
        ("B", f"{_where(session, result.leaf_b)}: {plural(result.messages_b, 'message')}"),
        ("paths part", fork_text(session, result.fork)),
        ("messages", ", ".join(f"{counts[k]:,} {words[k]}" for k in KINDS)),
    ] + [
        (f"{side}'s request", sentence[len("The request carries ") : -1])
        for side, step in (("A", result.request_a), ("B", result.request_b))
        if step is not None and (sentence := step.sentence())
    ]


def _span(span: tuple[int, int] | None) -> str:
    if span is None:
        return ""
    start, stop = span
    return f"#{start + 1}" if stop - start == 1 else f"#{start + 1}-{stop}"


def _row(part: Part, widths: _Widths, look: Look, left: frozenset[int] = frozenset()) -> str:
    w_line, w_id, w_a, w_b = widths
    mark = look.paint(
        MARKS[part.kind], {ONLY_A: "red", ONLY_B: "green", CHANGED: "magenta"}.get(part.kind, "dim")
    )
    ident = pad(look.cut(id_text(part.id), w_id), w_id)
    start = (
        f"{mark} {pad(str(part.line), w_line, right=True)}  {ident}  "
        f"{pad(_span(part.a), w_a)}  {pad(_span(part.b), w_b)}  "
    )
    kind = kind_of(part.entry, short=True)
    text = visible(message_text(part.first_message)[:400])
    room = None if look.width is None else look.width - look.visible_width(start)
    body = f"{kind}: {text}" if text else kind
    if part.position in left:
        body = f"[left out of the request] {body}"
    return start + (body if room is None else look.cut(body, max(room, 4)))


def diff_text(
    session: SessionLike, result: LeafDiff, look: Look | None = None, collapse: int = 12
) -> str:
    """The comparison as text: where the paths part, then one row per entry that sends
    messages (``=`` shared, ``-`` only in A, ``+`` only in B, ``~`` edited differently)
    with its message numbers in A and in B; long runs of shared rows are shortened.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> lines = diff_text(s, s.diff("a6000001", "a7000001"), Look(width=80)).splitlines()
    >>> at = next(k for k, line in enumerate(lines) if line.startswith("paths part"))
    >>> print(lines[at : at + 2])
    ['paths part  after 8 shared entries, at a2000001 (line 9); then A goes on for 14', \
'            entries and B for 3']
    """
    look = look or Look()
    out = header_text(_head(session, result), look)
    out.append("")
    parts = result.parts
    widths = (
        max([4] + [len(str(p.line)) for p in parts]),
        min(max([2] + [text_width(id_text(p.id)) for p in parts]), 36),
        max([1] + [len(_span(p.a)) for p in parts]),
        max([1] + [len(_span(p.b)) for p in parts]),
    )
    out.append(
        look.paint(
            f"  {pad('line', widths[0], right=True)}  {pad('id', widths[1])}  "
            f"{pad('A', widths[2])}  {pad('B', widths[3])}  message",
            "bold",
        )
    )
    left = frozenset(
        position
        for step in (result.request_a, result.request_b)
        if step is not None
        for position in step.left_out
    )
    out.extend(look.fit(line) for line in _rows(parts, widths, look, collapse, left))
    return "\n".join(out) + "\n"


def _rows(
    parts: list[Part],
    widths: _Widths,
    look: Look,
    collapse: int,
    left: frozenset[int] = frozenset(),
) -> list[str]:
    """The rows, runs of shared ones shortened; an entry in ``left`` (a reply pi-ai leaves
    out of a request) always shown."""
    out: list[str] = []
    run: list[Part] = []

    def flush() -> None:
        if collapse > 0 and len(run) > collapse:
            out.extend(_row(p, widths, look, left) for p in run[:2])
            lines = f"lines {run[2].line}-{run[-3].line}"
            dots = look.symbol("┆", ":")
            out.append(look.paint(f"{dots} {len(run) - 4:,} more shared entries ({lines})", "dim"))
            out.extend(_row(p, widths, look, left) for p in run[-2:])
        else:
            out.extend(_row(p, widths, look, left) for p in run)
        run.clear()

    for part in parts:
        if part.kind == SHARED and part.position not in left:
            run.append(part)
            continue
        flush()
        out.append(_row(part, widths, look, left))
    flush()
    return out
