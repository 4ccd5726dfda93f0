"""Entry-tree drawings: the tree, the path to a leaf, and the fate of every entry.

Two layers, as everywhere in pisession:

- ``tree_layout`` is pure data: where each node goes, its colour (its fate for the
  chosen leaf), its text, the edges, the path edges and the compaction cut.
- ``draw_tree`` / ``save_tree`` turn a layout into a matplotlib figure (no Graphviz).

The layout is a deterministic "leaf-counting" tree layout, as ``git log --graph``
draws history: every leaf gets its own column, a parent sits straight above its first
child (Pi's order), so a conversation reads as one straight line and each branch
leaves it sideways. Long straight runs of entries with the same fate can be collapsed
into one "N entries" node (automatic above ``COLLAPSE_THRESHOLD`` entries).

matplotlib is imported only when drawing, and no pyplot figure manager or backend is
touched: the figure is a plain ``matplotlib.figure.Figure`` (it shows as PNG in
Jupyter and saves with ``fig.savefig``).
"""

from __future__ import annotations

import functools
import io
import itertools
import os
from dataclasses import dataclass, field
from pathlib import Path

from .display import short_id
from .errors import PisessionError
from .jsvalue import UNDEFINED
from .jsvalue import field as js_field
from .provenance import FATE, FATES, UNKNOWN_COLOUR
from .text import entry_kind
from .text import one_line as shorten
from .text import strip_unsafe as clean_text

#: Above this many entries ``collapse=None`` collapses long runs.
COLLAPSE_THRESHOLD = 300

#: Runs shorter than this stay as separate nodes when collapsing.
MIN_RUN = 3


@dataclass
class LayoutNode:
    """One drawn node: an entry, or a collapsed run of entries (``count > 1``)."""

    key: int
    positions: tuple[int, ...]
    x: float
    y: float
    fate: str | None
    colour: str
    text: str
    id: object = None
    kind: str = ""
    line: int = 0
    label: str | None = None
    is_leaf: bool = False
    is_compaction: bool = False
    in_cycle: bool = False

    @property
    def count(self) -> int:
        """How many entries the node stands for."""
        return len(self.positions)


@dataclass
class Cut:
    """Where the newest compaction on the path cuts it: ``above`` (last summarized
    node, None when nothing was summarized) and ``below`` (first kept node, or the
    compaction itself when it keeps nothing)."""

    compaction: int
    above: int | None
    below: int
    first_kept_id: object = None


@dataclass
class TreeLayout:
    """A drawing as data. Node keys are the position of each node's first entry.

    ``edges`` are the tree's parent -> child links; ``loop_edges`` the links that close
    a parent cycle (drawn curved); ``path_edges`` run from the root to the leaf.
    """

    nodes: dict[int, LayoutNode]
    edges: list[tuple[int, int]]
    path_edges: list[tuple[int, int]]
    cut: Cut | None
    leaf: int | None
    orientation: str
    collapsed: bool
    title: str = ""
    subtitle: str = ""
    error: str | None = None
    node_of: dict[int, int] = field(default_factory=dict)
    loop_edges: list[tuple[int, int]] = field(default_factory=list)

    def node_for(self, position: int) -> LayoutNode:
        """The node that shows the entry at ``position``."""
        return self.nodes[self.node_of[position]]

    @property
    def fates_shown(self) -> list[str]:
        """Fates present in the drawing, in legend order."""
        present = {n.fate for n in self.nodes.values()}
        return [k.name for k in FATES if k.name in present]


# --- layout -----------------------------------------------------------------------------


def _walk(children: dict[int, list[int]], roots: list[int], size: int):
    """Preorder from each root, then from every entry no root reaches (parent cycles).

    Returns ``(order, parent)`` where ``parent`` is the node each entry was reached
    from. Iterative: a chain of thousands of entries does not hit the recursion limit.
    """
    order: list[int] = []
    parent: dict[int, int | None] = {}
    starts = [*roots, *range(size)]
    for start in starts:
        if start in parent:
            continue
        stack: list[tuple[int, int | None]] = [(start, None)]
        while stack:
            node, via = stack.pop()
            if node in parent:
                continue
            parent[node] = via
            order.append(node)
            stack.extend((c, node) for c in reversed(children.get(node, [])) if c not in parent)
    return order, parent


