"""What ``ls``, ``usage`` and ``search`` share: the sessions folder (DIR, ``--pig``,
``--root``, ``--cwd``), the session files below it, progress notes and the files
skipped, and the command that reopens a session in Pi.

>>> reopen_command("s.jsonl")
'pi --session s.jsonl'
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from shlex import quote

from ..views.terminal import note
from ..views.text import plural
from .report import PROG, CommandError, _note_line, _say


def reopen_command(path: str | os.PathLike[str]) -> str:
    """The command that reopens a session in Pi: ``pi --session <path>``, the path as
    listed (absolute under Pi's own folder; relative to where you ran pisession when you
    gave a relative folder), quoted for a POSIX shell. Pi 0.87.1 and 1.6.0 take a value
    with a ``/`` or ending in ``.jsonl`` as a path (``resolveSessionPath``), open that file
    and run in the session's own working directory (its header's ``cwd``).

    >>> reopen_command("/home/me/.pi/agent/sessions/--w--/a b.jsonl")
    "pi --session '/home/me/.pi/agent/sessions/--w--/a b.jsonl'"
    """
    return f"pi --session {quote(str(path))}"


def _extra_roots(args: argparse.Namespace) -> list[Path]:
    """The folders of Pi-format sessions given with ``--root``."""
    return [Path(r).expanduser() for r in args.root or []]


def _found_files(args: argparse.Namespace, root: Path) -> list[Path]:
    """The session files below ``root`` and each ``--root`` (``folders.discover``); the
    folders skipped and the files that are not Pi sessions said on stderr, one line each."""
    from ..folders.discover import find_sessions  # here: `pisession --help` does not load it

    extra = _extra_roots(args)
    given = bool(getattr(args, "dir", None))
    found = find_sessions([root, *extra] if root.exists() or given else extra)
    _skipped_lines(found.problems)
    if found.not_sessions:
        count = plural(len(found.not_sessions), "file")
        sys.stderr.write(
            f"{PROG}: skipped {count} below project folders that are not Pi sessions "
            "(derived transcripts such as subagent-artifacts/)\n"
        )
    return found.files


def _folder_files(args: argparse.Namespace) -> tuple[Path, list[Path]]:
    """The session files ``usage`` and ``search`` read: DIR (or one file), else Pi's
    sessions folder as ``ls`` finds it, with the sessions below project folders and
    below each ``--root``; ``--cwd`` keeps one working directory's."""
    from ..files import sessions_root  # here, as below: `pisession --help` does not load them

    root = Path(args.dir).expanduser() if args.dir else sessions_root("pig" if args.pig else "pi")
    if not root.exists() and not args.root:
        raise CommandError(_no_folder(root, bool(args.dir), args.pig))
    files = _found_files(args, root)
    below = _stored_below(root) if not files and root.is_dir() else None
    if below is not None:
        searched = getattr(args, "pattern", None)  # search's PATTERN (usage has none)
        pattern = "" if searched is None else f"{quote(searched)} "
        _note_line(
            f"{root} holds no sessions; Pi keeps them one folder down: "
            f"pisession {args.command} {pattern}{quote(str(below))}"
        )
    if args.cwd is not None:
        from ..files import session_dir_name  # here: as above
        from ..folders.usage import header_cwd

        cwd = os.path.abspath(os.path.expanduser(args.cwd))
        names = (session_dir_name(cwd), args.cwd)
        files = [f for f in files if f.parent.name in names or _same_dir(header_cwd(f), cwd)]
    return root, files


def _same_dir(a: str, b: str) -> bool:
    norm = [os.path.normcase(os.path.normpath(x)) for x in (a, b)]
    return norm[0] == norm[1]


def _no_folder(root: Path, given: bool, pig: bool) -> str:
    """The error for a sessions folder that does not exist; for Pi's own (none stored
    on this machine), how to try the commands on the samples, as docs/cli.md does."""
    if given or pig:
        return f"{root}: no such folder"
    return (
        f"{root}: no such folder (Pi makes it when it stores a session); to try pisession "
        "on the samples stored as Pi stores them: python -m pisession.samples demo/agent, "
        "then PI_CODING_AGENT_DIR=demo/agent pisession ls --all"
    )


def _stored_below(root: Path) -> Path | None:
    """``root/sessions`` when it holds session files: ``root`` is the agent folder
    (``PI_CODING_AGENT_DIR``), one level above where Pi stores its sessions.

    >>> _stored_below(Path("pisession/samples")) is None
    True
    """
    from ..files import iter_session_files  # here: `pisession --help` does not load it

    below = root / "sessions"
    return below if next(iter_session_files(below), None) is not None else None


def _scan_progress(what: str) -> Callable[[int, int], None]:
    """A progress note on stderr once a scan has taken a second (terminals only)."""
    start = time.monotonic()

    def progress(done: int, total: int) -> None:
        if time.monotonic() - start > 1:
            note(f"pisession: {what} {done:,}/{total:,} sessions ...")

    return progress


def _skipped_lines(problems: list[str]) -> None:
    for problem in problems:
        _say("skipped", problem)


def _named_file_failed(root: Path, problems: list[str]) -> None:
    """FILE named on its own that cannot be read as a session: an error (exit 2), said
    as ``context`` says it, not a skipped file of a folder."""
    if problems and root.is_file():
        raise CommandError(problems[0])
