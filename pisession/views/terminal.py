"""Safe, tidy terminal output: escaping session text, colour, widths.

A session file is untrusted text. Printed raw, an ``ESC [`` sequence inside a tool
result could recolour, move the cursor or retitle the reader's terminal. ``clean``
makes every control character (C0, DEL, C1), bidirectional override and lone
surrogate visible as an escape, so what the file holds is what the reader sees.

Colour is used only when asked for, or when the stream is a terminal and ``NO_COLOR``
is unset (https://no-color.org); pipes never receive ANSI sequences.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import sys
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import TextIO

from .text import visible

#: ANSI colour codes as ``paint`` writes them.
SGR = re.compile(r"\x1b\[[0-9;]*m")


def clean(text: object) -> str:
    """``text`` with every control character and escape sequence made visible (one
    value, one terminal line): ``pisession.views.text.visible``.

    >>> clean("red \\x1b[31mALERT\\x1b[0m\\nnext")
    'red \\\\x1b[31mALERT\\\\x1b[0m\\\\nnext'
    """
    return visible(text)


@functools.cache
def _wcwidth() -> ModuleType | None:
    """wcwidth, the terminals' own tables (emoji sequences, zero-width and conjoining
    marks), imported when a width is first measured: it takes about 10 ms to load, which
    a command writing JSON or a page does not spend."""
    try:
        import wcwidth
    except ImportError:  # pragma: no cover - a dependency; kept for a bare interpreter
        return None
    return wcwidth


_ESCAPED = ("Cc", "Zl", "Zp")
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def char_width(char: str) -> int:
    """Columns a character (or a grapheme cluster, such as an emoji joined by ZWJ) takes:
    0 for combining and zero-width marks, 2 for wide East Asian ones and emoji.

    >>> char_width("a"), char_width("\\u4e2d"), char_width("\\u0301"), char_width("\\u200b")
    (1, 2, 0, 0)
    """
    if len(char) == 1 and (unicodedata.category(char) in _ESCAPED or char in _BIDI):
        return 1  # a control, line separator or bidi mark: ``clean`` escapes it anyway
    tables = _wcwidth()
    if tables is not None:
        width: int = tables.wcswidth(char)
        if width >= 0:
            return width
        if len(char) > 1:  # a control inside: measure character by character
            return sum(char_width(c) for c in char)
        return 1  # a control character shows as one column (they reach here escaped)
    if len(char) > 1:
        return sum(char_width(c) for c in char)
    if unicodedata.combining(char) or char in "\u200b\u200c\u200d\u2060\ufeff":
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def clusters(text: str) -> list[str]:
    """``text`` cut into what a terminal draws as one unit (grapheme clusters when
    ``wcwidth`` knows them, else characters).

    >>> clusters("a\\u200bb"), len(clusters("\\U0001f468\\u200d\\U0001f469"))
    (['a', '\\u200b', 'b'], 1)
    """
    return list(_iter_clusters(text))


def _iter_clusters(text: str) -> Iterator[str]:
    split = getattr(_wcwidth(), "iter_graphemes", None)
    return split(text) if split is not None else iter(text)


# Characters one column wide in every Unicode version Python 3.10-3.13 knows (Latin,
# punctuation, arrows, box drawing, shapes, the tree's marks): only the others are
# measured one by one. tests/test_terminal.py checks the ranges against ``char_width``.
NARROW_RANGES = (
    (0x0000, 0x02FF),
    (0x2010, 0x205F),
    (0x2190, 0x21FF),
    (0x2500, 0x25FC),
    (0x2713, 0x2713),
    (0x2717, 0x2717),
)
_NOT_NARROW = re.compile("[^" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in NARROW_RANGES) + "]")


def text_width(text: str) -> int:
    """Columns ``text`` takes in a terminal (no ANSI sequences expected).

    >>> text_width("ab\\u4e2d"), text_width("├─ ● x")
    (4, 6)
    """
    if text.isascii():  # the usual case: one column per character (controls are escaped)
        return len(text)
    if not _NOT_NARROW.search(text):
        return len(text)
    tables = _wcwidth()
    if tables is not None:
        width: int = tables.wcswidth(text)
        if width >= 0:
            return width
        return sum(char_width(c) for c in clusters(text))
    return len(text) + sum(char_width(c) - 1 for c in _NOT_NARROW.findall(text))


def truncate(text: str, width: int | None, ellipsis: str = "…") -> str:
    """Cut ``text`` to ``width`` columns, ending in ``ellipsis`` when cut.

    ``None`` means no limit. Only the part that fits is measured, so cutting a
    megabyte of tool output to one line costs one line.

    >>> truncate("a long summary", 8), truncate("short", 8), truncate("abc", None)
    ('a long …', 'short', 'abc')
    >>> truncate("a long summary", 8, "...")
    'a lon...'
    """
    if width is None:
        return text
    start = text if len(text) < 4096 else text[: width + 1]
    if start.isascii() or not _NOT_NARROW.search(start):  # one column per character
        if len(text) <= width:
            return text
        if width < len(ellipsis):
            return text[:width]
        return text[: width - len(ellipsis)] + ellipsis
    room = max(width - text_width(ellipsis), 0)
    out: list[str] = []
    used, cut_at = 0, None
    for char in _iter_clusters(text):  # lazily: only the part that fits is cut
        w = char_width(char)
        if cut_at is None and used + w > room:
            cut_at = len(out)
        if used + w > width:
            break
        out.append(char)
        used += w
    else:
        return text  # it all fits
    kept = "".join(out[:cut_at])
    return kept + ellipsis if width >= text_width(ellipsis) else kept


def truncate_left(text: str, width: int | None, ellipsis: str = "…") -> str:
    """Like ``truncate`` but keeps the end (useful for file paths).

    >>> truncate_left("/home/u/.pi/agent/sessions/x.jsonl", 12)
    '…ons/x.jsonl'
    """
    if width is None or text_width(text) <= width:
        return text
    return ellipsis + truncate(text[::-1], max(width - text_width(ellipsis), 0), "")[::-1]


def wrap_path(path: str, width: int | None, indent: str = "", first: str = "") -> list[str]:
    """``wrap`` for a file's path: broken after a ``/`` (or ``\\``), so that a name is
    cut only when it is longer than a line.

    >>> wrap_path("/home/me/.pi/agent/sessions/--w--/a-long-name.jsonl", 30, "  ", "> ")
    ['> /home/me/.pi/agent/sessions/', '  --w--/a-long-name.jsonl']
    """
    if width is None or text_width(first + path) <= width:
        return [first + path]
    lines: list[str] = []
    line, lead = first, True  # nothing but the lead on this line yet
    for piece in re.split(r"(?<=[/\\])", path):
        if not lead and text_width(line + piece) > width:
            lines.append(line)
            line, lead = indent, True
        if text_width(line + piece) > width:  # a name longer than a line: cut it
            *full, line = wrap(piece, width, indent, line)
            lines.extend(full)
        else:
            line += piece
        lead = False
    lines.append(line)
    return lines


def wrap(text: str, width: int | None, indent: str = "", first: str = "") -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` columns: the first line
    starts with ``first``, the others with ``indent``. A word longer than a line is cut
    into pieces. ``None``: one line.

    >>> wrap("before the kept range of compaction c1: replaced", 20, "  ", "> ")
    ['> before the kept', '  range of', '  compaction c1:', '  replaced']
    >>> wrap("no-such/folder/file.jsonl: cannot read", 24, "  ", "error: ")
    ['error: no-such/folder/', '  file.jsonl: cannot', '  read']

    Colours (``paint``'s ANSI styles) do not count as columns, and never span a line
    break: a style open at the end of a line is reset there and opened again on the
    next line, so a terminal (or ``less -R``) never colours a newline or an indent.

    >>> wrap(paint("✓ kept by the compaction", "green"), 12)
    ['\\x1b[32m✓ kept by\\x1b[0m', '\\x1b[32mthe\\x1b[0m', '\\x1b[32mcompaction\\x1b[0m']
    """
    if text and "\x1b" in text:
        return _wrap_styled(text, width, indent, first)
    if width is None or text_width(first + text) <= width:
        return [first + text]
    lines: list[str] = []
    line, used = first, text_width(first)
    fresh = True  # nothing but the lead on this line yet
    for word in text.split(" "):
        size = text_width(word)
        if not fresh and used + 1 + size > width:
            lines.append(line)
            line, used, fresh = indent, text_width(indent), True
        while used + size > width and size > 0 and width - used > 0:
            piece = truncate(word, width - used, "")
            slash = max(piece.rfind("/"), piece.rfind("\\"))
            if 0 < slash < len(piece) - 1:  # a path: cut after a separator
                piece = piece[: slash + 1]
            lines.append(line + piece)
            word = word[len(piece) :]
            size = text_width(word)
            line, used = indent, text_width(indent)
        if not word and fresh:
            continue
        line += word if fresh else " " + word
        used += size if fresh else size + 1
        fresh = False
    lines.append(line)
    return lines


