"""The facade: ``load`` and the ``Session``, a session file with its answers.

``load`` reads (``engine.reader``), migrates in memory (``migration``) and indexes
(``engine.context.EntryIndex``); the ``Session`` then asks the engine (the context of a
leaf, the tree's shape) and the views (the fates, two leaves compared). It never writes
to the file it read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .engine import seam
from .engine.index import EntryIndex, default_leaf, of_type
from .engine.opening import SessionFile, opened
from .engine.reader import paused_gc, read_source
from .engine.stats import Counted, SessionStats, counted_stats
from .errors import Diagnostic, SessionFormatError
from .js.json import MSGSPEC_STOPS_FIRST, STRINGIFY_TOO_DEEP, too_deep_to_stringify
from .js.value import NO_KEY, js_key
from .locate import named_file
from .migration import IdFactory, MigrationStep
from .projection import Context, ProjectedEntry, Projection, Selection, Steps
from .system_prompt import SystemPrompt, replay_system_prompt
from .tree import Shape, entry_graph, problems, resolved_labels, session_name

if TYPE_CHECKING:
    import networkx

    from .request import Sent
    from .views.diff import LeafDiff
    from .views.provenance import Fates

Answer = TypeVar("Answer")

__all__ = ["Context", "ProjectedEntry", "Projection", "Session", "load", "loads"]


class Session:
    """A session file with its answers; create one with ``pisession.load``. It holds the
    file as read (``file``, a ``SessionFile``: header, entries, lines, index, bytes) and
    asks the engine, held equal to ``pisession.rule`` by the tests, and the views.

    >>> s = load("tour")
    >>> s.file.source == s.source, len(s) == len(s.file)
    (True, True)
    """

    def __init__(self, file: SessionFile) -> None:
        #: the file as read (``engine.opening.SessionFile``)
        self.file = file

    # -- the file as read (``SessionFile``) --------------------------------------------

    @property
    def source(self) -> str:
        """The file's path, or a name for bytes (``"<bytes>"``), as messages name it."""
        return self.file.source

    @source.setter
    def source(self, name: str) -> None:  # a caller may rename what messages call the file
        self.file.source = name

    @property
    def index(self) -> EntryIndex:
        """The engine's index of the entries (``engine.context.EntryIndex``)."""
        return self.file.index

    @property
    def entry_lines(self) -> Sequence[int]:
        """The file line number of every entry, by position (an array)."""
        return self.file.entry_lines

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """The lines Pi skips or warns about, each with its line number and reason."""
        return self.file.diagnostics

    @property
    def original_version(self) -> object:
        """The header's ``version`` as written (None: none), before any migration."""
        return self.file.original_version

    @property
    def migration_steps(self) -> list[MigrationStep]:
        """What each migration step changed when loading (empty: none ran)."""
        return self.file.migration_steps

    @property
    def header(self) -> dict[str, Any]:
        """The header object (migrated when the file was a legacy version)."""
        return self.file.header

    @property
    def id(self) -> str:
        """The session id (the header's ``id``)."""
        return self.file.id

    @property
    def migrated(self) -> bool:
        """True when loading migrated a legacy (v1/v2) file in memory."""
        return self.file.migrated

    @property
    def rewritten(self) -> dict[int, object]:
        """Every line a migration rewrite changes, by line number (empty: none migrated)."""
        return self.file.rewritten

    @property
    def entries(self) -> list[object]:
        """All entries in file order, fully decoded (header excluded)."""
        return self.file.entries

    def __len__(self) -> int:
        return len(self.file)

    def entry(self, position: int) -> object:
        """The full entry at ``position`` (file order, header excluded)."""
        return self.file.entry(position)

    def entries_at(self, positions: Sequence[int]) -> list[object]:
        """The full entries at these positions (``SessionFile.entries_at``)."""
        return self.file.entries_at(positions)

    def forget(self, positions: Iterable[int]) -> None:
        """Drop the decoded entries at these positions (``SessionFile.forget``)."""
        self.file.forget(positions)

    def decoded_lines(self, positions: Sequence[int], decoder: Any) -> list[Any] | None:
        """These entries' lines through a msgspec ``decoder`` (``SessionFile.decoded_lines``)."""
        return self.file.decoded_lines(positions, decoder)

    def line_of(self, position: int) -> int:
        """File line number of the entry at ``position``."""
        return self.file.line_of(position)

    def position_of(self, entry_id: object) -> int:
        """Position of the entry with this id (the later one when ids repeat)."""
        return self.file.position_of(entry_id)

    def timestamp_of(self, position: int) -> object:
        """The entry's ``timestamp`` as written (``UNDEFINED``: none)."""
        return self.file.timestamp_of(position)

    def field_of(self, positions: Sequence[int], name: str) -> list[object]:
        """A field of the entries at ``positions``, read alone (``SessionFile.field_of``)."""
        return self.file.field_of(positions, name)

    def failure(self, position: int, reason: str) -> SessionFormatError:
        """Where Pi throws on the entry at ``position``: a ``PiFailure`` naming its line."""
        return self.file.failure(position, reason)

    def located(self, error: SessionFormatError) -> SessionFormatError:
        """The error with the file's line number of the entry it concerns."""
        return self.file.located(error)

    @property
    def counted(self) -> Counted:
        """What the entries add to the statistics (``stats.Counted``: the rows that add
        more than their type and role say; ``SessionFile.counted``)."""
        return self.file.counted

    def dumps(self) -> bytes:
        """The file's bytes: the original ones, exactly, unless loading migrated it
        (then as Pi's rewrite writes them: ``SessionFile.dumps``)."""
        return self.file.dumps()

    def save(self, path: str | os.PathLike[str], overwrite: bool = False) -> Path:
        """Write ``dumps()`` to ``path`` atomically; an existing file only with
        ``overwrite``."""
        return self.file.save(path, overwrite)

    def __repr__(self) -> str:
        return (
            f"<Session {self.source!r} id={self.header.get('id')!r} "
            f"entries={len(self)} skipped={len(self.diagnostics)}>"
        )

    # -- the answers -------------------------------------------------------------------

    @property
    def default_leaf(self) -> int | None:
        """Pi's leaf after loading (``SessionManager.open``): the last entry in file order,
        whatever its type; None, an empty context, when that entry's id is null."""
        return default_leaf(self.index)

    def leaves(self) -> list[int]:
        """Positions of the branch ends (entries no other entry has as parent)."""
        return list(self.shape.leaves)

    def roots(self) -> list[int]:
        """Positions of root entries (no parent, or a parent id not in the file)."""
        return list(self.shape.roots)

    def children(self) -> dict[int, list[int]]:
        """Children of every entry in Pi's order (timestamp, then file order)."""
        return self.shape.children_map()

    @cached_property
    def shape(self) -> Shape:
        """The tree's shape (``tree.Shape``): roots, leaves, children in Pi's order."""
        return Shape.of(self.index, self.timestamp_of, failure=self.failure)

    def tree(self) -> networkx.DiGraph:
        """The entry tree as a ``networkx.DiGraph`` (nodes are positions)."""
        return entry_graph(self.index, self.entry_lines, self.labels)

    @cached_property
    def labels(self) -> dict[object, object]:
        """Resolved labels: target id (``js_key``) -> label."""
        return resolved_labels(self.file.entries_of_type("label"))

    @cached_property
    def name(self) -> str | None:
        """The session name (latest ``session_info``), or None."""
        positions = of_type(self.index, "session_info")[-1:]  # (the latest decides alone)
        entries = self.entries_at(positions)
        return session_name(entries, lambda k, reason: self.failure(positions[k], reason))

    def label_of(self, position: int) -> object:
        """The label of the entry at ``position`` (None: none). A label is whatever JSON
        value Pi keeps (any truthy one, ``{}`` included): show it with ``js.value.plain``.

        >>> s = load("tour")
        >>> s.label_of(s.position_of("a2000001"))
        'first answer'
        """
        key = js_key(self.index.ids[position])
        return None if key is NO_KEY else self.labels.get(key)

    def problems(self) -> dict[str, Any]:
        """Structural damage: dangling parents, duplicate ids and cycles (``tree.problems``)."""
        return problems(self.index)

    def _leaf(self, leaf_id: object = None) -> int | None:
        return self.default_leaf if leaf_id is None else self.position_of(leaf_id)

    def _asked(self, step: Callable[..., Answer], leaf_id: object, *args: object) -> Answer:
        """``step(index, leaf, *args)`` for a leaf id, its errors naming the file's line."""
        try:
            return step(self.index, self._leaf(leaf_id), *args)
        except SessionFormatError as exc:
            raise self.located(exc) from None

    def path_positions(self, leaf_id: object = None) -> list[int]:
        """Positions from the root to the leaf (default: ``default_leaf``)."""
        return self._asked(seam.path, leaf_id)

    def path(self, leaf_id: object = None) -> list[object]:
        """The entries from the root to the leaf (default: ``default_leaf``)."""
        return [self.entry(p) for p in self.path_positions(leaf_id)]

    def steps(self, leaf_id: object = None, edits: bool = True) -> Steps:
        """Steps 1 to 4 of the rule for a leaf (``seam.steps``): path, settings,
        selection and context edits (``edits=False``: none collected).

        >>> steps = load("tour").steps()
        >>> len(steps.path), len(steps.selection.positions), len(steps.edits)
        (22, 12, 1)
        """
        return self._asked(seam.steps, leaf_id, edits)

    def selection(self, leaf_id: object = None) -> Selection:
        """The selected entries for a leaf (Pi's ``buildContextEntries``), with the
        newest compaction, its kept range and the system messages it drops."""
        return self.steps(leaf_id, edits=False).selection

    def projection(self, leaf_id: object = None, edits: bool = True) -> Projection:
        """Each selected entry with the messages it contributed, after context edits
        (``edits=False``: as a reader that ignores them would build it).

        >>> p = load("tour").projection()
        >>> [(item.id, item.part) for item in p.items][:2]
        [('cp000001', 'compaction'), ('u2000001', 'kept')]
        """
        key = (self._asked(_leaf_itself, leaf_id), edits)
        last = self._last_projection
        if last is not None and last[0] == key:  # one command asks twice (checks, fates)
            return last[1]
        with paused_gc():  # many new objects, no cycles among them
            projection = self._asked(seam.project, leaf_id, edits)
        projection.context.html = _html
        for item in projection.items:
            item.line = self.line_of(item.position)
        self._last_projection = (key, projection)
        return projection

    #: the last projection asked for, by (leaf, edits)
    _last_projection: tuple[tuple[int | None, bool], Projection] | None = None

    def context_json(
        self, leaf_id: object = None, indent: int | None = 2, parallel: bool = False
    ) -> Iterator[bytes]:
        """``context(leaf_id).to_json(indent)`` as UTF-8 bytes, yielded a block of entries
        at a time: the same bytes, with the memory of a block (``pisession.engine.stream``;
        ``parallel``: a helper process writes a long context's second half).

        >>> s = load("tour")
        >>> b"".join(s.context_json()) == s.context().to_json(2).encode()
        True
        """
        from .engine.stream import context_json

        leaf = self._leaf(leaf_id)
        chunks = context_json(self.index, leaf, indent, self.file.raw_lines, parallel=parallel)
        try:
            yield from chunks
        except SessionFormatError as exc:
            raise self.located(exc) from None

    def refuse_too_deep(self, leaf_id: object = None) -> None:
        """Raise ``SessionFormatError`` (naming the line) where Pi's ``JSON.stringify``
        throws on the context at this leaf, a message nested deeper than it goes: what
        every command that shows a context says, in bounded time and memory
        (``js.json.too_deep_to_stringify``).

        >>> load("tour").refuse_too_deep()
        """
        if MSGSPEC_STOPS_FIRST and self.file.read_by_msgspec:
            # every line was read by msgspec, which refuses a value nested well before
            # JSON.stringify's limit: no message built from them comes near it, so no
            # context is built to look
            return
        try:
            context = self.context(leaf_id)
        except SessionFormatError:
            return  # not this error: each command says it in its own way (a cycle, ...)
        k = too_deep_to_stringify(context.messages)
        if k is not None:
            position = context.origins[k].position
            raise self.located(SessionFormatError(None, None, STRINGIFY_TOO_DEEP, position))

    def context(self, leaf_id: object = None) -> Context:
        """The model context at a leaf; ``.to_dict()`` is Pi's ``buildSessionContext``."""
        return self.projection(leaf_id).context

    def sent(
        self,
        leaf_id: object = None,
        model: object = None,
        now: int | None = None,
        version: str | None = None,
    ) -> Sent:
        """What the request carries at a leaf: pi-ai's last step (``pisession.request``)
        over ``context(leaf_id).to_llm()``, for ``model`` (a ``request.TargetModel`` or
        ``"provider/id"``; None: the model in force at the leaf), as Pi ``version`` does it;
        ``now`` is the ``Date.now()`` of the tool results pi-ai writes (default: now).

        >>> done = load("tour").sent(now=0)
        >>> [m["role"] for m in done.messages][:3], done.left_out
        (['system', 'user', 'user'], {})
        """
        done: Sent = self.context(leaf_id).sent(model, now, version, self._replies)
        return done

    def _replies(self) -> list[object]:
        """Every assistant message of the file, in file order (for a target model's API
        when no reply on the path names it)."""
        from .js.value import field

        roles = self.index.roles
        return [
            field(self.entry(p), "message") for p in range(len(self)) if roles[p] == "assistant"
        ]

    def system_prompt(self, leaf_id: object = None) -> SystemPrompt:
        """The system prompt and tools in force at a leaf, replayed from its context."""
        context = self.context(leaf_id)
        return replay_system_prompt(context.messages, context.located)

    def stats(self, leaf_id: object = None, branch: bool = False) -> SessionStats:
        """Usage, cost and counts for the whole session, or for one branch's path.

        >>> load("tour").stats().assistant_messages
        7
        """
        path = self.path_positions(leaf_id) if branch else None
        return counted_stats(self.counted, self.index.types, self.index.roles, path)

    def fates(self, leaf_id: object = None) -> Fates:
        """What happened to every entry for this leaf (see ``pisession.views.provenance``)."""
        from .views.provenance import entry_fates

        return entry_fates(self, leaf_id)

    def diff(self, leaf_a: object, leaf_b: object) -> LeafDiff:
        """Compare the contexts of two leaves (``pisession.views.diff.LeafDiff``)."""
        from .views.diff import diff_leaves

        return diff_leaves(self, leaf_a, leaf_b)

    def _repr_html_(self) -> str:
        from .views.display import session_html

        html: str = session_html(self)
        return html


