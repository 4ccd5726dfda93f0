"""``pisession explain``: which entries of a session reached the model at a leaf, and
why: a table of every entry's fate and reason (``views.explain.explain_text``), or JSON.

>>> from pisession.cli.parser import build_parser
>>> build_parser().parse_args(["explain", "tour", "--leaf", "a7"]).leaf
'a7'
"""

from __future__ import annotations

import argparse

from .loading import _leaf, _load
from .options import (
    _LEAF_HELP,
    AddCommand,
    _collapse_options,
    _file_argument,
)
from .output import (
    _collapse,
    _look,
    _out,
    _out_json_stream,
)

EPILOG = """\
examples:
  pisession explain                       the bundled tour sample
  pisession explain session.jsonl         Pi's default leaf (the last entry)
  pisession explain session.jsonl --leaf a7000001
  pisession explain 2e6b1a9f              a stored session, by the id `ls` shows
  pisession explain s.jsonl --json | jq '.entries[] | select(.reached)'

fates: sent, kept (in the compaction's kept range), compaction (sends its summary),
edited / omitted (context edit), summarized (before the kept range), dropped-system
(system message in the kept range), state-only (no message), off-path (other branch).

The table fits the terminal: a reason too long for its row is numbered ([2]) and
written once, under the first rows that have it. In a pipe every row is whole. Runs of
more than --collapse entries with one fate show their first and last two (--all: all).
"""


def add_parser(sub: AddCommand) -> None:
    """``explain``'s arguments: FILE, ``--leaf``, ``--collapse``/``--all``, ``--json``.

    >>> from pisession.cli.parser import build_parser
    >>> build_parser().parse_args(["explain", "--all"]).all
    True
    """
    p = sub(
        "explain",
        "which entries reached the model for a leaf, and why",
        EPILOG,
        run,
    )
    _file_argument(p)
    p.add_argument("--leaf", metavar="ID", help=_LEAF_HELP)
    _collapse_options(p)
    p.add_argument("--json", action="store_true", help="JSON: every entry's fate and reason")


def run(args: argparse.Namespace) -> int:
    """``pisession explain``: the explanation of a leaf (``explain.explain_text``), or
    its JSON.

    >>> from pisession.cli.parser import build_parser
    >>> run(build_parser().parse_args(["explain", "tour", "--width", "60"]))
    ... # doctest: +ELLIPSIS
    file        pisession/samples/tour.jsonl
    ...
    0
    """
    # here, as in every command's run: `pisession --help` loads no renderer
    from ..views.explain import entry_data, explain_head, explain_text

    session = _load(args.file)
    leaf = _leaf(session, args.leaf)
    session.refuse_too_deep(leaf)  # as context does: one line, the same limit
    if args.json:
        fates = session.fates(leaf)
        head = explain_head(session, fates, leaf)
        _out_json_stream(head, "entries", entry_data(session, fates))
        return 0
    look = _look(args)
    _out(explain_text(session, leaf, look.color, look.width, look.ascii, _collapse(args)))
    return 0
