"""The ``pisession`` command: real session folders from the terminal.

    pisession explain [FILE]          which entries reached the model, and why
    pisession context [FILE]          the model context as Pi builds it (JSON)
    pisession tree [FILE]             the entry tree (text, or -o tree.png/.svg)
    pisession export [FILE] -o OUT    one HTML or Markdown file to share
    pisession diff FILE A B           two leaves' contexts side by side
    pisession migrate [FILE] -o OUT   write a version 3 copy of a legacy file
    pisession check [FILE]            damage and surprises, with an exit status
    pisession stats [FILE]            tokens, cost and message counts
    pisession ls [DIR]                the sessions Pi (or PiG) has stored
    pisession usage [DIR]             tokens and cost over a sessions folder
    pisession search PATTERN [DIR]    text across sessions, and each hit's fate

Also ``python -m pisession``. FILE is a path, ``-`` (standard input), a bundled sample
(``tour``, the default) or a stored session's id (whole, a unique prefix, or as ``ls``
shows it).
Files are only read, except by ``migrate``, ``export`` and ``tree -o`` (which write a
new file atomically, and replace one only with ``--force``). Session text is escaped
before it reaches the terminal; colours appear only on a terminal (never in a pipe) and
never when ``NO_COLOR`` is set. Errors are one line on stderr (broken at spaces to a
terminal's width) and exit status 2.

Importing this module stays light: matplotlib and networkx load only when needed.
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import difflib
import gc
import io
import os
import sys
import textwrap
from collections.abc import Iterable
from pathlib import Path
from shlex import quote
from typing import Any, cast

from ..errors import PisessionError, UnknownLeafError
from ..js import json as jsjson
from ..views.terminal import (
    Look,
    can_draw_boxes,
    clean,
    end_note,
    note,
    output_width,
    pad,
    text_width,
    truncate_left,
    use_color,
    wrap,
)
from ..views.text import plural

PROG = "pisession"

#: Where to report a bug (named by the one-line message of an unexpected error).
ISSUES = "https://github.com/pi-agents/pisession/issues"

#: How to get matplotlib for pictures (pisession is installed from its repository).
DRAW_INSTALL = "pip install matplotlib (or, in a clone of pisession: pip install '.[draw]')"

#: Files above this size get a "reading ..." note on stderr (when it is a terminal).
BIG_FILE = 8 * 1024 * 1024


class CommandError(Exception):
    """A usage problem found after parsing (exit status 2, one line on stderr)."""


# --- shared helpers -------------------------------------------------------------------


@contextlib.contextmanager
def _to_stdout():
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


def _roots() -> list[Path]:
    """The sessions folders a session id is looked up in: Pi's, then PiG's."""
    from ..locate import session_roots

    return session_roots()


def _shown_path(path: Path) -> str:
    """A bundled sample's path as the user can type it: relative when it is below the
    current folder, else absolute."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive (Windows)
        return str(path)
    return str(path) if relative.startswith("..") else relative


def _read_stdin() -> bytes:
    stdin = getattr(sys.stdin, "buffer", None)
    if stdin is None:
        raise CommandError("-: standard input is not available")
    if sys.stdin.isatty():
        note("pisession: reading a session from standard input (end it with Ctrl-D) ...")
    from ..engine.reader import read_stream

    data = read_stream(stdin, "-")
    end_note()
    return data


def _load(path: str, deterministic: bool = True, counting: bool = False):
    """Read the session ``path`` names (a file, ``-``, a sample, a stored session id);
    legacy files get sequential ids (``m0000001``...) so read-only commands print the
    same thing on every run and ``--leaf`` ids stay valid. ``counting``: read the usage
    figures on the way, for commands that show statistics (not from standard input)."""
    import pisession

    new_id = pisession.sequential_ids() if deterministic else None
    if path == "-":
        return pisession.loads(_read_stdin(), "<stdin>", new_id=new_id)
    shown = _resolve(path)
    try:
        size = os.path.getsize(shown)
    except OSError:
        size = 0
    if size > BIG_FILE:
        note(f"pisession: reading {shown} ({size / 1e6:.0f} MB) ...")
    try:
        return pisession.load(shown, new_id=new_id, counting=counting)
    finally:
        if size > BIG_FILE:
            end_note()


def _resolve(path: str) -> str:
    """The file FILE names: a path, a bundled sample's name or a stored session's id
    (``locate``), as it is shown in messages."""
    from ..locate import NotFound, locate
    from ..samples import sample_names

    if os.path.isdir(path):
        raise CommandError(f"{path}: is a folder; to list its sessions: pisession ls {quote(path)}")
    try:
        found = locate(path, _roots)  # the roots only for an id: $HOME may be unsearchable
    except NotFound as exc:
        raise CommandError(str(exc)) from None
    return _shown_path(found) if path in sample_names() else str(found)


def _leaf(session, leaf: str | None):
    """The ``--leaf`` value checked against the session: an entry id, or a unique start
    of one (as FILE takes a session id); a clear error if it names none or several.

    >>> import pisession
    >>> _leaf(pisession.load(pisession.sample_path("tour")), "a7")
    'a7000001'
    """
    if leaf is None:
        return None
    try:
        session.position_of(leaf)
        return leaf
    except UnknownLeafError as exc:
        error = exc
    starting = sorted({i for i in session.index.ids if isinstance(i, str) and i.startswith(leaf)})
    if len(starting) == 1:
        return starting[0]
    if starting:
        shown = ", ".join(clean(i) for i in starting[:8]) + (", ..." if len(starting) > 8 else "")
        raise CommandError(
            f"{session.source}: --leaf {leaf} starts {len(starting):,} entry ids ({shown}); "
            "give more of one"
        )
    raise CommandError(f"{error}{_line_hint(session, leaf) or _leaf_hint(session)}")


def _line_hint(session, leaf: str) -> str:
    """For a ``--leaf`` that is a line number: which entry that line holds."""
    if not leaf.isdigit():
        return ""
    lines = session.entry_lines
    position = bisect.bisect_left(lines, int(leaf))
    if position == len(lines) or lines[position] != int(leaf):
        return f" (line {leaf} holds no entry; --leaf takes an entry's id)"
    ident = session.index.ids[position]
    if not isinstance(ident, str):
        return f" (line {leaf} holds an entry without a string id)"
    return f" (line {leaf} is entry {clean(ident)}: --leaf {clean(ident)})"


def _leaf_hint(session) -> str:
    ids = []
    for position in reversed(session.leaves()):
        ident = session.index.ids[position]
        if isinstance(ident, str):
            ids.append(clean(ident))
        if len(ids) == 5:
            break
    return f" (leaves: {', '.join(ids)}; pisession tree shows them all)" if ids else ""


def _ascii(args) -> bool:
    return bool(args.ascii) or not can_draw_boxes(sys.stdout)


def _look(args) -> Look:
    width = args.width if args.width else output_width(sys.stdout)
    return Look(use_color(args.color, sys.stdout), width, _ascii(args))


def _collapse(args) -> int:
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


