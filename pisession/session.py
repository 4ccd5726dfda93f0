"""The ``Session``: a session file read, migrated and indexed, with its answers.

``load`` takes three visible steps, each a function of its own module:

1. **read** (``reader.read_source``): the lines as Pi parses them, with diagnostics;
2. **migrate** (``migration.migrate``): v1/v2 files brought to v3 in memory;
3. **index** (``context.EntryIndex``): the columns the context rule reads.

The ``Session`` then only asks: ``context.project`` for the context of a leaf,
``provenance.entry_fates`` for the fate of every entry, ``tree`` for the shape.
It never writes to the file it read.
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path

from .engine import context as engine
from .engine.context import Context, EntryIndex, ProjectedEntry, Projection
from .engine.opening import Legacy, Rows, opened
from .engine.reader import Diagnostic, LineStore, ParsedLines, paused_gc, read_source
from .engine.stats import SessionStats
from .errors import CycleError, SessionFormatError, UnknownLeafError
from .js.value import NO_KEY, UNDEFINED, js_key
from .js.value import field as js_field
from .locate import named_file
from .migration import (
    IdFactory,
    MigrationStep,
    rewrite_lines,
)
from .system_prompt import SystemPrompt, replay_system_prompt

__all__ = ["Context", "ProjectedEntry", "Projection", "Session", "load", "loads"]


class Session:
    """A parsed session file. Create one with ``pisession.load``.

    Entries stay the raw values of the file (unknown types and fields included), in
    file order, header excluded; ``entry_lines`` gives each one's line number. Every
    answer comes from the rule's steps (``pisession.engine.context``) over ``index``.
    """

    def __init__(self, source, store, header, lines, index, diagnostics, legacy=None, rows=None):
        self.source = source
        self._store = store
        self._rows: Rows | None = rows
        self._header = legacy.header if legacy else header
        self.entry_lines: tuple[int, ...] = tuple(lines)
        self.index: EntryIndex = index
        self.diagnostics: list[Diagnostic] = diagnostics
        self._legacy: Legacy | None = legacy
        version = js_field(header, "version")
        self.original_version = None if version is UNDEFINED else version
        self.migration_steps: list[MigrationStep] = legacy.steps if legacy else []
        self._cache: dict[int, object] = {}

    # --- reading ------------------------------------------------------------------

    @property
    def header(self) -> dict:
        """The header object (migrated when the file was a legacy version)."""
        return self._header  # type: ignore[return-value]

    @property
    def id(self) -> str:
        """The session id (the header's ``id``)."""
        return self.header["id"]

    @property
    def migrated(self) -> bool:
        """True when loading migrated a legacy (v1/v2) file in memory."""
        return self._legacy is not None

    def __len__(self) -> int:
        return len(self.entry_lines)

    def entry(self, position: int) -> object:
        """The full entry at ``position`` (file order, header excluded).

        >>> import pisession
        >>> pisession.load(pisession.sample_path("tour")).entry(4)["id"]
        'u1000001'
        """
        value = self._cache.get(position, UNDEFINED)
        if value is UNDEFINED:
            value = self._cache[position] = self.index.decode(position)
        return value

    @cached_property
    def entries(self) -> list:
        """All entries in file order, fully decoded (header excluded)."""
        return self.entries_at(range(len(self)))

    def entries_at(self, positions) -> list:
        """The full entries at these positions, the ones not read yet decoded together
        (one read of the file for neighbouring lines).

        >>> import pisession
        >>> [e["id"] for e in pisession.load(pisession.sample_path("tour")).entries_at([4, 5])]
        ['u1000001', 'a1000001']
        """
        cache = self._cache
        missing = [p for p in dict.fromkeys(positions) if p not in cache]
        cache.update(zip(missing, self.index.entries(missing)))
        return [cache[p] for p in positions]

    def line_of(self, position: int) -> int:
        """File line number of the entry at ``position``."""
        return self.entry_lines[position]

    def position_of(self, entry_id: object) -> int:
        """Position of the entry with this id (the later one when ids repeat)."""
        found = self.index.position_of(entry_id)
        if found is None:
            raise UnknownLeafError(self.source, entry_id)
        return found

    # --- the tree -----------------------------------------------------------------

    @property
    def default_leaf(self) -> int | None:
        """Pi's leaf after loading: the last entry in file order, whatever its type."""
        return engine.default_leaf(self.index)

    def leaves(self) -> list[int]:
        """Positions of the branch ends (entries no other entry has as parent)."""
        return self.shape.leaves

    def roots(self) -> list[int]:
        """Positions of root entries (no parent, or a parent id not in the file)."""
        return self.shape.roots

    def children(self) -> dict[int, list[int]]:
        """Children of every entry in Pi's order (timestamp, then file order)."""
        return self.shape.children_map()

    @cached_property
    def shape(self):
        """The tree's shape (``tree.Shape``): roots, leaves, children in Pi's order."""
        from .tree import Shape

        return Shape.of(self.index, self._timestamp, failure=self._failure)

    def _timestamp(self, position: int) -> object:
        return js_field(self.entry(position), "timestamp")

    def _failure(self, position: int, reason: str) -> SessionFormatError:
        """Where Pi throws on the entry at ``position``: a ``PiFailure`` naming its line."""
        return self._located(self.index.fail(position, reason))

    def tree(self):
        """The entry tree as a ``networkx.DiGraph`` (nodes are positions)."""
        from .tree import entry_graph

        return entry_graph(self.index, self.entry_lines, self.labels)

    @cached_property
    def labels(self) -> dict:
        """Resolved labels: target id (``js_key``) -> label."""
        from .tree import resolved_labels

        return resolved_labels(self._entries_of_type("label"))

    @cached_property
    def name(self) -> str | None:
        """The session name (latest ``session_info``), or None."""
        from .tree import session_name

        positions = engine.of_type(self.index, "session_info")
        entries = self.entries_at(positions)
        return session_name(entries, lambda k, reason: self._failure(positions[k], reason))

    def label_of(self, position: int) -> object:
        """The label of the entry at ``position`` (None: none). A label is whatever JSON
        value Pi keeps (any truthy one, ``{}`` included): show it with ``js.value.plain``.

        >>> import pisession
        >>> s = pisession.load(pisession.sample_path("tour"))
        >>> s.label_of(s.position_of("a2000001"))
        'first answer'
        """
        key = js_key(self.index.ids[position])
        return None if key is NO_KEY else self.labels.get(key)

    def _entries_of_type(self, kind: str) -> list:
        return self.entries_at(engine.of_type(self.index, kind))

    def problems(self) -> dict:
        """Structural damage: dangling parents, duplicate ids and cycles (positions)."""
        from .tree import dangling_parents, duplicate_ids, find_cycles

        index = self.index
        return {
            "dangling_parents": dangling_parents(index),
            "duplicate_ids": {} if index.unique_ids else duplicate_ids(index.ids),
            "cycles": find_cycles(index.parents),
        }

    # --- the context ----------------------------------------------------------------

    def _leaf(self, leaf_id: object = None) -> int | None:
        return self.default_leaf if leaf_id is None else self.position_of(leaf_id)

    def _located(self, error: SessionFormatError) -> SessionFormatError:
        """The error with the file's line number of the entry it concerns."""
        line = None if error.position is None else self.line_of(error.position)
        if isinstance(error, CycleError):
            return CycleError(self.source, line, error.cycle, error.position)
        return type(error)(self.source, line, error.reason, error.position)

    def path_positions(self, leaf_id: object = None) -> list[int]:
        """Positions from the root to the leaf (default: the last entry)."""
        try:
            return engine.walk_path(self.index, self._leaf(leaf_id))
        except SessionFormatError as exc:
            raise self._located(exc) from None

    def path(self, leaf_id: object = None) -> list:
        """The entries from the root to the leaf (default leaf: the last entry)."""
        return [self.entry(p) for p in self.path_positions(leaf_id)]

    def steps(self, leaf_id: object = None, edits: bool = True) -> engine.Steps:
        """Steps 1 to 4 of the rule for a leaf (``context.leaf_steps``): path, settings,
        selection and context edits (``edits=False``: none collected).

        >>> import pisession
        >>> steps = pisession.load(pisession.sample_path("tour")).steps()
        >>> len(steps.path), len(steps.selection.positions), len(steps.edits)
        (22, 12, 1)
        """
        try:
            return engine.leaf_steps(self.index, self._leaf(leaf_id), edits)
        except SessionFormatError as exc:
            raise self._located(exc) from None

    def selection(self, leaf_id: object = None) -> engine.Selection:
        """The selected entries for a leaf (Pi's ``buildContextEntries``), with the
        newest compaction, its kept range and the system messages it drops."""
        return self.steps(leaf_id, edits=False).selection

    def context_positions(self, leaf_id: object = None) -> list[int]:
        """Positions of the selected entries (Pi's ``buildContextEntries``)."""
        return self.selection(leaf_id).positions

    def context_entries(self, leaf_id: object = None) -> list:
        """The selected entries: compaction-aware, in context order."""
        return [self.entry(p) for p in self.context_positions(leaf_id)]

    def projection(self, leaf_id: object = None, edits: bool = True) -> Projection:
        """Each selected entry with the messages it contributed, after context edits
        (``edits=False``: as a reader that ignores them would build it).

        >>> import pisession
        >>> p = pisession.load(pisession.sample_path("tour")).projection()
        >>> [(item.id, item.part) for item in p.items][:2]
        [('cp000001', 'compaction'), ('u2000001', 'kept')]
        """
        try:
            with paused_gc():  # many new objects, no cycles among them
                projection = engine.project(self.index, self._leaf(leaf_id), edits)
        except SessionFormatError as exc:
            raise self._located(exc) from None
        for item in projection.items:
            item.line = self.line_of(item.position)
        return projection

    def context_json(self, leaf_id: object = None, indent: int | None = 2, parallel=False):
        """``context(leaf_id).to_json(indent)`` as UTF-8 bytes, yielded a block of entries
        at a time: the same bytes, with the memory of a block (``pisession.engine.stream``;
        ``parallel``: a helper process writes a long context's second half).

        >>> import pisession
        >>> s = pisession.load(pisession.sample_path("tour"))
        >>> b"".join(s.context_json()) == s.context().to_json(2).encode()
        True
        """
        from .engine.stream import context_json

        raw_lines = None if self._rows is None else self._rows.raw_lines
        chunks = context_json(self.index, self._leaf(leaf_id), indent, raw_lines, parallel=parallel)
        try:
            yield from chunks
        except SessionFormatError as exc:
            raise self._located(exc) from None

    def context(self, leaf_id: object = None) -> Context:
        """The model context at a leaf; ``.to_dict()`` is Pi's ``buildSessionContext``."""
        return self.projection(leaf_id).context

    def system_prompt(self, leaf_id: object = None) -> SystemPrompt:
        """The system prompt and tools in force at a leaf, replayed from its context."""
        context = self.context(leaf_id)
        return replay_system_prompt(context.messages, context.located)

    def stats(self, leaf_id: object = None, branch: bool = False) -> SessionStats:
        """Usage, cost and counts for the whole session, or for one branch's path.

        >>> import pisession
        >>> pisession.load(pisession.sample_path("tour")).stats().assistant_messages
        7
        """
        from .engine.stats import on_path, summed_columns

        columns = self._counted
        return summed_columns(on_path(columns, self.path_positions(leaf_id)) if branch else columns)

    @cached_property
    def _counted(self) -> list[list]:
        """What every entry adds to the statistics, a column per figure: as the file was
        read (``load(..., counting=True)``), or worked out now, once (``counted_columns``)."""
        from .engine.stats import counted_columns

        if self._rows is None:
            return counted_columns(self.index)
        return self._rows.parsed.counted or counted_columns(self.index, self._rows.raw_lines)

    def fates(self, leaf_id: object = None):
        """What happened to every entry for this leaf (see ``pisession.views.provenance``)."""
        from .views.provenance import entry_fates

        return entry_fates(self, leaf_id)

    def diff(self, leaf_a: object, leaf_b: object):
        """Compare the contexts of two leaves (``pisession.views.diff.LeafDiff``)."""
        from .views.diff import diff_leaves

        return diff_leaves(self, leaf_a, leaf_b)

    # --- writing ----------------------------------------------------------------------

    def dumps(self) -> bytes:
        """The file's bytes: the original ones, exactly, unless loading migrated it.

        A migrated session is written line for line: changed entries are serialised as
        Pi would, every other line (including skipped ones) is kept byte for byte.
        """
        data = self._store.whole()
        if self._legacy is None:
            return data
        return rewrite_lines(data, self._legacy.rewritten)

    def readback_change(self, written: bytes | None = None) -> str | None:
        """How the migrated file, read back (``written``, default ``dumps()``), gives
        another context than this session in memory, and why (``findings.readback_change``)."""
        from .views.findings import readback_change

        if self._legacy is None:
            return None
        reread = loads(self.dumps() if written is None else written, self.source)
        return readback_change(self, reread, self._legacy.rewritten)

    def save(self, path: str | os.PathLike, overwrite: bool = False) -> Path:
        """Write ``dumps()`` to ``path`` atomically (temp file, fsync, rename).

        Refuses to replace an existing file unless ``overwrite`` is true.
        """
        from .files import atomic_write

        return atomic_write(path, self.dumps(), overwrite=overwrite)

    def _repr_html_(self) -> str:
        from .views.display import session_html

        return session_html(self)

    def __repr__(self) -> str:
        return (
            f"<Session {self.source!r} id={self.header.get('id')!r} "
            f"entries={len(self)} skipped={len(self.diagnostics)}>"
        )


def _html(value: Context | Projection) -> str:
    """A context's or a projection's HTML view in a notebook (``views.display``)."""
    from .views.display import context_html, projection_html

    return projection_html(value) if isinstance(value, Projection) else context_html(value)


engine.html_view = _html


def open_session(
    store: LineStore,
    parsed: ParsedLines,
    diagnostics: list[Diagnostic],
    source: str = "<bytes>",
    new_id: IdFactory | None = None,
    migrate_legacy: bool = True,
) -> Session:
    """Steps 2 and 3 of ``load`` (``opening.opened``) on what step 1 read."""
    return Session(
        source, store, *opened(store, parsed, diagnostics, source, new_id, migrate_legacy)
    )


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
    return open_session(store, parsed, diagnostics, source, new_id, migrate)


def load(
    path_or_bytes: str | os.PathLike | bytes,
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
    return open_session(store, parsed, diagnostics, source, new_id, migrate)
