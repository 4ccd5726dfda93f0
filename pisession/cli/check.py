"""``pisession check``: damage and surprises in a session file (``views.findings.check``),
one line each (``views.reports.finding_text``) or JSON, with an exit status: 0 none, 1
problems (notes too with ``--strict``), 2 the file cannot be read as a session.

>>> from pisession.cli.parser import build_parser
>>> build_parser().parse_args(["check", "--strict"]).strict
True
"""

from __future__ import annotations

import argparse

from ..piversions import pi_versions
from ..views.terminal import clean
from ..views.text import plural
from .loading import _load
from .options import AddCommand, _file_argument
from .output import _look, _out, _out_json

#: The Pi release the help names (the data's primary version, ``pi_versions.json``).
_PRIMARY = pi_versions()["primary"]

EPILOG = f"""\
examples:
  pisession check session.jsonl && echo clean
  pisession check session.jsonl --json

reports: skipped lines, dangling parents, duplicate ids, parent cycles, compactions whose
firstKeptEntryId is not on their path, context edits with no effect, leaves on which
Pi {_PRIMARY} itself fails, and a last entry whose id is null (no leaf); as notes, which
are no problems: blank lines and a legacy version (Pi reads a v1 or v2 file as well as
any, migrating it). Exit status: 0 no
problems, 1 problems found (notes too, with --strict), 2 the file cannot be read as a
session.
"""


def add_parser(sub: AddCommand) -> None:
    """``check``'s arguments: FILE, ``--json``, ``--strict``.

    >>> from pisession.cli.parser import build_parser
    >>> build_parser().parse_args(["check"]).file
    'tour'
    """
    p = sub("check", "damage and surprises (exit 1: problems, 2: unreadable)", EPILOG, run)
    _file_argument(p)
    p.add_argument("--json", action="store_true", help="JSON instead of text")
    p.add_argument(
        "--strict",
        action="store_true",
        help="notes count as problems too (a legacy version, blank lines)",
    )


def run(args: argparse.Namespace) -> int:
    """``pisession check``: the findings of ``findings.check``; exit 1 on a problem (on
    a note too with ``--strict``).

    >>> from pisession.cli.parser import build_parser
    >>> run(build_parser().parse_args(["check", "tour"]))
    pisession/samples/tour.jsonl: no problems found (26 entries)
    0
    """
    # here, as in every command's run: `pisession --help` loads no renderer
    from ..views.findings import check, check_data
    from ..views.reports import finding_text

    session = _load(args.file)
    findings = check(session)
    problems = sum(1 for f in findings if args.strict or not f.note)
    if args.json:
        _out_json(check_data(session, findings))
        return 1 if problems else 0
    look = _look(args)
    for f in findings:
        _out(finding_text(session, f, look))
    if problems:
        _out(f"{plural(problems, 'problem')} found in {clean(session.source)}\n")
        return 1
    entries = plural(len(session), "entry", "entries")
    notes = sum(1 for f in findings if f.note)
    also = f", {plural(notes, 'note')}" if notes else ""
    _out(f"{clean(session.source)}: no problems found ({entries}{also})\n")
    return 0