def _write(path: Path, data) -> None:
    """Write atomically (``files.atomic_write``); errors name ``path``, never the
    temporary file beside it."""
    from ..files import atomic_write

    try:
        atomic_write(path, data, overwrite=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if not path.parent.is_dir():
            reason = f"no folder {path.parent}"
        raise CommandError(f"{path}: cannot write: {reason}") from None


def _out_chunks(chunks) -> None:
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


def _out_json_stream(head: dict, key: str, items: Iterable[dict], block: int = 2000) -> None:
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


# --- explain --------------------------------------------------------------------------


def cmd_explain(args) -> int:
    """``pisession explain``: the explanation of a leaf (``explain.explain_text``), or
    its JSON."""
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


# --- context --------------------------------------------------------------------------


def cmd_context(args) -> int:
    """``pisession context``: the model context as Pi builds it, as JSON (written as it
    is built; a helper process writes a long context's second half)."""
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
    from ..engine.stream import terminal_safe

    chunks = session.context_json(leaf, indent or None, parallel=True)
    _out_chunks(_whole(terminal_safe(chunk) for chunk in chunks))
    _out_bytes(b"\n")
    return 0


def _checked_versions() -> list[str]:
    from ..piversions import pi_versions

    return pi_versions()["checked"]


def _sent_note(done) -> str:
    """The line ``context --sent`` writes to standard error: for which model, what changed."""
    from ..js.value import value_text
    from ..request import WrittenResult

    model = done.model
    written = sum(isinstance(o, WrittenResult) for o in done.origins)
    name = f"{value_text(model.provider)}/{value_text(model.id)}"
    return (
        f"{PROG}: pi-ai's transformMessages for {name} ({value_text(model.api)}: "
        f"{model.source}): {plural(len(done.messages), 'message')}, "
        f"{plural(len(done.left_out), 'reply', 'replies')} left out, "
        f"{plural(written, 'tool result')} written "
        "(their timestamp is Date.now(): --now MS fixes it)"
    )


#: How much of an answer is held in memory before the rest waits in a temporary file.
HELD_IN_MEMORY = 64 << 20


def _whole(chunks):
    """The chunks, once every one of them is made: an error on the way (Pi would throw)
    leaves nothing on standard output, never half a JSON text; memory stays bounded
    (beyond ``HELD_IN_MEMORY`` the chunks wait in a temporary file)."""
    import tempfile

    from ..engine.stream import whole_characters

    with tempfile.SpooledTemporaryFile(max_size=HELD_IN_MEMORY) as held:
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


# --- tree -----------------------------------------------------------------------------


def cmd_tree(args) -> int:
    """``pisession tree``: the entry tree as text, JSON or a picture."""
    from ..errors import SessionFormatError
    from ..views.explain import tree_chunks

    session = _load(args.file)
    leaf = _leaf(session, args.leaf)
    session.refuse_too_deep(leaf)
    image = _image_target(args)
    if image is not None:
        _check_target(image[0], args.force, args.file)
        return _draw(session, leaf, image, args)
    if args.json:
        return _tree_json(session, leaf)
    look = _look(args)
    options: dict[str, Any] = dict(
        color=look.color, width=look.width, ascii=look.ascii, collapse=_collapse(args)
    )
    chunks = tree_chunks(session, leaf, **options)
    try:  # the fates come first: a cycle or a file Pi itself fails on raises here
        first, status = next(chunks, ""), 0
    except SessionFormatError as exc:
        _warn(f"{exc}; the tree is drawn without fates")
        chunks = tree_chunks(session, leaf, with_fates=False, **options)
        first, status = next(chunks, ""), 1
    _out(first)
    for text in chunks:
        _out(text)  # written as it is drawn
    return status


def _tree_json(session, leaf) -> int:
    from ..errors import SessionFormatError
    from ..views.explain import json_id, leaf_data, tree_entries

    try:
        session.fates(leaf)
        fates, status = True, 0
    except SessionFormatError as exc:
        _warn(f"{exc}; the tree is written without fates")
        fates, status = False, 1
    chosen = session.default_leaf if leaf is None else session.position_of(leaf)
    head = {
        "file": session.source,
        "session": session.id,
        "leaf": None
        if chosen is None
        else {
            "id": json_id(session.index.ids[chosen]),
            "line": session.line_of(chosen),
            "label": session.label_of(chosen),
        },
        "roots": [json_id(session.index.ids[p]) for p in session.shape.roots],
        "leaves": leaf_data(session, chosen),
    }
    _out_json_stream(head, "entries", tree_entries(session, leaf, with_fates=fates))
    return status


_IMAGE_SUFFIXES = {".png": "png", ".svg": "svg"}


def _image_target(args) -> tuple[Path, str] | None:
    """Where ``tree`` draws to and in which format: from ``-o``'s suffix, or from
    ``--png``/``--svg`` (whose file name must not claim the other format)."""
    given = args.output or args.png or args.svg
    if given is None:
        return None
    path = Path(given)
    by_suffix = _IMAGE_SUFFIXES.get(path.suffix.lower())
    if args.output:
        if by_suffix is None:
            raise CommandError(f"{path}: name the picture .png or .svg (the format follows it)")
        return path, by_suffix
    wanted = "png" if args.png else "svg"
    if by_suffix is not None and by_suffix != wanted:
        raise CommandError(
            f"{path}: --{wanted} writes {wanted.upper()}, but the name says {by_suffix.upper()}; "
            f"use -o {path} (the format follows the name)"
        )
    return path, wanted


def _draw(session, leaf, image: tuple[Path, str], args) -> int:
    out, fmt = image
    try:
        from ..views.draw import draw_tree, figure_png

        fig = draw_tree(session, leaf, orientation=args.orientation)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] != "matplotlib":
            raise
        raise CommandError(f"drawing needs matplotlib: {DRAW_INSTALL}") from None
    if fmt == "png":
        data = figure_png(fig)
    else:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="svg", bbox_inches="tight")
        data = buffer.getvalue()
    with contextlib.suppress(Exception):  # closing is a courtesy
        import matplotlib.pyplot as plt

        plt.close(fig)
    _write(out, data)
    _out(f"wrote {clean(out)}\n")
    return 0


# --- export and diff ------------------------------------------------------------------


def cmd_export(args) -> int:
    """``pisession export``: one HTML page or Markdown file (``export``)."""
    from ..views.export import ISSUE_CHARS, LIMITS, export_html_chunks, export_markdown

    target = None if args.output in (None, "-") else Path(args.output)
    if target is not None:  # a folder, the input itself or an existing file, first
        _check_target(target, args.force, args.file)
    fmt = args.format or _format_of(args.output)
    if args.output is None and fmt == "html" and sys.stdout.isatty():
        raise CommandError("HTML is not for the terminal: pass -o OUT.html (or redirect: > OUT)")
    session = _shareable(_load(args.file, counting=True), args.redact)
    leaf = _leaf(session, args.leaf)
    session.refuse_too_deep(leaf)
    limit = None if args.all else LIMITS[fmt] if args.limit is None else args.limit
    if fmt == "html":  # written as it is made (a piece of the page at a time)
        return _export_pieces(
            export_html_chunks(session, leaf, limit=limit, full_path=args.full_path),
            session,
            target,
            args.redact,
        )
    text = export_markdown(session, leaf, limit=limit, full_path=args.full_path)
    warning = None if args.redact else _secrets_warning(session, text)
    if warning:
        _warn(warning)
    if fmt == "md" and len(text) > ISSUE_CHARS:
        _note_line(
            f"the Markdown holds {len(text):,} characters; a GitHub issue or comment takes "
            f"{ISSUE_CHARS:,} (a smaller --limit shortens the context part)"
        )
    data = text.encode("utf-8")
    if target is None:
        _out_bytes(data)
        return 0
    _write(target, data)
    _out(f"wrote {clean(target)} ({fmt}, {len(data) / 1e3:,.0f} kB)\n")
    return 0


def _export_pieces(pieces, session, target: Path | None, redact: bool) -> int:
    """Write an HTML page piece by piece: to standard output once the whole page is made
    (``_whole``: an error leaves nothing half written), or atomically to ``target``;
    likely secrets in it are looked for piece by piece (the warning comes after)."""
    import html

    from ..views.redact import page_secrets, secret_spans, warning_text

    showing: list[str] = []  # the pieces that show likely secrets
    size = 0

    def encoded():
        nonlocal size
        for piece in pieces:
            if not redact and secret_spans(html.unescape(piece)):
                showing.append(piece)
            data = piece.encode("utf-8")
            size += len(data)
            yield data

    if target is None:
        _out_chunks(_whole(encoded()))
    else:
        _write(target, encoded())
    found = page_secrets("\n".join(showing), session.dumps) if showing else []
    if found:
        _warn(warning_text(found))
    if target is not None:
        _out(f"wrote {clean(target)} (html, {size / 1e3:,.0f} kB)\n")
    return 0


def _shareable(session, redact: bool):
    """The session to export: with ``--redact``, read again from its bytes with every
    likely secret replaced (``redact``); without it, the same session."""
    import pisession

    from ..views.redact import redacted

    if not redact:
        return session
    data, found = redacted(session.dumps())
    if found:
        _note_line(f"replaced likely secrets on {plural(len(found), 'line')} (--redact)")
        session = pisession.loads(data, session.source, new_id=pisession.sequential_ids())
    return session


def _secrets_warning(session, page: str) -> str | None:
    """A warning naming the lines and entries of the file whose likely secrets the page
    shows (``redact.page_secrets``), or None."""
    from ..views.redact import page_secrets, warning_text

    found = page_secrets(page, session.dumps)
    return warning_text(found) if found else None


def _format_of(output: str | None) -> str:
    if output is None or output == "-":
        return "html"
    suffix = Path(output).suffix.lower()
    if suffix in (".html", ".htm"):
        return "html"
    if suffix in (".md", ".markdown"):
        return "md"
    raise CommandError(f"{output}: name it .html or .md, or pass --format html|md")


def cmd_diff(args) -> int:
    """``pisession diff``: two leaves' contexts compared (``diff``)."""
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


# --- migrate --------------------------------------------------------------------------


