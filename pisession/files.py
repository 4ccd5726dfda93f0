"""Session files on disk: where Pi keeps them, listing them, and writing safely.

Pi stores a session at ``<agentDir>/sessions/--<cwd>--/<timestamp>_<sessionId>.jsonl``.
``agentDir`` is ``$PI_CODING_AGENT_DIR`` or ``~/.pi/agent`` (PiG: ``$PIG_CODING_AGENT_DIR``
or ``~/.pig/agent``). A custom session directory (``--session-dir``, else
``$PI_CODING_AGENT_SESSION_DIR``, else the ``sessionDir`` setting) is not a new root: Pi
writes every project's files into that folder itself, with no ``--<cwd>--`` subfolder, and
picks a project's sessions out by the header's ``cwd``.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cmp_to_key
from pathlib import Path
from typing import IO, Any, cast

from .js import path as nodepath
from .js.collate import locale_compare
from .js.date import DateConversionError, js_time_ms, time_clip
from .js.json import LineDecodeError, loads
from .js.value import (
    UNDEFINED,
    ToPrimitiveError,
    field,
    js_number_value,
    js_string,
    js_trim,
    nullish,
    truthy,
)
from .tree import NameNotText, trimmed_name, v8_sort

AGENTS = {"pi": ("PI", ".pi"), "pig": ("PIG", ".pig")}


#: The path rules Pi resolves a cwd with: those of the machine Pi runs on.
RUNNING_PLATFORM = "win32" if sys.platform == "win32" else "posix"

_SHELL_DRIVE = re.compile(
    r"/(?:[mM][nN][tT]/|[cC][yY][gG][dD][rR][iI][vV][eE]/)?([a-zA-Z])(?:/([^\n\r\u2028\u2029]*))?\Z"
)


def _windows_shell_path(path: str) -> str:
    r"""Pi's ``normalizeWindowsShellPath``: ``/c/x``, ``/mnt/c/x``, ``/cygdrive/c/x`` become
    ``C:\x``."""
    if not path.startswith("/") or path.startswith("//") or "\\" in path:
        return path
    match = _SHELL_DRIVE.match(path)
    if not match:
        return path
    suffix = (match.group(2) or "").replace("/", "\\")
    return f"{match.group(1).upper()}:\\{suffix}"


def _pi_normalize_path(path: str, platform: str, home: str) -> str:
    """Pi's ``normalizePath`` with its default options (the part ``resolvePath`` uses)."""
    if platform == "win32":
        path = _windows_shell_path(path)
    if path == "~":
        return home
    if path.startswith("~/") or (platform == "win32" and path.startswith("~\\")):
        join = nodepath.win32_join if platform == "win32" else nodepath.posix_join
        return join(home, path[2:])
    if path.startswith("file://"):
        return file_url_path(path, platform)
    return path


def file_url_path(url: str, platform: str = "posix") -> str:
    """The path a ``file://`` URL names, as Node's ``fileURLToPath`` gives it (Pi reads a
    cwd given as such a URL so): percent escapes decoded, ``.`` and ``..`` resolved, the
    query and fragment left out. Raises ``ValueError`` where Node throws (a host, an
    encoded ``/``, an escape that is not UTF-8).

    >>> file_url_path("file:///home/reader/caf%C3%A9/./x/..")
    '/home/reader/café/'
    >>> file_url_path("file://example.com/x")
    Traceback (most recent call last):
    ...
    ValueError: 'file://example.com/x': File URL host must be "localhost" or empty on linux
    """
    from urllib.parse import unquote

    if platform != "posix":
        raise ValueError(f"{url!r}: pisession converts file:// URLs with POSIX rules only")
    rest = re.split(r"[?#]", url[len("file://") :], maxsplit=1)[0].replace("\\", "/")
    host, slash, path = rest.partition("/")
    if host.lower() not in ("", "localhost"):
        raise ValueError(f'{url!r}: File URL host must be "localhost" or empty on linux')
    segments: list[str] = []
    parts = path.split("/")
    for k, part in enumerate(parts):
        last = k == len(parts) - 1
        if part in (".", "%2e", "%2E"):
            if last:
                segments.append("")
        elif part.lower() in ("..", ".%2e", "%2e.", "%2e%2e"):
            if segments:
                segments.pop()
            if last:
                segments.append("")
        else:
            segments.append(part)
    pathname = slash + "/".join(segments)
    if re.search(r"%2f", pathname, re.IGNORECASE):
        raise ValueError(f"{url!r}: File URL path must not include encoded / characters")
    try:
        return unquote(pathname, errors="strict")
    except UnicodeDecodeError:
        raise ValueError(f"{url!r}: URIError: URI malformed") from None


