"""Search the text of session entries across a folder, and say what became of each hit.

What is searched is the text a session holds, never its JSON keys: the text and
thinking of messages, tool calls' names and arguments, tool results, bash commands and
their output, compaction and branch summaries, custom messages (``searched_texts``).
Every matching entry is one ``Hit``: where it is (file, line, entry id, type, role),
a one-line excerpt around the first match, and its *fate* at the session's default
leaf, read from ``Session.fates()`` (``pisession.views.provenance``; nothing here decides
what reached the model).

A file's bytes are looked at first (``ByteFilter``; over 64 MB, through ``mmap``): a
text every match holds (the pattern, or for a regular expression the longest plain run
at its top level, ``required_text``) is looked for as JSON writes it, in its forms when
case is ignored (``same_ignoring_case``: KELVIN SIGN is a ``k``), together with the
escapes through which a string holds one of its characters where the bytes do not show
it (``hiding_escapes``: ``\\uXXXX`` of that character, ``\\/`` for a slash). A file
with none of them is not read as a session (its bytes are read once, and parsed from
memory when they hold one); in the others, only the entries on lines with one are
decoded, and the fates are read for the files with a hit. Files are searched by worker
processes, in batches of about equal size, the biggest first.
"""

from __future__ import annotations

import mmap
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from ..errors import PisessionError
from ..headers import session_header
from ..js.value import UNDEFINED, js_string
from ..js.value import field as js_field
from ..message_text import NAMED, message_text
from ..message_text import content_texts as _block_texts
from .prefilter import (  # noqa: F401 (re-exported: the byte search's parts)
    ByteFilter,
    Searched,
    byte_filter,
    hiding_escapes,
    required_text,
    same_ignoring_case,
)
from .usage import Progress, map_sessions, session_name, worker_count

if TYPE_CHECKING:
    from ..engine.reader import ParsedLines
    from ..views.protocol import SessionLike

#: Characters of context on each side of a match in an excerpt.
AROUND = 30

_SPACE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


@dataclass(frozen=True)
class Pattern:
    """What to look for: a literal text or a regular expression, with or without case;
    ``word``: only where no letter, digit or ``_`` comes right before or after (grep -w).

    >>> bool(Pattern("port", word=True).compiled.search("the port:")), bool(
    ...     Pattern("port", word=True).compiled.search("report"))
    (True, False)
    """

    text: str
    regex: bool = False
    ignore_case: bool = False
    word: bool = False

    @property
    def compiled(self) -> re.Pattern[str]:
        """The pattern as a ``re`` pattern on text."""
        source = self.text if self.regex else re.escape(self.text)
        if self.word:
            source = rf"(?<!\w)(?:{source})(?!\w)"
        return re.compile(source, re.IGNORECASE if self.ignore_case else 0)

    def byte_filter(self) -> ByteFilter | None:
        """How to find, in a file's bytes, every place a match may be (None: anywhere,
        as for a regular expression without a text every match holds).

        >>> f = Pattern("1+1").byte_filter()
        >>> f.offsets(b'{"text":"1+1=2"}'), f.offsets(b'{"text":"11"}')
        ([9], [])
        """
        return byte_filter(self.text, self.regex, self.ignore_case)


def searched_texts(entry: object) -> list[tuple[str, str]]:
    """The texts of an entry that search looks at, each with what it is.

    >>> searched_texts({"type": "message", "message": {"role": "assistant", "content": [
    ...     {"type": "thinking", "thinking": "hm"},
    ...     {"type": "toolCall", "name": "bash", "arguments": {"command": "ls"}}]}})
    [('thinking', 'hm'), ('tool call', 'bash'), ('tool call', 'ls')]
    >>> searched_texts({"type": "compaction", "summary": "done so far"})
    [('summary', 'done so far')]
    """
    kind = js_field(entry, "type")
    if kind == "message":
        return message_text(js_field(entry, "message"), NAMED)
    if kind in ("compaction", "branch_summary"):
        summary = js_field(entry, "summary")
        return [("summary", summary)] if isinstance(summary, str) else []
    if kind == "custom_message":
        return [("custom message", text) for _, text in _block_texts(js_field(entry, "content"))]
    return []


