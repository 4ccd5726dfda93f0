"""``pisession tree``: the entry tree of a session, as text with each entry's fate
(``views.explain.tree_chunks``), JSON, or a picture (``views.draw``, with matplotlib).

>>> from pisession.cli.parser import build_parser
>>> build_parser().parse_args(["tree", "tour", "-o", "t.png"]).output
't.png'
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path
from typing import Any

from ..errors import SessionFormatError
from ..session import Session
from ..views.terminal import clean
from .loading import _leaf, _load
from .options import _LEAF_HELP, AddCommand, _collapse_options, _file_argument
from .output import _check_target, _collapse, _look, _out, _out_json_stream, _write
from .report import CommandError, _warn

#: How to get matplotlib for pictures (pisession is installed from its repository).
DRAW_INSTALL = "pip install matplotlib (or, in a clone of pisession: pip install '.[draw]')"

EPILOG = """\
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


def add_parser(sub: AddCommand) -> None:
    """``tree``'s arguments: FILE, ``--leaf``, a picture (``-o``, ``--png``, ``--svg``,
    ``--force``, ``--orientation``) or ``--json``, ``--collapse``/``--all``.

    >>> from pisession.cli.parser import build_parser
    >>> build_parser().parse_args(["tree", "tour", "--svg", "t.svg"]).svg
    't.svg'
    """
    p = sub("tree", "draw the entry tree (text, or a picture)", EPILOG, run)
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


def run(args: argparse.Namespace) -> int:
    """``pisession tree``: the entry tree as text, JSON or a picture; exit 1 when the
    fates cannot be worked out (a cycle, a file Pi itself fails on): drawn without them.

    >>> from pisession.cli.parser import build_parser
    >>> run(build_parser().parse_args(["tree", "tour", "--ascii", "--width", "60"]))
    ... # doctest: +ELLIPSIS
     2 * n0000001 session_info [summarized]  "Tour of the se..."
    ...
    0
    """
    from ..views.explain import tree_chunks  # here: `pisession --help` loads no renderer

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


def _tree_json(session: Session, leaf: str | None) -> int:
    """``tree --json``: the leaf, the roots, the leaves, then every entry, one a line."""
    from ..views.explain import json_id, leaf_data, tree_entries  # here: as in run

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


def _image_target(args: argparse.Namespace) -> tuple[Path, str] | None:
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


def _draw(
    session: Session, leaf: str | None, image: tuple[Path, str], args: argparse.Namespace
) -> int:
    """Draw the tree (``views.draw``) and write the picture; matplotlib loads only here."""
    out, fmt = image
    try:
        from ..views.draw import draw_tree, figure_png  # here: matplotlib loads only to draw

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
        import matplotlib.pyplot as plt  # loaded by draw_tree already

        plt.close(fig)
    _write(out, data)
    _out(f"wrote {clean(str(out))}\n")
    return 0