def _runs(order, parent, children, fates, special, min_run):
    """Group straight runs of non-special entries with equal fates; returns key -> run."""
    run_of: dict[int, int] = {}
    runs: dict[int, list[int]] = {}
    for node in order:
        via = parent[node]
        if (
            via is not None
            and node not in special
            and via not in special
            and len(children.get(via, [])) == 1
            and fates[via] == fates[node]
        ):
            key = run_of[via]
            runs[key].append(node)
        else:
            key = node
            runs[key] = [node]
        run_of[node] = key
    out: dict[int, list[int]] = {}
    for key, members in runs.items():
        if len(members) >= min_run:
            out[key] = members
        else:
            for member in members:
                out[member] = [member]
    return out


def _place_children(kids: list[int], contours: dict) -> tuple[list[int], list, list]:
    """Offsets of child subtrees side by side, each as far left as its contour allows.

    A contour lists, per depth *from the bottom* (so a parent can append its own row
    in O(1)), the leftmost and rightmost column a subtree uses. The first child sits
    at offset 0 (straight below its parent); each later child is moved right until it
    clears every earlier sibling at every depth they share.
    """
    right, left = contours.pop(kids[0])
    offsets = [0]
    for kid in kids[1:]:
        kid_right, kid_left = contours.pop(kid)
        size, kid_size = len(right), len(kid_right)
        shared = min(size, kid_size)
        offset = 1
        for d in range(shared):
            offset = max(offset, right[size - 1 - d] + 1 - kid_left[kid_size - 1 - d])
        if kid_size > size:  # the new subtree is deeper: extend the contour downwards
            extra = kid_size - size
            right = [offset + r for r in kid_right[:extra]] + right
            left = [offset + v for v in kid_left[:extra]] + left
            size = kid_size
        for d in range(shared):
            i, j = size - 1 - d, kid_size - 1 - d
            right[i] = max(right[i], offset + kid_right[j])
            left[i] = min(left[i], offset + kid_left[j])
        offsets.append(offset)
    return offsets, right, left


def _columns(keys: list[int], kids: dict) -> tuple[dict[int, int], dict[int, int]]:
    """Column and depth of every node: a tidy, git-graph-like packing.

    Bottom-up, each subtree gets a contour; children are packed left to right (see
    ``_place_children``); a parent's row spans to its last child so the edges to its
    children cross no other node. Top-level trees (roots) are packed the same way.
    """
    contours: dict = {}
    offsets: dict[int, int] = {}
    for key in reversed(keys):
        children = kids[key]
        if not children:
            contours[key] = ([0], [0])
            continue
        placed, right, left = _place_children(children, contours)
        offsets.update(zip(children, placed))
        right.append(max(placed))
        left.append(0)
        contours[key] = (right, left)
    if kids[None]:
        placed, _, _ = _place_children(kids[None], contours)
        offsets.update(zip(kids[None], placed))
    column: dict[int, int] = {}
    depth: dict[int, int] = {}
    for key in kids[None]:
        column[key], depth[key] = offsets[key], 0
    for key in keys:
        for child in kids[key]:
            column[child] = column[key] + offsets[child]
            depth[child] = depth[key] + 1
    return column, depth


def _collapse_runs(collapse: bool | int | None, size: int) -> int | None:
    """The minimum run length to collapse, or None for no collapsing."""
    if collapse is None:
        return MIN_RUN if size > COLLAPSE_THRESHOLD else None
    if isinstance(collapse, bool):
        return MIN_RUN if collapse else None
    return max(int(collapse), 2)


def _compaction_cut(projection) -> tuple[int, int | None, int] | None:
    """``(compaction, above, below)``: the newest compaction on the path, the last path
    entry it summarized (None: none) and the first one it kept (itself: none), read
    off the rule's selection."""
    selection, path = projection.selection, projection.path
    if selection.compaction is None:
        return None
    below = selection.start if selection.first_kept is not None else selection.cut
    above = path[below - 1] if below > 0 else None
    return (
        selection.compaction,
        above,
        path[below] if below < selection.cut else selection.compaction,
    )


