"""Entry-tree drawings: the tree, the path to a leaf, and the fate of every entry.

Two layers, as everywhere in pisession:

- ``tree_layout`` (``pisession.views.layout``) is pure data: where each node goes, its
  colour (its fate for the chosen leaf), its text, the edges, the path edges and the
  compaction cut.
- ``draw_tree`` / ``save_tree`` (here) turn a layout into a matplotlib figure (no Graphviz).

The figures of the rule itself (pipeline, context edits, migration) are column charts
(``pisession.views.charts``); what every figure shares (sizes, PNG, HTML, alternative
text, ``save_figure``) is ``pisession.views.figure``. Their public names are importable
from here too, where notebooks and the command line import them.

matplotlib is imported only when drawing, and no pyplot figure manager or backend is
touched: the figure is a plain ``matplotlib.figure.Figure`` (it shows as PNG in
Jupyter and saves with ``fig.savefig``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, cast

from .charts import (
    edits_chart,
    edits_figure,
    migration_chart,
    migration_figure,
    pipeline_chart,
    pipeline_figure,
)
from .display import short_id
from .figure import (
    _BOX_EDGE,
    _CUT_COLOUR,
    _EDGE_COLOUR,
    _LEFT,
    _MUTED,
    _PATH_COLOUR,
    FONT,
    HIDPI,
    NATURAL_DPI,
    SMALL,
    _box_inches,
    _describe,
    _heading,
    _heading_inches,
    _mpl_text,
    _new_figure,
    _text_inches,
    alt_text,
    figure_bundle,
    figure_png,
    natural_size,
    save_figure,
)
from .layout import COLLAPSE_THRESHOLD, Cut, LayoutNode, TreeLayout, tree_layout
from .provenance import FATE, UNKNOWN_COLOUR
from .text import one_line as shorten
from .text import plural
from .text import strip_unsafe as clean_text

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .protocol import SessionLike

#: What notebooks, docs and the command line import from here: the tree drawing, and the
#: names of ``layout``, ``figure`` and ``charts`` they have always imported from ``draw``.
__all__ = [
    "COLLAPSE_THRESHOLD",
    "NATURAL_DPI",
    "alt_text",
    "draw_layout",
    "draw_tree",
    "edits_chart",
    "edits_figure",
    "figure_bundle",
    "figure_png",
    "migration_chart",
    "migration_figure",
    "natural_size",
    "pipeline_chart",
    "pipeline_figure",
    "save_figure",
    "save_tree",
    "tree_alt",
    "tree_layout",
]

# --- drawing: the tree ------------------------------------------------------------------

#: Rows and columns of a tree drawing, in inches (columns widen to the widest node).
_ROW = {"TB": 0.34, "LR": 0.42}
_GAP = {"TB": 0.32, "LR": 0.45}
_TOP, _BOTTOM, _LEGEND = 0.7, 0.2, 2.1

#: Around a node, where its notes go: its label and the leaf mark (per orientation).
_NOTE_SIDE = {"TB": {"label": "right", "leaf": "below"}, "LR": {"label": "above", "leaf": "right"}}
#: Along the tree, the way to the root; across it, the side where no branch is drawn.
_BACK = {"TB": 1.0, "LR": -1.0}
_FREE = {"TB": -1.0, "LR": 1.0}


@dataclass(frozen=True)
class _Frame:
    """Where a tree layout goes on the page: inches per step (``ux``, ``uy``), the
    extent in steps, and the text scale (1 unless squeezed into a given axes)."""

    ux: float
    uy: float
    x0: float
    x1: float
    y0: float
    y1: float
    scale: float = 1.0

    @property
    def inches(self) -> tuple[float, float]:
        return (self.x1 - self.x0) * self.ux, (self.y1 - self.y0) * self.uy


def _frame(layout: TreeLayout) -> _Frame:
    """Steps and extent for a layout: every text at full size, nothing overlapping."""
    o = layout.orientation
    nodes = list(layout.nodes.values())
    widest = _widest(layout)
    notes = [
        (n, _text_inches(_label_text(n.label), SMALL) if n.label is not None else 0.0)
        for n in nodes
    ]
    cut = _text_inches(f"✂ cut of {'x' * 8}", SMALL) + 0.3 if layout.cut else 0.1
    xs = [n.x for n in nodes] or [0.0]
    ys = [n.y for n in nodes] or [0.0]
    if o == "TB":
        ux, uy = widest + _GAP[o], _ROW[o]
        right = max((n.x * ux + _box_inches(n.text) / 2 + w + 0.15 for n, w in notes), default=0)
        x0 = min(xs) - (widest / 2 + cut) / ux
        return _Frame(ux, uy, x0, right / ux + 0.1, min(ys) - 1.0, max(ys) + 0.7)
    ux, uy = widest + _GAP[o], _ROW[o]
    leaf = _text_inches("◀ leaf", SMALL) + 0.1
    x0, x1 = min(xs) - (widest / 2 + 0.1) / ux, max(xs) + (widest / 2 + leaf) / ux
    return _Frame(ux, uy, x0, x1, min(ys) - 0.8, max(ys) + (0.5 if layout.cut else 0) + 1.0)


def _widest(layout: TreeLayout) -> float:
    return max((_box_inches(n.text) for n in layout.nodes.values()), default=1.0)


def _label_text(label: object) -> str:
    return "“" + shorten(label, 28) + "”"


def _canvas(
    layout: TreeLayout, frame: _Frame, figsize: tuple[float, float] | None
) -> tuple[Figure, Axes, tuple[float, float], _Frame]:
    """A new figure sized to the frame: title, subtitle, the axes, and where the legend
    goes (right of the tree, top-aligned)."""
    need_w, need_h = frame.inches
    axes_w, axes_h = need_w, need_h
    width = max(_LEFT + axes_w + _LEGEND, _heading_inches(layout.title, layout.subtitle))
    height = _TOP + max(axes_h, 2.6) + _BOTTOM
    if figsize is not None:
        width, height = figsize
        axes_w = max(width - _LEFT - _LEGEND, 1.0)
        axes_h = max(height - _TOP - _BOTTOM, 1.0)
        frame = _scaled(frame, min(axes_w / need_w, axes_h / need_h))
    fig = _new_figure(width, height)
    top = 1 - _TOP / height
    ax = fig.add_axes((_LEFT / width, top - axes_h / height, axes_w / width, axes_h / height))
    _heading(fig, layout.title, layout.subtitle)
    return fig, ax, ((_LEFT + axes_w + 0.1) / width, top), frame


def _scaled(frame: _Frame, scale: float) -> _Frame:
    return _Frame(frame.ux, frame.uy, frame.x0, frame.x1, frame.y0, frame.y1, scale)


def draw_layout(
    layout: TreeLayout, *, ax: Axes | None = None, figsize: tuple[float, float] | None = None
) -> Figure:
    """Draw a ``TreeLayout``; returns the matplotlib Figure (see ``draw_tree``).

    >>> import pisession
    >>> fig = draw_layout(tree_layout(pisession.load(pisession.sample_path("tour"))))
    >>> alt_text(fig)[:13]
    'Entry tree of'
    """
    frame = _frame(layout)
    legend_at: tuple[float, float] | None
    if ax is None:
        fig, ax, legend_at, frame = _canvas(layout, frame, figsize)
    else:  # an axes the caller made in a figure (a subfigure's axes: its root figure)
        fig, legend_at = cast("Figure", ax.figure), None
        box = ax.get_position()
        fig_w, fig_h = fig.get_size_inches()
        need_w, need_h = frame.inches
        frame = _scaled(frame, min(1.0, box.width * fig_w / need_w, box.height * fig_h / need_h))
        ax.set_title(_mpl_text(f"{layout.title}: {layout.subtitle}"), fontsize=FONT, loc="left")
    ax.set_xlim(frame.x0, frame.x1)
    ax.set_ylim(frame.y0, frame.y1)
    ax.set_axis_off()
    _draw_edges(ax, layout, frame.scale)
    for node in layout.nodes.values():
        _draw_node(ax, node, frame.scale, layout.orientation)
    if layout.cut is not None:
        _draw_cut(ax, layout, frame)
    _draw_legend(fig, ax, layout, legend_at)
    if layout.error:
        words = _mpl_text(shorten(f"no context: {layout.error}", 110))
        ax.text(0.0, 0.0, words, transform=ax.transAxes, fontsize=SMALL, color=_CUT_COLOUR)
    _describe(fig, tree_alt(layout))
    return fig


def _draw_edges(ax: Axes, layout: TreeLayout, scale: float) -> None:
    """Tree edges thin and grey, the path thick and dark, cycle links curved arrows."""
    from matplotlib.collections import LineCollection

    nodes = layout.nodes

    def xy(key: int) -> tuple[float, float]:
        return nodes[key].x, nodes[key].y

    path = set(layout.path_edges)
    plain = [(xy(a), xy(b)) for a, b in layout.edges if (a, b) not in path]
    ax.add_collection(LineCollection(plain, colors=_EDGE_COLOUR, linewidths=1.0 * scale, zorder=1))
    thick = [(xy(a), xy(b)) for a, b in layout.path_edges]
    ax.add_collection(LineCollection(thick, colors=_PATH_COLOUR, linewidths=3.0 * scale, zorder=2))
    for a, b in layout.loop_edges:
        arrow = {"arrowstyle": "-|>", "color": _CUT_COLOUR, "lw": 1.2 * scale}
        arrow.update(shrinkA=8 * scale, shrinkB=8 * scale, mutation_scale=9 * scale)
        arrow["connectionstyle"] = "arc3,rad=-0.6"
        ax.annotate("", xy=xy(b), xytext=xy(a), zorder=1, arrowprops=arrow)


def _node_style(node: LayoutNode, scale: float) -> tuple[dict[str, str | float], str]:
    """The box of a node (fill by fate, border by role) and its text colour (for contrast)."""
    edge, width, ink = _BOX_EDGE, 0.8 * scale, FATE[node.fate].ink if node.fate else "#000000"
    if node.fate == "off-path":
        edge, ink = "#8C8C8C", "#4D4D4D"
    if node.in_cycle:
        edge, width = _CUT_COLOUR, 2.0 * scale
    if node.is_leaf:
        edge, width = "#000000", 2.4 * scale
    shape = "sawtooth,pad=0.4" if node.is_compaction else "round,pad=0.3"
    return {"boxstyle": shape, "fc": node.colour, "ec": edge, "lw": width}, ink


def _note_offset(where: str, half: float, size: float) -> tuple[tuple[float, float], str, str]:
    """Offset in points, and alignment, of a note on one side of a node."""
    if where == "right":
        return (half + 5, 0), "left", "center"
    if where == "below":
        return (0, -1.6 * size), "center", "center"
    return (0, 1.3 * size), "center", "bottom"


def _draw_node(ax: Axes, node: LayoutNode, scale: float, orientation: str) -> None:
    """One node: its box (a stack of cards for a collapsed run), its label and, for
    the leaf, the leaf mark, on the sides ``_NOTE_SIDE`` gives."""
    size = FONT * scale
    style, ink = _node_style(node, scale)
    text = _mpl_text(node.text)
    if node.count > 1:  # a stack of cards: two offset shadows behind the run's box
        for step in (2, 1):
            offset = (2.5 * step * scale, -2.5 * step * scale)
            ax.annotate(text, (node.x, node.y), xytext=offset, textcoords="offset points",
                        ha="center", va="center", fontsize=size, color="none", zorder=3,
                        bbox=style)  # fmt: skip
    weight = "bold" if node.is_leaf else "normal"
    ax.text(node.x, node.y, text, ha="center", va="center", fontsize=size, color=ink,
            zorder=4, fontweight=weight, bbox=style)  # fmt: skip
    half = _box_inches(node.text, size) * 72 / 2
    notes = []
    if node.label is not None:
        notes.append(("label", _label_text(node.label), "italic", "normal", _MUTED))
    if node.is_leaf:
        mark = "▲ leaf" if orientation == "TB" else "◀ leaf"
        notes.append(("leaf", mark, "normal", "bold", "#000000"))
    for kind, words, slant, bold, colour in notes:
        offset, ha, va = _note_offset(_NOTE_SIDE[orientation][kind], half, SMALL * scale)
        ax.annotate(_mpl_text(words), (node.x, node.y), xytext=offset, textcoords="offset points",
                    ha=ha, va=va, fontsize=SMALL * scale, fontstyle=slant, fontweight=bold,
                    color=colour, zorder=5)  # fmt: skip


def _place(orientation: str, along: float, across: float) -> tuple[float, float]:
    """A point given along the tree (root to leaf) and across it, as (x, y)."""
    return (across, along) if orientation == "TB" else (along, across)


def _along_across(node: LayoutNode, orientation: str) -> tuple[float, float]:
    return (node.y, node.x) if orientation == "TB" else (node.x, node.y)


def _draw_cut(ax: Axes, layout: TreeLayout, frame: _Frame) -> None:
    """The compaction cut: a dashed line across the path between the last summarized
    and the first kept entry, named after the compaction, and (when it keeps entries)
    a bracket from the compaction back to its first kept entry."""
    o, cut, nodes, scale = layout.orientation, cast(Cut, layout.cut), layout.nodes, frame.scale
    below, _ = _along_across(nodes[cut.below], o)
    across = _along_across(nodes[cut.below], o)[1]
    if cut.above is not None:
        at = (_along_across(nodes[cut.above], o)[0] + below) / 2
    else:
        at = below + _BACK[o] * 0.5
    reach = (_widest(layout) / 2 + 0.12) / (frame.ux if o == "TB" else frame.uy)
    if o == "LR":
        reach = 0.45
    line = [_place(o, at, across - reach), _place(o, at, across + reach)]
    ax.plot(*zip(*line), color=_CUT_COLOUR, lw=1.6 * scale, ls="--", zorder=5)
    words = _mpl_text(f"✂ cut of {short_id(nodes[cut.compaction].id)}")
    ha, va = ("right", "center") if o == "TB" else ("center", "bottom")
    ax.text(*_place(o, at, across + _FREE[o] * (reach + 0.04)), words, ha=ha, va=va,
            fontsize=SMALL * scale, color=_CUT_COLOUR, zorder=5)  # fmt: skip
    if cut.below != cut.compaction:
        _draw_first_kept(ax, layout, frame)


def _half_across(node: LayoutNode, frame: _Frame, orientation: str) -> float:
    """Half a node's size across the tree, in steps."""
    if orientation == "TB":
        return _box_inches(node.text, FONT * frame.scale) / 2 / frame.ux
    return 0.9 * FONT * frame.scale / 72 / frame.uy


