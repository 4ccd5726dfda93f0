"""``pisession migrate``: a version 3 copy of a legacy (v1 or v2) file, as Pi migrates it
when it opens one (``migration``), written atomically to ``-o OUT`` (``-`` standard
output) or over FILE with ``--in-place``; what changed is said, one line per step.

>>> from pisession.cli.parser import build_parser
>>> build_parser().parse_args(["migrate", "old.jsonl", "-o", "-"]).output
'-'
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

import pisession

from ..samples import sample_names
from ..session import Session
from ..views.terminal import clean
from ..views.text import plural
from .loading import _read_stdin, _resolve
from .options import AddCommand, _file_argument
from .output import _check_target, _lines_for, _out, _out_bytes, _write
from .report import CommandError

EPILOG = """\
examples:
  pisession migrate old.jsonl -o old-v3.jsonl
  pisession migrate old.jsonl -o old-v3.jsonl --deterministic-ids --force
  pisession migrate old.jsonl --in-place

The input file is never touched unless --in-place is given; the output is written to a
temporary file in the same folder, synced, then renamed over the target. Lines the
migration does not change (skipped ones included) are kept byte for byte.
"""


def add_parser(sub: AddCommand) -> None:
    """``migrate``'s arguments: FILE, ``-o`` or ``--in-place``, ``--force``,
    ``--deterministic-ids``.

    >>> from pisession.cli.parser import build_parser
    >>> build_parser().parse_args(["migrate", "old.jsonl", "--in-place"]).in_place
    True
    """
    p = sub("migrate", "write a version 3 copy of a legacy (v1/v2) file", EPILOG, run)
    _file_argument(p, " (modified only with --in-place)")
    p.add_argument(
        "-o", "--output", metavar="OUT", help="where to write the migrated file (- for stdout)"
    )
    p.add_argument("--in-place", action="store_true", help="replace FILE (atomically)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.add_argument(
        "--deterministic-ids",
        action="store_true",
        help="v1 files: ids m0000001, m0000002, ... instead of random ones (v2 files keep theirs)",
    )


def run(args: argparse.Namespace) -> int:
    """``pisession migrate``: a version 3 copy of a legacy file, written atomically.

    >>> import contextlib, io
    >>> from pisession.cli.parser import build_parser
    >>> said = io.StringIO()
    >>> with contextlib.redirect_stdout(said):  # (wrapped to the terminal's width)
    ...     code = run(build_parser().parse_args(["migrate", "tour"]))
    >>> code, " ".join(said.getvalue().split()).endswith(
    ...     "tour.jsonl: already version 3, nothing to migrate, nothing written")
    (0, True)
    """
    if args.in_place and args.output:
        raise CommandError("use either -o OUT or --in-place, not both")
    nowhere = not args.in_place and not args.output
    if nowhere and args.file == "-":
        raise CommandError("say where to write: -o OUT (standard input cannot be replaced)")
    if args.in_place and args.file == "-":
        raise CommandError("-: standard input cannot be replaced in place; use -o OUT")
    source = args.file if args.file == "-" else _resolve(args.file)
    if nowhere:  # a file with nothing to migrate says so before asking where to write
        session = pisession.load(source)
        if not session.migration_steps:
            _out(_lines_for(_nothing_to_migrate(session, args.deterministic_ids)))
            return 0
        raise CommandError("say where to write: -o OUT (or --in-place to replace FILE)")
    if args.in_place and args.file in sample_names():
        raise CommandError(f"{args.file}: a bundled sample is not replaced in place; use -o OUT")
    to_stdout = args.output == "-"  # `-o -`: the migrated file on standard output
    target = Path(source) if args.in_place else Path(args.output)
    if not args.in_place and not to_stdout:
        same = source != "-" and target.exists() and os.path.exists(source)
        if same and os.path.samefile(source, target):
            raise CommandError(f"{target}: is the input file; use --in-place to replace it")
        _check_target(target, args.force)
    new_id = pisession.sequential_ids() if args.deterministic_ids else None
    if source == "-":
        session = pisession.loads(_read_stdin(), "<stdin>", new_id=new_id)
    else:
        session = pisession.load(source, new_id=new_id)
    if not session.migration_steps:
        text = _nothing_to_migrate(session, args.deterministic_ids)
        if to_stdout:
            sys.stderr.write(text)
        else:
            _out(_lines_for(text))
        return 0
    if to_stdout:
        return _migrated_to_stdout(session)
    return _migrated_to_file(session, target, args)


def _migrated_to_stdout(session: Session) -> int:
    """``-o -``: the migrated file alone on standard output; the account on stderr."""
    _out_bytes(session.dumps())
    for step in session.migration_steps:
        sys.stderr.write(f"{clean(step.summary())}\n")
    _readback_note(session, session.dumps(), lambda line: sys.stderr.write(line + "\n"))
    return 0


def _migrated_to_file(session: Session, target: Path, args: argparse.Namespace) -> int:
    """Write the migrated file atomically to ``target``; say each step and what was written."""
    _write(target, session.dumps())
    lines = [clean(step.summary()) for step in session.migration_steps]
    if args.deterministic_ids and session.original_version not in (None, 1):
        lines.append("note: --deterministic-ids changes nothing here (it makes ids for v1 files)")
    ids = _ids_text(session, args)
    entries = plural(len(session), "entry", "entries")
    lines.append(f"wrote {clean(target)} (version 3, {entries}, {ids})")
    written = target.read_bytes() if target.is_file() else session.dumps()  # not a FIFO's
    _readback_note(session, written, lines.append)
    _out(_lines_for("\n".join(lines)))  # a terminal's width (in a pipe: whole lines)
    return 0


def _readback_note(session: Session, written: bytes, say: Callable[[str], object]) -> None:
    """Says, on one line, when the file written reads back with another context than the
    session migrated in memory (what Pi's own rewrite does to the file too), and why."""
    from ..views.findings import readback_change  # here: `pisession --help` loads no renderer

    change = readback_change(session, pisession.loads, written)
    if change:
        say(f"note: {clean(change)}; Pi's own rewrite writes the same file")


def _nothing_to_migrate(session: Session, deterministic: bool) -> str:
    """The line for a file that is already version 3 (or that no step changes)."""
    from ..views.findings import version_text  # here: as above

    version = session.original_version
    what = (
        "already version 3"
        if version == 3
        else f"{version_text(version)}: Pi runs no migration step"
    )
    extra = (
        "; --deterministic-ids changes nothing (ids are only made for v1 files)"
        if deterministic
        else ""
    )
    return f"{clean(session.source)}: {clean(what)}, nothing to migrate, nothing written{extra}\n"


def _ids_text(session: Session, args: argparse.Namespace) -> str:
    """What became of the entries' ids."""
    if session.original_version not in (None, 1):
        return f"ids kept: a version {session.original_version} file has them already"
    return "sequential ids (m0000001, ...)" if args.deterministic_ids else "new random ids, as Pi"