def _wrap_styled(text: str, width: int | None, indent: str, first: str) -> list[str]:
    """``wrap`` for text holding ANSI styles: the plain text is wrapped, then each style
    is put back where it stood, closed at every line's end and reopened after it."""
    codes: list[tuple[int, str]] = []  # (offset in the plain text, the SGR sequence)
    pieces, start, plain_len = [], 0, 0
    for match in SGR.finditer(text):
        pieces.append(text[start : match.start()])
        plain_len += match.start() - start
        codes.append((plain_len, match.group()))
        start = match.end()
    pieces.append(text[start:])
    plain = "".join(pieces)
    lines = wrap(plain, width, indent, first)
    out: list[str] = []
    active: list[str] = []  # the styles open (since the last reset)
    cursor, k = 0, 0  # where the next line's text is looked for; the next code
    for n, line in enumerate(lines):
        lead = first if n == 0 else indent
        content = line[len(lead) :]
        begin = plain.find(content, cursor) if content else cursor
        end = begin + len(content)
        last = n == len(lines) - 1
        while k < len(codes) and codes[k][0] < begin:  # styles in the gap before the line
            _apply(active, codes[k][1])
            k += 1
        shown = [lead, *active]
        at = begin
        while k < len(codes) and (
            codes[k][0] < end or last or (codes[k][0] == end and _is_reset(codes[k][1]))
        ):
            offset, code = codes[k]
            shown.append(plain[at:offset])
            shown.append(code)
            _apply(active, code)
            at, k = max(offset, at), k + 1
        shown.append(plain[at:end])
        if active and not last:
            shown.append("\x1b[0m")
        out.append("".join(shown))
        cursor = end
    return out


