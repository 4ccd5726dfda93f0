"""The session file as read (``SessionFile``), and steps 2 and 3 of ``load`` once the
reader (step 1, ``reader.read_source``) has read the lines: the header checked, a legacy
file migrated in memory, the entries indexed.
``opened`` gives the parts a ``pisession.Session`` is made of; ``Rows`` is how the index
decodes an entry from the file's bytes when an answer needs it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import compress, islice, repeat
from operator import eq
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from ..errors import CycleError, SessionFormatError, UnknownLeafError
from ..headers import NO_ID, NOT_SESSION, header_fault
from ..js.value import UNDEFINED
from ..js.value import field as js_field
from ..migration import (
    CURRENT_VERSION,
    Change,
    IdFactory,
    MigrationStep,
    header_version,
    migrate,
    migrate_v1_to_v2,
    migrate_v2_to_v3,
    rewrite_lines,
    sequential_ids,
)
from . import schemas
from .index import EntryIndex, of_type
from .reader import (
    Diagnostic,
    LineStore,
    ParsedLines,
    parse_halves,
    parse_lines,
    paused_gc,
    read_source,
)

if TYPE_CHECKING:
    import msgspec

    from .stats import Counted


#: How the fast writer decodes the lines of some rows: ``raw_lines(rows, decoder)`` with a
#: msgspec decoder gives each row's value through it (None where it cannot).
RawLines = Callable[[Sequence[int], "msgspec.json.Decoder[Any]"], list[object]]


@dataclass
class Rows:
    """The entry rows of a file: its parsed lines without the header row(s)."""

    parsed: ParsedLines
    store: LineStore

    def decode(self, row: int) -> object:
        value = self.parsed.values.get(row, UNDEFINED)
        if value is UNDEFINED:
            value = self.store.value(self.parsed.starts[row], self.parsed.ends[row])
        return value

    def raw_lines(self, rows: Sequence[int], decoder: msgspec.json.Decoder[Any]) -> list[object]:
        """The lines of these rows through a msgspec ``decoder`` (None where it cannot:
        a line read by the slow path, or one it refuses)."""
        values, starts, ends = self.parsed.values, self.parsed.starts, self.parsed.ends
        if not values and back_to_back(rows, starts, ends):
            found: list[object] | None = self.store.span(
                starts[rows[0]], ends[rows[-1]], len(rows), decoder
            )
            if found is not None:
                return found
        plain = [r for r in rows if r not in values]
        decoded = iter(self.store.values([(starts[r], ends[r]) for r in plain], decoder))
        return [None if r in values else next(decoded) for r in rows]

    def counted(self, source: str) -> Counted:
        """What these rows add to the statistics (``stats.Counted``), the file's bytes read
        again through the reader, counting (in chunks, in two processes for a big file):
        the same route as ``load(..., counting=True)``. A file that changed since it was
        read is reported."""
        store = self.store
        if store.data is not None:
            again, _ = parse_lines(store.data, counting=True)
        else:
            again, _ = parse_halves(cast(str, store.path), store.size, counting=True)
        rows = _entry_rows(again, [], in_place=True)
        if rows.starts != self.parsed.starts or rows.ends != self.parsed.ends:
            raise SessionFormatError(
                source, None, "the file changed since it was read (read it again)"
            )
        return cast("Counted", rows.whole_counted())

    def decode_many(self, rows: Sequence[int]) -> list[object]:
        values, starts, ends = self.parsed.values, self.parsed.starts, self.parsed.ends
        if not values:
            return self.store.values([(starts[r], ends[r]) for r in rows])
        out = []
        plain = [r for r in rows if r not in values]
        decoded = iter(self.store.values([(starts[r], ends[r]) for r in plain]))
        for r in rows:
            out.append(values[r] if r in values else next(decoded))
        return out


def back_to_back(rows: Sequence[int], starts: Sequence[int], ends: Sequence[int]) -> bool:
    """Whether these rows are consecutive and their lines follow one another in the file
    with nothing between them (then they are one span of bytes).

    >>> from array import array
    >>> back_to_back([0, 1], array("q", [0, 4]), array("q", [3, 6]))
    True
    >>> back_to_back([0, 1], array("q", [0, 5]), array("q", [3, 6]))
    False
    """
    if not rows:
        return False
    first, last = rows[0], rows[-1]
    if last - first + 1 != len(rows) or list(rows) != list(range(first, last + 1)):
        return False
    # a line starts after the previous one's newline or later: equal sums, no gap
    lengths = sum(ends[first : last + 1]) - sum(starts[first : last + 1])
    return lengths + (last - first) == ends[last] - starts[first]


@dataclass(frozen=True)
class Legacy:
    """A v1/v2 file migrated in memory: the new header and entries, what each step
    changed, and every line's new value by its line number (for writing the file back
    line by line as Pi's rewrite does, second ``session`` lines included)."""

    header: dict[str, Any]  # JSON
    entries: list[object]
    steps: list[MigrationStep]
    rewritten: dict[int, object]