def _leaf_itself(index: EntryIndex, leaf: int | None) -> int | None:
    """A step that answers with the leaf it is asked about (``Session._asked``)."""
    return leaf


def _html(value: Context | Projection) -> str:
    """A context's or a projection's HTML view in a notebook (``views.display``)."""
    from .views.display import notebook_html

    return notebook_html(value)


def loads(
    data: bytes, source: str = "<bytes>", new_id: IdFactory | None = None, migrate: bool = True
) -> Session:
    """Parse session bytes. Raises ``SessionFormatError`` when there is no valid header.

    >>> s = loads(b'{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/"}\\n'
    ...           b'{"type":"message","id":"a","parentId":null,"timestamp":"t",'
    ...           b'"message":{"role":"user","content":"hi"}}\\n')
    >>> s.context().to_dict()["messages"]
    [{'role': 'user', 'content': 'hi'}]
    """
    store, parsed, diagnostics, _ = read_source(bytes(data))
    return Session(
        SessionFile(source, store, *opened(store, parsed, diagnostics, source, new_id, migrate))
    )


def load(
    path_or_bytes: str | os.PathLike[str] | bytes,
    new_id: IdFactory | None = None,
    migrate: bool = True,
    complete_lines_only: bool = False,
    counting: bool = False,
) -> Session:
    """Read a session file (or bytes) without modifying it, migrating in memory like Pi.

    ``new_id`` sets how a v1 migration makes ids (``pisession.sequential_ids()`` for
    stable teaching output); ``migrate=False`` keeps legacy entries as they are.
    ``complete_lines_only=True`` is for a file Pi is still appending to: bytes after the
    last ``\\n`` are ignored (a diagnostic of kind ``"partial-line"`` says so), so a
    half-written entry is never seen; ``dumps()`` then returns the complete lines only.
    ``counting=True`` also reads the usage figures while reading the file, for a
    ``stats()`` that needs no second pass over it (the CLI's ``stats`` and ``export``).

    A string names a file as the command line's FILE does: a path (which wins), a
    bundled sample's name or the id (or a unique start of it) of a session stored in
    Pi's sessions folder.

    >>> from pisession.samples import sample_path
    >>> load(sample_path("tour")).name
    'Tour of the session format'
    >>> load("tour").name
    'Tour of the session format'
    >>> s = load(b'{"type":"session","version":3,"id":"s"}\\n{"type":"mess',
    ...          complete_lines_only=True)
    >>> len(s), [(d.line, d.kind) for d in s.diagnostics]
    (0, [(2, 'partial-line')])
    """
    if isinstance(path_or_bytes, str):
        path_or_bytes = named_file(path_or_bytes)
    store, parsed, diagnostics, source = read_source(path_or_bytes, complete_lines_only, counting)
    return Session(
        SessionFile(source, store, *opened(store, parsed, diagnostics, source, new_id, migrate))
    )


if TYPE_CHECKING:
    from .views.protocol import SessionLike

    def _a_session_is_session_like(session: Session) -> SessionLike:
        """mypy checks here that a ``Session`` has every member of the views' protocol."""
        return session
