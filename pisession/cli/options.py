"""The options several commands share, their value types, and the parser class with
one-line errors; ``parser.build_parser`` puts them together with each command's own.

>>> _positive("3"), _columns("80")
(3, 80)
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable
from datetime import date
from typing import TYPE_CHECKING, NoReturn, Protocol

from .report import _say

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo


class AddCommand(Protocol):
    """How a command module adds its parser: ``sub(name, help, epilog, run)`` returns
    the command's own ``ArgumentParser`` (``parser.build_parser`` makes ``sub``)."""

    def __call__(
        self, name: str, help_text: str, epilog: str, func: Callable[[argparse.Namespace], int]
    ) -> argparse.ArgumentParser: ...


#: Commands whose output is not text for a terminal (JSON, a file): no colour, width or
#: ASCII options.
WRITES_NO_TEXT = ("context", "export", "migrate")


TERMINAL_OPTIONS = ("--color", "--no-color", "--width", "--ascii")


_FILE_HELP = "session file, - (standard input), a sample (tour) or a stored session's id"


_LEAF_HELP = (
    "entry id of the leaf (default: Pi's, the last entry in file order; none, an empty "
    "context, when its id is null)"
)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors that name the help to read."""

    def error(self, message: str, prog: str | None = None) -> NoReturn:
        if self.prog.endswith(" diff") and "arguments are required" in message:
            message += " (for example: pisession diff tour a6000001 a7000001)"
        _say("error", f"{message} (see {prog or self.prog} --help)")
        raise SystemExit(2)


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help whose prose paragraphs wrap to the terminal (at most 80 columns), while
    indented example lines stay as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        width = min(width, 78)
        paragraphs = []
        for paragraph in text.split("\n\n"):
            lines = paragraph.splitlines()
            if any(line.startswith(" ") for line in lines):  # examples, a table
                paragraphs.append(paragraph)
            else:
                paragraphs.append(textwrap.fill(" ".join(lines), width, break_on_hyphens=False))
        return textwrap.indent("\n\n".join(paragraphs), indent)


def _sentence(text: str) -> str:
    """A command's help as a sentence: capitalised, ended by a full stop unless it asks.

    >>> _sentence("find text; did it reach the model?"), _sentence("list sessions")
    ('Find text; did it reach the model?', 'List sessions.')
    """
    text = text[0].upper() + text[1:]
    return text if text.endswith(("?", ".")) else text + "."


def _common() -> _Parser:
    """The output options of every command that writes text for a terminal."""
    parent = _Parser(add_help=False)
    group = parent.add_argument_group("output")
    colors = group.add_mutually_exclusive_group()
    colors.add_argument(
        "--color",
        dest="color",
        action="store_const",
        const=True,
        default=None,
        help="colour even when stdout is not a terminal",
    )
    colors.add_argument(
        "--no-color",
        dest="color",
        action="store_const",
        const=False,
        help="no colour (also: NO_COLOR set, or stdout not a terminal)",
    )
    group.add_argument(
        "--width",
        type=_columns,
        default=None,
        metavar="N",
        help="fit lines into N columns, 20 or more (default: the terminal's "
        "width; no limit in a pipe)",
    )
    group.add_argument(
        "--ascii",
        action="store_true",
        help="ASCII marks and punctuation instead of box drawing, ✓/✗ and …",
    )
    return parent


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


def _columns(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < 20:
        raise argparse.ArgumentTypeError(f"expected a number of columns, 20 or more, not {text!r}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a count of entries (0 or more), not {text!r}")
    return value


def _day(text: str) -> str:
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a day as YYYY-MM-DD, not {text!r}") from None


def _zone(text: str) -> ZoneInfo:
    from zoneinfo import ZoneInfo  # here: only --timezone needs it

    try:
        return ZoneInfo(text)
    except (ValueError, OSError, LookupError):  # ZoneInfoNotFoundError is a KeyError
        raise argparse.ArgumentTypeError(
            f"not a time zone: {text!r} (an IANA name such as Europe/Paris or UTC)"
        ) from None


def _file_argument(p: argparse.ArgumentParser, more: str = "") -> None:
    """FILE, the session a command reads: the tour sample when none is given, for every
    command that takes one session alone (``diff`` needs its leaves too)."""
    help_text = _FILE_HELP + " (default: tour)" + more
    p.add_argument("file", nargs="?", default="tour", metavar="FILE", help=help_text)


def _collapse_options(p: argparse.ArgumentParser) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "--collapse",
        type=_positive,
        default=12,
        metavar="N",
        help="shorten runs of more than N entries of one fate to their first and last two "
        "(default 12; 0: never; a run of five or fewer stays whole)",
    )
    group.add_argument("--all", action="store_true", help="every entry (same as --collapse 0)")


def _folder_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("dir", nargs="?", metavar="DIR", help="sessions folder or file (default: Pi's)")
    p.add_argument("--pig", action="store_true", help="PiG's sessions instead of Pi's")
    _root_option(p)
    p.add_argument("--cwd", metavar="PATH", help="only sessions started in PATH")
    p.add_argument("--json", action="store_true", help="JSON instead of a table")


def _root_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--root",
        metavar="DIR",
        action="append",
        help="also the sessions below DIR, any folder of Pi-format sessions (repeatable)",
    )