def tree_layout(
    session,
    leaf_id: object = None,
    orientation: str = "TB",
    collapse: bool | int | None = None,
) -> TreeLayout:
    """The entry tree laid out for drawing, coloured by each entry's fate at a leaf.

    ``orientation`` is ``"TB"`` (root at the top) or ``"LR"`` (root at the left).
    ``collapse``: None collapses runs of same-fate entries above
    ``COLLAPSE_THRESHOLD`` entries, True/False force it, an int sets the shortest run
    to collapse. Leaves, branch points, compactions, labelled entries and the entries
    either side of the compaction cut are never collapsed.

    A file whose context cannot be built (a parent cycle on the path, an entry Pi
    fails on) is still laid out: nodes get no fate and ``error`` says why.

    >>> import pisession
    >>> layout = tree_layout(pisession.load(pisession.sample_path("tour")))
    >>> layout.node_for(20).fate, layout.node_for(20).text
    ('dropped-system', 'sys sys00002')
    >>> layout.cut.first_kept_id
    'u2000001'
    """
    if orientation not in ("TB", "LR"):
        raise ValueError(f"orientation must be 'TB' or 'LR', not {orientation!r}")
    size = len(session)
    leaf = session.default_leaf if leaf_id is None else session.position_of(leaf_id)
    error = None
    cut = None
    try:
        fates = session.fates(leaf_id).names
        projection = session.projection(leaf_id)
        path = projection.path
        cut = _compaction_cut(projection)
    except PisessionError as exc:
        error = clean_text(exc)
        fates = [None] * size
        path = []
    children = session.children()
    order, parent = _walk(children, session.roots(), size)
    cycles = {p for loop in session.problems()["cycles"] for p in loop}
    labels = session.labels

    special = {p for p in range(size) if len(children.get(p, [])) != 1}
    special |= set(session.roots()) | cycles
    if leaf is not None:
        special.add(leaf)
    if cut:
        special |= {c for c in cut if c is not None}
    index = session.index
    special.update(p for p in range(size) if index.types[p] == "compaction")
    special.update(index.by_id[k] for k in labels if k in index.by_id)
    min_run = _collapse_runs(collapse, size)
    if min_run is None:
        runs = {p: [p] for p in order}
    else:
        runs = _runs(order, parent, children, fates, special, min_run)
    node_of = {member: key for key, members in runs.items() for member in members}

    # The condensed tree: each node's children, in Pi's order.
    keys = [p for p in order if node_of[p] == p]
    kids: dict[int | None, list[int]] = {None: [k for k in keys if parent[k] is None]}
    for key in keys:
        last = runs[key][-1]
        kids[key] = [c for c in children.get(last, []) if parent.get(c) == last]
    column, depth = _columns(keys, kids)

    nodes: dict[int, LayoutNode] = {}
    for position in order:
        key = node_of[position]
        if key != position:
            continue
        members = tuple(runs[key])
        fate = fates[key]
        colour = FATE[fate].colour if fate else UNKNOWN_COLOUR
        entry_id = index.ids[key]
        entry_id = None if entry_id is UNDEFINED else entry_id
        kind = entry_kind(index.types[key], index.roles[key])
        if len(members) > 1:
            text = f"{len(members):,} entries"
        else:
            short = entry_kind(index.types[key], index.roles[key], short=True)
            text = f"{shorten(short, 10)} {short_id(entry_id)}"
        x, y = (column[key], -depth[key]) if orientation == "TB" else (depth[key], -column[key])
        nodes[key] = LayoutNode(
            key=key,
            positions=members,
            x=float(x),
            y=float(y),
            fate=fate,
            colour=colour,
            text=text,
            id=entry_id,
            kind=kind,
            line=session.line_of(key),
            label=session.label_of(key),
            is_leaf=leaf in members,
            is_compaction=index.types[key] == "compaction",
            in_cycle=any(m in cycles for m in members),
        )

    edges, loops = [], []
    for position in order:
        for child in children.get(position, []):
            a, b = node_of[position], node_of[child]
            if a != b:
                (edges if parent[child] == position else loops).append((a, b))
    path_edges = []
    for a, b in itertools.pairwise(path):
        if node_of[a] != node_of[b]:
            path_edges.append((node_of[a], node_of[b]))
    layout_cut = None
    if cut:
        compaction, above, below = cut
        layout_cut = Cut(
            node_of[compaction],
            None if above is None else node_of[above],
            node_of[below],
            js_field(session.entry(compaction), "firstKeptEntryId"),
        )
    leaf_text = "-" if leaf is None else short_id(index.ids[leaf])
    title = session.name or os.path.basename(str(session.source))
    subtitle = f"leaf {leaf_text} · {size:,} entries · {len(path):,} on the path"
    if min_run is not None:
        subtitle += f" · runs of ≥{min_run} same-fate entries collapsed"
    return TreeLayout(
        nodes=nodes,
        edges=edges,
        loop_edges=loops,
        path_edges=path_edges,
        cut=layout_cut,
        leaf=None if leaf is None else node_of[leaf],
        orientation=orientation,
        collapsed=min_run is not None and any(n.count > 1 for n in nodes.values()),
        title=clean_text(title),
        subtitle=subtitle,
        error=error,
        node_of=node_of,
    )