def _draw_first_kept(ax: Axes, layout: TreeLayout, frame: _Frame) -> None:
    """A dashed bracket from the compaction back to the first kept entry
    (``firstKeptEntryId``), on the side of the path where no branch is drawn."""
    o, scale, side = layout.orientation, frame.scale, _FREE[layout.orientation]
    cut = cast(Cut, layout.cut)
    compaction, below = layout.nodes[cut.compaction], layout.nodes[cut.below]
    c_along, c_across = _along_across(compaction, o)
    b_along, b_across = _along_across(below, o)
    half_c, half_b = _half_across(compaction, frame, o), _half_across(below, frame, o)
    step = frame.ux if o == "TB" else frame.uy
    rail = c_across + side * (max(half_c, half_b) + 14 * scale / 72 / step)
    points = [(c_along, c_across + side * half_c), (c_along, rail), (b_along, rail)]
    rail_xy = zip(*[_place(o, a, c) for a, c in points])
    ax.plot(*rail_xy, color=_CUT_COLOUR, lw=1.0 * scale, ls=(0, (4, 3)), zorder=2)
    arrow = {"arrowstyle": "-|>", "color": _CUT_COLOUR, "lw": 1.0 * scale, "shrinkA": 0}
    arrow.update(shrinkB=0, mutation_scale=9 * scale)
    end, start = _place(o, b_along, b_across + side * half_b), _place(o, b_along, rail)
    ax.annotate("", xy=end, xytext=start, zorder=2, arrowprops=arrow)
    label_at = _place(o, (b_along + c_along) / 2, rail + side * 3 * scale / 72 / step)
    ax.text(*label_at, "firstKeptEntryId", rotation=90 if o == "TB" else 0,
            ha="right" if o == "TB" else "center", va="center" if o == "TB" else "bottom",
            fontsize=SMALL * scale, color=_CUT_COLOUR, fontstyle="italic", zorder=2)  # fmt: skip