def cmd_migrate(args) -> int:
    """``pisession migrate``: a version 3 copy of a legacy file, written atomically."""
    import pisession

    if args.in_place and args.output:
        raise CommandError("use either -o OUT or --in-place, not both")
    nowhere = not args.in_place and not args.output
    if nowhere and args.file == "-":
        raise CommandError("say where to write: -o OUT (standard input cannot be replaced)")
    if args.in_place and args.file == "-":
        raise CommandError("-: standard input cannot be replaced in place; use -o OUT")
    source = args.file if args.file == "-" else _resolve(args.file)
    if nowhere:  # a file with nothing to migrate says so before asking where to write
        session = pisession.load(source)
        if not session.migration_steps:
            _out(_lines_for(_nothing_to_migrate(session, args.deterministic_ids)))
            return 0
        raise CommandError("say where to write: -o OUT (or --in-place to replace FILE)")
    from ..samples import sample_names

    if args.in_place and args.file in sample_names():
        raise CommandError(f"{args.file}: a bundled sample is not replaced in place; use -o OUT")
    to_stdout = args.output == "-"  # `-o -`: the migrated file on standard output
    target = Path(source) if args.in_place else Path(args.output)
    if not args.in_place and not to_stdout:
        same = source != "-" and target.exists() and os.path.exists(source)
        if same and os.path.samefile(source, target):
            raise CommandError(f"{target}: is the input file; use --in-place to replace it")
        _check_target(target, args.force)
    new_id = pisession.sequential_ids() if args.deterministic_ids else None
    if source == "-":
        session = pisession.loads(_read_stdin(), "<stdin>", new_id=new_id)
    else:
        session = pisession.load(source, new_id=new_id)
    if not session.migration_steps:
        text = _nothing_to_migrate(session, args.deterministic_ids)
        if to_stdout:
            sys.stderr.write(text)
        else:
            _out(_lines_for(text))
        return 0
    if to_stdout:  # the file alone on stdout; the account on stderr
        _out_bytes(session.dumps())
        for step in session.migration_steps:
            sys.stderr.write(f"{clean(step.summary())}\n")
        _readback_note(session, session.dumps(), lambda line: sys.stderr.write(line + "\n"))
        return 0
    _write(target, session.dumps())
    lines = [clean(step.summary()) for step in session.migration_steps]
    if args.deterministic_ids and session.original_version not in (None, 1):
        lines.append("note: --deterministic-ids changes nothing here (it makes ids for v1 files)")
    ids = _ids_text(session, args)
    entries = plural(len(session), "entry", "entries")
    lines.append(f"wrote {clean(target)} (version 3, {entries}, {ids})")
    written = target.read_bytes() if target.is_file() else session.dumps()  # not a FIFO's
    _readback_note(session, written, lines.append)
    _out(_lines_for("\n".join(lines)))  # a terminal's width (in a pipe: whole lines)
    return 0


def _readback_note(session, written: bytes, say) -> None:
    """Says, on one line, when the file written reads back with another context than the
    session migrated in memory (what Pi's own rewrite does to the file too), and why."""
    import pisession

    from ..views.findings import readback_change

    change = readback_change(session, pisession.loads, written)
    if change:
        say(f"note: {clean(change)}; Pi's own rewrite writes the same file")


def _lines_for(text: str) -> str:
    """``text`` broken at spaces to the terminal's width (whole lines in a pipe)."""
    width = output_width(sys.stdout)
    return "".join("\n".join(wrap(line, width, "    ")) + "\n" for line in text.splitlines())


def _nothing_to_migrate(session, deterministic: bool) -> str:
    from ..views.findings import version_text

    version = session.original_version
    what = (
        "already version 3"
        if version == 3
        else f"{version_text(version)}: Pi runs no migration step"
    )
    extra = (
        "; --deterministic-ids changes nothing (ids are only made for v1 files)"
        if deterministic
        else ""
    )
    return f"{clean(session.source)}: {clean(what)}, nothing to migrate, nothing written{extra}\n"


def _ids_text(session, args) -> str:
    if session.original_version not in (None, 1):
        return f"ids kept: a version {session.original_version} file has them already"
    return "sequential ids (m0000001, ...)" if args.deterministic_ids else "new random ids, as Pi"


# --- check ----------------------------------------------------------------------------


def cmd_check(args) -> int:
    """``pisession check``: the findings of ``findings.check``; exit 1 on a problem (on
    a note too with ``--strict``)."""
    from ..views.findings import check, check_data

    session = _load(args.file)
    findings = check(session)
    problems = sum(1 for f in findings if args.strict or not f.note)
    if args.json:
        _out_json(check_data(session, findings))
        return 1 if problems else 0
    look = _look(args)
    for f in findings:
        _out(_finding_text(session, f, look))
    if problems:
        _out(f"{plural(problems, 'problem')} found in {clean(session.source)}\n")
        return 1
    entries = plural(len(session), "entry", "entries")
    notes = sum(1 for f in findings if f.note)
    also = f", {plural(notes, 'note')}" if notes else ""
    _out(f"{clean(session.source)}: no problems found ({entries}{also})\n")
    return 0


def _finding_text(session, finding, look: Look) -> str:
    """One finding as ``file:line: kind: message`` (one line, as compilers write them);
    on a terminal too narrow for it, the message wraps under an indent."""
    where = session.source if finding.line is None else f"{session.source}:{finding.line}"
    label = f"note: {finding.kind}" if finding.note else finding.kind
    text = f"{clean(where)}: {label}: {clean(finding.message)}"
    lines = wrap(text, look.width, "    ")
    style = "dim" if finding.note else "magenta"
    head = f"{clean(where)}: "
    if lines[0].startswith(head + label):  # colour the kind where it stands
        lines[0] = head + look.paint(label, style) + lines[0][len(head) + len(label) :]
    return "\n".join(lines) + "\n"


# --- stats ----------------------------------------------------------------------------


def cmd_stats(args) -> int:
    """``pisession stats``: tokens, cost and message counts, session and branch."""
    from ..views.explain import role_counts, stats_rows

    session = _load(args.file, counting=True)
    leaf = _leaf(session, args.leaf)
    whole, branch = session.stats(), session.stats(leaf, branch=True)
    path = session.path_positions(leaf)
    messages = session.fates(leaf).message_count()
    leaf_id = session.index.ids[path[-1]] if path else None
    leaf_id = leaf_id if isinstance(leaf_id, str) else None
    by_model = _stats_breakdowns(session, leaf)
    if args.json:
        roles = role_counts(session, range(len(session))), role_counts(session, path)
        _out_json(
            {
                "file": session.source,
                "id": session.id,
                "leaf": leaf_id,
                "session": {**whole.to_dict(), "messagesByRole": dict(roles[0])},
                "branch": {**branch.to_dict(), "messagesByRole": dict(roles[1])},
                "context": {"messages": messages, "pathEntries": len(path)},
                "usageByModel": by_model,
            }
        )
        return 0
    cells = stats_rows(session, leaf, whole, branch)
    leaf_text = "(no id)" if leaf_id is None else clean(leaf_id)
    leaf_text = leaf_text if path or not len(session) else "(no leaf: the last entry's id is null)"
    _out(_stats_table(session, cells, ("", "whole session", f"branch to {leaf_text}"), _look(args)))
    _out(f"\ncontext at the leaf: {messages:,} message{'s' if messages != 1 else ''}\n")
    _out(_breakdown_text(by_model, _look(args)))
    missing = whole.assistant_without_usage
    if missing:
        _out(f"note: {missing:,} assistant messages carry no usage (Pi 0.87.1 would throw)\n")
    return 0


def _stats_breakdowns(session, leaf) -> dict:
    """Pi 1.6.0's ``/session`` breakdown by model, whole session and branch (an
    ``error`` where Pi's function throws on the file)."""
    from ..folders.usage import session_breakdown

    found: dict[str, object] = {}
    for part, branch in (("session", False), ("branch", True)):
        try:
            found[part] = session_breakdown(session, branch, leaf).pi_rows()
        except PisessionError as exc:
            found[part] = {"error": str(exc)}
    return found


def _breakdown_text(by_model: dict, look: Look) -> str:
    """The breakdown's lines under the ``stats`` table (``pisession usage``'s columns)."""
    rows = by_model["session"]
    if isinstance(rows, dict):
        return "\n".join(wrap(f"by model: {clean(rows['error'])}", look.width)) + "\n"
    if not rows:
        return ""
    cells = [(clean(r["key"]), _figure(r["tokens"]), _figure(r["cost"], True)) for r in rows]
    widths = [
        max(text_width(c[k]) for c in [("model", "tokens", "cost"), *cells]) for k in range(3)
    ]
    lines = ["", look.paint("by model, every entry (as Pi's /session)", "bold")]
    for c in [("model", "tokens", "cost"), *cells]:
        lines.append(
            f"{pad(c[0], widths[0])}  {pad(c[1], widths[1], True)}  {pad(c[2], widths[2], True)}"
        )
    return "\n".join(look.fit(line) for line in lines) + "\n"


