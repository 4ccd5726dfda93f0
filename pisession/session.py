"""The ``Session``: a session file read losslessly, with its tree and its contexts.

``load`` reads bytes (never writing to the file), parses them as Pi does, migrates
legacy versions in memory and returns a ``Session``. Its methods answer the chapter's
question for any leaf: which entries reached the model, with which messages, and why.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from . import context as ctx
from . import jsjson
from .errors import CycleError, SessionFormatError, UnknownLeafError
from .jsvalue import UNDEFINED, map_key, nullish, strict_equal
from .jsvalue import field as js_field
from .llm import to_llm
from .migration import CURRENT_VERSION, IdFactory, MigrationStep, header_version, migrate
from .reader import (
    Core,
    Diagnostic,
    Record,
    full_value,
    line_bounds,
    parse_records,
    structural_views,
)
from .stats import SessionStats, session_stats
from .system_prompt import SystemPrompt, replay_system_prompt
from .tree import (
    children_of,
    dangling_parents,
    duplicate_ids,
    entry_graph,
    find_cycles,
    leaves,
    resolved_labels,
    roots,
    session_name,
)

#: Why an entry is in the selection (see ``ProjectedEntry.why``).
WHY_PATH = "on the path"
WHY_COMPACTION = "newest compaction on the path"
WHY_KEPT = "kept range of the compaction"
WHY_AFTER = "after the compaction"


@dataclass
class ProjectedEntry:
    """One selected entry and the messages it contributed (after context edits)."""

    position: int
    line: int
    entry: dict
    messages: list
    why: str
    edit: dict | None = None

    @property
    def id(self) -> object:
        """The entry's id (None when it has none)."""
        value = js_field(self.entry, "id")
        return None if value is UNDEFINED else value


@dataclass
class Context:
    """The model context at a leaf: Pi's ``buildSessionContext`` result."""

    messages: list
    thinking_level: object
    model: dict | None
    leaf: int | None = None

    def to_dict(self) -> dict:
        """Exactly Pi's JSON shape: ``{"messages", "thinkingLevel", "model"}``."""
        out: dict = {"messages": self.messages}
        if self.thinking_level is not UNDEFINED:
            out["thinkingLevel"] = self.thinking_level
        out["model"] = self.model
        return out

    def to_llm(self) -> list:
        """The provider messages (Pi's ``convertToLlm``)."""
        return to_llm(self.messages)

    def to_json(self, indent: int | None = None) -> str:
        """``to_dict()`` serialised as ``JSON.stringify`` would."""
        return jsjson.dumps(self.to_dict(), indent)

    def _repr_html_(self) -> str:
        from .display import context_html

        return context_html(self)


@dataclass
class Projection:
    """Every selected entry with its messages: the provenance of each context message."""

    entries: list[ProjectedEntry]
    context: Context
    path: list[int] = field(default_factory=list)
    compaction: int | None = None
    #: position of the first entry of the compaction's kept range (None: nothing kept)
    first_kept: int | None = None

    @property
    def messages(self) -> list:
        """All context messages in order (the same list as ``context.messages``)."""
        return self.context.messages

    def _repr_html_(self) -> str:
        from .display import projection_html

        return projection_html(self)

    def source_of(self, message_index: int) -> ProjectedEntry:
        """The selected entry that contributed context message number ``message_index``."""
        seen = 0
        for item in self.entries:
            seen += len(item.messages)
            if message_index < seen:
                return item
        raise IndexError(message_index)


