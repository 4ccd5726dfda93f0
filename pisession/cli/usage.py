"""``pisession usage``: tokens and cost over a sessions folder, as Pi counts them
(``folders.usage.scan_folder``), as a table (``folders.text.usage_table``), CSV or JSON.

>>> from pisession.cli.parser import build_parser
>>> build_parser().parse_args(["usage", "--by", "day"]).by
'day'
"""

from __future__ import annotations

import argparse

from ..locate import short_ids
from ..piversions import checked, pi_name
from ..views.terminal import end_note
from .folder import _folder_files, _named_file_failed, _scan_progress, _skipped_lines
from .options import AddCommand, _day, _folder_options, _zone
from .output import _look, _out, _out_json

#: The newest checked Pi release: the one whose /session breakdown `usage` follows.
_NEWEST = pi_name(checked(newest_first=True)[0])

EPILOG = f"""\
examples:
  pisession usage                         every session in Pi's folder, by model
  pisession usage --by month --since 2026-01-01
  pisession usage --by project --csv > usage.csv
  pisession usage ~/backup/sessions --by session --json
  pisession usage --cwd ~/work/api --branch
  pisession usage --by day --timezone Europe/Paris --root ~/.omp/agent/sessions

Counts as {_NEWEST}'s /session breakdown (getUsageCostBreakdown) counts a session: every
entry of the file, compacted history and abandoned branches included (--branch: the
entries on the path to Pi's default leaf only). Assistant messages count under
provider/(responseModel or model), usage entries under their provider and model, the
usage of tool results, compactions and branch summaries under Tools/summaries.

Forks and clones count once: an entry copied into several files (same id, timestamp and
usage) counts in the file made first (by its header's timestamp), since summing Pi's
per-file figures pays for every copy again; the table says how many copied entries were
left out, and --per-file counts each file as Pi's /session does. Sessions below project
folders count too (files there that are not Pi sessions, such as subagent-artifacts/, are
skipped and counted); --root adds more folders. Days are calendar days of each entry's
timestamp in --timezone (default: this machine's zone); weeks start on Monday. A file that
cannot be read is named on one line on stderr and skipped; the totals say how many.
"""


def add_parser(sub: AddCommand) -> None:
    """``usage``'s arguments: the folder options, ``--by``, ``--since``, ``--until``,
    ``--timezone``, ``--per-file``, ``--branch``, ``--csv``.

    >>> from pisession.cli.parser import build_parser
    >>> build_parser().parse_args(["usage", "--since", "2026-01-01"]).since
    '2026-01-01'
    """
    p = sub(
        "usage",
        "tokens and cost over a sessions folder, as Pi counts",
        EPILOG,
        run,
    )
    _folder_options(p)
    p.add_argument(
        "--by",
        choices=("day", "week", "month", "project", "session", "model"),
        default="model",
        help="a row per day, week, month, project, session or model (default)",
    )
    p.add_argument("--since", metavar="YYYY-MM-DD", type=_day, help="from this local day on")
    p.add_argument("--until", metavar="YYYY-MM-DD", type=_day, help="up to this local day")
    p.add_argument(
        "--timezone",
        metavar="ZONE",
        type=_zone,
        help="days in this IANA zone, e.g. Europe/Paris (default: this machine's)",
    )
    p.add_argument(
        "--per-file",
        action="store_true",
        help="each file as Pi's /session counts it (a fork's copied history again)",
    )
    p.add_argument("--branch", action="store_true", help="the default leaf's path only")
    p.add_argument("--csv", action="store_true", help="CSV instead of a table")


def run(args: argparse.Namespace) -> int:
    """``pisession usage``: tokens and cost over a sessions folder, as Pi counts them.

    Forks and clones count once: across the files of the scan, an entry that counts usage
    and has the same id, timestamp and usage as an entry of another file counts once, in
    the file whose header's timestamp is earliest (then the first scanned), because Pi's
    fork routes copy entries with their ids, timestamps and usage, and summing Pi's
    per-file breakdowns pays for every copy again (ccusage issue 1634, "forked sessions
    replay parent token history and are double-counted"). ``--per-file`` keeps Pi's
    per-session numbers. The rule: ``pisession.folders.forks``.

    >>> from pisession.cli.parser import build_parser
    >>> run(build_parser().parse_args(["usage", "pisession/samples/tour.jsonl", "--csv"]))
    model,sessions,tokens,input,output,cacheRead,cacheWrite,cost
    fake/fake-coder,1,9417,8060,157,1200,0,0.020880000000000003
    Tools/summaries,1,1860,1800,60,0,0,0.0048
    0
    """
    # here: `pisession --help` and the commands on one file do not load them
    from ..folders.text import usage_csv, usage_table
    from ..folders.usage import scan_folder

    root, files = _folder_files(args)
    usage = scan_folder(
        files, args.by, args.branch, args.since, args.until, progress=_scan_progress("reading"),
        per_file=args.per_file, zone=args.timezone,
    )  # fmt: skip
    end_note()
    _named_file_failed(root, usage.skipped)
    _skipped_lines(usage.skipped)
    if args.json:
        _out_json(usage.to_dict())
        return 0
    names = [r.group for r in usage.rows]
    if args.csv:
        _out(usage_csv(usage, names))
        return 0
    if args.by == "session":
        names = short_ids(names)
    _out(usage_table(usage, names, root, _look(args)))
    return 0