def _stats_table(session, cells: list, heads: tuple, look: Look) -> str:
    w0 = max(text_width(r[0]) for r in cells)
    w1 = max(text_width(heads[1]), *(text_width(r[1]) for r in cells))
    w2 = max(text_width(heads[2]), *(text_width(r[2]) for r in cells))
    from ..tree import shown_name

    name = f'  "{clean(shown)}"' if (shown := shown_name(session)) else ""
    out = [f"{clean(session.source)}", f"session {clean(session.id)}{name}", ""]
    head = f"{pad('', w0)}  {pad(heads[1], w1, right=True)}  {pad(heads[2], w2, right=True)}"
    out.append(look.paint(head, "bold"))
    for a, b, c in cells:
        out.append(f"{pad(a, w0)}  {pad(b, w1, right=True)}  {pad(c, w2, right=True)}")
    return "\n".join(look.fit(line) for line in out) + "\n"


# --- ls -------------------------------------------------------------------------------


def _sessions(roots: list[Path], found: list[Path], cwd: str | None = None) -> list:
    """The sessions ``ls`` lists, newest first (with a progress note when many): what
    Pi's session list shows of each root (``listAll``, or ``list(cwd)``), and then the
    sessions found below project folders that Pi's list does not read (``found``: child
    sessions of extensions), of ``cwd`` only when given."""
    from ..files import list_sessions, read_session_info, resolve_cwd
    from ..tree import v8_sort

    def progress(done: int, total: int) -> None:
        if total > 200 and done % 50 == 0:
            note(f"pisession: scanning {done}/{total} files ...")

    def skipped(path: Path, why: str) -> None:
        _skipped_lines([f"{path}: {why}"])

    infos = []
    for root in (r for r in roots if r.is_dir()):
        given = cwd
        if given is not None and given.startswith("--") and (root / given).is_dir():
            root, given = root / given, None  # a folder name Pi gave a cwd, as it is
        try:
            infos += list_sessions(root, progress=progress, cwd=given, skipped=skipped)
        except ValueError as exc:  # a file:// URL Node cannot convert either
            raise CommandError(f"--cwd {exc}") from None
    listed = {os.path.realpath(i.path) for i in infos}
    tops = {os.path.realpath(r) for r in roots}
    wanted = None if cwd is None or cwd.startswith("--") else resolve_cwd(cwd)
    for path in found:  # only below project folders: Pi's list reads a root's folders
        real = os.path.realpath(path)  # (or the root itself when it has none), no deeper
        folder = os.path.dirname(real)
        if real in listed or folder in tops or os.path.dirname(folder) in tops:
            continue
        try:
            info = read_session_info(path)
        except OSError as exc:
            skipped(path, f"cannot read: {exc.strerror or exc}")
            continue
        if info is not None and (wanted is None or (info.cwd and resolve_cwd(info.cwd) == wanted)):
            infos.append(info)
    end_note()
    return v8_sort(infos, lambda a, b: float(b.modified_ms) - float(a.modified_ms))


def _same_dir(a: str, b: str) -> bool:
    norm = [os.path.normcase(os.path.normpath(x)) for x in (a, b)]
    return norm[0] == norm[1]


def cmd_ls(args) -> int:
    """``pisession ls``: the stored sessions, newest first."""
    from ..files import sessions_root, to_jsonable
    from ..locate import short_ids

    agent = "pig" if args.pig else "pi"
    root = Path(args.dir).expanduser() if args.dir else sessions_root(agent)
    if root.is_file():
        raise CommandError(f"{root}: is a file; ls lists a folder (pisession explain {root})")
    if not root.is_dir() and not args.root:
        raise CommandError(_no_folder(root, bool(args.dir), args.pig))
    files = _found_files(args, root)
    cwd = None
    if args.cwd is not None:
        cwd = args.cwd
    elif not args.all and not args.dir:
        cwd = os.getcwd()
    infos = _sessions([root, *_extra_roots(args)], files, cwd)
    if args.name:
        needle = args.name.casefold()
        infos = [
            i
            for i in infos
            if needle in (i.name or "").casefold() or needle in i.first_message.casefold()
        ]
    shorts = short_ids([i.id if isinstance(i.id, str) else "" for i in infos])
    if args.json:
        _out_json(
            [
                {**to_jsonable(i), "shortId": s, "reopenCommand": reopen_command(i.path)}
                for i, s in zip(infos, shorts)
            ]
        )
        return 0
    if args.reopen:
        _out("".join(f"{clean(reopen_command(i.path))}\n" for i in infos))
        return 0
    if not infos:
        where = f" for {cwd}" if cwd else ""
        hint = " (--all lists every folder)" if cwd and not args.cwd else ""
        below = _stored_below(root)
        if below is not None:
            hint = f"; Pi keeps them one folder down: pisession ls {quote(str(below))}"
        _out(
            "\n".join(wrap(f"no sessions in {clean(root)}{clean(where)}{hint}", _look(args).width))
        )
        _out("\n")
        return 0
    _out(ls_table(infos, shorts, _look(args)))
    return 0


def _ls_rows(infos: list, shorts: list[str]) -> list[tuple]:
    return [
        (
            i.modified.astimezone().strftime("%Y-%m-%d %H:%M") if i.modified else "Invalid Date",
            f"{i.message_count:,}",
            clean(short),
            clean(i.name) if i.name else clean(i.first_message),
            clean(i.cwd),
            clean(i.path),
            bool(i.name),
        )
        for i, short in zip(infos, shorts)
    ]


def _ls_widths(rows: list, width: int | None) -> tuple[list[int], int, int, int | None]:
    """Column widths: the fixed three, the title (at most 40), the cwd and the file
    (None: no file column). In a pipe nothing but the title is shortened; on a terminal
    the file column goes first, then the title and the cwd shrink."""
    heads = ("modified", "msgs", "id", "name / first message", "cwd", "file")
    fixed = [max(len(heads[k]), *(text_width(r[k]) for r in rows)) for k in range(3)]
    title_w = min(max(len(heads[3]), *(text_width(r[3]) for r in rows)), 40)
    cwd_w = max(len(heads[4]), *(text_width(r[4]) for r in rows))
    file_w = max(len(heads[5]), *(text_width(r[5]) for r in rows))
    if width is None:
        return fixed, title_w, cwd_w, file_w
    room = width - (sum(fixed) + 2 * 3)
    if title_w + 2 + cwd_w + 2 + min(file_w, 30) <= room:
        return fixed, title_w, cwd_w, min(file_w, room - title_w - cwd_w - 4)
    both = room - 2  # for the title and the cwd
    title_w = min(title_w, max(20, both - cwd_w), max(8, both - min(cwd_w, 16)))
    cwd_w = min(cwd_w, max(both - title_w, 4))
    return fixed, title_w, cwd_w, None


def ls_table(infos: list, shorts: list[str], look: Look) -> str:
    """Rows: modified, messages, the id's telling part, name (or first message), cwd,
    file (left out on a narrow terminal: the id opens the session as well).

    >>> from pisession.files import session_info
    >>> from pisession.samples import sample_path
    >>> info = session_info(sample_path("tour"))
    >>> print(ls_table([info], ["0b5e55ed"], Look(width=60)).splitlines()[1][16:])
        16  0b5e55ed  Tour of…  …ojects/demo-app
    """
    rows = _ls_rows(infos, shorts)
    fixed, title_w, cwd_w, file_w = _ls_widths(rows, look.width)
    heads = ("modified", "msgs", "id", "name / first message", "cwd", "file", True)
    lines = []
    for k, r in enumerate([heads, *rows]):
        title = pad(look.cut(r[3], title_w), title_w)
        if k and not r[6]:
            title = look.paint(title, "dim")
        cells = [pad(r[0], fixed[0]), pad(r[1], fixed[1], right=True), pad(r[2], fixed[2]), title]
        cells.append(pad(truncate_left(r[4], cwd_w, look.ellipsis), cwd_w))
        if file_w is not None:
            cells.append(truncate_left(r[5], file_w, look.ellipsis))
        text = "  ".join(cells).rstrip()
        lines.append(look.paint(text, "bold") if k == 0 else text)
    if file_w is None:
        lines.append(
            "open one with: pisession explain ID (the id column; ls --json lists the files)"
        )
    return "\n".join(look.fit(line) for line in lines) + "\n"


# --- usage and search (a whole sessions folder) ------------------------------------------