class Session:
    """A parsed session file. Create one with ``pisession.load``.

    Entries stay the raw dicts of the file (unknown types and fields included), in file
    order, header excluded; ``entry_lines`` gives each one's line number.
    """

    def __init__(
        self,
        data: bytes,
        records: list[Record],
        diagnostics: list[Diagnostic],
        source: str = "<bytes>",
        new_id: IdFactory | None = None,
        migrate_legacy: bool = True,
    ):
        self.source = source
        self._data = data
        self.diagnostics = diagnostics
        self._header_record = records[0]
        types = [_record_type(r) for r in records[1:]]
        entry_records = records[1:]
        if "session" in types:
            entry_records, types = [], types
            for record, kind in zip(records[1:], types):
                if kind == "session":
                    diagnostics.append(
                        Diagnostic(
                            record.line,
                            "extra-header",
                            "a second session header; Pi does not treat it as an entry",
                        )
                    )
                else:
                    entry_records.append(record)
            types = [kind for kind in types if kind != "session"]
        diagnostics.sort(key=lambda d: d.line)
        # Tuples of untracked values (ints, strings, gc=False records) leave the garbage
        # collector's view after its first look: a 200,000-entry session then adds
        # nothing to later full collections.
        self._records = tuple(records)
        self._entry_records = tuple(entry_records)
        self._record_types = tuple(types)
        self.entry_lines: tuple[int, ...] = tuple(r.line for r in entry_records)
        header = self._full(self._header_record)
        self.original_version = header.get("version")
        self.migration_steps: list[MigrationStep] = []
        self._migrated: list | None = None
        if migrate_legacy and header_version(header) < CURRENT_VERSION:
            values = [self._full(r) for r in records]
            try:
                migrated, steps = migrate(values, new_id=new_id)
            except SessionFormatError as exc:  # name the file and the line, not the index
                line = records[exc.index].line if hasattr(exc, "index") else None
                raise SessionFormatError(source, line, exc.reason) from None
            self.migration_steps = steps
            if steps:
                by_record = dict(zip(map(id, records), migrated))
                self._header_migrated = by_record[id(self._header_record)]
                self._migrated = [by_record[id(r)] for r in entry_records]

    # --- reading ------------------------------------------------------------------

    def _full(self, record: Record) -> object:
        return full_value(self._data, record)

    @property
    def header(self) -> dict:
        """The header object (migrated when the file was a legacy version)."""
        if self._migrated is not None:
            return self._header_migrated
        return self._full(self._header_record)  # type: ignore[return-value]

    @property
    def id(self) -> str:
        """The session id (the header's ``id``)."""
        return self.header["id"]

    @property
    def migrated(self) -> bool:
        """True when loading migrated a legacy (v1/v2) file in memory."""
        return self._migrated is not None

    def __len__(self) -> int:
        return len(self._entry_records)

    def entry(self, position: int) -> dict:
        """The full entry at ``position`` (file order, header excluded)."""
        if self._migrated is not None:
            return self._migrated[position]
        return self._full(self._entry_records[position])  # type: ignore[return-value]

    @cached_property
    def entries(self) -> list:
        """All entries in file order, fully decoded (header excluded)."""
        return [self.entry(p) for p in range(len(self))]

    @cached_property
    def _structure(self) -> list:
        """Light views of the entries (type, id, parentId, role, ...) for walking."""
        if self._migrated is not None:
            return self._migrated
        return structural_views(self._entry_records)

    # The context of a leaf is found from four columns (type, id, parentId and message
    # role of every entry, as JavaScript reads them), taken from the records' core views
    # without decoding anything else; only the entries that decide the answer are then
    # decoded in full and handed to the pure steps of ``pisession.context``.

    @cached_property
    def _columns(self) -> tuple[list, list, list, list]:
        if self._migrated is not None:
            return _value_columns(self._migrated)
        records = self._entry_records
        cores = [r.core for r in records]
        if None in cores:  # some lines were read by the slow path: mixed sources
            views = [r.core if r.core is not None else r.skeleton for r in records]
            return _value_columns(views)
        return (
            self._record_types,
            tuple(c.id for c in cores),
            tuple(c.parentId for c in cores),
            tuple(_GAP if (m := c.message) is None or m is UNDEFINED else m.role for c in cores),
        )

    @property
    def _types(self) -> list:
        return self._columns[0]

    @property
    def _ids(self) -> list:
        return self._columns[1]

    @cached_property
    def _index_and_uniqueness(self) -> tuple[dict, bool]:
        """``ctx.entry_index`` of the entries, and whether every entry has its own
        string id (then an id names exactly one entry)."""
        ids = self._ids
        if set(map(type, ids)) <= {str}:  # the usual case: the same index, faster
            index = dict(zip(ids, range(len(ids))))
            return index, len(index) == len(ids)
        return ctx.entry_index([{"id": i} for i in ids]), False

    @property
    def _index(self) -> dict:
        return self._index_and_uniqueness[0]

    @property
    def _unique_ids(self) -> bool:
        return self._index_and_uniqueness[1]

    @cached_property
    def _parents(self) -> list:
        """Parent position of every entry (None for a root), as ``ctx.parent_position``."""
        index = self._index
        return tuple(_parent(pid, index) for pid in self._columns[2])

    @cached_property
    def _message_gaps(self) -> frozenset:
        """Positions of ``message`` entries without a message object (Pi throws on them)."""
        roles = self._columns[3]
        return frozenset(
            p for p, kind in enumerate(self._types) if kind == "message" and roles[p] is _GAP
        )

    def _full_entries(self, positions: list[int]) -> dict:
        """Full entries by position (what the ``pisession.context`` steps index)."""
        return {p: self.entry(p) for p in positions}

    def view(self, position: int) -> object:
        """A light view of the entry at ``position``, decoded without the rest of the line:
        ``type``, ``id``, ``parentId``, ``timestamp``, ``message.role`` (and provider,
        model) and the fields that steer the context (``firstKeptEntryId``, ``targetId``,
        ``label``, ``name``, ...). Enough to walk, classify and label entries of a large
        file; ``entry(position)`` gives the whole entry.

        >>> import pisession
        >>> view = pisession.load(pisession.sample_path("tour")).view(4)
        >>> view["id"], view["message"]
        ('u1000001', {'role': 'user'})
        """
        return self._structure[position]

    def line_of(self, position: int) -> int:
        """File line number of the entry at ``position``."""
        return self.entry_lines[position]

    def position_of(self, entry_id: object) -> int:
        """Position of the entry with this id (the later one when ids repeat)."""
        key = map_key(entry_id)
        if key is None or key not in self._index:
            raise UnknownLeafError(self.source, entry_id)
        return self._index[key]

    # --- the tree -----------------------------------------------------------------

    @property
    def default_leaf(self) -> int | None:
        """Pi's leaf after loading: the last entry in file order, whatever its type."""
        return len(self) - 1 if len(self) else None

    def leaves(self) -> list[int]:
        """Positions of the branch ends (entries no other entry has as parent)."""
        # With the parent column given, only the length of ``entries`` is read: the type
        # column stands in for the structural views, which would cost a decode pass.
        return leaves(self._types, parents=self._parents)

    def roots(self) -> list[int]:
        """Positions of root entries (no parent, or a parent id not in the file)."""
        return roots(self._types, parents=self._parents)  # as in leaves()

    def children(self) -> dict[int, list[int]]:
        """Children of every entry in Pi's order (timestamp, then file order)."""
        return children_of(self._structure, self._index, self._parents)

    def tree(self):
        """The entry tree as a ``networkx.DiGraph`` (nodes are positions)."""
        return entry_graph(self._structure, self.entry_lines, self.labels, self._parents)

    @cached_property
    def labels(self) -> dict:
        """Resolved labels: target id -> label."""
        return resolved_labels(self._structure)

    @cached_property
    def name(self) -> str | None:
        """The session name (latest ``session_info``), or None."""
        return session_name(self._structure)

    def problems(self) -> dict:
        """Structural damage: dangling parents, duplicate ids and cycles (positions)."""
        return {
            "dangling_parents": dangling_parents(self._structure, parents=self._parents),
            "duplicate_ids": duplicate_ids(self._structure),
            "cycles": find_cycles(self._types, parents=self._parents),  # as in leaves()
        }

    # --- the context ----------------------------------------------------------------

    def _leaf_position(self, leaf_id: object = None) -> int | None:
        if leaf_id is None:
            return self.default_leaf
        return self.position_of(leaf_id)

    def _located(self, error: SessionFormatError, ids: Sequence = ()) -> SessionFormatError:
        line = None
        for entry_id in ids:
            key = map_key(entry_id)
            if key is not None and key in self._index:
                line = self.line_of(self._index[key])
                break
        if isinstance(error, CycleError):
            return CycleError(self.source, line, error.cycle)
        return type(error)(self.source, line, error.reason)

    def path_positions(self, leaf_id: object = None) -> list[int]:
        """Positions from the root to the leaf (default: the last entry)."""
        leaf = self._leaf_position(leaf_id)
        if leaf is None:
            return []
        # Walk parentId up from the leaf until the root, or until an entry of the path
        # walked first (kept, with each entry's rank, for the next leaves): a branch
        # shares that path up to there.
        base = self._base_path
        ranks = None
        if base is not None and leaf != base[-1]:
            ranks = self._base_ranks
        parent_ids, index = self._columns[2], self._index
        get = index.get
        tail: list[int] = []
        append = tail.append
        current: int | None = leaf
        for _ in range(len(parent_ids) + 1):
            if current is None:
                break
            if base is not None:  # a later walk: stop where it joins the first path
                if ranks is not None and current in ranks:
                    tail.reverse()
                    return [*base[: ranks[current] + 1], *tail]
                if current == base[-1]:
                    tail.reverse()
                    return [*base, *tail]
            append(current)
            pid = parent_ids[current]  # _parent(pid, index), with its usual case inlined
            current = (get(pid) if pid else None) if type(pid) is str else _parent(pid, index)
        else:
            try:  # more steps than entries: a parent cycle, which ctx.path_to reports
                return ctx.path_to(self._structure, leaf, self._index, self.source)
            except CycleError as exc:
                raise self._located(exc, exc.cycle) from None
        tail.reverse()
        if base is None:
            self._base_path = tuple(tail)
        return tail

    #: The first path walked (root first), shared by the paths of later leaves.
    _base_path: tuple[int, ...] | None = None

    @cached_property
    def _base_ranks(self) -> dict:
        """Rank of each entry of ``_base_path`` (built when a second leaf is asked for)."""
        return {position: rank for rank, position in enumerate(self._base_path)}

    def _settings(self, path: list[int]) -> ctx.Settings:
        """``ctx.context_settings`` for a path, reading only the entries that decide it
        (the last thinking-level change and the last model-deciding entry)."""
        types, roles = self._types, self._columns[3]
        gaps = self._message_gaps
        if gaps and not gaps.isdisjoint(path):  # Pi throws there
            first_gap = next(p for p in path if p in gaps)
            return ctx.context_settings(self._full_entries([first_gap]), [first_gap], self.source)
        thinking_at = model_at = None
        for rank in range(len(path) - 1, -1, -1):
            kind = types[path[rank]]
            if kind == "thinking_level_change":
                if thinking_at is None:
                    thinking_at = rank
            elif kind == "model_change" or (kind == "message" and roles[path[rank]] == "assistant"):
                if model_at is None:
                    model_at = rank
            else:
                continue
            if thinking_at is not None and model_at is not None:
                break
        deciding = [path[r] for r in sorted(r for r in (thinking_at, model_at) if r is not None)]
        return ctx.context_settings(self._full_entries(deciding), deciding, self.source)

    def _selection(self, path: list[int]) -> tuple[list[int], int | None, int, int | None]:
        """``ctx.kept_range`` for a path, plus the newest compaction, the number of
        entries kept from before it and the position of the first kept entry. The path is
        first trimmed to start at the first kept entry, which gives ``kept_range`` the same
        result without a full scan."""
        types = self._types
        for cut in range(len(path) - 1, -1, -1):
            if types[path[cut]] == "compaction":
                break
        else:
            return list(path), None, 0, None
        compaction = path[cut]
        first_kept = js_field(self.entry(compaction), "firstKeptEntryId")
        ids = self._ids
        if type(first_kept) is str and self._unique_ids:  # one entry can have that id
            target = self._index.get(first_kept)
            try:
                start = cut if target is None else path.index(target, 0, cut)
            except ValueError:
                start = cut
        elif type(first_kept) is str:  # strict equality with a string is ==
            try:
                start = [ids[p] for p in path[:cut]].index(first_kept)
            except ValueError:
                start = cut
        else:
            start = next((r for r in range(cut) if strict_equal(ids[path[r]], first_kept)), cut)
        first_kept = path[start] if start < cut else None
        path = path[start:]
        selected = ctx.kept_range(self._full_entries(path), path, self.source)
        kept = len(selected) - (len(path) - path.index(compaction))
        return selected, compaction, kept, first_kept

    def path(self, leaf_id: object = None) -> list:
        """The entries from the root to the leaf (default leaf: the last entry)."""
        return [self.entry(p) for p in self.path_positions(leaf_id)]

    def context_positions(self, leaf_id: object = None) -> list[int]:
        """Positions of the selected entries (Pi's ``buildContextEntries``)."""
        path = self.path_positions(leaf_id)
        try:
            return self._selection(path)[0]
        except ctx.PiFailure as exc:
            raise self._located(exc) from None

    def context_entries(self, leaf_id: object = None) -> list:
        """The selected entries: compaction-aware, in context order."""
        return [self.entry(p) for p in self.context_positions(leaf_id)]

    def projection(self, leaf_id: object = None) -> Projection:
        """Each selected entry with the messages it contributed, after context edits."""
        path = self.path_positions(leaf_id)
        try:
            settings = self._settings(path)
            selected, compaction, kept, first_kept = self._selection(path)
            full = [self.entry(p) for p in selected]
            edits = ctx.context_edits(full)
            items = []
            for rank, (position, entry) in enumerate(zip(selected, full)):
                edit = ctx.edit_for(edits, entry)
                if js_field(entry, "type") == "compaction" and rank > 0:
                    messages = []
                else:
                    messages = ctx.apply_context_edit(
                        ctx.entry_messages(entry, self.source), edit, self.source
                    )
                items.append(
                    ProjectedEntry(
                        position,
                        self.line_of(position),
                        entry,
                        messages,
                        _why(rank, compaction, kept),
                        edit,
                    )
                )
        except ctx.PiFailure as exc:
            raise self._located(exc) from None
        messages = [m for item in items for m in item.messages]
        leaf = path[-1] if path else None
        context = Context(messages, settings.thinking_level, settings.model, leaf)
        return Projection(items, context, path, compaction, first_kept)

    def context(self, leaf_id: object = None) -> Context:
        """The model context at a leaf; ``.to_dict()`` is Pi's ``buildSessionContext``."""
        return self.projection(leaf_id).context

    def system_prompt(self, leaf_id: object = None) -> SystemPrompt:
        """The system prompt and tools in force at a leaf, replayed from its context."""
        return replay_system_prompt(self.context(leaf_id).messages)

    def stats(self, leaf_id: object = None, branch: bool = False) -> SessionStats:
        """Usage, cost and counts for the whole session, or for one branch's path."""
        entries = self.path(leaf_id) if branch else self.entries
        return session_stats(entries)

    # --- writing ----------------------------------------------------------------------

    def dumps(self) -> bytes:
        """The file's bytes: the original ones, exactly, unless loading migrated it.

        A migrated session is written line for line: changed entries are serialised as
        Pi would, every other line (including skipped ones) is kept byte for byte.
        """
        if self._migrated is None:
            return self._data
        replaced = {r.line: v for r, v in zip(self._entry_records, self._migrated)}
        replaced[self._header_record.line] = self._header_migrated
        out = []
        starts, ends = line_bounds(self._data)
        for number, (start, end) in enumerate(zip(starts, ends), 1):
            raw = self._data[start:end]
            if number in replaced:
                ending = b"\r" if raw.endswith(b"\r") else b""
                raw = jsjson.dumps(replaced[number], keep_infinity=True).encode("utf-8") + ending
            out.append(raw)
        text = b"\n".join(out)
        return text + b"\n" if self._data.endswith(b"\n") else text

    def save(self, path: str | os.PathLike, overwrite: bool = False) -> Path:
        """Write ``dumps()`` to ``path`` atomically (temp file, fsync, rename).

        Refuses to replace an existing file unless ``overwrite`` is true.
        """
        from .files import atomic_write

        return atomic_write(path, self.dumps(), overwrite=overwrite)

    def fates(self, leaf_id: object = None) -> list:
        """What happened to every entry for this leaf (see ``pisession.provenance``)."""
        from .provenance import entry_fates

        return entry_fates(self, leaf_id)

    def _repr_html_(self) -> str:
        from .display import session_html

        return session_html(self)

    def __repr__(self) -> str:
        return (
            f"<Session {self.source!r} id={self.header.get('id')!r} "
            f"entries={len(self)} skipped={len(self.diagnostics)}>"
        )


