"""pisession's matplotlib figures: what every drawing shares (text sizes, colours, a
``Figure`` that shows itself sharp in Jupyter) and a figure as PNG, HTML, a file or words.

matplotlib is imported only when drawing, and no pyplot figure manager or backend is
touched: the figure is a plain ``matplotlib.figure.Figure`` (it shows as PNG in
Jupyter and saves with ``fig.savefig``).
"""

from __future__ import annotations

import functools
import html
import io
import os
from pathlib import Path
from typing import TYPE_CHECKING

from .text import strip_unsafe as clean_text

if TYPE_CHECKING:
    from matplotlib.figure import Figure


#: Text sizes in points. Figures are sized in inches and shown at 100 px per inch (their
#: natural size), so 7.5 pt is 10.4 px at 100 % zoom: the smallest text drawn.
FONT = 8.0
SMALL = 7.5
TITLE = 11.0

#: Pixels per inch of a figure shown at its natural size, and how much finer it is
#: rendered for notebooks and explorers (2: sharp on a HiDPI screen).
NATURAL_DPI = 100
HIDPI = 2

_PATH_COLOUR = "#1A1A1A"
_EDGE_COLOUR = "#9A9A9A"
_CUT_COLOUR = "#882255"
_MUTED = "#444444"
_BOX_EDGE = "#333333"
_CHANGED = "#FFE08A"

#: The attribute a drawn figure keeps its words in (``alt_text``).
_ALT = "pisession_alt"

#: Every figure's left margin, in inches (its title starts there).
_LEFT = 0.25


def _mpl_text(text: object) -> str:
    """Session text as matplotlib shows it literally (no mathtext from ``$``)."""
    return clean_text(text).replace("$", r"\$")


def _text_inches(text: str, size: float = FONT) -> float:
    """About how wide ``text`` is at ``size`` points (DejaVu Sans averages 0.6 em)."""
    return len(text) * 0.57 * size / 72


def _box_inches(text: str, size: float = FONT) -> float:
    """Width of a text in a rounded box (``pad=0.3`` on each side)."""
    return _text_inches(text, size) + 0.6 * size / 72


@functools.cache
def _figure_class() -> type[Figure]:
    from matplotlib.figure import Figure

    class PisessionFigure(Figure):
        """A plain Figure that shows itself in Jupyter as a sharp PNG (rendered at
        ``HIDPI`` times its natural size, displayed at its natural size), without pyplot
        and whatever the inline backend's settings."""

        pisession_alt = ""

        def _repr_png_(self) -> bytes:
            return figure_png(self, dpi=NATURAL_DPI * HIDPI)

        def _ipython_display_(self) -> None:
            from IPython.display import publish_display_data

            data, metadata = figure_bundle(self)
            publish_display_data(data, metadata)  # type: ignore[no-untyped-call]

    return PisessionFigure


def _new_figure(width: float, height: float) -> Figure:
    return _figure_class()(figsize=(width, height), dpi=NATURAL_DPI)


def _heading(fig: Figure, title: str, subtitle: str) -> None:
    """A figure's title and subtitle, top left."""
    height = fig.get_size_inches()[1]
    x = _LEFT / fig.get_size_inches()[0]
    fig.text(x, 1 - 0.1 / height, _mpl_text(title), fontsize=TITLE, weight="bold", va="top")
    fig.text(x, 1 - 0.36 / height, _mpl_text(subtitle), fontsize=SMALL, va="top", color=_MUTED)


def _heading_inches(title: str, subtitle: str) -> float:
    """How wide a figure must be for its title and subtitle."""
    return 2 * _LEFT + max(_text_inches(title, TITLE) * 1.1, _text_inches(subtitle, SMALL))


def _describe(fig: Figure, words: str) -> None:
    """Give a drawn figure its words (what ``alt_text`` returns for it)."""
    setattr(fig, _ALT, words)