class SessionFile:
    """A session file as read: its header, its entries (decoded when first asked for and
    kept), their line numbers, the index, and its bytes (``dumps``: as read, or as Pi's
    migration rewrite writes them). A ``pisession.Session`` holds one and adds the
    answers; everything it asks of the file is public here.
    """

    def __init__(
        self,
        source: str,
        store: LineStore,
        header: dict[str, Any],
        lines: Sequence[int],
        index: EntryIndex,
        diagnostics: list[Diagnostic],
        legacy: Legacy | None = None,
        rows: Rows | None = None,
    ) -> None:
        self.source = source
        self._store = store
        self._rows = rows
        self._header = legacy.header if legacy else header
        self.entry_lines: Sequence[int] = lines  # an array: 8 bytes an entry
        self.index: EntryIndex = index
        self.diagnostics: list[Diagnostic] = diagnostics
        self._legacy = legacy
        version = js_field(header, "version")
        self.original_version: object = None if version is UNDEFINED else version
        self.migration_steps: list[MigrationStep] = legacy.steps if legacy else []
        self._cache: dict[int, object] = {}

    @property
    def header(self) -> dict[str, Any]:
        """The header object (migrated when the file was a legacy version)."""
        return self._header

    @property
    def id(self) -> str:
        """The session id (the header's ``id``)."""
        return cast(str, self.header["id"])  # checked a string when the file was opened

    @property
    def migrated(self) -> bool:
        """True when loading migrated a legacy (v1/v2) file in memory."""
        return self._legacy is not None

    @property
    def rewritten(self) -> dict[int, object]:
        """Every line a migration rewrite changes, by line number (empty: none migrated)."""
        return {} if self._legacy is None else self._legacy.rewritten

    @property
    def raw_lines(self) -> RawLines | None:
        """How the fast writer decodes the entries' lines with a msgspec decoder
        (``Rows.raw_lines``; None: a migrated file, whose entries are not its lines)."""
        return None if self._rows is None else self._rows.raw_lines

    @property
    def read_by_msgspec(self) -> bool:
        """True when msgspec read every entry line (none needed the slow, exact path):
        then no line holds a value nested deeper than msgspec goes."""
        return self._rows is not None and not self._rows.parsed.values

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
    def entries(self) -> list[object]:
        """All entries in file order, fully decoded (header excluded)."""
        return self.entries_at(range(len(self)))

    def entries_at(self, positions: Sequence[int]) -> list[object]:
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

    def entries_of_type(self, kind: str) -> list[object]:
        """The full entries of this ``type``, in file order.

        >>> import pisession
        >>> [e["label"] for e in pisession.load("tour").file.entries_of_type("label")]
        ['first answer']
        """
        return self.entries_at(of_type(self.index, kind))

    def forget(self, positions: Iterable[int]) -> None:
        """Drop the decoded entries at these positions from the cache (what a command
        that shows each entry once and writes as it goes has shown: memory then holds
        a block of entries, not all of them); asked for again, they are decoded again.

        >>> import pisession
        >>> s = pisession.load(pisession.sample_path("tour"))
        >>> first = s.entry(4); s.forget([4]); s.entry(4) is first, s.entry(4) == first
        (False, True)
        """
        cache = self._cache
        for position in positions:
            cache.pop(position, None)

    def decoded_lines(self, positions: Sequence[int], decoder: Any) -> list[Any] | None:
        """The lines of the entries at ``positions`` through a msgspec ``decoder`` (None for
        a line it refuses), or None when the entries are not read from lines (a migrated
        legacy file).

        >>> import msgspec, pisession
        >>> ids = msgspec.json.Decoder(dict[str, object])
        >>> pisession.load(pisession.sample_path("tour")).decoded_lines([4], ids)[0]["id"]
        'u1000001'
        """
        return None if self._rows is None else self._rows.raw_lines(positions, decoder)

    def line_of(self, position: int) -> int:
        """File line number of the entry at ``position``."""
        return self.entry_lines[position]

    def position_of(self, entry_id: object) -> int:
        """Position of the entry with this id (the later one when ids repeat)."""
        found = self.index.position_of(entry_id)
        if found is None:
            raise UnknownLeafError(self.source, entry_id)
        return found

    def timestamp_of(self, position: int) -> object:
        """The entry's ``timestamp`` as written (``UNDEFINED`` when it has none).

        >>> import pisession
        >>> pisession.load("tour").timestamp_of(4)
        '2026-11-30T09:00:35.000Z'
        """
        return self.field_of([position], "timestamp")[0]

    def field_of(self, positions: Sequence[int], name: str) -> list[object]:
        """The field ``name`` of the entries at ``positions`` as ``js_field`` reads it of
        each full entry (``UNDEFINED`` where absent): read alone from their lines, the
        rest skipped, where the full entry is not decoded already (a compaction's
        ``firstKeptEntryId`` without its long summary).

        >>> import pisession
        >>> pisession.load("tour").file.field_of([4, 5], "id")
        ['u1000001', 'a1000001']
        """
        cache, read = self._cache, {}
        wanted = [p for p in positions if p not in cache]
        if wanted and self._rows is not None:
            lines = cast("list[Any]", self._rows.raw_lines(wanted, schemas.field_decoder(name)))
            read = {p: line.value for p, line in zip(wanted, lines) if line is not None}
        return [read[p] if p in read else js_field(self.entry(p), name) for p in positions]

    def failure(self, position: int, reason: str) -> SessionFormatError:
        """Where Pi throws on the entry at ``position``: a ``PiFailure`` naming its line."""
        return self.located(self.index.fail(position, reason))

    def located(self, error: SessionFormatError) -> SessionFormatError:
        """The error with the file's line number of the entry it concerns.

        >>> import pisession
        >>> from pisession.errors import SessionFormatError
        >>> s = pisession.load("tour")
        >>> s.located(SessionFormatError(None, None, "why", 4)).line == s.line_of(4)
        True
        """
        line = None if error.position is None else self.line_of(error.position)
        if isinstance(error, CycleError):
            return CycleError(self.source, line, error.cycle, error.position)
        return type(error)(self.source, line, error.reason, error.position)

    @cached_property
    def counted(self) -> Counted:
        """What the entries add to the statistics and to Pi's usage breakdown
        (``stats.Counted``: the rows that add more than their type and role say): as the
        file was read (``load(..., counting=True)``), or by reading it again that way
        now, once (``Rows.counted``)."""
        from .stats import counted_columns

        if self._rows is None:
            return counted_columns(self.index)
        counted = self._rows.parsed.whole_counted()  # (None: not counted while read)
        return counted if counted is not None else self._rows.counted(self.source)

    def dumps(self) -> bytes:
        """The file's bytes: the original ones, exactly, unless loading migrated it.

        A migrated session is written line for line as Pi's rewrite writes it
        (``migration.rewrite_lines``): every entry serialised as ``JSON.stringify``
        does, every line Pi skips kept byte for byte. Where Pi's rewrite throws (a line
        nested too deep), a ``SessionFormatError`` names the line.
        """
        data = self._store.whole()
        if self._legacy is None:
            return data
        return rewrite_lines(data, self._legacy.rewritten, self.source)

    def save(self, path: str | os.PathLike[str], overwrite: bool = False) -> Path:
        """Write ``dumps()`` to ``path`` atomically (temp file, fsync, rename).

        Refuses to replace an existing file unless ``overwrite`` is true.
        """
        from ..files import atomic_write

        written: Path = atomic_write(path, self.dumps(), overwrite=overwrite)
        return written

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} {self.source!r} id={self.header.get('id')!r} "
            f"entries={len(self)} skipped={len(self.diagnostics)}>"
        )


