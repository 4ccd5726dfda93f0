"""Safe, tidy terminal output: escaping session text, colour, widths.

A session file is untrusted text. Printed raw, an ``ESC [`` sequence inside a tool
result could recolour, move the cursor or retitle the reader's terminal. ``clean``
makes every control character (C0, DEL, C1), bidirectional override and lone
surrogate visible as an escape, so what the file holds is what the reader sees.

Colour is used only when asked for, or when the stream is a terminal and ``NO_COLOR``
is unset (https://no-color.org); pipes never receive ANSI sequences.
"""

from __future__ import annotations

import os
import shutil
import sys
import unicodedata
from typing import TextIO

from .text import visible


def clean(text: object) -> str:
    """``text`` with every control character and escape sequence made visible (one
    value, one terminal line): ``pisession.text.visible``.

    >>> clean("red \\x1b[31mALERT\\x1b[0m\\nnext")
    'red \\\\x1b[31mALERT\\\\x1b[0m\\\\nnext'
    """
    return visible(text)


def char_width(char: str) -> int:
    """Columns a character takes: 0 for combining marks, 2 for wide East Asian ones.

    >>> char_width("a"), char_width("\\u4e2d"), char_width("\\u0301")
    (1, 2, 0)
    """
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def text_width(text: str) -> int:
    """Columns ``text`` takes in a terminal (no ANSI sequences expected).

    >>> text_width("ab\\u4e2d")
    4
    """
    if text.isascii():  # the usual case: one column per character (controls are escaped)
        return len(text)
    return sum(char_width(c) for c in text)


def truncate(text: str, width: int | None, ellipsis: str = "…") -> str:
    """Cut ``text`` to ``width`` columns, ending in ``ellipsis`` when cut.

    ``None`` means no limit.

    >>> truncate("a long summary", 8), truncate("short", 8), truncate("abc", None)
    ('a long …', 'short', 'abc')
    """
    if width is None or text_width(text) <= width:
        return text
    room = max(width - text_width(ellipsis), 0)
    out, used = [], 0
    for char in text:
        w = char_width(char)
        if used + w > room:
            break
        out.append(char)
        used += w
    return "".join(out) + ellipsis if width >= text_width(ellipsis) else "".join(out)


def truncate_left(text: str, width: int | None, ellipsis: str = "…") -> str:
    """Like ``truncate`` but keeps the end (useful for file paths).

    >>> truncate_left("/home/u/.pi/agent/sessions/x.jsonl", 12)
    '…ons/x.jsonl'
    """
    if width is None or text_width(text) <= width:
        return text
    return ellipsis + truncate(text[::-1], max(width - text_width(ellipsis), 0), "")[::-1]


def pad(text: str, width: int, right: bool = False) -> str:
    """Pad ``text`` with spaces to ``width`` columns (right-aligned if ``right``).

    >>> pad("ab", 4) + "|", pad("7", 3, right=True)
    ('ab  |', '  7')
    """
    gap = " " * max(width - text_width(text), 0)
    return gap + text if right else text + gap


# --- colour ---------------------------------------------------------------------------

_CODES = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
    "grey": "90",
    "bright_green": "92",
}


def paint(text: str, *styles: str, color: bool = True) -> str:
    """Wrap ``text`` in ANSI styles when ``color`` is true; unchanged otherwise.

    >>> paint("sent", "green", color=False), paint("sent", "green")
    ('sent', '\\x1b[32msent\\x1b[0m')
    """
    codes = ";".join(_CODES[s] for s in styles if s in _CODES)
    if not color or not codes or not text:
        return text
    return f"\x1b[{codes}m{text}\x1b[0m"


def use_color(choice: bool | None = None, stream: TextIO | None = None, env=None) -> bool:
    """Whether to colour ``stream``: an explicit choice wins; otherwise only a terminal,
    and only when ``NO_COLOR`` is unset and ``TERM`` is not ``dumb``.

    >>> import io
    >>> use_color(None, io.StringIO()), use_color(True, io.StringIO())
    (False, True)
    """
    if choice is not None:
        return choice
    env = os.environ if env is None else env
    stream = sys.stdout if stream is None else stream
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def output_width(stream: TextIO | None = None, env=None) -> int | None:
    """Columns to fit output into: the terminal's width, ``$COLUMNS`` in a pipe when
    set, else ``None`` (no truncation, so ``grep`` sees whole lines).

    >>> import io
    >>> output_width(io.StringIO(), env={}), output_width(io.StringIO(), env={"COLUMNS": "60"})
    (None, 60)
    """
    env = os.environ if env is None else env
    stream = sys.stdout if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    if isatty and isatty():
        return max(shutil.get_terminal_size((100, 24)).columns, 20)
    columns = env.get("COLUMNS", "")
    return max(int(columns), 20) if columns.isdigit() else None


def can_draw_boxes(stream: TextIO | None = None) -> bool:
    """True when the stream's encoding can show box-drawing characters.

    >>> import io
    >>> can_draw_boxes(io.StringIO())
    True
    """
    stream = sys.stdout if stream is None else stream
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        "│├└◀●○…".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def note(message: str, stream: TextIO | None = None) -> None:
    """A progress note on stderr, only when stderr is a terminal (never in logs/pipes)."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    if isatty and isatty():
        stream.write(f"\r\x1b[K{clean(message)}")
        stream.flush()


def end_note(stream: TextIO | None = None) -> None:
    """Erase a progress note written by ``note``."""
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    if isatty and isatty():
        stream.write("\r\x1b[K")
        stream.flush()
