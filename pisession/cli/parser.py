"""The argument parser of ``pisession``: the common options, then each command's own,
added by its module (``add_parser``), in the order ``pisession --help`` lists them.

>>> [add.__module__ for add in COMMANDS][:3]
['pisession.cli.explain', 'pisession.cli.context', 'pisession.cli.tree']
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from ..piversions import __version__, version_text
from . import check, context, diff, explain, export, ls, migrate, search, stats, tree, usage
from .options import WRITES_NO_TEXT, AddCommand, _common, _HelpFormatter, _Parser, _sentence
from .report import PROG

#: The commands, in the order of the help: each module's ``add_parser`` adds its
#: arguments and names its ``run``.
COMMANDS: tuple[Callable[[AddCommand], None], ...] = (
    explain.add_parser,
    context.add_parser,
    tree.add_parser,
    export.add_parser,
    diff.add_parser,
    migrate.add_parser,
    check.add_parser,
    stats.add_parser,
    ls.add_parser,
    usage.add_parser,
    search.add_parser,
)


def build_parser() -> _Parser:
    """The argument parser of the ``pisession`` command.

    >>> build_parser().parse_args(["tree", "tour", "--all"]).collapse
    12
    """
    common = _common()
    formatter = _HelpFormatter
    parser = _Parser(
        prog=PROG,
        description="Read Pi session files: which lines reached the model, and why.",
        epilog="Run `pisession COMMAND --help` for examples. Start with `pisession explain`.",
        formatter_class=formatter,
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__} {version_text()}"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    def sub(
        name: str, help_text: str, epilog: str, func: Callable[[argparse.Namespace], int]
    ) -> argparse.ArgumentParser:
        p = commands.add_parser(
            name,
            help=help_text,
            epilog=epilog,
            parents=[] if name in WRITES_NO_TEXT else [common],
            description=_sentence(help_text),
            formatter_class=formatter,
        )
        p.set_defaults(func=func)
        return p

    for add in COMMANDS:
        add(sub)
    return parser


def short_help(parser: argparse.ArgumentParser) -> str:
    """What ``pisession`` alone prints: one line per command, and where to start.

    >>> short_help(build_parser()).splitlines()[2]
    '  pisession explain  which entries reached the model for a leaf, and why'
    """
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    lines = ["pisession: which lines of a Pi session file reached the model, and why.", ""]
    for choice in actions[0]._choices_actions:
        lines.append(f"  pisession {choice.dest:<8} {choice.help}")
    lines += [
        "",
        "FILE: a path, - (standard input), a sample (tour) or a stored session's id.",
        "Start with `pisession explain`; `pisession COMMAND --help` shows examples.",
    ]
    return "\n".join(lines) + "\n"