def excerpt(text: str, start: int, end: int, around: int = AROUND) -> tuple[str, int, int]:
    """One line around ``text[start:end]``: at most ``around`` characters each side,
    line breaks and control characters as one space, ``…`` where it was cut; with the
    match's place in it.

    >>> excerpt("first line\\nthe port is 8080 now", 23, 27, around=8)
    ('…port is 8080 now', 9, 13)
    """
    lo, hi = max(0, start - around), min(len(text), end + around)
    before, match, after = (
        _SPACE.sub(" ", t) for t in (text[lo:start], text[start:end], text[end:hi])
    )
    before = ("…" if lo > 0 else "") + before
    after = after + ("…" if hi < len(text) else "")
    return before + match + after, len(before), len(before) + len(match)


@dataclass(frozen=True)
class Neighbour:
    """An entry next to a hit on the session's path: where it is and the start of its
    text (``searched_texts``; empty for an entry without one)."""

    line: int
    id: object
    type: object
    role: object
    timestamp: object
    text: str


@dataclass(frozen=True)
class Around:
    """How many entries to show before and after each hit, along its path: the hit's
    parent, grandparent, ... (``before``), and its child towards the session's default
    leaf, or where the hit is off that path its newest child, ... (``after``)."""

    before: int = 0
    after: int = 0


