"""``pisession export``: one self-contained HTML page or Markdown file to share: the
tree, the context at the leaf, usage and every entry's fate (``views.export``); likely
secrets are warned about, or replaced with ``--redact`` (``views.redact``).

>>> from pisession.cli.parser import build_parser
>>> build_parser().parse_args(["export", "tour", "-o", "t.html"]).output
't.html'
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import pisession

from ..session import Session
from ..views.terminal import clean
from ..views.text import plural
from .loading import _leaf, _load
from .options import _LEAF_HELP, AddCommand, _file_argument, _positive
from .output import _check_target, _out, _out_bytes, _out_chunks, _whole, _write
from .report import CommandError, _note_line, _warn

EPILOG = """\
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


def add_parser(sub: AddCommand) -> None:
    """``export``'s arguments: FILE, ``--leaf``, ``-o``, ``--format``, ``--force``,
    ``--redact``, ``--full-path``, ``--limit``/``--all``.

    >>> from pisession.cli.parser import build_parser
    >>> build_parser().parse_args(["export", "tour", "--format", "md"]).format
    'md'
    """
    p = sub(
        "export",
        "write one self-contained HTML or Markdown file to share",
        EPILOG,
        run,
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


def run(args: argparse.Namespace) -> int:
    """``pisession export``: one HTML page or Markdown file (``export``).

    >>> from pisession.cli.parser import build_parser
    >>> run(build_parser().parse_args(["export", "tour", "--format", "md", "--limit", "1"]))
    ... # doctest: +ELLIPSIS
    # Tour of the session format
    ...
    0
    """
    # here: `pisession --help` loads no renderer
    from ..views.export import ISSUE_CHARS, LIMITS, export_html_chunks, export_markdown

    target = None if args.output in (None, "-") else Path(args.output)
    if target is not None:  # a folder, the input itself or an existing file, first
        _check_target(target, args.force, args.file)
    fmt = args.format or _format_of(args.output)
    if args.output is None and fmt == "html" and sys.stdout.isatty():
        raise CommandError("HTML is not for the terminal: pass -o OUT.html (or redirect: > OUT)")
    if not args.redact:  # the secret shapes, made by a helper while the file is read
        from ..views.redact import searches_meanwhile

        searches_meanwhile()
    session = _shareable(_load(args.file, counting=True), args.redact)
    leaf = _leaf(session, args.leaf)
    session.refuse_too_deep(leaf)
    limit = None if args.all else LIMITS[fmt] if args.limit is None else args.limit
    if fmt == "html":  # written as it is made (a piece of the page at a time)
        showing: list[str] | None = None if args.redact else []
        pieces = export_html_chunks(
            session, leaf, limit=limit, full_path=args.full_path, showing=showing
        )
        return _export_pieces(pieces, showing, session, target)
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


def _export_pieces(
    pieces: Iterable[str], showing: list[str] | None, session: Session, target: Path | None
) -> int:
    """Write an HTML page piece by piece: to standard output once the whole page is made
    (``_whole``: an error leaves nothing half written; the page waits in a temporary
    file), or atomically to ``target``; ``showing`` (filled as the pieces are made)
    holds the pieces that show likely secrets (the warning comes after)."""
    from ..views.redact import page_secrets, warning_text  # here, as the views

    size = 0

    def encoded() -> Iterator[bytes]:
        nonlocal size
        for piece in pieces:
            data = piece.encode("utf-8")
            size += len(data)
            yield data

    if target is None:
        _out_chunks(_whole(encoded(), HELD_BY_EXPORT))
    else:
        _write(target, encoded())
    found = page_secrets("\n".join(showing), session.dumps) if showing else []
    if found:
        _warn(warning_text(found))
    if target is not None:
        _out(f"wrote {clean(target)} (html, {size / 1e3:,.0f} kB)\n")
    return 0


#: How much of a page for standard output waits in memory (the rest in a temporary
#: file): a page can be many times its session's size.
HELD_BY_EXPORT = 1 << 20


def _shareable(session: Session, redact: bool) -> Session:
    """The session to export: with ``--redact``, read again from its bytes with every
    likely secret replaced (``redact``); without it, the same session."""
    from ..views.redact import redacted  # here: as in run

    if not redact:
        return session
    data, found = redacted(session.dumps())
    if found:
        _note_line(f"replaced likely secrets on {plural(len(found), 'line')} (--redact)")
        session = pisession.loads(data, session.source, new_id=pisession.sequential_ids())
    return session


def _secrets_warning(session: Session, page: str) -> str | None:
    """A warning naming the lines and entries of the file whose likely secrets the page
    shows (``redact.page_secrets``), or None."""
    from ..views.redact import page_secrets, warning_text  # here: as in run

    found = page_secrets(page, session.dumps)
    return warning_text(found) if found else None


def _format_of(output: str | None) -> str:
    """The format ``-o`` names by its suffix (HTML when there is none)."""
    if output is None or output == "-":
        return "html"
    suffix = Path(output).suffix.lower()
    if suffix in (".html", ".htm"):
        return "html"
    if suffix in (".md", ".markdown"):
        return "md"
    raise CommandError(f"{output}: name it .html or .md, or pass --format html|md")