# --- drawing ----------------------------------------------------------------------------

_UNIT = {"TB": (1.75, 0.42), "LR": (1.45, 0.42)}  # inches per x / y step
_FONT = 7.5
_MAX_INCHES = 250.0
_LEFT, _RIGHT, _TOP, _BOTTOM, _LEGEND = 0.3, 0.3, 0.75, 0.3, 2.5
_PATH_COLOUR = "#1A1A1A"
_EDGE_COLOUR = "#9A9A9A"
_CUT_COLOUR = "#882255"


def _mpl_text(text: str) -> str:
    """Session text as matplotlib shows it literally (no mathtext from ``$``)."""
    return clean_text(text).replace("$", r"\$")


@functools.cache
def _figure_class():
    from matplotlib.figure import Figure

    class TreeFigure(Figure):
        """A plain Figure that also shows itself as PNG in Jupyter without pyplot."""

        def _repr_png_(self):
            buffer = io.BytesIO()
            self.savefig(buffer, format="png")
            return buffer.getvalue()

    return TreeFigure


def _extent(layout: TreeLayout) -> tuple[float, float, float, float]:
    xs = [n.x for n in layout.nodes.values()] or [0.0]
    ys = [n.y for n in layout.nodes.values()] or [0.0]
    if layout.orientation == "TB":
        return min(xs) - 1.15, max(xs) + 1.05, min(ys) - 1.1, max(ys) + 0.7
    return min(xs) - 0.75, max(xs) + 1.0, min(ys) - 0.9, max(ys) + 1.6