@dataclass(frozen=True)
class Hit:
    """One matching entry: where it is, the first match in an excerpt, how many matches
    the entry holds, and its fate at the session's default leaf; its timestamp, and the
    entries around it when asked (``Around``)."""

    file: str
    session: str
    name: str | None
    line: int
    id: object
    type: object
    role: object
    field: str
    excerpt: str
    start: int  # the match's place in ``excerpt``
    end: int
    matches: int
    fate: str
    reached: bool
    reason: str
    timestamp: object = None
    before: tuple[Neighbour, ...] = ()
    after: tuple[Neighbour, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The hit as plain JSON values (ids and types as ``String()`` when odd)."""
        out = asdict(self)
        for item in (out, *out["before"], *out["after"]):
            for key in ("id", "type", "role", "timestamp"):
                value = item[key]
                item[key] = value if value is None or isinstance(value, str) else js_string(value)
        return out


class Hits(list["Hit"]):
    """The hits of a search, in folder order; ``to_records()`` for a data frame."""

    def to_records(self) -> list[dict[str, Any]]:
        """One plain dict per hit (``pandas.DataFrame(hits.to_records())``): ``to_dict``
        without the entries around it (``before``, ``after``).

        >>> from pisession.samples import sample_path
        >>> hits = search_file(sample_path("tour"), Pattern("util.py"))
        >>> sorted({r["fate"] for r in hits.to_records()})
        ['compaction', 'kept', 'off-path', 'summarized']
        """
        flat = []
        for hit in self:
            record = hit.to_dict()
            del record["before"], record["after"]
            flat.append(record)
        return flat


def _plain_header(data: bytes) -> bool:
    """Whether the first line is a session header Pi takes (type "session", a string
    id); files that do not start so are read in full, to say what is wrong with them.

    >>> _plain_header(b'{"type":"session","id":"s"}\\n'), _plain_header(b"\\x00garbage")
    (True, False)
    """
    return session_header(data) is not None


def _role(entry: object) -> object:
    role = js_field(js_field(entry, "message"), "role")
    return None if role is UNDEFINED else role


def search_file(
    path: str | os.PathLike[str],
    pattern: Pattern,
    prefilter: bool = True,
    around: Around = Around(),
) -> Hits:
    """Every entry of one session file whose searched text matches ``pattern``, with its
    fate at the default leaf. Raises ``PisessionError`` (or ``OSError``) for a file that
    cannot be read as a session.

    The file's bytes are searched first (``Pattern.byte_filter``): a file with no place
    where a match may be is not read as a session, and only the entries on lines with
    one are decoded. ``prefilter=False`` decodes every entry: the reference the byte
    search is tested against.

    >>> from pisession.samples import sample_path
    >>> for hit in search_file(sample_path("tour"), Pattern("tests/")):
    ...     print(hit.line, hit.fate, hit.excerpt)
    21 off-path Remember: tests live in tests/.
    24 kept Added tests/test_util.py with test_helper_…
    """
    from ..engine.opening import SessionFile, opened
    from ..engine.reader import read_source
    from ..migration import sequential_ids
    from ..session import Session

    byte_filter = pattern.byte_filter() if prefilter else None
    offsets: list[int] | None = None
    source: str | os.PathLike[str] | bytes = path
    if byte_filter is not None:
        data, offsets = _places(path, byte_filter)
        if offsets == []:
            return Hits()  # no line can match, and the file is a session: not opened
        source = path if data is None else data  # bytes read once, not read again
    store, parsed, diagnostics, _ = read_source(source)
    # a legacy file gets stable ids
    opening = opened(store, parsed, diagnostics, str(path), new_id=sequential_ids())
    session = Session(SessionFile(str(path), store, *opening))
    positions: Sequence[int] = range(len(session))
    if offsets is not None:
        positions = _positions_at(session, parsed, offsets)
    if len(positions):
        session.refuse_too_deep()  # the fates shown are of a context Pi cannot write
    return _hits_in(session, str(path), pattern, positions, around)


def _places(
    path: str | os.PathLike[str], byte_filter: ByteFilter
) -> tuple[bytes | None, list[int] | None]:
    """The file's bytes, when it was read whole (up to ``reader.CHUNK``; a bigger one is
    looked at through ``mmap``, not copied), and ``byte_filter.offsets`` in it: ``[]``
    only when there are none and the file starts with a session header Pi takes (a file
    that does not is read in full, to say what is wrong with it); None: the file is not
    a regular one (a FIFO, say: read as it comes) or cannot be mapped."""
    import stat

    from ..engine.reader import CHUNK

    if not stat.S_ISREG(os.stat(path).st_mode):
        return None, None  # before opening it: opening a FIFO waits for a writer
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size <= CHUNK:
            data = handle.read()
            return data, _offsets_or_header(data, byte_filter)
        try:
            view = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError):
            return None, None
    with view:
        return None, _offsets_or_header(view, byte_filter)


def _offsets_or_header(data: Searched, byte_filter: ByteFilter) -> list[int] | None:
    """``byte_filter.offsets`` of ``data`` (bytes or a memory map); with none, ``[]``
    when the first line is a session header Pi takes, else None (read it in full)."""
    offsets = byte_filter.offsets(data)
    if offsets:
        return offsets
    end = data.find(b"\n")
    return [] if _plain_header(data[: end if end != -1 else len(data)]) else None


def _positions_at(session: SessionLike, parsed: ParsedLines, offsets: list[int]) -> list[int]:
    """The positions of the entries whose lines hold these file offsets (sorted).
    ``parsed``: the file's rows as read (``reader.read_source``), header included."""
    from bisect import bisect_right

    starts, ends, numbers = parsed.starts, parsed.ends, parsed.lines
    lines: set[int] = set()
    for offset in offsets:
        row = bisect_right(starts, offset) - 1
        if row >= 0 and offset < ends[row]:
            lines.add(numbers[row])
    entry_lines = session.entry_lines
    positions = (bisect_right(entry_lines, line) - 1 for line in sorted(lines))
    return [p for p in positions if p >= 0 and entry_lines[p] in lines]


