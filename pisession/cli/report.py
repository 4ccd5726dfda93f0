"""Errors, warnings and notes on standard error, and the exit rule of ``pisession``.

Every message is one line in a pipe or a log (``pisession: error: ...``), broken at spaces
to a terminal's width there. Exit status: 0 done, 1 problems found (``check``, ``search``
without hits, ``tree`` without fates), 2 an error, 130 Ctrl-C.

>>> _fail("x.jsonl: no such file")
2
"""

from __future__ import annotations

import io
import os
import sys

from ..views.terminal import clean, output_width, wrap

PROG = "pisession"

#: Where to report a bug (named by the one-line message of an unexpected error).
ISSUES = "https://github.com/pi-agents/pisession/issues"


class CommandError(Exception):
    """A usage problem found after parsing (exit status 2, one line on stderr)."""


def _say(kind: str, message: str) -> None:
    """``pisession: KIND: message`` on stderr: one line in a pipe or a log; on a
    terminal, broken at spaces to its width, the rest indented (one implementation for
    every error, warning and note)."""
    width = output_width(sys.stderr, env={})  # a terminal's width, else None: one line
    lead = f"{PROG}: {kind}: " if kind != "skipped" else f"{PROG}: skipped "
    lines = wrap(clean(message), width, "    ", lead)
    sys.stderr.write("\n".join(lines) + "\n")


def _note_line(message: str) -> None:
    _say("note", message)


def _warn(message: str) -> None:
    _say("warning", message)


def _fail(message: str) -> int:
    _say("error", message)
    return 2


def _message(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        where = exc.filename if exc.filename is not None else ""
        reason = exc.strerror or str(exc)
        return f"{where}: {reason}" if where else reason
    return str(exc)


def _unexpected(exc: BaseException) -> int:
    """An error pisession did not foresee: one line naming it and where to report it
    (``PISESSION_DEBUG=1`` shows the traceback instead)."""
    if os.environ.get("PISESSION_DEBUG"):
        raise exc
    if isinstance(exc, MemoryError):
        return _fail("out of memory reading this session")
    return _fail(
        f"unexpected {type(exc).__name__}: {exc} (a bug in pisession: please report it at "
        f"{ISSUES}; PISESSION_DEBUG=1 shows the traceback)"
    )


def _quiet_pipe() -> int:
    """``pisession ... | head``: the reader left; stop without a message, exit 0 (what
    was written before is what the reader wanted; whether a write still fitted in the
    pipe's buffer must not decide the status)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass
    return 0