def _extra_roots(args) -> list[Path]:
    """The folders of Pi-format sessions given with ``--root``."""
    return [Path(r).expanduser() for r in args.root or []]


def _found_files(args, root: Path) -> list[Path]:
    """The session files below ``root`` and each ``--root`` (``folders.discover``); the
    folders skipped and the files that are not Pi sessions said on stderr, one line each."""
    from ..folders.discover import find_sessions

    extra = _extra_roots(args)
    given = bool(getattr(args, "dir", None))
    found = find_sessions([root, *extra] if root.exists() or given else extra)
    _skipped_lines(found.problems)
    if found.not_sessions:
        count = plural(len(found.not_sessions), "file")
        sys.stderr.write(
            f"{PROG}: skipped {count} below project folders that are not Pi sessions "
            "(derived transcripts such as subagent-artifacts/)\n"
        )
    return found.files


def _folder_files(args) -> tuple[Path, list[Path]]:
    """The session files ``usage`` and ``search`` read: DIR (or one file), else Pi's
    sessions folder as ``ls`` finds it, with the sessions below project folders and
    below each ``--root``; ``--cwd`` keeps one working directory's."""
    from ..files import sessions_root
    from ..folders.usage import header_cwd

    root = Path(args.dir).expanduser() if args.dir else sessions_root("pig" if args.pig else "pi")
    if not root.exists() and not args.root:
        raise CommandError(_no_folder(root, bool(args.dir), args.pig))
    files = _found_files(args, root)
    below = _stored_below(root) if not files and root.is_dir() else None
    if below is not None:
        pattern = "" if args.command == "usage" else f"{quote(args.pattern)} "
        _note_line(
            f"{root} holds no sessions; Pi keeps them one folder down: "
            f"pisession {args.command} {pattern}{quote(str(below))}"
        )
    if args.cwd is not None:
        from ..files import session_dir_name

        cwd = os.path.abspath(os.path.expanduser(args.cwd))
        names = (session_dir_name(cwd), args.cwd)
        files = [f for f in files if f.parent.name in names or _same_dir(header_cwd(f), cwd)]
    return root, files


def _no_folder(root: Path, given: bool, pig: bool) -> str:
    """The error for a sessions folder that does not exist; for Pi's own (none stored
    on this machine), how to try the commands on the samples, as docs/cli.md does."""
    if given or pig:
        return f"{root}: no such folder"
    return (
        f"{root}: no such folder (Pi makes it when it stores a session); to try pisession "
        "on the samples stored as Pi stores them: python -m pisession.samples demo/agent, "
        "then PI_CODING_AGENT_DIR=demo/agent pisession ls --all"
    )


def _stored_below(root: Path) -> Path | None:
    """``root/sessions`` when it holds session files: ``root`` is the agent folder
    (``PI_CODING_AGENT_DIR``), one level above where Pi stores its sessions.

    >>> _stored_below(Path("pisession/samples")) is None
    True
    """
    from ..files import iter_session_files

    below = root / "sessions"
    return below if next(iter_session_files(below), None) is not None else None


def _scan_progress(what: str):
    """A progress note on stderr once a scan has taken a second (terminals only)."""
    import time

    start = time.monotonic()

    def progress(done: int, total: int) -> None:
        if time.monotonic() - start > 1:
            note(f"pisession: {what} {done:,}/{total:,} sessions ...")

    return progress


def _skipped_lines(problems: list[str]) -> None:
    for problem in problems:
        _say("skipped", problem)


def _named_file_failed(root: Path, problems: list[str]) -> None:
    """FILE named on its own that cannot be read as a session: an error (exit 2), said
    as ``context`` says it, not a skipped file of a folder."""
    if problems and root.is_file():
        raise CommandError(problems[0])


def _figure(value: object, cost: bool = False) -> str:
    from ..js.value import js_string

    if type(value) in (int, float) and value == value and abs(cast(float, value)) != float("inf"):
        return f"${value:,.4f}" if cost else f"{value:,}"
    return clean(js_string(value))  # Pi's odd figure, as JavaScript prints it


def cmd_usage(args) -> int:
    """``pisession usage``: tokens and cost over a sessions folder, as Pi counts them.

    Forks and clones count once: across the files of the scan, an entry that counts usage
    and has the same id, timestamp and usage as an entry of another file counts once, in
    the file whose header's timestamp is earliest (then the first scanned), because Pi's
    fork routes copy entries with their ids, timestamps and usage, and summing Pi's
    per-file breakdowns pays for every copy again (ccusage issue 1634, "forked sessions
    replay parent token history and are double-counted"). ``--per-file`` keeps Pi's
    per-session numbers. The rule: ``pisession.folders.forks``."""
    from ..folders.usage import scan_folder
    from ..locate import short_ids

    root, files = _folder_files(args)
    usage = scan_folder(
        files, args.by, args.branch, args.since, args.until, progress=_scan_progress("reading"),
        per_file=args.per_file, zone=args.timezone,
    )  # fmt: skip
    end_note()
    _named_file_failed(root, usage.skipped)
    _skipped_lines(usage.skipped)
    if args.json:
        _out_json(usage.to_dict())
        return 0
    names = [r.group for r in usage.rows]
    if args.by == "session" and not args.csv:
        names = short_ids(names)
    if args.csv:
        import csv

        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow([args.by, "sessions", *USAGE_FIGURES])
        for name, r in zip(names, usage.rows):
            writer.writerow([name, r.sessions, *(getattr(r, f) for f in USAGE_FIGURES)])
        _out(buffer.getvalue())
        return 0
    _out(usage_table(usage, names, root, _look(args)))
    return 0


#: The figures of a usage row, in the columns of the table and the CSV.
USAGE_FIGURES = ("tokens", "input", "output", "cacheRead", "cacheWrite", "cost")


def usage_table(usage, names: list[str], root: Path, look: Look) -> str:
    """``pisession usage``'s table: a row per group and the total; the token splits
    are left out when the width cannot hold them.

    >>> from pisession.folders.usage import scan_folder
    >>> from pisession.samples import sample_path
    >>> u = scan_folder([sample_path("tour")], by="model", workers=1)
    >>> print(usage_table(u, ["fake/fake-coder", "Tools/summaries"], Path("x"), Look(width=60)),
    ...     end="")
    model            sessions  tokens     cost
    fake/fake-coder         1   9,417  $0.0209
    Tools/summaries         1   1,860  $0.0048
    total                   1  11,277  $0.0257
    every entry of 1 session, abandoned branches and compacted
    history too (as Pi's /session); --branch: the default leaf's
    path only
    """
    heads = (usage.by, "sessions", "tokens", "input", "output", "cache read", "cache write", "cost")
    rows = [
        (
            clean(name),
            f"{r.sessions:,}",
            *(_figure(getattr(r, f), f == "cost") for f in USAGE_FIGURES),
        )
        for name, r in zip(names, usage.rows)
    ]
    total = usage.total
    rows.append(
        (
            "total",
            f"{total.sessions:,}",
            *(_figure(getattr(total, f), f == "cost") for f in USAGE_FIGURES),
        )
    )
    keep = list(range(len(heads)))
    widths = [max(text_width(heads[k]), *(text_width(r[k]) for r in rows)) for k in keep]
    if look.width is not None and sum(widths) + 2 * (len(widths) - 1) > look.width:
        keep = [0, 1, 2, 7]  # group, sessions, tokens, cost
        room = look.width - sum(widths[k] for k in keep[1:]) - 2 * (len(keep) - 1)
        widths[0] = max(min(widths[0], room), 8)
    lines = []
    for n, row in enumerate([heads, *rows]):
        cells = [pad(look.cut(row[0], widths[0]), widths[0])]
        cells += [pad(row[k], widths[k], right=True) for k in keep[1:]]
        line = "  ".join(cells)
        lines.append(look.paint(line, "bold") if n in (0, len(rows)) else line)
    counted = "the default leaf's path of" if usage.branch else "every entry of"
    note = f"{counted} {plural(usage.sessions, 'session')}"
    if not usage.branch:
        note += (
            ", abandoned branches and compacted history too (as Pi's /session); "
            "--branch: the default leaf's path only"
        )
    if usage.left_out:
        note += (
            f"; {plural(usage.left_out, 'copied entry', 'copied entries')} of "
            f"{plural(usage.files_with_copies, 'fork or clone', 'forks and clones')} counted "
            "once, in the session that wrote them first (--per-file: Pi's per-session figures)"
        )
    elif usage.per_file:
        note += "; each file counted as Pi's /session counts it, a fork's copies again"
    if usage.by in ("day", "week", "month") or usage.dated:
        note += f"; days in {clean(usage.zone)}"
    if usage.skipped:
        note += f"; {plural(len(usage.skipped), 'file')} skipped (see above)"
    if not usage.rows:
        lines = [f"no usage in {clean(root)}"]
    return "\n".join([*(look.fit(line) for line in lines), *wrap(note, look.width)]) + "\n"