def _is_reset(code: str) -> bool:
    return code in ("\x1b[0m", "\x1b[m")


def _apply(active: list[str], code: str) -> None:
    """The open styles after ``code``: a reset closes them all."""
    if _is_reset(code):
        active.clear()
    else:
        active.append(code)


def open_style_at_line_end(text: str) -> list[int]:
    """The numbers (from 0) of the lines of ``text`` that end with an ANSI style still
    open: none should (a colour must be reset before the newline).

    >>> open_style_at_line_end("\\x1b[36medited 1\\n\\x1b[0m")
    [0]
    >>> open_style_at_line_end("a\\x1b[1mb\\x1b[0m\\n")
    []
    """
    found: list[int] = []
    active: list[str] = []
    for n, line in enumerate(text.split("\n")):
        if n and active:
            found.append(n - 1)
        for match in SGR.finditer(line):
            _apply(active, match.group())
    return found


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
    "italic": "3",
    "default": "39",
    "bright_green": "92",
    "underline": "4",
}


def paint(text: str, *styles: str, color: bool = True) -> str:
    """Wrap ``text`` in ANSI styles when ``color`` is true; unchanged otherwise. A
    style may name several, separated by spaces (``"red bold"``).

    >>> paint("sent", "green", color=False), paint("sent", "green"), paint("x", "red bold")
    ('sent', '\\x1b[32msent\\x1b[0m', '\\x1b[31;1mx\\x1b[0m')
    """
    codes = ";".join(_CODES[s] for style in styles for s in style.split() if s in _CODES)
    if not color or not codes or not text:
        return text
    return f"\x1b[{codes}m{text}\x1b[0m"