def resolve_cwd(
    cwd: str, platform: str | None = None, base: str | None = None, home: str | None = None
) -> str:
    r"""The absolute working directory Pi names the folder after (its ``resolvePath``).

    ``~`` and ``~/...`` are expanded with ``home``; on Windows also ``~\...``, and Git Bash
    or WSL drive paths (``/c/work``, ``/mnt/c/work``) become ``C:\work``. The result is
    Node's ``path.resolve`` with the rules of ``platform`` (``"posix"`` or ``"win32"``;
    default: this machine, as Pi does), relative to ``base`` (Pi: ``process.cwd()``;
    default ``os.getcwd()``). ``home`` defaults to this user's home folder.

    >>> resolve_cwd("/home/x/./y/../", platform="posix")
    '/home/x'
    >>> resolve_cwd("~/demo", platform="posix", home="/home/reader")
    '/home/reader/demo'
    >>> resolve_cwd("/c/work", platform="win32", base="D:\\")
    'C:\\work'
    """
    platform = RUNNING_PLATFORM if platform is None else platform
    if platform not in ("posix", "win32"):
        raise ValueError(f"platform must be 'posix' or 'win32', not {platform!r}")
    base = os.getcwd() if base is None else base
    home = os.path.expanduser("~") if home is None else home
    path = _pi_normalize_path(cwd, platform, home)
    start = _pi_normalize_path(base, platform, home)
    if platform == "win32":
        if nodepath.win32_is_absolute(path):
            return nodepath.win32_resolve(path, cwd=base)
        return nodepath.win32_resolve(start, path, cwd=base)
    if nodepath.posix_is_absolute(path):
        return nodepath.posix_resolve(path, cwd=base)
    return nodepath.posix_resolve(start, path, cwd=base)


def safe_dir_name(resolved_cwd: str) -> str:
    r"""The folder name for an already resolved working directory (Pi's ``safePath``).

    One leading ``/`` or ``\`` is removed, then every ``/``, ``\`` and ``:`` becomes ``-``,
    and ``--`` goes around it.

    >>> safe_dir_name("C:\\work\\api")
    '--C--work-api--'
    """
    return "--" + re.sub(r"[/\\:]", "-", re.sub(r"^[/\\]", "", resolved_cwd)) + "--"


def session_dir_name(
    cwd: str, platform: str | None = None, base: str | None = None, home: str | None = None
) -> str:
    r"""The folder name Pi derives from a working directory: ``safe_dir_name(resolve_cwd(...))``.

    Pi resolves the path first (trailing separators, ``.`` and ``..``, relative paths,
    ``~``) with the path rules of the machine it runs on; ``platform``, ``base`` and
    ``home`` are those of :func:`resolve_cwd`. A Windows path is a Windows cwd only with
    ``platform="win32"``: on Linux or macOS Pi reads ``C:\work\api`` as a relative path.

    >>> session_dir_name("/home/reader/projects/demo-app", platform="posix")
    '--home-reader-projects-demo-app--'
    >>> session_dir_name("/home/x/", platform="posix")
    '--home-x--'
    >>> session_dir_name("C:\\work\\api", platform="win32")
    '--C--work-api--'
    """
    return safe_dir_name(resolve_cwd(cwd, platform, base, home))


def session_file_name(timestamp: str, session_id: str) -> str:
    """``<timestamp>_<sessionId>.jsonl`` with ``:`` and ``.`` of the time made ``-``.

    >>> session_file_name("2026-11-30T02:48:34.392Z", "01a2")
    '2026-11-30T02-48-34-392Z_01a2.jsonl'
    """
    return re.sub(r"[:.]", "-", timestamp) + f"_{session_id}.jsonl"