def _hits_in(
    session: SessionLike,
    path: str,
    pattern: Pattern,
    positions: Iterable[int],
    around: Around = Around(),
) -> Hits:
    compiled = pattern.compiled
    positions = list(positions)
    found: list[tuple[int, object, tuple[str, str, int, int], int]] = []
    for position, entry in zip(positions, session.entries_at(positions)):
        first, count = None, 0
        for what, text in searched_texts(entry):
            for m in compiled.finditer(text):
                if m.end() == m.start():
                    continue
                count += 1
                if first is None:
                    first = (what, text, m.start(), m.end())
        if first is not None:
            found.append((position, entry, first, count))
    if not found:
        return Hits()
    fates = session.fates()
    header = session.header
    name = session_name(session)
    hits = Hits()
    near = _Near(session) if around.before or around.after else None
    for position, entry, (what, text, start, end), count in found:
        fate = fates[position]
        shown, s, e = excerpt(text, start, end)
        before, after = near.of(position, around) if near is not None else ((), ())
        hits.append(
            Hit(
                path,
                js_string(js_field(header, "id")),
                name,
                session.line_of(position),
                _plain(js_field(entry, "id")),
                _plain(js_field(entry, "type")),
                _plain(_role(entry)),
                what,
                shown,
                s,
                e,
                count,
                fate.fate,
                fate.reached_model,
                fate.reason,
                _plain(js_field(entry, "timestamp")),
                before,
                after,
            )
        )
    return hits


class _Near:
    """The entries along a session's paths around a position (``Around``)."""

    def __init__(self, session: SessionLike) -> None:
        self.session = session
        parents = session.index.parents
        self.parents = parents
        self.newest: dict[int, int] = {}
        for child, parent in enumerate(parents):
            if parent >= 0:
                self.newest[parent] = child  # the last in file order
        leaf = session.default_leaf
        path = session.path_positions() if leaf is not None else []
        self.towards_leaf = dict(pairwise(path))

    def of(
        self, position: int, around: Around
    ) -> tuple[tuple[Neighbour, ...], tuple[Neighbour, ...]]:
        before: list[int] = []
        at = position
        while len(before) < around.before and self.parents[at] >= 0:
            at = self.parents[at]
            before.append(at)
        after: list[int] = []
        at = position
        while len(after) < around.after:
            nxt = self.towards_leaf.get(at, self.newest.get(at))
            if nxt is None or nxt in after:
                break
            after.append(nxt)
            at = nxt
        return self._shown(before[::-1]), self._shown(after)

    def _shown(self, positions: list[int]) -> tuple[Neighbour, ...]:
        session = self.session
        out = []
        for position, entry in zip(positions, session.entries_at(positions)):
            texts = searched_texts(entry)
            text = excerpt(texts[0][1], 0, 0, around=60)[0] if texts else ""
            out.append(
                Neighbour(
                    session.line_of(position),
                    _plain(js_field(entry, "id")),
                    _plain(js_field(entry, "type")),
                    _plain(_role(entry)),
                    _plain(js_field(entry, "timestamp")),
                    text,
                )
            )
        return tuple(out)


def _plain(value: object) -> object:
    """A JSON value as itself, ``UNDEFINED`` as None."""
    return (
        value if value is None or isinstance(value, (str, int, float, bool, list, dict)) else None
    )


@dataclass
class FileHits:
    """``search_file``'s answer for one file of a folder, or why it was skipped."""

    path: str
    hits: Hits
    problem: str | None = None


def search_one(args: tuple[Any, ...]) -> FileHits:
    """``search_file`` for ``search_folder``'s workers: never raises for a bad file."""
    path, pattern, around = args if len(args) == 3 else (*args, Around())
    try:
        return FileHits(path, search_file(path, pattern, around=around))
    except PisessionError as exc:
        return FileHits(path, Hits(), str(exc))
    except OSError as exc:
        return FileHits(path, Hits(), f"{path}: {exc.strerror or exc}")
    except (RecursionError, MemoryError, ValueError) as exc:
        return FileHits(path, Hits(), f"{path}: cannot be read ({type(exc).__name__})")


def _search_batch(args: tuple[list[str], Pattern, Around]) -> list[FileHits]:
    paths, pattern, around = args
    return [search_one((path, pattern, around)) for path in paths]