#: The role column's mark for a ``message`` entry without a message object.
_GAP = object()


def _record_type(record: Record) -> object:
    """An entry's ``type`` from the record's core view (or its structural view)."""
    core = record.core
    return core.type if core is not None else js_field(record.skeleton, "type")


def _value_columns(values: Sequence) -> tuple[list, list, list, list]:
    """Type, id, parentId and message role of entries (dicts, other JSON values or
    ``Core`` views), as JavaScript reads them; ``_GAP`` marks a null/absent message."""
    types, ids, parent_ids, roles = [], [], [], []
    for value in values:
        if isinstance(value, Core):
            types.append(value.type)
            ids.append(value.id)
            parent_ids.append(value.parentId)
            message = value.message
            roles.append(_GAP if nullish(message) else message.role)
            continue
        types.append(js_field(value, "type"))
        ids.append(js_field(value, "id"))
        parent_ids.append(js_field(value, "parentId"))
        message = js_field(value, "message")
        roles.append(_GAP if nullish(message) else js_field(message, "role"))
    return tuple(types), tuple(ids), tuple(parent_ids), tuple(roles)


def _parent(parent_id: object, index: dict) -> int | None:
    """Position of the entry a ``parentId`` names (``ctx.parent_position`` for one id)."""
    if type(parent_id) is str:
        return index.get(parent_id) if parent_id else None
    return ctx.parent_position([{"parentId": parent_id}], 0, index)