def alt_text(fig: Figure) -> str:
    """What a figure shows, in words: its alternative text for a screen reader or a
    page without images (pisession's figures say it; another figure gets its titles).

    >>> import pisession
    >>> from pisession.views.draw import draw_tree
    >>> alt_text(draw_tree(pisession.load(pisession.sample_path("tour"))))[:48]
    'Entry tree of Tour of the session format: leaf a'
    """
    said = getattr(fig, _ALT, "")
    if isinstance(said, str) and said:
        return said
    titles = [t.get_text() for t in getattr(fig, "texts", []) if t.get_text()]
    return "; ".join(titles) or "a figure"


def figure_png(fig: Figure, dpi: int = NATURAL_DPI) -> bytes:
    """A figure as PNG bytes (deterministic: no date or software metadata).

    >>> import pisession
    >>> from pisession.views.draw import draw_tree
    >>> figure_png(draw_tree(pisession.load(pisession.sample_path("tour"))))[:4]
    b'\\x89PNG'
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def natural_size(fig: Figure) -> tuple[int, int]:
    """A figure's natural size in CSS pixels (``NATURAL_DPI`` per inch).

    >>> import pisession
    >>> from pisession.views.draw import draw_tree
    >>> natural_size(draw_tree(pisession.load(pisession.sample_path("tour"))))
    (683, 862)
    """
    width, height = fig.get_size_inches()
    return round(width * NATURAL_DPI), round(height * NATURAL_DPI)


def figure_bundle(fig: Figure) -> tuple[dict[str, str], dict[str, object]]:
    """What Jupyter stores for a figure: an HTML ``<img>`` with alternative text (a PNG
    rendered at ``HIDPI`` times the natural size, shown at its natural width at most, so
    it is sharp on a HiDPI screen and never larger than drawn), and the same words as
    the text form. Jupyter's ``image/png`` output has no alternative text (JupyterLab,
    Notebook 7 and nbconvert render it as an ``<img>`` without ``alt``), so the picture
    is sent as HTML, which they, Colab, VS Code and GitHub all render.

    >>> import pisession
    >>> from pisession.views.draw import draw_tree
    >>> data, meta = figure_bundle(draw_tree(pisession.load(pisession.sample_path("tour"))))
    >>> sorted(data), data["text/html"][:24], data["text/plain"][:13]
    (['text/html', 'text/plain'], '<img width="683" alt="En', 'Entry tree of')
    """
    alt = alt_text(fig)
    return {"text/html": figure_html(fig, alt), "text/plain": alt}, {}


def figure_html(fig: Figure, alt: str = "") -> str:
    """A figure as an HTML ``<img>`` (base64 PNG at ``HIDPI``), shown at its natural
    width at most: for static pictures stored in notebooks.

    >>> import pisession
    >>> from pisession.views.draw import draw_tree
    >>> figure_html(draw_tree(pisession.load(pisession.sample_path("tour"))), "a tree")[:40]
    '<img width="683" alt="a tree" style="max'
    """
    import base64

    width, _ = natural_size(fig)
    data = base64.b64encode(figure_png(fig, dpi=NATURAL_DPI * HIDPI)).decode("ascii")
    return (
        f'<img width="{width}" alt="{html.escape(alt, quote=True)}" '
        f'style="max-width:100%;height:auto" src="data:image/png;base64,{data}">'
    )


def save_figure(
    fig: Figure, path: str | os.PathLike[str], *, dpi: int = NATURAL_DPI * HIDPI
) -> Path:
    """Write any pisession figure as PNG or SVG, by suffix, deterministically.

    >>> import pisession, tempfile, pathlib
    >>> from pisession.views.draw import draw_tree
    >>> fig = draw_tree(pisession.load(pisession.sample_path("tour")))
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_figure(fig, pathlib.Path(folder) / "tour.svg").name
    'tour.svg'
    """
    import matplotlib

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ValueError(f"figures are written as .png or .svg files, not {target.name!r}")
    metadata = {"Date": None} if suffix == ".svg" else {"Software": None}
    with matplotlib.rc_context({"svg.hashsalt": "pisession", "svg.fonttype": "path"}):
        fig.savefig(target, format=suffix[1:], dpi=dpi, metadata=metadata)
    return target
