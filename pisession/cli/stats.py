"""``pisession stats``: tokens, cost and message counts of a session and of a branch, as
Pi's ``/session`` counts them, with the usage by model (a table of
``views.reports.stats_table`` and ``breakdown_text``, or JSON).

>>> from pisession.cli.parser import build_parser
>>> build_parser().parse_args(["stats", "tour", "--leaf", "a7"]).leaf
'a7'
"""

from __future__ import annotations

import argparse
from typing import Any

from ..engine.parallel import BIG_SESSION, in_child
from ..engine.stats import every_row
from ..piversions import pi_versions
from ..session import Session
from ..views.terminal import clean
from .loading import _leaf, _load
from .options import _LEAF_HELP, AddCommand, _file_argument
from .output import _look, _out, _out_json

EPILOG = """\
examples:
  pisession stats session.jsonl
  pisession stats session.jsonl --leaf a7000001 --json

Counts as Pi's /session statistics do: every entry for the whole session (compacted
history included), the entries of the path from the root to the leaf for the branch.
"""


def add_parser(sub: AddCommand) -> None:
    """``stats``' arguments: FILE, ``--leaf``, ``--json``.

    >>> from pisession.cli.parser import build_parser
    >>> build_parser().parse_args(["stats", "tour", "--json"]).json
    True
    """
    p = sub("stats", "tokens, cost and message counts (session and branch)", EPILOG, run)
    _file_argument(p)
    p.add_argument("--leaf", metavar="ID", help=_LEAF_HELP)
    p.add_argument("--json", action="store_true", help="JSON instead of a table")


def run(args: argparse.Namespace) -> int:
    """``pisession stats``: tokens, cost and message counts, session and branch.

    >>> from pisession.cli.parser import build_parser
    >>> run(build_parser().parse_args(["stats", "tour", "--width", "60"]))
    ... # doctest: +ELLIPSIS
    pisession/samples/tour.jsonl
    ...
    context at the leaf: 10 messages
    ...
    0
    """
    # here, as in every command's run: `pisession --help` loads no renderer
    from ..views.explain import role_counts, stats_rows
    from ..views.reports import breakdown_text, stats_table

    session = _load(args.file, counting=True)
    leaf = _leaf(session, args.leaf)
    path = session.path_positions(leaf)  # (walked once, before a helper is forked)
    # the fates (for the context's message count) and the usage by model in a helper
    # process meanwhile
    helped = in_child(_helped, session, leaf, fork=len(session) >= BIG_SESSION)
    whole = session.stats()
    # a session without branches: its branch is the whole session, counted once
    branch = whole if every_row(path, len(session)) else session.stats(leaf, branch=True)
    leaf_id = session.index.ids[path[-1]] if path else None
    leaf_id = leaf_id if isinstance(leaf_id, str) else None
    messages, by_model = helped.result()
    if args.json:
        roles = role_counts(session, range(len(session))), role_counts(session, path)
        _out_json(
            {
                "file": session.source,
                "id": session.id,
                "leaf": leaf_id,
                "session": {**whole.to_dict(), "messagesByRole": dict(roles[0])},
                "branch": {**branch.to_dict(), "messagesByRole": dict(roles[1])},
                "context": {"messages": messages, "pathEntries": len(path)},
                "usageByModel": by_model,
            }
        )
        return 0
    cells = stats_rows(session, leaf, whole, branch)
    leaf_text = "(no id)" if leaf_id is None else clean(leaf_id)
    leaf_text = leaf_text if path or not len(session) else "(no leaf: the last entry's id is null)"
    _out(stats_table(session, cells, ("", "whole session", f"branch to {leaf_text}"), _look(args)))
    _out(f"\ncontext at the leaf: {messages:,} message{'s' if messages != 1 else ''}\n")
    _out(breakdown_text(by_model, _look(args)))
    missing = whole.assistant_without_usage
    if missing:
        primary = pi_versions()["primary"]
        _out(f"note: {missing:,} assistant messages carry no usage (Pi {primary} would throw)\n")
    return 0


def _helped(session: Session, leaf: str | None) -> tuple[int, dict[str, Any]]:
    """How many messages the context at ``leaf`` holds (read off its fates), and the
    usage by model (``folders.usage.session_breakdowns``): what a helper process makes.

    >>> from pisession import load, sample_path
    >>> _helped(load(sample_path("tour")), None)[0]
    10
    """
    from ..folders.usage import session_breakdowns

    return session.fates(leaf).message_count(), session_breakdowns(session, leaf)