def _configured_dir(agent: str, env: Mapping[str, str] | None, setting: str) -> Path | None:
    """``$PI_CODING_AGENT_<setting>`` (``$PIG_...`` for PiG) with ``~`` expanded; None
    when it is unset or empty."""
    env = os.environ if env is None else env
    prefix, _ = AGENTS[agent]
    configured = env.get(f"{prefix}_CODING_AGENT_{setting}")
    return Path(configured).expanduser() if configured else None


def agent_dir(agent: str = "pi", env: Mapping[str, str] | None = None) -> Path:
    """``$PI_CODING_AGENT_DIR`` (or ``$PIG_...`` for PiG), else ``~/.pi/agent``.

    >>> str(agent_dir("pig", {"PIG_CODING_AGENT_DIR": "/tmp/pig"}))
    '/tmp/pig'
    """
    return _configured_dir(agent, env, "DIR") or Path.home() / AGENTS[agent][1] / "agent"


def sessions_root(agent: str = "pi", env: Mapping[str, str] | None = None) -> Path:
    """Where to look for sessions: ``$..._CODING_AGENT_SESSION_DIR`` if set (a flat folder:
    Pi writes the files there directly), else ``<agentDir>/sessions`` (one ``--<cwd>--``
    folder per working directory)."""
    return _configured_dir(agent, env, "SESSION_DIR") or agent_dir(agent, env) / "sessions"


def default_session_dir(cwd: str, agent: str = "pi", env: Mapping[str, str] | None = None) -> Path:
    """The folder Pi uses for sessions started in ``cwd`` (resolved as Pi does on this machine)."""
    return agent_dir(agent, env) / "sessions" / session_dir_name(cwd)


@dataclass
class SessionInfo:
    """One row of a session listing: the fields of Pi's ``SessionInfo`` (its session
    list). ``id`` and ``parent_session`` are the header's values as written (any JSON
    value; None where the field is missing); ``created`` and ``modified`` are None where
    JavaScript has an Invalid Date."""

    path: Path
    id: object
    cwd: str
    name: str | None
    parent_session: object
    created: datetime | None
    modified: datetime | None
    message_count: int
    first_message: str
    #: ``modified.getTime()``: what Pi sorts the list by (NaN for an Invalid Date)
    modified_ms: float = float("nan")


class NotListed(Exception):
    """Where Pi's ``buildSessionInfo`` throws: its session list leaves the file out."""


def _iso(ms: float) -> datetime | None:
    """A time value as a date; None for NaN and for times a Python date cannot hold
    (JavaScript's own limit is 8.64e15 ms either side of 1970: beyond, Invalid Date).

    >>> _iso(0).year, _iso(1.2e16), _iso(float("nan"))
    (1970, None, None)
    """
    if ms != ms or abs(ms) > 8.64e15:
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def _date_ms(ms: float) -> float:
    """``new Date(ms).getTime()``: the time clipped to whole milliseconds, NaN beyond
    JavaScript's range."""
    return time_clip(ms)


def message_text(message: dict[str, Any]) -> str:
    """Pi's ``extractTextContent``: a string content as it is, else the ``text`` of every
    text block, joined with spaces as JavaScript joins values (null: ``""``, an object:
    ``[object Object]``, an array: ``1,2``). Raises ``NotListed`` where Pi throws (a
    content that is neither a string nor an array, a block that is null).

    >>> blocks = [{"type": "text", "text": [1, 2]}, {"type": "text", "text": True}]
    >>> message_text({"content": blocks})
    '1,2 true'
    >>> message_text({"content": None})
    Traceback (most recent call last):
    ...
    pisession.files.NotListed: TypeError: content.filter is not a function
    """
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise NotListed("TypeError: content.filter is not a function")
    texts = []
    for block in content:
        if nullish(block):
            raise NotListed("TypeError: Cannot read properties of null (reading 'type')")
        if field(block, "type") == "text":
            text = field(block, "text")
            try:
                texts.append("" if nullish(text) else js_string(text))
            except ToPrimitiveError as exc:
                raise NotListed(str(exc)) from None
    return " ".join(texts)


