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
from pathlib import Path
from typing import cast

from .js import path as nodepath
from .js.date import DateConversionError, js_time_ms
from .js.json import LineDecodeError, loads
from .js.value import field
from .tree import NameNotText, trimmed_name

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
        raise ValueError(
            f"{path!r}: Pi reads a file:// URL as the path it names; "
            "pisession does not convert URLs, pass the path itself"
        )
    return path


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
    """One row of a session listing (the fields of Pi's session picker)."""

    path: Path
    id: str
    cwd: str
    name: str | None
    parent_session: str | None
    created: datetime | None
    modified: datetime
    message_count: int
    first_message: str


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


def _text_of(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return " ".join(str(b.get("text", "")) for b in content if field(b, "type") == "text")


@dataclass
class _Activity:
    """What a session listing gathers from the entries after the header."""

    name: str | None = None
    message_count: int = 0
    first_message: str = ""
    last_activity: float | None = None

    def add(self, entry: object) -> None:
        """Count one entry: a ``session_info`` names the session (the last one wins), every
        message counts, and a user or assistant message with content dates the activity
        (its own timestamp, else the entry's) and may be the first user text."""
        kind = field(entry, "type")
        if kind == "session_info":
            value = field(entry, "name")
            self.name = trimmed_name(value)  # Pi's list skips the file where this throws
        if kind != "message":
            return
        self.message_count += 1
        message = field(entry, "message")
        if not isinstance(message, dict) or "content" not in message:
            return
        role = message.get("role")
        if role not in ("user", "assistant"):
            return
        stamp = message.get("timestamp")
        when = (
            stamp
            if isinstance(stamp, (int, float))
            else js_time_ms(cast(dict, entry).get("timestamp"))
        )
        if when == when:
            self.last_activity = max(self.last_activity or 0, when)
        text = _text_of(message)
        if text and not self.first_message and role == "user":
            self.first_message = text


def _line_values(handle) -> Iterator[object]:
    """The values of a file's lines that JSON.parse accepts and that are truthy."""
    for raw in handle:
        try:
            value = loads(raw.rstrip(b"\n")) if raw.strip() else None
        except LineDecodeError:
            continue
        if value:
            yield value


def session_info(path: str | os.PathLike) -> SessionInfo | None:
    """Summarise one file as Pi's session list does; None if it is not a session.

    Reads line by line (no migration, nothing written).
    """
    path = Path(path)
    activity = _Activity()
    try:
        with open(path, "rb") as handle:
            values = _line_values(handle)
            header = next(values, None)
            if header is None or field(header, "type") != "session":
                return None
            for entry in values:
                activity.add(entry)
        stat = path.stat()
    except (OSError, DateConversionError, NameNotText):  # Pi's listing skips such a file too
        return None
    if not isinstance(header, dict) or not isinstance(header.get("id"), str):
        return None
    stamp = header.get("timestamp")
    created = _iso(js_time_ms(stamp)) if isinstance(stamp, str) else None
    modified = (
        (_iso(activity.last_activity) if activity.last_activity else None)
        or created
        or datetime.fromtimestamp(stat.st_mtime, tz=timezone.utc)
    )
    cwd = header.get("cwd")
    return SessionInfo(
        path=path,
        id=header["id"],
        cwd=cwd if isinstance(cwd, str) else "",
        name=activity.name,
        parent_session=header.get("parentSession"),
        created=created,
        modified=modified,  # type: ignore[arg-type]
        message_count=activity.message_count,
        first_message=activity.first_message or "(no messages)",
    )


def iter_session_files(root: str | os.PathLike) -> Iterator[Path]:
    """``*.jsonl`` files in ``root`` and in its per-cwd subfolders (one level down)."""
    root = Path(root)
    if not root.is_dir():
        return
    for child in sorted(root.iterdir()):
        if child.is_file() and child.suffix == ".jsonl":
            yield child
        elif child.is_dir():
            yield from sorted(p for p in child.glob("*.jsonl") if p.is_file())


def list_sessions(
    root: str | os.PathLike | None = None,
    agent: str = "pi",
    env: Mapping[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[SessionInfo]:
    """Every session under ``root`` (default: Pi's sessions root), newest first.
    ``progress(done, total)`` is called after each file read.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.jsonl").write_text('{"type":"session","id":"x","cwd":"/w",'
    ...     '"timestamp":"2026-01-01T00:00:00Z"}\\n')
    >>> [i.id for i in list_sessions(d)]
    ['x']
    """
    root = sessions_root(agent, env) if root is None else Path(root)
    files = list(iter_session_files(root))
    infos = []
    for done, path in enumerate(files, 1):
        info = session_info(path)
        if info is not None:
            infos.append(info)
        if progress is not None:
            progress(done, len(files))
    infos.sort(key=lambda i: i.modified, reverse=True)
    return infos


#: Temp files of a write in progress: ``.<target name>.pisession-<pid>-<random>.tmp``.
TEMP_MARK = ".pisession-"


def temp_name_prefix(path: Path) -> str:
    """The prefix of every temp file a write to ``path`` makes (in the same folder).

    >>> temp_name_prefix(Path("/w/s.jsonl"))
    '.s.jsonl.pisession-'
    """
    return f".{path.name}{TEMP_MARK}"


def stale_temp_files(path: str | os.PathLike) -> list[Path]:
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
    path: str | os.PathLike, data: bytes | Iterable[bytes], overwrite: bool = False
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


def _write_all(out, data: bytes | Iterable[bytes]) -> None:
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


def to_jsonable(info: SessionInfo) -> dict:
    """A ``SessionInfo`` as plain JSON-ready values (for ``pisession ls --json``)."""
    out = dict(info.__dict__)
    out["path"] = str(info.path)
    for key in ("created", "modified"):
        out[key] = out[key].isoformat().replace("+00:00", "Z") if out[key] else None
    return json.loads(json.dumps(out, default=str))
