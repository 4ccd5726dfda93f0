"""``pisession ls``: the sessions Pi (or PiG) has stored, newest first, as a table, JSON
or the commands that reopen them in Pi. What is listed is ``folders.discover``'s
``listed_sessions`` (Pi's session list, and the sessions below project folders); the
table is ``folders.text.ls_table``.

>>> from pisession.cli.parser import build_parser
>>> build_parser().parse_args(["ls", "--all", "--name", "api"]).name
'api'
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from shlex import quote
from typing import TYPE_CHECKING

from ..locate import short_ids
from ..views.terminal import clean, end_note, note, wrap
from .folder import (
    _extra_roots,
    _found_files,
    _no_folder,
    _skipped_lines,
    _stored_below,
    reopen_command,
)
from .options import AddCommand, _root_option
from .output import _look, _out, _out_json
from .report import CommandError

if TYPE_CHECKING:  # files is loaded only when ls runs
    from ..files import SessionInfo

EPILOG = """\
examples:
  pisession ls                    sessions started in the current directory
  pisession ls --all              every session, newest first
  pisession ls --all --name api   names or first messages containing "api"
  pisession ls --cwd ~/work/api   sessions of another folder
  pisession ls --pig --all        PiG's sessions
  pisession ls ~/backup/sessions --json
  pisession ls --all --root ~/.omp/agent/sessions --reopen

Where: DIR if given, else $PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR/sessions,
else ~/.pi/agent/sessions (PiG: the PIG_ variables and ~/.pig/agent/sessions), with the
sessions below project folders, and each --root. The id column shows the part of each id
that tells sessions apart; give it (or any unique part of the start of an id) as FILE to
the other commands. --reopen prints `pi --session PATH` for each session, the command that
reopens it in Pi.
"""


def add_parser(sub: AddCommand) -> None:
    """``ls``'s arguments: DIR, ``--pig``, ``--root``, ``--cwd``, ``--all``, ``--name``,
    ``--reopen``, ``--json``.

    >>> from pisession.cli.parser import build_parser
    >>> build_parser().parse_args(["ls", "--cwd", "~/w"]).cwd
    '~/w'
    """
    p = sub("ls", "list stored sessions, newest first", EPILOG, run)
    p.add_argument("dir", nargs="?", metavar="DIR", help="sessions folder (default: Pi's)")
    p.add_argument("--pig", action="store_true", help="PiG's sessions instead of Pi's")
    _root_option(p)
    p.add_argument(
        "--cwd",
        metavar="PATH",
        help="only sessions started in PATH (its cwd, or the folder Pi named after it)",
    )
    p.add_argument("--all", action="store_true", help="every working directory (default: cwd)")
    p.add_argument("--name", metavar="TEXT", help="name or first message contains TEXT")
    p.add_argument(
        "--reopen",
        action="store_true",
        help="print the command that reopens each session in Pi (pi --session PATH)",
    )
    p.add_argument("--json", action="store_true", help="JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    """``pisession ls``: the stored sessions, newest first.

    >>> from pisession.cli.parser import build_parser
    >>> run(build_parser().parse_args(["ls", "pisession/samples", "--all", "--reopen"]))
    ... # doctest: +ELLIPSIS
    pi --session pisession/samples/...jsonl
    ...
    0
    """
    from ..files import sessions_root, to_jsonable  # here: `pisession --help` does not load it

    agent = "pig" if args.pig else "pi"
    root = Path(args.dir).expanduser() if args.dir else sessions_root(agent)
    if root.is_file():
        raise CommandError(f"{root}: is a file; ls lists a folder (pisession explain {root})")
    if not root.is_dir() and not args.root:
        raise CommandError(_no_folder(root, bool(args.dir), args.pig))
    files = _found_files(args, root)
    cwd = None
    if args.cwd is not None:
        cwd = args.cwd
    elif not args.all and not args.dir:
        cwd = os.getcwd()
    infos = _sessions([root, *_extra_roots(args)], files, cwd, args.name)
    shorts = short_ids([i.id if isinstance(i.id, str) else "" for i in infos])
    if args.json:
        _out_json(
            [
                {**to_jsonable(i), "shortId": s, "reopenCommand": reopen_command(i.path)}
                for i, s in zip(infos, shorts)
            ]
        )
    elif args.reopen:
        _out("".join(f"{clean(reopen_command(i.path))}\n" for i in infos))
    elif not infos:
        _out(_none_found(args, root, cwd))
    else:
        from ..folders.text import ls_table  # here: `pisession --help` does not load it

        _out(ls_table(infos, shorts, _look(args)))
    return 0


def _sessions(
    roots: list[Path], files: list[Path], cwd: str | None, name: str | None
) -> list[SessionInfo]:
    """``listed_sessions`` with a progress note when there are many files, unreadable
    files said on stderr, and ``--name``'s filter (name or first message)."""
    from ..folders.discover import listed_sessions  # here: `pisession --help` does not load it

    def progress(done: int, total: int) -> None:
        if total > 200 and done % 50 == 0:
            note(f"pisession: scanning {done}/{total} files ...")

    def skipped(path: Path, why: str) -> None:
        _skipped_lines([f"{path}: {why}"])

    try:
        infos = listed_sessions(roots, files, cwd, progress, skipped)
    except ValueError as exc:  # a file:// URL Node cannot convert either
        raise CommandError(f"--cwd {exc}") from None
    end_note()
    if not name:
        return infos
    needle = name.casefold()
    return [
        i
        for i in infos
        if needle in (i.name or "").casefold() or needle in i.first_message.casefold()
    ]


def _none_found(args: argparse.Namespace, root: Path, cwd: str | None) -> str:
    """The line for no session: where was looked, and where else to look."""
    where = f" for {cwd}" if cwd else ""
    hint = " (--all lists every folder)" if cwd and not args.cwd else ""
    below = _stored_below(root)
    if below is not None:
        hint = f"; Pi keeps them one folder down: pisession ls {quote(str(below))}"
    text = f"no sessions in {clean(str(root))}{clean(where)}{hint}"
    return "\n".join(wrap(text, _look(args).width)) + "\n"