@dataclass
class _Activity:
    """What a session listing gathers from the entries after the header."""

    name: str | None = None
    message_count: int = 0
    first_message: str = ""
    last_activity: float | None = None

    def add(self, entry: object) -> None:
        """Count one entry as Pi's ``buildSessionInfo`` does: a ``session_info`` names the
        session (the last one wins), every message counts, and a user or assistant message
        with content dates the activity (its own numeric timestamp, else the entry's) and
        may be the first user text. Raises ``NotListed`` where Pi throws."""
        kind = field(entry, "type")
        if kind == "session_info":
            try:
                self.name = trimmed_name(field(entry, "name"))
            except NameNotText as exc:
                raise NotListed(str(exc)) from None
        if kind != "message":
            return
        self.message_count += 1
        message = field(entry, "message")
        if nullish(message):
            raise NotListed("TypeError: Cannot read properties of undefined (reading 'role')")
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            return
        if "content" not in message or message["role"] not in ("user", "assistant"):
            return
        stamp = message.get("timestamp")
        if isinstance(stamp, (int, float)) and not isinstance(stamp, bool):
            when: float | None = js_number_value(stamp)
        else:
            try:
                when = js_time_ms(field(entry, "timestamp"))
            except DateConversionError as exc:
                raise NotListed(str(exc)) from None
            when = None if when != when else when
        if when is not None:
            self.last_activity = max(self.last_activity or 0, when)
        text = message_text(message)
        if text and not self.first_message and message["role"] == "user":
            self.first_message = text


def _pi_lines(handle: Iterable[bytes]) -> Iterator[bytes]:
    """The lines Node's ``readline`` gives for a file (``crlfDelay: Infinity``): split at
    ``\n``, ``\r\n`` and a lone ``\r``."""
    for raw in handle:
        raw = raw.rstrip(b"\n")
        if b"\r" in raw:
            yield from raw.split(b"\r")
        else:
            yield raw


def _line_values(handle: Iterable[bytes]) -> Iterator[object]:
    """The values of a file's lines that ``JSON.parse`` accepts and that are truthy (Pi's
    ``parseSessionEntryLine``: a ``{}`` or ``[]`` line is a value, ``0`` or ``null`` is
    not)."""
    for raw in _pi_lines(handle):
        if not raw.strip(b" \t\r\n\x0b\x0c"):
            text = raw.decode("utf-8", errors="replace")
            if not js_trim(text):
                continue
        try:
            value = loads(raw)
        except LineDecodeError:
            continue
        if truthy(value):
            yield value


def session_info(path: str | os.PathLike[str], mtime_ms: float | None = None) -> SessionInfo | None:
    """``read_session_info`` with a file that cannot be read left out too (None), as Pi's
    session list leaves it out.

    >>> session_info("/no/such/file.jsonl") is None
    True
    """
    try:
        return read_session_info(path, mtime_ms)
    except OSError:
        return None


def read_session_info(
    path: str | os.PathLike[str], mtime_ms: float | None = None
) -> SessionInfo | None:
    """Summarise one file as Pi's session list does (its ``buildSessionInfo``); None where
    Pi leaves the file out: no session header first, or an entry on which Pi throws;
    ``OSError`` where the file cannot be read. ``mtime_ms``: the file's modification
    time, if already known.

    Reads line by line (no migration, nothing written).

    >>> from pisession.samples import sample_path
    >>> info = read_session_info(sample_path("tour"))
    >>> info.message_count, info.first_message[:30]
    (16, 'List the files in src/.')
    """
    path = Path(path)
    activity = _Activity()
    try:
        if mtime_ms is None:
            mtime_ms = path.stat().st_mtime_ns / 1e6
        with open(path, "rb") as handle:
            values = _line_values(handle)
            header = next(values, None)
            if header is None or field(header, "type") != "session":
                return None
            for entry in values:
                activity.add(entry)
        created_ms = js_time_ms(field(header, "timestamp"))
    except (NotListed, DateConversionError):  # Pi's listing skips such a file too
        return None
    stamp = field(header, "timestamp")
    header_ms = js_time_ms(stamp) if isinstance(stamp, str) else float("nan")
    last = activity.last_activity
    if last is not None and last > 0:
        modified_ms = _date_ms(last)
    elif header_ms == header_ms:
        modified_ms = header_ms
    else:
        modified_ms = _date_ms(float(int(mtime_ms)))
    cwd = field(header, "cwd")
    session_id = field(header, "id")
    parent = field(header, "parentSession")
    return SessionInfo(
        path=path,
        id=None if session_id is UNDEFINED else session_id,
        cwd=cwd if isinstance(cwd, str) else "",
        name=activity.name,
        parent_session=None if parent is UNDEFINED else parent,
        created=_iso(created_ms),
        modified=_iso(modified_ms),
        message_count=activity.message_count,
        first_message=activity.first_message or "(no messages)",
        modified_ms=modified_ms,
    )


