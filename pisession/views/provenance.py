"""Why each entry did or did not reach the model: one *fate* per entry for a leaf.

This is the chapter's question answered for every line of the file at once. The fates
are read off the context rule's own outputs (``context.path``, ``selection`` and
``contributions``): nothing here decides what reaches the model. ``FATES`` is the one
table every view takes its words, colours and styles from; a fate's reason is data
(``Reason``), worded by ``Reason.text``.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice, repeat
from typing import overload

from .. import projection
from ..engine import context as engine
from ..engine.index import EntryIndex, of_type
from ..js.value import UNDEFINED, truthy, value_text
from ..js.value import field as js_field
from ..rule import EDITABLE_ROLES
from .protocol import SessionLike
from .request_entries import RequestStep, request_step
from .text import id_text


@dataclass(frozen=True)
class FateKind:
    """One fate: its name, whether such an entry reached the model, what it means, and
    how views show it (fill colour, terminal style)."""

    name: str
    reached: bool
    meaning: str
    legend: str
    colour: str
    style: str

    @property
    def ink(self) -> str:
        """Text colour on ``colour``: black or white, whichever contrasts more (WCAG)."""
        return ink_on(self.colour)


#: Every fate, in the order legends list them (colours: the Okabe-Ito palette; terminal
#: styles: nine different ones, so no two fates look alike, each in a colour with a
#: WCAG contrast of 3 or more on dark and light terminal themes, or in the theme's own
#: foreground: tests/test_cli_terminal.py checks them on xterm's and VS Code's dark
#: palettes and GNOME's light one).
FATES: tuple[FateKind, ...] = (
    FateKind(
        "sent",
        True,
        "on the path (after the compaction, if any): sent to the model",
        "sent",
        "#009E73",
        "green",
    ),
    FateKind(
        "kept",
        True,
        "in the kept range of the newest compaction: sent",
        "kept (kept range)",
        "#56B4E9",
        "green underline",
    ),
    FateKind(
        "compaction",
        True,
        "the newest compaction: sends its summary (and its system message, if it stores one)",
        "compaction (newest)",
        "#0072B2",
        "cyan bold",
    ),
    FateKind(
        "summarized",
        False,
        "before the kept range: replaced by the compaction summary",
        "summarized",
        "#F0E442",
        "magenta",
    ),
    FateKind(
        "dropped-system",
        False,
        "system message inside the kept range: Pi drops every one of them",
        "dropped-system",
        "#D55E00",
        "red bold",
    ),
    FateKind(
        "edited",
        True,
        "sent, with content replaced by a context edit",
        "edited (context edit)",
        "#E69F00",
        "cyan",
    ),
    FateKind(
        "omitted",
        False,
        "removed by a context edit (replacement null)",
        "omitted (context edit)",
        "#CC79A7",
        "red",
    ),
    FateKind(
        "left-out",
        False,
        "in Pi's projection, but left out of the request by pi-ai: an aborted or failed reply",
        "left out (aborted/failed reply)",
        "#000000",
        "magenta bold",
    ),
    FateKind(
        "state-only",
        False,
        "selected but contributes no message (settings, labels, ...)",
        "state-only (no message)",
        "#FFFFFF",
        "italic",
    ),
    FateKind(
        "off-path",
        False,
        "on another branch: not in this context",
        "off-path (other branch)",
        "#E4E4E4",
        "default",
    ),
)

#: Fates by name.
FATE = {kind.name: kind for kind in FATES}

SENT, KEPT, COMPACTION, EDITED = "sent", "kept", "compaction", "edited"
SUMMARIZED, DROPPED_SYSTEM, OMITTED = "summarized", "dropped-system", "omitted"
LEFT_OUT = "left-out"
STATE_ONLY, OFF_PATH = "state-only", "off-path"

#: Colour for an entry whose fate is unknown (a file whose context cannot be built).
UNKNOWN_COLOUR = "#BBBBBB"


def ink_on(fill: str) -> str:
    """Black or white text, whichever has the higher WCAG contrast on ``fill``.

    >>> ink_on("#0072B2"), ink_on("#F0E442"), ink_on("#009E73")
    ('#FFFFFF', '#000000', '#000000')
    """
    red, green, blue = (int(fill[i : i + 2], 16) / 255 for i in (1, 3, 5))

    def linear(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    luminance = 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    return "#000000" if (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) else "#FFFFFF"


_STATE_WORDS = {
    "model_change": "sets the model",
    "thinking_level_change": "sets the thinking level",
    "label": "names an entry (a bookmark)",
    "session_info": "names the session",
    "custom": "stores extension state",
    "usage": "records token usage and cost",
    "context_edit": "edits another entry's messages",
    "compaction": "an older compaction: only the newest one sends a summary",
    "branch_summary": "a branch summary with an empty summary",
}


@dataclass(frozen=True)
class Reason:
    """Why an entry has its fate, as data. ``text`` words it.

    ``compaction`` and ``edit`` are the ids of the entries concerned, ``roles`` the
    roles of the messages it sent, ``kind`` its type, ``checkpoint`` whether the
    compaction stores its own system message, ``setting`` whether a summarized entry
    still decides the model or thinking level, ``leaf`` the leaf's id.
    """

    fate: str
    kind: object = None
    roles: tuple[str, ...] = ()
    compaction: object = None
    checkpoint: bool = False
    edit: object = None
    setting: bool = False
    leaf: object = None
    #: why pi-ai leaves the reply out of the request (``request.LEFT_OUT``), and the tool
    #: calls of this reply pi-ai answers itself (id, tool name), having no result
    left_out: str = ""
    written: tuple[tuple[object, object], ...] = ()

    @property
    def text(self) -> str:
        """The reason in words, with what pi-ai's request step adds.

        >>> Reason("left-out", left_out="an aborted reply").text
        "an aborted reply: in Pi's projection, but pi-ai leaves it out of every request \
(transformMessages skips failed and aborted replies)"
        >>> Reason("sent", roles=("assistant",), written=(("c1", "ls"),)).text
        'sent as assistant; pi-ai adds a tool result "No result provided" (isError) \
for its call c1 (ls), which has none'
        """
        text = self._projection_text()
        if self.written:
            calls = ", ".join(f"{id_text(c)} ({value_text(n)})" for c, n in self.written)
            many = "s" if len(self.written) > 1 else ""
            text += (
                f'; pi-ai adds a tool result "No result provided" (isError) for its '
                f"call{many} {calls}, which {'have' if many else 'has'} none"
            )
        return text

    def _projection_text(self) -> str:
        """The reason in words.

        >>> Reason("dropped-system", compaction="c1", checkpoint=False).text
        'system message in the kept range of compaction c1: dropped, as Pi drops every \
system message there; c1 stores no system message, so none from before it reaches the model'
        """
        sent = ", ".join(self.roles) or "nothing"
        c = id_text(self.compaction)
        if self.fate == OFF_PATH and self.leaf is None:
            return "on no path: there is no leaf (the last entry's id is null)"
        if self.fate == OFF_PATH:
            return f"not on the path to leaf {id_text(self.leaf)} (another branch)"
        if self.fate == SUMMARIZED:
            extra = " (settings still read it: they scan the whole path)" if self.setting else ""
            return f"before the kept range of compaction {c}: replaced by its summary{extra}"
        if self.fate == DROPPED_SYSTEM:
            head = (
                f"system message in the kept range of compaction {c}: dropped, as Pi drops "
                "every system message there; "
            )
            if self.checkpoint:
                return head + f"{c} sends its own stored system message instead"
            return head + f"{c} stores no system message, so none from before it reaches the model"
        if self.fate == LEFT_OUT:
            return (
                f"{self.left_out}: in Pi's projection, but pi-ai leaves it out of every "
                "request (transformMessages skips failed and aborted replies)"
            )
        if self.fate == OMITTED:
            return f"omitted by context edit {id_text(self.edit)} (replacement null)"
        if self.fate == EDITED:
            return f"sent as {sent}, content replaced by context edit {id_text(self.edit)}"
        if self.fate == COMPACTION:
            stored = "" if self.checkpoint else " (it stores no system message)"
            return f"newest compaction on the path: sends {sent}{stored}"
        if self.fate == STATE_ONLY:
            words = _STATE_WORDS.get(
                self.kind if isinstance(self.kind, str) else "",
                f"a {value_text(self.kind)} entry contributes no message",
            )
            return f"state only: {words}; never sent"
        if self.fate == KEPT:
            return f"in the kept range of compaction {c}: sent as {sent}"
        return f"sent as {sent}"


@dataclass(frozen=True)
class Fate:
    """What happened to one entry in the context of one leaf."""

    position: int
    line: int
    id: object
    type: object
    fate: str
    why: Reason
    messages: int = 0

    @property
    def reason(self) -> str:
        """The reason in words (``why.text``)."""
        return self.why.text

    @property
    def reached_model(self) -> bool:
        """True when the entry contributed at least one message."""
        return FATE[self.fate].reached


#: What the fates keep of an entry that is not a plain sent or kept one: how many
#: messages it sent, their roles, and the position of the context edit applied to it.
Detail = tuple[int, tuple[str, ...], "int | None"]


class Fates(Sequence[Fate]):
    """The fate of every entry for one leaf, in file order (a ``Fate`` per item, made
    when asked for; ``names`` holds the fate names as one column)."""

    def __init__(
        self,
        session: SessionLike,
        names: list[str],
        details: dict[int, Detail],
        steps: projection.Steps,
        leaf: int | None,
        request: RequestStep | None = None,
    ):
        self._session = session
        self.names = names
        #: pi-ai's request step at the leaf (``RequestStep``; None: not known)
        self.request = request
        self._details = details  # position -> (message count, roles, edit position)
        #: the rule's steps 1 to 4 for the leaf, which the fates were read from
        self.steps = steps
        self._leaf = leaf
        self._counts: dict[str, int] | None = None  # (``counts``, counted once)

    @property
    def path(self) -> list[int]:
        """The path to the leaf (``steps.path``)."""
        return self.steps.path

    @property
    def selection(self) -> projection.Selection:
        """The selected entries (``steps.selection``)."""
        return self.steps.selection

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, position: int) -> Fate: ...
    @overload
    def __getitem__(self, position: slice) -> list[Fate]: ...
    def __getitem__(self, position: int | slice) -> Fate | list[Fate]:
        if isinstance(position, slice):
            return [self[p] for p in range(*position.indices(len(self)))]
        try:
            position = operator.index(position)
        except TypeError:
            raise TypeError(
                f"fates are indexed by position in file order, not {type(position).__name__}; "
                "for an entry id use fates.of(id)"
            ) from None
        if position < 0:
            position += len(self)
        return self._fate(position)

    def __iter__(self) -> Iterator[Fate]:
        return (self._fate(p) for p in range(len(self)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        counts = ", ".join(f"{name} {n}" for name, n in self.counts().items() if n)
        return f"<Fates of {len(self)} entries: {counts or 'none'}>"

    def of(self, entry_id: object) -> Fate:
        """The fate of the entry with this id (the one Pi's id index finds).

        >>> import pisession
        >>> fates = pisession.load(pisession.sample_path("tour")).fates()
        >>> fates.of("u2000001").fate
        'kept'
        >>> fates  # doctest: +NORMALIZE_WHITESPACE
        <Fates of 26 entries: sent 2, kept 5, compaction 1, summarized 9,
         dropped-system 1, edited 1, state-only 3, off-path 4>
        """
        return self[self._session.position_of(entry_id)]

    def to_records(self) -> list[dict[str, object]]:
        """One plain dict per entry, in file order (position, line, id, type, role, fate,
        whether it reached the model, messages sent, the reason in words), as
        ``pandas.DataFrame(...)`` and ``polars.DataFrame(...)`` take them.

        >>> import pisession
        >>> rows = pisession.load(pisession.sample_path("tour")).fates().to_records()
        >>> rows[11]["fate"], rows[11]["role"], rows[11]["reached"]
        ('edited', 'toolResult', True)
        """
        roles = self._session.index.roles
        return [
            {
                "position": f.position,
                "line": f.line,
                "id": projection.record_value(f.id),
                "type": projection.record_value(f.type),
                "role": _role_cell(roles[f.position]) if f.type == "message" else None,
                "fate": f.fate,
                "reached": f.reached_model,
                "messages": f.messages,
                "reason": f.reason,
            }
            for f in self
        ]

    def on_path(self, kind: str) -> list[int]:
        """The entries of type ``kind`` on the path, in file order, read off the fate
        column (an entry's fate is ``OFF_PATH`` exactly when it is not on the path): the
        path itself is not read, whose entries a helper process may be sharing.

        >>> import pisession
        >>> s = pisession.load(pisession.sample_path("tour"))
        >>> [s.line_of(p) for p in s.fates().on_path("compaction")]
        [25]
        """
        names = self.names
        return [p for p in of_type(self._session.index, kind) if names[p] != OFF_PATH]

    def counts(self) -> dict[str, int]:
        """How many entries have each fate (every fate listed, in ``FATES`` order)."""
        if self._counts is None:
            self._counts = dict.fromkeys((k.name for k in FATES), 0)
            self._counts.update(Counter(self.names))
        return dict(self._counts)

    def message_count(self) -> int:
        """How many messages the context holds: what the entries that reached the model
        sent (one each, unless ``_details`` says otherwise), counted without a decode.

        >>> import pisession
        >>> pisession.load(pisession.sample_path("tour")).fates().message_count()
        10
        """
        counts = self.counts()
        single = counts[SENT] + counts[KEPT]
        for position, (count, _, _) in self._details.items():
            single += count - (self.names[position] in (SENT, KEPT))
        return single

    def sends_system(self, position: int) -> bool:
        """Whether the entry at ``position`` sent a system message (read off the fates,
        without a decode: a plain sent or kept entry sends one message of its role).

        >>> import pisession
        >>> s = pisession.load(pisession.sample_path("tour"))
        >>> fates = s.fates()
        >>> [fates[p].id for p in range(len(s)) if fates.sends_system(p)]
        ['cp000001']
        """
        if not FATE[self.names[position]].reached:
            return False
        if position in self._details:
            return "system" in self._details[position][1]
        index = self._session.index
        return bool(index.types[position] == "message" and index.roles[position] == "system")

    def may_send_system(self, positions: Sequence[int]) -> Iterator[bool]:
        """For each position, whether its entry may send a system message, found in C:
        a message entry of the role system, or one whose fate holds its own messages
        (``sends_system`` decides for those).

        >>> import pisession
        >>> fates = pisession.load(pisession.sample_path("tour")).fates()
        >>> sum(fates.may_send_system(range(26))) >= sum(map(fates.sends_system, range(26)))
        True
        """
        roles = self._session.index.roles
        systems = map(operator.eq, map(roles.__getitem__, positions), repeat("system"))
        return map(operator.or_, systems, map(self._details.__contains__, positions))

    def reached(self) -> int:
        """How many entries reached the model."""
        counts = self.counts()
        return sum(n for name, n in counts.items() if FATE[name].reached)

    def _fate(self, position: int) -> Fate:
        session, index = self._session, self._session.index
        name = self.names[position]
        count, roles, edit = self._details.get(position, (0, (), None))
        if name in (SENT, KEPT) and not roles:
            roles = self._roles(position)
            count = len(roles)
        compaction = self.selection.compaction
        reason = Reason(
            name,
            kind=None if index.types[position] is UNDEFINED else index.types[position],
            roles=roles,
            compaction=None if compaction is None else index.ids[compaction],
            checkpoint=compaction is not None and self._checkpoint(),
            edit=None if edit is None else index.ids[edit],
            setting=name == SUMMARIZED and self._sets_model(position),
            leaf=None if self._leaf is None else index.ids[self._leaf],
            left_out=self.request.left_out.get(position, "") if self.request else "",
            written=tuple(self.request.written.get(position, ())) if self.request else (),
        )
        entry_id = index.ids[position]
        kind = index.types[position]
        return Fate(
            position,
            session.line_of(position),
            None if entry_id is UNDEFINED else entry_id,
            None if kind is UNDEFINED else kind,
            name,
            reason,
            count,
        )

    def _roles(self, position: int) -> tuple[str, ...]:
        session = self._session
        messages = engine.selected_messages(session.index, position, session.entry(position))
        return tuple(value_text(js_field(m, "role")) for m in messages)

    def _checkpoint(self) -> bool:
        compaction = self.selection.compaction
        if compaction is None:
            return False
        entry = self._session.entry(compaction)
        return truthy(js_field(entry, "systemMessage"))

    def _sets_model(self, position: int) -> bool:
        index = self._session.index
        kind = index.types[position]
        return kind in ("model_change", "thinking_level_change") or (
            kind == "message" and index.roles[position] == "assistant"
        )


def _item_fate(item: projection.ProjectedEntry) -> str:
    """The fate of a selected entry, from what it contributed and why it is selected."""
    if item.edit is not None and js_field(item.edit, "replacement") is None:
        return OMITTED
    if item.edit is not None and any(js_field(m, "role") in EDITABLE_ROLES for m in item.messages):
        return EDITED
    if item.part == projection.COMPACTION and item.messages:
        return COMPACTION
    if not item.messages:
        return STATE_ONLY
    return KEPT if item.part == projection.KEPT else SENT


def _roles_only(index: EntryIndex) -> Callable[[Sequence[int]], list[object]]:
    """Decoding for fates: a message entry stands in as its role alone (it contributes
    one message of that role, whatever its content, and edits go by role); the other
    entries are decoded in full."""

    def decode(positions: Sequence[int]) -> list[object]:
        types, roles = index.types, index.roles
        others = [p for p in positions if types[p] != "message"]
        full = dict(zip(others, index.entries(others)))
        return [
            full[p] if p in full else {"type": "message", "message": {"role": roles[p]}}
            for p in positions
        ]

    return decode


#: The fate of a plain run's entry by its part of the selection (any other part: sent).
_PART_FATES = {projection.KEPT: KEPT}


def _name(
    names: list[str], positions: list[int], fates: list[str], done: bytearray | None = None
) -> None:
    """Give the entries at ``positions`` their ``fates``, in order; with ``done``, only
    those not named yet, which it then marks. Consecutive entries none of which is named
    yet are named by one slice (in C).

    >>> names, done = ["?"] * 5, bytearray(5)
    >>> _name(names, [1, 2, 3], ["a", "b", "c"], done); _name(names, [3, 4], ["d", "e"], done)
    >>> names, done
    (['?', 'a', 'b', 'c', 'e'], bytearray(b'\\x00\\x01\\x01\\x01\\x01'))
    """
    if not positions:
        return
    start, stop = positions[0], positions[0] + len(positions)
    # rising one by one from start to stop - 1: consecutive (found without new integers)
    consecutive = positions[-1] == stop - 1
    if consecutive:
        consecutive = all(map(operator.lt, positions, islice(positions, 1, None)))
    if consecutive and (done is None or done.find(1, start, stop) < 0):
        names[start:stop] = fates
        if done is not None:
            done[start:stop] = bytes((1,)) * len(positions)
        return
    if done is None:
        for position, fate in zip(positions, fates):
            names[position] = fate
        return
    for position, fate in zip(positions, fates):
        if not done[position]:
            done[position] = 1
            names[position] = fate


def entry_fates(session: SessionLike, leaf_id: object = None) -> Fates:
    """The fate of every entry (file order) for the context at ``leaf_id``.

    Reads the rule's path, selection and contributions (streamed, so a long context is
    never held whole).

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> fates = {f.id: f.fate for f in entry_fates(s)}
    >>> fates["t2000001"], fates["sys00002"], fates["u1000001"], fates["u5000001"]
    ('edited', 'dropped-system', 'summarized', 'off-path')
    """
    index = session.index
    steps = session.steps(leaf_id)
    path, selection, edits = steps.path, steps.selection, steps.edits
    names = [OFF_PATH] * len(index)
    if selection.positions != path:  # (else every entry of the path is named below)
        for first in range(0, len(path), _PATH_BLOCK):
            chunk = path[first : first + _PATH_BLOCK]
            _name(names, chunk, [SUMMARIZED] * len(chunk))
    for position in selection.dropped_system:
        names[position] = DROPPED_SYSTEM
    details: dict[int, Detail] = {}
    done = bytearray(len(index))  # an entry selected twice: its first place decides
    decode = _roles_only(index)
    positions = selection.positions
    for first in range(0, len(positions), _BLOCK):
        chunk = positions[first : first + _BLOCK]
        if engine.is_plain_run(index, edits, chunk, "fates"):  # each sends its stored message
            parts = selection.parts(first, first + len(chunk))
            fates = [SENT] * len(chunk)
            if projection.KEPT in parts:
                fates = list(map(_PART_FATES.get, parts, fates))
            _name(names, chunk, fates, done)
            continue
        stop = first + len(chunk)
        (items,) = engine.contribution_blocks(index, selection, edits, _BLOCK, decode, first, stop)
        for item in items:
            if done[item.position]:
                continue
            done[item.position] = 1
            fate = _item_fate(item)
            names[item.position] = fate
            if fate not in (SENT, KEPT) or len(item.messages) != 1:
                roles = tuple(value_text(js_field(m, "role")) for m in item.messages)
                details[item.position] = (len(item.messages), roles, item.edit_position)
    leaf = path[-1] if path else None
    step = request_step(session, leaf_id, steps)
    if step is not None:
        for position in step.left_out:
            if FATE[names[position]].reached:
                count, roles, edit = details.get(position, (1, ("assistant",), None))
                names[position] = LEFT_OUT
                details[position] = (count, roles, edit)
    return Fates(session, names, details, steps, leaf, step)


def _role_cell(role: object) -> object:
    """A message's role as a table cell (None for a message entry without a message)."""
    plain = role is None or isinstance(role, (str, int, float, bool, list, dict))
    return projection.record_value(role) if plain else None


#: Selected entries whose fates are read together.
_BLOCK = engine.BLOCK
#: Entries of the path named together.
_PATH_BLOCK = 4096


__all__ = [
    "FATE",
    "FATES",
    "Fate",
    "FateKind",
    "Fates",
    "Reason",
    "entry_fates",
    "ink_on",
]
