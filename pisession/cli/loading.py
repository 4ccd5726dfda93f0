"""FILE and ``--leaf``: the session a command reads (a path, ``-``, a bundled sample or
a stored session's id) and the leaf it asks about.

>>> _load("tour").source
'pisession/samples/tour.jsonl'
"""

from __future__ import annotations

import bisect
import os
import sys
from pathlib import Path
from shlex import quote

import pisession

from ..engine.reader import read_stream
from ..errors import UnknownLeafError
from ..locate import NotFound, locate, session_roots
from ..samples import sample_names
from ..session import Session
from ..views.terminal import clean, end_note, note
from .report import CommandError

#: Files above this size get a "reading ..." note on stderr (when it is a terminal).
BIG_FILE = 8 * 1024 * 1024


def _roots() -> list[Path]:
    """The sessions folders a session id is looked up in: Pi's, then PiG's."""
    return session_roots()


def _shown_path(path: Path) -> str:
    """A bundled sample's path as the user can type it: relative when it is below the
    current folder, else absolute."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)
    return str(path) if relative.startswith("..") else relative


def _read_stdin() -> bytes:
    stdin = getattr(sys.stdin, "buffer", None)
    if stdin is None:
        raise CommandError("-: standard input is not available")
    if sys.stdin.isatty():
        note("pisession: reading a session from standard input (end it with Ctrl-D) ...")
    data = read_stream(stdin, "-")
    end_note()
    return data


def _load(path: str, deterministic: bool = True, counting: bool = False) -> Session:
    """Read the session ``path`` names (a file, ``-``, a sample, a stored session id);
    legacy files get sequential ids (``m0000001``...) so read-only commands print the
    same thing on every run and ``--leaf`` ids stay valid. ``counting``: read the usage
    figures on the way, for commands that show statistics (not from standard input)."""
    new_id = pisession.sequential_ids() if deterministic else None
    if path == "-":
        return pisession.loads(_read_stdin(), "<stdin>", new_id=new_id)
    shown = _resolve(path)
    try:
        size = os.path.getsize(shown)
    except OSError:
        size = 0
    if size > BIG_FILE:
        note(f"pisession: reading {shown} ({size / 1e6:.0f} MB) ...")
    try:
        return pisession.load(shown, new_id=new_id, counting=counting)
    finally:
        if size > BIG_FILE:
            end_note()


def _resolve(path: str) -> str:
    """The file FILE names: a path, a bundled sample's name or a stored session's id
    (``locate``), as it is shown in messages."""
    if os.path.isdir(path):
        raise CommandError(f"{path}: is a folder; to list its sessions: pisession ls {quote(path)}")
    try:
        found = locate(path, _roots)  # the roots only for an id: $HOME may be unsearchable
    except NotFound as exc:
        raise CommandError(str(exc)) from None
    return _shown_path(found) if path in sample_names() else str(found)


def _leaf(session: Session, leaf: str | None) -> str | None:
    """The ``--leaf`` value checked against the session: an entry id, or a unique start
    of one (as FILE takes a session id); a clear error if it names none or several.

    >>> import pisession
    >>> _leaf(pisession.load(pisession.sample_path("tour")), "a7")
    'a7000001'
    """
    if leaf is None:
        return None
    try:
        session.position_of(leaf)
        return leaf
    except UnknownLeafError as exc:
        error = exc
    starting = sorted({i for i in session.index.ids if isinstance(i, str) and i.startswith(leaf)})
    if len(starting) == 1:
        return starting[0]
    if starting:
        shown = ", ".join(clean(i) for i in starting[:8]) + (", ..." if len(starting) > 8 else "")
        raise CommandError(
            f"{session.source}: --leaf {leaf} starts {len(starting):,} entry ids ({shown}); "
            "give more of one"
        )
    raise CommandError(f"{error}{_line_hint(session, leaf) or _leaf_hint(session)}")


def _line_hint(session: Session, leaf: str) -> str:
    """For a ``--leaf`` that is a line number: which entry that line holds."""
    if not leaf.isdigit():
        return ""
    lines = session.entry_lines
    position = bisect.bisect_left(lines, int(leaf))
    if position == len(lines) or lines[position] != int(leaf):
        return f" (line {leaf} holds no entry; --leaf takes an entry's id)"
    ident = session.index.ids[position]
    if not isinstance(ident, str):
        return f" (line {leaf} holds an entry without a string id)"
    return f" (line {leaf} is entry {clean(ident)}: --leaf {clean(ident)})"


def _leaf_hint(session: Session) -> str:
    """Up to five leaves' ids, newest first, to name in an error."""
    ids = []
    for position in reversed(session.leaves()):
        ident = session.index.ids[position]
        if isinstance(ident, str):
            ids.append(clean(ident))
        if len(ids) == 5:
            break
    return f" (leaves: {', '.join(ids)}; pisession tree shows them all)" if ids else ""