def iter_session_files(root: str | os.PathLike[str]) -> Iterator[Path]:
    """``*.jsonl`` files in ``root`` and in its per-cwd subfolders (one level down)."""
    root = Path(root)
    if not root.is_dir():
        return
    for child in sorted(root.iterdir()):
        if child.is_file() and child.suffix == ".jsonl":
            yield child
        elif child.is_dir():
            yield from sorted(p for p in child.glob("*.jsonl") if p.is_file())


def _jsonl_names(folder: Path) -> list[str]:
    try:
        return [name for name in os.listdir(folder) if name.endswith(".jsonl")]
    except OSError:
        return []


def _name_descending(a: str, b: str) -> int:
    """Pi's ``b.localeCompare(a)``."""
    return locale_compare(b, a)


def _newest_file_first(a: tuple[Path, float], b: tuple[Path, float]) -> float:
    """Pi's ``(b.mtimeMs - a.mtimeMs) || basename(b).localeCompare(basename(a))``."""
    newer = float(b[1]) - float(a[1])
    return newer if newer == newer and newer != 0 else locale_compare(b[0].name, a[0].name)


def listed_files(root: str | os.PathLike[str]) -> list[tuple[Path, float | None]]:
    """The files Pi's session list reads under ``root``, in its order, each with its
    modification time in ms (None: known only when read).

    A folder with subfolders that hold ``*.jsonl`` files is a sessions root
    (``<agentDir>/sessions``): Pi's ``SessionManager.listAll()`` reads the ``*.jsonl`` of
    each subfolder (a file directly in the root is not a session of any project), newest
    file first, then by name, descending. Any other folder is one session folder (Pi's
    ``listAll(dir)`` and ``list(cwd, dir)``): its own ``*.jsonl``, by name, descending.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.jsonl").write_text("{}"), (d / "b.jsonl").write_text("{}")
    >>> [p.name for p, _ in listed_files(d)]
    ['b.jsonl', 'a.jsonl']
    """
    root = Path(root)
    folders = _session_folders(root)
    if not folders:
        names = sorted(_jsonl_names(root), key=cmp_to_key(_name_descending))
        return [(root / name, None) for name in names]
    candidates: list[tuple[Path, float]] = []
    for folder in folders:
        for name in _jsonl_names(Path(folder.path)):
            path = Path(folder.path) / name
            try:
                mtime = path.stat().st_mtime_ns / 1e6
            except OSError:
                mtime = float("-inf")
            candidates.append((path, mtime))
    newest = v8_sort(candidates, _newest_file_first)
    return [(path, None if mtime == float("-inf") else mtime) for path, mtime in newest]


def _session_folders(root: Path) -> list[os.DirEntry[str]]:
    """The folders in ``root`` that hold ``.jsonl`` files: where there are any, ``root``
    is a sessions root (one folder per project); a folder beside session files that holds
    none (``__pycache__``, an empty project folder) does not make it one.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> (d / "__pycache__").mkdir()
    >>> _session_folders(d)
    []
    """
    try:
        children = list(os.scandir(root))
    except OSError:
        return []
    return [
        c
        for c in children
        if (c.is_symlink() or c.is_dir(follow_symlinks=False)) and _jsonl_names(Path(c.path))
    ]


def _has_folders(root: Path) -> bool:
    return bool(_session_folders(root))