class Opened(NamedTuple):
    """What a ``Session`` is made of: the header as read, the entries' line numbers,
    the index, the diagnostics, and either the legacy migration or the rows to decode."""

    header: dict[str, Any]  # JSON
    lines: Sequence[int]  # the entries' line numbers (an array)
    index: EntryIndex  # type: ignore[assignment]  # (shadows tuple.index, never called)
    diagnostics: list[Diagnostic]
    legacy: Legacy | None
    rows: Rows | None


def opened(
    store: LineStore,
    parsed: ParsedLines,
    diagnostics: list[Diagnostic],
    source: str = "<bytes>",
    new_id: IdFactory | None = None,
    migrate_legacy: bool = True,
) -> Opened:
    """Steps 2 and 3 of ``load`` on what step 1 read: the header checked, a legacy file
    migrated in memory, the entries indexed.

    >>> store, parsed, diagnostics, _ = read_source(b'{"type":"session","version":3,"id":"s"}\\n'
    ...     b'{"type":"message","id":"a","message":{"role":"user"}}\\n')
    >>> found = opened(store, parsed, diagnostics)
    >>> found.header["id"], list(found.lines), found.index.ids, found.legacy
    ('s', [2], ['a'], None)
    """
    header = _header(store, parsed, diagnostics, source)
    legacy_file = migrate_legacy and header_version(header) < CURRENT_VERSION
    rows = _entry_rows(parsed, diagnostics, in_place=not legacy_file)
    lines = rows.lines
    legacy = None
    if legacy_file:
        legacy = _migrated(parsed, store, header, new_id, source)
    if legacy is not None:
        return Opened(
            header, lines, EntryIndex.of(legacy.entries, source), diagnostics, legacy, None
        )
    decoding = Rows(rows, store)
    return Opened(header, lines, _indexed(rows, decoding, source), diagnostics, None, decoding)