def batches(paths: list[str], parts: int) -> list[list[str]]:
    """The files in about ``parts`` batches of about equal size, the biggest files
    first (so that the workers end together); a file bigger than a share is a batch
    alone.

    >>> import tempfile, pathlib; d = pathlib.Path(tempfile.mkdtemp())
    >>> for name, size in [("a", 50), ("b", 10), ("c", 30), ("d", 10)]:
    ...     _ = (d / name).write_bytes(b"x" * size)
    >>> [[pathlib.Path(p).name for p in b] for b in batches(sorted(map(str, d.iterdir())), 3)]
    [['a'], ['c', 'b'], ['d']]
    """
    sizes: dict[str, int] = {}
    for path in paths:
        try:
            sizes[path] = os.stat(path).st_size
        except OSError:
            sizes[path] = 0
    share = sum(sizes.values()) / max(1, parts)
    out: list[list[str]] = []
    size = share
    for path in sorted(paths, key=lambda p: -sizes[p]):
        if size >= share:
            out.append([])
            size = 0
        out[-1].append(path)
        size += sizes[path]
    return out


@dataclass
class FolderHits:
    """The hits over a folder, how many files were searched, and the skipped ones."""

    hits: Hits
    files: int
    skipped: list[str]

    def to_records(self) -> list[dict[str, Any]]:
        """``Hits.to_records`` of every hit."""
        return self.hits.to_records()


def search_folder(
    paths: Iterable[str | os.PathLike[str]],
    pattern: Pattern,
    reached: bool | None = None,
    workers: int | None = None,
    progress: Progress | None = None,
    around: Around = Around(),
    by_time: bool = False,
) -> FolderHits:
    """Search session files; the hits in the order of the files given (``by_time``: of
    their entries' timestamps, as JavaScript's ``Date`` reads them, hits without one
    last). ``reached`` keeps only the hits that reached the model (True) or did not
    (False); ``around`` adds the entries around each hit on its path. Worker
    processes (``usage.map_sessions``) take the files in batches of about equal size,
    the biggest first; ``progress(files done, files)`` after each batch.

    >>> from pisession.samples import sample_path
    >>> found = search_folder([sample_path("tour")], Pattern("MAIN.PY", ignore_case=True),
    ...     reached=False, workers=1)
    >>> sorted({h.fate for h in found.hits})
    ['off-path', 'summarized']
    """
    files = [str(p) for p in paths]
    pattern.byte_filter()  # worked out once, before the workers fork
    count = worker_count(workers, len(files))
    parts = len(files) if count == 1 else 24 * count  # one process: a file at a time
    jobs = [(batch, pattern, around) for batch in batches(files, parts)]
    results: dict[str, FileHits] = {}
    report = (lambda done, total: progress(len(results), len(files))) if progress else None
    for found in map_sessions(_search_batch, jobs, count, report, chunksize=1):
        results.update((r.path, r) for r in found)
    hits, skipped = Hits(), []
    for path in files:
        result = results[path]
        if result.problem is not None:
            skipped.append(result.problem)
        hits.extend(h for h in result.hits if reached is None or h.reached == reached)
    if by_time:
        hits = Hits(sorted(hits, key=_time_key))
    return FolderHits(hits, len(files) - len(skipped), skipped)


def _time_key(hit: Hit) -> tuple[bool, float]:
    """Hits by their entry's time (``new Date(timestamp)``), those without one last.

    >>> h = Hit("f", "s", None, 1, "a", "message", "user", "text", "", 0, 0, 1, "sent",
    ...     True, "", "2026-01-02T00:00:00Z")
    >>> _time_key(h)
    (False, 1767312000000)
    """
    from ..js.date import DateConversionError, js_time_ms

    try:
        when = js_time_ms(hit.timestamp) if hit.timestamp is not None else float("nan")
    except DateConversionError:
        when = float("nan")
    return (when != when, when if when == when else 0)
