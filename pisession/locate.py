"""What a ``FILE`` argument of the command line names: a session file, ``-`` (standard
input), a bundled sample (``tour``), or a session Pi has stored, by id.

An id may be given whole, as a unique prefix (as Pi's ``--session`` takes it), or as
the part ``pisession ls`` shows. Pi's own rule decides what is a path: an argument with
``/`` or ``\\`` in it, or ending in ``.jsonl``, is always a path.

>>> looks_like_path("sessions/a.jsonl"), looks_like_path("tour"), looks_like_path("019a")
(True, False, False)
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from .errors import SessionFormatError
from .headers import session_header

#: A UUID of version 7: its first 12 hex digits are its creation time in milliseconds.
UUID7 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\Z", re.I)


class NotFound(Exception):
    """A ``FILE`` argument that names nothing (the message says what was tried)."""


@dataclass(frozen=True)
class Stored:
    """A stored session: its id and its file."""

    id: str
    path: Path


def looks_like_path(arg: str) -> bool:
    """Pi's rule for a ``--session`` argument: a path, not an id.

    >>> looks_like_path("a\\\\b"), looks_like_path("x.jsonl"), looks_like_path("abc")
    (True, True, False)
    """
    return "/" in arg or "\\" in arg or arg.endswith(".jsonl")


def short_id(session_id: str, length: int = 8) -> str:
    """The part of a session id that tells sessions apart: the random end of a UUIDv7
    (its start is the time it was made, the same for sessions of one afternoon), the
    start of any other id.

    >>> short_id("019a3c1e-5b7d-7a21-9f3e-4c8d2e6b1a9f"), short_id("0b5e55ed-7011-4a2c-9d2e")
    ('2e6b1a9f', '0b5e55ed')
    """
    if UUID7.match(session_id):
        return session_id[-length:]
    return session_id[:length]


def short_ids(session_ids: list[str]) -> list[str]:
    """``short_id`` of each id, lengthened where two would look the same.

    >>> short_ids(["aaaaaaaa-1", "aaaaaaaa-2", "bbbbbbbb-3"])
    ['aaaaaaaa-1', 'aaaaaaaa-2', 'bbbbbbbb']
    """
    out = []
    for session_id in session_ids:
        length = 8
        while length < len(session_id):
            shown = short_id(session_id, length)
            twins = [
                other
                for other in session_ids
                if other != session_id and short_id(other, length) == shown
            ]
            if not twins:
                break
            length += 4
        out.append(short_id(session_id, length))
    return out


def header_id(path: Path) -> str | None:
    """The session id in a file's first line (None: not a session file).

    >>> from pisession.samples import sample_path
    >>> header_id(sample_path("tour"))
    '0b5e55ed-7011-4a2c-9d2e-70a15e55104e'
    """
    header = session_header(path)
    return None if header is None else cast(str, header["id"])  # (a string: a header)


def stored_sessions(roots: list[Path]) -> list[Stored]:
    """Every session file under these sessions folders (first lines only are read).

    >>> from pisession.samples import sample_path
    >>> [s.id[:8] for s in stored_sessions([sample_path("tour").parent])][-1]
    '0b5e55ed'
    """
    from .files import iter_session_files

    out = []
    for root in roots:
        for path in iter_session_files(root):
            session_id = header_id(path)
            if session_id is not None:
                out.append(Stored(session_id, path))
    return out


def match_id(arg: str, stored: list[Stored]) -> list[Stored]:
    """The stored sessions ``arg`` names: the one with exactly that id, else those whose
    id starts with it, or (for a UUIDv7) ends with it.

    >>> s = [Stored("019a0000-0000-7000-8000-00000000abcd", Path("a")), Stored("0b5e", Path("b"))]
    >>> [m.path.name for m in match_id("abcd", s)], [m.path.name for m in match_id("0", s)]
    (['a'], ['a', 'b'])
    """
    exact = [s for s in stored if s.id == arg]
    if exact:
        return exact
    return [s for s in stored if s.id.startswith(arg) or (UUID7.match(s.id) and s.id.endswith(arg))]


def session_roots() -> list[Path]:
    """The sessions folders a stored session's id is looked up in: Pi's, then PiG's
    (those that exist).

    >>> all(root.is_dir() for root in session_roots())
    True
    """
    from .files import sessions_root

    return [root for root in (sessions_root("pi"), sessions_root("pig")) if root.is_dir()]


def locate(arg: str, roots: list[Path] | Callable[[], list[Path]]) -> Path:
    """The file ``arg`` names: an existing path, a bundled sample, or a stored session
    found by id under ``roots`` (or what ``roots()`` gives, asked only when ``arg`` is
    neither: a sessions folder that cannot be searched does not stand in the way of a
    path that exists). A path-like argument is returned as it is (reading it reports a
    missing file). Raises ``NotFound`` naming what was tried, or the sessions an
    ambiguous id matches.

    >>> locate("tour", []).name
    'tour.jsonl'
    >>> locate("tuor", [])
    Traceback (most recent call last):
    pisession.locate.NotFound: tuor: no such file, sample or stored session: did you mean tour?
    """
    from .samples import sample_names, sample_path

    path = Path(os.path.expanduser(arg))
    if looks_like_path(arg) or path.exists():
        return path
    if arg in sample_names():
        return sample_path(arg)
    roots = roots() if callable(roots) else roots
    matches = match_id(arg, stored_sessions(roots)) if arg else []
    if len(matches) == 1:
        return matches[0].path
    if matches:
        shown = ", ".join(m.id for m in matches[:4]) + (", ..." if len(matches) > 4 else "")
        raise NotFound(
            f"{arg}: names {len(matches)} stored sessions ({shown}); give more of the id"
        )
    where = f"looked in {', '.join(str(r) for r in roots)}" if roots else "none stored here yet"
    close = difflib.get_close_matches(arg, sample_names(), n=1, cutoff=0.6)
    if close:  # a sample's name mistyped, as a mistyped command is named
        raise NotFound(f"{arg}: no such file, sample or stored session: did you mean {close[0]}?")
    raise NotFound(
        f"{arg}: no such file, bundled sample ({', '.join(sample_names())}) or stored "
        f"session id ({where})"
    )


def named_file(arg: str) -> str | Path:
    """The file a string names, as ``load`` reads it (``locate``): a path as it is, else a
    sample or a stored session; a name that is none of these stays as it is, so reading
    it says so.

    >>> named_file("tour").name
    'tour.jsonl'
    """
    try:
        found = locate(arg, session_roots)
    except NotFound as exc:
        raise SessionFormatError(arg, None, str(exc).removeprefix(f"{arg}: ")) from None
    return arg if str(found) == os.path.expanduser(arg) else found