def _header(
    store: LineStore, parsed: ParsedLines, diagnostics: list[Diagnostic], source: str
) -> dict[str, object]:
    """The header row's value, or a ``SessionFormatError`` saying why there is none."""
    if not len(parsed):
        raise SessionFormatError(source, None, "no session header: the file holds no JSON object")
    from ..migration import foreign_header, newer_version

    header = Rows(parsed, store).decode(0)
    fault = header_fault(header)
    if fault == NOT_SESSION:
        known = foreign_header(header)
        if known:
            raise SessionFormatError(source, parsed.lines[0], known)
        skipped = "".join(f"; line {d.line} was skipped: {d.message}" for d in diagnostics[:3])
        raise SessionFormatError(
            source,
            parsed.lines[0],
            'the first JSON object is not a session header (type "session"); '
            "Pi reads such a file as holding no entries" + skipped,
        )
    if fault == NO_ID:
        raise SessionFormatError(
            source, parsed.lines[0], 'the session header has no string "id"; Pi rejects the file'
        )
    header = cast("dict[str, object]", header)  # (type "session": header_fault says so)
    newer = newer_version(header, parsed.lines[0])
    if newer:
        diagnostics.append(newer)
    return header


def _entry_rows(
    parsed: ParsedLines, diagnostics: list[Diagnostic], in_place: bool = False
) -> ParsedLines:
    """The rows that are entries: all but the header and any later session header (Pi
    does not count those), each of which gets a diagnostic. ``in_place``: ``parsed``'s
    own columns lose the header row (no second copy of them)."""
    types = parsed.types
    extra: list[int] = []
    if types.count("session") > types[:1].count("session"):  # (a scan in C, as a rule none)
        extra = list(
            compress(range(1, len(parsed)), map(eq, islice(types, 1, None), repeat("session")))
        )
    for k in extra:
        message = "a second session header; Pi does not treat it as an entry"
        diagnostics.append(Diagnostic(parsed.lines[k], "extra-header", message))
    diagnostics.sort(key=lambda d: d.line)
    return parsed.without([0, *extra], in_place)