def draw_layout(layout: TreeLayout, *, ax=None, figsize=None):
    """Draw a ``TreeLayout``; returns the matplotlib Figure (see ``draw_tree``)."""
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    x0, x1, y0, y1 = _extent(layout)
    ux, uy = _UNIT[layout.orientation]
    need_w, need_h = (x1 - x0) * ux, (y1 - y0) * uy
    scale = min(1.0, _MAX_INCHES / need_w, _MAX_INCHES / need_h)
    if ax is None:
        axes_w, axes_h = need_w * scale, need_h * scale
        width = _LEFT + axes_w + _LEGEND + _RIGHT
        height = _TOP + max(axes_h, 3.0) + _BOTTOM
        if figsize is not None:
            width, height = figsize
            available_w = max(width - _LEFT - _LEGEND - _RIGHT, 1.0)
            available_h = max(height - _TOP - _BOTTOM, 1.0)
            scale = min(available_w / need_w, available_h / need_h)
            axes_w, axes_h = available_w, available_h
        fig = _figure_class()(figsize=(width, height), dpi=100)
        top = 1 - _TOP / height
        ax = fig.add_axes((_LEFT / width, top - axes_h / height, axes_w / width, axes_h / height))
        legend_anchor = ((_LEFT + axes_w + 0.15) / width, top)
        fig.text(
            _LEFT / width,
            1 - 0.12 / height,
            _mpl_text(layout.title),
            fontsize=11,
            fontweight="bold",
            va="top",
            ha="left",
        )
        fig.text(
            _LEFT / width,
            1 - 0.38 / height,
            _mpl_text(layout.subtitle),
            fontsize=8.5,
            va="top",
            ha="left",
            color="#444444",
        )
    else:
        fig = ax.figure
        box = ax.get_position()
        fig_w, fig_h = fig.get_size_inches()
        scale = min(1.0, box.width * fig_w / need_w, box.height * fig_h / need_h)
        legend_anchor = None
        ax.set_title(_mpl_text(f"{layout.title}: {layout.subtitle}"), fontsize=9, loc="left")
    font = _FONT * scale
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_axis_off()
    nodes = layout.nodes
    tb = layout.orientation == "TB"

    def xy(key):
        return nodes[key].x, nodes[key].y

    path = set(layout.path_edges)
    plain = [(xy(a), xy(b)) for a, b in layout.edges if (a, b) not in path]
    ax.add_collection(LineCollection(plain, colors=_EDGE_COLOUR, linewidths=1.0 * scale, zorder=1))
    ax.add_collection(
        LineCollection(
            [(xy(a), xy(b)) for a, b in layout.path_edges],
            colors=_PATH_COLOUR,
            linewidths=3.2 * scale,
            zorder=2,
            capstyle="round",
        )
    )
    for a, b in layout.loop_edges:
        ax.annotate(
            "",
            xy=xy(b),
            xytext=xy(a),
            zorder=1,
            arrowprops={
                "arrowstyle": "-|>",
                "color": _CUT_COLOUR,
                "lw": 1.2 * scale,
                "shrinkA": 8 * scale,
                "shrinkB": 8 * scale,
                "connectionstyle": "arc3,rad=-0.6",
                "mutation_scale": 9 * scale,
            },
        )
    for node in nodes.values():
        _draw_node(ax, node, font, scale, tb)
    if layout.cut is not None:
        _draw_cut(ax, layout, font, scale, ux * scale, uy * scale)

    handles = [
        Patch(facecolor=FATE[f].colour, edgecolor="#333333", label=FATE[f].legend)
        for f in layout.fates_shown
    ]
    if any(n.fate is None for n in nodes.values()):
        handles.append(Patch(facecolor=UNKNOWN_COLOUR, edgecolor="#333333", label="no fate"))
    if layout.path_edges:
        handles.append(Line2D([], [], color=_PATH_COLOUR, lw=3.2, label="path to the leaf"))
    handles.append(Patch(facecolor="white", edgecolor="black", lw=2.4, label="the leaf"))
    if layout.cut is not None:
        handles.append(Line2D([], [], color=_CUT_COLOUR, lw=1.6, ls="--", label="compaction cut"))
    if layout.collapsed:
        handles.append(
            Patch(facecolor="white", edgecolor="#333333", label="N entries: a collapsed run")
        )
    if any(n.in_cycle for n in nodes.values()):
        handles.append(
            Patch(facecolor="white", edgecolor=_CUT_COLOUR, lw=2, label="in a parent cycle")
        )
    legend_kw = {
        "handles": handles,
        "fontsize": 8,
        "frameon": False,
        "title": "fate at the leaf",
        "title_fontsize": 8.5,
    }
    if legend_anchor is not None:
        fig.legend(loc="upper left", bbox_to_anchor=legend_anchor, **legend_kw)
    else:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), **legend_kw)
    if layout.error:
        ax.text(
            0.0,
            0.0,
            _mpl_text(shorten(f"no context: {layout.error}", 160)),
            transform=ax.transAxes,
            fontsize=8,
            color=_CUT_COLOUR,
            va="bottom",
        )
    return fig


def _half_width_points(text: str, font: float) -> float:
    return (len(text) * 0.58 * font + 0.6 * font) / 2