@dataclass(frozen=True)
class Look:
    """How a view is shown: ``color`` (ANSI styles), ``width`` (columns to fit; None: no
    limit, as in a pipe) and ``ascii`` (plain marks and punctuation, for a stream that
    cannot encode ``✓``, ``…`` or box drawing).

    >>> Look(ascii=True).cut("a long summary", 8), Look().mark(True), Look(ascii=True).mark(False)
    ('a lon...', '✓', '-')
    """

    color: bool = False
    width: int | None = None
    ascii: bool = False

    @property
    def ellipsis(self) -> str:
        """``…``, or ``...`` in ASCII.

        >>> Look().ellipsis, Look(ascii=True).ellipsis
        ('…', '...')
        """
        return "..." if self.ascii else "…"

    def cut(self, text: str, width: int | None = None) -> str:
        """``truncate`` to ``width`` (default: the look's width) with the look's ellipsis.

        >>> Look(width=6).cut("compaction")
        'compa…'
        """
        return truncate(text, self.width if width is None else width, self.ellipsis)

    def paint(self, text: str, *styles: str) -> str:
        """``paint`` when the look has colour.

        >>> Look().paint("kept", "green"), Look(color=True).paint("kept", "bold")
        ('kept', '\\x1b[1mkept\\x1b[0m')
        """
        return paint(text, *styles, color=self.color)

    def mark(self, reached: bool) -> str:
        """``✓`` reached the model, ``✗`` did not (ASCII: ``+`` and ``-``).

        >>> Look().mark(False), Look(ascii=True).mark(True)
        ('✗', '+')
        """
        return ("+" if reached else "-") if self.ascii else ("✓" if reached else "✗")

    def symbol(self, unicode: str, ascii: str) -> str:
        """``unicode``, or ``ascii`` for an ASCII look.

        >>> Look().symbol("┆", ":"), Look(ascii=True).symbol("┆", ":")
        ('┆', ':')
        """
        return ascii if self.ascii else unicode

    def visible_width(self, text: str) -> int:
        """Columns of ``text`` once its ANSI styles are left out.

        >>> Look().visible_width(Look(color=True).paint("sent", "bold"))
        4
        """
        return text_width(SGR.sub("", text) if "\x1b" in text else text)

    def fit(self, line: str) -> str:
        """A line cut to the width (its colours dropped if it has to be cut).

        >>> Look(width=5).fit("summarized"), Look(width=5).fit("sent")
        ('summ…', 'sent')
        """
        if self.width is None or self.visible_width(line) <= self.width:
            return line
        return self.cut(SGR.sub("", line))


def use_color(
    choice: bool | None = None, stream: TextIO | None = None, env: Mapping[str, str] | None = None
) -> bool:
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


def output_width(stream: TextIO | None = None, env: Mapping[str, str] | None = None) -> int | None:
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
        columns = env.get("COLUMNS", "")
        if columns.isdigit() and int(columns) > 0:  # as shutil.get_terminal_size
            return max(int(columns), 20)
        try:  # this stream's own terminal (stderr's may be one while stdout is a pipe)
            return max(os.get_terminal_size(stream.fileno()).columns, 20)
        except (AttributeError, OSError, ValueError):
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
    """A progress note on stderr, only when stderr is a terminal (never in logs/pipes).

    >>> import io
    >>> pipe = io.StringIO(); note("reading...", pipe); pipe.getvalue()
    ''
    """
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    if isatty and isatty():
        stream.write(f"\r\x1b[K{clean(message)}")
        stream.flush()


def end_note(stream: TextIO | None = None) -> None:
    """Erase a progress note written by ``note``.

    >>> import io
    >>> pipe = io.StringIO(); end_note(pipe); pipe.getvalue()
    ''
    """
    stream = sys.stderr if stream is None else stream
    isatty = getattr(stream, "isatty", None)
    if isatty and isatty():
        stream.write("\r\x1b[K")
        stream.flush()
