"""``pisession.cli.main``: parse the command line, run the command, turn every failure
into one line and an exit status (``report``).

>>> main(["check", "tour"])
pisession/samples/tour.jsonl: no problems found (26 entries)
0
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import gc
import sys

from ..errors import PisessionError
from .options import TERMINAL_OPTIONS, WRITES_NO_TEXT
from .output import _out, _to_stdout
from .parser import build_parser, short_help
from .report import PROG, CommandError, _fail, _message, _quiet_pipe, _unexpected


def _command_guess(parser: argparse.ArgumentParser, word: str) -> str | None:
    """The error for a first word that is no command, with the closest one (``None``
    when it is a command or an option).

    >>> _command_guess(build_parser(), "explian")
    "unknown command 'explian': did you mean explain?"
    """
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    names = list(actions[0].choices)
    if word.startswith("-") or word in names:
        return None
    close = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}?" if close else f"the commands are {', '.join(names)}"
    return f"unknown command {word!r}: {hint}"


def _extra_hint(args: argparse.Namespace, extra: list[str]) -> str:
    """What is left over after parsing, and what it probably meant: a leaf's id given
    where a second FILE would go.

    >>> _extra_hint(build_parser().parse_args(["explain", "tour"]), ["a7000001"])
    'unrecognized argument a7000001: to pick a leaf, use --leaf a7000001'
    >>> _extra_hint(build_parser().parse_args(["export", "tour"]), ["--width", "80"])
    'export writes a file: --width is for text on a terminal'
    """
    if len(extra) == 1 and not extra[0].startswith("-") and getattr(args, "leaf", 0) is None:
        return f"unrecognized argument {extra[0]}: to pick a leaf, use --leaf {extra[0]}"
    terminal = [x.split("=")[0] for x in extra if x.split("=")[0] in TERMINAL_OPTIONS]
    if terminal and args.command in WRITES_NO_TEXT:
        what = "JSON" if args.command == "context" else "a file"
        return f"{args.command} writes {what}: {' '.join(terminal)} is for text on a terminal"
    return f"unrecognized arguments: {' '.join(extra)}"


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 problems, 2 error).

    >>> main(["check", "tour"])
    pisession/samples/tour.jsonl: no problems found (26 entries)
    0
    """
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    if not argv:
        _out(short_help(parser))
        return 0
    guess = _command_guess(parser, argv[0])
    if guess:
        parser.error(guess)
    args, extra = parser.parse_known_args(argv)
    if extra:  # named by the command's own help, which lists what it takes
        parser.error(_extra_hint(args, extra), f"{PROG} {args.command}")
    # The millions of objects a big session decodes into hold no reference cycles, so
    # the cyclic collector would only walk them again and again: off for the command.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _run(args)
    finally:
        if collecting:
            gc.enable()


def _run(args: argparse.Namespace) -> int:
    """Run the parsed command: one-line errors, quiet broken pipes, 130 on Ctrl-C."""
    if hasattr(sys.stdout, "reconfigure"):
        with contextlib.suppress(ValueError, OSError):
            sys.stdout.reconfigure(errors="backslashreplace")
    try:
        status: int = args.func(args)
        with _to_stdout():
            sys.stdout.flush()
        return status
    except BrokenPipeError:
        return _quiet_pipe()
    except (PisessionError, OSError, CommandError) as exc:
        return _fail(_message(exc))
    except KeyboardInterrupt:
        sys.stderr.write("\n")
        return 130
    except Exception as exc:
        return _unexpected(exc)