def cmd_search(args) -> int:
    """``pisession search``: matching entries across sessions, and whether they reached
    the model at the default leaf."""
    import re

    from ..folders.search import Around, Pattern, search_folder

    pattern = Pattern(args.pattern, args.regex, args.ignore_case, args.word)
    try:
        pattern.compiled  # noqa: B018 (compiled here to report a bad pattern)
    except re.error as exc:
        raise CommandError(f"{args.pattern!r}: not a regular expression: {exc}") from None
    if not args.pattern:
        raise CommandError("the pattern is empty")
    root, files = _folder_files(args)
    before = args.before if args.before is not None else args.context
    after = args.after if args.after is not None else args.context
    around = Around(0, 0) if args.list else Around(before or 0, after or 0)
    found = search_folder(
        files, pattern, args.reached, progress=_scan_progress("searching"), around=around,
        by_time=args.sort == "time",
    )  # fmt: skip
    end_note()
    _named_file_failed(root, found.skipped)
    _skipped_lines(found.skipped)
    if args.list:
        return _search_list(found, args)
    if args.json:
        head = {"pattern": args.pattern, "regex": args.regex, "ignoreCase": args.ignore_case}
        head |= {"word": args.word, "sort": args.sort}
        head |= {"files": found.files, "skipped": len(found.skipped), "problems": found.skipped}
        _out_json({**head, "hits": [hit.to_dict() for hit in found.hits]})
        return 0 if found.hits else 1  # as without --json, as grep does
    _out(search_text(found, _look(args)))
    return 0 if found.hits else 1


def reopen_command(path: str | os.PathLike) -> str:
    """The command that reopens a session in Pi: ``pi --session <path>``, the path as
    listed (absolute under Pi's own folder; relative to where you ran pisession when you
    gave a relative folder), quoted for a POSIX shell. Pi 0.87.1 and 1.6.0 take a value
    with a ``/`` or ending in ``.jsonl`` as a path (``resolveSessionPath``), open that file
    and run in the session's own working directory (its header's ``cwd``).

    >>> reopen_command("/home/me/.pi/agent/sessions/--w--/a b.jsonl")
    "pi --session '/home/me/.pi/agent/sessions/--w--/a b.jsonl'"
    """
    return f"pi --session {quote(str(path))}"


def _search_list(found, args) -> int:
    """``search -l``: each matching session once, in the order of its first hit; with
    ``--reopen`` the command that reopens it in Pi."""
    sessions: dict[str, list] = {}
    for hit in found.hits:
        sessions.setdefault(hit.file, []).append(hit)
    if args.json:
        _out_json(
            [
                {"path": path, "id": hits[0].session, "name": hits[0].name,
                 "hits": len(hits), "reopenCommand": reopen_command(path)}
                for path, hits in sessions.items()
            ]
        )  # fmt: skip
    else:
        show = reopen_command if args.reopen else str
        _out("".join(f"{clean(show(path))}\n" for path in sessions))
    return 0 if sessions else 1


