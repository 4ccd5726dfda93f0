"""``pisession search``: text across sessions, and whether each hit reached the model
(``folders.search.search_folder``), as lines (``folders.text.search_text``), a list of
files or JSON.

>>> from pisession.cli.parser import build_parser
>>> build_parser().parse_args(["search", "port", "-C", "2"]).context
2
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..views.terminal import clean, end_note
from .folder import (
    _folder_files,
    _named_file_failed,
    _scan_progress,
    _skipped_lines,
    reopen_command,
)
from .options import AddCommand, _count, _folder_options
from .output import _look, _out, _out_json
from .report import CommandError

if TYPE_CHECKING:
    from ..folders.search import FolderHits, Hit

EPILOG = """\
examples:
  pisession search "port 8080"
  pisession search -i --regex "todo|fixme" ~/backup/sessions
  pisession search API_KEY --reached          hits the model saw
  pisession search "rm -rf" --not-reached --json
  pisession search -w port -C 2 --sort time
  pisession search -l --reopen "migration plan"

Searches the text of messages (text, thinking, tool calls' names and arguments, tool
results, bash commands and output, system sections, summaries, custom messages), never
JSON keys. PATTERN is literal text unless --regex is given (-w: whole words, -i: any
case). Each hit shows its line, its entry's time (local), entry id, role or type, its fate
at the session's default leaf (as pisession explain shows it) and an excerpt with the
match marked; -C/-B/-A N add the entries around it on its path (its parents before; after:
towards the default leaf, or the newest child). --sort time orders the hits by their
entries' time; -l lists the matching sessions' files only (with --reopen: the command that
reopens each in Pi). Exit status: 0 hits found, 1 none, 2 error.
"""


def add_parser(sub: AddCommand) -> None:
    """``search``'s arguments: PATTERN, the folder options, how to match, which hits,
    the entries around them, the order, ``-l`` and ``--reopen``.

    >>> from pisession.cli.parser import build_parser
    >>> build_parser().parse_args(["search", "x", "--not-reached"]).reached
    False
    """
    p = sub(
        "search",
        "find text across sessions; did each hit reach the model?",
        EPILOG,
        run,
    )
    p.add_argument(
        "pattern",
        metavar="PATTERN",
        help="text to find, literally (--regex: a Python regular expression)",
    )
    _folder_options(p)
    p.add_argument("--regex", action="store_true", help="PATTERN is a regular expression")
    p.add_argument("-i", "--ignore-case", action="store_true", help="ignore case")
    fates = p.add_mutually_exclusive_group()
    fates.add_argument("--reached", dest="reached", action="store_const", const=True,
                       default=None, help="only hits that reached the model")  # fmt: skip
    fates.add_argument("--not-reached", dest="reached", action="store_const", const=False,
                       help="only hits that did not")  # fmt: skip
    p.add_argument("-w", "--word", action="store_true", help="whole words only (as grep -w)")
    p.add_argument("-C", "--context", metavar="N", type=_count, help="N entries around each hit")
    p.add_argument("-B", "--before", metavar="N", type=_count, help="N entries before each hit")
    p.add_argument("-A", "--after", metavar="N", type=_count, help="N entries after each hit")
    p.add_argument(
        "--sort", choices=("file", "time"), default="file",
        help="hits in folder order (default) or by their entries' time",
    )  # fmt: skip
    p.add_argument("-l", "--list", action="store_true", help="only the matching sessions' files")
    p.add_argument(
        "--reopen", action="store_true", help="with -l: the command that reopens each in Pi"
    )


def run(args: argparse.Namespace) -> int:
    """``pisession search``: matching entries across sessions, and whether they reached
    the model at the default leaf; exit 1 when nothing matches (as grep).

    >>> from pisession.cli.parser import build_parser
    >>> run(build_parser().parse_args(["search", "tests/", "pisession/samples", "-l"]))
    pisession/samples/tour.jsonl
    0
    """
    # here: `pisession --help` and the commands on one file do not load them
    from ..folders.search import Around, Pattern, search_folder
    from ..folders.text import search_text

    pattern = Pattern(args.pattern, args.regex, args.ignore_case, args.word)
    try:
        pattern.compiled  # noqa: B018 (compiled here to report a bad pattern)
    except re.error as exc:
        raise CommandError(f"{args.pattern!r}: not a regular expression: {exc}") from None
    if not args.pattern:
        raise CommandError("the pattern is empty")
    root, files = _folder_files(args)
    before = args.before if args.before is not None else args.context
    after = args.after if args.after is not None else args.context
    around = Around(0, 0) if args.list else Around(before or 0, after or 0)
    found = search_folder(
        files, pattern, args.reached, progress=_scan_progress("searching"), around=around,
        by_time=args.sort == "time",
    )  # fmt: skip
    end_note()
    _named_file_failed(root, found.skipped)
    _skipped_lines(found.skipped)
    if args.list:
        return _search_list(found, args)
    if args.json:
        head = {"pattern": args.pattern, "regex": args.regex, "ignoreCase": args.ignore_case}
        head |= {"word": args.word, "sort": args.sort}
        head |= {"files": found.files, "skipped": len(found.skipped), "problems": found.skipped}
        _out_json({**head, "hits": [hit.to_dict() for hit in found.hits]})
        return 0 if found.hits else 1  # as without --json, as grep does
    _out(search_text(found, _look(args)))
    return 0 if found.hits else 1


def _search_list(found: FolderHits, args: argparse.Namespace) -> int:
    """``search -l``: each matching session once, in the order of its first hit; with
    ``--reopen`` the command that reopens it in Pi."""
    sessions: dict[str, list[Hit]] = {}
    for hit in found.hits:
        sessions.setdefault(hit.file, []).append(hit)
    if args.json:
        _out_json(
            [
                {"path": path, "id": hits[0].session, "name": hits[0].name,
                 "hits": len(hits), "reopenCommand": reopen_command(path)}
                for path, hits in sessions.items()
            ]
        )  # fmt: skip
    else:
        show: Callable[[str], str] = reopen_command if args.reopen else str
        _out("".join(f"{clean(show(path))}\n" for path in sessions))
    return 0 if sessions else 1