def _legend_handles(layout: TreeLayout) -> list[Artist]:
    """One legend entry per fate and mark the drawing shows, nothing else."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    nodes = layout.nodes.values()
    handles: list[Artist] = [
        Patch(facecolor=FATE[f].colour, edgecolor=_BOX_EDGE, label=FATE[f].legend)
        for f in layout.fates_shown
    ]
    if any(n.fate is None for n in nodes):
        handles.append(Patch(facecolor=UNKNOWN_COLOUR, edgecolor=_BOX_EDGE, label="no fate"))
    if layout.path_edges:
        handles.append(Line2D([], [], color=_PATH_COLOUR, lw=3.0, label="path to the leaf"))
    handles.append(Patch(facecolor="white", edgecolor="black", lw=2.4, label="the leaf"))
    if layout.cut is not None:
        handles.append(Line2D([], [], color=_CUT_COLOUR, lw=1.6, ls="--", label="compaction cut"))
    if layout.collapsed:
        handles.append(Patch(facecolor="white", edgecolor=_BOX_EDGE, label="N entries: a run"))
    if any(n.in_cycle for n in nodes):
        handles.append(
            Patch(facecolor="white", edgecolor=_CUT_COLOUR, lw=2, label="in a parent cycle")
        )
    return handles


def _draw_legend(
    fig: Figure, ax: Axes, layout: TreeLayout, anchor: tuple[float, float] | None
) -> None:
    """The legend right beside the tree (top-aligned), or right of a given axes."""
    options = {"handles": _legend_handles(layout), "fontsize": SMALL, "frameon": False}
    options.update(title="fate at the leaf", title_fontsize=FONT, alignment="left")
    if anchor is not None:
        fig.legend(loc="upper left", bbox_to_anchor=anchor, borderaxespad=0, **options)
    else:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), **options)


def draw_tree(
    session: SessionLike,
    leaf_id: object = None,
    *,
    ax: Axes | None = None,
    orientation: str = "TB",
    collapse: bool | int | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Draw the entry tree with the path to ``leaf_id`` and every entry's fate.

    Returns a ``matplotlib.figure.Figure``. Without ``ax`` the figure is sized to the
    tree (one column per leaf, text at full size) and made without pyplot, so no
    backend is chosen or changed: Jupyter shows it as a sharp PNG at its natural size,
    a script calls ``fig.savefig``. With ``ax`` (e.g. from ``plt.subplots()``) the tree
    is drawn into it.

    >>> import pisession
    >>> fig = draw_tree(pisession.load(pisession.sample_path("tour")), "cm000001")
    >>> type(fig).__name__
    'PisessionFigure'
    """
    layout = tree_layout(session, leaf_id, orientation=orientation, collapse=collapse)
    return draw_layout(layout, ax=ax, figsize=figsize)


