"""``pisession diff``: the contexts of two leaves compared: where their paths part, and
which messages are shared, only in one, or changed (``views.diff.diff_text``), or JSON.

>>> from pisession.cli.parser import build_parser
>>> build_parser().parse_args(["diff", "tour", "a6", "a7"]).leaf_b
'a7'
"""

from __future__ import annotations

import argparse

from .loading import _leaf, _load
from .options import (
    _FILE_HELP,
    AddCommand,
    _collapse_options,
)
from .output import (
    _collapse,
    _look,
    _out,
    _out_json,
)

EPILOG = """\
examples:
  pisession diff session.jsonl a6000001 a7000001
  pisession diff session.jsonl a6000001 a7000001 --json

Where the two paths part, and which messages of the two contexts are shared, only in
A (-), only in B (+), or sent by both but with different content (~, a context edit).
"""


def add_parser(sub: AddCommand) -> None:
    """``diff``'s arguments: FILE, LEAF_A, LEAF_B, ``--collapse``/``--all``, ``--json``.

    >>> from pisession.cli.parser import build_parser
    >>> build_parser().parse_args(["diff", "tour", "a6", "a7", "--json"]).json
    True
    """
    p = sub("diff", "compare the contexts of two leaves", EPILOG, run)
    p.add_argument("file", metavar="FILE", help=_FILE_HELP)
    p.add_argument("leaf_a", metavar="LEAF_A", help="entry id of the first leaf")
    p.add_argument("leaf_b", metavar="LEAF_B", help="entry id of the second leaf")
    _collapse_options(p)
    p.add_argument("--json", action="store_true", help="JSON instead of text")


def run(args: argparse.Namespace) -> int:
    """``pisession diff``: two leaves' contexts compared (``diff``).

    >>> from pisession.cli.parser import build_parser
    >>> run(build_parser().parse_args(["diff", "tour", "a6000001", "a7000001"]))
    ... # doctest: +ELLIPSIS
    file        pisession/samples/tour.jsonl
    A           a6000001 (line 27): 10 messages
    B           a7000001 (line 20): 8 messages
    ...
    0
    """
    # here, as in every command's run: `pisession --help` loads no renderer
    from ..views.diff import diff_text

    session = _load(args.file)
    a, b = _leaf(session, args.leaf_a), _leaf(session, args.leaf_b)
    session.refuse_too_deep(a)
    session.refuse_too_deep(b)
    result = session.diff(a, b)
    if args.json:
        _out_json(result.to_dict(session))
        return 0
    look = _look(args)
    _out(diff_text(session, result, look, _collapse(args)))
    return 0