def search_text(found, look: Look) -> str:
    """``pisession search``'s lines: a heading per session, then one line per hit (line,
    the entry's local time, entry id, type or role, fate, excerpt with the match marked)
    with the entries around it (``search -C``), and a count.

    >>> from pisession.folders.search import Pattern, search_folder
    >>> from pisession.samples import sample_path
    >>> print(search_text(search_folder([sample_path("tour")], Pattern("tests/"), workers=1),
    ...     Look(width=100)), end="")  # doctest: +ELLIPSIS
    0b5e55ed  "Tour of the session format"  ...
        21  2026-11-... cm000001  custom_message  off-path  Remember: tests live in «tests/».
        24  2026-11-... a5000001  assistant       kept      Added «tests/»test_util.py with test_…
    2 hits in 1 session: 1 reached the model, 1 did not (fates at each session's default leaf)
    """
    from ..locate import short_ids
    from ..views.provenance import FATE

    hits = found.hits
    sessions = list(dict.fromkeys(h.file for h in hits))
    shorts = dict(
        zip(sessions, short_ids([next(h.session for h in hits if h.file == f) for f in sessions]))
    )
    left, right = look.symbol("«", "<<"), look.symbol("»", ">>")
    kinds = [clean(str(_hit_kind(h))) for h in hits]
    w_id = max((text_width(clean(str(h.id))) for h in hits), default=0)
    w_kind = max((text_width(k) for k in kinds), default=0)
    w_fate = max((len(h.fate) for h in hits), default=0)
    w_line = max((len(str(h.line)) for h in hits), default=4)
    # the time column only where an excerpt of 24 columns still fits beside it
    head = 2 + max(w_line, 4) + 2 + w_id + 2 + w_kind + 2 + w_fate + 2
    timed = look.width is None or head + 18 + 24 <= look.width
    lines, current = [], None
    for h, kind in zip(hits, kinds):
        if h.file != current:
            current = h.file
            name = f'  "{clean(h.name)}"' if h.name else ""
            lines.append(
                look.fit(look.paint(f"{clean(shorts[h.file])}{name}  {clean(h.file)}", "bold"))
            )
        for n in h.before:
            lines.append(_neighbour_line(n, look))
        when = f"{_when(h.timestamp)}  " if timed else ""
        where = f"  {h.line:>{max(w_line, 4)}}  {when}"
        where += f"{pad(clean(str(h.id)), w_id)}  {pad(kind, w_kind)}  "
        fate = look.paint(h.fate, FATE[h.fate].style) + " " * (w_fate - len(h.fate))
        text = clean(h.excerpt)
        start, end = len(clean(h.excerpt[: h.start])), len(clean(h.excerpt[: h.end]))
        room = None if look.width is None else look.width - text_width(where) - w_fate - 2
        if room is not None and text_width(text) + 2 > room:
            keep = max(room - 2, 8)
            shift = max(0, min(start - keep // 3, len(text) - keep))
            cut = text[shift : shift + keep]
            if shift > 0 and not cut.startswith(look.ellipsis):  # say where it was cut
                cut = look.ellipsis + cut[len(look.ellipsis) :]
            if shift + keep < len(text):
                cut = cut[: -len(look.ellipsis)] + look.ellipsis
            text, start, end = cut, start - shift, end - shift
            start, end = max(start, 0), max(min(end, len(text)), 0)
        marked = text[:start] + look.paint(left + text[start:end] + right, "bold") + text[end:]
        lines.append(f"{where}{fate}  {marked}".rstrip())
        for n in h.after:
            lines.append(_neighbour_line(n, look))
        if h.before or h.after:
            lines.append("  --")
    reached = sum(1 for h in hits if h.reached)
    count = f"{plural(len(hits), 'hit')} in {plural(len(sessions), 'session')}"
    if hits:
        count += f": {reached:,} reached the model, {len(hits) - reached:,} did not"
        count += " (fates at each session's default leaf)"
    else:
        count = f"no hits in {plural(found.files, 'session')}"
    if found.skipped:
        count += f"; {plural(len(found.skipped), 'file')} skipped (see above)"
    return "\n".join([*lines, *wrap(count, look.width)]) + "\n"


def _hit_kind(hit) -> object:
    """A search hit's kind column: the role of a message, else the entry's type."""
    return hit.role if hit.type == "message" and isinstance(hit.role, str) else hit.type


def _when(stamp: object) -> str:
    """An entry's timestamp as a local ``YYYY-MM-DD HH:MM`` (``?`` when it has none)."""
    from ..files import _iso
    from ..js.date import DateConversionError, js_time_ms

    try:
        moment = _iso(js_time_ms(stamp)) if isinstance(stamp, str) else None
    except DateConversionError:
        moment = None
    return moment.astimezone().strftime("%Y-%m-%d %H:%M") if moment else "?"


def _neighbour_line(n, look: Look) -> str:
    """A neighbour of a hit (``search -C``): its line, time, id, role or type, and text."""
    line = f"  {n.line:>4}  {_when(n.timestamp)}  {clean(str(n.id))}  {clean(str(_hit_kind(n)))}  "
    line += look.symbol("·", "-") + f"  {clean(n.text)}"
    return look.paint(look.fit(line.rstrip()), "dim")


_USAGE_EPILOG = """\
examples:
  pisession usage                         every session in Pi's folder, by model
  pisession usage --by month --since 2026-01-01
  pisession usage --by project --csv > usage.csv
  pisession usage ~/backup/sessions --by session --json
  pisession usage --cwd ~/work/api --branch
  pisession usage --by day --timezone Europe/Paris --root ~/.omp/agent/sessions

Counts as Pi 1.6.0's /session breakdown (getUsageCostBreakdown) counts a session: every
entry of the file, compacted history and abandoned branches included (--branch: the
entries on the path to Pi's default leaf only). Assistant messages count under
provider/(responseModel or model), usage entries under their provider and model, the
usage of tool results, compactions and branch summaries under Tools/summaries.

Forks and clones count once: an entry copied into several files (same id, timestamp and
usage) counts in the file made first (by its header's timestamp), since summing Pi's
per-file figures pays for every copy again; the table says how many copied entries were
left out, and --per-file counts each file as Pi's /session does. Sessions below project
folders count too (files there that are not Pi sessions, such as subagent-artifacts/, are
skipped and counted); --root adds more folders. Days are calendar days of each entry's
timestamp in --timezone (default: this machine's zone); weeks start on Monday. A file that
cannot be read is named on one line on stderr and skipped; the totals say how many.
"""

_SEARCH_EPILOG = """\
examples:
  pisession search "port 8080"
  pisession search -i --regex "todo|fixme" ~/backup/sessions
  pisession search API_KEY --reached          hits the model saw
  pisession search "rm -rf" --not-reached --json
  pisession search -w port -C 2 --sort time
  pisession search -l --reopen "migration plan"

Searches the text of messages (text, thinking, tool calls' names and arguments, tool
results, bash commands and output, system sections, summaries, custom messages), never
JSON keys. PATTERN is literal text unless --regex is given (-w: whole words, -i: any
case). Each hit shows its line, its entry's time (local), entry id, role or type, its fate
at the session's default leaf (as pisession explain shows it) and an excerpt with the
match marked; -C/-B/-A N add the entries around it on its path (its parents before; after:
towards the default leaf, or the newest child). --sort time orders the hits by their
entries' time; -l lists the matching sessions' files only (with --reopen: the command that
reopens each in Pi). Exit status: 0 hits found, 1 none, 2 error.
"""


def _folder_options(p) -> None:
    p.add_argument("dir", nargs="?", metavar="DIR", help="sessions folder or file (default: Pi's)")
    p.add_argument("--pig", action="store_true", help="PiG's sessions instead of Pi's")
    _root_option(p)
    p.add_argument("--cwd", metavar="PATH", help="only sessions started in PATH")
    p.add_argument("--json", action="store_true", help="JSON instead of a table")


def _root_option(p) -> None:
    p.add_argument(
        "--root",
        metavar="DIR",
        action="append",
        help="also the sessions below DIR, any folder of Pi-format sessions (repeatable)",
    )


def _add_usage(sub) -> None:
    p = sub(
        "usage",
        "tokens and cost over a sessions folder, as Pi counts",
        _USAGE_EPILOG,
        cmd_usage,
    )
    _folder_options(p)
    p.add_argument(
        "--by",
        choices=("day", "week", "month", "project", "session", "model"),
        default="model",
        help="a row per day, week, month, project, session or model (default)",
    )
    p.add_argument("--since", metavar="YYYY-MM-DD", type=_day, help="from this local day on")
    p.add_argument("--until", metavar="YYYY-MM-DD", type=_day, help="up to this local day")
    p.add_argument(
        "--timezone",
        metavar="ZONE",
        type=_zone,
        help="days in this IANA zone, e.g. Europe/Paris (default: this machine's)",
    )
    p.add_argument(
        "--per-file",
        action="store_true",
        help="each file as Pi's /session counts it (a fork's copied history again)",
    )
    p.add_argument("--branch", action="store_true", help="the default leaf's path only")
    p.add_argument("--csv", action="store_true", help="CSV instead of a table")


def _zone(text: str):
    from zoneinfo import ZoneInfo

    try:
        return ZoneInfo(text)
    except (ValueError, OSError, LookupError):  # ZoneInfoNotFoundError is a KeyError
        raise argparse.ArgumentTypeError(
            f"not a time zone: {text!r} (an IANA name such as Europe/Paris or UTC)"
        ) from None


def _day(text: str) -> str:
    from datetime import date

    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a day as YYYY-MM-DD, not {text!r}") from None


def _add_search(sub) -> None:
    p = sub(
        "search",
        "find text across sessions; did each hit reach the model?",
        _SEARCH_EPILOG,
        cmd_search,
    )
    p.add_argument(
        "pattern",
        metavar="PATTERN",
        help="text to find, literally (--regex: a Python regular expression)",
    )
    _folder_options(p)
    p.add_argument("--regex", action="store_true", help="PATTERN is a regular expression")
    p.add_argument("-i", "--ignore-case", action="store_true", help="ignore case")
    fates = p.add_mutually_exclusive_group()
    fates.add_argument("--reached", dest="reached", action="store_const", const=True,
                       default=None, help="only hits that reached the model")  # fmt: skip
    fates.add_argument("--not-reached", dest="reached", action="store_const", const=False,
                       help="only hits that did not")  # fmt: skip
    p.add_argument("-w", "--word", action="store_true", help="whole words only (as grep -w)")
    p.add_argument("-C", "--context", metavar="N", type=_count, help="N entries around each hit")
    p.add_argument("-B", "--before", metavar="N", type=_count, help="N entries before each hit")
    p.add_argument("-A", "--after", metavar="N", type=_count, help="N entries after each hit")
    p.add_argument(
        "--sort", choices=("file", "time"), default="file",
        help="hits in folder order (default) or by their entries' time",
    )  # fmt: skip
    p.add_argument("-l", "--list", action="store_true", help="only the matching sessions' files")
    p.add_argument(
        "--reopen", action="store_true", help="with -l: the command that reopens each in Pi"
    )


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a count of entries (0 or more), not {text!r}")
    return value


# --- the parser -----------------------------------------------------------------------

_FILE_HELP = "session file, - (standard input), a sample (tour) or a stored session's id"

_EXPLAIN_EPILOG = """\
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

_CONTEXT_EPILOG = """\
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

_TREE_EPILOG = """\
examples:
  pisession tree session.jsonl
  pisession tree session.jsonl --leaf a7000001 --all
  pisession tree session.jsonl -o tree.svg      (.png or .svg; needs matplotlib)
  pisession tree session.jsonl --json

marks: ● on the path to the leaf, ○ elsewhere, ◀ leaf for the leaf shown, ◁ leaf for
every other branch end; [fate] as in `pisession explain`; #label for labelled entries.
Straight runs of more than --collapse unremarkable entries are shortened to their first
and last two.
"""

_EXPORT_EPILOG = """\
examples:
  pisession export session.jsonl -o session.html
  pisession export session.jsonl --leaf a7000001 -o branch.md
  pisession export session.jsonl --format md | pbcopy

One self-contained file: the tree coloured by fate, the context exactly as the model saw
it at the leaf (system prompt replayed, compaction summary in place, kept range marked,
context edits applied with the original beside them), usage and cost, and every other
entry with its fate and reason. No scripts, fonts or requests: it opens offline. Long
contexts show their first and last --limit messages (--all: every one).
"""

_DIFF_EPILOG = """\
examples:
  pisession diff session.jsonl a6000001 a7000001
  pisession diff session.jsonl a6000001 a7000001 --json

Where the two paths part, and which messages of the two contexts are shared, only in
A (-), only in B (+), or sent by both but with different content (~, a context edit).
"""

_MIGRATE_EPILOG = """\
examples:
  pisession migrate old.jsonl -o old-v3.jsonl
  pisession migrate old.jsonl -o old-v3.jsonl --deterministic-ids --force
  pisession migrate old.jsonl --in-place

The input file is never touched unless --in-place is given; the output is written to a
temporary file in the same folder, synced, then renamed over the target. Lines the
migration does not change (skipped ones included) are kept byte for byte.
"""

_CHECK_EPILOG = """\
examples:
  pisession check session.jsonl && echo clean
  pisession check session.jsonl --json

reports: skipped lines, dangling parents, duplicate ids, parent cycles, compactions whose
firstKeptEntryId is not on their path, context edits with no effect, leaves on which
Pi 0.87.1 itself fails, and a last entry whose id is null (no leaf); as notes, which
are no problems: blank lines and a legacy version (Pi reads a v1 or v2 file as well as
any, migrating it). Exit status: 0 no
problems, 1 problems found (notes too, with --strict), 2 the file cannot be read as a
session.
"""

_STATS_EPILOG = """\
examples:
  pisession stats session.jsonl
  pisession stats session.jsonl --leaf a7000001 --json

Counts as Pi's /session statistics do: every entry for the whole session (compacted
history included), the entries of the path from the root to the leaf for the branch.
"""

_LS_EPILOG = """\
examples:
  pisession ls                    sessions started in the current directory
  pisession ls --all              every session, newest first
  pisession ls --all --name api   names or first messages containing "api"
  pisession ls --cwd ~/work/api   sessions of another folder
  pisession ls --pig --all        PiG's sessions
  pisession ls ~/backup/sessions --json
  pisession ls --all --root ~/.omp/agent/sessions --reopen

Where: DIR if given, else $PI_CODING_AGENT_SESSION_DIR, else $PI_CODING_AGENT_DIR/sessions,
else ~/.pi/agent/sessions (PiG: the PIG_ variables and ~/.pig/agent/sessions), with the
sessions below project folders, and each --root. The id column shows the part of each id
that tells sessions apart; give it (or any unique part of the start of an id) as FILE to
the other commands. --reopen prints `pi --session PATH` for each session, the command that
reopens it in Pi.
"""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors that name the help to read."""

    def error(self, message: str, prog: str | None = None):  # type: ignore[override]
        if self.prog.endswith(" diff") and "arguments are required" in message:
            message += " (for example: pisession diff tour a6000001 a7000001)"
        _say("error", f"{message} (see {prog or self.prog} --help)")
        raise SystemExit(2)


def _common() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
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


def _file_argument(p, more: str = "") -> None:
    """FILE, the session a command reads: the tour sample when none is given, for every
    command that takes one session alone (``diff`` needs its leaves too)."""
    help_text = _FILE_HELP + " (default: tour)" + more
    p.add_argument("file", nargs="?", default="tour", metavar="FILE", help=help_text)


_LEAF_HELP = (
    "entry id of the leaf (default: Pi's, the last entry in file order; none, an empty "
    "context, when its id is null)"
)


def _collapse_options(p) -> None:
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


def _add_explain(sub) -> None:
    p = sub(
        "explain",
        "which entries reached the model for a leaf, and why",
        _EXPLAIN_EPILOG,
        cmd_explain,
    )
    _file_argument(p)
    p.add_argument("--leaf", metavar="ID", help=_LEAF_HELP)
    _collapse_options(p)
    p.add_argument("--json", action="store_true", help="JSON: every entry's fate and reason")


def _add_context(sub) -> None:
    p = sub(
        "context", "print the model context as Pi builds it (JSON)", _CONTEXT_EPILOG, cmd_context
    )
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
        choices=_checked_versions(),
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


def _add_tree(sub) -> None:
    p = sub("tree", "draw the entry tree (text, or a picture)", _TREE_EPILOG, cmd_tree)
    _file_argument(p)
    p.add_argument("--leaf", metavar="ID", help=_LEAF_HELP)
    image = p.add_mutually_exclusive_group()
    image.add_argument(
        "-o", "--output", metavar="OUT", help="draw to OUT, .png or .svg (needs matplotlib)"
    )
    image.add_argument("--png", metavar="OUT", help="draw to a PNG file (needs matplotlib)")
    image.add_argument("--svg", metavar="OUT", help="draw to an SVG file (needs matplotlib)")
    image.add_argument(
        "--json", action="store_true", help="JSON: every entry, its parent, its fate"
    )
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.add_argument(
        "--orientation", choices=("TB", "LR"), default="TB", help="picture layout (default TB)"
    )
    _collapse_options(p)


def _add_export(sub) -> None:
    p = sub(
        "export",
        "write one self-contained HTML or Markdown file to share",
        _EXPORT_EPILOG,
        cmd_export,
    )
    _file_argument(p)
    p.add_argument("--leaf", metavar="ID", help=_LEAF_HELP)
    p.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="where to write (.html or .md; default: standard output)",
    )
    p.add_argument("--format", choices=("html", "md"), help="html or md (default: from OUT)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.add_argument(
        "--redact",
        action="store_true",
        help="replace likely secrets (API keys, tokens, private keys) with a marker",
    )
    p.add_argument(
        "--full-path", action="store_true", help="show the file's full path (default: its name)"
    )
    group = p.add_mutually_exclusive_group()
    group.add_argument(
        "--limit",
        type=_positive,
        default=None,
        metavar="N",
        help="show the first and last N messages of a longer context (default: 200 in HTML, "
        "25 in Markdown)",
    )
    group.add_argument("--all", action="store_true", help="every context message")


def _add_diff(sub) -> None:
    p = sub("diff", "compare the contexts of two leaves", _DIFF_EPILOG, cmd_diff)
    p.add_argument("file", metavar="FILE", help=_FILE_HELP)
    p.add_argument("leaf_a", metavar="LEAF_A", help="entry id of the first leaf")
    p.add_argument("leaf_b", metavar="LEAF_B", help="entry id of the second leaf")
    _collapse_options(p)
    p.add_argument("--json", action="store_true", help="JSON instead of text")


def _add_migrate(sub) -> None:
    p = sub(
        "migrate", "write a version 3 copy of a legacy (v1/v2) file", _MIGRATE_EPILOG, cmd_migrate
    )
    _file_argument(p, " (modified only with --in-place)")
    p.add_argument(
        "-o", "--output", metavar="OUT", help="where to write the migrated file (- for stdout)"
    )
    p.add_argument("--in-place", action="store_true", help="replace FILE (atomically)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    p.add_argument(
        "--deterministic-ids",
        action="store_true",
        help="v1 files: ids m0000001, m0000002, ... instead of random ones (v2 files keep theirs)",
    )


def _add_check(sub) -> None:
    p = sub(
        "check",
        "damage and surprises (exit 1: problems, 2: unreadable)",
        _CHECK_EPILOG,
        cmd_check,
    )
    _file_argument(p)
    p.add_argument("--json", action="store_true", help="JSON instead of text")
    p.add_argument(
        "--strict",
        action="store_true",
        help="notes count as problems too (a legacy version, blank lines)",
    )


def _add_stats(sub) -> None:
    p = sub(
        "stats", "tokens, cost and message counts (session and branch)", _STATS_EPILOG, cmd_stats
    )
    _file_argument(p)
    p.add_argument("--leaf", metavar="ID", help=_LEAF_HELP)
    p.add_argument("--json", action="store_true", help="JSON instead of a table")


def _add_ls(sub) -> None:
    p = sub("ls", "list stored sessions, newest first", _LS_EPILOG, cmd_ls)
    p.add_argument("dir", nargs="?", metavar="DIR", help="sessions folder (default: Pi's)")
    p.add_argument("--pig", action="store_true", help="PiG's sessions instead of Pi's")
    _root_option(p)
    p.add_argument(
        "--cwd",
        metavar="PATH",
        help="only sessions started in PATH (its cwd, or the folder Pi named after it)",
    )
    p.add_argument("--all", action="store_true", help="every working directory (default: cwd)")
    p.add_argument("--name", metavar="TEXT", help="name or first message contains TEXT")
    p.add_argument(
        "--reopen",
        action="store_true",
        help="print the command that reopens each session in Pi (pi --session PATH)",
    )
    p.add_argument("--json", action="store_true", help="JSON instead of a table")


COMMANDS = (
    _add_explain,
    _add_context,
    _add_tree,
    _add_export,
    _add_diff,
    _add_migrate,
    _add_check,
    _add_stats,
    _add_ls,
    _add_usage,
    _add_search,
)


#: Commands whose output is not text for a terminal (JSON, a file): no colour, width or
#: ASCII options.
WRITES_NO_TEXT = ("context", "export", "migrate")
TERMINAL_OPTIONS = ("--color", "--no-color", "--width", "--ascii")


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


def build_parser() -> _Parser:
    """The argument parser of the ``pisession`` command.

    >>> build_parser().parse_args(["tree", "tour", "--all"]).collapse
    12
    """
    from ..piversions import __version__, version_text

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

    def sub(name, help_text, epilog, func):
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


def _sentence(text: str) -> str:
    """A command's help as a sentence: capitalised, ended by a full stop unless it asks.

    >>> _sentence("find text; did it reach the model?"), _sentence("list sessions")
    ('Find text; did it reach the model?', 'List sessions.')
    """
    text = text[0].upper() + text[1:]
    return text if text.endswith(("?", ".")) else text + "."


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


# --- main -----------------------------------------------------------------------------


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


def _extra_hint(args, extra: list[str]) -> str:
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


def _run(args) -> int:
    """Run the parsed command: one-line errors, quiet broken pipes, 130 on Ctrl-C."""
    if hasattr(sys.stdout, "reconfigure"):
        with contextlib.suppress(ValueError, OSError):
            sys.stdout.reconfigure(errors="backslashreplace")
    try:
        status = args.func(args)
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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
