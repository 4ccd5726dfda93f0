"""Writing to standard output: text, exact bytes, JSON as Pi writes it, files written
atomically, and the terminal's look (``--color``, ``--width``, ``--ascii``).

>>> _out_json({"a": [1, 2]}, None)
{"a":[1,2]}
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..js import json as jsjson
from ..views.terminal import Look, can_draw_boxes, output_width, use_color, wrap
from .report import CommandError


@contextlib.contextmanager
def _to_stdout() -> Iterator[None]:
    """An error writing standard output names it (``standard output: No space left on
    device``); a closed pipe stays a ``BrokenPipeError`` (``_quiet_pipe``)."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror or str(exc), "standard output") from None


def _out(text: str) -> None:
    with _to_stdout():
        sys.stdout.write(text)


def _out_bytes(data: bytes) -> None:
    """Write bytes exactly (JSON output must not depend on the locale's encoding)."""
    buffer = getattr(sys.stdout, "buffer", None)
    with _to_stdout():
        if buffer is None:
            sys.stdout.write(data.decode("utf-8"))
            return
        sys.stdout.flush()
        buffer.write(data)
        buffer.flush()


def _out_chunks(chunks: Iterable[bytes]) -> None:
    """Write bytes as they come (a long context is never held whole)."""
    buffer = getattr(sys.stdout, "buffer", None)
    with _to_stdout():
        sys.stdout.flush()
    for chunk in chunks:
        with _to_stdout():
            if buffer is None:
                sys.stdout.write(chunk.decode("utf-8"))
            else:
                buffer.write(chunk)
    if buffer is not None:
        with _to_stdout():
            buffer.flush()


def _out_json(value: object, indent: int | None = 2) -> None:
    """Print JSON as Pi writes it, with terminal-steering characters as ``\\u`` escapes
    (C1 controls, DEL, bidi overrides: the JSON value is unchanged)."""
    text = jsjson.terminal_safe(jsjson.dumps(value, indent))
    _out_bytes(text.encode("utf-8") + b"\n")


def _out_json_stream(
    head: dict[str, Any], key: str, items: Iterable[dict[str, Any]], block: int = 2000
) -> None:
    """One JSON object: ``head``'s fields (indented), then ``key`` holding ``items``, one
    per line, written ``block`` at a time (a long list is never held as text)."""
    text = jsjson.dumps(head, 2) if head else "{\n}"
    start = text[:-2] + (",\n" if head else "\n") + f'  "{key}": ['
    _out_bytes(jsjson.terminal_safe(start).encode("utf-8"))
    written = 0
    chunk: list[str] = []
    for item in items:
        chunk.append(jsjson.dumps(item))
        if len(chunk) == block:
            written += _out_json_lines(chunk, written)
    written += _out_json_lines(chunk, written)
    _out_bytes(b"\n  ]\n}\n" if written else b"]\n}\n")


def _out_json_lines(chunk: list[str], written: int) -> int:
    """Write list members, one per line; how many were written."""
    if not chunk:
        return 0
    text = ("\n    " if not written else ",\n    ") + ",\n    ".join(chunk)
    _out_bytes(jsjson.terminal_safe(text).encode("utf-8"))
    count = len(chunk)
    chunk.clear()
    return count


#: How much of an answer is held in memory before the rest waits in a temporary file.
HELD_IN_MEMORY = 64 << 20


def _whole(chunks: Iterable[bytes], in_memory: int = HELD_IN_MEMORY) -> Iterator[bytes]:
    """The chunks, once every one of them is made: an error on the way (Pi would throw)
    leaves nothing on standard output, never half a JSON text; memory stays bounded
    (beyond ``in_memory`` bytes the chunks wait in a temporary file).

    >>> b"".join(_whole(iter([b"a", b"b"]), in_memory=1))
    b'ab'
    """
    from ..engine.stream import whole_characters  # here: `pisession --help` does not load it

    with tempfile.SpooledTemporaryFile(max_size=in_memory) as held:
        for chunk in chunks:
            held.write(chunk)
        held.seek(0)
        start = b""
        while piece := held.read(1 << 20):
            piece = start + piece
            cut = whole_characters(piece)  # never half a character
            start = piece[cut:]
            yield piece[:cut]
        yield start


def _lines_for(text: str) -> str:
    """``text`` broken at spaces to the terminal's width (whole lines in a pipe)."""
    width = output_width(sys.stdout)
    return "".join("\n".join(wrap(line, width, "    ")) + "\n" for line in text.splitlines())


def _ascii(args: argparse.Namespace) -> bool:
    return bool(args.ascii) or not can_draw_boxes(sys.stdout)


def _look(args: argparse.Namespace) -> Look:
    width = args.width if args.width else output_width(sys.stdout)
    return Look(use_color(args.color, sys.stdout), width, _ascii(args))


def _collapse(args: argparse.Namespace) -> int:
    return 0 if getattr(args, "all", False) else args.collapse


def _check_target(target: Path, force: bool, source: str | None = None) -> None:
    """Refuse to replace an existing file (or any symlink, even a dangling one) without
    ``--force``, or the input itself."""
    if not os.path.lexists(target):
        return
    if target.is_dir():
        raise CommandError(f"{target}: is a folder; name a file (-o {target / 'NAME'})")
    if source and target.exists() and os.path.exists(source) and os.path.samefile(source, target):
        raise CommandError(f"{target}: is the input file; write somewhere else")
    if not force:
        raise CommandError(f"{target}: exists; pass --force to replace it")


def _write(path: Path, data: bytes | Iterable[bytes]) -> None:
    """Write atomically (``files.atomic_write``); errors name ``path``, never the
    temporary file beside it."""
    from ..files import atomic_write  # here: the commands that only print never load it

    try:
        atomic_write(path, data, overwrite=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if not path.parent.is_dir():
            reason = f"no folder {path.parent}"
        raise CommandError(f"{path}: cannot write: {reason}") from None
