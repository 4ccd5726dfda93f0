"""``pisession context``: the model context as Pi builds it (``buildSessionContext``), as
JSON byte for byte as Pi writes it; ``--llm`` the provider messages (``convertToLlm``),
``--sent`` what the request carries (pi-ai's ``transformMessages``).

>>> from pisession.cli.parser import build_parser
>>> build_parser().parse_args(["context", "tour", "--sent", "--now", "0"]).now
0
"""

from __future__ import annotations

import argparse
import sys

from ..js.value import value_text
from ..piversions import pi_versions
from ..request import Sent, WrittenResult
from ..views.terminal import clean
from ..views.text import plural
from .loading import _leaf, _load
from .options import _LEAF_HELP, AddCommand, _file_argument, _positive
from .output import _out_bytes, _out_chunks, _out_json, _whole
from .report import PROG

EPILOG = """\
examples:
  pisession context session.jsonl             Pi's buildSessionContext, indent 2
  pisession context session.jsonl --compact   one line, as JSON.stringify(ctx)
  pisession context session.jsonl --leaf a7000001 --llm   provider messages
  pisession context session.jsonl --sent      what the request carries
  pisession context session.jsonl --sent --model anthropic/claude-opus-4-5

--llm is Pi's convertToLlm of the context. --sent goes one step further, as every
provider API of pi-ai does before a request (transformMessages): failed and aborted
replies left out, a "No result provided" tool result written for each call without one,
thinking and signatures from another model dropped or rewritten, tool-call ids made the
target API's, images replaced for a text-only model. The target is the model in force at
the leaf (--model: another one); a written result's timestamp is Date.now() (--now MS).

The JSON is written exactly as JavaScript's JSON.stringify writes it (key order, number
text, lone surrogates escaped), in UTF-8, ending with one newline. With the default
--indent 2 it matches `JSON.stringify(ctx, null, 2)` byte for byte.
"""


def add_parser(sub: AddCommand) -> None:
    """``context``'s arguments: FILE, ``--leaf``, ``--llm`` or ``--sent`` (with
    ``--model``, ``--now``, ``--pi``), ``--indent`` or ``--compact``.

    >>> from pisession.cli.parser import build_parser
    >>> build_parser().parse_args(["context", "tour", "--compact"]).compact
    True
    """
    p = sub("context", "print the model context as Pi builds it (JSON)", EPILOG, run)
    _file_argument(p)
    p.add_argument("--leaf", metavar="ID", help=_LEAF_HELP)
    step = p.add_mutually_exclusive_group()
    step.add_argument(
        "--llm", action="store_true", help="print the provider messages (convertToLlm)"
    )
    step.add_argument(
        "--sent",
        action="store_true",
        help="print what the request carries (pi-ai's transformMessages of --llm)",
    )
    p.add_argument(
        "--model",
        metavar="PROVIDER/ID",
        help="with --sent: the target model (default: the model in force at the leaf)",
    )
    p.add_argument(
        "--now", type=int, metavar="MS", help="with --sent: Date.now() of written tool results"
    )
    p.add_argument(
        "--pi",
        choices=pi_versions()["checked"],
        help="with --sent: the Pi version whose pi-ai to follow (default: the primary one)",
    )
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument(
        "--indent",
        type=_positive,
        default=2,
        metavar="N",
        help="indent (default 2; 0: one line; at most 10, as in JSON.stringify)",
    )
    fmt.add_argument("--compact", action="store_true", help="one line (same as --indent 0)")


def run(args: argparse.Namespace) -> int:
    """``pisession context``: the model context as Pi builds it, as JSON (written as it
    is built; a helper process writes a long context's second half).

    >>> from pisession.cli.parser import build_parser
    >>> run(build_parser().parse_args(["context", "tour", "--compact"]))
    ... # doctest: +ELLIPSIS
    {"messages":[{"role":"system","content":"","sections":{"preamble":...}
    0
    """
    session = _load(args.file)
    leaf = _leaf(session, args.leaf)
    indent = 0 if args.compact else min(args.indent, 10)  # JSON.stringify's limit
    if args.llm:
        session.refuse_too_deep(leaf)
        _out_json(session.context(leaf).to_llm(), indent or None)
        return 0
    if args.sent:
        done = session.sent(leaf, args.model, args.now, args.pi)
        _out_json(done.messages, indent or None)
        sys.stderr.write(f"{clean(_sent_note(done))}\n")
        return 0
    from ..engine.stream import terminal_safe  # here: `pisession --help` does not load it

    chunks = session.context_json(leaf, indent or None, parallel=True)
    _out_chunks(_whole(terminal_safe(chunk) for chunk in chunks))
    _out_bytes(b"\n")
    return 0


def _sent_note(done: Sent) -> str:
    """The line ``context --sent`` writes to standard error: for which model, what changed."""
    model = done.model
    assert model is not None  # Session.sent always names the target model
    written = sum(isinstance(o, WrittenResult) for o in done.origins)
    name = f"{value_text(model.provider)}/{value_text(model.id)}"
    return (
        f"{PROG}: pi-ai's transformMessages for {name} ({value_text(model.api)}: "
        f"{model.source}): {plural(len(done.messages), 'message')}, "
        f"{plural(len(done.left_out), 'reply', 'replies')} left out, "
        f"{plural(written, 'tool result')} written "
        "(their timestamp is Date.now(): --now MS fixes it)"
    )
