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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..files import SessionInfo, list_sessions, read_session_info, resolve_cwd
from ..headers import session_header
from ..js.sort import v8_sort

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


def listed_sessions(
    roots: list[Path],
    found: Iterable[Path],
    cwd: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    skipped: Callable[[Path, str], None] | None = None,
) -> list[SessionInfo]:
    """The sessions ``pisession ls`` lists, newest first: what Pi's session list shows of
    each root (``listAll``, or ``list(cwd)``: ``files.list_sessions``), then the sessions
    in ``found`` (``find_sessions``' files) below project folders, which Pi's list does not
    read (child sessions of extensions), of ``cwd`` only when given. A ``cwd`` naming a
    folder of a root as Pi names it (``--home-me-work--``) lists that folder. ``progress``
    and ``skipped`` are ``list_sessions``' callbacks; a file of ``found`` that cannot be
    read is ``skipped`` too. ``ValueError``: a ``cwd`` that is a ``file://`` URL Node
    cannot convert either.

    >>> import shutil, tempfile
    >>> from pisession.samples import sample_path
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "--w--" / "child").mkdir(parents=True)
    >>> _ = shutil.copy(sample_path("tour"), root / "--w--" / "t.jsonl")
    >>> _ = shutil.copy(sample_path("legacy-v2"), root / "--w--" / "child" / "c.jsonl")
    >>> [i.path.name for i in listed_sessions([root], [])]
    ['t.jsonl']
    >>> nested = find_sessions([root]).files
    >>> sorted(i.path.name for i in listed_sessions([root], nested))
    ['c.jsonl', 't.jsonl']
    >>> shutil.rmtree(root)
    """
    infos = []
    for root in (r for r in roots if r.is_dir()):
        given = cwd
        if given is not None and given.startswith("--") and (root / given).is_dir():
            root, given = root / given, None  # a folder name Pi gave a cwd, as it is
        infos += list_sessions(root, progress=progress, cwd=given, skipped=skipped)
    listed = {os.path.realpath(i.path) for i in infos}
    tops = {os.path.realpath(r) for r in roots}
    wanted = None if cwd is None or cwd.startswith("--") else resolve_cwd(cwd)
    for path in found:  # only below project folders: Pi's list reads a root's folders
        real = os.path.realpath(path)  # (or the root itself when it has none), no deeper
        folder = os.path.dirname(real)
        if real in listed or folder in tops or os.path.dirname(folder) in tops:
            continue
        try:
            info = read_session_info(path)
        except OSError as exc:
            if skipped is not None:
                skipped(path, f"cannot read: {exc.strerror or exc}")
            continue
        if info is not None and (wanted is None or (info.cwd and resolve_cwd(info.cwd) == wanted)):
            infos.append(info)
    return v8_sort(infos, lambda a, b: float(b.modified_ms) - float(a.modified_ms))