def _draw_node(ax, node: LayoutNode, font: float, scale: float, tb: bool) -> None:
    edge, width = "#333333", 0.8 * scale
    text_colour_ = FATE[node.fate].ink if node.fate else "#000000"
    if node.fate == "off-path":
        edge, text_colour_ = "#8C8C8C", "#5A5A5A"
    if node.in_cycle:
        edge, width = _CUT_COLOUR, 2.0 * scale
    if node.is_leaf:
        edge, width = "#000000", 2.4 * scale
    style = "round,pad=0.3"
    if node.is_compaction:
        style = "sawtooth,pad=0.4"
    text = _mpl_text(node.text)
    if node.count > 1:
        # A stack of cards: two offset shadows behind the run's box.
        for step in (2, 1):
            ax.annotate(
                text,
                (node.x, node.y),
                xytext=(2.5 * step * scale, -2.5 * step * scale),
                textcoords="offset points",
                ha="center",
                va="center",
                fontsize=font,
                color="none",
                zorder=3,
                bbox={"boxstyle": style, "fc": node.colour, "ec": edge, "lw": width},
            )
    ax.text(
        node.x,
        node.y,
        text,
        ha="center",
        va="center",
        fontsize=font,
        color=text_colour_,
        zorder=4,
        fontweight="bold" if node.is_leaf else "normal",
        bbox={"boxstyle": style, "fc": node.colour, "ec": edge, "lw": width},
    )
    half = _half_width_points(node.text, font)
    notes = []
    if node.label:
        notes.append(("“" + shorten(node.label, 28) + "”", "italic", "#333333"))
    if node.is_leaf:
        notes.append(("◀ leaf" if not tb else "▲ leaf", "normal", "#000000"))
    if tb:
        # Labels go right of the node; the leaf mark goes below it (nothing is there).
        for words, style_, colour in notes:
            if words.endswith("leaf"):
                offset = (0, -1.55 * font)
                ha = "center"
            else:
                offset = (half + 5 * scale, 0)
                ha = "left"
            ax.annotate(
                _mpl_text(words),
                (node.x, node.y),
                xytext=offset,
                textcoords="offset points",
                ha=ha,
                va="center",
                fontsize=font,
                fontstyle=style_,
                color=colour,
                zorder=5,
                fontweight="bold" if words.endswith("leaf") else "normal",
            )
    else:
        for words, style_, colour in notes:
            if words.endswith("leaf"):
                offset, ha, va = (half + 5 * scale, 0), "left", "center"
            else:
                offset, ha, va = (0, 1.3 * font), "center", "bottom"
            ax.annotate(
                _mpl_text(words),
                (node.x, node.y),
                xytext=offset,
                textcoords="offset points",
                ha=ha,
                va=va,
                fontsize=font,
                fontstyle=style_,
                color=colour,
                zorder=5,
                fontweight="bold" if words.endswith("leaf") else "normal",
            )


