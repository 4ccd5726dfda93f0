"""Search the text of session entries across a folder, and say what became of each hit.

What is searched is the text a session holds, never its JSON keys: the text and
thinking of messages, tool calls' names and arguments, tool results, bash commands and
their output, compaction and branch summaries, custom messages (``searched_texts``).
Every matching entry is one ``Hit``: where it is (file, line, entry id, type, role),
a one-line excerpt around the first match, and its *fate* at the session's default
leaf, read from ``Session.fates()`` (``pisession.views.provenance``; nothing here decides
what reached the model).

A file's bytes are looked at first: a line that cannot hold a literal pattern (neither
the pattern as JSON writes it nor any ``\\u`` escape) is never decoded, and a file with
no such line is not opened as a session.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import cast

from ..errors import PisessionError
from ..js.value import UNDEFINED, js_string
from ..js.value import field as js_field
from .usage import map_sessions, session_name

#: Characters of context on each side of a match in an excerpt.
AROUND = 30

_SPACE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


@dataclass(frozen=True)
class Pattern:
    """What to look for: a literal text or a regular expression, with or without case."""

    text: str
    regex: bool = False
    ignore_case: bool = False

    @property
    def compiled(self) -> re.Pattern:
        """The pattern as a ``re`` pattern on text."""
        source = self.text if self.regex else re.escape(self.text)
        return re.compile(source, re.IGNORECASE if self.ignore_case else 0)

    def line_filter(self) -> re.Pattern | None:
        """A pattern on a line's bytes that every line holding a match also matches
        (None: every line may hold one, as for a regular expression).

        >>> f = Pattern("1+1").line_filter()
        >>> bool(f.search(b'{"text":"1+1=2"}')), bool(f.search(b'{"text":"11"}'))
        (True, False)
        """
        if self.regex or not self.text:
            return None
        if self.ignore_case and not self.text.isascii():
            return None  # case folding beyond ASCII is not a byte pattern
        flags = re.IGNORECASE if self.ignore_case else 0
        return re.compile(re.escape(_written(self.text)) + rb"|\\u", flags)


def _written(text: str) -> bytes:
    """``text`` as JSON writes it inside a string (``JSON.stringify``), in UTF-8."""
    return json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass")


def _strings(value: object) -> Iterator[str]:
    """Every string inside a JSON value (object keys left out), in order."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _block_texts(content: object) -> Iterator[tuple[str, str]]:
    if isinstance(content, str):
        yield "text", content
        return
    if not isinstance(content, list):
        return
    for block in content:
        kind = js_field(block, "type")
        if kind == "text" and isinstance(text := js_field(block, "text"), str):
            yield "text", text
        elif kind == "thinking" and isinstance(thought := js_field(block, "thinking"), str):
            yield "thinking", thought
        elif kind == "toolCall":
            name = js_field(block, "name")
            if isinstance(name, str):
                yield "tool call", name
            for text in _strings(js_field(block, "arguments")):
                yield "tool call", text


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
        message = js_field(entry, "message")
        role = js_field(message, "role")
        if role == "bashExecution":
            found = [("bash command", js_field(message, "command"))]
            found.append(("bash output", js_field(message, "output")))
            return [(what, text) for what, text in found if isinstance(text, str)]
        what = {"toolResult": "tool result", "custom": "custom message"}.get(cast(str, role))
        what = "system" if role == "system" else what
        texts = list(_block_texts(js_field(message, "content")))
        if role == "system":
            texts += [("system", t) for t in _strings(js_field(message, "sections"))]
        summary = js_field(message, "summary")
        if role in ("branchSummary", "compactionSummary") and isinstance(summary, str):
            texts.append(("summary", summary))
        return [(what or part, text) for part, text in texts]
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
class Hit:
    """One matching entry: where it is, the first match in an excerpt, how many matches
    the entry holds, and its fate at the session's default leaf."""

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

    def to_dict(self) -> dict:
        """The hit as plain JSON values (ids and types as ``String()`` when odd)."""
        out = asdict(self)
        for key in ("id", "type", "role"):
            value = out[key]
            out[key] = value if value is None or isinstance(value, str) else js_string(value)
        return out


class Hits(list):
    """The hits of a search, in folder order; ``to_records()`` for a data frame."""

    def to_records(self) -> list[dict]:
        """One plain dict per hit (``pandas.DataFrame(hits.to_records())``).

        >>> from pisession.samples import sample_path
        >>> hits = search_file(sample_path("tour"), Pattern("util.py"))
        >>> sorted({r["fate"] for r in hits.to_records()})
        ['compaction', 'kept', 'off-path', 'summarized']
        """
        return [hit.to_dict() for hit in self]


def _candidate_lines(data: bytes, pattern: Pattern) -> set[int] | None:
    """The 1-based numbers of the lines that may hold a match of ``pattern`` (None:
    every line); a plain byte search first, which rules most files out fast."""
    line_filter = pattern.line_filter()
    if line_filter is None:
        return None
    if pattern.ignore_case:
        offsets = sorted(m.start() for m in line_filter.finditer(data))
    else:  # bytes.find is many times faster than a regular expression with an alternative
        offsets = sorted([*_found(data, _written(pattern.text)), *_found(data, b"\\u")])
    lines = set()
    last_offset, last_line = 0, 1
    for offset in offsets:
        last_line += data.count(b"\n", last_offset, offset)
        last_offset = offset
        lines.add(last_line)
    return lines


