"""What the context rule answers, as both its implementations give it: the readable
rule (``pisession.rule``, over a list of entries) and the fast engine
(``pisession.engine.context``, over an ``EntryIndex``) return these same types, so one
test suite runs on both (``pisession.engine.seam`` picks one).

- ``Settings``: the thinking level and the model in force at a leaf (step 2);
- ``Selection``: the selected entries and why (step 3), with the one place that says an
  older compaction inside the newest one's kept range contributes nothing;
- ``ProjectedEntry``: one selected entry and the messages it contributed (step 5);
- ``Context`` (Pi's ``buildSessionContext``) and ``Projection`` (every selected entry,
  with the path and the selection): the answer;
- ``Steps``: steps 1 to 4 for one leaf.

>>> Selection([3, 1, 4], compaction=3, kept=1).parts(0, 3)
['compaction', 'kept', 'after']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .errors import PisessionError, SessionFormatError
from .js.value import UNDEFINED, ToPrimitiveError, quoted, strict_equal, value_text
from .js.value import field as js_field
from .piversions import pi_versions
from .request import Sent, TargetModel


class PiFailure(SessionFormatError):
    """An entry on which Pi itself throws: pisession stops here instead of guessing."""


def pi_throws(reason: str) -> str:
    """``reason``, saying that Pi throws there (the version from ``pi_versions.json``).

    >>> pi_throws("entry 'x' has no message object")
    "entry 'x' has no message object (Pi 0.87.1 throws a TypeError here)"
    """
    return f"{reason} (Pi {pi_versions()['primary']} throws a TypeError here)"


# --- 2. the settings ---------------------------------------------------------------------


@dataclass(frozen=True)
class Settings:
    """Thinking level and model in force at a leaf (``UNDEFINED`` marks a field that
    the deciding entry lacks, which Pi's JSON output then omits)."""

    thinking_level: object = "off"
    model: dict[str, object] | None = None


# --- 3. the selection -------------------------------------------------------------------

#: Why an entry is selected (``Selection.parts``).
PATH, COMPACTION, KEPT, AFTER = "path", "compaction", "kept", "after"


@dataclass(frozen=True)
class Selection:
    """The selected entries of a path, in context order (Pi's ``buildContextEntries``).

    With no compaction on the path: the whole path. Otherwise the newest compaction
    first, then its *kept range* (the path entries before it from the one whose id is
    its ``firstKeptEntryId``, without system messages), then every entry after it.
    """

    positions: list[int]
    #: the newest compaction on the path (None: none)
    compaction: int | None = None
    #: how many selected entries, after the compaction, come from its kept range
    kept: int = 0
    #: the first entry of the kept range (None: nothing kept before the compaction)
    first_kept: int | None = None
    #: system messages inside the kept range: Pi drops them, whatever the compaction holds
    dropped_system: tuple[int, ...] = ()
    #: ranks in the path: where the kept range starts, and where Pi finds the compaction
    start: int = 0
    cut: int = 0
    #: the compaction's ``firstKeptEntryId`` as written (``UNDEFINED``: absent)
    first_kept_id: object = UNDEFINED
    #: nothing kept, by design: the compaction's ``firstKeptEntryId`` is its own id, as Pi
    #: writes a compaction that keeps nothing (any other empty kept range is a finding)
    retains_none: bool = False

    def holds(self, rank: int, position: int) -> bool:
        """Whether the path entry at this rank (and position) is selected.

        >>> Selection([3, 1, 4], compaction=3, kept=1, first_kept=1, start=1, cut=3).holds(0, 0)
        False
        """
        if self.compaction is None:
            return True
        if rank > self.cut or position == self.compaction:
            return True
        return self.start <= rank < self.cut and position not in self.dropped_system

    def parts(self, start: int, stop: int) -> list[str]:
        """Why the entries at ranks ``start`` to ``stop`` of the selection are there:
        ``PATH`` (no compaction), ``COMPACTION``, ``KEPT`` (its kept range) or ``AFTER`` it.

        >>> Selection([3, 1, 4], compaction=3, kept=1).parts(0, 3)
        ['compaction', 'kept', 'after']
        """
        if self.compaction is None:
            return [PATH] * (stop - start)
        head = [COMPACTION] if start == 0 < stop else []
        kept = max(0, min(stop, self.kept + 1) - max(start, 1))
        return head + [KEPT] * kept + [AFTER] * (stop - start - len(head) - kept)

    @staticmethod
    def contributes(rank: int, kind: object) -> bool:
        """Whether the selected entry at ``rank`` (of type ``kind``) sends its messages:
        every one but an older compaction inside the newest one's kept range (only the
        newest, first in the selection, sends its checkpoint and summary).

        >>> selection = Selection([3, 1, 4], compaction=3, kept=1)
        >>> selection.contributes(0, "compaction"), selection.contributes(1, "compaction")
        (True, False)
        """
        return rank == 0 or kind != "compaction"


# --- 5. the projection ------------------------------------------------------------------


def record_value(value: object) -> object:
    """A JSON value as a table cell: strings, numbers, booleans and null as they are,
    undefined as None, anything else as its text (``value_text``).

    >>> record_value("a1"), record_value(UNDEFINED), record_value({"odd": 1})
    ('a1', None, '{"odd":1}')
    """
    if value is None or value is UNDEFINED:
        return None
    return value if type(value) in (str, int, float, bool) else value_text(value)


@dataclass(slots=True)
class ProjectedEntry:
    """One selected entry and the messages it contributed (after its context edit).

    ``part`` says why it is selected (``PATH``, ``COMPACTION``, ``KEPT``, ``AFTER``);
    ``edit`` is the context edit applied to its messages, and ``edit_position`` where
    that is (None: no edit targets it, or it contributes no message for one to change);
    ``unedited`` the messages before that edit (None: no edit applied).
    """

    position: int
    entry: object
    messages: list[Any]
    part: str
    edit: dict[Any, Any] | None = None
    edit_position: int | None = None
    line: int | None = None
    unedited: list[object] | None = None

    @property
    def id(self) -> object:
        """The entry's id (None when it has none)."""
        value = js_field(self.entry, "id")
        return None if value is UNDEFINED else value

    @property
    def why(self) -> str:
        """``part``, under its older name."""
        return self.part

    def __repr__(self) -> str:
        """A one-line summary (the entry itself is ``.entry``, its messages ``.messages``).

        >>> import pisession
        >>> pisession.load(pisession.sample_path("tour")).projection().items[0]
        <ProjectedEntry at position 23 (line 25), 'cp000001', compaction: 2 messages>
        """
        line = "" if self.line is None else f" (line {self.line})"
        count = len(self.messages)
        edited = ", edited" if self.edit is not None else ""
        return (
            f"<ProjectedEntry at position {self.position}{line}, {quoted(self.id)}, "
            f"{self.part}: {count} message{'' if count == 1 else 's'}{edited}>"
        )


def _counted(values: Iterable[object]) -> str:
    """``values`` counted, in order of first appearance: ``'user 2, assistant 1'``.

    >>> _counted(["user", "assistant", "user"])
    'user 2, assistant 1'
    """
    counts: dict[Any, Any] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return ", ".join(f"{value} {n}" for value, n in counts.items())


@dataclass
class Context:
    """The model context at a leaf: Pi's ``buildSessionContext`` result."""

    messages: list[Any]
    thinking_level: object
    model: dict[Any, Any] | None
    leaf: int | None = None
    #: the projected entry each message came from, and the file: where Pi throws on a
    #: message, ``located`` names its entry's line
    origins: list[Any] = field(default_factory=list[Any], compare=False, repr=False)
    source: str = field(default="", compare=False, repr=False)
    #: how a notebook shows it (its ``_repr_html_``): drawing is the views' work, so the
    #: facade (``pisession.session``) hands the views' function to the answers it gives;
    #: None shows the one-line ``repr``
    html: Callable[[Any], str] | None = field(default=None, compare=False, repr=False)

    def located(self, error: ToPrimitiveError) -> PisessionError:
        """``error`` (Pi throws on message ``error.index``) as a ``PiFailure`` naming the
        file and the line of the entry that message came from.

        >>> import pisession
        >>> from pisession.js.value import ToPrimitiveError
        >>> context = pisession.load(pisession.sample_path("tour")).context()
        >>> str(context.located(ToPrimitiveError("Pi throws here", 0))).split("/")[-1]
        "tour.jsonl:25: entry 'cp000001': Pi throws here"
        """
        if error.index is None or not 0 <= error.index < len(self.origins):
            return error
        item = self.origins[error.index]
        reason = f"entry {quoted(item.id)}: {error.reason}"
        return PiFailure(self.source, item.line, reason, position=item.position)

    def to_dict(self) -> dict[Any, Any]:
        """Exactly Pi's JSON shape: ``{"messages", "thinkingLevel", "model"}``."""
        out: dict[Any, Any] = {"messages": self.messages}
        if self.thinking_level is not UNDEFINED:
            out["thinkingLevel"] = self.thinking_level
        out["model"] = self.model
        return out

    def to_llm(self) -> list[Any]:
        """The provider messages (Pi's ``convertToLlm``); ``PiFailure`` where Pi throws."""
        from .llm import to_llm

        try:
            return to_llm(self.messages)
        except ToPrimitiveError as exc:
            raise self.located(exc) from None

    def sent(
        self,
        model: object = None,
        now: int | None = None,
        version: str | None = None,
        replies: Callable[[], list[Any]] | None = None,
    ) -> Sent:
        """What the request carries (``pisession.request.sent`` of ``to_llm()``) for a
        target ``model``: a ``request.TargetModel``, ``"provider/id"``, or None for the
        model in force here (``request.target_model``: its API from its latest reply on the
        path, else from ``replies()``: more replies, file order). ``sources`` gives each
        provider message's projected entry; where pi-ai throws, ``PiFailure`` names the
        entry's line.

        >>> import pisession
        >>> done = pisession.load(pisession.sample_path("tour")).context().sent(now=0)
        >>> len(done.messages), done.left_out, done.model.id
        (10, {}, 'fake-coder')
        """
        from .request import TransformError, sent, target_model

        llm, sources = self.llm_sources()
        if not isinstance(model, TargetModel):
            provider, model_id = self._named_model(model)
            on_path = [m for m in llm if js_field(m, "role") == "assistant"]
            if replies is not None and not any(
                strict_equal(js_field(m, "provider"), provider)
                and strict_equal(js_field(m, "model"), model_id)
                for m in on_path
            ):
                on_path = replies() + on_path
            model = target_model(provider, model_id, on_path, version)
            if model.api is UNDEFINED:
                raise PisessionError(
                    f"{self.source}: the target model {value_text(model.provider)}/"
                    f"{value_text(model.id)} is in no reply on this path nor in Pi's model "
                    "catalog: its API is unknown"
                )
        try:
            out = sent(llm, model, now, version)
        except TransformError as exc:
            item = (
                sources[exc.index] if exc.index is not None and exc.index < len(sources) else None
            )
            if item is None:
                raise
            reason = f"entry {quoted(item.id)}: {exc}"
            raise PiFailure(self.source, item.line, reason, position=item.position) from None
        out.sources = [item.position for item in sources]
        return out

    def llm_sources(self) -> tuple[list[Any], list[Any]]:
        """``to_llm()``, and for each provider message the projected entry it came from.

        >>> import pisession
        >>> llm, sources = pisession.load(pisession.sample_path("tour")).context().llm_sources()
        >>> len(llm) == len(sources), sources[0].id
        (True, 'cp000001')
        """
        from .llm import to_llm_message

        llm, sources = [], []
        for number, (message, origin) in enumerate(zip(self.messages, self.origins)):
            try:
                converted = to_llm_message(message)
            except ToPrimitiveError as exc:
                raise self.located(ToPrimitiveError(exc.reason, number)) from None
            if converted is not None:
                llm.append(converted)
                sources.append(origin)
        return llm, sources

    def _named_model(self, name: object) -> tuple[object, object]:
        """Provider and id of the target: ``"provider/id"``, or (None) the model in force."""
        if name is not None:
            provider, _, model_id = str(name).partition("/")
            if not provider or not model_id:
                raise PisessionError(f"the target model {name!r} is not provider/id")
            return provider, model_id
        if not isinstance(self.model, dict):
            raise PisessionError(
                f"{self.source}: no model in force at this leaf (no model_change or reply on "
                "its path): name the target model as provider/id"
            )
        return self.model.get("provider", UNDEFINED), self.model.get("modelId", UNDEFINED)

    def to_json(self, indent: int | None = None) -> str:
        """``to_dict()`` serialised as ``JSON.stringify`` would."""
        from .js import json as jsjson

        return jsjson.dumps(self.to_dict(), indent)

    def __repr__(self) -> str:
        """A one-line summary (``print(context.to_json(2))`` or the HTML view for all of it).

        >>> import pisession
        >>> pisession.load(pisession.sample_path("tour")).context()  # doctest: +ELLIPSIS
        <Context at position 25: 10 messages (system 1, ...), model fake/fake-coder, thinking ...>
        """
        roles = _counted(value_text(js_field(m, "role")) for m in self.messages)
        model = self.model or {}
        name = "/".join(value_text(model[k]) for k in ("provider", "modelId") if k in model)
        parts = [f"{len(self.messages)} messages" + (f" ({roles})" if roles else "")]
        parts.append(f"model {name or 'none'}")
        if self.thinking_level is not UNDEFINED:
            parts.append(f"thinking {value_text(self.thinking_level)}")
        return f"<Context at position {self.leaf}: {', '.join(parts)}>"

    def _repr_html_(self) -> str | None:
        return None if self.html is None else self.html(self)


@dataclass
class Projection:
    """Every selected entry with its messages: the provenance of each context message,
    with the path and the selection it came from."""

    items: list[ProjectedEntry]
    context: Context
    path: list[int] = field(default_factory=list)
    selection: Selection = field(default_factory=lambda: Selection([]))

    @classmethod
    def of(
        cls, items: list[ProjectedEntry], steps: Steps, leaf: int | None, source: str
    ) -> Projection:
        """The projection of these projected entries (step 5's) at ``leaf``, with the
        ``steps`` (1 to 4) they came from: its context holds their messages in order.

        >>> Projection.of([], Steps([], Settings(), Selection([]), {}), None, "<s>").messages
        []
        """
        messages = [m for item in items for m in item.messages]
        origins = [item for item in items for _ in item.messages]
        thinking, model = steps.settings.thinking_level, steps.settings.model
        context = Context(messages, thinking, model, leaf, origins, source)
        return cls(items, context, steps.path, steps.selection)

    @property
    def entries(self) -> list[ProjectedEntry]:
        """The projected entries (``items``)."""
        return self.items

    @property
    def messages(self) -> list[Any]:
        """All context messages in order (the same list as ``context.messages``)."""
        return self.context.messages

    @property
    def compaction(self) -> int | None:
        """Position of the newest compaction on the path (None: none)."""
        return self.selection.compaction

    @property
    def first_kept(self) -> int | None:
        """Position of the first entry of the compaction's kept range (None: none)."""
        return self.selection.first_kept

    def to_records(self) -> list[dict[Any, Any]]:
        """One plain dict per selected entry (position, line, id, type, part, how many
        messages it sent, their roles, whether a context edit changed them), as
        ``pandas.DataFrame(...)`` and ``polars.DataFrame(...)`` take them.

        >>> import pisession
        >>> pisession.load(pisession.sample_path("tour")).projection().to_records()[0]["part"]
        'compaction'
        """
        return [
            {
                "position": item.position,
                "line": item.line,
                "id": record_value(item.id),
                "type": record_value(js_field(item.entry, "type")),
                "part": item.part,
                "messages": len(item.messages),
                "roles": ",".join(value_text(js_field(m, "role")) for m in item.messages),
                "edited": item.edit is not None,
            }
            for item in self.items
        ]

    def source_of(self, message_index: int) -> ProjectedEntry:
        """The selected entry that contributed context message number ``message_index``."""
        seen = 0
        for item in self.items:
            seen += len(item.messages)
            if message_index < seen:
                return item
        raise IndexError(message_index)

    def __repr__(self) -> str:
        """A one-line summary (``to_records()`` or the HTML view for every entry).

        >>> import pisession
        >>> pisession.load(pisession.sample_path("tour")).projection()  # doctest: +ELLIPSIS
        <Projection at position 25: 12 entries selected (...), 10 messages, compaction at ...>
        """
        parts = [f"{len(self.items)} entries selected"]
        if self.items:
            parts[0] += f" ({_counted(item.part for item in self.items)})"
        parts.append(f"{len(self.context.messages)} messages")
        if self.compaction is not None:
            parts.append(f"compaction at position {self.compaction}")
        edited = sum(item.edit is not None for item in self.items)
        if edited:
            parts.append(f"{edited} edited")
        return f"<Projection at position {self.context.leaf}: {', '.join(parts)}>"

    def _repr_html_(self) -> str | None:
        html = self.context.html
        return None if html is None else html(self)


class Steps(NamedTuple):
    """Steps 1 to 4 of the rule for one leaf: its path, the settings in force, the
    selection, and the context edits among the selected entries (by target)."""

    path: list[int]
    settings: Settings
    selection: Selection
    edits: dict[Any, Any]