def _why(rank: int, compaction: int | None, kept: int) -> str:
    """Why the entry of this rank in the selection is there (``kept``: how many entries
    the selection holds from before the compaction; they follow it)."""
    if compaction is None:
        return WHY_PATH
    if rank == 0:
        return WHY_COMPACTION
    return WHY_KEPT if rank <= kept else WHY_AFTER


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
    from .migration import foreign_header, newer_version

    records, diagnostics = parse_records(data)
    if not records:
        raise SessionFormatError(source, None, "no session header: the file holds no JSON object")
    first = records[0]
    header = first.skeleton
    if not isinstance(header, dict) or header.get("type") != "session":
        known = foreign_header(full_value(data, first))
        if known:
            raise SessionFormatError(source, first.line, known)
        skipped = "".join(f"; line {d.line} was skipped: {d.message}" for d in diagnostics[:3])
        raise SessionFormatError(
            source,
            first.line,
            'the first JSON object is not a session header (type "session"); '
            "Pi reads such a file as holding no entries" + skipped,
        )
    if not isinstance(header.get("id"), str):
        raise SessionFormatError(
            source, first.line, 'the session header has no string "id"; Pi rejects the file'
        )
    newer = newer_version(header, first.line)
    if newer:
        diagnostics.append(newer)
    return Session(data, records, diagnostics, source, new_id, migrate)