def list_sessions(
    root: str | os.PathLike[str] | None = None,
    agent: str = "pi",
    env: Mapping[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
    cwd: str | None = None,
    skipped: Callable[[Path, str], None] | None = None,
) -> list[SessionInfo]:
    """Every session under ``root`` (default: Pi's sessions root) that Pi's session list
    shows, in its order: newest first (``modified``), ties in the order the files were
    read (``listed_files``). ``progress(done, total)`` is called after each file read.

    ``cwd``: the sessions of one working directory, as Pi's ``SessionManager.list(cwd)``
    gives them: in a sessions root, the files of the folder Pi names after ``cwd``; in
    one session folder, the files whose header ``cwd`` resolves to ``cwd`` (all of them
    when the folder is the one Pi names after ``cwd``). ``cwd`` may be a ``file://`` URL.
    ``skipped(path, reason)`` hears of each file that cannot be read (Pi's list leaves it
    out without a word).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.jsonl").write_text('{"type":"session","id":"x","cwd":"/w",'
    ...     '"timestamp":"2026-01-01T00:00:00Z"}\\n')
    >>> [i.id for i in list_sessions(d)]
    ['x']
    """
    root = sessions_root(agent, env) if root is None else Path(root)
    keep: Callable[[SessionInfo], bool] = lambda info: True  # noqa: E731
    if cwd is not None:
        resolved = resolve_cwd(cwd)
        if _has_folders(root):
            root = root / safe_dir_name(resolved)
        elif os.path.abspath(root) != os.path.abspath(default_session_dir(resolved, agent, env)):
            keep = lambda info: bool(info.cwd) and resolve_cwd(info.cwd) == resolved  # noqa: E731
    files = listed_files(root)
    infos = []
    for done, (path, mtime) in enumerate(files, 1):
        try:
            info = read_session_info(path, mtime)
        except OSError as exc:
            info = None
            if skipped is not None:
                skipped(path, f"cannot read: {exc.strerror or exc}")
        if info is not None and keep(info):
            infos.append(info)
        if progress is not None:
            progress(done, len(files))
    return v8_sort(infos, lambda a, b: float(b.modified_ms) - float(a.modified_ms))


#: Temp files of a write in progress: ``.<target name>.pisession-<pid>-<random>.tmp``.
TEMP_MARK = ".pisession-"


def temp_name_prefix(path: Path) -> str:
    """The prefix of every temp file a write to ``path`` makes (in the same folder).

    >>> temp_name_prefix(Path("/w/s.jsonl"))
    '.s.jsonl.pisession-'
    """
    return f".{path.name}{TEMP_MARK}"


def stale_temp_files(path: str | os.PathLike[str]) -> list[Path]:
    """Temp files left next to ``path`` by writes that were killed (their process is
    gone): ``.NAME.pisession-PID-XXXX.tmp``. A live writer's temp file is not stale.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / ".s.jsonl.pisession-999999999-ab.tmp").write_bytes(b"half")
    >>> [p.name for p in stale_temp_files(d / "s.jsonl")]
    ['.s.jsonl.pisession-999999999-ab.tmp']
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    prefix = temp_name_prefix(path)
    stale = []
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    for name in sorted(names):
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        pid_text = name[len(prefix) :].split("-", 1)[0]
        if pid_text.isdigit() and not _process_alive(int(pid_text)):
            stale.append(folder / name)
    return stale


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return pid < 2**22  # another user's process (or a pid no system has)
    return True


def atomic_write(
    path: str | os.PathLike[str], data: bytes | Iterable[bytes], overwrite: bool = False
) -> Path:
    """Write ``data`` (bytes, or pieces of them, written as they come) to ``path``
    through a temp file in the same folder, fsync, rename.

    A crash leaves either the old file or the new one, never half of one; the temp file
    a killed write leaves (``.NAME.pisession-PID-XXXX.tmp``) is removed by the next
    write to the same target. Refuses to replace an existing file (or any symlink, even
    a dangling one) unless ``overwrite`` is true. Errors name the target, not the temp
    file.

    A target that is a device, a pipe or a socket (``/dev/null``, ``/dev/stdout``, a
    FIFO) is written into, not replaced: renaming over it would put a plain file where
    the device was.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "s.jsonl"
    >>> atomic_write(target, b"{}\\n").read_bytes()
    b'{}\\n'
    >>> atomic_write("/dev/null", b"gone", overwrite=True)
    PosixPath('/dev/null')
    """
    path = Path(path)
    if os.path.lexists(path) and not overwrite:
        raise FileExistsError(
            errno.EEXIST, "exists (pass overwrite=True / --force to replace it)", str(path)
        )
    if _special(path):
        with os.fdopen(_open_special(path), "wb") as out:
            _write_all(out, data)
        return path
    folder = path.parent if str(path.parent) else Path(".")
    for stale in stale_temp_files(path):
        with contextlib.suppress(OSError):
            stale.unlink()
    temp = None
    try:
        handle, temp = tempfile.mkstemp(
            prefix=f"{temp_name_prefix(path)}{os.getpid()}-", suffix=".tmp", dir=folder
        )
        with os.fdopen(handle, "wb") as out:
            _write_all(out, data)
            out.flush()
            os.fsync(out.fileno())
        _give_mode(temp, path)
        os.replace(temp, path)
    except OSError as exc:
        _remove(temp)
        raise type(exc)(exc.errno, exc.strerror or str(exc), str(path)) from None
    except BaseException:
        _remove(temp)
        raise
    _sync_folder(folder)
    return path


def _write_all(out: IO[bytes], data: bytes | Iterable[bytes]) -> None:
    for piece in [data] if isinstance(data, (bytes, bytearray, memoryview)) else data:
        out.write(piece)


def _give_mode(temp: str, path: Path) -> None:
    """The mode the target has, or (mkstemp makes files 0600) the one open() would give."""
    if path.exists():
        os.chmod(temp, path.stat().st_mode & 0o7777)
    else:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temp, 0o666 & ~umask)


def _sync_folder(folder: Path) -> None:
    """fsync the folder, so the rename itself survives a crash (where the OS allows)."""
    with contextlib.suppress(OSError):
        directory = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)


#: Seconds a FIFO target may go without a program reading it before writing fails.
FIFO_WAIT = 10.0


def _open_special(path: Path, wait: float | None = None) -> int:
    """A device, pipe or socket opened for writing; a FIFO no program reads in ``wait``
    seconds (``FIFO_WAIT``) raises ``TimeoutError`` instead of waiting forever."""
    import stat
    import time

    if not stat.S_ISFIFO(os.stat(path).st_mode):
        return os.open(path, os.O_WRONLY)
    deadline = time.monotonic() + (FIFO_WAIT if wait is None else wait)
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: no reader yet
                raise
            if time.monotonic() >= deadline:
                waited = FIFO_WAIT if wait is None else wait
                raise TimeoutError(
                    errno.ETIMEDOUT, f"a FIFO no program reads (waited {waited:g} s)"
                ) from None
            time.sleep(0.02)
            continue
        os.set_blocking(fd, True)
        return fd


def _special(path: Path) -> bool:
    """Whether ``path`` (followed through links) is a device, a pipe or a socket."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _remove(temp: str | None) -> None:
    if temp is not None and os.path.lexists(temp):
        with contextlib.suppress(OSError):
            os.unlink(temp)


def to_jsonable(info: SessionInfo) -> dict[str, Any]:
    """A ``SessionInfo`` as plain JSON-ready values (for ``pisession ls --json``), its
    keys in camelCase as Pi writes its own JSON.

    >>> from pisession.samples import sample_path
    >>> list(to_jsonable(session_info(sample_path("tour"))))[4:]
    ['parentSession', 'created', 'modified', 'messageCount', 'firstMessage']
    """
    out = {_camel(k): v for k, v in info.__dict__.items() if k != "modified_ms"}
    out["path"] = str(info.path)
    for key in ("created", "modified"):
        out[key] = out[key].isoformat().replace("+00:00", "Z") if out[key] else None
    return cast("dict[str, Any]", json.loads(json.dumps(out, default=str)))


def _camel(name: str) -> str:
    """``parent_session`` -> ``parentSession``.

    >>> _camel("message_count"), _camel("id")
    ('messageCount', 'id')
    """
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