def save_tree(
    session: SessionLike,
    path: str | os.PathLike[str],
    leaf_id: object = None,
    *,
    dpi: int = NATURAL_DPI * HIDPI,
    orientation: str = "TB",
    collapse: bool | int | None = None,
    figsize: tuple[float, float] | None = None,
) -> Path:
    """Draw the tree (``draw_tree`` options) and write it as PNG or SVG, by suffix.

    The output is deterministic: the same file gives the same bytes (no dates, fixed
    SVG ids).

    >>> import pisession, tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "tour.svg"
    >>> save_tree(pisession.load(pisession.sample_path("tour")), out).suffix
    '.svg'
    """
    fig = draw_tree(session, leaf_id, orientation=orientation, collapse=collapse, figsize=figsize)
    return save_figure(fig, path, dpi=dpi)


def tree_alt(layout: TreeLayout) -> str:
    """A tree drawing in words: file, leaf, sizes, how many entries have each fate, the
    compaction cut and what is collapsed.

    >>> import pisession
    >>> tree_alt(tree_layout(pisession.load(pisession.sample_path("tour"))))[:38]
    'Entry tree of Tour of the session form'
    """
    nodes = list(layout.nodes.values())
    counts: dict[str, int] = {}
    for node in nodes:
        counts[node.fate or "no fate"] = counts.get(node.fate or "no fate", 0) + node.count
    order = [*layout.fates_shown, "no fate"]
    fates = ", ".join(f"{counts[f]} {f}" for f in order if f in counts)
    ends = {a for a, _ in layout.edges}
    leaves = sum(1 for n in nodes if n.key not in ends)
    words = [
        f"Entry tree of {layout.title}: {layout.subtitle}",
        f"{plural(leaves, 'branch end', 'branch ends')}",
        f"fates at the leaf: {fates}",
    ]
    if layout.cut is not None:
        kept = layout.cut.first_kept_id
        words.append(
            "a compaction cuts the path"
            + (f" before its first kept entry {short_id(kept)}" if kept else "")
        )
    if layout.collapsed:
        runs = [n for n in nodes if n.count > 1]
        words.append(f"{plural(len(runs), 'run')} of entries drawn as one box each")
    if layout.error:
        words.append(f"no context: {layout.error}")
    return clean_text("; ".join(words) + ".")
