"""pi-ai's request step at a leaf, by entry: which replies it leaves out and which tool
results it writes, read off the context without building it (``request.second_pass``
over each provider message's ``Turn``). The fates (``provenance.entry_fates``) name the
replies left out; ``diff`` compares two leaves' steps.

>>> import pisession
>>> request_step(pisession.load(pisession.sample_path("tour"))).messages
10
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import cast

from .. import projection, request
from ..engine import context as engine
from ..engine import schemas
from ..engine.reader import paused_gc
from ..js.value import UNDEFINED
from ..llm import to_llm_message
from .protocol import SessionLike
from .text import plural


@dataclass
class RequestStep:
    """What pi-ai's last step (``pisession.request``) does to a leaf's context, by entry:
    ``left_out`` maps the position of each reply it leaves out to why, ``written`` the
    position of each reply to the calls (id, tool name) it answers itself; ``messages`` is
    how many messages the request carries; ``inserted`` the position of the entry whose
    message each written result follows in the request to those calls."""

    left_out: dict[int, str]
    written: dict[int, list[tuple[object, object]]]
    messages: int
    inserted: dict[int, list[tuple[object, object]]] = field(default_factory=dict)

    def sentence(self) -> str:
        """What the step changes, in words ("" when nothing).

        >>> RequestStep({4: "an aborted reply"}, {2: [("c1", "ls")]}, 9).sentence()
        'The request carries 9 messages (1 reply left out, 1 tool result written by pi-ai).'
        """
        written = sum(len(calls) for calls in self.written.values())
        changes = []
        if self.left_out:
            changes.append(f"{plural(len(self.left_out), 'reply', 'replies')} left out")
        if written:
            changes.append(f"{plural(written, 'tool result')} written by pi-ai")
        if not changes:
            return ""
        return f"The request carries {plural(self.messages, 'message')} ({', '.join(changes)})."


def request_step(
    session: SessionLike, leaf_id: object = None, steps: projection.Steps | None = None
) -> RequestStep | None:
    """pi-ai's request step at a leaf, by entry (None where Pi fails before sending). What
    it leaves out and the results it writes do not depend on the target model (only the
    content of replies, images and ids do), so only its second pass is run
    (``request.second_pass``, over each provider message's ``Turn``; a file whose replies
    make the first pass throw is the rare exception, where Pi's request fails instead).
    When the latest reply came through an API that sends the context as it is
    (``request.UNTRANSFORMED_APIS``), nothing changes. ``steps``: the leaf's steps 1 to 4,
    when already known.

    >>> import pisession
    >>> request_step(pisession.load(pisession.sample_path("tour")))
    RequestStep(left_out={}, written={}, messages=10, inserted={})
    """
    from ..errors import PisessionError

    sources: list[int] = []  # the entry of each provider message
    replies: list[object] = []  # the API of the latest reply (an empty list: none)
    try:
        steps = session.steps(leaf_id) if steps is None else steps
        with paused_gc():  # a turn a message, no cycles among them
            turns = _turn_stream(session, steps, sources, replies, runs=True)
            origins, left_out_at = request.second_pass(turns)
            api = _api(session, replies[-1]) if replies else UNDEFINED
    except PisessionError:
        return None
    if replies and api in request.UNTRANSFORMED_APIS:
        return RequestStep({}, {}, len(sources))  # the context is sent as it is
    left_out = {sources[i]: why for i, why in left_out_at.items()}
    written: dict[int, list[tuple[object, object]]] = {}
    inserted: dict[int, list[tuple[object, object]]] = {}
    # the written results, found in C (a long context has none, or few)
    kinds = list(map(type, origins))
    at = len(kinds) if kinds.count(int) == len(kinds) else kinds.index(request.WrittenResult)
    while at < len(kinds):
        origin = cast(request.WrittenResult, origins[at])
        before = at - 1  # the last message from the file before it
        while before >= 0 and kinds[before] is request.WrittenResult:
            before -= 1
        call = (origin.call_id, origin.tool_name)
        written.setdefault(sources[origin.reply], []).append(call)
        place = sources[origin.reply] if before < 0 else sources[cast(int, origins[before])]
        inserted.setdefault(place, []).append(call)
        at = _next(kinds, request.WrittenResult, at + 1)
    return RequestStep(left_out, written, len(origins), inserted)


def _next(items: list[type], item: type, start: int) -> int:
    """The index of the next ``item`` in ``items`` from ``start`` (``len(items)``: none)."""
    try:
        return items.index(item, start)
    except ValueError:
        return len(items)


@dataclass(frozen=True)
class _ReplyAt:
    """The latest reply so far, in a run of plain turns: its API is read only if it stays
    the latest (``_api``)."""

    position: int


def _api(session: SessionLike, reply: object) -> object:
    """The API of the latest reply (``_turn_stream``'s ``replies``): as its turn holds it,
    or, for a reply in a run of plain turns, read from its entry as the rule reads it."""
    if not isinstance(reply, _ReplyAt):
        return reply
    turns: list[request.Turn] = []
    position = reply.position
    messages = engine.selected_messages(session.index, position, session.entry(position))
    _add_converted(turns, [], position, messages)
    return turns[-1][4]


def provider_turns(
    session: SessionLike, steps: projection.Steps
) -> tuple[list[request.Turn], list[int]]:
    """What pi-ai's second pass reads of each provider message of the context at a leaf
    (``request.Turn``), and the position of the entry each came from: the turns of
    ``context.llm_sources()``, without building the context. A block of message entries
    no edit targets is read straight from its lines (``schemas.TURN_LINES``); any other
    entry, and a line those structs refuse, through the rule's contributions and
    ``convertToLlm``. Raises what building the context raises.

    >>> import pisession
    >>> s = pisession.load(pisession.sample_path("tour"))
    >>> turns, sources = provider_turns(s, s.steps())
    >>> llm, items = s.context().llm_sources()
    >>> turns == [request.turn_of(m) for m in llm], sources == [i.position for i in items]
    (True, True)
    """
    sources: list[int] = []
    turns = cast("list[request.Turn]", list(_turn_stream(session, steps, sources, [])))
    return turns, sources


def _turn_stream(
    session: SessionLike,
    steps: projection.Steps,
    sources: list[int],
    replies: list[object],
    runs: bool = False,
) -> Iterator[request.Turn | int]:
    """``provider_turns``, a block at a time: the turns are yielded, the entry of each is
    appended to ``sources``, and the API of the latest reply so far to ``replies``.
    ``runs``: a block of user messages and replies whose lines all prove their turns plain
    (``schemas.PLAIN_TURN_LINES``) is yielded as its length, a run of plain turns for
    ``request.second_pass`` (counted as the route ``"request-runs"``), and the latest reply
    in it as ``_ReplyAt``."""
    index, selection, edits = session.index, steps.selection, steps.edits
    positions, roles = selection.positions, index.roles
    for first in range(0, len(positions), _BLOCK):
        chunk = positions[first : first + _BLOCK]
        lines = None
        if engine.is_plain_run(index, edits, chunk, "request"):  # read as pi-ai's pass needs
            if runs:
                kinds = list(map(roles.__getitem__, chunk))
                talk = kinds.count("assistant")
                if talk + kinds.count("user") == len(chunk):
                    plain = session.decoded_lines(chunk, schemas.PLAIN_TURN_LINES)
                    if plain is not None and None not in plain:
                        engine.BYPASSES["request-runs"] += 1
                        sources.extend(chunk)
                        if talk:
                            kinds.reverse()
                            replies[:] = [_ReplyAt(chunk[-1 - kinds.index("assistant")])]
                        yield len(chunk)
                        continue
            lines = session.decoded_lines(chunk, schemas.TURN_LINES)
        turns: list[request.Turn] = []
        if lines is not None and None not in lines:
            turns = schemas.line_turns(lines)
            sources.extend(chunk)
        elif lines is None:
            (items,) = engine.contribution_blocks(
                index, selection, edits, _BLOCK, None, first, first + len(chunk)
            )
            for item in items:
                _add_converted(turns, sources, item.position, item.messages)
        else:
            refused = [p for p, line in zip(chunk, lines) if line is None]
            full = dict(zip(refused, index.entries(refused)))
            for position, line in zip(chunk, lines):
                if line is not None:
                    turns.extend(schemas.line_turns([line]))
                    sources.append(position)
                else:  # a message entry: its stored message (the rule's selected_messages)
                    messages = engine.selected_messages(index, position, full[position])
                    _add_converted(turns, sources, position, messages)
        reply = next((turn[4] for turn in reversed(turns) if turn[0] == "assistant"), replies)
        if reply is not replies:
            replies[:] = [reply]
        yield from turns


def _add_converted(
    turns: list[request.Turn], sources: list[int], position: int, messages: list[object]
) -> None:
    """The turns of these messages of one entry after ``convertToLlm``."""
    for message in messages:
        converted = to_llm_message(message)
        if converted is not None:
            turns.append(request.turn_of(converted))
            sources.append(position)


#: Selected entries whose turns are read together.
_BLOCK = engine.BLOCK


__all__ = ["RequestStep", "provider_turns", "request_step"]