def _draw_cut(ax, layout: TreeLayout, font: float, scale: float, ux: float, uy: float) -> None:
    cut = layout.cut
    nodes = layout.nodes
    below = nodes[cut.below]
    compaction = nodes[cut.compaction]
    name = short_id(compaction.id)
    tb = layout.orientation == "TB"
    if tb:
        y = (nodes[cut.above].y + below.y) / 2 if cut.above is not None else below.y + 0.5
        ax.plot(
            [below.x - 0.45, below.x + 0.45],
            [y, y],
            color=_CUT_COLOUR,
            lw=1.6 * scale,
            ls="--",
            zorder=5,
        )
        ax.text(
            below.x - 0.5,
            y,
            _mpl_text(f"✂ cut of {name}"),
            ha="right",
            va="center",
            fontsize=font,
            color=_CUT_COLOUR,
            zorder=5,
        )
    else:
        x = (nodes[cut.above].x + below.x) / 2 if cut.above is not None else below.x - 0.5
        ax.plot(
            [x, x],
            [below.y - 0.45, below.y + 0.45],
            color=_CUT_COLOUR,
            lw=1.6 * scale,
            ls="--",
            zorder=5,
        )
        ax.text(
            x,
            below.y + 0.5,
            _mpl_text(f"✂ cut of {name}"),
            ha="center",
            va="bottom",
            fontsize=font,
            color=_CUT_COLOUR,
            zorder=5,
        )
    if cut.below == cut.compaction:
        return
    # firstKeptEntryId: a dashed bracket from the compaction back to the first kept entry,
    # on the side of the path where no branch is drawn (left in TB, above in LR).
    style = {"color": _CUT_COLOUR, "lw": 1.0 * scale, "ls": (0, (4, 3)), "zorder": 2}
    if tb:
        half_c = _half_width_points(compaction.text, font) / 72 / ux
        half_b = _half_width_points(below.text, font) / 72 / ux
        side = compaction.x - max(half_c, half_b) - 14 * scale / 72 / ux
        ax.plot([compaction.x - half_c, side, side], [compaction.y, compaction.y, below.y], **style)
        start, end = (side, below.y), (below.x - half_b, below.y)
        label_xy = (side - 3 * scale / 72 / ux, (below.y + compaction.y) / 2)
    else:
        half = 0.9 * font / 72 / uy
        side = compaction.y + half + 12 * scale / 72 / uy
        ax.plot([compaction.x, compaction.x, below.x], [compaction.y + half, side, side], **style)
        start, end = (below.x, side), (below.x, below.y + half)
        label_xy = ((below.x + compaction.x) / 2, side + 2 * scale / 72 / uy)
    ax.annotate(
        "",
        xy=end,
        xytext=start,
        zorder=2,
        arrowprops={
            "arrowstyle": "-|>",
            "color": _CUT_COLOUR,
            "lw": 1.0 * scale,
            "shrinkA": 0,
            "shrinkB": 0,
            "mutation_scale": 9 * scale,
        },
    )
    ax.text(
        *label_xy,
        "firstKeptEntryId",
        rotation=90 if tb else 0,
        ha="right" if tb else "center",
        va="center" if tb else "bottom",
        fontsize=font * 0.85,
        color=_CUT_COLOUR,
        fontstyle="italic",
        zorder=2,
    )


def draw_tree(
    session,
    leaf_id: object = None,
    *,
    ax=None,
    orientation: str = "TB",
    collapse: bool | int | None = None,
    figsize: tuple[float, float] | None = None,
):
    """Draw the entry tree with the path to ``leaf_id`` and every entry's fate.

    Returns a ``matplotlib.figure.Figure``. Without ``ax`` the figure is sized to the
    tree (one column per leaf) and made without pyplot, so no backend is chosen or
    changed: Jupyter shows it as PNG, a script calls ``fig.savefig``. With ``ax``
    (e.g. from ``plt.subplots()``) the tree is drawn into it.

    >>> import pisession
    >>> fig = draw_tree(pisession.load(pisession.sample_path("tour")), "cm000001")
    >>> type(fig).__name__
    'TreeFigure'
    """
    layout = tree_layout(session, leaf_id, orientation=orientation, collapse=collapse)
    return draw_layout(layout, ax=ax, figsize=figsize)


def figure_png(fig, dpi: int = 100) -> bytes:
    """A figure as PNG bytes (deterministic: no date or software metadata).

    >>> import pisession
    >>> figure_png(draw_tree(pisession.load(pisession.sample_path("tour"))))[:4]
    b'\\x89PNG'
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def save_tree(
    session,
    path: str | os.PathLike,
    leaf_id: object = None,
    *,
    dpi: int = 120,
    **options,
) -> Path:
    """Draw the tree (``draw_tree`` options) and write it as PNG or SVG, by suffix.

    The output is deterministic: the same file gives the same bytes (no dates, fixed
    SVG ids).

    >>> import pisession, tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "tour.svg"
    >>> save_tree(pisession.load(pisession.sample_path("tour")), out).suffix
    '.svg'
    """
    import matplotlib

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ValueError(f"save_tree writes .png or .svg files, not {target.name!r}")
    fig = draw_tree(session, leaf_id, **options)
    metadata = {"Date": None} if suffix == ".svg" else {"Software": None}
    with matplotlib.rc_context({"svg.hashsalt": "pisession", "svg.fonttype": "path"}):
        fig.savefig(target, format=suffix[1:], dpi=dpi, metadata=metadata)
    return target