def load(
    path_or_bytes: str | os.PathLike | bytes,
    new_id: IdFactory | None = None,
    migrate: bool = True,
    complete_lines_only: bool = False,
) -> Session:
    """Read a session file (or bytes) without modifying it, migrating in memory like Pi.

    ``new_id`` sets how a v1 migration makes ids (``pisession.sequential_ids()`` for
    stable teaching output); ``migrate=False`` keeps legacy entries as they are.
    ``complete_lines_only=True`` is for a file Pi is still appending to: bytes after the
    last ``\\n`` are ignored (a diagnostic of kind ``"partial-line"`` says so), so a
    half-written entry is never seen; ``dumps()`` then returns the complete lines only.

    >>> from pisession.samples import sample_path
    >>> load(sample_path("tour")).name
    'Tour of the session format'
    >>> s = load(b'{"type":"session","version":3,"id":"s"}\\n{"type":"mess',
    ...          complete_lines_only=True)
    >>> len(s), [(d.line, d.kind) for d in s.diagnostics]
    (0, [(2, 'partial-line')])
    """
    from .reader import complete_lines

    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        data, source = bytes(path_or_bytes), "<bytes>"
    else:
        path = Path(path_or_bytes).expanduser()
        source = str(path)
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as exc:
            raise SessionFormatError(source, None, f"cannot read: {exc.strerror}") from None
    partial = None
    if complete_lines_only:
        data, partial = complete_lines(data)
    session = loads(data, source, new_id, migrate)
    if partial is not None:
        session.diagnostics.append(partial)
    return session