def _migrated(
    parsed: ParsedLines,
    store: LineStore,
    header: dict[str, Any],
    new_id: IdFactory | None,
    source: str,
) -> Legacy | None:
    """Step 2: a legacy file's values brought to version 3 (None: nothing changed)."""
    values = [header, *Rows(parsed, store).decode_many(range(1, len(parsed)))]
    try:
        migrated, steps = migrate(values, new_id=new_id)
    except SessionFormatError as exc:  # name the file and the line, not the index
        index = getattr(exc, "index", None)
        line = None if index is None else int(parsed.lines[index])
        raise SessionFormatError(source, line, exc.reason) from None
    if not steps:
        return None
    kept = [k for k in range(len(parsed)) if k == 0 or parsed.types[k] != "session"]
    entries = [migrated[k] for k in kept[1:]]
    # every line Pi's rewrite changes, second session lines included (version set there too)
    rewritten = {parsed.lines[k]: value for k, value in enumerate(migrated)}
    return Legacy(cast("dict[str, Any]", migrated[0]), entries, steps, rewritten)


def _indexed(rows: ParsedLines, decoding: Rows, source: str) -> EntryIndex:
    """Step 3: the rule's index of the entry rows, decoding entries from the store."""
    with paused_gc():  # many small objects, no cycles among them
        return EntryIndex.of_columns(
            rows.types,
            rows.ids,
            rows.parent_ids,
            rows.roles,
            decoding.decode,
            decoding.decode_many,
            source,
            rows.id_positions,
        )


def read_values(path_or_bytes: str | os.PathLike[str] | bytes) -> tuple[list[object], list[int]]:
    """The first step of ``load`` alone: every parsed value of a file (the header
    first) and its line number, before any migration.

    >>> values, lines = read_values(b'{"type":"session","id":"s"}\\n\\n{"type":"x"}\\n')
    >>> values, lines
    ([{'type': 'session', 'id': 's'}, {'type': 'x'}], [1, 3])
    """
    store, parsed, _, _ = read_source(path_or_bytes)
    return Rows(parsed, store).decode_many(range(len(parsed))), list(parsed.lines)


@dataclass
class MigrationView:
    """A file at one migration step: ``values`` (header at index 0) and what changed."""

    title: str
    version: object
    values: list[object]
    lines: list[int]
    changes: list[Change] = field(default_factory=list)

    @property
    def changed(self) -> set[tuple[int, str]]:
        """``(index, field)`` pairs the step changed."""
        return {(c.index, c.field) for c in self.changes}


def migration_views(path_or_bytes: str | os.PathLike[str] | bytes) -> list[MigrationView]:
    """The file as read, then after each migration step Pi would run (deterministic ids).

    >>> views = migration_views(b'{"type":"session","version":1,"id":"s"}\\n'
    ...                         b'{"type":"message","message":{"role":"hookMessage"}}\\n')
    >>> [v.title for v in views]
    ['as read (v1)', 'after v1 -> v2', 'after v2 -> v3']
    >>> views[1].values[1]["id"], views[2].values[1]["message"]["role"]
    ('m0000001', 'custom')
    """
    values, lines = read_values(path_or_bytes)
    header = values[0] if values and isinstance(values[0], dict) else {}
    version = header_version(header)
    views = [
        MigrationView(f"as read (v{header.get('version')})", header.get("version"), values, lines)
    ]
    if version < 2:
        values, step = migrate_v1_to_v2(values, sequential_ids())
        views.append(MigrationView("after v1 -> v2", 2, values, lines, step.changes))
    if version < 3:
        values, step = migrate_v2_to_v3(values)
        views.append(MigrationView("after v2 -> v3", 3, values, lines, step.changes))
    return views
