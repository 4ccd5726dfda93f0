"""Finding the session files below one or several roots, as ``ls``, ``usage`` and
``search`` read them.

Pi writes ``<root>/--<cwd>--/<time>_<id>.jsonl`` (or, with a custom session directory,
``<root>/<time>_<id>.jsonl``): every ``.jsonl`` file there is read, and one that is not a
session is named as a problem by the command that reads it. Extensions write more below a
project folder: pi-subagents keeps its child sessions in sub-folders, and derived
transcripts (``subagent-artifacts/<run>_<agent>.jsonl``, an event stream) beside them.
So deeper down, and in any ``subagent-artifacts`` folder, a ``.jsonl`` file counts only
when its first line is a Pi session header (``"type": "session"`` with a string ``id``);
the others are skipped and counted. Folders
are followed through symbolic links; a link back into a folder being walked (a loop) and a
folder that cannot be read are each reported on one line and skipped. A file reached twice
(two roots that overlap, a link) is listed once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..headers import session_header

#: Folders below a root whose ``.jsonl`` files are all read (the root and its project folders).
PI_LEVELS = 1

#: Folders of derived transcripts, wherever they are: only Pi session files are read there.
DERIVED = frozenset({"subagent-artifacts"})


@dataclass
class Found:
    """The session files found (roots in the order given, each folder walked in the
    order of its names, a sub-folder where its name comes), the files
    below project folders that are not Pi sessions, and one line per folder skipped."""

    files: list[Path] = field(default_factory=list)
    not_sessions: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def is_session_file(path: str | os.PathLike[str]) -> bool:
    """Whether the file's first line is a Pi session header (type ``session``, a string
    ``id``), a UTF-8 byte order mark allowed.

    >>> from pisession.samples import sample_path
    >>> is_session_file(sample_path("tour"))
    True
    """
    return session_header(path, bom=True) is not None


def find_sessions(roots: Iterable[str | os.PathLike[str]]) -> Found:
    """The session files below ``roots`` (a root may be a single file).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> (d / "--w--" / "child" / "subagent-artifacts").mkdir(parents=True)
    >>> head = '{"type":"session","id":"s","cwd":"/w"}\\n'
    >>> for name in ("--w--/a.jsonl", "--w--/child/b.jsonl"):
    ...     _ = (d / name).write_text(head)
    >>> _ = (d / "--w--/child/subagent-artifacts/run_worker.jsonl").write_text('{"event":1}\\n')
    >>> (d / "--w--" / "child" / "loop").symlink_to(d / "--w--")
    >>> found = find_sessions([d])
    >>> [str(p.relative_to(d)) for p in found.files], len(found.not_sessions)
    (['--w--/a.jsonl', '--w--/child/b.jsonl'], 1)
    >>> [p.split(": ", 1)[1] for p in found.problems]
    ['a symbolic link back into a folder above it (a loop)']
    """
    found = Found()
    seen_files: set[tuple[int, int]] = set()
    seen_dirs: set[tuple[int, int]] = set()
    for root in roots:
        root = Path(root)
        try:
            stat = root.stat()
        except OSError as exc:
            found.problems.append(f"{root}: {exc.strerror or exc}")
            continue
        if root.is_dir():
            _walk(root, 0, [], found, seen_files, seen_dirs)
        elif (stat.st_dev, stat.st_ino) not in seen_files:
            seen_files.add((stat.st_dev, stat.st_ino))
            found.files.append(root)
    return found


def _walk(
    folder: Path,
    depth: int,
    above: list[tuple[int, int]],
    found: Found,
    seen_files: set[tuple[int, int]],
    seen_dirs: set[tuple[int, int]],
) -> None:
    try:
        stat = folder.stat()
        key = (stat.st_dev, stat.st_ino)
        if key in above:
            found.problems.append(f"{folder}: a symbolic link back into a folder above it (a loop)")
            return
        if key in seen_dirs:
            return  # reached before by another way
        seen_dirs.add(key)
        with os.scandir(folder) as listing:
            children = sorted(listing, key=lambda e: e.name)
    except OSError as exc:
        found.problems.append(f"{folder}: cannot be read ({exc.strerror or exc})")
        return
    for child in children:
        try:
            if child.is_dir():
                _walk(Path(child.path), depth + 1, [*above, key], found, seen_files, seen_dirs)
                continue
            if not child.name.endswith(".jsonl") or not child.is_file():
                continue
            child_stat = child.stat()
        except OSError:
            continue
        if (child_stat.st_dev, child_stat.st_ino) in seen_files:
            continue
        seen_files.add((child_stat.st_dev, child_stat.st_ino))
        path = Path(child.path)
        derived = depth > PI_LEVELS or folder.name in DERIVED
        if derived and not is_session_file(path):
            found.not_sessions.append(path)
        else:
            found.files.append(path)