def _cannot_match(handle, pattern: Pattern) -> bool:
    """Whether a file (an open binary handle) holds neither a plain-text pattern as JSON
    writes it nor a ``\\u`` escape, and starts with a session header: looked at through
    ``mmap``, without copying the file."""
    import mmap

    if pattern.regex or pattern.ignore_case or not pattern.text:
        return False
    try:
        view = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (ValueError, OSError):  # empty, or not a regular file
        return False
    with view:
        if view.find(_written(pattern.text)) != -1 or view.find(b"\\u") != -1:
            return False
        end = view.find(b"\n")
        return _plain_header(view[: end if end != -1 else len(view)])


def _found(data: bytes, needle: bytes) -> Iterator[int]:
    """Every offset of ``needle`` in ``data``."""
    at = data.find(needle)
    while at != -1:
        yield at
        at = data.find(needle, at + 1)


def _plain_header(data: bytes) -> bool:
    """Whether the first line is a session header Pi takes (type "session", a string
    id); files that do not start so are read in full, to say what is wrong with them.

    >>> _plain_header(b'{"type":"session","id":"s"}\\n'), _plain_header(b"\\x00garbage")
    (True, False)
    """
    import msgspec

    try:
        header = msgspec.json.decode(data[: data.find(b"\n")] if b"\n" in data else data)
    except msgspec.DecodeError:
        return False
    return js_field(header, "type") == "session" and isinstance(js_field(header, "id"), str)


def _role(entry: object) -> object:
    role = js_field(js_field(entry, "message"), "role")
    return None if role is UNDEFINED else role


def search_file(path, pattern: Pattern) -> Hits:
    """Every entry of one session file whose searched text matches ``pattern``, with its
    fate at the default leaf. Raises ``PisessionError`` (or ``OSError``) for a file that
    cannot be read as a session.

    >>> from pisession.samples import sample_path
    >>> for hit in search_file(sample_path("tour"), Pattern("tests/")):
    ...     print(hit.line, hit.fate, hit.excerpt)
    21 off-path Remember: tests live in tests/.
    24 kept Added tests/test_util.py with test_helper_…
    """
    from ..migration import sequential_ids
    from ..session import loads

    with open(path, "rb") as handle:
        if _cannot_match(handle, pattern):
            return Hits()  # no line can match, and the file is a session: not opened
        data = handle.read()
    lines = _candidate_lines(data, pattern)
    if lines is not None and not lines and _plain_header(data):
        return Hits()  # no line can match, and the file is a session: not opened
    session = loads(data, str(path), new_id=sequential_ids())  # a legacy file: stable ids
    return _hits_in(session, str(path), pattern, lines)


def _hits_in(session, path: str, pattern: Pattern, lines: set[int] | None) -> Hits:
    compiled = pattern.compiled
    positions: Sequence[int] = range(len(session))
    if lines is not None:
        positions = [p for p in positions if session.line_of(p) in lines]
    found = []
    for position, entry in zip(positions, session.entries_at(list(positions))):
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
    for position, entry, (what, text, start, end), count in found:
        fate = fates[position]
        shown, s, e = excerpt(text, start, end)
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
            )
        )
    return hits


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


def search_one(args: tuple) -> FileHits:
    """``search_file`` for ``search_folder``'s workers: never raises for a bad file."""
    path, pattern = args
    try:
        return FileHits(path, search_file(path, pattern))
    except PisessionError as exc:
        return FileHits(path, Hits(), str(exc))
    except OSError as exc:
        return FileHits(path, Hits(), f"{path}: {exc.strerror or exc}")
    except (RecursionError, MemoryError, ValueError) as exc:
        return FileHits(path, Hits(), f"{path}: cannot be read ({type(exc).__name__})")


@dataclass
class FolderHits:
    """The hits over a folder, how many files were searched, and the skipped ones."""

    hits: Hits
    files: int
    skipped: list[str]

    def to_records(self) -> list[dict]:
        """``Hits.to_records`` of every hit."""
        return self.hits.to_records()


def search_folder(
    paths: Iterable, pattern: Pattern, reached: bool | None = None, workers=None, progress=None
) -> FolderHits:
    """Search session files (in the order given); ``reached`` keeps only the hits that
    reached the model (True) or did not (False).

    >>> from pisession.samples import sample_path
    >>> found = search_folder([sample_path("tour")], Pattern("MAIN.PY", ignore_case=True),
    ...     reached=False, workers=1)
    >>> sorted({h.fate for h in found.hits})
    ['off-path', 'summarized']
    """
    files = [str(p) for p in paths]
    hits, skipped = Hits(), []
    jobs = [(path, pattern) for path in files]
    for result in map_sessions(search_one, jobs, workers, progress):
        if result.problem is not None:
            skipped.append(result.problem)
        hits.extend(h for h in result.hits if reached is None or h.reached == reached)
    return FolderHits(hits, len(files) - len(skipped), skipped)
